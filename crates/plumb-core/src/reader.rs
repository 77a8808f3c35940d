//! The seam where formats plug in: byte sources, the object-safe
//! [`FormatReader`] trait, and the [`Answer`] every reader returns.
//!
//! It lives here, beside the substrate, so that each engine crate can
//! implement it without depending on the dispatcher (`plumb`), and so
//! that a downstream crate can write a reader for a format plumb does not
//! ship and register it next to the built-in ones.
//!
//! A reader is handed a [`Source`], not text: a binary format, a
//! compressed file or a remote object can be read through the same trait.
//! Text formats wrap the source in a [`crate::TextStream`].

use std::any::Any;
use std::fmt::Debug;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use schemars::{Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::Value;

use crate::cancel::CancelToken;
use crate::file::OpenedFile;
use crate::layout::Layout;
use crate::op::Op;
use crate::options::{OptionSpec, Request};
use crate::ranges::{RangePart, RangePlan};
use crate::refusal::Refusal;
use crate::stream::{TextStream, CHUNK_BYTES};
use crate::view::ViewFlags;

/// Where a reader's bytes come from: opened once by the caller, then
/// read by a reader as often as it needs, each time from the start.
///
/// It is the one place a new kind of input plugs in: a file on disk
/// ([`FileSource`]), bytes in memory ([`BytesSource`]), and next a
/// decompressed stream, standard input or a remote object. A source
/// knows its length when it can, gives a sequential reader always and
/// random access ([`Source::read_at`]) only when it has it, and carries
/// the caller's [`CancelToken`], so a scan is cancelled by the stream it
/// reads and by nothing else.
pub trait Source: Send + Sync + Debug {
    /// A reader over the bytes from the start.
    ///
    /// # Errors
    /// `not-found`, `not-a-file`, `read-error`.
    fn open(&self) -> Result<Box<dyn BufRead + Send + '_>, Refusal>;

    /// How the caller named the source (a path), for messages.
    fn name(&self) -> &str;

    /// The size in bytes, when known.
    fn len(&self) -> Option<u64>;

    /// Reads bytes at `offset` into `buf`, when the source has random
    /// access (`None` for a stream); `Some(Ok(0))` at or past the end.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Option<std::io::Result<usize>> {
        let _ = (offset, buf);
        None
    }

    /// `len` bytes at `offset` (fewer at the end), as [`Bytes`]: the
    /// shape in which ranged reads (a tail, a footer, a remote object's
    /// range) and chunks handed across threads travel, cheap to clone and
    /// slice. `None` for a source without random access. The default
    /// reads through [`Source::read_at`]; a source that already holds its
    /// bytes hands out a slice of them, with no copy.
    ///
    /// # Errors
    /// `read-error` when a read fails or the source ends before its length.
    fn read_range(&self, offset: u64, len: usize) -> Option<Result<Bytes, Refusal>> {
        let mut buf = vec![0u8; len];
        let mut filled = 0;
        while filled < len {
            match self.read_at(offset + filled as u64, &mut buf[filled..])? {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Some(Err(Refusal::from_io(&e, Some(self.name())))),
            }
        }
        buf.truncate(filled);
        Some(Ok(Bytes::from(buf)))
    }

    /// A sequential reader over bytes `start..end`, for a source that
    /// reads a range better as a stream than by repeated
    /// [`Source::read_at`] (a remote object fetches large ranges ahead of
    /// the reader, where each `read_at` would be a request of its own).
    /// `None` (the default) has [`part_stream`](crate::part_stream) read
    /// through `read_at`.
    ///
    /// # Errors
    /// As [`Source::open`].
    fn open_range(
        &self,
        start: u64,
        end: u64,
    ) -> Option<Result<Box<dyn BufRead + Send + '_>, Refusal>> {
        let _ = (start, end);
        None
    }

    /// The token that cancels scans of this source, if the caller armed one.
    fn cancel_token(&self) -> Option<&CancelToken> {
        None
    }

    /// An owned handle on the same bytes, with random access, for a
    /// reader whose library wants a source it can keep (a `'static` one:
    /// the `parquet` crate's `ChunkReader`). It reads what this source
    /// reads, by position, and nothing is copied: a file shares its
    /// opened handle, bytes in memory share their buffer. `None` for a
    /// source without random access (a stream, a decompressed file).
    fn to_shared(&self) -> Option<Arc<dyn Source>> {
        None
    }

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
    /// As [`Source::open`], and `read-error` when a read fails.
    fn head(&self, max: usize) -> Result<Vec<u8>, Refusal> {
        let mut out = Vec::with_capacity(max.min(64 * 1024));
        self.open()?
            .take(max as u64)
            .read_to_end(&mut out)
            .map_err(|e| Refusal::from_io(&e, Some(self.name())))?;
        Ok(out)
    }
}

