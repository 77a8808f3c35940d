//! Structure facts every consumer wants: duplicate keys and number
//! literals a double would misstate, each with the pointer where it
//! stands, plus the depth reached.

use std::collections::{BTreeMap, HashSet};
use std::hash::{BuildHasher, RandomState};

use serde::{Deserialize, Serialize};

use plumb_core::{PrecisionKind, FIRST_ISSUES_CAP};

use crate::builder::literal_precision;
use crate::parser::{Scalar, ScalarKind};
use crate::pointer::PathTracker;

/// Keys tracked per object for duplicate detection. Past it the object
/// is not checked further and the report says `checked_fully: false`.
pub const DUPLICATE_KEY_TRACK_CAP: usize = 10_000;

/// Keys tracked across all open objects at once, so deep nesting of wide
/// objects cannot grow memory past about 1.6 MiB of key hashes.
pub const DUPLICATE_KEY_TOTAL_CAP: usize = 100_000;

/// Small objects are checked by a linear scan of key hashes; a set is
/// built only past this many keys.
const LINEAR_KEYS: usize = 32;

/// What a [`Structure`] found, as it travels between processes (see
/// [`Structure::to_state`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StructureState {
    duplicates: DuplicateReport,
    precision: PrecisionReport,
    max_depth: usize,
}

/// A key that appears twice in one object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DuplicateKey {
    /// The pointer of the object.
    pub pointer: String,
    /// The repeated key.
    pub key: String,
}

/// Duplicate keys found: legal JSON, reported, never failed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DuplicateReport {
    /// How many repeated keys were found.
    pub count: u64,
    /// The first ones, with the pointer of their object.
    pub first: Vec<DuplicateKey>,
    /// False when an object had more keys than could be tracked.
    pub checked_fully: bool,
}

/// A number literal a double would misstate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PrecisionFact {
    /// Where the number stands.
    pub pointer: String,
    /// Its source text.
    pub literal: String,
    /// How a double would misstate it.
    pub kind: PrecisionKind,
}

/// The number literals a double would misstate.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PrecisionReport {
    /// How many were found.
    pub count: u64,
    /// Counts by kind.
    pub by_kind: BTreeMap<PrecisionKind, u64>,
    /// The first ones, with their pointers.
    pub first: Vec<PrecisionFact>,
}

/// The keys of one open object. Small objects keep their keys' bytes
/// and compare them exactly (no hashing, no false duplicates); past
/// [`LINEAR_KEYS`] keys the object switches to a set of 64-bit keyed
/// hashes, where a false duplicate needs a SipHash collision.
///
/// Objects at one level are mostly alike (the records of an array), so
/// a new object starts by reading its keys against the last object's,
/// still in the arena: while they come in the same order, each is new
/// to this object at the cost of one comparison, since the arena never
/// holds a key twice. The first key out of order drops the rest of the
/// last object's keys, and from there keys are looked up in full.
#[derive(Default)]
struct KeySet {
    arena: Vec<u8>,
    ends: Vec<u32>,
    set: HashSet<u64>,
    full: bool,
    /// How many of this object's keys there are while they still follow
    /// the last object's in order (those keys are `ends[..matched]`, and
    /// `ends[matched..]` the last object's rest); `None` once they did
    /// not.
    matched: Option<usize>,
}

impl KeySet {
    /// Readies the set for a new object at its level.
    fn begin(&mut self) {
        self.set.clear();
        self.full = false;
        self.matched = Some(0);
    }

    /// The object's keys are all in: the last object's rest is dropped,
    /// so the arena holds exactly this object's keys for the next one.
    fn end(&mut self) {
        if let Some(m) = self.matched.take() {
            self.truncate(m);
        }
    }

    /// Where key `k` of the arena starts.
    fn key_start(&self, k: usize) -> usize {
        k.checked_sub(1)
            .and_then(|i| self.ends.get(i))
            .map_or(0, |&e| e as usize)
    }

    fn truncate(&mut self, keys: usize) {
        if keys < self.ends.len() {
            self.arena.truncate(self.key_start(keys));
            self.ends.truncate(keys);
        }
    }

    fn len(&self) -> usize {
        self.matched.unwrap_or(self.ends.len()) + self.set.len()
    }

    fn contains_linear(&self, key: &[u8]) -> bool {
        let mut start = 0usize;
        for &end in &self.ends {
            let end = end as usize;
            // Length, then the first and last bytes, decide most pairs
            // without a call into memcmp.
            if end - start == key.len()
                && self.arena.get(start) == key.first()
                && self.arena.get(end.wrapping_sub(1)) == key.last()
                && &self.arena[start..end] == key
            {
                return true;
            }
            start = end;
        }
        false
    }

