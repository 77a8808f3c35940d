//! The general machine: one step at a time through every state, for
//! whatever the fast path hands back (a token cut by the end of a push,
//! an escape, a cap, a fault). Its results are the reference the fast
//! path is tested against.
//!
//! When adding a state, its arm goes in the `match self.state` of `run`
//! here (and what the end of input means there, in `finish`).

use std::ops::ControlFlow;

use plumb_core::Refusal;

use super::*;

impl JsonParser {
    #[inline]
    pub(super) fn run<S: JsonSink + ?Sized>(
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
                    if b == b'\n' && self.record_mode {
                        // A JSON Lines record ends here (`push_record`).
                        self.record_lf = Some(*i);
                        return Ok(ControlFlow::Break(()));
                    }
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
                    b'N' | b'I' => {
                        // Python's json.dumps writes these for float nan
                        // and inf; name the cause, not only the byte.
                        let token = if b == b'N' { "NaN" } else { "Infinity" };
                        return Err(self.fail_at(
                            input,
                            *i,
                            base,
                            &format!(
                                "expected a value, found {} (`{token}` is not JSON)",
                                shown(input, *i)
                            ),
                            "JSON has no NaN or Infinity (Python's json.dumps writes them for float nan and inf unless allow_nan=False); write null, or the number as a string",
                        ));
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
                                let infinity = if input[j] == b'I' {
                                    " (`-Infinity` is not JSON)"
                                } else {
                                    ""
                                };
                                return Err(self.fail_at(
                                    input,
                                    j,
                                    base,
                                    &format!(
                                        "invalid number: unexpected {}{infinity}",
                                        shown(input, j)
                                    ),
                                    "numbers are -?digits[.digits][e[+-]digits]; JSON has no NaN or Infinity (Python's json.dumps writes them unless allow_nan=False): write null, or the number as a string",
                                ));
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
}
