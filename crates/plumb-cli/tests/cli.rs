//! Runs the built `plumb` binary: JSON shapes, exit codes, plain output.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};

fn plumb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_plumb"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

fn json_of(out: &Output) -> Value {
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1, "exactly one JSON object: {text}");
    serde_json::from_str(&text).unwrap()
}

fn sample() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data/people.csv")
        .display()
        .to_string()
}

#[test]
fn inspect_json_shape_and_exit_zero() {
    let out = plumb(&["inspect", &sample(), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["ok"], true);
    assert_eq!(v["format"], "csv");
    assert_eq!(v["row_count"], 5);
    assert_eq!(
        v["view"],
        serde_json::json!({"exact": true, "sampled": false, "converted": false})
    );
    for field in [
        "delimiter",
        "header",
        "columns",
        "ragged_rows",
        "issues",
        "blank_lines",
        "line_ending",
    ] {
        assert!(v.get(field).is_some(), "{field}");
    }
    let col = &v["columns"][3];
    for field in [
        "index",
        "name",
        "inferred_type",
        "empty",
        "sentinels",
        "classes",
        "samples",
        "min_length",
        "max_length",
        "min",
        "max",
        "precision",
    ] {
        assert!(col.get(field).is_some(), "column field {field}");
    }
    assert_eq!(col["sentinels"]["NA"], 1);
}

#[test]
fn select_json_shape() {
    let out = plumb(&[
        "select",
        &sample(),
        "--json",
        "--offset",
        "1",
        "--limit",
        "2",
        "--columns",
        "name,3",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(
        v["rows"],
        serde_json::json!([["bob", "NA"], ["Cy \"the kid\" Ray", "19"]])
    );
    assert_eq!(
        (
            v["offset"].clone(),
            v["limit"].clone(),
            v["returned"].clone(),
            v["has_more"].clone()
        ),
        (1.into(), 2.into(), 2.into(), true.into())
    );
    assert_eq!(v["header"], serde_json::json!(["name", "temperature"]));
}

#[test]
fn validate_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "a,b\n1,2,3\n").unwrap();
    let out = plumb(&["validate", bad.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1), "invalid file");
    let v = json_of(&out);
    assert_eq!(v["valid"], false);
    assert_eq!(v["ragged_rows"], 1);
    let out = plumb(&["validate", &sample()]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.starts_with("csv · valid ·"), "{text}");
}

#[test]
fn refusals_exit_two_with_a_json_refusal() {
    let out = plumb(&["inspect", "/no/such/file.csv", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v = json_of(&out);
    assert_eq!(v["ok"], false);
    assert_eq!(v["reason"], "not-found");
    let out = plumb(&["inspect", "/no/such/file.csv"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("refused (not-found)"));
    let out = plumb(&["inspect", &sample(), "--format", "xml", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["reason"], "unsupported-format");
    // A text file read as the binary format it was named: no footer.
    let out = plumb(&["inspect", &sample(), "--format", "parquet", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["reason"], "invalid-data");
    let out = plumb(&["inspect"]);
    assert_eq!(out.status.code(), Some(2), "usage error");
}

#[test]
fn detect_and_read() {
    let out = plumb(&["detect", &sample(), "--json"]);
    let v = json_of(&out);
    assert_eq!(
        (v["format"].clone(), v["by"].clone()),
        ("csv".into(), "extension".into())
    );
    let dir = tempfile::tempdir().unwrap();
    let prose = dir.path().join("notes.txt");
    std::fs::write(&prose, "just words\nmore words\n").unwrap();
    let v = json_of(&plumb(&["detect", prose.to_str().unwrap(), "--json"]));
    assert_eq!(v["format"], Value::Null);
    let out = plumb(&["read", prose.to_str().unwrap(), "--offset", "1", "--json"]);
    let v = json_of(&out);
    assert_eq!(v["text"], "more words\n");
    let out = plumb(&["read", prose.to_str().unwrap(), "--offset", "-1"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "more words\n");
    let out = plumb(&["read", prose.to_str().unwrap(), "--limit", "0", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["reason"], "invalid-argument");
}

#[test]
fn plain_output_is_not_json_and_has_tables() {
    let out = plumb(&["select", &sample(), "--limit", "2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(serde_json::from_str::<Value>(&text).is_err());
    assert!(text.contains("Ann Lee") && text.contains("──  "), "{text}");
    assert!(
        !text.contains("\x1b["),
        "no colour under NO_COLOR or off a terminal"
    );
}

#[test]
fn completions_print_a_script() {
    let out = plumb(&["completions", "bash"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("plumb"));
}

#[test]
fn a_closed_stdout_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.txt");
    std::fs::write(&big, "line of text\n".repeat(400)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_plumb"))
        .args(["read", big.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        status.code() == Some(0) || status.code().is_none(),
        "{status:?}"
    );
}

#[test]
fn flags_come_from_the_declarations_and_opt_sets_any_option() {
    // The flag and `--opt` spellings give the same answer.
    let flags = plumb(&[
        "select",
        &sample(),
        "--json",
        "--limit",
        "1",
        "--columns",
        "name",
    ]);
    let opts = plumb(&[
        "select",
        &sample(),
        "--json",
        "--opt",
        "limit=1",
        "--opt",
        "columns=name",
    ]);
    assert_eq!(flags.status.code(), Some(0));
    assert_eq!(json_of(&flags), json_of(&opts));
    // Help lists each reader option with the formats that declare it,
    // and only on the ops that take it.
    let help = String::from_utf8(plumb(&["select", "--help"]).stdout).unwrap();
    assert!(
        help.contains("--pointer") && help.contains("json: "),
        "{help}"
    );
    assert!(
        help.contains("csv, tsv, parquet, xlsx, xlsb, xls, ods: columns to keep"),
        "{help}"
    );
    // The shared limit states the default of the op it is shown on.
    let limit_line = |help: &str| {
        help.lines()
            .find(|l| l.trim_start().starts_with("--limit"))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(limit_line(&help).ends_with("[default: 50]"), "{help}");
    let search_help = String::from_utf8(plumb(&["search", "--help"]).stdout).unwrap();
    let line = limit_line(&search_help);
    assert!(line.ends_with("[default: 20]"), "{search_help}");
    let bare = plumb(&["search", &sample(), "--json", "--where", "is not empty"]);
    assert_eq!(json_of(&bare)["limit"], 20);
    let help = String::from_utf8(plumb(&["inspect", "--help"]).stdout).unwrap();
    assert!(
        !help.contains("--columns") && help.contains("--sample-rows"),
        "{help}"
    );
    // Issue 18 made --pointer an inspect option too (JSON at a pointer).
    assert!(
        help.contains("--pointer") && help.contains("--outline-paths"),
        "{help}"
    );
    // A value of the wrong type, and an option the format does not take.
    let bad = plumb(&["select", &sample(), "--json", "--opt", "limit=many"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(json_of(&bad)["message"]
        .as_str()
        .unwrap()
        .contains("takes a whole number"));
    let other = plumb(&["select", &sample(), "--json", "--opt", "pointer=/a"]);
    assert_eq!(other.status.code(), Some(2));
    let message = json_of(&other)["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("it is an option of json") && message.contains("csv select takes:"),
        "{message}"
    );
}

#[test]
fn a_column_whose_name_holds_a_comma_can_be_selected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("places.csv");
    std::fs::write(&path, "id,\"city, country\",pop\n1,\"Lyon, FR\",500\n").unwrap();
    let out = plumb(&[
        "select",
        path.to_str().unwrap(),
        "--json",
        "--columns",
        r#"["city, country", "id"]"#,
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v = json_of(&out);
    assert_eq!(v["header"], serde_json::json!(["city, country", "id"]));
    assert_eq!(v["rows"], serde_json::json!([["Lyon, FR", "1"]]));
}

/// Runs the binary with `input` on its standard input.
fn plumb_fed(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_plumb"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Fed from a thread: a command that stops reading early must not
    // block the test on a full pipe.
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

#[test]
fn standard_input_is_read_once_with_its_head_replayed() {
    let people = std::fs::read(sample()).unwrap();
    for op in ["inspect", "select", "validate"] {
        let from_file = json_of(&plumb(&[op, &sample(), "--json"]));
        let out = plumb_fed(&[op, "-", "--json"], &people);
        assert_eq!(json_of(&out), from_file, "{op}");
    }
    // A large stream, piped: every row, read once.
    let mut big = String::from("id,v\n");
    for k in 0..200_000 {
        big.push_str(&format!("{k},x{k}\n"));
    }
    let v = json_of(&plumb_fed(&["validate", "-", "--json"], big.as_bytes()));
    assert_eq!(
        (v["valid"].clone(), v["rows_scanned"].clone()),
        (Value::from(true), Value::from(200_000))
    );
    // Compressed on the pipe: decoded, and said so.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, big.as_bytes()).unwrap();
    let v = json_of(&plumb_fed(
        &["validate", "-", "--json"],
        &gz.finish().unwrap(),
    ));
    assert_eq!(
        (v["container"].clone(), v["rows_scanned"].clone()),
        (Value::from("gzip"), Value::from(200_000))
    );
    // Reads forward stream; from the end a plain stream is read once to
    // its end, keeping only the last lines; and detect answers.
    let r = json_of(&plumb_fed(
        &["read", "-", "--offset", "2", "--limit", "1", "--json"],
        &people,
    ));
    assert_eq!(r["text"], "2,bob,Oslo,NA,2024-02-01,12\n");
    let out = plumb_fed(&["read", "-", "--offset", "-2", "--json"], big.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let tail = json_of(&out);
    assert_eq!(tail["text"], "199998,x199998\n199999,x199999\n");
    assert_eq!(tail["from_end"], 2);
    let d = json_of(&plumb_fed(&["detect", "-", "--json"], &people));
    assert_eq!(d["format"], "csv");
}

#[cfg(unix)]
#[test]
fn a_fifo_named_on_the_command_line_is_read_as_a_stream() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.csv");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let people = std::fs::read(sample()).unwrap();
    let path = fifo.clone();
    let writer = std::thread::spawn(move || std::fs::write(&path, &people).unwrap());
    let v = json_of(&plumb(&["validate", fifo.to_str().unwrap(), "--json"]));
    writer.join().unwrap();
    assert_eq!(
        (v["valid"].clone(), v["rows_scanned"].clone()),
        (Value::from(true), Value::from(5))
    );
}

/// The answer without the fields a layer adds.
fn without(mut v: Value, keys: &[&str]) -> Value {
    if let Value::Object(m) = &mut v {
        for k in keys {
            m.remove(*k);
        }
    }
    v
}

#[test]
fn a_zip_member_is_named_by_option_or_by_archive_path() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let people = std::fs::read(sample()).unwrap();
    let zip_path = dir.path().join("a.zip");
    let mut w = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    w.start_file("in/people.csv", stored).unwrap();
    w.write_all(&people).unwrap();
    w.finish().unwrap();
    let archive = zip_path.display().to_string();
    let listing = json_of(&plumb(&["inspect", &archive, "--json"]));
    assert_eq!(listing["format"], "zip");
    assert_eq!(listing["members"][0]["name"], "in/people.csv");
    assert_eq!(listing["members"][0]["format"], "csv");
    assert_eq!(listing["members"][0]["size"], people.len());
    let by_path = format!("{archive}::in/people.csv");
    for op in ["inspect", "select", "validate"] {
        let want = json_of(&plumb(&[op, &sample(), "--json"]));
        let a = json_of(&plumb(&[op, &by_path, "--json"]));
        let b = json_of(&plumb(&[
            op,
            &archive,
            "--member",
            "in/people.csv",
            "--json",
        ]));
        assert_eq!(a, b, "{op}");
        assert_eq!(a["member"], "in/people.csv");
        assert_eq!(without(a, &["member", "offsets"]), want, "{op}");
    }
    let d = json_of(&plumb(&["detect", &by_path, "--json"]));
    assert_eq!(
        (d["format"].clone(), d["member"].clone()),
        (Value::from("csv"), Value::from("in/people.csv"))
    );
    let read = json_of(&plumb(&["read", &by_path, "--offset", "-1", "--json"]));
    assert_eq!(read["member"], "in/people.csv");
    assert_eq!(
        read["text"],
        json_of(&plumb(&["read", &sample(), "--offset", "-1", "--json"]))["text"]
    );
    // Two different members named at once; an archive on a pipe.
    let out = plumb(&["select", &by_path, "--member", "other.csv", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["reason"], "invalid-argument");
    let out = plumb_fed(
        &["inspect", "-", "--json"],
        &std::fs::read(&zip_path).unwrap(),
    );
    assert_eq!(out.status.code(), Some(2));
    let refusal = json_of(&out);
    assert_eq!(refusal["reason"], "invalid-argument");
    assert!(refusal["message"]
        .as_str()
        .unwrap()
        .contains("random access"));
}

#[test]
fn other_encodings_by_byte_order_mark_and_by_option() {
    let dir = tempfile::tempdir().unwrap();
    let people = std::fs::read_to_string(sample()).unwrap();
    let mut utf16 = vec![0xFE, 0xFF];
    for unit in people.encode_utf16() {
        utf16.extend(unit.to_be_bytes());
    }
    let p16 = dir.path().join("people16.csv");
    std::fs::write(&p16, &utf16).unwrap();
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend(people.as_bytes());
    let p8 = dir.path().join("people8.csv");
    std::fs::write(&p8, &with_bom).unwrap();
    for op in ["inspect", "select", "validate"] {
        let want = json_of(&plumb(&[op, p8.to_str().unwrap(), "--json"]));
        let got = json_of(&plumb(&[op, p16.to_str().unwrap(), "--json"]));
        assert_eq!(got["encoding"], "utf-16be");
        assert_eq!(without(got, &["encoding"]), want, "{op}");
    }
    let latin = dir.path().join("latin.txt");
    std::fs::write(&latin, b"caf\xe9\nna\xefve\n").unwrap();
    let latin = latin.to_str().unwrap();
    let out = plumb(&["read", latin, "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["suggested_encoding"], "windows-1252");
    let read = json_of(&plumb(&["read", latin, "--encoding", "latin1", "--json"]));
    assert_eq!(read["text"], "café\nnaïve\n");
    assert_eq!(read["encoding"], "windows-1252");
    let out = plumb(&["read", latin, "--encoding", "klingon", "--json"]);
    assert_eq!(json_of(&out)["reason"], "invalid-argument");
}

#[test]
fn search_each_format_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    std::fs::write(&log, "start\nerror: disk full\nok\nERROR: net\n").unwrap();
    let log = log.display().to_string();
    // Text, as grep -n prints it; the count on stderr.
    let out = plumb(&["search", &log, "error", "-i"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "2:error: disk full\n4:ERROR: net\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 matching lines"));
    let v = json_of(&plumb(&["search", &log, "error", "--limit", "1", "--json"]));
    assert_eq!(
        (v["format"].clone(), v["next_offset"].clone()),
        ("text".into(), Value::Null)
    );
    assert_eq!(v["hits"][0]["line"], 2);
    let v = json_of(&plumb(&["search", &log, "e", "--limit", "1", "--json"]));
    assert_eq!(
        v["next_offset"], 3,
        "the 0-based line of the next hit (net)"
    );
    let v = json_of(&plumb(&[
        "search",
        &log,
        "-c",
        "--where",
        "is not empty",
        "--json",
    ]));
    assert_eq!(
        (v["total"].clone(), v["total_exact"].clone()),
        (4.into(), true.into())
    );
    // CSV rows by a column predicate.
    let v = json_of(&plumb(&[
        "search",
        &sample(),
        "--column",
        "0",
        "--where",
        ">= 4",
        "--json",
    ]));
    assert_eq!(v["format"], "csv");
    let rows = |v: &Value| -> Vec<u64> {
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["row"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(rows(&v), [3, 4]);
    // JSON Lines records and JSON elements by a field.
    let jl = dir.path().join("e.jsonl");
    std::fs::write(&jl, "{\"s\": \"failed\"}\n{\"s\": \"ok\"}\n").unwrap();
    let v = json_of(&plumb(&[
        "search",
        &jl.display().to_string(),
        "--field",
        "/s",
        "--where",
        "= failed",
        "--json",
    ]));
    assert_eq!(v["hits"][0]["record"], 0);
    let js = dir.path().join("e.json");
    std::fs::write(&js, "{\"items\": [{\"s\": \"ok\"}, {\"s\": \"failed\"}]}").unwrap();
    let v = json_of(&plumb(&[
        "search",
        &js.display().to_string(),
        "fail",
        "--pointer",
        "/items",
        "--field",
        "/s",
        "--json",
    ]));
    assert_eq!(v["hits"][0]["index"], 1);
    // Spreadsheet rows by a column; a person sees them under the sheet's
    // column names, with the sheet row as Excel numbers it.
    let xl = dir.path().join("b.xlsx");
    let mut wb = rust_xlsxwriter::Workbook::new();
    let sheet = wb.add_worksheet();
    sheet.write(0, 0, "who").unwrap();
    sheet.write(0, 1, "n").unwrap();
    for (r, n) in [2.0, 8.0, 11.0].into_iter().enumerate() {
        sheet.write(r as u32 + 1, 0, format!("p{r}")).unwrap();
        sheet.write(r as u32 + 1, 1, n).unwrap();
    }
    wb.save(&xl).unwrap();
    let xl = xl.display().to_string();
    let v = json_of(&plumb(&[
        "search", &xl, "--column", "n", "--where", "> 5", "--json",
    ]));
    assert_eq!((v["format"].clone(), rows(&v)), (json!("xlsx"), vec![1, 2]));
    let out = plumb(&[
        "search", &xl, "--column", "n", "--where", "> 5", "--width", "0",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0]
            .split_whitespace()
            .eq(["row", "sheet", "row", "matched", "who", "n"]),
        "{text}"
    );
    assert!(
        lines[2].split_whitespace().eq(["1", "3", "n", "p1", "8"]),
        "{text}"
    );
    // Asked for as another format, a workbook is refused naming what it
    // is and the format that reads it.
    let v = json_of(&plumb(&["search", &xl, "x", "--format", "csv", "--json"]));
    assert_eq!(
        (v["reason"].clone(), v["found"].clone()),
        (json!("unsupported-format"), json!("xlsx"))
    );
    assert!(
        v["message"].as_str().unwrap().ends_with("or name xlsx"),
        "{v}"
    );
    // A bad regex is a refusal with the regex crate's message, exit 2.
    let out = plumb(&["search", &log, "(", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v = json_of(&out);
    assert_eq!(v["reason"], "invalid-argument");
    assert!(v["message"].as_str().unwrap().contains("unclosed group"));
}

/// JSON Lines validate of a file past `PARALLEL_MIN_BYTES` answers the
/// same with one thread and with several, valid or not (the fault is
/// reported with a sequential scan's line and message), inspect gives
/// the same facts, and `--threads` does not apply to select.
#[test]
fn threads_never_change_a_jsonl_validate_or_inspect_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    let mut i = 0u64;
    while (text.len() as u64) < plumb_jsonl::PARALLEL_MIN_BYTES + (1 << 20) {
        text.push_str(&format!("{{\"id\":{i},\"name\":\"n{i}\",\"ok\":true}}\n"));
        if i % 1000 == 7 {
            text.push('\n');
        }
        i += 1;
    }
    let valid = dir.path().join("big.jsonl");
    std::fs::write(&valid, &text).unwrap();
    // A broken record three quarters in: in a later part with two threads.
    let at = text.len() * 3 / 4;
    let at = at + text[at..].find('\n').unwrap() + 1;
    let mut broken = text.clone();
    broken.insert_str(at, "{\"id\": oops}\n");
    let invalid = dir.path().join("broken.jsonl");
    std::fs::write(&invalid, &broken).unwrap();
    for (file, ok) in [(&valid, true), (&invalid, false)] {
        let one = same_on_any_threads("validate", file, &[], &["2", "3", "0"]);
        assert_eq!(one["valid"], ok);
        if ok {
            assert_eq!(one["rows_scanned"], i);
        }
        let facts = same_on_any_threads("inspect", file, &[], &["2", "3", "0"]);
        assert_eq!(facts["invalid_count"], u64::from(!ok));
        assert_eq!(facts["key_order"], serde_json::json!(["id", "name", "ok"]));
    }
    let refused = plumb(&[
        "select",
        valid.to_str().unwrap(),
        "--threads",
        "2",
        "--json",
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(json_of(&refused)["reason"], "invalid-argument");
}

/// CSV validate of a file past `CSV_PARALLEL_MIN_BYTES`, with quoted
/// line breaks throughout, answers the same on any number of threads,
/// clean or with a ragged row late in the file.
#[test]
fn threads_never_change_a_csv_validate_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("id,note,amount\n");
    let mut i = 0u64;
    while (text.len() as u64) < plumb_csv::CSV_PARALLEL_MIN_BYTES + (1 << 20) {
        text.push_str(&format!(
            "{i},\"two\nlines, \"\"quoted\"\"\",{}.5\n",
            i % 97
        ));
        i += 1;
    }
    let clean = dir.path().join("big.csv");
    std::fs::write(&clean, &text).unwrap();
    let at = text.len() * 4 / 5;
    // After a row's last field: a row starts there.
    let at = at + text[at..].find(".5\n").unwrap() + 3;
    let mut ragged = text.clone();
    ragged.insert_str(at, "7,short\n");
    let bad = dir.path().join("ragged.csv");
    std::fs::write(&bad, &ragged).unwrap();
    for (file, ok) in [(&clean, true), (&bad, false)] {
        let one = same_on_any_threads("validate", file, &[], &["2", "4", "0"]);
        assert_eq!(one["valid"], ok);
        let facts = same_on_any_threads("inspect", file, &[], &["2", "4", "0"]);
        assert_eq!(facts["issues"].as_array().unwrap().is_empty(), ok);
        let count = ["--column", "amount", "--where", "> 90", "--count-only"];
        let found = same_on_any_threads("search", file, &count, &["2", "4", "0"]);
        if ok {
            assert_eq!(one["rows_scanned"], i);
            assert_eq!(facts["row_count"], i);
            assert_eq!(facts["columns"][2]["max"], 96.5);
            // `{i % 97}.5` is over 90 for i % 97 in 90..=96.
            let over = (0..i).filter(|k| k % 97 >= 90).count();
            assert_eq!(found["total"], over);
        }
    }
}

/// `plumb OP FILE ARGS.. --json` on one thread and on each of
/// `threads`: every answer the same. The one-thread answer.
fn same_on_any_threads(op: &str, file: &Path, args: &[&str], threads: &[&str]) -> Value {
    let f = file.to_str().unwrap();
    let run = |n: &str| {
        let mut all = vec![op, f];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--threads", n, "--json"]);
        json_of(&plumb(&all))
    };
    let one = run("1");
    for n in threads {
        assert_eq!(run(n), one, "{op} {args:?} --threads {n}");
    }
    one
}

/// Search takes the source options every other data op takes: a file in
/// another encoding is searched once `--encoding` names it (as the
/// refusal without it advises), and an archive's member by `--member`.
#[test]
fn search_takes_the_encoding_and_member_options() {
    let dir = tempfile::tempdir().unwrap();
    let latin = dir.path().join("latin.csv");
    // "Señor" and "Málaga" in windows-1252: bytes no UTF-8 reader takes.
    std::fs::write(&latin, b"id,name,city\n1,Se\xf1or,M\xe1laga\n2,Ann,Paris\n").unwrap();
    let path = latin.display().to_string();
    let refused = plumb(&[
        "search", &path, "--column", "name", "--where", "= Señor", "--json",
    ]);
    let message = json_of(&refused)["message"].as_str().unwrap().to_owned();
    assert!(message.contains("encoding windows-1252"), "{message}");
    let found = plumb(&[
        "search",
        &path,
        "--column",
        "name",
        "--where",
        "= Señor",
        "--encoding",
        "windows-1252",
        "--json",
    ]);
    assert_eq!(found.status.code(), Some(0));
    let v = json_of(&found);
    assert_eq!(v["encoding"], "windows-1252");
    assert_eq!(v["total"], 1);
    assert_eq!(
        v["hits"][0]["cells"],
        serde_json::json!(["1", "Señor", "Málaga"])
    );
    let text = plumb(&[
        "search",
        &path,
        "M.laga",
        "--format",
        "text",
        "--encoding",
        "latin1",
        "--json",
    ]);
    assert_eq!(json_of(&text)["hits"][0]["line"], 2);

    let zip_path = dir.path().join("a.zip");
    {
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        zip.start_file("t.csv", stored).unwrap();
        std::io::Write::write_all(&mut zip, b"k,v\na,1\nb,2\na,3\n").unwrap();
        zip.finish().unwrap();
    }
    let zip = zip_path.display().to_string();
    let by_flag = plumb(&[
        "search", &zip, "--member", "t.csv", "--column", "k", "--where", "= a", "--json",
    ]);
    let v = json_of(&by_flag);
    assert_eq!(
        (v["member"].as_str(), v["total"].as_u64()),
        (Some("t.csv"), Some(2)),
        "{v}"
    );
}

fn parquet_sample() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data/people.parquet")
        .display()
        .to_string()
}

#[test]
fn parquet_through_the_binary() {
    // The same people as people.csv, written by pyarrow: the binary
    // reads them as the CSV's values, typed.
    let p = parquet_sample();
    let v = json_of(&plumb(&["inspect", &p, "--json"]));
    assert_eq!(v["format"], "parquet");
    assert_eq!(v["rows"], 5);
    let account = &v["columns"][5];
    assert_eq!(account["path"], "account");
    assert_eq!(account["statistics"]["null_count"], 1);
    assert_eq!(account["statistics"]["max"]["$literal"], "9007199254740993");
    let csv = json_of(&plumb(&["select", &sample(), "--json"]));
    let pq = json_of(&plumb(&["select", &p, "--json"]));
    let names: Vec<Value> = csv["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[1].clone())
        .collect();
    let pq_names: Vec<Value> = pq["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].clone())
        .collect();
    assert_eq!(names, pq_names);
    let last = json_of(&plumb(&[
        "select",
        &p,
        "--offset",
        "-1",
        "--columns",
        "id,joined",
        "--json",
    ]));
    assert_eq!(last["rows"], json!([{"id": 5, "joined": "2024-05-30"}]));
    assert_eq!(last["row_groups_read"], json!([1]));
    let v = json_of(&plumb(&["validate", &p, "--json"]));
    assert_eq!(v["valid"], true);
    // Search: rows by an exact predicate, as select shows them.
    let hits = json_of(&plumb(&[
        "search",
        &p,
        "--column",
        "account",
        "--where",
        "> 9007199254740992",
        "--json",
    ]));
    assert_eq!(hits["total"], 1);
    assert_eq!(hits["hits"][0]["row"], 0);
    assert_eq!(hits["hits"][0]["values"]["name"], "Ann Lee");
    let nulls = json_of(&plumb(&["search", &p, "--where", "is null", "--json"]));
    let rows: Vec<Value> = nulls["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| json!([h["row"], h["column"]]))
        .collect();
    assert_eq!(rows, [json!([1, "temperature"]), json!([3, "account"])]);
    // For a person: the summary line and a line per column.
    let text = String::from_utf8(plumb(&["inspect", &p]).stdout).unwrap();
    assert!(text.starts_with("parquet · "), "{text}");
    assert!(
        text.contains("5 rows") && text.contains("2024-01-15 … 2024-05-30"),
        "{text}"
    );
    // Named as a CSV, it is still Parquet; named CSV explicitly, refused
    // as what it is.
    let dir = tempfile::tempdir().unwrap();
    let named = dir.path().join("export.csv");
    std::fs::copy(&p, &named).unwrap();
    let named = named.display().to_string();
    let d = json_of(&plumb(&["detect", &named, "--json"]));
    assert_eq!(d["format"], "parquet", "{d}");
    let out = plumb(&["inspect", &named, "--format", "csv", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["found"], "parquet");
}

#[test]
fn spreadsheets_through_the_binary() {
    // The same people as people.csv, written by openpyxl, with a second
    // sheet of formulas and a merged region.
    let x = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data/people.xlsx")
        .display()
        .to_string();
    let d = json_of(&plumb(&["detect", &x, "--json"]));
    assert_eq!(d["format"], "xlsx");
    let v = json_of(&plumb(&["inspect", &x, "--json"]));
    assert_eq!(v["format"], "xlsx");
    let people = &v["sheets"][0];
    assert_eq!(people["header"], true);
    assert_eq!(people["data_rows"], 5);
    let types: Vec<&str> = people["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        ["integer", "text", "text", "number", "date", "mixed"]
    );
    let summary = &v["sheets"][1];
    assert_eq!(
        summary["formulas"]["functions"],
        json!(["AVERAGE", "COUNTA"])
    );
    assert_eq!(summary["merged"]["first"], json!(["A3:D3"]));
    // The names as the CSV has them.
    let csv = json_of(&plumb(&["select", &sample(), "--json"]));
    let xl = json_of(&plumb(&["select", &x, "--json"]));
    let col = |a: &Value, i: usize| -> Vec<Value> {
        a["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[i].clone())
            .collect()
    };
    assert_eq!(col(&csv, 1), col(&xl, 1));
    let last = json_of(&plumb(&[
        "select",
        &x,
        "--offset",
        "-1",
        "--columns",
        "joined,id",
        "--json",
    ]));
    assert_eq!(last["rows"], json!([["2024-05-30", 5]]));
    assert_eq!(last["first_row"], 6);
    let s = json_of(&plumb(&[
        "select", &x, "--sheet", "summary", "--header", "false", "--json",
    ]));
    assert_eq!(s["sheet"]["name"], "summary");
    assert_eq!(s["rows"][0][0], "people");
    let v = json_of(&plumb(&["validate", &x, "--json"]));
    assert_eq!(v["valid"], true);
    assert_eq!(v["sheets"], 2);
    // For a person: a summary line, then each sheet with its columns.
    let text = String::from_utf8(plumb(&["inspect", &x]).stdout).unwrap();
    assert!(text.starts_with("xlsx · "), "{text}");
    assert!(
        text.contains("sheet 0 people") && text.contains("joined"),
        "{text}"
    );
    // An unknown sheet is refused naming those there are.
    let out = plumb(&["select", &x, "--sheet", "nope", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["available"], json!(["people", "summary"]));
}

#[test]
fn a_remote_object_reads_as_the_local_file() {
    let server = plumb_testkit::http::Server::start();
    let body = std::fs::read(sample()).unwrap();
    server.put("/people.csv", body);
    let url = server.url("/people.csv");
    for args in [
        vec!["select", "--offset", "-2"],
        vec!["inspect"],
        vec!["validate"],
    ] {
        let mut remote_args = args.clone();
        remote_args.extend([url.as_str(), "--json"]);
        let mut local_args = args.clone();
        let local = sample();
        local_args.extend([local.as_str(), "--json"]);
        let mut r = json_of(&plumb(&remote_args));
        let l = json_of(&plumb(&local_args));
        let remote = r.as_object_mut().unwrap().remove("remote").unwrap();
        assert_eq!(remote["url"], url.as_str());
        assert!(remote["bytes_fetched"].as_u64().unwrap() > 0);
        assert_eq!(r, l, "{args:?}");
    }
    let text =
        String::from_utf8(plumb(&["read", &url, "--offset", "-1", "--json"]).stdout).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["text"], "5,Eve,Kyoto,22.75,2024-05-30,42\n");
    assert_eq!(
        v["remote"]["size"],
        std::fs::metadata(sample()).unwrap().len()
    );
    // A missing object is not-found; a URL with a password is refused
    // without echoing it.
    let out = plumb(&["inspect", &server.url("/nope.csv"), "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["reason"], "not-found");
    let out = plumb(&["inspect", "https://u:sekret123@example.com/x.csv", "--json"]);
    assert_eq!(json_of(&out)["reason"], "invalid-argument");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("sekret123"));
}

/// `plumb` with the environment of a store's tools: every variable of
/// the three stores' own removed first, `vars` set.
fn plumb_env(args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_plumb"));
    for (k, _) in std::env::vars() {
        if k.starts_with("AWS_") || k.starts_with("GOOGLE_") || k.starts_with("AZURE_") {
            cmd.env_remove(k);
        }
    }
    cmd.args(args).envs(vars.iter().copied()).output().unwrap()
}

#[test]
fn gs_and_s3_urls_read_through_their_stores_apis() {
    // The test server answers the paths the stores' APIs ask for:
    // `/{bucket}/{key}` for GCS's XML API and path-style S3.
    let server = plumb_testkit::http::Server::start();
    server.put(
        "/plumb-data/samples/people.csv",
        std::fs::read(sample()).unwrap(),
    );
    let local = json_of(&plumb(&["select", &sample(), "--offset", "-2", "--json"]));
    let gcs = [
        ("GOOGLE_BASE_URL", server.base.as_str()),
        ("GOOGLE_SKIP_SIGNATURE", "true"),
    ];
    let s3 = [
        ("AWS_ENDPOINT_URL", server.base.as_str()),
        ("AWS_SKIP_SIGNATURE", "true"),
    ];
    for (url, vars) in [
        ("gs://plumb-data/samples/people.csv", &gcs[..]),
        ("s3://plumb-data/samples/people.csv", &s3[..]),
    ] {
        let out = plumb_env(&["select", url, "--offset", "-2", "--json"], vars);
        let mut v = json_of(&out);
        let remote = v.as_object_mut().unwrap().remove("remote").unwrap();
        assert_eq!(v, local, "{url}");
        assert_eq!(remote["url"], url);
        let out = plumb_env(
            &["inspect", &url.replace("people", "nobody"), "--json"],
            vars,
        );
        assert_eq!(json_of(&out)["reason"], "not-found", "{url}");
    }
    // A tuning variable out of its range is refused, named.
    let mut vars = s3.to_vec();
    vars.push(("PLUMB_REMOTE_READ_AHEAD", "99"));
    let out = plumb_env(
        &["inspect", "s3://plumb-data/samples/people.csv", "--json"],
        &vars,
    );
    let v = json_of(&out);
    assert_eq!(v["reason"], "invalid-argument", "{v}");
    assert!(v["message"]
        .as_str()
        .unwrap()
        .contains("PLUMB_REMOTE_READ_AHEAD"));
}

/// One agent call through `plumb tool`, with extra flags.
fn tool_call(flags: &[&str], call: &Value) -> Value {
    use std::io::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_plumb"))
        .arg("tool")
        .arg("--root")
        .arg(dir.path())
        .args(flags)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(call.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_agent_surface_reads_remote_objects_only_under_allowed_prefixes() {
    let server = plumb_testkit::http::Server::start();
    server.put("/data/people.csv", std::fs::read(sample()).unwrap());
    server.put("/private/keys.csv", b"secret,1\n".to_vec());
    let select =
        |path: &str| json!({"tool": "data", "args": {"op": "select", "path": path, "offset": -1}});
    let allowed = format!("{}/data", server.base);
    // Without an allow-list, a URL is refused.
    let v = tool_call(&[], &select(&server.url("/data/people.csv")));
    assert_eq!(v["refusal"]["reason"], "outside-root", "{v}");
    // Under an allowed prefix it reads, by the data and read tools.
    let flags = ["--allow-remote", allowed.as_str()];
    let v = tool_call(&flags, &select(&server.url("/data/people.csv")));
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["result"]["rows"][0][1], "Eve");
    let v = tool_call(
        &flags,
        &json!({"tool": "read", "args": {"path": server.url("/data/people.csv"), "offset": -1}}),
    );
    assert_eq!(
        v["result"]["text"], "5,Eve,Kyoto,22.75,2024-05-30,42\n",
        "{v}"
    );
    // Escapes, judged on the parsed URL, are refused and read nothing.
    let before = server
        .state
        .requests
        .load(std::sync::atomic::Ordering::Relaxed);
    for escape in [
        server.url("/private/keys.csv"),
        server.url("/data/../private/keys.csv"),
        server.url("/data/%2e%2e/private/keys.csv"),
        server.url("/data%2F..%2Fprivate/keys.csv"),
        server.url("/database/keys.csv"),
        server
            .url("/data/people.csv")
            .replace("http://", "http://user:pw@"),
        server
            .url("/data/people.csv")
            .replace("127.0.0.1", "localhost"),
    ] {
        let v = tool_call(&flags, &select(&escape));
        assert_eq!(v["ok"], false, "{escape}: {v}");
        assert!(!v.to_string().contains("secret,1"), "{escape}: {v}");
    }
    assert_eq!(
        server
            .state
            .requests
            .load(std::sync::atomic::Ordering::Relaxed),
        before
    );
    // A redirect from an allowed prefix to elsewhere is not followed.
    let other = plumb_testkit::http::Server::start();
    other.put("/data/people.csv", b"leaked,1\n".to_vec());
    *server.state.redirect.lock().unwrap() = Some(other.base.clone());
    let v = tool_call(&flags, &select(&server.url("/data/people.csv")));
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(
        other
            .state
            .requests
            .load(std::sync::atomic::Ordering::Relaxed),
        0
    );
}
