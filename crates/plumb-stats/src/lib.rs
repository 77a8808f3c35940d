//! Statistics of a column in fixed memory: count, nulls, distinct count,
//! the most common values, sum, mean, standard deviation, quantiles, and
//! for text its range and lengths; each figure labelled exact or an
//! estimate with its error.
//!
//! An engine feeds one [`ValueStats`] per column (or per path of a JSON
//! outline): every non-null value through [`ValueStats::add_value`],
//! numbers also through [`ValueStats::add_number`], text through
//! [`ValueStats::add_text`]. Each value is hashed once (XXH3, 64 bits);
//! the hash drives the top-values summary, and a value the summary
//! already holds is known to be counted by the distinct sketch, so a
//! column of few values costs one hash and one map hit per cell.
//!
//! Memory per column is fixed by its [`StatsBudget`]: the first
//! [`STATS_FULL_COLUMNS`] columns get [`STATS_FULL_BUDGET`] (about
//! 35 KiB at most), later ones [`STATS_LEAN_BUDGET`] (about 5 KiB), so
//! ten thousand columns add at most about 57 MiB and the answer states
//! each column's error. Every sketch merges ([`ValueStats::merge`]), so a
//! parallel scan can combine per-part statistics.
//!
//! A crate of its own beside `plumb-core`, whose number literals it
//! reads: the engines that compute statistics (CSV, JSON, JSON Lines,
//! Parquet) depend on it; a reader that has none does not.
//!
//! ```
//! use plumb_stats::{NumberIn, StatsBudget, ValueStats};
//! let mut stats = ValueStats::new(StatsBudget::for_index(0));
//! for v in [3i64, 1, 2, 3] {
//!     let text = v.to_string();
//!     stats.add_value(text.as_bytes());
//!     stats.add_number(NumberIn::Int(v));
//! }
//! let report = stats.report(5, 1);
//! assert_eq!(report.distinct, 3);
//! assert_eq!(report.top[0].value, "3");
//! let numbers = report.numbers.unwrap();
//! assert_eq!(numbers.mean, Some(2.25));
//! assert_eq!(numbers.quantiles.unwrap().p50, 2.0);
//! assert_eq!(report.accuracy["distinct"], plumb_stats::Accuracy::Exact);
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod budget;
mod dates;
mod distinct;
mod moments;
mod quantile;
mod report;
mod sketch;
mod state;
mod top;

use std::collections::BTreeMap;

use serde_json::Value;

pub use budget::{
    keeps_stats, stats_bytes, stats_parts, StatsBudget, STATS_FULL_BUDGET, STATS_FULL_COLUMNS,
    STATS_FULL_COLUMN_BYTES, STATS_LEAN_BUDGET, STATS_LEAN_COLUMN_BYTES, STATS_MAX_COLUMNS,
    STATS_SPLIT_BYTES,
};
pub use dates::DaySketch;
pub use moments::{NumberIn, EXACT_SCALE_MAX};
pub use report::{
    Accuracy, DateQuantiles, DateRange, NumberSummary, QuantileSummary, StatsReport, TextSummary,
    TopValue,
};

use distinct::Distinct;
use quantile::Quantiles;
use report::estimate;
pub use sketch::{ColumnSketch, ColumnSketches, DateSketch};
pub use state::JSON_KINDS;
use top::TopValues;
pub use top::TOP_COUNTERS_MAX;

/// The most common values an answer lists per column.
pub const STATS_TOP_SHOWN: usize = 10;

/// The quantiles reported, by name.
pub const STATS_QUANTILES: [(&str, f64); 7] = [
    ("p1", 0.01),
    ("p5", 0.05),
    ("p25", 0.25),
    ("p50", 0.50),
    ("p75", 0.75),
    ("p95", 0.95),
    ("p99", 0.99),
];

