//! Typed refusals: the one way plumb says "no".
//!
//! Every operation either answers or refuses. A refusal names a
//! machine-readable [`RefusalReason`], a message that says what was wrong
//! and what to do instead, and as much location as is known (byte offset,
//! line, column, record, pointer, path). It serializes as
//! `{"ok": false, "reason": "...", "message": "...", ...location}`.

use std::fmt;
use std::io;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// Why an operation was refused. One enum for the whole workspace, so a
/// caller can match on every reason plumb can give; `docs/refusals.md`
/// describes each one.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum RefusalReason {
    /// The path names nothing.
    NotFound,
    /// The path names something that is not a regular file (a directory).
    NotAFile,
    /// The operating system failed a read for another reason.
    ReadError,
    /// The caller cancelled the scan.
    Aborted,
    /// The file is not one of the registered formats, or the format asked for is unknown.
    UnsupportedFormat,
    /// An argument is malformed or does not apply to this format.
    InvalidArgument,
    /// The bytes are not well-formed UTF-8.
    InvalidUtf8,
    /// The file holds a NUL byte near its start: it is binary, not text.
    Binary,
    /// The JSON text breaks the grammar of RFC 8259.
    InvalidJson,
    /// The bytes break a binary format's own structure: a Parquet footer,
    /// page header or page that does not decode, or a page checksum that
    /// does not match.
    InvalidData,
    /// The JSON nests deeper than the parser's depth cap.
    NestingTooDeep,
    /// A column asked for by name is not in the header.
    UnknownColumn,
    /// A JSON Pointer does not resolve in the document.
    PointerNotFound,
    /// The selected value is larger than the selection budget.
    SelectionTooLarge,
    /// A path leaves the workspace root (tool layer).
    OutsideRoot,
    /// A path lies in a reserved subtree (tool layer).
    ReservedPath,
    /// The observation budget cannot hold even a minimal answer (tool layer).
    BudgetExhausted,
}

impl RefusalReason {
    /// Every reason, in documentation order. `docs/refusals.md` must name
    /// each of them; a tidy test checks it.
    pub const ALL: [RefusalReason; 17] = [
        RefusalReason::NotFound,
        RefusalReason::NotAFile,
        RefusalReason::ReadError,
        RefusalReason::Aborted,
        RefusalReason::UnsupportedFormat,
        RefusalReason::InvalidArgument,
        RefusalReason::InvalidUtf8,
        RefusalReason::Binary,
        RefusalReason::InvalidJson,
        RefusalReason::InvalidData,
        RefusalReason::NestingTooDeep,
        RefusalReason::UnknownColumn,
        RefusalReason::PointerNotFound,
        RefusalReason::SelectionTooLarge,
        RefusalReason::OutsideRoot,
        RefusalReason::ReservedPath,
        RefusalReason::BudgetExhausted,
    ];

    /// The kebab-case name used in JSON and in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalReason::NotFound => "not-found",
            RefusalReason::NotAFile => "not-a-file",
            RefusalReason::ReadError => "read-error",
            RefusalReason::Aborted => "aborted",
            RefusalReason::UnsupportedFormat => "unsupported-format",
            RefusalReason::InvalidArgument => "invalid-argument",
            RefusalReason::InvalidUtf8 => "invalid-utf8",
            RefusalReason::Binary => "binary",
            RefusalReason::InvalidJson => "invalid-json",
            RefusalReason::InvalidData => "invalid-data",
            RefusalReason::NestingTooDeep => "nesting-too-deep",
            RefusalReason::UnknownColumn => "unknown-column",
            RefusalReason::PointerNotFound => "pointer-not-found",
            RefusalReason::SelectionTooLarge => "selection-too-large",
            RefusalReason::OutsideRoot => "outside-root",
            RefusalReason::ReservedPath => "reserved-path",
            RefusalReason::BudgetExhausted => "budget-exhausted",
        }
    }
}

impl fmt::Display for RefusalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A typed refusal: reason, message and location.
///
/// The payload is boxed so that `Result<T, Refusal>` stays one pointer
/// wide on the error side; hot loops return these results per chunk and
/// per event, and a fat error type would slow every one of them.
#[derive(Clone, PartialEq, thiserror::Error)]
#[error("{} ({})", .0.message, .0.reason)]
pub struct Refusal(Box<Inner>);

#[derive(Clone, Debug, PartialEq)]
struct Inner {
    reason: RefusalReason,
    message: String,
    byte_offset: Option<u64>,
    line: Option<u64>,
    column: Option<u64>,
    record: Option<u64>,
    pointer: Option<String>,
    path: Option<String>,
    extra: Map<String, Value>,
}

impl Refusal {
    /// A refusal with a reason and a message and no location yet.
    #[cold]
    pub fn new(reason: RefusalReason, message: impl Into<String>) -> Refusal {
        Refusal(Box::new(Inner {
            reason,
            message: message.into(),
            byte_offset: None,
            line: None,
            column: None,
            record: None,
            pointer: None,
            path: None,
            extra: Map::new(),
        }))
    }

