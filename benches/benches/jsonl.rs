//! JSON Lines validate beside serde_json into `IgnoredAny` line by line
//! (lines split with memchr) over the same bytes, in the same run.
//! Goal: at least as fast.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plumb_benches::records_jsonl;
use plumb_core::ScanBounds;
use plumb_core::TextStream;
use plumb_jsonl::validate;
use serde::de::IgnoredAny;

const SIZE: usize = 32 * 1024 * 1024;

fn bench(c: &mut Criterion) {
    let data = records_jsonl(SIZE);
    let lines = memchr::memchr_iter(b'\n', &data).count() as u64;
    let mut group = c.benchmark_group("records_jsonl");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(10);
    group.bench_function("validate_plumb", |b| {
        b.iter(|| {
            let r = validate(
                TextStream::from_buf_read(data.as_slice()),
                &ScanBounds::default(),
            )
            .expect("ok");
            assert_eq!(r.valid, Some(true));
            assert_eq!(r.rows_scanned, lines);
        })
    });
    group.bench_function("serde_json_lines_memchr", |b| {
        b.iter(|| {
            let mut n = 0u64;
            let mut start = 0;
            for nl in memchr::memchr_iter(b'\n', &data) {
                let _: IgnoredAny = serde_json::from_slice(&data[start..nl]).expect("valid");
                start = nl + 1;
                n += 1;
            }
            assert_eq!(n, lines);
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
