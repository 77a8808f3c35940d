//! How much a column's statistics may hold, and how many columns keep
//! them: the budgets, the caps on columns, and how a split scan shares
//! its memory out among parts.

/// How much one column's statistics may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatsBudget {
    /// Counters of the top-values summary: counts are exact while the
    /// column holds at most this many distinct values. Held to between
    /// 1 and [`TOP_COUNTERS_MAX`](crate::TOP_COUNTERS_MAX).
    pub top_counters: usize,
    /// Distinct values counted exactly (by hash) before the sketch.
    pub exact_distinct: usize,
    /// HyperLogLog precision: `2^p` one-byte registers, relative
    /// standard error `1.04 / sqrt(2^p)`.
    pub hll_precision: u8,
    /// KLL `k`: the quantiles' rank error shrinks about as `1 / k`.
    pub quantile_k: u32,
    /// Bytes kept of a top value's text or a text range end.
    pub text_bytes: usize,
}

/// The budget of the first [`STATS_FULL_COLUMNS`] columns: exact
/// distinct counts to 512 values, then ±1.6% (one standard error);
/// quantiles within 1.3% of rank; 32 top counters.
pub const STATS_FULL_BUDGET: StatsBudget = StatsBudget {
    top_counters: 32,
    exact_distinct: 512,
    hll_precision: 12,
    quantile_k: 200,
    text_bytes: 64,
};

/// The budget of later columns: exact distinct counts to 32 values, then
/// ±6.5%; quantiles within 8% of rank; 8 top counters.
pub const STATS_LEAN_BUDGET: StatsBudget = StatsBudget {
    top_counters: 8,
    exact_distinct: 32,
    hll_precision: 8,
    quantile_k: 32,
    text_bytes: 24,
};

/// Columns (or outline paths) given [`STATS_FULL_BUDGET`]; later ones get
/// [`STATS_LEAN_BUDGET`].
pub const STATS_FULL_COLUMNS: usize = 256;

/// Columns (or outline paths) that keep statistics: the first
/// [`STATS_FULL_COLUMNS`] at [`STATS_FULL_BUDGET`], the rest of them at
/// [`STATS_LEAN_BUDGET`]. Later ones are described without statistics
/// and the answer says so (its view is cut), so that a table of ten
/// thousand columns keeps its statistics, and the whole scan, within
/// the 32 MiB bound: the statistics' memory is divided among the
/// columns, never multiplied by them.
pub const STATS_MAX_COLUMNS: usize = 512;

/// Whether column (or outline path) `index` keeps statistics.
///
/// ```
/// use plumb_stats::{keeps_stats, STATS_MAX_COLUMNS};
/// assert!(keeps_stats(0) && keeps_stats(STATS_MAX_COLUMNS - 1));
/// assert!(!keeps_stats(STATS_MAX_COLUMNS));
/// ```
pub const fn keeps_stats(index: usize) -> bool {
    index < STATS_MAX_COLUMNS
}

/// Heap one column's statistics may hold at [`STATS_FULL_BUDGET`], every
/// sketch filled. Held by `tests/memory.rs` at the worst case it knows:
/// a column whose exact distinct set overflows only after a million
/// values have filled the quantile sketch and the top counters with long
/// texts, so the set and the registers it becomes are held beside them.
pub const STATS_FULL_COLUMN_BYTES: usize = 36 * 1024;

/// Heap one column's statistics may hold at [`STATS_LEAN_BUDGET`], held
/// by `tests/memory.rs` likewise.
pub const STATS_LEAN_COLUMN_BYTES: usize = 6 * 1024;

/// The most the statistics of a split scan's later parts may hold
/// together. Each part of a scan on several threads keeps statistics of
/// its own until they merge, so a scan with statistics is cut into no
/// more parts than keep the later parts' within this (see
/// [`stats_parts`]); the first part's are what one thread holds anyway.
pub const STATS_SPLIT_BYTES: usize = 9 * 1024 * 1024;

/// Heap the statistics of `columns` columns (or outline paths) may hold
/// (those past [`STATS_MAX_COLUMNS`] keep none).
pub fn stats_bytes(columns: usize) -> usize {
    let columns = columns.min(STATS_MAX_COLUMNS);
    let full = columns.min(STATS_FULL_COLUMNS);
    full * STATS_FULL_COLUMN_BYTES + (columns - full) * STATS_LEAN_COLUMN_BYTES
}

/// How many of `parts` a scan keeping statistics of up to `columns`
/// columns (or paths) may be cut into: the later parts' statistics stay
/// within [`STATS_SPLIT_BYTES`].
///
/// ```
/// use plumb_stats::{stats_parts, STATS_FULL_COLUMNS};
/// assert_eq!(stats_parts(4, 7), 4);
/// assert_eq!(stats_parts(4, 128), 3);
/// assert_eq!(stats_parts(4, STATS_FULL_COLUMNS), 2);
/// assert_eq!(stats_parts(4, 1_000), 1);
/// ```
pub fn stats_parts(parts: usize, columns: usize) -> usize {
    parts.min(1 + STATS_SPLIT_BYTES / stats_bytes(columns).max(1))
}

impl StatsBudget {
    /// The budget of column (or path) `index`.
    pub fn for_index(index: usize) -> StatsBudget {
        if index < STATS_FULL_COLUMNS {
            STATS_FULL_BUDGET
        } else {
            STATS_LEAN_BUDGET
        }
    }

    /// The least of two budgets in each part: what statistics made
    /// within each merge into ([`ValueStats::merge`](crate::ValueStats::merge)).
    ///
    /// ```
    /// use plumb_stats::{STATS_FULL_BUDGET, STATS_LEAN_BUDGET};
    /// assert_eq!(STATS_FULL_BUDGET.leaner(STATS_LEAN_BUDGET), STATS_LEAN_BUDGET);
    /// assert_eq!(STATS_FULL_BUDGET.leaner(STATS_FULL_BUDGET), STATS_FULL_BUDGET);
    /// ```
    #[must_use]
    pub fn leaner(self, other: StatsBudget) -> StatsBudget {
        StatsBudget {
            top_counters: self.top_counters.min(other.top_counters),
            exact_distinct: self.exact_distinct.min(other.exact_distinct),
            hll_precision: self.hll_precision.min(other.hll_precision),
            quantile_k: self.quantile_k.min(other.quantile_k),
            text_bytes: self.text_bytes.min(other.text_bytes),
        }
    }
}
