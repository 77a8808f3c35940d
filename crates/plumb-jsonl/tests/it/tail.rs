//! `select` with a negative offset on JSON Lines: the last records, read
//! backwards from the end of a large file (no line numbers then) or from
//! the start of a small one, against a plain reading of the lines.

use plumb_core::{BytesSource, FormatReader, Request};
use plumb_jsonl::JsonlReader;
use proptest::prelude::*;
use serde_json::{json, Value};

fn tail(data: &[u8], offset: i64, limit: u64) -> Value {
    let source = BytesSource::new("t.jsonl", data.to_vec());
    let mut req = Request::default();
    req.set("offset", json!(offset)).unwrap();
    req.set("limit", json!(limit)).unwrap();
    JsonlReader.select(&source, &req).unwrap().to_json()
}

/// The records (non-blank lines) of `data`, parsed by serde_json.
fn records(data: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(data)
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A prefix past the size under which a file is read from the start.
fn prefix() -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..40_000 {
        out.extend(format!("{{\"i\":{i},\"pad\":\"{}\"}}\n", "p".repeat(i % 20)).as_bytes());
    }
    assert!(out.len() > 1024 * 1024);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn the_last_records_are_the_last_lines(
        tail_values in prop::collection::vec(
            (any::<i32>(), "[a-z\n\"\\\\]{0,8}", 0u8..3), 1..40),
        crlf in any::<bool>(),
        last_newline in any::<bool>(),
        n in 1usize..20,
    ) {
        let mut data = prefix();
        let end = if crlf { "\r\n" } else { "\n" };
        for (k, s, blanks) in &tail_values {
            data.extend(json!({"k": k, "s": s}).to_string().as_bytes());
            data.extend(end.as_bytes());
            for _ in 0..*blanks {
                data.extend(end.as_bytes());
            }
        }
        if !last_newline {
            while data.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                data.pop();
            }
        }
        let got = tail(&data, -(n as i64), n as u64);
        let all = records(&data);
        let want: Vec<Value> = all[all.len() - n..].to_vec();
        let values: Vec<Value> = got["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["value"].clone())
            .collect();
        prop_assert_eq!(values, want);
        prop_assert_eq!(&got["counted_from_end"], &json!(true));
        prop_assert!(got["records"].as_array().unwrap().iter().all(|r| r["line"].is_null()));
        prop_assert_eq!(&got["offset"], &Value::Null);
    }
}

#[test]
fn a_small_file_keeps_its_line_numbers() {
    let data = b"{\"a\":1}\n\n{\"a\":2}\nnot json\n{\"a\":3}\n";
    let got = tail(data, -2, 10);
    assert_eq!(got["counted_from_end"], false);
    assert_eq!(got["offset"], 2);
    assert_eq!(got["records"][0]["line"], 4);
    assert!(
        got["records"][0]["error"].is_string(),
        "a broken record in its place"
    );
    assert_eq!(
        got["records"][1],
        json!({"line": 5, "value": {"a": 3}, "truncated": false})
    );
    // More than there are: all of them.
    let got = tail(data, -10, 2);
    assert_eq!(got["offset"], 0);
    assert_eq!(got["returned"], 2);
    assert_eq!(got["has_more"], true);
}
