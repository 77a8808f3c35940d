//! JSON Lines validate, search and inspect in byte ranges that run apart
//! (see [`plumb_core::ranges`]): the split scans of
//! [`crate::validate_in_parts`], [`crate::search_in_parts`] and
//! [`crate::inspect_in_parts`] with each part a task of its own,
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
//! limit and the hit past it, as one thread stops. An inspect range's
//! part is its facts (keys, types, the outline, samples, first facts;
//! see `InspectState`) when every line of it is valid and they can join,
//! without statistics (their sketches merge only within their error, so
//! an inspect with statistics is not cut); the join adds them as the
//! split scan on threads does, each part checked against its range's
//! bytes first.

use plumb_core::{Query, RangePart, RangePlan, Refusal, ScanBounds, Source, RANGE_MAX_PARTS};
use plumb_json::Pointer;
use serde::{Deserialize, Serialize};

use crate::inspect::{answer, sample_rows, scan, InspectLines, InspectState, JsonlInspect};
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
    // A part read back is a claim: its counts are held to its bytes, so
    // that their sum cannot overflow.
    let sizes = plan.sizes();
    let fits = |c: &Counts, size: u64| {
        c.rows
            .checked_add(c.blank_lines)
            .is_some_and(|n| n <= size + 1)
    };
    if !counts.iter().zip(sizes).all(|(c, size)| fits(c, size)) {
        return None;
    }
    let counts: Vec<(u64, u64)> = counts.iter().map(|c| (c.rows, c.blank_lines)).collect();
    Some(valid_whole(&counts))
}

/// An inspect range's part: its facts, and whether the range stripped a
/// byte-order mark (only the first can).
#[derive(Debug, Serialize, Deserialize)]
struct InspectPart {
    bom: bool,
    facts: InspectState,
}

/// Inspects range `index` of `plan` (see [`crate::inspect()`]);
/// unsettled when the plan is not this file's, a line of the range is
/// not valid, its facts cannot join (a top-level key past the tracked
/// ones, an outline cut or collapsed), or `outline` asks for statistics.
pub fn scan_inspect_range(
    source: &dyn Source,
    opts: &ScanBounds,
    outline: plumb_json::OutlineOptions,
    plan: &RangePlan,
    index: usize,
) -> RangePart {
    let state = planned(source, opts, plan, index)
        .filter(|_| !outline.stats)
        .and_then(|(start, end)| {
            let stream = plumb_core::part_stream(source, start, end);
            let (facts, bom) = scan(stream, opts, outline, plumb_json::OUTLINE_MAX_NODES).ok()?;
            Some(InspectPart {
                bom,
                facts: facts.into_state()?,
            })
        });
    plan.part(index, state)
}

/// The inspect answer of the whole file from the parts of every range
/// of `plan`, in any order: what one thread reports; `None` when a part
/// is missing, unsettled, not of this plan, not one a scan of its range
/// makes, or the parts do not join.
pub fn join_inspect_ranges(
    opts: &ScanBounds,
    outline: plumb_json::OutlineOptions,
    plan: &RangePlan,
    parts: &[RangePart],
) -> Option<JsonlInspect> {
    if plan.format != FORMAT || outline.stats {
        return None;
    }
    let states: Vec<InspectPart> = plan.states(parts)?;
    let mut whole: Option<(InspectLines, bool)> = None;
    for (index, part) in states.into_iter().enumerate() {
        let (start, end) = plan.range(index)?;
        let facts = InspectLines::from_state(part.facts, end - start, sample_rows(opts))?;
        match whole.as_mut() {
            None => whole = Some((facts, part.bom)),
            Some((w, _)) => {
                if part.bom || !w.absorb(facts) {
                    return None;
                }
            }
        }
    }
    let (whole, bom) = whole?;
    Some(answer(whole, bom, outline.paths, opts.sketches))
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
    let sizes = plan.sizes();
    if !states.iter().zip(sizes).all(|(s, size)| s.within(size)) {
        return None;
    }
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
