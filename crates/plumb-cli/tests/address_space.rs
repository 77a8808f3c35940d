//! The built binary on crafted hostile files, each run under an
//! address-space limit (`ulimit -v`), so a claim a reader trusted fails
//! this test, not the machine: every op gives a typed answer or refusal
//! (exit 0, 1 or 2 with JSON on stdout), never an abort or a signal, and
//! ends within a stated time.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The address space each run may map: the binary, its threads' stacks
/// and allocator arenas fit with room to spare; a trusted claim of
/// gigabytes does not.
const ADDRESS_SPACE_KIB: u64 = 2 << 20;

/// The time one run may take.
const RUN_SECONDS: u64 = 60;

/// Runs `plumb ARGS --json` under the limit; the exit code and the JSON.
fn limited(args: &[&str]) -> (i32, Value, Duration) {
    let started = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {ADDRESS_SPACE_KIB}; exec \"$0\" \"$@\" --json"
        ))
        .arg(env!("CARGO_BIN_EXE_plumb"))
        .args(args)
        .output()
        .unwrap();
    let took = started.elapsed();
    let code = out.status.code().unwrap_or_else(|| {
        panic!(
            "{args:?} ended by a signal: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: exit {code}, no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (code, json, took)
}

fn xlsx(parts: &[(&str, &str)]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, text) in parts {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn hostile_files(dir: &Path) -> Vec<(String, Option<&'static str>)> {
    use plumb_testkit::parquet as pq;
    let mut files = Vec::new();
    let mut put = |name: &str, bytes: Vec<u8>, reason: Option<&'static str>| {
        std::fs::write(dir.join(name), bytes).unwrap();
        files.push((dir.join(name).to_string_lossy().into_owned(), reason));
    };
    put(
        "dict.parquet",
        pq::dictionary_file(i32::MAX, vec![1, 0, 0, 0]),
        Some("invalid-data"),
    );
    put(
        "claim.parquet",
        pq::page_claim_file(10),
        Some("selection-too-large"),
    );
    put(
        "nested.parquet",
        pq::nested_schema_file(10_000),
        Some("nesting-too-deep"),
    );
    // A run of a 64 KiB value a billion times: answered within the
    // budget the runs below give.
    put(
        "run.parquet",
        pq::dictionary_run_file(64 << 10, 1 << 30),
        None,
    );
    let book = |shared: &str| {
        xlsx(&[
            ("[Content_Types].xml", "<Types/>"),
            ("xl/workbook.xml", "<workbook xmlns:r=\"r\"><sheets><sheet name=\"S\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>"),
            ("xl/_rels/workbook.xml.rels", "<Relationships><Relationship Id=\"rId1\" Type=\"worksheet\" Target=\"worksheets/sheet1.xml\"/></Relationships>"),
            ("xl/worksheets/sheet1.xml", "<worksheet><sheetData><row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c></row></sheetData></worksheet>"),
            ("xl/sharedStrings.xml", shared),
        ])
    };
    put(
        "strings.xlsx",
        book("<sst uniqueCount=\"99999999999999\"><si><t>a</t></si></sst>"),
        Some("selection-too-large"),
    );
    // A zstd stream of 256 MiB of one row, read within the budget.
    let mut z = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    for _ in 0..(256 << 10) {
        z.write_all(&b"0,0\n".repeat(256)).unwrap();
    }
    put("bomb.csv.zst", z.finish().unwrap(), None);
    files
}

#[test]
fn every_op_on_every_hostile_file_answers_or_refuses_within_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    for (path, reason) in hostile_files(dir.path()) {
        for op in ["inspect", "select", "validate", "search"] {
            let mut args = vec![op, path.as_str()];
            if op == "search" {
                args.push("zz");
            }
            if op != "select" {
                args.extend(["--max-scan-bytes", "67108864"]);
            }
            // Workbooks keep no statistics.
            if op == "inspect" && !path.ends_with(".xlsx") {
                args.push("--stats");
            }
            let (code, json, took) = limited(&args);
            assert!(
                took < Duration::from_secs(RUN_SECONDS),
                "{args:?}: {took:?}"
            );
            match (code, reason) {
                (2, Some(want)) => assert_eq!(json["reason"], want, "{args:?}: {json}"),
                // A file that does not open is an invalid one to validate.
                (1, Some(_)) => assert_eq!(json["valid"], false, "{args:?}: {json}"),
                (0, None) => {
                    assert_eq!(json["ok"], true, "{args:?}: {json}");
                    if op != "select" {
                        assert_eq!(json["view"]["sampled"], true, "{args:?}: {json}");
                    }
                }
                _ => panic!("{args:?}: exit {code}: {json}"),
            }
        }
    }
}
