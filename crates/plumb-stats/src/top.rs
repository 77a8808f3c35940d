//! The most common values: the space-saving summary of Metwally,
//! Agrawal and El Abbadi ("Efficient computation of frequent and top-k
//! elements in data streams", 2005), with `k` counters.
//!
//! A value that holds no counter passes a gate first (the filtered
//! space-saving of Homem and Carvalho, 2010): a small array of counters
//! by hash (`alpha`) counts the misses of the values that share a slot,
//! and a value takes the smallest counter only when its slot's count
//! reaches that counter's. In a column of distinct values the counters
//! then stop changing hands on every cell. Every value without a counter
//! has been seen at most `alpha` of its slot times (an evicted counter's
//! count raises its slot to match), so a value that takes a counter
//! starts at `alpha + 1` with `alpha` as its error.
//!
//! Written here: the crates that carry it either hash their input
//! themselves (plumb hashes each value once for every sketch) or keep no
//! per-counter error, which is what lets an answer say how far each
//! count may be off. While no counter has been reused the counts are
//! exact and hold every distinct value seen. After that, each count is
//! never below the truth and at most its counter's `error` above it.
//!
//! Counts sit in an array by counter, unsorted: a value that holds a
//! counter costs one increment. The counter to reuse, the smallest, is
//! found by a pass over the `k` counts, made only when a value's gate
//! count passes a remembered lower bound of the smallest count, which
//! holds until the smallest is bumped or reused. Counters are found by
//! hash through a small open-addressing
//! table (eight 8-byte slots per counter, so it stays in L1 and a miss
//! mostly ends at its first slot; see [`INDEX_SLOTS_PER_COUNTER`]);
//! values are told apart by their 64-bit hash. Once the gate exists,
//! each of its slots also tallies the counters held by values of the
//! slot, so a value whose slot tallies none (most values of a column of
//! many) reads its gate slot alone (see [`HELD_SHIFT`]). A counter
//! keeps the raw bytes of its value's start, made text only for the
//! answer: a column of distinct values reuses a counter per cell.
//!
//! Reference: `tests::Plain`, the space-saving summary without the index.
//! Held equal by:
//! `top.rs::tests::counts_and_errors_equal_the_plain_summary`.

/// Hash to counter, open addressing with linear probing and
/// backward-shift deletion (no tombstones). A slot holds the hash's low
/// 32 bits beside its counter (8 bytes), and the whole hash is kept
/// once per counter: a probe compares the short tag, and only a tag
/// that matches is confirmed against the hash.
#[derive(Clone, Debug)]
struct Index {
    /// (tag, counter + 1); a counter of 0 marks an empty slot.
    slots: Vec<(u32, u32)>,
    /// Each counter's whole hash.
    hashes: Vec<u64>,
    mask: usize,
}

/// Index slots per counter: a miss, the usual case in a column of many
/// values, then mostly ends at its first slot; with few slots a counter,
/// a probe runs on through full slots to a step it cannot predict.
const INDEX_SLOTS_PER_COUNTER: usize = 8;

impl Index {
    fn new(counters: usize) -> Index {
        let size = (counters * INDEX_SLOTS_PER_COUNTER)
            .next_power_of_two()
            .max(8);
        Index {
            slots: vec![(0, 0); size],
            hashes: vec![0; counters],
            mask: size - 1,
        }
    }

    /// The slot of `hash`, if it is held.
    #[inline]
    fn find(&self, hash: u64) -> Option<usize> {
        let tag = hash as u32;
        let mut i = hash as usize & self.mask;
        loop {
            let (t, c) = self.slots[i];
            if c == 0 {
                return None;
            }
            if t == tag && self.hashes[c as usize - 1] == hash {
                return Some(i);
            }
            i = (i + 1) & self.mask;
        }
    }

    #[inline]
    fn get(&self, hash: u64) -> Option<u32> {
        self.find(hash).map(|i| self.slots[i].1 - 1)
    }

    #[inline]
    fn insert(&mut self, hash: u64, counter: u32) {
        let mut i = hash as usize & self.mask;
        while self.slots[i].1 != 0 {
            i = (i + 1) & self.mask;
        }
        self.slots[i] = (hash as u32, counter + 1);
        if let Some(h) = self.hashes.get_mut(counter as usize) {
            *h = hash;
        }
    }

