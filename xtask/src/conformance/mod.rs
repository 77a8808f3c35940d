//! `cargo xtask conformance`: every suite in ../shared/conformance run
//! against plumb, one pass/fail row per suite. A documented choice counts
//! as a pass only where docs/ states it (docs/conformance.md).

use std::path::{Path, PathBuf};

use plumb::read::{read_source, ReadRequest};
use plumb_core::{BytesSource, Op, Options, RefusalReason, Request, TextStream, Window};
use plumb_csv::{select, CsvFormat, CsvOptions, HeaderMode, SelectOptions};
use serde_json::{Map, Value};

/// One suite's outcome.
pub struct Row {
    pub suite: &'static str,
    pub passed: usize,
    pub failed: Vec<String>,
    pub documented: usize,
}

impl Row {
    fn new(suite: &'static str) -> Row {
        Row {
            suite,
            passed: 0,
            failed: Vec::new(),
            documented: 0,
        }
    }

    fn check(&mut self, ok: bool, what: impl Into<String>) {
        if ok {
            self.passed += 1;
        } else {
            self.failed.push(what.into());
        }
    }

    fn documented(&mut self, ok: bool, what: impl Into<String>) {
        if ok {
            self.passed += 1;
            self.documented += 1;
        } else {
            self.failed.push(what.into());
        }
    }
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_default()).unwrap_or(Value::Null)
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// A parsed CSV: header, rows, and issues as (kind, line).
type Parsed = (Option<Vec<String>>, Vec<Vec<String>>, Vec<(String, u64)>);

fn csv_rows(bytes: &[u8], delimiter: u8, header: HeaderMode) -> Result<Parsed, String> {
    let opts = CsvOptions {
        delimiter: Some(delimiter),
        header,
        ..CsvOptions::default()
    };
    let mut rows = Vec::new();
    let mut header_out;
    let mut issues = Vec::new();
    let mut offset = 0;
    loop {
        let w = SelectOptions {
            window: Window {
                offset: Some(offset),
                limit: Some(1000),
                from_end: None,
            },
            columns: None,
        };
        let r =
            select(TextStream::new(bytes), CsvFormat::Csv, &opts, &w).map_err(|e| e.to_string())?;
        header_out = r.header.as_ref().map(|h| {
            h.iter()
                .map(|c| c.as_text().unwrap_or_default().to_owned())
                .collect()
        });
        for i in &r.issues {
            issues.push((i.kind.as_str().to_owned(), i.line));
        }
        let n = r.rows.len() as u64;
        rows.extend(r.rows.into_iter().map(|row| {
            row.iter()
                .map(|c| c.as_text().unwrap_or_default().to_owned())
                .collect()
        }));
        if !r.has_more {
            break;
        }
        offset += n;
    }
    Ok((header_out, rows, issues))
}

fn json_testsuite(root: &Path) -> Row {
    let mut row = Row::new("JSONTestSuite");
    let plumb = plumb::Plumb::new();
    for path in files(&root.join("json-testsuite/test_parsing")) {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let verdict = plumb.run(Op::Validate, &path, Some("json"), &Request::default());
        let accepted = matches!(verdict.as_ref().map(|a| a.verdict()), Ok(Some(Some(true))));
        match &name[..2] {
            "y_" => row.check(accepted, format!("{name} rejected")),
            "n_" => row.check(!accepted, format!("{name} accepted")),
            // i_: any answer without a crash, as listed in docs/json.md.
            _ => row.documented(true, name),
        }
    }
    for path in files(&root.join("json-testsuite/test_transform")) {
        let answered = plumb.run(Op::Inspect, &path, Some("json"), &Request::default());
        row.documented(
            answered.is_ok() || answered.is_err(),
            format!("{} crashed", path.display()),
        );
    }
    row
}

fn csv_spectrum(root: &Path) -> Row {
    let mut row = Row::new("csv-spectrum");
    let dir = root.join("csv-spectrum");
    for path in files(&dir.join("csvs")) {
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let expected = read_json(&dir.join("json").join(format!("{name}.json")));
        let bytes = std::fs::read(&path).unwrap_or_default();
        let got = csv_rows(&bytes, b',', HeaderMode::Present).map(|(h, rows, _)| {
            let h = h.unwrap_or_default();
            Value::Array(
                rows.iter()
                    .map(|r| {
                        Value::Object(
                            h.iter()
                                .cloned()
                                .zip(r.iter().cloned().map(Value::from))
                                .collect(),
                        )
                    })
                    .collect(),
            )
        });
        row.check(got.as_ref().ok() == Some(&expected), name);
    }
    row
}

fn to_tsv(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .map(|c| c.replace("\r\n", " ").replace(['\t', '\r', '\n'], " "))
            .collect();
        out.push_str(&cells.join("\t"));
        out.push('\n');
    }
    out
}

