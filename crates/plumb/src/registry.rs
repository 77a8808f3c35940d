//! The registry of format readers, and format detection.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use plumb_core::{
    FormatReader, Op, OptionSpec, Refusal, RefusalReason, Request, Source, COMMON_OPTIONS,
    SIGNATURE_SCORE, UTF8_BOM,
};

/// How many bytes the content sniff looks at: enough for a header line
/// and a couple of records, small enough to cost nothing.
pub const SNIFF_BYTES: usize = 4 * 1024;

/// How a format was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DetectedBy {
    /// The caller named it.
    Explicit,
    /// The file's extension.
    Extension,
    /// The first 4 KiB of content.
    Sniff,
    /// Nothing else decided, and the caller gave options that only some
    /// formats take (`--delimiter ;` on a file called `export`): the
    /// first format registered that takes them all.
    Options,
}

/// A detected format.
#[derive(Clone)]
pub struct Detected {
    /// The reader.
    pub reader: Arc<dyn FormatReader>,
    /// How it was decided.
    pub by: DetectedBy,
    /// The compression the file was read through (`gzip`), if any.
    pub container: Option<&'static str>,
    /// The text encoding transcoded from (`utf-16le`), if not UTF-8.
    pub encoding: Option<&'static str>,
}

impl std::fmt::Debug for Detected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Detected")
            .field("format", &self.reader.name())
            .field("by", &self.by)
            .finish()
    }
}

/// An option as the registered readers declare it: the first
/// declaration of its name, the formats that declare it and the ops any
/// of them takes it for. The CLI's flags and the tool's schema are made
/// from these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredOption {
    /// The first declaration of the name (readers sharing a name should
    /// share its type; the kind shown is the first one's).
    pub spec: OptionSpec,
    /// The formats that declare it; empty for the options every reader
    /// shares ([`COMMON_OPTIONS`]).
    pub formats: Vec<&'static str>,
    /// The ops that take it, in [`Op::ALL`] order.
    pub ops: Vec<Op>,
}

impl DeclaredOption {
    /// The one-line help: the formats that take it, then its doc.
    pub fn help(&self) -> String {
        if self.formats.is_empty() {
            self.spec.doc.to_owned()
        } else {
            format!("{}: {}", self.formats.join(", "), self.spec.doc)
        }
    }
}

/// The readers plumb knows, by name, extension and sniff.
///
/// ```
/// use plumb::Registry;
/// let registry = Registry::with_builtins();
/// assert_eq!(registry.names(), ["csv", "tsv", "json", "jsonl"]);
/// assert_eq!(registry.by_extension("NDJSON").unwrap().name(), "jsonl");
/// ```
#[derive(Clone, Default)]
pub struct Registry {
    readers: Vec<Arc<dyn FormatReader>>,
    /// The reader of plain lines of text: never detected, named only
    /// (`text`), and the one a search falls back to.
    lines: Option<Arc<dyn FormatReader>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl Registry {
    /// A registry with no readers.
    pub fn empty() -> Registry {
        Registry::default()
    }

    /// The built-in readers: csv, tsv, json, jsonl.
    pub fn with_builtins() -> Registry {
        let mut r = Registry::empty();
        r.register(plumb_csv::CsvReader::CSV);
        r.register(plumb_csv::CsvReader::TSV);
        r.register(plumb_json::JsonReader);
        r.register(plumb_jsonl::JsonlReader);
        r.lines = Some(Arc::new(crate::search::TextReader));
        r
    }

    /// The reader of plain lines of text (`text`, search only): never
    /// detected and not among [`Registry::names`], but taken by name, and
    /// the reader a search uses when no data format was named or implied.
    pub fn lines_reader(&self) -> Option<Arc<dyn FormatReader>> {
        self.lines.clone()
    }

    /// Replaces the reader of plain lines of text.
    pub fn set_lines_reader(&mut self, reader: Arc<dyn FormatReader>) -> &mut Registry {
        self.lines = Some(reader);
        self
    }

    /// Adds a reader. A reader registered later wins a name or extension
    /// it shares with an earlier one, so a downstream crate can replace a
    /// built-in format.
    pub fn register(&mut self, reader: impl FormatReader + 'static) -> &mut Registry {
        self.register_arc(Arc::new(reader))
    }

    /// Adds a shared reader (see [`Registry::register`]).
    pub fn register_arc(&mut self, reader: Arc<dyn FormatReader>) -> &mut Registry {
        self.readers.retain(|r| r.name() != reader.name());
        self.readers.push(reader);
        self
    }

    /// Every reader, the reader of plain lines last.
    pub(crate) fn every(&self) -> impl Iterator<Item = &Arc<dyn FormatReader>> {
        self.readers.iter().chain(self.lines.iter())
    }

    /// The registered format names, in registration order.
    pub fn names(&self) -> Vec<&'static str> {
        self.readers.iter().map(|r| r.name()).collect()
    }

