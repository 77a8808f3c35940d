//! Parquet files that lie about their sizes, made byte by byte: every op
//! answers or refuses with a typed reason, within a bounded heap. The
//! heap is capped for the whole binary, so a claim the reader trusted
//! would abort this test rather than take the machine's memory.

use plumb_core::{BytesSource, FormatReader, RefusalReason, Request};
use plumb_parquet::{ParquetReader, PARQUET_MAX_NESTING};
use plumb_testkit::parquet::{
    chunk_place_file, codes, delta_header, dictionary_file, many_row_groups_file,
    nested_schema_file, odd_claim_file, one_column_file, page_claim_file, OddClaim, Page,
};
use serde_json::Value;

#[global_allocator]
static ALLOC: plumb_testkit::CountingAlloc = plumb_testkit::CountingAlloc;

/// The heap one op on a hostile file may add.
const BOUND: usize = 32 << 20;

/// Holds the other tests off: the peak heap is the whole process's, so a
/// test that measures it runs alone, or what the tests beside it build
/// counts in its peak.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

fn cap_heap() {
    // The binary's own baseline is small; nothing here needs a gigabyte.
    plumb_testkit::limit_heap(1 << 30);
}

#[derive(Debug)]
enum Outcome {
    Answer(Value),
    Refused(RefusalReason, String),
}

/// Runs `op` on `bytes` on a thread of a 2 MiB stack (the size of the
/// MCP server's and rayon's threads), and returns its outcome and peak
/// heap.
fn run(op: &str, bytes: &[u8], req: Request) -> (Outcome, usize) {
    cap_heap();
    let source = BytesSource::new("h.parquet", bytes.to_vec());
    let op = op.to_owned();
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn_scoped(s, || {
                plumb_testkit::peak_during(|| {
                    let r = ParquetReader;
                    let out = match op.as_str() {
                        "inspect" => r.inspect(&source, &req),
                        "select" => r.select(&source, &req),
                        "validate" => r.validate(&source, &req),
                        "search" => r.search(&source, &req),
                        _ => unreachable!(),
                    };
                    match out {
                        Ok(a) => Outcome::Answer(a.to_json()),
                        Err(e) => Outcome::Refused(e.reason(), e.message().to_owned()),
                    }
                })
            })
            .unwrap()
            .join()
            .unwrap()
    })
}

fn search_req() -> Request {
    let mut req = Request::default();
    req.set("pattern", serde_json::json!("x")).unwrap();
    req
}

fn stats_req() -> Request {
    let mut req = Request::default();
    req.set("stats", serde_json::json!(true)).unwrap();
    req
}

/// Every op on `bytes`: each refuses with `reason` (validate answers
/// `valid: false` with a fault instead, for `invalid-data` and
/// `selection-too-large`), and none passes the heap bound.
fn every_op_refuses(bytes: &[u8], reason: RefusalReason, words: &str) {
    for (op, req) in [
        ("select", Request::default()),
        ("search", search_req()),
        ("inspect", stats_req()),
        ("validate", Request::default()),
    ] {
        let (out, peak) = run(op, bytes, req);
        assert!(peak < BOUND, "{op}: peak heap {peak}");
        match out {
            Outcome::Refused(r, m) => {
                assert_eq!(r, reason, "{op}: {m}");
                assert!(m.contains(words), "{op}: {m}");
            }
            Outcome::Answer(a) if op == "validate" => {
                assert_eq!(a["valid"], false, "{a}");
                let m = a["fault"]["message"].as_str().unwrap();
                assert!(m.contains(words), "{m}");
            }
            Outcome::Answer(a) => panic!("{op} answered {a}"),
        }
    }
}

#[test]
fn a_dictionary_of_two_billion_entries_in_four_bytes_is_malformed() {
    let _alone = one_at_a_time();
    let file = dictionary_file(i32::MAX, vec![1, 0, 0, 0]);
    assert!(file.len() < 400, "{} bytes", file.len());
    every_op_refuses(
        &file,
        RefusalReason::InvalidData,
        "declares 2147483647 entries",
    );
}

#[test]
fn a_dictionary_larger_than_its_cap_once_decoded_is_refused() {
    let _alone = one_at_a_time();
    // Two million one-byte strings: 10 MB in the page, 64 MB decoded.
    let n = 2_000_000;
    let mut body = Vec::with_capacity(n * 5);
    for i in 0..n {
        body.extend_from_slice(&1u32.to_le_bytes());
        body.push(b'a' + (i % 26) as u8);
    }
    let file = dictionary_file(n as i32, body);
    every_op_refuses(
        &file,
        RefusalReason::SelectionTooLarge,
        "holds dictionaries",
    );
}