/// A file on disk, opened once: every [`Source::open`] reads the
/// same handle by position, up to the size it had when it was opened
/// (see [`OpenedFile`]). Nothing looks the path up a second time.
#[derive(Debug, Clone)]
pub struct FileSource {
    file: OpenedFile,
    progress: Option<Arc<AtomicU64>>,
    cancel: Option<CancelToken>,
    /// A file of at most [`FILE_HELD_BYTES`], read whole on the first
    /// [`Source::head`] (shared by the clones).
    held: Arc<std::sync::OnceLock<Bytes>>,
}

/// The largest file a [`FileSource`] reads whole when its head is first
/// asked for, and then hands every head and stream from memory: a small
/// file is sniffed by several heads and then streamed, each a read of
/// its own otherwise (a dataset of many small files pays them all).
pub const FILE_HELD_BYTES: u64 = CHUNK_BYTES as u64;

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
            cancel: None,
            held: Arc::default(),
        }
    }

    /// Arms `token`: every scan of this source refuses `aborted` once it
    /// is cancelled.
    pub fn with_cancel(mut self, token: Option<CancelToken>) -> FileSource {
        self.cancel = token;
        self
    }

    /// Counts the bytes read into `counter` as they are read, by a
    /// stream or by position (for a progress bar). A scan that probes
    /// the head or the tail first counts those bytes too, so the count
    /// may pass the file's size by a few blocks.
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

impl Source for FileSource {
    fn open(&self) -> Result<Box<dyn BufRead + Send + '_>, Refusal> {
        if let Some(held) = self.held.get() {
            return Ok(Box::new(&held[..]));
        }
        let reader = self.file.reader();
        // A buffer no larger than the file (and one byte to see its end):
        // a buffer is zeroed when first filled, and a dataset of small
        // files opens one per file.
        let capacity = usize::try_from(self.file.len())
            .map_or(CHUNK_BYTES, |len| len.saturating_add(1).min(CHUNK_BYTES));
        Ok(match &self.progress {
            Some(counter) => Box::new(BufReader::with_capacity(
                capacity,
                Counted {
                    inner: reader,
                    counter: counter.clone(),
                },
            )),
            None => Box::new(BufReader::with_capacity(capacity, reader)),
        })
    }

    // A small file is read whole, once (and counted once); a larger
    // one's head by position, without a stream.
    fn head(&self, max: usize) -> Result<Vec<u8>, Refusal> {
        let size = self.file.len();
        if size <= FILE_HELD_BYTES {
            let held = match self.held.get() {
                Some(held) => held,
                None => {
                    let bytes = self
                        .read_range(0, size as usize)
                        .unwrap_or(Ok(Bytes::new()))?;
                    self.held.get_or_init(|| bytes)
                }
            };
            return Ok(held[..max.min(held.len())].to_vec());
        }
        let len = usize::try_from(size).map_or(max, |len| len.min(max));
        match self.read_range(0, len) {
            Some(bytes) => Ok(Vec::from(bytes?)),
            None => Ok(Vec::new()),
        }
    }

    fn name(&self) -> &str {
        self.file.name()
    }

    fn len(&self) -> Option<u64> {
        Some(self.file.len())
    }

    // Parts of a split scan read by position: their bytes count too.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Option<std::io::Result<usize>> {
        let read = self.file.read_at(offset, buf);
        if let (Ok(n), Some(counter)) = (&read, &self.progress) {
            counter.fetch_add(*n as u64, Ordering::Relaxed);
        }
        Some(read)
    }

    fn cancel_token(&self) -> Option<&CancelToken> {
        self.cancel.as_ref()
    }

    fn to_shared(&self) -> Option<Arc<dyn Source>> {
        Some(Arc::new(self.clone()))
    }
}

/// Bytes in memory, under a name (whose extension counts for detection).
#[derive(Debug, Clone)]
pub struct BytesSource {
    name: String,
    bytes: Bytes,
    cancel: Option<CancelToken>,
}

