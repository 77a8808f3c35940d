//! The CSV push parser: an RFC 4180 state machine over bytes.
//!
//! # BE ADVISED
//!
//! The machine has five states. `FieldStart` is where every field begins
//! (and where blank lines are recognised); `Unquoted` and `Quoted` hold
//! field content; `QuoteInQuoted` has just seen a `"` inside a quoted
//! field and waits to learn whether it was a doubled quote or the close;
//! `Overflow` drops input after a cap was hit, up to the record's next
//! line break. A CR ends a record at once; a flag (`after_cr`) then
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
//! When adding a state: give it a variant below with its meaning, a
//! `match` arm in `run_bytes` (the byte machine; `blocks` takes only
//! `FieldStart`, `Unquoted` and `Quoted` and hands anything else back),
//! and an arm in `finish_record` that says what the end of input means
//! in it. When adding a byte class: extend `class_table` (and the masks
//! in `block.rs`, if the block path must see it).

use std::ops::ControlFlow;

use memchr::memchr2;
use serde::Serialize;

use crate::block::{below, prefix_xor, Masks, BLOCK};

/// The largest field kept, in file bytes (a quoted field's quotes
/// count). Past it the record is reported `field-too-large` and dropped
/// to its next line break: a stray quote costs one record, not the rest
/// of the file.
pub const CSV_MAX_FIELD_BYTES: usize = 1 << 20;

/// The largest record kept, in file bytes plus [`FIELD_END_COST`] per
/// field. Past it the record is reported `record-too-large` and dropped
/// to its next line break.
pub const CSV_MAX_RECORD_BYTES: usize = 16 << 20;

/// What one field end costs against [`CSV_MAX_RECORD_BYTES`] beyond its
/// delimiter: the parser stores each end as a `u32`, so a record of
/// millions of empty fields is bounded like a record of long ones.
///
/// Caps are measured in file bytes, not unescaped content, so that a
/// check gives the same answer wherever it is made: at the end of a run
/// of content, at a push edge, or for a whole block at once.
pub const FIELD_END_COST: usize = 4;

const PLAIN: u8 = 0;
const DELIM: u8 = 1;
const QUOTE: u8 = 2;
const LF: u8 = 3;
const CR: u8 = 4;

/// Where the run of plain bytes starting at `j` ends: at the first
/// delimiter, quote, CR or LF, or at the end of the input.
///
/// Eight bytes at a time: each byte is compared with the four special
/// bytes by the zero-byte trick on a `u64` (`(v - 0x01..) & !v & 0x80..`
/// flags every zero byte, and the lowest flag is always a true one, so
/// `trailing_zeros` finds the first special byte). The class table
/// finishes the last few bytes and stays the reference.
#[inline(always)]
fn plain_run_end(input: &[u8], mut j: usize, delimiter: u8, class: &[u8; 256]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(LO) & !v & HI;
    let d = LO * u64::from(delimiter);
    let q = LO * u64::from(b'"');
    let lf = LO * u64::from(b'\n');
    let cr = LO * u64::from(b'\r');
    let n = input.len();
    while j + 8 <= n {
        let mut w = [0u8; 8];
        w.copy_from_slice(&input[j..j + 8]);
        let x = u64::from_le_bytes(w);
        let m = zero(x ^ d) | zero(x ^ q) | zero(x ^ lf) | zero(x ^ cr);
        if m != 0 {
            return j + (m.trailing_zeros() / 8) as usize;
        }
        j += 8;
    }
    while j < n && class[usize::from(input[j])] == PLAIN {
        j += 1;
    }
    j
}

fn class_table(delimiter: u8) -> [u8; 256] {
    let mut t = [PLAIN; 256];
    t[usize::from(b'"')] = QUOTE;
    t[usize::from(b'\n')] = LF;
    t[usize::from(b'\r')] = CR;
    // Set last: a delimiter that is also special (never sensible) acts
    // as a delimiter.
    t[usize::from(delimiter)] = DELIM;
    t
}

/// Appends quoted content with each doubled quote made one.
fn unescape_into(out: &mut Vec<u8>, mut raw: &[u8]) {
    while let Some(k) = memchr::memchr(b'"', raw) {
        out.extend_from_slice(&raw[..=k]);
        raw = raw.get(k + 2..).unwrap_or_default();
    }
    out.extend_from_slice(raw);
}

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
    fn of<S: CsvSink>(sink: &S) -> Mode {
        if sink.keep_fields() {
            Mode::Keep
        } else if sink.wants_cells() {
            Mode::Cells
        } else {
            Mode::Count
        }
    }
}

