//! The lines of a text stream, each held to a cap: what a line-based
//! reader (a log format, a key-value file) reads with, so none writes
//! its own buffer and none holds a line of a gigabyte because a file has
//! no line break.
//!
//! A line longer than the cap is handed over cut to its first bytes (at
//! a character boundary) with its whole length, and the rest of it is
//! passed over without being held: the reader decides whether that is a
//! fault.

use std::io::BufRead;

use crate::refusal::Refusal;
use crate::stream::TextStream;

/// The cap [`Lines::new`] is usually given: 1 MiB of one line.
pub const LINE_MAX_BYTES: usize = 1 << 20;

/// One line, without its line break (`\n`, or `\r\n`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// Its 1-based number.
    pub number: u64,
    /// The absolute byte offset, in the file, of its first byte.
    pub byte_offset: u64,
    /// Its text; only its first bytes when `cut`.
    pub text: &'a str,
    /// Its whole length in bytes, the line break left out.
    pub len: u64,
    /// Whether it was longer than the cap, so `text` holds its start.
    pub cut: bool,
}

/// The lines of a [`TextStream`], one at a time, each held to a cap.
///
/// ```
/// use plumb_core::{Lines, TextStream};
/// let text = "a=1\r\nb=2\n\nlong line here";
/// let mut lines = Lines::new(TextStream::new(text.as_bytes()), 9);
/// let first = lines.next_line()?.unwrap();
/// assert_eq!((first.number, first.text, first.byte_offset), (1, "a=1", 0));
/// assert_eq!(lines.next_line()?.unwrap().text, "b=2");
/// assert_eq!(lines.next_line()?.unwrap().text, "");
/// let last = lines.next_line()?.unwrap();
/// assert_eq!((last.text, last.len, last.cut), ("long line", 14, true));
/// assert!(lines.next_line()?.is_none());
/// # Ok::<(), plumb_core::Refusal>(())
/// ```
pub struct Lines<R> {
    stream: TextStream<R>,
    cap: usize,
    /// The chunk being read, where in it the next line starts, and the
    /// chunk's offset in the file.
    chunk: String,
    at: usize,
    chunk_offset: u64,
    /// The line being gathered: its kept text, whole length, number and
    /// offset.
    line: String,
    len: u64,
    number: u64,
    line_offset: u64,
    /// The last byte of the line so far is a `\r`.
    last_cr: bool,
    done: bool,
}

impl<R: BufRead> Lines<R> {
    /// The lines of `stream`, each held to `cap` bytes.
    pub fn new(stream: TextStream<R>, cap: usize) -> Lines<R> {
        Lines {
            stream,
            cap,
            chunk: String::new(),
            at: 0,
            chunk_offset: 0,
            line: String::new(),
            len: 0,
            number: 0,
            line_offset: 0,
            last_cr: false,
            done: false,
        }
    }

    /// The next line; `None` at the end of the text. A last line without
    /// a line break is a line; an empty text has none.
    ///
    /// # Errors
    /// The stream's refusals (invalid UTF-8, a read error, a cancel).
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, Refusal> {
        if self.done {
            return Ok(None);
        }
        self.line.clear();
        self.len = 0;
        self.last_cr = false;
        self.line_offset = self.chunk_offset + self.at as u64;
        loop {
            if self.at == self.chunk.len() {
                match self.stream.next_chunk()? {
                    Some(chunk) => {
                        self.chunk.clear();
                        self.chunk.push_str(chunk.text);
                        self.chunk_offset = chunk.byte_offset;
                        self.at = 0;
                        if self.len == 0 {
                            self.line_offset = chunk.byte_offset;
                        }
                    }
                    None => {
                        self.done = true;
                        if self.len == 0 {
                            return Ok(None);
                        }
                        return Ok(Some(self.finish(false)));
                    }
                }
            }
            let rest = &self.chunk[self.at..];
            let (piece, ended) = match memchr::memchr(b'\n', rest.as_bytes()) {
                Some(nl) => (&rest[..nl], true),
                None => (rest, false),
            };
            let room = self.cap.saturating_sub(self.line.len());
            let mut keep = piece.len().min(room);
            while !piece.is_char_boundary(keep) {
                keep -= 1;
            }
            self.line.push_str(&piece[..keep]);
            self.len += piece.len() as u64;
            self.at += piece.len() + usize::from(ended);
            if !piece.is_empty() {
                self.last_cr = piece.ends_with('\r');
            }
            if ended {
                return Ok(Some(self.finish(true)));
            }
        }
    }

    /// The gathered line handed over, a `\r` just before its line break
    /// left out.
    fn finish(&mut self, ended: bool) -> Line<'_> {
        self.number += 1;
        if ended && self.last_cr {
            self.len -= 1;
            if self.line.len() as u64 > self.len {
                self.line.pop();
            }
        }
        Line {
            number: self.number,
            byte_offset: self.line_offset,
            text: &self.line,
            len: self.len,
            cut: self.len > self.line.len() as u64,
        }
    }
}
