//! The outline of a document: every path it holds, with what was seen
//! there, learned in one streaming pass in bounded memory.
//!
//! Paths merge the way a reader thinks of them: every element of an
//! array shares one path (`/items/*`), and an object whose keys are data
//! rather than names (ids, city codes: more than
//! [`OUTLINE_COLLAPSE_KEYS`] distinct keys at one path) is collapsed into
//! one member path `*` with its key count and a few key samples. Per
//! path: the types seen with counts, how many of the parent objects carry
//! it, array lengths, string lengths, the exact numeric range (integers
//! of any length, as everywhere in plumb) and a few samples.
//!
//! Memory is bounded by [`OUTLINE_MAX_NODES`] paths: a path past the cap
//! is not kept, and the values that would have gone there are counted
//! and stated. The tree lives in an arena and is walked with explicit
//! stacks, so no recursion follows the document's depth.

use std::ops::ControlFlow;

use plumb_core::{scan_decimal, NumericRange};
use plumb_stats::{NumberIn, StatsBudget, ValueStats};
use serde_json::{json, Map, Value};

use crate::parser::{Scalar, ScalarKind};
use crate::sink::JsonSink;

mod state;
pub use state::OutlineState;

/// The most paths an outline keeps.
pub const OUTLINE_MAX_NODES: usize = 2_000;

/// Distinct keys at one path past which its keys are taken for data and
/// collapsed into `*`.
pub const OUTLINE_COLLAPSE_KEYS: usize = 64;

// An object path's keys are told apart by the bits of one `u64`.
const _: () = assert!(OUTLINE_COLLAPSE_KEYS <= 64);

/// Samples kept per path.
pub const OUTLINE_SAMPLES: usize = 3;

/// Bytes of one sample kept (cut at a character boundary past it).
pub const OUTLINE_SAMPLE_BYTES: usize = 48;

/// Key samples kept for a collapsed object.
pub const OUTLINE_KEY_SAMPLES: usize = 5;

/// Paths an outline lists when the caller sets no budget.
pub const OUTLINE_LIST_DEFAULT: usize = 60;

const TYPES: [&str; 6] = plumb_stats::JSON_KINDS;

#[derive(Default)]
struct Node {
    /// Values at this path, by type (in [`TYPES`] order).
    types: [u64; 6],
    /// Object members, in first-seen order (keys as the parser gave
    /// them: valid UTF-8, compared as bytes).
    members: Vec<(Box<[u8]>, u32)>,
    /// The one member path of a collapsed object.
    star: Option<u32>,
    /// Keys met in a collapsed object (occurrences).
    key_occurrences: u64,
    key_samples: Vec<Box<str>>,
    /// The one element path of an array.
    items: Option<u32>,
    length: Option<(u64, u64)>,
    string_length: Option<(u64, u64)>,
    range: Option<Box<NumericRange>>,
    samples: Vec<Box<str>>,
    /// Statistics of the scalars here, when the outline keeps them.
    stats: Option<Box<ValueStats>>,
    /// Values here that came under a key its object had already given
    /// (a duplicate key): counted among the values, but not as another
    /// object carrying the key.
    repeats: u64,
}

impl Node {
    fn seen(&self) -> u64 {
        self.types.iter().sum()
    }

    /// How many parent objects carry this key: its values less those
    /// under a repeated key.
    fn present(&self) -> u64 {
        self.seen().saturating_sub(self.repeats)
    }
}

struct Frame {
    node: Option<u32>,
    array: bool,
    len: u64,
    /// Objects: the node of the member whose value comes next.
    pending: Option<u32>,
    /// Objects: where the next key is looked for first (records tend to
    /// repeat their keys in one order, so this is usually a hit).
    next_member: usize,
    /// Objects: the member paths (by position; an object path that is
    /// not collapsed has at most [`OUTLINE_COLLAPSE_KEYS`]) this object
    /// gave a key of, so a duplicate key is told.
    keys_given: u64,
}

/// A [`JsonSink`] that learns the outline of every value it is shown (a
/// document, or each record of a JSON Lines file in turn, merged).
pub struct Outline {
    nodes: Vec<Node>,
    free: Vec<u32>,
    frames: Vec<Frame>,
    /// Values whose path was past the node cap.
    values_cut: u64,
    /// Whether paths keep statistics of their scalars.
    stats: bool,
    /// Whether a path past [`plumb_stats::STATS_MAX_COLUMNS`] held a
    /// scalar that no statistics were kept of.
    stats_cut: bool,
    /// The most paths kept: [`OUTLINE_MAX_NODES`], or fewer (see
    /// [`Outline::with_node_cap`]).
    node_cap: usize,
}

