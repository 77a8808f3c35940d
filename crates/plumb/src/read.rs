//! `read`: a line interval of any text file, streamed.
//!
//! Lines `[offset, offset + limit)` come back with their own terminators,
//! so reading a whole small file returns its exact bytes. Two ceilings
//! bound an answer, and the tighter decides: [`READ_MAX_LINES`] lines and
//! [`READ_MAX_BYTES`] bytes. The first line always travels (cut at a
//! character boundary if it alone passes the byte ceiling, and marked
//! `line_truncated`), so `next_offset` always moves and a caller can
//! never loop on the same offset.
//!
//! The file's head is sniffed for NUL (`binary`) as for every operation;
//! the returned lines pass the strict UTF-8 check (`invalid-utf8` with the
//! offset); the lines before and after them are only counted, by a
//! `memchr` newline scan, so a read near the start of a huge file waits
//! only for that count, and a read near its end costs little more. A negative offset
//! reads the last lines by reading backwards from the end of the file,
//! without scanning the rest.

use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::Path;

use serde::Serialize;

use crate::encoding::TextEncoding;
use crate::layers::{Layers, SourceChoice};

use plumb_core::{
    judge_head, CancelToken, FileSource, Refusal, RefusalReason, Source, TextStream,
    BINARY_SNIFF_BYTES, CHUNK_BYTES,
};

/// The most lines one read returns, and the default: a default below the
/// cap would hide the cap from every caller that never sets a limit.
pub const READ_MAX_LINES: u64 = 512;

/// The most bytes of text one read returns. 512 ordinary lines of source
/// fit; a minified bundle's single line is cut here rather than flooding
/// the caller, and the answer still fits a 32 KiB observation.
pub const READ_MAX_BYTES: usize = 24 * 1024;

/// The most text a forward read of decoded text (a compressed file, a
/// zip member, another encoding) reads past its answer to count the
/// file's lines: past it `total_lines` is left unknown, so a small file
/// that decompresses to gigabytes answers at once. A pipe or standard
/// input is never read past the answer (it may never end).
pub const READ_COUNT_MAX_BYTES: u64 = 256 << 20;

/// What to read.
#[derive(Clone, Debug)]
pub struct ReadRequest {
    /// The first line, counted from 0; negative: that many lines from the end.
    pub offset: i64,
    /// How many lines; `None` is the line cap. Zero is refused.
    pub limit: Option<u64>,
    /// The line cap (default [`READ_MAX_LINES`]).
    pub max_lines: u64,
    /// The byte ceiling (default [`READ_MAX_BYTES`]).
    pub max_bytes: usize,
    /// The text encoding of a file without a byte order mark (`None`:
    /// UTF-8).
    pub encoding: Option<TextEncoding>,
    /// The member of a zip archive to read.
    pub member: Option<String>,
}

impl Default for ReadRequest {
    fn default() -> ReadRequest {
        ReadRequest {
            offset: 0,
            limit: None,
            max_lines: READ_MAX_LINES,
            max_bytes: READ_MAX_BYTES,
            encoding: None,
            member: None,
        }
    }
}

/// The answer of a read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ReadAnswer {
    /// Always true.
    pub ok: bool,
    /// The path as the caller gave it.
    pub path: String,
    /// The lines, each with its own terminator.
    pub text: String,
    /// The length of `text` in bytes.
    pub bytes: u64,
    /// Lines in the file: only when the answer is partial, and not for
    /// a source of unknown length (a pipe, decompressed or transcoded
    /// text), which is not read past the answer (`next_offset` then
    /// says that lines follow).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_lines: Option<u64>,
    /// The offset to continue from: only when lines follow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
    /// Set when the first line alone passed the byte ceiling and was cut.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub line_truncated: bool,
    /// Tail reads: how many lines from the end were asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_end: Option<u64>,
    /// Tail reads: the byte offset where `text` starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u64>,
    /// The compression the file was read through (`gzip`): lines count
    /// the decompressed text, and a tail read streamed to the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<&'static str>,
    /// Tail reads of a source without random access (a stream,
    /// decompressed or transcoded text): the text was read once to its
    /// end, there being no backward seek.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub streamed: bool,
    /// The zip member read, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    /// The text encoding transcoded from (`utf-16le`), if not UTF-8.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<&'static str>,
}

