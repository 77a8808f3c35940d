//! The chunked text stream: bytes in, validated UTF-8 chunks out, each
//! with the absolute byte offset of its first byte.
//!
//! # How the pieces fit
//!
//! The stream sits on a [`BufRead`] and hands out `&str` slices of the
//! reader's own buffer, so a chunk is validated once and never copied.
//! Three small side paths keep that fast path honest:
//!
//! * **The head.** Before any text leaves, the first
//!   [`BINARY_SNIFF_BYTES`] of the input are looked at for a NUL byte and
//!   a byte order mark. When the reader's first buffer is shorter than the
//!   sniff window (a pipe, a reader that returns one byte at a time) the
//!   head is copied into an owned buffer of at most that size, so the
//!   verdict never depends on how the reads were cut.
//! * **The carry.** A character whose bytes straddle the end of a buffer
//!   is moved (at most 3 bytes) into a 4-byte carry, completed from the
//!   next buffer, validated there and emitted as a chunk of its own.
//! * **The pending refusal.** At the first ill-formed sequence the valid
//!   text before it is still emitted, and the `invalid-utf8` refusal comes
//!   on the next call. The concatenated text before a refusal is thus the
//!   same for every chunking: the bytes before the offending offset.
//!
//! Validation is `std::str::from_utf8`, which implements the Unicode
//! table 3-7 rules (no overlongs, no surrogates, nothing above U+10FFFF,
//! no F5..FF) and reports where the first maximal ill-formed subpart
//! starts. When a stream is dropped, its reader is dropped, so a consumer
//! that stops early reads nothing further.
//!
//! Reference: `std::str::from_utf8` on the whole text. Held equal by:
//! `tests/it/stream.rs::any_chunking_agrees_with_std`.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use crate::cancel::CancelToken;
use crate::refusal::Refusal;

/// Bytes asked of the reader per read: large enough that per-chunk work
/// (a cancellation check, one call into the parser) vanishes against the
/// per-byte work, small enough to stay in the L2 cache.
pub const CHUNK_BYTES: usize = 64 * 1024;

/// The largest chunk handed out from a buffered reader's own buffer
/// (bytes in memory, a caller's `BufRead`): no read is cut finer than the
/// reader's buffer already is, and cancellation is still checked at least
/// once per MiB. Files and plain readers are read [`CHUNK_BYTES`] at a time.
pub const BUFFERED_CHUNK_BYTES: usize = 1 << 20;

/// How far from the start a NUL byte marks the file as binary. Text
/// formats never hold NUL; binary formats almost always do within their
/// first few kilobytes, and a later NUL is left to the format's parser.
pub const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// The UTF-8 byte order mark.
pub const UTF8_BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// One chunk of validated text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// The text. Never empty.
    pub text: &'a str,
    /// The absolute byte offset, in the file, of the first byte of `text`.
    pub byte_offset: u64,
}

/// What the stream learned while reading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct StreamStats {
    /// Whether one leading UTF-8 byte order mark was stripped.
    pub bom: bool,
    /// Bytes of the file consumed so far, the BOM included.
    pub bytes_read: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Fresh,
    Running,
    Done,
}

enum Ready {
    /// Head bytes up to this index of the head.
    Head(usize),
    Carry,
    Body(usize),
    Eof,
}

/// A stream of validated UTF-8 chunks over any byte reader.
///
/// # Example
///
/// ```
/// use plumb_core::TextStream;
///
/// let bytes = "\u{feff}name,value\nα,1\n".as_bytes();
/// let mut stream = TextStream::new(bytes);
/// let mut text = String::new();
/// while let Some(chunk) = stream.next_chunk()? {
///     if text.is_empty() {
///         assert_eq!(chunk.byte_offset, 3); // after the BOM
///     }
///     text.push_str(chunk.text);
/// }
/// assert_eq!(text, "name,value\nα,1\n");
/// assert!(stream.stats().bom);
/// # Ok::<(), plumb_core::Refusal>(())
/// ```
pub struct TextStream<R> {
    reader: R,
    chunk_size: usize,
    cancel: Option<CancelToken>,
    stats: StreamStats,
    /// Absolute offset of the first byte the reader will hand out next.
    offset: u64,
    /// Bytes of the reader's buffer handed out by the last call, consumed
    /// at the start of the next one (the chunk borrowed them until then).
    consume: usize,
    head: Vec<u8>,
    head_pos: usize,
    carry: [u8; 4],
    carry_len: usize,
    carry_offset: u64,
    carry_ready: bool,
    pending: Option<Refusal>,
    state: State,
    /// Absolute offset of the reader's first byte.
    base: u64,
    sniff: bool,
    strip_bom: bool,
    /// The absolute offset past which no text is handed out (the byte
    /// budget of a scan), and whether text was left there unread.
    stop_at: Option<u64>,
    stopped: bool,
}