/// A kind of problem found while parsing or checking a CSV file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IssueKind {
    /// A `"` inside a field that did not open with one; kept as text.
    BareQuote,
    /// Text after the closing quote of a quoted field; joined to the field.
    TextAfterQuote,
    /// A quoted field still open at the end of input; it ends there.
    UnterminatedQuote,
    /// A field longer than [`CSV_MAX_FIELD_BYTES`]; the record was dropped.
    FieldTooLarge,
    /// A record longer than [`CSV_MAX_RECORD_BYTES`]; it was dropped.
    RecordTooLarge,
    /// A record whose field count differs from the header's (or the first record's).
    RaggedRow,
}

impl IssueKind {
    /// The kebab-case name used in JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            IssueKind::BareQuote => "bare-quote",
            IssueKind::TextAfterQuote => "text-after-quote",
            IssueKind::UnterminatedQuote => "unterminated-quote",
            IssueKind::FieldTooLarge => "field-too-large",
            IssueKind::RecordTooLarge => "record-too-large",
            IssueKind::RaggedRow => "ragged-row",
        }
    }
}

/// One problem, where it happened. Cheap to copy: the message is built
/// only for the issues a report keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Issue {
    /// What went wrong.
    pub kind: IssueKind,
    /// The 1-based record (the header counts).
    pub record: u64,
    /// The 1-based physical line.
    pub line: u64,
    /// The absolute byte offset where it was found.
    pub byte_offset: u64,
    /// For `ragged-row`: the fields found and the fields expected.
    pub fields: Option<(u64, u64)>,
}

impl Issue {
    /// What went wrong and what to do about it, in words.
    pub fn message(&self) -> String {
        match self.kind {
            IssueKind::BareQuote => format!(
                "a quote inside an unquoted field on line {} was kept as text; quote the whole field and double the inner quote (\"\")",
                self.line
            ),
            IssueKind::TextAfterQuote => format!(
                "text follows a closing quote on line {}; it was joined to the field. Quote the whole field and double inner quotes",
                self.line
            ),
            IssueKind::UnterminatedQuote => format!(
                "the quote opened on line {} is never closed; the field runs to the end of the file. Close the quote",
                self.line
            ),
            IssueKind::FieldTooLarge => format!(
                "record {} has a field over {} bytes (often a stray quote); it was skipped to its next line break",
                self.record, CSV_MAX_FIELD_BYTES
            ),
            IssueKind::RecordTooLarge => format!(
                "record {} is over {} bytes; it was skipped to its next line break",
                self.record, CSV_MAX_RECORD_BYTES
            ),
            IssueKind::RaggedRow => {
                let (found, expected) = self.fields.unwrap_or((0, 0));
                format!(
                    "record {} has {found} fields where {expected} were expected",
                    self.record
                )
            }
        }
    }
}

/// An issue as reports show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IssueReport {
    /// What went wrong (kebab-case).
    pub kind: IssueKind,
    /// The 1-based record (the header counts).
    pub record: u64,
    /// The 1-based physical line.
    pub line: u64,
    /// What went wrong and what to do about it.
    pub message: String,
}

impl From<&Issue> for IssueReport {
    fn from(issue: &Issue) -> IssueReport {
        IssueReport {
            kind: issue.kind,
            record: issue.record,
            line: issue.line,
            message: issue.message(),
        }
    }
}

/// Counts of record terminators by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineEndings {
    /// `\n` alone.
    pub lf: u64,
    /// `\r\n`.
    pub crlf: u64,
    /// `\r` alone.
    pub cr: u64,
}

impl LineEndings {
    /// `none`, `lf`, `crlf`, `cr`, or `mixed`.
    pub fn label(&self) -> &'static str {
        match (self.lf > 0, self.crlf > 0, self.cr > 0) {
            (false, false, false) => "none",
            (true, false, false) => "lf",
            (false, true, false) => "crlf",
            (false, false, true) => "cr",
            _ => "mixed",
        }
    }
}

/// One parsed record, borrowed from the parser.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    /// The 1-based record number (the header counts).
    pub number: u64,
    /// The 1-based line it starts on.
    pub line: u64,
    /// The absolute byte offset of its first byte.
    pub byte_offset: u64,
    /// Set when a cap was hit: the record's content is incomplete.
    pub overflow: Option<IssueKind>,
    /// How many quoting issues (`bare-quote`, `text-after-quote`,
    /// `unterminated-quote`) it has.
    pub quoting_issues: u32,
    data: &'a [u8],
    ends: &'a [u32],
    field_count: usize,
}

