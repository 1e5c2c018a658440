//! Older turns condensed to one line each.
//!
//! A turn starts at each `user` message (messages before the first one form a turn of their own).
//! Its line is `- user: <head> | assistant: <head> | tools: a, b`, where the user head is the first
//! user text of the turn, the assistant head its last non-empty assistant text (the answer, after any
//! tool rounds), and the tools the names the turn called, de-duplicated in order of first use. Heads
//! are the text with every whitespace run turned into one space, cut to [`HEAD_CHARS`] characters at
//! a grapheme boundary with `…` appended. Parts that are empty are left out; a turn with none at all
//! reads `- (no text)`.

use unicode_segmentation::UnicodeSegmentation;

use super::Message;

/// Longest head, in characters, including the `…` that marks a cut.
pub const HEAD_CHARS: usize = 100;
/// Most tool names listed on one line; the rest are summarised as `+N more`.
pub const MAX_TOOLS: usize = 8;

/// Half-open message index ranges of the turns in `messages`.
pub fn turns(messages: &[Message<'_>]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, m) in messages.iter().enumerate() {
        if m.role == "user" && i > start {
            out.push((start, i));
            start = i;
        }
    }
    if start < messages.len() {
        out.push((start, messages.len()));
    }
    out
}

/// `text` on one line and at most `HEAD_CHARS` characters.
pub fn head(text: &str) -> String {
    let mut flat = String::with_capacity(text.len().min(4 * HEAD_CHARS + 8));
    let mut chars = 0;
    for word in text.split_whitespace() {
        if !flat.is_empty() {
            flat.push(' ');
            chars += 1;
        }
        flat.push_str(word);
        chars += word.chars().count();
        if chars > HEAD_CHARS {
            break; // enough to know it must be cut; the rest of a huge message is never scanned
        }
    }
    if chars <= HEAD_CHARS {
        return flat;
    }
    let mut out = String::with_capacity(4 * HEAD_CHARS);
    let mut used = 0;
    for grapheme in flat.graphemes(true) {
        let n = grapheme.chars().count();
        if used + n > HEAD_CHARS - 1 {
            break;
        }
        out.push_str(grapheme);
        used += n;
    }
    if used == 0 {
        // One grapheme longer than a whole head (e.g. hundreds of combining marks): cut inside it.
        out.extend(flat.chars().take(HEAD_CHARS - 1));
    }
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// The one-line summary of the turn `messages[start..end]`.
pub fn line(messages: &[Message<'_>], (start, end): (usize, usize)) -> String {
    let turn = &messages[start..end];
    let user = turn
        .iter()
        .find(|m| m.role == "user" && !m.content.trim().is_empty());
    let assistant = turn
        .iter()
        .rev()
        .find(|m| m.role == "assistant" && !m.content.trim().is_empty());
    let mut tools: Vec<&str> = Vec::new();
    for name in turn
        .iter()
        .filter(|m| m.role == "assistant")
        .flat_map(|m| m.tool_names.iter())
    {
        if !tools.contains(name) {
            tools.push(name);
        }
    }
    let mut parts = Vec::with_capacity(3);
    if let Some(m) = user {
        parts.push(format!("user: {}", head(m.content)));
    }
    if let Some(m) = assistant {
        parts.push(format!("assistant: {}", head(m.content)));
    }
    if !tools.is_empty() {
        let mut listed = tools
            .iter()
            .take(MAX_TOOLS)
            .map(|t| head(t))
            .collect::<Vec<_>>()
            .join(", ");
        if tools.len() > MAX_TOOLS {
            listed.push_str(&format!(", +{} more", tools.len() - MAX_TOOLS));
        }
        parts.push(format!("tools: {listed}"));
    }
    if parts.is_empty() {
        return "- (no text)".to_owned();
    }
    format!("- {}", parts.join(" | "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg<'a>(role: &'a str, content: &'a str, tools: &[&'a str]) -> Message<'a> {
        Message {
            role,
            content,
            tool_names: tools.to_vec(),
        }
    }

    #[test]
    fn turns_start_at_user_messages() {
        let m = [
            msg("assistant", "hi", &[]),
            msg("user", "q1", &[]),
            msg("assistant", "", &["search"]),
            msg("tool", "r", &[]),
            msg("assistant", "a1", &[]),
            msg("user", "q2", &[]),
        ];
        assert_eq!(turns(&m), [(0, 1), (1, 5), (5, 6)]);
        assert_eq!(turns(&m[1..2]), [(0, 1)]);
        assert!(turns(&[]).is_empty());
        assert_eq!(
            line(&m, (1, 5)),
            "- user: q1 | assistant: a1 | tools: search"
        );
        assert_eq!(line(&[msg("tool", "x", &[])], (0, 1)), "- (no text)");
    }

    #[test]
    fn heads_are_one_line_and_cut_at_graphemes() {
        assert_eq!(head("  a\n\n b\tc\u{2028}d  "), "a b c d");
        let long = "word ".repeat(50);
        let h = head(&long);
        assert_eq!(h.chars().count(), HEAD_CHARS);
        assert!(h.ends_with("word…"));
        let family = "👨\u{200d}👩\u{200d}👧\u{200d}👦"; // 7 chars, one grapheme
        let h = head(&family.repeat(20));
        assert!(
            h.trim_end_matches('…').len().is_multiple_of(family.len()),
            "never mid-grapheme"
        );
        assert_eq!(
            head(&"e\u{301}".repeat(200)).chars().count(),
            HEAD_CHARS - 1
        );
        let zalgo = format!("Z{}", "\u{301}".repeat(300));
        assert_eq!(head(&zalgo).chars().count(), HEAD_CHARS);
    }

    #[test]
    fn tools_are_deduplicated_and_capped() {
        let names: Vec<String> = (0..12).map(|i| format!("t{i}")).collect();
        let mut tools: Vec<&str> = names.iter().map(String::as_str).collect();
        tools.push("t0");
        let m = [msg("assistant", "", &tools)];
        assert_eq!(
            line(&m, (0, 1)),
            "- tools: t0, t1, t2, t3, t4, t5, t6, t7, +4 more"
        );
    }
}