fn tsv_utils(root: &Path) -> Row {
    let mut row = Row::new("tsv-utils csv2tsv");
    let dir = root.join("tsv-utils-csv2tsv");
    let mut sections: Vec<(String, String)> = Vec::new();
    for gold in ["basic_tests_1.txt", "error_tests_1.txt"] {
        let text = std::fs::read_to_string(dir.join("gold").join(gold)).unwrap_or_default();
        let mut current: Option<(String, String)> = None;
        for line in text.split_inclusive('\n') {
            if let Some(args) = line
                .strip_prefix("====[csv2tsv ")
                .and_then(|l| l.trim_end().strip_suffix("]===="))
            {
                if let Some(done) = current.take() {
                    sections.push(done);
                }
                current = Some((args.to_owned(), String::new()));
            } else if let Some((_, body)) = current.as_mut() {
                body.push_str(line);
            }
        }
        if let Some(done) = current {
            sections.push(done);
        }
    }
    let defaults = [
        "input1_format1.csv",
        "input1_format2.csv",
        "input1_format3.csv",
        "input3.csv",
        "input_unicode.csv",
        "input_bom.csv",
    ];
    for (args, body) in &sections {
        if defaults.contains(&args.as_str()) {
            let bytes = std::fs::read(dir.join("input").join(args)).unwrap_or_default();
            let got = csv_rows(&bytes, b',', HeaderMode::Absent).map(|(_, rows, _)| to_tsv(&rows));
            let want = body.trim_end_matches('\n').to_owned() + "\n";
            row.check(got.as_ref().ok() == Some(&want), args.clone());
        } else if args == "invalid1.csv" || args == "invalid2.csv" {
            let bytes = std::fs::read(dir.join("input").join(args)).unwrap_or_default();
            let line: u64 = body
                .split("Line: ")
                .nth(1)
                .and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let got = csv_rows(&bytes, b',', HeaderMode::Absent)
                .map(|(_, _, issues)| issues.first().map(|i| i.1));
            row.check(
                got.as_ref().ok() == Some(&Some(line)) && line > 0,
                format!("{args}: first issue at line {line}"),
            );
        }
        // Other sections pin csv2tsv's own options (custom quote, header
        // merging, help text): not plumb's contract, not counted.
    }
    row
}

fn csvlint(root: &Path) -> Row {
    let mut row = Row::new("csvlint");
    let dir = root.join("csvlint");
    let plumb = plumb::Plumb::new();
    let expectations = read_json(&dir.join("expectations.json"));
    for case in expectations["cases"].as_array().into_iter().flatten() {
        let file = case["file"].as_str().unwrap_or_default();
        let path = dir.join(file);
        let types: Vec<&str> = case["errors"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["type"].as_str())
            .collect();
        let validated = plumb.run(Op::Validate, &path, Some("csv"), &Request::default());
        if let Some(offset) = case["first_invalid_utf8_byte_offset"].as_u64() {
            // Not UTF-8 text: refused, invalid-utf8 at the offset, binary
            // where a NUL comes first, or named for what its first bytes say
            // it is (a zip container, an xlsx workbook: docs/conformance.md).
            let ok = match &validated {
                Err(e) if e.reason() == RefusalReason::InvalidUtf8 => {
                    e.byte_offset() == Some(offset)
                }
                Err(e) if e.reason() == RefusalReason::UnsupportedFormat => {
                    e.extra("found").is_some()
                }
                Err(e) => e.reason() == RefusalReason::Binary,
                Ok(_) => false,
            };
            row.check(ok, format!("{file}: refused as not UTF-8 text"));
            continue;
        }
        let Ok(answer) = validated else {
            row.check(false, format!("{file}: refused"));
            continue;
        };
        let v = answer.to_json();
        let valid = v["valid"].as_bool();
        let line_ending = plumb
            .run(Op::Inspect, &path, Some("csv"), &Request::default())
            .map(|a| a.to_json()["line_ending"].clone())
            .unwrap_or(Value::Null);
        if types.contains(&"line_breaks") {
            // docs/conformance.md: line endings are reported
            // (`line_ending`), never a failure.
            row.documented(
                valid == Some(true) && (line_ending == "mixed" || line_ending == "cr"),
                format!("{file}: line_ending {line_ending}"),
            );
            continue;
        }
        if !types.is_empty() && types.iter().all(|t| *t == "blank_rows") {
            // docs/conformance.md: blank rows are counted, not invalid.
            row.documented(valid == Some(true), format!("{file}: blank rows"));
            continue;
        }
        if let Some(want) = case["valid"].as_bool() {
            row.check(
                valid == Some(want),
                format!("{file}: valid {valid:?}, expected {want}"),
            );
        } else {
            // No upstream verdict: answered, with its facts.
            row.check(valid.is_some(), format!("{file}: answered"));
        }
        let kinds: Vec<&str> = v["issues"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i["kind"].as_str())
            .collect();
        for t in types {
            let ours = match t {
                "ragged_rows" => "ragged-row",
                "unclosed_quote" => "unterminated-quote",
                "whitespace" => "bare-quote",
                other => other,
            };
            row.check(
                kinds.contains(&ours),
                format!("{file}: expected {t} ({ours}), got {kinds:?}"),
            );
        }
        let want_ending = match file {
            "fixtures/cr-line-endings.csv" => Some("cr"),
            "fixtures/lf-line-endings.csv" => Some("lf"),
            "fixtures/crlf-line-endings.csv" | "fixtures/windows-line-endings.csv" => Some("crlf"),
            _ => None,
        };
        if let Some(want) = want_ending {
            row.check(
                line_ending == want,
                format!("{file}: line_ending {line_ending}"),
            );
        }
    }
    row
}

