//! A column's accumulator as it travels from a range task to the join
//! of its file's ranges (see `crate::ranges`), in another process or on
//! another machine.
//!
//! What travels is what the accumulator holds, less what the reader
//! settles again on its side (the text cap, brief or not, decimal
//! commas: all from the column's index and the request). Read back, it
//! is a claim about a range of known rows and records, and checked
//! before it is used: no count past the range's rows, no class without
//! the record it was first read on, no sample or example longer than
//! the column keeps, code-shaped floats that are such literals (their
//! values are read again from them). A state no scan makes is refused,
//! and the file is then read whole.

use std::collections::BTreeMap;

use plumb_core::{NumericRange, SAMPLE_VALUES_CAP};
use serde::{Deserialize, Serialize};

use crate::cell::{CellClass, ClassHistogram, SENTINEL_TOKENS};

use super::super::dates::{DateRange, DATE_SLOTS};
use super::super::inspect::Tracking;
use super::super::shape::code_shaped_float;
use super::{code_float_value, ColumnAcc, PrecisionFact, Rare, LATER_SAMPLE_ROOM, SAMPLE_LOOKS};

/// A column's accumulator, serialized (see the module's header).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::report) struct ColumnState {
    /// Cells by class index.
    classes: [u64; 8],
    /// The record where a cell of each class was first read (0: none).
    firsts: [u64; 8],
    samples: Vec<String>,
    /// A later range's: the look each sample was found on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sample_looks: Option<Vec<u32>>,
    /// The fewest and most characters in a cell; none before a cell.
    lengths: Option<(u64, u64)>,
    range: Option<NumericRange>,
    precision: Vec<PrecisionFact>,
    looks: u32,
    codes: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rare: Option<RareState>,
}

/// [`Rare`], serialized: code-shaped floats as their literals.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RareState {
    sentinels: [u64; SENTINEL_TOKENS.len()],
    comma_decimals: u64,
    dates: [u64; DATE_SLOTS],
    code_floats: u64,
    code_float_ends: Option<(String, String)>,
    unread: u64,
    date_range: DateRange,
}

/// What a range read: the counts a column's state is held to.
#[derive(Clone, Copy, Debug)]
pub(in crate::report) struct RangeCounts {
    /// Data rows.
    pub rows: u64,
    /// Records the parser numbered (a header included).
    pub records: u64,
}

impl ColumnAcc {
    /// This column's state; `None` with statistics, which do not
    /// travel in a range's state.
    pub(in crate::report) fn into_state(self) -> Option<ColumnState> {
        if self.stats.is_some() {
            return None;
        }
        let firsts = std::array::from_fn(|c| self.first_of(c).unwrap_or(0));
        let rare = self.rare.map(|r| {
            let Rare {
                sentinels,
                comma_decimals,
                dates,
                code_floats,
                code_float_ends,
                unread,
                date_range,
            } = *r;
            let text = |l: Vec<u8>| String::from_utf8(l).ok();
            RareState {
                sentinels,
                comma_decimals,
                dates,
                code_floats,
                code_float_ends: code_float_ends.and_then(|(lo, hi)| text(lo.1).zip(text(hi.1))),
                unread,
                date_range,
            }
        });
        // A code-shaped float is ASCII: a literal that did not come back
        // as text would lose an end.
        if rare
            .as_ref()
            .is_some_and(|r| r.code_floats > 0 && r.code_float_ends.is_none())
        {
            return None;
        }
        Some(ColumnState {
            classes: self.classes.counts(),
            firsts,
            samples: self.samples,
            sample_looks: self.sample_looks.map(|l| *l),
            lengths: (self.min_len != u64::MAX).then_some((self.min_len, self.max_len)),
            range: self.range.map(|r| *r),
            precision: self.precision.into_values().collect(),
            looks: self.looks,
            codes: self.codes,
            rare,
        })
    }
}

