//! Generated data for `crate::tokens`:
//!
//! * `<encoding>.lens` / `<encoding>.bytes`: the bundled `.tiktoken.gz` vocabulary decoded once here,
//!   so the extension only has to index raw bytes at run time (one length byte per rank, then all
//!   token bytes concatenated in rank order). The build fails loudly if a file is malformed.
//! * `tokens_unicode.rs`: a two-stage table mapping every code point to the character-class flags the
//!   pre-tokenizers need. The sets come from `regex-syntax`, the crate whose Unicode tables tiktoken's
//!   regex engine (fancy-regex → regex) matches with, so `\p{L}`, `\s`, ... mean exactly the same here.
//! * `tokens_fold.rs`: which characters `(?i)` lets stand for the letters of the contraction
//!   alternatives (`'s`, `'ll`, ...), again straight from `regex-syntax`'s case folding.

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use regex_syntax::hir::{Class, HirKind};

const ENCODINGS: [&str; 2] = ["cl100k_base", "o200k_base"];

// Keep in sync with `src/tokens/unicode.rs`.
const LETTER: u8 = 1;
const UPSET: u8 = 2;
const LOWSET: u8 = 4;
const NUMBER: u8 = 8;
const SPACE: u8 = 16;
const NEWLINE: u8 = 32;
const PUNCT: u8 = 64;

pub fn generate() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    for name in ENCODINGS {
        let path = manifest.join("data").join(format!("{name}.tiktoken.gz"));
        println!("cargo:rerun-if-changed={}", path.display());
        write_vocab(&path, &out, name);
    }
    println!("cargo:rerun-if-changed=build/tokens.rs");
    std::fs::write(out.join("tokens_unicode.rs"), unicode_tables()).expect("write unicode tables");
    std::fs::write(out.join("tokens_fold.rs"), fold_table()).expect("write fold table");
}

fn write_vocab(path: &Path, out: &Path, name: &str) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{}: not a gzipped UTF-8 file: {e}", path.display()));
    let mut lens = Vec::new();
    let mut bytes = Vec::new();
    for (line_no, line) in text.lines().filter(|l| !l.is_empty()).enumerate() {
        let mut fields = line.split(' ');
        let (Some(b64), Some(rank), None) = (fields.next(), fields.next(), fields.next()) else {
            panic!(
                "{}:{}: expected `<base64> <rank>`",
                path.display(),
                line_no + 1
            );
        };
        let rank: usize = rank.parse().expect("rank is an integer");
        // Ranks must be dense and in order so that rank == index into the generated arrays.
        assert_eq!(
            rank,
            line_no,
            "{}: ranks are not 0..n in order",
            path.display()
        );
        let token = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap_or_else(|e| panic!("{}:{}: bad base64: {e}", path.display(), line_no + 1));
        assert!(
            !token.is_empty() && token.len() <= 255,
            "token length out of range"
        );
        lens.push(token.len() as u8);
        bytes.extend_from_slice(&token);
    }
    std::fs::write(out.join(format!("{name}.lens")), lens).expect("write lens");
    std::fs::write(out.join(format!("{name}.bytes")), bytes).expect("write bytes");
}

/// The code-point ranges of a one-class regex such as `\p{Lu}`.
fn ranges(pattern: &str) -> Vec<(u32, u32)> {
    let hir = regex_syntax::parse(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        other => panic!("{pattern} is not a Unicode class: {other:?}"),
    }
}

fn unicode_tables() -> String {
    const MAX: usize = 0x11_0000;
    let mut flags = vec![0u8; MAX];
    let mut set = |pattern: &str, bits: u8| {
        for (lo, hi) in ranges(pattern) {
            for cp in lo..=hi {
                flags[cp as usize] |= bits;
            }
        }
    };
    set(r"[\p{Lu}\p{Lt}]", LETTER | UPSET);
    set(r"\p{Ll}", LETTER | LOWSET);
    set(r"[\p{Lm}\p{Lo}]", LETTER | UPSET | LOWSET);
    set(r"\p{M}", UPSET | LOWSET);
    set(r"\p{N}", NUMBER);
    set(r"\s", SPACE);
    set(r"[\r\n]", NEWLINE);
    // `[^\s\p{L}\p{N}]`: everything that is neither whitespace, letter nor number (marks included).
    for f in flags.iter_mut() {
        if *f & (LETTER | NUMBER | SPACE) == 0 {
            *f |= PUNCT;
        }
    }
    // Sanity: the general categories used are disjoint, so no code point may carry two of them.
    for (cp, f) in flags.iter().enumerate() {
        let kinds = [LETTER, NUMBER, SPACE]
            .iter()
            .filter(|&&k| f & k != 0)
            .count();
        assert!(kinds <= 1, "U+{cp:04X} is in more than one of L, N, \\s");
    }

    // Two-stage table: blocks of 256 code points, identical blocks stored once.
    let mut blocks: Vec<&[u8]> = Vec::new();
    let mut stage1 = Vec::with_capacity(MAX / 256);
    for chunk in flags.chunks(256) {
        let id = match blocks.iter().position(|b| *b == chunk) {
            Some(id) => id,
            None => {
                blocks.push(chunk);
                blocks.len() - 1
            }
        };
        stage1.push(u16::try_from(id).expect("fewer than 65536 blocks"));
    }
    let mut src =
        String::from("// @generated by build/tokens.rs from regex-syntax's Unicode tables.\n");
    let _ = writeln!(
        src,
        "pub static STAGE1: [u16; {}] = {:?};",
        stage1.len(),
        stage1
    );
    let flat: Vec<u8> = blocks.concat();
    let _ = writeln!(src, "pub static STAGE2: [u8; {}] = {:?};", flat.len(), flat);
    src
}

fn fold_table() -> String {
    let mut src =
        String::from("// @generated by build/tokens.rs from regex-syntax's case folding.\n");
    src.push_str("/// Whether `c` matches the ASCII letter `ascii` under `(?i)`.\n");
    src.push_str("pub fn folds_to(c: char, ascii: u8) -> bool {\n    match ascii {\n");
    for letter in ['d', 'e', 'l', 'm', 'r', 's', 't', 'v'] {
        let chars: Vec<String> = ranges(&format!("(?i){letter}"))
            .into_iter()
            .flat_map(|(lo, hi)| lo..=hi)
            .map(|cp| format!("'\\u{{{cp:x}}}'"))
            .collect();
        let _ = writeln!(
            src,
            "        b'{letter}' => matches!(c, {}),",
            chars.join(" | ")
        );
    }
    src.push_str("        _ => false,\n    }\n}\n");
    src
}
