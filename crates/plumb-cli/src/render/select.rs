//! The rendering of a select: a window of rows, of records, or one
//! value, then where it sits in the file and how to go on.

use serde_json::Value;

use super::json::json_text;
use super::{clean, rows_grid, strip, view_word, word, Cell, Grid, Look, Paint};

/// A window of rows for a person: the cells under their column names,
/// each row labelled by its number; the first and last columns kept
/// readable when the middle ones do not fit. `named` says the rows are
/// objects keyed by the names in `columns` (a columnar file's), else
/// arrays of cells under `columns` (a sheet's) or a `header` row.
pub(super) fn rows(a: &Value, look: &Look, named: bool) -> String {
    let rows = a["rows"].as_array().map(Vec::as_slice).unwrap_or_default();
    let laid: Vec<Value>;
    let (rows, header): (&[Value], &Value) = if named {
        let keys: Vec<&str> = a["columns"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        laid = rows
            .iter()
            .map(|r| Value::Array(keys.iter().map(|k| r[*k].clone()).collect()))
            .collect();
        (&laid, &a["columns"])
    } else if a["columns"].is_array() {
        (rows, &a["columns"])
    } else {
        (rows, &a["header"])
    };
    let mut grid = rows_grid(rows, header, None);
    grid.hide_middle = true;
    if let Some(first) = a["first_row"].as_u64().or_else(|| a["offset"].as_u64()) {
        grid.labels = (0..rows.len() as u64)
            .map(|i| format!("row {}", first + i))
            .collect();
    }
    let mut out = grid.layout(look, true);
    out.push_str(&window_note(a, look, "rows"));
    out
}

/// A window of records for a person (see [`records_view`]), then where
/// it sits.
pub(super) fn records(a: &Value, look: &Look) -> String {
    let records = a["records"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut out = records_view(records, look);
    out.push_str(&window_note(a, look, "records"));
    out
}

/// One value for a person: pretty-printed, a line of the terminal per
/// line of JSON; or a window of a container's `items`, one a row
/// labelled by its place, each to the width's end.
pub(super) fn value(a: &Value, look: &Look) -> String {
    let mut out = String::new();
    if let Some(items) = a["items"].as_array() {
        let first = a["offset"].as_u64().unwrap_or(0);
        let mut grid = Grid::new(&["index", "value"]);
        grid.fill_last = true;
        for (i, item) in items.iter().enumerate() {
            grid.rows.push(vec![
                Cell::new((first + i as u64).to_string(), Paint::Dim),
                Cell::plain(clean(&json_text(item, None))),
            ]);
        }
        out.push_str(&grid.layout(look, false));
        out.push_str(&window_note(a, look, "elements"));
        return out;
    }
    let pretty = json_text(&a["value"], Some(2));
    for line in pretty.lines() {
        out.push_str(&look.line(&clean(line)));
        out.push('\n');
    }
    out.push_str(&window_note(a, look, "records"));
    out
}

/// A window of JSON Lines records: a line and the record per row, the
/// record to the width's end; under `--vertical`, each record's fields
/// one per line. A line that is not valid JSON shows its error where
/// its value would be.
fn records_view(records: &[Value], look: &Look) -> String {
    let value_cell = |r: &Value, v: &Value| match r["error"].as_str() {
        Some(e) if r.get("value").is_none() => Cell::new(format!("error: {e}"), Paint::Bad),
        _ => Cell::plain(clean(&json_text(v, None))),
    };
    if look.vertical {
        let mut out = String::new();
        for r in records {
            let mut grid = Grid::new(&["field", "value"]);
            match &r["value"] {
                Value::Object(m) if r["error"].is_null() => {
                    grid.headers = m.keys().cloned().collect();
                    grid.rows
                        .push(m.values().map(|v| value_cell(r, v)).collect());
                }
                v => {
                    grid.headers = vec!["record".to_owned()];
                    grid.rows.push(vec![value_cell(r, v)]);
                }
            }
            grid.labels = vec![format!("line {}", word(&r["line"]))];
            out.push_str(&grid.vertical(look));
        }
        return out;
    }
    let mut grid = Grid::new(&["line", "record"]);
    grid.fill_last = true;
    for r in records {
        grid.rows.push(vec![
            Cell::new(word(&r["line"]), Paint::Dim),
            value_cell(r, &r["value"]),
        ]);
    }
    grid.layout(look, false)
}

/// Where a window sits and how to continue, in one dim line.
fn window_note(a: &Value, look: &Look, unit: &str) -> String {
    let returned = a["returned"].as_u64();
    let offset = a["offset"].as_i64();
    let mut parts = Vec::new();
    if let (Some(n), Some(o)) = (returned, offset) {
        if n > 0 {
            parts.push(if o < 0 {
                format!("the last {n}")
            } else {
                format!("{unit} {}–{}", o, o + n as i64 - 1)
            });
        } else {
            parts.push("nothing in the window".to_owned());
        }
    }
    if let (Some(n), Some(r), true) = (a["from_end"].as_u64(), returned, offset.is_none()) {
        parts.push(format!(
            "{r} {unit} from {n} before the end; counted from the end, start not scanned"
        ));
    }
    if a["shortened"] == Value::Bool(true) {
        parts.push("cut to the byte budget".to_owned());
    }
    match a["next_offset"].as_u64() {
        Some(next) => parts.push(format!("more follow: --offset {next}")),
        None if a["has_more"] == Value::Bool(true) => parts.push("more follow".to_owned()),
        None => {}
    }
    if a["view"]["exact"] == Value::Bool(false) {
        parts.push(strip(&view_word(look, &a["view"])));
    }
    if parts.is_empty() {
        return String::new();
    }
    let text = look.line(&format!("({})", parts.join("; ")));
    look.paint(&text, Paint::Dim) + "\n"
}