impl<'a> Record<'a> {
    /// A record over stored fields, for sinks that keep one and replay it.
    pub fn from_parts(
        number: u64,
        line: u64,
        byte_offset: u64,
        data: &'a [u8],
        ends: &'a [u32],
    ) -> Record<'a> {
        Record {
            number,
            line,
            byte_offset,
            overflow: None,
            quoting_issues: 0,
            data,
            ends,
            field_count: ends.len(),
        }
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.field_count
    }

    /// Whether the record has no fields (never, for a parsed record).
    pub fn is_empty(&self) -> bool {
        self.field_count == 0
    }

    /// Whether field contents were kept (the sink asked for them).
    pub fn has_fields(&self) -> bool {
        self.ends.len() == self.field_count
    }

    /// The content of field `i`, unescaped; `None` past the end or when
    /// contents were not kept.
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 {
            0
        } else {
            *self.ends.get(i - 1)? as usize
        };
        self.data.get(start..end)
    }

    /// Field `i` as text. Fields of a validated stream are UTF-8; a field
    /// cut by a cap in the middle of a character is shown lossily.
    pub fn get_str(&self, i: usize) -> Option<std::borrow::Cow<'a, str>> {
        self.get(i).map(String::from_utf8_lossy)
    }

    /// The fields, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        (0..self.ends.len()).filter_map(move |i| self.get(i))
    }

    /// The stored bytes and field ends, to keep a copy.
    pub fn parts(&self) -> (&'a [u8], &'a [u32]) {
        (self.data, self.ends)
    }
}

/// What the parser tells its consumer. Every event may stop the parse by
/// returning `ControlFlow::Break`; the parser then reads nothing further.
pub trait CsvSink {
    /// Whether to keep field contents for the record about to start.
    /// Validation alone needs none, and keeping none is faster.
    fn keep_fields(&self) -> bool {
        true
    }

    /// Whether, for a record whose fields are not kept, each field's
    /// content should be handed to [`CsvSink::cell`] as it ends. A sink
    /// that folds cells one by one (inspect) asks for this: fields then
    /// come straight from the input when they need no unescaping, with
    /// no copy.
    fn wants_cells(&self) -> bool {
        false
    }

    /// Field `index` (0-based) of record `record` (1-based), unescaped,
    /// for a sink that [wants cells](CsvSink::wants_cells). Cells come in
    /// order, before their record's [`CsvSink::record`] event, which then
    /// carries the field count but no contents.
    fn cell(&mut self, record: u64, index: usize, content: &[u8]) -> ControlFlow<()> {
        let _ = (record, index, content);
        ControlFlow::Continue(())
    }

    /// Record `record` (1-based), whose fields this sink would keep, has
    /// begun: its first byte was read, so it will be reported (at the
    /// latest by [`CsvParser::finish`]). Called before any of its cells
    /// or issues, and before [`CsvSink::keep_fields`] is asked for it
    /// again: a sink may change its mind here. A sink that holds one
    /// record while it waits to learn whether another follows learns it
    /// here, before the new record's content takes memory. (Records the
    /// sink would not keep begin unannounced: the block path opens them
    /// with no call.)
    fn record_begins(&mut self, record: u64) -> ControlFlow<()> {
        let _ = record;
        ControlFlow::Continue(())
    }

