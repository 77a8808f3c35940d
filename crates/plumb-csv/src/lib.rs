//! plumb's CSV/TSV engine: a sans-IO RFC 4180 push parser with caps,
//! delimiter detection, header resolution, and the operations inspect,
//! select, validate and search over a [`TextStream`] (each also on a
//! whole source, split across threads where the file is large).
//!
//! ```
//! use plumb_core::TextStream;
//! use plumb_csv::{inspect, CsvFormat, CsvOptions};
//!
//! let text = "id,name,temperature\n1,ann,21.5\n2,bob,NA\n";
//! let report = inspect(TextStream::new(text.as_bytes()), CsvFormat::Csv, &CsvOptions::default())?;
//! assert_eq!(report.header.as_deref(), Some(&["id".to_owned(), "name".to_owned(), "temperature".to_owned()][..]));
//! assert_eq!(report.row_count, Some(2));
//! let temperature = &report.columns[2];
//! assert_eq!(temperature.sentinels["NA"], 1);
//! assert_eq!(temperature.inferred_type, plumb_csv::InferredType::Float);
//! # Ok::<(), plumb_core::Refusal>(())
//! ```
//!
//! The parser ([`CsvParser`]) does no I/O: it takes slices, wherever
//! they were cut, and reports records and issues to a [`CsvSink`]; a sink
//! that judges records by one column may also offer [`ColumnJudge`] and
//! be pushed with [`CsvParser::push_judged`], which takes plain records
//! in bulk. The operations drive it from a stream and fold its events into typed,
//! serializable reports. Every cap is a documented constant; no input
//! makes memory grow past them.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod block;
mod cell;
mod detect;
mod dialect;
mod machine;
mod parallel;
mod ranges;
mod reader;
mod report;
mod scan;

use std::io::BufRead;
use std::path::Path;

use plumb_core::{clamp_limit, Refusal, ScanBounds, TextStream, Window};

pub use cell::{
    classify_cell, infer_column_type, number_class, scan_cell, CellClass, CellScan, ClassHistogram,
    DateForm, DateOrder, InferredType, SENTINEL_TOKENS,
};
pub use detect::{
    detect_delimiter, detect_dialect, detect_preamble, quote_candidates, Detection, Preamble,
    CSV_ALIGNED_CONFIDENCE, CSV_DELIMITER_CANDIDATES, CSV_EXTENDED_CANDIDATES,
    CSV_EXTENDED_MIN_CONFIDENCE, CSV_LOW_CONFIDENCE, CSV_PREAMBLE_MAX_LINES,
    DELIMITER_SAMPLE_BYTES,
};
pub use dialect::{HeaderMode, QuoteMode};
pub use machine::{
    ColumnJudge, CsvParser, CsvSink, Issue, IssueKind, IssueReport, Judged, LineEndings, Record,
    RowRun, CSV_LONG_FIELD_LINES, CSV_LONG_RECORD_FACTOR, CSV_LONG_RECORD_MIN_BYTES,
    CSV_MAX_FIELD_BYTES, CSV_MAX_RECORD_BYTES, FIELD_END_COST, RUN_COUNTED_FIELDS, RUN_LINE_BYTES,
    RUN_PAUSE_RECORDS,
};
pub use parallel::{
    inspect_in_parts, inspect_source, search_in_parts, search_source, validate_in_parts,
    validate_source, CSV_PARALLEL_MIN_BYTES, CSV_PARALLEL_MIN_HEAD_LINES,
};
pub use ranges::{
    join_inspect_ranges, join_search_ranges, join_validate_ranges, plan_ranges, scan_inspect_range,
    scan_search_range, scan_validate_range,
};
pub use reader::CsvReader;
pub use report::{
    ColumnRef, ColumnReport, CsvInspect, CsvSearch, CsvSelect, CsvValidate, DialectReport,
    PrecisionFact, RowHit, SelectCell, CSV_SEARCH_FETCH_BYTES, CSV_SEARCH_ROW_BYTES,
    CSV_SEARCH_ROW_CELLS, CSV_SELECT_BUDGET_BYTES, CSV_SELECT_CELL_FRAME_BYTES,
    INSPECT_NARROW_TEXT_BYTES, INSPECT_SAMPLE_BUDGET_BYTES, INSPECT_WIDE_TEXT_COLUMNS,
};