#[test]
fn a_page_that_claims_two_gigabytes_once_decompressed_is_refused_before_its_buffer() {
    let _alone = one_at_a_time();
    let file = page_claim_file(10);
    assert!(file.len() < 200, "{} bytes", file.len());
    every_op_refuses(
        &file,
        RefusalReason::SelectionTooLarge,
        "decompresses pages of up to",
    );
}

/// The same claim written as no writer writes it: in a field declared
/// `i64`, or as a number wider than the `i32` the crate keeps. The crate
/// reads a field by its id whatever type it declares, and keeps the low
/// 32 bits, so the check reads the claim as the crate will.
#[test]
fn a_page_claim_written_oddly_is_read_as_the_crate_reads_it() {
    let _alone = one_at_a_time();
    for form in [OddClaim::DeclaredI64, OddClaim::Wide] {
        let file = odd_claim_file(form);
        for (op, req) in [
            ("select", Request::default()),
            ("search", search_req()),
            ("inspect", stats_req()),
            ("validate", Request::default()),
        ] {
            let (out, peak) = run(op, &file, req);
            assert!(peak < BOUND, "{form:?} {op}: peak heap {peak}");
            let message = match out {
                Outcome::Refused(r, m) => {
                    assert!(
                        matches!(
                            r,
                            RefusalReason::InvalidData | RefusalReason::SelectionTooLarge
                        ),
                        "{form:?} {op}: {r:?} {m}"
                    );
                    m
                }
                Outcome::Answer(a) if op == "validate" => {
                    assert_eq!(a["valid"], false, "{a}");
                    a["fault"]["message"].as_str().unwrap().to_owned()
                }
                Outcome::Answer(a) => panic!("{form:?} {op} answered {a}"),
            };
            assert!(
                message.contains("decompresses pages of up to") || message.contains("page header"),
                "{form:?} {op}: {message}"
            );
        }
    }
}

#[test]
fn a_delta_page_that_declares_billions_of_lengths_is_malformed() {
    let _alone = one_at_a_time();
    let mut body = delta_header(1 << 31);
    body.extend([0; 8]);
    let data = Page {
        page_type: 0,
        uncompressed: body.len() as i32,
        num_values: 1,
        encoding: codes::DELTA_LENGTH_BYTE_ARRAY,
        body,
    };
    let file = one_column_file(codes::BYTE_ARRAY, codes::UNCOMPRESSED, 1, &[data]);
    every_op_refuses(
        &file,
        RefusalReason::InvalidData,
        "declares 2147483648 lengths",
    );
}

#[test]
fn a_schema_nested_ten_thousand_deep_is_refused_on_a_small_stack() {
    let _alone = one_at_a_time();
    let file = nested_schema_file(10_000);
    assert!(file.len() < 150_000);
    for op in ["inspect", "select", "validate"] {
        let (out, peak) = run(op, &file, Request::default());
        assert!(peak < BOUND, "{op}: peak heap {peak}");
        match out {
            Outcome::Refused(r, m) => {
                assert_eq!(r, RefusalReason::NestingTooDeep, "{m}");
                assert!(m.contains("10000 groups deep"), "{m}");
            }
            Outcome::Answer(a) => panic!("{op} answered {a}"),
        }
    }
}

#[test]
fn a_schema_nested_to_the_cap_is_read_on_a_small_stack() {
    let _alone = one_at_a_time();
    let depth = usize::try_from(PARQUET_MAX_NESTING).unwrap();
    let file = nested_schema_file(depth);
    let (out, _) = run("inspect", &file, Request::default());
    let Outcome::Answer(a) = out else {
        panic!("{out:?}")
    };
    assert_eq!(a["rows"], 0);
    assert_eq!(a["columns"].as_array().unwrap().len(), 1);
    let (out, _) = run("select", &file, Request::default());
    let Outcome::Answer(a) = out else {
        panic!("{out:?}")
    };
    assert_eq!(a["returned"], 0);
}

#[test]
fn a_footer_of_two_hundred_thousand_row_groups_is_refused() {
    let _alone = one_at_a_time();
    let file = many_row_groups_file(200_000);
    every_op_refuses(&file, RefusalReason::SelectionTooLarge, "footer");
}

#[test]
fn a_footer_under_the_caps_is_read_within_the_bound() {
    let _alone = one_at_a_time();
    let file = many_row_groups_file(30_000);
    let (out, peak) = run("inspect", &file, Request::default());
    assert!(peak < BOUND, "peak heap {peak}");
    let Outcome::Answer(a) = out else {
        panic!("{out:?}")
    };
    assert_eq!(a["row_groups"]["count"], 30_000);
}

