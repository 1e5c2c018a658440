//! Token count of a chat transcript as the OpenAI cookbook ("How to count tokens with tiktoken")
//! computes it for current chat models: every message costs 3 tokens of framing plus the tokens of
//! each of its values (role and content included), a `name` field costs 1 more, and 3 tokens prime
//! the reply. An empty transcript therefore costs 3.

use super::{count, Encoding};

/// Framing tokens per message (`<|start|>{role}\n ... <|end|>\n`).
pub const TOKENS_PER_MESSAGE: usize = 3;
/// Extra token when a message carries a `name`.
pub const TOKENS_PER_NAME: usize = 1;
/// Tokens that prime the assistant's reply (`<|start|>assistant<|message|>`).
pub const REPLY_PRIMING: usize = 3;

/// Count a transcript whose messages are lists of `(key, value)` fields.
pub fn count_chat<K, V>(messages: &[Vec<(K, V)>], encoding: Encoding) -> usize
where
    K: AsRef<str>,
    V: AsRef<str>,
{
    let per_message = messages.iter().map(|fields| {
        TOKENS_PER_MESSAGE
            + fields
                .iter()
                .map(|(key, value)| {
                    let name = if key.as_ref() == "name" {
                        TOKENS_PER_NAME
                    } else {
                        0
                    };
                    count(value.as_ref(), encoding) + name
                })
                .sum::<usize>()
    });
    per_message.sum::<usize>() + REPLY_PRIMING
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_name_and_priming() {
        let empty: Vec<Vec<(&str, &str)>> = Vec::new();
        assert_eq!(count_chat(&empty, Encoding::O200k), 3);
        let msgs = vec![
            vec![("role", "user"), ("content", "hello")],
            vec![("role", "user"), ("content", "hello"), ("name", "bob")],
        ];
        let text = count("user", Encoding::O200k) + count("hello", Encoding::O200k);
        let name = count("bob", Encoding::O200k);
        assert_eq!(
            count_chat(&msgs, Encoding::O200k),
            3 + text + 3 + text + name + 1 + 3
        );
    }
}
