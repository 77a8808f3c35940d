//! The JSON push parser: RFC 8259, strict, sans-IO, no recursion.
//!
//! # BE ADVISED
//!
//! The parser is one explicit state machine plus a stack of open
//! containers (one byte each), so nesting costs heap, never call stack,
//! and is capped at [`JSON_MAX_DEPTH`]. States fall in three groups:
//!
//! * structural: `Value` (a value must start), `ArrayFirst` (a value or
//!   `]`), `ObjectFirst` (a key or `}`), `Key` (a key after `,`),
//!   `Colon`, `After` (a `,` or a close after a value), `End` (the root
//!   is complete; only whitespace may follow);
//! * strings: `Str`, `Esc` (after `\`), `Hex(n)` (n hex digits of a
//!   `\u` escape read);
//! * tokens: `Num(..)` (one state per position in the number grammar)
//!   and `Lit` (matching `true`, `false` or `null`).
//!
//! A token or string may be cut anywhere by the end of a push; all its
//! partial facts (the literal so far, the pending high surrogate, the
//! captured text) live in the parser, so the next push resumes it. "Need
//! more input" is never an error: only [`JsonParser::finish`] turns an
//! unfinished text into `invalid-json`.
//!
//! Lines are counted as whitespace is crossed (a raw newline can stand
//! nowhere else in valid JSON). Columns are counted in characters: the
//! characters of the current line that lie in earlier pushes are
//! summed when a push ends, so an error costs nothing extra.
//!
//! Long string bodies and long runs of white space are crossed through
//! bit masks of 64-byte blocks (`block.rs`); shorter ones, the common
//! case, byte by byte.
//!
//! When adding a state: a variant with its meaning (here), an arm in the
//! `match self.state` of `run` (`machine.rs`, the general machine; `fast`
//! in `fast.rs` hands any
//! state it does not handle back to it), and an arm in `finish` (here) saying
//! what the end of input means there.

mod block;
mod fast;
mod machine;
mod position;

use std::ops::ControlFlow;

use plumb_core::{Refusal, RefusalReason, MAX_NUMBER_LITERAL_BYTES};

pub(crate) use position::chars;

use crate::sink::JsonSink;
use position::{shown, shown_char};

/// The deepest nesting accepted: deeper input is refused
/// `nesting-too-deep`. Real documents rarely pass 20 levels; 1024 leaves
/// room for generated ones while bounding the stack to 1 KiB.
pub const JSON_MAX_DEPTH: usize = 1024;

/// The longest key kept, in bytes; longer keys are cut at a character
/// boundary and marked truncated.
pub const KEY_CAPTURE_BYTES: usize = 1024;

/// The longest string value kept, in bytes; longer strings are cut at a
/// character boundary and marked truncated.
pub const STRING_CAPTURE_BYTES: usize = 64 * 1024;

/// What kind of scalar an event carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarKind {
    /// A string; `text` is its decoded content.
    String,
    /// A number; `text` is its source literal.
    Number,
    /// `true`.
    True,
    /// `false`.
    False,
    /// `null`.
    Null,
}

/// One scalar value.
#[derive(Clone, Copy, Debug)]
pub struct Scalar<'a> {
    /// What it is.
    pub kind: ScalarKind,
    /// Strings: the decoded content (empty when the sink did not ask for
    /// strings). Numbers: the source literal. Literals: their text. As
    /// bytes, so a consumer that only counts pays no UTF-8 check.
    pub raw: &'a [u8],
    /// Whether `text` was cut at a capture cap.
    pub truncated: bool,
    /// The full length in bytes (decoded, for strings; source, for numbers).
    pub len: u64,
    /// The absolute byte offset of its first byte.
    pub byte_offset: u64,
}

impl<'a> Scalar<'a> {
    /// The text. Captured content of a validated stream is UTF-8 and cut
    /// only at character boundaries; anything else reads as empty.
    pub fn text(&self) -> &'a str {
        std::str::from_utf8(self.raw).unwrap_or_default()
    }
}

/// How [`JsonParser::push_record`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordEnd {
    /// A complete value, then only white space up to the line feed at
    /// this index.
    Complete(usize),
    /// Only white space up to the line feed at this index.
    Blank(usize),
    /// Anything else: read the line the usual way.
    Unsure,
}

