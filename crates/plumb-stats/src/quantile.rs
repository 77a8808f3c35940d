//! Quantiles: a KLL sketch (Karnin, Lang and Liberty, "Optimal quantile
//! approximation in streams", 2016) over doubles.
//!
//! Written here: the maintained quantile crates either keep every value
//! (exact but unbounded), or bound the error relative to the value
//! (DDSketch, whose bins grow with the range and collapse without a
//! stated bound) or state no bound at all (t-digest). KLL's error is a
//! rank error that does not depend on the values, its memory is a fixed
//! function of `k`, and two sketches merge into one with the same
//! guarantee. The compaction coins come from a generator seeded with a
//! constant, so a run repeats exactly.
//!
//! Until the first compaction every value is held, and the quantiles are
//! the exact order statistics (nearest rank: the value at rank
//! `ceil(q * n)`).
//!
//! Values are held as `u64` keys ordered as the doubles are (IEEE 754
//! total order), so sorting compares integers. Only the lowest level
//! takes values unsorted; every level above is kept sorted, since what
//! a compaction sends up is a sorted run merged into a sorted level in
//! one linear pass. A compaction therefore sorts only the lowest level.
//!
//! Reference (for a merge): sorting the values taken. Held equal by:
//! `quantile.rs::tests::a_merge_equals_sorting_the_taken_values`.

/// A KLL sketch, mergeable.
#[derive(Clone, Debug)]
pub(crate) struct Quantiles {
    k: u32,
    /// Level `h` holds values (as [`key`]s) of weight `2^h`; every level
    /// but the lowest is sorted.
    levels: Vec<Vec<u64>>,
    n: u64,
    /// xorshift state for the compaction coins.
    coin: u64,
    compacted: bool,
    /// Values held, and the sum of the levels' capacities.
    held: usize,
    room: usize,
    /// Each level's capacity, made again only when a level is added.
    caps: Vec<usize>,
}

/// Ratio of a level's capacity to the one above it.
const DECAY: f64 = 2.0 / 3.0;

/// The smallest capacity of a level.
const MIN_CAPACITY: usize = 4;

impl Quantiles {
    pub(crate) fn new(k: u32) -> Quantiles {
        Quantiles {
            k: k.max(8),
            levels: vec![Vec::new()],
            n: 0,
            coin: 0x9E37_79B9_7F4A_7C15,
            compacted: false,
            held: 0,
            room: 0,
            caps: Vec::new(),
        }
        .measured()
    }

    fn measured(mut self) -> Quantiles {
        self.measure();
        self.levels[0].reserve_exact(self.caps[0]);
        self
    }

    /// Whether every value is still held (the quantiles are exact).
    pub(crate) fn is_exact(&self) -> bool {
        !self.compacted
    }

    /// The normalized rank error this sketch states: with 99%
    /// confidence, a reported `q`-quantile has a rank within
    /// `rank_error * n` of `q * n`. The constant is that of Apache
    /// DataSketches' KLL for one quantile, checked here by tests.
    pub(crate) fn rank_error(&self) -> f64 {
        2.296 / f64::from(self.k).powf(0.9723)
    }

    /// Its `k`.
    pub(crate) fn k(&self) -> u32 {
        self.k
    }

    /// Values counted.
    pub(crate) fn len(&self) -> u64 {
        self.n
    }

    /// The capacity of level `h` of `depth` levels: `k` at the top,
    /// shrinking by [`DECAY`] per level down, even; the lowest level
    /// keeps `k`.
    ///
    /// By the decay alone the lowest level of a deep sketch holds 4, and
    /// compaction, which takes the lowest full level, would then compact
    /// it every second value while the levels above ran over their
    /// capacities. With `k` places (1.6 KiB at `k = 200`, held from the
    /// first number) and compacted whenever full, a compaction sorts `k`
    /// values once per `k` values; its buffer never grows. A larger lowest level holds more values
    /// at weight one, so the error is no larger.
    fn capacity(&self, h: usize) -> usize {
        let depth = self.levels.len() - 1 - h;
        let floor = if h == 0 {
            self.k as usize
        } else {
            MIN_CAPACITY
        };
        // Past 40 levels down the floor holds (2/3^40 * k < 1).
        if depth > 40 {
            return (floor + 1) & !1;
        }
        let c = (f64::from(self.k) * DECAY.powi(depth as i32)).ceil() as usize;
        (c.max(floor) + 1) & !1
    }

