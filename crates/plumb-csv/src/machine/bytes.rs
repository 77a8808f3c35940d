//! The byte machine: one state transition per byte class, crossing
//! runs of plain bytes eight at a time. It takes whatever the block path
//! hands back, and its results are the reference the block path is
//! tested against.

use std::ops::ControlFlow;

use memchr::memchr2;

use super::{CsvParser, Events, IssueKind, State};

/// Byte classes.
pub(super) const PLAIN: u8 = 0;
pub(super) const DELIM: u8 = 1;
pub(super) const QUOTE: u8 = 2;
pub(super) const LF: u8 = 3;
pub(super) const CR: u8 = 4;

/// Where the run of plain bytes starting at `j` ends: at the first
/// delimiter, quote, CR or LF, or at the end of the input.
///
/// Eight bytes at a time: each byte is compared with the four special
/// bytes by the zero-byte trick on a `u64` (`(v - 0x01..) & !v & 0x80..`
/// flags every zero byte, and the lowest flag is always a true one, so
/// `trailing_zeros` finds the first special byte). The class table
/// finishes the last few bytes and stays the reference.
#[inline(always)]
pub(super) fn plain_run_end(
    input: &[u8],
    mut j: usize,
    (delimiter, quote): (u8, u8),
    class: &[u8; 256],
) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(LO) & !v & HI;
    let d = LO * u64::from(delimiter);
    let q = LO * u64::from(quote);
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

/// The byte classes of a dialect. A dialect without a quote passes the
/// delimiter as its quote, which the delimiter's entry then overwrites.
pub(super) fn class_table(delimiter: u8, quote: u8) -> [u8; 256] {
    let mut t = [PLAIN; 256];
    t[usize::from(quote)] = QUOTE;
    t[usize::from(b'\n')] = LF;
    t[usize::from(b'\r')] = CR;
    // Set last: a delimiter that is also special (never sensible) acts
    // as a delimiter.
    t[usize::from(delimiter)] = DELIM;
    t
}

/// Appends quoted content with each doubled quote made one.
pub(super) fn unescape_into(out: &mut Vec<u8>, mut raw: &[u8], quote: u8) {
    while let Some(k) = memchr::memchr(quote, raw) {
        out.extend_from_slice(&raw[..=k]);
        raw = raw.get(k + 2..).unwrap_or_default();
    }
    out.extend_from_slice(raw);
}

impl CsvParser {
    pub(super) fn run_bytes<S: Events>(
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
                        if self.line <= self.skip_lines {
                            self.skipped_lines += 1;
                            self.state = State::SkipLine;
                            continue;
                        }
                        if class == DELIM && self.runs {
                            // Delimiters that open a line are alignment.
                            *i += 1;
                            continue;
                        }
                        if class == LF || class == CR {
                            self.blank_lines += 1;
                            self.terminator(class);
                            *i += 1;
                            sink.blank_line(self.line - 1)?;
                            continue;
                        }
                        if Some(b) == self.comment && self.line > self.comments_after {
                            self.comment_lines += 1;
                            self.state = State::SkipLine;
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
                        // In a record, this state follows a delimiter: under
                        // runs another one continues the run, and a line
                        // break ends the record with no empty last field.
                        DELIM if self.runs => *i += 1,
                        DELIM => {
                            *i += 1;
                            self.end_field(base + *i as u64, sink)?;
                        }
                        LF | CR => {
                            *i += 1;
                            if !self.runs {
                                self.end_field(base + *i as u64, sink)?;
                            }
                            self.end_record(class, base + *i as u64, sink)?;
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
                    let j = plain_run_end(input, start, (self.delimiter, self.quote), &self.class);
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
                    // A plain byte that opens a line may open a comment.
                    let next_plain_line = next_plain && input.get(*i).copied() != self.comment;
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
                            self.append(&[self.quote], base + *i as u64, sink)?;
                            if self.state == State::Overflow {
                                break;
                            }
                        }
                        LF => {
                            self.end_field(base + *i as u64, sink)?;
                            self.end_record(c, base + *i as u64, sink)?;
                            if next_plain_line {
                                self.begin_record(base + *i as u64, sink)?;
                                self.state = State::Unquoted;
                                continue;
                            }
                            break;
                        }
                        _ => {
                            self.end_field(base + *i as u64, sink)?;
                            self.end_record(c, base + *i as u64, sink)?;
                            break;
                        }
                    }
                },
                State::Quoted => match memchr2(self.quote, b'\n', &input[*i..]) {
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
                        if input[start + k] == self.quote {
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
                            self.append(&[self.quote], base + *i as u64, sink)?;
                        }
                        DELIM => {
                            *i += 1;
                            self.end_field(base + *i as u64, sink)?;
                            self.state = State::FieldStart;
                        }
                        LF | CR => {
                            *i += 1;
                            self.end_field(base + *i as u64, sink)?;
                            self.end_record(c, base + *i as u64, sink)?;
                        }
                        _ => {
                            self.quoting_issue(IssueKind::TextAfterQuote, base + *i as u64, sink)?;
                            self.state = State::Unquoted;
                        }
                    }
                }
                State::SkipLine => match memchr2(b'\n', b'\r', &input[*i..]) {
                    None => *i = n,
                    Some(k) => {
                        *i += k;
                        let c = self.class[usize::from(input[*i])];
                        *i += 1;
                        self.terminator(c);
                        self.state = State::FieldStart;
                    }
                },
                State::Overflow => match memchr2(b'\n', b'\r', &input[*i..]) {
                    None => *i = n,
                    Some(k) => {
                        *i += k;
                        let c = self.class[usize::from(input[*i])];
                        *i += 1;
                        self.end_record(c, base + *i as u64, sink)?;
                    }
                },
            }
        }
        ControlFlow::Continue(())
    }
}
