//! The CSV and TSV suites: csv-spectrum, tsv-utils, csvlint, the W3C
//! CSV on the Web tests, CleverCSV's dialects and the system tables.

use std::path::Path;

use plumb_core::{Op, RefusalReason, Request, TextStream, Window};
use plumb_csv::{select, CsvFormat, CsvOptions, HeaderMode, SelectOptions};
use serde_json::{Map, Value};

use super::{files, read_json, Row};

/// A parsed CSV: header, rows, and issues as (kind, line).
pub(super) type Parsed = (Option<Vec<String>>, Vec<Vec<String>>, Vec<(String, u64)>);

pub(super) fn csv_rows(bytes: &[u8], delimiter: u8, header: HeaderMode) -> Result<Parsed, String> {
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
        if !r.window.has_more {
            break;
        }
        offset += n;
    }
    Ok((header_out, rows, issues))
}

pub(super) fn csv_spectrum(root: &Path) -> Row {
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

pub(super) fn to_tsv(rows: &[Vec<String>]) -> String {
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

pub(super) fn tsv_utils(root: &Path) -> Row {
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

pub(super) fn csvlint(root: &Path) -> Row {
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

pub(super) fn w3c(root: &Path) -> Row {
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

pub(super) fn clevercsv(root: &Path) -> Row {
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
pub(super) fn system_tables() -> Row {
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
