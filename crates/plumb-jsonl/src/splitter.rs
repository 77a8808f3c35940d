//! The line splitter: text in, physical lines out, memory bounded.
//!
//! # BE ADVISED
//!
//! Only LF ends a line; one CR just before it is stripped (any other CR
//! is left for the JSON parser, which reads it as white space). A line
//! that lies whole inside one push is handed out as a slice of the input
//! (no copy). Only the part of a line that straddles a push is copied,
//! into one reused buffer, and only up to [`JSONL_MAX_LINE_BYTES`]: past
//! that the line is dropped as it streams and reported, with its length,
//! once its terminator arrives. Every byte is looked at once by `memchr`
//! and copied at most once, so the work is linear in the input; the
//! `bytes_touched` counter lets a test check exactly that.
//!
//! A sink may read lines in place before the splitter looks for their
//! ends ([`LineSink::lines_in_place`]): validation parses each record
//! up to its line feed in one pass (the JSON parser finds the line feed
//! as white space), and leaves the splitter only the lines it cannot
//! judge alone, which then come the usual way.

use std::ops::ControlFlow;

use plumb_core::{PushMachine, Refusal};

/// The longest line kept, in bytes. A longer line (often a whole JSON
/// document saved under a `.jsonl` name) is skipped and reported.
pub const JSONL_MAX_LINE_BYTES: usize = 1 << 20;

/// One physical line.
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    /// The 1-based line number.
    pub number: u64,
    /// The absolute byte offset of its first byte.
    pub byte_offset: u64,
    /// Its bytes, without the LF and without one CR before it.
    pub text: &'a [u8],
}

impl Line<'_> {
    /// Whether the line holds only spaces, tabs and CRs (or nothing).
    pub fn is_blank(&self) -> bool {
        self.text.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
    }
}

/// What the splitter tells its consumer; each callback may stop it.
pub trait LineSink {
    /// A line that fits the cap.
    fn line(&mut self, line: &Line<'_>) -> ControlFlow<()>;
    /// A line longer than [`JSONL_MAX_LINE_BYTES`], dropped unread:
    /// its number, offset and full length in bytes.
    fn oversized(&mut self, number: u64, byte_offset: u64, len: u64) -> ControlFlow<()>;
    /// Reads whole lines at the start of `input` in place, in the one
    /// pass that also finds where each ends, before the splitter looks
    /// for line feeds itself; `number` and `byte_offset` are those of
    /// the first. Returns how many bytes (ending just after a line feed)
    /// and lines it took, and whether to stop. A line it cannot judge
    /// alone (an invalid one, say) it leaves untaken: the splitter then
    /// hands it to [`LineSink::line`] and asks again after it. The
    /// default takes none.
    fn lines_in_place(&mut self, input: &[u8], number: u64, byte_offset: u64) -> InPlace {
        let _ = (input, number, byte_offset);
        InPlace::default()
    }
    /// The end: the input ended or the sink stopped the scan; a sink's
    /// refusal comes out here (none of plumb's line sinks refuses).
    ///
    /// # Errors
    /// The sink's refusal.
    fn finish(&mut self) -> Result<(), Refusal> {
        Ok(())
    }
}

/// What [`LineSink::lines_in_place`] took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InPlace {
    /// Bytes taken: whole lines, each with its line feed.
    pub bytes: usize,
    /// Lines taken.
    pub lines: u64,
    /// Whether the sink stopped the scan after them.
    pub stop: bool,
}

/// Forwards every event through a pointer type, so `&mut S` and
/// `Box<S>` are line sinks wherever `S` is.
macro_rules! forward_line_sink {
    ($($ty:ty),*) => {$(
        impl<S: LineSink + ?Sized> LineSink for $ty {
            fn line(&mut self, line: &Line<'_>) -> ControlFlow<()> {
                (**self).line(line)
            }
            fn oversized(&mut self, number: u64, byte_offset: u64, len: u64) -> ControlFlow<()> {
                (**self).oversized(number, byte_offset, len)
            }
            fn lines_in_place(&mut self, input: &[u8], number: u64, byte_offset: u64) -> InPlace {
                (**self).lines_in_place(input, number, byte_offset)
            }
            fn finish(&mut self) -> Result<(), Refusal> {
                (**self).finish()
            }
        }
    )*};
}

forward_line_sink!(&mut S, Box<S>);

/// The splitter in the one drive loop (`plumb_core::drive`).
impl<S: LineSink + ?Sized> PushMachine<S> for LineSplitter {
    #[inline]
    fn push(&mut self, input: &[u8], sink: &mut S) -> Result<ControlFlow<()>, Refusal> {
        Ok(LineSplitter::push(self, input, sink))
    }
    fn finish(&mut self, sink: &mut S) -> Result<ControlFlow<()>, Refusal> {
        Ok(LineSplitter::finish(self, sink))
    }
    fn close(&mut self, sink: &mut S) -> Result<(), Refusal> {
        sink.finish()
    }
}

