//! The fast path: whole tokens that lie inside one push, with the
//! grammar state in a local and strings and numbers handed to the sink
//! as slices of the input. It hands any state it does not handle back to
//! the general machine (`machine.rs`).
//!
//! Reference: the general machine (`machine.rs`), which a push of one byte
//! always takes. Held equal by: `tests/it/parser.rs::event_log_is_identical
//! _whole_split_and_byte_by_byte`.

use std::ops::ControlFlow;

use plumb_core::{Refusal, MAX_NUMBER_LITERAL_BYTES};

use super::block::Scanner;
use super::*;

impl JsonParser {
    /// The fast path: whole tokens inside one push, with the grammar
    /// state in a local and strings and numbers handed to the sink as
    /// slices of the input (no copy). It stops, leaving `self.state`
    /// exact, at anything it does not handle itself: a token that runs
    /// past the push, an escape, a cap, a fault, the end of the root.
    /// The general machine then takes that one step; its results are the
    /// reference, and the tests demand both give the same events.
    #[inline(always)]
    pub(super) fn fast<S: JsonSink + ?Sized>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        sink: &mut S,
    ) -> Result<ControlFlow<()>, Refusal> {
        let n = input.len();
        let mut st = self.state;
        // The masks of the block last looked at: string bodies and white
        // space are crossed through them (see `block.rs`).
        let mut scan = Scanner::new();
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
            // White space, counting lines. Most tokens follow the last
            // with none: one byte test tells, before any mask.
            let mut j = *i;
            if j < n && matches!(input[j], b' ' | b'\t' | b'\r' | b'\n') {
                if self.record_mode {
                    // A line feed ends a JSON Lines record (`push_record`).
                    while j < n && matches!(input[j], b' ' | b'\t' | b'\r') {
                        j += 1;
                    }
                    if j < n && input[j] == b'\n' {
                        *i = j;
                        self.state = st;
                        self.record_lf = Some(j);
                        return Ok(ControlFlow::Break(()));
                    }
                } else {
                    let (end, lines, last) = scan.next_solid(input, j);
                    j = end;
                    if lines != 0 {
                        self.line += lines;
                        self.line_start = last;
                    }
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
                        let k = scan.next_stop(input, start);
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
                        let k = scan.next_stop(input, start);
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
    pub(super) fn str_run<S: JsonSink + ?Sized>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        sink: &mut S,
    ) -> Result<ControlFlow<()>, Refusal> {
        let n = input.len();
        let start = *i;
        let j = Scanner::new().next_stop(input, start);
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
