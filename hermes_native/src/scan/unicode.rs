//! Rules on invisible and direction-changing code points, with their benign contexts exempted:
//! emoji ZWJ sequences, subdivision flags (U+1F3F4 + tags + U+E007F), a single variation selector after
//! a base that takes one, registered ideographic variation sequences, ZWJ/ZWNJ between letters of
//! scripts that use them, direction marks and isolates in right-to-left text, a leading BOM.

use super::decode;
use super::table::{Ranges, Table};
use super::{Hit, Scratch};

const ZERO_WIDTH: [u32; 5] = [0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF];
const MARKS: [u32; 3] = [0x200E, 0x200F, 0x061C];
const EMBEDDINGS: [u32; 7] = [0x202A, 0x202B, 0x202C, 0x2066, 0x2067, 0x2068, 0x2069];
const OVERRIDES: [u32; 2] = [0x202D, 0x202E];
const FILLERS: [(u32, u32); 9] = [
    (0x3164, 0x3164),
    (0xFFA0, 0xFFA0),
    (0x115F, 0x1160),
    (0x00AD, 0x00AD),
    (0x2061, 0x2064),
    (0x206A, 0x206F),
    (0xFFF9, 0xFFFB),
    (0x1D173, 0x1D17A),
    (0x1BCA0, 0x1BCA3),
];
/// `prev`/`next` when there is no neighbour.
const NONE: u32 = u32::MAX;

/// What a single code point triggers on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    ZeroWidth,
    BidiControl,
    BidiOverride,
    Tag,
    VsSmuggling,
    StrayVs,
    Filler,
}

impl Kind {
    fn rule_id(self) -> &'static str {
        match self {
            Kind::ZeroWidth => "unicode.zero_width",
            Kind::BidiControl => "unicode.bidi_control",
            Kind::BidiOverride => "unicode.bidi_override",
            Kind::Tag => "unicode.tag_characters",
            Kind::VsSmuggling => "unicode.variation_selector_smuggling",
            Kind::StrayVs => "unicode.stray_variation_selector",
            Kind::Filler => "unicode.invisible_filler",
        }
    }

    /// Kinds that merge into one `unicode.zero_width_run` finding when adjacent.
    fn is_invisible(self) -> bool {
        matches!(self, Kind::ZeroWidth | Kind::BidiControl | Kind::Filler)
    }
}

fn is_vs(cp: u32) -> bool {
    (0xFE00..=0xFE0F).contains(&cp) || (0xE0100..=0xE01EF).contains(&cp)
}

fn is_ascii_digit(cp: u32) -> bool {
    (0x30..=0x39).contains(&cp)
}

fn is_ascii_letter(cp: u32) -> bool {
    (0x41..=0x5A).contains(&cp) || (0x61..=0x7A).contains(&cp)
}

fn in_ranges(ranges: &Ranges, cp: u32) -> bool {
    cp != NONE && ranges.contains(cp)
}

/// Marks the tag characters that belong to a well-formed emoji subdivision flag.
fn valid_flag_tags(cps: &[u32]) -> Vec<bool> {
    let mut valid = vec![false; cps.len()];
    for j in 0..cps.len() {
        if cps[j] != 0x1F3F4 {
            continue;
        }
        let mut k = j + 1;
        while k < cps.len() && (0xE0020..=0xE007E).contains(&cps[k]) && k - j <= 16 {
            k += 1;
        }
        if k > j + 1 && k < cps.len() && cps[k] == 0xE007F {
            valid[j + 1..=k].iter_mut().for_each(|v| *v = true);
        }
    }
    valid
}

/// Whether a code point can trigger a Unicode rule at all: the cheap test that lets ordinary text skip
/// classification.
pub fn maybe_special(cp: u32) -> bool {
    matches!(cp,
        0x00AD | 0x061C | 0x115F..=0x1160 | 0x200B..=0x206F | 0x3164 | 0xFE00..=0xFE0F | 0xFEFF
        | 0xFFA0 | 0xFFF9..=0xFFFB | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A | 0xE0000..=0xE01EF)
}

