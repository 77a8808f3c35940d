//! Distinct counts: exact while a column holds few distinct values (a
//! sorted set of their hashes), then a HyperLogLog sketch.
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

/// A distinct count in bounded memory, mergeable.
#[derive(Clone, Debug)]
pub(crate) struct Distinct {
    /// The hashes seen, sorted, while there are at most `exact_cap`.
    exact: Option<Vec<u64>>,
    /// The registers once the set overflowed (`2^precision` of them).
    registers: Vec<u8>,
    precision: u8,
    exact_cap: usize,
}

impl Distinct {
    pub(crate) fn new(precision: u8, exact_cap: usize) -> Distinct {
        Distinct {
            exact: Some(Vec::new()),
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
                if let Err(at) = set.binary_search(&hash) {
                    if set.len() == set.capacity() {
                        // Grown by halves, not doubled: the set is the
                        // largest part of a lean column's budget.
                        set.reserve_exact((set.len() / 2).max(8));
                    }
                    set.insert(at, hash);
                    if set.len() > self.exact_cap {
                        self.overflow();
                    }
                }
            }
            None => self.register(hash),
        }
    }

    /// Moves the exact set into the registers.
    #[cold]
    fn overflow(&mut self) {
        let set = self.exact.take().unwrap_or_default();
        self.registers = vec![0; 1 << self.precision];
        for h in set {
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
                for &h in theirs {
                    self.add(h);
                }
            }
            (None, Some(theirs)) => {
                for &h in theirs {
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

    /// The count: exact, or the sketch's estimate rounded.
    pub(crate) fn count(&self) -> u64 {
        match &self.exact {
            Some(set) => set.len() as u64,
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
