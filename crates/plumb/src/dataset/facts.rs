//! What a dataset keeps of one file's answer: read from the answer's
//! JSON by the [`Layout`] its type declares, the contract that names the
//! fields each shape holds, so a downstream reader that declares a
//! layout joins a dataset's merged schema with no code here naming its
//! format.

use plumb_core::{Answer, Layout, Shape, ViewFlags};
use serde_json::Value;

/// A column (or top-level key) of one file: its name, its type in that
/// file, and the rows (records) that hold it.
#[derive(Debug, PartialEq)]
pub(crate) struct ColumnFact {
    pub name: String,
    pub kind: String,
    pub rows: u64,
    /// Where a value of each class or type was first read in the file,
    /// when the reader says (a column of several): a CSV column's
    /// `first_records`, a JSON Lines key's `key_first_lines`.
    pub firsts: Vec<(String, u64)>,
}

/// A map of names and places as a list.
fn places(v: Option<&Value>) -> Vec<(String, u64)> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, n)| Some((k.clone(), n.as_u64()?)))
                .collect()
        })
        .unwrap_or_default()
}

/// One file's facts.
#[derive(Debug, PartialEq)]
pub(crate) struct FileFacts {
    pub format: String,
    /// What the places in a column's `firsts` count: `record` (a table's,
    /// the header's number included) or `line`.
    pub unit: &'static str,
    pub container: Option<String>,
    pub view: ViewFlags,
    pub rows: Option<u64>,
    pub columns: Option<Vec<ColumnFact>>,
    pub valid: Option<bool>,
    pub fault: Option<Value>,
    pub by: Option<String>,
    pub hits: Option<Hits>,
    /// With statistics: each named column's settled statistics.
    pub sketches: Option<plumb_stats::ColumnSketches>,
}

/// A search's hits in one file.
#[derive(Debug, PartialEq)]
pub(crate) struct Hits {
    pub header: Option<Value>,
    pub hits: Vec<Value>,
    pub more: bool,
    pub unit: Option<&'static str>,
    pub next_offset: Option<u64>,
    /// The hits its search counted (`total`), and whether that is every
    /// hit (`total_exact`); `None` from a search that counts none.
    pub total: Option<(u64, bool)>,
}

/// The field of a hit that holds its place in the unit a search's
/// `offset` counts, by the layout's contract: rows of a table, records
/// or elements, lines of text (from 1, where the offset counts from 0).
fn unit(layout: Layout, hit: Option<&Value>) -> Option<&'static str> {
    match layout {
        Layout::RowHits | Layout::NamedRowHits | Layout::SheetHits => Some("row"),
        Layout::ValueHits => ["record", "index"]
            .into_iter()
            .find(|k| hit.is_some_and(|h| h.get(*k).is_some_and(Value::is_u64))),
        Layout::LineHits => Some("line"),
        _ => None,
    }
}

impl FileFacts {
    /// The facts of `answer`: from its typed [`Shape`] when it gives one
    /// (a search excepted: its hits are JSON), else from its JSON.
    /// A reader's statistics sketches are taken out of the answer.
    pub(crate) fn of_answer(answer: &mut dyn Answer, search: bool) -> FileFacts {
        let sketches = answer
            .take_sketches()
            .and_then(|s| s.downcast::<plumb_stats::ColumnSketches>().ok());
        let mut facts = match answer.shape().filter(|_| !search) {
            Some(shape) => FileFacts::of_shape(answer, shape),
            None => FileFacts::of_json(answer, search),
        };
        facts.sketches = sketches.map(|s| *s);
        facts
    }