    /// Counts a value (NaN is the caller's to leave out).
    #[inline]
    pub(crate) fn add(&mut self, v: f64) {
        self.n += 1;
        self.levels[0].push(key(v));
        self.held += 1;
        if self.held >= self.room || self.levels[0].len() >= self.caps[0] {
            self.compress();
        }
    }

    fn flip(&mut self) -> usize {
        let mut x = self.coin;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.coin = x;
        (x >> 63) as usize
    }

    /// Sums the levels' capacities (they change when a level is added).
    fn measure(&mut self) {
        if self.caps.len() != self.levels.len() {
            self.caps = (0..self.levels.len()).map(|h| self.capacity(h)).collect();
            self.room = self.caps.iter().sum();
        }
        self.held = self.levels.iter().map(Vec::len).sum();
    }

    /// While the lowest level is full, or the sketch holds as many values
    /// as its levels' capacities sum to, compacts the lowest level at or
    /// over its capacity (the levels above are compacted lazily, as in
    /// DataSketches: they grow into the room the others leave, so their
    /// compactions are few and large): half its values (every other one,
    /// sorted, from a random start) move up a level at twice the weight.
    fn compress(&mut self) {
        while self.held >= self.room || self.levels[0].len() >= self.caps[0] {
            let h = (0..self.levels.len())
                .find(|&h| self.levels[h].len() >= self.caps[h])
                .unwrap_or(0);
            self.compacted = true;
            if h + 1 == self.levels.len() {
                self.levels.push(Vec::new());
            }
            let mut level = std::mem::take(&mut self.levels[h]);
            // An odd value out stays at its weight.
            let kept = if level.len() % 2 == 1 {
                level.pop()
            } else {
                None
            };
            if h == 0 {
                level.sort_unstable();
            }
            let start = self.flip();
            merge_sorted(&mut self.levels[h + 1], &level[start.min(level.len())..], 2);
            level.clear();
            level.extend(kept);
            // A level keeps no more room than it may fill: levels shrink
            // as new ones are added above them, and kept buffers would
            // make memory grow with the log of n. (The lowest level's
            // room is its capacity, made once.)
            level.shrink_to(self.caps[h]);
            self.levels[h] = level;
            self.measure();
        }
    }

    /// Takes in another sketch.
    pub(crate) fn merge(&mut self, other: &Quantiles) {
        while self.levels.len() < other.levels.len() {
            self.levels.push(Vec::new());
        }
        for (h, (mine, theirs)) in self.levels.iter_mut().zip(&other.levels).enumerate() {
            if h == 0 {
                mine.extend_from_slice(theirs);
            } else {
                merge_sorted(mine, theirs, 1);
            }
        }
        self.n += other.n;
        self.compacted |= other.compacted;
        self.measure();
        self.compress();
    }

    /// This sketch as one of `k`: itself when it is, else an empty one
    /// of `k` that took it in.
    pub(crate) fn within(&self, k: u32) -> Quantiles {
        if self.k == k.max(8) {
            return self.clone();
        }
        let mut q = Quantiles::new(k);
        q.merge(self);
        q
    }

    /// The sketch as written ([`crate::state`]).
    pub(crate) fn state(&self) -> crate::state::QuantilesState {
        crate::state::QuantilesState {
            levels: self.levels.clone(),
            n: self.n,
            coin: self.coin,
            compacted: self.compacted,
        }
    }

