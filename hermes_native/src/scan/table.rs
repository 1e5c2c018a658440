//! The compiled rule table: `rules.toml` (regex rules, code rules, Unicode ranges) and `fold.tsv` (the
//! per-code-point fold), both compiled into the binary and shared with the Python reference, which
//! reads the same files. Loaded once, on first use.

use std::collections::{BTreeMap, HashMap};

use rustc_hash::FxHashMap;
use std::sync::OnceLock;

use regex_automata::hybrid;
use regex_automata::meta::{self, Regex};
use regex_automata::nfa::thompson;
use regex_automata::util::syntax;
use regex_automata::MatchKind;
use serde::Deserialize;

use super::prefilter::{Prefilter, RuleLiterals};
use super::require::{self, Literals, Need};

use crate::{Error, Result};

const RULES_TOML: &str = include_str!("rules.toml");
const FOLD_TSV: &str = include_str!("fold.tsv");

/// Severity of a rule; the verdict is derived from the severities of the findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Caution,
    Dangerous,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Caution => "caution",
            Severity::Dangerous => "dangerous",
        }
    }
}

/// The views a rule can run against (see the header of rules.toml).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewKind {
    Raw,
    Fold,
    Words,
    Squeeze,
    Uni,
}

impl ViewKind {
    /// Position in [`VIEW_KINDS`] and in `Table::prefilters`.
    pub fn index(self) -> usize {
        self as usize
    }
}

pub const VIEW_KINDS: [ViewKind; 5] = [
    ViewKind::Raw,
    ViewKind::Fold,
    ViewKind::Words,
    ViewKind::Squeeze,
    ViewKind::Uni,
];

/// Documentation of one rule, as `scan_rules()` lists it.
#[derive(Debug, Clone)]
pub struct RuleInfo {
    pub id: String,
    pub category: String,
    pub severity: Severity,
    pub description: String,
}

/// A compiled regex rule.
#[derive(Debug)]
pub struct Rule {
    pub info: RuleInfo,
    pub view: ViewKind,
    /// The rule's regex, for the reported matches and captures.
    pub regex: Regex,
    /// The same pattern as a plain lazy DFA, for the (much more frequent) "is there a match here"
    /// checks: no literal prefilter restarts, no backtracking over a large pattern.
    pub dfa: hybrid::dfa::DFA,
    pub secret_check: bool,
    pub min_distinct: usize,
    /// Literals the pattern cannot match without, and literals every match begins with (see
    /// [`require`]).
    literals: Literals,
}

/// Inclusive code-point ranges, sorted, for membership tests.
#[derive(Debug, Default)]
pub struct Ranges(Vec<(u32, u32)>);

impl Ranges {
    pub fn contains(&self, cp: u32) -> bool {
        let i = self.0.partition_point(|&(_, hi)| hi < cp);
        self.0.get(i).is_some_and(|&(lo, _)| lo <= cp)
    }
}

/// Unicode ranges named in rules.toml.
#[derive(Debug, Default)]
pub struct UnicodeRanges {
    pub emoji: Ranges,
    pub vs_base: Ranges,
    pub cjk: Ranges,
    pub rtl: Ranges,
    pub joining: Ranges,
    pub nospace: Ranges,
    pub letters: Ranges,
}

/// Everything the scanner needs, built once.
#[derive(Debug)]
pub struct Table {
    pub rules: Vec<Rule>,
    pub builtins: Vec<RuleInfo>,
    /// One prefilter per view, indexed by [`ViewKind::index`].
    pub prefilters: Vec<Prefilter>,
    /// Raw and fold literals in one automaton, run over the fold view of ASCII text (where the fold view
    /// is the lowercased raw view, position for position).
    pub fused: Prefilter,
    pub ranges: UnicodeRanges,
    /// The folded text of each non-ASCII code point that does not fold to itself.
    fold: FxHashMap<u32, Box<str>>,
    builtin_index: HashMap<String, usize>,
}

#[derive(Deserialize)]
struct RawTable {
    #[serde(default)]
    defs: BTreeMap<String, String>,
    rule: Vec<RawRule>,
    builtin: Vec<RawBuiltin>,
    unicode: BTreeMap<String, Vec<String>>,
}

#[derive(Deserialize)]
struct RawRule {
    id: String,
    category: String,
    severity: String,
    view: String,
    description: String,
    any: Vec<String>,
    #[serde(default)]
    also: Vec<Vec<String>>,
    pattern: String,
    check: Option<String>,
    min_distinct: Option<usize>,
}

#[derive(Deserialize)]
struct RawBuiltin {
    id: String,
    category: String,
    severity: String,
    description: String,
}

fn bad(msg: String) -> Error {
    Error::InvalidInput(format!("the scan rule table is broken: {msg}"))
}

