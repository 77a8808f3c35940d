//! The rendering of a search: its hits, each with its place and the
//! text or row that matched, and the note of where to go on.

use serde_json::Value;

use super::{clean, generic, named, rows_grid, word, Cell, Grid, Look, Paint};

/// `search` of a table or a tree for a person: the hits as a table with
/// their positions, then the total and how to go on.
pub fn search(a: &Value, look: &Look) -> String {
    let hits = a["hits"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut out = String::new();
    // Rows of a columnar file or a sheet, laid out under their names.
    let rows: Option<(Vec<Value>, Value)> = if hits.iter().any(|h| h["values"].is_object()) {
        // A columnar file's: the row, the column that matched, then the
        // row's values by column.
        let keys: Vec<String> = hits
            .iter()
            .find_map(|h| h["values"].as_object())
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        let laid = hits
            .iter()
            .map(|h| {
                let lead = [h["row"].clone(), h["column"].clone()];
                Value::Array(
                    lead.into_iter()
                        .chain(keys.iter().map(|k| h["values"][k].clone()))
                        .collect(),
                )
            })
            .collect();
        let names = keys.iter().map(|k| Value::from(k.as_str())).collect();
        Some((laid, named(&["row", "matched"], names)))
    } else if hits.iter().any(|h| h["values"].is_array()) {
        // A sheet's: the data row, the sheet row as Excel numbers it,
        // the column that matched, then the values under the answer's
        // column names.
        let laid = hits
            .iter()
            .map(|h| {
                let lead = [
                    h["row"].clone(),
                    h["sheet_row"].clone(),
                    h["column"].clone(),
                ];
                let values = h["values"].as_array().cloned().unwrap_or_default();
                Value::Array(lead.into_iter().chain(values).collect())
            })
            .collect();
        let names = a["columns"].as_array().cloned().unwrap_or_default();
        Some((laid, named(&["row", "sheet row", "matched"], names)))
    } else {
        None
    };
    if let Some((laid, header)) = rows {
        let mut grid = rows_grid(&laid, &header, None);
        grid.labels = hits
            .iter()
            .map(|h| format!("row {}", word(&h["row"])))
            .collect();
        out.push_str(&grid.layout(look, true));
    } else if hits.iter().any(|h| h["cells"].is_array()) {
        let lead = |h: &Value| {
            vec![
                Cell::number(word(&h["row"])),
                Cell::new(word(&h["line"]), Paint::Dim),
            ]
        };
        let mut grid = rows_grid(hits, &a["header"], Some((&["row", "line"], &lead)));
        grid.labels = hits
            .iter()
            .map(|h| format!("row {}", word(&h["row"])))
            .collect();
        out.push_str(&grid.layout(look, true));
    } else if !hits.is_empty() {
        let pos = if hits[0].get("record").is_some() {
            "record"
        } else {
            "index"
        };
        let mut grid = Grid::new(&[pos, "value"]);
        for h in hits {
            grid.rows.push(vec![
                Cell::number(word(&h[pos])),
                Cell::plain(h["value"].to_string()),
            ]);
        }
        out.push_str(&grid.layout(look, false));
        // What matched in a value cut to fit, one line a hit.
        for h in hits.iter().filter(|h| h.get("matched").is_some()) {
            let m = &h["matched"];
            out.push_str(&format!(
                "{pos} {}: {} matched: {}\n",
                word(&h[pos]),
                clean(&word(&m["pointer"])),
                clean(&m["value"].to_string())
            ));
        }
    } else if a.get("hits").is_none() {
        return generic(a, look);
    }
    // A matching cell past the cells shown (a wide CSV row or sheet
    // row), one line a hit.
    for h in hits.iter().filter(|h| h.get("matched_cell").is_some()) {
        out.push_str(&format!(
            "row {}: column {} matched: {}\n",
            word(&h["row"]),
            word(&h["column"]),
            clean(&word(&h["matched_cell"]))
        ));
    }
    let total = match (a["total"].as_u64(), a["total_exact"].as_bool()) {
        (Some(t), Some(true)) => format!("{t} in all"),
        (Some(t), _) => format!("at least {t}"),
        _ => String::new(),
    };
    let more = match a["next_offset"].as_u64() {
        Some(n) => format!("; more follow: --offset {n}"),
        None => String::new(),
    };
    // Why a total read to the end is still a lower bound.
    let unread = ["rows", "records", "elements"]
        .iter()
        .find_map(|unit| {
            let n = a[format!("unjudged_{unit}").as_str()].as_u64()?;
            Some(format!("; {n} {unit} not judged whole, past a cap"))
        })
        .unwrap_or_default();
    out.push_str(&look.paint(&look.line(&format!("({total}{more}{unread})")), Paint::Dim));
    out.push('\n');
    out
}
