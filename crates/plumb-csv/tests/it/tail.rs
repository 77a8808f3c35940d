//! `select` with a negative offset: the last rows, read backwards from the
//! end, against Python's csv module and the `csv` crate on files with
//! quoted line breaks, CRLF, blank lines and a last line without a break;
//! and the cases where the end cannot be trusted, read from the start.

use std::process::Command;

use plumb_core::{BytesSource, FormatReader, Request};
use plumb_csv::CsvReader;
use proptest::prelude::*;
use serde_json::{json, Value};

/// Past the size under which a file is read from the start anyway.
const PREFIX_ROWS: usize = 70_000;

fn tail(data: &[u8], offset: i64, limit: Option<u64>) -> Value {
    let source = BytesSource::new("t.csv", data.to_vec());
    let mut req = Request::default();
    req.set("offset", json!(offset)).unwrap();
    if let Some(l) = limit {
        req.set("limit", json!(l)).unwrap();
    }
    CsvReader::CSV.select(&source, &req).unwrap().to_json()
}

/// The header, and the data rows of a long plain prefix followed by rows
/// with quoted breaks (LF and CRLF inside quotes), doubled quotes, CRLF
/// and LF endings, and blank lines.
fn generated(tail_rows: usize, last_newline: bool) -> Vec<u8> {
    let mut out = b"id,text,n\r\n".to_vec();
    for i in 0..PREFIX_ROWS {
        out.extend(format!("{i},plain {i},{}\r\n", i % 97).as_bytes());
    }
    for j in 0..tail_rows {
        let i = PREFIX_ROWS + j;
        let text = match j % 5 {
            0 => format!("\"two\nlines {i}\""),
            1 => format!("\"crlf\r\ninside, {i} \"\"quoted\"\"\""),
            2 => format!("\"\"\"{i}\"\"\""),
            3 => format!("simple {i}"),
            _ => format!("\"comma, {i}\""),
        };
        let end = if j % 2 == 0 { "\r\n" } else { "\n" };
        out.extend(format!("{i},{text},{}{end}", j % 13).as_bytes());
        if j % 7 == 6 {
            out.extend(b"\n");
        }
    }
    if !last_newline {
        while out.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            out.pop();
        }
    }
    out
}

/// The last `n` data rows Python's csv module reads, as JSON.
fn python_last(data: &[u8], n: usize) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    std::fs::write(&path, data).unwrap();
    let script = r#"
