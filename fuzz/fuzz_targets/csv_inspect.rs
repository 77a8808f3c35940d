//! `plumb_csv::inspect`: the report built cell by cell (the block path
//! and the inspector's plain-number path) equals the one built from
//! whole kept rows (the byte machine and the general cell path), for any
//! bytes; only the sample rows differ, by design. With statistics on
//! (the first byte's low bit), the two paths feed the same figures.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb_core::TextStream;
use plumb_csv::{inspect, CsvFormat, CsvOptions, INSPECT_SAMPLE_ROWS_MAX};

fn report(data: &[u8], sample_rows: usize, stats: bool) -> serde_json::Value {
    let opts = CsvOptions {
        stats,
        delimiter: Some(b','),
        scan: plumb_core::ScanBounds {
            sample_rows: Some(sample_rows),
            ..Default::default()
        },
        ..CsvOptions::default()
    };
    match inspect(TextStream::from_buf_read(data), CsvFormat::Csv, &opts) {
        Ok(r) => {
            let mut v = serde_json::to_value(r).expect("a report serializes");
            v.as_object_mut().expect("an object").remove("sample");
            v
        }
        Err(refusal) => serde_json::Value::String(format!("{refusal:?}")),
    }
}

fuzz_target!(|data: &[u8]| {
    let stats = data.first().is_some_and(|b| b & 1 == 1);
    assert_eq!(
        report(data, 0, stats),
        report(data, INSPECT_SAMPLE_ROWS_MAX, stats)
    );
});
