//! The binary suites: parquet-testing, calamine's spreadsheets and the
//! compressed and archived containers.

use std::path::Path;

use plumb_core::{Op, RefusalReason, Request, Window};
use plumb_csv::HeaderMode;
use serde_json::Value;

use super::csv::csv_rows;
use super::{walk, Row};

/// A selected Parquet value as the text an expect file writes: numbers
/// and `$literal`s by their digits, null as an empty cell.
pub(super) fn cell_text(v: &Value) -> String {
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
pub(super) fn parquet_rows(plumb: &plumb::Plumb, path: &Path) -> Result<Vec<Value>, String> {
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
pub(super) fn parquet_testing(root: &Path) -> Row {
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
        // Threads never change an answer: statistics gathered on one
        // thread and on four give the same answer or the same refusal.
        let stats_on = |threads: usize| {
            let req = Request {
                scan: plumb_core::ScanBounds {
                    threads: Some(threads),
                    ..plumb_core::ScanBounds::default()
                },
                options: plumb_core::Options::new().with("stats", true),
                ..Request::default()
            };
            match plumb.run_source(Op::Inspect, &source, None, &req) {
                Ok(a) => a.to_json().to_string(),
                Err(e) => format!("{}: {}", e.reason().as_str(), e.message()),
            }
        };
        row.check(
            stats_on(1) == stats_on(4),
            format!("{name}: statistics differ between one thread and four"),
        );
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
pub(super) fn calamine_spreadsheets(root: &Path) -> Row {
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
pub(super) fn binary_containers(root: &Path) -> Row {
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
