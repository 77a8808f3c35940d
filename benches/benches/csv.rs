//! CSV validate and inspect beside the `csv` crate's `read_byte_record`
//! loop over the same bytes, in the same run.
//!
//! Goals: validate (UTF-8 checked, issues tracked) at least 1.5x the
//! speed of the `csv` crate loop; inspect within 2x of its time.

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plumb_benches::{csv_crate_count, mixed_csv, numeric_csv};
use plumb_core::TextStream;
use plumb_csv::{validate, CsvFormat, CsvOptions};

const SIZE: usize = 32 * 1024 * 1024;

fn bench(c: &mut Criterion) {
    let opts = CsvOptions {
        delimiter: Some(b','),
        ..CsvOptions::default()
    };
    for (shape, data) in [("mixed", mixed_csv(SIZE)), ("numeric", numeric_csv(SIZE))] {
        let rows = csv_crate_count(&data);
        let mut group = c.benchmark_group(format!("{shape}_csv"));
        group.throughput(Throughput::Bytes(data.len() as u64));
        group.sample_size(10);
        group.bench_function("validate_plumb", |b| {
            b.iter(|| {
                let r = validate(
                    TextStream::from_buf_read(data.as_slice()),
                    CsvFormat::Csv,
                    &opts,
                )
                .expect("valid");
                assert_eq!(r.rows_scanned + 1, rows);
                r.rows_scanned
            })
        });
        common::inspect_beside_csv_crate(&mut group, &data);
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
