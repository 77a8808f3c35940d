//! Compressed files, decompressed as they stream: gzip (every member;
//! zero padding after the last ignored, as gzip ignores it),
//! zstd, xz and bzip2, recognized by their first bytes whatever the
//! file is called.
//!
//! A [`Decompressed`] source wraps the file's own source: each
//! [`Source::open`] opens the file again and decodes it from the start,
//! so nothing decompressed is ever held beyond the stream's buffers. It
//! has no random access (there is no backward seek in these formats), so
//! operations that would read from the end stream to it instead, or say
//! they cannot. Offsets, lines and records count the decompressed bytes.
//!
//! Memory is bounded whatever the stream declares: zstd windows are
//! capped at [`ZSTD_WINDOW_LOG_MAX`] and xz decoders at
//! [`XZ_MEMORY_LIMIT`]; a stream that needs more is refused with the
//! reason. A decompression bomb costs time, not memory: what it expands
//! to goes through the same parsers and their caps.
//!
//! The decoders are well-kept crates rather than our own: `flate2` (on
//! the `zlib-rs` backend, a fast inflate in Rust), `zstd` (the reference
//! C library), `liblzma` (the maintained binding of xz-utils) and `bzip2`
//! (on its Rust port of libbzip2).

use std::io::{self, BufRead, BufReader, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use plumb_core::{CancelToken, Refusal, Source};

/// The largest zstd window accepted, as a power of two (16 MiB): every
/// standard level up to 19 fits; `--ultra` and `--long` streams need
/// more and are refused rather than allowed 128 MiB or more.
pub const ZSTD_WINDOW_LOG_MAX: u32 = 24;

/// The most memory an xz decoder may take (24 MiB): `xz -6`, the
/// default, needs 9 MiB; `-9` (64 MiB dictionaries) is refused.
pub const XZ_MEMORY_LIMIT: u64 = 24 << 20;

/// The decompressed bytes buffered ahead of the parser.
const DECODED_BUFFER_BYTES: usize = 64 * 1024;

/// A compression format plumb decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// gzip (RFC 1952), every member of a multi-member file.
    Gzip,
    /// Zstandard (RFC 8878), every frame.
    Zstd,
    /// xz, every stream.
    Xz,
    /// bzip2, every stream.
    Bzip2,
}

impl Container {
    /// Every container plumb decodes.
    pub const ALL: [Container; 4] = [
        Container::Gzip,
        Container::Zstd,
        Container::Xz,
        Container::Bzip2,
    ];

    /// `gzip`, `zstd`, `xz` or `bzip2`: the name answers carry.
    pub const fn name(self) -> &'static str {
        match self {
            Container::Gzip => "gzip",
            Container::Zstd => "zstd",
            Container::Xz => "xz",
            Container::Bzip2 => "bzip2",
        }
    }

    /// The container the first bytes of a file announce.
    ///
    /// ```
    /// use plumb::Container;
    /// assert_eq!(Container::of(b"\x1f\x8b\x08\x00"), Some(Container::Gzip));
    /// assert_eq!(Container::of(b"id,name\n"), None);
    /// ```
    pub fn of(head: &[u8]) -> Option<Container> {
        match crate::magic::identify(head)?.name {
            "gzip" => Some(Container::Gzip),
            "zstd" => Some(Container::Zstd),
            "xz" => Some(Container::Xz),
            "bzip2" => Some(Container::Bzip2),
            _ => None,
        }
    }

    /// The extensions that name this container (`gz` in `data.csv.gz`).
    const fn extensions(self) -> &'static [&'static str] {
        match self {
            Container::Gzip => &["gz", "gzip", "tgz"],
            Container::Zstd => &["zst", "zstd"],
            Container::Xz => &["xz", "txz"],
            Container::Bzip2 => &["bz2", "bzip2", "tbz2"],
        }
    }
}

/// A compressed source, read decompressed.
pub struct Decompressed<'a> {
    inner: &'a dyn Source,
    container: Container,
}

impl std::fmt::Debug for Decompressed<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decompressed")
            .field("name", &self.inner.name())
            .field("container", &self.container)
            .finish()
    }
}

impl<'a> Decompressed<'a> {
    /// `inner` read through the decoder of `container`.
    pub fn new(inner: &'a dyn Source, container: Container) -> Decompressed<'a> {
        Decompressed { inner, container }
    }

    /// The container decoded.
    pub fn container(&self) -> Container {
        self.container
    }
}

/// Counts the compressed bytes the decoder takes, so that a failure can
/// say how far into the file it came.
struct Counted<R> {
    inner: R,
    taken: Arc<AtomicU64>,
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.taken.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.taken.fetch_add(amt as u64, Ordering::Relaxed);
        self.inner.consume(amt);
    }
}

