//! The chunked UTF-8 stream against `std::str::from_utf8` over the same
//! whole buffer, in the same run. The stream should cost at most 10%
//! over whole-buffer validation.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plumb_benches::{ascii_text, multibyte_text};
use plumb_core::TextStream;

const SIZE: usize = 16 * 1024 * 1024;

fn bench(c: &mut Criterion) {
    for (shape, data) in [
        ("ascii", ascii_text(SIZE)),
        ("multibyte", multibyte_text(SIZE)),
    ] {
        let mut group = c.benchmark_group(format!("validate_{shape}_utf8"));
        group.throughput(Throughput::Bytes(data.len() as u64));
        // The in-memory source: chunks straight out of the slice.
        group.bench_function("plumb_stream", |b| {
            b.iter(|| {
                let mut stream = TextStream::from_buf_read(data.as_slice());
                let mut n = 0usize;
                while let Some(chunk) = stream.next_chunk().expect("valid") {
                    n += chunk.text.len();
                }
                assert_eq!(n, data.len());
                n
            })
        });
        // Through a 64 KiB `BufReader`, as a file is read: one extra copy.
        group.bench_function("plumb_stream_bufreader", |b| {
            b.iter(|| {
                let mut stream = TextStream::new(data.as_slice());
                let mut n = 0usize;
                while let Some(chunk) = stream.next_chunk().expect("valid") {
                    n += chunk.text.len();
                }
                assert_eq!(n, data.len());
                n
            })
        });
        group.bench_function("std_from_utf8_whole", |b| {
            b.iter(|| {
                let s = std::str::from_utf8(&data).expect("valid");
                assert_eq!(s.len(), data.len());
                s.len()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