    /// `invalid-utf8` at an absolute byte offset.
    #[cold]
    pub fn invalid_utf8(byte_offset: u64) -> Refusal {
        Refusal::new(
            RefusalReason::InvalidUtf8,
            format!(
                "the bytes at offset {byte_offset} are not well-formed UTF-8; \
                 convert the file to UTF-8 (for example with iconv) and try again"
            ),
        )
        .with_byte_offset(byte_offset)
    }

    /// `binary` for a NUL byte at an absolute byte offset.
    #[cold]
    pub fn binary(byte_offset: u64) -> Refusal {
        Refusal::new(
            RefusalReason::Binary,
            format!(
                "a NUL byte at offset {byte_offset} marks this as a binary file, not text; \
                 use a tool made for its binary format instead"
            ),
        )
        .with_byte_offset(byte_offset)
    }

    /// `aborted`: the caller cancelled the scan at an absolute byte offset.
    #[cold]
    pub fn aborted(byte_offset: u64) -> Refusal {
        Refusal::new(
            RefusalReason::Aborted,
            format!("the scan was cancelled at byte {byte_offset}; run it again to finish it"),
        )
        .with_byte_offset(byte_offset)
    }

    /// Runs `f`, turning a panic inside a third-party library it calls
    /// (a hostile file can reach an arm or an index the library does not
    /// guard) into an `invalid-data` refusal rather than a crash:
    /// "`subject` is malformed: `library` failed on it (its message)".
    /// The readers built on such libraries (Parquet, spreadsheets) run
    /// every op through it.
    ///
    /// ```
    /// use plumb_core::{Refusal, RefusalReason};
    /// let r = Refusal::guarded("the workbook", "the spreadsheet library", || -> Result<(), Refusal> {
    ///     panic!("index out of bounds")
    /// });
    /// let refusal = r.unwrap_err();
    /// assert_eq!(refusal.reason(), RefusalReason::InvalidData);
    /// assert!(refusal.message().contains("index out of bounds"));
    /// ```
    pub fn guarded<T>(
        subject: &str,
        library: &str,
        f: impl FnOnce() -> Result<T, Refusal>,
    ) -> Result<T, Refusal> {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            Ok(r) => r,
            Err(payload) => {
                let what = payload
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| payload.downcast_ref::<&str>().copied())
                    .unwrap_or("no message");
                Err(Refusal::new(
                    RefusalReason::InvalidData,
                    format!(
                        "{subject} is malformed: {library} failed on it ({})",
                        crate::caps::echo(what)
                    ),
                ))
            }
        }
    }

    /// `invalid-argument` with a message saying what to pass instead.
    #[cold]
    pub fn invalid_argument(message: impl Into<String>) -> Refusal {
        Refusal::new(RefusalReason::InvalidArgument, message)
    }

    /// Maps an I/O error to the refusal it stands for: a missing file is
    /// `not-found`, a directory `not-a-file`, anything else `read-error`.
    #[cold]
    pub fn from_io(err: &io::Error, path: Option<&str>) -> Refusal {
        let shown = path.map_or_else(|| "the input".to_owned(), |p| format!("`{p}`"));
        let refusal = match err.kind() {
            io::ErrorKind::NotFound => Refusal::new(
                RefusalReason::NotFound,
                format!("{shown} does not exist; check the path and its spelling"),
            ),
            io::ErrorKind::IsADirectory => Refusal::new(
                RefusalReason::NotAFile,
                format!("{shown} is a directory, not a file; name a file inside it"),
            ),
            io::ErrorKind::PermissionDenied => Refusal::new(
                RefusalReason::ReadError,
                format!("{shown} cannot be read: permission denied; ask for access or name another file"),
            ),
            _ => Refusal::new(
                RefusalReason::ReadError,
                format!("reading {shown} failed: {err}; check that it is readable and retry"),
            ),
        };
        match path {
            Some(p) => refusal.with_path(p),
            None => refusal,
        }
    }

    /// Sets the absolute byte offset.
    pub fn with_byte_offset(mut self, byte_offset: u64) -> Refusal {
        self.0.byte_offset = Some(byte_offset);
        self
    }

    /// Sets the 1-based line.
    pub fn with_line(mut self, line: u64) -> Refusal {
        self.0.line = Some(line);
        self
    }

    /// Sets the 1-based column (counted in characters).
    pub fn with_column(mut self, column: u64) -> Refusal {
        self.0.column = Some(column);
        self
    }

    /// Sets the 1-based record number.
    pub fn with_record(mut self, record: u64) -> Refusal {
        self.0.record = Some(record);
        self
    }

    /// Sets the JSON Pointer the refusal concerns.
    pub fn with_pointer(mut self, pointer: impl Into<String>) -> Refusal {
        self.0.pointer = Some(pointer.into());
        self
    }

    /// Sets the path of the file the refusal concerns.
    pub fn with_path(mut self, path: impl Into<String>) -> Refusal {
        self.0.path = Some(path.into());
        self
    }

    /// Adds a further machine-readable field (for example the list of
    /// supported formats). Names that clash with the fixed fields are
    /// ignored when serializing.
    pub fn with_extra(mut self, key: &str, value: Value) -> Refusal {
        self.0.extra.insert(key.to_owned(), value);
        self
    }

    /// Replaces the message, keeping reason and location.
    pub fn with_message(mut self, message: impl Into<String>) -> Refusal {
        self.0.message = message.into();
        self
    }

    /// Moves every location field by a line and byte base: used when a
    /// sub-parse (one JSON Lines record) reports positions relative to
    /// its own text.
    pub fn relocated(mut self, byte_base: u64, line_base: u64) -> Refusal {
        if let Some(b) = self.0.byte_offset.as_mut() {
            *b += byte_base;
        }
        if let Some(l) = self.0.line.as_mut() {
            *l += line_base;
        }
        self
    }

    /// The reason.
    pub fn reason(&self) -> RefusalReason {
        self.0.reason
    }

    /// The message: what was wrong and what to do instead.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The absolute byte offset (0-based), when known.
    pub fn byte_offset(&self) -> Option<u64> {
        self.0.byte_offset
    }

    /// The 1-based line, when known.
    pub fn line(&self) -> Option<u64> {
        self.0.line
    }

    /// The 1-based column, when known.
    pub fn column(&self) -> Option<u64> {
        self.0.column
    }

    /// The 1-based record, when known.
    pub fn record(&self) -> Option<u64> {
        self.0.record
    }

    /// The JSON Pointer, when the refusal concerns one.
    pub fn pointer(&self) -> Option<&str> {
        self.0.pointer.as_deref()
    }

    /// The path, when the refusal concerns a file.
    pub fn path(&self) -> Option<&str> {
        self.0.path.as_deref()
    }

    /// A further field set with [`Refusal::with_extra`].
    pub fn extra(&self, key: &str) -> Option<&Value> {
        self.0.extra.get(key)
    }
}