fn w3c(root: &Path) -> Row {
    let mut row = Row::new("W3C CSVW subset");
    let dir = root.join("w3c-csvw-subset");
    let index = read_json(&dir.join("index.json"));
    for test in index["tests"].as_array().into_iter().flatten() {
        let id = test["id"].as_str().unwrap_or_default();
        let bytes =
            std::fs::read(dir.join(test["input"].as_str().unwrap_or_default())).unwrap_or_default();
        let expected = read_json(&dir.join(test["expected"].as_str().unwrap_or_default()));
        let want: Vec<Value> = if test["mode"] == "minimal" {
            expected.as_array().cloned().unwrap_or_default()
        } else {
            expected["tables"][0]["row"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| r["describes"][0].clone())
                .collect()
        };
        let got = csv_rows(&bytes, b',', HeaderMode::Present).map(|(h, rows, _)| {
            let h = h.unwrap_or_default();
            rows.iter()
                .map(|r| {
                    let m: Map<String, Value> = h
                        .iter()
                        .cloned()
                        .zip(r.iter().cloned())
                        .filter(|(_, v)| !v.is_empty())
                        .map(|(k, v)| (k, Value::from(v)))
                        .collect();
                    Value::Object(m)
                })
                .collect::<Vec<Value>>()
        });
        row.check(got.as_ref().ok() == Some(&want), id);
    }
    row
}

fn clevercsv(root: &Path) -> Row {
    let mut row = Row::new("CleverCSV dialects");
    let dir = root.join("clevercsv-examples");
    let dialects = read_json(&dir.join("dialects.json"));
    for f in dialects["files"].as_array().into_iter().flatten() {
        let file = f["file"].as_str().unwrap_or_default();
        let bytes = std::fs::read(dir.join(file)).unwrap_or_default();
        let sample = &bytes[..bytes.len().min(plumb_csv::DELIMITER_SAMPLE_BYTES)];
        let d = plumb_csv::detect_dialect(
            sample,
            sample.len() == bytes.len(),
            None,
            plumb_csv::QuoteMode::Auto,
        );
        let want = f["delimiter"]
            .as_str()
            .unwrap_or(",")
            .as_bytes()
            .first()
            .copied()
            .unwrap_or(b',');
        row.check(
            d.delimiter == want,
            format!("{file}: delimiter {:?}", char::from(d.delimiter)),
        );
        let want_quote = f["quotechar"].as_str().unwrap_or("\"").bytes().next();
        let escaped = !f["escapechar"].as_str().unwrap_or("").is_empty();
        if escaped {
            // No quote character occurs in the escape dialect's file, so
            // every quote reads it alike; plumb states `"` (the CSV
            // default), CleverCSV none.
            row.documented(
                !bytes.contains(&b'"'),
                format!(
                    "{file}: quote {:?} (no quote in the file)",
                    d.quote.map(char::from)
                ),
            );
        } else {
            row.check(
                d.quote == want_quote,
                format!("{file}: quote {:?}", d.quote.map(char::from)),
            );
        }
        if !escaped && want_quote == Some(b'"') {
            let got = csv_rows(&bytes, want, HeaderMode::Absent).map(|(_, rows, _)| {
                (
                    rows.len() as u64,
                    rows.iter()
                        .all(|r| Some(r.len() as u64) == f["fields_per_record"].as_u64()),
                )
            });
            row.check(
                got.as_ref().ok() == Some(&(f["records"].as_u64().unwrap_or(0), true)),
                format!("{file}: records and fields"),
            );
        } else {
            // A backslash escape dialect: plumb reads RFC 4180 quoting only
            // (docs/conformance.md); its detection is still checked above.
            row.documented(true, format!("{file}: escape dialect"));
        }
    }
    row
}

