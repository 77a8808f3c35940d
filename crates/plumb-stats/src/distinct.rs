//! Distinct counts: exact while a column holds few distinct values (a
//! set of their hashes), then a HyperLogLog sketch.
//!
//! Written here rather than taken from a crate: the sketch shares the
//! one hash per value that the top-values summary also uses (the crates
//! hash their input themselves), its precision follows the column's
//! budget tier, and it starts from the exact set so that the first
//! values cost no register updates. The estimator is Ertl's improved
//! raw estimator ("New cardinality estimation algorithms for
//! HyperLogLog sketches", 2017), which needs no empirical bias tables
//! and keeps the relative standard error near `1.04 / sqrt(m)` from one
//! value to billions.
//!
//! The exact set is an open-addressing table of the hashes, not a sorted
//! list: a column of a few hundred values (dates, codes, categories past
//! the top-values counters) asks it on nearly every cell, and a probe
//! mostly ends at its first slot where a binary search takes a branch
//! it cannot predict at each of its steps.

/// The hashes seen, in an open-addressing table with linear probing,
/// sized for at most three quarters full (so a probe always ends).
#[derive(Clone, Debug)]
struct HashSet64 {
    /// 0 marks an empty slot; a hash of 0 is held by `zero`.
    slots: Vec<u64>,
    zero: bool,
    len: usize,
    /// The most slots the table grows to: room for one hash past the
    /// exact cap at three quarters full.
    max_slots: usize,
}

impl HashSet64 {
    fn new(exact_cap: usize) -> HashSet64 {
        HashSet64 {
            slots: Vec::new(),
            zero: false,
            len: 0,
            max_slots: ((exact_cap + 1) * 4).div_ceil(3) + 1,
        }
    }

    /// The slot where `hash` starts its probe: the hash's high bits
    /// scaled to the table (the table need not be a power of two, so its
    /// largest size follows the cap, not the next power past it).
    #[inline]
    fn home(hash: u64, n: usize) -> usize {
        ((u128::from(hash) * n as u128) >> 64) as usize
    }

    /// Adds `hash`; whether it was new.
    #[inline]
    fn insert(&mut self, hash: u64) -> bool {
        if hash == 0 {
            let new = !self.zero;
            self.zero = true;
            self.len += usize::from(new);
            return new;
        }
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let n = self.slots.len();
        let mut i = Self::home(hash, n);
        loop {
            match self.slots.get(i).copied() {
                Some(0) => {
                    self.slots[i] = hash;
                    self.len += 1;
                    return true;
                }
                Some(h) if h == hash => return false,
                Some(_) => i += 1,
                None => i = 0,
            }
        }
    }

    #[cold]
    fn grow(&mut self) {
        let n = (self.slots.len() * 2).clamp(16, self.max_slots.max(16));
        if n <= self.slots.len() {
            return;
        }
        let old = std::mem::replace(&mut self.slots, vec![0; n]);
        self.len = usize::from(self.zero);
        for h in old.into_iter().filter(|&h| h != 0) {
            self.insert(h);
        }
    }

    /// Every hash held, in no order.
    fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        let zero = self.zero.then_some(0);
        self.slots.iter().copied().filter(|&h| h != 0).chain(zero)
    }
}

/// A distinct count in bounded memory, mergeable.
#[derive(Clone, Debug)]
pub(crate) struct Distinct {
    /// The hashes seen, while there are at most `exact_cap`.
    exact: Option<HashSet64>,
    /// The registers once the set overflowed (`2^precision` of them).
    registers: Vec<u8>,
    precision: u8,
    exact_cap: usize,
}

impl Distinct {
    pub(crate) fn new(precision: u8, exact_cap: usize) -> Distinct {
        Distinct {
            exact: Some(HashSet64::new(exact_cap)),
            registers: Vec::new(),
            precision,
            exact_cap,
        }
    }

    /// Whether the count is still exact.
    pub(crate) fn is_exact(&self) -> bool {
        self.exact.is_some()
    }

    /// The relative standard error of the sketch once it estimates.
    pub(crate) fn standard_error(&self) -> f64 {
        1.04 / f64::from(1u32 << self.precision).sqrt()
    }

