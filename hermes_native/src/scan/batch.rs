//! The scan of a batch of texts, in stages that each keep one working set in the CPU cache:
//! 1. per text: the Unicode rules and decoders (which scan decoded text one level deeper), and the
//!    views, appended to one buffer per view kind;
//! 2. per prefilter: its automaton walks every text's view (several views at once) and plans the
//!    rules to run ([`Plan`]);
//! 3. per rule: its regex runs on every text that needs it;
//! 4. per text: view offsets are mapped back to code points (building the words, squeeze and uni
//!    offset maps only for a text where one of their rules fired).
//!
//! Findings do not depend on how texts are batched: every stage works on each text on its own.

use std::ops::Range;

use super::matcher::{Engines, Plan, ViewHit};
use super::normalize::{self, View};
use super::prefilter::{Prefilter, Walk};
use super::table::{Table, ViewKind};
use super::{decode, unicode, words, Hit, Scratch};

/// Where one text's views lie in the batch's buffers.
#[derive(Debug, Clone, Default)]
struct Views {
    ascii: bool,
    /// Into `Batch::raw` (non-ASCII text; the raw view of ASCII text is the text itself).
    raw: Range<usize>,
    /// Into `Batch::fold` and, for non-ASCII text, `Batch::fold_origin`.
    fold: Range<usize>,
    fold_origin: Range<usize>,
    words: Range<usize>,
    /// Into `Batch::squeeze`, when words were glued or letter-spaced.
    squeeze: Option<Range<usize>>,
    /// Into `Batch::uni` (non-ASCII text).
    uni: Option<Range<usize>>,
}

/// The buffers of a batch, reused from batch to batch.
#[derive(Default)]
pub struct Batch {
    views: Vec<Views>,
    raw: Vec<u8>,
    fold: Vec<u8>,
    fold_origin: Vec<u32>,
    words: Vec<u8>,
    squeeze: Vec<u8>,
    uni: Vec<u8>,
    words_scratch: words::Scratch,
    found: Walk,
    plan: Plan,
    /// Rule matches: text index and match in view coordinates.
    view_hits: Vec<(u32, ViewHit)>,
    /// Findings of the Unicode rules and decoders: text index and hit.
    hits: Vec<(u32, Hit)>,
    /// Offset maps rebuilt for one text in stage 4.
    map_bytes: Vec<u8>,
    map_origin: Vec<u32>,
    squeeze_origin: Vec<u32>,
    cps: Vec<u32>,
    matched: Vec<ViewHit>,
}

impl Batch {
    fn clear(&mut self) {
        self.views.clear();
        self.raw.clear();
        self.fold.clear();
        self.fold_origin.clear();
        self.words.clear();
        self.squeeze.clear();
        self.uni.clear();
        self.plan.clear();
        self.view_hits.clear();
        self.hits.clear();
    }

    /// Memory held, in bytes (roughly): what a huge text leaves behind.
    pub fn capacity(&self) -> usize {
        self.raw.capacity()
            + self.fold.capacity()
            + 4 * self.fold_origin.capacity()
            + self.words.capacity()
            + self.squeeze.capacity()
            + self.uni.capacity()
            + 4 * self.map_origin.capacity()
            + 4 * self.squeeze_origin.capacity()
            + 4 * self.cps.capacity()
    }

    /// The view of `kind` of text `i` (`text` is that text).
    fn view<'a>(&'a self, i: usize, text: &'a str, kind: ViewKind) -> &'a [u8] {
        let v = &self.views[i];
        match kind {
            ViewKind::Raw if v.ascii => text.as_bytes(),
            ViewKind::Raw => &self.raw[v.raw.clone()],
            ViewKind::Fold => &self.fold[v.fold.clone()],
            ViewKind::Words => &self.words[v.words.clone()],
            ViewKind::Squeeze => v.squeeze.clone().map_or(&[], |r| &self.squeeze[r]),
            ViewKind::Uni => v.uni.clone().map_or(&[], |r| &self.uni[r]),
        }
    }

    fn fold_view<'a>(&'a self, i: usize) -> View<'a> {
        let v = &self.views[i];
        View {
            text: &self.fold[v.fold.clone()],
            origin: (!v.ascii).then(|| &self.fold_origin[v.fold_origin.clone()]),
        }
    }
}

