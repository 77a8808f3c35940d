//! The seam where formats plug in: byte sources, the object-safe
//! [`FormatReader`] trait, and the [`Answer`] every reader returns.
//!
//! It lives here, beside the substrate, so that each engine crate can
//! implement it without depending on the dispatcher (`plumb`), and so
//! that a downstream crate can write a reader for a format plumb does not
//! ship and register it next to the built-in ones.
//!
//! A reader is handed a [`ByteSource`], not text: a binary format, a
//! compressed file or a remote object can be read through the same trait.
//! Text formats wrap the source in a [`crate::TextStream`].

use std::any::Any;
use std::fmt::Debug;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use serde::Serialize;
use serde_json::Value;

use crate::cancel::CancelToken;
use crate::file::OpenedFile;
use crate::refusal::Refusal;
use crate::stream::{TextStream, CHUNK_BYTES};
use crate::view::ViewFlags;

/// The bytes a format reader reads: opened as often as needed, each
/// time from the start.
pub trait ByteSource: Send + Sync + Debug {
    /// A reader over the bytes from the start.
    ///
    /// # Errors
    /// `not-found`, `not-a-file`, `read-error`.
    fn open(&self) -> Result<Box<dyn BufRead + Send + '_>, Refusal>;

    /// How the caller named the source (a path), for messages.
    fn name(&self) -> &str;

    /// The size in bytes, when known.
    fn len(&self) -> Option<u64>;

    /// Whether the source is known to be empty.
    fn is_empty(&self) -> bool {
        self.len() == Some(0)
    }

    /// The extension of the name, lowercased, if any.
    fn extension(&self) -> Option<String> {
        Path::new(self.name())
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
    }

    /// The first `max` bytes (fewer at the end of the source).
    ///
    /// # Errors
    /// As [`ByteSource::open`], and `read-error` when a read fails.
    fn head(&self, max: usize) -> Result<Vec<u8>, Refusal> {
        let mut out = Vec::with_capacity(max.min(64 * 1024));
        self.open()?
            .take(max as u64)
            .read_to_end(&mut out)
            .map_err(|e| Refusal::from_io(&e, Some(self.name())))?;
        Ok(out)
    }
}

/// A file on disk, opened once: every [`ByteSource::open`] reads the
/// same handle by position, up to the size it had when it was opened
/// (see [`OpenedFile`]). Nothing looks the path up a second time.
#[derive(Debug, Clone)]
pub struct FileSource {
    file: OpenedFile,
    progress: Option<Arc<AtomicU64>>,
}

impl FileSource {
    /// Opens `path` and checks that the opened handle is a regular file.
    ///
    /// # Errors
    /// `not-found` when nothing is there, `not-a-file` for a directory,
    /// pipe, socket or device, `read-error` otherwise (`permission denied`).
    pub fn new(path: impl AsRef<Path>) -> Result<FileSource, Refusal> {
        Ok(FileSource::from_opened(OpenedFile::open(path.as_ref())?))
    }

    /// A source over a file already opened and judged.
    pub fn from_opened(file: OpenedFile) -> FileSource {
        FileSource {
            file,
            progress: None,
        }
    }

    /// Counts the bytes read into `counter` as they are read (for a
    /// progress bar).
    pub fn with_progress(mut self, counter: Arc<AtomicU64>) -> FileSource {
        self.progress = Some(counter);
        self
    }

    /// The opened file.
    pub fn file(&self) -> &OpenedFile {
        &self.file
    }
}

struct Counted<R> {
    inner: R,
    counter: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl ByteSource for FileSource {
    fn open(&self) -> Result<Box<dyn BufRead + Send + '_>, Refusal> {
        let reader = self.file.reader();
        Ok(match &self.progress {
            Some(counter) => Box::new(BufReader::with_capacity(
                CHUNK_BYTES,
                Counted {
                    inner: reader,
                    counter: counter.clone(),
                },
            )),
            None => Box::new(BufReader::with_capacity(CHUNK_BYTES, reader)),
        })
    }

    fn name(&self) -> &str {
        self.file.name()
    }

    fn len(&self) -> Option<u64> {
        Some(self.file.len())
    }
}