/// How a push or finish ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// All input was consumed; push more (or finish).
    NeedInput,
    /// A sink stopped the parse; nothing more is read.
    Stopped,
    /// The root value is complete and the input ended (finish only).
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    E,
    ESign,
    Exp,
}

impl Num {
    fn complete(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::Exp)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Value,
    ArrayFirst,
    ObjectFirst,
    Key,
    Colon,
    After,
    End,
    Str,
    Esc,
    Hex(u8),
    Num(Num),
    Lit,
}

const OBJ: u8 = 1;
const ARR: u8 = 0;

/// Bytes that end a plain run inside a string: the quote, the backslash
/// and the control characters.
static STR_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// The sans-IO JSON push parser.
///
/// ```
/// use std::ops::ControlFlow;
/// use plumb_json::{JsonParser, JsonSink, Scalar, Status};
///
/// struct Numbers(Vec<String>);
/// impl JsonSink for Numbers {
///     fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
///         self.0.push(s.text().to_owned());
///         ControlFlow::Continue(())
///     }
/// }
///
/// let mut sink = Numbers(Vec::new());
/// let mut parser = JsonParser::new();
/// parser.push(b"[9007199254740993, 1.5e", &mut sink)?;
/// parser.push(b"3]", &mut sink)?;
/// assert_eq!(parser.finish(&mut sink)?, Status::Done);
/// assert_eq!(sink.0, ["9007199254740993", "1.5e3"]);
/// # Ok::<(), plumb_core::Refusal>(())
/// ```
pub struct JsonParser {
    state: State,
    stack: Vec<u8>,
    /// Whether the open string is a key.
    in_key: bool,
    capture: bool,
    buf: Vec<u8>,
    cap: usize,
    truncated: bool,
    len: u64,
    high: Option<u16>,
    hex: u16,
    lit: &'static [u8],
    lit_pos: usize,
    token_start: u64,
    token_line: u64,
    /// Where the open token starts in the current push, if it does.
    token_idx: Option<usize>,
    /// The open token's column, when it started in an earlier push.
    token_col: u64,
    offset: u64,
    line: u64,
    /// Characters of the current line that lie in earlier pushes.
    col_base: u64,
    /// Where the current line starts in the current push, if it does.
    line_start: Option<usize>,
    stopped: bool,
    failed: bool,
    max_depth: usize,
    /// Set by [`scan_text`](crate::scan_text), which holds the whole text
    /// and can place an end-of-input fault itself: the per-push column
    /// carry is then skipped.
    lazy_columns: bool,
    /// Set by [`JsonParser::push_record`]: a line feed outside a string
    /// ends the push, its index noted in `record_lf`.
    record_mode: bool,
    record_lf: Option<usize>,
}

impl std::fmt::Debug for JsonParser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonParser")
            .field("state", &self.state)
            .field("depth", &self.stack.len())
            .field("offset", &self.offset)
            .field("line", &self.line)
            .finish_non_exhaustive()
    }
}

impl Default for JsonParser {
    fn default() -> JsonParser {
        JsonParser::new()
    }
}

impl JsonParser {
    /// A parser for one JSON text.
    pub fn new() -> JsonParser {
        JsonParser {
            state: State::Value,
            stack: Vec::new(),
            in_key: false,
            capture: true,
            buf: Vec::new(),
            cap: 0,
            truncated: false,
            len: 0,
            high: None,
            hex: 0,
            lit: b"",
            lit_pos: 0,
            token_start: 0,
            token_line: 1,
            token_idx: None,
            token_col: 1,
            offset: 0,
            line: 1,
            col_base: 0,
            line_start: None,
            stopped: false,
            failed: false,
            max_depth: 0,
            lazy_columns: false,
            record_mode: false,
            record_lf: None,
        }
    }

    /// Sets the absolute offset of the first byte to be pushed, so every
    /// reported offset is a file offset.
    pub fn with_base_offset(mut self, offset: u64) -> JsonParser {
        self.offset = offset;
        self
    }

    /// Makes the parser ready for a new text, keeping its buffers.
    pub fn reset(&mut self, base_offset: u64, line: u64) {
        self.state = State::Value;
        self.stack.clear();
        self.buf.clear();
        self.truncated = false;
        self.high = None;
        self.offset = base_offset;
        self.line = line;
        self.col_base = 0;
        self.line_start = None;
        self.stopped = false;
        self.failed = false;
        self.max_depth = 0;
    }