impl TextStream<BufReader<File>> {
    /// Opens a file for streaming.
    ///
    /// # Errors
    /// `not-found` when nothing is there, `not-a-file` for a directory or
    /// anything else that is not a regular file, `read-error` otherwise.
    pub fn open(path: impl AsRef<Path>) -> Result<TextStream<BufReader<File>>, Refusal> {
        let file = open_file(path.as_ref())?;
        Ok(TextStream::from_buf_read(BufReader::with_capacity(
            CHUNK_BYTES,
            file,
        )))
    }
}

/// Opens a regular file once, refusing anything else (judged on the
/// opened handle) with its typed reason. Kept for callers that want a
/// plain `File`; [`crate::OpenedFile`] also snapshots the size.
///
/// # Errors
/// `not-found`, `not-a-file` or `read-error`.
pub(crate) fn open_file(path: &Path) -> Result<File, Refusal> {
    let opened = crate::file::OpenedFile::open(path)?;
    opened
        .file()
        .try_clone()
        .map_err(|e| Refusal::from_io(&e, Some(opened.name())))
}

impl<R: Read> TextStream<BufReader<R>> {
    /// Streams any reader, reading [`CHUNK_BYTES`] at a time.
    pub fn new(reader: R) -> TextStream<BufReader<R>> {
        TextStream::from_buf_read(BufReader::with_capacity(CHUNK_BYTES, reader))
    }
}

impl<R: BufRead> TextStream<R> {
    /// Streams a buffered reader, handing out slices of its own buffer
    /// (at most [`BUFFERED_CHUNK_BYTES`] each; a `BufReader` over a file
    /// hands out its 64 KiB reads).
    pub fn from_buf_read(reader: R) -> TextStream<R> {
        TextStream {
            reader,
            chunk_size: BUFFERED_CHUNK_BYTES,
            cancel: None,
            stats: StreamStats::default(),
            offset: 0,
            consume: 0,
            head: Vec::new(),
            head_pos: 0,
            carry: [0; 4],
            carry_len: 0,
            carry_offset: 0,
            carry_ready: false,
            pending: None,
            state: State::Fresh,
            base: 0,
            sniff: true,
            strip_bom: true,
            stop_at: None,
            stopped: false,
        }
    }

    /// Ends the text at the first character boundary at or after
    /// absolute offset `stop_at` (none: at the end of the input), the
    /// same place however the reads are cut. Text left after it makes
    /// [`TextStream::stopped_early`] true: a scan that reads such a
    /// stream answers from a prefix and says so.
    ///
    /// ```
    /// use plumb_core::TextStream;
    /// let mut stream = TextStream::new(&b"ab\xC3\xA9cd"[..]).with_chunk_size(1).within(Some(3));
    /// let mut text = String::new();
    /// while let Some(chunk) = stream.next_chunk()? {
    ///     text.push_str(chunk.text);
    /// }
    /// assert_eq!((text.as_str(), stream.stopped_early()), ("ab\u{e9}", true));
    /// # Ok::<(), plumb_core::Refusal>(())
    /// ```
    #[must_use]
    pub fn within(mut self, stop_at: Option<u64>) -> TextStream<R> {
        self.stop_at = stop_at;
        self
    }

    /// Whether the stream ended at its [`TextStream::within`] bound with
    /// text left after it.
    pub fn stopped_early(&self) -> bool {
        self.stopped
    }

    /// For a stream that starts inside a file: its reader's first byte
    /// has absolute offset `base`, it does not sniff for NUL (that is a
    /// judgement on the file's head, made by whoever read the head) and
    /// does not strip a BOM (one can only lead a file).
    pub fn mid_file(mut self, base: u64) -> TextStream<R> {
        self.base = base;
        self.offset = base;
        self.sniff = false;
        self.strip_bom = false;
        self
    }

    /// Caps the size of a chunk (at least 1). Tests use tiny chunks to
    /// put an edge at every byte.
    pub fn with_chunk_size(mut self, chunk_size: usize) -> TextStream<R> {
        self.chunk_size = chunk_size.max(1);
        self
    }