    #[inline]
    fn remove(&mut self, hash: u64) {
        let Some(i) = self.find(hash) else {
            return;
        };
        // Shift later entries of the run back over the hole.
        let mut hole = i;
        let mut j = (i + 1) & self.mask;
        loop {
            let c = self.slots[j].1;
            if c == 0 {
                break;
            }
            let home = self.hashes[c as usize - 1] as usize & self.mask;
            // Move it when its home is not in (hole, j] cyclically.
            let between = if hole <= j {
                hole < home && home <= j
            } else {
                hole < home || home <= j
            };
            if !between {
                self.slots[hole] = self.slots[j];
                hole = j;
            }
            j = (j + 1) & self.mask;
        }
        self.slots[hole] = (0, 0);
    }
}

#[derive(Clone, Debug)]
struct Counter {
    hash: u64,
    /// How much its count may exceed the truth.
    error: u64,
    /// The value's first bytes (up to the summary's text cap).
    text: Vec<u8>,
    /// The value's whole length in bytes (more than `text` holds when
    /// the value was cut).
    len: u64,
    /// The value's kind as its caller numbers kinds (see
    /// [`super::ValueStats::add_value_of_kind`]); 0 for plain values.
    kind: u8,
}

/// The most counters a top-values summary keeps
/// ([`super::StatsBudget::top_counters`] is held to it; the full budget
/// has 32, and an answer lists ten): each slot of the summary's gate
/// tallies, in 6 bits, the counters held by values of the slot.
pub const TOP_COUNTERS_MAX: usize = (1 << (64 - HELD_SHIFT)) - 1;

/// The bit of a gate slot from which it tallies the counters held by
/// values of the slot; the bits below count the slot's misses. A value
/// whose slot tallies no counter holds none, so most values of a column
/// of many values read one slot, not the index as well (a load and a
/// branch that missed one time in eight, the first stall of the
/// statistics in `perf`).
///
/// The misses saturate at `2^58 - 1`, past any scan's reach (nine years
/// of a billion values a second, all in one slot), so they never carry
/// into the tally.
const HELD_SHIFT: u32 = 58;

/// A gate slot's misses.
const MISSES: u64 = (1 << HELD_SHIFT) - 1;

/// One counter in a gate slot's tally.
const ONE_HELD: u64 = 1 << HELD_SHIFT;

/// Gate slots per counter.
const ALPHA_PER_COUNTER: usize = 8;

/// Gate slots per counter of a summary of [`WIDE_GATE_COUNTERS`] or
/// more counters (the full budget's): 8 KiB at 32 counters.
///
/// A value without a counter takes the smallest when its gate slot's
/// count passes that counter's, and how often that happens falls as the
/// slots a counter has grow: simulated, in a column cycling through
/// 1,000 or 10,000 values, about one value in 6 or 8 takes a counter
/// at 8 slots a counter, one in 10 or 23 at 32. A take costs a pass over
/// the counts, two index updates and a text copy; a taken count's error
/// is its slot's count, so the wider gate also states smaller errors.
const WIDE_ALPHA_PER_COUNTER: usize = 32;

/// Counters from which a summary gets the wide gate (the lean budget's
/// few counters keep a small one: the ten-thousandth column's bytes
/// count more than its speed).
const WIDE_GATE_COUNTERS: usize = 32;

/// The gate's slots for `k` counters.
fn gate_len(k: usize) -> usize {
    let per = if k >= WIDE_GATE_COUNTERS {
        WIDE_ALPHA_PER_COUNTER
    } else {
        ALPHA_PER_COUNTER
    };
    (per * k).next_power_of_two()
}

/// The gate slot of `hash`.
#[inline]
fn gate_slot(hash: u64, alpha: &[u64]) -> usize {
    (hash >> 32) as usize & (alpha.len() - 1)
}