#[derive(Clone, Debug)]
struct TextRange {
    min: Vec<u8>,
    max: Vec<u8>,
    /// The first eight bytes of `min` and `max` as big-endian integers
    /// (zero-padded): most comparisons end on them, without a `memcmp`.
    min_key: u64,
    max_key: u64,
    min_len: u64,
    max_len: u64,
    total_len: u64,
    count: u64,
    /// The most bytes of a value compared: past the kept bytes, the
    /// range is of the values' starts. (A length, not a flag, so that
    /// statistics merged into a leaner budget tell the same.)
    max_bytes: u64,
}

#[derive(Clone, Debug)]
struct NumberStats {
    moments: moments::Moments,
    quantiles: Quantiles,
    count: u64,
    /// Values a double cannot hold (past its range: `1e400`) or NaN:
    /// counted, left out of the figures.
    non_finite: u64,
    /// Numbers whose double may misstate them (the quantiles are of
    /// doubles).
    rounded: u64,
    /// Of those, numbers read as zero or a subnormal double (`1e-400`,
    /// `3e-324`): misstated by up to all of their size, not by half a
    /// unit in the last place.
    tiny: u64,
}

/// One column's statistics, in the memory its [`StatsBudget`] allows.
#[derive(Clone, Debug)]
pub struct ValueStats {
    budget: StatsBudget,
    top: TopValues,
    distinct: Distinct,
    numbers: Option<Box<NumberStats>>,
    text: Option<Box<TextRange>>,
    /// The names of the kinds values were added with (none: unnamed).
    kind_names: &'static [&'static str],
    /// When a value known only by its start was counted
    /// ([`ValueStats::add_cut_value_of_kind`]), the shortest such start:
    /// the distinct count and the top values then tell such values apart
    /// by start and length alone.
    cut_start: Option<usize>,
}

/// The first eight bytes of `bytes`, zero-padded, as a big-endian
/// integer: ordered as the bytes are whenever two keys differ.
#[inline]
fn prefix_key(bytes: &[u8]) -> u64 {
    if let Some(head) = bytes.first_chunk::<8>() {
        return u64::from_be_bytes(*head);
    }
    // A short value is read in two overlapping loads, not copied into a
    // zeroed array: that copy is a library call and a stalled reload, on
    // every cell of a short-text column. Byte
    // `i` belongs at shift `56 - 8i`; both loads put it there, so their
    // overlap ORs equal bits.
    let len = bytes.len();
    match (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        (Some(head), Some(tail)) => {
            let head = u64::from(u32::from_be_bytes(*head)) << 32;
            head | u64::from(u32::from_be_bytes(*tail)) << (64 - 8 * len)
        }
        _ => bytes
            .iter()
            .enumerate()
            .fold(0, |k, (i, &b)| k | u64::from(b) << (56 - 8 * i)),
    }
}

/// The hash a value is told apart by.
#[inline]
pub fn value_hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// The hash of a value of kind `kind`: its [`value_hash`] with a
/// constant of the kind mixed in after hashing. Not XXH3's seed: for
/// inputs of up to three bytes XXH3 adds the seed to a key it then XORs
/// with the input, so seeds a little apart collide on inputs a little
/// apart (the number `100` of one kind and the string `103` of the
/// next had one hash). A constant XORed onto the finished hash makes two
/// values of different kinds collide only as two random hashes do.
#[inline]
fn kind_hash(bytes: &[u8], kind: u8) -> u64 {
    value_hash(bytes) ^ KIND_KEYS[usize::from(kind)]
}

/// Each kind's constant, made once at compile time: splitmix64's
/// increment times the kind, through its finaliser (well spread).
const KIND_KEYS: [u64; 256] = {
    let mut keys = [0u64; 256];
    let mut kind = 0;
    while kind < 256 {
        let mut z = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(kind as u64 + 1);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        keys[kind] = z ^ (z >> 31);
        kind += 1;
    }
    keys
};

impl ValueStats {
    /// Empty statistics within `budget`.
    pub fn new(budget: StatsBudget) -> ValueStats {
        ValueStats {
            budget,
            top: TopValues::new(budget.top_counters, budget.text_bytes),
            distinct: Distinct::new(budget.hll_precision, budget.exact_distinct),
            numbers: None,
            text: None,
            kind_names: &[],
            cut_start: None,
        }
    }