/// Bytes in memory, under a name (whose extension counts for detection).
#[derive(Debug, Clone)]
pub struct BytesSource {
    name: String,
    bytes: Bytes,
}

impl BytesSource {
    /// Names some bytes.
    pub fn new(name: impl Into<String>, bytes: impl Into<Bytes>) -> BytesSource {
        BytesSource {
            name: name.into(),
            bytes: bytes.into(),
        }
    }
}

impl ByteSource for BytesSource {
    fn open(&self) -> Result<Box<dyn BufRead + Send + '_>, Refusal> {
        Ok(Box::new(&self.bytes[..]))
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn len(&self) -> Option<u64> {
        Some(self.bytes.len() as u64)
    }
}

/// Opens a source as a text stream, armed with the cancel token.
///
/// # Errors
/// As [`ByteSource::open`].
pub fn text_stream<'a>(
    source: &'a dyn ByteSource,
    cancel: Option<&CancelToken>,
) -> Result<TextStream<Box<dyn BufRead + Send + 'a>>, Refusal> {
    let stream = TextStream::from_buf_read(source.open()?);
    Ok(match cancel {
        Some(token) => stream.with_cancel(token.clone()),
        None => stream,
    })
}

/// The three data operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// What is in the file.
    Inspect,
    /// A bounded window of it, verbatim.
    Select,
    /// Is it well formed, and where is the first fault.
    Validate,
}

impl Op {
    /// Every op, in documentation order.
    pub const ALL: [Op; 3] = [Op::Inspect, Op::Select, Op::Validate];

    /// `inspect`, `select` or `validate`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Op::Inspect => "inspect",
            Op::Select => "select",
            Op::Validate => "validate",
        }
    }
}

impl std::str::FromStr for Op {
    type Err = Refusal;
    fn from_str(s: &str) -> Result<Op, Refusal> {
        match s.trim().to_ascii_lowercase().as_str() {
            "inspect" => Ok(Op::Inspect),
            "select" => Ok(Op::Select),
            "validate" => Ok(Op::Validate),
            other => Err(Refusal::invalid_argument(format!(
                "op `{other}` is not one of inspect, select, validate; pass one of those"
            ))),
        }
    }
}

/// The options of every operation, as callers give them: each reader
/// takes the ones it understands (see [`FormatReader::accepts`]).
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// CSV/TSV: the delimiter (one character, or `tab`).
    pub delimiter: Option<String>,
    /// CSV/TSV: `auto`, `true` or `false`.
    pub header: Option<String>,
    /// Stop after this many rows or records (inspect, validate).
    pub max_rows: Option<u64>,
    /// Rows in the inspect sample.
    pub sample_rows: Option<usize>,
    /// Select: rows, records or elements to skip.
    pub offset: Option<u64>,
    /// Select: rows, records or elements to return.
    pub limit: Option<u64>,
    /// CSV/TSV select: columns by header name or 0-based index.
    pub columns: Option<Vec<String>>,
    /// JSON select: an RFC 6901 pointer.
    pub pointer: Option<String>,
    /// Cancels the scan (`aborted`).
    pub cancel: Option<CancelToken>,
}

impl ReadOptions {
    /// The names of the options that are set, as callers spell them.
    pub fn given(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        let pairs: [(&'static str, bool); 8] = [
            ("delimiter", self.delimiter.is_some()),
            ("header", self.header.is_some()),
            ("max_rows", self.max_rows.is_some()),
            ("sample_rows", self.sample_rows.is_some()),
            ("offset", self.offset.is_some()),
            ("limit", self.limit.is_some()),
            ("columns", self.columns.is_some()),
            ("pointer", self.pointer.is_some()),
        ];
        for (name, set) in pairs {
            if set {
                out.push(name);
            }
        }
        out
    }
}

/// The counts of a windowed answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Window {
    /// Items returned.
    pub returned: u64,
    /// Items skipped before the window.
    pub offset: u64,
    /// The limit applied.
    pub limit: u64,
    /// Whether items follow.
    pub has_more: bool,
}

