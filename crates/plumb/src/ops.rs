//! The entry points: every op (inspect, select, validate, search) over
//! any registered format, by path or by source, with the option
//! cross-checks and the refusal mapping.

use std::path::Path;

use plumb_core::schemars::{Schema, SchemaGenerator};
use plumb_core::{Answer, FileSource, Op, Refusal, RefusalReason, Request, Source};

use crate::layers::{Layered, Layers, SourceChoice};
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

    /// The JSON Schemas of the answers `op` gives: each reader's that
    /// takes it ([`plumb_core::FormatReader::answer_schema`], as a `$ref` into
    /// `generator`'s definitions, or any object from a reader that does
    /// not describe its answers), for an inspect the listing of a zip
    /// archive, and for an op a dataset takes, the dataset's answer; each once. Each admits the fields a file read through a container or
    /// an encoding gains (`member`, `container`, `encoding`, `offsets`).
    ///
    /// ```
    /// use plumb::{Op, Plumb};
    ///
    /// let mut generator = plumb_core::answer_generator();
    /// let schemas = Plumb::new().answer_schemas(Op::Validate, &mut generator);
    /// // CSV and TSV share one answer: csv, json and jsonl remain, and a dataset's.
    /// assert_eq!(schemas.len(), 4);
    /// assert!(generator.definitions().contains_key("CsvValidate"));
    /// ```
    pub fn answer_schemas(&self, op: Op, generator: &mut SchemaGenerator) -> Vec<Schema> {
        let mut out: Vec<Schema> = Vec::new();
        let mut add = |s: Schema| {
            if !out.contains(&s) {
                out.push(s);
            }
        };
        for reader in self.registry.every() {
            if let Some(s) = reader.answer_schema(op, generator) {
                add(crate::layers::layered_schema(s));
            }
        }
        #[cfg(feature = "compression")]
        if op == Op::Inspect {
            add(generator.subschema_for::<crate::archive::ZipListing>());
        }
        if matches!(op, Op::Inspect | Op::Validate | Op::Search) {
            add(generator.subschema_for::<crate::dataset::DatasetAnswer>());
        }
        out
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
        self.detect_with(source, format, &SourceChoice::default())
    }

    /// [`Plumb::detect_source`] with the source options (`encoding`,
    /// `member`) a caller gave.
    ///
    /// # Errors
    /// As [`Plumb::detect_source`]; `invalid-argument` for a member of a
    /// source that is not an archive.
    pub fn detect_with(
        &self,
        source: &dyn Source,
        format: Option<&str>,
        choice: &SourceChoice,
    ) -> Result<Detected, Refusal> {
        let mut layers = Layers::default();
        let mut detected = crate::layers::through(source, choice, &mut layers, &mut |s, _, _| {
            self.registry.detect(s, format)
        })?;
        detected.container = layers.container;
        detected.encoding = layers.encoding;
        Ok(detected)
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
        let mut req = req.clone();
        let choice = SourceChoice::take(&mut req.options)?;
        #[cfg(feature = "compression")]
        if op == Op::Inspect && choice.member.is_none() && is_zip(source) {
            if let Some(listing) = self.list_zip(source, &req)? {
                return Ok(Box::new(listing));
            }
        }
        let mut layers = Layers::default();
        crate::layers::through(
            source,
            &choice,
            &mut layers,
            &mut |s, layers, transcoded| {
                let inner = self.run_plain(op, s, format, &req)?;
                Ok(if layers.is_empty() {
                    inner
                } else {
                    Box::new(Layered::new(inner, layers.clone(), transcoded))
                })
            },
        )
    }

    /// The members of a zip archive, each with the format plumb reads
    /// it as (the first [`crate::ZIP_LIST_MAX`]; the rest are counted).
    #[cfg(feature = "compression")]
    fn list_zip(
        &self,
        source: &dyn Source,
        req: &Request,
    ) -> Result<Option<crate::archive::ZipListing>, Refusal> {
        use crate::archive::{ZipListing, ZipMember};
        let dir = crate::archive::directory(source, crate::archive::ZIP_LIST_MAX, None)
            .map_err(|r| r.with_path(source.name()))?;
        // A workbook whose first member does not name it is still one.
        if let Some(found) = dir.package {
            if self.registry.by_name(found.name).is_some() {
                // A workbook with a reader: read as the workbook it is.
                return Ok(None);
            }
            return Err(self
                .registry
                .not_readable(source.name(), found)
                .with_path(source.name()));
        }
        if let Some(name) = req.options.names().next() {
            return Err(Refusal::invalid_argument(format!(
                "`{}` is an option of a format, and `{}` is a zip archive: name the member \
                 to read with the member option",
                plumb_core::echo(name),
                plumb_core::echo(source.name())
            )));
        }
        let members = dir
            .listed
            .iter()
            .map(|entry| {
                let detected = if ZipMember::readable(entry) {
                    let member = ZipMember::from_entry(source, entry.clone());
                    self.detect_with(&member, None, &SourceChoice::default())
                        .map(|d| {
                            let mut v = serde_json::json!({"format": d.reader.name()});
                            if let Some(c) = d.container {
                                v["container"] = c.into();
                            }
                            if let Some(e) = d.encoding {
                                v["encoding"] = e.into();
                            }
                            v
                        })
                } else {
                    Ok(serde_json::json!({"format": null}))
                };
                ZipListing::member(entry, detected)
            })
            .collect();
        Ok(Some(ZipListing::new(members, dir.count)))
    }

    /// [`Plumb::run_source`] on a source read as it is.
    fn run_plain(
        &self,
        op: Op,
        source: &dyn Source,
        format: Option<&str>,
        req: &Request,
    ) -> Result<Box<dyn Answer>, Refusal> {
        let detected = match self.search_lines(op, source, format, req) {
            Some(lines) => Ok(lines),
            None => self.registry.detect(source, format),
        };
        let detected = match detected {
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
                        encoding: None,
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

    /// The lines reader, when a search is of lines: no format named, no
    /// extension of a data format, and no option of one given (a column
    /// or a pointer says the caller means the data format its sniff
    /// finds). A log file whose first line has commas is searched as
    /// lines, not as a table.
    fn search_lines(
        &self,
        op: Op,
        source: &dyn Source,
        format: Option<&str>,
        req: &Request,
    ) -> Option<Detected> {
        if op != Op::Search || format.is_some() {
            return None;
        }
        let reader = self.registry.lines_reader()?;
        if source
            .extension()
            .is_some_and(|ext| self.registry.by_extension(&ext).is_some())
        {
            return None;
        }
        let shared = |name: &str| {
            plumb_core::COMMON_OPTIONS.iter().any(|s| s.name == name)
                || reader.options().iter().any(|s| s.name == name)
        };
        if !req.options.names().all(shared) {
            return None;
        }
        // A binary or compressed head is refused by detection as ever.
        let head = source.head(crate::registry::SNIFF_BYTES).ok()?;
        if crate::magic::identify(&head).is_some() {
            return None;
        }
        Some(Detected {
            reader,
            by: DetectedBy::Options,
            container: None,
            encoding: None,
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
    let Some((line, column)) = text_position(source, at) else {
        return refusal;
    };
    let (advice, suggested) = match looks_single_byte(source, at) {
        Some(label) => (
            format!(
                "the bytes look like {label} text: pass the encoding option \
                 (encoding {label}), or convert the file to UTF-8"
            ),
            Some(label),
        ),
        None => (
            "convert the file to UTF-8 (for example with iconv), or name its encoding \
             with the encoding option, and try again"
                .to_owned(),
            None,
        ),
    };
    let message = format!(
        "the bytes at offset {at} (line {line}, column {column}) are not well-formed UTF-8; {advice}"
    );
    let refusal = refusal
        .with_line(line)
        .with_column(column)
        .with_message(message);
    match suggested {
        Some(label) => refusal.with_extra("suggested_encoding", label.into()),
        None => refusal,
    }
}

/// How much text after a fault [`looks_single_byte`] judges.
const ENCODING_GUESS_BYTES: usize = 4096;

/// `windows-1252` when the text from `at` reads as a single-byte
/// Western encoding rather than broken UTF-8: no well-formed multi-byte
/// UTF-8 sequence in the next 4 KiB, and every byte above ASCII one
/// that windows-1252 prints (its five unassigned bytes and the C1
/// controls never appear in such text). `None` when it does not, or the
/// source cannot be read again.
fn looks_single_byte(source: &dyn Source, at: u64) -> Option<&'static str> {
    let window = source.read_range(at, ENCODING_GUESS_BYTES)?.ok()?;
    let mut high = 0usize;
    let mut i = 0;
    while i < window.len() {
        let b = window[i];
        if b < 0x80 {
            if b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r') {
                return None;
            }
            i += 1;
            continue;
        }
        let end = (i + 4).min(window.len());
        // A lone byte above ASCII, not the start of a sequence (whole,
        // or cut by the end of the file).
        match std::str::from_utf8(&window[i..end]) {
            Err(e) if e.valid_up_to() == 0 && e.error_len() == Some(1) => {}
            _ => return None,
        }
        if matches!(b, 0x81 | 0x8D | 0x8F | 0x90 | 0x9D) {
            return None;
        }
        high += 1;
        i += 1;
    }
    (high > 0).then_some("windows-1252")
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

/// Whether the first bytes of `source` are a zip archive's (not a
/// workbook or a document that is one inside).
#[cfg(feature = "compression")]
fn is_zip(source: &dyn Source) -> bool {
    source
        .head(crate::registry::SNIFF_BYTES)
        .ok()
        .and_then(|head| crate::magic::identify(&head))
        .is_some_and(|m| m.name == "zip")
}