    /// Checks `token` before each chunk; once cancelled the stream
    /// refuses `aborted`.
    pub fn with_cancel(mut self, token: CancelToken) -> TextStream<R> {
        self.cancel = Some(token);
        self
    }

    /// What the stream has learned so far.
    pub fn stats(&self) -> StreamStats {
        self.stats
    }

    /// The absolute offset of the next byte that has not been handed out.
    pub fn position(&self) -> u64 {
        if self.head_pos < self.head.len() {
            self.base + self.head_pos as u64
        } else if self.carry_len > 0 && !self.carry_ready {
            self.carry_offset
        } else {
            self.offset + self.consume as u64
        }
    }

    /// Ends the stream early and hands back what it had not handed out:
    /// bytes it had read but not emitted (in order), and the reader,
    /// positioned after them. For a caller that validated what it needed
    /// and only counts the rest.
    pub fn into_remainder(mut self) -> (Vec<u8>, R) {
        if self.consume > 0 {
            self.reader.consume(self.consume);
        }
        let mut rest = Vec::new();
        if self.head_pos < self.head.len() {
            rest.extend_from_slice(&self.head[self.head_pos..]);
        }
        if self.carry_len > 0 && !self.carry_ready {
            rest.extend_from_slice(&self.carry[..self.carry_len]);
        }
        (rest, self.reader)
    }