    /// Counts a value by its hash.
    #[inline]
    pub(crate) fn add(&mut self, hash: u64) {
        match &mut self.exact {
            Some(set) => {
                if set.insert(hash) && set.len > self.exact_cap {
                    self.overflow();
                }
            }
            None => self.register(hash),
        }
    }

    /// Moves the exact set into the registers.
    #[cold]
    fn overflow(&mut self) {
        let Some(set) = self.exact.take() else {
            return;
        };
        self.registers = vec![0; 1 << self.precision];
        for h in set.iter() {
            self.register(h);
        }
    }

    #[inline]
    fn register(&mut self, hash: u64) {
        let p = u32::from(self.precision);
        let index = (hash >> (64 - p)) as usize;
        let q = 64 - p;
        // The rank of the first set bit in the remaining q bits, 1-based,
        // q + 1 when they are all zero.
        let rest = hash << p;
        let rank = (rest.leading_zeros().min(q) + 1) as u8;
        if let Some(r) = self.registers.get_mut(index) {
            *r = (*r).max(rank);
        }
    }

    /// Takes in another count (of any precision: the merged sketch has
    /// the lower one).
    pub(crate) fn merge(&mut self, other: &Distinct) {
        if other.exact.is_none() && other.precision != self.precision {
            let p = self.precision.min(other.precision);
            if self.exact.is_some() {
                self.precision = p;
                self.overflow();
            } else {
                self.registers = fold(&self.registers, self.precision, p);
                self.precision = p;
            }
            let theirs = fold(&other.registers, other.precision, p);
            for (a, b) in self.registers.iter_mut().zip(&theirs) {
                *a = (*a).max(*b);
            }
            return;
        }
        match (&mut self.exact, &other.exact) {
            (Some(_), Some(theirs)) => {
                for h in theirs.iter() {
                    self.add(h);
                }
            }
            (None, Some(theirs)) => {
                for h in theirs.iter() {
                    self.register(h);
                }
            }
            (_, None) => {
                if self.exact.is_some() {
                    self.overflow();
                }
                for (a, b) in self.registers.iter_mut().zip(&other.registers) {
                    *a = (*a).max(*b);
                }
            }
        }
    }

    /// The count as written ([`crate::state`]).
    pub(crate) fn state(&self) -> crate::state::DistinctState {
        crate::state::DistinctState {
            exact: self.exact.as_ref().map(|set| {
                let mut hashes: Vec<u64> = set.iter().collect();
                hashes.sort_unstable();
                hashes
            }),
            registers: self
                .exact
                .is_none()
                .then(|| crate::state::Hex(self.registers.clone())),
            precision: self.precision,
        }
    }

    /// The count a state describes, made within `precision` (at most
    /// the budget's) and `exact_cap`; an error says what no count holds.
    pub(crate) fn from_state(
        s: crate::state::DistinctState,
        max_precision: u8,
        exact_cap: usize,
    ) -> Result<Distinct, String> {
        let p = s.precision;
        if !(4..=max_precision).contains(&p) {
            return Err(format!("a distinct count of precision {p}"));
        }
        let mut d = Distinct::new(p, exact_cap);
        match (s.exact, s.registers) {
            (Some(hashes), None) => {
                if hashes.len() > exact_cap {
                    return Err(format!(
                        "an exact distinct set of {} hashes, past its cap of {exact_cap}",
                        hashes.len()
                    ));
                }
                for h in hashes {
                    if !d.exact.as_mut().is_some_and(|set| set.insert(h)) {
                        return Err("a hash twice in an exact distinct set".into());
                    }
                }
            }
            (None, Some(crate::state::Hex(registers))) => {
                let top = 64 - p + 1;
                if registers.len() != 1 << p || registers.iter().any(|&r| r > top) {
                    return Err(format!(
                        "{} registers of precision {p} (each at most {top})",
                        registers.len()
                    ));
                }
                d.exact = None;
                d.registers = registers;
            }
            _ => return Err("a distinct count with both or neither of a set and registers".into()),
        }
        Ok(d)
    }

    /// The count: exact, or the sketch's estimate rounded.
    pub(crate) fn count(&self) -> u64 {
        match &self.exact {
            Some(set) => set.len as u64,
            None => self.estimate().round() as u64,
        }
    }

