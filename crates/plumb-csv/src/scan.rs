//! The driver: a text stream in, resolved rows out.
//!
//! It holds back the first [`DELIMITER_SAMPLE_BYTES`] of text when no
//! delimiter was given, detects the delimiter on it, then feeds that same
//! text to the parser (it is never parsed twice for real), then the rest
//! of the stream chunk by chunk. Between parser and report sits the
//! [`Resolver`], which decides the header, numbers data rows, flags
//! ragged rows and stops at a row cap.
//!
//! Under `--header auto` a first record that does not read as names is
//! data at once; one that does is held in the parser's own buffers
//! (taken through `CsvSink::adopt`, not copied) until
//! `CsvSink::record_begins` says a second record began, so two records
//! near the 16 MiB cap are never in memory together.

use std::io::BufRead;
use std::ops::ControlFlow;

use plumb_core::{PushMachine, Refusal, RowCap, TextStream};

use crate::dialect::header::{
    confirms_row_names, header_looks_like_names, names_after_row_names, Held,
};
use crate::dialect::{HeaderMode, QuoteMode};

use crate::detect::{detect_dialect, detect_preamble, plainly_no_preamble, DELIMITER_SAMPLE_BYTES};
use crate::machine::{
    ColumnJudge, CsvParser, CsvSink, Issue, IssueKind, LineEndings, Record, RowRun,
};

/// What a report consumes: the header once, then data rows.
pub(crate) trait RowSink: Sized {
    /// The delimiter the scan reads with, told before any row.
    fn dialect(&mut self, delimiter: u8) {
        let _ = delimiter;
    }
    fn keep_fields(&self) -> bool {
        true
    }
    /// The resolved header (or none); an error refuses the scan.
    fn header(&mut self, header: Option<&Record<'_>>) -> Result<(), Refusal> {
        let _ = header;
        Ok(())
    }
    /// Whether data rows whose fields are not kept should come cell by
    /// cell (see [`CsvSink::wants_cells`]).
    fn wants_cells(&self) -> bool {
        false
    }
    /// One cell of a data row, before the row itself.
    fn cell(&mut self, record: u64, index: usize, content: &[u8]) {
        let _ = (record, index, content);
    }
    /// Data row `index` (0-based, after the header).
    fn row(&mut self, index: u64, row: &Record<'_>) -> ControlFlow<()>;
    fn issue(&mut self, issue: &Issue) -> ControlFlow<()>;
    fn blank_line(&mut self, line: u64) {
        let _ = line;
    }
    /// The end: the report's own refusal, if it stopped the scan for one.
    fn finish(&mut self) -> Result<(), Refusal> {
        Ok(())
    }
    /// A scan of a part of the file (on its own thread) returned, with a
    /// result or a refusal.
    fn part_done(&mut self) {}
    /// How the scan feeds the parser into `resolver`: as a plain
    /// [`CsvSink`], unless the sink is a [`RowJudge`], whose `feed`
    /// wraps the resolver in [`Judged`](crate::Judged) to take the run
    /// path.
    fn feed<R: BufRead>(feed: Feed<'_, R>, resolver: &mut Resolver<'_, Self>) -> FeedResult {
        feed.into(resolver)
    }
}

/// What a report that judges rows by one column (a search) offers
/// beside its rows: [`ColumnJudge`] in terms of data rows, which the
/// [`Resolver`] translates.
pub(crate) trait RowJudge: RowSink {
    /// Whether cell `index` is wanted (see [`ColumnJudge::cell_wanted`]).
    fn cell_wanted(&self, index: usize) -> bool;
    /// The one cell wanted, if only one is (see
    /// [`ColumnJudge::only_cell`]).
    fn only_cell(&self) -> Option<usize>;
    /// Data row `index` with its one wanted cell (see
    /// [`ColumnJudge::one_cell_record`]): [`RowSink::cell`] then
    /// [`RowSink::row`] unless the sink takes it in fewer steps.
    #[inline(always)]
    fn one_cell_row(
        &mut self,
        index: u64,
        row: &Record<'_>,
        column: usize,
        cell: &[u8],
    ) -> ControlFlow<()> {
        self.cell(row.number, column, cell);
        self.row(index, row)
    }
    /// The terms of a run of rows taken in bulk (see
    /// [`ColumnJudge::row_run`]), its first row `first` (0-based), its
    /// rows `width` fields wide, at most `most` of them; `None`: row by
    /// row.
    fn row_run(&self, first: u64, width: usize, most: u64) -> Option<RowRun>;
    /// Whether the judged cell of a row in a run makes it a hit.
    fn run_holds(&self, cell: &[u8]) -> bool;
    /// A run of rows passed (the resolver numbered them), `hits` of them
    /// hits.
    fn run_passed(&mut self, hits: u64) -> ControlFlow<()>;
}

/// Whether a scan stopped before the end of its input, or its refusal.
pub(crate) type FeedResult = Result<bool, Refusal>;

/// One scan's feeding of its parser: the text read ahead to detect the
/// dialect, then the rest of the stream through the one drive loop.
pub(crate) struct Feed<'a, R> {
    stream: &'a mut TextStream<R>,
    parser: &'a mut Option<CsvParser>,
    sample: Vec<u8>,
    base: Option<u64>,
    new_parser: &'a dyn Fn(u64) -> CsvParser,
}

