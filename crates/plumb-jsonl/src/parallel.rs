//! JSON Lines validate and inspect on several threads: a large file is
//! cut into parts at line breaks (a record is one line, so every line
//! break is a record boundary and no state crosses it), each part is
//! read on its own thread from its own reader, and the parts' answers
//! are joined in file order: validate's counts add; inspect's facts join
//! as [`InspectLines::absorb`](crate::inspect) says, or the file is read
//! again on one thread where they cannot join exactly.
//!
//! The answer is always the one-thread answer. Parts only ever answer
//! "every line valid" with their counts: when any part finds an invalid
//! line, or its reader refuses (bad UTF-8, a read error, cancellation),
//! the file is validated again on one thread, which stops at the first
//! fault and says where, with the line numbers and messages of a
//! sequential scan. A valid file, the case worth speeding up, pays
//! nothing for that rule; an invalid one pays at most the parallel pass.
//!
//! `std::thread::scope` rather than rayon: one scoped thread per part is
//! all this needs, and the engine crate keeps no thread pool.
//!
//! Reference: the one-thread scan. Held equal by:
//! `tests/it/parallel.rs::parts_agree_with_one_thread`.

use plumb_core::{
    line_cuts, text_stream, Query, Refusal, ScanBounds, Source, TextStream, ViewFlags,
    BINARY_SNIFF_BYTES, SCAN_MAX_PARTS,
};
use plumb_json::Pointer;

use crate::inspect::{answer, scan, JsonlInspect};
use crate::ops::{validate, JsonlValidate};
use crate::search::{JsonlSearch, SearchLines};

/// Files smaller than this are validated on one thread: starting threads
/// and finding cut points costs more than it saves.
pub const PARALLEL_MIN_BYTES: u64 = 16 << 20;

/// Validates `source` on [`ScanBounds::thread_count`] threads when it is
/// a file of at least [`PARALLEL_MIN_BYTES`] with random access and no
/// row cap applies; otherwise on one thread. The answer is the same
/// either way.
///
/// # Errors
/// The source's refusals, as a one-thread scan gives them.
pub fn validate_source(source: &dyn Source, opts: &ScanBounds) -> Result<JsonlValidate, Refusal> {
    let threads = opts.thread_count();
    let big = source.len().is_some_and(|l| l >= PARALLEL_MIN_BYTES);
    if threads > 1 && big && opts.max_rows.is_none() {
        if let Some(answer) = validate_in_parts(source, opts, threads)? {
            return Ok(answer);
        }
    }
    validate(text_stream(source)?, opts)
}

/// Validates `source` in up to `parts` parts (at most [`SCAN_MAX_PARTS`])
/// on as many threads, cut at
/// line breaks; `None` when the parallel pass cannot give the answer (no
/// random access, a part with an invalid line or a refusal, a row cap),
/// for the caller to scan on one thread. Public so that tests can cut
/// small files into many parts.
///
/// # Errors
/// A read error while looking for cut points.
pub fn validate_in_parts(
    source: &dyn Source,
    opts: &ScanBounds,
    parts: usize,
) -> Result<Option<JsonlValidate>, Refusal> {
    // Each part's counts when every line of it is valid, else `None`
    // (an invalid line, a refusal, a thread that panicked).
    let Some(results) = in_parts(source, opts, parts, |stream| valid_part(stream, opts))? else {
        return Ok(None);
    };
    // Where and what the first fault is, a sequential scan says.
    results
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .map_or(Ok(None), |counts| Ok(Some(valid_whole(&counts))))
}

/// A part's rows and blank lines when every line of it is valid, else
/// `None` (an invalid line, a refusal).
pub(crate) fn valid_part<R: std::io::BufRead>(
    stream: TextStream<R>,
    opts: &ScanBounds,
) -> Option<(u64, u64)> {
    match validate(stream, opts) {
        Ok(v) if v.valid == Some(true) && v.view.exact => Some((v.rows_scanned, v.blank_lines)),
        _ => None,
    }
}