/// A space-saving summary, mergeable.
#[derive(Clone, Debug)]
pub(crate) struct TopValues {
    k: usize,
    text_cap: usize,
    counters: Vec<Counter>,
    /// Each counter's count, apart from the counters so the smallest is
    /// found by one pass over a few cache lines.
    counts: Vec<u64>,
    /// The smallest count and its counter, when `min_fresh`; otherwise a
    /// count no larger than the smallest (counts only grow), so a value
    /// whose gate count does not pass it cannot take a counter, and only
    /// a value that may take one pays for a pass.
    min: (u64, u32),
    min_fresh: bool,
    index: Index,
    /// Whether a counter has been reused (counts are estimates since).
    reused: bool,
    /// The gate: misses by hash slot (below [`HELD_SHIFT`]) and the
    /// counters held by values of the slot (from it); made when the
    /// counters first fill.
    alpha: Vec<u64>,
    /// Values counted.
    n: u64,
}

/// One of the most common values, with its count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TopEntry {
    pub text: String,
    pub count: u64,
    pub error: u64,
    /// The value's whole length in bytes, when `text` is cut.
    pub cut_from: Option<u64>,
    /// The value's kind (0 for plain values).
    pub kind: u8,
}

impl TopValues {
    pub(crate) fn new(k: usize, text_cap: usize) -> TopValues {
        let k = k.clamp(1, TOP_COUNTERS_MAX);
        TopValues {
            k,
            text_cap,
            counters: Vec::new(),
            counts: Vec::new(),
            min: (0, 0),
            min_fresh: false,
            index: Index::new(k),
            reused: false,
            alpha: Vec::new(),
            n: 0,
        }
    }

    /// Whether every count is exact (no counter was ever reused).
    pub(crate) fn is_exact(&self) -> bool {
        !self.reused
    }

    /// The most any count held exceeds the truth (0 while exact).
    pub(crate) fn bound(&self) -> u64 {
        self.counters.iter().map(|c| c.error).max().unwrap_or(0)
    }

    /// The smallest count and its counter (the first of equals), once
    /// the counters are full.
    #[inline]
    fn smallest(&mut self) -> (u64, u32) {
        if !self.min_fresh {
            let mut best = (u64::MAX, 0u32);
            for (c, &count) in self.counts.iter().enumerate() {
                if count < best.0 {
                    best = (count, c as u32);
                }
            }
            self.min = best;
            self.min_fresh = true;
        }
        self.min
    }

    /// Counts a value by its hash; `text` is asked for only when a
    /// counter takes the value. Returns whether the value already held a
    /// counter (and so was seen before).
    /// `len` is the value's whole length: `text` may be only its start
    /// (a value known by its start alone).
    #[inline]
    pub(crate) fn add(&mut self, hash: u64, text: &[u8], len: u64, kind: u8) -> bool {
        self.n += 1;
        if self.alpha.is_empty() {
            if self.hit(hash) {
                return true;
            }
            if self.counters.len() < self.k {
                self.take(hash, 1, 0, (text, len, kind));
                return false;
            }
            self.open_gate();
        }
        let slot = gate_slot(hash, &self.alpha);
        let gate = self.alpha[slot];
        if gate >= ONE_HELD && self.hit(hash) {
            return true;
        }
        let seen = gate & MISSES;
        if seen + 1 > self.min.0 && seen + 1 > self.smallest().0 {
            self.take(hash, seen + 1, seen, (text, len, kind));
        } else if seen < MISSES {
            self.alpha[slot] = gate + 1;
        }
        false
    }

    /// Counts `hash` if it holds a counter.
    #[inline(always)]
    fn hit(&mut self, hash: u64) -> bool {
        let Some(c) = self.index.get(hash) else {
            return false;
        };
        self.counts[c as usize] += 1;
        // Bumping the smallest may leave another the smallest; the old
        // count stays a lower bound.
        self.min_fresh &= c != self.min.1;
        true
    }

    /// Makes the gate, once the counters are full, tallying each
    /// counter in its value's slot.
    #[cold]
    fn open_gate(&mut self) {
        self.alpha = vec![0; gate_len(self.k)];
        self.reused = true;
        self.tally_counters();
    }

    /// Adds each counter to its slot's tally (of a gate with none).
    fn tally_counters(&mut self) {
        for c in &self.counters {
            let slot = gate_slot(c.hash, &self.alpha);
            self.alpha[slot] += ONE_HELD;
        }
    }

