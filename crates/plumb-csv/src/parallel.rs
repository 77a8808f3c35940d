//! CSV/TSV validate and inspect on several threads: the file is cut
//! into parts at line breaks, each part scanned on its own thread, and
//! the counts (and, for inspect, the column facts) added in file order.
//!
//! A line break is a record boundary only outside quotes, which a part
//! cannot know on its own. Each part after the first is read as if it
//! started outside quotes (the speculation of the parallel CSV readers),
//! with the dialect the head settled; the guess is right exactly when the
//! part before it ended outside quotes, which that part proves by ending
//! clean: a part that ends inside a quoted field reports an unterminated
//! quote. So the parts' answer is taken only when every part is clean
//! (no issue of any kind, every row as wide as the head's), every part
//! read to its end, and the first part consumed the lines to skip; then
//! every row was read as one thread reads it. Anything else (an issue, a
//! refusal, a quoted line break at a cut, a row cap) sends the file
//! through the one-thread scan, which says where the first fault is. A
//! clean file, the case worth speeding up, pays nothing for that rule.
//! Inspect also falls back when statistics are asked for (their sketches
//! merge only within their stated error) and when column facts cannot be
//! added exactly (see `ColumnAcc::absorb`).
//!
//! Where the head shows quoted line breaks, the cuts are chosen so that
//! the guess holds: the quote characters before each cut are counted
//! (a thread per part, one pass over the bytes before the last cut) and
//! a line feed is a cut only where their number is even. Without them
//! most cuts of such a file would land inside a field and every scan
//! would run twice.
//!
//! Reference: the one-thread scan. Held equal by:
//! `tests/it/parallel.rs::parts_agree_with_one_thread` and
//! `tests/it/parallel_inspect.rs::parts_agree_with_one_thread`.

#[cfg(doc)]
use plumb_core::ScanBounds;
use std::sync::{Arc, Condvar, Mutex};

use plumb_core::{line_cuts, text_stream, Query, Refusal, Source, RANGE_MAX_PARTS, SCAN_MAX_PARTS};
use plumb_stats::stats_parts;

use crate::detect::DELIMITER_SAMPLE_BYTES;
use crate::dialect::HeaderMode;
use crate::report::{
    fetch_hits, ColumnRef, CsvInspect, CsvSearch, CsvValidate, InspectSink, SearchSink,
    ValidateSink,
};
use crate::scan::{scan, scan_resolved, Asked, Resolved, RowSink, ScanSummary};
use crate::{CsvFormat, CsvOptions};

/// Files smaller than this are validated on one thread.
pub const CSV_PARALLEL_MIN_BYTES: u64 = 16 << 20;

/// Line feeds the first 64 KiB must hold for a file to be split: wider
/// records are read on one thread.
pub const CSV_PARALLEL_MIN_HEAD_LINES: usize = 16;

/// The first part is at least this long, so that it holds the whole
/// head the dialect and the preamble are read from.
const FIRST_PART_MIN_BYTES: u64 = 1 << 20;

/// Validates `source` on [`ScanBounds::thread_count`] threads when it is
/// a file of at least [`CSV_PARALLEL_MIN_BYTES`] with random access and
/// no row cap applies; otherwise on one thread. The answer is the same
/// either way.
///
/// # Errors
/// The source's refusals, as a one-thread scan gives them.
pub fn validate_source(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
) -> Result<CsvValidate, Refusal> {
    let threads = opts.scan.thread_count();
    let big = source.len().is_some_and(|l| l >= CSV_PARALLEL_MIN_BYTES);
    if threads > 1 && big {
        if let Some(answer) = validate_in_parts(source, format, opts, threads)? {
            return Ok(answer);
        }
    }
    crate::validate(text_stream(source)?, format, opts)
}

/// What a split scan stands on: the dialect asked, the one the head
/// settles, and where the file is cut.
pub(crate) struct Plan {
    asked: Asked,
    resolved: Resolved,
    pub cuts: Vec<u64>,
    /// The most fields a line of the head holds (delimiters counted
    /// whether quoted or not): at least the record width when the head's
    /// records are one line each.
    head_width: usize,
}

