//! What the statistics of a column say, as answers carry them: each
//! figure with its accuracy (exact, or an estimate with its error).

use std::collections::BTreeMap;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::STATS_QUANTILES;

/// Whether a figure is exact, or an estimate and how far off it may be.
#[derive(Clone, Debug, PartialEq)]
pub enum Accuracy {
    /// Computed from every value; a fraction is the exact value rounded
    /// to a double (within a few units in its last place).
    Exact,
    /// An estimate: the method and its error.
    Estimate {
        /// The method (`hyperloglog`, `space-saving`, `kll`, `double`,
        /// `prefix`, `finite-only`).
        method: &'static str,
        /// The error, by kind: `standard_error` and `bound_99_7` (relative,
        /// of a distinct count), `max_overcount` (of a top count),
        /// `rank_error` (normalized, of a quantile, 99% confidence),
        /// `absolute_error` or `relative_error` (bounds of a double
        /// computation), `compared_bytes` (text ranges compared on a
        /// prefix), `excluded` (numbers past a double's range, left out
        /// of the quantiles).
        error: BTreeMap<&'static str, f64>,
    },
}

impl Serialize for Accuracy {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Accuracy::Exact => s.serialize_str("exact"),
            Accuracy::Estimate { method, error } => {
                let mut m = s.serialize_map(Some(error.len() + 1))?;
                m.serialize_entry("estimate", method)?;
                for (k, v) in error {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
    }
}

/// `"exact"`, or an object of the method (`estimate`) and its errors,
/// each a number, as [`Accuracy`]'s serialization writes it.
impl schemars::JsonSchema for Accuracy {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Accuracy".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "exact, or an estimate: its method and its errors by kind",
            "anyOf": [
                {"type": "string", "const": "exact"},
                {
                    "type": "object",
                    "properties": {"estimate": {"type": "string"}},
                    "required": ["estimate"],
                    "additionalProperties": {"type": "number"}
                }
            ]
        })
    }
}

pub(crate) fn estimate(method: &'static str, error: &[(&'static str, f64)]) -> Accuracy {
    Accuracy::Estimate {
        method,
        error: error.iter().copied().collect(),
    }
}

/// One of the most common values.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TopValue {
    /// The value as written, cut to the budget's text bytes.
    pub value: String,
    /// Its count: exact, or at most `overcount` above the truth.
    pub count: u64,
    /// How much `count` may exceed the truth (0 while counts are exact).
    #[serde(skip_serializing_if = "is_zero")]
    pub overcount: u64,
    /// The count the value surely has (`count - overcount`): a sketch's
    /// count is an upper bound, and this its guaranteed lower one.
    pub at_least: u64,
    /// The value's whole length in bytes when `value` is only its first
    /// bytes (left out when `value` is whole): two long values that
    /// begin alike are still two, each with its own count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// The value's kind, where the caller named kinds
    /// ([`ValueStats::with_kind_names`](crate::ValueStats::with_kind_names)): in JSON, `string`, `number` or
    /// `boolean`, since the string `"100"` and the number `100` both read
    /// `100`. Left out for CSV cells, which have no kinds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
}

pub(crate) fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// The numbers of a column.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct NumberSummary {
    /// Values that were numbers.
    pub count: u64,
    /// Numbers past a double's range (`1e400`) or NaN: left out of the
    /// quantiles; sum, mean and standard deviation are then null.
    #[serde(skip_serializing_if = "is_zero")]
    pub non_finite: u64,
    /// Their sum: a number, or a `$literal` when a double would misstate
    /// the exact sum.
    pub sum: Value,
    /// The mean.
    pub mean: Option<f64>,
    /// The sample standard deviation (n - 1); null below two numbers.
    pub stddev: Option<f64>,
    /// `p1` to `p99`, nearest rank; null without a number.
    pub quantiles: Option<QuantileSummary>,
}

/// The quantiles of [`STATS_QUANTILES`], nearest rank (the value at rank
/// `ceil(q * n)`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct QuantileSummary {
    /// The 1st percentile.
    pub p1: f64,
    /// The 5th percentile.
    pub p5: f64,
    /// The lower quartile.
    pub p25: f64,
    /// The median.
    pub p50: f64,
    /// The upper quartile.
    pub p75: f64,
    /// The 95th percentile.
    pub p95: f64,
    /// The 99th percentile.
    pub p99: f64,
}

impl QuantileSummary {
    /// A quantile by its name in [`STATS_QUANTILES`] (`p50`).
    pub fn get(&self, name: &str) -> Option<f64> {
        let at = STATS_QUANTILES.iter().position(|q| q.0 == name)?;
        Some(self.values()[at])
    }

    /// The values in [`STATS_QUANTILES`] order.
    pub fn values(&self) -> [f64; 7] {
        [
            self.p1, self.p5, self.p25, self.p50, self.p75, self.p95, self.p99,
        ]
    }
}

/// The text values of a column.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TextSummary {
    /// Values that were text.
    pub count: u64,
    /// The least in byte order (cut to the budget's text bytes).
    pub min: String,
    /// The greatest in byte order (cut likewise).
    pub max: String,
    /// Shortest length, in characters.
    pub min_length: u64,
    /// Longest length, in characters.
    pub max_length: u64,
    /// Mean length, in characters.
    pub mean_length: f64,
}

/// The statistics of one column.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StatsReport {
    /// Values looked at, nulls included.
    pub count: u64,
    /// Nulls: empty cells and missing-value tokens, or JSON `null`.
    pub nulls: u64,
    /// Distinct non-null values (as written).
    pub distinct: u64,
    /// The most common non-null values, most common first.
    pub top: Vec<TopValue>,
    /// Numbers, when there were any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numbers: Option<NumberSummary>,
    /// Text, when there was any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<TextSummary>,
    /// Dates (ISO 8601), set by an engine that reads dates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dates: Option<DateRange>,
    /// Each figure's accuracy, by name: `exact`, or an estimate with its
    /// error.
    pub accuracy: BTreeMap<&'static str, Accuracy>,
}

/// The earliest and latest date of a column, and the dates between at
/// its quantiles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DateRange {
    /// The earliest, `YYYY-MM-DD`.
    pub min: String,
    /// The latest, `YYYY-MM-DD`.
    pub max: String,
    /// The dates at [`crate::STATS_QUANTILES`] (nearest rank), when the
    /// engine sketched them; `accuracy.date_quantiles` says how exact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quantiles: Option<DateQuantiles>,
}

/// Dates at the quantiles of [`crate::STATS_QUANTILES`], `YYYY-MM-DD`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DateQuantiles {
    /// The 1st percentile.
    pub p1: String,
    /// The 5th percentile.
    pub p5: String,
    /// The lower quartile.
    pub p25: String,
    /// The median.
    pub p50: String,
    /// The upper quartile.
    pub p75: String,
    /// The 95th percentile.
    pub p95: String,
    /// The 99th percentile.
    pub p99: String,
}
