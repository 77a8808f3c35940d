//! The entry points: inspect, select and validate over any registered
//! format, with the option cross-checks and the refusal mapping.

use std::path::Path;

use plumb_core::{Answer, FileSource, Op, Refusal, RefusalReason, Request, Source};

use crate::registry::{Detected, DetectedBy, Registry};

/// plumb: a registry of readers and the operations over them.
///
/// ```
/// use plumb::{Plumb, Request};
/// use plumb_core::BytesSource;
///
/// let plumb = Plumb::new();
/// let source = BytesSource::new("people.csv", "id,name\n1,ann\n2,bob\n");
/// let answer = plumb.inspect_source(&source, None, &Request::default())?;
/// let json = answer.to_json();
/// assert_eq!(answer.format(), "csv");
/// assert_eq!(json["row_count"], 2);
/// assert_eq!(answer.view().label(), "exact");
/// # Ok::<(), plumb_core::Refusal>(())
/// ```
#[derive(Debug, Clone)]
pub struct Plumb {
    registry: Registry,
}

impl Default for Plumb {
    fn default() -> Plumb {
        Plumb::new()
    }
}

impl Plumb {
    /// plumb with the built-in readers.
    pub fn new() -> Plumb {
        Plumb {
            registry: Registry::with_builtins(),
        }
    }

    /// plumb over a registry of your own.
    pub fn with_registry(registry: Registry) -> Plumb {
        Plumb { registry }
    }

    /// The registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The registry, to register more readers.
    pub fn registry_mut(&mut self) -> &mut Registry {
        &mut self.registry
    }

    /// Decides the format of a file.
    ///
    /// # Errors
    /// `not-found`, `not-a-file`, `unsupported-format`, and read refusals.
    pub fn detect(&self, path: &Path, format: Option<&str>) -> Result<Detected, Refusal> {
        let source = FileSource::new(path)?;
        self.detect_source(&source, format)
    }

    /// Decides the format of any byte source.
    ///
    /// # Errors
    /// `unsupported-format`, and read refusals.
    pub fn detect_source(
        &self,
        source: &dyn Source,
        format: Option<&str>,
    ) -> Result<Detected, Refusal> {
        #[cfg(feature = "compression")]
        if let Some(container) = container_of(source) {
            let decoded = crate::container::Decompressed::new(source, container);
            let mut detected = self
                .registry
                .detect(&decoded, format)
                .map_err(|r| r.with_extra("container", container.name().into()))?;
            detected.container = Some(container.name());
            return Ok(detected);
        }
        self.registry.detect(source, format)
    }

    /// Runs `op` on a file.
    ///
    /// # Errors
    /// `not-found`, `not-a-file` (the stat check comes first),
    /// `unsupported-format`, `invalid-argument` for an option the format
    /// does not take, and the reader's refusals.
    pub fn run(
        &self,
        op: Op,
        path: &Path,
        format: Option<&str>,
        req: &Request,
    ) -> Result<Box<dyn Answer>, Refusal> {
        let source = FileSource::new(path)?;
        self.run_source(op, &source, format, req)
    }

    /// Runs `op` on any source: one detection, the options checked
    /// against what the reader declares (and normalized to the declared
    /// types), then the reader. The answer says which format answered.
    ///
    /// # Errors
    /// As [`Plumb::run`].
    pub fn run_source(
        &self,
        op: Op,
        source: &dyn Source,
        format: Option<&str>,
        req: &Request,
    ) -> Result<Box<dyn Answer>, Refusal> {
        #[cfg(feature = "compression")]
        if let Some(container) = container_of(source) {
            let decoded = crate::container::Decompressed::new(source, container);
            return match self.run_plain(op, &decoded, format, req) {
                Ok(inner) => Ok(Box::new(crate::container::Contained::new(inner, container))),
                Err(r) => Err(r.with_extra("container", container.name().into())),
            };
        }
        self.run_plain(op, source, format, req)
    }

