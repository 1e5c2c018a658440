use super::*;

fn msg<'a>(role: &'a str, content: &'a str, tools: &[&'a str]) -> Message<'a> {
    Message {
        role,
        content,
        tool_names: tools.to_vec(),
    }
}

const ENC: Encoding = Encoding::O200k;

fn cost(m: &Message<'_>) -> usize {
    message_cost(m, ENC, usize::MAX).unwrap()
}

/// A transcript of `turns` turns: user question, assistant tool call, tool result, answer.
fn transcript(texts: &[String]) -> Vec<Message<'_>> {
    let mut out = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        out.push(msg("user", t, &[]));
        if i % 2 == 0 {
            out.push(msg("assistant", "", &["search", "read_file"]));
            out.push(msg("tool", t, &[]));
            out.push(msg("tool", "ok", &[]));
        }
        out.push(msg("assistant", t, &[]));
    }
    out
}

#[test]
fn empty_transcript_and_transcripts_that_fit() {
    let d = digest(&[], 100, ENC, 0.5).unwrap();
    assert_eq!((d.text.as_str(), d.keep_from, d.total_tokens), ("", 0, 0));
    let m = [msg("user", "hi", &[]), msg("assistant", "hello", &[])];
    let d = digest(&m, 100, ENC, 0.5).unwrap();
    assert_eq!((d.text.as_str(), d.keep_from), ("", 0));
    assert_eq!(d.total_tokens, cost(&m[0]) + cost(&m[1]));
}

#[test]
fn invalid_arguments_are_errors() {
    assert!(
        matches!(digest(&[], MIN_BUDGET - 1, ENC, 0.5), Err(Error::InvalidInput(m)) if m.contains("minimum"))
    );
    assert!(matches!(
        digest(&[], 100, ENC, 1.5),
        Err(Error::InvalidInput(_))
    ));
    assert!(matches!(
        digest(&[], 100, ENC, f64::NAN),
        Err(Error::InvalidInput(_))
    ));
}

#[test]
fn old_turns_are_condensed_and_recent_ones_kept() {
    let texts: Vec<String> = (0..40)
        .map(|i| format!("Question {i}: how does feature {i} work in detail?\nThanks."))
        .collect();
    let m = transcript(&texts);
    let d = digest(&m, 600, ENC, 0.5).unwrap();
    assert!(d.total_tokens <= 600);
    assert!(d.keep_from > 0 && d.keep_from < m.len());
    assert_ne!(m[d.keep_from].role, "tool");
    let kept: usize = m[d.keep_from..].iter().map(cost).sum();
    assert!(kept <= 300);
    assert_eq!(d.total_tokens, kept + d.digest_tokens);
    assert_eq!(
        d.digest_tokens,
        MESSAGE_OVERHEAD + 1 + tokens::count(&d.text, ENC)
    );
    assert!(d.text.starts_with(HEADER));
    assert!(d.omitted_turns > 0);
    assert!(d.text.contains(&omitted_line(d.omitted_turns)));
    assert!(!d.text.contains("\n\n"));
    let last_line = d.text.lines().last().unwrap();
    assert!(last_line.starts_with("- user: Question"), "{last_line}");
    assert!(d.text.contains("tools: search, read_file"));
}

#[test]
fn never_starts_on_a_tool_result() {
    // The tail that would fit starts at the second tool result: back off to the assistant call.
    let big = "data ".repeat(200);
    let m = [
        msg("user", &big, &[]),
        msg("assistant", "", &["fetch"]),
        msg("tool", &big, &[]),
        msg("tool", "short", &[]),
        msg("assistant", "done", &[]),
    ];
    for budget in [40, 60, 100, 300, 500] {
        let d = digest(&m, budget, ENC, 0.5).unwrap();
        assert!(
            d.keep_from == m.len() || m[d.keep_from].role != "tool",
            "budget {budget}"
        );
        assert!(d.total_tokens <= budget);
    }
}

#[test]
fn budget_smaller_than_any_message_keeps_only_the_digest() {
    let huge = "x".repeat(1_000_000) + " end";
    let m = [msg("user", &huge, &[]), msg("assistant", &huge, &[])];
    let d = digest(&m, MIN_BUDGET, ENC, 0.5).unwrap();
    assert_eq!(d.keep_from, 2);
    assert!(d.total_tokens <= MIN_BUDGET);
    assert!(!d.text.is_empty());
    assert!(d.text.contains("omitted") || d.text.contains("user: x"));
    // Heads of huge messages are cut.
    let d = digest(&m, 200, ENC, 0.5).unwrap();
    assert!(d.text.contains('…'));
    assert!(d
        .text
        .lines()
        .all(|l| l.chars().count() < 2 * HEAD_CHARS + 40));
}

#[test]
fn totals_never_exceed_the_budget() {
    let mut x: u64 = 42;
    let mut rnd = |n: u64| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) % n
    };
    let words = [
        "alpha",
        "beta",
        "\n",
        "γάμμα",
        "中文",
        "😀",
        "x1",
        "  ",
        "'ll",
        "...",
    ];
    for _ in 0..300 {
        let turns = rnd(30) as usize;
        let texts: Vec<String> = (0..turns)
            .map(|_| {
                (0..rnd(80))
                    .map(|_| words[rnd(words.len() as u64) as usize])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let m = transcript(&texts);
        let budget = MIN_BUDGET + rnd(800) as usize;
        let share = rnd(101) as f64 / 100.0;
        let d = digest(&m, budget, ENC, share).unwrap();
        assert!(d.total_tokens <= budget, "{} > {budget}", d.total_tokens);
        let kept: usize = m[d.keep_from..].iter().map(cost).sum();
        let digest_cost = if d.text.is_empty() {
            0
        } else {
            MESSAGE_OVERHEAD + 1 + tokens::count(&d.text, ENC)
        };
        assert_eq!(d.total_tokens, kept + digest_cost);
        assert!(d.keep_from == m.len() || m[d.keep_from].role != "tool");
        if d.keep_from > 0 {
            assert!(!d.text.is_empty(), "older turns are never dropped silently");
        }
    }
}