impl<R: BufRead> Feed<'_, R> {
    /// Feeds everything into `sink`: the sample first, into a parser
    /// started at its offset, then the rest of the stream through the
    /// one drive loop (which builds the parser at the first chunk's
    /// offset when there was no sample). True when the scan stopped
    /// before the end.
    pub(crate) fn into<X: ?Sized>(self, sink: &mut X) -> FeedResult
    where
        CsvParser: PushMachine<X>,
    {
        let Feed {
            stream,
            parser,
            sample,
            base,
            new_parser,
        } = self;
        if let Some(at) = base {
            let p = parser.insert(new_parser(at));
            if PushMachine::push(p, &sample, sink)?.is_break() {
                PushMachine::close(p, sink)?;
                return Ok(true);
            }
        }
        drop(sample);
        Ok(plumb_core::drive(stream, parser, new_parser, sink)?.is_break())
    }
}

/// Resolves the header, numbers rows, flags ragged rows, and stops at
/// the row cap.
pub(crate) struct Resolver<'s, S> {
    mode: HeaderMode,
    inner: &'s mut S,
    pending: Option<Held>,
    /// The record just reported is now `pending`: take its buffers.
    adopting: bool,
    decided: bool,
    has_header: bool,
    width: Option<usize>,
    cap: RowCap,
    pub(crate) ragged_rows: u64,
    /// The most cells a ragged row held (0 when none was ragged).
    pub(crate) widest: usize,
    error: Option<Refusal>,
    /// Whether the header's empty first cell was named (a row-names
    /// header).
    pub(crate) named_row_names: bool,
}

impl<'s, S: RowSink> Resolver<'s, S> {
    pub(crate) fn new(mode: HeaderMode, max_rows: Option<u64>, inner: &'s mut S) -> Self {
        Resolver {
            mode,
            inner,
            pending: None,
            adopting: false,
            decided: false,
            has_header: false,
            width: None,
            cap: RowCap::new(max_rows),
            ragged_rows: 0,
            widest: 0,
            error: None,
            named_row_names: false,
        }
    }

    fn decide(&mut self, header: Option<&Record<'_>>) -> ControlFlow<()> {
        self.decided = true;
        if let Some(h) = header {
            self.has_header = true;
            if h.overflow.is_none() {
                self.width = Some(h.len());
            }
        }
        match self.inner.header(header) {
            Ok(()) => ControlFlow::Continue(()),
            Err(refusal) => {
                self.error = Some(refusal);
                ControlFlow::Break(())
            }
        }
    }