fn severity(s: &str) -> Result<Severity> {
    match s {
        "caution" => Ok(Severity::Caution),
        "dangerous" => Ok(Severity::Dangerous),
        other => Err(bad(format!("unknown severity {other:?}"))),
    }
}

fn view(s: &str) -> Result<ViewKind> {
    match s {
        "raw" => Ok(ViewKind::Raw),
        "fold" => Ok(ViewKind::Fold),
        "words" => Ok(ViewKind::Words),
        "squeeze" => Ok(ViewKind::Squeeze),
        "uni" => Ok(ViewKind::Uni),
        other => Err(bad(format!("unknown view {other:?}"))),
    }
}

fn parse_ranges(items: &[String]) -> Result<Ranges> {
    let hex = |s: &str| u32::from_str_radix(s, 16).map_err(|e| bad(format!("range {s:?}: {e}")));
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let (lo, hi) = match item.split_once('-') {
            Some((lo, hi)) => (hex(lo)?, hex(hi)?),
            None => (hex(item)?, hex(item)?),
        };
        out.push((lo, hi));
    }
    out.sort_unstable();
    Ok(Ranges(out))
}

fn parse_fold(tsv: &str) -> Result<Vec<(u32, Box<str>)>> {
    let hex = |s: &str| u32::from_str_radix(s, 16).map_err(|e| bad(format!("fold.tsv {s:?}: {e}")));
    let mut out = Vec::new();
    for line in tsv.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let (key, value) = line.split_once('\t').unwrap_or((line, ""));
        let mut folded = String::new();
        for h in value.split_whitespace() {
            let cp = hex(h)?;
            folded.push(char::from_u32(cp).ok_or_else(|| bad(format!("fold.tsv: bad {h}")))?);
        }
        let folded: Box<str> = folded.into();
        match key.split_once("..") {
            Some((lo, hi)) => {
                for cp in hex(lo)?..=hex(hi)? {
                    out.push((cp, folded.clone()));
                }
            }
            None => out.push((hex(key)?, folded)),
        }
    }
    out.sort_unstable_by_key(|&(cp, _)| cp);
    Ok(out)
}

/// Size limits of a rule's compiled automaton and of each thread's lazy DFA cache for it.
const NFA_LIMIT: usize = 64 << 20;
const DFA_CACHE: usize = 16 << 20;

fn compile(raw: &RawRule, defs: &BTreeMap<String, String>) -> Result<Rule> {
    let mut pattern = raw.pattern.clone();
    for (name, value) in defs {
        pattern = pattern.replace(&format!("{{{{{name}}}}}"), value);
    }
    // The configuration `regex::bytes::RegexBuilder` uses with `unicode(false)`, the one the rules
    // are written for (see the header of rules.toml).
    let syntax = syntax::Config::new().unicode(false).utf8(false);
    let regex = meta::Builder::new()
        .configure(
            meta::Config::new()
                .match_kind(MatchKind::LeftmostFirst)
                .utf8_empty(false)
                .nfa_size_limit(Some(NFA_LIMIT))
                .hybrid_cache_capacity(DFA_CACHE),
        )
        .syntax(syntax)
        .build(&pattern)
        .map_err(|e| bad(format!("rule {}: {e}", raw.id)))?;
    let dfa = hybrid::dfa::DFA::builder()
        .configure(
            hybrid::dfa::DFA::config()
                .match_kind(MatchKind::LeftmostFirst)
                .cache_capacity(DFA_CACHE),
        )
        .syntax(syntax)
        .thompson(
            thompson::Config::new()
                .utf8(false)
                .nfa_size_limit(Some(NFA_LIMIT)),
        )
        .build(&pattern)
        .map_err(|e| bad(format!("rule {}: {e}", raw.id)))?;
    let secret_check = match raw.check.as_deref() {
        None => false,
        Some("secret") => true,
        Some(other) => return Err(bad(format!("rule {}: unknown check {other:?}", raw.id))),
    };
    let view = view(&raw.view)?;
    // The ASCII views are lowercase or searched case-insensitively; the uni view is taken as it is.
    let literals = require::analyze(&pattern, view != ViewKind::Uni);
    Ok(Rule {
        info: RuleInfo {
            id: raw.id.clone(),
            category: raw.category.clone(),
            severity: severity(&raw.severity)?,
            description: raw.description.clone(),
        },
        view,
        regex,
        dfa,
        secret_check,
        min_distinct: raw.min_distinct.unwrap_or(10),
        literals,
    })
}

/// Lowercased literals of one group, checked.
fn literals(raw: &RawRule, lits: &[String]) -> Result<Vec<Vec<u8>>> {
    if lits.is_empty() {
        return Err(bad(format!("rule {} has an empty literal group", raw.id)));
    }
    lits.iter()
        .map(|lit| {
            let lit = lit.to_lowercase();
            if lit.is_empty() || lit.contains('\n') {
                return Err(bad(format!("rule {}: empty literal or newline", raw.id)));
            }
            Ok(lit.into_bytes())
        })
        .collect()
}

