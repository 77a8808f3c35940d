//! CSV/TSV validate in byte ranges that run apart (see
//! [`plumb_core::ranges`]): the split scan of [`crate::validate_in_parts`]
//! with each part a task of its own, wherever it runs.
//!
//! The plan is the split scan's: the head settles the dialect, and the
//! file is cut at line feeds (where quotes are even in number, when the
//! head shows quoted line breaks). Each range reads the head again and
//! settles the same dialect from the same bytes, so no range needs
//! another's answer before it starts. A range's part is its scan
//! summary, kept only when the range ran clean (no issue, no ragged row,
//! read to its end; the first range read the dialect it planned); the
//! join adds the parts as the split scan adds its threads', and gives
//! the one-thread answer, or nothing when any part is missing, unsettled,
//! read with another dialect or not as wide: the caller then validates
//! the whole file, which places the fault.

use plumb_core::{RangePart, RangePlan, Refusal, Source};
use serde::{Deserialize, Serialize};

use crate::parallel::{add_part, first_as_planned, plan, read_head, scan_part};
use crate::report::{CsvValidate, ValidateSink};
use crate::scan::ScanSummary;
use crate::{CsvFormat, CsvOptions};

/// A range's part: the bytes it read, the dialect it read them with,
/// and what it counted.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct PartState {
    /// The range's bytes, `start..end`, and the file's size: a part is
    /// joined only into the plan it was scanned by.
    range: (u64, u64),
    len: u64,
    /// Delimiter, runs, quote and comment character.
    dialect: (u8, bool, Option<u8>, Option<u8>),
    summary: ScanSummary,
}

/// Plans a validate of `source` in up to `parts` byte ranges; `None`
/// when the split scan would not split it (a small file, a row cap, a
/// head of long records; see [`crate::validate_in_parts`]).
///
/// # Errors
/// A read error while reading the head or looking for cuts.
pub fn plan_validate_ranges(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
    parts: usize,
) -> Result<Option<RangePlan>, Refusal> {
    let Some(len) = source.len() else {
        return Ok(None);
    };
    Ok(
        plan(source, format, opts, (parts, true), false)?.map(|p| RangePlan {
            format: format.name().to_owned(),
            len,
            cuts: p.cuts,
        }),
    )
}

/// Validates range `index` of `plan`; unsettled when the plan is not
/// this file's or the range did not run clean.
pub fn scan_validate_range(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
    plan: &RangePlan,
    index: usize,
) -> RangePart {
    let state = range_state(source, format, opts, plan, index)
        .ok()
        .flatten()
        .and_then(|s| serde_json::to_value(s).ok());
    RangePart { index, state }
}

fn range_state(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
    plan: &RangePlan,
    index: usize,
) -> Result<Option<PartState>, Refusal> {
    let planned = plan.format == format.name()
        && plan.fits_lines(source, index)
        && opts.scan.reads_whole(plan.len);
    let Some(range) = plan.range(index).filter(|_| planned) else {
        return Ok(None);
    };
    let head = read_head(source, format, opts)?;
    let later = head.resolved.for_later_part();
    let mut sink = ValidateSink::default();
    let summary = scan_part(
        source,
        (head.asked, later.clone()),
        opts.header,
        range,
        &mut sink,
    )?;
    let clean = !summary.stopped && summary.ragged_rows == 0 && sink.issue_count() == 0;
    if !clean || (index == 0 && !first_as_planned(&summary, &head.resolved)) {
        return Ok(None);
    }
    Ok(Some(PartState {
        range,
        len: plan.len,
        dialect: (later.delimiter, later.runs, later.quote, later.comment),
        summary,
    }))
}

/// The validate answer of the whole file from the parts of every range
/// of `plan`, given in any order (a range given twice, as a retried task
/// gives it, counts once); `None` when they cannot give the one-thread
/// answer (see the module's header).
pub fn join_validate_ranges(
    format: CsvFormat,
    plan: &RangePlan,
    parts: &[RangePart],
) -> Option<CsvValidate> {
    if plan.format != format.name() || !plan.is_well_formed() {
        return None;
    }
    let mut states: Vec<Option<PartState>> = vec![None; plan.ranges()];
    for part in parts {
        let state: PartState = serde_json::from_value(part.state.clone()?).ok()?;
        if (Some(state.range), state.len) != (plan.range(part.index), plan.len) {
            return None;
        }
        let slot = states.get_mut(part.index)?;
        if slot.is_none() {
            *slot = Some(state);
        }
    }
    let mut states = states.into_iter();
    let first = states.next()??;
    let dialect = first.dialect;
    let mut whole = first.summary;
    if (whole.delimiter, whole.runs, whole.quote, whole.comment) != dialect {
        return None;
    }
    for state in states {
        let state = state?;
        if state.dialect != dialect {
            return None;
        }
        add_part(&mut whole, &state.summary)?;
    }
    Some(ValidateSink::default().finish(format.name(), &whole))
}