    // Into the row's path: left out of line for a sink with a row
    // method of some size (search), the call cost a few percent a row.
    #[inline(always)]
    fn feed(&mut self, row: &Record<'_>) -> ControlFlow<()> {
        if !self.cap.has_room() {
            return self.cap.admit();
        }
        match self.width {
            // A dropped record's field count is not the file's width.
            None if row.overflow.is_some() => {}
            None => self.width = Some(row.len()),
            Some(w) if row.overflow.is_none() && row.len() != w => {
                self.ragged_rows += 1;
                self.widest = self.widest.max(row.len());
                let issue = Issue {
                    kind: IssueKind::RaggedRow,
                    record: row.number,
                    line: row.line,
                    byte_offset: row.byte_offset,
                    fields: Some((row.len() as u64, w as u64)),
                    extent: None,
                };
                self.inner.issue(&issue)?;
            }
            Some(_) => {}
        }
        let index = self.cap.rows();
        let _ = self.cap.admit();
        self.inner.row(index, row)
    }

    /// The input ended. A first record still held under `auto` is one
    /// whose cells all read as names (any other is data at once): a file
    /// of that one record is a header and zero rows, as Python's csv
    /// sniffer, pandas and DuckDB read `id,name,city\n`.
    fn input_ended(&mut self) -> ControlFlow<()> {
        if let Some(first) = self.pending.take() {
            let first = self.named(first);
            self.decide(Some(&first.record()))?;
        } else if !self.decided {
            self.decide(None)?;
        }
        ControlFlow::Continue(())
    }

    pub(crate) fn rows(&self) -> u64 {
        self.cap.rows()
    }

    /// A second record began: the held first one is the header (a
    /// row-names header waits for the record itself).
    #[cold]
    fn decide_held(&mut self) -> ControlFlow<()> {
        if self.pending.as_ref().is_some_and(|h| h.row_names) {
            return ControlFlow::Continue(());
        }
        match self.pending.take() {
            Some(first) => self.decide(Some(&first.record())),
            None => ControlFlow::Continue(()),
        }
    }

    /// The held first record as the header: a row-names header with its
    /// first cell named.
    fn named(&mut self, first: Held) -> Held {
        if first.row_names {
            self.named_row_names = true;
            first.named_row_names()
        } else {
            first
        }
    }

    /// The record after a held row-names header: the header it confirms
    /// and then this row, or two rows.
    #[cold]
    fn settle_row_names(&mut self, record: &Record<'_>) -> ControlFlow<()> {
        let Some(first) = self.pending.take() else {
            return self.feed(record);
        };
        if confirms_row_names(record) {
            let first = self.named(first);
            self.decide(Some(&first.record()))?;
        } else {
            self.decide(None)?;
            self.feed(&first.record())?;
        }
        self.feed(record)
    }

    #[cold]
    fn adopt_held(&mut self, data: &mut Vec<u8>, ends: &mut Vec<u32>) {
        self.adopting = false;
        if let Some(held) = self.pending.as_mut() {
            held.data = std::mem::take(data);
            held.ends = std::mem::take(ends);
        }
    }
}

