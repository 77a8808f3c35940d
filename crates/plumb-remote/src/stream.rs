//! A sequential scan of a remote object: ranges fetched in order, a
//! bounded number in flight ahead of the one being read. The first range
//! is small and each one doubles up to the configured size, and ranges
//! are fetched ahead only as the ranges before them are read: a caller
//! that wants the first kilobytes (a sniff) costs one small request, not
//! the read-ahead of a scan.

use std::collections::VecDeque;
use std::io::{BufRead, Read};
use std::sync::mpsc::Receiver;

use bytes::Bytes;

use plumb_core::{CancelToken, Refusal, RefusalReason};

use crate::{fetch, runtime, RemoteSource};

/// The object from the start, as a reader.
pub(crate) struct Sequential {
    source: RemoteSource,
    /// Where the next range to ask for starts.
    next: u64,
    /// Where the scan stops (the object's size for a whole scan).
    end: u64,
    /// Ranges asked for, in order.
    pending: VecDeque<Receiver<Result<Bytes, Refusal>>>,
    current: Bytes,
    pos: usize,
    /// The size of the next range asked for.
    step: u64,
    /// Ranges read so far: as many may be in flight ahead.
    read: usize,
}

/// The first range a sequential scan asks for.
const FIRST_RANGE_BYTES: u64 = 256 << 10;

impl Sequential {
    /// Bytes `start..end` of the object, in order. Bytes already held
    /// from a small read at `start` (the head a detection fetched) are
    /// given first, not asked for again.
    pub(crate) fn new(source: RemoteSource, start: u64, end: u64) -> Sequential {
        let end = end.min(source.inner.size);
        let mut current = source.cached_from(start).unwrap_or_default();
        current.truncate(usize::try_from(end.saturating_sub(start)).unwrap_or(usize::MAX));
        Sequential {
            next: start + current.len() as u64,
            end,
            source,
            pending: VecDeque::new(),
            current,
            pos: 0,
            step: FIRST_RANGE_BYTES,
            read: 0,
        }
    }

    /// Asks for ranges until as many are in flight as the read-ahead
    /// allows (no more than the ranges read so far, plus one), or the
    /// object is all asked for.
    fn top_up(&mut self) {
        let inner = &self.source.inner;
        let full = (inner.config.range_bytes.max(1) as u64).max(1);
        let ahead = inner.config.read_ahead.min(self.read);
        while self.pending.len() <= ahead && self.next < self.end {
            let step = self.step.min(full);
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
            self.top_up();
            let Some(rx) = self.pending.pop_front() else {
                return Ok(&[]);
            };
            let got = rx
                .recv()
                .map_err(|_| std::io::Error::other("a remote read task ended without an answer"))?;
            self.current = got.map_err(|r| io_error(&r))?;
            self.pos = 0;
            self.read += 1;
        }
        Ok(&self.current[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.current.len());
    }
}