/// The answer of a file whose every part is valid, from their counts.
pub(crate) fn valid_whole(parts: &[(u64, u64)]) -> JsonlValidate {
    JsonlValidate {
        ok: true,
        format: "jsonl",
        view: ViewFlags::of_scan(false),
        valid: Some(true),
        first_invalid: None,
        rows_scanned: parts.iter().map(|p| p.0).sum(),
        blank_lines: parts.iter().map(|p| p.1).sum(),
    }
}

/// Inspects `source` on [`ScanBounds::thread_count`] threads when it is a
/// file of at least [`PARALLEL_MIN_BYTES`] with random access, no row cap
/// applies and the outline keeps no statistics; otherwise on one thread.
/// The answer is the same either way.
///
/// # Errors
/// The source's refusals, as a one-thread scan gives them.
pub fn inspect_source(
    source: &dyn Source,
    opts: &ScanBounds,
    outline: impl Into<plumb_json::OutlineOptions>,
) -> Result<JsonlInspect, Refusal> {
    let listing = outline.into();
    let threads = opts.thread_count();
    let big = source.len().is_some_and(|l| l >= PARALLEL_MIN_BYTES);
    if threads > 1 && big {
        if let Some(answer) = inspect_in_parts(source, opts, listing, threads)? {
            return Ok(answer);
        }
    }
    crate::inspect_outlined(text_stream(source)?, opts, listing)
}

/// Inspects `source` in up to `parts` parts (at most [`SCAN_MAX_PARTS`])
/// on as many threads, cut at line breaks; `None` when the parts cannot
/// give the one-thread answer (no random access, a row cap, a refusal in
/// a part, an invalid line past the first part, a cap
/// reached: see [`InspectLines::absorb`](crate::inspect)), for the caller
/// to scan on one thread. Statistics merge: their exact figures are the
/// one-thread ones, and an estimate may differ from the one-thread
/// estimate within its stated error. Public so that tests can cut small
/// files into many parts.
///
/// # Errors
/// A read error while looking for cut points.
pub fn inspect_in_parts(
    source: &dyn Source,
    opts: &ScanBounds,
    outline: impl Into<plumb_json::OutlineOptions>,
    parts: usize,
) -> Result<Option<JsonlInspect>, Refusal> {
    let listing = outline.into();
    // Each part's outline keeps statistics for at most
    // `STATS_SPLIT_PATHS` paths (more, and the parts do not join).
    let parts = if listing.stats {
        plumb_stats::stats_parts(parts, plumb_json::STATS_SPLIT_PATHS)
    } else {
        parts
    };
    let Some(results) = in_parts(source, opts, parts, |stream| {
        scan(stream, opts, listing, plumb_json::STATS_SPLIT_PATHS).ok()
    })?
    else {
        return Ok(None);
    };
    let mut results = results.into_iter();
    let Some(Some((mut first, bom))) = results.next() else {
        return Ok(None);
    };
    for part in results {
        let Some((later, _)) = part else {
            return Ok(None);
        };
        if !first.absorb(later) {
            return Ok(None);
        }
    }
    Ok(Some(answer(first, bom, listing.paths, opts.sketches)))
}

/// Searches `source` (see [`crate::search()`]) on
/// [`ScanBounds::thread_count`] threads when the search starts at the
/// first record of a file of at least [`PARALLEL_MIN_BYTES`] with random
/// access; otherwise on one thread. The answer is the same either way.
///
/// # Errors
/// As [`crate::search()`].
pub fn search_source(
    source: &dyn Source,
    opts: &ScanBounds,
    field: Option<&str>,
    query: &Query,
) -> Result<JsonlSearch, Refusal> {
    let threads = opts.thread_count();
    let big = source.len().is_some_and(|l| l >= PARALLEL_MIN_BYTES);
    if threads > 1 && big {
        if let Some(answer) = search_in_parts(source, opts, field, query, threads)? {
            return Ok(answer);
        }
    }
    crate::search(text_stream(source)?, field, query)
}