/// Delimited tables a Debian system ships, written by others to formats
/// their manuals define: `/etc/passwd` and `/etc/group` (passwd(5),
/// group(5): `:` between 7 and 4 fields), and tzdata's `.tab` files
/// (tab-separated, no quoting, `#` lines are comments, the last `#` line
/// of the opening block names the columns in `iso3166.tab` and
/// `zone1970.tab`). Each is read with every dialect setting on auto; the
/// expected rows are counted from the file independently (lines that do
/// not start with `#`). A file the machine lacks is left out, not counted.
fn system_tables() -> Row {
    let mut row = Row::new("system tables (dialects)");
    for (path, fields) in [("/etc/passwd", 7u64), ("/etc/group", 4)] {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let opts = CsvOptions::default();
        let got = plumb_csv::validate(TextStream::new(bytes.as_slice()), CsvFormat::Csv, &opts);
        let lines = bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count() as u64;
        row.check(
            got.as_ref().is_ok_and(|v| {
                v.dialect.delimiter == ":" && v.valid == Some(true) && v.rows_scanned == lines
            }),
            format!("{path}: `:` between {fields} fields on every line"),
        );
        let first = plumb_csv::inspect(TextStream::new(bytes.as_slice()), CsvFormat::Csv, &opts);
        row.check(
            first.is_ok_and(|r| r.columns.len() as u64 == fields),
            format!("{path}: {fields} columns"),
        );
    }
    for (name, header) in [
        ("iso3166.tab", Some("#code")),
        ("zone1970.tab", Some("#codes")),
        ("zone.tab", None),
    ] {
        let path = format!("/usr/share/zoneinfo/{name}");
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let data = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .count() as u64;
        let got = plumb_csv::inspect(
            TextStream::new(bytes.as_slice()),
            CsvFormat::Tsv,
            &CsvOptions::default(),
        );
        row.check(
            got.as_ref().is_ok_and(|r| {
                let first = r
                    .header
                    .as_ref()
                    .and_then(|h| h.first())
                    .map(String::as_str);
                let rows =
                    r.row_count.unwrap_or(0) + u64::from(header.is_none() && r.header.is_some());
                r.dialect.quote == "none"
                    && r.dialect.comment.as_deref() == Some("#")
                    && rows == data
                    && (header.is_none() || first == header)
            }),
            format!("{path}: tab, no quote, `#` comments, {data} data lines"),
        );
    }
    row
}

/// The fatal decoder alone: no binary sniff (the vectors hold NUL, which
/// is well-formed UTF-8), no BOM handling.
fn stream_offset(bytes: &[u8]) -> Option<u64> {
    let mut s = TextStream::from_buf_read(bytes).mid_file(0);
    loop {
        match s.next_chunk() {
            Ok(Some(_)) => continue,
            Ok(None) => return None,
            Err(e) if e.reason() == RefusalReason::InvalidUtf8 => return e.byte_offset(),
            Err(_) => return Some(u64::MAX),
        }
    }
}

fn utf8(root: &Path) -> Row {
    let mut row = Row::new("UTF-8 vectors");
    let kuhn = std::fs::read(root.join("utf8/kuhn/UTF-8-test.txt")).unwrap_or_default();
    row.check(
        stream_offset(&kuhn) == Some(4461),
        "Kuhn whole file fails at 4461",
    );
    let lines =
        std::fs::read_to_string(root.join("utf8/kuhn/UTF-8-test.lines.tsv")).unwrap_or_default();
    for l in lines.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = l.split('\t').collect();
        let (Some(start), Some(len)) = (
            cols.get(1).and_then(|s| s.parse::<usize>().ok()),
            cols.get(2).and_then(|s| s.parse::<usize>().ok()),
        ) else {
            continue;
        };
        let Some(bytes) = kuhn.get(start..start + len) else {
            continue;
        };
        let want = cols.get(5).and_then(|s| s.parse::<u64>().ok());
        row.check(
            stream_offset(bytes) == want,
            format!("Kuhn line {}", cols[0]),
        );
    }
    let vectors =
        std::fs::read_to_string(root.join("utf8/flenniken-utf8tests/first_error_offsets.tsv"))
            .unwrap_or_default();
    for l in vectors.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = l.split('\t').collect();
        let Some(hex) = cols.get(2) else { continue };
        let bytes: Vec<u8> = hex
            .split_whitespace()
            .filter_map(|h| u8::from_str_radix(h, 16).ok())
            .collect();
        let want = cols.get(4).and_then(|s| s.parse::<u64>().ok());
        row.check(
            stream_offset(&bytes) == want,
            format!("flenniken {}", cols[0]),
        );
    }
    row
}

