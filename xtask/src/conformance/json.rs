//! The JSON and text suites: JSONTestSuite, UTF-8 vectors, RFC 6901
//! pointers, JSON Lines cases and `read` paging.

use std::path::Path;

use plumb::read::{read_source, ReadRequest};
use plumb_core::{BytesSource, Op, Options, RefusalReason, Request, TextStream};
use serde_json::Value;

use super::{files, read_json, Row};

pub(super) fn json_testsuite(root: &Path) -> Row {
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

/// The fatal decoder alone: no binary sniff (the vectors hold NUL, which
/// is well-formed UTF-8), no BOM handling.
pub(super) fn stream_offset(bytes: &[u8]) -> Option<u64> {
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

pub(super) fn utf8(root: &Path) -> Row {
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

pub(super) fn pointer_select(doc: &Value, pointer: &str) -> Result<Value, RefusalReason> {
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

pub(super) fn rfc6901(root: &Path) -> Row {
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

pub(super) fn jsonlines(root: &Path) -> Row {
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

pub(super) fn read_suite(root: &Path) -> Row {
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