    /// Gives `hash` a counter: a new one while there is room, else the
    /// smallest, whose count becomes the new value's error.
    /// `value` is its text (maybe cut already), its whole length and its
    /// kind.
    fn take(&mut self, hash: u64, count: u64, error: u64, (text, len, kind): (&[u8], u64, u8)) {
        let text = &text[..text.len().min(self.text_cap)];
        if self.counters.len() < self.k {
            let c = self.counters.len() as u32;
            self.counters.push(Counter {
                hash,
                error,
                text: text.to_vec(),
                len,
                kind,
            });
            self.counts.push(count);
            self.index.insert(hash, c);
            // No gate yet: it is made once every counter is held, and a
            // merge that makes one keeps `k` counters.
            debug_assert!(self.alpha.is_empty());
            return;
        }
        self.reused = true;
        let (min, c) = self.smallest();
        let counter = &mut self.counters[c as usize];
        self.index.remove(counter.hash);
        if !self.alpha.is_empty() {
            // The evicted value was seen at most `min` times, and its
            // slot tallies one counter fewer; the new value's, one more.
            let slot = gate_slot(counter.hash, &self.alpha);
            let gate = self.alpha[slot] - ONE_HELD;
            self.alpha[slot] = (gate & !MISSES) | (gate & MISSES).max(min.min(MISSES));
            let slot = gate_slot(hash, &self.alpha);
            self.alpha[slot] += ONE_HELD;
        }
        counter.hash = hash;
        counter.error = error;
        counter.text.clear();
        counter.text.extend_from_slice(text);
        counter.len = len;
        counter.kind = kind;
        self.index.insert(hash, c);
        self.counts[c as usize] = count;
        self.min_fresh = false;
    }

