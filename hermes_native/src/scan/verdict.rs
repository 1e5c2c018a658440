//! From findings to a verdict. A single weak signal stays `caution`; weak signals that corroborate each
//! other (two categories, or three findings) make the text `dangerous`.

use std::collections::HashSet;

use super::table::Severity;
use super::Hit;

/// The overall judgement of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    Safe,
    Caution,
    Dangerous,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Safe => "safe",
            Verdict::Caution => "caution",
            Verdict::Dangerous => "dangerous",
        }
    }
}

/// Worst severity; caution becomes dangerous across two categories or from three findings.
pub fn verdict(hits: &[Hit]) -> Verdict {
    let mut categories: HashSet<&str> = HashSet::new();
    let mut cautions = 0;
    for hit in hits {
        match hit.rule.severity {
            Severity::Dangerous => return Verdict::Dangerous,
            Severity::Caution => {
                cautions += 1;
                categories.insert(&hit.rule.category);
            }
        }
    }
    if categories.len() >= 2 || cautions >= 3 {
        Verdict::Dangerous
    } else if cautions > 0 {
        Verdict::Caution
    } else {
        Verdict::Safe
    }
}