impl ColumnState {
    /// The accumulator of column `index`, kept as `how` says, from a
    /// range that read `counts`; `None` when no scan of such a range
    /// makes this state.
    pub(in crate::report) fn into_acc(
        self,
        index: usize,
        how: Tracking,
        counts: RangeCounts,
    ) -> Option<ColumnAcc> {
        let mut acc = ColumnAcc::new(
            index,
            Tracking {
                stats: false,
                ..how
            },
        );
        let cap = acc.text_cap as usize;
        let of = |c: CellClass| self.classes[c.index()];
        let cells = self
            .classes
            .iter()
            .try_fold(0u64, |a, &n| a.checked_add(n))?;
        let unread = self.rare.as_ref().map_or(0, |r| r.unread);
        if cells.checked_add(unread)? > counts.rows
            || (cells > 0) != self.lengths.is_some()
            || self.lengths.is_some_and(|(lo, hi)| lo > hi)
            || self.codes > of(CellClass::String)
        {
            return None;
        }
        for (&n, &first) in self.classes.iter().zip(&self.firsts) {
            if (n > 0) != (first > 0) || first > counts.records {
                return None;
            }
        }
        // The first read class first, as the scan noted them.
        let mut firsts: Vec<(u64, usize)> = (0..8)
            .map(|c| (self.firsts[c], c))
            .filter(|&(r, _)| r > 0)
            .collect();
        firsts.sort_unstable();
        for (record, class) in firsts {
            acc.first_seen(class, record);
        }
        acc.check_samples(&self, cap)?;
        let mut precision = BTreeMap::new();
        for fact in self.precision {
            let fits = fact.count > 0
                && fact.count <= cells
                && (1..=counts.records).contains(&fact.record)
                && fact.example.len() <= cap;
            if !fits || precision.insert(fact.kind, fact).is_some() {
                return None;
            }
        }
        if let Some(rare) = self.rare {
            acc.rare = Some(Box::new(rare.into_rare(&self.classes, cap)?));
        }
        acc.classes = ClassHistogram::from_counts(self.classes);
        acc.samples = self.samples;
        acc.sample_looks = self.sample_looks.map(Box::new);
        (acc.min_len, acc.max_len) = self.lengths.unwrap_or((u64::MAX, 0));
        acc.range = self.range.map(Box::new);
        acc.precision = precision;
        acc.looks = self.looks;
        acc.codes = self.codes;
        Some(acc)
    }
}

impl ColumnAcc {
    /// Whether `state`'s samples are ones this column keeps: distinct,
    /// each within `cap`, no more than its room, none in a brief column;
    /// in a later range each with the look it was found on, in order.
    fn check_samples(&self, state: &ColumnState, cap: usize) -> Option<()> {
        let room = if self.sample_looks.is_some() {
            LATER_SAMPLE_ROOM
        } else {
            SAMPLE_VALUES_CAP
        };
        let distinct = state
            .samples
            .iter()
            .enumerate()
            .all(|(i, s)| s.len() <= cap && !state.samples[..i].contains(s));
        let looks_fit = match (&self.sample_looks, &state.sample_looks) {
            (None, None) => true,
            (Some(_), Some(looks)) => {
                looks.len() == state.samples.len()
                    && looks.windows(2).all(|w| w[0] < w[1])
                    && looks.last().is_none_or(|&l| l < state.looks)
            }
            _ => false,
        };
        let ok = distinct
            && looks_fit
            && state.samples.len() <= room
            && state.looks <= SAMPLE_LOOKS
            && (!self.brief || (state.samples.is_empty() && state.looks == SAMPLE_LOOKS))
            && (state.samples.len() < room || state.looks == SAMPLE_LOOKS);
        ok.then_some(())
    }
}

impl RareState {
    /// The rare facts of a column of `classes`, each text within `cap`.
    fn into_rare(self, classes: &[u64; 8], cap: usize) -> Option<Rare> {
        let of = |c: CellClass| classes[c.index()];
        let sum = |counts: &[u64]| counts.iter().try_fold(0u64, |a, &n| a.checked_add(n));
        let dated = of(CellClass::Date).checked_add(of(CellClass::Timestamp))?;
        let ends = match self.code_float_ends {
            None => None,
            Some((lo, hi)) => {
                let end = |l: String| {
                    code_shaped_float(l.as_bytes())
                        .then(|| (code_float_value(l.as_bytes()), l.into_bytes()))
                };
                Some((end(lo)?, end(hi)?))
            }
        };
        let fits = sum(&self.sentinels)? <= of(CellClass::Sentinel)
            && sum(&self.dates)? <= dated
            && self.comma_decimals <= of(CellClass::Float)
            && self.code_floats <= of(CellClass::Float)
            && (self.code_floats > 0) == ends.is_some()
            && ends
                .as_ref()
                .is_none_or(|(lo, hi)| (lo.0.is_nan() && hi.0.is_nan()) || lo.0 <= hi.0)
            && self.date_range.fits(cap, dated);
        fits.then_some(Rare {
            sentinels: self.sentinels,
            comma_decimals: self.comma_decimals,
            dates: self.dates,
            code_floats: self.code_floats,
            code_float_ends: ends,
            unread: self.unread,
            date_range: self.date_range,
        })
    }
}
