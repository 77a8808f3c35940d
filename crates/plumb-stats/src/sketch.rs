//! A column's statistics as one file's scan hands them on, so that the
//! statistics of many files (or of a file's byte ranges) merge into the
//! statistics of all their values: the value sketches, the counts the
//! engine keeps beside them, and the dates of a column that reads as
//! dates.

use serde::{Deserialize, Serialize};

use crate::report::Accuracy;
use crate::{DateRange, DaySketch, StatsReport, ValueStats};

/// One column's statistics, settled (every cell read the way its column
/// reads it) and ready to merge with the same column's elsewhere.
///
/// ```
/// use plumb_stats::{ColumnSketch, NumberIn, StatsBudget, ValueStats};
/// let part = |values: &[i64]| {
///     let mut stats = ValueStats::new(StatsBudget::for_index(0));
///     for &v in values {
///         stats.add_number_value(v.to_string().as_bytes(), NumberIn::Int(v));
///     }
///     ColumnSketch::new(stats, values.len() as u64, 0)
/// };
/// let mut a = part(&[1, 2, 3]);
/// // Through its serialized form, as from another process.
/// let b: ColumnSketch = serde_json::from_slice(&serde_json::to_vec(&part(&[4, 5]))?)?;
/// a.merge(&b);
/// let report = a.report();
/// assert_eq!(report.count, 5);
/// assert_eq!(report.numbers.unwrap().mean, Some(3.0));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ColumnSketch {
    /// The values' statistics.
    pub values: ValueStats,
    /// The column's values, nulls included.
    pub count: u64,
    /// Its nulls.
    pub nulls: u64,
    /// Its dates, when every value that is not null read as a date of
    /// one format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dates: Option<DateSketch>,
}

/// The dates of a column of one date format.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DateSketch {
    /// The format, as the answer names it (`YYYY-MM-DD`): columns of
    /// different formats have no date range together.
    pub format: String,
    /// The earliest and latest day, as `yyyymmdd`.
    pub min: u32,
    /// See `min`.
    pub max: u32,
    /// The days, for their quantiles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<DaySketch>,
}

impl ColumnSketch {
    /// A column's sketch with no dates.
    pub fn new(values: ValueStats, count: u64, nulls: u64) -> ColumnSketch {
        ColumnSketch {
            values,
            count,
            nulls,
            dates: None,
        }
    }

    /// Takes in the same column's statistics from other values: counts
    /// add, sketches merge ([`ValueStats::merge`]), and the dates stay
    /// only while both sides read dates of one format.
    pub fn merge(&mut self, other: &ColumnSketch) {
        self.values.merge(&other.values);
        self.count += other.count;
        self.nulls += other.nulls;
        self.dates = match (self.dates.take(), &other.dates) {
            (Some(mut a), Some(b)) if a.format == b.format => {
                a.min = a.min.min(b.min);
                a.max = a.max.max(b.max);
                a.days = match (a.days, &b.days) {
                    (Some(mut x), Some(y)) => {
                        x.merge(y);
                        Some(x)
                    }
                    _ => None,
                };
                Some(a)
            }
            _ => None,
        };
    }

    /// The report of these statistics.
    pub fn report(&self) -> StatsReport {
        let mut r = self.values.report(self.count, self.nulls);
        if let Some(d) = &self.dates {
            let iso = |k: u32| format!("{:04}-{:02}-{:02}", k / 10_000, k / 100 % 100, k % 100);
            let quantiles = d.days.as_ref().and_then(|s| s.report(iso));
            r.dates = Some(DateRange {
                min: iso(d.min),
                max: iso(d.max),
                quantiles: quantiles.as_ref().map(|q| q.0.clone()),
            });
            r.accuracy.insert("dates", Accuracy::Exact);
            if let Some((_, accuracy)) = quantiles {
                r.accuracy.insert("date_quantiles", accuracy);
            }
        }
        r
    }
}

/// Each named column's settled statistics, in column order: what an
/// answer hands on to a merge across files (`plumb_core::Answer::take_sketches`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ColumnSketches {
    /// By column name; a column without a name, or past
    /// [`STATS_MAX_COLUMNS`](crate::STATS_MAX_COLUMNS), has none.
    pub columns: Vec<(String, ColumnSketch)>,
}

/// Equal when their serialized states are: two sketches that would
/// write the same bytes answer every later question alike.
impl PartialEq for ColumnSketches {
    fn eq(&self, other: &ColumnSketches) -> bool {
        serde_json::to_vec(self).ok() == serde_json::to_vec(other).ok()
    }
}

/// Equal when their serialized states are (see [`ColumnSketches`]).
impl PartialEq for ColumnSketch {
    fn eq(&self, other: &ColumnSketch) -> bool {
        serde_json::to_vec(self).ok() == serde_json::to_vec(other).ok()
    }
}

impl ColumnSketch {
    /// These statistics within `budget` in every part: unchanged when
    /// they already are, else merged into empty ones of the leaner
    /// budget (as [`ValueStats::merge`] does).
    pub fn lean_to(&mut self, budget: crate::StatsBudget) {
        let lean = self.values.budget().leaner(budget);
        if lean == self.values.budget() {
            return;
        }
        let mut values = ValueStats::new(lean);
        values.merge(&self.values);
        self.values = values;
        if let Some(days) = self.dates.as_mut().and_then(|d| d.days.as_mut()) {
            *days = days.within(&lean);
        }
    }
}