    /// The sketch a state describes, of `k`; an error says what no
    /// sketch holds (more values than its levels' room, a level above
    /// the lowest out of order, weights other than the count).
    pub(crate) fn from_state(s: crate::state::QuantilesState, k: u32) -> Result<Quantiles, String> {
        let mut q = Quantiles::new(k);
        if s.levels.is_empty() || s.levels.len() > 64 || s.coin == 0 {
            return Err(format!("a quantile sketch of {} levels", s.levels.len()));
        }
        if s.levels
            .iter()
            .skip(1)
            .any(|l| l.windows(2).any(|w| w[0] > w[1]))
        {
            return Err("a quantile sketch level out of order".into());
        }
        let weight = s.levels.iter().enumerate().try_fold(0u64, |sum, (h, l)| {
            (l.len() as u64).checked_mul(1u64 << h)?.checked_add(sum)
        });
        // A compaction moves half of an even run up at twice the weight:
        // the levels always weigh the values counted.
        if weight != Some(s.n) || (!s.compacted && s.levels.len() > 1) {
            return Err(format!(
                "a quantile sketch whose levels do not weigh its {} values",
                s.n
            ));
        }
        q.levels = s.levels;
        q.measure();
        if q.held >= q.room || q.levels[0].len() >= q.caps[0] {
            return Err(format!(
                "a quantile sketch holding {} values, past its room",
                q.held
            ));
        }
        q.n = s.n;
        q.coin = s.coin;
        q.compacted = s.compacted;
        Ok(q)
    }

    /// The nearest-rank `q`-quantiles, each `q` in `[0, 1]`, of the
    /// values held at their weights; None when no value was counted.
    pub(crate) fn quantiles(&self, qs: &[f64]) -> Option<Vec<f64>> {
        if self.n == 0 {
            return None;
        }
        let mut items: Vec<(u64, u64)> = Vec::new();
        for (h, level) in self.levels.iter().enumerate() {
            items.extend(level.iter().map(|&k| (k, 1u64 << h.min(63))));
        }
        items.sort_unstable_by_key(|i| i.0);
        let total: u64 = items.iter().map(|i| i.1).sum();
        Some(
            qs.iter()
                .map(|&q| {
                    let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
                    let mut seen = 0u64;
                    for &(k, w) in &items {
                        seen += w;
                        if seen >= rank {
                            return value(k);
                        }
                    }
                    items.last().map_or(f64::NAN, |i| value(i.0))
                })
                .collect(),
        )
    }
}

/// A double as a key ordered as IEEE 754's total order orders doubles:
/// negatives have every bit flipped, the rest only the sign bit.
#[inline]
fn key(v: f64) -> u64 {
    let bits = v.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// The double of a [`key`].
fn value(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// Merges every `step`-th value of sorted `run` (from its first) into
/// sorted `level`, in place from the back, in one pass.
fn merge_sorted(level: &mut Vec<u64>, run: &[u64], step: usize) {
    let b = run.len().div_ceil(step);
    let mut i = level.len();
    level.reserve_exact(b);
    level.resize(i + b, 0);
    let mut j = b;
    let mut w = i + b;
    while j > 0 {
        let next = run[(j - 1) * step];
        w -= 1;
        if i > 0 && level[i - 1] > next {
            level[w] = level[i - 1];
            i -= 1;
        } else {
            level[w] = next;
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn keys_order_as_the_total_order_and_map_back(a in any::<u64>(), b in any::<u64>()) {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            prop_assert_eq!(key(x).cmp(&key(y)), x.total_cmp(&y));
            prop_assert_eq!(value(key(x)).to_bits(), a);
        }

        #[test]
        fn a_merge_equals_sorting_the_taken_values(
            mut level in proptest::collection::vec(0u64..50, 0..40),
            mut run in proptest::collection::vec(0u64..50, 0..40),
            step in 1usize..3,
        ) {
            level.sort_unstable();
            run.sort_unstable();
            let mut want = level.clone();
            want.extend(run.iter().step_by(step));
            want.sort_unstable();
            merge_sorted(&mut level, &run, step);
            prop_assert_eq!(level, want);
        }
    }

    #[test]
    fn signed_zeros_infinities_and_nans_keep_their_places() {
        let order = [
            f64::NEG_INFINITY,
            -1e300,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            f64::INFINITY,
            f64::NAN,
        ];
        for w in order.windows(2) {
            assert!(key(w[0]) < key(w[1]), "{} before {}", w[0], w[1]);
        }
    }
}