/// What the head of a file settles for a split scan.
pub(crate) struct Head {
    pub asked: Asked,
    pub resolved: Resolved,
    /// The quote whose count before a cut must be even (the head shows
    /// quoted line breaks).
    pub parity: Option<u8>,
    /// Line feeds in the head.
    pub line_feeds: usize,
    /// See [`Plan::head_width`].
    pub width: usize,
}

/// Reads the first [`DELIMITER_SAMPLE_BYTES`] of text and settles the
/// dialect as the first part's scan will: every part of a split scan,
/// wherever it runs, reads the same head to the same dialect.
pub(crate) fn read_head(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
) -> Result<Head, Refusal> {
    let mut head = text_stream(source)?;
    let mut sample = Vec::new();
    let mut eof = false;
    while sample.len() < DELIMITER_SAMPLE_BYTES {
        match head.next_chunk()? {
            Some(chunk) => sample.extend_from_slice(chunk.text.as_bytes()),
            None => {
                eof = true;
                break;
            }
        }
    }
    drop(head);
    let asked = format.dialect(opts);
    let resolved = Resolved::detect(&sample, eof, asked);
    // Quoted line breaks in the head: cut where the quotes before the cut
    // are even in number, or most cuts would land inside a field.
    let parity = resolved.quote.filter(|&q| quoted_line_break(&sample, q));
    let line_feeds = memchr::memchr_iter(b'\n', &sample).count();
    let width = sample
        .split(|&b| b == b'\n')
        .map(|line| memchr::memchr_iter(resolved.delimiter, line).count() + 1)
        .max()
        .unwrap_or(1);
    Ok(Head {
        asked,
        resolved,
        parity,
        line_feeds,
        width,
    })
}

/// Reads the head and finds the cuts for a scan in up to `parts` parts
/// (with `stats`, no more than [`stats_parts`] allows for the head's
/// width); `None` when the file is not to be split (see the module's
/// header). A scan on threads takes at most [`SCAN_MAX_PARTS`]; range
/// tasks (`tasks`) take up to [`RANGE_MAX_PARTS`], and no file whose head
/// shows quoted line breaks: its cuts are found by counting the quotes of
/// the whole file, a pass the planner is not to make.
pub(crate) fn plan(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
    (parts, tasks): (usize, bool),
    stats: bool,
) -> Result<Option<Plan>, Refusal> {
    let Some(len) = source.len() else {
        return Ok(None);
    };
    if !opts.scan.reads_whole(len) || parts < 2 {
        return Ok(None);
    }
    // The dialect as the first part will settle it, read here from the
    // same head so that the later parts can start at once.
    let head = read_head(source, format, opts)?;
    // Records of kilobytes and more gain nothing from parts, and each
    // part would hold its own: a head of fewer than
    // [`CSV_PARALLEL_MIN_HEAD_LINES`] lines is read on one thread.
    if head.line_feeds < CSV_PARALLEL_MIN_HEAD_LINES {
        return Ok(None);
    }
    if tasks && head.parity.is_some() {
        return Ok(None);
    }
    let mut parts = parts.min(if tasks {
        RANGE_MAX_PARTS
    } else {
        SCAN_MAX_PARTS
    });
    if stats {
        parts = stats_parts(parts, head.width);
        if parts < 2 {
            return Ok(None);
        }
    }
    let cuts = line_cuts(source, len, parts, FIRST_PART_MIN_BYTES, head.parity)?;
    Ok(cuts.map(|cuts| Plan {
        asked: head.asked,
        resolved: head.resolved,
        cuts,
        head_width: head.width,
    }))
}

/// Where a part of a split scan starts, counted in the parts before it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Before {
    /// Records the parser numbered (the header included).
    pub records: u64,
    /// Data rows.
    pub rows: u64,
    /// Line breaks, quoted ones included.
    pub lines: u64,
}

