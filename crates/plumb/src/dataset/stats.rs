//! A column's statistics across a dataset's files (inspect's `stats`):
//! each file's settled sketches ([`plumb_stats::ColumnSketch`]) merged
//! by column name, in the partial, so they travel and merge with it.
//!
//! The first [`STATS_FULL_COLUMNS`] columns by name keep the full budget
//! and the next ones the lean one, up to [`STATS_MAX_COLUMNS`]; later
//! columns keep none. A column's rank by name only grows as files
//! merge in, so a cut once made is the whole's cut too. Sketches of
//! different budgets merge at the leaner, so the exact figures, and
//! which figures are exact, do not depend on how the files were grouped;
//! the estimates that may (see [`order_dependent`]) are named in the
//! answer.

use std::collections::BTreeMap;

use plumb_stats::{
    Accuracy, ColumnSketch, StatsReport, STATS_FULL_COLUMNS, STATS_LEAN_BUDGET, STATS_MAX_COLUMNS,
};
use serde::{Deserialize, Serialize};

/// A column's merged statistics in a partial.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct StatsAcc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sketch: Option<Box<ColumnSketch>>,
    /// Files whose statistics of the column are in `sketch`.
    #[serde(default)]
    files: u64,
}

impl StatsAcc {
    pub(crate) fn is_empty(&self) -> bool {
        self.sketch.is_none()
    }

    /// One file's statistics of a column.
    pub(crate) fn of(sketch: Option<ColumnSketch>) -> StatsAcc {
        StatsAcc {
            files: u64::from(sketch.is_some()),
            sketch: sketch.map(Box::new),
        }
    }

    /// Takes in the same column's statistics from other files.
    pub(crate) fn absorb(&mut self, theirs: StatsAcc) {
        self.files = self.files.saturating_add(theirs.files);
        match (&mut self.sketch, theirs.sketch) {
            (Some(mine), Some(t)) => mine.merge(&t),
            (None, Some(t)) => self.sketch = Some(t),
            (_, None) => {}
        }
    }

    /// The statistics the answer shows.
    pub(crate) fn finish(self) -> Option<DatasetStats> {
        let report = self.sketch?.report();
        Some(DatasetStats {
            files: self.files,
            order_dependent: order_dependent(&report),
            report,
        })
    }
}

/// Holds columns (by name, in order) to the statistics budgets: full
/// for the first [`STATS_FULL_COLUMNS`], lean to [`STATS_MAX_COLUMNS`],
/// none after.
pub(crate) fn cut<T>(columns: &mut BTreeMap<String, T>, stats: impl Fn(&mut T) -> &mut StatsAcc) {
    for (rank, (_, c)) in columns.iter_mut().enumerate().skip(STATS_FULL_COLUMNS) {
        let s = stats(c);
        if rank >= STATS_MAX_COLUMNS {
            *s = StatsAcc::default();
        } else if let Some(sketch) = &mut s.sketch {
            sketch.lean_to(STATS_LEAN_BUDGET);
        }
    }
}

/// The figures of `report` that are estimates whose value depends on
/// the order statistics merged in: the top values past their counters,
/// quantiles past their sketch, and sums, means and deviations in
/// doubles. A distinct count's sketch, a prefix's range and the exact
/// figures are the same in any order.
pub(crate) fn order_dependent(report: &StatsReport) -> Vec<String> {
    report
        .accuracy
        .iter()
        .filter(|(figure, a)| match a {
            Accuracy::Exact => false,
            Accuracy::Estimate { method, .. } => {
                method.starts_with("space-saving")
                    || *method == "kll"
                    || (*method == "double" && matches!(**figure, "sum" | "mean" | "stddev"))
            }
        })
        .map(|(figure, _)| (*figure).to_owned())
        .collect()
}

/// A column's statistics over the files that gave them.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct DatasetStats {
    /// Files whose statistics of the column are merged here (fewer than
    /// the column's `files` when a file's reader keeps none, or the
    /// column was past [`STATS_MAX_COLUMNS`] in a file).
    pub files: u64,
    /// The figures that are estimates whose value may differ, within its
    /// stated error, when the same files' statistics merge in another
    /// grouping (partials merged in another order, a listing cut at
    /// another `--from`); every other figure is the same in any grouping.
    /// One run merges in one fixed order at any thread count.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub order_dependent: Vec<String>,
    /// The statistics, as a single file's inspect gives them.
    #[serde(flatten)]
    pub report: StatsReport,
}
