//! The entry points: every op on every format over any bytes answers
//! (`ok: true`, a view, a verdict for validate) or refuses with a typed,
//! serializable refusal; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb::{Op, Plumb, Request, ScanBounds, Window};
use plumb_core::BytesSource;

const FORMATS: [&str; 4] = ["csv", "tsv", "json", "jsonl"];

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, data)) = input.split_first() else {
        return;
    };
    let plumb = Plumb::new();
    let format = FORMATS[usize::from(ctl & 3)];
    let op = Op::ALL[usize::from(ctl >> 2) % 3];
    let mut opts = Request {
        // A select with the top bit set asks for a window from the end:
        // CSV and JSON Lines answer it, JSON refuses it.
        window: Window {
            offset: (op == Op::Select && ctl & 0x80 == 0).then_some(u64::from(ctl >> 5)),
            limit: (op == Op::Select).then_some(3),
            from_end: (op == Op::Select && ctl & 0x80 != 0).then_some(u64::from((ctl >> 5) & 3) + 1),
        },
        scan: ScanBounds {
            max_rows: (op != Op::Select && ctl & 0x80 != 0).then_some(2),
            sample_rows: None,
            // Inputs here are far below the size a scan splits at.
            threads: None,
            // A byte budget on some scans: a stop anywhere in the text.
            max_scan_bytes: (op != Op::Select && ctl & 0x40 != 0).then_some(u64::from(ctl >> 3)),
            // Some inspects keep their statistics' sketches too (with
            // statistics asked for below).
            sketches: op == Op::Inspect && ctl & 0x10 != 0,
            // Some inspects are brief, as a dataset asks of each file.
            brief: op == Op::Inspect && ctl & 0x08 != 0,
            // A search passes over its first hits on some inputs.
            skip_hits: if op == Op::Search { u64::from(ctl & 3) } else { 0 },
        },
        ..Request::default()
    };
    if opts.scan.sketches {
        opts.set("stats", true.into()).expect("a flag");
    }
    let source = BytesSource::new("input", data.to_vec());
    match plumb.run_source(op, &source, Some(format), &opts) {
        Ok(mut answer) => {
            // Sketches handed on write a state that reads back to them.
            if let Some(taken) = answer.take_sketches() {
                let sketches = taken
                    .downcast::<plumb_stats::ColumnSketches>()
                    .expect("column sketches");
                let bytes = serde_json::to_vec(&*sketches).expect("a state");
                let back: plumb_stats::ColumnSketches =
                    serde_json::from_slice(&bytes).expect("a state written reads back");
                assert!(back == *sketches);
            }
            let json = answer.to_json();
            assert_eq!(json["ok"], true);
            assert_eq!(json["format"], format);
            assert_eq!(answer.format(), format);
            if op == Op::Validate {
                assert!(answer.verdict().is_some());
            }
            if let Some(w) = answer.window() {
                assert!(w.returned <= w.limit);
            }
        }
        Err(refusal) => {
            let v = serde_json::to_value(&refusal).unwrap();
            assert_eq!(v["ok"], false);
            assert!(!refusal.message().is_empty());
        }
    }
});
