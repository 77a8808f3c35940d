//! A dataset's answer: the merged view first (the totals, the union of
//! columns with their types and where a type first differs, the schema
//! groups; or the hits, each with its file), then a line per file.

use serde_json::Value;

use super::{bytes, Cell, Grid, Look, Paint};

/// The whole view.
pub(super) fn view(a: &Value, look: &Look) -> String {
    let mut out = String::new();
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    let t = &a["totals"];
    let mut head = Vec::new();
    if let Some(valid) = a["valid"].as_bool() {
        head.push(if valid {
            look.paint("valid", Paint::Good)
        } else {
            look.paint("invalid", Paint::Bad)
        });
    }
    if t.is_object() {
        head.push(format!("{} files", n(&t["files"])));
        head.push(bytes(n(&t["bytes"])));
        if a["op"] == "inspect" {
            head.push(format!("{} rows", n(&t["rows"])));
        }
        if n(&t["invalid"]) > 0 {
            head.push(look.paint(&format!("{} invalid", n(&t["invalid"])), Paint::Bad));
        }
    }
    let formats: Vec<String> = a["formats"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(f, c)| format!("{f} {}", n(c)))
        .collect();
    if !formats.is_empty() && a["op"] != "search" {
        head.push(formats.join(", "));
    }
    if let Some(total) = a["total"].as_u64() {
        let at_least = if a["total_exact"] == true {
            ""
        } else {
            "at least "
        };
        head.push(format!("{at_least}{total} hits"));
    }
    for (reason, c) in a["refusals"].as_object().into_iter().flatten() {
        head.push(look.paint(&format!("{} refused ({reason})", n(c)), Paint::Warn));
    }
    if !head.is_empty() {
        out.push_str(&look.wrap(&look.paint("dataset: ", Paint::Bold), &head.join(" · "), 9));
    }
    if let Some(columns) = a["columns"].as_array() {
        columns_table(a, columns, look, &mut out);
    }
    if let Some(groups) = a["groups"].as_array().filter(|g| g.len() > 1) {
        out.push_str(&look.paint(&format!("\nschemas ({})\n", groups.len()), Paint::Bold));
        let mut grid = Grid::new(&["files", "columns", "example"]);
        grid.flex = vec![1, 2];
        for g in groups {
            let cols: Vec<String> = g["columns"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    format!(
                        "{} {}",
                        c[0].as_str().unwrap_or(""),
                        c[1].as_str().unwrap_or("")
                    )
                })
                .collect();
            grid.rows.push(vec![
                Cell::number(n(&g["files"]).to_string()),
                Cell::list(cols, Paint::Plain),
                Cell::plain(g["examples"][0].as_str().unwrap_or("")),
            ]);
        }
        out.push_str(&grid.layout(look, false));
    }
    if let Some(hits) = a["hits"].as_array() {
        hits_lines(hits, look, &mut out);
    }
    files_table(a, look, &mut out);
    if let Some(next) = a["next"].as_object() {
        let from = next.get("from").and_then(Value::as_str).unwrap_or("");
        let offset = next
            .get("offset")
            .and_then(Value::as_u64)
            .map(|o| format!(" --offset {o}"))
            .unwrap_or_default();
        let left = n(&t["files_left"]);
        let what = if left > 0 {
            format!("{left} files left")
        } else {
            "more hits".to_owned()
        };
        out.push_str(&look.wrap(
            &look.paint("more: ", Paint::Warn),
            &format!("{what}; go on with --from '{from}'{offset}"),
            6,
        ));
    }
    out
}

fn columns_table(a: &Value, columns: &[Value], look: &Look, out: &mut String) {
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    let files = n(&a["totals"]["files"]) - n(&a["totals"]["refused"]);
    out.push_str(&look.paint(&format!("\ncolumns ({})\n", columns.len()), Paint::Bold));
    let mut grid = Grid::new(&["column", "files", "rows", "types", "type differs"]);
    grid.flex = vec![0, 3, 4];
    for c in columns {
        let types: Vec<String> = c["types"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| format!("{} {}", t["type"].as_str().unwrap_or(""), n(&t["files"])))
            .collect();
        let differs = match c["type_differs"].as_object() {
            Some(d) => {
                let at = ["record", "line"]
                    .iter()
                    .find_map(|k| {
                        d.get(*k)
                            .and_then(Value::as_u64)
                            .map(|n| format!(" at {k} {n}"))
                    })
                    .unwrap_or_default();
                Cell::new(
                    format!(
                        "{}{at}: {} → {}",
                        d.get("path").and_then(Value::as_str).unwrap_or(""),
                        d.get("from").and_then(Value::as_str).unwrap_or(""),
                        d.get("to").and_then(Value::as_str).unwrap_or("")
                    ),
                    Paint::Warn,
                )
            }
            None => Cell::plain(""),
        };
        let held = n(&c["files"]);
        let paint = if held < files {
            Paint::Warn
        } else {
            Paint::Plain
        };
        grid.rows.push(vec![
            Cell::new(c["name"].as_str().unwrap_or(""), Paint::Bold),
            Cell::new(format!("{held}/{files}"), paint),
            Cell::number(n(&c["rows"]).to_string()),
            Cell::list(types, Paint::Plain),
            differs,
        ]);
    }
    out.push_str(&grid.layout(look, false));
    // With statistics: the same grid a file's inspect shows, of every
    // file that gave them (`≈` marks an estimate).
    if let Some(t) = super::inspect::stats_grid(columns, "name") {
        out.push_str(&look.paint("\nstatistics\n", Paint::Bold));
        out.push_str(&t.layout(look, true));
        let partial: Vec<String> = columns
            .iter()
            .filter(|c| c["stats"].is_object() && n(&c["stats"]["files"]) < n(&c["files"]))
            .map(|c| {
                format!(
                    "{} ({} of {} files)",
                    c["name"].as_str().unwrap_or(""),
                    n(&c["stats"]["files"]),
                    n(&c["files"])
                )
            })
            .collect();
        if !partial.is_empty() {
            out.push_str(&format!(
                "(statistics of only some files: {})\n",
                partial.join(", ")
            ));
        }
    }
    if n(&a["column_entries_cut"]) > 0 {
        out.push_str(&format!(
            "(columns past the first {} names: {} file-columns not listed)\n",
            plumb::dataset::DATASET_COLUMNS_MAX,
            n(&a["column_entries_cut"])
        ));
    }
}

