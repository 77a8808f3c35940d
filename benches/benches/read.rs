//! `read` of an interval near the end of a large text file, beside a
//! plain memchr newline count of the same bytes in the same run.
//! Goal: within 1.5x of the count.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plumb::read::{read_source, ReadRequest};
use plumb::BytesSource;
use plumb_benches::ascii_text;

const SIZE: usize = 64 * 1024 * 1024;

fn bench(c: &mut Criterion) {
    let data = ascii_text(SIZE);
    let lines = memchr::memchr_iter(b'\n', &data).count() as u64;
    let mut group = c.benchmark_group("read_text");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(20);
    let source = BytesSource::new("big.txt", data.clone());
    group.bench_function("read_interval_near_end_plumb", |b| {
        b.iter(|| {
            let req = ReadRequest {
                offset: (lines - 100) as i64,
                limit: Some(50),
                ..ReadRequest::default()
            };
            let a = read_source(&source, &req).expect("ok");
            assert_eq!(a.total_lines, Some(lines));
            a.bytes
        })
    });
    group.bench_function("read_tail_plumb", |b| {
        b.iter(|| {
            let req = ReadRequest {
                offset: -50,
                ..ReadRequest::default()
            };
            let a = read_source(&source, &req).expect("ok");
            assert_eq!(a.from_end, Some(50));
            a.bytes
        })
    });
    group.bench_function("memchr_newline_count", |b| {
        b.iter(|| {
            let n = memchr::memchr_iter(b'\n', &data).count() as u64;
            assert_eq!(n, lines);
            n
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