/// Names the container and the compressed offset in a decoder's error.
struct Named<D> {
    decoder: D,
    container: Container,
    taken: Arc<AtomicU64>,
}

impl<D: Read> Read for Named<D> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.decoder.read(buf).map_err(|e| {
            let at = self.taken.load(Ordering::Relaxed);
            let what = if e.kind() == io::ErrorKind::UnexpectedEof {
                "ends before its end (truncated)".to_owned()
            } else {
                format!("is corrupt ({e})")
            };
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the {} stream {what} by compressed byte {at}",
                    self.container.name()
                ),
            )
        })
    }
}

/// Every member of a gzip file in turn, as `gzip -d` reads one: members
/// may follow one another (`cat a.gz b.gz`), and zero bytes after the
/// last (padding to a block size) end the stream, as gzip ignores them.
/// Any other byte after a member is refused as trailing garbage: it is
/// not data, and skipping it would hide what the file holds. (flate2's
/// `MultiGzDecoder` reads whatever follows as a member header, and calls
/// zero padding corrupt and a short tail truncated.) flate2's
/// `bufread::GzDecoder` stops at its member's last byte, so the next
/// member starts where it stopped.
struct GzMembers<R: BufRead> {
    member: Option<flate2::bufread::GzDecoder<R>>,
}

impl<R: BufRead> Read for GzMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(member) = self.member.as_mut() else {
                return Ok(0);
            };
            let n = member.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            // The member ended: what follows it decides.
            let Some(done) = self.member.take() else {
                return Ok(0);
            };
            let mut raw = done.into_inner();
            if another_member(&mut raw)? {
                self.member = Some(flate2::bufread::GzDecoder::new(raw));
            }
        }
    }
}

/// Whether a gzip member begins where the last one ended (its first
/// magic byte; the decoder checks the rest of its header); false at the
/// end of the input, after zero bytes that run to it; an error for
/// anything else, consumed up to its first byte so the error names it.
fn another_member<R: BufRead>(raw: &mut R) -> io::Result<bool> {
    let next = raw.fill_buf()?;
    match next.first() {
        None => return Ok(false),
        Some(0x1f) => return Ok(true),
        Some(_) => {}
    }
    loop {
        let zeros = raw.fill_buf()?;
        if zeros.is_empty() {
            return Ok(false);
        }
        let n = zeros.iter().take_while(|&&b| b == 0).count();
        let more = n < zeros.len();
        raw.consume(n);
        if more {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "trailing garbage: bytes after the last member that are neither gzip nor zero padding",
            ));
        }
    }
}

fn decoder<'r>(
    container: Container,
    raw: Counted<Box<dyn BufRead + Send + 'r>>,
) -> io::Result<Box<dyn Read + Send + 'r>> {
    Ok(match container {
        Container::Gzip => Box::new(GzMembers {
            member: Some(flate2::bufread::GzDecoder::new(raw)),
        }),
        Container::Zstd => {
            let mut d = zstd::stream::read::Decoder::with_buffer(raw)?;
            d.window_log_max(ZSTD_WINDOW_LOG_MAX)?;
            Box::new(d)
        }
        Container::Xz => {
            let stream = liblzma::stream::Stream::new_stream_decoder(
                XZ_MEMORY_LIMIT,
                liblzma::stream::CONCATENATED,
            )
            .map_err(io::Error::other)?;
            Box::new(liblzma::bufread::XzDecoder::new_stream(raw, stream))
        }
        Container::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(raw)),
    })
}

impl Source for Decompressed<'_> {
    fn open(&self) -> Result<Box<dyn BufRead + Send + '_>, Refusal> {
        let taken = Arc::new(AtomicU64::new(0));
        let raw = Counted {
            inner: self.inner.open()?,
            taken: Arc::clone(&taken),
        };
        let decoder = decoder(self.container, raw)
            .map_err(|e| Refusal::from_io(&e, Some(self.inner.name())))?;
        Ok(Box::new(BufReader::with_capacity(
            DECODED_BUFFER_BYTES,
            Named {
                decoder,
                container: self.container,
                taken,
            },
        )))
    }

    fn name(&self) -> &str {
        self.inner.name()
    }

    /// The decompressed length is not known without decompressing.
    fn len(&self) -> Option<u64> {
        None
    }

    fn cancel_token(&self) -> Option<&CancelToken> {
        self.inner.cancel_token()
    }

    /// The extension under the container's: `csv` for `data.csv.gz`;
    /// none for `data.gz`.
    fn extension(&self) -> Option<String> {
        let name = std::path::Path::new(self.inner.name());
        let outer = name
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match outer {
            Some(e) if self.container.extensions().contains(&e.as_str()) => name
                .file_stem()
                .map(std::path::Path::new)
                .and_then(|stem| stem.extension())
                .map(|e| e.to_string_lossy().to_ascii_lowercase()),
            other => other,
        }
    }
}