impl BytesSource {
    /// Names some bytes.
    pub fn new(name: impl Into<String>, bytes: impl Into<Bytes>) -> BytesSource {
        BytesSource {
            name: name.into(),
            bytes: bytes.into(),
            cancel: None,
        }
    }

    /// Arms `token` (see [`FileSource::with_cancel`]).
    pub fn with_cancel(mut self, token: Option<CancelToken>) -> BytesSource {
        self.cancel = token;
        self
    }
}

impl Source for BytesSource {
    fn open(&self) -> Result<Box<dyn BufRead + Send + '_>, Refusal> {
        Ok(Box::new(&self.bytes[..]))
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Option<std::io::Result<usize>> {
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.bytes.len());
        let n = buf.len().min(self.bytes.len() - start);
        buf[..n].copy_from_slice(&self.bytes[start..start + n]);
        Some(Ok(n))
    }

    fn read_range(&self, offset: u64, len: usize) -> Option<Result<Bytes, Refusal>> {
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.bytes.len());
        let end = start.saturating_add(len).min(self.bytes.len());
        Some(Ok(self.bytes.slice(start..end)))
    }

    fn cancel_token(&self) -> Option<&CancelToken> {
        self.cancel.as_ref()
    }

    fn to_shared(&self) -> Option<Arc<dyn Source>> {
        Some(Arc::new(self.clone()))
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn len(&self) -> Option<u64> {
        Some(self.bytes.len() as u64)
    }
}

/// Opens a source as a text stream, armed with the source's cancel token
/// (the one place a token is armed).
///
/// # Errors
/// As [`Source::open`].
pub fn text_stream(
    source: &dyn Source,
) -> Result<TextStream<Box<dyn BufRead + Send + '_>>, Refusal> {
    let stream = TextStream::from_buf_read(source.open()?);
    Ok(match source.cancel_token() {
        Some(token) => stream.with_cancel(token.clone()),
        None => stream,
    })
}

impl Op {
    /// Runs this op on `reader`: the one place an op meets a reader.
    ///
    /// # Errors
    /// The reader's refusals, and [`Op::unsupported`] for an op the
    /// reader does not take.
    pub fn run(
        self,
        reader: &dyn FormatReader,
        source: &dyn Source,
        req: &Request,
    ) -> Result<Box<dyn Answer>, Refusal> {
        if let (Op::Search, Some(n)) = (self, req.window.from_end) {
            return search_from_end(reader, source, req, n);
        }
        if let Some(n) = req.window.from_end {
            if self != Op::Select {
                return Err(Refusal::invalid_argument(format!(
                    "a negative offset (-{n}: the last {n}) is for select; {} takes an offset of 0 or more",
                    self.as_str()
                )));
            }
            if !reader.selects_from_end() {
                return Err(Refusal::invalid_argument(format!(
                    "{} cannot select from the end (offset -{n}); give an offset of 0 or more",
                    reader.name()
                )));
            }
        }
        match self {
            Op::Inspect => reader.inspect(source, req),
            Op::Select => reader.select(source, req),
            Op::Validate => reader.validate(source, req),
            Op::Search => reader.search(source, req),
        }
    }
}

/// A search for the last `n` hits (a negative offset, `-n`), on any
/// reader: one pass counts every hit, a second passes over all but the
/// last `n` and returns them from there (at most the limit; the answer
/// then goes on forward, as any search does). Two reads of the file, in
/// the memory of one search.
fn search_from_end(
    reader: &dyn FormatReader,
    source: &dyn Source,
    req: &Request,
    n: u64,
) -> Result<Box<dyn Answer>, Refusal> {
    let mut count = req.clone();
    count.window.from_end = None;
    count.window.offset = None;
    count
        .options
        .set("count_only", serde_json::Value::Bool(true));
    let counted = reader.search(source, &count)?.to_json();
    let total = counted["total"].as_u64().unwrap_or(0);
    if counted["total_exact"] != serde_json::Value::Bool(true) {
        return Err(Refusal::invalid_argument(format!(
            "the last {n} hits are known only once the whole file is read, and the count stopped \
             before the end (at its byte budget, max_scan_bytes, or a row cap) after {total} hits; \
             raise the budget, or search forward with an offset of 0 or more"
        )));
    }
    let mut last = req.clone();
    last.window.from_end = None;
    last.window.offset = None;
    last.scan.skip_hits = total - n.min(total);
    reader.search(source, &last)
}

