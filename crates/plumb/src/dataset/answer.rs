//! The answer for a dataset: the merged view first (totals, the union
//! of columns with their types, schema groups, or the hits in path
//! order), then one line per file.

use std::collections::BTreeMap;

use plumb_core::{Answer, Layout, ViewFlags, WindowCounts};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::DatasetOp;

/// What an op says of many files.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct DatasetAnswer {
    /// Always true: a dataset's refused files are lines of the answer.
    pub ok: bool,
    /// `dataset`.
    pub format: &'static str,
    /// The op.
    pub op: DatasetOp,
    /// Exact when every file's answer was and no file was left.
    pub view: ViewFlags,
    /// The names the dataset was given by.
    pub named: Vec<String>,
    /// Validate: true when every file is valid (none refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valid: Option<bool>,
    /// Counts of the files read (not for a search).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub totals: Option<Totals>,
    /// Files by the format they were read as.
    pub formats: BTreeMap<String, u64>,
    /// Refused files by reason.
    pub refusals: BTreeMap<String, u64>,
    /// Inspect: every column or top-level key of any file, by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<DatasetColumn>>,
    /// Inspect: columns of files past [`super::DATASET_COLUMNS_MAX`]
    /// names, counted once per file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column_entries_cut: Option<u64>,
    /// Inspect: files that share a schema (the same columns, in order,
    /// of the same types), largest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<SchemaGroup>>,
    /// Inspect: files in schema groups past [`super::DATASET_GROUPS_MAX`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups_cut_files: Option<u64>,
    /// Search: the hits, by file in path order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hits: Option<Vec<FileHits>>,
    /// Search: the hits returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub returned: Option<u64>,
    /// Search: the hits counted in every file read, when the limit was
    /// not met (every file was then read); left out when it was (the
    /// files past the last hit were not read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Search, beside `total`: whether it is every hit of the dataset
    /// (every file read whole and counted exactly, none refused, none
    /// left for another call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_exact: Option<bool>,
    /// Search: the most hits returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// Whether there is more to read: files left, or hits past the limit.
    pub has_more: bool,
    /// Where the next call goes on from.
    pub next: Option<Continuation>,
    /// One line per file (a search: per file refused), the first by path.
    pub files: Vec<FileLine>,
    /// The lines past [`super::DATASET_LINES_MAX`].
    pub files_cut: u64,
}

/// Where to go on: the first file to read (the `from` option), and for
/// a search the offset in it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Continuation {
    /// The path to start from.
    pub from: String,
    /// A search's offset in that file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
}

/// Counts of a dataset's files.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Totals {
    /// Files read.
    pub files: u64,
    /// Their bytes as listed.
    pub bytes: u64,
    /// Rows or records of the files that count them.
    pub rows: u64,
    /// Files read whose answer counts no rows (or refused).
    pub rows_unknown_files: u64,
    /// Files valid (validate, or an inspect that found no faults).
    pub valid: u64,
    /// Files with a fault.
    pub invalid: u64,
    /// Files refused.
    pub refused: u64,
    /// Files listed past this call's most; `next.from` goes on.
    pub files_left: u64,
    /// Names skipped because they are not UTF-8.
    pub names_skipped: u64,
}

/// A column (or top-level key) across files.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct DatasetColumn {
    /// Its name.
    pub name: String,
    /// Files that hold it.
    pub files: u64,
    /// Rows (records) that hold it.
    pub rows: u64,
    /// The first file (by path) that holds it.
    pub first: String,
    /// Its types, the most files first.
    pub types: Vec<TypeGroup>,
    /// Files of types past [`super::DATASET_TYPES_MAX`].
    pub types_cut_files: u64,
    /// Where its type first differs from its type in the first file.
    pub type_differs: Option<TypeMoment>,
    /// With statistics asked for (`stats`): the column's, merged across
    /// the files that gave them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<super::DatasetStats>,
}

/// The files in which a column has one type.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct TypeGroup {
    /// The type, as the file's reader names it (`integer`, `string`,
    /// `mixed`; `number|string` for a key of several JSON types).
    #[serde(rename = "type")]
    pub kind: String,
    /// Files.
    pub files: u64,
    /// Rows in those files.
    pub rows: u64,
    /// The first of those files.
    pub first: String,
}

