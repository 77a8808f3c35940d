//! The heap one column's statistics hold, measured with a counting
//! allocator in a binary of its own (the counters are process-wide),
//! against the budgets' stated bounds.

use plumb_stats::{
    NumberIn, StatsBudget, ValueStats, STATS_FULL_BUDGET, STATS_FULL_COLUMN_BYTES,
    STATS_LEAN_BUDGET, STATS_LEAN_COLUMN_BYTES,
};

#[global_allocator]
static ALLOC: plumb_testkit::CountingAlloc = plumb_testkit::CountingAlloc;

/// Peak heap of statistics fed `n` distinct values that are numbers and
/// text of the budget's whole text length at once (every sketch filled:
/// the exact set past its cap, every top counter holding a long text,
/// the quantile sketch many levels deep), with the statistics kept
/// alive to the end.
fn peak(budget: StatsBudget, n: u64) -> usize {
    let text = |i: u64| format!("{i:0>width$}", width = budget.text_bytes + 8);
    let (_, peak) = plumb_testkit::peak_during(|| {
        let mut s = ValueStats::new(budget);
        for i in 0..n {
            let t = text(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20);
            s.add_value(t.as_bytes());
            s.add_text(t.as_bytes(), t.len() as u64);
            s.add_number(NumberIn::Int((i * 7919 % 1_000_003) as i64));
        }
        s
    });
    peak
}

#[test]
fn a_columns_statistics_stay_within_the_stated_bytes() {
    for (budget, bound) in [
        (STATS_LEAN_BUDGET, STATS_LEAN_COLUMN_BYTES),
        (STATS_FULL_BUDGET, STATS_FULL_COLUMN_BYTES),
    ] {
        let (small, large) = (peak(budget, 20_000), peak(budget, 1_000_000));
        eprintln!("{budget:?}: {small} bytes at 20,000 values, {large} at 1,000,000");
        assert!(large <= bound, "{large} bytes against {bound}");
        // Fifty times the values: the quantile sketch gains a level
        // (a few values of room) per doubling, nothing else grows.
        assert!(large < small + small / 8, "{small} -> {large}");
        // In the same test: the counter is the process's, and tests on
        // other threads would count too.
        let late = peak_overflowing_late(budget, 1_000_000);
        eprintln!("{budget:?}: {late} bytes when the exact set overflows last");
        assert!(late <= bound, "{late} bytes against {bound}");
    }
}

/// Peak heap when the exact distinct set overflows last: `n` values
/// cycling through as many distinct ones as the set holds exactly (the
/// quantile sketch deep, every top counter holding a long text), then
/// new ones, so the set, the registers it becomes and every other
/// sketch are held at once.
fn peak_overflowing_late(budget: StatsBudget, n: u64) -> usize {
    let cycle = budget.exact_distinct as u64;
    let text = |i: u64| format!("{i:0>width$}", width = budget.text_bytes + 8);
    let (_, peak) = plumb_testkit::peak_during(|| {
        let mut s = ValueStats::new(budget);
        for i in 0..n + 4 * cycle {
            let v = if i < n { i % cycle } else { i };
            let t = text(v);
            s.add_value(t.as_bytes());
            s.add_text(t.as_bytes(), t.len() as u64);
            s.add_number(NumberIn::Int(v as i64));
        }
        s
    });
    peak
}