    /// Inserts a key; returns whether it was already there.
    fn insert(&mut self, key: &[u8], hasher: &RandomState) -> bool {
        if let Some(m) = self.matched {
            if let Some(&end) = self.ends.get(m) {
                let held = self.arena.get(self.key_start(m)..end as usize);
                if held == Some(key) {
                    self.matched = Some(m + 1);
                    return false;
                }
            }
            self.truncate(m);
            self.matched = None;
        }
        if self.set.is_empty() {
            if self.contains_linear(key) {
                return true;
            }
            if self.ends.len() < LINEAR_KEYS {
                // Keys are short; a byte loop beats a call into memcpy.
                if key.len() <= 16 {
                    self.arena.extend(key.iter().copied());
                } else {
                    self.arena.extend_from_slice(key);
                }
                self.ends.push(self.arena.len() as u32);
                return false;
            }
            // Move to hashes: the small keys go into the set.
            let mut start = 0usize;
            for &end in &self.ends {
                self.set
                    .insert(hasher.hash_one(&self.arena[start..end as usize]));
                start = end as usize;
            }
            self.arena.clear();
            self.ends.clear();
        }
        !self.set.insert(hasher.hash_one(key))
    }
}

/// Tracks path, duplicate keys, precision facts and depth from events.
pub struct Structure {
    path: PathTracker,
    sets: Vec<KeySet>,
    open: Vec<bool>,
    hasher: RandomState,
    tracked: usize,
    duplicates: DuplicateReport,
    precision: PrecisionReport,
    max_depth: usize,
}

impl Default for Structure {
    fn default() -> Structure {
        Structure {
            path: PathTracker::default(),
            sets: Vec::new(),
            open: Vec::new(),
            hasher: RandomState::new(),
            tracked: 0,
            duplicates: DuplicateReport {
                checked_fully: true,
                ..DuplicateReport::default()
            },
            precision: PrecisionReport::default(),
            max_depth: 0,
        }
    }
}

impl std::fmt::Debug for Structure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Structure")
            .field("depth", &self.open.len())
            .field("duplicates", &self.duplicates.count)
            .field("precision", &self.precision.count)
            .finish_non_exhaustive()
    }
}

impl Structure {
    /// The path tracker, for consumers that need pointers too.
    pub fn path(&self) -> &PathTracker {
        &self.path
    }

    /// A container opens.
    pub fn start(&mut self, object: bool) {
        self.path.value_starts();
        self.path.open(object);
        let d = self.open.len();
        self.open.push(object);
        self.max_depth = self.max_depth.max(d + 1);
        if object {
            // Key sets are reused level by level: no allocation per object.
            while self.sets.len() <= d {
                self.sets.push(KeySet::default());
            }
            self.sets[d].begin();
        }
    }

    /// A key in the innermost object.
    pub fn key(&mut self, key: &[u8]) {
        self.path.key(key);
        let d = self.open.len().saturating_sub(1);
        let Some(set) = self.sets.get_mut(d) else {
            return;
        };
        if set.full {
            return;
        }
        if set.len() >= DUPLICATE_KEY_TRACK_CAP || self.tracked >= DUPLICATE_KEY_TOTAL_CAP {
            set.full = true;
            self.duplicates.checked_fully = false;
            return;
        }
        if set.insert(key, &self.hasher) {
            self.duplicates.count += 1;
            if self.duplicates.first.len() < FIRST_ISSUES_CAP {
                self.duplicates.first.push(DuplicateKey {
                    pointer: self.path.pointer_upto(d),
                    key: String::from_utf8_lossy(key).into_owned(),
                });
            }
        } else {
            self.tracked += 1;
        }
    }

    /// The innermost container closes.
    pub fn end(&mut self) {
        self.path.close();
        if self.open.pop() == Some(true) {
            let d = self.open.len();
            if let Some(set) = self.sets.get_mut(d) {
                self.tracked = self.tracked.saturating_sub(set.len());
                set.end();
            }
        }
    }

    /// A scalar.
    pub fn scalar(&mut self, s: &Scalar<'_>) {
        self.path.value_starts();
        if s.kind != ScalarKind::Number {
            return;
        }
        // Fifteen bytes hold at most fifteen digits: always exact.
        if s.raw.len() <= 15 && !s.truncated && !s.raw.iter().any(|&b| b == b'e' || b == b'E') {
            return;
        }
        if let Some(kind) = literal_precision(s) {
            self.precision.count += 1;
            *self.precision.by_kind.entry(kind).or_default() += 1;
            if self.precision.first.len() < FIRST_ISSUES_CAP {
                self.precision.first.push(PrecisionFact {
                    pointer: self.path.pointer(),
                    literal: s.text().to_owned(),
                    kind,
                });
            }
        }
    }