    /// [`Plumb::run_source`] on a source read as it is.
    fn run_plain(
        &self,
        op: Op,
        source: &dyn Source,
        format: Option<&str>,
        req: &Request,
    ) -> Result<Box<dyn Answer>, Refusal> {
        let detected = match self.registry.detect(source, format) {
            // Nothing decided the format, but the options imply one: the
            // first registered format that takes them all (a delimiter
            // implies a delimited format).
            Err(r)
                if format.is_none()
                    && r.reason() == RefusalReason::UnsupportedFormat
                    && r.extra("found").is_none() =>
            {
                let given: Vec<&str> = req.options.names().collect();
                match self.registry.by_options(&given) {
                    Some(reader) => Detected {
                        reader,
                        by: DetectedBy::Options,
                        container: None,
                    },
                    None => return Err(r),
                }
            }
            other => other?,
        };
        let reader = detected.reader.as_ref();
        let mut checked = req.clone();
        self.registry.check_options(reader, op, &mut checked)?;
        op.run(reader, source, &checked).map_err(|r| {
            let r = locate_invalid_utf8(source, r);
            if r.path().is_none() {
                r.with_path(source.name())
            } else {
                r
            }
        })
    }

    /// Inspects a file.
    ///
    /// # Errors
    /// As [`Plumb::run`].
    pub fn inspect(
        &self,
        path: &Path,
        format: Option<&str>,
        req: &Request,
    ) -> Result<Box<dyn Answer>, Refusal> {
        self.run(Op::Inspect, path, format, req)
    }

    /// Selects a window of a file.
    ///
    /// # Errors
    /// As [`Plumb::run`].
    pub fn select(
        &self,
        path: &Path,
        format: Option<&str>,
        req: &Request,
    ) -> Result<Box<dyn Answer>, Refusal> {
        self.run(Op::Select, path, format, req)
    }

    /// Validates a file.
    ///
    /// # Errors
    /// As [`Plumb::run`].
    pub fn validate(
        &self,
        path: &Path,
        format: Option<&str>,
        req: &Request,
    ) -> Result<Box<dyn Answer>, Refusal> {
        self.run(Op::Validate, path, format, req)
    }

    /// Inspects any byte source.
    ///
    /// # Errors
    /// As [`Plumb::run`].
    pub fn inspect_source(
        &self,
        source: &dyn Source,
        format: Option<&str>,
        req: &Request,
    ) -> Result<Box<dyn Answer>, Refusal> {
        self.run_source(Op::Inspect, source, format, req)
    }
}

/// Adds the line and column to an `invalid-utf8` refusal that has only a
/// byte offset, by reading the source again up to it (the stream that
/// refused had already read that far, so this costs no more than the
/// operation did, and only on the way out). A source without random
/// access keeps the offset alone.
pub(crate) fn locate_invalid_utf8(source: &dyn Source, refusal: Refusal) -> Refusal {
    if refusal.reason() != RefusalReason::InvalidUtf8 || refusal.line().is_some() {
        return refusal;
    }
    let Some(at) = refusal.byte_offset() else {
        return refusal;
    };
    match text_position(source, at) {
        Some((line, column)) => {
            let message = format!(
                "the bytes at offset {at} (line {line}, column {column}) are not well-formed UTF-8; \
                 convert the file to UTF-8 (for example with iconv) and try again"
            );
            refusal
                .with_line(line)
                .with_column(column)
                .with_message(message)
        }
        None => refusal,
    }
}

/// The 1-based line and column (in characters, a BOM not counted) of
/// byte `at`, when every byte before it can be read again.
pub(crate) fn text_position(source: &dyn Source, at: u64) -> Option<(u64, u64)> {
    const CHUNK: usize = 64 * 1024;
    let mut buf = vec![0u8; CHUNK];
    let (mut line, mut column) = (1u64, 1u64);
    let mut pos = 0u64;
    while pos < at {
        let want = CHUNK.min(usize::try_from(at - pos).unwrap_or(CHUNK));
        let n = match source.read_at(pos, &mut buf[..want])? {
            Ok(0) | Err(_) => return None,
            Ok(n) => n,
        };
        let mut bytes = &buf[..n];
        if pos == 0 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        let chars = |b: &[u8]| b.iter().filter(|&&c| c & 0xC0 != 0x80).count() as u64;
        match memchr::memrchr(b'\n', bytes) {
            Some(last) => {
                line += memchr::memchr_iter(b'\n', bytes).count() as u64;
                column = 1 + chars(&bytes[last + 1..]);
            }
            None => column += chars(bytes),
        }
        pos += n as u64;
    }
    Some((line, column))
}

/// The compression the first bytes of `source` announce, if plumb
/// decodes it (a source that cannot be read is left to the operation to
/// refuse).
#[cfg(feature = "compression")]
fn container_of(source: &dyn Source) -> Option<crate::container::Container> {
    let head = source.head(8).ok()?;
    crate::container::Container::of(&head)
}
