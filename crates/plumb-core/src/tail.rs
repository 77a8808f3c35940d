//! The last lines of a source, found by reading backwards from its end:
//! what a select of the last N rows or records (`offset: -N`) stands on.
//!
//! A line break inside a quoted field is not a record boundary, and read
//! backwards nothing says whether a break is inside quotes. What does:
//! a file that ends outside quotes (every well-formed table does) is
//! outside quotes at a break exactly when the quotes after that break
//! are even in number. The search takes that, and the reader then parses
//! forward from the boundary it found and checks the parse (see
//! [`TailStart`]); a file whose parse does not hold is read from the
//! start instead, which is always right.

use std::io::{BufRead, BufReader, Read};

use crate::{CancelToken, Refusal, Source, TextStream, CHUNK_BYTES};

/// The bytes read backwards per step.
pub const TAIL_BLOCK_BYTES: usize = 64 * 1024;

/// How far back the search goes before it gives up (and the reader
/// reads from the start instead): a few rows longer than this are rare
/// enough that the slow exact way is the right answer for them.
pub const TAIL_SCAN_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// Where the last lines of a source start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TailStart {
    /// The byte just after a line break (outside quotes, if the file
    /// ends outside them) with at least the lines asked for after it.
    At(u64),
    /// The source holds fewer lines than asked for: all of it.
    Whole,
    /// [`TAIL_SCAN_MAX_BYTES`] passed before enough breaks were found.
    TooFar,
}

/// Where the last `lines` lines of `source` start: line breaks are `\n`
/// (a `\r` before one belongs to its line), the break that ends the last
/// line is not counted, and with a `quote` byte a break is counted only
/// where the quotes after it are even in number. `None` when the source
/// has no random access (a stream): it must be read from the start.
///
/// ```
/// use plumb_core::{last_lines_start, BytesSource, TailStart};
/// let src = BytesSource::new("t.csv", "a,b\n1,\"x\ny\"\n2,z\n");
/// assert_eq!(last_lines_start(&src, 1, Some(b'"')).unwrap()?, TailStart::At(12));
/// // The break inside the quoted field is not a boundary.
/// assert_eq!(last_lines_start(&src, 2, Some(b'"')).unwrap()?, TailStart::At(4));
/// assert_eq!(last_lines_start(&src, 3, Some(b'"')).unwrap()?, TailStart::Whole);
/// # Ok::<(), plumb_core::Refusal>(())
/// ```
///
/// # Errors
/// `read-error` when a read fails.
pub fn last_lines_start(
    source: &dyn Source,
    lines: u64,
    quote: Option<u8>,
) -> Option<Result<TailStart, Refusal>> {
    source.read_at(0, &mut [])?.ok()?;
    let len = source.len()?;
    Some(search(source, len, lines, quote))
}

fn search(
    source: &dyn Source,
    len: u64,
    lines: u64,
    quote: Option<u8>,
) -> Result<TailStart, Refusal> {
    if lines == 0 {
        return Ok(TailStart::At(len));
    }
    let mut block = vec![0u8; TAIL_BLOCK_BYTES];
    let mut hi = len;
    let mut quotes: u64 = 0;
    let mut found: u64 = 0;
    while hi > 0 {
        if len - hi >= TAIL_SCAN_MAX_BYTES {
            return Ok(TailStart::TooFar);
        }
        if source.cancel_token().is_some_and(CancelToken::is_cancelled) {
            return Err(Refusal::aborted(hi));
        }
        let lo = hi.saturating_sub(TAIL_BLOCK_BYTES as u64);
        let buf = &mut block[..(hi - lo) as usize];
        read_exact_at(source, lo, buf)?;
        for (i, &b) in buf.iter().enumerate().rev() {
            let at = lo + i as u64;
            if Some(b) == quote {
                quotes += 1;
            } else if b == b'\n' && at + 1 < len && quotes.is_multiple_of(2) {
                found += 1;
                if found == lines {
                    return Ok(TailStart::At(at + 1));
                }
            }
        }
        hi = lo;
    }
    Ok(TailStart::Whole)
}

