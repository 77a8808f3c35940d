//! The rendering of an inspect: a table's columns, a columnar file's
//! schema, a workbook's sheets, a document's tree, and the statistics
//! grid beside each.

use serde_json::Value;

use super::pictures::{sparkline, top_bars};
use super::{
    clean, count, problems, rows_grid, summary, table_head, tally, type_paint, word, Cell, Grid,
    Look, Paint,
};

/// The range of a column or path, when it has one: `min … max` for
/// numbers, dates and strings (figures never cut), else string lengths
/// as `len 3–16`.
fn range(item: &Value) -> Cell {
    if !item["min"].is_null() || !item["max"].is_null() {
        return Cell::range(&word(&item["min"]), &word(&item["max"]));
    }
    let (lo, hi) = if item["string_length"].is_object() {
        (&item["string_length"]["min"], &item["string_length"]["max"])
    } else {
        (&item["min_length"], &item["max_length"])
    };
    Cell::plain(match (lo.as_u64(), hi.as_u64()) {
        (Some(a), Some(b)) if a == b => format!("len {a}"),
        (Some(a), Some(b)) => format!("len {a}–{b}"),
        _ => String::new(),
    })
}

/// The cells a column and an outline path share: distinct (with
/// statistics), range, samples.
fn shared_facts(row: &mut Vec<Cell>, item: &Value, with_stats: bool) {
    if with_stats {
        row.push(Cell::number(distinct(item)));
    }
    row.push(range(item));
    row.push(Cell::list(samples(item), Paint::Dim));
}

fn samples(item: &Value) -> Vec<String> {
    item["samples"]
        .as_array()
        .map(|s| s.iter().map(word).collect())
        .unwrap_or_default()
}

/// Notes on a column in short words: the rows too short to reach it,
/// its precision losses and, when its values are of mixed classes, the
/// classes other than its type.
fn column_notes(item: &Value) -> String {
    let mut notes = Vec::new();
    if let Some(n) = item["missing"].as_u64().filter(|&n| n > 0) {
        notes.push(format!(
            "no cell in {n} short row{}",
            if n == 1 { "" } else { "s" }
        ));
    }
    if let Some(n) = item["unread"].as_u64().filter(|&n| n > 0) {
        notes.push(format!(
            "unread in {n} row{} cut by a cap",
            if n == 1 { "" } else { "s" }
        ));
    }
    for p in item["precision"].as_array().into_iter().flatten() {
        notes.push(format!("{} ×{}", word(&p["kind"]), word(&p["count"])));
    }
    if let Value::Object(classes) = &item["classes"] {
        let ty = item["inferred_type"].as_str().unwrap_or_default();
        let others: Vec<String> = classes
            .iter()
            .filter(|(k, _)| k.as_str() != ty && k.as_str() != "empty" && k.as_str() != "sentinel")
            .map(|(k, n)| format!("{k} {}", word(n)))
            .collect();
        if !others.is_empty() {
            notes.push(format!("also {}", others.join(", ")));
        }
    }
    notes.join("; ")
}

/// The distinct count of an item's statistics, `≈` when estimated.
fn distinct(item: &Value) -> String {
    let s = &item["stats"];
    if s["distinct"].is_null() {
        return String::new();
    }
    let exact = s["accuracy"]["distinct"] == "exact" || s["accuracy"]["distinct"].is_null();
    format!("{}{}", if exact { "" } else { "≈" }, word(&s["distinct"]))
}

