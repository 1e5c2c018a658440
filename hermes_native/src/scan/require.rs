//! Literals a rule's regex cannot match without, derived from the pattern itself: they let the
//! matcher skip a rule whose `any`/`also` literals occur (common words such as "token" or "rule") but
//! whose regex provably has no match, and search only where a match could begin.
//!
//! Two facts are derived from the regex syntax tree:
//! - [`Need`]: literals that occur inside every match. A concatenation needs what each of its parts
//!   needs, an alternation what one of its branches needs, a literal that is [`rare`] enough needs
//!   itself.
//! - starts: literals one of which every match begins with (the prefix literals of `regex-syntax`).
//!
//! For the ASCII views the pattern is lowercased first (each literal and class replaced by its
//! lowercase image, so `(?i:Token)` and `TOKEN` both become `token`): those views are lowercase, or
//! (the raw view) searched case-insensitively, so the lowercase form of a match occurs wherever the
//! match does. Both facts are necessary conditions only: where they fail there is no match, which
//! keeps findings identical to running every regex everywhere.

use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{
    Capture, Class, ClassBytes, ClassBytesRange, Hir, HirKind, Look, Repetition,
};

/// Whether a literal is rare enough to be worth looking for: four letters or digits (shorter words,
/// "the " or " in ", occur in nearly every text and would only slow the literal scan), or three bytes
/// with punctuation ("://", "sk-").
fn rare(lit: &[u8]) -> bool {
    let alnum = lit.iter().filter(|b| b.is_ascii_alphanumeric()).count();
    let marks = lit
        .iter()
        .filter(|&&b| b != b' ' && !b.is_ascii_alphanumeric())
        .count();
    alnum >= 4 || (marks > 0 && alnum + marks >= 3)
}
/// A set of more alternatives is dropped (it rarely excludes anything and bloats the automaton).
pub const MAX_SET: usize = 64;
/// Short alternatives are joined with their neighbours into literals of at least this many bytes.
const JOIN_LEN: usize = 5;
/// At most this many start literals.
const MAX_STARTS: usize = 128;
/// Literals are cut to this many bytes (a piece of a needed literal is needed too): longer ones
/// rarely exclude more and make the automaton bigger.
const MAX_LEN: usize = 8;

/// A condition on which literals occur in a view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Need {
    /// Always met.
    True,
    /// One of these literals occurs.
    Any(Vec<Vec<u8>>),
    /// Every part is met.
    All(Vec<Need>),
    /// One of the parts is met.
    Either(Vec<Need>),
}

/// What a pattern tells the literal prefilter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Literals {
    /// Literals every match contains.
    pub needs: Need,
    /// Literals every match begins with, when there are few enough and none is short.
    pub starts: Option<Vec<Vec<u8>>>,
    /// Every match begins at the start of a line (the pattern begins with `(?m)^` or `^`).
    pub line_start: bool,
}

/// Nothing known: what a pattern that cannot be analysed gets.
const UNKNOWN: Literals = Literals {
    needs: Need::True,
    starts: None,
    line_start: false,
};

/// Start literals may be more common than needed literals: an occurrence costs one short anchored
/// search, not a search of the whole window (a window with many occurrences is searched instead). Two
/// bytes besides spaces (`sk` of `\bsk-...`, `hi` of `\bhi (?:ai|bot)`: most occurrences end the
/// search at once), or punctuation that is rare in prose.
fn usable_start(lit: &[u8]) -> bool {
    rare(lit)
        || lit.iter().filter(|&&b| b != b' ').count() >= 2
        || lit.iter().all(|b| b"<>[]{}|$`~^\\@#%&*=+_".contains(b))
}

/// Whether every match of `hir` begins at the start of a line.
fn begins_at_line_start(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Look(look) => matches!(look, Look::Start | Look::StartLF),
        HirKind::Concat(parts) => parts.first().is_some_and(begins_at_line_start),
        HirKind::Alternation(branches) => branches.iter().all(begins_at_line_start),
        HirKind::Capture(cap) => begins_at_line_start(&cap.sub),
        _ => false,
    }
}

