//! Sources: a compressed validate beside the decoder alone and the plain
//! validate of the same bytes (the bar: compressed within 1.15x
//! of decode + plain), and UTF-16 transcoding beside encoding_rs's own
//! decode of the whole buffer (goal: at least 1 GB/s). Throughput is the
//! decompressed (or UTF-16) byte count.

use std::io::{Read, Write};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plumb::{BytesSource, Op, Plumb, Request, Source, TextEncoding, Transcoded};
use plumb_benches::mixed_csv;

const SIZE: usize = 32 * 1024 * 1024;

fn validate(source: &dyn Source) -> u64 {
    let a = Plumb::new()
        .run_source(Op::Validate, source, Some("csv"), &Request::default())
        .expect("ok");
    a.to_json()["rows_scanned"].as_u64().expect("rows")
}

fn drain(mut r: impl Read) -> u64 {
    std::io::copy(&mut r, &mut std::io::sink()).expect("decodes")
}

fn compressed(c: &mut Criterion) {
    let data = mixed_csv(SIZE);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&data).expect("gzip");
    let gz = gz.finish().expect("gzip");
    let zst = zstd::stream::encode_all(&data[..], 3).expect("zstd");
    let plain = BytesSource::new("t.csv", data.clone());
    let rows = validate(&plain);
    let mut group = c.benchmark_group("compressed_validate");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(10);
    group.bench_function("plain_validate_plumb", |b| b.iter(|| validate(&plain)));
    let gz_source = BytesSource::new("t.csv.gz", gz.clone());
    group.bench_function("gzip_validate_plumb", |b| {
        b.iter(|| assert_eq!(validate(&gz_source), rows))
    });
    group.bench_function("gzip_decode_only_flate2", |b| {
        b.iter(|| drain(flate2::read::MultiGzDecoder::new(&gz[..])))
    });
    let zst_source = BytesSource::new("t.csv.zst", zst.clone());
    group.bench_function("zstd_validate_plumb", |b| {
        b.iter(|| assert_eq!(validate(&zst_source), rows))
    });
    group.bench_function("zstd_decode_only", |b| {
        b.iter(|| drain(zstd::stream::read::Decoder::new(&zst[..]).expect("zstd")))
    });
    group.finish();
}

fn transcoded(c: &mut Criterion) {
    let data = mixed_csv(SIZE);
    let text = std::str::from_utf8(&data).expect("utf-8");
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in text.encode_utf16() {
        utf16.extend(unit.to_le_bytes());
    }
    let source = BytesSource::new("t.csv", utf16.clone());
    let (encoding, bom) = TextEncoding::of_bom(&utf16).expect("bom");
    let mut group = c.benchmark_group("utf16_transcode");
    group.throughput(Throughput::Bytes(utf16.len() as u64));
    group.sample_size(10);
    group.bench_function("transcode_plumb", |b| {
        b.iter(|| {
            let t = Transcoded::new(&source, encoding, bom);
            drain(t.open().expect("opens"))
        })
    });
    group.bench_function("decode_whole_encoding_rs", |b| {
        b.iter(|| {
            let (text, had_errors) = encoding_rs::UTF_16LE.decode_without_bom_handling(&utf16[2..]);
            assert!(!had_errors);
            text.len()
        })
    });
    let rows = validate(&BytesSource::new("t.csv", data.clone()));
    group.bench_function("utf16_validate_plumb", |b| {
        b.iter(|| assert_eq!(validate(&source), rows))
    });
    group.finish();
}

criterion_group!(benches, compressed, transcoded);
criterion_main!(benches);