    /// A parser placed inside a root array, just after the comma between
    /// two of its elements, `base_offset` being the file offset of the
    /// first byte to be pushed: for a scan that reads one large array in
    /// parts on several threads (see `crate::parallel`). Its line numbers
    /// count from 1 there; such a scan reports no position of its own.
    pub(crate) fn in_root_array(base_offset: u64) -> JsonParser {
        let mut p = JsonParser::new().with_base_offset(base_offset);
        p.stack.push(ARR);
        p.state = State::Value;
        p.max_depth = 1;
        p
    }

    /// Whether the input so far ended just after a comma between two
    /// elements of a root array, with no fault: where a part of such an
    /// array read by [`JsonParser::in_root_array`] begins.
    pub(crate) fn between_root_elements(&self) -> bool {
        self.state == State::Value && self.stack == [ARR] && !self.failed && !self.stopped
    }

    /// Skips the per-push column carry (see [`crate::scan_text`]).
    pub(crate) fn set_lazy_columns(&mut self, lazy: bool) {
        self.lazy_columns = lazy;
    }

    /// The current nesting depth (open containers).
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The deepest nesting seen (a scalar root is 0, `[]` is 1).
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// The absolute offset of the next byte to be pushed.
    pub fn byte_offset(&self) -> u64 {
        self.offset
    }

    /// The current 1-based line.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// Whether the root value is complete.
    pub fn is_complete(&self) -> bool {
        self.state == State::End
    }

    /// Parses one JSON Lines record at the start of `input`, up to the
    /// first line feed outside a string, in the same pass that finds
    /// that line feed (no search for it first). Call after
    /// [`JsonParser::reset`]; the parser must be reset again before its
    /// next use.
    ///
    /// The answer is trusted only when it is [`RecordEnd::Complete`] or
    /// [`RecordEnd::Blank`]: anything else (a fault, a value that the line
    /// feed cuts, no line feed in `input`) is [`RecordEnd::Unsure`], and
    /// the caller reads that line the usual way, which says what is
    /// wrong with it. The sink sees the events of the record as `push`
    /// would show them.
    ///
    /// ```
    /// use plumb_json::{JsonParser, Null, RecordEnd};
    ///
    /// let mut p = JsonParser::new();
    /// p.reset(0, 1);
    /// assert_eq!(p.push_record(b"{\"a\": [1, 2]}\r\n{}", &mut Null), RecordEnd::Complete(14));
    /// p.reset(0, 1);
    /// assert_eq!(p.push_record(b" \t\n", &mut Null), RecordEnd::Blank(2));
    /// p.reset(0, 1);
    /// assert_eq!(p.push_record(b"{\"a\":\n1}", &mut Null), RecordEnd::Unsure);
    /// p.reset(0, 1);
    /// assert_eq!(p.push_record(b"{\"a\":1}", &mut Null), RecordEnd::Unsure);
    /// ```
    pub fn push_record<S: JsonSink + ?Sized>(&mut self, input: &[u8], sink: &mut S) -> RecordEnd {
        if self.stopped || self.failed {
            return RecordEnd::Unsure;
        }
        self.capture = sink.capture_strings();
        self.line_start = None;
        self.token_idx = None;
        self.record_mode = true;
        self.record_lf = None;
        let lazy = std::mem::replace(&mut self.lazy_columns, true);
        let mut i = 0;
        let result = self.run(input, &mut i, self.offset, sink);
        self.record_mode = false;
        self.lazy_columns = lazy;
        // Whatever happened, this parser's state is spent.
        self.failed = true;
        match (result, self.record_lf.take()) {
            (Ok(ControlFlow::Break(())), Some(k)) if self.state == State::End => {
                RecordEnd::Complete(k)
            }
            (Ok(ControlFlow::Break(())), Some(k))
                if self.state == State::Value && self.stack.is_empty() =>
            {
                RecordEnd::Blank(k)
            }
            _ => RecordEnd::Unsure,
        }
    }

