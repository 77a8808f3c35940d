//! What the CSV bench targets share: inspect beside the `csv` crate's
//! `read_byte_record` loop over the same bytes, in one group.

use criterion::{measurement::WallTime, BenchmarkGroup};
use plumb_benches::csv_crate_count;
use plumb_core::TextStream;
use plumb_csv::{inspect, CsvFormat, CsvOptions};

/// Adds `inspect_plumb` and `csv_crate_read_byte_record` to `group`;
/// both check the row count, so neither can be optimised away.
pub fn inspect_beside_csv_crate(group: &mut BenchmarkGroup<'_, WallTime>, data: &[u8]) {
    let opts = CsvOptions {
        delimiter: Some(b','),
        ..CsvOptions::default()
    };
    let rows = csv_crate_count(data);
    group.bench_function("inspect_plumb", |b| {
        b.iter(|| {
            let r = inspect(TextStream::from_buf_read(data), CsvFormat::Csv, &opts).expect("valid");
            assert_eq!(r.rows_scanned + 1, rows);
            r.rows_scanned
        })
    });
    group.bench_function("csv_crate_read_byte_record", |b| {
        b.iter(|| {
            let n = csv_crate_count(data);
            assert_eq!(n, rows);
            n
        })
    });
}