    /// The hashes of every counted value while the summary is exact.
    pub(crate) fn hashes(&self) -> impl Iterator<Item = u64> + '_ {
        self.counters.iter().map(|c| c.hash)
    }

    /// Takes in another summary (the merge of Agarwal et al., "Mergeable
    /// summaries", 2012): counts add, a value one side lacks is taken at
    /// that side's smallest count (its most possible) when that side
    /// reused counters, and the `k` largest stay.
    pub(crate) fn merge(&mut self, other: &TopValues) {
        // The most a value one side holds no counter for was seen there.
        let floor = |t: &TopValues, hash: u64| {
            if !t.alpha.is_empty() {
                t.alpha[gate_slot(hash, &t.alpha)] & MISSES
            } else if t.reused {
                t.counts.iter().copied().min().unwrap_or(0)
            } else {
                0
            }
        };
        let mut alpha: Vec<u64> = Vec::new();
        if self.reused || other.reused {
            alpha = vec![0; gate_len(self.k)];
            for (i, a) in alpha.iter_mut().enumerate() {
                let hash = (i as u64) << 32;
                *a = (floor(self, hash) + floor(other, hash)).min(MISSES);
            }
        }
        let count_of = |t: &TopValues, c: usize| t.counts[c];
        let mut all: Vec<(u64, Counter)> =
            Vec::with_capacity(self.counters.len() + other.counters.len());
        for (i, c) in self.counters.iter().enumerate() {
            let (count, error) = match other.index.get(c.hash) {
                Some(t) => (
                    count_of(other, t as usize),
                    other.counters[t as usize].error,
                ),
                None => (floor(other, c.hash), floor(other, c.hash)),
            };
            let merged = Counter {
                error: c.error + error,
                ..c.clone()
            };
            all.push((count_of(self, i) + count, merged));
        }
        for (i, c) in other.counters.iter().enumerate() {
            if self.index.get(c.hash).is_none() {
                let mine = floor(self, c.hash);
                let merged = Counter {
                    error: c.error + mine,
                    ..c.clone()
                };
                all.push((count_of(other, i) + mine, merged));
            }
        }
        let reused = self.reused || other.reused || all.len() > self.k;
        all.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.hash.cmp(&b.1.hash)));
        let n = self.n + other.n;
        *self = TopValues::new(self.k, self.text_cap);
        for (at, (count, c)) in all.into_iter().enumerate() {
            if at < self.k {
                self.take(c.hash, count, c.error, (&c.text, c.len, c.kind));
            } else if !alpha.is_empty() {
                // Dropped: its slot bounds it from now on.
                let slot = gate_slot(c.hash, &alpha);
                alpha[slot] = alpha[slot].max(count.min(MISSES));
            }
        }
        self.alpha = alpha;
        if !self.alpha.is_empty() {
            self.tally_counters();
        }
        self.reused = reused;
        self.n = n;
    }

    /// The summary as written ([`crate::state`]).
    pub(crate) fn state(&self) -> crate::state::TopState {
        crate::state::TopState {
            counters: self
                .counters
                .iter()
                .zip(&self.counts)
                .map(|(c, &count)| crate::state::CounterState {
                    hash: c.hash,
                    count,
                    error: c.error,
                    text: crate::state::Hex(c.text.clone()),
                    len: c.len,
                    kind: c.kind,
                })
                .collect(),
            reused: self.reused,
            gate: self.alpha.iter().map(|a| a & MISSES).collect(),
            n: self.n,
        }
    }

    /// The summary a state describes, with `k` counters and `text_cap`
    /// bytes of text; an error says what no summary holds.
    pub(crate) fn from_state(
        s: crate::state::TopState,
        k: usize,
        text_cap: usize,
    ) -> Result<TopValues, String> {
        let mut t = TopValues::new(k, text_cap);
        if s.counters.len() > t.k {
            return Err(format!(
                "{} top-value counters, past {}",
                s.counters.len(),
                t.k
            ));
        }
        if !s.gate.is_empty() && (!s.reused || s.gate.len() != gate_len(t.k)) {
            return Err(format!("a top-values gate of {} slots", s.gate.len()));
        }
        if s.gate.iter().any(|&g| g > MISSES) {
            return Err("a top-values gate slot past its range".into());
        }
        for c in s.counters {
            if c.text.0.len() > text_cap || c.len < c.text.0.len() as u64 || c.count == 0 {
                return Err("a top-value counter whose text, length or count no value has".into());
            }
            if t.index.get(c.hash).is_some() {
                return Err("a value held by two top-value counters".into());
            }
            t.take(c.hash, c.count, c.error, (&c.text.0, c.len, c.kind));
        }
        t.alpha = s.gate;
        if !t.alpha.is_empty() {
            t.tally_counters();
        }
        t.reused = s.reused;
        t.n = s.n;
        Ok(t)
    }

    /// The `limit` largest counts, largest first (ties by text, then
    /// kind).
    pub(crate) fn top(&self, limit: usize) -> Vec<TopEntry> {
        let mut v: Vec<TopEntry> = self
            .counters
            .iter()
            .zip(&self.counts)
            .map(|(c, &count)| TopEntry {
                text: super::lossy_text(&c.text, self.text_cap),
                count,
                error: c.error,
                cut_from: (c.len > c.text.len() as u64).then_some(c.len),
                kind: c.kind,
            })
            .collect();
        v.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| a.text.cmp(&b.text))
                .then_with(|| a.kind.cmp(&b.kind))
        });
        v.truncate(limit);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary as the papers state it, written plainly: a linear
    /// search for the value and for the smallest count (the first of
    /// equals), the gate as in [`TopValues::add`].
    struct Plain {
        k: usize,
        counters: Vec<(u64, u64, u64)>,
        alpha: Vec<u64>,
    }

    impl Plain {
        fn add(&mut self, hash: u64) {
            if let Some(c) = self.counters.iter_mut().find(|c| c.0 == hash) {
                c.1 += 1;
                return;
            }
            if self.counters.len() < self.k {
                self.counters.push((hash, 1, 0));
                return;
            }
            if self.alpha.is_empty() {
                self.alpha = vec![0; gate_len(self.k)];
            }
            let slot = |h: u64, a: &[u64]| (h >> 32) as usize & (a.len() - 1);
            let s = slot(hash, &self.alpha);
            let seen = self.alpha[s];
            let (j, min) = self
                .counters
                .iter()
                .enumerate()
                .fold(
                    (0, u64::MAX),
                    |b, (i, c)| if c.1 < b.1 { (i, c.1) } else { b },
                );
            if seen + 1 > min {
                let e = slot(self.counters[j].0, &self.alpha);
                self.alpha[e] = self.alpha[e].max(min);
                self.counters[j] = (hash, seen + 1, seen);
            } else {
                self.alpha[s] = seen + 1;
            }
        }
    }

    #[test]
    fn counts_and_errors_equal_the_plain_summary() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for round in 0..40u64 {
            let k = [1, 2, 8, 32][round as usize % 4];
            let mut fast = TopValues::new(k, 8);
            let mut plain = Plain {
                k,
                counters: Vec::new(),
                alpha: Vec::new(),
            };
            // Skewed draws from universes of a few to many values, so
            // counters are hit, bumped from the smallest, and taken.
            let universe = 1 + round * round * 7;
            for _ in 0..5_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let v = (x % universe) * (x >> 60) / 16;
                let hash = v.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                fast.add(hash, &v.to_le_bytes(), 8, 0);
                plain.add(hash);
            }
            let mut got: Vec<(u64, u64, u64)> = fast
                .counters
                .iter()
                .zip(&fast.counts)
                .map(|(c, &n)| (c.hash, n, c.error))
                .collect();
            got.sort_unstable();
            plain.counters.sort_unstable();
            assert_eq!(got, plain.counters, "round {round}, k {k}");
        }
    }

    /// Each gate slot's tally, recounted from the counters.
    fn assert_tallies(t: &TopValues, at: &str) {
        if t.alpha.is_empty() {
            return;
        }
        let mut held = vec![0u64; t.alpha.len()];
        for c in &t.counters {
            held[gate_slot(c.hash, &t.alpha)] += 1;
        }
        for (slot, (&gate, &n)) in t.alpha.iter().zip(&held).enumerate() {
            assert_eq!(gate >> HELD_SHIFT, n, "{at}: slot {slot}");
        }
    }

    #[test]
    fn gate_slots_tally_the_counters_held_through_adds_and_merges() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut draw = |universe: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Skewed: some values common, most rare.
            let v = (x % universe) * (x >> 61) / 8;
            v.wrapping_mul(0xD6E8_FEB8_6659_FD93) | 1
        };
        for round in 0..24u64 {
            let k = [1, 2, 8, 32][round as usize % 4];
            let universe = 3 + round * round * 11;
            let mut parts = Vec::new();
            for _ in 0..3 {
                let mut t = TopValues::new(k, 8);
                for _ in 0..(500 + round * 97) {
                    let h = draw(universe);
                    t.add(h, &h.to_le_bytes(), 8, 0);
                }
                assert_tallies(&t, "added");
                parts.push(t);
            }
            let mut merged = parts[0].clone();
            merged.merge(&parts[1]);
            assert_tallies(&merged, "merged");
            merged.merge(&parts[2]);
            assert_tallies(&merged, "merged twice");
            // A held value found through its slot's tally counts up by
            // one; then more values churn the counters.
            if let Some(c) = merged.counters.first().cloned() {
                let before = merged.counts[0];
                assert!(merged.add(c.hash, &c.text, c.len, 0));
                assert_eq!(merged.counts[0], before + 1);
            }
            for _ in 0..2_000 {
                let h = draw(universe * 3);
                merged.add(h, &h.to_le_bytes(), 8, 0);
            }
            assert_tallies(&merged, "merged, then added");
        }
    }

    #[test]
    fn a_saturated_gate_slot_never_carries_into_its_tally() {
        let mut t = TopValues::new(2, 8);
        let h = |v: u64| v.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        for v in 0..3 {
            t.add(h(v), &v.to_le_bytes(), 8, 0);
        }
        assert!(!t.alpha.is_empty());
        // Counters past any miss count, and a slot at the most misses.
        for count in &mut t.counts {
            *count = 1 << 62;
        }
        t.min_fresh = false;
        let slot = gate_slot(h(99), &t.alpha);
        let tally = t.alpha[slot] & !MISSES;
        t.alpha[slot] = tally | MISSES;
        assert!(!t.add(h(99), b"99", 2, 0));
        assert_eq!(t.alpha[slot], tally | MISSES);
        assert_tallies(&t, "saturated");
    }

    #[test]
    fn a_budget_past_the_counter_cap_is_held_to_it() {
        let mut t = TopValues::new(usize::MAX, 8);
        assert_eq!(t.k, TOP_COUNTERS_MAX);
        for v in 0..50u64 {
            let h = v.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            for _ in 0..=v % 3 {
                t.add(h, &v.to_le_bytes(), 8, 0);
            }
        }
        assert!(t.is_exact());
        let top = t.top(3);
        assert!(top.iter().all(|e| e.count == 3 && e.error == 0));
        assert_eq!(TopValues::new(0, 8).k, 1);
    }
}