/// Analyse `pattern` (syntax as the rules are compiled: bytes, Unicode off). `fold_case`: lowercase it
/// first (for views that are lowercase or searched case-insensitively).
pub fn analyze(pattern: &str, fold_case: bool) -> Literals {
    let parsed = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(pattern);
    let Ok(hir) = parsed else {
        return UNKNOWN;
    };
    let hir = if fold_case {
        match lowercase(&hir) {
            Some(hir) => hir,
            None => return UNKNOWN,
        }
    } else {
        hir
    };
    Literals {
        needs: need(&hir),
        starts: starts(&hir),
        line_start: begins_at_line_start(&hir),
    }
}

/// `hir` with every literal and byte class replaced by its ASCII-lowercase image: it matches exactly
/// the lowercased matches of `hir`. `None` for a Unicode class (not used by the rules).
fn lowercase(hir: &Hir) -> Option<Hir> {
    Some(match hir.kind() {
        HirKind::Literal(lit) => Hir::literal(lit.0.to_ascii_lowercase()),
        HirKind::Class(Class::Bytes(class)) => {
            let mut member = [false; 256];
            for range in class.ranges() {
                for b in range.start()..=range.end() {
                    member[b.to_ascii_lowercase() as usize] = true;
                }
            }
            let ranges = (0..=255u8)
                .filter(|&b| member[b as usize])
                .map(|b| ClassBytesRange::new(b, b));
            Hir::class(Class::Bytes(ClassBytes::new(ranges)))
        }
        HirKind::Class(Class::Unicode(_)) => return None,
        HirKind::Empty | HirKind::Look(_) => hir.clone(),
        HirKind::Repetition(rep) => Hir::repetition(Repetition {
            sub: Box::new(lowercase(&rep.sub)?),
            ..rep.clone()
        }),
        HirKind::Capture(cap) => Hir::capture(Capture {
            sub: Box::new(lowercase(&cap.sub)?),
            ..cap.clone()
        }),
        HirKind::Concat(parts) => Hir::concat(parts.iter().map(lowercase).collect::<Option<_>>()?),
        HirKind::Alternation(parts) => {
            Hir::alternation(parts.iter().map(lowercase).collect::<Option<_>>()?)
        }
    })
}

/// The literals every match of `hir` begins with, cut to [`MAX_LEN`] bytes, without those that
/// begin with another of the set.
fn starts(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(hir);
    let mut lits: Vec<Vec<u8>> = seq
        .literals()?
        .iter()
        .map(|l| l.as_bytes()[..l.as_bytes().len().min(MAX_LEN)].to_vec())
        .collect();
    if lits.is_empty() || !lits.iter().all(|l| usable_start(l)) {
        return None;
    }
    lits.sort_unstable();
    lits.dedup();
    let mut kept: Vec<Vec<u8>> = Vec::new();
    for lit in lits {
        // Sorted: a literal's prefixes in the set come right before it.
        if !kept.last().is_some_and(|k| lit.starts_with(k)) {
            kept.push(lit);
        }
    }
    (kept.len() <= MAX_STARTS).then_some(kept)
}

/// Every string `hir` matches, when that is a set of at most [`MAX_SET`] strings.
fn finite(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(vec![Vec::new()]),
        HirKind::Literal(lit) => Some(vec![lit.0.to_vec()]),
        HirKind::Class(Class::Bytes(class)) => {
            let bytes = class.ranges().iter().flat_map(|r| r.start()..=r.end());
            (bytes.clone().count() <= 4).then(|| bytes.map(|b| vec![b]).collect())
        }
        HirKind::Class(Class::Unicode(_)) => None,
        HirKind::Capture(cap) => finite(&cap.sub),
        HirKind::Repetition(rep) => {
            let max = rep.max.filter(|&m| m <= 3)?;
            let sub = finite(&rep.sub)?;
            let mut out = Vec::new();
            let mut power = vec![Vec::new()];
            for k in 0..=max {
                if k >= rep.min {
                    out.extend(power.iter().cloned());
                }
                if k < max {
                    power = product(&power, &sub)?;
                }
            }
            bounded(out)
        }
        HirKind::Concat(parts) => parts
            .iter()
            .try_fold(vec![Vec::new()], |acc, part| product(&acc, &finite(part)?)),
        HirKind::Alternation(branches) => {
            let mut out = Vec::new();
            for branch in branches {
                out.extend(finite(branch)?);
            }
            bounded(out)
        }
    }
}