    /// A complete record.
    fn record(&mut self, record: &Record<'_>) -> ControlFlow<()>;

    /// Right after [`CsvSink::record`] for a record whose fields were
    /// kept: the buffers they live in (see [`Record::parts`]). A sink that must keep the
    /// record may take them (`std::mem::take`) instead of copying them,
    /// so the record is never held twice; the parser then starts on new
    /// buffers. Leaving them costs nothing.
    fn adopt(&mut self, data: &mut Vec<u8>, ends: &mut Vec<u32>) {
        let _ = (data, ends);
    }

    /// A problem, reported when it is found (before its record).
    fn issue(&mut self, issue: &Issue) -> ControlFlow<()> {
        let _ = issue;
        ControlFlow::Continue(())
    }

    /// An empty line between records (not a record).
    fn blank_line(&mut self, line: u64) -> ControlFlow<()> {
        let _ = line;
        ControlFlow::Continue(())
    }
}

impl<S: CsvSink + ?Sized> CsvSink for &mut S {
    fn keep_fields(&self) -> bool {
        (**self).keep_fields()
    }
    fn wants_cells(&self) -> bool {
        (**self).wants_cells()
    }
    fn cell(&mut self, record: u64, index: usize, content: &[u8]) -> ControlFlow<()> {
        (**self).cell(record, index, content)
    }
    fn record_begins(&mut self, record: u64) -> ControlFlow<()> {
        (**self).record_begins(record)
    }
    fn record(&mut self, record: &Record<'_>) -> ControlFlow<()> {
        (**self).record(record)
    }
    fn adopt(&mut self, data: &mut Vec<u8>, ends: &mut Vec<u32>) {
        (**self).adopt(data, ends)
    }
    fn issue(&mut self, issue: &Issue) -> ControlFlow<()> {
        (**self).issue(issue)
    }
    fn blank_line(&mut self, line: u64) -> ControlFlow<()> {
        (**self).blank_line(line)
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
    stopped: bool,
    finished: bool,
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
    /// A parser for `delimiter` (`b','`, `b'\t'`, `b';'`, ...).
    pub fn new(delimiter: u8) -> CsvParser {
        CsvParser {
            delimiter,
            class: class_table(delimiter),
            state: State::FieldStart,
            mode: Mode::Keep,
            cell_from: 0,
            cell_quoted: false,
            cell_opening: false,
            cell_escaped: false,
            data: Vec::new(),
            ends: Vec::new(),
            fields: 0,
            field_offset: 0,
            in_record: false,
            overflow: None,
            quoting_issues: 0,
            line: 1,
            record_no: 0,
            record_line: 1,
            record_offset: 0,
            quote_line: 1,
            quote_offset: 0,
            offset: 0,
            after_cr: false,
            endings: LineEndings::default(),
            blank_lines: 0,
            stopped: false,
            finished: false,
        }
    }

    /// Sets the absolute offset of the first byte to be pushed (3 after
    /// a BOM), so every reported offset is a file offset.
    pub fn with_base_offset(mut self, offset: u64) -> CsvParser {
        self.offset = offset;
        self
    }

    /// The delimiter.
    pub fn delimiter(&self) -> u8 {
        self.delimiter
    }

    /// Record terminators seen so far, by kind.
    ///
    /// A CR is counted as `cr` when seen and moved to `crlf` when an LF
    /// follows, so a count taken between pushes may still move.
    pub fn line_endings(&self) -> LineEndings {
        self.endings
    }

    /// Blank lines seen so far.
    pub fn blank_lines(&self) -> u64 {
        self.blank_lines
    }

    /// Records completed so far (the header counts).
    pub fn records(&self) -> u64 {
        self.record_no - u64::from(self.in_record)
    }

    /// Physical lines started so far.
    pub fn lines(&self) -> u64 {
        self.line
    }

    /// Whether a sink stopped the parse.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Pushes more input.
    ///
    /// # Termination
    /// Returns `Break` once a sink stopped the parse; the rest of the
    /// input and every later push are then ignored. Call
    /// [`CsvParser::finish`] at the end of input.
    pub fn push<S: CsvSink>(&mut self, input: &[u8], sink: &mut S) -> ControlFlow<()> {
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
    /// at a time, so the block path resumes as soon as it may). When the
    /// sink keeps fields the block path never runs and the byte machine
    /// takes the whole input.
    #[inline]
    fn run<S: CsvSink>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        sink: &mut S,
    ) -> ControlFlow<()> {
        let n = input.len();
        while *i < n {
            if n - *i >= BLOCK {
                self.run_blocks(input, i, base, sink)?;
            }
            let end = if sink.keep_fields() {
                n
            } else {
                (*i + BLOCK).min(n)
            };
            self.run_bytes(&input[..end], i, base, sink)?;
        }
        ControlFlow::Continue(())
    }

    /// The block path: 64 bytes at a time through bit masks, for records
    /// whose fields are not kept (validation counts them, inspect takes
    /// them one by one).
    ///
    /// A block is taken only when the byte machine would find nothing to
    /// report in it: every opening quote starts a field (or doubles a
    /// quote), every closing quote is followed by a delimiter, a line
    /// break or a quote, every CR outside quotes is followed by an LF,
    /// and no cap can be reached. Counting, the fields of a record are
    /// counted with `count_ones` on the delimiter mask and only line
    /// breaks cost a step; handing out cells, each field is a slice of
    /// the input (unescaped into `data` only when it holds doubled quotes
    /// or began in an earlier push). Anything else returns at the block's
    /// start and the byte machine, the reference, takes it; both leave
    /// the parser in the same state, so the paths may alternate anywhere.
    fn run_blocks<S: CsvSink>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        sink: &mut S,
    ) -> ControlFlow<()> {
        // A field the byte machine began is continued from the block's start.
        self.cell_from = *i;
        self.cell_quoted = self.state == State::Quoted;
        self.cell_opening = false;
        self.cell_escaped = false;
        let entry = *i;
        self.blocks(input, i, base, sink)?;
        // Leaving mid-field: what the block path held goes into `data`,
        // as the byte machine would have stored it.
        if *i > entry
            && self.in_record
            && self.mode == Mode::Cells
            && matches!(
                self.state,
                State::Unquoted | State::Quoted | State::QuoteInQuoted
            )
        {
            let mut end = *i;
            if self.state == State::QuoteInQuoted {
                // That quote is still undecided: the byte machine decides it.
                end -= 1;
            }
            let from = self.cell_from + usize::from(self.cell_opening);
            let raw = input.get(from..end).unwrap_or_default();
            if self.cell_quoted {
                unescape_into(&mut self.data, raw);
            } else {
                self.data.extend_from_slice(raw);
            }
        }
        ControlFlow::Continue(())
    }