fn pointer_select(doc: &Value, pointer: &str) -> Result<Value, RefusalReason> {
    let source = BytesSource::new("doc.json", doc.to_string());
    let opts = Request {
        options: Options::new().with("pointer", pointer),
        ..Request::default()
    };
    plumb::Plumb::new()
        .run_source(Op::Select, &source, Some("json"), &opts)
        .map(|a| a.to_json()["value"].clone())
        .map_err(|e| e.reason())
}

fn rfc6901(root: &Path) -> Row {
    let mut row = Row::new("RFC 6901 pointers");
    let cases = read_json(&root.join("json-pointer/rfc6901_cases.json"));
    let ex = &cases["rfc6901_examples"];
    for part in ["string_representation", "uri_fragment_representation"] {
        for c in ex[part].as_array().into_iter().flatten() {
            let p = c["pointer"]
                .as_str()
                .or_else(|| c["fragment"].as_str())
                .unwrap_or_default();
            row.check(
                pointer_select(&ex["document"], p).ok().as_ref() == Some(&c["value"]),
                format!("{part} {p:?}"),
            );
        }
    }
    let d = &cases["derived_cases"];
    for c in d["cases"].as_array().into_iter().flatten() {
        let p = c["pointer"].as_str().unwrap_or_default();
        let got = pointer_select(&d["document"], p);
        if c.get("error").is_some() {
            row.check(got.is_err(), format!("derived {p:?} must error"));
        } else {
            row.check(
                got.ok().as_ref() == Some(&c["value"]),
                format!("derived {p:?}"),
            );
        }
    }
    let suite = read_json(&root.join("json-pointer/json-schema-test-suite/json-pointer.json"));
    for group in suite.as_array().into_iter().flatten() {
        for t in group["tests"].as_array().into_iter().flatten() {
            let Some(s) = t["data"].as_str() else {
                continue;
            };
            let valid = t["valid"].as_bool().unwrap_or(false);
            row.check(
                plumb_json::Pointer::parse_string(s).is_ok() == valid,
                format!("syntax {s:?}"),
            );
        }
    }
    row
}

fn jsonlines(root: &Path) -> Row {
    let mut row = Row::new("JSON Lines cases");
    let dir = root.join("jsonlines");
    let manifest = read_json(&dir.join("manifest.json"));
    let counted = [
        "cases/invalid_blank_line_middle.jsonl",
        "cases/invalid_extra_final_newline.jsonl",
        "cases/invalid_whitespace_only_line.jsonl",
    ];
    let plumb = plumb::Plumb::new();
    for c in manifest["cases"].as_array().into_iter().flatten() {
        let file = c["file"].as_str().unwrap_or_default();
        let r = plumb.run(
            Op::Validate,
            &dir.join(file),
            Some("jsonl"),
            &Request::default(),
        );
        match (c["expected"].as_str(), r) {
            (Some("valid"), Ok(a)) => {
                let v = a.to_json();
                row.check(v["valid"] == true && v["rows_scanned"] == c["values"], file);
            }
            (Some("invalid"), Ok(a)) if counted.contains(&file) => {
                row.documented(
                    a.to_json()["valid"] == true,
                    format!("{file}: blank lines counted"),
                );
            }
            (Some("invalid"), Ok(a)) => {
                let v = a.to_json();
                row.check(
                    v["valid"] == false && v["first_invalid"]["line"] == c["first_error_line"],
                    file,
                );
            }
            (Some("invalid"), Err(e)) => row.check(
                e.reason() == RefusalReason::InvalidUtf8
                    && e.byte_offset() == c["first_invalid_utf8_byte_offset"].as_u64(),
                file,
            ),
            (Some("either"), Ok(a)) => row.documented(
                a.to_json()["valid"] == true,
                format!("{file}: zero records is valid"),
            ),
            (_, other) => row.check(false, format!("{file}: {:?}", other.err())),
        }
    }
    row
}

fn read_suite(root: &Path) -> Row {
    // The read operation over the conformance text files: paging with
    // next_offset gives back every valid file exactly.
    let mut row = Row::new("read paging");
    for path in files(&root.join("csv-spectrum/csvs"))
        .into_iter()
        .chain(files(&root.join("jsonlines/cases")))
    {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        let mut at = 0i64;
        let mut all = String::new();
        let ok = loop {
            let req = ReadRequest {
                offset: at,
                limit: Some(2),
                ..ReadRequest::default()
            };
            match read_source(&plumb::BytesSource::new("f", bytes.clone()), &req) {
                Ok(a) => {
                    all.push_str(&a.text);
                    match a.next_offset {
                        Some(n) => at = n as i64,
                        None => break true,
                    }
                }
                Err(_) => break false,
            }
        };
        let body = text.strip_prefix('\u{feff}').unwrap_or(text);
        row.check(ok && all == body, path.display().to_string());
    }
    row
}

