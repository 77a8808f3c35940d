//! The CSV push parser: an RFC 4180 state machine over bytes.
//!
//! # BE ADVISED
//!
//! The machine has six states. `FieldStart` is where every field begins
//! (and where blank lines are recognised); `Unquoted` and `Quoted` hold
//! field content; `QuoteInQuoted` has just seen a `"` inside a quoted
//! field and waits to learn whether it was a doubled quote or the close;
//! `Overflow` drops input after a cap was hit, up to the record's next
//! line break; `SkipLine` drops a line that is not data (a line the
//! caller skips, a comment line) up to its line break. A CR ends a record at once; a flag (`after_cr`) then
//! swallows an LF that follows, so CRLF is one terminator even when the
//! two bytes arrive in different pushes.
//!
//! Speed comes from crossing runs, not bytes: in `Unquoted` a tight loop
//! over a 256-entry class table skips every byte that is not the
//! delimiter, a quote, CR or LF; in `Quoted` and `Overflow`, `memchr2`
//! finds the next byte that matters. Content is copied into the record
//! buffer one run at a time, and only when the sink asked to keep fields.
//!
//! When fields are not kept (validation), a block path takes 64 bytes
//! at a time: the block is classified into bit masks (delimiter, quote,
//! LF, CR; see `block.rs`), quoted regions come from a prefix XOR of the
//! quote mask, fields are counted with `count_ones`, and only line breaks
//! cost a step. It takes a block only when the byte machine would report
//! nothing in it; otherwise the byte machine, the reference, runs over
//! that block. Both leave the same state, so they alternate freely, and
//! a proptest holds them to the same events under any chunking.
//!
//! Chunk edges are transparent because nothing looks ahead: every state
//! decides on the byte in hand, and the only cross-byte facts (an open
//! quote, a CR just seen) live in the state and the flag.
//!
//! The files: this one holds the parser's state and record bookkeeping
//! (`push`, `finish`, `finish_record`, `emit`); `bytes.rs` the byte
//! machine (`run_bytes`, `class_table`); `blocks.rs` the block path
//! (`blocks`, over the masks of `crate::block`); `issue.rs` the issues
//! and the messages users read; `sink.rs` [`Record`], [`CsvSink`] (the
//! reference events) and [`ColumnJudge`] (the hints of a sink that judges
//! records by one column, which the run path serves).
//!
//! When adding a state: give it a variant below with its meaning, a
//! `match` arm in `run_bytes` (the byte machine; `blocks` takes only
//! `FieldStart`, `Unquoted` and `Quoted` and hands anything else back),
//! and an arm in `finish_record` that says what the end of input means
//! in it. When adding a byte class: extend `class_table` (and the masks
//! in `crate::block`, if the block path must see it).

mod blocks;
mod bytes;
mod issue;
mod run;
mod settings;
mod sink;

use std::ops::ControlFlow;

use crate::block::BLOCK;
use bytes::{class_table, CR};
pub use issue::{Issue, IssueKind, IssueReport, LineEndings};
pub use run::{RUN_COUNTED_FIELDS, RUN_LINE_BYTES, RUN_PAUSE_RECORDS};
pub use sink::{ColumnJudge, CsvSink, Judged, Record, RowRun};
use sink::{Events, Plain};

/// The largest field kept, in file bytes (a quoted field's quotes
/// count). Past it the record is reported `field-too-large` and dropped
/// to its next line break: a stray quote costs one record, not the rest
/// of the file.
pub const CSV_MAX_FIELD_BYTES: usize = 1 << 20;

/// The largest record kept, in file bytes plus [`FIELD_END_COST`] per
/// field. Past it the record is reported `record-too-large` and dropped
/// to its next line break.
pub const CSV_MAX_RECORD_BYTES: usize = 16 << 20;

/// How much of the record buffers the parser keeps between records
/// beyond what the last record used: enough that ordinary records never
/// reallocate, small beside [`CSV_MAX_RECORD_BYTES`].
const RETAINED_BYTES: usize = 1 << 20;

/// What one field end costs against [`CSV_MAX_RECORD_BYTES`] beyond its
/// delimiter: the parser stores each end as a `u32`, so a record of
/// millions of empty fields is bounded like a record of long ones.
///
/// Caps are measured in file bytes, not unescaped content, so that a
/// check gives the same answer wherever it is made: at the end of a run
/// of content, at a push edge, or for a whole block at once.
pub const FIELD_END_COST: usize = 4;