fn bounded(mut set: Vec<Vec<u8>>) -> Option<Vec<Vec<u8>>> {
    set.sort_unstable();
    set.dedup();
    (set.len() <= MAX_SET).then_some(set)
}

/// Every string of `a` followed by every string of `b`, when that is at most [`MAX_SET`] strings.
fn product(a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    if a.len() * b.len() > MAX_SET {
        return None;
    }
    bounded(
        a.iter()
            .flat_map(|x| b.iter().map(move |y| [&x[..], &y[..]].concat()))
            .collect(),
    )
}

fn need(hir: &Hir) -> Need {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) | HirKind::Class(_) => Need::True,
        HirKind::Literal(lit) => strings(vec![lit.0.to_vec()]),
        HirKind::Capture(cap) => need(&cap.sub),
        HirKind::Repetition(rep) if rep.min >= 1 => need(&rep.sub),
        HirKind::Repetition(_) => Need::True,
        HirKind::Concat(parts) => all(concat(parts)),
        HirKind::Alternation(branches) => either(branches.iter().map(need).collect()),
    }
}

/// One of `set` occurs: a condition only when every string is long enough to be worth looking for.
fn strings(set: Vec<Vec<u8>>) -> Need {
    if set.iter().all(|s| rare(s)) {
        any_of(
            set.into_iter()
                .map(|s| s[..s.len().min(MAX_LEN)].to_vec())
                .collect(),
        )
    } else {
        Need::True
    }
}

/// The needs of a concatenation's parts. A part that can only match a few strings, some of them
/// short (`" "`, `(?:it|them)`), is joined with the parts after it until every string is
/// [`JOIN_LEN`] bytes long (`" it "`, `" them "`): a longer literal is a rarer one.
fn concat(parts: &[Hir]) -> Vec<Need> {
    let mut needs = Vec::new();
    // The strings the parts joined so far can match; empty: nothing joined.
    let mut run: Vec<Vec<u8>> = Vec::new();
    for part in parts {
        if matches!(part.kind(), HirKind::Look(_)) {
            continue;
        }
        let set = finite(part);
        if run.is_empty() {
            match set {
                Some(set) if set.iter().any(|s| s.len() < JOIN_LEN) => run = set,
                _ => needs.push(need(part)),
            }
        } else {
            match set.and_then(|set| product(&run, &set)) {
                Some(joined) => run = joined,
                None => {
                    needs.push(strings(std::mem::take(&mut run)));
                    needs.push(need(part));
                }
            }
        }
        if !run.is_empty() && run.iter().all(|s| s.len() >= JOIN_LEN) {
            needs.push(strings(std::mem::take(&mut run)));
        }
    }
    if !run.is_empty() {
        needs.push(strings(run));
    }
    needs
}

fn all(parts: Vec<Need>) -> Need {
    let mut out = Vec::new();
    for part in parts {
        match part {
            Need::True => {}
            Need::All(inner) => out.extend(inner),
            other => {
                if !out.contains(&other) {
                    out.push(other);
                }
            }
        }
    }
    match out.len() {
        0 => Need::True,
        1 => out.pop().unwrap_or(Need::True),
        _ => Need::All(out),
    }
}

fn either(branches: Vec<Need>) -> Need {
    let mut literals = Vec::new();
    let mut out = Vec::new();
    for branch in branches {
        match branch {
            Need::True => return Need::True,
            Need::Any(lits) => literals.extend(lits),
            Need::Either(inner) => {
                for n in inner {
                    match n {
                        Need::Any(lits) => literals.extend(lits),
                        other => out.push(other),
                    }
                }
            }
            other => out.push(other),
        }
    }
    if !literals.is_empty() {
        match any_of(literals) {
            Need::True => return Need::True,
            lits => out.push(lits),
        }
    }
    match out.len() {
        0 => Need::True,
        1 => out.pop().unwrap_or(Need::True),
        _ => Need::Either(out),
    }
}

