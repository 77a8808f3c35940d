//! Shaping an inspect answer for an agent: a window over a wide table's
//! columns and the hint that goes on from it, the brief form that trades
//! figures for size, and the columns form of one row per column.
//!
//! Both work on the answer's JSON, by the shapes the table readers share:
//! the columns a table's inspect describes are the list `columns` (CSV,
//! TSV, Parquet) or the `columns` of each described sheet (workbooks),
//! each entry one column; a CSV's `header` and the cells of its `sample`
//! rows follow the same window. An answer with no such list (JSON, JSON
//! Lines, text) is left whole.

use serde_json::{Map, Value};

/// Per-column members the brief form leaves out: counts of cell classes,
/// lengths, and the physical layout of a Parquet column.
pub const BRIEF_DROPPED: [&str; 10] = [
    "classes",
    "min_length",
    "max_length",
    "kinds",
    "encodings",
    "max_definition_level",
    "max_repetition_level",
    "compressed_bytes",
    "uncompressed_bytes",
    "converted",
];

/// Sample values a column keeps in the brief form.
pub const BRIEF_SAMPLES: usize = 2;

/// Sample rows an inspect keeps in the brief form.
pub const BRIEF_SAMPLE_ROWS: usize = 3;

/// How much of an inspect an agent asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Detail {
    /// Each column's name, type, emptiness, range, sentinels and a couple
    /// of sample values; a few sample rows.
    #[default]
    Brief,
    /// Every figure the reader gives.
    Full,
    /// A table's columns one row each ([`COLUMN_FIELDS`]), without
    /// sample rows: the form a wide table's columns fit in.
    Columns,
}

/// The fields of each column's row in the [`Detail::Columns`] form.
pub const COLUMN_FIELDS: [&str; 5] = ["name", "type", "nulls", "distinct", "distinct_exact"];

impl Detail {
    /// `brief` or `full`.
    pub fn as_str(self) -> &'static str {
        match self {
            Detail::Brief => "brief",
            Detail::Full => "full",
            Detail::Columns => "columns",
        }
    }
}

/// The columns an inspect describes: from `offset`, at most `limit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ColumnWindow {
    /// Columns skipped.
    pub offset: usize,
    /// Columns described at most; all that fit when none.
    pub limit: Option<usize>,
}

/// What a column window did to an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnsShown {
    /// Columns the table has (the longest columns list's length).
    pub total: usize,
    /// The first column described.
    pub offset: usize,
    /// Columns the window holds (before the answer is fitted to its cap).
    pub returned: usize,
}

/// The pointers (from the result) of the columns lists in `result`.
pub fn column_lists(result: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if result.get("columns").is_some_and(Value::is_array) {
        out.push("/columns".to_owned());
    }
    if let Some(sheets) = result.get("sheets").and_then(Value::as_array) {
        for (i, s) in sheets.iter().enumerate() {
            if s.get("columns").is_some_and(Value::is_array) {
                out.push(format!("/sheets/{i}/columns"));
            }
        }
    }
    out
}

/// Applies `window` to every columns list of `result` (and a CSV's
/// header and sample cells); `None` when the answer lists no columns.
pub fn window_columns(result: &mut Value, window: ColumnWindow) -> Option<ColumnsShown> {
    let lists = column_lists(result);
    if lists.is_empty() {
        return None;
    }
    let mut total = 0;
    let mut returned = 0;
    let cut = |list: &mut Vec<Value>| {
        let n = list.len();
        let from = window.offset.min(n);
        let to = window.limit.map_or(n, |l| from.saturating_add(l).min(n));
        list.truncate(to);
        list.drain(..from);
        (n, to - from)
    };
    for pointer in &lists {
        if let Some(Value::Array(list)) = result.pointer_mut(pointer) {
            let (n, kept) = cut(list);
            total = total.max(n);
            returned = returned.max(kept);
        }
    }
    if let Some(Value::Array(header)) = result.get_mut("header") {
        cut(header);
    }
    if let Some(Value::Array(rows)) = result.get_mut("sample") {
        for row in rows {
            if let Value::Array(cells) = row {
                cut(cells);
            }
        }
    }
    Some(ColumnsShown {
        total,
        offset: window.offset,
        returned,
    })
}

