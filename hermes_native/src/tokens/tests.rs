//! Behaviour of the public token API; exactness against tiktoken is proven by the Python
//! differential tests, these pin known answers and the invariants.

use super::*;

#[test]
fn known_counts() {
    // Values from tiktoken 0.14.
    assert_eq!(count("", Encoding::O200k), 0);
    assert_eq!(count("hello world", Encoding::Cl100k), 2);
    assert_eq!(encode("hello world", Encoding::Cl100k), [15339, 1917]);
    assert_eq!(encode("hello world", Encoding::O200k), [24912, 2375]);
}

#[test]
fn unknown_encoding_lists_the_valid_ones() {
    let err = Encoding::from_name("p50k_base").unwrap_err();
    assert!(matches!(&err, Error::UnknownEncoding(m) if m.contains("cl100k_base, o200k_base")));
}

#[test]
fn encode_decode_round_trip_and_count_agree() {
    let text = "Hello, wörld! 你好世界 🙂👍🏽 \r\n\t x = f(y) // 12345\u{a0}\u{2028}'LL";
    for enc in Encoding::ALL {
        let tokens = encode(text, enc);
        assert_eq!(tokens.len(), count(text, enc));
        assert_eq!(decode_bytes(&tokens, enc).unwrap(), text.as_bytes());
    }
}

#[test]
fn long_runs_without_spaces_round_trip() {
    // A base64-like run with no spaces is one piece far above the heap-merge threshold.
    let mut run = String::new();
    let mut x: u32 = 12345;
    for _ in 0..100_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        run.push(
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[(x >> 16) as usize % 52]
                as char,
        );
    }
    for enc in Encoding::ALL {
        let tokens = encode(&run, enc);
        assert_eq!(tokens.len(), count(&run, enc));
        assert!(
            tokens.len() < run.len() * 3 / 4,
            "merges happened: {}",
            tokens.len()
        );
        assert_eq!(decode_bytes(&tokens, enc).unwrap(), run.as_bytes());
    }
}

#[test]
fn batch_equals_singles_also_when_parallel() {
    let texts: Vec<String> = (0..64)
        .map(|i| format!("document {i}: {}", "lorem ipsum dolor ".repeat(1200)))
        .collect();
    assert!(texts.iter().map(String::len).sum::<usize>() > PARALLEL_MIN_BYTES);
    for enc in Encoding::ALL {
        let singles: Vec<usize> = texts.iter().map(|t| count(t, enc)).collect();
        assert_eq!(count_batch(&texts, enc), singles);
        assert_eq!(count_batch(&texts[..3], enc), singles[..3]);
    }
    assert!(count_batch::<&str>(&[], Encoding::O200k).is_empty());
}

#[test]
fn decode_rejects_unknown_ids() {
    let err = decode_bytes(&[1, 300_000], Encoding::O200k).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidInput(m) if m.contains("300000") && m.contains("index 1"))
    );
}

#[test]
fn vocab_sizes() {
    assert_eq!(vocab_size(Encoding::Cl100k), 100_256);
    assert_eq!(vocab_size(Encoding::O200k), 199_998);
}

#[test]
fn count_up_to_stops_at_the_limit() {
    let text = "one two three four five";
    let n = count(text, Encoding::O200k);
    assert_eq!(count_up_to(text, Encoding::O200k, n), Some(n));
    assert_eq!(count_up_to(text, Encoding::O200k, n - 1), None);
    assert_eq!(count_up_to("", Encoding::O200k, 0), Some(0));
}
