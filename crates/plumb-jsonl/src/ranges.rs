//! JSON Lines validate in byte ranges that run apart (see
//! [`plumb_core::ranges`]): the split scan of
//! [`crate::validate_in_parts`] with each part a task of its own,
//! wherever it runs. A record is one line, so a range cut at a line
//! break needs nothing from the ranges before it: its part is its counts
//! when every line of it is valid, and the join adds them. A range with
//! an invalid line (or a refusal) is unsettled, and the caller validates
//! the whole file, which says where the first fault is.

use plumb_core::{RangePart, RangePlan, Refusal, ScanBounds, Source, RANGE_MAX_PARTS};
use serde::{Deserialize, Serialize};

use crate::ops::JsonlValidate;
use crate::parallel::{cuts, valid_part, valid_whole};

/// The name plans of this reader carry.
const FORMAT: &str = "jsonl";

/// A range's part: the bytes it read and its counts.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct PartState {
    /// The range's bytes, `start..end`, and the file's size: a part is
    /// joined only into the plan it was scanned by.
    range: (u64, u64),
    len: u64,
    rows: u64,
    blank_lines: u64,
}

/// Plans a validate of `source` in up to `parts` byte ranges cut at line
/// breaks; `None` when the file is not split (no random access, a row
/// cap, too small to cut).
///
/// # Errors
/// A read error while looking for cuts.
pub fn plan_validate_ranges(
    source: &dyn Source,
    opts: &ScanBounds,
    parts: usize,
) -> Result<Option<RangePlan>, Refusal> {
    let (Some(len), true) = (source.len(), parts >= 2) else {
        return Ok(None);
    };
    Ok(
        cuts(source, opts, parts.min(RANGE_MAX_PARTS))?.map(|cuts| RangePlan {
            format: FORMAT.to_owned(),
            len,
            cuts,
        }),
    )
}

/// Validates range `index` of `plan`; unsettled when the plan is not
/// this file's or a line of the range is not valid.
pub fn scan_validate_range(
    source: &dyn Source,
    opts: &ScanBounds,
    plan: &RangePlan,
    index: usize,
) -> RangePart {
    let planned =
        plan.format == FORMAT && plan.fits_lines(source, index) && opts.reads_whole(plan.len);
    let state = plan
        .range(index)
        .filter(|_| planned)
        .and_then(|(start, end)| {
            let (rows, blank_lines) =
                valid_part(plumb_core::part_stream(source, start, end), opts)?;
            serde_json::to_value(PartState {
                range: (start, end),
                len: plan.len,
                rows,
                blank_lines,
            })
            .ok()
        });
    RangePart { index, state }
}

/// The validate answer of the whole file from the parts of every range
/// of `plan`, in any order (a range given twice counts once); `None` when
/// a part is missing, unsettled or not of this plan.
pub fn join_validate_ranges(plan: &RangePlan, parts: &[RangePart]) -> Option<JsonlValidate> {
    if plan.format != FORMAT || !plan.is_well_formed() {
        return None;
    }
    let mut counts: Vec<Option<(u64, u64)>> = vec![None; plan.ranges()];
    for part in parts {
        let state: PartState = serde_json::from_value(part.state.clone()?).ok()?;
        if (Some(state.range), state.len) != (plan.range(part.index), plan.len) {
            return None;
        }
        counts
            .get_mut(part.index)?
            .get_or_insert((state.rows, state.blank_lines));
    }
    let counts: Option<Vec<(u64, u64)>> = counts.into_iter().collect();
    Some(valid_whole(&counts?))
}