/// The columns an inspect's answer describes once fitted to its cap: a
/// columns list the fit cut keeps fewer than the window held.
pub(crate) fn columns_kept(envelope: &Value, returned: u64) -> u64 {
    envelope["trimmed"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| {
            t["field"].as_str().is_some_and(|f| {
                f == "/columns" || f.starts_with("/sheets/") && f.ends_with("/columns")
            })
        })
        .filter_map(|t| t["kept"].as_u64())
        .min()
        .map_or(returned, |k| k.min(returned))
}

/// Where the next columns of a wide table start.
pub(crate) fn columns_text(offset: u64, returned: u64, total: u64) -> String {
    let next = offset + returned;
    format!(
        "columns {offset} to {} of {total} are described; inspect again with column_offset={next} for the next ones",
        next.saturating_sub(1)
    )
}

/// Two hints as one.
pub(crate) fn join_hint(first: Option<&str>, second: Option<&str>) -> String {
    match (first, second) {
        (Some(a), Some(b)) => format!("{a}; {b}"),
        (Some(a), None) => a.to_owned(),
        (None, Some(b)) => b.to_owned(),
        (None, None) => String::new(),
    }
}

/// The brief form of an inspect's `result`: each column without the
/// members of [`BRIEF_DROPPED`] and those that say nothing (null, empty),
/// its samples cut to [`BRIEF_SAMPLES`]; the sample rows cut to
/// [`BRIEF_SAMPLE_ROWS`] (`sample_shortened` then true).
pub fn brief(result: &mut Value) {
    for pointer in column_lists(result) {
        if let Some(Value::Array(list)) = result.pointer_mut(&pointer) {
            for column in list {
                if let Value::Object(m) = column {
                    brief_column(m);
                }
            }
        }
    }
    if let Some(Value::Array(rows)) = result.get_mut("sample") {
        if rows.len() > BRIEF_SAMPLE_ROWS {
            rows.truncate(BRIEF_SAMPLE_ROWS);
            if let Some(flag) = result.get_mut("sample_shortened") {
                *flag = Value::Bool(true);
            }
        }
    }
}

/// File lines a dataset's brief form keeps at most: of files refused or
/// not valid, the first in path order.
pub const BRIEF_DATASET_FILES: usize = 20;

/// The brief form of a dataset's inspect `result` (when `detail` asks
/// for it): the merged view (totals, columns, schema groups) whole, and
/// of the per-file lines only those of files refused or not valid (the
/// first [`BRIEF_DATASET_FILES`]), the others counted into `files_cut`.
/// Returns the hint that names the call for them, when any was left out.
pub fn dataset_brief(result: &mut Value, detail: Detail) -> Option<String> {
    if detail != Detail::Brief {
        return None;
    }
    let Some(Value::Array(lines)) = result.get_mut("files") else {
        return None;
    };
    let before = lines.len();
    let mut kept = 0;
    lines.retain(|l| {
        let telling = l.get("refusal").is_some() || l.get("valid") == Some(&Value::Bool(false));
        let keep = telling && kept < BRIEF_DATASET_FILES;
        kept += usize::from(keep);
        keep
    });
    let left = (before - lines.len()) as u64;
    if let Some(cut) = result.get_mut("files_cut") {
        *cut = Value::from(cut.as_u64().unwrap_or(0) + left);
    }
    (left > 0).then(|| {
        format!(
            "{left} file lines are left out of the brief form, which keeps those of files refused or not valid (the first {BRIEF_DATASET_FILES}); inspect with detail=\"full\" for every file's line"
        )
    })
}

/// The [`Detail::Columns`] form of an inspect's `result`: each column
/// of each columns list as one row of [`COLUMN_FIELDS`] (the figure a
/// reader lacks, such as a distinct count without `stats`, is null),
/// `column_fields` naming them; the header and sample rows left out, as
/// the rows name the columns. The other facts stay.
pub fn columns_only(result: &mut Value) {
    let lists = column_lists(result);
    if lists.is_empty() {
        return;
    }
    for pointer in lists {
        if let Some(Value::Array(list)) = result.pointer_mut(&pointer) {
            for column in list.iter_mut() {
                *column = column_row(column);
            }
        }
    }
    if let Value::Object(m) = result {
        m.remove("header");
        m.remove("sample");
        m.remove("sample_shortened");
        m.insert("column_fields".to_owned(), serde_json::json!(COLUMN_FIELDS));
    }
}

