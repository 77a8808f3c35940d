//! A file's op cut into byte ranges that run apart, in other threads,
//! processes or machines, and join into the file's answer.
//!
//! A reader that can split its scan (the line-based ones) plans the cuts
//! once ([`FormatReader::plan_ranges`]), scans each range on its own
//! ([`FormatReader::scan_range`]) into a [`RangePart`] that serializes,
//! and joins the parts of every range ([`FormatReader::join_ranges`])
//! into the answer one scan of the whole file gives. A range cannot know
//! what came before it (inside a quoted field or not, which dialect the
//! head settles), so its scan is a guess that the join checks; where the
//! guess does not hold, or a range met anything a whole scan would have
//! to place (a fault, a refusal), the join gives nothing and the caller
//! scans the whole file, which says where the fault is. The answer is
//! the whole scan's either way.
//!
//! ```
//! use plumb_core::{RangePart, RangePlan};
//! let plan = RangePlan { format: "csv".into(), len: 300, cuts: vec![0, 100, 300] };
//! assert_eq!(plan.ranges(), 2);
//! assert_eq!(plan.range(1), Some((100, 300)));
//! let part = RangePart { index: 1, state: None };
//! assert!(!part.settled());
//! // A plan is a claim: cuts out of order, or more ranges than any
//! // planner makes, are not read.
//! let unordered = RangePlan { cuts: vec![0, 200, 100, 300], ..plan.clone() };
//! let many = RangePlan { len: 5000, cuts: (0..=5000).collect(), ..plan.clone() };
//! assert!(plan.is_well_formed() && !unordered.is_well_formed() && !many.is_well_formed());
//! ```
//!
//! [`FormatReader::plan_ranges`]: crate::FormatReader::plan_ranges
//! [`FormatReader::scan_range`]: crate::FormatReader::scan_range
//! [`FormatReader::join_ranges`]: crate::FormatReader::join_ranges

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Source;

/// The most ranges one file is cut into for range tasks. Each range is
/// scanned alone, so this bounds the plan's size and the parts a join
/// holds, not memory of a scan ([`crate::SCAN_MAX_PARTS`] bounds the
/// threads of one scan).
pub const RANGE_MAX_PARTS: usize = 4096;

/// Where a file is cut for range scans, and what the cuts were planned
/// on: the reader's name and the file's size, which a range's scan
/// checks before it reads (a file that changed since is not the one
/// planned).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangePlan {
    /// The reader that planned the cuts ([`crate::FormatReader::name`]).
    pub format: String,
    /// The file's size in bytes when planned.
    pub len: u64,
    /// The range boundaries: 0 first, `len` last, strictly increasing.
    pub cuts: Vec<u64>,
}

impl RangePlan {
    /// How many ranges the cuts make.
    pub fn ranges(&self) -> usize {
        self.cuts.len().saturating_sub(1)
    }