    /// The reader of a format name (trimmed, any case).
    pub fn by_name(&self, name: &str) -> Option<Arc<dyn FormatReader>> {
        let wanted = name.trim().to_ascii_lowercase();
        self.readers
            .iter()
            .rev()
            .chain(self.lines.iter())
            .find(|r| r.name() == wanted)
            .cloned()
    }

    /// The reader of a file extension (with or without the dot, any case).
    pub fn by_extension(&self, ext: &str) -> Option<Arc<dyn FormatReader>> {
        let wanted = ext.trim().trim_start_matches('.').to_ascii_lowercase();
        self.readers
            .iter()
            .rev()
            .find(|r| r.extensions().contains(&wanted.as_str()))
            .cloned()
    }

    /// The reader whose sniff scores the head highest (ties go to the
    /// earlier registration).
    pub fn by_sniff(&self, head: &[u8]) -> Option<Arc<dyn FormatReader>> {
        let head = head.strip_prefix(&UTF8_BOM).unwrap_or(head);
        let mut best: Option<(u8, &Arc<dyn FormatReader>)> = None;
        for r in &self.readers {
            if let Some(score) = r.sniff(head) {
                if best.is_none_or(|(s, _)| score > s) {
                    best = Some((score, r));
                }
            }
        }
        best.map(|(_, r)| r.clone())
    }

    /// The reader whose sniff finds its own signature in `head`
    /// ([`SIGNATURE_SCORE`] or more; the first registered wins a tie).
    pub fn by_signature(&self, head: &[u8]) -> Option<Arc<dyn FormatReader>> {
        self.readers
            .iter()
            .find(|r| r.sniff(head).is_some_and(|s| s >= SIGNATURE_SCORE))
            .cloned()
    }

    /// The reader for a zip whose head does not say what it holds (its
    /// first member is not the one that names a workbook): the names in
    /// its directory decide, as they do for a workbook's own readers.
    #[cfg(feature = "compression")]
    fn by_package(
        &self,
        source: &dyn Source,
        found: crate::Magic,
    ) -> Option<Arc<dyn FormatReader>> {
        if !matches!(found.name, "zip" | "ooxml") {
            return None;
        }
        let dir = crate::archive::directory(source, 0, None).ok()?;
        self.by_name(dir.package?.name)
    }

    #[cfg(not(feature = "compression"))]
    fn by_package(
        &self,
        _source: &dyn Source,
        _found: crate::Magic,
    ) -> Option<Arc<dyn FormatReader>> {
        None
    }

