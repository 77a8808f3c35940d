//! CSV/TSV validate, search and inspect in byte ranges that run apart
//! (see [`plumb_core::ranges`]): the split scans of
//! [`crate::validate_in_parts`], [`crate::search_in_parts`] and
//! [`crate::inspect_in_parts`] with each part a task of its own,
//! wherever it runs.
//!
//! The plan is the split scan's: the head settles the dialect, and the
//! file is cut at line feeds. Each range reads the head again and
//! settles the same dialect from the same bytes, so no range needs
//! another's answer before it starts. A range's part is its scan
//! summary (with a search's hits and counts), kept only when the range
//! ran clean (no issue, no ragged row, read to its end or, searching, to
//! the hit past the limit; the first range with the dialect it planned);
//! the join adds the parts as the split scan adds its threads', and gives
//! the one-thread answer, or nothing when any part is missing,
//! unsettled, read with another dialect or not as wide: the caller then
//! scans the whole file, which places the fault.
//!
//! A search names its column by the header, which only the first range
//! reads: a later range reads the file's first record itself (and no
//! further) to resolve it, as the first range will.
//!
//! An inspect's part is its column facts (see `InspectState`), without
//! statistics: their sketches merge only within their error, so an
//! inspect with statistics is not cut, and its file is read whole. A
//! part read back is a claim about the range it names: its counts are
//! held to the range's bytes, and its columns to its rows, before
//! anything adds them.

use plumb_core::{Query, RangePart, RangePlan, Refusal, Source};
use serde::{Deserialize, Serialize};

use crate::parallel::{
    add_part, first_as_planned, plan, read_head, scan_part, splits, Before, Head,
};
use crate::report::{
    fetch_hits, ColumnProbe, ColumnRef, CsvInspect, CsvSearch, CsvValidate, InspectSink,
    InspectState, SearchSink, ValidateSink,
};
use crate::scan::{RowSink, ScanSummary};
use crate::{CsvFormat, CsvOptions};

/// Delimiter, runs, quote and comment character.
type Dialect = (u8, bool, Option<u8>, Option<u8>);

/// A range's part: the dialect it read with, what it counted, and, for
/// a search, what it found.
#[derive(Debug, Serialize, Deserialize)]
struct PartState<T> {
    dialect: Dialect,
    summary: ScanSummary,
    found: T,
}

/// Plans a scan of `source` in up to `parts` byte ranges, for validate
/// or search; `None` when the split scan would not split it (a small
/// file, a row cap, a head of long records or with quoted line breaks;
/// see [`crate::validate_in_parts`]).
///
/// # Errors
/// A read error while reading the head or looking for cuts.
pub fn plan_ranges(
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
    let state = scan_range(source, (format, opts), plan, index, |_| {
        Some(ValidateSink::default())
    })
    .and_then(|(summary, sink, dialect)| {
        (!summary.stopped && sink.issue_count() == 0).then_some(PartState {
            dialect,
            summary,
            found: (),
        })
    });
    plan.part(index, state)
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
    let whole = join(format, plan, parts, |_, (), _| Some(true))?;
    Some(ValidateSink::default().finish(format.name(), &whole))
}

/// Searches range `index` of `plan` for `query` in `column` (see
/// [`crate::search()`]), its hits' cells read back; unsettled when the
/// plan is not this file's, the range did not run clean (an issue, a row
/// not judged whole), or the search is not one a split search answers
/// (from an offset, of the last hits, by conditions).
pub fn scan_search_range(
    source: &dyn Source,
    (format, opts): (CsvFormat, &CsvOptions),
    (query, column): (&Query, Option<ColumnRef>),
    plan: &RangePlan,
    index: usize,
) -> RangePart {
    let splits = splits(query);
    let state = scan_range(source, (format, opts), plan, index, |head| {
        if !splits {
            return None;
        }
        let Some(first) = plan.range(0).filter(|_| index > 0) else {
            return Some(SearchSink::new(query.clone(), column.clone(), true));
        };
        let mut probe = ColumnProbe::new(column.clone());
        let later = head.resolved.for_later_part();
        scan_part(source, (head.asked, later), opts.header, first, &mut probe).ok()?;
        let resolved = probe.resolved?.ok()?;
        Some(SearchSink::later_part(query.clone(), resolved))
    })
    .and_then(|(summary, mut sink, dialect)| {
        let (_, end) = plan.range(index)?;
        sink.close_span(end);
        fetch_hits(&mut sink, source, &summary).ok()?;
        Some(PartState {
            dialect,
            summary,
            found: sink.into_state()?,
        })
    });
    plan.part(index, state)
}

/// The search answer of the whole file from the parts of every range of
/// `plan`, in any order: the hits and counts one thread finds, stopping
/// where it stops; `None` when they cannot give it (see the module's
/// header).
pub fn join_search_ranges(
    format: CsvFormat,
    query: &Query,
    plan: &RangePlan,
    parts: &[RangePart],
) -> Option<CsvSearch> {
    let mut whole: Option<SearchSink> = None;
    let summary = join(format, plan, parts, |summary, found, before| {
        let mut part = SearchSink::from_state(query.clone(), found)?;
        match (whole.as_mut(), before) {
            (None, _) => whole = Some(part),
            (Some(w), Some(before)) => {
                let kept = w.room_for(&part)?;
                part.keep_first(kept);
                w.absorb(part, before.rows, before.lines);
            }
            (Some(_), None) => return None,
        }
        Some(!summary.stopped)
    })?;
    let whole = whole?;
    // A column past every row's is refused, as one thread refuses it.
    if whole.column_index().is_some_and(|c| c >= summary.widest) {
        return None;
    }
    Some(whole.finish(format.name(), &summary))
}

