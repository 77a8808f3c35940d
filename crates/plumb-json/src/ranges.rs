//! JSON validate and inspect in byte ranges that run apart (see
//! [`plumb_core::ranges`]): the split scans of a root array
//! ([`crate::validate_in_parts`], [`crate::inspect_in_parts`]) with each
//! part a task of its own, wherever it runs.
//!
//! The plan is the split scan's: the head teaches the bytes between root
//! elements, and the file is cut just after such a comma. A range cannot
//! know that its start is one (the separator might stand inside a
//! string), so it reads on that guess: the first range from the file's
//! start, a later one as inside the root array after a comma. A range's
//! part is its count of root elements and what its structure found, kept
//! only when it parsed without fault and ended exactly between two root
//! elements (the last: with the document complete). The join then
//! confirms every guess in file order, as the split scan does: the first
//! range's end is the true state at the first cut, so the second range's
//! reading is the one a single scan makes from there, and so on. A later
//! range that found a duplicate key is unsettled (its pointer would need
//! the elements before it), as is any range that did not end where the
//! next begins; the caller then validates the whole file, which says
//! where the fault is. An inspect range's part is its facts (keys,
//! types, samples, structure and outline; see `PartState`), without
//! statistics (their sketches merge only within their error, so an
//! inspect with statistics is not cut), joined as the split scan joins
//! its threads' (a later range with a duplicate key or a precision fact
//! does not join: their pointers would need the elements before it).

use plumb_core::{RangePart, RangePlan, Refusal, ScanBounds, Source, RANGE_MAX_PARTS};
use serde::{Deserialize, Serialize};

use crate::ops::{inspect_part, join_parts, validate_part, InspectPart, PartState, PartVerdict};
use crate::parallel::{element_cuts, join_verdicts};
use crate::{JsonInspect, JsonValidate, OutlineOptions, Structure, StructureState};

/// The name plans of this reader carry.
const FORMAT: &str = "json";

/// A validate range's part: the root elements begun in it and what its
/// structure found (the root array counted open).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Verdict {
    rows: u64,
    structure: StructureState,
}

/// Plans a validate of `source` in up to `parts` byte ranges cut between
/// the elements of its root array; `None` when the file is not split (no
/// random access, a row cap, a head that teaches no separator, no cut
/// found).
///
/// # Errors
/// A read error while reading the head or looking for cuts.
pub fn plan_ranges(
    source: &dyn Source,
    opts: &ScanBounds,
    parts: usize,
) -> Result<Option<RangePlan>, Refusal> {
    let Some(len) = source.len().filter(|&l| opts.reads_whole(l)) else {
        return Ok(None);
    };
    let cuts = element_cuts(source, len, parts.min(RANGE_MAX_PARTS))?;
    Ok(cuts.map(|cuts| RangePlan {
        format: FORMAT.to_owned(),
        len,
        cuts,
    }))
}

/// Whether range `index` of `plan` is one `source` can be read by.
fn planned(
    source: &dyn Source,
    opts: &ScanBounds,
    plan: &RangePlan,
    index: usize,
) -> Option<(u64, u64)> {
    let fits = plan.format == FORMAT
        && plan.is_well_formed()
        && source.len() == Some(plan.len)
        && opts.reads_whole(plan.len);
    plan.range(index).filter(|_| fits)
}

/// Inspects range `index` of `plan` (see [`crate::inspect()`]); unsettled
/// when the plan is not this file's, the range did not parse cleanly to
/// where the next begins, or `outline` asks for statistics.
pub fn scan_inspect_range(
    source: &dyn Source,
    opts: &ScanBounds,
    outline: OutlineOptions,
    plan: &RangePlan,
    index: usize,
) -> RangePart {
    let state = planned(source, opts, plan, index)
        .filter(|_| !outline.stats)
        .and_then(|(start, end)| {
            let stream = plumb_core::part_stream(source, start, end);
            let last = index + 1 == plan.ranges();
            inspect_part(stream, index == 0, last, opts, false)?.into_state()
        });
    plan.part(index, state)
}

/// The inspect answer of the whole file from the parts of every range
/// of `plan`, in any order: what one thread reports; `None` when a part
/// is missing, unsettled, not of this plan, not one a scan of its range
/// makes, or the parts do not join.
pub fn join_inspect_ranges(
    opts: &ScanBounds,
    outline: OutlineOptions,
    plan: &RangePlan,
    parts: &[RangePart],
) -> Option<JsonInspect> {
    if plan.format != FORMAT || outline.stats || !opts.reads_whole(plan.len) {
        return None;
    }
    let states: Vec<PartState> = plan.states(parts)?;
    let sizes = plan.sizes();
    let found = states
        .into_iter()
        .zip(sizes)
        .map(|(state, size)| InspectPart::from_state(state, size, opts))
        .collect::<Option<Vec<_>>>()?;
    join_parts(found, outline.paths)
}

/// Validates range `index` of `plan`; unsettled when the plan is not
/// this file's, or the range did not parse cleanly to where the next
/// begins, or (a later range) found a duplicate key.
pub fn scan_validate_range(
    source: &dyn Source,
    opts: &ScanBounds,
    plan: &RangePlan,
    index: usize,
) -> RangePart {
    let verdict = planned(source, opts, plan, index).and_then(|(start, end)| {
        let stream = plumb_core::part_stream(source, start, end);
        let v = validate_part(stream, index == 0, index + 1 == plan.ranges())?;
        let dups = v.st.duplicates();
        if index > 0 && (dups.count > 0 || !dups.checked_fully) {
            return None;
        }
        Some(Verdict {
            rows: v.rows,
            structure: v.st.to_state(),
        })
    });
    plan.part(index, verdict)
}

/// The validate answer of the whole file from the parts of every range
/// of `plan`, in any order (a range given twice counts once); `None`
/// when a part is missing, unsettled, not of this plan, or claims more
/// root elements than its bytes hold.
pub fn join_validate_ranges(plan: &RangePlan, parts: &[RangePart]) -> Option<JsonValidate> {
    if plan.format != FORMAT {
        return None;
    }
    let states: Vec<Verdict> = plan.states(parts)?;
    let sizes = plan.sizes();
    let verdicts = states
        .into_iter()
        .zip(sizes)
        .map(|(v, size)| {
            let st = Structure::from_state(v.structure).ok()?;
            (v.rows <= size).then_some(PartVerdict { rows: v.rows, st })
        })
        .collect::<Option<Vec<_>>>()?;
    join_verdicts(verdicts)
}