/// What a reader returns: a typed result, serializable to the JSON
/// shapes `docs/` describes. Engines implement it for their own result
/// structs; a caller that knows the type can downcast via `as_any`.
pub trait Answer: Debug + Send + Any {
    /// The answer as JSON (`{"ok": true, "format": ..., ...}`).
    fn to_json(&self) -> Value;
    /// Writes the answer as compact JSON, the same text `to_json` would
    /// give. Engines override it to serialize their typed result straight
    /// to the writer, with no `Value` tree in between (a wide inspect's
    /// tree costs many times its text).
    ///
    /// # Errors
    /// The writer's errors.
    fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer(out, &self.to_json()).map_err(std::io::Error::from)
    }
    /// Exact, sampled or cut.
    fn view(&self) -> ViewFlags;
    /// The verdict of a validate: `Some(valid)`, where `valid` is null
    /// when the scan stopped early; `None` for inspect and select.
    fn verdict(&self) -> Option<Option<bool>> {
        None
    }
    /// The counts of a windowed select.
    fn window(&self) -> Option<Window> {
        None
    }
    /// For downcasting to the engine's type.
    fn as_any(&self) -> &dyn Any;
}

/// Implements [`Answer`] for a `Serialize` result type with a `view`
/// field. `verdict` and `window` are given as closures over the value.
#[macro_export]
macro_rules! impl_answer {
    ($ty:ty) => {
        $crate::impl_answer!($ty, |_a: &$ty| None, |_a: &$ty| None);
    };
    ($ty:ty, $verdict:expr, $window:expr) => {
        impl $crate::Answer for $ty {
            fn to_json(&self) -> serde_json::Value {
                serde_json::to_value(self).unwrap_or_else(|e| {
                    serde_json::json!({"ok": false, "reason": "read-error", "message": e.to_string()})
                })
            }
            fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
                serde_json::to_writer(out, self).map_err(std::io::Error::from)
            }
            fn view(&self) -> $crate::ViewFlags {
                self.view
            }
            fn verdict(&self) -> Option<Option<bool>> {
                let f: fn(&$ty) -> Option<Option<bool>> = $verdict;
                f(self)
            }
            fn window(&self) -> Option<$crate::Window> {
                let f: fn(&$ty) -> Option<$crate::Window> = $window;
                f(self)
            }
            fn as_any(&self) -> &dyn std::any::Any {
                self
            }
        }
    };
}

/// How sure a content sniff is: higher wins. Built-in readers use
/// 10 (a weak hint, such as a comma in the first line) to 60 (a
/// structural match, such as two JSON lines).
pub type SniffScore = u8;

/// A format plumb can read.
///
/// Object-safe, so a `Registry` can hold readers written anywhere. Each
/// operation gets the source and the caller's options; the dispatcher
/// has already checked that every given option is one the reader
/// [`accepts`](FormatReader::accepts) for that operation.
pub trait FormatReader: Send + Sync {
    /// The format's name (`csv`), lowercase; what `--format` takes.
    fn name(&self) -> &'static str;

    /// File extensions, lowercase and without the dot (`["csv"]`).
    fn extensions(&self) -> &'static [&'static str];

    /// Judges the first bytes of a file (at most 4 KiB, a leading BOM
    /// removed): `None` when they do not look like this format.
    fn sniff(&self, head: &[u8]) -> Option<SniffScore>;

    /// The options this reader takes for `op`.
    fn accepts(&self, op: Op) -> &'static [&'static str];

    /// What to say when `option` is given for `op` but not accepted:
    /// the reader's own advice (for example "use pointer").
    fn option_hint(&self, op: Op, option: &str) -> Option<String> {
        let _ = (op, option);
        None
    }

    /// What is in the file.
    ///
    /// # Errors
    /// Typed refusals.
    fn inspect(
        &self,
        source: &dyn ByteSource,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal>;

    /// A bounded window of it.
    ///
    /// # Errors
    /// Typed refusals.
    fn select(
        &self,
        source: &dyn ByteSource,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal>;

    /// Whether it is well formed.
    ///
    /// # Errors
    /// Typed refusals.
    fn validate(
        &self,
        source: &dyn ByteSource,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal>;
}