    /// Decides the format of `source`: what its first bytes say it is
    /// when that is not text ([`crate::identify`]: compressed, archive,
    /// binary, UTF-16/32; refused naming it), then the explicit name (an
    /// unknown one is refused naming it), then the extension, then a
    /// sniff of the first [`SNIFF_BYTES`].
    ///
    /// # Errors
    /// `unsupported-format` listing every registered format; the
    /// source's own refusals when the sniff cannot read it.
    pub fn detect(&self, source: &dyn Source, explicit: Option<&str>) -> Result<Detected, Refusal> {
        // The first bytes before the name: a compressed, binary or
        // UTF-16 file is named for what it is, whatever it is called.
        let head = source.head(SNIFF_BYTES)?;
        if let Some(found) = crate::magic::identify(&head) {
            // A binary format is read only by a reader that knows its
            // signature, and only as that format.
            let claimant = self
                .by_signature(&head)
                .or_else(|| self.by_package(source, found));
            return match (claimant, explicit) {
                (Some(reader), None) => Ok(Detected {
                    reader,
                    by: DetectedBy::Sniff,
                    container: None,
                    encoding: None,
                }),
                (Some(reader), Some(name))
                    if self
                        .by_name(name)
                        .is_some_and(|r| r.name() == reader.name()) =>
                {
                    Ok(Detected {
                        reader,
                        by: DetectedBy::Explicit,
                        container: None,
                        encoding: None,
                    })
                }
                (Some(reader), Some(name)) => {
                    Err(self.read_as_itself(source.name(), &*reader, name))
                }
                (None, _) => Err(self.not_readable(source.name(), found)),
            };
        }
        if let Some(name) = explicit {
            return match self.by_name(name) {
                Some(reader) => Ok(Detected {
                    reader,
                    by: DetectedBy::Explicit,
                    container: None,
                    encoding: None,
                }),
                None => {
                    Err(self
                        .unsupported(&format!("format `{}` is not one plumb reads", name.trim())))
                }
            };
        }
        if let Some(ext) = source.extension() {
            if let Some(reader) = self.by_extension(&ext) {
                return Ok(Detected {
                    reader,
                    by: DetectedBy::Extension,
                    container: None,
                    encoding: None,
                });
            }
        }
        match self.by_sniff(&head) {
            Some(reader) => Ok(Detected {
                reader,
                by: DetectedBy::Sniff,
                container: None,
                encoding: None,
            }),
            None => Err(self.unsupported(&format!(
                "`{}` is not recognisably one of the formats plumb reads",
                source.name()
            ))),
        }
    }

    /// The `unsupported-format` refusal for a binary file that a
    /// registered reader claims by its signature, asked for as another
    /// format (`asked`): it is read only as what its bytes say.
    fn read_as_itself(&self, name: &str, reader: &dyn FormatReader, asked: &str) -> Refusal {
        Refusal::new(
            RefusalReason::UnsupportedFormat,
            format!(
                "`{}` is {} by its bytes, and plumb reads it only as that, not as `{}`; leave the format out, or name {}",
                plumb_core::echo(name),
                reader.name(),
                plumb_core::echo(asked.trim()),
                reader.name()
            ),
        )
        .with_extra("found", Value::from(reader.name()))
        .with_extra("supported", Value::from(self.names()))
    }

    /// The `unsupported-format` refusal for a file that is `found` (a
    /// compressed, binary or Office file): what it is, what reads it,
    /// and the formats plumb does read.
    pub(crate) fn not_readable(&self, name: &str, found: crate::Magic) -> Refusal {
        Refusal::new(
            RefusalReason::UnsupportedFormat,
            format!(
                "`{}` is {}, not a format plumb reads as it is; {}",
                plumb_core::echo(name),
                found.what,
                found.advice
            ),
        )
        .with_extra("found", Value::from(found.name))
        .with_extra("supported", Value::from(self.names()))
    }

    /// Every option any registered reader takes, the shared ones first
    /// (the window and scan bounds, then the source's `encoding` and
    /// `member`),
    /// then each reader's own in registration order, one entry per name.
    pub fn options(&self) -> Vec<DeclaredOption> {
        let mut out: Vec<DeclaredOption> = COMMON_OPTIONS
            .iter()
            .chain(crate::layers::SOURCE_OPTIONS.iter())
            .map(|spec| DeclaredOption {
                spec: *spec,
                formats: Vec::new(),
                ops: spec.ops.to_vec(),
            })
            .collect();
        for reader in self.readers.iter().chain(self.lines.iter()) {
            for spec in reader.options() {
                match out.iter_mut().find(|d| d.spec.name == spec.name) {
                    Some(d) if d.formats.is_empty() => {}
                    Some(d) => {
                        d.formats.push(reader.name());
                        for op in spec.ops {
                            if !d.ops.contains(op) {
                                d.ops.push(*op);
                            }
                        }
                    }
                    None => out.push(DeclaredOption {
                        spec: *spec,
                        formats: vec![reader.name()],
                        ops: spec.ops.to_vec(),
                    }),
                }
            }
        }
        for d in &mut out {
            d.ops.sort_by_key(|op| Op::ALL.iter().position(|o| o == op));
        }
        out
    }

