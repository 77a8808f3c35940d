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
//! ```
//!
//! [`FormatReader::plan_ranges`]: crate::FormatReader::plan_ranges
//! [`FormatReader::scan_range`]: crate::FormatReader::scan_range
//! [`FormatReader::join_ranges`]: crate::FormatReader::join_ranges

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
    /// increasing, at least two ranges. A plan read from elsewhere is a
    /// claim, checked before a range is read.
    pub fn is_well_formed(&self) -> bool {
        self.cuts.len() >= 3
            && self.cuts.first() == Some(&0)
            && self.cuts.last() == Some(&self.len)
            && self.cuts.windows(2).all(|w| w[0] < w[1])
    }
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