/// What inspect's outline lists and learns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutlineOptions {
    /// How many paths the answer lists (all are counted).
    pub paths: usize,
    /// Whether each path keeps statistics of its scalars (distinct count,
    /// top values, moments, quantiles, text ranges: see
    /// [`plumb_stats::ValueStats`]).
    pub stats: bool,
}

impl From<usize> for OutlineOptions {
    /// A listing budget, without statistics.
    fn from(paths: usize) -> OutlineOptions {
        OutlineOptions {
            paths,
            stats: false,
        }
    }
}

impl Default for Outline {
    fn default() -> Outline {
        Outline::new()
    }
}

fn cut(text: &str) -> &str {
    let mut end = text.len().min(OUTLINE_SAMPLE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Key equality that settles most pairs on the length and the last
/// byte, without a call into `memcmp` (keys are short, and each key of a
/// record is compared with those held before it).
///
/// ```
/// assert!(plumb_json::same_key(b"name", b"name"));
/// assert!(!plumb_json::same_key(b"name", b"nome"));
/// ```
#[inline]
pub fn same_key(held: &[u8], key: &[u8]) -> bool {
    held.len() == key.len()
        && held.last() == key.last()
        && if key.len() <= 16 {
            // A match compares every byte: a loop, not a call.
            held.iter().zip(key).all(|(a, b)| a == b)
        } else {
            held == key
        }
}

/// A key kept as bytes, as text (keys come from the parser as UTF-8).
fn text_of(key: &[u8]) -> Box<str> {
    String::from_utf8_lossy(key).into()
}

fn widen(slot: &mut Option<(u64, u64)>, v: u64) {
    *slot = Some(match *slot {
        Some((lo, hi)) => (lo.min(v), hi.max(v)),
        None => (v, v),
    });
}

impl Outline {
    /// An empty outline (the root path only).
    pub fn new() -> Outline {
        Outline {
            nodes: vec![Node::default()],
            free: Vec::new(),
            frames: Vec::new(),
            values_cut: 0,
            stats: false,
            stats_cut: false,
            node_cap: OUTLINE_MAX_NODES,
        }
    }

    /// An empty outline whose paths keep statistics of their scalars.
    pub fn with_stats() -> Outline {
        Outline {
            stats: true,
            ..Outline::new()
        }
    }

    /// Keeps at most `cap` paths (never more than [`OUTLINE_MAX_NODES`]):
    /// the outline of one part of a split scan with statistics, whose
    /// budget was reckoned for that many paths. A path past the cap is
    /// counted as cut, so the part will not join ([`Outline::absorb`])
    /// and the scan falls back to one thread.
    pub fn with_node_cap(self, cap: usize) -> Outline {
        Outline {
            node_cap: cap.min(OUTLINE_MAX_NODES),
            ..self
        }
    }

    /// After the outlines of the parts of one root array were joined
    /// ([`Outline::absorb`]), each part having counted the root array
    /// once with its own elements: the root is one array of `elements`.
    pub(crate) fn join_root_array(&mut self, parts: u64, elements: u64) {
        let root = &mut self.nodes[0];
        root.types[1] = root.types[1].saturating_sub(parts.saturating_sub(1));
        root.length = Some((elements, elements));
    }

    /// Forgets the value being read (a JSON Lines record that turned out
    /// invalid): what it added stays counted, its open containers close.
    pub fn abandon_value(&mut self) {
        self.frames.clear();
    }

    fn alloc(&mut self) -> Option<u32> {
        if let Some(id) = self.free.pop() {
            self.nodes[id as usize] = Node::default();
            return Some(id);
        }
        if self.nodes.len() >= self.node_cap {
            return None;
        }
        self.nodes.push(Node::default());
        Some((self.nodes.len() - 1) as u32)
    }

    fn items_of(&mut self, node: u32) -> Option<u32> {
        if let Some(i) = self.nodes[node as usize].items {
            return Some(i);
        }
        let i = self.alloc()?;
        self.nodes[node as usize].items = Some(i);
        Some(i)
    }

    /// The node of the value about to start.
    fn value_node(&mut self) -> Option<u32> {
        let Some(top) = self.frames.last_mut() else {
            return Some(0);
        };
        if top.array {
            top.len += 1;
            let node = top.node?;
            self.items_of(node)
        } else {
            top.pending.take()
        }
    }

    fn note(&mut self, node: Option<u32>, t: usize) -> Option<u32> {
        match node {
            Some(n) => self.nodes[n as usize].types[t] += 1,
            None => self.values_cut += 1,
        }
        node
    }

    /// Merges the subtree `src` into `dst`, then frees `src`'s nodes
    /// that were merged (members `dst` lacked are moved, not copied).
    fn merge(&mut self, dst: u32, src: u32) {
        let mut work = vec![(dst, src)];
        while let Some((d, s)) = work.pop() {
            if d == s {
                continue;
            }
            let src_node = std::mem::take(&mut self.nodes[s as usize]);
            self.free.push(s);
            let dn = &mut self.nodes[d as usize];
            for (a, b) in dn.types.iter_mut().zip(src_node.types) {
                *a += b;
            }
            dn.key_occurrences += src_node.key_occurrences;
            dn.repeats += src_node.repeats;
            for k in src_node.key_samples {
                if dn.key_samples.len() < OUTLINE_KEY_SAMPLES {
                    dn.key_samples.push(k);
                }
            }
            if let Some((lo, hi)) = src_node.length {
                widen(&mut dn.length, lo);
                widen(&mut dn.length, hi);
            }
            if let Some((lo, hi)) = src_node.string_length {
                widen(&mut dn.string_length, lo);
                widen(&mut dn.string_length, hi);
            }
            if let Some(r) = src_node.range {
                match &mut dn.range {
                    Some(mine) => mine.merge(&r),
                    None => dn.range = Some(r),
                }
            }
            if let Some(st) = src_node.stats {
                match &mut dn.stats {
                    Some(mine) => mine.merge(&st),
                    None => dn.stats = Some(st),
                }
            }
            for sample in src_node.samples {
                if dn.samples.len() < OUTLINE_SAMPLES && !dn.samples.contains(&sample) {
                    dn.samples.push(sample);
                }
            }
            match (dn.items, src_node.items) {
                (Some(a), Some(b)) => work.push((a, b)),
                (None, b) => dn.items = b,
                _ => {}
            }
            // Members: into the star when `dst` is collapsed, else by key.
            let star = dn.star;
            for (key, child) in src_node.members {
                if let Some(st) = star {
                    work.push((st, child));
                    continue;
                }
                let dn = &mut self.nodes[d as usize];
                match dn.members.iter().find(|(k, _)| **k == *key) {
                    Some(&(_, mine)) => work.push((mine, child)),
                    None => dn.members.push((key, child)),
                }
            }
            match (self.nodes[d as usize].star, src_node.star) {
                (Some(a), Some(b)) => work.push((a, b)),
                (None, Some(b)) => {
                    // `dst` keeps its keys; a collapsed `src` brings its
                    // star as one more member path.
                    self.nodes[d as usize]
                        .members
                        .push((b"*".as_slice().into(), b));
                }
                _ => {}
            }
        }
    }

    /// Collapses the members of `node` into one `*` path.
    fn collapse(&mut self, node: u32) -> Option<u32> {
        let members = std::mem::take(&mut self.nodes[node as usize].members);
        let mut iter = members.into_iter();
        let (first_key, star) = iter.next()?;
        let mut samples = vec![text_of(&first_key)];
        let mut occurrences = self.nodes[star as usize].seen();
        let rest: Vec<(Box<[u8]>, u32)> = iter.collect();
        for (key, child) in rest {
            occurrences += self.nodes[child as usize].seen();
            if samples.len() < OUTLINE_KEY_SAMPLES {
                samples.push(text_of(&key));
            }
            self.merge(star, child);
        }
        let n = &mut self.nodes[node as usize];
        n.star = Some(star);
        n.key_occurrences += occurrences;
        n.key_samples = samples;
        Some(star)
    }

    /// The member path `key` of `node`, looked for first at `hint`;
    /// returns it and where the next key is likely to be.
    fn member(&mut self, node: u32, key: &[u8], hint: usize) -> (Option<u32>, usize) {
        let n = &mut self.nodes[node as usize];
        if let Some(star) = n.star {
            n.key_occurrences += 1;
            if n.key_samples.len() < OUTLINE_KEY_SAMPLES {
                n.key_samples.push(text_of(key));
            }
            return (Some(star), 0);
        }
        if let Some((_, child)) = n.members.get(hint).filter(|(k, _)| same_key(k, key)) {
            return (Some(*child), hint + 1);
        }
        if let Some(at) = n.members.iter().position(|(k, _)| same_key(k, key)) {
            return (Some(n.members[at].1), at + 1);
        }
        if n.members.len() >= OUTLINE_COLLAPSE_KEYS {
            let star = self.collapse(node);
            let n = &mut self.nodes[node as usize];
            n.key_occurrences += 1;
            return (star, 0);
        }
        let Some(child) = self.alloc() else {
            return (None, hint);
        };
        let members = &mut self.nodes[node as usize].members;
        members.push((key.into(), child));
        (Some(child), members.len())
    }

    /// Joins in the outline of the values that follow those this one
    /// was shown, learnt by another `Outline` (a later part of a JSON
    /// Lines file read on several threads), so that this outline is the
    /// one a single outline shown all the values would have learnt.
    ///
    /// Statistics merge: their exact figures are those one outline
    /// would have, and an estimate may differ from its estimate within
    /// the stated error.
    ///
    /// Returns false, leaving this outline half joined (to be dropped),
    /// when that cannot be promised: when either, or the two together,
    /// reached a cap (a collapsed wide object, the path cap), where what
    /// one outline keeps depends on the order the values came in, or when
    /// a path's statistics were given different budgets on the two sides
    /// (it was met among the first [`plumb_stats::STATS_FULL_COLUMNS`]
    /// paths on one side only). Samples join exactly: the first
    /// [`OUTLINE_SAMPLES`] distinct values of the two in order are among
    /// this one's and the later one's first ones.
    pub fn absorb(&mut self, later: &Outline) -> bool {
        if self.stats != later.stats {
            return false;
        }
        self.stats_cut |= later.stats_cut;
        let capped = |o: &Outline| {
            o.values_cut > 0 || !o.frames.is_empty() || o.nodes.iter().any(|n| n.star.is_some())
        };
        if capped(self) || capped(later) {
            return false;
        }
        let mut work = vec![(0u32, 0u32)];
        while let Some((d, s)) = work.pop() {
            let src = &later.nodes[s as usize];
            let dn = &mut self.nodes[d as usize];
            for (a, b) in dn.types.iter_mut().zip(src.types) {
                *a += b;
            }
            dn.repeats += src.repeats;
            for (mine, theirs) in [
                (&mut dn.length, src.length),
                (&mut dn.string_length, src.string_length),
            ] {
                if let Some((lo, hi)) = theirs {
                    widen(mine, lo);
                    widen(mine, hi);
                }
            }
            if let Some(r) = &src.range {
                match &mut dn.range {
                    Some(mine) => mine.merge(r),
                    None => dn.range = Some(r.clone()),
                }
            }
            if let Some(theirs) = &src.stats {
                match &mut dn.stats {
                    Some(mine) if mine.budget() != theirs.budget() => return false,
                    Some(mine) => mine.merge(theirs),
                    None if StatsBudget::for_index(d as usize) != theirs.budget() => return false,
                    None => dn.stats = Some(theirs.clone()),
                }
            }
            for sample in &src.samples {
                if dn.samples.len() < OUTLINE_SAMPLES && !dn.samples.contains(sample) {
                    dn.samples.push(sample.clone());
                }
            }
            if let Some(items) = src.items {
                let Some(mine) = self.items_of(d) else {
                    return false;
                };
                work.push((mine, items));
            }
            // Members in the later outline's first-seen order, after this
            // one's: the order one outline would have met them in.
            for (key, child) in &src.members {
                let dn = &self.nodes[d as usize];
                let mine = match dn.members.iter().find(|(k, _)| same_key(k, key)) {
                    Some(&(_, mine)) => mine,
                    None => {
                        if dn.members.len() >= OUTLINE_COLLAPSE_KEYS {
                            return false;
                        }
                        let Some(mine) = self.alloc() else {
                            return false;
                        };
                        self.nodes[d as usize].members.push((key.clone(), mine));
                        mine
                    }
                };
                work.push((mine, *child));
            }
        }
        true
    }

    /// The outline as JSON: at most `budget` paths, depth first in
    /// document order, each with its facts; what was left out is counted.
    ///
    /// ```
    /// use plumb_json::{JsonParser, Outline};
    /// let mut outline = Outline::new();
    /// let mut parser = JsonParser::new();
    /// parser.push(br#"{"a": [1, 2.5], "b": null}"#, &mut outline).unwrap();
    /// parser.finish(&mut outline).unwrap();
    /// let json = outline.to_json(10);
    /// assert_eq!(json["paths"][2]["path"], "/a/*");
    /// assert_eq!(json["paths"][2]["max"], 2.5);
    /// ```
    pub fn to_json(&self, budget: usize) -> Value {
        self.to_json_under(budget, "")
    }

    /// [`Outline::to_json`] of a subtree read as a document of its own:
    /// each path prefixed with the subtree's pointer `prefix`.
    pub fn to_json_under(&self, budget: usize, prefix: &str) -> Value {
        let mut paths = Vec::new();
        let mut total = 0u64;
        // (node, path, parent objects count)
        let mut stack: Vec<(u32, String, Option<u64>)> = vec![(0, prefix.to_owned(), None)];
        while let Some((id, path, parent_objects)) = stack.pop() {
            let n = &self.nodes[id as usize];
            if n.seen() == 0 {
                continue;
            }
            total += 1;
            if paths.len() < budget {
                paths.push(self.entry(n, &path, parent_objects));
            }
            let objects = n.types[0];
            let mut children: Vec<(u32, String, Option<u64>)> = Vec::new();
            if let Some(star) = n.star {
                children.push((star, format!("{path}/*"), None));
            }
            for (key, child) in &n.members {
                let escaped = text_of(key).replace('~', "~0").replace('/', "~1");
                children.push((*child, format!("{path}/{escaped}"), Some(objects)));
            }
            if let Some(items) = n.items {
                children.push((items, format!("{path}/*"), None));
            }
            stack.extend(children.into_iter().rev());
        }
        json!({
            "paths": paths,
            "paths_total": total,
            "paths_listed": paths.len(),
            "values_cut": self.values_cut,
            "stats_cut": self.stats_cut,
        })
    }

    fn entry(&self, n: &Node, path: &str, parent_objects: Option<u64>) -> Value {
        let mut e = Map::new();
        e.insert("path".into(), path.into());
        let types: Map<String, Value> = TYPES
            .iter()
            .zip(n.types)
            .filter(|(_, c)| *c > 0)
            .map(|(t, c)| ((*t).to_owned(), Value::from(c)))
            .collect();
        e.insert("types".into(), Value::Object(types));
        if let Some(of) = parent_objects {
            e.insert("present".into(), json!({"in": n.present(), "of": of}));
        }
        if let Some((lo, hi)) = n.length {
            e.insert("length".into(), json!({"min": lo, "max": hi}));
        }
        if n.star.is_some() {
            e.insert("collapsed".into(), true.into());
            e.insert("key_occurrences".into(), n.key_occurrences.into());
            e.insert(
                "key_samples".into(),
                n.key_samples.iter().map(|k| Value::from(&**k)).collect(),
            );
        }
        if let Some((lo, hi)) = n.string_length {
            e.insert("string_length".into(), json!({"min": lo, "max": hi}));
        }
        if let Some(r) = &n.range {
            let (lo, hi) = r.bounds();
            e.insert("min".into(), lo);
            e.insert("max".into(), hi);
        }
        if let Some(st) = &n.stats {
            let report = st.report(n.seen(), n.types[5]);
            e.insert(
                "stats".into(),
                serde_json::to_value(report).unwrap_or(Value::Null),
            );
        }
        if !n.samples.is_empty() {
            e.insert(
                "samples".into(),
                n.samples.iter().map(|s| Value::from(&**s)).collect(),
            );
        }
        Value::Object(e)
    }

    /// The statistics of each top-level key of the records (the root's
    /// members), settled for a merge with other files' (see
    /// `plumb_core::ScanBounds::sketches`): a key whose path keeps none
    /// (past [`plumb_stats::STATS_MAX_COLUMNS`], or only nulls) has none.
    pub fn key_sketches(&self) -> plumb_stats::ColumnSketches {
        let columns = self.nodes[0]
            .members
            .iter()
            .filter_map(|(key, id)| {
                let n = self.nodes.get(*id as usize)?;
                let st = n.stats.as_ref()?;
                Some((
                    text_of(key).into_string(),
                    plumb_stats::ColumnSketch::new((**st).clone(), n.seen(), n.types[5]),
                ))
            })
            .collect();
        plumb_stats::ColumnSketches { columns }
    }

    /// Whether values were left out for the node cap, or statistics for
    /// paths past [`plumb_stats::STATS_MAX_COLUMNS`].
    pub fn is_cut(&self) -> bool {
        self.values_cut > 0 || self.stats_cut
    }
}

/// Feeds a scalar to a path's statistics: its text as the value (the
/// kind keeps the string `"1"` apart from the number `1`).
fn add_stats(st: &mut ValueStats, s: &Scalar<'_>, kind: u8) {
    if s.truncated {
        // Cut at the capture cap: told apart by its start and length.
        st.add_cut_value_of_kind(s.raw, s.len, kind);
    } else {
        st.add_value_of_kind(s.raw, kind);
    }
    match s.kind {
        ScalarKind::String => {
            // A string cut at the capture cap counts its uncaptured bytes
            // as characters: an upper bound.
            let chars = s.text().chars().count() as u64 + (s.len - s.raw.len() as u64);
            st.add_text(s.raw, chars);
        }
        ScalarKind::Number => {
            if let Some(d) = scan_decimal(s.raw) {
                st.add_number(NumberIn::of_scan(&d, s.raw));
            }
        }
        _ => {}
    }
}

impl JsonSink for Outline {
    fn start_object(&mut self, _: usize, _: u64) -> ControlFlow<()> {
        let node = self.value_node();
        let node = self.note(node, 0);
        self.frames.push(Frame {
            node,
            array: false,
            len: 0,
            pending: None,
            next_member: 0,
            keys_given: 0,
        });
        ControlFlow::Continue(())
    }

    fn key(&mut self, key: &str, truncated: bool) -> ControlFlow<()> {
        self.key_bytes(key.as_bytes(), truncated)
    }

    fn key_bytes(&mut self, key: &[u8], _: bool) -> ControlFlow<()> {
        let Some((node, hint)) = self.frames.last().map(|f| (f.node, f.next_member)) else {
            return ControlFlow::Continue(());
        };
        let (child, next) = match node {
            Some(n) => self.member(n, key, hint),
            None => (None, hint),
        };
        let star = node.and_then(|n| self.nodes[n as usize].star);
        if let Some(top) = self.frames.last_mut() {
            top.pending = child;
            top.next_member = next;
            // A member path (not the `*` of a collapsed object) sits at
            // `next - 1`: a bit already set there is a repeated key.
            if let (Some(c), Some(at)) = (child.filter(|&c| Some(c) != star), next.checked_sub(1)) {
                if at < 64 {
                    let bit = 1u64 << at;
                    if top.keys_given & bit != 0 {
                        self.nodes[c as usize].repeats += 1;
                    }
                    top.keys_given |= bit;
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn end_object(&mut self) -> ControlFlow<()> {
        self.frames.pop();
        ControlFlow::Continue(())
    }

    fn start_array(&mut self, _: usize, _: u64) -> ControlFlow<()> {
        let node = self.value_node();
        let node = self.note(node, 1);
        self.frames.push(Frame {
            node,
            array: true,
            len: 0,
            pending: None,
            next_member: 0,
            keys_given: 0,
        });
        ControlFlow::Continue(())
    }

    fn end_array(&mut self) -> ControlFlow<()> {
        if let Some(f) = self.frames.pop() {
            if let Some(n) = f.node {
                widen(&mut self.nodes[n as usize].length, f.len);
            }
        }
        ControlFlow::Continue(())
    }

    fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
        let t = match s.kind {
            ScalarKind::String => 2,
            ScalarKind::Number => 3,
            ScalarKind::True | ScalarKind::False => 4,
            ScalarKind::Null => 5,
        };
        let node = self.value_node();
        let Some(id) = self.note(node, t) else {
            return ControlFlow::Continue(());
        };
        let stats = self.stats;
        let n = &mut self.nodes[id as usize];
        match s.kind {
            ScalarKind::String => widen(&mut n.string_length, s.len),
            ScalarKind::Number => n
                .range
                .get_or_insert_with(Box::default)
                .add_literal_bytes(s.raw),
            _ => {}
        }
        if stats && s.kind != ScalarKind::Null && !plumb_stats::keeps_stats(id as usize) {
            self.stats_cut = true;
        } else if stats && s.kind != ScalarKind::Null {
            let st = n.stats.get_or_insert_with(|| {
                Box::new(
                    ValueStats::new(StatsBudget::for_index(id as usize)).with_kind_names(&TYPES),
                )
            });
            add_stats(st, s, t as u8);
        }
        if n.samples.len() < OUTLINE_SAMPLES && !matches!(s.kind, ScalarKind::Null) {
            // Compared before it is copied: a path of one or two values
            // (a flag) compares on every value and copies none.
            let text = cut(s.text());
            if !n.samples.iter().any(|held| **held == *text) {
                n.samples.push(text.into());
            }
        }
        ControlFlow::Continue(())
    }
}