    /// Ertl's improved raw estimator over the register histogram.
    fn estimate(&self) -> f64 {
        let p = u32::from(self.precision);
        let q = (64 - p) as usize;
        let m = self.registers.len() as f64;
        let mut hist = vec![0u64; q + 2];
        for &r in &self.registers {
            hist[usize::from(r).min(q + 1)] += 1;
        }
        let mut z = m * tau(1.0 - hist[q + 1] as f64 / m);
        for k in (1..=q).rev() {
            z = 0.5 * (z + hist[k] as f64);
        }
        z += m * sigma(hist[0] as f64 / m);
        let alpha = 1.0 / (2.0 * std::f64::consts::LN_2);
        alpha * m * m / z
    }
}

/// Registers of precision `from` as registers of precision `to` (not
/// above `from`): the index bits dropped become the leading bits of the
/// rest of the hash, so each rank is what the lower precision would have
/// recorded.
fn fold(registers: &[u8], from: u8, to: u8) -> Vec<u8> {
    let d = u32::from(from - to);
    let mut out = vec![0u8; 1 << to];
    let top = (64 - u32::from(to) + 1) as u8;
    for (j, &r) in registers.iter().enumerate() {
        if r == 0 {
            continue;
        }
        let low = j as u64 & ((1u64 << d) - 1);
        let rank = if low != 0 {
            (d - (64 - low.leading_zeros())) as u8 + 1
        } else {
            (d as u8).saturating_add(r).min(top)
        };
        let slot = &mut out[j >> d];
        *slot = (*slot).max(rank);
    }
    out
}

/// `x + sum_{k>=1} x^(2^k) 2^(k-1)`, the correction for empty registers.
fn sigma(x: f64) -> f64 {
    if x >= 1.0 {
        return f64::INFINITY;
    }
    let (mut x, mut y, mut z) = (x, 1.0, x);
    loop {
        x *= x;
        let before = z;
        z += x * y;
        y += y;
        if z == before {
            return z;
        }
    }
}

/// `(1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3`, the correction for
/// saturated registers.
fn tau(x: f64) -> f64 {
    if x <= 0.0 || x >= 1.0 {
        return 0.0;
    }
    let (mut x, mut y, mut z) = (x, 1.0, 1.0 - x);
    loop {
        x = x.sqrt();
        let before = z;
        y *= 0.5;
        z -= (1.0 - x).powi(2) * y;
        if z == before {
            return z / 3.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Hashes with repeats, a zero, and neighbours that share a home
    /// slot (the high bits alone place a hash).
    fn hashes(seed: u64, n: usize, spread: u64) -> Vec<u64> {
        let mut x = seed;
        (0..n)
            .map(|i| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                match i % 7 {
                    0 => 0,
                    1 => (x % spread) << 40,
                    _ => (x % spread).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                }
            })
            .collect()
    }

    #[test]
    fn the_exact_set_counts_what_a_std_set_counts_up_to_its_cap() {
        for (cap, spread, seed) in [(512, 300, 1), (512, 512, 2), (32, 20, 3), (32, 33, 4)] {
            let input = hashes(seed, 5_000, spread);
            let mut d = Distinct::new(12, cap);
            let mut truth = HashSet::new();
            for &h in &input {
                d.add(h);
                truth.insert(h);
                assert_eq!(d.is_exact(), truth.len() <= cap, "cap {cap}");
                if d.is_exact() {
                    assert_eq!(d.count(), truth.len() as u64);
                }
            }
            // Merged from halves, the count is the whole's.
            let (a, b) = input.split_at(input.len() / 3);
            let mut left = Distinct::new(12, cap);
            let mut right = Distinct::new(12, cap);
            a.iter().for_each(|&h| left.add(h));
            b.iter().for_each(|&h| right.add(h));
            left.merge(&right);
            assert_eq!(left.is_exact(), d.is_exact());
            assert_eq!(left.count(), d.count(), "cap {cap} spread {spread}");
        }
    }

    #[test]
    fn the_exact_set_never_grows_past_its_stated_room() {
        let mut set = HashSet64::new(512);
        for h in 1..=513u64 {
            set.insert(h.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
        assert_eq!(set.len, 513);
        assert!(set.slots.len() <= set.max_slots);
        assert!(set.len * 4 <= set.slots.len() * 3);
        assert_eq!(set.iter().count(), 513);
    }
}
