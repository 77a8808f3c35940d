//! The bridge from plumb's [`Source`] to the `parquet` crate's
//! [`ChunkReader`]: ranged reads by position, each bounded and counted.
//!
//! The crate asks for a footer, a page header or a page by offset and
//! length; every such range is checked against the file's length and
//! against [`PARQUET_MAX_RANGE_BYTES`] before a byte of it is held, so a
//! hostile length in a footer or page header costs a refusal, never the
//! memory it names.

use std::collections::VecDeque;
use std::io::{BufReader, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;
use parquet::errors::ParquetError;
use parquet::file::reader::{ChunkReader, Length};
use plumb_core::{Refusal, Source};

/// The most bytes one ranged read may ask for: a footer, or one page
/// (compressed). A larger one is refused (`selection-too-large`) rather
/// than held: pages are written at about 1 MiB, and a footer of a
/// million columns is still far below this.
pub const PARQUET_MAX_RANGE_BYTES: usize = 256 << 20;

/// The buffer a page header is read through: headers are tens to
/// hundreds of bytes (more with long statistics, which then take a few
/// reads), and whatever the buffer reads past one is fetched for nothing.
const HEADER_BUFFER_BYTES: usize = 1 << 10;

/// A [`Source`] as the `parquet` crate reads it, counting the bytes it
/// fetches.
#[derive(Debug, Clone)]
pub(crate) struct Chunks {
    source: Arc<dyn Source>,
    len: u64,
    fetched: Arc<AtomicU64>,
    /// The footer, once plumb has read it to check its claims, so the
    /// crate's read of it fetches nothing again.
    footer: Arc<OnceLock<(u64, Bytes)>>,
    /// Where the data of the pages whose headers were checked last
    /// starts (see [`Chunks::page_header`]).
    data_starts: Arc<Mutex<VecDeque<u64>>>,
}

/// The data starts [`Chunks`] remembers: one for each page being read at
/// once, over every column and thread, with room to spare.
const DATA_STARTS_KEPT: usize = 1024;

impl Chunks {
    /// The source, which must have random access and a known length.
    pub(crate) fn new(source: &dyn Source) -> Result<Chunks, Refusal> {
        let shared = source.to_shared().ok_or_else(|| {
            Refusal::invalid_argument(format!(
                "`{}` is Parquet read as a stream (compressed, piped or transcoded); Parquet's \
                 footer is at its end, so it needs random access: save it as a file and read that",
                plumb_core::echo(source.name())
            ))
        })?;
        let len = source.len().ok_or_else(|| {
            Refusal::invalid_argument(
                "a Parquet source must know its length (its footer is at its end)",
            )
        })?;
        Ok(Chunks {
            source: shared,
            len,
            fetched: Arc::new(AtomicU64::new(0)),
            footer: Arc::new(OnceLock::new()),
            data_starts: Arc::new(Mutex::new(VecDeque::new())),
        })
    }

    /// Reads the footer and checks its claims ([`crate::guard`]) before
    /// the crate decodes it. A file too short for a footer, or without
    /// the closing magic, is left to the crate to refuse in its words.
    pub(crate) fn check_footer(&self) -> Result<(), Refusal> {
        let Some(at) = self.len.checked_sub(8) else {
            return Ok(());
        };
        let tail = self.get_bytes(at, 8).map_err(|e| crate::refusal_of(&e))?;
        if &tail[4..] != b"PAR1" {
            return Ok(());
        }
        let n = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
        if n > crate::guard::PARQUET_MAX_FOOTER_BYTES {
            return Err(crate::guard::footer_too_large(n));
        }
        let Some(start) = at.checked_sub(n) else {
            return Ok(());
        };
        #[allow(clippy::cast_possible_truncation)]
        let footer = self
            .get_bytes(start, n as usize)
            .map_err(|e| crate::refusal_of(&e))?;
        crate::guard::check_footer(&footer)?;
        let _ = self.footer.set((start, footer));
        Ok(())
    }

    /// The bytes fetched so far, by every clone.
    pub(crate) fn fetched(&self) -> u64 {
        self.fetched.load(Ordering::Relaxed)
    }

    /// Whether the caller cancelled.
    pub(crate) fn cancelled(&self) -> bool {
        self.source
            .cancel_token()
            .is_some_and(plumb_core::CancelToken::is_cancelled)
    }

    fn check(&self, start: u64, length: usize) -> parquet::errors::Result<()> {
        if length > PARQUET_MAX_RANGE_BYTES {
            return Err(ParquetError::General(format!(
                "{RANGE_TOO_LARGE}: {length} bytes at offset {start}, past the cap of {PARQUET_MAX_RANGE_BYTES}"
            )));
        }
        if start
            .checked_add(length as u64)
            .is_none_or(|end| end > self.len)
        {
            return Err(ParquetError::EOF(format!(
                "a range of {length} bytes at offset {start} runs past the end of the file ({} bytes)",
                self.len
            )));
        }
        Ok(())
    }
}

/// The words that mark a range refused for its size, so the refusal can
/// say `selection-too-large` rather than `invalid-data`.
pub(crate) const RANGE_TOO_LARGE: &str = "a ranged read too large to hold";

impl Length for Chunks {
    fn len(&self) -> u64 {
        self.len
    }
}

/// The bytes of a page header read first to check its claims; a header
/// that does not decode within [`HEADER_CHECK_BYTES`] is refused.
const HEADER_FIRST_BYTES: u64 = 1 << 10;

/// The most bytes a page header may take (long statistics make headers
/// of kilobytes; nothing real comes near this).
const HEADER_CHECK_BYTES: u64 = 256 << 10;

impl Chunks {
    /// The bytes at `start` that hold a page header, once its claims are
    /// checked ([`crate::guard::check_page_header`]); nothing for an
    /// offset where a checked header's page data starts.
    fn page_header(&self, start: u64) -> parquet::errors::Result<Bytes> {
        // After peeking at a page, the crate's page reader asks for a
        // reader at the page's data as well, and reads nothing from it.
        if self
            .data_starts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&start)
        {
            return Ok(Bytes::new());
        }
        let room = self.len - start;
        let mut want = room.min(HEADER_FIRST_BYTES);
        loop {
            let n = usize::try_from(want).unwrap_or(usize::MAX);
            let bytes = self.get_bytes(start, n)?;
            match crate::thrift::page_claims(&bytes) {
                Ok(claims) => {
                    crate::guard::check_page_header(claims, start)?;
                    if claims.compressed > 0 {
                        let mut starts = self.data_starts.lock().unwrap_or_else(|e| e.into_inner());
                        if starts.len() == DATA_STARTS_KEPT {
                            starts.pop_front();
                        }
                        starts.push_back(start + claims.len as u64);
                    }
                    return Ok(bytes);
                }
                Err(_) if want < room.min(HEADER_CHECK_BYTES) => {
                    want = room.min(HEADER_CHECK_BYTES);
                }
                Err(_) => {
                    return Err(ParquetError::General(format!(
                        "the page header at byte {start} does not decode (within {} bytes)",
                        want
                    )))
                }
            }
        }
    }
}

