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
//! When adding a state: a variant with its meaning, an arm in the
//! `match self.state` of `run` (the general machine; `fast` hands any
//! state it does not handle back to it), and an arm in `finish` saying
//! what the end of input means there.

use std::ops::ControlFlow;

use plumb_core::{Refusal, RefusalReason, MAX_NUMBER_LITERAL_BYTES};

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

/// What the parser tells its consumer, modelled on ripgrep's `Sink`:
/// every event may stop the parse by returning `Break`, after which the
/// parser reads nothing further. Only `scalar` is required.
pub trait JsonSink {
    /// Whether to decode and keep string values (keys are always kept).
    /// Validation needs none; skipping them is faster.
    fn capture_strings(&self) -> bool {
        true
    }
    /// An object opens. `depth` is its nesting level (the root is 0).
    fn start_object(&mut self, depth: usize, byte_offset: u64) -> ControlFlow<()> {
        let _ = (depth, byte_offset);
        ControlFlow::Continue(())
    }
    /// A key inside the innermost object.
    fn key(&mut self, key: &str, truncated: bool) -> ControlFlow<()> {
        let _ = (key, truncated);
        ControlFlow::Continue(())
    }
    /// A key as bytes: what the parser calls. The default checks UTF-8
    /// and calls [`JsonSink::key`]; a sink that only hashes or counts
    /// keys can take the bytes directly.
    fn key_bytes(&mut self, key: &[u8], truncated: bool) -> ControlFlow<()> {
        self.key(std::str::from_utf8(key).unwrap_or_default(), truncated)
    }
    /// The innermost object closes.
    fn end_object(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// An array opens. `depth` is its nesting level (the root is 0).
    fn start_array(&mut self, depth: usize, byte_offset: u64) -> ControlFlow<()> {
        let _ = (depth, byte_offset);
        ControlFlow::Continue(())
    }
    /// The innermost array closes.
    fn end_array(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// A scalar value.
    fn scalar(&mut self, scalar: &Scalar<'_>) -> ControlFlow<()>;
}

/// Forwards every event of a sink through a pointer type, so `&mut S`
/// and `Box<S>` are sinks wherever `S` is.
macro_rules! forward_sink {
    ($($ty:ty),*) => {$(
        impl<S: JsonSink + ?Sized> JsonSink for $ty {
            fn capture_strings(&self) -> bool {
                (**self).capture_strings()
            }
            fn start_object(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
                (**self).start_object(depth, at)
            }
            fn key(&mut self, key: &str, truncated: bool) -> ControlFlow<()> {
                (**self).key(key, truncated)
            }
            fn key_bytes(&mut self, key: &[u8], truncated: bool) -> ControlFlow<()> {
                (**self).key_bytes(key, truncated)
            }
            fn end_object(&mut self) -> ControlFlow<()> {
                (**self).end_object()
            }
            fn start_array(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
                (**self).start_array(depth, at)
            }
            fn end_array(&mut self) -> ControlFlow<()> {
                (**self).end_array()
            }
            fn scalar(&mut self, scalar: &Scalar<'_>) -> ControlFlow<()> {
                (**self).scalar(scalar)
            }
        }
    )*};
}

forward_sink!(&mut S, Box<S>);

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

/// Counts characters: every byte that is not a UTF-8 continuation byte.
/// Eight bytes at a time, since columns are kept for every push.
pub(crate) fn chars(b: &[u8]) -> u64 {
    // Most text is ASCII, and std checks that at memory speed.
    if b.is_ascii() {
        return b.len() as u64;
    }
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = b.chunks_exact(8);
    let mut continuation = 0u64;
    for w in &mut words {
        let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        // Bit 7 set and bit 6 clear: 10xxxxxx.
        continuation += u64::from((x & !(x << 1) & HIGH).count_ones());
    }
    let tail = words.remainder();
    continuation += tail.iter().filter(|&&c| c & 0xC0 == 0x80).count() as u64;
    b.len() as u64 - continuation
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

    #[cold]
    fn error(&mut self, what: &str, hint: &str, at: u64, line: u64, col: u64) -> Refusal {
        self.failed = true;
        Refusal::new(
            RefusalReason::InvalidJson,
            format!("{what} at line {line} column {col} (byte {at}); {hint}"),
        )
        .with_byte_offset(at)
        .with_line(line)
        .with_column(col)
    }

    fn col_at(&self, input: &[u8], i: usize) -> u64 {
        match self.line_start {
            Some(s) => chars(&input[s..i.min(input.len())]) + 1,
            None => self.col_base + chars(&input[..i.min(input.len())]) + 1,
        }
    }

    #[cold]
    fn fail_at(&mut self, input: &[u8], i: usize, base: u64, what: &str, hint: &str) -> Refusal {
        let col = self.col_at(input, i);
        let line = self.line;
        self.error(what, hint, base + i as u64, line, col)
    }

    #[cold]
    fn fail_token(&mut self, input: &[u8], what: &str, hint: &str) -> Refusal {
        let col = match self.token_idx {
            Some(t) => self.col_at(input, t),
            None => self.token_col,
        };
        let (at, line) = (self.token_start, self.token_line);
        self.error(what, hint, at, line, col)
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
    pub fn push<S: JsonSink>(&mut self, input: &[u8], sink: &mut S) -> Result<Status, Refusal> {
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

    fn open<S: JsonSink>(
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

    fn emit_scalar<S: JsonSink>(&mut self, kind: ScalarKind, sink: &mut S) -> ControlFlow<()> {
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

    fn finish_number<S: JsonSink>(&mut self, sink: &mut S) -> ControlFlow<()> {
        self.emit_scalar(ScalarKind::Number, sink)
    }

    #[inline]
    fn run<S: JsonSink>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        sink: &mut S,
    ) -> Result<ControlFlow<()>, Refusal> {
        let n = input.len();
        while *i < n {
            // The fast path takes every token that lies whole in this push;
            // it hands back at the first thing it does not take, which the
            // general machine below then does, one step at a time.
            if matches!(
                self.state,
                State::Value
                    | State::ArrayFirst
                    | State::ObjectFirst
                    | State::Key
                    | State::Colon
                    | State::After
            ) {
                if self.fast(input, i, base, sink)?.is_break() {
                    return Ok(ControlFlow::Break(()));
                }
                if *i >= n {
                    break;
                }
            }
            let mut b = input[*i];
            if b <= b' '
                && matches!(
                    self.state,
                    State::Value
                        | State::ArrayFirst
                        | State::ObjectFirst
                        | State::Key
                        | State::Colon
                        | State::After
                        | State::End
                )
            {
                // A run of white space between tokens, crossed in one loop.
                while matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                    if b == b'\n' {
                        self.line += 1;
                        self.line_start = Some(*i + 1);
                    }
                    *i += 1;
                    match input.get(*i) {
                        Some(&next) => b = next,
                        None => return Ok(ControlFlow::Continue(())),
                    }
                }
            }
            match self.state {
                State::Value | State::ArrayFirst => match b {
                    b' ' | b'\t' | b'\r' => *i += 1,
                    b'\n' => {
                        *i += 1;
                        self.line += 1;
                        self.line_start = Some(*i);
                    }
                    b'{' => {
                        if self.open(OBJ, input, *i, base, sink)?.is_break() {
                            *i += 1;
                            return Ok(ControlFlow::Break(()));
                        }
                        *i += 1;
                    }
                    b'[' => {
                        if self.open(ARR, input, *i, base, sink)?.is_break() {
                            *i += 1;
                            return Ok(ControlFlow::Break(()));
                        }
                        *i += 1;
                    }
                    b']' if self.state == State::ArrayFirst => {
                        *i += 1;
                        self.stack.pop();
                        self.close_value();
                        if sink.end_array().is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    b'"' => {
                        self.begin_token(*i, base);
                        self.begin_string(false);
                        self.state = State::Str;
                        *i += 1;
                        if self.str_run(input, i, base, sink)?.is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    b'-' | b'0'..=b'9' => {
                        self.begin_token(*i, base);
                        self.buf.clear();
                        self.truncated = false;
                        self.len = 0;
                        self.state = State::Num(if b == b'-' {
                            Num::Minus
                        } else if b == b'0' {
                            Num::Zero
                        } else {
                            Num::Int
                        });
                        self.num_byte(b);
                        *i += 1;
                    }
                    b't' | b'f' | b'n' => {
                        self.begin_token(*i, base);
                        self.lit = match b {
                            b't' => b"true",
                            b'f' => b"false",
                            _ => b"null",
                        };
                        self.lit_pos = 1;
                        self.state = State::Lit;
                        *i += 1;
                    }
                    b']' => {
                        return Err(self.fail_at(
                            input,
                            *i,
                            base,
                            "expected a value, found `]` after a comma",
                            "trailing commas are not allowed in JSON; remove the comma",
                        ))
                    }
                    _ => {
                        return Err(self.fail_at(
                            input,
                            *i,
                            base,
                            &format!("expected a value, found {}", shown(input, *i)),
                            "a JSON value is an object, array, string, number, true, false or null",
                        ))
                    }
                },
                State::ObjectFirst | State::Key => match b {
                    b' ' | b'\t' | b'\r' => *i += 1,
                    b'\n' => {
                        *i += 1;
                        self.line += 1;
                        self.line_start = Some(*i);
                    }
                    b'"' => {
                        self.begin_token(*i, base);
                        self.begin_string(true);
                        self.state = State::Str;
                        *i += 1;
                        if self.str_run(input, i, base, sink)?.is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    b'}' if self.state == State::ObjectFirst => {
                        *i += 1;
                        self.stack.pop();
                        self.close_value();
                        if sink.end_object().is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    b'}' => {
                        return Err(self.fail_at(
                            input,
                            *i,
                            base,
                            "expected a key, found `}` after a comma",
                            "trailing commas are not allowed in JSON; remove the comma",
                        ))
                    }
                    _ => {
                        return Err(self.fail_at(
                            input,
                            *i,
                            base,
                            &format!("expected a string key, found {}", shown(input, *i)),
                            "object keys must be double-quoted strings",
                        ))
                    }
                },
                State::Colon => match b {
                    b' ' | b'\t' | b'\r' => *i += 1,
                    b'\n' => {
                        *i += 1;
                        self.line += 1;
                        self.line_start = Some(*i);
                    }
                    b':' => {
                        *i += 1;
                        self.state = State::Value;
                    }
                    _ => {
                        return Err(self.fail_at(
                            input,
                            *i,
                            base,
                            &format!("expected `:` after the key, found {}", shown(input, *i)),
                            "separate each key from its value with a colon",
                        ))
                    }
                },
                State::After => match b {
                    b' ' | b'\t' | b'\r' => *i += 1,
                    b'\n' => {
                        *i += 1;
                        self.line += 1;
                        self.line_start = Some(*i);
                    }
                    b',' => {
                        *i += 1;
                        self.state = if self.stack.last() == Some(&OBJ) {
                            State::Key
                        } else {
                            State::Value
                        };
                    }
                    b']' if self.stack.last() == Some(&ARR) => {
                        *i += 1;
                        self.stack.pop();
                        self.close_value();
                        if sink.end_array().is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    b'}' if self.stack.last() == Some(&OBJ) => {
                        *i += 1;
                        self.stack.pop();
                        self.close_value();
                        if sink.end_object().is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    _ => {
                        let (what, hint) = if self.stack.last() == Some(&OBJ) {
                            ("expected `,` or `}`", "separate members with commas and close the object with `}`")
                        } else {
                            ("expected `,` or `]`", "separate elements with commas and close the array with `]`")
                        };
                        return Err(self.fail_at(
                            input,
                            *i,
                            base,
                            &format!("{what} after a value, found {}", shown(input, *i)),
                            hint,
                        ));
                    }
                },
                State::End => match b {
                    b' ' | b'\t' | b'\r' => *i += 1,
                    b'\n' => {
                        *i += 1;
                        self.line += 1;
                        self.line_start = Some(*i);
                    }
                    _ => {
                        return Err(self.fail_at(
                            input,
                            *i,
                            base,
                            &format!("trailing characters after the JSON value, found {}", shown(input, *i)),
                            "a JSON text holds one value; for one value per line read the file as jsonl",
                        ))
                    }
                },
                State::Str => {
                    if self.str_run(input, i, base, sink)?.is_break() {
                        return Ok(ControlFlow::Break(()));
                    }
                }
                State::Esc => {
                    *i += 1;
                    let c = match b {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            self.hex = 0;
                            self.state = State::Hex(0);
                            continue;
                        }
                        _ => {
                            return Err(self.fail_at(
                                input,
                                *i - 1,
                                base,
                                &format!("invalid escape `\\{}`", shown_char(b)),
                                "valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX",
                            ))
                        }
                    };
                    self.flush_high();
                    self.keep_char(c);
                    self.state = State::Str;
                }
                State::Hex(k) => {
                    let d = match b {
                        b'0'..=b'9' => b - b'0',
                        b'a'..=b'f' => b - b'a' + 10,
                        b'A'..=b'F' => b - b'A' + 10,
                        _ => {
                            return Err(self.fail_at(
                                input,
                                *i,
                                base,
                                "invalid \\u escape: expected four hex digits",
                                "write \\u followed by exactly four hex digits",
                            ))
                        }
                    };
                    *i += 1;
                    self.hex = (self.hex << 4) | u16::from(d);
                    if k < 3 {
                        self.state = State::Hex(k + 1);
                        continue;
                    }
                    self.state = State::Str;
                    let unit = self.hex;
                    match (self.high.take(), unit) {
                        (Some(hi), 0xDC00..=0xDFFF) => {
                            let c = 0x10000 + ((u32::from(hi) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                            self.keep_char(char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER));
                        }
                        (prev, 0xD800..=0xDBFF) => {
                            if prev.is_some() {
                                self.keep_char(char::REPLACEMENT_CHARACTER);
                            }
                            self.high = Some(unit);
                        }
                        (prev, _) => {
                            if prev.is_some() {
                                self.keep_char(char::REPLACEMENT_CHARACTER);
                            }
                            // A lone low surrogate becomes U+FFFD.
                            self.keep_char(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER));
                        }
                    }
                }
                State::Num(first) => {
                    // The whole run of number bytes in one go, with the
                    // grammar state in a register; the outer dispatch is
                    // visited again only at the end of the number or of
                    // the push.
                    let start = *i;
                    let mut j = start;
                    let mut st = first;
                    let ended = loop {
                        let Some(&b) = input.get(j) else { break false };
                        st = match (st, b) {
                            (Num::Minus, b'0') => Num::Zero,
                            (Num::Minus, b'1'..=b'9') => Num::Int,
                            (Num::Zero, b'0'..=b'9') => {
                                self.num_bytes(&input[start..j]);
                                return Err(self.fail_token(
                                    input,
                                    "invalid number: leading zeros are not allowed",
                                    "write the number without leading zeros, or quote it as a string",
                                ));
                            }
                            (Num::Int, b'0'..=b'9') => Num::Int,
                            (Num::Zero | Num::Int, b'.') => Num::Dot,
                            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::E,
                            (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
                            (Num::E, b'+' | b'-') => Num::ESign,
                            (Num::E | Num::ESign | Num::Exp, b'0'..=b'9') => Num::Exp,
                            (s, _) if s.complete() => break true,
                            _ => {
                                return Err(self.fail_at(
                                    input,
                                    j,
                                    base,
                                    &format!("invalid number: unexpected {}", shown(input, j)),
                                    "numbers are -?digits[.digits][e[+-]digits]; NaN and Infinity are not JSON",
                                ))
                            }
                        };
                        j += 1;
                    };
                    self.num_bytes(&input[start..j]);
                    *i = j;
                    self.state = State::Num(st);
                    if ended {
                        // The byte at `j` ends the number; it is read again
                        // as what follows a value.
                        if self.finish_number(sink).is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                }
                State::Lit => {
                    if self.lit.get(self.lit_pos) != Some(&b) {
                        let word = String::from_utf8_lossy(self.lit).into_owned();
                        return Err(self.fail_token(
                            input,
                            &format!("invalid literal: expected `{word}`"),
                            "the only bare words in JSON are true, false and null; quote text as a string",
                        ));
                    }
                    *i += 1;
                    self.lit_pos += 1;
                    if self.lit_pos == self.lit.len() {
                        let kind = match self.lit[0] {
                            b't' => ScalarKind::True,
                            b'f' => ScalarKind::False,
                            _ => ScalarKind::Null,
                        };
                        if self.emit_scalar(kind, sink).is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                }
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// The fast path: whole tokens inside one push, with the grammar
    /// state in a local and strings and numbers handed to the sink as
    /// slices of the input (no copy). It stops, leaving `self.state`
    /// exact, at anything it does not handle itself: a token that runs
    /// past the push, an escape, a cap, a fault, the end of the root.
    /// The general machine then takes that one step; its results are the
    /// reference, and the tests demand both give the same events.
    #[inline(always)]
    fn fast<S: JsonSink>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        sink: &mut S,
    ) -> Result<ControlFlow<()>, Refusal> {
        let n = input.len();
        let mut st = self.state;
        macro_rules! after_value {
            () => {
                if self.stack.is_empty() {
                    State::End
                } else {
                    State::After
                }
            };
        }
        loop {
            // White space, counting lines.
            let mut j = *i;
            while j < n {
                match input[j] {
                    b' ' | b'\t' | b'\r' => j += 1,
                    b'\n' => {
                        j += 1;
                        self.line += 1;
                        self.line_start = Some(j);
                    }
                    _ => break,
                }
            }
            *i = j;
            if j >= n || st == State::End {
                self.state = st;
                return Ok(ControlFlow::Continue(()));
            }
            let b = input[j];
            match st {
                State::Value | State::ArrayFirst => match b {
                    b'"' => {
                        let start = j + 1;
                        let mut k = start;
                        while k < n && !STR_STOP[usize::from(input[k])] {
                            k += 1;
                        }
                        let len = k - start;
                        if k >= n
                            || input[k] != b'"'
                            || (self.capture && len > STRING_CAPTURE_BYTES)
                        {
                            break;
                        }
                        let raw = if self.capture {
                            &input[start..k]
                        } else {
                            &[][..]
                        };
                        let scalar = Scalar {
                            kind: ScalarKind::String,
                            raw,
                            truncated: false,
                            len: len as u64,
                            byte_offset: base + j as u64,
                        };
                        *i = k + 1;
                        st = after_value!();
                        self.state = st;
                        if sink.scalar(&scalar).is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    b'-' | b'0'..=b'9' => {
                        // The grammar walked once; anything it does not
                        // accept cleanly (a leading zero before a digit, a
                        // bare `-`, `1.` or `1e`, the end of the push) is
                        // left to the general machine.
                        let Some(k) = number_end(input, j) else { break };
                        let lit = &input[j..k];
                        if lit.len() > MAX_NUMBER_LITERAL_BYTES {
                            break;
                        }
                        let scalar = Scalar {
                            kind: ScalarKind::Number,
                            raw: lit,
                            truncated: false,
                            len: lit.len() as u64,
                            byte_offset: base + j as u64,
                        };
                        *i = k;
                        st = after_value!();
                        self.state = st;
                        if sink.scalar(&scalar).is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    b't' | b'f' | b'n' => {
                        let (word, kind): (&[u8], ScalarKind) = match b {
                            b't' => (b"true", ScalarKind::True),
                            b'f' => (b"false", ScalarKind::False),
                            _ => (b"null", ScalarKind::Null),
                        };
                        let Some(found) = input.get(j..j + word.len()) else {
                            break;
                        };
                        // A byte loop: four or five bytes are not worth a memcmp call.
                        if found.iter().zip(word).any(|(a, b)| a != b) {
                            break;
                        }
                        let scalar = Scalar {
                            kind,
                            raw: word,
                            truncated: false,
                            len: word.len() as u64,
                            byte_offset: base + j as u64,
                        };
                        *i = j + word.len();
                        st = after_value!();
                        self.state = st;
                        if sink.scalar(&scalar).is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    b'{' | b'[' if self.stack.len() < JSON_MAX_DEPTH => {
                        let depth = self.stack.len();
                        let object = b == b'{';
                        self.stack.push(if object { OBJ } else { ARR });
                        self.max_depth = self.max_depth.max(depth + 1);
                        *i = j + 1;
                        st = if object {
                            State::ObjectFirst
                        } else {
                            State::ArrayFirst
                        };
                        self.state = st;
                        let flow = if object {
                            sink.start_object(depth, base + j as u64)
                        } else {
                            sink.start_array(depth, base + j as u64)
                        };
                        if flow.is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    b']' if st == State::ArrayFirst => {
                        self.stack.pop();
                        *i = j + 1;
                        st = after_value!();
                        self.state = st;
                        if sink.end_array().is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    _ => break,
                },
                State::ObjectFirst | State::Key => match b {
                    b'"' => {
                        let start = j + 1;
                        let mut k = start;
                        while k < n && !STR_STOP[usize::from(input[k])] {
                            k += 1;
                        }
                        if k >= n || input[k] != b'"' || k - start > KEY_CAPTURE_BYTES {
                            break;
                        }
                        let key = &input[start..k];
                        // The colon, usually right there.
                        let mut c = k + 1;
                        while c < n && input[c] == b' ' {
                            c += 1;
                        }
                        if c < n && input[c] == b':' {
                            *i = c + 1;
                            st = State::Value;
                        } else {
                            *i = k + 1;
                            st = State::Colon;
                        }
                        self.state = st;
                        if sink.key_bytes(key, false).is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    b'}' if st == State::ObjectFirst => {
                        self.stack.pop();
                        *i = j + 1;
                        st = after_value!();
                        self.state = st;
                        if sink.end_object().is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    _ => break,
                },
                State::Colon => {
                    if b != b':' {
                        break;
                    }
                    *i = j + 1;
                    st = State::Value;
                }
                State::After => match b {
                    b',' => {
                        *i = j + 1;
                        st = if self.stack.last() == Some(&OBJ) {
                            State::Key
                        } else {
                            State::Value
                        };
                    }
                    b']' if self.stack.last() == Some(&ARR) => {
                        self.stack.pop();
                        *i = j + 1;
                        st = after_value!();
                        self.state = st;
                        if sink.end_array().is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    b'}' if self.stack.last() == Some(&OBJ) => {
                        self.stack.pop();
                        *i = j + 1;
                        st = after_value!();
                        self.state = st;
                        if sink.end_object().is_break() {
                            return Ok(ControlFlow::Break(()));
                        }
                    }
                    _ => break,
                },
                _ => break,
            }
        }
        self.state = st;
        Ok(ControlFlow::Continue(()))
    }

    /// Crosses string content up to the next quote, backslash or control
    /// character. Called straight after an opening quote too, so a short
    /// string costs no trip through the state dispatch; a key's closing
    /// quote takes a following `:` at once for the same reason.
    #[inline(always)]
    fn str_run<S: JsonSink>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        sink: &mut S,
    ) -> Result<ControlFlow<()>, Refusal> {
        let n = input.len();
        let start = *i;
        let mut j = start;
        while j < n && !STR_STOP[usize::from(input[j])] {
            j += 1;
        }
        if j > start {
            if self.high.is_some() {
                self.flush_high();
            }
            self.keep(&input[start..j]);
        }
        *i = j;
        if j == n {
            return Ok(ControlFlow::Continue(()));
        }
        match input[j] {
            b'"' => {
                *i += 1;
                self.flush_high();
                if self.in_key {
                    let mut k = *i;
                    while k < n && input[k] == b' ' {
                        k += 1;
                    }
                    if k < n && input[k] == b':' {
                        *i = k + 1;
                        self.state = State::Value;
                    } else {
                        self.state = State::Colon;
                    }
                    Ok(sink.key_bytes(&self.buf, self.truncated))
                } else {
                    Ok(self.emit_scalar(ScalarKind::String, sink))
                }
            }
            b'\\' => {
                *i += 1;
                self.state = State::Esc;
                Ok(ControlFlow::Continue(()))
            }
            _ => Err(self.fail_at(
                input,
                j,
                base,
                &format!("control character U+{:04X} inside a string", input[j]),
                "escape control characters (\\n, \\t, \\u0001)",
            )),
        }
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
    pub fn finish<S: JsonSink>(&mut self, sink: &mut S) -> Result<Status, Refusal> {
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

fn shown_char(b: u8) -> String {
    if b.is_ascii_graphic() {
        char::from(b).to_string()
    } else {
        format!("\\x{b:02x}")
    }
}

/// Names the byte at `i` in a message. Only the byte itself is used, so
/// the message is the same wherever a push boundary fell.
fn shown(input: &[u8], i: usize) -> String {
    match input.get(i) {
        Some(&b) if b.is_ascii_graphic() => format!("`{}`", char::from(b)),
        Some(&b) if b < 0x80 => format!("byte 0x{b:02x}"),
        Some(&b) => format!("a non-ASCII character (byte 0x{b:02x})"),
        None => "the end of the input".to_owned(),
    }
}

/// Where the JSON number starting at `j` ends, when it ends cleanly
/// inside `input`: followed by a byte that cannot continue it, and not a
/// leading zero followed by a digit. `None` sends the number to the
/// general machine.
fn number_end(input: &[u8], j: usize) -> Option<usize> {
    let digits = |mut k: usize| {
        while input.get(k).is_some_and(u8::is_ascii_digit) {
            k += 1;
        }
        k
    };
    let mut k = j + usize::from(input[j] == b'-');
    match input.get(k)? {
        b'0' => {
            k += 1;
            if input.get(k)?.is_ascii_digit() {
                return None;
            }
        }
        b'1'..=b'9' => k = digits(k + 1),
        _ => return None,
    }
    if input.get(k)? == &b'.' {
        let after = digits(k + 1);
        if after == k + 1 {
            return None;
        }
        k = after;
    }
    if matches!(input.get(k)?, b'e' | b'E') {
        let mut e = k + 1;
        if matches!(input.get(e)?, b'+' | b'-') {
            e += 1;
        }
        let after = digits(e);
        if after == e {
            return None;
        }
        k = after;
    }
    // The byte after the number must exist (else the number may go on in
    // the next push) and the general machine ends a number at any byte
    // that does not continue it, as this does.
    input.get(k)?;
    Some(k)
}