/// Inspects range `index` of `plan` (see [`crate::inspect()`]);
/// unsettled when the plan is not this file's, the range did not run
/// clean (an issue, a ragged row), or statistics are asked for.
pub fn scan_inspect_range(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
    plan: &RangePlan,
    index: usize,
) -> RangePart {
    let state = scan_range(source, (format, opts), plan, index, |_| {
        (!opts.stats).then(|| inspect_sink(opts, index == 0))
    })
    .and_then(|(summary, sink, dialect)| {
        Some(PartState {
            dialect,
            summary,
            found: sink.into_state()?,
        })
    });
    plan.part(index, state)
}

/// The inspect answer of the whole file from the parts of every range
/// of `plan`, in any order: what one thread reports; `None` when they
/// cannot give it (see the module's header; and, as a split inspect on
/// threads, a sample of rows that the first range did not fill).
pub fn join_inspect_ranges(
    format: CsvFormat,
    opts: &CsvOptions,
    plan: &RangePlan,
    parts: &[RangePart],
) -> Option<CsvInspect> {
    if opts.stats {
        return None;
    }
    let mut whole: Option<InspectSink> = None;
    let summary = join(format, plan, parts, |s, state: InspectState, before| {
        let b = before.unwrap_or_default();
        let counts = (
            s.rows.checked_sub(b.rows)?,
            s.records.checked_sub(b.records)?,
        );
        let mut like = inspect_sink(opts, before.is_none());
        like.dialect(s.delimiter);
        let part = like.with_state(state, counts, plan.len)?;
        match (whole.as_mut(), before) {
            (None, None) => whole = Some(part),
            (Some(w), Some(b)) => {
                if !w.absorb(part, b.records) {
                    return None;
                }
            }
            _ => return None,
        }
        Some(true)
    })?;
    let whole = whole.filter(InspectSink::sample_settled)?;
    Some(whole.finish(format.name(), &summary))
}

/// The sink a range's inspect reads into: the first range's keeps the
/// sample rows, a later one what its columns need to join.
fn inspect_sink(opts: &CsvOptions, first: bool) -> InspectSink {
    if first {
        InspectSink::new(crate::sample_rows(opts), false)
    } else {
        InspectSink::later_part(false)
    }
    .brief(opts.scan.brief)
}

/// Whether every count of `s` is one a scan of `bytes` bytes could
/// give (a record, a line, a row each take a byte at least, but the
/// last): a part read back is a claim, and counts past that would
/// overflow the sums of a join.
fn within(s: &ScanSummary, bytes: u64) -> bool {
    let most = bytes.saturating_add(1);
    [
        s.rows,
        s.records,
        s.line_breaks,
        s.blank_lines,
        s.comment_lines,
        s.skipped_lines,
        s.ragged_rows,
        s.endings.lf,
        s.endings.crlf,
        s.endings.cr,
        u64::try_from(s.widest).unwrap_or(u64::MAX),
    ]
    .iter()
    .all(|&n| n <= most)
}

/// Reads the head of `source`, checks that range `index` is one `plan`
/// cut from this file, and scans it into the sink `make` gives (told the
/// head); the range's summary, its sink and the dialect a later range
/// reads with, or `None` when the plan is not this file's, the range was
/// refused, holds ragged rows, or (the first) did not read the dialect
/// planned.
fn scan_range<S: RowSink>(
    source: &dyn Source,
    (format, opts): (CsvFormat, &CsvOptions),
    plan: &RangePlan,
    index: usize,
    make: impl FnOnce(&Head) -> Option<S>,
) -> Option<(ScanSummary, S, Dialect)> {
    let planned = plan.format == format.name()
        && plan.fits_lines(source, index)
        && opts.scan.reads_whole(plan.len);
    let range = plan.range(index).filter(|_| planned)?;
    let head = read_head(source, format, opts).ok()?;
    let mut sink = make(&head)?;
    let later = head.resolved.for_later_part();
    let summary = scan_part(
        source,
        (head.asked, later.clone()),
        opts.header,
        range,
        &mut sink,
    )
    .ok()?;
    let clean = summary.ragged_rows == 0;
    if !clean || (index == 0 && !first_as_planned(&summary, &head.resolved)) {
        return None;
    }
    let dialect = (later.delimiter, later.runs, later.quote, later.comment);
    Some((summary, sink, dialect))
}

/// Takes the parts of every range of `plan` in file order, checks each
/// was read with the first range's dialect and is as wide, adds their
/// summaries, and hands each to `take` with the whole's summary so far
/// and what came before it (`None` for the first); `take` says whether
/// to go on (a search stops at the hit past its limit). The whole's
/// summary, or `None` when a part is missing or does not join.
fn join<T: serde::de::DeserializeOwned>(
    format: CsvFormat,
    plan: &RangePlan,
    parts: &[RangePart],
    mut take: impl FnMut(&ScanSummary, T, Option<Before>) -> Option<bool>,
) -> Option<ScanSummary> {
    if plan.format != format.name() {
        return None;
    }
    let states: Vec<PartState<T>> = plan.states(parts)?;
    let sizes = plan.sizes();
    if !states
        .iter()
        .zip(sizes)
        .all(|(p, size)| within(&p.summary, size))
    {
        return None;
    }
    let mut states = states.into_iter();
    let first = states.next()?;
    let dialect = first.dialect;
    let mut whole = first.summary;
    if (whole.delimiter, whole.runs, whole.quote, whole.comment) != dialect {
        return None;
    }
    if !take(&whole, first.found, None)? {
        return Some(whole);
    }
    for state in states {
        if state.dialect != dialect {
            return None;
        }
        let before = add_part(&mut whole, &state.summary)?;
        if !take(&whole, state.found, Some(before))? {
            break;
        }
    }
    Some(whole)
}