/// A number and its unit ("100\u{2060}km", "4\u{2060}GiB") is a short word; a word joiner inside a
/// longer run of letters and digits (an API key, a hostname) hides something.
const UNIT_WORD_MAX: usize = 12;

/// Letters and ASCII digits on both sides of `cps[i]`, up to the first other code point.
fn word_around(cps: &[u32], i: usize, table: &Table) -> usize {
    let word = |cp: &&u32| is_ascii_digit(**cp) || in_ranges(&table.ranges.letters, **cp);
    let before = cps[..i].iter().rev().take_while(word).count();
    let after = cps[i + 1..].iter().take_while(word).count();
    before + after
}

fn classify(cps: &[u32], table: &Table) -> Vec<Option<Kind>> {
    let r = &table.ranges;
    let has_rtl = cps.iter().any(|cp| EMBEDDINGS.contains(cp))
        && cps.iter().any(|&cp| cp >= 0x590 && r.rtl.contains(cp));
    // an Arabic letter mark in a text without a right-to-left letter (it has no use there)
    let lone_alm = cps.contains(&0x061C)
        && !cps
            .iter()
            .any(|&cp| cp >= 0x590 && cp != 0x061C && r.rtl.contains(cp));
    let flags = if cps.iter().any(|cp| (0xE0000..=0xE007F).contains(cp)) {
        valid_flag_tags(cps)
    } else {
        vec![false; cps.len()]
    };
    let n = cps.len();
    (0..n)
        .map(|i| {
            let cp = cps[i];
            if !maybe_special(cp) {
                return None;
            }
            let prev = if i > 0 { cps[i - 1] } else { NONE };
            let next = if i + 1 < n { cps[i + 1] } else { NONE };
            if ZERO_WIDTH.contains(&cp) {
                let emoji_zwj = cp == 0x200D
                    && (in_ranges(&r.emoji, prev) || prev == 0xFE0F || prev == 0xE007F)
                    && in_ranges(&r.emoji, next);
                // ZWJ/ZWNJ shape the letter on either side (a chillu ends a word, a letter form
                // stands alone between two joiners)
                let joining = (cp == 0x200C || cp == 0x200D)
                    && (in_ranges(&r.joining, prev) || in_ranges(&r.joining, next));
                let word_break =
                    cp == 0x200B && in_ranges(&r.nospace, prev) && in_ranges(&r.nospace, next);
                let unit = cp == 0x2060
                    && ((is_ascii_digit(prev) && in_ranges(&r.letters, next))
                        || (in_ranges(&r.letters, prev) && is_ascii_digit(next)))
                    && word_around(cps, i, table) <= UNIT_WORD_MAX;
                let bom = cp == 0xFEFF && i == 0;
                (!(emoji_zwj || joining || word_break || unit || bom)).then_some(Kind::ZeroWidth)
            } else if MARKS.contains(&cp) {
                ((is_ascii_letter(prev) && is_ascii_letter(next)) || (cp == 0x061C && lone_alm))
                    .then_some(Kind::BidiControl)
            } else if EMBEDDINGS.contains(&cp) {
                (!has_rtl).then_some(Kind::BidiControl)
            } else if OVERRIDES.contains(&cp) {
                Some(Kind::BidiOverride)
            } else if (0xE0000..=0xE007F).contains(&cp) {
                (!flags[i]).then_some(Kind::Tag)
            } else if (0xFE00..=0xFE0F).contains(&cp) {
                if is_vs(prev) || is_vs(next) {
                    Some(Kind::VsSmuggling)
                } else if in_ranges(&r.emoji, prev) || in_ranges(&r.vs_base, prev) {
                    None
                } else {
                    Some(Kind::StrayVs)
                }
            } else if (0xE0100..=0xE01EF).contains(&cp) {
                if is_vs(prev) || is_vs(next) {
                    Some(Kind::VsSmuggling)
                } else if in_ranges(&r.cjk, prev) {
                    None
                } else {
                    Some(Kind::StrayVs)
                }
            } else if cp == 0x00AD {
                // a soft hyphen between two letters is hyphenation ("Donau\u{ad}dampf\u{ad}schiff");
                // a word it splits is still read whole by the fold view
                (!(in_ranges(&r.letters, prev) && in_ranges(&r.letters, next)))
                    .then_some(Kind::Filler)
            } else if FILLERS.iter().any(|&(lo, hi)| (lo..=hi).contains(&cp)) {
                Some(Kind::Filler)
            } else {
                None
            }
        })
        .collect()
}