    fn blocks<S: CsvSink>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        sink: &mut S,
    ) -> ControlFlow<()> {
        while input.len() - *i >= BLOCK {
            let state = self.state;
            let blockable = !self.after_cr
                && matches!(state, State::FieldStart | State::Unquoted | State::Quoted)
                && if self.in_record {
                    self.mode != Mode::Keep
                } else {
                    !sink.keep_fields()
                };
            if !blockable {
                return ControlFlow::Continue(());
            }
            let mut block = [0u8; BLOCK];
            block.copy_from_slice(&input[*i..*i + BLOCK]);
            let m = Masks::of(&block, self.delimiter);
            let at = base + *i as u64;

            let inside = prefix_xor(m.quote) ^ if state == State::Quoted { !0 } else { 0 };
            let opens = m.quote & inside;
            let closes = m.quote & !inside;
            let delims = m.delimiter & !inside;
            let lfs = m.lf & !inside;
            let crs = m.cr & !inside;
            let seps = delims | lfs | crs;
            let field_starts = (seps << 1) | u64::from(state == State::FieldStart);
            let bad_open = opens & !(field_starts | (closes << 1));
            // What follows the last byte is not known yet: a closing quote
            // there leaves the machine in QuoteInQuoted to decide.
            let bad_close = closes & !(((m.delimiter | m.lf | m.cr | m.quote) >> 1) | 1 << 63);
            let lone_cr = crs & !(lfs >> 1);
            if bad_open | bad_close | lone_cr != 0 {
                return ControlFlow::Continue(());
            }
            if self.in_record {
                let end = at + BLOCK as u64;
                let fields = self.fields as u64 + u64::from((delims | lfs).count_ones());
                if end - self.field_offset > CSV_MAX_FIELD_BYTES as u64
                    || end - self.record_offset + FIELD_END_COST as u64 * fields
                        > CSV_MAX_RECORD_BYTES as u64
                {
                    return ControlFlow::Continue(());
                }
            }

            let start = *i;
            let line0 = self.line;
            let line_at = |k: u32| line0 + u64::from((m.lf & below(k)).count_ones());
            let cells = if self.in_record {
                self.mode == Mode::Cells
            } else {
                sink.wants_cells()
            };
            if cells && state == State::FieldStart {
                // A field (or record) starts with the block.
                self.start_cell(start, 0, opens);
            }
            // `pos`: where the bytes of the current line begin in the block.
            let mut pos = 0u32;
            let mut terms = lfs;
            while terms != 0 {
                let p = terms.trailing_zeros();
                terms &= terms - 1;
                let crlf = p > 0 && (crs >> (p - 1)) & 1 == 1;
                let content_end = p - u32::from(crlf);
                if !self.in_record {
                    if content_end == pos {
                        self.line = line_at(p + 1);
                        self.count_ending(crlf);
                        self.blank_lines += 1;
                        pos = p + 1;
                        *i = start + pos as usize;
                        sink.blank_line(self.line - 1)?;
                        continue;
                    }
                    self.line = line_at(pos);
                    if !self.open_in_block(sink, cells, start, pos, at, opens) {
                        *i = start + pos as usize;
                        return ControlFlow::Continue(());
                    }
                }
                let in_line = delims & below(content_end) & !below(pos);
                if cells {
                    self.hand_out(input, start, in_line, content_end, (opens, m.quote), sink)?;
                } else {
                    self.fields += in_line.count_ones() as usize + 1;
                }
                self.line = line_at(p + 1);
                self.count_ending(crlf);
                pos = p + 1;
                *i = start + pos as usize;
                self.emit(sink)?;
                self.cell_from = *i;
            }
            if pos < BLOCK as u32 {
                // The rest of the block belongs to a record still open.
                if !self.in_record {
                    self.line = line_at(pos);
                    if !self.open_in_block(sink, cells, start, pos, at, opens) {
                        *i = start + pos as usize;
                        return ControlFlow::Continue(());
                    }
                }
                let ends = delims & !below(pos);
                if cells {
                    self.hand_out(input, start, ends, BLOCK as u32, (opens, m.quote), sink)?;
                    // The last field goes on into the next block.
                    if self.cell_quoted && m.quote & !below(self.first_in(start)) != 0 {
                        self.cell_escaped = true;
                    }
                } else {
                    self.fields += ends.count_ones() as usize;
                }
                if ends != 0 {
                    self.field_offset = at + u64::from(64 - ends.leading_zeros());
                }
            }
            // The byte machine notes where every quoted field opens; the
            // last opening in the block is the one it would hold now.
            let field_opens = opens & field_starts;
            if field_opens != 0 {
                let k = 63 - field_opens.leading_zeros();
                self.quote_line = line_at(k);
                self.quote_offset = at + u64::from(k);
            }
            self.line = line0 + u64::from(m.lf.count_ones());
            self.state = if inside >> 63 != 0 {
                State::Quoted
            } else if closes >> 63 != 0 {
                State::QuoteInQuoted
            } else if pos == BLOCK as u32 || delims >> 63 != 0 {
                State::FieldStart
            } else {
                State::Unquoted
            };
            *i = start + BLOCK;
        }
        ControlFlow::Continue(())
    }