fn read_exact_at(source: &dyn Source, at: u64, buf: &mut [u8]) -> Result<(), Refusal> {
    let mut filled = 0;
    while filled < buf.len() {
        match source.read_at(at + filled as u64, &mut buf[filled..]) {
            Some(Ok(0)) => {
                return Err(Refusal::new(
                    crate::RefusalReason::ReadError,
                    format!(
                    "{} ended before its size while reading it from the end; it changed while read",
                    crate::echo(source.name())
                ),
                ))
            }
            Some(Ok(n)) => filled += n,
            Some(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Some(Err(e)) => return Err(Refusal::from_io(&e, Some(source.name()))),
            None => {
                return Err(Refusal::new(
                    crate::RefusalReason::ReadError,
                    "the source lost its random access",
                ))
            }
        }
    }
    Ok(())
}

/// Bytes a part's reader asks its source for at a time: [`CHUNK_BYTES`],
/// as a whole-file scan reads. A chunk is copied in, then passed over by
/// the stream and the parser; one this small is still in the core's
/// cache for each pass, where a read of several hundred KiB is not
/// (`benches/baselines/NOTES.md`).
const PART_READ_BYTES: usize = CHUNK_BYTES;

/// A text stream over bytes `start..end` of a source with random access,
/// for a scan that splits a file into parts read on several threads. The
/// part at 0 is read as a file's head (NUL sniff, BOM); the others as
/// streams inside the file ([`TextStream::mid_file`]), so their offsets
/// are the file's. The source's cancel token is armed. A source without
/// random access gives a read error.
pub fn part_stream(
    source: &dyn Source,
    start: u64,
    end: u64,
) -> TextStream<Box<dyn BufRead + Send + '_>> {
    let reader: Box<dyn BufRead + Send + '_> = match source.open_range(start, end) {
        Some(Ok(r)) => r,
        // The refusal is the stream's first read error.
        Some(Err(r)) => Box::new(BufReader::new(Failed(Some(r)))),
        None => Box::new(BufReader::with_capacity(
            PART_READ_BYTES,
            AtReader {
                inner: source,
                pos: start,
                end,
            },
        )),
    };
    let mut stream = TextStream::from_buf_read(reader);
    if start > 0 {
        stream = stream.mid_file(start);
    }
    match source.cancel_token() {
        Some(token) => stream.with_cancel(token.clone()),
        None => stream,
    }
}

/// The part of a source from a byte on, as a source of its own: a reader
/// parses the last lines of a file by reading this from a boundary that
/// [`last_lines_start`] found.
#[derive(Debug)]
pub struct SliceSource<'a> {
    inner: &'a dyn Source,
    start: u64,
}

impl<'a> SliceSource<'a> {
    /// The bytes of `inner` from `start` to its end.
    pub fn new(inner: &'a dyn Source, start: u64) -> SliceSource<'a> {
        SliceSource { inner, start }
    }
}

/// A reader whose first read gives a refusal that came before it.
struct Failed(Option<Refusal>);

impl Read for Failed {
    fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
        match self.0.take() {
            Some(r) => Err(std::io::Error::other(r.message().to_owned())),
            None => Ok(0),
        }
    }
}

/// Sequential reads through `read_at`, from a position up to an end.
struct AtReader<'a> {
    inner: &'a dyn Source,
    pos: u64,
    end: u64,
}

impl Read for AtReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.end.saturating_sub(self.pos);
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        if want == 0 {
            return Ok(0);
        }
        match self.inner.read_at(self.pos, &mut buf[..want]) {
            Some(Ok(n)) => {
                self.pos += n as u64;
                Ok(n)
            }
            Some(Err(e)) => Err(e),
            None => Err(std::io::Error::other("the source lost its random access")),
        }
    }
}

impl Source for SliceSource<'_> {
    fn open(&self) -> Result<Box<dyn BufRead + Send + '_>, Refusal> {
        Ok(Box::new(BufReader::with_capacity(
            TAIL_BLOCK_BYTES,
            AtReader {
                inner: self.inner,
                pos: self.start,
                end: u64::MAX,
            },
        )))
    }

    fn name(&self) -> &str {
        self.inner.name()
    }

    fn len(&self) -> Option<u64> {
        self.inner.len().map(|l| l.saturating_sub(self.start))
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Option<std::io::Result<usize>> {
        self.inner.read_at(self.start.saturating_add(offset), buf)
    }

    fn cancel_token(&self) -> Option<&CancelToken> {
        self.inner.cancel_token()
    }
}
