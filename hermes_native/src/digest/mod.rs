//! The context-compression digest of a transcript.
//!
//! Given messages and a token budget, keep the latest messages verbatim and condense everything
//! older into one digest text, so that both together fit the budget:
//!
//! 1. If the whole transcript fits, everything is kept and the digest is empty.
//! 2. Otherwise the verbatim tail is the longest suffix costing at most
//!    `min(floor(budget × recent_share), budget − DIGEST_RESERVE)` whose first message is not a tool
//!    result, so an assistant tool call is never separated from its results.
//! 3. The older messages are grouped into turns (see [`condense`]), one line each. The newest lines
//!    that fit what is left of the budget are kept; older ones are dropped and an explicit
//!    `[N earlier turns omitted]` line says so. If not even the header fits, the digest is that line
//!    alone; [`DIGEST_RESERVE`] guarantees it always fits.
//!
//! Costs are exact token counts under the chosen encoding:
//! * a message costs [`MESSAGE_OVERHEAD`] + tokens(role) + tokens(content) + Σ tokens(tool name)
//!   (tool-call arguments are not part of the input and are not counted);
//! * the digest, when not empty, costs like a message with role [`DIGEST_ROLE`]:
//!   [`MESSAGE_OVERHEAD`] + tokens(role) + tokens(text). `system`, `user` and `assistant` are one
//!   token each in both encodings, so the cost holds whichever role the caller sends it as.
//!
//! `total_tokens` = digest cost + Σ cost of the kept messages, and is always ≤ the budget.

mod condense;

use crate::tokens::{self, Encoding};
use crate::{Error, Result};

pub use condense::{HEAD_CHARS, MAX_TOOLS};

/// Framing tokens per message (as in the chat counter).
pub const MESSAGE_OVERHEAD: usize = tokens::TOKENS_PER_MESSAGE;
/// The role the digest is costed as.
pub const DIGEST_ROLE: &str = "system";
/// First line of a digest.
pub const HEADER: &str = "Earlier conversation, condensed (oldest first):";
/// Budget always left for the digest when older turns exist: enough for the omitted-turns line.
pub const DIGEST_RESERVE: usize = 32;
/// Smallest budget accepted.
pub const MIN_BUDGET: usize = DIGEST_RESERVE;

/// One message of the transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message<'a> {
    pub role: &'a str,
    pub content: &'a str,
    /// Names of the tools this message calls (assistant messages).
    pub tool_names: Vec<&'a str>,
}

/// The digest of a transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    /// Condensed older turns; empty when everything is kept verbatim.
    pub text: String,
    /// `messages[keep_from..]` are kept verbatim.
    pub keep_from: usize,
    /// Digest cost plus the cost of every kept message; never above the budget.
    pub total_tokens: usize,
    /// Cost of the digest alone (0 when `text` is empty).
    pub digest_tokens: usize,
    /// Older turns that have a line in the digest.
    pub condensed_turns: usize,
    /// Older turns dropped from the digest (announced by its omitted-turns line).
    pub omitted_turns: usize,
}

/// The `[N earlier turns omitted]` line.
pub fn omitted_line(n: usize) -> String {
    format!(
        "[{n} earlier turn{} omitted]",
        if n == 1 { "" } else { "s" }
    )
}

/// Cost of `m` if it is at most `limit`.
fn message_cost(m: &Message<'_>, encoding: Encoding, limit: usize) -> Option<usize> {
    let fixed = MESSAGE_OVERHEAD
        + tokens::count(m.role, encoding)
        + m.tool_names
            .iter()
            .map(|t| tokens::count(t, encoding))
            .sum::<usize>();
    let content = tokens::count_up_to(m.content, encoding, limit.checked_sub(fixed)?)?;
    Some(fixed + content)
}