impl<S: RowSink> CsvSink for Resolver<'_, S> {
    fn keep_fields(&self) -> bool {
        !self.decided || self.inner.keep_fields()
    }

    fn wants_cells(&self) -> bool {
        // A record past the row cap is not a row: its cells stay unseen.
        self.decided && self.inner.wants_cells() && self.cap.has_room()
    }

    #[inline(always)]
    fn cell(&mut self, record: u64, index: usize, content: &[u8]) -> ControlFlow<()> {
        self.inner.cell(record, index, content);
        ControlFlow::Continue(())
    }

    fn record(&mut self, record: &Record<'_>) -> ControlFlow<()> {
        if self.decided {
            return self.feed(record);
        }
        if self.pending.as_ref().is_some_and(|h| h.row_names) {
            return self.settle_row_names(record);
        }
        match self.mode {
            HeaderMode::Present => self.decide(Some(record)),
            HeaderMode::Absent => {
                self.decide(None)?;
                self.feed(record)
            }
            // A first record that does not read as names is data, whatever
            // follows; one that does is a header if another record
            // begins (see `record_begins`), else the file's one data row.
            HeaderMode::Auto
                if record.overflow.is_some()
                    || !(header_looks_like_names(record) || names_after_row_names(record)) =>
            {
                self.decide(None)?;
                self.feed(record)
            }
            HeaderMode::Auto => {
                self.pending = Some(Held {
                    number: record.number,
                    line: record.line,
                    byte_offset: record.byte_offset,
                    quoting_issues: record.quoting_issues,
                    data: Vec::new(),
                    ends: Vec::new(),
                    row_names: !header_looks_like_names(record),
                });
                self.adopting = true;
                ControlFlow::Continue(())
            }
        }
    }

    #[inline]
    fn record_begins(&mut self, _record: u64) -> ControlFlow<()> {
        if self.pending.is_none() {
            return ControlFlow::Continue(());
        }
        self.decide_held()
    }

    #[inline]
    fn adopt(&mut self, data: &mut Vec<u8>, ends: &mut Vec<u32>) {
        if self.adopting {
            self.adopt_held(data, ends);
        }
    }

    fn issue(&mut self, issue: &Issue) -> ControlFlow<()> {
        self.inner.issue(issue)
    }

    fn blank_line(&mut self, line: u64) -> ControlFlow<()> {
        self.inner.blank_line(line);
        ControlFlow::Continue(())
    }

    fn end_of_input(&mut self) -> ControlFlow<()> {
        self.input_ended()
    }

    /// The resolver's refusal (the header's), else the report's.
    fn finish(&mut self) -> Result<(), Refusal> {
        match self.error.take() {
            Some(refusal) => Err(refusal),
            None => self.inner.finish(),
        }
    }
}

impl<S: RowJudge> ColumnJudge for Resolver<'_, S> {
    #[inline]
    fn cell_wanted(&self, index: usize) -> bool {
        self.inner.cell_wanted(index)
    }

    #[inline]
    fn only_cell(&self) -> Option<usize> {
        self.inner.only_cell()
    }

    // A data row as wide as the first, within the row cap, goes to the
    // report at once; any other the usual way.
    #[inline(always)]
    fn one_cell_record(
        &mut self,
        record: &Record<'_>,
        index: usize,
        cell: &[u8],
    ) -> ControlFlow<()> {
        if self.decided && self.cap.has_room() && self.width == Some(record.len()) {
            let row = self.cap.rows();
            let _ = self.cap.admit();
            return self.inner.one_cell_row(row, record, index, cell);
        }
        self.inner.cell(record.number, index, cell);
        self.record(record)
    }

    // Once the header is decided and the width known: rows as wide as
    // the first, within the row cap (a run of none is never taken).
    #[inline]
    fn row_run(&self) -> Option<RowRun> {
        if !self.decided {
            return None;
        }
        self.inner
            .row_run(self.cap.rows(), self.width?, self.cap.room())
    }

    #[inline(always)]
    fn run_holds(&self, cell: &[u8]) -> bool {
        self.inner.run_holds(cell)
    }

    fn run_passed(&mut self, records: u64, hits: u64) -> ControlFlow<()> {
        self.cap.admit_many(records);
        self.inner.run_passed(hits)
    }
}

/// What every scan learns besides the report; serialized as a range's
/// part of a split validate (see `crate::ranges`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct ScanSummary {
    pub delimiter: u8,
    /// Whether a run of delimiters counted as one.
    pub runs: bool,
    pub quote: Option<u8>,
    /// Lines skipped before the table (asked, or a detected preamble).
    pub skipped_lines: u64,
    /// The comment character in effect (given, or `#` after a `#`
    /// preamble).
    pub comment: Option<u8>,
    /// Comment lines skipped.
    pub comment_lines: u64,
    /// The first lines of a detected preamble, cut.
    pub preamble: Vec<String>,
    pub confidence: Option<f64>,
    /// Whether the delimiter was detected from the start of the first
    /// record alone (the sample held no whole record).
    pub partial_sample: bool,
    pub endings: LineEndings,
    pub blank_lines: u64,
    pub rows: u64,
    /// Records the parser numbered (the header and dropped records
    /// count): what a later part's record numbers are offset by.
    pub records: u64,
    /// The header's field count, else the first row's (what rows are
    /// held to); none before a row.
    pub width: Option<usize>,
    pub ragged_rows: u64,
    /// The most cells any row held, the header's among them: where the
    /// columns inspect lists end.
    pub widest: usize,
    /// Whether the header's empty first cell (over row names) was named
    /// [`crate::dialect::header::ROW_NAMES_COLUMN`].
    pub named_row_names: bool,
    /// The scan stopped before the end of the file (row cap, sink or
    /// byte budget).
    pub stopped: bool,
    pub bom: bool,
    /// Line breaks read, quoted ones included: what a later part's line
    /// numbers are offset by.
    pub line_breaks: u64,
}

