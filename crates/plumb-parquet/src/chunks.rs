//! The bridge from plumb's [`Source`] to the `parquet` crate's
//! [`ChunkReader`]: ranged reads by position, each bounded and counted.
//!
//! The crate asks for a footer, a page header or a page by offset and
//! length; every such range is checked against the file's length and
//! against [`PARQUET_MAX_RANGE_BYTES`] before a byte of it is held, so a
//! hostile length in a footer or page header costs a refusal, never the
//! memory it names.

use std::io::{BufReader, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

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
}

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
        })
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

/// A sequential reader from an offset, by positioned reads.
pub(crate) struct At {
    chunks: Chunks,
    pos: u64,
}

impl Read for At {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
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
        Ok(BufReader::with_capacity(
            HEADER_BUFFER_BYTES,
            At {
                chunks: self.clone(),
                pos: start,
            },
        ))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
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
