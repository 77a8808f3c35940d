//! JSON validate and inspect beside serde_json over the same bytes, in
//! the same run: `from_reader` into `IgnoredAny` (streaming, the peer
//! baseline) and `from_slice` into `IgnoredAny` (whole buffer).
//!
//! Goal: validate at least 1.3x the streaming baseline; the outline
//! alone (every path's facts) at least 0.8x plumb's own validate.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plumb_benches::objects_json;
use plumb_core::ScanBounds;
use plumb_core::TextStream;
use plumb_json::{inspect, validate, JsonParser, Outline};
use serde::de::IgnoredAny;

const SIZE: usize = 32 * 1024 * 1024;

fn bench(c: &mut Criterion) {
    let data = objects_json(SIZE);
    let mut group = c.benchmark_group("objects_array_json");
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
            r.rows_scanned
        })
    });
    group.bench_function("inspect_plumb", |b| {
        b.iter(|| {
            let r = inspect(
                TextStream::from_buf_read(data.as_slice()),
                &ScanBounds::default(),
            )
            .expect("ok");
            assert_eq!(r.root_type, "array");
            r.count
        })
    });
    group.bench_function("outline_plumb", |b| {
        b.iter(|| {
            let mut outline = Outline::new();
            let mut parser = JsonParser::new();
            for chunk in data.chunks(64 * 1024) {
                parser.push(chunk, &mut outline).expect("valid");
            }
            parser.finish(&mut outline).expect("valid");
            assert!(!outline.is_cut());
            outline.to_json(60)
        })
    });
    group.bench_function("serde_json_from_reader", |b| {
        b.iter(|| {
            let reader = std::io::BufReader::with_capacity(64 * 1024, data.as_slice());
            let _: IgnoredAny = serde_json::from_reader(reader).expect("valid");
        })
    });
    group.bench_function("serde_json_from_slice", |b| {
        b.iter(|| {
            let _: IgnoredAny = serde_json::from_slice(&data).expect("valid");
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
