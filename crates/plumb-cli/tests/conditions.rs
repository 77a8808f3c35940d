//! A search by several conditions (`--conditions`, `--match`) gives the
//! same rows in every format that holds a table: one generated table
//! written as CSV, JSON Lines, a JSON array, Parquet (its times a typed
//! timestamp column) and xlsx, each searched through the binary, each
//! answer held to the test's own computation on the table's values
//! (times compared as seconds since the epoch, never as text).

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use serde_json::{json, Value};

/// One row of the table.
struct Row {
    id: i64,
    level: &'static str,
    /// Seconds since the epoch.
    at: i64,
    /// How `at` is written in the text formats: its offset from UTC in
    /// minutes, or none (a time without an offset is UTC).
    offset: Option<i64>,
    amount: Option<i64>,
}

/// The day count of a civil date (the test kit's walk of the calendar,
/// not the formula the reader uses).
fn days_before(year: i64, month: i64, day: i64) -> i64 {
    plumb_testkit::calendar::days_from_epoch(year, month, day)
}

/// `at` written at `offset` minutes from UTC, as ISO 8601.
fn iso(at: i64, offset: Option<i64>) -> String {
    let local = at + offset.unwrap_or(0) * 60;
    let (days, secs) = (local.div_euclid(86_400), local.rem_euclid(86_400));
    // Days in March 2024 only: the table's times lie in it.
    let day = days - days_before(2024, 3, 1) + 1;
    assert!((1..=31).contains(&day), "{day}");
    let clock = format!(
        "2024-03-{day:02}T{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    match offset {
        None => clock,
        Some(0) => format!("{clock}Z"),
        Some(m) => {
            let sign = if m < 0 { '-' } else { '+' };
            format!("{clock}{sign}{:02}:{:02}", m.abs() / 60, m.abs() % 60)
        }
    }
}

fn table() -> Vec<Row> {
    let start = days_before(2024, 3, 2) * 86_400;
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    (0..240)
        .map(|id| Row {
            id,
            level: ["info", "warn", "error"][next(3) as usize],
            at: start + next(3 * 86_400) as i64,
            offset: [None, Some(0), Some(120), Some(-330), Some(600)][next(5) as usize],
            amount: (next(6) != 0).then(|| next(2000) as i64),
        })
        .collect()
}

fn write_all(dir: &Path, rows: &[Row]) -> Vec<String> {
    let mut csv = String::from("id,level,ts,amount\n");
    let mut jsonl = String::new();
    let mut array = Vec::new();
    for r in rows {
        let ts = iso(r.at, r.offset);
        let amount = r.amount.map(|a| a.to_string()).unwrap_or_default();
        csv.push_str(&format!("{},{},{ts},{amount}\n", r.id, r.level));
        // JSON: a missing amount is sometimes null, sometimes no key.
        let mut record = json!({"id": r.id, "level": r.level, "ts": ts});
        match r.amount {
            Some(a) => record["amount"] = json!(a),
            None if r.id % 2 == 0 => record["amount"] = Value::Null,
            None => {}
        }
        jsonl.push_str(&format!("{record}\n"));
        array.push(record);
    }
    let path = |name: &str| dir.join(name).display().to_string();
    std::fs::write(path("t.csv"), csv).unwrap();
    std::fs::write(path("t.jsonl"), jsonl).unwrap();
    std::fs::write(path("t.json"), Value::Array(array).to_string()).unwrap();
    std::fs::write(path("t.parquet"), parquet_of(rows)).unwrap();
    let mut wb = rust_xlsxwriter::Workbook::new();
    let sheet = wb.add_worksheet();
    for (c, name) in ["id", "level", "ts", "amount"].into_iter().enumerate() {
        sheet.write(0, c as u16, name).unwrap();
    }
    for (i, r) in rows.iter().enumerate() {
        let at = i as u32 + 1;
        sheet.write(at, 0, r.id as f64).unwrap();
        sheet.write(at, 1, r.level).unwrap();
        sheet.write(at, 2, iso(r.at, r.offset)).unwrap();
        if let Some(a) = r.amount {
            sheet.write(at, 3, a as f64).unwrap();
        }
    }
    wb.save(path("t.xlsx")).unwrap();
    ["t.csv", "t.jsonl", "t.json", "t.parquet", "t.xlsx"]
        .into_iter()
        .map(path)
        .collect()
}

/// The table as Parquet, its times a UTC timestamp of milliseconds.
fn parquet_of(rows: &[Row]) -> Vec<u8> {
    let schema = "message t { required int64 id; required binary level (UTF8); \
                  required int64 ts (TIMESTAMP(MILLIS,true)); optional int64 amount; }";
    let schema = Arc::new(parse_message_type(schema).unwrap());
    let mut out = Vec::new();
    let props = Arc::new(WriterProperties::builder().build());
    let mut w = SerializedFileWriter::new(&mut out, schema, props).unwrap();
    // Two row groups, so a hit's row counts across them.
    for part in rows.chunks(rows.len() / 2 + 1) {
        let mut group = w.next_row_group().unwrap();
        let mut col = group.next_column().unwrap().unwrap();
        let ids: Vec<i64> = part.iter().map(|r| r.id).collect();
        col.typed::<Int64Type>()
            .write_batch(&ids, None, None)
            .unwrap();
        col.close().unwrap();
        let mut col = group.next_column().unwrap().unwrap();
        let levels: Vec<ByteArray> = part.iter().map(|r| ByteArray::from(r.level)).collect();
        col.typed::<ByteArrayType>()
            .write_batch(&levels, None, None)
            .unwrap();
        col.close().unwrap();
        let mut col = group.next_column().unwrap().unwrap();
        let ts: Vec<i64> = part.iter().map(|r| r.at * 1000).collect();
        col.typed::<Int64Type>()
            .write_batch(&ts, None, None)
            .unwrap();
        col.close().unwrap();
        let mut col = group.next_column().unwrap().unwrap();
        let amounts: Vec<i64> = part.iter().filter_map(|r| r.amount).collect();
        let defs: Vec<i16> = part.iter().map(|r| i16::from(r.amount.is_some())).collect();
        col.typed::<Int64Type>()
            .write_batch(&amounts, Some(&defs), None)
            .unwrap();
        col.close().unwrap();
        group.close().unwrap();
    }
    w.close().unwrap();
    out
}