/// The rows an inspect sample holds when none is asked for.
pub const INSPECT_SAMPLE_ROWS_DEFAULT: usize = 5;

/// The most rows an inspect sample holds, whatever is asked.
pub const INSPECT_SAMPLE_ROWS_MAX: usize = 100;

/// CSV or TSV: the name reports carry and the default delimiter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsvFormat {
    /// Comma-separated (the delimiter is detected unless given).
    Csv,
    /// Tab-separated (the delimiter is a tab unless given).
    Tsv,
}

impl CsvFormat {
    /// `csv` or `tsv`.
    pub const fn name(self) -> &'static str {
        match self {
            CsvFormat::Csv => "csv",
            CsvFormat::Tsv => "tsv",
        }
    }

    /// The dialect as asked: the delimiter given (TSV's tab when none
    /// is), the quote, the comment byte and the lines to skip.
    fn dialect(self, opts: &CsvOptions) -> scan::Asked {
        scan::Asked {
            delimiter: match self {
                CsvFormat::Csv => opts.delimiter,
                CsvFormat::Tsv => Some(opts.delimiter.unwrap_or(b'\t')),
            }
            .map(|d| (d, opts.delimiter_runs)),
            quote: opts.quote,
            comment: opts.comment,
            skip_lines: opts.skip_lines,
        }
    }
}

/// Options every CSV operation takes. Cancellation is not one of them:
/// it is armed on the stream.
#[derive(Clone, Debug, Default)]
pub struct CsvOptions {
    /// The delimiter; detected from the first 64 KiB when `None` (CSV).
    pub delimiter: Option<u8>,
    /// With a given delimiter: whether a run of it counts as one, and
    /// delimiters that open or close a line are ignored (`spaces`).
    pub delimiter_runs: bool,
    /// The quote; chosen on the first 64 KiB under auto.
    pub quote: QuoteMode,
    /// Lines that start with this byte (where a record would start) are
    /// comments, skipped and counted.
    pub comment: Option<u8>,
    /// Lines to skip before the table; a preamble is detected on the
    /// first 64 KiB when `None` (see [`detect_preamble`]).
    pub skip_lines: Option<u64>,
    /// Whether the first record is a header.
    pub header: HeaderMode,
    /// How far inspect and validate scan (`max_rows` counts data rows)
    /// and how many rows the inspect sample keeps (default 5, at most 100).
    pub scan: ScanBounds,
    /// Whether inspect adds each column's statistics (distinct count,
    /// top values, moments, quantiles: see [`plumb_stats::ValueStats`]).
    pub stats: bool,
}

/// The window a select returns.
#[derive(Clone, Debug, Default)]
pub struct SelectOptions {
    /// Data rows to skip (after the header) and to return (clamped to
    /// 1..=1000, 50 when `None`).
    pub window: Window,
    /// Columns to keep, by header name or 0-based index.
    pub columns: Option<Vec<ColumnRef>>,
}

/// Inspects a CSV/TSV stream: per-column types, counts, ranges and
/// samples; ragged rows, quoting issues, blank lines, line ending.
///
/// # Errors
/// The stream's refusals: `binary`, `invalid-utf8`, `aborted`, `read-error`.
pub fn inspect<R: BufRead>(
    stream: TextStream<R>,
    format: CsvFormat,
    opts: &CsvOptions,
) -> Result<CsvInspect, Refusal> {
    let mut sink = report::InspectSink::new(sample_rows(opts), opts.stats)
        .keeping_sketches(opts.scan.sketches)
        .brief(opts.scan.brief);
    let summary = scan::scan(
        stream.within(opts.scan.max_scan_bytes),
        format.dialect(opts),
        opts.header,
        opts.scan.max_rows,
        &mut sink,
    )?;
    Ok(sink.finish(format.name(), &summary))
}

/// The sample rows inspect keeps: asked for, or the default, within the cap.
fn sample_rows(opts: &CsvOptions) -> usize {
    opts.scan
        .sample_rows
        .unwrap_or(INSPECT_SAMPLE_ROWS_DEFAULT)
        .min(INSPECT_SAMPLE_ROWS_MAX)
}

