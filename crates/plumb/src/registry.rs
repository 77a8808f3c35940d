//! The registry of format readers, and format detection.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use plumb_core::{ByteSource, FormatReader, Refusal, RefusalReason, UTF8_BOM};

/// How many bytes the content sniff looks at: enough for a header line
/// and a couple of records, small enough to cost nothing.
pub const SNIFF_BYTES: usize = 4 * 1024;

/// How a format was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DetectedBy {
    /// The caller named it.
    Explicit,
    /// The file's extension.
    Extension,
    /// The first 4 KiB of content.
    Sniff,
}

/// A detected format.
#[derive(Clone)]
pub struct Detected {
    /// The reader.
    pub reader: Arc<dyn FormatReader>,
    /// How it was decided.
    pub by: DetectedBy,
}

impl std::fmt::Debug for Detected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Detected")
            .field("format", &self.reader.name())
            .field("by", &self.by)
            .finish()
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
        r
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

    /// Decides the format of `source`: the explicit name first (an
    /// unknown one is refused naming it), then the extension, then a
    /// sniff of the first [`SNIFF_BYTES`].
    ///
    /// # Errors
    /// `unsupported-format` listing every registered format; the
    /// source's own refusals when the sniff cannot read it.
    pub fn detect(
        &self,
        source: &dyn ByteSource,
        explicit: Option<&str>,
    ) -> Result<Detected, Refusal> {
        if let Some(name) = explicit {
            return match self.by_name(name) {
                Some(reader) => Ok(Detected {
                    reader,
                    by: DetectedBy::Explicit,
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
                });
            }
        }
        let head = source.head(SNIFF_BYTES)?;
        match self.by_sniff(&head) {
            Some(reader) => Ok(Detected {
                reader,
                by: DetectedBy::Sniff,
            }),
            None => Err(self.unsupported(&format!(
                "`{}` is not recognisably one of the formats plumb reads",
                source.name()
            ))),
        }
    }

    /// The `unsupported-format` refusal, naming every registered format.
    pub fn unsupported(&self, what: &str) -> Refusal {
        let names = self.names();
        Refusal::new(
            RefusalReason::UnsupportedFormat,
            format!(
                "{what}; the supported formats are {}. Pass --format with one of them if the file is one, \
                 use `plumb read` for plain text, or run_script with a library made for a binary or scientific format",
                names.join(", ")
            ),
        )
        .with_extra("supported", Value::from(names))
    }
}