/// A record whose quoted fields hold more line breaks than this is
/// reported `long-quoted-field`: real multi-line fields (addresses, short
/// notes) rarely run longer, and a quote that was never meant as one (a
/// stray `"` in a tab-separated file read with quoting) swallows lines
/// until the next stray quote.
pub const CSV_LONG_FIELD_LINES: u64 = 8;

/// A record spanning lines and longer than this many times the running
/// mean length of the records before it (and than [`CSV_LONG_RECORD_MIN_BYTES`])
/// is reported `long-quoted-field` too, however few lines it spans.
pub const CSV_LONG_RECORD_FACTOR: u64 = 16;

/// The least length, in bytes, of a record reported for being much
/// longer than its neighbours: short records vary too much to judge.
pub const CSV_LONG_RECORD_MIN_BYTES: u64 = 4096;

/// The parser's states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// At the start of a field (and, with no record open, of a line).
    FieldStart,
    /// Inside a field that did not open with a quote.
    Unquoted,
    /// Inside a quoted field.
    Quoted,
    /// Just after a `"` inside a quoted field.
    QuoteInQuoted,
    /// A cap was hit; input is dropped up to the next line break.
    Overflow,
    /// A line that is not data (one of the first lines to skip, or a
    /// comment line) is dropped up to its line break.
    SkipLine,
}

/// What the parser does with the fields of the open record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Counts them (validation).
    Count,
    /// Keeps them all for the record event.
    Keep,
    /// Hands each to the sink as it ends.
    Cells,
}

impl Mode {
    fn of<S: Events>(sink: &S) -> Mode {
        if sink.keep_fields() {
            Mode::Keep
        } else if sink.wants_cells() {
            Mode::Cells
        } else {
            Mode::Count
        }
    }
}

/// The sans-IO CSV push parser.
///
/// Push any slices with [`CsvParser::push`], then call
/// [`CsvParser::finish`]; where the slices were cut changes nothing.
/// Recovery is lenient and reported: a bare quote is text, text after a
/// closing quote joins the field, an unterminated quote ends at the end
/// of input; each is an [`Issue`] with its record and line.
///
/// Memory is bounded whatever the input: a field is capped at
/// [`CSV_MAX_FIELD_BYTES`] and a record at [`CSV_MAX_RECORD_BYTES`];
/// past a cap the parser enters its overflow state, drops input up to
/// the record's next line break, reports `field-too-large` or
/// `record-too-large`, and goes on with the next record.
///
/// ```
/// use std::ops::ControlFlow;
/// use plumb_csv::{CsvParser, CsvSink, Record};
///
/// struct Rows(Vec<Vec<String>>);
/// impl CsvSink for Rows {
///     fn record(&mut self, r: &Record<'_>) -> ControlFlow<()> {
///         self.0.push(r.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect());
///         ControlFlow::Continue(())
///     }
/// }
///
/// let mut rows = Rows(Vec::new());
/// let mut parser = CsvParser::new(b',');
/// let _ = parser.push(b"a,\"b \"\"c\"\"\"\r\n1,", &mut rows);
/// let _ = parser.push(b"2\r\n", &mut rows);
/// parser.finish(&mut rows);
/// assert_eq!(rows.0, vec![vec!["a", "b \"c\""], vec!["1", "2"]]);
/// ```
pub struct CsvParser {
    delimiter: u8,
    /// The quote byte; the delimiter itself when the dialect has no
    /// quote, so that no byte is ever classed as a quote (the delimiter's
    /// class wins in the table and the masks) and no path needs a branch.
    quote: u8,
    class: [u8; 256],
    state: State,
    mode: Mode,
    /// The block path's hold on the current field, for [`Mode::Cells`]:
    /// its bytes not yet in `data` start at `cell_from` in the input being
    /// pushed; `cell_quoted` says the field opened with a quote and
    /// `cell_opening` that the opening quote is among those bytes.
    cell_from: usize,
    cell_quoted: bool,
    cell_opening: bool,
    /// Whether a quote was seen inside the quoted field held by the
    /// block path in blocks before this one (so it may need unescaping;
    /// a closing quote seen there counts too, which only costs a copy).
    cell_escaped: bool,
    data: Vec<u8>,
    ends: Vec<u32>,
    fields: usize,
    field_offset: u64,
    in_record: bool,
    overflow: Option<IssueKind>,
    quoting_issues: u32,
    line: u64,
    record_no: u64,
    record_line: u64,
    record_offset: u64,
    quote_line: u64,
    quote_offset: u64,
    offset: u64,
    after_cr: bool,
    endings: LineEndings,
    blank_lines: u64,
    /// Whether a run of delimiters is one, and delimiters that open or
    /// close a line are not field ends (columns aligned with spaces).
    runs: bool,
    /// Lines 1..=skip_lines are skipped unparsed.
    skip_lines: u64,
    /// A line starting with this byte (outside any record) is skipped.
    comment: Option<u8>,
    /// Lines up to this one are never comments.
    comments_after: u64,
    skipped_lines: u64,
    comment_lines: u64,
    /// The offset of the first byte pushed: the records before the open
    /// one span `record_offset - origin` bytes, whose mean a long record
    /// is judged against (blank lines count in, which only lowers the bar
    /// slightly), with no bookkeeping per record.
    origin: u64,
    stopped: bool,
    finished: bool,
    /// No run (see `run.rs`) is tried before this record.
    run_after: u64,
    /// Every byte goes through the byte machine, the reference: no block
    /// path, no run path.
    byte_machine: bool,
}