/// Reads a line interval of a file.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("notes.txt");
/// std::fs::write(&path, "one\ntwo\r\nthree")?;
/// let all = plumb::read::read(&path, &plumb::read::ReadRequest::default())?;
/// assert_eq!(all.text, "one\ntwo\r\nthree");
/// assert_eq!(all.total_lines, None);
/// let req = plumb::read::ReadRequest { offset: 1, limit: Some(1), ..Default::default() };
/// let mid = plumb::read::read(&path, &req)?;
/// assert_eq!((mid.text.as_str(), mid.total_lines, mid.next_offset), ("two\r\n", Some(3), Some(2)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// `invalid-argument` for a zero limit; `not-found`, `not-a-file`,
/// `binary`, `invalid-utf8` (with the offset), `aborted`, `read-error`.
pub fn read(path: &Path, req: &ReadRequest) -> Result<ReadAnswer, Refusal> {
    read_source(&FileSource::new(path)?, req)
}

/// Reads a line interval of any source opened once (a file judged
/// beneath a root, bytes in memory): forward reads stream it from the
/// start; a negative offset reads the end by [`Source::read_at`]. The
/// source's cancel token cancels the read.
///
/// ```
/// use plumb::read::{read_source, ReadRequest};
/// let source = plumb::BytesSource::new("log.txt", "a\nb\nc\n");
/// let last = read_source(&source, &ReadRequest { offset: -1, ..Default::default() })?;
/// assert_eq!((last.text.as_str(), last.byte_offset), ("c\n", Some(4)));
/// # Ok::<(), plumb::Refusal>(())
/// ```
///
/// # Errors
/// As [`read`]; `read-error` when a file shrinks while it is read;
/// `invalid-argument` for a negative offset on a source without random
/// access.
pub fn read_source(source: &dyn Source, req: &ReadRequest) -> Result<ReadAnswer, Refusal> {
    let mut layers = Layers::default();
    let choice = SourceChoice {
        encoding: req.encoding,
        member: req.member.clone(),
    };
    // A file is counted to its end, its decoded text within a budget; a
    // stream is not read past the answer.
    let stream = source.len().is_none();
    let mut answer = crate::layers::through(source, &choice, &mut layers, &mut |s, layers, _| {
        let budget = if stream {
            Some(0)
        } else if layers.is_empty() {
            None
        } else {
            Some(READ_COUNT_MAX_BYTES)
        };
        if layers.is_empty() {
            read_plain(s, req, budget)
        } else {
            read_decoded(s, req, budget)
        }
    })?;
    answer.container = layers.container;
    answer.member = layers.member;
    answer.encoding = layers.encoding;
    Ok(answer)
}

/// A read through layers (a compressed file, a zip member, text in
/// another encoding): as on a plain file, with a tail read streamed (the
/// layers have no backward seek), and no `byte_offset` in the answer,
/// since the text's offsets are not the file's.
fn read_decoded(
    source: &dyn Source,
    req: &ReadRequest,
    count_budget: Option<u64>,
) -> Result<ReadAnswer, Refusal> {
    let mut answer = read_plain(source, req, count_budget)?;
    answer.byte_offset = None;
    Ok(answer)
}

/// [`read_source`] on a source read as it is. `count_budget`: how far
/// past the answer the text is read to count its lines (`None`: to the
/// end).
fn read_plain(
    source: &dyn Source,
    req: &ReadRequest,
    count_budget: Option<u64>,
) -> Result<ReadAnswer, Refusal> {
    let name = source.name();
    let limit = match req.limit {
        Some(0) => return Err(plumb_core::zero_limit(req.max_lines.max(1))),
        Some(n) => n.min(req.max_lines.max(1)),
        None => req.max_lines.max(1),
    };
    let max_bytes = req.max_bytes.max(4);
    let cancel = source.cancel_token();
    let random_access = source.len().is_some() && source.read_at(0, &mut []).is_some();
    let answer = if req.offset < 0 && random_access {
        tail(
            source,
            req.offset.unsigned_abs().min(limit),
            max_bytes,
            cancel,
        )
    } else if req.offset < 0 {
        streamed_tail(
            name,
            source.open()?,
            req.offset.unsigned_abs().min(limit),
            max_bytes,
            cancel,
        )
    } else {
        forward(
            name,
            source.open()?,
            req.offset as u64,
            limit,
            max_bytes,
            cancel,
            count_budget,
        )
    };
    answer.map_err(|r| {
        let r = crate::ops::locate_invalid_utf8(source, r);
        if r.path().is_none() {
            r.with_path(name)
        } else {
            r
        }
    })
}