    /// Opens a record at bit `pos` of the block at `start` (file offset
    /// `at`), or returns false when the sink now wants another mode than
    /// the block's, for the byte machine to take over there.
    #[inline]
    fn open_in_block<S: CsvSink>(
        &mut self,
        sink: &S,
        cells: bool,
        start: usize,
        pos: u32,
        at: u64,
        opens: u64,
    ) -> bool {
        let mode = Mode::of(sink);
        if mode != if cells { Mode::Cells } else { Mode::Count } {
            return false;
        }
        // Not a kept record: the sink is not told it began.
        self.open_record(at + u64::from(pos), mode);
        self.start_cell(start, pos, opens);
        true
    }

    /// The first bit of the block at `start` that belongs to the held
    /// field's content (after its opening quote, if that is in the block).
    #[inline]
    fn first_in(&self, start: usize) -> u32 {
        match self.cell_from.checked_sub(start) {
            Some(k) => k as u32 + u32::from(self.cell_opening),
            None => 0,
        }
    }

    /// Notes that a field starts at bit `k` of the block at `start`.
    #[inline]
    fn start_cell(&mut self, start: usize, k: u32, opens: u64) {
        let opening = (opens >> k) & 1 == 1;
        self.cell_from = start + k as usize;
        self.cell_quoted = opening;
        self.cell_opening = opening;
        self.cell_escaped = false;
    }