    /// Counts a non-null value, as written, for the distinct count and
    /// the top values.
    #[inline]
    pub fn add_value(&mut self, bytes: &[u8]) {
        self.add_hashed(value_hash(bytes), bytes, bytes.len() as u64, 0);
    }

    /// [`ValueStats::add_value`] and [`ValueStats::add_number`] of one
    /// number cell, for an engine's cell loop.
    #[inline]
    pub fn add_number_value(&mut self, bytes: &[u8], number: NumberIn) {
        self.add_value(bytes);
        self.add_number(number);
    }

    /// [`ValueStats::add_value`] and [`ValueStats::add_text`] of one
    /// text cell, `chars` characters long, for an engine's cell loop.
    #[inline]
    pub fn add_text_value(&mut self, bytes: &[u8], chars: u64) {
        self.add_value(bytes);
        self.add_text(bytes, chars);
    }

    /// [`ValueStats::add_value`] for a value of one of several kinds
    /// that may share a text (the JSON string `"1"` and the number `1`):
    /// `kind` keeps them apart.
    #[inline]
    pub fn add_value_of_kind(&mut self, bytes: &[u8], kind: u8) {
        self.add_hashed(kind_hash(bytes, kind), bytes, bytes.len() as u64, kind);
    }

    /// [`ValueStats::add_value_of_kind`] for a value of which only the
    /// first bytes, `start`, were read (a JSON string past the parser's
    /// capture cap), `len` bytes in all. Two such values with the same
    /// start and length count as one, so the distinct count and the top
    /// values are then labelled estimates (`prefix`, with the bytes
    /// compared), not exact.
    pub fn add_cut_value_of_kind(&mut self, start: &[u8], len: u64, kind: u8) {
        self.cut_start = Some(self.cut_start.map_or(start.len(), |n| n.min(start.len())));
        // The length mixed in: values that differ in length stay apart.
        let hash = kind_hash(start, kind) ^ len.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
        self.add_hashed(hash, start, len, kind);
    }