/// Cuts `piece` to at most `room` bytes at a character boundary.
fn cut_at(piece: &str, room: usize) -> &str {
    let mut end = room.min(piece.len());
    while !piece.is_char_boundary(end) {
        end -= 1;
    }
    &piece[..end]
}

/// A stream whose head was read to be judged, then put back in front.
type Judged<R> = std::io::Chain<Cursor<Vec<u8>>, R>;

/// The stream with its head judged: the binary sniff and the BOM are
/// judgements on the first bytes, made once; the stream comes back with
/// the BOM consumed, and the BOM's length.
fn judged<R: BufRead>(mut reader: R) -> Result<(Judged<R>, usize), Refusal> {
    let mut head = Vec::with_capacity(BINARY_SNIFF_BYTES);
    (&mut reader)
        .take(BINARY_SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|e| Refusal::from_io(&e, None))?;
    let bom = judge_head(&head)?;
    let mut src = Cursor::new(head).chain(reader);
    src.consume(bom);
    Ok((src, bom))
}

fn forward<R: BufRead>(
    name: &str,
    reader: R,
    offset: u64,
    limit: u64,
    max_bytes: usize,
    cancel: Option<&CancelToken>,
    count_budget: Option<u64>,
) -> Result<ReadAnswer, Refusal> {
    // The head: the binary sniff and the BOM are judgements on the file's
    // first bytes, made once (the stream below starts mid-file).
    let (mut src, bom) = judged(reader)?;
    let mut pos = bom as u64;
    // Skip to the first line of the interval with a raw newline count:
    // lines that are not returned are not judged, only counted.
    let mut line: u64 = 0;
    let mut last: Option<u8> = None;
    while line < offset {
        if cancel.is_some_and(CancelToken::is_cancelled) {
            return Err(Refusal::aborted(pos));
        }
        let buf = src.fill_buf().map_err(|e| Refusal::from_io(&e, None))?;
        if buf.is_empty() {
            break;
        }
        // Blocks of 64 KiB: whole blocks are counted at memchr speed, and
        // only the block holding the interval's start is walked newline
        // by newline.
        let buf = &buf[..buf.len().min(CHUNK_BYTES)];
        let need = offset - line;
        let n = memchr::memchr_iter(b'\n', buf).count() as u64;
        let used = if n < need {
            line += n;
            buf.len()
        } else {
            line = offset;
            memchr::memchr_iter(b'\n', buf)
                .nth((need - 1) as usize)
                .map_or(buf.len(), |p| p + 1)
        };
        last = buf.get(used.wrapping_sub(1)).copied().or(last);
        src.consume(used);
        pos += used as u64;
    }
    let mut newlines = line;
    let mut any = pos > bom as u64;
    let mut last_was_newline = last.is_none_or(|b| b == b'\n');
    let mut stream = TextStream::from_buf_read(src).mid_file(pos);
    if let Some(token) = cancel {
        stream = stream.with_cancel(token.clone());
    }
    let mut out = String::new();
    let mut taken: u64 = 0;
    let mut line_start = 0usize;
    let mut in_line = false;
    let mut cutting = false;
    let mut truncated = false;
    let mut done = false;
    let mut unknown_total = false;
    while let Some(chunk) = stream.next_chunk()? {
        let text = chunk.text;
        any = true;
        last_was_newline = text.ends_with('\n');
        let mut s = text;
        while !done && !s.is_empty() {
            if !in_line {
                if taken == limit {
                    done = true;
                    break;
                }
                in_line = true;
                line_start = out.len();
            }
            let (piece, ends) = match memchr::memchr(b'\n', s.as_bytes()) {
                Some(p) => (&s[..=p], true),
                None => (s, false),
            };
            s = &s[piece.len()..];
            if !cutting {
                if out.len() + piece.len() <= max_bytes {
                    out.push_str(piece);
                } else if taken == 0 {
                    out.push_str(cut_at(piece, max_bytes - out.len()));
                    cutting = true;
                    truncated = true;
                } else {
                    // This line does not fit; it starts the next answer.
                    out.truncate(line_start);
                    done = true;
                    if ends {
                        newlines += 1;
                    }
                    break;
                }
            }
            if ends {
                newlines += 1;
                in_line = false;
                cutting = false;
                taken += 1;
            }
        }
        if done {
            // Count what is left of this chunk, then the rest of the file,
            // without validating it: only newlines matter now.
            newlines += memchr::memchr_iter(b'\n', s.as_bytes()).count() as u64;
            let tail_newline = !s.is_empty() && s.ends_with('\n');
            let ended_here = s.is_empty();
            let (rest, mut reader) = stream.into_remainder();
            let (n, last, complete) = count_rest(&rest, &mut reader, cancel, count_budget)?;
            if !complete {
                // Lines follow; how many is left unknown.
                unknown_total = true;
                break;
            }
            newlines += n;
            last_was_newline = match last {
                Some(b) => b == b'\n',
                None if ended_here => last_was_newline,
                None => tail_newline,
            };
            break;
        }
    }
    if in_line && !done {
        // The file ended inside the last line, which was taken.
        taken += 1;
    }
    let total = newlines + u64::from(any && !last_was_newline);
    let next = offset + taken;
    let (total_lines, next_offset) = if unknown_total {
        (None, Some(next))
    } else if offset >= total && !(offset == 0 && total == 0) {
        // Past the end: the total, and no offset that would read nothing again.
        (Some(total), None)
    } else if next < total {
        (Some(total), Some(next))
    } else if truncated {
        (Some(total), None)
    } else {
        (None, None)
    };
    Ok(ReadAnswer {
        ok: true,
        path: name.to_owned(),
        bytes: out.len() as u64,
        text: out,
        total_lines,
        next_offset,
        line_truncated: truncated,
        from_end: None,
        byte_offset: None,
        container: None,
        streamed: false,
        member: None,
        encoding: None,
    })
}