/// Build the digest of `messages` within `budget` tokens.
pub fn digest(
    messages: &[Message<'_>],
    budget: usize,
    encoding: Encoding,
    recent_share: f64,
) -> Result<Digest> {
    if budget < MIN_BUDGET {
        return Err(Error::InvalidInput(format!(
            "budget of {budget} tokens is below the minimum of {MIN_BUDGET}; \
             a digest needs room for at least its omitted-turns line"
        )));
    }
    if !(0.0..=1.0).contains(&recent_share) {
        return Err(Error::InvalidInput(format!(
            "recent_share must be between 0 and 1, got {recent_share}"
        )));
    }
    let recent_budget =
        ((budget as f64 * recent_share).floor() as usize).min(budget - DIGEST_RESERVE);

    // Walk back from the newest message: the verbatim tail grows while it fits `recent_budget`, and
    // the walk goes on only to learn whether the whole transcript fits `budget`.
    let mut suffix = 0;
    let (mut keep_from, mut verbatim) = (messages.len(), 0);
    let mut all_fit = true;
    for (i, m) in messages.iter().enumerate().rev() {
        let Some(cost) = message_cost(m, encoding, budget.saturating_sub(suffix)) else {
            all_fit = false;
            break;
        };
        suffix += cost;
        if suffix <= recent_budget && m.role != "tool" {
            (keep_from, verbatim) = (i, suffix);
        }
    }
    if all_fit {
        return Ok(Digest {
            text: String::new(),
            keep_from: 0,
            total_tokens: suffix,
            digest_tokens: 0,
            condensed_turns: 0,
            omitted_turns: 0,
        });
    }

    let older = &messages[..keep_from];
    let turns = condense::turns(older);
    let framing = MESSAGE_OVERHEAD + tokens::count(DIGEST_ROLE, encoding);
    let available = budget.saturating_sub(verbatim + framing);
    let (text, condensed) = fit_lines(older, &turns, available, encoding);
    let digest_tokens = if text.is_empty() {
        0
    } else {
        framing + tokens::count(&text, encoding)
    };
    Ok(Digest {
        text,
        keep_from,
        total_tokens: verbatim + digest_tokens,
        digest_tokens,
        condensed_turns: condensed,
        omitted_turns: turns.len() - condensed,
    })
}

/// The digest text with as many of the newest turn lines as fit `available` tokens, and how many
/// lines it has. Sizes are first estimated line by line, then the assembled text is counted
/// exactly and lines are dropped until it fits.
fn fit_lines(
    older: &[Message<'_>],
    turns: &[(usize, usize)],
    available: usize,
    encoding: Encoding,
) -> (String, usize) {
    let count = |s: &str| tokens::count(s, encoding);
    let marker_cost = |omitted: usize| {
        if omitted == 0 {
            0
        } else {
            count(&omitted_line(omitted)) + 1
        }
    };
    let base = count(HEADER) + 1;
    let mut lines: Vec<String> = Vec::new(); // newest first
    let mut estimate = base + marker_cost(turns.len());
    for &turn in turns.iter().rev() {
        let line = condense::line(older, turn);
        let kept = lines.len() + 1;
        let next = estimate - marker_cost(turns.len() - kept + 1)
            + marker_cost(turns.len() - kept)
            + count(&line)
            + 1;
        if next > available {
            break;
        }
        estimate = next;
        lines.push(line);
    }
    let assemble = |k: usize| {
        let omitted = turns.len() - k;
        let mut text = String::from(HEADER);
        if omitted > 0 {
            text.push('\n');
            text.push_str(&omitted_line(omitted));
        }
        for line in lines[..k].iter().rev() {
            text.push('\n');
            text.push_str(line);
        }
        text
    };
    let mut k = lines.len();
    loop {
        let text = assemble(k);
        if count(&text) <= available {
            return (text, k);
        }
        if k == 0 {
            break;
        }
        k -= 1;
    }
    let alone = omitted_line(turns.len());
    if count(&alone) <= available {
        (alone, 0)
    } else {
        (String::new(), 0)
    }
}

#[cfg(test)]
mod tests;