/// The first file in which a column's type is not its first file's.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct TypeMoment {
    /// The file.
    pub path: String,
    /// The type before.
    pub from: String,
    /// Its type there.
    pub to: String,
    /// In that file, the record (a table's, counted as its issues are)
    /// where a value of another type first appears, when the file began
    /// with values of the type before and its reader says where.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<u64>,
    /// The same, as a line (records of JSON Lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
}

/// Files that share a schema.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SchemaGroup {
    /// A hash of the columns and types (FNV-1a, 64 bits, hex).
    pub fingerprint: String,
    /// Files.
    pub files: u64,
    /// The columns as `[name, type]`, the first [`super::GROUP_COLUMNS_SHOWN`].
    pub columns: Vec<[String; 2]>,
    /// Its columns.
    pub columns_total: u64,
    /// The first files, by path.
    pub examples: Vec<String>,
}

/// One file's line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FileLine {
    /// Its path.
    pub path: String,
    /// Its size as listed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub bytes: Option<u64>,
    /// The format it was read as.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub format: Option<String>,
    /// The compression it was read through.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub container: Option<String>,
    /// Detect: how the format was decided.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub by: Option<String>,
    /// Rows or records.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rows: Option<u64>,
    /// Columns or top-level keys.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub columns: Option<u64>,
    /// Its verdict (an inspect: whether it found no faults).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub valid: Option<bool>,
    /// Its first fault, as its own answer gives it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fault: Option<Value>,
    /// Search: hits returned from it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub hits: Option<u64>,
    /// Its refusal.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub refusal: Option<Value>,
}

impl FileLine {
    pub(crate) fn new(path: String, bytes: Option<u64>) -> FileLine {
        FileLine {
            path,
            bytes,
            format: None,
            container: None,
            by: None,
            rows: None,
            columns: None,
            valid: None,
            fault: None,
            hits: None,
            refusal: None,
        }
    }
}

/// A search's hits in one file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FileHits {
    /// The file.
    pub path: String,
    /// The offset its search started from.
    pub start: u64,
    /// The names its hits' cells go by (a table's header).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub header: Option<Value>,
    /// Its hits, as its own search gives them.
    pub hits: Vec<Value>,
    /// Whether it has hits past these.
    pub more: bool,
    /// The field of a hit that gives its place in the unit the search's
    /// offset counts (`row`, `record`, `index`, or `line`, from 1).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub unit: Option<String>,
    /// Where its own search would go on, when it was not cut here.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub next_offset: Option<u64>,
}

impl FileHits {
    /// The offset a search of this file goes on from after the hits held.
    pub(crate) fn resume_at(&self) -> u64 {
        if let Some(n) = self.next_offset {
            return n;
        }
        let unit = self.unit.as_deref();
        let place = unit.and_then(|u| self.hits.last()?.get(u)?.as_u64());
        match (unit, place) {
            (Some("line"), Some(line)) => line,
            (_, Some(p)) => p + 1,
            (_, None) => self.start + self.hits.len() as u64,
        }
    }
}

impl Answer for DatasetAnswer {
    fn format(&self) -> &'static str {
        self.format
    }
    fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(
            |e| serde_json::json!({"ok": false, "reason": "read-error", "message": e.to_string()}),
        )
    }
    fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer(out, self).map_err(std::io::Error::from)
    }
    fn view(&self) -> ViewFlags {
        self.view
    }
    fn verdict(&self) -> Option<Option<bool>> {
        self.valid.map(Some)
    }
    fn window(&self) -> Option<WindowCounts> {
        Some(WindowCounts {
            offset: 0,
            limit: self.limit.unwrap_or(self.files.len() as u64),
            returned: self.returned.unwrap_or(self.files.len() as u64),
            has_more: self.has_more,
        })
        .filter(|_| self.op == DatasetOp::Search)
    }
    fn layout(&self) -> Layout {
        Layout::Dataset
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