/// Searches `source` in up to `parts` parts (at most [`SCAN_MAX_PARTS`])
/// on as many threads, cut at line breaks. Each part keeps its first
/// hits (up to the limit) and its counts; the parts join in file order,
/// their records and lines offset by the parts before, up to the limit
/// and the hit past it, with the invalid and oversized lines counted as
/// far as one thread would have read (`count_only`: everything adds up).
/// `None` when the parts cannot give the one-thread answer: a search
/// that starts past the first record, a refusal in a part. Public so
/// that tests can cut small files into many parts.
///
/// # Errors
/// `invalid-argument` for a field that is not an RFC 6901 pointer; a
/// read error while looking for cut points.
pub fn search_in_parts(
    source: &dyn Source,
    opts: &ScanBounds,
    field: Option<&str>,
    query: &Query,
    parts: usize,
) -> Result<Option<JsonlSearch>, Refusal> {
    let pointer = field.map(Pointer::parse).transpose()?;
    if !query.from_first() {
        return Ok(None);
    }
    // A refusal of the query itself is the caller's, not a part's.
    SearchLines::new(query, pointer.clone())?;
    let Some(results) = in_parts(source, opts, parts, |stream| {
        SearchLines::new(query, pointer.clone())
            .ok()?
            .read(stream)
            .ok()
    })?
    else {
        return Ok(None);
    };
    let mut whole: Option<SearchLines<'_>> = None;
    for part in results {
        if whole.as_ref().is_some_and(SearchLines::stopped) {
            break;
        }
        let Some(mut part) = part else {
            return Ok(None);
        };
        match whole.as_mut() {
            None => whole = Some(part),
            Some(w) => {
                let (records, lines) = w.read_so_far();
                part.keep_first(w.room_for(&part));
                w.absorb(part, records, lines);
            }
        }
    }
    Ok(whole.map(|w| w.answer(field)))
}

/// Cuts `source` at line breaks into up to `parts` parts (at most
/// [`SCAN_MAX_PARTS`]) and runs `read` on each part's stream on a thread
/// of its own; the parts' results in file order (`None` for a part whose
/// thread panicked), or `None` when the file cannot be split (no random
/// access, a row cap, too small to cut).
fn in_parts<T: Send>(
    source: &dyn Source,
    opts: &ScanBounds,
    parts: usize,
    read: impl Fn(TextStream<Box<dyn std::io::BufRead + Send + '_>>) -> Option<T> + Sync,
) -> Result<Option<Vec<Option<T>>>, Refusal> {
    let Some(cuts) = cuts(source, opts, parts.min(SCAN_MAX_PARTS))? else {
        return Ok(None);
    };
    let read = &read;
    Ok(Some(std::thread::scope(|scope| {
        let handles: Vec<_> = cuts
            .windows(2)
            .map(|w| {
                let (start, end) = (w[0], w[1]);
                scope.spawn(move || read(plumb_core::part_stream(source, start, end)))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().ok().flatten())
            .collect()
    })))
}

/// Where `source` is cut into up to `parts` parts: 0, the line starts near equal shares, and its
/// length; `None` when the file cannot be split (no random access, a row
/// cap, too small to cut).
pub(crate) fn cuts(
    source: &dyn Source,
    opts: &ScanBounds,
    parts: usize,
) -> Result<Option<Vec<u64>>, Refusal> {
    let Some(len) = source.len() else {
        return Ok(None);
    };
    if !opts.reads_whole(len) {
        return Ok(None);
    }
    // The first part holds the whole head that a one-thread scan judges
    // (the NUL sniff), so that its verdict on the head is the same.
    line_cuts(source, len, parts.max(1), BINARY_SNIFF_BYTES as u64, None)
}