/// The counts of a windowed answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct WindowCounts {
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
    /// The format that answered (`csv`), the name its reader goes by.
    fn format(&self) -> &'static str;
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
    /// The counts of a windowed select or search.
    fn window(&self) -> Option<WindowCounts> {
        None
    }
    /// Where the caller continues from, in the unit of the answer's
    /// offset, when more follows: by default the end of the window; a
    /// search answers where its next hit is.
    fn next_offset(&self) -> Option<u64> {
        self.window()
            .filter(|w| w.has_more)
            .map(|w| w.offset + w.returned)
    }
    /// The shape the answer's JSON follows, for a front end choosing
    /// how to show it to a person (see [`Layout`]): by default a
    /// verdict's when the answer has one, else plain fields.
    fn layout(&self) -> Layout {
        if self.verdict().is_some() {
            Layout::Verdict
        } else {
            Layout::Fields
        }
    }
    /// The table's shape, typed, for an answer of
    /// [`Layout::TableColumns`] that gives it: the same facts its JSON
    /// states, without building the JSON. `None` (the default) has a
    /// reader of many files read them from [`Answer::to_json`].
    fn shape(&self) -> Option<crate::Shape> {
        None
    }

    /// The rows (records) of the whole source, counted in the unit its
    /// inspect counts, when this answer read all of it: a validate of a
    /// table or of JSON Lines that found the source valid. `None` (the
    /// default) for an answer that counts no such rows, or stopped early.
    fn rows(&self) -> Option<u64> {
        None
    }

    /// The statistics of each named column, settled and ready to merge
    /// with the same columns' elsewhere, when the request asked for them
    /// ([`ScanBounds::sketches`](crate::ScanBounds::sketches)) beside
    /// statistics: a `plumb_stats::ColumnSketches` to downcast (named
    /// here without the type, since `plumb-stats` builds on this crate).
    /// Taken out, not copied: they may hold megabytes, and a merge
    /// consumes them. `None` (the default, and after a first take): the
    /// reader keeps none, and a merge across files says that file's
    /// statistics are missing.
    fn take_sketches(&mut self) -> Option<Box<dyn Any + Send>> {
        None
    }

    /// For downcasting to the engine's type.
    fn as_any(&self) -> &dyn Any;
}

/// A schema generator for answers: JSON Schema 2020-12, describing what
/// a type serializes to (a field skipped when empty is not required),
/// not what would deserialize into it.
pub fn answer_generator() -> SchemaGenerator {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
}

/// The schema a reader that takes all four ops gives for `op` in
/// [`FormatReader::answer_schema`]: its inspect answer `I`, select
/// answer `S`, validate answer `V` or search answer `Q`.
///
/// ```
/// use plumb_core::{answer_generator, schema_by_op, Op};
///
/// let mut generator = answer_generator();
/// let s = schema_by_op::<u8, String, bool, Vec<u8>>(Op::Validate, &mut generator);
/// assert_eq!(s.unwrap().get("type"), Some(&serde_json::json!("boolean")));
/// ```
pub fn schema_by_op<I, S, V, Q>(op: Op, generator: &mut SchemaGenerator) -> Option<Schema>
where
    I: schemars::JsonSchema,
    S: schemars::JsonSchema,
    V: schemars::JsonSchema,
    Q: schemars::JsonSchema,
{
    Some(match op {
        Op::Inspect => generator.subschema_for::<I>(),
        Op::Select => generator.subschema_for::<S>(),
        Op::Validate => generator.subschema_for::<V>(),
        Op::Search => generator.subschema_for::<Q>(),
    })
}

/// How sure a content sniff is: higher wins. Built-in readers use
/// 10 (a weak hint, such as a comma in the first line) to 60 (a
/// structural match, such as two JSON lines).
pub type SniffScore = u8;

/// The score of a sniff that found the format's own signature bytes
/// (`PAR1`, a workbook's zip parts): a binary format that the first
/// bytes name. Detection hands a file whose first bytes say it is not
/// text ([`crate::Source`]s of Parquet, spreadsheets) to a reader whose
/// sniff gives it at least this, and refuses it otherwise.
pub const SIGNATURE_SCORE: SniffScore = 100;

