//! Any bytes read as Parquet: every op (inspect with and without
//! statistics, select, validate, search) answers or refuses with a typed
//! reason, on a 2 MiB stack (the MCP server's and rayon's threads), and
//! within a heap of twice the file and 32 MiB: a size or count the file
//! declares is a claim, checked before anything is sized by it. A heap
//! past the bound fails the run (its allocation is refused and the
//! process aborts), as a stack overflow does.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb_core::{BytesSource, FormatReader, RefusalReason, Request};
use plumb_parquet::ParquetReader;

#[global_allocator]
static ALLOC: plumb_testkit::CountingAlloc = plumb_testkit::CountingAlloc;

/// What an op may add to the heap above the file's own bytes.
const BOUND: usize = 32 << 20;

fn request(op: u8) -> Request {
    let mut req = Request::default();
    match op {
        4 => {
            req.set("pattern", serde_json::json!("a")).unwrap();
        }
        5 => {
            req.set("stats", serde_json::json!(true)).unwrap();
        }
        _ => {}
    }
    req
}

fuzz_target!(|bytes: &[u8]| {
    // Dependencies' panics are caught and answered as `invalid-data`.
    plumb_testkit::one_line_panics();
    // The op comes from the length, so that a seed file is fuzzed whole.
    let op = (bytes.len() % 6) as u8;
    let req = request(op);
    plumb_testkit::limit_heap(2 * bytes.len() + BOUND + plumb_testkit::live_bytes());
    let source = BytesSource::new("f.parquet", bytes.to_vec());
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn_scoped(s, || {
                let r = ParquetReader;
                let out = match op {
                    0 | 5 => r.inspect(&source, &req),
                    1 => r.select(&source, &req),
                    2 | 3 => r.validate(&source, &req),
                    _ => r.search(&source, &req),
                };
                if let Err(e) = out {
                    assert!(
                        matches!(
                            e.reason(),
                            RefusalReason::InvalidData
                                | RefusalReason::UnsupportedFormat
                                | RefusalReason::SelectionTooLarge
                                | RefusalReason::NestingTooDeep
                                | RefusalReason::InvalidArgument
                        ),
                        "{e:?}"
                    );
                }
            })
            .unwrap()
            .join()
            .unwrap();
    });
    plumb_testkit::limit_heap(usize::MAX);
});