/// A sequential reader from an offset, by positioned reads, after the
/// bytes already read there.
pub(crate) struct At {
    chunks: Chunks,
    pos: u64,
    pre: Bytes,
}

impl Read for At {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.pre.is_empty() {
            let n = buf.len().min(self.pre.len());
            buf[..n].copy_from_slice(&self.pre[..n]);
            self.pre = self.pre.slice(n..);
            self.pos += n as u64;
            return Ok(n);
        }
        let room = self.chunks.len.saturating_sub(self.pos);
        let want = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        if want == 0 {
            return Ok(0);
        }
        let n = self
            .chunks
            .source
            .read_at(self.pos, &mut buf[..want])
            .unwrap_or_else(|| Err(std::io::Error::other("the source lost random access")))?;
        self.pos += n as u64;
        self.chunks.fetched.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl ChunkReader for Chunks {
    type T = BufReader<At>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        if start > self.len {
            return Err(ParquetError::EOF(format!(
                "offset {start} is past the end of the file ({} bytes)",
                self.len
            )));
        }
        // The crate reads a page header at every offset it asks for here
        // but one: the eight bytes that end the file, the footer's length.
        let pre = if start.checked_add(8) == Some(self.len) {
            Bytes::new()
        } else {
            self.page_header(start)?
        };
        Ok(BufReader::with_capacity(
            HEADER_BUFFER_BYTES,
            At {
                chunks: self.clone(),
                pos: start,
                pre,
            },
        ))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        if let Some((at, footer)) = self.footer.get() {
            if *at == start && footer.len() == length {
                return Ok(footer.clone());
            }
        }
        self.check(start, length)?;
        let bytes = self
            .source
            .read_range(start, length)
            .unwrap_or_else(|| Err(Refusal::invalid_argument("the source lost random access")))
            .map_err(|r| ParquetError::External(Box::new(r)))?;
        self.fetched
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        if bytes.len() != length {
            return Err(ParquetError::EOF(format!(
                "expected {length} bytes at offset {start}, read {}",
                bytes.len()
            )));
        }
        Ok(bytes)
    }
}