/// Counts newlines in `rest` and then in the rest of `reader`, reading
/// at most `budget` bytes of it (`None`: to the end); returns the count,
/// the last byte seen, and whether the end was reached.
fn count_rest<R: BufRead>(
    rest: &[u8],
    reader: &mut R,
    cancel: Option<&CancelToken>,
    budget: Option<u64>,
) -> Result<(u64, Option<u8>, bool), Refusal> {
    let mut n = memchr::memchr_iter(b'\n', rest).count() as u64;
    let mut last = rest.last().copied();
    let mut read = rest.len() as u64;
    loop {
        if cancel.is_some_and(CancelToken::is_cancelled) {
            return Err(Refusal::aborted(0));
        }
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Refusal::from_io(&e, None)),
        };
        if buf.is_empty() {
            return Ok((n, last, true));
        }
        if budget.is_some_and(|b| read >= b) {
            return Ok((n, last, false));
        }
        n += memchr::memchr_iter(b'\n', buf).count() as u64;
        last = buf.last().copied();
        let len = buf.len();
        read += len as u64;
        reader.consume(len);
    }
}

const BLOCK: u64 = 64 * 1024;

/// Reads `buf.len()` bytes at `pos`, by the source's random access.
fn read_exact_at(source: &dyn Source, mut pos: u64, mut buf: &mut [u8]) -> Result<(), Refusal> {
    let io = |e: std::io::Error| Refusal::from_io(&e, Some(source.name()));
    while !buf.is_empty() {
        let n = match source.read_at(pos, buf) {
            None => return Err(no_random_access(source)),
            Some(Ok(0)) => {
                return Err(io(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!("the source ended at byte {pos}, before its length"),
                )))
            }
            Some(Ok(n)) => n,
            Some(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Some(Err(e)) => return Err(io(e)),
        };
        pos += n as u64;
        buf = &mut buf[n..];
    }
    Ok(())
}

fn no_random_access(source: &dyn Source) -> Refusal {
    Refusal::invalid_argument(format!(
        "`{}` cannot be read from its end: it is a stream without random access; read it with a non-negative offset",
        plumb_core::echo(source.name())
    ))
}

/// A reader over `[pos, end)` of a source, by random access.
struct Region<'a> {
    source: &'a dyn Source,
    pos: u64,
    end: u64,
}

impl Read for Region<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = usize::try_from(self.end.saturating_sub(self.pos))
            .unwrap_or(usize::MAX)
            .min(buf.len());
        if want == 0 {
            return Ok(0);
        }
        let n = self
            .source
            .read_at(self.pos, &mut buf[..want])
            .unwrap_or_else(|| Err(std::io::Error::other("no random access")))?;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("the source ended at byte {}, before its length", self.pos),
            ));
        }
        self.pos += n as u64;
        Ok(n)
    }
}

