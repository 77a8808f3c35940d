//! The readable rendering of an answer, for a person at a terminal:
//! scalar fields as `name: value` lines, arrays of rows or objects as
//! tables. Built from the same JSON that `--json` prints, so the two
//! never disagree.

use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use serde_json::{Map, Value};

/// The widest a table cell gets before it is cut with an ellipsis.
const CELL_CHARS: usize = 32;

/// Whether to colour: only on a terminal, never under `NO_COLOR`.
pub fn colour(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn bold(s: &str, colour: bool) -> String {
    if colour {
        format!("\x1b[1m{s}\x1b[0m")
    } else {
        s.to_owned()
    }
}

fn cell(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Null => "·".to_owned(),
        other => other.to_string(),
    };
    let s = s.replace(['\n', '\r'], "⏎");
    if s.chars().count() > CELL_CHARS {
        let cut: String = s.chars().take(CELL_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        s
    }
}

fn table(headers: Vec<String>, rows: Vec<Vec<String>>) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    if !headers.is_empty() {
        t.set_header(headers);
    }
    for r in rows {
        t.add_row(r);
    }
    t.to_string()
}

fn object_table(items: &[Value]) -> String {
    let mut keys: Vec<String> = Vec::new();
    for item in items.iter().take(50) {
        if let Value::Object(m) = item {
            for k in m.keys() {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
        }
    }
    let rows = items
        .iter()
        .map(|item| match item {
            Value::Object(m) => keys
                .iter()
                .map(|k| m.get(k).map(cell).unwrap_or_default())
                .collect(),
            other => vec![cell(other)],
        })
        .collect();
    table(keys, rows)
}

fn rows_table(rows: &[Value], header: Option<&Value>) -> String {
    let headers = match header {
        Some(Value::Array(h)) => h.iter().map(cell).collect(),
        _ => Vec::new(),
    };
    let body = rows
        .iter()
        .map(|r| match r {
            Value::Array(cells) => cells.iter().map(cell).collect(),
            other => vec![cell(other)],
        })
        .collect();
    table(headers, body)
}

/// Renders an answer (`{"ok": true, ...}`) for a person.
pub fn render(answer: &Value, colour: bool) -> String {
    let mut out = String::new();
    let Value::Object(map) = answer else {
        return answer.to_string();
    };
    let mut tables = Vec::new();
    for (key, v) in map {
        if key == "ok" {
            continue;
        }
        match (key.as_str(), v) {
            ("view", Value::Object(flags)) => {
                let label = if flags.get("sampled") == Some(&Value::Bool(true)) {
                    "sampled (the scan stopped early; counts are lower bounds)"
                } else if flags.get("converted") == Some(&Value::Bool(true)) {
                    "cut (a value was shortened to a budget; see the placeholders)"
                } else {
                    "exact"
                };
                out.push_str(&format!("{}: {label}\n", bold("view", colour)));
            }
            ("rows", Value::Array(rows)) => {
                tables.push((key.clone(), rows_table(rows, map.get("header"))))
            }
            ("sample", Value::Array(rows)) if rows.iter().all(Value::is_array) => {
                tables.push((key.clone(), rows_table(rows, map.get("header"))))
            }
            (_, Value::Array(items)) if !items.is_empty() && items.iter().all(Value::is_object) => {
                if let Some(t) = stats_table(items, "name") {
                    let plain: Vec<Value> = items.iter().map(without_stats).collect();
                    tables.push((key.clone(), object_table(&plain)));
                    tables.push(("statistics".to_owned(), t));
                } else {
                    tables.push((key.clone(), object_table(items)))
                }
            }
            ("outline", Value::Object(m)) if m.get("paths").is_some_and(Value::is_array) => {
                let paths = m["paths"].as_array().map(Vec::as_slice).unwrap_or_default();
                let rest: Map<String, Value> = m
                    .iter()
                    .filter(|(k, _)| *k != "paths")
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                out.push_str(&format!("{}: {}\n", bold(key, colour), compact(&rest)));
                let plain: Vec<Value> = paths.iter().map(without_stats).collect();
                tables.push(("outline paths".to_owned(), object_table(&plain)));
                if let Some(t) = stats_table(paths, "path") {
                    tables.push(("statistics".to_owned(), t));
                }
            }
            (_, Value::Array(items)) if items.is_empty() => {
                out.push_str(&format!("{}: (none)\n", bold(key, colour)));
            }
            (_, Value::Array(items)) => {
                let shown: Vec<String> = items.iter().map(cell).collect();
                out.push_str(&format!("{}: {}\n", bold(key, colour), shown.join(", ")));
            }
            (_, Value::Object(m)) => {
                out.push_str(&format!("{}: {}\n", bold(key, colour), compact(m)))
            }
            (_, other) => out.push_str(&format!("{}: {}\n", bold(key, colour), cell(other))),
        }
    }
    for (key, t) in tables {
        out.push_str(&format!("\n{}\n{t}\n", bold(&key, colour)));
    }
    out
}

/// An item without its `stats` member (shown in a table of its own).
fn without_stats(item: &Value) -> Value {
    let mut v = item.clone();
    if let Value::Object(m) = &mut v {
        m.remove("stats");
    }
    v
}

/// One line per item that has statistics: its name (by `name_key`, else
/// its index), the counts, the commonest value, the moments and
/// quartiles; an estimate is marked `≈`. None when no item has any.
fn stats_table(items: &[Value], name_key: &str) -> Option<String> {
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
        Some(f) => format!("{:.6}", f)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_owned(),
        None => String::new(),
    };
    let headers = [
        "name", "count", "nulls", "distinct", "top", "mean", "stddev", "p25", "p50", "p75",
    ];
    let rows = with
        .iter()
        .map(|item| {
            let s = &item["stats"];
            let name = match &item[name_key] {
                Value::String(n) => n.clone(),
                _ => item["index"].to_string(),
            };
            let top = s["top"]
                .get(0)
                .map(|t| format!("{} ×{}", cell(&t["value"]), t["count"]))
                .unwrap_or_default();
            let n = &s["numbers"];
            let q = &n["quantiles"];
            vec![
                cell(&Value::from(name)),
                s["count"].to_string(),
                s["nulls"].to_string(),
                approx(s, "distinct", s["distinct"].to_string()),
                approx(s, "top", top),
                approx(s, "mean", number(&n["mean"])),
                approx(s, "stddev", number(&n["stddev"])),
                approx(s, "quantiles", number(&q["p25"])),
                approx(s, "quantiles", number(&q["p50"])),
                approx(s, "quantiles", number(&q["p75"])),
            ]
        })
        .collect();
    Some(table(
        headers.iter().map(|h| (*h).to_owned()).collect(),
        rows,
    ))
}

fn compact(m: &Map<String, Value>) -> String {
    let s = Value::Object(m.clone()).to_string();
    if s.chars().count() > 200 {
        let cut: String = s.chars().take(199).collect();
        format!("{cut}…")
    } else {
        s
    }
}