/// Whether a row is a hit, as the test computes it.
type Holds = Box<dyn Fn(&Row) -> bool>;

/// The row (record, element) numbers of a search's hits.
fn search(file: &str, args: &[&str]) -> (Vec<u64>, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_plumb"))
        .arg("search")
        .arg(file)
        .args(args)
        .args(["--json", "--limit", "1000"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ok"], true, "{file}: {v}");
    let hits = v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            ["row", "record", "index"]
                .iter()
                .find_map(|k| h[k].as_u64())
                .unwrap()
        })
        .collect();
    (hits, v)
}

#[test]
fn conditions_find_the_same_rows_in_every_table_format() {
    let dir = tempfile::tempdir().unwrap();
    let rows = table();
    let files = write_all(dir.path(), &rows);
    let t = |y: i64, m: i64, d: i64, h: i64| days_before(y, m, d) * 86_400 + h * 3600;
    let (from, to) = (t(2024, 3, 2, 12), t(2024, 3, 3, 6));
    let cases: Vec<(Vec<String>, &str, Holds)> = vec![
        (
            // Bounds written with offsets of their own, and as a date.
            vec![
                "level = error".into(),
                format!("ts >= {}", iso(from, Some(-60))),
                format!("ts < {}", iso(to, Some(180))),
            ],
            "all",
            Box::new(move |r: &Row| r.level == "error" && r.at >= from && r.at < to),
        ),
        (
            vec!["level = warn".into(), "amount > 1500".into()],
            "any",
            Box::new(|r: &Row| r.level == "warn" || r.amount.is_some_and(|a| a > 1500)),
        ),
        (
            vec![
                "amount is null".into(),
                "id < 120".into(),
                "ts < 2024-03-04".into(),
            ],
            "all",
            Box::new(move |r: &Row| r.amount.is_none() && r.id < 120 && r.at < t(2024, 3, 4, 0)),
        ),
        (
            vec!["level ~ ^er".into(), "\"amount\" <= 400".into()],
            "all",
            Box::new(|r: &Row| r.level == "error" && r.amount.is_some_and(|a| a <= 400)),
        ),
    ];
    for (conditions, mode, holds) in &cases {
        let expected: Vec<u64> = rows
            .iter()
            .filter(|r| holds(r))
            .map(|r| r.id as u64)
            .collect();
        assert!(
            expected.len() > 3 && expected.len() < rows.len() / 2,
            "a case that tells something: {conditions:?} {}",
            expected.len()
        );
        let mut args: Vec<&str> = Vec::new();
        for c in conditions {
            args.extend(["--conditions", c]);
        }
        args.extend(["--match", mode]);
        for file in &files {
            let (hits, v) = search(file, &args);
            assert_eq!(hits, expected, "{file} {conditions:?}");
            assert_eq!(v["total"], expected.len(), "{file}");
            assert_eq!(v["conditions"]["match"], *mode, "{file}");
            // The last five hits, counted first.
            let mut last = args.clone();
            last.extend(["--offset", "-5"]);
            let (hits, v) = search(file, &last);
            assert_eq!(hits, expected[expected.len() - 5..], "{file} last five");
            assert_eq!(v["passed_over"], expected.len() - 5, "{file}");
        }
    }
}

#[test]
fn conditions_are_refused_where_they_cannot_be_judged() {
    let dir = tempfile::tempdir().unwrap();
    let files = write_all(dir.path(), &table());
    let refused = |file: &str, args: &[&str], says: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_plumb"))
            .arg("search")
            .arg(file)
            .args(args)
            .arg("--json")
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["ok"], false, "{file} {args:?}: {v}");
        let message = v["message"].as_str().unwrap();
        assert!(message.contains(says), "{file} {args:?}: {message}");
    };
    // A table's column must be there; a record's field may be missing,
    // as in a search by `field`: then only `is null` holds.
    for table in [&files[0], &files[3], &files[4]] {
        refused(table, &["--conditions", "nope = 1"], "`nope`");
        // An index no row reaches, as a search by that column is.
        refused(
            table,
            &["--conditions", "level = x", "--conditions", "9 is null"],
            "9",
        );
    }
    for json in [&files[1], &files[2]] {
        let (hits, _) = search(
            json,
            &["--conditions", "nope is null", "--conditions", "id < 3"],
        );
        assert_eq!(hits, [0, 1, 2], "{json}");
    }
    for file in &files {
        refused(file, &["--conditions", "= 1"], "names nothing to test");
        refused(
            file,
            &["--conditions", "level = x", "--where", "= 1"],
            "cannot go with them",
        );
        refused(
            file,
            &["--match", "any", "--where", "= 1"],
            "give conditions too",
        );
    }
    let (csv, jsonl) = (&files[0], &files[1]);
    refused(
        csv,
        &["--conditions", "level = x", "--column", "level"],
        "leave column out",
    );
    refused(
        jsonl,
        &["--conditions", "level = x", "--field", "/level"],
        "leave field out",
    );
    let log = dir.path().join("t.log");
    std::fs::write(&log, "a line\n").unwrap();
    refused(
        &log.display().to_string(),
        &["--conditions", "level = x"],
        "not conditions",
    );
}