/// A format plumb can read.
///
/// Object-safe, so a `Registry` can hold readers written anywhere. A
/// reader names its format, claims extensions, sniffs a head, declares
/// its own [`options`](FormatReader::options), and overrides the op
/// methods it supports; an op it leaves alone is refused for it. The
/// dispatcher has already checked every given option against the
/// declarations (and normalized its value) before an op method runs.
pub trait FormatReader: Send + Sync {
    /// The format's name (`csv`), lowercase; what `--format` takes.
    fn name(&self) -> &'static str;

    /// File extensions, lowercase and without the dot (`["csv"]`).
    fn extensions(&self) -> &'static [&'static str];

    /// Judges the first bytes of a file (at most 4 KiB, a leading BOM
    /// removed): `None` when they do not look like this format.
    fn sniff(&self, head: &[u8]) -> Option<SniffScore>;

    /// The reader's own options, beyond the [`crate::COMMON_OPTIONS`]
    /// every reader takes.
    fn options(&self) -> &'static [OptionSpec] {
        &[]
    }

    /// What is in the file.
    ///
    /// # Errors
    /// Typed refusals; by default the op is not supported.
    fn inspect(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let _ = (source, req);
        Err(Op::Inspect.unsupported(self.name()))
    }

    /// A bounded window of it.
    ///
    /// # Errors
    /// Typed refusals; by default the op is not supported.
    fn select(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let _ = (source, req);
        Err(Op::Select.unsupported(self.name()))
    }

    /// Whether it is well formed.
    ///
    /// # Errors
    /// Typed refusals; by default the op is not supported.
    fn validate(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let _ = (source, req);
        Err(Op::Validate.unsupported(self.name()))
    }

    /// Where a pattern or predicate holds ([`crate::Query::from_request`]
    /// reads the shared search options).
    ///
    /// # Errors
    /// Typed refusals; by default the op is not supported.
    fn search(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let _ = (source, req);
        Err(Op::Search.unsupported(self.name()))
    }

    /// The JSON Schema of this reader's answer to `op`, for the agent
    /// surface's output schemas: usually `generator.subschema_for` the
    /// answer's type (a `$ref` into the definitions `generator` keeps,
    /// shared with the other readers'; [`answer_generator`] makes one),
    /// and `None` for an op the reader does not take. By default any
    /// object, for every op: a reader that does not describe its answers
    /// is not held to a shape.
    fn answer_schema(&self, op: Op, generator: &mut SchemaGenerator) -> Option<Schema> {
        let _ = (op, generator);
        Some(schemars::json_schema!({"type": "object"}))
    }

    /// Whether [`FormatReader::select`] serves [`crate::Window::from_end`]
    /// (a negative offset: the last N items). False by default: a reader
    /// that does not say so is never handed one ([`Op::run`] refuses it
    /// first), so no reader returns the head when the tail was asked for.
    fn selects_from_end(&self) -> bool {
        false
    }

    /// Cuts `op` on `source` into about `parts` byte ranges that scan
    /// apart (see [`crate::ranges`]); `None` (the default) when this
    /// reader does not split `op`, or this file is not worth splitting.
    /// `req` is checked as for the op itself.
    ///
    /// # Errors
    /// A read error while reading the head or looking for cuts.
    fn plan_ranges(
        &self,
        source: &dyn Source,
        op: Op,
        req: &Request,
        parts: usize,
    ) -> Result<Option<RangePlan>, Refusal> {
        let _ = (source, op, req, parts);
        Ok(None)
    }

    /// Scans range `index` of `plan` for `op`. Never fails: what stops
    /// the range (a refusal, a fault, a plan that is not this file's)
    /// leaves it unsettled, and the join then gives nothing. Unsettled by
    /// default.
    fn scan_range(
        &self,
        source: &dyn Source,
        op: Op,
        req: &Request,
        plan: &RangePlan,
        index: usize,
    ) -> RangePart {
        let _ = (source, op, req, plan);
        RangePart { index, state: None }
    }

    /// The answer to `op` from the parts of every range of `plan` (in
    /// any order): the answer a scan of the whole file gives, or `None`
    /// when the parts cannot give it (one is unsettled or missing, or
    /// their guesses do not hold), for the caller to scan the whole file.
    /// `None` by default.
    fn join_ranges(
        &self,
        op: Op,
        req: &Request,
        plan: &RangePlan,
        parts: &[RangePart],
    ) -> Option<Box<dyn Answer>> {
        let _ = (op, req, plan, parts);
        None
    }
}
