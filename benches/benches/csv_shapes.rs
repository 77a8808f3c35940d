//! CSV inspect on shapes beyond the two headline benches, each beside
//! the `csv` crate's `read_byte_record` loop over the same bytes: long
//! identifiers and times, scientific notation, quoted text. These track
//! the inspector's slower paths (numbers past fifteen digits, exponents,
//! unescaping); they carry no goal of their own.

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plumb_benches::{ids_csv, scientific_csv, text_csv};

const SIZE: usize = 32 * 1024 * 1024;

fn bench(c: &mut Criterion) {
    for (shape, data) in [
        ("ids", ids_csv(SIZE)),
        ("scientific", scientific_csv(SIZE)),
        ("text", text_csv(SIZE)),
    ] {
        let mut group = c.benchmark_group(format!("{shape}_csv"));
        group.throughput(Throughput::Bytes(data.len() as u64));
        group.sample_size(10);
        common::inspect_beside_csv_crate(&mut group, &data);
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