impl fmt::Debug for Refusal {
    // `unwrap()` prints this, so it reads like the JSON a caller would see
    // rather than like a nest of boxes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Refusal");
        d.field("reason", &self.0.reason.as_str());
        d.field("message", &self.0.message);
        if let Some(b) = self.0.byte_offset {
            d.field("byte_offset", &b);
        }
        if let Some(l) = self.0.line {
            d.field("line", &l);
        }
        if let Some(c) = self.0.column {
            d.field("column", &c);
        }
        if let Some(r) = self.0.record {
            d.field("record", &r);
        }
        if let Some(p) = &self.0.pointer {
            d.field("pointer", p);
        }
        if let Some(p) = &self.0.path {
            d.field("path", p);
        }
        d.finish()
    }
}

impl From<io::Error> for Refusal {
    fn from(err: io::Error) -> Refusal {
        Refusal::from_io(&err, None)
    }
}

const FIXED: [&str; 10] = [
    "ok",
    "reason",
    "message",
    "byte_offset",
    "line",
    "column",
    "record",
    "pointer",
    "path",
    "",
];

/// `ok: false`, the reason and message, the location fields a refusal
/// has, and any further facts of its own (`found`, `remedy`, ...).
impl schemars::JsonSchema for Refusal {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Refusal".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let reason = generator.subschema_for::<RefusalReason>();
        let count = serde_json::json!({"type": "integer", "minimum": 0});
        schemars::json_schema!({
            "description": "a typed refusal: why the answer is not given, and where",
            "type": "object",
            "properties": {
                "ok": {"type": "boolean", "const": false},
                "reason": reason,
                "message": {"type": "string"},
                "byte_offset": count,
                "line": count,
                "column": count,
                "record": count,
                "pointer": {"type": "string"},
                "path": {"type": "string"}
            },
            "required": ["ok", "reason", "message"]
        })
    }
}

impl Serialize for Refusal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let i = &self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("ok", &false)?;
        map.serialize_entry("reason", &i.reason)?;
        map.serialize_entry("message", &i.message)?;
        if let Some(v) = i.byte_offset {
            map.serialize_entry("byte_offset", &v)?;
        }
        if let Some(v) = i.line {
            map.serialize_entry("line", &v)?;
        }
        if let Some(v) = i.column {
            map.serialize_entry("column", &v)?;
        }
        if let Some(v) = i.record {
            map.serialize_entry("record", &v)?;
        }
        if let Some(v) = &i.pointer {
            map.serialize_entry("pointer", v)?;
        }
        if let Some(v) = &i.path {
            map.serialize_entry("path", v)?;
        }
        for (k, v) in &i.extra {
            if !FIXED.contains(&k.as_str()) {
                map.serialize_entry(k, v)?;
            }
        }
        map.end()
    }
}