    /// The next chunk of text, or `None` at the end of the input.
    ///
    /// # Termination
    /// Call until it returns `Ok(None)` or an error; after either, every
    /// further call returns `Ok(None)`.
    ///
    /// # Errors
    /// `binary` (a NUL in the first [`BINARY_SNIFF_BYTES`]),
    /// `invalid-utf8` (with the offset of the first ill-formed sequence,
    /// after the text before it was handed out), `aborted` when the cancel
    /// token fired, `read-error` when the reader failed.
    pub fn next_chunk(&mut self) -> Result<Option<Chunk<'_>>, Refusal> {
        if self.consume > 0 {
            self.reader.consume(self.consume);
            self.offset += self.consume as u64;
            self.stats.bytes_read = self.offset;
            self.consume = 0;
        }
        if self.carry_ready {
            self.carry_ready = false;
            self.carry_len = 0;
        }
        if self.state == State::Done {
            return Ok(None);
        }
        if let Some(refusal) = self.pending.take() {
            self.state = State::Done;
            return Err(refusal);
        }
        if self.cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
            self.state = State::Done;
            return Err(Refusal::aborted(self.position()));
        }
        if self.stop_at.is_some_and(|end| self.position() >= end) {
            self.end_at_bound();
            return Ok(None);
        }
        let ready = match self.prepare() {
            Ok(ready) => ready,
            Err(refusal) => {
                self.state = State::Done;
                return Err(refusal);
            }
        };
        match ready {
            Ready::Eof => {
                self.state = State::Done;
                Ok(None)
            }
            Ready::Head(end) if end == self.head_pos => {
                // The bound falls before the text after a stripped BOM.
                self.end_at_bound();
                Ok(None)
            }
            Ready::Head(end) => {
                let start = self.head_pos;
                self.head_pos = end;
                match emit(
                    &self.head[start..end],
                    self.base + start as u64,
                    &mut self.pending,
                ) {
                    Ok(chunk) => Ok(chunk),
                    Err(refusal) => {
                        self.state = State::Done;
                        Err(refusal)
                    }
                }
            }
            Ready::Carry => {
                self.carry_ready = true;
                // `prepare` validated the completed character.
                let text = std::str::from_utf8(&self.carry[..self.carry_len]).unwrap_or_default();
                Ok(Some(Chunk {
                    text,
                    byte_offset: self.carry_offset,
                }))
            }
            Ready::Body(cut) => {
                let buf = match self.reader.fill_buf() {
                    Ok(buf) => buf,
                    Err(e) => {
                        self.state = State::Done;
                        return Err(io_refusal(&e, self.offset));
                    }
                };
                let bytes = buf.get(..cut).unwrap_or_default();
                let chunk = match emit(bytes, self.offset, &mut self.pending) {
                    Ok(chunk) => chunk,
                    Err(refusal) => {
                        self.state = State::Done;
                        return Err(refusal);
                    }
                };
                self.consume = chunk.map_or(0, |c| c.text.len());
                self.stats.bytes_read = self.offset + self.consume as u64;
                Ok(chunk)
            }
        }
    }

    /// Ends the stream at its bound: whatever the input still holds
    /// (text, or bytes that would be refused) is left unread, and marks
    /// the stream stopped early when there is any.
    fn end_at_bound(&mut self) {
        self.stop_at = None;
        self.stopped = !matches!(self.next_chunk(), Ok(None));
        self.state = State::Done;
    }

    /// Reads the head on the first call, then finds the next piece of
    /// text to hand out: head bytes, a completed carry, or a prefix of the
    /// reader's buffer that ends on a character boundary.
    fn prepare(&mut self) -> Result<Ready, Refusal> {
        if self.state == State::Fresh {
            self.state = State::Running;
            self.read_head()?;
        }
        loop {
            if self.head_pos < self.head.len() {
                let rest = &self.head[self.head_pos..];
                let room = bounded_room(self.stop_at, self.base + self.head_pos as u64, rest);
                if room < rest.len() {
                    let cut = match complete_prefix_len(&rest[..room]) {
                        0 => room,
                        cut => cut,
                    };
                    return Ok(Ready::Head(self.head_pos + cut));
                }
                let cut = complete_prefix_len(rest);
                if cut < rest.len() {
                    let tail_at = self.head_pos + cut;
                    let mut tail = [0u8; 4];
                    let n = self.head.len() - tail_at;
                    tail[..n].copy_from_slice(&self.head[tail_at..]);
                    self.start_carry(self.base + tail_at as u64, &tail[..n]);
                    self.head.truncate(tail_at);
                }
                if cut > 0 {
                    return Ok(Ready::Head(self.head.len()));
                }
                continue;
            }
            if self.carry_len > 0 {
                let buf = fill(&mut self.reader, self.offset)?;
                if buf.is_empty() {
                    return Err(Refusal::invalid_utf8(self.carry_offset));
                }
                let need = sequence_width(self.carry[0]);
                let take = need.saturating_sub(self.carry_len).min(buf.len());
                self.carry[self.carry_len..self.carry_len + take].copy_from_slice(&buf[..take]);
                self.carry_len += take;
                self.reader.consume(take);
                self.offset += take as u64;
                self.stats.bytes_read = self.offset;
                match std::str::from_utf8(&self.carry[..self.carry_len]) {
                    Ok(_) => return Ok(Ready::Carry),
                    Err(e) if e.error_len().is_some() => {
                        return Err(Refusal::invalid_utf8(
                            self.carry_offset + e.valid_up_to() as u64,
                        ))
                    }
                    Err(_) => continue,
                }
            }
            let chunk_size = self.chunk_size;
            let (stop_at, offset) = (self.stop_at, self.offset);
            let buf = fill(&mut self.reader, self.offset)?;
            if buf.is_empty() {
                return Ok(Ready::Eof);
            }
            let slice = &buf[..buf.len().min(chunk_size)];
            let slice = &slice[..bounded_room(stop_at, offset, slice)];
            let cut = complete_prefix_len(slice);
            if cut > 0 {
                return Ok(Ready::Body(cut));
            }
            let n = slice.len();
            let mut tail = [0u8; 4];
            tail[..n].copy_from_slice(slice);
            self.reader.consume(n);
            self.start_carry(self.offset, &tail[..n]);
            self.offset += n as u64;
            self.stats.bytes_read = self.offset;
        }
    }

    fn start_carry(&mut self, at: u64, bytes: &[u8]) {
        let n = bytes.len().min(4);
        self.carry[..n].copy_from_slice(&bytes[..n]);
        self.carry_len = n;
        self.carry_offset = at;
    }

    /// Fills the head, sniffs it for NUL bytes and strips a BOM.
    fn read_head(&mut self) -> Result<(), Refusal> {
        loop {
            let buf = fill(&mut self.reader, self.offset)?;
            if self.head.is_empty() && buf.len() >= BINARY_SNIFF_BYTES {
                // The reader's own buffer covers the window: no copy.
                if self.sniff {
                    sniff(&buf[..BINARY_SNIFF_BYTES])?;
                }
                if self.strip_bom && buf.starts_with(&UTF8_BOM) {
                    self.reader.consume(UTF8_BOM.len());
                    self.offset += UTF8_BOM.len() as u64;
                    self.stats.bom = true;
                    self.stats.bytes_read = self.offset;
                }
                return Ok(());
            }
            if buf.is_empty() {
                break;
            }
            let take = buf.len().min(BINARY_SNIFF_BYTES - self.head.len());
            self.head.extend_from_slice(&buf[..take]);
            self.reader.consume(take);
            self.offset += take as u64;
            self.stats.bytes_read = self.offset;
            if self.head.len() == BINARY_SNIFF_BYTES {
                break;
            }
        }
        if self.sniff {
            sniff(&self.head)?;
        }
        if self.strip_bom && self.head.starts_with(&UTF8_BOM) {
            self.head_pos = UTF8_BOM.len();
            self.stats.bom = true;
        }
        Ok(())
    }
}