    /// The facts a [`Shape`] states: the ones [`FileFacts::of_json`]
    /// reads from the JSON of its layout, with no JSON built (unless the
    /// file is invalid: its first fault is read from the JSON).
    fn of_shape(answer: &dyn Answer, shape: Shape) -> FileFacts {
        let rows = shape.rows;
        let valid = match answer.verdict() {
            Some(v) => v,
            None => Some(shape.faults == 0),
        };
        FileFacts {
            unit: if answer.layout() == Layout::Outline {
                "line"
            } else {
                "record"
            },
            format: answer.format().to_owned(),
            container: shape.container,
            view: answer.view(),
            rows,
            columns: Some(
                shape
                    .columns
                    .into_iter()
                    .map(|c| ColumnFact {
                        name: c.name,
                        kind: c.kind,
                        rows: c.rows.or(rows).unwrap_or(0),
                        firsts: c.firsts,
                    })
                    .collect(),
            ),
            valid,
            fault: if valid == Some(false) {
                first_fault(&answer.to_json())
            } else {
                None
            },
            by: None,
            hits: None,
            sketches: None,
        }
    }

    /// The facts read from the answer's JSON by its layout.
    fn of_json(answer: &dyn Answer, search: bool) -> FileFacts {
        let json = answer.to_json();
        let layout = answer.layout();
        let (rows, columns) = schema(layout, &json);
        let valid = match answer.verdict() {
            Some(v) => v,
            None => counted_faults(&json).map(|n| n == 0),
        };
        // A validate counts rows only where it read the whole file.
        let rows = rows.or_else(|| answer.rows());
        let hits = search.then(|| Hits {
            header: ["header", "columns"]
                .iter()
                .find_map(|k| json.get(*k).filter(|v| v.is_array()).cloned()),
            hits: match json.get("hits") {
                Some(Value::Array(a)) => a.clone(),
                _ => Vec::new(),
            },
            more: answer.window().is_some_and(|w| w.has_more),
            unit: unit(layout, json.pointer("/hits/0")),
            next_offset: answer.next_offset(),
            total: json.get("total").and_then(Value::as_u64).map(|n| {
                let exact = json.get("total_exact").and_then(Value::as_bool);
                (n, exact == Some(true))
            }),
        });
        FileFacts {
            unit: if layout == Layout::Outline {
                "line"
            } else {
                "record"
            },
            format: answer.format().to_owned(),
            container: json
                .get("container")
                .and_then(Value::as_str)
                .map(str::to_owned),
            view: answer.view(),
            rows,
            columns,
            valid,
            fault: if valid == Some(false) {
                first_fault(&json)
            } else {
                None
            },
            by: None,
            hits,
            sketches: None,
        }
    }
}

/// The faults an inspect counts (`issue_count`, `invalid_count`).
fn counted_faults(json: &Value) -> Option<u64> {
    ["issue_count", "invalid_count"]
        .iter()
        .filter_map(|k| json.get(*k).and_then(Value::as_u64))
        .reduce(|a, b| a + b)
}

/// The first field that is a fault: an object with a `message`, or the
/// first of a list of them (the field order is the answer's).
fn first_fault(json: &Value) -> Option<Value> {
    let is_fault = |v: &Value| v.get("message").is_some_and(Value::is_string);
    json.as_object()?.iter().find_map(|(_, v)| match v {
        Value::Object(_) if is_fault(v) => Some(v.clone()),
        Value::Array(items) => items.first().filter(|f| is_fault(f)).cloned(),
        _ => None,
    })
}