    /// Hands out the fields of the open record that end in this block:
    /// one at each bit of `ends` (delimiters), and the last at
    /// `content_end` when that is before the block's end (a line break).
    /// `quotes` is the block's opening quotes and all its quotes.
    #[inline]
    fn hand_out<S: CsvSink>(
        &mut self,
        input: &[u8],
        start: usize,
        mut ends: u64,
        content_end: u32,
        (opens, quotes): (u64, u64),
        sink: &mut S,
    ) -> ControlFlow<()> {
        loop {
            let (end, next) = if ends != 0 {
                let d = ends.trailing_zeros();
                ends &= ends - 1;
                (d, d + 1)
            } else if content_end < BLOCK as u32 {
                (content_end, BLOCK as u32)
            } else {
                return ControlFlow::Continue(());
            };
            let from = self.cell_from;
            let stop = start + end as usize;
            // A quoted field's bytes end with its closing quote.
            let raw = if self.cell_quoted {
                input.get(from + usize::from(self.cell_opening)..stop - 1)
            } else {
                input.get(from..stop)
            }
            .unwrap_or_default();
            // A quoted field needs unescaping when it holds a quote: the
            // quote bits between its opening and closing quotes tell, with
            // what earlier blocks saw of it.
            let plain = !self.cell_quoted
                || !self.cell_escaped
                    && quotes & below(end.saturating_sub(1)) & !below(self.first_in(start)) == 0;
            self.fields += 1;
            let flow = if plain && self.data.is_empty() {
                sink.cell(self.record_no, self.fields - 1, raw)
            } else {
                if plain {
                    self.data.extend_from_slice(raw);
                } else {
                    unescape_into(&mut self.data, raw);
                }
                let flow = sink.cell(self.record_no, self.fields - 1, &self.data);
                self.data.clear();
                flow
            };
            flow?;
            if next == BLOCK as u32 {
                // The next field starts with the next block, or the line ended.
                return ControlFlow::Continue(());
            }
            self.start_cell(start, next, opens);
        }
    }