/// The last lines of a stream without random access (standard input, a
/// pipe, decompressed or transcoded text), in one pass and fixed memory:
/// the last `max_bytes` bytes, the starts of the last `wanted` lines,
/// and the first `max_bytes` bytes of the last two lines (for a last
/// line too long to travel whole). Answers as [`tail`] does on a file.
fn streamed_tail<R: BufRead>(
    name: &str,
    reader: R,
    wanted: u64,
    max_bytes: usize,
    cancel: Option<&CancelToken>,
) -> Result<ReadAnswer, Refusal> {
    let (mut src, bom) = judged(reader)?;
    let keep = usize::try_from(wanted)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    // The window holds the stream's bytes [window_at, pos).
    let mut window: Vec<u8> = Vec::new();
    let mut window_at = bom as u64;
    let mut pos = bom as u64;
    let mut starts: std::collections::VecDeque<u64> = std::collections::VecDeque::from([pos]);
    let (mut line_prefix, mut done_prefix) = (Vec::new(), Vec::new());
    loop {
        if cancel.is_some_and(CancelToken::is_cancelled) {
            return Err(Refusal::aborted(pos));
        }
        let buf = src.fill_buf().map_err(|e| Refusal::from_io(&e, None))?;
        if buf.is_empty() {
            break;
        }
        let buf = &buf[..buf.len().min(CHUNK_BYTES)];
        let n = buf.len();
        // Only the last lines of a block can matter: their starts are
        // found from its end, and only the last two lines' heads kept,
        // so a block of short lines costs a backward search, not a
        // step per line.
        let mut last_two = [None, None];
        let mut found = 0usize;
        let mut tail_starts: Vec<u64> = Vec::new();
        for nl in memchr::memrchr_iter(b'\n', buf) {
            if found < 2 {
                last_two[found] = Some(nl);
            }
            found += 1;
            if tail_starts.len() < keep {
                tail_starts.push(pos + nl as u64 + 1);
            }
            if found >= 2 && tail_starts.len() >= keep {
                break;
            }
        }
        starts.extend(tail_starts.iter().rev());
        while starts.len() > keep {
            starts.pop_front();
        }
        let head_of = |into: &mut Vec<u8>, bytes: &[u8]| {
            let room = max_bytes.saturating_sub(into.len());
            into.extend_from_slice(&bytes[..bytes.len().min(room)]);
        };
        match last_two {
            [None, _] => head_of(&mut line_prefix, buf),
            [Some(last), before] => {
                match before {
                    // The line that ended at `last` began in this block.
                    Some(b) => {
                        done_prefix.clear();
                        head_of(&mut done_prefix, &buf[b + 1..=last]);
                    }
                    // It began before: its head so far, and the rest.
                    None => {
                        head_of(&mut line_prefix, &buf[..=last]);
                        std::mem::swap(&mut done_prefix, &mut line_prefix);
                    }
                }
                line_prefix.clear();
                head_of(&mut line_prefix, &buf[last + 1..]);
            }
        }
        window.extend_from_slice(buf);
        pos += n as u64;
        if window.len() > 2 * max_bytes + CHUNK_BYTES {
            let cut = window.len() - max_bytes;
            window.drain(..cut);
            window_at += cut as u64;
        }
        src.consume(n);
    }
    let len = pos;
    // The final newline ends the last line; it starts none.
    if starts.len() > 1 && starts.back() == Some(&len) {
        starts.pop_back();
        line_prefix = done_prefix;
    }
    while starts.len() as u64 > wanted {
        starts.pop_front();
    }
    // The earliest start whose text fits; the last line always travels.
    let fits = starts
        .iter()
        .copied()
        .find(|&s| len - s <= max_bytes as u64);
    let (start, bytes, truncated) = match fits {
        Some(s) => {
            let from = usize::try_from(s - window_at).unwrap_or(0);
            (s, window[from..].to_vec(), false)
        }
        None => (*starts.back().unwrap_or(&len), line_prefix, true),
    };
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t.to_owned(),
        // A cut at the byte ceiling may split the last character.
        Err(e) if truncated && e.error_len().is_none() => {
            String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned()
        }
        Err(e) => return Err(Refusal::invalid_utf8(start + e.valid_up_to() as u64)),
    };
    if let Some(at) = memchr::memchr(0, text.as_bytes()) {
        return Err(Refusal::binary(start + at as u64));
    }
    Ok(tail_answer(name, text, truncated, wanted, start, true))
}