    /// Pushes more input.
    ///
    /// # Termination
    /// Returns `Stopped` once a sink stopped the parse (nothing further is
    /// read, and later pushes return `Stopped` at once), else `NeedInput`.
    /// Call [`JsonParser::finish`] at the end of input.
    ///
    /// # Errors
    /// `invalid-json` with line, column and byte offset at the first
    /// syntax fault; `nesting-too-deep` past [`JSON_MAX_DEPTH`]. After an
    /// error every call returns the same kind of refusal.
    pub fn push<S: JsonSink + ?Sized>(
        &mut self,
        input: &[u8],
        sink: &mut S,
    ) -> Result<Status, Refusal> {
        if self.stopped {
            return Ok(Status::Stopped);
        }
        if self.failed {
            return Err(Refusal::new(
                RefusalReason::InvalidJson,
                "the parser already refused this text; start a new parser",
            ));
        }
        self.capture = sink.capture_strings();
        let base = self.offset;
        self.line_start = None;
        self.token_idx = None;
        let mut i = 0;
        let result = self.run(input, &mut i, base, sink);
        if self.lazy_columns {
            // The caller holds the whole text and places columns itself.
            self.line_start = None;
            self.offset = base + i as u64;
            return match result {
                Err(e) => Err(e),
                Ok(ControlFlow::Break(())) => {
                    self.stopped = true;
                    Ok(Status::Stopped)
                }
                Ok(ControlFlow::Continue(())) => Ok(Status::NeedInput),
            };
        }
        // An open token keeps its column for an error in a later push;
        // computed here, once per push, rather than at every token.
        if let Some(t) = self.token_idx.take() {
            if matches!(
                self.state,
                State::Str | State::Esc | State::Hex(_) | State::Num(_) | State::Lit
            ) {
                self.token_col = self.col_at(input, t);
            }
        }
        // Carry the column of the unfinished line into the next push.
        match self.line_start {
            Some(s) => self.col_base = chars(&input[s..]),
            None => self.col_base += chars(input),
        }
        self.line_start = None;
        self.offset = base + i as u64;
        match result {
            Err(e) => Err(e),
            Ok(ControlFlow::Break(())) => {
                self.stopped = true;
                Ok(Status::Stopped)
            }
            Ok(ControlFlow::Continue(())) => Ok(Status::NeedInput),
        }
    }

    fn begin_token(&mut self, i: usize, base: u64) {
        self.token_start = base + i as u64;
        self.token_line = self.line;
        self.token_idx = Some(i);
    }

    fn begin_string(&mut self, key: bool) {
        self.in_key = key;
        self.buf.clear();
        self.truncated = false;
        self.len = 0;
        self.high = None;
        self.cap = if key {
            KEY_CAPTURE_BYTES
        } else if self.capture {
            STRING_CAPTURE_BYTES
        } else {
            0
        };
    }

    /// Keeps `bytes` of decoded string content, up to the cap, cut at a
    /// character boundary.
    #[inline]
    fn keep(&mut self, bytes: &[u8]) {
        self.len += bytes.len() as u64;
        let room = self.cap - self.buf.len().min(self.cap);
        if bytes.len() <= room {
            self.buf.extend_from_slice(bytes);
            return;
        }
        let mut cut = room;
        while cut > 0 && (bytes[cut] as i8) < -0x40 {
            cut -= 1;
        }
        self.buf.extend_from_slice(&bytes[..cut]);
        // A string that is not captured at all is not "cut".
        self.truncated |= self.cap > 0;
        // Once cut, nothing more is kept.
        self.cap = self.buf.len();
    }

    fn keep_char(&mut self, c: char) {
        let mut tmp = [0u8; 4];
        let s = c.encode_utf8(&mut tmp);
        self.keep(s.as_bytes());
    }

    fn flush_high(&mut self) {
        if self.high.take().is_some() {
            self.keep_char(char::REPLACEMENT_CHARACTER);
        }
    }