impl std::fmt::Debug for CsvParser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvParser")
            .field("delimiter", &char::from(self.delimiter))
            .field("state", &self.state)
            .field("line", &self.line)
            .field("record", &self.record_no)
            .field("offset", &self.offset)
            .finish_non_exhaustive()
    }
}

impl CsvParser {
    /// Pushes more input.
    ///
    /// # Termination
    /// Returns `Break` once a sink stopped the parse; the rest of the
    /// input and every later push are then ignored. Call
    /// [`CsvParser::finish`] at the end of input.
    pub fn push<S: CsvSink + ?Sized>(&mut self, input: &[u8], sink: &mut S) -> ControlFlow<()> {
        self.push_events(input, &mut Plain(sink))
    }

    /// Pushes more input into a sink that [judges a column](ColumnJudge):
    /// the same events as [`CsvParser::push`], with the records the
    /// sink's hints allow taken in bulk. End with
    /// [`CsvParser::finish_judged`].
    pub fn push_judged<S: ColumnJudge + ?Sized>(
        &mut self,
        input: &[u8],
        sink: &mut S,
    ) -> ControlFlow<()> {
        self.push_events(input, &mut Judged(sink))
    }

    fn push_events<S: Events>(&mut self, input: &[u8], sink: &mut S) -> ControlFlow<()> {
        if self.stopped || self.finished {
            return ControlFlow::Break(());
        }
        let base = self.offset;
        let mut i = 0;
        let flow = self.run(input, &mut i, base, sink);
        self.offset = base + i as u64;
        if flow.is_break() {
            self.stopped = true;
        }
        flow
    }

    /// Alternates the two paths: whole blocks while the block path can
    /// take them, the byte machine for what it cannot (one block's worth
    /// at a time, so the block path resumes as soon as it may). While the
    /// sink keeps fields the byte machine takes a line at a time, so the
    /// block path resumes once it stops.
    #[inline]
    fn run<S: Events>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        sink: &mut S,
    ) -> ControlFlow<()> {
        let n = input.len();
        if self.byte_machine {
            return self.run_bytes(input, i, base, sink);
        }
        while *i < n {
            if n - *i >= BLOCK {
                self.run_blocks(input, i, base, sink)?;
            }
            let end = if sink.keep_fields() {
                // To the next line feed: a record that ends there may be
                // the sink's last kept one (a header decided), and the
                // block path then takes the rest.
                memchr::memchr(b'\n', &input[*i..]).map_or(n, |k| *i + k + 1)
            } else {
                (*i + BLOCK).min(n)
            };
            self.run_bytes(&input[..end], i, base, sink)?;
        }
        ControlFlow::Continue(())
    }
}

impl CsvParser {
    /// Ends the input: closes an open record, reporting an unterminated
    /// quote.
    ///
    /// # Termination
    /// Call once; later pushes and finishes do nothing.
    pub fn finish<S: CsvSink + ?Sized>(&mut self, sink: &mut S) -> ControlFlow<()> {
        self.finish_events(&mut Plain(sink))
    }

    /// [`CsvParser::finish`] for a sink pushed with
    /// [`CsvParser::push_judged`].
    pub fn finish_judged<S: ColumnJudge + ?Sized>(&mut self, sink: &mut S) -> ControlFlow<()> {
        self.finish_events(&mut Judged(sink))
    }

