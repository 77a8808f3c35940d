//! Search: plumb's text search beside the peer a program would write
//! (the `regex` crate over each line, as a line-oriented grep does, and a
//! `memchr::memmem` scan that only counts), and CSV column predicates
//! beside plumb's own validate of the same bytes. Same bytes, same run.
//!
//! Goals (issue 20, whole process in `cargo xtask peers`): a literal
//! within 1.5x of `rg -c`, a regex within 2x, a CSV column predicate
//! within 1.3x of validate.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plumb::search::search_text;
use plumb_benches::{ascii_text, mixed_csv};
use plumb_core::{BytesSource, Query, Request, TextStream};
use plumb_csv::{search, validate, ColumnRef, CsvFormat, CsvOptions};

const SIZE: usize = 32 * 1024 * 1024;

fn query(opts: &[(&str, &str)]) -> Query {
    let mut req = Request::default();
    for (k, v) in opts {
        req.set(k, serde_json::Value::from(*v)).expect("option");
    }
    req.set("count_only", serde_json::Value::Bool(true))
        .expect("option");
    Query::from_request(&req).expect("query")
}

/// Lines matching `re`, each line searched alone.
fn regex_per_line(data: &[u8], re: &regex::bytes::Regex) -> u64 {
    data.split(|&b| b == b'\n')
        .filter(|l| re.is_match(l))
        .count() as u64
}

fn bench(c: &mut Criterion) {
    let text = ascii_text(SIZE);
    let source = BytesSource::new("t.txt", text.clone());
    let mut group = c.benchmark_group("search_text");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    for (name, pattern) in [("literal", "name-4242"), ("regex", r"name-4[0-9]{3},9")] {
        let q = query(&[("pattern", pattern)]);
        let re = regex::bytes::Regex::new(pattern).expect("regex");
        let expected = regex_per_line(&text, &re);
        group.bench_function(format!("{name}_plumb"), |b| {
            b.iter(|| {
                let a = search_text(&source, &q, 0).expect("search");
                assert_eq!(a.window.progress.total, expected);
                a.window.progress.total
            })
        });
        group.bench_function(format!("{name}_regex_per_line"), |b| {
            b.iter(|| regex_per_line(&text, &re))
        });
    }
    let finder = memchr::memmem::Finder::new("name-4242");
    group.bench_function("literal_memmem_count_only", |b| {
        b.iter(|| finder.find_iter(&text).count())
    });
    group.finish();

    let data = mixed_csv(SIZE);
    let opts = CsvOptions {
        delimiter: Some(b','),
        ..CsvOptions::default()
    };
    let rows_from = BytesSource::new("t.csv", data.clone());
    let mut group = c.benchmark_group("search_csv");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(10);
    group.bench_function("validate_plumb", |b| {
        b.iter(|| {
            validate(
                TextStream::from_buf_read(data.as_slice()),
                CsvFormat::Csv,
                &opts,
            )
            .expect("valid")
            .rows_scanned
        })
    });
    for (name, column, predicate) in [("text_eq", "1", "= name42"), ("number_gt", "2", "> 50.5")] {
        let q = query(&[("where", predicate)]);
        group.bench_function(format!("column_{name}_plumb"), |b| {
            b.iter(|| {
                search(
                    TextStream::from_buf_read(data.as_slice()),
                    CsvFormat::Csv,
                    &opts,
                    &q,
                    Some(ColumnRef::parse(column)),
                    Some(&rows_from),
                )
                .expect("search")
                .window
                .progress
                .total
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