/// The prefilter of the rules of `kinds`. `derived`: also require the literals patterns need (off
/// for a view that might hold uppercase ASCII).
fn prefilter(
    kinds: &[ViewKind],
    raws: &[RawRule],
    rules: &[Rule],
    derived: bool,
) -> Result<Prefilter> {
    let mut entries = Vec::new();
    for (i, (raw, rule)) in raws.iter().zip(rules).enumerate() {
        if !kinds.contains(&rule.view) {
            continue;
        }
        if rule.view == ViewKind::Uni && raw.any.iter().any(|l| l.is_ascii()) {
            return Err(bad(format!(
                "rule {}: uni literals must be non-ASCII",
                raw.id
            )));
        }
        entries.push(RuleLiterals {
            rule: i,
            any: literals(raw, &raw.any)?,
            also: raw
                .also
                .iter()
                .map(|g| literals(raw, g))
                .collect::<Result<_>>()?,
            needs: if derived {
                &rule.literals.needs
            } else {
                &Need::True
            },
            starts: rule.literals.starts.as_deref().filter(|_| derived),
            line_start: rule.literals.line_start,
        });
    }
    Prefilter::build(
        &entries,
        rules.len(),
        kinds == [ViewKind::Raw],
        kinds == [ViewKind::Uni],
    )
}

impl Table {
    /// The prefilter of one view.
    pub fn prefilter(&self, kind: ViewKind) -> &Prefilter {
        &self.prefilters[kind.index()]
    }

    fn load() -> Result<Table> {
        let raw: RawTable =
            toml::from_str(RULES_TOML).map_err(|e| bad(format!("rules.toml: {e}")))?;
        let rules = raw
            .rule
            .iter()
            .map(|r| compile(r, &raw.defs))
            .collect::<Result<Vec<_>>>()?;
        let fold = parse_fold(FOLD_TSV)?;
        // The fold view is lowercase unless the fold table maps something to an ASCII capital.
        let fold_lowercase = !fold
            .iter()
            .any(|(_, out)| out.bytes().any(|b| b.is_ascii_uppercase()));
        let prefilters = VIEW_KINDS
            .iter()
            .map(|&kind| {
                let derived = kind != ViewKind::Fold || fold_lowercase;
                prefilter(&[kind], &raw.rule, &rules, derived)
            })
            .collect::<Result<Vec<_>>>()?;
        // Over the fold view of ASCII text, which is the raw view lowercased.
        let fused = prefilter(&[ViewKind::Raw, ViewKind::Fold], &raw.rule, &rules, true)?;
        let builtins = raw
            .builtin
            .iter()
            .map(|b| {
                Ok(RuleInfo {
                    id: b.id.clone(),
                    category: b.category.clone(),
                    severity: severity(&b.severity)?,
                    description: b.description.clone(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let builtin_index = builtins
            .iter()
            .enumerate()
            .map(|(i, b)| (b.id.clone(), i))
            .collect();
        let range = |name: &str| -> Result<Ranges> {
            parse_ranges(
                raw.unicode
                    .get(name)
                    .ok_or_else(|| bad(format!("missing unicode.{name}")))?,
            )
        };
        let ranges = UnicodeRanges {
            emoji: range("emoji")?,
            vs_base: range("vs_base")?,
            cjk: range("cjk")?,
            rtl: range("rtl")?,
            joining: range("joining")?,
            nospace: range("nospace")?,
            letters: range("letters")?,
        };
        Ok(Table {
            rules,
            builtins,
            prefilters,
            fused,
            ranges,
            fold: fold.into_iter().collect(),
            builtin_index,
        })
    }

    /// The built-in (code) rule with this id. The ids are fixed in the code and checked by tests.
    pub fn builtin(&self, id: &str) -> &RuleInfo {
        &self.builtins[self.builtin_index[id]]
    }

    /// The folded form of a non-ASCII code point, or `None` when it folds to itself.
    pub fn fold(&self, cp: u32) -> Option<&str> {
        self.fold.get(&cp).map(|s| &**s)
    }

    /// Every rule, regex rules first, as `scan_rules()` lists them.
    pub fn infos(&self) -> impl Iterator<Item = &RuleInfo> {
        self.rules
            .iter()
            .map(|r| &r.info)
            .chain(self.builtins.iter())
    }
}

/// The table, loaded on first use. An error here means the compiled-in table is broken (a bug that
/// `cargo test` catches), never bad input.
pub fn table() -> Result<&'static Table> {
    static TABLE: OnceLock<std::result::Result<Table, Error>> = OnceLock::new();
    TABLE
        .get_or_init(Table::load)
        .as_ref()
        .map_err(Clone::clone)
}