/// Scan `texts` at decode depth `depth`; `emit(i, hits)` receives the hits of each text in order
/// (unsorted, possibly repeated; `hits` may be drained).
pub fn scan<S: AsRef<str>>(
    texts: &[S],
    depth: u32,
    table: &'static Table,
    scratch: &mut Scratch,
    mut emit: impl FnMut(usize, &mut Vec<Hit>),
) {
    let d = depth as usize;
    if scratch.batches.len() <= d {
        scratch.batches.resize_with(d + 1, Batch::default);
    }
    // Taken out while in use: the decoders scan one level deeper with the same scratch space.
    let mut batch = std::mem::take(&mut scratch.batches[d]);
    batch.clear();
    for text in texts {
        build_views(text.as_ref(), depth, table, &mut batch, scratch);
    }
    plan(texts, table, &mut batch);
    run(texts, table, &mut batch, &mut scratch.engines);
    let mut out = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        out.clear();
        collect(i, text.as_ref(), table, &mut batch, &mut out);
        emit(i, &mut out);
    }
    scratch.batches[d] = batch;
}

/// Stage 1 for one text.
fn build_views(
    text: &str,
    depth: u32,
    table: &'static Table,
    b: &mut Batch,
    scratch: &mut Scratch,
) {
    let i = b.views.len() as u32;
    let ascii = text.is_ascii();
    let mut hits = Vec::new();
    if !ascii && text.chars().any(|c| unicode::maybe_special(c as u32)) {
        b.cps.clear();
        b.cps.extend(text.chars().map(|c| c as u32));
        unicode::findings(&b.cps, depth, table, scratch, &mut hits);
    }
    if !ascii {
        unicode::mixed_script(text, table, &mut hits);
    }
    let mut v = Views {
        ascii,
        ..Views::default()
    };
    let mut dropped = false;
    if ascii {
        let start = b.fold.len();
        normalize::fold_ascii_into(text, &mut b.fold);
        v.fold = start..b.fold.len();
    } else {
        let starts = (b.raw.len(), b.fold.len(), b.fold_origin.len(), b.uni.len());
        let views = normalize::NonAscii {
            raw: &mut b.raw,
            fold: &mut b.fold,
            fold_origin: &mut b.fold_origin,
            uni: &mut b.uni,
        };
        dropped = normalize::non_ascii_into(text, table, views);
        v.raw = starts.0..b.raw.len();
        v.fold = starts.1..b.fold.len();
        v.fold_origin = starts.2..b.fold_origin.len();
        v.uni = Some(starts.3..b.uni.len());
    }
    let fold = View {
        text: &b.fold[v.fold.clone()],
        origin: (!ascii).then(|| &b.fold_origin[v.fold_origin.clone()]),
    };
    let start = b.words.len();
    let joined = words::words_into(fold, &mut b.words, None, &mut b.words_scratch);
    v.words = start..b.words.len();
    if joined || dropped {
        let words = View {
            text: &b.words[v.words.clone()],
            origin: None,
        };
        let start = b.squeeze.len();
        words::squeeze_into(words, &mut b.squeeze, &mut Vec::new());
        v.squeeze = Some(start..b.squeeze.len());
    }
    if depth < decode::MAX_DEPTH {
        let raw = View {
            text: if ascii {
                text.as_bytes()
            } else {
                &b.raw[v.raw.clone()]
            },
            origin: None,
        };
        decode::encoded_findings(raw, depth, table, scratch, &mut hits);
    }
    b.hits.extend(hits.into_iter().map(|h| (i, h)));
    b.views.push(v);
}

/// A prefilter, the view it walks and the texts it applies to.
type Pass<'t> = (&'t Prefilter, ViewKind, fn(&Views) -> bool);

/// Stage 2: each prefilter walks the views it applies to.
fn plan<S: AsRef<str>>(texts: &[S], table: &'static Table, b: &mut Batch) {
    let passes: [Pass<'_>; 6] = [
        (&table.fused, ViewKind::Fold, |v| v.ascii),
        (table.prefilter(ViewKind::Raw), ViewKind::Raw, |v| !v.ascii),
        (table.prefilter(ViewKind::Fold), ViewKind::Fold, |v| {
            !v.ascii
        }),
        (table.prefilter(ViewKind::Words), ViewKind::Words, |_| true),
        (table.prefilter(ViewKind::Squeeze), ViewKind::Squeeze, |v| {
            v.squeeze.is_some()
        }),
        (table.prefilter(ViewKind::Uni), ViewKind::Uni, |v| !v.ascii),
    ];
    let mut found = std::mem::take(&mut b.found);
    let mut plan = std::mem::take(&mut b.plan);
    for (pre, kind, applies) in passes {
        let hays = texts.iter().enumerate().filter_map(|(i, text)| {
            let hay = applies(&b.views[i]).then(|| b.view(i, text.as_ref(), kind))?;
            Some((i as u32, hay))
        });
        pre.walk_all(hays, &mut found, |i, found, n| plan.add(pre, found, n, i));
    }
    b.found = found;
    b.plan = plan;
}