/// Each hit as a line: its file, its line or record, and what matched.
fn hits_lines(hits: &[Value], look: &Look, out: &mut String) {
    for file in hits {
        let path = file["path"].as_str().unwrap_or("");
        for h in file["hits"].as_array().into_iter().flatten() {
            let at = ["line", "record", "row", "index"]
                .iter()
                .find_map(|k| h.get(*k).and_then(Value::as_u64))
                .map(|l| format!(":{l}"))
                .unwrap_or_default();
            let what = match (
                h.get("text"),
                h.get("cells").or(h.get("values")),
                h.get("value"),
            ) {
                (Some(Value::String(t)), _, _) => t.clone(),
                (_, Some(Value::Array(cells)), _) => cells
                    .iter()
                    .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_owned))
                    .collect::<Vec<_>>()
                    .join(","),
                (_, _, Some(v)) => v.to_string(),
                _ => h.to_string(),
            };
            let lead = format!(
                "{}{}: ",
                look.paint(path, Paint::Bold),
                look.paint(&at, Paint::Dim)
            );
            let plain_lead = path.chars().count() + at.chars().count() + 2;
            let room = look.width.map(|w| w.saturating_sub(plain_lead).max(8));
            let text = match room {
                Some(r) => super::fit(&super::clean(&what), r),
                None => super::clean(&what),
            };
            out.push_str(&lead);
            out.push_str(&text);
            out.push('\n');
        }
    }
}

fn files_table(a: &Value, look: &Look, out: &mut String) {
    let Some(lines) = a["files"].as_array().filter(|l| !l.is_empty()) else {
        return;
    };
    let search = a["op"] == "search";
    out.push_str(&look.paint(
        if search {
            "\nfiles refused\n"
        } else {
            "\nfiles\n"
        },
        Paint::Bold,
    ));
    let mut grid = Grid::new(&["path", "format", "size", "rows", "cols", "state"]);
    grid.flex = vec![0, 5];
    for l in lines {
        let opt = |k: &str| l[k].as_u64().map(|x| x.to_string()).unwrap_or_default();
        let state = if let Some(r) = l["refusal"].as_object() {
            Cell::new(
                format!(
                    "refused ({}): {}",
                    r.get("reason").and_then(Value::as_str).unwrap_or(""),
                    r.get("message").and_then(Value::as_str).unwrap_or("")
                ),
                Paint::Warn,
            )
        } else if l["valid"] == false {
            let f = &l["fault"];
            let at = ["line", "record"]
                .iter()
                .find_map(|k| f[*k].as_u64().map(|v| format!("{k} {v}: ")))
                .unwrap_or_default();
            Cell::new(
                format!("invalid: {at}{}", f["message"].as_str().unwrap_or("")),
                Paint::Bad,
            )
        } else if let Some(by) = l["by"].as_str() {
            Cell::plain(format!("by {by}"))
        } else if l["valid"] == true {
            Cell::new("valid", Paint::Good)
        } else {
            Cell::plain("")
        };
        let format = match (l["format"].as_str(), l["container"].as_str()) {
            (Some(f), Some(c)) => format!("{f} ({c})"),
            (Some(f), None) => f.to_owned(),
            _ => String::new(),
        };
        grid.rows.push(vec![
            Cell::plain(l["path"].as_str().unwrap_or("")),
            Cell::plain(format),
            Cell::number(l["bytes"].as_u64().map(bytes).unwrap_or_default()),
            Cell::number(opt("rows")),
            Cell::number(opt("columns")),
            state,
        ]);
    }
    out.push_str(&grid.layout(look, false));
    let cut = a["files_cut"].as_u64().unwrap_or(0);
    if cut > 0 {
        out.push_str(&format!(
            "({cut} more files not listed; --json for the merged counts)\n"
        ));
    }
}