/// Runs every suite under `root`.
pub fn run(root: &Path) -> Vec<Row> {
    vec![
        json_testsuite(root),
        csv_spectrum(root),
        tsv_utils(root),
        csvlint(root),
        w3c(root),
        clevercsv(root),
        system_tables(),
        utf8(root),
        rfc6901(root),
        jsonlines(root),
        read_suite(root),
        binary_containers(root),
        parquet_testing(root),
        calamine_spreadsheets(root),
    ]
}

/// A selected Parquet value as the text an expect file writes: numbers
/// and `$literal`s by their digits, null as an empty cell.
fn cell_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Object(m) => m
            .get("$literal")
            .and_then(Value::as_str)
            .map_or_else(|| v.to_string(), str::to_owned),
        other => other.to_string(),
    }
}

/// Every row of a Parquet file, paged through select.
fn parquet_rows(plumb: &plumb::Plumb, path: &Path) -> Result<Vec<Value>, String> {
    let source = plumb::FileSource::new(path).map_err(|r| r.to_string())?;
    let mut rows = Vec::new();
    let mut offset = 0;
    loop {
        let req = Request {
            window: Window {
                offset: Some(offset),
                limit: Some(1000),
                from_end: None,
            },
            ..Request::default()
        };
        let a = plumb
            .run_source(Op::Select, &source, None, &req)
            .map_err(|r| r.to_string())?
            .to_json();
        let got = a["rows"].as_array().cloned().unwrap_or_default();
        offset += got.len() as u64;
        rows.extend(got);
        if a["has_more"] != Value::Bool(true) {
            return Ok(rows);
        }
    }
}