/// Scans each part of `plan` on its own thread into a sink made by
/// `make` (told whether its part is the first), and checks that together
/// the parts read the file as one thread reads it: every part clean of
/// ragged rows and read to its end, the head's dialect the one planned,
/// its lines to skip inside the first part, every part as wide. `None`
/// when any of that fails or a part was refused; otherwise the summary
/// of the whole file and each part's sink with what came before its
/// part. With `stops`, a part whose sink stopped it (a search at its
/// limit) ends the file as one thread would have read it: it and the
/// parts before it are checked and returned, the parts after it are not,
/// and the summary says `stopped`.
fn run_parts<S: RowSink + Send>(
    source: &dyn Source,
    plan: &Plan,
    header: HeaderMode,
    stops: bool,
    make: impl Fn(bool) -> Option<S> + Sync,
) -> Option<(ScanSummary, Vec<(S, Before)>)> {
    let later = plan.resolved.for_later_part();
    let results: Vec<Option<(ScanSummary, S)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = plan
            .cuts
            .windows(2)
            .map(|w| {
                let (start, end) = (w[0], w[1]);
                let later = later.clone();
                let make = &make;
                scope.spawn(move || {
                    let mut sink = make(start == 0)?;
                    let summary =
                        scan_part(source, (plan.asked, later), header, (start, end), &mut sink);
                    summary.ok().map(|s| (s, sink))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().ok().flatten())
            .collect()
    });

    let mut merged: Option<ScanSummary> = None;
    let mut sinks = Vec::with_capacity(results.len());
    for part in results {
        if merged.as_ref().is_some_and(|m| m.stopped) {
            break;
        }
        let (s, sink) = part?;
        if (s.stopped && !stops) || s.ragged_rows > 0 {
            return None;
        }
        match merged.as_mut() {
            None => {
                if !first_as_planned(&s, &plan.resolved) {
                    return None;
                }
                sinks.push((sink, Before::default()));
                merged = Some(s);
            }
            Some(m) => sinks.push((sink, add_part(m, &s)?)),
        }
    }
    merged.map(|m| (m, sinks))
}

/// Scans the part `start..end` of `source` into `sink`: the first part
/// as a whole scan starts (the dialect `asked` settled on its head), a
/// later one with the head's dialect (`later`), outside quotes and with
/// no header.
pub(crate) fn scan_part<S: RowSink>(
    source: &dyn Source,
    (asked, later): (Asked, Resolved),
    header: HeaderMode,
    (start, end): (u64, u64),
    sink: &mut S,
) -> Result<ScanSummary, Refusal> {
    let stream = plumb_core::part_stream(source, start, end);
    let summary = if start == 0 {
        scan(stream, asked, header, None, sink)
    } else {
        scan_resolved(
            stream,
            (Vec::new(), None),
            later,
            HeaderMode::Absent,
            None,
            sink,
        )
    };
    sink.part_done();
    summary
}

/// Whether the first part read the file with the dialect the later
/// parts were read with (`resolved`), skipped the lines it planned, and
/// settled a width.
pub(crate) fn first_as_planned(s: &ScanSummary, r: &Resolved) -> bool {
    s.delimiter == r.delimiter
        && s.runs == r.runs
        && s.quote == r.quote
        && s.comment == r.comment
        && s.skipped_lines == r.skip_lines
        && s.width.is_some()
}

/// Adds the summary `s` of a later part to `m`, the parts' before it,
/// and says what came before it; `None` when its rows are not as wide.
pub(crate) fn add_part(m: &mut ScanSummary, s: &ScanSummary) -> Option<Before> {
    if s.width.is_some_and(|w| Some(w) != m.width) {
        return None;
    }
    let before = Before {
        records: m.records,
        rows: m.rows,
        lines: m.line_breaks,
    };
    m.stopped = s.stopped;
    m.line_breaks += s.line_breaks;
    m.rows += s.rows;
    m.records += s.records;
    m.blank_lines += s.blank_lines;
    m.comment_lines += s.comment_lines;
    m.endings.lf += s.endings.lf;
    m.endings.crlf += s.endings.crlf;
    m.endings.cr += s.endings.cr;
    Some(before)
}

/// Validates `source` in up to `parts` parts (at most [`SCAN_MAX_PARTS`])
/// on as many threads; `None`
/// when the parts cannot give the answer (see the module's header), for
/// the caller to scan on one thread. Public so that tests can cut small
/// files into many parts: the first part is still at least 1 MiB.
///
/// # Errors
/// A read error while reading the head or looking for cut points.
pub fn validate_in_parts(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
    parts: usize,
) -> Result<Option<CsvValidate>, Refusal> {
    let Some(plan) = plan(source, format, opts, (parts, false), false)? else {
        return Ok(None);
    };
    let Some((summary, sinks)) = run_parts(source, &plan, opts.header, false, |_| {
        Some(ValidateSink::default())
    }) else {
        return Ok(None);
    };
    if sinks.iter().any(|(s, _)| s.issue_count() > 0) {
        return Ok(None);
    }
    Ok(Some(
        ValidateSink::default().finish(format.name(), &summary),
    ))
}

/// Inspects `source` on [`ScanBounds::thread_count`] threads when it is
/// a file of at least [`CSV_PARALLEL_MIN_BYTES`] with random access, no
/// row cap applies and no statistics are asked for (their sketches merge
/// only within their error); otherwise on one thread. The answer is the
/// same either way.
///
/// # Errors
/// The source's refusals, as a one-thread scan gives them.
pub fn inspect_source(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
) -> Result<CsvInspect, Refusal> {
    let threads = opts.scan.thread_count();
    let big = source.len().is_some_and(|l| l >= CSV_PARALLEL_MIN_BYTES);
    if threads > 1 && big {
        if let Some(answer) = inspect_in_parts(source, format, opts, threads)? {
            return Ok(answer);
        }
    }
    crate::inspect(text_stream(source)?, format, opts)
}

/// Inspects `source` in up to `parts` parts on as many threads: each
/// part's column facts are added to the ones before, as
/// [`validate_in_parts`] adds counts, and statistics merge (their exact
/// figures are the one-thread ones; an estimate may differ from the
/// one-thread estimate within its stated error). `None` when the parts
/// cannot give the one-thread answer: besides what stops a split
/// validate, any issue, sample rows left to take past the first part, or
/// facts that do not combine exactly.
///
/// # Errors
/// A read error while reading the head or looking for cut points.
pub fn inspect_in_parts(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
    parts: usize,
) -> Result<Option<CsvInspect>, Refusal> {
    let Some(plan) = plan(source, format, opts, (parts, false), opts.stats)? else {
        return Ok(None);
    };
    // Statistics were budgeted for the head's width: no part tracks more.
    let cap = if opts.stats {
        plan.head_width
    } else {
        usize::MAX
    };
    let rows = crate::sample_rows(opts);
    let Some((summary, sinks)) = run_parts(source, &plan, opts.header, false, |first| {
        Some(
            if first {
                InspectSink::new(rows, opts.stats).keeping_sketches(opts.scan.sketches)
            } else {
                InspectSink::later_part(opts.stats)
            }
            .brief(opts.scan.brief)
            .with_column_cap(cap),
        )
    }) else {
        return Ok(None);
    };
    let mut sinks = sinks.into_iter();
    let Some((mut whole, _)) = sinks.next() else {
        return Ok(None);
    };
    if whole.issue_count() > 0 || !whole.sample_settled() || whole.too_wide() {
        return Ok(None);
    }
    for (part, before) in sinks {
        if part.issue_count() > 0 || part.too_wide() || !whole.absorb(part, before.records) {
            return Ok(None);
        }
    }
    Ok(Some(whole.finish(format.name(), &summary)))
}

/// Searches `source` (see [`crate::search`]) on
/// [`ScanBounds::thread_count`] threads when the search starts at the
/// first row of a file of at least [`CSV_PARALLEL_MIN_BYTES`] with random
/// access; otherwise on one thread. The answer is the same either way.
///
/// # Errors
/// As [`crate::search`].
pub fn search_source(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
    query: &Query,
    column: Option<ColumnRef>,
) -> Result<CsvSearch, Refusal> {
    let threads = opts.scan.thread_count();
    let big = source.len().is_some_and(|l| l >= CSV_PARALLEL_MIN_BYTES);
    if threads > 1 && big {
        if let Some(answer) = search_in_parts(source, format, opts, query, column.clone(), threads)?
        {
            return Ok(answer);
        }
    }
    crate::search(
        text_stream(source)?,
        format,
        opts,
        query,
        column,
        Some(source),
    )
}

/// Searches in up to `parts` parts on as many threads. Each part keeps
/// its first hits (up to the limit) and counts them; the parts are then
/// joined in file order, their rows and lines offset by the parts before,
/// up to the limit and the hit past it, as one thread would have stopped
/// (`count_only`: their counts add). The first part resolves the column
/// (by the header's names, or the first row's width) and tells the later
/// parts, which wait for it. `None` when the parts cannot give the
/// one-thread answer: a search that starts past the first row, besides
/// what stops a split validate before the part where the search stopped
/// (any issue included; a one-thread search reads past issues, and says
/// so in no count, but a part after an issue may have started inside a
/// quoted field).
///
/// # Errors
/// A read error while reading the head, looking for cut points or
/// reading a hit's row back.
pub fn search_in_parts(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
    query: &Query,
    column: Option<ColumnRef>,
    parts: usize,
) -> Result<Option<CsvSearch>, Refusal> {
    if !splits(query) {
        return Ok(None);
    }
    let Some(plan) = plan(source, format, opts, (parts, false), false)? else {
        return Ok(None);
    };
    let handoff = Arc::new(Handoff::default());
    let Some((summary, sinks)) = run_parts(source, &plan, opts.header, true, |first| {
        if first {
            let sink = SearchSink::new(query.clone(), column.clone(), true);
            Some(sink.publishing(Publisher(Arc::clone(&handoff))))
        } else {
            let resolved = handoff.wait()?;
            Some(SearchSink::later_part(query.clone(), resolved))
        }
    }) else {
        return Ok(None);
    };
    // A column past every row's is refused, as one thread refuses it.
    let past = |c: usize| c >= summary.widest;
    if sinks
        .first()
        .and_then(|(s, _)| s.column_index())
        .is_some_and(past)
    {
        return Ok(None);
    }
    let mut whole: Option<SearchSink> = None;
    for (at, (mut part, before)) in sinks.into_iter().enumerate() {
        // A row not judged whole is counted as one thread counts it: up
        // to where that thread stopped, which only it knows.
        if part.issue_count() > 0 || part.unjudged_count() > 0 {
            return Ok(None);
        }
        // A hit at a part's end ends where the next part starts.
        if let Some(&end) = plan.cuts.get(at + 1) {
            part.close_span(end);
        }
        match whole.as_mut() {
            None => {
                fetch_hits(&mut part, source, &summary)?;
                whole = Some(part);
            }
            Some(w) => {
                let Some(kept) = w.room_for(&part) else {
                    return Ok(None);
                };
                part.keep_first(kept);
                fetch_hits(&mut part, source, &summary)?;
                w.absorb(part, before.rows, before.lines);
            }
        }
    }
    Ok(whole.map(|w| w.finish(format.name(), &summary)))
}

/// Whether a split search answers `query`: one from the first row that
/// keeps every hit, by one column or any (conditions judge whole rows,
/// their cells kept: one thread).
pub(crate) fn splits(query: &Query) -> bool {
    query.from_first() && query.conditions.is_none()
}

/// The column the first part of a split search resolved, for the later
/// parts: `Some(column)` (`None` inside: any column), or `None` when the
/// first part resolved none (a refusal, or no row), each later part then
/// giving up.
#[derive(Default)]
struct Handoff {
    told: Mutex<Option<Option<Option<usize>>>>,
    ready: Condvar,
}

impl Handoff {
    fn tell(&self, column: Option<Option<usize>>) {
        let mut told = self.told.lock().unwrap_or_else(|e| e.into_inner());
        if told.is_none() {
            *told = Some(column);
            self.ready.notify_all();
        }
    }

    fn wait(&self) -> Option<Option<usize>> {
        let mut told = self.told.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(column) = *told {
                return column;
            }
            told = self.ready.wait(told).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The first part's end of a [`Handoff`]. Told once; dropped untold (the
/// part ended, was refused, or its thread unwound) it tells the later
/// parts that no column came, so that none waits forever.
pub(crate) struct Publisher(Arc<Handoff>);

impl Publisher {
    /// Tells the later parts the column (`None`: none was resolved).
    pub(crate) fn tell(self, column: Option<Option<usize>>) {
        self.0.tell(column);
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        self.0.tell(None);
    }
}

/// Whether a line feed of `sample` lies inside quotes.
fn quoted_line_break(sample: &[u8], quote: u8) -> bool {
    let mut inside = false;
    for &b in sample {
        if b == quote {
            inside = !inside;
        } else if b == b'\n' && inside {
            return true;
        }
    }
    false
}