/// The answer of a read from the end: `text`, starting at byte `start`,
/// holding the last of `wanted` lines.
fn tail_answer(
    name: &str,
    text: String,
    truncated: bool,
    wanted: u64,
    start: u64,
    streamed: bool,
) -> ReadAnswer {
    let returned =
        text.matches('\n').count() as u64 + u64::from(!text.is_empty() && !text.ends_with('\n'));
    ReadAnswer {
        ok: true,
        path: name.to_owned(),
        bytes: text.len() as u64,
        text,
        total_lines: None,
        next_offset: None,
        line_truncated: truncated,
        from_end: Some(returned.min(wanted)),
        byte_offset: Some(start),
        container: None,
        streamed,
        member: None,
        encoding: None,
    }
}

fn tail(
    source: &dyn Source,
    wanted: u64,
    max_bytes: usize,
    cancel: Option<&CancelToken>,
) -> Result<ReadAnswer, Refusal> {
    let name = source.name();
    let (Some(len), Some(_)) = (source.len(), source.read_at(0, &mut [])) else {
        return Err(no_random_access(source));
    };
    // The binary sniff looks at the head of the file, as for every read.
    let mut head = vec![
        0u8;
        usize::try_from(len)
            .unwrap_or(usize::MAX)
            .min(BINARY_SNIFF_BYTES)
    ];
    read_exact_at(source, 0, &mut head)?;
    let floor = judge_head(&head)? as u64;
    // Walk back from the end, block by block, noting line starts.
    let mut end = len;
    let mut starts: Vec<u64> = Vec::new();
    let mut pos = len;
    let mut block = vec![0u8; BLOCK as usize];
    let mut skip_final = true;
    'outer: while pos > floor {
        if cancel.is_some_and(CancelToken::is_cancelled) {
            return Err(Refusal::aborted(pos));
        }
        let size = (pos - floor).min(BLOCK);
        pos -= size;
        let buf = &mut block[..size as usize];
        read_exact_at(source, pos, buf)?;
        for i in memchr::memrchr_iter(b'\n', buf) {
            let at = pos + i as u64;
            if skip_final && at + 1 == len {
                // The file's final newline ends the last line; it starts none.
                skip_final = false;
                continue;
            }
            skip_final = false;
            starts.push(at + 1);
            if starts.len() as u64 == wanted {
                break 'outer;
            }
            // Lines that cannot fit need no start: the window only shrinks.
            if len - (at + 1) > max_bytes as u64 && starts.len() >= 2 {
                break 'outer;
            }
        }
        skip_final = false;
    }
    if (starts.len() as u64) < wanted && pos <= floor {
        starts.push(floor);
    }
    // The earliest start whose text fits; the last line always travels.
    let mut start = *starts.first().unwrap_or(&floor);
    let mut truncated = false;
    for &s in &starts {
        if len - s <= max_bytes as u64 {
            start = s;
        } else {
            break;
        }
    }
    if len - start > max_bytes as u64 {
        truncated = true;
        end = start + max_bytes as u64;
    }
    let region = Region {
        source,
        pos: start,
        end,
    };
    let mut stream = TextStream::from_buf_read(BufReader::with_capacity(CHUNK_BYTES, region));
    let mut text = String::new();
    loop {
        match stream.next_chunk() {
            Ok(Some(chunk)) => text.push_str(chunk.text),
            Ok(None) => break,
            // A cut at the byte ceiling may split the last character.
            Err(r) if truncated && r.byte_offset().is_some_and(|b| b + 4 > end - start) => break,
            // A NUL in the region is binary wherever it sits, and says so.
            Err(r) if r.reason() == RefusalReason::Binary => {
                return Err(Refusal::binary(start + r.byte_offset().unwrap_or(0)));
            }
            Err(r) => {
                let at = r.byte_offset().unwrap_or(0);
                return Err(r.relocated(start, 0).with_message(format!(
                    "the bytes at offset {} are not well-formed UTF-8; convert the file to UTF-8 and try again",
                    start + at
                )));
            }
        }
    }
    Ok(tail_answer(name, text, truncated, wanted, start, false))
}