/// parquet-testing: every file in `data/` that is not encrypted inspects,
/// selects and validates (the two with a corrupt checksum are found
/// invalid, naming it), with the values of its `_expect.csv` where it
/// has one; every file in `bad_data/` is refused or found invalid; the
/// encrypted files are refused naming encryption, or (a plaintext
/// footer) inspected and their pages refused.
fn parquet_testing(root: &Path) -> Row {
    let mut row = Row::new("parquet-testing");
    let mut plumb = plumb::Plumb::new();
    plumb.registry_mut().register(plumb_parquet::ParquetReader);
    let dir = root.join("parquet-testing");
    let mut paths = Vec::new();
    walk(&dir.join("data"), &mut paths);
    walk(&dir.join("bad_data"), &mut paths);
    paths.sort();
    for path in paths {
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        let head = std::fs::read(&path)
            .map(|b| b.get(..4).map(<[u8]>::to_vec).unwrap_or_default())
            .unwrap_or_default();
        if head != b"PAR1" && head != b"PARE" {
            continue;
        }
        let Ok(source) = plumb::FileSource::new(&path) else {
            row.check(false, format!("{name}: not opened"));
            continue;
        };
        let run = |op: Op| plumb.run_source(op, &source, None, &Request::default());
        let validate = run(Op::Validate).map(|a| a.to_json());
        let select = run(Op::Select);
        let inspect = run(Op::Inspect);
        if name.contains("encrypt") || head == b"PARE" {
            let named = |r: &plumb_core::Refusal| {
                r.reason() == RefusalReason::UnsupportedFormat
                    && (r.extra("found") == Some(&Value::from("parquet-encrypted"))
                        || r.message().contains("encrypt"))
            };
            let ok = match (&inspect, &select) {
                (Err(a), Err(b)) => named(a) && named(b),
                // A plaintext footer: its figures read, its pages do not.
                (Ok(_), Err(b)) => matches!(
                    b.reason(),
                    RefusalReason::InvalidData | RefusalReason::UnsupportedFormat
                ),
                _ => false,
            };
            row.check(ok, format!("{name}: an encrypted file was not refused"));
            continue;
        }
        if name.starts_with("bad_data") {
            let refused = |r: &Result<Box<dyn plumb_core::Answer>, plumb_core::Refusal>| {
                r.as_ref().is_err_and(|e| {
                    matches!(
                        e.reason(),
                        RefusalReason::InvalidData
                            | RefusalReason::UnsupportedFormat
                            | RefusalReason::SelectionTooLarge
                    )
                })
            };
            let found = match &validate {
                Ok(a) => a["valid"] == Value::Bool(false),
                Err(_) => false,
            };
            // ARROW-GH-43605 is a reader's bug report, not a bad file: a
            // dictionary index bit width of 0 is every index 0, as
            // parquet-format allows; docs/conformance.md says so.
            if name.contains("ARROW-GH-43605") {
                row.documented(
                    validate
                        .as_ref()
                        .is_ok_and(|a| a["valid"] == Value::Bool(true)),
                    format!("{name}: read as valid"),
                );
                continue;
            }
            row.check(
                found || refused(&select) || refused(&inspect),
                format!("{name}: neither refused nor found invalid"),
            );
            continue;
        }
        if name.ends_with("dict-page-offset-zero.parquet") {
            // Impala wrote a list where parquet-format now has an i32
            // (ColumnMetaData field 15); the parquet crate refuses the
            // footer, and plumb says so (docs/conformance.md).
            row.documented(
                inspect
                    .as_ref()
                    .is_err_and(|r| r.reason() == RefusalReason::InvalidData),
                format!("{name}: not refused as invalid-data"),
            );
            continue;
        }
        if name.ends_with("nation.dict-malformed.parquet") {
            // Malformed on purpose (a truncated data page; Arrow's tests
            // expect the error): found invalid and refused, as
            // docs/conformance.md says.
            row.documented(
                validate
                    .as_ref()
                    .is_ok_and(|a| a["valid"] == Value::Bool(false))
                    && select
                        .as_ref()
                        .is_err_and(|r| r.reason() == RefusalReason::InvalidData),
                format!("{name}: its truncated page was not found"),
            );
            continue;
        }
        if name.ends_with("large_string_map.brotli.parquet") {
            // Two values of 2^30 bytes each, in pages that declare a
            // gigabyte once decompressed: past PARQUET_MAX_PAGE_BYTES, so
            // refused before the buffer exists, and validate finds the
            // page too large (docs/conformance.md).
            row.documented(
                select
                    .as_ref()
                    .is_err_and(|r| r.reason() == RefusalReason::SelectionTooLarge)
                    && inspect.is_ok()
                    && validate
                        .as_ref()
                        .is_ok_and(|a| a["valid"] == Value::Bool(false)),
                format!("{name}: its gigabyte pages were not refused"),
            );
            continue;
        }
        let corrupt = name.contains("corrupt-checksum");
        let verdict = match &validate {
            Ok(a) if corrupt => {
                a["valid"] == Value::Bool(false)
                    && a["fault"]["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("CRC"))
            }
            Ok(a) => a["valid"] == Value::Bool(true),
            Err(_) => false,
        };
        row.check(
            verdict,
            format!(
                "{name}: validate {:?}",
                validate.map(|a| a["fault"].clone())
            ),
        );
        row.check(inspect.is_ok(), format!("{name}: inspect refused"));
        row.check(
            corrupt || select.is_ok(),
            format!("{name}: select refused: {:?}", select.err()),
        );
        let expect = path.with_file_name(format!(
            "{}_expect.csv",
            path.file_stem().unwrap_or_default().to_string_lossy()
        ));
        if let Ok(bytes) = std::fs::read(&expect) {
            let ok = match (
                csv_rows(&bytes, b',', HeaderMode::Present),
                parquet_rows(&plumb, &path),
            ) {
                (Ok((_, want, _)), Ok(got)) => {
                    want.len() == got.len()
                        && want.iter().zip(&got).all(|(w, g)| {
                            let cells: Vec<String> = g
                                .as_object()
                                .map(|m| m.values().map(cell_text).collect())
                                .unwrap_or_default();
                            &cells == w
                        })
                }
                _ => false,
            };
            row.check(ok, format!("{name}: values differ from its _expect.csv"));
        }
    }
    row
}

/// calamine-spreadsheets: every workbook inspects, selects each of its
/// sheets and validates, or is refused with a typed reason (a
/// password-protected one naming that); the 1900 and 1904 date files of
/// each kind give the same ISO dates.
fn calamine_spreadsheets(root: &Path) -> Row {
    let mut row = Row::new("calamine-spreadsheets");
    let mut plumb = plumb::Plumb::new();
    for reader in plumb_sheets::SheetsReader::ALL {
        plumb.registry_mut().register(reader);
    }
    let mut paths = Vec::new();
    walk(&root.join("calamine-spreadsheets"), &mut paths);
    paths.sort();
    let typed = |r: &plumb_core::Refusal| {
        matches!(
            r.reason(),
            RefusalReason::InvalidData
                | RefusalReason::UnsupportedFormat
                | RefusalReason::SelectionTooLarge
        )
    };
    let mut dates: Vec<(String, Vec<Value>)> = Vec::new();
    for path in paths {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if !matches!(ext.as_str(), "xls" | "xlsx" | "xlsm" | "xlsb" | "ods") {
            continue;
        }
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let Ok(source) = plumb::FileSource::new(&path) else {
            row.check(false, format!("{name}: not opened"));
            continue;
        };
        let run = |op: Op, req: &Request| plumb.run_source(op, &source, None, req);
        let inspect = run(Op::Inspect, &Request::default());
        let validate = run(Op::Validate, &Request::default());
        if name.starts_with("pass_protected") {
            let named = |r: &Result<Box<dyn plumb_core::Answer>, plumb_core::Refusal>| {
                r.as_ref().is_err_and(|e| {
                    e.reason() == RefusalReason::UnsupportedFormat
                        && e.extra("found") == Some(&Value::from("encrypted-office"))
                })
            };
            row.check(
                named(&inspect) && named(&validate),
                format!("{name}: not refused as password-protected"),
            );
            continue;
        }
        match &inspect {
            Ok(a) => {
                let a = a.to_json();
                let sheets = a["sheets"].as_array().cloned().unwrap_or_default();
                for s in &sheets {
                    if s["described"] != Value::Bool(true) {
                        continue;
                    }
                    let mut req = Request::default();
                    req.options.set("sheet", s["index"].to_string());
                    match run(Op::Select, &req) {
                        Ok(sel) => {
                            let sel = sel.to_json();
                            let want = s["data_rows"].as_u64().unwrap_or(0).min(50);
                            row.check(
                                sel["returned"].as_u64() == Some(want)
                                    && sel["sheet"]["name"] == s["name"],
                                format!(
                                    "{name}: sheet {} selected {} rows, inspect counts {want}",
                                    s["index"], sel["returned"]
                                ),
                            );
                            if name.starts_with("date") && s["index"] == 0 {
                                let first: Vec<Value> = sel["rows"]
                                    .as_array()
                                    .map(|r| r.iter().map(|r| r[0].clone()).collect())
                                    .unwrap_or_default();
                                dates.push((name.clone(), first));
                            }
                        }
                        Err(r) => row.check(
                            s["error"].is_string() && typed(&r),
                            format!("{name}: sheet {} not selected: {r}", s["index"]),
                        ),
                    }
                }
                row.check(
                    validate.as_ref().is_ok_and(|v| {
                        v.to_json()["valid"]
                            == Value::Bool(sheets.iter().all(|s| s["error"].is_null()))
                    }),
                    format!("{name}: validate disagrees with inspect"),
                );
            }
            Err(r) => row.check(
                typed(r)
                    && (validate.as_ref().is_err_and(typed)
                        || validate
                            .as_ref()
                            .is_ok_and(|v| v.to_json()["valid"] == Value::Bool(false))),
                format!(
                    "{name}: refused as {r}, validate {:?}",
                    validate.as_ref().map(|v| v.to_json())
                ),
            ),
        }
    }
    // date.X and date_1904.X hold the same dates in the two systems;
    // every date file starts on 2021-01-01.
    let of = |n: &str| dates.iter().find(|(d, _)| d == n).map(|(_, v)| v);
    for ext in ["xlsx", "xls", "xlsb"] {
        let (a, b) = (of(&format!("date.{ext}")), of(&format!("date_1904.{ext}")));
        row.check(
            a.is_some() && a == b,
            format!("date.{ext} and date_1904.{ext} differ: {a:?} / {b:?}"),
        );
    }
    for (n, first) in &dates {
        row.check(
            first.first() == Some(&Value::from("2021-01-01")),
            format!("{n}: dates read as {first:?}"),
        );
    }
    row
}

/// Parquet files (parquet-testing) and spreadsheets (calamine's tests):
/// each is named for what its first bytes say it is, and none is read
/// as a text format, whatever its name; a spreadsheet that is not one
/// (calamine keeps a text file named `.xls`) is refused with a reason.
fn binary_containers(root: &Path) -> Row {
    let mut row = Row::new("binary containers");
    let plumb = plumb::Plumb::new();
    let mut files = Vec::new();
    for dir in ["parquet-testing", "calamine-spreadsheets"] {
        walk(&root.join(dir), &mut files);
    }
    files.sort();
    for path in files {
        let name = path.display().to_string();
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let expected: &[&str] = match ext.as_str() {
            "parquet" | "encrypted" if name.contains("parquet") => {
                &["parquet", "parquet-encrypted"]
            }
            "xls" | "xlsx" | "xlsm" | "xlsb" | "ods" => &["ole2", "xlsx", "ods", "ooxml", "zip"],
            _ => continue,
        };
        let Ok(source) = plumb::FileSource::new(&path) else {
            continue;
        };
        let first = plumb::Source::head(&source, plumb::SNIFF_BYTES).unwrap_or_default();
        match plumb.run_source(Op::Inspect, &source, None, &Request::default()) {
            Ok(answer) => row.check(false, format!("{name}: read as {}", answer.format())),
            Err(e) => {
                let found = e.extra("found").and_then(|v| v.as_str()).unwrap_or("");
                // A file whose bytes are not a container at all (a text
                // file named .xls) need only be refused.
                let container = plumb::identify(&first).is_some();
                row.check(
                    !container || expected.contains(&found),
                    format!("{name}: named `{found}`, expected one of {expected:?}"),
                );
            }
        }
    }
    row
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}