/// A delimited table's inspect (CSV, TSV): a summary line, then one
/// line per column, problems, and the sample.
pub(super) fn inspect_table(a: &Value, look: &Look, size: Option<String>) -> String {
    let columns = a["columns"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let rows = match (a["row_count"].as_u64(), a["rows_scanned"].as_u64()) {
        (Some(n), _) => count(&Value::from(n), "row", "rows"),
        (None, Some(n)) => Some(format!("at least {n} rows")),
        _ => None,
    };
    let mut parts: Vec<String> = size.into_iter().chain(rows).collect();
    let ncols = crate::screen::listed(a, "columns") + a["untracked_columns"].as_u64().unwrap_or(0);
    parts.extend(count(&Value::from(ncols), "column", "columns"));
    let mut out = table_head(look, a, parts);
    let with_stats = columns.iter().any(|c| c["stats"].is_object());
    let mut heads = vec!["#", "column", "type", "nulls"];
    if with_stats {
        heads.push("distinct");
    }
    heads.extend(["range", "sample", "notes"]);
    let mut grid = Grid::new(&heads);
    grid.flex = vec![heads.len() - 2, heads.len() - 1];
    for c in columns {
        let ty = word(&c["inferred_type"]);
        let ty_shown = match c["date_format"].as_str() {
            Some(f) => format!("{ty} {f}"),
            None => ty.clone(),
        };
        let sentinels: u64 = c["sentinels"]
            .as_object()
            .map(|m| m.values().filter_map(Value::as_u64).sum())
            .unwrap_or(0);
        let empty = c["empty"].as_u64().unwrap_or(0);
        let nulls = match c["sentinels"].as_object().filter(|m| !m.is_empty()) {
            Some(m) => format!(
                "{} ({})",
                empty + sentinels,
                m.keys().cloned().collect::<Vec<_>>().join(" ")
            ),
            None => (empty + sentinels).to_string(),
        };
        let mut row = vec![
            Cell::number(word(&c["index"])),
            Cell::new(word(&c["name"]), Paint::Bold),
            Cell::new(ty_shown, type_paint(&ty)),
            Cell::number(nulls),
        ];
        shared_facts(&mut row, c, with_stats);
        row.push(Cell::new(column_notes(c), Paint::Warn));
        grid.rows.push(row);
    }
    out.push('\n');
    out.push_str(&grid.layout(look, false));
    if let Some(t) = stats_grid(columns, "name") {
        out.push_str(&format!("\n{}\n", look.heading("statistics")));
        out.push_str(&t.layout(look, true));
        out.push_str(&top_bars(columns, "name", look));
    }
    problems(
        look,
        a["issues"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default(),
        a["issue_count"].as_u64(),
        &mut out,
    );
    if let Some(sample) = a["sample"].as_array().filter(|s| !s.is_empty()) {
        out.push_str(&format!("\n{}\n", look.heading("sample")));
        out.push_str(&rows_grid(sample, &a["header"], None).layout(look, false));
    }
    out
}

/// A columnar file's inspect (Parquet): its rows and row groups, then
/// one line per leaf column with the figures its writer stored.
pub(super) fn inspect_columnar(a: &Value, look: &Look, size: Option<String>) -> String {
    let columns = a["columns"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut parts: Vec<String> = size.into_iter().collect();
    parts.extend(count(&a["rows"], "row", "rows"));
    parts.extend(count(&a["row_groups"]["count"], "row group", "row groups"));
    let ncols = crate::screen::listed(a, "columns") + a["columns_omitted"].as_u64().unwrap_or(0);
    parts.extend(count(&Value::from(ncols), "column", "columns"));
    let mut out = summary(look, a, parts);
    if let Some(w) = a["created_by"].as_str() {
        out.push_str(&look.line(&format!("written by {}", clean(w))));
        out.push('\n');
    }
    let mut grid = Grid::new(&["#", "column", "type", "nulls", "range", "notes"]);
    grid.flex = vec![4, 5];
    // The columns a user defined, each leaf of a nested one beneath it
    // (`↳ list.element`) with the leaf's own type and figures.
    let fields = a["fields"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut leaf_of = Vec::new();
    let mut heads = Vec::new();
    for f in fields {
        let n = f["leaves"].as_u64().unwrap_or(0) as usize;
        let name = word(&f["name"]);
        let nested = n != 1
            || columns
                .get(leaf_of.len())
                .is_some_and(|c| c["path"].as_str() != Some(&name));
        if nested {
            heads.push((
                leaf_of.len(),
                vec![
                    Cell::plain(""),
                    Cell::new(&name, Paint::Bold),
                    Cell::new(word(&f["type"]), Paint::Nested),
                ],
            ));
        }
        leaf_of.extend(std::iter::repeat_n(nested.then_some(name), n));
    }
    let mut heads = heads.into_iter().peekable();
    for (i, c) in columns.iter().enumerate() {
        while let Some((_, head)) = heads.next_if(|(at, _)| *at == i) {
            grid.rows.push(head);
        }
        let ty = match (c["type"].as_str(), c["logical"].as_str()) {
            (Some(t), _) => t.to_owned(),
            (None, Some(l)) => l.to_owned(),
            (None, None) => word(&c["physical"]).to_ascii_lowercase(),
        };
        let path = word(&c["path"]);
        let shown = match leaf_of.get(i) {
            Some(Some(field)) => {
                let rest = path.strip_prefix(field.as_str()).unwrap_or(&path);
                format!("  ↳ {}", rest.trim_start_matches('.'))
            }
            _ => path,
        };
        let stats = &c["statistics"];
        let nulls = stats["null_count"]
            .as_u64()
            .map_or_else(|| "·".to_owned(), |n| n.to_string());
        let range = match (&stats["min"], &stats["max"]) {
            (Value::Null, _) | (_, Value::Null) => Cell::plain(""),
            (lo, hi) => Cell::range(&word(lo), &word(hi)),
        };
        let mut notes: Vec<String> = Vec::new();
        if c["repetition"] == "repeated" || c["max_repetition_level"].as_u64() > Some(0) {
            notes.push("repeated".to_owned());
        }
        if let Some(codecs) = c["compression"].as_array() {
            notes.extend(codecs.iter().map(word).filter(|w| w != "uncompressed"));
        }
        if stats["min_max_exact"] == Value::Bool(false) && !range.text.is_empty() {
            notes.push("range is a bound".to_owned());
        }
        let row = vec![
            Cell::number(i.to_string()),
            Cell::new(shown, Paint::Bold),
            Cell::new(ty.clone(), type_paint(&ty)),
            Cell::number(nulls),
            range,
            Cell::new(notes.join(", "), Paint::Dim),
        ];
        grid.rows.push(row);
    }
    out.push('\n');
    out.push_str(&grid.layout(look, false));
    let text = look.line("(nulls and ranges are the writer's statistics, from the footer)");
    out.push_str(&look.paint(&text, Paint::Dim));
    out.push('\n');
    if let Some(t) = stats_grid(columns, "path") {
        out.push_str(&format!(
            "\n{}\n",
            look.heading("statistics (every value read)")
        ));
        out.push_str(&t.layout(look, true));
        out.push_str(&top_bars(columns, "path", look));
    }
    out
}

/// A workbook's inspect: its sheets, then each sheet read with its
/// columns, formulas and merged cells.
pub(super) fn inspect_sheets(a: &Value, look: &Look, size: Option<String>) -> String {
    let sheets = a["sheets"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut parts: Vec<String> = size.into_iter().collect();
    parts.extend(count(
        &Value::from(crate::screen::listed(a, "sheets")),
        "sheet",
        "sheets",
    ));
    parts.push(format!("{} date system", word(&a["date_system"])));
    let mut out = summary(look, a, parts);
    for s in sheets {
        let mut head = format!("sheet {} {}", word(&s["index"]), clean(&word(&s["name"])));
        if s["visible"] != "visible" {
            head.push_str(&format!(" ({})", word(&s["visible"])));
        }
        out.push_str(&format!("\n{}\n", look.heading(&head)));
        if let Some(e) = s["error"].as_str() {
            out.push_str(&look.line(&format!("could not be read: {}", clean(e))));
            out.push('\n');
            continue;
        }
        if s["described"] != Value::Bool(true) {
            out.push_str(&look.paint(
                &look.line(&format!("{} (not read)", word(&s["kind"]))),
                Paint::Dim,
            ));
            out.push('\n');
            continue;
        }
        let mut facts = vec![match s["dimensions"].as_str() {
            Some(d) => format!("used range {d}"),
            None => "empty".to_owned(),
        }];
        facts.extend(count(&s["data_rows"], "data row", "data rows"));
        facts.push(if s["header"] == Value::Bool(true) {
            "header row".to_owned()
        } else {
            "no header row".to_owned()
        });
        if let Some(n) = s["formulas"]["count"].as_u64().filter(|&n| n > 0) {
            let f: Vec<String> = s["formulas"]["functions"]
                .as_array()
                .map(|v| v.iter().map(word).collect())
                .unwrap_or_default();
            facts.push(if f.is_empty() {
                format!("{n} formulas")
            } else {
                format!("{n} formulas ({})", f.join(", "))
            });
        }
        if let Some(n) = s["merged"]["count"].as_u64().filter(|&n| n > 0) {
            facts.push(format!("{n} merged regions"));
        }
        out.push_str(&look.line(&clean(&facts.join(" · "))));
        out.push('\n');
        let columns = s["columns"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        if columns.is_empty() {
            continue;
        }
        let mut grid = Grid::new(&["col", "column", "type", "values", "empty"]);
        grid.flex = vec![1];
        for c in columns {
            grid.rows.push(vec![
                Cell::new(word(&c["letter"]), Paint::Dim),
                Cell::new(clean(&word(&c["name"])), Paint::Bold),
                Cell::plain(word(&c["type"])),
                Cell::number(word(&c["values"])),
                Cell::number(word(&c["empties"])),
            ]);
        }
        out.push_str(&grid.layout(look, false));
        if let Some(n) = s["columns_omitted"].as_u64() {
            out.push_str(&look.line(&format!("… {n} more columns")));
            out.push('\n');
        }
    }
    out
}

/// A document's or a file of records' inspect (JSON, JSON Lines): a
/// summary line, then one line per path of the outline.
pub(super) fn inspect_tree(a: &Value, look: &Look, size: Option<String>) -> String {
    let mut parts: Vec<String> = size.into_iter().collect();
    if let Some(n) = a["rows_scanned"].as_u64() {
        let sampled = a["view"]["sampled"] == Value::Bool(true);
        parts.push(format!(
            "{}{n} record{}",
            if sampled { "at least " } else { "" },
            if n == 1 { "" } else { "s" }
        ));
    }
    if let Some(root) = a["root_type"].as_str() {
        match a["count"].as_u64() {
            Some(n) => parts.push(format!("{root} of {n}")),
            None => parts.push(root.to_owned()),
        }
    }
    for key in ["key_order", "keys"] {
        if a[key].is_array() {
            parts.extend(count(
                &Value::from(crate::screen::listed(a, key)),
                "key",
                "keys",
            ));
            break;
        }
    }
    if let Some(d) = a["max_depth"].as_u64() {
        parts.push(format!("depth {d}"));
    }
    let mut out = summary(look, a, parts);
    if a["bom"] == Value::Bool(true) {
        out.push_str("byte order mark\n");
    }
    if let Some(n) = a["blank_lines"].as_u64().filter(|n| *n > 0) {
        out.push_str(&format!("{n} blank lines\n"));
    }
    if let Some(n) = a["duplicate_keys"]["count"].as_u64().filter(|n| *n > 0) {
        out.push_str(&look.paint(&format!("{n} duplicate keys"), Paint::Warn));
        out.push('\n');
    }
    if let Some(n) = a["precision"]["count"].as_u64().filter(|n| *n > 0) {
        out.push_str(&look.paint(
            &look.line(&format!(
                "{n} numbers lose precision as doubles: {}",
                tally(&a["precision"]["by_kind"])
            )),
            Paint::Warn,
        ));
        out.push('\n');
    }
    let outline = &a["outline"];
    let paths = outline["paths"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let with_stats = paths.iter().any(|p| p["stats"].is_object());
    let mut heads = vec!["path", "types", "present"];
    if with_stats {
        heads.push("distinct");
    }
    heads.extend(["range", "sample"]);
    let mut grid = Grid::new(&heads);
    grid.flex = vec![heads.len() - 1];
    for p in paths {
        let types = p["types"].as_object();
        let main = types
            .and_then(|m| {
                m.iter()
                    .max_by_key(|(_, n)| n.as_u64())
                    .map(|(k, _)| k.clone())
            })
            .unwrap_or_default();
        let types_shown = match types {
            Some(m) if m.len() == 1 => main.clone(),
            _ => tally(&p["types"]),
        };
        let present = match (p["present"]["in"].as_u64(), p["present"]["of"].as_u64()) {
            (Some(i), Some(o)) if i == o => "all".to_owned(),
            (Some(i), Some(o)) => format!("{i}/{o}"),
            _ => String::new(),
        };
        let path = match p["path"].as_str() {
            Some("") => "(root)".to_owned(),
            Some(s) => s.to_owned(),
            None => String::new(),
        };
        let mut row = vec![
            Cell::new(path, Paint::Bold),
            Cell::new(types_shown, type_paint(&main)),
            Cell::number(present),
        ];
        shared_facts(&mut row, p, with_stats);
        grid.rows.push(row);
    }
    out.push('\n');
    out.push_str(&grid.layout(look, false));
    if let (Some(total), Some(listed)) = (
        outline["paths_total"].as_u64(),
        outline["paths_listed"].as_u64(),
    ) {
        if total > listed {
            out.push_str(&look.paint(
                &format!("… {} more paths (--json lists the outline)", total - listed),
                Paint::Dim,
            ));
            out.push('\n');
        }
    }
    if let Some(t) = stats_grid(paths, "path") {
        out.push_str(&format!("\n{}\n", look.heading("statistics")));
        out.push_str(&t.layout(look, true));
        out.push_str(&top_bars(paths, "path", look));
    }
    let invalid = a["invalid"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    problems(look, invalid, a["invalid_count"].as_u64(), &mut out);
    if let Some(sample) = a["sample"].as_array().filter(|s| !s.is_empty()) {
        out.push_str(&format!("\n{}\n", look.heading("sample")));
        for v in sample {
            out.push_str(&look.line(&clean(&v.to_string())));
            out.push('\n');
        }
    }
    out
}

/// One line per item that has statistics: its name (by `name_key`, else
/// its index), the counts, the commonest value, the moments and
/// quartiles; an estimate is marked `≈`. None when no item has any.
pub(super) fn stats_grid(items: &[Value], name_key: &str) -> Option<Grid> {
    let with: Vec<&Value> = items.iter().filter(|i| i["stats"].is_object()).collect();
    if with.is_empty() {
        return None;
    }
    let approx = |s: &Value, figure: &str, text: String| {
        if text.is_empty() || s["accuracy"][figure] == "exact" || s["accuracy"][figure].is_null() {
            text
        } else {
            format!("≈{text}")
        }
    };
    let number = |v: &Value| match v.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
        Some(f) => format!("{f:.6}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_owned(),
        None => String::new(),
    };
    let mut grid = Grid::new(&[
        "name", "count", "nulls", "distinct", "top", "mean", "stddev", "p25", "p50", "p75", "shape",
    ]);
    for item in with {
        let s = &item["stats"];
        let name = match &item[name_key] {
            Value::String(n) => n.clone(),
            _ => word(&item["index"]),
        };
        let top = s["top"]
            .get(0)
            .and_then(|t| {
                // A value cut to its first bytes says so.
                let more = if t["bytes"].is_u64() { "…" } else { "" };
                // Where a JSON path holds strings beside numbers or
                // booleans, a string is quoted: `"100"` is not `100`.
                let value = if t["kind"] == "string" && mixed_scalars(item) {
                    t["value"].to_string()
                } else {
                    word(&t["value"])
                };
                let times = top_count(t)?;
                Some(Cell::with_tail(format!("{value}{more}"), &times))
            })
            .unwrap_or_else(|| Cell::plain(no_repeat(s)));
        let n = &s["numbers"];
        let q = &n["quantiles"];
        let dates = &s["dates"]["quantiles"];
        // A date column's quartiles are dates, and its shape is drawn
        // along time (its dates as instants).
        let quartiles: Vec<Cell> = ["p25", "p50", "p75"]
            .iter()
            .map(|p| match dates[*p].as_str() {
                Some(day) => Cell::value(approx(s, "date_quantiles", day.to_owned())),
                None => Cell::number(approx(s, "quantiles", number(&q[*p]))),
            })
            .collect();
        let shape = if dates.is_object() {
            approx(s, "date_quantiles", sparkline(&instants(dates)))
        } else {
            approx(s, "quantiles", sparkline(q))
        };
        grid.labels.push(name.clone());
        let mut row = vec![
            Cell::new(name, Paint::Bold),
            Cell::number(word(&s["count"])),
            Cell::number(word(&s["nulls"])),
            Cell::number(approx(s, "distinct", word(&s["distinct"]))),
            top,
            Cell::number(approx(s, "mean", number(&n["mean"]))),
            Cell::number(approx(s, "stddev", number(&n["stddev"]))),
        ];
        row.extend(quartiles);
        row.push(Cell::new(shape, Paint::Number));
        grid.rows.push(row);
    }
    Some(grid)
}

/// Dates at their quantiles (`{"p1": "2024-01-15", ...}`) as the same
/// quantiles of instants, for a picture drawn along time; a date that
/// does not read as one is left out.
fn instants(dates: &Value) -> Value {
    let map = dates
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(name, day)| {
            let at = plumb_core::instant_of(day.as_str()?.as_bytes())?;
            Some((name.clone(), Value::from(at as f64)))
        })
        .collect();
    Value::Object(map)
}

/// How often the most common value occurs, as far as it is known: its
/// count when exact (` ×12`), the guaranteed count and the sketch's bound
/// when the count is an estimate (` ×9–12`); `None` when no value is
/// sure to occur more than once (the bound alone would read as a count).
fn top_count(t: &Value) -> Option<String> {
    let count = t["count"].as_u64()?;
    let over = t["overcount"].as_u64().unwrap_or(0);
    let least = t["at_least"]
        .as_u64()
        .unwrap_or_else(|| count.saturating_sub(over));
    match (least, over) {
        (n, 0) if n > 1 => Some(format!(" ×{n}")),
        (n, _) if n > 1 => Some(format!(" ×{n}–{count}")),
        _ => None,
    }
}

/// The top cell when no value is sure to repeat: `unique` (no value
/// repeats) when the counts are exact, empty when the sketch could not
/// tell.
fn no_repeat(s: &Value) -> &'static str {
    let exact = s["accuracy"]["top"] == "exact" || s["accuracy"]["top"].is_null();
    if exact && s["top"].get(0).is_some() {
        "unique"
    } else {
        ""
    }
}

/// Whether a JSON path's values are strings beside numbers or booleans
/// (its `types`), so that a string's text may read as one of them.
fn mixed_scalars(item: &Value) -> bool {
    item["types"].as_object().is_some_and(|types| {
        types.contains_key("string")
            && (types.contains_key("number") || types.contains_key("boolean"))
    })
}