/// One column as a row of [`COLUMN_FIELDS`], from the members the table
/// readers give: CSV's `name`, `inferred_type` and `empty`, Parquet's
/// `path`, `logical` or `physical` and its statistics' `null_count`, a
/// sheet's `type` and `empties`; with `stats`, their `nulls` and
/// `distinct`, exact when their accuracy says so.
fn column_row(column: &Value) -> Value {
    let first = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| column.pointer(k).filter(|v| !v.is_null()).cloned())
            .unwrap_or(Value::Null)
    };
    let name = first(&["/name", "/path"]);
    let kind = first(&["/inferred_type", "/logical", "/physical", "/type"]);
    let nulls = first(&[
        "/stats/nulls",
        "/empty",
        "/empties",
        "/statistics/null_count",
    ]);
    let distinct = first(&["/stats/distinct", "/statistics/distinct_count"]);
    let exact = match (
        column.pointer("/stats/distinct"),
        column.pointer("/stats/accuracy/distinct"),
    ) {
        (Some(_), Some(Value::String(a))) => Value::Bool(a == "exact"),
        (Some(_), Some(_)) => Value::Bool(false),
        // A Parquet writer's own count is the footer's claim, which plumb
        // did not count: not known to be exact, so null, as no count is.
        _ => Value::Null,
    };
    serde_json::json!([name, kind, nulls, distinct, exact])
}

fn brief_column(m: &mut Map<String, Value>) {
    for key in BRIEF_DROPPED {
        m.remove(key);
    }
    m.retain(|_, v| match v {
        Value::Null => false,
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        _ => true,
    });
    if let Some(Value::Array(samples)) = m.get_mut("samples") {
        samples.truncate(BRIEF_SAMPLES);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_window_cuts_columns_header_and_sample_cells_alike() {
        let mut r = json!({
            "header": ["a", "b", "c", "d"],
            "columns": [{"index": 0}, {"index": 1}, {"index": 2}, {"index": 3}],
            "sample": [["1", "2", "3", "4"], ["5", "6"]],
        });
        let shown = window_columns(
            &mut r,
            ColumnWindow {
                offset: 1,
                limit: Some(2),
            },
        );
        assert_eq!(
            shown,
            Some(ColumnsShown {
                total: 4,
                offset: 1,
                returned: 2
            })
        );
        assert_eq!(r["header"], json!(["b", "c"]));
        assert_eq!(r["columns"], json!([{"index": 1}, {"index": 2}]));
        assert_eq!(r["sample"], json!([["2", "3"], ["6"]]));
        // Past the end: nothing, and the total still said.
        let mut r = json!({"columns": [{"index": 0}]});
        let shown = window_columns(
            &mut r,
            ColumnWindow {
                offset: 5,
                limit: None,
            },
        )
        .unwrap();
        assert_eq!((shown.total, shown.returned), (1, 0));
        assert!(window_columns(&mut json!({"keys": {}}), ColumnWindow::default()).is_none());
    }

    #[test]
    fn the_brief_form_keeps_what_says_something() {
        let mut r = json!({
            "columns": [{"index": 0, "name": "id", "inferred_type": "integer", "classes": {"integer": 3},
                         "min_length": 1, "max_length": 2, "min": 1, "max": 30, "sentinels": {},
                         "precision": [], "date_format": null, "samples": ["1", "2", "30"]}],
            "sample": [["1"], ["2"], ["30"], ["4"]],
            "sample_shortened": false,
        });
        brief(&mut r);
        assert_eq!(
            r["columns"][0],
            json!({"index": 0, "name": "id", "inferred_type": "integer", "min": 1, "max": 30,
                   "samples": ["1", "2"]})
        );
        assert_eq!(r["sample"], json!([["1"], ["2"], ["30"]]));
        assert_eq!(r["sample_shortened"], true);
    }
}