    /// Checks every option in `req` against what `reader` declares for
    /// `op` (the shared options by [`COMMON_OPTIONS`]) and normalizes the
    /// reader's options to their declared types. A refusal says what the
    /// reader takes instead, and which formats take the option given.
    ///
    /// # Errors
    /// `invalid-argument` for an option the reader does not take for
    /// `op`, or a value of the wrong type.
    pub fn check_options(
        &self,
        reader: &dyn FormatReader,
        op: Op,
        req: &mut Request,
    ) -> Result<(), Refusal> {
        let own = reader.options();
        let takes = || -> String {
            let names: Vec<&str> = own
                .iter()
                .chain(COMMON_OPTIONS.iter())
                .filter(|s| s.applies_to(op))
                .map(|s| s.name)
                .collect();
            if names.is_empty() {
                format!("{} {} takes no options", reader.name(), op.as_str())
            } else {
                format!(
                    "{} {} takes: {}",
                    reader.name(),
                    op.as_str(),
                    names.join(", ")
                )
            }
        };
        let refuse = |name: &str, why: String| {
            Refusal::invalid_argument(format!(
                "`{}` does not apply to {} {}; {why}; {}",
                plumb_core::echo(name),
                reader.name(),
                op.as_str(),
                takes()
            ))
        };
        if op == Op::Select && req.window.limit == Some(0) {
            return Err(plumb_core::zero_limit(plumb_core::SELECT_MAX_LIMIT as u64));
        }
        for name in req.given_common() {
            let spec = COMMON_OPTIONS.iter().find(|s| s.name == name);
            if let Some(spec) = spec.filter(|s| !s.applies_to(op)) {
                return Err(refuse(name, format!("it is for {}", ops_list(spec.ops))));
            }
        }
        for name in req.options.names() {
            // A shared option set by name (the search options travel
            // with the reader's own).
            if let Some(spec) = COMMON_OPTIONS.iter().find(|s| s.name == name) {
                if !spec.applies_to(op) {
                    return Err(refuse(name, format!("it is for {}", ops_list(spec.ops))));
                }
                continue;
            }
            match own.iter().find(|s| s.name == name) {
                Some(spec) if spec.applies_to(op) => {}
                Some(spec) => {
                    return Err(refuse(name, format!("it is for {}", ops_list(spec.ops))));
                }
                None => {
                    let others: Vec<&str> = self
                        .readers
                        .iter()
                        .filter(|r| r.options().iter().any(|s| s.name == name))
                        .map(|r| r.name())
                        .collect();
                    let why = if others.is_empty() {
                        "no format plumb reads takes it".to_owned()
                    } else {
                        format!("it is an option of {}", others.join(", "))
                    };
                    return Err(refuse(name, why));
                }
            }
        }
        req.options.normalize(&COMMON_OPTIONS)?;
        req.options.normalize(own)
    }

    /// The first reader (in registration order) that declares every one
    /// of `options`, when there is at least one: the format an option
    /// implies when nothing else decided it.
    pub fn by_options(&self, options: &[&str]) -> Option<Arc<dyn FormatReader>> {
        if options.is_empty() {
            return None;
        }
        self.readers
            .iter()
            .find(|r| {
                options
                    .iter()
                    .all(|name| r.options().iter().any(|s| s.name == *name))
            })
            .cloned()
    }

    /// The `unsupported-format` refusal, naming every registered format.
    pub fn unsupported(&self, what: &str) -> Refusal {
        let names = self.names();
        Refusal::new(
            RefusalReason::UnsupportedFormat,
            format!(
                "{what}; the supported formats are {}. Pass the format with one of them if the file is one \
                 (or a delimiter if it is delimited text), or read it as plain text with `read`",
                names.join(", ")
            ),
        )
        .with_extra("supported", Value::from(names))
    }
}

fn ops_list(ops: &[Op]) -> String {
    let names: Vec<&str> = ops.iter().map(|op| op.as_str()).collect();
    names.join(" and ")
}