/// The dialect as the caller asked for it; what is not given is found
/// on the sample.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Asked {
    pub delimiter: Option<(u8, bool)>,
    pub quote: QuoteMode,
    pub comment: Option<u8>,
    pub skip_lines: Option<u64>,
}

/// The most preamble lines an answer quotes, and the bytes of each.
pub(crate) const PREAMBLE_SHOWN_LINES: usize = 10;
pub(crate) const PREAMBLE_LINE_BYTES: usize = 256;

/// The first `lines` lines of `sample`, as answers quote a preamble.
fn preamble_text(sample: &[u8], lines: u64) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = sample;
    for _ in 0..lines.min(PREAMBLE_SHOWN_LINES as u64) {
        let end = memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
        out.push(plumb_core::lossy_prefix(&rest[..end], PREAMBLE_LINE_BYTES));
        let mut next = (end + 1).min(rest.len());
        if rest.get(end) == Some(&b'\r') && rest.get(end + 1) == Some(&b'\n') {
            next += 1;
        }
        rest = &rest[next..];
    }
    out
}

/// Runs a whole scan. What the caller did not give of the dialect (the
/// delimiter, the quote, the lines to skip) is found on the first
/// [`DELIMITER_SAMPLE_BYTES`] of text.
pub(crate) fn scan<R: BufRead, S: RowSink>(
    mut stream: TextStream<R>,
    asked: Asked,
    mode: HeaderMode,
    max_rows: Option<u64>,
    sink: &mut S,
) -> Result<ScanSummary, Refusal> {
    let mut sample = Vec::new();
    let mut base = None;
    let mut eof = false;
    let resolved = match (asked.delimiter, asked.quote, asked.skip_lines) {
        (Some((d, runs)), QuoteMode::Char(q), Some(skip)) => {
            Resolved::given(d, runs, Some(q), skip, asked.comment)
        }
        (Some((d, runs)), QuoteMode::Off, Some(skip)) => {
            Resolved::given(d, runs, None, skip, asked.comment)
        }
        _ => {
            while sample.len() < DELIMITER_SAMPLE_BYTES {
                match stream.next_chunk()? {
                    Some(chunk) => {
                        base.get_or_insert(chunk.byte_offset);
                        sample.extend_from_slice(chunk.text.as_bytes());
                    }
                    None => {
                        eof = !stream.stopped_early();
                        break;
                    }
                }
            }
            Resolved::detect(&sample, eof, asked)
        }
    };
    scan_resolved(stream, (sample, base), resolved, mode, max_rows, sink)
}

/// The dialect a scan runs with, every part of it settled: given by the
/// caller or found on the sample.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Resolved {
    pub delimiter: u8,
    pub runs: bool,
    pub quote: Option<u8>,
    pub skip_lines: u64,
    pub comment: Option<u8>,
    /// Lines (from the file's start) before which a commented header is
    /// not a comment.
    pub comments_after: u64,
    pub confidence: Option<f64>,
    /// See [`ScanSummary::partial_sample`].
    pub partial_sample: bool,
    pub preamble: Vec<String>,
}