/// A dictionary of one 64 KiB value repeated a billion times by one RLE
/// run: 64 TB of values from a file of a few hundred bytes. With a byte
/// budget every scan stops after it, sampled; stats, search and validate
/// each say how far they read.
#[test]
fn a_dictionary_run_bomb_stops_at_the_byte_budget() {
    let _alone = one_at_a_time();
    let value_len = 64 << 10;
    let file = plumb_testkit::parquet::dictionary_run_file(value_len, 1 << 30);
    assert!(file.len() < 66 << 10, "{} bytes", file.len());
    let budget = 64u64 << 20;
    let request = |stats: bool| {
        let mut req = Request::default();
        req.set("max_scan_bytes", serde_json::json!(budget))
            .unwrap();
        if stats {
            req.options.set("stats", true);
        }
        req.set("pattern", serde_json::json!("y")).unwrap();
        req
    };
    let started = std::time::Instant::now();
    for (op, stats) in [("inspect", true), ("validate", false), ("search", false)] {
        let mut req = request(stats);
        if op != "search" {
            req.options.remove("pattern");
        }
        let (out, peak) = run(op, &file, req);
        assert!(peak < BOUND, "{op}: {peak} bytes");
        let Outcome::Answer(a) = out else {
            panic!("{op}: {out:?}")
        };
        assert_eq!(a["view"]["sampled"], true, "{op}: {a}");
        let read = budget / value_len as u64;
        match op {
            "validate" => assert_eq!(a["valid"], Value::Null),
            "search" => {
                assert_eq!(
                    (a["has_more"].clone(), a["total"].clone()),
                    (Value::Bool(true), 0.into())
                );
                assert_eq!(a["next_offset"], read, "{a}");
            }
            _ => assert_eq!(a["columns"][0]["stats"]["count"], read, "{a}"),
        }
    }
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}

/// A file of `columns` INT32 columns of one value each, `rows` rows: a
/// few hundred KiB written, and a window of it is wide.
fn wide_file(columns: usize, rows: usize) -> Vec<u8> {
    use parquet::data_type::Int32Type;
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use std::sync::Arc;
    let fields: String = (0..columns)
        .map(|c| format!("REQUIRED INT32 c{c};"))
        .collect();
    let schema = parquet::schema::parser::parse_message_type(&format!("message m {{{fields}}}"))
        .expect("schema");
    let mut out = Vec::new();
    let props = Arc::new(WriterProperties::builder().build());
    let mut w = SerializedFileWriter::new(&mut out, Arc::new(schema), props).expect("writer");
    let mut group = w.next_row_group().expect("group");
    let values = vec![1i32; rows];
    while let Some(mut col) = group.next_column().expect("next") {
        col.typed::<Int32Type>()
            .write_batch(&values, None, None)
            .expect("write");
        col.close().expect("close");
    }
    group.close().expect("group close");
    w.close().expect("file close");
    out
}

#[test]
fn a_window_of_thousands_of_short_columns_is_bounded_by_what_it_holds() {
    let _alone = one_at_a_time();
    let file = wide_file(4_000, 1_500);
    let mut req = Request::default();
    req.window.limit = Some(1_000);
    let (out, peak) = run("select", &file, req);
    let Outcome::Answer(a) = out else {
        panic!("{out:?}")
    };
    // Each row prints about 10 bytes a value, but holds a member of an
    // object per value: the frame keeps the rows held near the budget.
    let returned = a["returned"].as_u64().unwrap();
    let frame = plumb_parquet::PARQUET_SELECT_CELL_FRAME_BYTES as u64;
    let per_row: u64 = (0..4_000u64)
        .map(|c| format!("c{c}").len() as u64 + 4 + 1 + frame)
        .sum::<u64>()
        + 3;
    assert!(
        returned >= 1
            && returned * per_row <= plumb_parquet::PARQUET_SELECT_BUDGET_BYTES as u64 + per_row
    );
    assert_eq!(a["shortened"], true);
    assert_eq!(a["rows"][0]["c3999"], 1, "{}", a["rows"][0]["c3999"]);
    assert!(peak < 16 << 20, "peak heap {peak}");
}

/// A column chunk the footer places at a negative offset or gives a
/// negative size: the `parquet` crate asserts against both when it opens
/// the chunk's pages, and a failed assertion aborts a fuzzing or
/// `panic = "abort"` build, so every op refuses it first. The same file
/// placed right is read, so the refusal is the place's alone.
#[test]
fn a_column_chunk_placed_before_the_file_is_malformed() {
    let _alone = one_at_a_time();
    let mut placed_right = None;
    for compressed in 1..64 {
        let bytes = chunk_place_file(4, None, compressed);
        if let (Outcome::Answer(a), _) = run("select", &bytes, Request::default()) {
            placed_right = Some(a);
            break;
        }
    }
    let a = placed_right.expect("a chunk placed right is read");
    assert_eq!(a["rows"], serde_json::json!([{"v": 7}]), "{a}");
    for (data, dict, compressed) in [(-8, None, 12), (4, Some(-1), 12), (4, None, -12)] {
        every_op_refuses(
            &chunk_place_file(data, dict, compressed),
            RefusalReason::InvalidData,
            "malformed",
        );
    }
}