    /// Forgets the open containers (after a text that ended in a fault),
    /// keeping the reports: the next text starts at the root.
    pub fn reset_path(&mut self) {
        while !self.open.is_empty() {
            self.end();
        }
        self.path = PathTracker::default();
    }

    /// The deepest nesting seen.
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// The open containers.
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    /// The duplicate-key report so far.
    pub fn duplicates(&self) -> &DuplicateReport {
        &self.duplicates
    }

    /// The precision report so far.
    pub fn precision(&self) -> &PrecisionReport {
        &self.precision
    }

    /// Joins in the reports of the text that follows this one, read by
    /// another `Structure` (a later part of a file read on several
    /// threads): counts add, the first facts stay in text order up to
    /// the cap, the deeper nesting stands. Both must be between values.
    pub fn absorb(&mut self, later: &Structure) {
        // Saturating: a part read back from another process is a claim.
        let d = &mut self.duplicates;
        d.count = d.count.saturating_add(later.duplicates.count);
        d.checked_fully &= later.duplicates.checked_fully;
        d.first.extend(later.duplicates.first.iter().cloned());
        d.first.truncate(FIRST_ISSUES_CAP);
        let p = &mut self.precision;
        p.count = p.count.saturating_add(later.precision.count);
        for (kind, n) in &later.precision.by_kind {
            let mine = p.by_kind.entry(*kind).or_default();
            *mine = mine.saturating_add(*n);
        }
        p.first.extend(later.precision.first.iter().cloned());
        p.first.truncate(FIRST_ISSUES_CAP);
        self.max_depth = self.max_depth.max(later.max_depth);
    }

    /// What this structure found, to travel to a join of the parts of a
    /// file read apart ([`Structure::absorb`] on the other side).
    pub fn to_state(&self) -> StructureState {
        StructureState {
            duplicates: self.duplicates.clone(),
            precision: self.precision.clone(),
            max_depth: self.max_depth,
        }
    }

    /// A structure between values that found what `state` says.
    ///
    /// # Errors
    /// What is wrong, for a state no structure makes: more first facts
    /// than are kept, or than counted, or counts by kind that do not add
    /// up to the count.
    pub fn from_state(state: StructureState) -> Result<Structure, String> {
        let (d, p) = (&state.duplicates, &state.precision);
        let by_kind = p.by_kind.values().try_fold(0u64, |a, &n| a.checked_add(n));
        let fits = d.first.len() <= FIRST_ISSUES_CAP
            && (d.first.len() as u64) <= d.count
            && p.first.len() <= FIRST_ISSUES_CAP
            && (p.first.len() as u64) <= p.count
            && by_kind == Some(p.count);
        if !fits {
            return Err("a structure's facts that no scan finds".into());
        }
        Ok(Structure {
            duplicates: state.duplicates,
            precision: state.precision,
            max_depth: state.max_depth,
            ..Structure::default()
        })
    }

    /// Takes both reports.
    pub fn into_reports(self) -> (DuplicateReport, PrecisionReport) {
        (self.duplicates, self.precision)
    }
}

/// Structure hears the parser directly: duplicate keys and precision
/// facts need keys and numbers, never string contents.
impl crate::JsonSink for Structure {
    fn capture_strings(&self) -> bool {
        false
    }
    fn start_object(&mut self, _: usize, _: u64) -> std::ops::ControlFlow<()> {
        self.start(true);
        std::ops::ControlFlow::Continue(())
    }
    fn start_array(&mut self, _: usize, _: u64) -> std::ops::ControlFlow<()> {
        self.start(false);
        std::ops::ControlFlow::Continue(())
    }
    fn key_bytes(&mut self, key: &[u8], _: bool) -> std::ops::ControlFlow<()> {
        Structure::key(self, key);
        std::ops::ControlFlow::Continue(())
    }
    fn end_object(&mut self) -> std::ops::ControlFlow<()> {
        self.end();
        std::ops::ControlFlow::Continue(())
    }
    fn end_array(&mut self) -> std::ops::ControlFlow<()> {
        self.end();
        std::ops::ControlFlow::Continue(())
    }
    fn scalar(&mut self, s: &Scalar<'_>) -> std::ops::ControlFlow<()> {
        Structure::scalar(self, s);
        std::ops::ControlFlow::Continue(())
    }
}
