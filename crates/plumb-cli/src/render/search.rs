//! The rendering of a search: its hits, each with its place and the
//! text or row that matched, and the note of where to go on.

use plumb::Layout;
use serde_json::Value;

use super::json::json_text;
use super::{clean, generic, named, rows_grid, word, Cell, Grid, Look, Paint};

/// A text search for a person, as `grep -n` prints it: `LINE:TEXT` per
/// hit, context lines as `LINE-TEXT`, each line once where the context
/// of two hits overlaps, and `--` between groups that do not touch (when
/// context was asked for). The matched text is highlighted when colour
/// is on. Nothing else: where to go on is said on standard error.
/// `last` is the last line printed before this answer (a page of hits
/// goes on from the page before it) and is moved on to this one's.
pub fn grep(answer: &Value, look: &Look, last: &mut Option<u64>) -> String {
    let mut out = String::new();
    let hits = answer["hits"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let with_context = hits.iter().any(|h| {
        h["before"].as_array().is_some_and(|b| !b.is_empty())
            || h["after"].as_array().is_some_and(|a| !a.is_empty())
    });
    // A line that is itself a hit is printed as one, even where it is
    // also the context of another.
    let hit_lines: std::collections::BTreeMap<u64, &Value> = hits
        .iter()
        .filter_map(|h| Some((h["line"].as_u64()?, h)))
        .collect();
    // A line at or before the last one printed is not printed again.
    let mut line = |out: &mut String, v: &Value, hit: bool| {
        let Some(n) = v["line"].as_u64() else { return };
        let (v, hit) = match hit_lines.get(&n) {
            Some(h) => (*h, true),
            None => (v, hit),
        };
        if last.is_some_and(|l| n <= l) {
            return;
        }
        if with_context && last.is_some_and(|l| n > l + 1) {
            out.push_str(&look.paint("--", Paint::Dim));
            out.push('\n');
        }
        *last = Some(n);
        let text = v["text"].as_str().unwrap_or_default();
        let sep = if hit { ':' } else { '-' };
        out.push_str(&look.paint(&n.to_string(), Paint::Number));
        out.push_str(&look.paint(&sep.to_string(), Paint::Dim));
        out.push_str(&highlight(text, hit.then_some(&v["match"]), look));
        out.push('\n');
    };
    for hit in hits {
        for b in hit["before"].as_array().into_iter().flatten() {
            line(&mut out, b, false);
        }
        line(&mut out, hit, true);
        for a in hit["after"].as_array().into_iter().flatten() {
            line(&mut out, a, false);
        }
    }
    out
}

/// `text` with the byte range `[start, end]` of `matched` painted as a
/// match, when colour is on and the range falls on character bounds.
fn highlight(text: &str, matched: Option<&Value>, look: &Look) -> String {
    let range = matched.and_then(|m| Some((m.get(0)?.as_u64()?, m.get(1)?.as_u64()?)));
    match range {
        Some((a, b))
            if look.colour
                && a < b
                && text.is_char_boundary(a as usize)
                && text.is_char_boundary(b as usize) =>
        {
            let (a, b) = (a as usize, b as usize);
            format!(
                "{}{}{}",
                &text[..a],
                look.paint(&text[a..b], Paint::Bad),
                &text[b..]
            )
        }
        _ => text.to_owned(),
    }
}

/// `search` of a table or a tree for a person: the hits as a table with
/// their positions, laid out as the answer's `layout` says, then (when
/// `note`) the total and how to go on.
pub(super) fn hits(a: &Value, look: &Look, layout: Layout, note: bool) -> String {
    let hits = a["hits"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut out = String::new();
    // Rows of a columnar file or a sheet, laid out under their names.
    let rows: Option<(Vec<Value>, Value)> = if hits.is_empty() {
        None
    } else if layout == Layout::NamedRowHits {
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
    } else if layout == Layout::SheetHits {
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
        grid.hide_middle = true;
        let lead = if layout == Layout::SheetHits { 3 } else { 2 };
        keep_matched(&mut grid, hits, lead);
        grid.labels = hits
            .iter()
            .map(|h| format!("row {}", word(&h["row"])))
            .collect();
        out.push_str(&grid.layout(look, true));
    } else if hits.is_empty() {
        // Nothing matched: the total below says so.
    } else if layout == Layout::RowHits {
        let lead = |h: &Value| {
            vec![
                Cell::number(word(&h["row"])),
                Cell::new(word(&h["line"]), Paint::Dim),
            ]
        };
        let mut grid = rows_grid(hits, &a["header"], Some((&["row", "line"], &lead)));
        grid.hide_middle = true;
        keep_matched(&mut grid, hits, 2);
        grid.labels = hits
            .iter()
            .map(|h| format!("row {}", word(&h["row"])))
            .collect();
        out.push_str(&grid.layout(look, true));
    } else if layout == Layout::ValueHits {
        let pos = if hits[0].get("record").is_some() {
            "record"
        } else {
            "index"
        };
        let mut grid = Grid::new(&[pos, "value"]);
        grid.fill_last = true;
        for h in hits {
            grid.rows.push(vec![
                Cell::number(word(&h[pos])),
                Cell::plain(json_text(&h["value"], None)),
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
                clean(&json_text(&m["value"], None))
            ));
        }
    } else {
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
    if note {
        out.push_str(&hits_note(a, look));
    }
    out
}

/// The columns that matched stay readable when the table is too wide:
/// every other column after the first gives way before them. A hit's
/// `column` is its cell's index or its column's name; `lead` position
/// columns come before the cells.
fn keep_matched(grid: &mut Grid, hits: &[Value], lead: usize) {
    let matched: Vec<usize> = hits
        .iter()
        .filter_map(|h| match &h["column"] {
            Value::Number(n) => n.as_u64().and_then(|i| usize::try_from(i).ok()),
            Value::String(name) => grid.headers.iter().skip(lead).position(|x| x == name),
            _ => None,
        })
        .map(|i| i + lead)
        .collect();
    grid.flex = (1..grid.columns())
        .filter(|c| !matched.contains(c))
        .collect();
}

/// The total of a search and how to go on, in one dim line.
fn hits_note(a: &Value, look: &Look) -> String {
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
    look.paint(&look.line(&format!("({total}{more}{unread})")), Paint::Dim) + "\n"
}
