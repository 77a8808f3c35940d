//! A sequential scan of a remote object. A scan from the start begins
//! with small ranged requests, each twice the last (a caller that wants
//! the first kilobytes, a sniff, costs one small request), fetched ahead
//! only as the ones before them are read. Once the ranges reach the
//! configured size, and from the start for a part of a split scan (read
//! whole), the rest comes over one streamed GET, taken in pieces of that
//! size with a bounded number held ahead of the reader: one request, not
//! one per range, which is what a store charges and waits for.

use std::collections::VecDeque;
use std::io::{BufRead, Read};
use std::sync::mpsc::Receiver;
use std::sync::Arc;

use bytes::Bytes;

use plumb_core::{CancelToken, Refusal, RefusalReason};

use crate::fetch::{fetch, stream_range};
use crate::runtime::runtime;
use crate::RemoteSource;

/// Blocks of the object as they arrive, or the refusal that ended them.
type Pieces = Receiver<Result<Bytes, Refusal>>;

/// The object from a byte on, as a reader.
pub(crate) struct Sequential {
    source: RemoteSource,
    /// Where the next range to ask for starts.
    next: u64,
    /// Where the scan stops (the object's size for a whole scan).
    end: u64,
    /// Ranges asked for, in order.
    pending: VecDeque<Pieces>,
    /// The streamed rest, once asked for: pieces, and the credits that
    /// let the streaming task send more.
    streamed: Option<(Pieces, Arc<tokio::sync::Semaphore>)>,
    /// Bytes the stream is still to give.
    stream_left: u64,
    current: Bytes,
    pos: usize,
    /// The size of the next range asked for.
    step: u64,
    /// Ranges read so far: as many may be in flight ahead.
    read: usize,
    /// The size of a streamed piece: the range size, or for a part of a
    /// split scan its share of it.
    piece: usize,
}

/// The smallest streamed piece of a part of a split scan.
const MIN_PART_PIECE_BYTES: usize = 64 << 10;

/// The first range a sequential scan asks for.
const FIRST_RANGE_BYTES: u64 = 256 << 10;

impl Sequential {
    /// Bytes `start..end` of the object, in order. Bytes already held
    /// from a small read at `start` (the head a detection fetched) are
    /// given first, not asked for again. `whole`: the caller reads all
    /// of it (a part of a split scan), so it is streamed from the start.
    pub(crate) fn new(source: RemoteSource, start: u64, end: u64, whole: bool) -> Sequential {
        let end = end.min(source.inner.size);
        let mut current = source.cached_from(start).unwrap_or_default();
        current.truncate(usize::try_from(end.saturating_sub(start)).unwrap_or(usize::MAX));
        let range = source.inner.config.range_bytes;
        let full = range.max(1) as u64;
        Sequential {
            next: start + current.len() as u64,
            end,
            source,
            pending: VecDeque::new(),
            streamed: None,
            stream_left: 0,
            current,
            pos: 0,
            step: if whole { full } else { FIRST_RANGE_BYTES },
            read: 0,
            // The parts of a split scan, at most `SCAN_MAX_PARTS`, hold
            // together half of one scan's pieces: each part also holds a
            // parser and its buffers, and all of it stays within the
            // bound one scan keeps.
            piece: if whole {
                (range / (2 * plumb_core::SCAN_MAX_PARTS)).max(MIN_PART_PIECE_BYTES)
            } else {
                range.max(1)
            },
        }
    }

    /// Asks for more: while the ranges are still growing, ranged
    /// requests until as many are in flight as the read-ahead allows (no
    /// more than the ranges read so far, plus one); then the rest of the
    /// object in one streamed request.
    fn top_up(&mut self) {
        let inner = &self.source.inner;
        let full = inner.config.range_bytes.max(1) as u64;
        let ahead = inner.config.read_ahead.min(self.read);
        while self.pending.len() <= ahead && self.next < self.end {
            if self.step >= full {
                if self.pending.is_empty() {
                    self.start_stream();
                }
                return;
            }
            let step = self.step;
            self.step = step.saturating_mul(2);
            let (start, end) = (self.next, (self.next + step).min(self.end));
            self.next = end;
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            let inner = inner.clone();
            runtime().spawn(async move {
                let _ = tx.send(fetch(&inner, start, end).await);
            });
            self.pending.push_back(rx);
        }
    }

    /// Streams `next..end` in pieces (the range size, or a part's share
    /// of it): the piece being read, up to `read_ahead` (at least one)
    /// sent ahead, and the one being received are held.
    fn start_stream(&mut self) {
        let inner = self.source.inner.clone();
        let piece = self.piece;
        let credits = Arc::new(tokio::sync::Semaphore::new(inner.config.read_ahead.max(1)));
        let (tx, rx) = std::sync::mpsc::channel();
        let (start, end) = (self.next, self.end);
        self.next = end;
        self.stream_left = end - start;
        runtime().spawn(stream_range(inner, start, end, piece, credits.clone(), tx));
        self.streamed = Some((rx, credits));
    }

    /// The next block of bytes: the next range asked for, else the next
    /// streamed piece; `None` at the end.
    fn next_block(&mut self) -> std::io::Result<Option<Bytes>> {
        self.top_up();
        if let Some(rx) = self.pending.pop_front() {
            let got = rx
                .recv()
                .map_err(|_| std::io::Error::other("a remote read task ended without an answer"))?;
            return got.map(Some).map_err(|r| io_error(&r));
        }
        let Some((rx, credits)) = &self.streamed else {
            return Ok(None);
        };
        if self.stream_left == 0 {
            return Ok(None);
        }
        // A closed channel before the last byte is no end of the object.
        let got = rx.recv().map_err(|_| {
            std::io::Error::other("a remote streaming task ended before the end of its range")
        })?;
        // The piece is taken: the task may send another.
        credits.add_permits(1);
        let piece = got.map_err(|r| io_error(&r))?;
        self.stream_left = self.stream_left.saturating_sub(piece.len() as u64);
        Ok(Some(piece))
    }
}

impl Drop for Sequential {
    fn drop(&mut self) {
        // A task waiting for a credit learns that no reader is left.
        if let Some((_, credits)) = &self.streamed {
            credits.close();
        }
    }
}

fn io_error(r: &Refusal) -> std::io::Error {
    std::io::Error::other(r.message().to_owned())
}

impl Read for Sequential {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Sequential {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        while self.pos >= self.current.len() {
            if self
                .source
                .cancel
                .as_ref()
                .is_some_and(CancelToken::is_cancelled)
            {
                return Err(io_error(&Refusal::new(
                    RefusalReason::Aborted,
                    "the caller cancelled the read",
                )));
            }
            match self.next_block()? {
                Some(block) => {
                    self.current = block;
                    self.pos = 0;
                    self.read += 1;
                }
                None => return Ok(&[]),
            }
        }
        Ok(&self.current[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.current.len());
    }
}