/// Rows and columns by layout.
fn schema(layout: Layout, json: &Value) -> (Option<u64>, Option<Vec<ColumnFact>>) {
    let u = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64);
    let named = |list: Option<&Value>, name: &str, kind: &str, rows: u64| -> Vec<ColumnFact> {
        list.and_then(Value::as_array)
            .map(|cols| {
                cols.iter()
                    .filter_map(|c| {
                        Some(ColumnFact {
                            name: c.get(name)?.as_str()?.to_owned(),
                            kind: c
                                .get(kind)
                                .and_then(Value::as_str)
                                .unwrap_or("unknown")
                                .to_owned(),
                            rows,
                            firsts: places(c.get("first_records")),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    match layout {
        Layout::TableColumns => {
            let rows = u(json, "row_count");
            let cols = named(
                json.get("columns"),
                "name",
                "inferred_type",
                rows.unwrap_or(0),
            );
            (rows, Some(cols))
        }
        Layout::ColumnarSchema => {
            let rows = u(json, "rows");
            (
                rows,
                Some(named(json.get("fields"), "name", "type", rows.unwrap_or(0))),
            )
        }
        Layout::Workbook => workbook(json),
        Layout::Outline => outline(json),
        _ => (None, None),
    }
}

/// A workbook's columns: a sheet's columns by name, `sheet/column` when
/// the book has more than one sheet; rows are data rows.
fn workbook(json: &Value) -> (Option<u64>, Option<Vec<ColumnFact>>) {
    let Some(sheets) = json.get("sheets").and_then(Value::as_array) else {
        return (None, None);
    };
    let described: Vec<&Value> = sheets
        .iter()
        .filter(|s| s.get("columns").is_some_and(Value::is_array))
        .collect();
    let mut rows = 0;
    let mut cols = Vec::new();
    for sheet in &described {
        let n = sheet.get("data_rows").and_then(Value::as_u64).unwrap_or(0);
        rows += n;
        let prefix = match (described.len(), sheet.get("name").and_then(Value::as_str)) {
            (1, _) | (_, None) => String::new(),
            (_, Some(name)) => format!("{name}/"),
        };
        for c in sheet["columns"].as_array().into_iter().flatten() {
            if let Some(name) = c.get("name").and_then(Value::as_str) {
                cols.push(ColumnFact {
                    name: format!("{prefix}{name}"),
                    kind: c
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown")
                        .to_owned(),
                    rows: c.get("values").and_then(Value::as_u64).unwrap_or(n),
                    firsts: Vec::new(),
                });
            }
        }
    }
    (Some(rows), Some(cols))
}

/// Records' top-level keys: JSON Lines' `key_types` and `keys`; a JSON
/// document's outline paths one step below its records (`/*/k` under a
/// root array, `/k` under a root object).
fn outline(json: &Value) -> (Option<u64>, Option<Vec<ColumnFact>>) {
    if let Some(types) = json.get("key_types").and_then(Value::as_object) {
        let rows = json.get("rows_scanned").and_then(Value::as_u64);
        let cols = types
            .iter()
            .map(|(k, t)| ColumnFact {
                name: k.clone(),
                kind: kind_of(t),
                rows: json["keys"].get(k).and_then(Value::as_u64).unwrap_or(0),
                firsts: places(json.get("key_first_lines").and_then(|f| f.get(k))),
            })
            .collect();
        return (rows, Some(cols));
    }
    let Some(paths) = json.pointer("/outline/paths").and_then(Value::as_array) else {
        return (None, None);
    };
    let array = json.get("root_type").and_then(Value::as_str) == Some("array");
    let rows = if array {
        json.get("count").and_then(Value::as_u64)
    } else {
        Some(1)
    };
    let prefix = if array { "/*/" } else { "/" };
    let cols = paths
        .iter()
        .filter_map(|p| {
            let path = p.get("path")?.as_str()?;
            let key = path.strip_prefix(prefix)?;
            if key.contains('/') {
                return None;
            }
            let held = p
                .pointer("/present/in")
                .and_then(Value::as_u64)
                .or(rows)
                .unwrap_or(0);
            Some(ColumnFact {
                name: key.replace("~1", "/").replace("~0", "~"),
                kind: kind_of(p.get("types")?),
                rows: held,
                firsts: Vec::new(),
            })
        })
        .collect();
    (rows, Some(cols))
}

/// A map of types and counts as one type: the type, or `a|b` for more.
fn kind_of(types: &Value) -> String {
    match types.as_object() {
        Some(m) if !m.is_empty() => {
            let mut names: Vec<&str> = m.keys().map(String::as_str).collect();
            names.sort_unstable();
            names.join("|")
        }
        _ => "unknown".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::FileFacts;
    use crate::Plumb;
    use plumb_core::{BytesSource, FileSource, Op, Request, Source};
    use std::path::Path;

    /// Every file below `dir` whose name ends in `ext`.
    fn files(dir: &Path, ext: &str, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                files(&p, ext, out);
            } else if p.to_string_lossy().ends_with(ext) {
                out.push(p);
            }
        }
    }

    fn both_ways(plumb: &Plumb, source: &dyn Source, req: &Request) -> bool {
        let Ok(answer) = plumb.run_source(Op::Inspect, source, None, req) else {
            return false;
        };
        let typed = answer
            .shape()
            .expect("a CSV or JSON Lines inspect gives its shape");
        let json = FileFacts::of_json(&*answer, false);
        assert_eq!(
            FileFacts::of_shape(&*answer, typed),
            json,
            "{}",
            source.name()
        );
        true
    }

    /// Compares both ways every conformance file whose name ends in one
    /// of `exts`, and each of `written` (named `w{i}.{ext}`); returns how
    /// many conformance files were compared, and how many were found.
    fn compare_all(plumb: &Plumb, exts: &[&str], written: &[&[u8]], ext: &str) -> (usize, usize) {
        let req = Request::default();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance");
        let mut found = Vec::new();
        for e in exts {
            files(&root, e, &mut found);
        }
        let mut compared = 0;
        for path in &found {
            if let Ok(source) = FileSource::new(path) {
                compared += usize::from(both_ways(plumb, &source, &req));
            }
        }
        for (i, bytes) in written.iter().enumerate() {
            let source = BytesSource::new(format!("w{i}.{ext}"), bytes.to_vec());
            assert!(both_ways(plumb, &source, &req), "w{i}.{ext}");
        }
        (compared, found.len())
    }

    /// The typed facts of a CSV inspect equal the facts its JSON states,
    /// on every CSV of the conformance suites and on written ones: with
    /// and without a header, of mixed types, with faults, gzipped.
    #[test]
    fn a_csv_shape_states_what_its_json_does() {
        let plumb = Plumb::new();
        let written: [&[u8]; 5] = [
            b"id,v\n1,a\n2,3\n3,\n",
            b"1,2\n3,4\n",
            b"a,b\n1,\"open\n2,3\n",
            b"x;y;z\n1;2\n1,5;2;x;y\n",
            b"\xef\xbb\xbfname,when\nann,2024-01-02\nbob,2024-02-30\nz,NA\n",
        ];
        let (compared, found) = compare_all(&plumb, &[".csv", ".tsv"], &written, "csv");
        if cfg!(feature = "compression") {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            std::io::Write::write_all(&mut gz, b"id,v\n1,a\n2,x\n").unwrap();
            let source = BytesSource::new("z.csv.gz", gz.finish().unwrap());
            assert!(both_ways(&plumb, &source, &Request::default()));
        }
        assert!(compared >= 50 || found == 0, "{compared} of {found}");
    }

    /// The same for JSON Lines: the records' top-level keys, their types
    /// and counts, and the lines where a key's type first changed.
    #[test]
    fn a_json_lines_shape_states_what_its_json_does() {
        let written: [&[u8]; 4] = [
            b"{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":3}\n{\"id\":3}\n",
            b"{\"a\":1}\nnot json\n{\"a\":[1]}\n",
            b"[1,2]\n{\"k\":null}\n\"text\"\n",
            b"{\"x\":{\"y\":1}}\n{\"x\":true,\"z\":1.5}\n\n",
        ];
        let (compared, found) =
            compare_all(&Plumb::new(), &[".jsonl", ".ndjson"], &written, "jsonl");
        assert!(compared >= 10 || found == 0, "{compared} of {found}");
    }
}
