//! Column statistics: CSV inspect with `stats` beside inspect without it
//! and beside what the tools that hold every value do (xsv/xan
//! `frequency` + `stats`, pandas `describe`): the `csv` crate's record
//! loop, a hash map of every distinct value per column, every number
//! kept and sorted for its quantiles. Same bytes, same run.
//!
//! Goals (issue 19): inspect with statistics within 1.5x the time of
//! inspect without, and at least 2x the speed of the hold-everything
//! peer (whose memory grows with the distinct values; plumb's does not).

use std::collections::HashMap;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plumb_benches::mixed_csv;
use plumb_core::TextStream;
use plumb_csv::{inspect, CsvFormat, CsvOptions};

const SIZE: usize = 32 * 1024 * 1024;

/// Per column: distinct values with counts, the numbers (sorted for
/// quantiles), their sum; returns a checksum of the figures.
fn hold_everything(data: &[u8]) -> (u64, usize) {
    let mut reader = csv::ReaderBuilder::new().from_reader(data);
    let mut record = csv::ByteRecord::new();
    let mut freq: Vec<HashMap<Vec<u8>, u64>> = Vec::new();
    let mut numbers: Vec<Vec<f64>> = Vec::new();
    let mut rows = 0u64;
    while reader.read_byte_record(&mut record).expect("valid csv") {
        rows += 1;
        for (i, cell) in record.iter().enumerate() {
            if freq.len() <= i {
                freq.push(HashMap::new());
                numbers.push(Vec::new());
            }
            *freq[i].entry(cell.to_vec()).or_insert(0) += 1;
            if let Some(v) = std::str::from_utf8(cell)
                .ok()
                .and_then(|t| t.parse::<f64>().ok())
            {
                numbers[i].push(v);
            }
        }
    }
    let mut distinct = 0;
    for (f, nums) in freq.iter().zip(&mut numbers) {
        distinct += f.len();
        let mut top: Vec<u64> = f.values().copied().collect();
        top.sort_unstable_by(|a, b| b.cmp(a));
        nums.sort_unstable_by(f64::total_cmp);
        let _median = nums.get(nums.len() / 2);
        let _sum: f64 = nums.iter().sum();
    }
    (rows, distinct)
}

fn bench(c: &mut Criterion) {
    let data = mixed_csv(SIZE);
    let plain = CsvOptions {
        delimiter: Some(b','),
        ..CsvOptions::default()
    };
    let with = CsvOptions {
        stats: true,
        ..plain.clone()
    };
    let (rows, _) = hold_everything(&data);
    let mut group = c.benchmark_group("stats_csv");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(10);
    for (name, opts) in [("inspect_plumb", &plain), ("inspect_stats_plumb", &with)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let r = inspect(
                    TextStream::from_buf_read(data.as_slice()),
                    CsvFormat::Csv,
                    opts,
                )
                .expect("valid");
                assert_eq!(r.rows_scanned, rows);
                r.rows_scanned
            })
        });
    }
    group.bench_function("csv_crate_hold_every_value", |b| {
        b.iter(|| {
            let (n, distinct) = hold_everything(&data);
            assert_eq!(n, rows);
            distinct
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