    /// Names the kinds of [`ValueStats::add_value_of_kind`] (`names[k]`
    /// for kind `k`), so top values of several kinds say which is which.
    #[must_use]
    pub fn with_kind_names(mut self, names: &'static [&'static str]) -> ValueStats {
        self.kind_names = names;
        self
    }

    /// Counts a value of `len` bytes whose text (or its start) is
    /// `bytes`, told apart by `hash`.
    #[inline]
    fn add_hashed(&mut self, hash: u64, bytes: &[u8], len: u64, kind: u8) {
        let seen = self.top.add(hash, bytes, len, kind);
        if !seen {
            // A value the summary holds was counted when it came in.
            self.distinct.add(hash);
        }
    }

    /// Counts a number (also given to [`ValueStats::add_value`]).
    #[inline]
    pub fn add_number(&mut self, number: NumberIn) {
        let n = self.numbers.get_or_insert_with(|| {
            Box::new(NumberStats {
                moments: moments::Moments::new(),
                quantiles: Quantiles::new(self.budget.quantile_k),
                count: 0,
                non_finite: 0,
                rounded: 0,
                tiny: 0,
            })
        });
        n.count += 1;
        let v = number.to_f64();
        let misstated = !number.is_faithful();
        n.rounded += u64::from(misstated);
        n.tiny += u64::from(misstated && v.abs() < f64::MIN_POSITIVE);
        if !v.is_finite() {
            n.non_finite += 1;
            return;
        }
        n.moments.add(number, v);
        n.quantiles.add(v);
    }

    /// Counts a text value (also given to [`ValueStats::add_value`]),
    /// `chars` characters long.
    #[inline]
    pub fn add_text(&mut self, bytes: &[u8], chars: u64) {
        let cap = self.budget.text_bytes;
        let kept = &bytes[..bytes.len().min(cap)];
        match &mut self.text {
            Some(t) => {
                t.count += 1;
                t.total_len += chars;
                t.min_len = t.min_len.min(chars);
                t.max_len = t.max_len.max(chars);
                t.max_bytes = t.max_bytes.max(bytes.len() as u64);
                let key = prefix_key(kept);
                // Equal keys (a shared first eight bytes, or a value
                // shorter than eight bytes that is a prefix of the other)
                // are settled by the whole comparison.
                if key < t.min_key || (key == t.min_key && kept < t.min.as_slice()) {
                    t.min.clear();
                    t.min.extend_from_slice(kept);
                    t.min_key = key;
                } else if key > t.max_key || (key == t.max_key && kept > t.max.as_slice()) {
                    t.max.clear();
                    t.max.extend_from_slice(kept);
                    t.max_key = key;
                }
            }
            None => {
                let key = prefix_key(kept);
                self.text = Some(Box::new(TextRange {
                    min_key: key,
                    max_key: key,
                    min: kept.to_vec(),
                    max: kept.to_vec(),
                    min_len: chars,
                    max_len: chars,
                    total_len: chars,
                    count: 1,
                    max_bytes: bytes.len() as u64,
                }));
            }
        }
    }

    /// Takes in the statistics of other values of the same column: the
    /// figures are those of all the values, within each estimate's error.
    /// Statistics of another budget merge at the leaner of the two
    /// ([`StatsBudget::leaner`]), as if every value had been counted
    /// within it: the exact figures, and whether each figure is exact,
    /// do not depend on which side was leaner or in what order
    /// statistics merged; the estimates may differ within their error.
    pub fn merge(&mut self, other: &ValueStats) {
        let budget = self.budget.leaner(other.budget);
        if budget != self.budget {
            let mut lean = ValueStats::new(budget).with_kind_names(self.kind_names);
            lean.merge_within(self);
            *self = lean;
        }
        self.merge_within(other);
    }

    /// [`ValueStats::merge`] within this side's budget, which is no
    /// fuller than the other's in any part.
    fn merge_within(&mut self, other: &ValueStats) {
        if self.kind_names.is_empty() {
            self.kind_names = other.kind_names;
        }
        self.cut_start = match (self.cut_start, other.cut_start) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.distinct.merge(&other.distinct);
        if self.top.is_exact() {
            // The summary held every distinct value; the set may not.
            for h in self.top.hashes() {
                self.distinct.add(h);
            }
        }
        if other.top.is_exact() {
            for h in other.top.hashes() {
                self.distinct.add(h);
            }
        }
        self.top.merge(&other.top);
        match (&mut self.numbers, &other.numbers) {
            (Some(a), Some(b)) => {
                a.moments.merge(&b.moments);
                a.quantiles.merge(&b.quantiles);
                a.count += b.count;
                a.non_finite += b.non_finite;
                a.rounded += b.rounded;
                a.tiny += b.tiny;
            }
            (None, Some(b)) => {
                let mut n = b.clone();
                n.quantiles = b.quantiles.within(self.budget.quantile_k);
                self.numbers = Some(n);
            }
            _ => {}
        }
        match (&mut self.text, &other.text) {
            (Some(a), Some(b)) => {
                a.count += b.count;
                a.total_len += b.total_len;
                a.min_len = a.min_len.min(b.min_len);
                a.max_len = a.max_len.max(b.max_len);
                a.max_bytes = a.max_bytes.max(b.max_bytes);
                // Cut to this side's kept bytes: the least of values cut
                // is the cut of their least.
                let cap = self.budget.text_bytes;
                let (min, max) = (
                    &b.min[..b.min.len().min(cap)],
                    &b.max[..b.max.len().min(cap)],
                );
                if min < a.min.as_slice() {
                    a.min = min.to_vec();
                    a.min_key = prefix_key(min);
                }
                if max > a.max.as_slice() {
                    a.max = max.to_vec();
                    a.max_key = prefix_key(max);
                }
            }
            (None, Some(b)) => {
                let cap = self.budget.text_bytes;
                let mut t = b.clone();
                t.min.truncate(cap);
                t.max.truncate(cap);
                t.min_key = prefix_key(&t.min);
                t.max_key = prefix_key(&t.max);
                self.text = Some(t);
            }
            _ => {}
        }
    }

    /// The report, given the column's count of values (nulls included)
    /// and of nulls, which the engine keeps.
    pub fn report(&self, count: u64, nulls: u64) -> StatsReport {
        let mut accuracy = BTreeMap::new();
        accuracy.insert("count", Accuracy::Exact);
        accuracy.insert("nulls", Accuracy::Exact);
        // An estimate is never above the values there are to tell apart.
        let distinct = self.distinct.count().min(count.saturating_sub(nulls));
        // Values known by their start alone are told apart by it.
        let compared = ("compared_bytes", self.cut_start.unwrap_or(0) as f64);
        let cut = self.cut_start.is_some();
        accuracy.insert(
            "distinct",
            match (self.distinct.is_exact(), cut) {
                (true, false) => Accuracy::Exact,
                (true, true) => estimate("prefix", &[compared]),
                (false, _) => {
                    let se = self.distinct.standard_error();
                    let hll = [("standard_error", se), ("bound_99_7", 3.0 * se)];
                    if cut {
                        estimate("hyperloglog+prefix", &[hll[0], hll[1], compared])
                    } else {
                        estimate("hyperloglog", &hll)
                    }
                }
            },
        );
        let top: Vec<TopValue> = self
            .top
            .top(STATS_TOP_SHOWN)
            .into_iter()
            .map(|e| TopValue {
                value: e.text,
                count: e.count,
                overcount: e.error,
                at_least: e.count.saturating_sub(e.error),
                bytes: e.cut_from,
                kind: self.kind_names.get(usize::from(e.kind)).copied(),
            })
            .collect();
        let overcount = ("max_overcount", self.top.bound() as f64);
        accuracy.insert(
            "top",
            match (self.top.is_exact(), cut) {
                (true, false) => Accuracy::Exact,
                (true, true) => estimate("prefix", &[compared]),
                (false, false) => estimate("space-saving", &[overcount]),
                (false, true) => estimate("space-saving+prefix", &[overcount, compared]),
            },
        );
        let numbers = self
            .numbers
            .as_ref()
            .map(|n| self.numbers_report(n, &mut accuracy));
        let text = self.text.as_ref().map(|t| {
            let range = if t.max_bytes > self.budget.text_bytes as u64 {
                estimate(
                    "prefix",
                    &[("compared_bytes", self.budget.text_bytes as f64)],
                )
            } else {
                Accuracy::Exact
            };
            accuracy.insert("text_range", range);
            // A value known by its start counts the bytes past it as
            // characters: its length is an upper bound.
            accuracy.insert(
                "text_length",
                if cut {
                    estimate("prefix", &[compared])
                } else {
                    Accuracy::Exact
                },
            );
            TextSummary {
                count: t.count,
                min: lossy_text(&t.min, self.budget.text_bytes),
                max: lossy_text(&t.max, self.budget.text_bytes),
                min_length: t.min_len,
                max_length: t.max_len,
                mean_length: t.total_len as f64 / t.count.max(1) as f64,
            }
        });
        StatsReport {
            count,
            nulls,
            distinct,
            top,
            numbers,
            text,
            dates: None,
            accuracy,
        }
    }

    fn numbers_report(
        &self,
        n: &NumberStats,
        accuracy: &mut BTreeMap<&'static str, Accuracy>,
    ) -> NumberSummary {
        let figures = n.moments.figures(n.rounded > 0);
        let mut summary = NumberSummary {
            non_finite: n.non_finite,
            count: n.count,
            sum: Value::Null,
            mean: None,
            stddev: None,
            quantiles: None,
        };
        // A value past a double's range makes these figures so too.
        let figures =
            figures.filter(|f| n.non_finite == 0 && f.sum.is_finite() && f.mean.is_finite());
        if let Some(f) = figures {
            summary.sum = match &f.sum_literal {
                Some(lit) => sum_json(lit, f.sum),
                None => float_json(f.sum),
            };
            summary.mean = Some(f.mean);
            summary.stddev = f.stddev.filter(|s| s.is_finite());
            let label = |e: Option<f64>, kind: &'static str| match e {
                None => Accuracy::Exact,
                Some(e) => estimate("double", &[(kind, e)]),
            };
            let counted = n.quantiles.len() as f64;
            let sum_error = match &f.sum_literal {
                Some(_) => None,
                None => f.mean_error.map(|e| e * counted),
            };
            accuracy.insert("sum", label(sum_error, "absolute_error"));
            accuracy.insert("mean", label(f.mean_error, "absolute_error"));
            if summary.stddev.is_some() {
                accuracy.insert("stddev", label(f.stddev_error, "relative_error"));
            }
        }
        let qs: Vec<f64> = STATS_QUANTILES.iter().map(|q| q.1).collect();
        if let Some(values) = n.quantiles.quantiles(&qs) {
            let q = |i: usize| values.get(i).copied().unwrap_or(f64::NAN);
            summary.quantiles = Some(QuantileSummary {
                p1: q(0),
                p5: q(1),
                p25: q(2),
                p50: q(3),
                p75: q(4),
                p95: q(5),
                p99: q(6),
            });
            // How far a quantile's double may be from the number it
            // stands for, when some number was misstated: half a unit in
            // the last place, or, below the normal range, up to all of
            // it (`1e-400` read as zero).
            let misstated =
                (n.rounded > 0).then(|| if n.tiny > 0 { 1.0 } else { f64::EPSILON / 2.0 });
            let mut e = Vec::new();
            if let Some(m) = misstated {
                e.push(("relative_error", m));
            }
            if n.non_finite > 0 {
                e.push(("excluded", n.non_finite as f64));
            }
            accuracy.insert(
                "quantiles",
                if !n.quantiles.is_exact() {
                    e.push(("rank_error", n.quantiles.rank_error()));
                    estimate("kll", &e)
                } else if n.non_finite > 0 {
                    // Of the numbers a double holds; the others are
                    // counted in `non_finite`.
                    estimate("finite-only", &e)
                } else if misstated.is_some() {
                    // Every value held, but some as a double that
                    // misstates it.
                    estimate("double", &e)
                } else {
                    Accuracy::Exact
                },
            );
        }
        summary
    }

    /// The budget these statistics were made with.
    pub fn budget(&self) -> StatsBudget {
        self.budget
    }

    fn state(&self) -> state::StatsState {
        state::StatsState {
            budget: state::BudgetState::of(self.budget),
            kinds: self.kind_names.iter().map(|k| (*k).to_owned()).collect(),
            cut_start: self.cut_start,
            distinct: self.distinct.state(),
            top: self.top.state(),
            numbers: self.numbers.as_ref().map(|n| state::NumbersState {
                moments: n.moments.state(),
                quantiles: n.quantiles.state(),
                count: n.count,
                non_finite: n.non_finite,
                rounded: n.rounded,
                tiny: n.tiny,
            }),
            text: self.text.as_ref().map(|t| state::TextState {
                min: state::Hex(t.min.clone()),
                max: state::Hex(t.max.clone()),
                min_len: t.min_len,
                max_len: t.max_len,
                total_len: t.total_len,
                count: t.count,
                max_bytes: t.max_bytes,
            }),
        }
    }

    fn from_state(s: state::StatsState) -> Result<ValueStats, String> {
        let budget = s.budget.budget()?;
        let mut v = ValueStats::new(budget).with_kind_names(state::kind_names(&s.kinds)?);
        v.cut_start = s.cut_start;
        v.distinct = Distinct::from_state(s.distinct, budget.hll_precision, budget.exact_distinct)?;
        v.top = TopValues::from_state(s.top, budget.top_counters, budget.text_bytes)?;
        if let Some(n) = s.numbers {
            if n.rounded > n.count || n.tiny > n.rounded || n.non_finite > n.count {
                return Err("number counts that do not add up".into());
            }
            v.numbers = Some(Box::new(NumberStats {
                moments: moments::Moments::from_state(n.moments)?,
                quantiles: Quantiles::from_state(n.quantiles, budget.quantile_k)?,
                count: n.count,
                non_finite: n.non_finite,
                rounded: n.rounded,
                tiny: n.tiny,
            }));
        }
        if let Some(t) = s.text {
            let cap = budget.text_bytes;
            if t.min.0.len() > cap || t.max.0.len() > cap || t.min.0 > t.max.0 || t.count == 0 {
                return Err("a text range no values have".into());
            }
            v.text = Some(Box::new(TextRange {
                min_key: prefix_key(&t.min.0),
                max_key: prefix_key(&t.max.0),
                min: t.min.0,
                max: t.max.0,
                min_len: t.min_len,
                max_len: t.max_len,
                total_len: t.total_len,
                count: t.count,
                max_bytes: t.max_bytes,
            }));
        }
        Ok(v)
    }
}

