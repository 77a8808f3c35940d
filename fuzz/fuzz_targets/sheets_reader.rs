//! Any bytes read as a workbook (the kind told from the bytes: a zip is
//! an xlsx, xlsb or ods by its parts, a compound file an xls): inspect,
//! select, validate and search answer or refuse with a typed reason,
//! within a heap of twice the file and 32 MiB. calamine lays sheets out
//! as grids and holds shared strings whole; what it would build is
//! judged from the bytes first, so a crafted workbook that asks for more
//! fails this run (its allocation is refused and the process aborts).
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb_core::{BytesSource, FormatReader, RefusalReason, Request};
use plumb_sheets::SheetsReader;

#[global_allocator]
static ALLOC: plumb_testkit::CountingAlloc = plumb_testkit::CountingAlloc;

/// What an op may add to the heap above the file's own bytes.
const BOUND: usize = 32 << 20;

fuzz_target!(|bytes: &[u8]| {
    // Dependencies' panics are caught and answered as `invalid-data`.
    plumb_testkit::one_line_panics();
    // The op comes from the length, so that a seed file is fuzzed whole.
    let op = bytes.len() % 4;
    let mut req = Request::default();
    if op == 3 {
        req.set("pattern", serde_json::json!("a")).unwrap();
    }
    plumb_testkit::limit_heap(2 * bytes.len() + BOUND + plumb_testkit::live_bytes());
    let source = BytesSource::new("f.xlsx", bytes.to_vec());
    let r = SheetsReader::XLSX;
    let out = match op {
        0 => r.inspect(&source, &req),
        1 => r.select(&source, &req),
        2 => r.validate(&source, &req),
        _ => r.search(&source, &req),
    };
    plumb_testkit::limit_heap(usize::MAX);
    if let Err(e) = out {
        assert!(
            matches!(
                e.reason(),
                RefusalReason::InvalidData
                    | RefusalReason::UnsupportedFormat
                    | RefusalReason::SelectionTooLarge
                    | RefusalReason::InvalidArgument
                    | RefusalReason::NotFound
            ),
            "{e:?}"
        );
    }
});