    fn finish_events<S: Events>(&mut self, sink: &mut S) -> ControlFlow<()> {
        if self.stopped || self.finished {
            return ControlFlow::Break(());
        }
        self.finished = true;
        self.after_cr = false;
        let flow = self.finish_record(sink);
        if flow.is_break() {
            self.stopped = true;
        }
        flow
    }

    fn finish_record<S: Events>(&mut self, sink: &mut S) -> ControlFlow<()> {
        if !self.in_record {
            return ControlFlow::Continue(());
        }
        let at = self.offset;
        match self.state {
            State::Quoted => {
                let issue = Issue {
                    kind: IssueKind::UnterminatedQuote,
                    record: self.record_no,
                    line: self.quote_line,
                    byte_offset: self.quote_offset,
                    fields: None,
                    extent: None,
                };
                self.quoting_issues += 1;
                sink.issue(&issue)?;
                self.end_field(at, sink)?;
            }
            State::Overflow | State::SkipLine => {}
            // Trailing delimiters under runs end no field.
            State::FieldStart if self.runs => {}
            _ => self.end_field(at, sink)?,
        }
        self.emit(at, false, sink)
    }

    /// Opens a record at file offset `at` in the byte machine: a record
    /// the sink would keep is announced to it first
    /// ([`CsvSink::record_begins`]), and its mode asked again after.
    #[inline]
    fn begin_record<S: Events>(&mut self, at: u64, sink: &mut S) -> ControlFlow<()> {
        self.open_record(at, Mode::of(sink));
        if self.mode == Mode::Keep {
            return self.announce(sink);
        }
        ControlFlow::Continue(())
    }

    /// Tells the sink a kept record began, and asks its mode again.
    #[inline(never)]
    fn announce<S: Events>(&mut self, sink: &mut S) -> ControlFlow<()> {
        let flow = sink.record_begins(self.record_no);
        self.mode = Mode::of(sink);
        flow
    }

    #[inline]
    fn open_record(&mut self, at: u64, mode: Mode) {
        self.in_record = true;
        self.record_no += 1;
        self.record_line = self.line;
        self.record_offset = at;
        self.field_offset = at;
        self.mode = mode;
    }

    /// What the open record costs against [`CSV_MAX_RECORD_BYTES`] at
    /// file offset `at`: its file bytes so far plus [`FIELD_END_COST`]
    /// per field ended.
    #[inline]
    fn record_cost(&self, at: u64) -> u64 {
        at.saturating_sub(self.record_offset) + (FIELD_END_COST as u64) * self.fields as u64
    }

    #[inline]
    fn append<S: Events>(&mut self, bytes: &[u8], at: u64, sink: &mut S) -> ControlFlow<()> {
        if bytes.is_empty() || self.state == State::Overflow {
            return ControlFlow::Continue(());
        }
        if at.saturating_sub(self.field_offset) > CSV_MAX_FIELD_BYTES as u64 {
            return self.overflow(IssueKind::FieldTooLarge, at, sink);
        }
        if self.record_cost(at) > CSV_MAX_RECORD_BYTES as u64 {
            return self.overflow(IssueKind::RecordTooLarge, at, sink);
        }
        if self.mode != Mode::Count {
            self.data.extend_from_slice(bytes);
        }
        ControlFlow::Continue(())
    }

    #[cold]
    fn overflow<S: Events>(&mut self, kind: IssueKind, at: u64, sink: &mut S) -> ControlFlow<()> {
        self.state = State::Overflow;
        self.overflow = Some(kind);
        let issue = Issue {
            kind,
            record: self.record_no,
            line: self.record_line,
            byte_offset: at,
            fields: None,
            extent: None,
        };
        sink.issue(&issue)
    }

    #[cold]
    fn quoting_issue<S: Events>(
        &mut self,
        kind: IssueKind,
        at: u64,
        sink: &mut S,
    ) -> ControlFlow<()> {
        self.quoting_issues += 1;
        let issue = Issue {
            kind,
            record: self.record_no,
            line: self.line,
            byte_offset: at,
            fields: None,
            extent: None,
        };
        sink.issue(&issue)
    }