/// Findings of the Unicode rules over `text` (whose code points are `cps`), plus what the tag and
/// right-to-left-override decoders find underneath.
pub fn findings(
    cps: &[u32],
    depth: u32,
    table: &'static Table,
    scratch: &mut Scratch,
    out: &mut Vec<Hit>,
) {
    let kinds = classify(cps, table);
    let n = cps.len();
    let mut i = 0;
    while i < n {
        let Some(kind) = kinds[i] else {
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < n
            && kinds[j].is_some_and(|k| {
                if kind.is_invisible() {
                    k.is_invisible()
                } else {
                    k == kind
                }
            })
        {
            j += 1;
        }
        let rule_id = if kind.is_invisible() && j - i >= 2 {
            "unicode.zero_width_run"
        } else {
            kind.rule_id()
        };
        out.push(Hit::new(i, j, table.builtin(rule_id)));
        if kind == Kind::Tag && depth < decode::MAX_DEPTH {
            let hidden: String = cps[i..j]
                .iter()
                .filter(|&&cp| (0xE0020..=0xE007E).contains(&cp))
                .filter_map(|&cp| char::from_u32(cp - 0xE0000))
                .collect();
            if !hidden.is_empty() {
                let id = "obfuscation.tag_payload";
                decode::report(&hidden, i, j, id, depth, table, scratch, out);
            }
        }
        i = j;
    }
    if depth < decode::MAX_DEPTH && cps.contains(&0x202E) {
        decode::reversed_segments(cps, depth, table, scratch, out);
    }
}

/// Greek letters that pass for Latin ones (capitals A B E Z H I K M N O P T Y X, small alpha, iota,
/// kappa, nu, omicron, rho, tau, upsilon). Mu, pi, epsilon and the rest are left out: "5μs", "πr²"
/// and "εr" are ordinary notation.
const GREEK_LOOKALIKES: [u32; 22] = [
    0x391, 0x392, 0x395, 0x396, 0x397, 0x399, 0x39A, 0x39C, 0x39D, 0x39F, 0x3A1, 0x3A4, 0x3A5,
    0x3A7, 0x3B1, 0x3B9, 0x3BA, 0x3BD, 0x3BF, 0x3C1, 0x3C4, 0x3C5,
];

/// How a code point counts inside a word for the mixed-script rule.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    /// Cyrillic, Armenian, Cherokee and Greek look-alike letters.
    Lookalike,
    /// Part of a word but neither (other Greek letters, combining marks, invisible joiners).
    Neutral,
}

fn script(cp: u32) -> Option<Script> {
    match cp {
        0x41..=0x5A | 0x61..=0x7A | 0xC0..=0xD6 | 0xD8..=0xF6 | 0xF8..=0x24F | 0x1E00..=0x1EFF => {
            Some(Script::Latin)
        }
        0x400..=0x52F | 0x531..=0x556 | 0x561..=0x587 | 0x13A0..=0x13F5 | 0xAB70..=0xABBF => {
            Some(Script::Lookalike)
        }
        _ if GREEK_LOOKALIKES.contains(&cp) => Some(Script::Lookalike),
        0x370..=0x3FF
        | 0x1F00..=0x1FFF
        | 0x300..=0x36F
        | 0x200B..=0x200D
        | 0x2060
        | 0xFEFF
        | 0xAD => Some(Script::Neutral),
        _ => None,
    }
}