impl<R> std::fmt::Debug for TextStream<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextStream")
            .field("offset", &self.offset)
            .field("counts", &self.stats)
            .finish_non_exhaustive()
    }
}

/// Validates `bytes` (which end on a character boundary unless they are
/// ill-formed) and hands out the valid prefix, parking a refusal for the
/// next call when there is one.
/// Bytes of a piece at absolute offset `at` that may be handed out
/// before the bound `stop_at`: all of `bytes` without one, else up to
/// the first character boundary at or after it.
fn bounded_room(stop_at: Option<u64>, at: u64, bytes: &[u8]) -> usize {
    let Some(end) = stop_at else {
        return bytes.len();
    };
    let mut k = usize::try_from(end.saturating_sub(at)).unwrap_or(usize::MAX);
    if k >= bytes.len() {
        return bytes.len();
    }
    while k < bytes.len() && bytes[k] & 0xC0 == 0x80 {
        k += 1;
    }
    k
}

fn emit<'a>(
    bytes: &'a [u8],
    base: u64,
    pending: &mut Option<Refusal>,
) -> Result<Option<Chunk<'a>>, Refusal> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(Some(Chunk {
            text,
            byte_offset: base,
        })),
        Err(e) => {
            let valid = e.valid_up_to();
            let refusal = Refusal::invalid_utf8(base + valid as u64);
            if valid == 0 {
                return Err(refusal);
            }
            *pending = Some(refusal);
            // Validated a moment ago; this second pass runs once per file.
            let text = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
            Ok(Some(Chunk {
                text,
                byte_offset: base,
            }))
        }
    }
}

fn fill<R: BufRead>(reader: &mut R, offset: u64) -> Result<&[u8], Refusal> {
    loop {
        match reader.fill_buf() {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_refusal(&e, offset)),
        }
    }
    reader.fill_buf().map_err(|e| io_refusal(&e, offset))
}

fn io_refusal(err: &io::Error, offset: u64) -> Refusal {
    Refusal::from_io(err, None).with_byte_offset(offset)
}

fn sniff(window: &[u8]) -> Result<(), Refusal> {
    match memchr::memchr(0, window.get(..BINARY_SNIFF_BYTES).unwrap_or(window)) {
        Some(at) => Err(Refusal::binary(at as u64)),
        None => Ok(()),
    }
}

/// The judgement every text read makes on a file's head, and the one
/// place it is written: a NUL in the first [`BINARY_SNIFF_BYTES`] is
/// `binary`; otherwise the answer is the length of a leading UTF-8 BOM
/// (0 or 3), which text readers skip. [`TextStream`] makes it on the
/// bytes it streams; a reader that starts elsewhere in the file (a tail
/// read) makes it on the head it read itself.
///
/// ```
/// use plumb_core::{judge_head, RefusalReason};
/// assert_eq!(judge_head(b"\xEF\xBB\xBFid,name\n").unwrap(), 3);
/// assert_eq!(judge_head(b"a,b\n\x00").unwrap_err().byte_offset(), Some(4));
/// ```
///
/// # Errors
/// `binary`, with the offset of the first NUL.
pub fn judge_head(head: &[u8]) -> Result<usize, Refusal> {
    sniff(head)?;
    Ok(if head.starts_with(&UTF8_BOM) {
        UTF8_BOM.len()
    } else {
        0
    })
}

/// How many bytes a sequence with this lead byte has. Bytes that cannot
/// lead count as 1: the validator then reports them where they stand.
fn sequence_width(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// The length of the longest prefix of `bytes` that does not end inside
/// a multi-byte sequence, judged from the last lead byte alone; whether
/// the sequences are well formed is the validator's business.
fn complete_prefix_len(bytes: &[u8]) -> usize {
    let n = bytes.len();
    let floor = n.saturating_sub(3);
    let mut i = n;
    while i > floor {
        i -= 1;
        let b = bytes[i];
        if b & 0xC0 != 0x80 {
            return if n - i < sequence_width(b) { i } else { n };
        }
    }
    n
}
