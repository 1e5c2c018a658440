//! The Hermes query language, parsed into a small AST (pure Rust; compiled by `compile.rs`).
//!
//! Grammar (FTS5-like; `hermes/reference/index.py` implements the same rules):
//!
//! ```text
//! query    := or_expr
//! or_expr  := and_expr ( "OR" and_expr )*
//! and_expr := unary ( ["AND"] unary )*          adjacent terms are ANDed, like FTS5
//! unary    := ("NOT" | "-") unary | primary     "a NOT b" = a AND NOT b
//! primary  := "(" or_expr ")" | "\"words\"" ["*"] | word["*"]
//! ```
//!
//! * Operators are case-sensitive (`AND`, `OR`, `NOT`); `and`/`or`/`not` are ordinary words.
//! * A word is analysed like message text: one token is a term, several (`file.py`, `snake_case`, a
//!   CJK word of 2+ characters) a phrase. A trailing `*` makes the last token a prefix (bounded
//!   expansion, most frequent terms first); it is ignored after a CJK character (CJK already matches
//!   inside words).
//! * Semantics: an AND group matches its positive parts minus its negated parts; a group (or query)
//!   with no positive part matches nothing; nested groups of the same kind are flattened, and a
//!   double negation cancels. Words that analyse to nothing (`+++`) are dropped.
//! * A malformed query (unbalanced quotes or parentheses, bare `AND`/`OR`/`NOT`/`-`/`*`, nesting
//!   deeper than [`MAX_DEPTH`]) is run as a literal search: every word in it, ANDed.
//! * A query over [`MAX_QUERY_BYTES`] or with more than [`MAX_QUERY_TERMS`] terms is refused.

use super::tokenizer::{analyze, is_cjk, Mode};
use crate::{Error, Result};

/// Longest accepted query, in bytes.
pub const MAX_QUERY_BYTES: usize = 10 * 1024;
/// Most terms (analysed tokens) in one query.
pub const MAX_QUERY_TERMS: usize = 1000;
/// Deepest accepted nesting of parentheses and negations.
pub const MAX_DEPTH: usize = 32;

/// A term, phrase or prefix: analysed tokens with their positions relative to the first one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Atom {
    pub tokens: Vec<(usize, String)>,
    /// The last token is a prefix.
    pub prefix: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    Atom(Atom),
    /// Positive children intersected, negated children subtracted.
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Lex {
    LParen,
    RParen,
    And,
    Or,
    Not,
    Minus,
    Word { text: String, prefix: bool },
    Phrase { text: String, prefix: bool },
}

struct Malformed;

fn lex(query: &str) -> std::result::Result<Vec<Lex>, Malformed> {
    let mut out = Vec::new();
    let mut chars = query.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        match c {
            '(' => {
                chars.next();
                out.push(Lex::LParen);
            }
            ')' => {
                chars.next();
                out.push(Lex::RParen);
            }
            '"' => {
                chars.next();
                let start = i + 1;
                let end = loop {
                    match chars.next() {
                        Some((j, '"')) => break j,
                        Some(_) => {}
                        None => return Err(Malformed),
                    }
                };
                let prefix = chars.next_if(|&(_, c)| c == '*').is_some();
                out.push(Lex::Phrase {
                    text: query[start..end].to_string(),
                    prefix,
                });
            }
            '-' => {
                chars.next();
                match chars.peek() {
                    Some(&(_, n)) if !n.is_whitespace() => out.push(Lex::Minus),
                    _ => return Err(Malformed),
                }
            }
            _ => {
                let start = i;
                let mut end = query.len();
                while let Some(&(j, c)) = chars.peek() {
                    if c.is_whitespace() || matches!(c, '(' | ')' | '"') {
                        end = j;
                        break;
                    }
                    chars.next();
                }
                let word = &query[start..end];
                out.push(match word {
                    "AND" => Lex::And,
                    "OR" => Lex::Or,
                    "NOT" => Lex::Not,
                    _ => {
                        let stem = word.trim_end_matches('*');
                        if stem.is_empty() {
                            return Err(Malformed);
                        }
                        Lex::Word {
                            text: stem.to_string(),
                            prefix: stem.len() != word.len(),
                        }
                    }
                });
            }
        }
    }
    Ok(out)
}