/// `obfuscation.mixed_script`: a word that mixes Latin letters with Cyrillic, Armenian, Cherokee or
/// Greek look-alikes ("usеr" with a Cyrillic e, "пpeдыдyщиe" with Latin p, e, y). Natural writing
/// switches script between words, not inside one, so this catches the look-alikes the fold table
/// does not know as well as those it does.
pub fn mixed_script(text: &str, table: &'static Table, out: &mut Vec<Hit>) {
    let mut start = 0;
    let mut latin = false;
    let mut lookalike = false;
    let flush = |start: usize, end: usize, latin: bool, lookalike: bool, out: &mut Vec<Hit>| {
        if latin && lookalike {
            out.push(Hit::new(
                start,
                end,
                table.builtin("obfuscation.mixed_script"),
            ));
        }
    };
    let mut n = 0;
    for (i, c) in text.chars().enumerate() {
        n = i + 1;
        match script(c as u32) {
            None => {
                flush(start, i, latin, lookalike, out);
                start = i + 1;
                latin = false;
                lookalike = false;
            }
            Some(Script::Latin) => latin = true,
            Some(Script::Lookalike) => lookalike = true,
            Some(Script::Neutral) => {}
        }
    }
    flush(start, n, latin, lookalike, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::table::table;

    fn kinds(s: &str) -> Vec<Option<Kind>> {
        let cps: Vec<u32> = s.chars().map(|c| c as u32).collect();
        classify(&cps, table().unwrap())
    }

    #[test]
    fn benign_sequences_are_exempt() {
        for s in [
            "👨\u{200d}👩\u{200d}👧",
            "🏳\u{fe0f}\u{200d}🌈",
            "🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}",
            "1\u{fe0f}\u{20e3}",
            "葛\u{e0100}",
            "می\u{200c}خواهم",
            "\u{feff}hello",
            "שלום \u{200f}(x)",
            "ร้านอาหาร\u{200b}โปรด",
            "ភាសា\u{200b}ខ្មែរ",
            "東京\u{200b}大阪",
            "ന്\u{200d} ok",
            "هو \u{200d}ه\u{200d} و",
            "Donau\u{ad}dampf\u{ad}schiff",
            "10\u{2060}km",
        ] {
            assert!(kinds(s).iter().all(Option::is_none), "{s:?}");
        }
    }

    #[test]
    fn smuggling_is_flagged() {
        assert!(kinds("a\u{200b}b").contains(&Some(Kind::ZeroWidth)));
        assert!(kinds("ร้าน\u{200b}b").contains(&Some(Kind::ZeroWidth)));
        assert!(kinds("se\u{2060}nd").contains(&Some(Kind::ZeroWidth)));
        assert!(kinds("a\u{ad}\u{ad}b").contains(&Some(Kind::Filler)));
        assert!(kinds("x\u{ad} y").contains(&Some(Kind::Filler)));
        assert!(kinds("😊\u{fe01}\u{e0110}").contains(&Some(Kind::VsSmuggling)));
        assert!(kinds("a\u{fe0f}").contains(&Some(Kind::StrayVs)));
        assert!(kinds("hi\u{e0068}\u{e0069}").contains(&Some(Kind::Tag)));
        assert!(kinds("x\u{202e}y").contains(&Some(Kind::BidiOverride)));
        assert!(kinds("ab\u{2066}c").contains(&Some(Kind::BidiControl)));
    }

    fn mixed(s: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        mixed_script(s, table().unwrap(), &mut out);
        out.iter().map(|h| (h.start, h.end)).collect()
    }

    #[test]
    fn words_mixing_latin_and_look_alikes_are_flagged() {
        assert_eq!(mixed("tell the us\u{435}r now"), vec![(9, 13)]);
        assert_eq!(mixed("\u{418}\u{433}\u{43d}op"), vec![(0, 5)]);
        assert!(mixed("5 \u{3bc}s, \u{3c0}r, \u{418}\u{432}\u{430}\u{43d} Docker").is_empty());
    }
}
