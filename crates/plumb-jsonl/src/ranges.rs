//! JSON Lines validate and search in byte ranges that run apart (see
//! [`plumb_core::ranges`]): the split scans of [`crate::validate_in_parts`]
//! and [`crate::search_in_parts`] with each part a task of its own,
//! wherever it runs. A record is one line, so a range cut at a line
//! break needs nothing from the ranges before it.
//!
//! A validate range's part is its counts when every line of it is valid,
//! and the join adds them; a range with an invalid line (or a refusal) is
//! unsettled, and the caller validates the whole file, which says where
//! the first fault is. A search range's part is what its search found,
//! records and lines numbered from the range's start (its first hits up
//! to the limit, each with the counts before it); the join takes the
//! parts in file order, offsetting each by the ones before, up to the
//! limit and the hit past it, as one thread stops.

use plumb_core::{Query, RangePart, RangePlan, Refusal, ScanBounds, Source, RANGE_MAX_PARTS};
use plumb_json::Pointer;
use serde::{Deserialize, Serialize};

use crate::ops::JsonlValidate;
use crate::parallel::{cuts, valid_part, valid_whole};
use crate::search::{JsonlSearch, SearchLines, SearchState};

/// The name plans of this reader carry.
const FORMAT: &str = "jsonl";

/// A validate range's part: its rows and blank lines.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Counts {
    rows: u64,
    blank_lines: u64,
}

/// Plans a scan of `source` in up to `parts` byte ranges cut at line
/// breaks, for validate or search; `None` when the file is not split (no
/// random access, a row cap, too small to cut).
///
/// # Errors
/// A read error while looking for cuts.
pub fn plan_ranges(
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

/// The bytes of range `index` of `plan`, when the plan is this file's.
fn planned(
    source: &dyn Source,
    opts: &ScanBounds,
    plan: &RangePlan,
    index: usize,
) -> Option<(u64, u64)> {
    let fits =
        plan.format == FORMAT && plan.fits_lines(source, index) && opts.reads_whole(plan.len);
    plan.range(index).filter(|_| fits)
}

/// Validates range `index` of `plan`; unsettled when the plan is not
/// this file's or a line of the range is not valid.
pub fn scan_validate_range(
    source: &dyn Source,
    opts: &ScanBounds,
    plan: &RangePlan,
    index: usize,
) -> RangePart {
    let counts = planned(source, opts, plan, index).and_then(|(start, end)| {
        let (rows, blank_lines) = valid_part(plumb_core::part_stream(source, start, end), opts)?;
        Some(Counts { rows, blank_lines })
    });
    plan.part(index, counts)
}

/// The validate answer of the whole file from the parts of every range
/// of `plan`, in any order (a range given twice counts once); `None` when
/// a part is missing, unsettled or not of this plan.
pub fn join_validate_ranges(plan: &RangePlan, parts: &[RangePart]) -> Option<JsonlValidate> {
    if plan.format != FORMAT {
        return None;
    }
    let counts: Vec<Counts> = plan.states(parts)?;
    let counts: Vec<(u64, u64)> = counts.iter().map(|c| (c.rows, c.blank_lines)).collect();
    Some(valid_whole(&counts))
}

/// Searches range `index` of `plan` for `query` at `field` (see
/// [`crate::search()`]), from the range's first line; unsettled when the
/// plan is not this file's, the search starts past the first record or
/// passes hits over (only a search from the start splits), or the range
/// was refused.
pub fn scan_search_range(
    source: &dyn Source,
    opts: &ScanBounds,
    (field, query): (Option<&str>, &Query),
    plan: &RangePlan,
    index: usize,
) -> RangePart {
    let state = planned(source, opts, plan, index)
        .filter(|_| query.from_first())
        .and_then(|(start, end)| {
            let pointer = field.map(Pointer::parse).transpose().ok()?;
            let sink = SearchLines::new(query, pointer).ok()?;
            let read = sink
                .read(plumb_core::part_stream(source, start, end))
                .ok()?;
            read.into_state()
        });
    plan.part(index, state)
}

/// The search answer of the whole file from the parts of every range of
/// `plan`, in any order: the hits and counts one thread finds; `None`
/// when a part is missing, unsettled or not of this plan.
pub fn join_search_ranges(
    (field, query): (Option<&str>, &Query),
    plan: &RangePlan,
    parts: &[RangePart],
) -> Option<JsonlSearch> {
    if plan.format != FORMAT || !query.from_first() {
        return None;
    }
    let pointer = field.map(Pointer::parse).transpose().ok()?;
    let states: Vec<SearchState> = plan.states(parts)?;
    let mut whole: Option<SearchLines<'_>> = None;
    for state in states {
        let mut part = SearchLines::from_state(query, pointer.clone(), state)?;
        match whole.as_mut() {
            None => whole = Some(part),
            Some(w) => {
                if w.stopped() {
                    break;
                }
                let (records, lines) = w.read_so_far();
                part.keep_first(w.room_for(&part));
                w.absorb(part, records, lines);
            }
        }
    }
    whole.map(|w| w.answer(field))
}