impl Resolved {
    fn given(delimiter: u8, runs: bool, quote: Option<u8>, skip: u64, comment: Option<u8>) -> Self {
        Resolved {
            delimiter,
            runs,
            quote,
            skip_lines: skip,
            comment,
            comments_after: 0,
            confidence: None,
            partial_sample: false,
            preamble: Vec::new(),
        }
    }

    /// What the caller did not give, found on the first
    /// [`DELIMITER_SAMPLE_BYTES`] of text (`eof`: the sample is the
    /// whole text).
    pub(crate) fn detect(sample: &[u8], eof: bool, asked: Asked) -> Resolved {
        let detection = detect_dialect(sample, eof, asked.delimiter, asked.quote);
        let confidence = asked.delimiter.is_none().then_some(detection.confidence);
        let mut preamble = Vec::new();
        let mut comment = asked.comment;
        let mut comments_after = 0;
        let skip = asked.skip_lines.unwrap_or_else(|| {
            if plainly_no_preamble(sample, &detection, asked.comment) {
                return 0;
            }
            let found = detect_preamble(sample, eof, &detection, asked.comment);
            preamble = preamble_text(sample, found.lines);
            // A file that opens with `#` notes marks comments so (its
            // commented header, if any, excepted).
            if found.marked && comment.is_none() {
                comment = Some(b'#');
                if found.commented_header {
                    comments_after = found.lines + 1;
                }
            }
            found.lines
        });
        Resolved {
            delimiter: detection.delimiter,
            runs: detection.runs,
            quote: detection.quote,
            skip_lines: skip,
            comment,
            comments_after,
            confidence,
            partial_sample: asked.delimiter.is_none() && detection.partial,
            preamble,
        }
    }

    /// The dialect of a part of the file that starts past its head: no
    /// lines to skip, no commented header, nothing detected.
    pub(crate) fn for_later_part(&self) -> Resolved {
        Resolved {
            skip_lines: 0,
            comments_after: 0,
            confidence: None,
            partial_sample: false,
            preamble: Vec::new(),
            ..self.clone()
        }
    }
}

/// [`scan`] with the dialect settled: `sample` (text already read from
/// the stream, at offset `base`) is pushed first, then the rest.
pub(crate) fn scan_resolved<R: BufRead, S: RowSink>(
    mut stream: TextStream<R>,
    (sample, base): (Vec<u8>, Option<u64>),
    resolved: Resolved,
    mode: HeaderMode,
    max_rows: Option<u64>,
    sink: &mut S,
) -> Result<ScanSummary, Refusal> {
    let Resolved {
        delimiter,
        runs,
        quote,
        skip_lines,
        comment,
        comments_after,
        confidence,
        partial_sample,
        preamble,
    } = resolved;
    let new_parser = |at: u64| {
        CsvParser::new(delimiter)
            .with_quote(quote)
            .with_delimiter_runs(runs)
            .with_comment(comment)
            .with_comments_after(comments_after)
            .with_skip_lines(skip_lines)
            .with_base_offset(at)
    };
    sink.dialect(delimiter);
    let mut resolver = Resolver::new(mode, max_rows, sink);
    let mut parser = None;
    let feed = Feed {
        stream: &mut stream,
        parser: &mut parser,
        sample,
        base,
        new_parser: &new_parser,
    };
    let stopped = S::feed(feed, &mut resolver)?;

    let parser = parser.unwrap_or_else(|| new_parser(0));
    Ok(ScanSummary {
        delimiter,
        runs,
        quote,
        confidence,
        partial_sample,
        endings: parser.line_endings(),
        blank_lines: parser.blank_lines(),
        skipped_lines: parser.skipped_lines(),
        comment,
        comment_lines: parser.comment_lines(),
        preamble,
        rows: resolver.rows(),
        records: parser.records(),
        width: resolver.width,
        ragged_rows: resolver.ragged_rows,
        widest: resolver.widest.max(resolver.width.unwrap_or(0)),
        named_row_names: resolver.named_row_names,
        stopped,
        bom: stream.stats().bom,
        line_breaks: parser.lines().saturating_sub(1),
    })
}
