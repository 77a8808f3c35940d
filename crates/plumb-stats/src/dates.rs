//! The spread of a column's dates: their days in a quantile sketch,
//! for the quantiles a date column reports beside its range (and the
//! picture of its shape a terminal draws from them).

use crate::budget::StatsBudget;
use crate::quantile::Quantiles;
use crate::report::{estimate, Accuracy, DateQuantiles};
use crate::STATS_QUANTILES;

/// The days of a column's dates, for their quantiles: every one held
/// while they fit the sketch, then a KLL sketch's estimate. A day is
/// any integer that orders dates as time does (`yyyymmdd`): quantiles
/// are ranks, so the days need not be evenly spaced.
///
/// ```
/// use plumb_stats::{DaySketch, STATS_FULL_BUDGET};
///
/// let mut days = DaySketch::new(&STATS_FULL_BUDGET);
/// for d in [20240105, 20240101, 20240103] {
///     days.add(d);
/// }
/// let (q, _) = days.report(|d| d.to_string()).unwrap();
/// assert_eq!(q.p50, "20240103");
/// ```
#[derive(Clone, Debug)]
pub struct DaySketch {
    days: Quantiles,
}

impl DaySketch {
    /// An empty sketch of the budget's size.
    pub fn new(budget: &StatsBudget) -> DaySketch {
        DaySketch {
            days: Quantiles::new(budget.quantile_k),
        }
    }

    /// Counts one date.
    pub fn add(&mut self, day: u32) {
        self.days.add(f64::from(day));
    }

    /// Takes in the days of another part of the column.
    /// A sketch of a smaller `k` merges at its size (see
    /// [`ValueStats::merge`](crate::ValueStats::merge)).
    pub fn merge(&mut self, other: &DaySketch) {
        if other.days.k() < self.days.k() {
            self.days = self.days.within(other.days.k());
        }
        self.days.merge(&other.days);
    }

    /// This sketch within `budget`'s size: itself when it is of that
    /// size, else an empty one of it that took this one in.
    #[must_use]
    pub fn within(&self, budget: &StatsBudget) -> DaySketch {
        DaySketch {
            days: self.days.within(budget.quantile_k),
        }
    }

    /// The dates at [`STATS_QUANTILES`], each written by `text` from its
    /// day, and their accuracy (exact while every day was held, else
    /// the sketch's rank error); none before any date.
    pub fn report(&self, text: impl Fn(u32) -> String) -> Option<(DateQuantiles, Accuracy)> {
        let qs: Vec<f64> = STATS_QUANTILES.iter().map(|q| q.1).collect();
        let values = self.days.quantiles(&qs)?;
        // Days are whole numbers a double holds exactly.
        let at = |i: usize| text(values.get(i).map_or(0, |v| *v as u32));
        let quantiles = DateQuantiles {
            p1: at(0),
            p5: at(1),
            p25: at(2),
            p50: at(3),
            p75: at(4),
            p95: at(5),
            p99: at(6),
        };
        let accuracy = if self.days.is_exact() {
            Accuracy::Exact
        } else {
            estimate("kll", &[("rank_error", self.days.rank_error())])
        };
        Some((quantiles, accuracy))
    }
}

/// A [`DaySketch`] as written: its `k` and its sketch's levels.
#[derive(serde::Serialize, serde::Deserialize)]
struct DaysState {
    k: u32,
    days: crate::state::QuantilesState,
}

/// Written as its levels, like [`ValueStats`](crate::ValueStats).
impl serde::Serialize for DaySketch {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        DaysState {
            k: self.days.k(),
            days: self.days.state(),
        }
        .serialize(s)
    }
}

/// Read back only within [`STATS_FULL_BUDGET`](crate::STATS_FULL_BUDGET)'s
/// `k` and as a sketch could hold it.
impl<'de> serde::Deserialize<'de> for DaySketch {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<DaySketch, D::Error> {
        let s = DaysState::deserialize(d)?;
        if !(8..=crate::STATS_FULL_BUDGET.quantile_k).contains(&s.k) {
            return Err(serde::de::Error::custom(format!(
                "a day sketch of k {}",
                s.k
            )));
        }
        Quantiles::from_state(s.days, s.k)
            .map(|days| DaySketch { days })
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::STATS_FULL_BUDGET;

    /// Nearest rank: the day at rank `ceil(q * n)` of the sorted days.
    fn nearest_rank(sorted: &[u32], q: f64) -> u32 {
        let rank = ((q * sorted.len() as f64).ceil() as usize).max(1);
        sorted[rank - 1]
    }

    fn days(n: u32) -> Vec<u32> {
        (0..n)
            .map(|i| 20_000_000 + (i * 7919) % 1231 * 100 + i % 28 + 1)
            .collect()
    }

    #[test]
    fn quantiles_are_exact_while_held_and_merge_across_parts() {
        let days = days(150);
        let mut sorted = days.clone();
        sorted.sort_unstable();
        let text = |d: u32| d.to_string();
        let mut whole = DaySketch::new(&STATS_FULL_BUDGET);
        let (mut a, mut b) = (whole.clone(), whole.clone());
        for (i, d) in days.iter().enumerate() {
            whole.add(*d);
            if i < 60 {
                a.add(*d)
            } else {
                b.add(*d)
            }
        }
        a.merge(&b);
        let (q, accuracy) = whole.report(text).unwrap();
        assert_eq!(accuracy, Accuracy::Exact);
        for (name, p) in STATS_QUANTILES {
            let got = [&q.p1, &q.p5, &q.p25, &q.p50, &q.p75, &q.p95, &q.p99]
                [STATS_QUANTILES.iter().position(|x| x.0 == name).unwrap()];
            assert_eq!(*got, nearest_rank(&sorted, p).to_string(), "{name}");
        }
        assert_eq!(a.report(text).unwrap(), (q, Accuracy::Exact));
        assert!(DaySketch::new(&STATS_FULL_BUDGET).report(text).is_none());
    }

    #[test]
    fn past_the_sketch_each_quantile_is_within_its_rank_error() {
        let days = days(200_000);
        let mut sorted = days.clone();
        sorted.sort_unstable();
        let mut sketch = DaySketch::new(&STATS_FULL_BUDGET);
        for d in &days {
            sketch.add(*d);
        }
        let (q, accuracy) = sketch.report(|d| d.to_string()).unwrap();
        let Accuracy::Estimate { method, error } = accuracy else {
            panic!("200,000 days are past the sketch")
        };
        assert_eq!(method, "kll");
        let bound = error["rank_error"] * sorted.len() as f64;
        for (text, (_, p)) in [&q.p1, &q.p25, &q.p50, &q.p75, &q.p99].iter().zip([
            STATS_QUANTILES[0],
            STATS_QUANTILES[2],
            STATS_QUANTILES[3],
            STATS_QUANTILES[4],
            STATS_QUANTILES[6],
        ]) {
            let day: u32 = text.parse().unwrap();
            let lo = sorted.partition_point(|d| *d < day) as f64;
            let hi = sorted.partition_point(|d| *d <= day) as f64;
            let want = p * sorted.len() as f64;
            assert!(lo - bound <= want && want <= hi + bound, "{p}: {day}");
        }
    }
}