/// Stage 3: rule by rule, every planned regex run.
fn run<S: AsRef<str>>(texts: &[S], table: &'static Table, b: &mut Batch, engines: &mut Engines) {
    let mut plan = std::mem::take(&mut b.plan);
    plan.tasks.sort_by_key(|t| (t.rule, t.text));
    let mut matched = std::mem::take(&mut b.matched);
    for task in &plan.tasks {
        let i = task.text as usize;
        let view = table.rules[task.rule as usize].view;
        let hay = b.view(i, texts[i].as_ref(), view);
        matched.clear();
        plan.run(task, hay, table, engines, &mut matched);
        b.view_hits.extend(matched.iter().map(|&h| (task.text, h)));
    }
    b.view_hits.sort_by_key(|&(text, _)| text);
    b.matched = matched;
    b.plan = plan;
}

fn push_hits(view: View<'_>, hits: &[ViewHit], out: &mut Vec<Hit>) {
    for h in hits {
        let (start, end) = view.span(h.start, h.end);
        out.push(Hit::new(start, end, &h.rule.info));
    }
}

/// Stage 4: the hits of text `i`, in code points.
fn collect(i: usize, text: &str, table: &'static Table, b: &mut Batch, out: &mut Vec<Hit>) {
    let first = b.hits.partition_point(|&(t, _)| (t as usize) < i);
    out.extend(
        b.hits[first..]
            .iter()
            .take_while(|&&(t, _)| t as usize == i)
            .map(|&(_, h)| h),
    );
    let from = b.view_hits.partition_point(|&(t, _)| (t as usize) < i);
    let to = b.view_hits.partition_point(|&(t, _)| (t as usize) <= i);
    if from == to {
        return;
    }
    let mut matched = std::mem::take(&mut b.matched);
    for kind in [ViewKind::Raw, ViewKind::Fold] {
        matched.clear();
        matched.extend(
            b.view_hits[from..to]
                .iter()
                .filter(|(_, h)| h.rule.view == kind)
                .map(|&(_, h)| h),
        );
        let view = match kind {
            ViewKind::Raw => View {
                text: &[],
                origin: None,
            },
            _ => b.fold_view(i),
        };
        push_hits(view, &matched, out);
    }
    let words: Vec<ViewHit> = view_hits_of(b, from..to, ViewKind::Words);
    let squeeze: Vec<ViewHit> = view_hits_of(b, from..to, ViewKind::Squeeze);
    if !words.is_empty() || !squeeze.is_empty() {
        // The words view again, now with its offset map.
        let (mut bytes, mut origin) = (
            std::mem::take(&mut b.map_bytes),
            std::mem::take(&mut b.map_origin),
        );
        bytes.clear();
        origin.clear();
        let mut scratch = std::mem::take(&mut b.words_scratch);
        words::words_into(b.fold_view(i), &mut bytes, Some(&mut origin), &mut scratch);
        b.words_scratch = scratch;
        let words_view = View {
            text: &bytes,
            origin: Some(&origin),
        };
        push_hits(words_view, &words, out);
        if !squeeze.is_empty() {
            let mut sq_origin = std::mem::take(&mut b.squeeze_origin);
            sq_origin.clear();
            let mut sq_bytes = Vec::new();
            words::squeeze_into(words_view, &mut sq_bytes, &mut sq_origin);
            let view = View {
                text: &sq_bytes,
                origin: Some(&sq_origin),
            };
            push_hits(view, &squeeze, out);
            b.squeeze_origin = sq_origin;
        }
        b.map_bytes = bytes;
        b.map_origin = origin;
    }
    let uni: Vec<ViewHit> = view_hits_of(b, from..to, ViewKind::Uni);
    if !uni.is_empty() {
        let (mut bytes, mut origin) = (
            std::mem::take(&mut b.map_bytes),
            std::mem::take(&mut b.map_origin),
        );
        bytes.clear();
        origin.clear();
        normalize::uni_into(text, table, &mut bytes, Some(&mut origin));
        let view = View {
            text: &bytes,
            origin: Some(&origin),
        };
        push_hits(view, &uni, out);
        b.map_bytes = bytes;
        b.map_origin = origin;
    }
    b.matched = matched;
}

fn view_hits_of(b: &Batch, range: Range<usize>, kind: ViewKind) -> Vec<ViewHit> {
    b.view_hits[range]
        .iter()
        .filter(|(_, h)| h.rule.view == kind)
        .map(|&(_, h)| h)
        .collect()
}