/// An atom from query text; `None` when the text has no indexable characters.
fn make_atom(text: &str, prefix: bool) -> Option<Node> {
    let tokens = analyze(text, Mode::Query);
    let first = tokens.first()?.position;
    let ends_in_cjk = text
        .chars()
        .rev()
        .find(|c| !c.is_whitespace())
        .is_some_and(is_cjk);
    Some(Node::Atom(Atom {
        tokens: tokens
            .into_iter()
            .map(|t| (t.position - first, t.text))
            .collect(),
        prefix: prefix && !ends_in_cjk,
    }))
}

struct Parser {
    lexemes: Vec<Lex>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Lex> {
        self.lexemes.get(self.at)
    }

    fn or_expr(&mut self, depth: usize) -> std::result::Result<Option<Node>, Malformed> {
        let mut parts = Vec::new();
        parts.extend(self.and_expr(depth)?);
        while self.peek() == Some(&Lex::Or) {
            self.at += 1;
            parts.extend(self.and_expr(depth)?);
        }
        Ok(join(parts, Group::Or))
    }

    fn and_expr(&mut self, depth: usize) -> std::result::Result<Option<Node>, Malformed> {
        let mut parts = Vec::new();
        parts.extend(self.unary(depth)?);
        loop {
            match self.peek() {
                Some(Lex::And) => {
                    self.at += 1;
                    parts.extend(self.unary(depth)?);
                }
                Some(Lex::Or | Lex::RParen) | None => break,
                Some(_) => parts.extend(self.unary(depth)?),
            }
        }
        Ok(join(parts, Group::And))
    }

    fn unary(&mut self, depth: usize) -> std::result::Result<Option<Node>, Malformed> {
        if depth > MAX_DEPTH {
            return Err(Malformed);
        }
        match self.peek() {
            Some(Lex::Not | Lex::Minus) => {
                self.at += 1;
                Ok(self.unary(depth + 1)?.map(|inner| match inner {
                    Node::Not(x) => *x,
                    x => Node::Not(Box::new(x)),
                }))
            }
            _ => self.primary(depth),
        }
    }

