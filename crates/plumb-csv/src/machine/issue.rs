//! What the parser reports beside records: issues, with the messages a
//! user reads, and the line endings seen.

use serde::Serialize;

use super::{CSV_MAX_FIELD_BYTES, CSV_MAX_RECORD_BYTES};

/// A kind of problem found while parsing or checking a CSV file.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum IssueKind {
    /// A `"` inside a field that did not open with one; kept as text.
    BareQuote,
    /// Text after the closing quote of a quoted field; joined to the field.
    TextAfterQuote,
    /// A quoted field still open at the end of input; it ends there.
    UnterminatedQuote,
    /// A field longer than [`CSV_MAX_FIELD_BYTES`]; the record was dropped.
    FieldTooLarge,
    /// A record longer than [`CSV_MAX_RECORD_BYTES`]; it was dropped.
    RecordTooLarge,
    /// A record whose field count differs from the header's (or the first record's).
    RaggedRow,
    /// A record whose quoted fields span more than
    /// [`CSV_LONG_FIELD_LINES`](super::CSV_LONG_FIELD_LINES) line breaks,
    /// or that spans lines and is far longer than the records before it:
    /// often a quote the file never meant as one. A notice, not a fault:
    /// the record is read as the dialect says and validity is unchanged.
    LongQuotedField,
}

impl IssueKind {
    /// The kebab-case name used in JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            IssueKind::BareQuote => "bare-quote",
            IssueKind::TextAfterQuote => "text-after-quote",
            IssueKind::UnterminatedQuote => "unterminated-quote",
            IssueKind::FieldTooLarge => "field-too-large",
            IssueKind::RecordTooLarge => "record-too-large",
            IssueKind::RaggedRow => "ragged-row",
            IssueKind::LongQuotedField => "long-quoted-field",
        }
    }

    /// Whether the issue makes a file invalid (every kind but the
    /// `long-quoted-field` notice).
    pub const fn is_fault(self) -> bool {
        !matches!(self, IssueKind::LongQuotedField)
    }
}

/// One problem, where it happened. Cheap to copy: the message is built
/// only for the issues a report keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Issue {
    /// What went wrong.
    pub kind: IssueKind,
    /// The 1-based record (the header counts).
    pub record: u64,
    /// The 1-based physical line.
    pub line: u64,
    /// The absolute byte offset where it was found.
    pub byte_offset: u64,
    /// For `ragged-row`: the fields found and the fields expected.
    pub fields: Option<(u64, u64)>,
    /// For `long-quoted-field`: the record's last line and its length in
    /// bytes (its terminator excluded).
    pub extent: Option<(u64, u64)>,
}

impl Issue {
    /// What went wrong and what to do about it, in words.
    pub fn message(&self) -> String {
        match self.kind {
            IssueKind::BareQuote => format!(
                "a quote inside an unquoted field on line {} was kept as text; quote the whole field and double the inner quote (\"\")",
                self.line
            ),
            IssueKind::TextAfterQuote => format!(
                "text follows a closing quote on line {}; it was joined to the field. Quote the whole field and double inner quotes",
                self.line
            ),
            IssueKind::UnterminatedQuote => format!(
                "the quote opened on line {} is never closed; the field runs to the end of the file. Close the quote",
                self.line
            ),
            IssueKind::FieldTooLarge => format!(
                "record {} has a field over {} bytes (often a stray quote); it was skipped to its next line break",
                self.record, CSV_MAX_FIELD_BYTES
            ),
            IssueKind::RecordTooLarge => format!(
                "record {} is over {} bytes; it was skipped to its next line break",
                self.record, CSV_MAX_RECORD_BYTES
            ),
            IssueKind::LongQuotedField => {
                let (last, len) = self.extent.unwrap_or((self.line, 0));
                format!(
                    "record {} runs from line {} to line {} ({len} bytes) inside quotes; if the file does not quote fields, pass quote none (or the right quote character)",
                    self.record, self.line, last
                )
            }
            IssueKind::RaggedRow => {
                let (found, expected) = self.fields.unwrap_or((0, 0));
                format!(
                    "record {} has {found} fields where {expected} were expected",
                    self.record
                )
            }
        }
    }
}

/// An issue as reports show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct IssueReport {
    /// What went wrong (kebab-case).
    pub kind: IssueKind,
    /// The 1-based record (the header counts).
    pub record: u64,
    /// The 1-based physical line.
    pub line: u64,
    /// What went wrong and what to do about it.
    pub message: String,
    /// How many times it happened in the record (five stray quotes in
    /// one field are one issue of five occurrences); shown when above 1.
    #[serde(skip_serializing_if = "is_one")]
    pub occurrences: u64,
}

fn is_one(n: &u64) -> bool {
    *n == 1
}

impl From<&Issue> for IssueReport {
    fn from(issue: &Issue) -> IssueReport {
        IssueReport {
            kind: issue.kind,
            record: issue.record,
            line: issue.line,
            message: issue.message(),
            occurrences: 1,
        }
    }
}

/// Counts of record terminators by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LineEndings {
    /// `\n` alone.
    pub lf: u64,
    /// `\r\n`.
    pub crlf: u64,
    /// `\r` alone.
    pub cr: u64,
}

impl LineEndings {
    /// `none`, `lf`, `crlf`, `cr`, or `mixed`.
    pub fn label(&self) -> &'static str {
        match (self.lf > 0, self.crlf > 0, self.cr > 0) {
            (false, false, false) => "none",
            (true, false, false) => "lf",
            (false, true, false) => "crlf",
            (false, false, true) => "cr",
            _ => "mixed",
        }
    }
}
