//! CSV inspect on shapes beyond the two headline benches, each beside
//! the `csv` crate's `read_byte_record` loop over the same bytes: long
//! identifiers and times, scientific notation, quoted text. These track
//! the inspector's slower paths (numbers past fifteen digits, exponents,
//! unescaping); they carry no goal of their own.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plumb_benches::{csv_crate_count, ids_csv, scientific_csv, text_csv};
use plumb_core::TextStream;
use plumb_csv::{inspect, CsvFormat, CsvOptions};

const SIZE: usize = 32 * 1024 * 1024;

fn bench(c: &mut Criterion) {
    let opts = CsvOptions {
        delimiter: Some(b','),
        ..CsvOptions::default()
    };
    for (shape, data) in [
        ("ids", ids_csv(SIZE)),
        ("scientific", scientific_csv(SIZE)),
        ("text", text_csv(SIZE)),
    ] {
        let rows = csv_crate_count(&data);
        let mut group = c.benchmark_group(format!("{shape}_csv"));
        group.throughput(Throughput::Bytes(data.len() as u64));
        group.sample_size(10);
        group.bench_function("inspect_plumb", |b| {
            b.iter(|| {
                let r = inspect(
                    TextStream::from_buf_read(data.as_slice()),
                    CsvFormat::Csv,
                    &opts,
                )
                .expect("valid");
                assert_eq!(r.rows_scanned + 1, rows);
                r.rows_scanned
            })
        });
        group.bench_function("csv_crate_read_byte_record", |b| {
            b.iter(|| {
                let n = csv_crate_count(&data);
                assert_eq!(n, rows);
                n
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