    #[inline]
    fn end_field<S: Events>(&mut self, at: u64, sink: &mut S) -> ControlFlow<()> {
        if self.state == State::Overflow {
            return ControlFlow::Continue(());
        }
        self.fields += 1;
        if self.record_cost(at) > CSV_MAX_RECORD_BYTES as u64 {
            return self.overflow(IssueKind::RecordTooLarge, at, sink);
        }
        self.field_offset = at;
        self.state = State::FieldStart;
        match self.mode {
            // The record cap keeps every end below 2^32.
            Mode::Keep => self.ends.push(self.data.len() as u32),
            Mode::Cells => {
                let flow = sink.cell(self.record_no, self.fields - 1, &self.data);
                self.data.clear();
                flow?;
            }
            Mode::Count => {}
        }
        ControlFlow::Continue(())
    }

    fn terminator(&mut self, class: u8) {
        self.line += 1;
        if class == CR {
            self.endings.cr += 1;
            self.after_cr = true;
        } else {
            self.endings.lf += 1;
        }
    }

    /// Ends the record at a one-byte terminator of class `class` that
    /// ends at file offset `after`.
    fn end_record<S: Events>(&mut self, class: u8, after: u64, sink: &mut S) -> ControlFlow<()> {
        self.terminator(class);
        self.emit(after - 1, true, sink)
    }

    /// Judges a record that spans lines, ending at `end` (its terminator
    /// excluded) on `last_line`. A record's line breaks all sit inside
    /// quoted fields, so the lines it spans beyond its first are the
    /// breaks its quotes hold.
    #[cold]
    #[inline(never)]
    fn long_record<S: Events>(
        &mut self,
        last_line: u64,
        end: u64,
        sink: &mut S,
    ) -> ControlFlow<()> {
        let len = end.saturating_sub(self.record_offset);
        let breaks = last_line - self.record_line;
        let before = self.record_no.saturating_sub(1);
        let mean = self.record_offset.saturating_sub(self.origin) / before.max(1);
        let much_longer = before >= 8
            && len >= CSV_LONG_RECORD_MIN_BYTES
            && len > mean.saturating_mul(CSV_LONG_RECORD_FACTOR);
        if breaks <= CSV_LONG_FIELD_LINES && !much_longer {
            return ControlFlow::Continue(());
        }
        let issue = Issue {
            kind: IssueKind::LongQuotedField,
            record: self.record_no,
            line: self.record_line,
            byte_offset: self.record_offset,
            fields: None,
            extent: Some((last_line, len)),
        };
        sink.issue(&issue)
    }

    /// Gives back what the record buffers hold past [`RETAINED_BYTES`]
    /// after a long record. A header of long names grows the bytes, rows
    /// of short cells the field ends: kept, the pages one record touched
    /// would add to those the next grows. Shrunk in place, not freed, a
    /// large buffer stays mapped on its own and its pages go back to the
    /// system rather than into the allocator's heap.
    #[cold]
    fn trim_buffers(&mut self) {
        self.data.shrink_to(RETAINED_BYTES);
        self.ends.shrink_to(RETAINED_BYTES / FIELD_END_COST);
    }

    /// Lets the sink take a kept record's buffers.
    #[inline(never)]
    fn offer_buffers<S: Events>(&mut self, sink: &mut S) {
        sink.adopt(&mut self.data, &mut self.ends);
    }

    /// Hands the record ending at file offset `end` (its terminator
    /// excluded; `terminated` says one was seen) to the sink.
    #[inline]
    fn emit<S: Events>(&mut self, end: u64, terminated: bool, sink: &mut S) -> ControlFlow<()> {
        let last_line = self.line - u64::from(terminated);
        let judged = if last_line > self.record_line && self.overflow.is_none() {
            self.long_record(last_line, end, sink)
        } else {
            ControlFlow::Continue(())
        };
        let record = Record {
            number: self.record_no,
            line: self.record_line,
            byte_offset: self.record_offset,
            overflow: self.overflow,
            quoting_issues: self.quoting_issues,
            data: &self.data,
            ends: &self.ends,
            field_count: if self.mode == Mode::Keep {
                self.ends.len()
            } else {
                self.fields
            },
        };
        let flow = if judged.is_break() {
            judged
        } else {
            sink.record(&record)
        };
        if self.mode == Mode::Keep {
            self.offer_buffers(sink);
        }
        if self.data.capacity() > RETAINED_BYTES
            || self.ends.capacity() * FIELD_END_COST > RETAINED_BYTES
        {
            self.trim_buffers();
        }
        self.data.clear();
        self.ends.clear();
        self.fields = 0;
        self.in_record = false;
        self.overflow = None;
        self.quoting_issues = 0;
        self.state = State::FieldStart;
        flow
    }
}