/// The sans-IO line splitter.
///
/// ```
/// use std::ops::ControlFlow;
/// use plumb_jsonl::{Line, LineSink, LineSplitter};
///
/// struct Lines(Vec<String>);
/// impl LineSink for Lines {
///     fn line(&mut self, l: &Line<'_>) -> ControlFlow<()> {
///         self.0.push(String::from_utf8_lossy(l.text).into_owned());
///         ControlFlow::Continue(())
///     }
///     fn oversized(&mut self, _: u64, _: u64, _: u64) -> ControlFlow<()> {
///         ControlFlow::Continue(())
///     }
/// }
/// let mut lines = Lines(Vec::new());
/// let mut s = LineSplitter::new(0);
/// let _ = s.push(b"{\"a\":1}\r\n{\"b\"", &mut lines);
/// let _ = s.push(b":2}", &mut lines);
/// let _ = s.finish(&mut lines);
/// assert_eq!(lines.0, ["{\"a\":1}", "{\"b\":2}"]);
/// ```
#[derive(Debug)]
pub struct LineSplitter {
    buf: Vec<u8>,
    oversized: bool,
    /// Bytes of the current line seen so far.
    len: u64,
    line: u64,
    line_offset: u64,
    offset: u64,
    touched: u64,
    stopped: bool,
}

impl LineSplitter {
    /// A splitter whose first pushed byte has absolute offset `base`.
    pub fn new(base: u64) -> LineSplitter {
        LineSplitter {
            buf: Vec::new(),
            oversized: false,
            len: 0,
            line: 1,
            line_offset: base,
            offset: base,
            touched: 0,
            stopped: false,
        }
    }

    /// Bytes scanned plus bytes copied so far: linear in the input.
    pub fn bytes_touched(&self) -> u64 {
        self.touched
    }

    /// Lines completed so far.
    pub fn lines(&self) -> u64 {
        self.line - 1
    }

    fn carry(&mut self, part: &[u8]) {
        if self.oversized {
            return;
        }
        if self.buf.len() + part.len() > JSONL_MAX_LINE_BYTES {
            self.oversized = true;
            self.buf.clear();
            self.buf.shrink_to(0);
            return;
        }
        self.touched += part.len() as u64;
        self.buf.extend_from_slice(part);
    }

    fn emit<S: LineSink + ?Sized>(
        &mut self,
        direct: Option<&[u8]>,
        sink: &mut S,
    ) -> ControlFlow<()> {
        let number = self.line;
        let at = self.line_offset;
        let flow = if self.oversized {
            sink.oversized(number, at, self.len)
        } else {
            let text = direct.unwrap_or(&self.buf);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            sink.line(&Line {
                number,
                byte_offset: at,
                text,
            })
        };
        self.buf.clear();
        self.oversized = false;
        self.len = 0;
        self.line += 1;
        flow
    }

    /// Pushes more text.
    ///
    /// # Termination
    /// Returns `Break` once the sink stopped the scan; later pushes do
    /// nothing. Call [`LineSplitter::finish`] at the end of input.
    pub fn push<S: LineSink + ?Sized>(&mut self, input: &[u8], sink: &mut S) -> ControlFlow<()> {
        if self.stopped {
            return ControlFlow::Break(());
        }
        let base = self.offset;
        self.touched += input.len() as u64;
        let mut start = 0;
        loop {
            if self.len == 0 && !self.oversized {
                // At a line's start with nothing carried: the sink may
                // take lines in place first.
                let taken = sink.lines_in_place(&input[start..], self.line, base + start as u64);
                start += taken.bytes;
                self.line += taken.lines;
                self.line_offset = base + start as u64;
                if taken.stop {
                    self.stopped = true;
                    self.offset = base + start as u64;
                    return ControlFlow::Break(());
                }
            }
            let Some(nl) = memchr::memchr(b'\n', &input[start..]).map(|k| start + k) else {
                break;
            };
            let part = &input[start..nl];
            self.len += part.len() as u64;
            let flow =
                if self.buf.is_empty() && !self.oversized && part.len() <= JSONL_MAX_LINE_BYTES {
                    self.emit(Some(part), sink)
                } else {
                    self.carry(part);
                    self.emit(None, sink)
                };
            start = nl + 1;
            self.line_offset = base + start as u64;
            if flow.is_break() {
                self.stopped = true;
                self.offset = base + start as u64;
                return ControlFlow::Break(());
            }
        }
        let rest = &input[start..];
        self.len += rest.len() as u64;
        self.carry(rest);
        self.offset = base + input.len() as u64;
        ControlFlow::Continue(())
    }

    /// Ends the input: a last line without a terminator is handed out.
    pub fn finish<S: LineSink + ?Sized>(&mut self, sink: &mut S) -> ControlFlow<()> {
        if self.stopped {
            return ControlFlow::Break(());
        }
        self.stopped = true;
        if self.len > 0 || self.oversized {
            return self.emit(None, sink);
        }
        ControlFlow::Continue(())
    }
}