    fn run_bytes<S: CsvSink>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        sink: &mut S,
    ) -> ControlFlow<()> {
        let n = input.len();
        while *i < n {
            match self.state {
                State::FieldStart => {
                    // A record (or blank line) ended with CR just before:
                    // every terminator leaves the machine in this state.
                    if self.after_cr {
                        self.after_cr = false;
                        if input[*i] == b'\n' {
                            self.endings.cr -= 1;
                            self.endings.crlf += 1;
                            *i += 1;
                            continue;
                        }
                    }
                    let b = input[*i];
                    let class = self.class[usize::from(b)];
                    if !self.in_record {
                        if class == LF || class == CR {
                            self.blank_lines += 1;
                            self.terminator(class);
                            *i += 1;
                            sink.blank_line(self.line - 1)?;
                            continue;
                        }
                        self.begin_record(base + *i as u64, sink)?;
                    }
                    match class {
                        QUOTE => {
                            self.state = State::Quoted;
                            self.quote_line = self.line;
                            self.quote_offset = base + *i as u64;
                            *i += 1;
                        }
                        DELIM => {
                            *i += 1;
                            self.end_field(base + *i as u64, sink)?;
                        }
                        LF | CR => {
                            *i += 1;
                            self.end_field(base + *i as u64, sink)?;
                            self.end_record(class, sink)?;
                        }
                        _ => self.state = State::Unquoted,
                    }
                }
                State::Unquoted => loop {
                    // Unquoted fields and the records they make are crossed
                    // here without a trip through the state dispatch: after
                    // a delimiter or an LF, a plain byte starts the next
                    // field (or record) in this same loop. Anything else
                    // (a quote, a CR, a blank line, a cap) goes back to it.
                    let start = *i;
                    let j = plain_run_end(input, start, self.delimiter, &self.class);
                    *i = j;
                    self.append(&input[start..j], base + j as u64, sink)?;
                    if j == n || self.state == State::Overflow {
                        break;
                    }
                    let c = self.class[usize::from(input[j])];
                    *i += 1;
                    let next_plain = input
                        .get(*i)
                        .is_some_and(|&b| self.class[usize::from(b)] == PLAIN);
                    match c {
                        DELIM => {
                            self.end_field(base + *i as u64, sink)?;
                            if self.state == State::Overflow {
                                // The field end passed the record cap: the
                                // overflow state drops the rest of the line.
                                break;
                            }
                            if next_plain {
                                self.state = State::Unquoted;
                                continue;
                            }
                            self.state = State::FieldStart;
                            break;
                        }
                        QUOTE => {
                            self.quoting_issue(IssueKind::BareQuote, base + j as u64, sink)?;
                            self.append(b"\"", base + *i as u64, sink)?;
                            if self.state == State::Overflow {
                                break;
                            }
                        }
                        LF => {
                            self.end_field(base + *i as u64, sink)?;
                            self.end_record(c, sink)?;
                            if next_plain {
                                self.begin_record(base + *i as u64, sink)?;
                                self.state = State::Unquoted;
                                continue;
                            }
                            break;
                        }
                        _ => {
                            self.end_field(base + *i as u64, sink)?;
                            self.end_record(c, sink)?;
                            break;
                        }
                    }
                },
                State::Quoted => match memchr2(b'"', b'\n', &input[*i..]) {
                    None => {
                        let start = *i;
                        *i = n;
                        self.append(&input[start..], base + n as u64, sink)?;
                    }
                    Some(k) => {
                        let start = *i;
                        *i += k + 1;
                        self.append(&input[start..start + k], base + (start + k) as u64, sink)?;
                        if self.state == State::Overflow {
                            *i -= 1;
                            continue;
                        }
                        if input[start + k] == b'"' {
                            self.state = State::QuoteInQuoted;
                        } else {
                            self.line += 1;
                            self.append(b"\n", base + *i as u64, sink)?;
                        }
                    }
                },
                State::QuoteInQuoted => {
                    let c = self.class[usize::from(input[*i])];
                    match c {
                        QUOTE => {
                            *i += 1;
                            self.state = State::Quoted;
                            self.append(b"\"", base + *i as u64, sink)?;
                        }
                        DELIM => {
                            *i += 1;
                            self.end_field(base + *i as u64, sink)?;
                            self.state = State::FieldStart;
                        }
                        LF | CR => {
                            *i += 1;
                            self.end_field(base + *i as u64, sink)?;
                            self.end_record(c, sink)?;
                        }
                        _ => {
                            self.quoting_issue(IssueKind::TextAfterQuote, base + *i as u64, sink)?;
                            self.state = State::Unquoted;
                        }
                    }
                }
                State::Overflow => match memchr2(b'\n', b'\r', &input[*i..]) {
                    None => *i = n,
                    Some(k) => {
                        *i += k;
                        let c = self.class[usize::from(input[*i])];
                        *i += 1;
                        self.end_record(c, sink)?;
                    }
                },
            }
        }
        ControlFlow::Continue(())
    }

    /// Ends the input: closes an open record, reporting an unterminated
    /// quote.
    ///
    /// # Termination
    /// Call once; later pushes and finishes do nothing.
    pub fn finish<S: CsvSink>(&mut self, sink: &mut S) -> ControlFlow<()> {
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

    fn finish_record<S: CsvSink>(&mut self, sink: &mut S) -> ControlFlow<()> {
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
                };
                self.quoting_issues += 1;
                sink.issue(&issue)?;
                self.end_field(at, sink)?;
            }
            State::Overflow => {}
            _ => self.end_field(at, sink)?,
        }
        self.emit(sink)
    }

    /// Opens a record at file offset `at` in the byte machine: a record
    /// the sink would keep is announced to it first
    /// ([`CsvSink::record_begins`]), and its mode asked again after.
    #[inline]
    fn begin_record<S: CsvSink>(&mut self, at: u64, sink: &mut S) -> ControlFlow<()> {
        self.open_record(at, Mode::of(sink));
        if self.mode == Mode::Keep {
            return self.announce(sink);
        }
        ControlFlow::Continue(())
    }

    /// Tells the sink a kept record began, and asks its mode again.
    #[inline(never)]
    fn announce<S: CsvSink>(&mut self, sink: &mut S) -> ControlFlow<()> {
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
    fn append<S: CsvSink>(&mut self, bytes: &[u8], at: u64, sink: &mut S) -> ControlFlow<()> {
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
    fn overflow<S: CsvSink>(&mut self, kind: IssueKind, at: u64, sink: &mut S) -> ControlFlow<()> {
        self.state = State::Overflow;
        self.overflow = Some(kind);
        let issue = Issue {
            kind,
            record: self.record_no,
            line: self.record_line,
            byte_offset: at,
            fields: None,
        };
        sink.issue(&issue)
    }

    #[cold]
    fn quoting_issue<S: CsvSink>(
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
        };
        sink.issue(&issue)
    }

    #[inline]
    fn end_field<S: CsvSink>(&mut self, at: u64, sink: &mut S) -> ControlFlow<()> {
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

    fn count_ending(&mut self, crlf: bool) {
        if crlf {
            self.endings.crlf += 1;
        } else {
            self.endings.lf += 1;
        }
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

    fn end_record<S: CsvSink>(&mut self, class: u8, sink: &mut S) -> ControlFlow<()> {
        self.terminator(class);
        self.emit(sink)
    }

    /// Lets the sink take a kept record's buffers.
    #[inline(never)]
    fn offer_buffers<S: CsvSink>(&mut self, sink: &mut S) {
        sink.adopt(&mut self.data, &mut self.ends);
    }

    fn emit<S: CsvSink>(&mut self, sink: &mut S) -> ControlFlow<()> {
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
        let flow = sink.record(&record);
        if self.mode == Mode::Keep {
            self.offer_buffers(sink);
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