    fn primary(&mut self, depth: usize) -> std::result::Result<Option<Node>, Malformed> {
        let lexeme = self.lexemes.get(self.at).cloned().ok_or(Malformed)?;
        self.at += 1;
        match lexeme {
            Lex::LParen => {
                if self.peek() == Some(&Lex::RParen) {
                    return Err(Malformed);
                }
                let inner = self.or_expr(depth + 1)?;
                if self.peek() != Some(&Lex::RParen) {
                    return Err(Malformed);
                }
                self.at += 1;
                Ok(inner)
            }
            Lex::Word { text, prefix } | Lex::Phrase { text, prefix } => {
                Ok(make_atom(&text, prefix))
            }
            Lex::RParen | Lex::And | Lex::Or | Lex::Not | Lex::Minus => Err(Malformed),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Group {
    And,
    Or,
}

/// Combine the parts of a group, flattening children of the same kind; `None` when empty.
fn join(parts: Vec<Node>, group: Group) -> Option<Node> {
    let mut flat = Vec::with_capacity(parts.len());
    for part in parts {
        match (part, group) {
            (Node::And(children), Group::And) | (Node::Or(children), Group::Or) => {
                flat.extend(children)
            }
            (other, _) => flat.push(other),
        }
    }
    match (flat.len(), group) {
        (0, _) => None,
        (1, _) => flat.pop(),
        (_, Group::And) => Some(Node::And(flat)),
        (_, Group::Or) => Some(Node::Or(flat)),
    }
}

/// The literal reading of a query: every word, ANDed (operators and punctuation as plain text).
fn literal(query: &str) -> Option<Node> {
    let parts = query
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '(' | ')'))
        .filter_map(|word| make_atom(word, false))
        .collect();
    join(parts, Group::And)
}

fn count_terms(node: &Node) -> usize {
    match node {
        Node::Atom(a) => a.tokens.len(),
        Node::And(c) | Node::Or(c) => c.iter().map(count_terms).sum(),
        Node::Not(x) => count_terms(x),
    }
}

/// Parse `query`; `Ok(None)` means it matches nothing (empty, or no indexable words).
pub fn parse(query: &str) -> Result<Option<Node>> {
    if query.len() > MAX_QUERY_BYTES {
        return Err(Error::Query(format!(
            "search query is too long ({} bytes; the limit is {MAX_QUERY_BYTES}): search for a few \
             distinctive words instead of pasting a whole text",
            query.len()
        )));
    }
    let parsed = lex(query).and_then(|lexemes| {
        let mut parser = Parser { lexemes, at: 0 };
        if parser.lexemes.is_empty() {
            return Ok(None);
        }
        let node = parser.or_expr(0)?;
        if parser.at != parser.lexemes.len() {
            return Err(Malformed);
        }
        Ok(node)
    });
    let node = match parsed {
        Ok(node) => node,
        Err(Malformed) => literal(query),
    };
    if let Some(n) = &node {
        let terms = count_terms(n);
        if terms > MAX_QUERY_TERMS {
            return Err(Error::Query(format!(
                "search query has too many terms ({terms}; the limit is {MAX_QUERY_TERMS}): search \
                 for a few distinctive words instead of pasting a whole text"
            )));
        }
    }
    Ok(node)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atom(words: &[&str], prefix: bool) -> Node {
        Node::Atom(Atom {
            tokens: words
                .iter()
                .enumerate()
                .map(|(i, w)| (i, w.to_string()))
                .collect(),
            prefix,
        })
    }

    #[test]
    fn adjacent_words_are_anded() {
        assert_eq!(
            parse("foo Bar").unwrap(),
            Some(Node::And(vec![
                atom(&["foo"], false),
                atom(&["bar"], false)
            ]))
        );
    }

    #[test]
    fn or_binds_looser_than_and() {
        let q = parse("a b OR c").unwrap().unwrap();
        assert_eq!(
            q,
            Node::Or(vec![
                Node::And(vec![atom(&["a"], false), atom(&["b"], false)]),
                atom(&["c"], false)
            ])
        );
    }

    #[test]
    fn phrases_prefixes_and_negation() {
        let q = parse("\"hello world\" conf* -noise").unwrap().unwrap();
        assert_eq!(
            q,
            Node::And(vec![
                atom(&["hello", "world"], false),
                atom(&["conf"], true),
                Node::Not(Box::new(atom(&["noise"], false))),
            ])
        );
        assert_eq!(parse("NOT NOT x").unwrap(), Some(atom(&["x"], false)));
    }

    #[test]
    fn punctuated_words_become_phrases() {
        assert_eq!(
            parse("file.py").unwrap(),
            Some(atom(&["file", "py"], false))
        );
        assert_eq!(parse("函数").unwrap(), Some(atom(&["函数"], false)));
        assert_eq!(parse("函数*").unwrap(), Some(atom(&["函数"], false)));
    }

    #[test]
    fn malformed_queries_fall_back_to_literal_words() {
        assert_eq!(parse("AND").unwrap(), Some(atom(&["and"], false)));
        assert_eq!(
            parse("OR OR").unwrap(),
            Some(Node::And(vec![atom(&["or"], false), atom(&["or"], false)]))
        );
        assert_eq!(
            parse("\"unbalanced").unwrap(),
            Some(atom(&["unbalanced"], false))
        );
        assert_eq!(
            parse("(a b").unwrap(),
            Some(Node::And(vec![atom(&["a"], false), atom(&["b"], false)]))
        );
        assert_eq!(parse("-").unwrap(), None);
        assert_eq!(parse("*").unwrap(), None);
        assert_eq!(parse("").unwrap(), None);
        assert_eq!(parse(&"(".repeat(5000)).unwrap(), None);
    }

    #[test]
    fn pure_negation_is_kept_and_matches_nothing_later() {
        assert_eq!(
            parse("-x").unwrap(),
            Some(Node::Not(Box::new(atom(&["x"], false))))
        );
    }

    #[test]
    fn huge_queries_are_refused() {
        assert!(matches!(parse(&"a ".repeat(1001)), Err(Error::Query(_))));
        assert!(matches!(
            parse(&"x".repeat(MAX_QUERY_BYTES + 1)),
            Err(Error::Query(_))
        ));
    }
}