    fn open<S: JsonSink + ?Sized>(
        &mut self,
        kind: u8,
        input: &[u8],
        i: usize,
        base: u64,
        sink: &mut S,
    ) -> Result<ControlFlow<()>, Refusal> {
        let depth = self.stack.len();
        if depth >= JSON_MAX_DEPTH {
            let col = self.col_at(input, i);
            self.failed = true;
            let at = base + i as u64;
            return Err(Refusal::new(
                RefusalReason::NestingTooDeep,
                format!(
                    "nesting deeper than {JSON_MAX_DEPTH} levels at line {} column {col} (byte {at}); \
                     flatten the document or read it with a tool that streams deeper structures",
                    self.line
                ),
            )
            .with_byte_offset(at)
            .with_line(self.line)
            .with_column(col));
        }
        self.stack.push(kind);
        self.max_depth = self.max_depth.max(depth + 1);
        Ok(if kind == OBJ {
            self.state = State::ObjectFirst;
            sink.start_object(depth, base + i as u64)
        } else {
            self.state = State::ArrayFirst;
            sink.start_array(depth, base + i as u64)
        })
    }

    fn close_value(&mut self) {
        self.state = if self.stack.is_empty() {
            State::End
        } else {
            State::After
        };
    }

    fn emit_scalar<S: JsonSink + ?Sized>(
        &mut self,
        kind: ScalarKind,
        sink: &mut S,
    ) -> ControlFlow<()> {
        let raw: &[u8] = match kind {
            ScalarKind::True => b"true",
            ScalarKind::False => b"false",
            ScalarKind::Null => b"null",
            _ => &self.buf,
        };
        if matches!(
            kind,
            ScalarKind::True | ScalarKind::False | ScalarKind::Null
        ) {
            self.len = raw.len() as u64;
            self.truncated = false;
        }
        let scalar = Scalar {
            kind,
            raw,
            truncated: self.truncated,
            len: self.len,
            byte_offset: self.token_start,
        };
        let flow = sink.scalar(&scalar);
        self.close_value();
        flow
    }

    fn finish_number<S: JsonSink + ?Sized>(&mut self, sink: &mut S) -> ControlFlow<()> {
        self.emit_scalar(ScalarKind::Number, sink)
    }

    fn num_byte(&mut self, b: u8) {
        self.num_bytes(&[b]);
    }

    fn num_bytes(&mut self, b: &[u8]) {
        self.len += b.len() as u64;
        let room = MAX_NUMBER_LITERAL_BYTES.saturating_sub(self.buf.len());
        if b.len() <= room {
            self.buf.extend_from_slice(b);
        } else {
            self.buf.extend_from_slice(&b[..room]);
            self.truncated = true;
        }
    }

    /// Ends the input.
    ///
    /// # Termination
    /// Returns `Done` when the text was one complete value, `Stopped` when
    /// a sink had stopped the parse.
    ///
    /// # Errors
    /// `invalid-json` when the text is empty or ends inside a value.
    pub fn finish<S: JsonSink + ?Sized>(&mut self, sink: &mut S) -> Result<Status, Refusal> {
        if self.stopped {
            return Ok(Status::Stopped);
        }
        if self.failed {
            return Err(Refusal::new(
                RefusalReason::InvalidJson,
                "the parser already refused this text; start a new parser",
            ));
        }
        if let State::Num(st) = self.state {
            if st.complete() {
                if self.finish_number(sink).is_break() {
                    self.stopped = true;
                    return Ok(Status::Stopped);
                }
            } else {
                return Err(self.fail_token(
                    &[],
                    "invalid number: it ends before its digits",
                    "complete the number, e.g. `1.0` rather than `1.` and `1e5` rather than `1e`",
                ));
            }
        }
        let at = self.offset;
        let (line, col) = (self.line, self.col_base + 1);
        match self.state {
            State::End => Ok(Status::Done),
            State::Value if self.stack.is_empty() => Err(self.error(
                "expected a JSON value, found the end of the input",
                "the text is empty; a JSON file holds one value",
                at,
                line,
                col,
            )),
            State::Str | State::Esc | State::Hex(_) => {
                let (at, line, col) = (self.token_start, self.token_line, self.token_col);
                Err(self.error(
                    "unterminated string",
                    "close the string with a double quote",
                    at,
                    line,
                    col,
                ))
            }
            State::Lit => Err(self.fail_token(
                &[],
                "invalid literal: the input ends inside it",
                "the only bare words in JSON are true, false and null",
            )),
            _ => Err(self.error(
                "unexpected end of input: the document is incomplete",
                "close every open array and object",
                at,
                line,
                col,
            )),
        }
    }
}