/// One of `literals`: a literal that contains another of the set adds nothing (where it occurs, the
/// shorter one does too) and is dropped; too many alternatives mean no condition.
fn any_of(mut literals: Vec<Vec<u8>>) -> Need {
    literals.sort_unstable_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    literals.dedup();
    let mut kept: Vec<Vec<u8>> = Vec::new();
    for lit in literals {
        if !kept.iter().any(|k| contains(&lit, k)) {
            kept.push(lit);
        }
    }
    if kept.len() > MAX_SET {
        Need::True
    } else {
        Need::Any(kept)
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn met(need: &Need, hay: &str) -> bool {
        match need {
            Need::True => true,
            Need::Any(lits) => lits.iter().any(|l| contains(hay.as_bytes(), l)),
            Need::All(parts) => parts.iter().all(|p| met(p, hay)),
            Need::Either(parts) => parts.iter().any(|p| met(p, hay)),
        }
    }

    fn needs(pattern: &str) -> Need {
        analyze(pattern, true).needs
    }

    fn any(lits: &[&str]) -> Need {
        Need::Any(lits.iter().map(|l| l.as_bytes().to_vec()).collect())
    }

    #[test]
    fn concatenations_need_every_part_and_alternations_one_branch() {
        let need = needs(r"\bif you (?:are|were) (?:an? )?(?:bot|model)\b|\bdear (?:ai|llm)\b");
        assert!(met(&need, "if you were a model"));
        assert!(met(&need, "if you are bot"));
        assert!(met(&need, "dear ai"));
        assert!(!met(&need, "if you are a cat"), "bot or model is needed");
        assert!(!met(&need, "if you model"), "are or were is needed");
        assert!(!met(&need, "dearest"));
    }

    #[test]
    fn short_alternatives_join_their_neighbours() {
        assert_eq!(needs(r"x+ (?:obey|comply) y+"), any(&[" obey", " comply"]));
        assert_eq!(
            needs(r"x+ (?:it|them) y+"),
            Need::True,
            "' it ' is too common"
        );
        assert_eq!(
            needs(r"api[_ ]?key"),
            any(&["apikey", "api key", "api_key"])
        );
    }

    #[test]
    fn optional_parts_and_short_literals_need_nothing() {
        assert_eq!(needs(r"(?:abc)?x+"), Need::True);
        assert_eq!(needs(r"ab|cd"), Need::True);
        assert_eq!(needs(r"[a-z]{20,}"), Need::True);
        assert_eq!(needs(r"abc|x"), Need::True);
    }

    #[test]
    fn the_ascii_views_see_the_pattern_lowercased() {
        assert_eq!(needs(r"(?i:Token)\s+\w+"), any(&["token"]));
        assert_eq!(needs(r"AKIA[0-9A-Z]{16}"), any(&["akia"]));
        let kept = analyze(r"AKIA[0-9A-Z]{16}", false);
        assert_eq!(kept.needs, any(&["AKIA"]));
        let starts = analyze(r"[AB]KEY=", true).starts;
        assert_eq!(starts, Some(vec![b"akey=".to_vec(), b"bkey=".to_vec()]));
    }

    #[test]
    fn a_literal_that_contains_another_is_redundant() {
        assert_eq!(
            needs(r"(?:ignore|ignoring|neglect|neglected)d?"),
            any(&["ignore", "neglect", "ignoring"])
        );
        assert_eq!(any_of(vec![b"abcd".to_vec(), b"bc".to_vec()]), any(&["bc"]));
    }

    #[test]
    fn huge_alternations_are_no_condition() {
        let words: Vec<String> = (0..=MAX_SET).map(|i| format!("w{i:03}")).collect();
        assert_eq!(needs(&words.join("|")), Need::True);
    }

    #[test]
    fn every_match_begins_with_a_start_literal() {
        let starts = |p: &str| analyze(p, true).starts;
        assert_eq!(
            starts(r"\b(?:curl|wget)\b.{0,9}https?://"),
            Some(vec![b"curl".to_vec(), b"wget".to_vec()])
        );
        assert_eq!(
            starts(r"(?m)^[ \t]*assistant:"),
            None,
            "may begin with a space"
        );
        assert_eq!(starts(r"[a-z]+@example"), None);
        assert_eq!(starts(r"(?:abcd|a)?e"), None, "e is too short");
        assert_eq!(
            starts(r"\bSK[0-9a-f]{32}"),
            Some(vec![b"sk".to_vec()]),
            "two bytes are probed"
        );
        assert_eq!(
            starts(r"(?:abcd|abc)e"),
            Some(vec![b"abcde".to_vec(), b"abce".to_vec()])
        );
    }
}