import csv, sys, json
rows = [r for r in csv.reader(open(sys.argv[1], newline='', encoding='utf-8')) if r][1:]
n = int(sys.argv[2])
print(json.dumps(rows[-n:] if n else []))
"#;
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(&path)
        .arg(n.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_last_rows_agree_with_python_csv() {
    for last_newline in [true, false] {
        let data = generated(60, last_newline);
        assert!(data.len() > 1024 * 1024, "past the read-whole size");
        for n in [1usize, 2, 3, 5, 7, 20, 60] {
            let got = tail(&data, -(n as i64), Some(n as u64));
            assert_eq!(
                got["rows"],
                python_last(&data, n),
                "n={n} newline={last_newline}"
            );
            assert_eq!(got["counted_from_end"], true, "read backwards: n={n}");
            assert_eq!(got["offset"], Value::Null);
            assert_eq!(got["from_end"], n);
            assert_eq!(got["has_more"], false);
            assert_eq!(got["header"], json!(["id", "text", "n"]));
        }
    }
}

#[test]
fn a_window_inside_the_tail_and_one_past_the_budget_of_lines() {
    let data = generated(60, true);
    // The default limit (50) caps a window from 60 before the end.
    let got = tail(&data, -60, None);
    assert_eq!(got["returned"], 50);
    assert_eq!(got["has_more"], true);
    // 10 rows from 30 before the end.
    let got = tail(&data, -30, Some(10));
    let last30 = python_last(&data, 30);
    assert_eq!(got["rows"], json!(last30.as_array().unwrap()[..10]));
    assert_eq!(got["has_more"], true);
    assert_eq!(got["returned"], 10);
    // Deep into the plain prefix: still from the end, still exact rows.
    let got = tail(&data, -1000, Some(3));
    let last = python_last(&data, 1000);
    assert_eq!(got["rows"], json!(last.as_array().unwrap()[..3]));
}

#[test]
fn more_rows_than_the_file_has_are_all_of_them_numbered_from_the_start() {
    let data = generated(10, true);
    let total = python_last(&data, usize::MAX >> 1)
        .as_array()
        .unwrap()
        .len();
    let got = tail(&data, -(total as i64 + 5), Some(2));
    assert_eq!(got["counted_from_end"], false);
    assert_eq!(got["offset"], 0);
    assert_eq!(got["rows"][0], json!(["0", "plain 0", "0"]));
    // A small file is read from the start: the offset is known.
    let small = b"a,b\n1,\"x\ny\"\n2,z\n3,w\n";
    let got = tail(small, -2, None);
    assert_eq!(got["counted_from_end"], false);
    assert_eq!(got["offset"], 1);
    assert_eq!(got["rows"], json!([["2", "z"], ["3", "w"]]));
}

#[test]
fn an_end_that_does_not_parse_alone_is_read_from_the_start() {
    // The file ends inside an unterminated quote: counting quotes from
    // the end guesses wrong, the parse of the guess shows it, and the
    // answer comes from a scan from the start.
    let mut data = generated(20, true);
    data.extend(b"99999,\"open quote\n1,2,3\n4,5,6\n");
    let got = tail(&data, -2, None);
    assert_eq!(got["counted_from_end"], false, "{got}");
    assert!(got["offset"].is_u64());
    let rows = got["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    // Whatever the engine makes of the broken end, it is the same as a
    // select from the start at that offset.
    let mut req = Request::default();
    req.set("offset", got["offset"].clone()).unwrap();
    req.set("limit", json!(2)).unwrap();
    let source = BytesSource::new("t.csv", data.clone());
    let forward = CsvReader::CSV.select(&source, &req).unwrap().to_json();
    assert_eq!(forward["rows"], got["rows"]);
}

#[test]
fn a_notice_in_the_tail_sends_it_to_the_start() {
    let mut data = generated(5, true);
    data.extend(b"1,\"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\",2\n3,4,5\n");
    let got = tail(&data, -2, None);
    assert_eq!(got["counted_from_end"], false);
    assert_eq!(got["rows"], python_last(&data, 2));
    assert_eq!(got["issues"][0]["kind"], "long-quoted-field");
}

#[test]
fn a_file_with_comments_is_read_from_the_start() {
    // A comment line may hold an odd quote, which would mislead the count
    // of quotes from the end.
    let mut data = b"# a note with an odd \" quote\n".to_vec();
    data.extend(generated(10, true));
    let got = tail(&data, -3, None);
    assert_eq!(got["counted_from_end"], false);
    assert_eq!(got["rows"], python_last(&generated(10, true), 3));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random rows after the long prefix: the rows read backwards are the
    /// `csv` crate's last rows, and the window is counted from the end.
    #[test]
    fn random_tails_match_the_csv_crate(
        cells in prop::collection::vec(
            // At most one break a cell: a field over CSV_LONG_FIELD_LINES
            // lines draws a notice, and any notice sends the tail to the
            // exact read from the start (tested above).
            prop::collection::vec("[a-c ,\"]{0,3}[\r\n]?[a-c ,\"]{0,3}", 3), 1..30),
        crlf in any::<bool>(),
        n in 1usize..12,
    ) {
        let mut data = generated(0, true);
        let end = if crlf { "\r\n" } else { "\n" };
        for row in &cells {
            let quoted: Vec<String> = row
                .iter()
                .map(|c| format!("\"{}\"", c.replace('"', "\"\"")))
                .collect();
            data.extend(quoted.join(",").as_bytes());
            data.extend(end.as_bytes());
        }
        let got = tail(&data, -(n as i64), None);
        let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(&data[..]);
        let all: Vec<Vec<String>> = reader
            .records()
            .map(|r| r.unwrap().iter().map(str::to_owned).collect())
            .collect();
        let want = &all[all.len().saturating_sub(n)..];
        prop_assert_eq!(&got["rows"], &json!(want));
        prop_assert_eq!(&got["counted_from_end"], &json!(true));
    }
}