/// Written as the plain data each sketch holds (hashes, registers,
/// counters, levels, sums; doubles as their bits), so that statistics
/// made in one process merge in another.
impl serde::Serialize for ValueStats {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.state().serialize(s)
    }
}

/// Read back only as a scan could have made it: every size is held to
/// the budget the state names and the budget to [`STATS_FULL_BUDGET`]
/// before anything is built; kind names must be none or
/// [`JSON_KINDS`]. Anything else is an error that says what is wrong.
impl<'de> serde::Deserialize<'de> for ValueStats {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ValueStats, D::Error> {
        let s = state::StatsState::deserialize(d)?;
        ValueStats::from_state(s).map_err(serde::de::Error::custom)
    }
}

/// The exact sum as JSON: a number when the nearest double writes back
/// as the same literal, else a `$literal`.
fn sum_json(literal: &str, v: f64) -> Value {
    if !literal.contains('.') {
        return plumb_core::integer_json(literal);
    }
    if v.is_finite() && format!("{v}") == literal {
        float_json(v)
    } else {
        plumb_core::literal_placeholder(literal, None)
    }
}

fn float_json(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

/// The lossy text of the first bytes of a value, kept to `cap` bytes:
/// a character the cut split is dropped, not shown as a replacement.
fn lossy_text(bytes: &[u8], cap: usize) -> String {
    let mut end = bytes.len();
    if end >= cap {
        // Back off a character the cut may have split.
        let mut start = end;
        while start > 0 && end - start < 4 && bytes[start - 1] & 0xC0 == 0x80 {
            start -= 1;
        }
        if start > 0 && bytes[start - 1] >= 0xC0 {
            let need = match bytes[start - 1] {
                b if b >= 0xF0 => 4,
                b if b >= 0xE0 => 3,
                _ => 2,
            };
            if end - (start - 1) < need {
                end = start - 1;
            }
        }
    }
    plumb_core::lossy_prefix(&bytes[..end], cap)
}

#[cfg(test)]
mod tests {
    use super::prefix_key;

    /// The key read by loads equals the zero-padded array's, at every
    /// length, for bytes that use every bit.
    #[test]
    fn prefix_key_is_the_zero_padded_first_eight_bytes() {
        let bytes: Vec<u8> = (0u8..12)
            .map(|i| 0x81u8.wrapping_add(i.wrapping_mul(37)))
            .collect();
        for len in 0..=bytes.len() {
            let value = &bytes[..len];
            let mut padded = [0u8; 8];
            let n = len.min(8);
            padded[..n].copy_from_slice(&value[..n]);
            assert_eq!(
                prefix_key(value),
                u64::from_be_bytes(padded),
                "length {len}"
            );
        }
    }
}