/// Selects a window of rows, verbatim, optionally projected to columns.
/// Reading stops one row past the window.
///
/// # Errors
/// `unknown-column` for a name not in the header; `invalid-argument` for
/// a negative index, an index past the last column, or a name when there
/// is no header; and the stream's refusals.
pub fn select<R: BufRead>(
    stream: TextStream<R>,
    format: CsvFormat,
    opts: &CsvOptions,
    window: &SelectOptions,
) -> Result<CsvSelect, Refusal> {
    let limit = clamp_limit(window.window.limit);
    let mut sink = report::SelectSink::new(
        window.window.offset.unwrap_or(0),
        limit,
        window.columns.clone(),
    );
    let summary = scan::scan(stream, format.dialect(opts), opts.header, None, &mut sink)?;
    Ok(sink.finish(format.name(), &summary))
}

/// Searches the data rows from row `query.offset` for `query`, in
/// `column` (by header name or 0-based index) or in any column. Reading
/// stops at the hit past the limit.
///
/// With `rows_from`, a source with random access over the same bytes,
/// cells are judged as they pass and never copied (a column search sees
/// one cell a row), and each hit's row is read back from its byte range
/// afterwards; without it, every row's cells are copied as they pass.
///
/// # Errors
/// `unknown-column` for a name not in the header; `invalid-argument` for
/// an index that is not a column, or a name when there is no header; and
/// the stream's refusals.
pub fn search<R: BufRead>(
    stream: TextStream<R>,
    format: CsvFormat,
    opts: &CsvOptions,
    query: &plumb_core::Query,
    column: Option<ColumnRef>,
    rows_from: Option<&dyn plumb_core::Source>,
) -> Result<CsvSearch, Refusal> {
    // Random access, asked as `read_at` (a decoded stream has none).
    let rows_from = rows_from.filter(|s| s.read_at(0, &mut []).is_some());
    let mut sink = report::SearchSink::new(query.clone(), column, rows_from.is_some());
    let stream = stream.within(query.max_scan_bytes);
    let summary = scan::scan(stream, format.dialect(opts), opts.header, None, &mut sink)?;
    // A column past the header's is one only if some row reached it (a
    // scan stopped early cannot say that none did): the searched one, and
    // each a condition tests.
    let tested = sink.condition_columns().iter().copied();
    let mut searched = sink.column_index().into_iter().chain(tested);
    if let Some(c) = searched.find(|&c| c >= summary.widest) {
        if !summary.stopped {
            return Err(Refusal::invalid_argument(format!(
                "column index {c} is not a column; this file has {} columns (0 to {}), counting rows wider than its header",
                summary.widest,
                summary.widest.saturating_sub(1)
            )));
        }
    }
    if let Some(source) = rows_from {
        report::fetch_hits(&mut sink, source, &summary)?;
    }
    Ok(sink.finish(format.name(), &summary))
}

/// Validates a CSV/TSV stream: `valid` is true when every row is well
/// formed and the whole file was read, false on ragged rows or quoting
/// or size issues, null when the row cap stopped the scan first.
///
/// # Errors
/// The stream's refusals.
pub fn validate<R: BufRead>(
    stream: TextStream<R>,
    format: CsvFormat,
    opts: &CsvOptions,
) -> Result<CsvValidate, Refusal> {
    let mut sink = report::ValidateSink::default();
    let summary = scan::scan(
        stream.within(opts.scan.max_scan_bytes),
        format.dialect(opts),
        opts.header,
        opts.scan.max_rows,
        &mut sink,
    )?;
    Ok(sink.finish(format.name(), &summary))
}

/// [`inspect`] over a file.
///
/// # Errors
/// `not-found`, `not-a-file`, and those of [`inspect`].
pub fn inspect_path(
    path: &Path,
    format: CsvFormat,
    opts: &CsvOptions,
) -> Result<CsvInspect, Refusal> {
    inspect(TextStream::open(path)?, format, opts)
}

/// [`select`] over a file.
///
/// # Errors
/// `not-found`, `not-a-file`, and those of [`select`].
pub fn select_path(
    path: &Path,
    format: CsvFormat,
    opts: &CsvOptions,
    window: &SelectOptions,
) -> Result<CsvSelect, Refusal> {
    select(TextStream::open(path)?, format, opts, window)
}

/// [`validate`] over a file.
///
/// # Errors
/// `not-found`, `not-a-file`, and those of [`validate`].
pub fn validate_path(
    path: &Path,
    format: CsvFormat,
    opts: &CsvOptions,
) -> Result<CsvValidate, Refusal> {
    validate(TextStream::open(path)?, format, opts)
}