    /// The size in bytes of each range, in order: what a range's part
    /// read back is held to (0 for cuts out of order, which a plan that
    /// is not well formed may hold).
    ///
    /// ```
    /// use plumb_core::RangePlan;
    /// let plan = RangePlan { format: "csv".into(), len: 300, cuts: vec![0, 100, 300] };
    /// assert_eq!(plan.sizes().collect::<Vec<_>>(), [100, 200]);
    /// ```
    pub fn sizes(&self) -> impl Iterator<Item = u64> + '_ {
        self.cuts.windows(2).map(|w| w[1].saturating_sub(w[0]))
    }

    /// The bytes of range `index` (`start..end`), `None` past the last.
    pub fn range(&self, index: usize) -> Option<(u64, u64)> {
        let start = *self.cuts.get(index)?;
        let end = *self.cuts.get(index + 1)?;
        Some((start, end))
    }

    /// Whether range `index` of this plan is one `source` can be read
    /// by: the source is as long as planned, and the range starts the
    /// file or follows a line feed (the cuts of the line-based readers).
    /// A plan is a claim, checked against the file before a range is
    /// read.
    pub fn fits_lines(&self, source: &dyn Source, index: usize) -> bool {
        let Some((start, _)) = self.range(index) else {
            return false;
        };
        if !self.is_well_formed() || source.len() != Some(self.len) {
            return false;
        }
        if start == 0 {
            return true;
        }
        let mut byte = [0u8];
        matches!(source.read_at(start - 1, &mut byte), Some(Ok(1))) && byte[0] == b'\n'
    }

    /// Whether the cuts are well formed: 0 first, `len` last, strictly
    /// increasing, at least two ranges and at most [`RANGE_MAX_PARTS`]. A
    /// plan read from elsewhere is a claim, checked before a range is
    /// read or its parts are joined.
    pub fn is_well_formed(&self) -> bool {
        (3..=RANGE_MAX_PARTS + 1).contains(&self.cuts.len())
            && self.cuts.first() == Some(&0)
            && self.cuts.last() == Some(&self.len)
            && self.cuts.windows(2).all(|w| w[0] < w[1])
    }

    /// The part of range `index` that found `state` (`None`: unsettled),
    /// stamped with the range's bytes and the file's size, so that
    /// [`RangePlan::states`] takes it into this plan only.
    ///
    /// ```
    /// use plumb_core::RangePlan;
    /// let plan = RangePlan { format: "jsonl".into(), len: 30, cuts: vec![0, 10, 30] };
    /// let other = RangePlan { len: 31, cuts: vec![0, 10, 31], ..plan.clone() };
    /// let parts = [plan.part(1, Some(7u64)), plan.part(0, Some(5u64)), plan.part(1, Some(9u64))];
    /// assert_eq!(plan.states::<u64>(&parts), Some(vec![5, 7]));
    /// assert_eq!(other.states::<u64>(&parts), None);
    /// assert_eq!(plan.states::<u64>(&parts[..2]), Some(vec![5, 7]));
    /// assert_eq!(plan.states::<u64>(&parts[..1]), None);
    /// ```
    pub fn part<T: Serialize>(&self, index: usize, state: Option<T>) -> RangePart {
        let state = state.zip(self.range(index)).and_then(|(of, range)| {
            serde_json::to_value(Stamped {
                range,
                len: self.len,
                of,
            })
            .ok()
        });
        RangePart { index, state }
    }

    /// The states of every range of this plan, in range order, from
    /// `parts` given in any order (of a range given twice, the first);
    /// `None` when the plan is not well formed, or a range's part is
    /// missing, unsettled, not of this plan's bytes, or not a `T`.
    pub fn states<T: DeserializeOwned>(&self, parts: &[RangePart]) -> Option<Vec<T>> {
        if !self.is_well_formed() {
            return None;
        }
        let mut states: Vec<Option<T>> = std::iter::repeat_with(|| None)
            .take(self.ranges())
            .collect();
        for part in parts {
            let slot = states.get_mut(part.index)?;
            if slot.is_some() {
                continue;
            }
            let stamped: Stamped<T> = serde_json::from_value(part.state.clone()?).ok()?;
            if (Some(stamped.range), stamped.len) != (self.range(part.index), self.len) {
                return None;
            }
            *slot = Some(stamped.of);
        }
        states.into_iter().collect()
    }
}

/// A range's state with the bytes it read (`start..end`) and
/// the file's size.
#[derive(Serialize, Deserialize)]
struct Stamped<T> {
    range: (u64, u64),
    len: u64,
    of: T,
}

/// What the scan of one range found, in a form the reader that planned
/// it joins: `state` is the reader's own (counts, the dialect it read
/// with, whether it ran clean), `None` when the range cannot be part of
/// a joined answer (a fault, a refusal, a guess that failed), so the
/// whole file is to be scanned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RangePart {
    /// The range's index in its plan.
    pub index: usize,
    /// The reader's account of the range, or `None` (unsettled).
    pub state: Option<Value>,
}

impl RangePart {
    /// Whether the range's scan can join the others'.
    pub fn settled(&self) -> bool {
        self.state.is_some()
    }
}
