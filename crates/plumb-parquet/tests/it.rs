//! plumb-parquet against files the parquet crate's own writer makes:
//! every value read back exactly, windows that read only their row
//! groups, projection, and corrupt files found or refused, never a panic.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{
    BoolType, ByteArray, ByteArrayType, DataType, DoubleType, FixedLenByteArray,
    FixedLenByteArrayType, FloatType, Int32Type, Int64Type,
};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::parser::parse_message_type;
use serde_json::{json, Value};

use plumb_core::{
    BytesSource, FormatReader, Options, Refusal, RefusalReason, Request, Source, Window,
};
use plumb_parquet::ParquetReader;

/// Hands each column writer of a row group, in order, to a closure.
type Columns<'a> = dyn FnMut(&mut dyn FnMut(&mut SerializedColumnWriter<'_>)) + 'a;
/// Writes one row group's columns.
type Group = dyn Fn(&mut Columns<'_>);

/// Writes a file of `schema`, one row group per call of `groups`' items:
/// each item writes that group's columns in order.
fn write(schema: &str, props: WriterProperties, groups: &[&Group]) -> Vec<u8> {
    let schema = Arc::new(parse_message_type(schema).expect("schema"));
    let mut out = Vec::new();
    let mut w = SerializedFileWriter::new(&mut out, schema, Arc::new(props)).expect("writer");
    for g in groups {
        let mut group = w.next_row_group().expect("group");
        g(&mut |f| {
            let mut col = group.next_column().expect("next").expect("a column");
            f(&mut col);
            col.close().expect("close");
        });
        group.close().expect("group close");
    }
    w.close().expect("file close");
    out
}

/// Writes `values`, with their definition and repetition levels, to a
/// column of type `T`.
fn put<T: DataType>(
    c: &mut SerializedColumnWriter<'_>,
    values: &[T::T],
    defs: Option<&[i16]>,
    reps: Option<&[i16]>,
) {
    c.typed::<T>().write_batch(values, defs, reps).unwrap();
}

fn source(bytes: &[u8]) -> BytesSource {
    BytesSource::new("t.parquet", bytes.to_vec())
}

fn select(bytes: &[u8], offset: Option<u64>, limit: Option<u64>, columns: Option<&str>) -> Value {
    let mut req = Request {
        window: Window {
            offset,
            limit,
            from_end: None,
        },
        ..Request::default()
    };
    if let Some(c) = columns {
        req.options = Options::new().with("columns", c);
    }
    ParquetReader
        .select(&source(bytes), &req)
        .expect("select")
        .to_json()
}

fn refusal<T: std::fmt::Debug>(r: Result<T, Refusal>) -> Refusal {
    r.expect_err("a refusal")
}

const N: i64 = 300;

/// The values of row `i` of the all-types file, as the test knows them.
fn big(i: i64) -> Option<i64> {
    (i % 7 != 3).then(|| (1i64 << 53) - 150 + i * 3 * if i % 2 == 0 { 1 } else { -1 })
}
fn dbl(i: i64) -> Option<f64> {
    (i % 5 != 1).then(|| i as f64 / 8.0 - 3.3)
}
fn text(i: i64) -> Option<String> {
    (i % 4 != 2).then(|| format!("row {i} ✓ {}", "é".repeat((i % 3) as usize)))
}
fn dec(i: i64) -> i64 {
    (i - 150) * 12_345 + 7
}

fn all_types() -> Vec<u8> {
    let schema = "message m {
        required int64 id;
        optional int64 big;
        optional double d;
        optional float f;
        optional boolean b;
        optional binary s (STRING);
        optional binary raw;
        optional int32 dec32 (DECIMAL(9,2));
        optional fixed_len_byte_array(16) dec128 (DECIMAL(38,10));
        optional int32 day (DATE);
        optional int64 ts_ms (TIMESTAMP(MILLIS,true));
        optional int64 ts_ns (TIMESTAMP(NANOS,false));
        optional int32 u32 (INTEGER(32,false));
    }";
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(128))
        .set_compression(Compression::SNAPPY)
        .build();
    let rows: Vec<i64> = (0..N).collect();
    let mut groups: Vec<Box<Group>> = Vec::new();
    for chunk in rows.chunks(128) {
        let chunk = chunk.to_vec();
        groups.push(Box::new(move |next| {
            let defs = |f: &dyn Fn(i64) -> bool| -> Vec<i16> {
                chunk.iter().map(|&i| i16::from(f(i))).collect()
            };
            next(&mut |c| {
                put::<Int64Type>(c, &chunk, None, None);
            });
            next(&mut |c| {
                let v: Vec<i64> = chunk.iter().filter_map(|&i| big(i)).collect();
                put::<Int64Type>(c, &v, Some(&defs(&|i| big(i).is_some())), None);
            });
            next(&mut |c| {
                let v: Vec<f64> = chunk.iter().filter_map(|&i| dbl(i)).collect();
                put::<DoubleType>(c, &v, Some(&defs(&|i| dbl(i).is_some())), None);
            });
            next(&mut |c| {
                let v: Vec<f32> = chunk
                    .iter()
                    .map(|&i| match i % 50 {
                        0 => f32::NAN,
                        1 => f32::INFINITY,
                        _ => i as f32 * 0.1,
                    })
                    .collect();
                put::<FloatType>(c, &v, Some(&defs(&|_| true)), None);
            });
            next(&mut |c| {
                let v: Vec<bool> = chunk.iter().map(|&i| i % 3 == 0).collect();
                put::<BoolType>(c, &v, Some(&defs(&|_| true)), None);
            });
            next(&mut |c| {
                let v: Vec<ByteArray> = chunk
                    .iter()
                    .filter_map(|&i| text(i))
                    .map(|s| ByteArray::from(s.as_str()))
                    .collect();
                put::<ByteArrayType>(c, &v, Some(&defs(&|i| text(i).is_some())), None);
            });
            next(&mut |c| {
                let v: Vec<ByteArray> = chunk
                    .iter()
                    .map(|&i| ByteArray::from(vec![0xff, i as u8, b'a']))
                    .collect();
                put::<ByteArrayType>(c, &v, Some(&defs(&|_| true)), None);
            });
            next(&mut |c| {
                let v: Vec<i32> = chunk.iter().map(|&i| dec(i) as i32).collect();
                put::<Int32Type>(c, &v, Some(&defs(&|_| true)), None);
            });
            next(&mut |c| {
                let v: Vec<FixedLenByteArray> = chunk
                    .iter()
                    .map(|&i| {
                        let wide = i128::from(dec(i)) * 10i128.pow(20) + 1;
                        FixedLenByteArray::from(wide.to_be_bytes().to_vec())
                    })
                    .collect();
                put::<FixedLenByteArrayType>(c, &v, Some(&defs(&|_| true)), None);
            });
            next(&mut |c| {
                let v: Vec<i32> = chunk.iter().map(|&i| (i as i32 - 150) * 400).collect();
                put::<Int32Type>(c, &v, Some(&defs(&|_| true)), None);
            });
            next(&mut |c| {
                let v: Vec<i64> = chunk.iter().map(|&i| (i - 150) * 86_400_007).collect();
                put::<Int64Type>(c, &v, Some(&defs(&|_| true)), None);
            });
            next(&mut |c| {
                let v: Vec<i64> = chunk.iter().map(|&i| (i - 150) * 1_000_000_001).collect();
                put::<Int64Type>(c, &v, Some(&defs(&|_| true)), None);
            });
            next(&mut |c| {
                let v: Vec<i32> = chunk
                    .iter()
                    .map(|&i| (u32::MAX - i as u32) as i32)
                    .collect();
                put::<Int32Type>(c, &v, Some(&defs(&|_| true)), None);
            });
        }));
    }
    let refs: Vec<&Group> = groups.iter().map(|g| g.as_ref()).collect();
    write(schema, props, &refs)
}

/// A decimal of `scale` digits, written out by the test's own rule.
fn decimal(v: i128, scale: u32) -> String {
    let sign = if v < 0 { "-" } else { "" };
    let m = v.unsigned_abs();
    let p = 10u128.pow(scale);
    format!("{sign}{}.{:0width$}", m / p, m % p, width = scale as usize)
}

/// The civil date `days` after 1970-01-01, by the test kit's walk of
/// whole years then months (a second rule, independent of the reader's).
fn civil(days: i64) -> String {
    let (y, m, d) = plumb_testkit::calendar::civil_of(days);
    format!("{y:04}-{m:02}-{d:02}")
}

fn stamp(ticks: i64, digits: u32, utc: bool) -> String {
    let per = 10i64.pow(digits);
    let (secs, frac) = (ticks.div_euclid(per), ticks.rem_euclid(per));
    let (days, of_day) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    format!(
        "{}T{:02}:{:02}:{:02}.{frac:0w$}{}",
        civil(days),
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        if utc { "Z" } else { "" },
        w = digits as usize
    )
}

fn expected_row(i: i64) -> Value {
    let f = match i % 50 {
        0 => json!({"$float": "NaN"}),
        1 => json!({"$float": "Infinity"}),
        _ => json!((i as f32 * 0.1).to_string().parse::<f64>().unwrap()),
    };
    let big = match big(i) {
        None => Value::Null,
        Some(v) if v.unsigned_abs() < (1 << 53) => json!(v),
        Some(v) => json!({"$literal": v.to_string(), "precision": "unsafe-integer"}),
    };
    let d128 = decimal(i128::from(dec(i)) * 10i128.pow(20) + 1, 10);
    json!({
        "id": i,
        "big": big,
        "d": dbl(i),
        "f": f,
        "b": i % 3 == 0,
        "s": text(i),
        "raw": {"$hex": format!("ff{:02x}61", i as u8)},
        "dec32": decimal(i128::from(dec(i)), 2).parse::<f64>().unwrap(),
        "dec128": {"$literal": d128, "precision": "excess-digits"},
        "day": civil((i - 150) * 400),
        "ts_ms": stamp((i - 150) * 86_400_007, 3, true),
        "ts_ns": stamp((i - 150) * 1_000_000_001, 9, false),
        "u32": u32::MAX - i as u32,
    })
}

#[test]
fn every_value_reads_back_exactly() {
    let file = all_types();
    let mut got = Vec::new();
    let mut offset = 0;
    loop {
        let a = select(&file, Some(offset), Some(70), None);
        got.extend(a["rows"].as_array().unwrap().iter().cloned());
        offset += a["returned"].as_u64().unwrap();
        if a["has_more"] != json!(true) {
            break;
        }
    }
    assert_eq!(got.len() as i64, N);
    for (i, row) in got.iter().enumerate() {
        assert_eq!(row, &expected_row(i as i64), "row {i}");
    }
}

#[test]
fn inspect_reads_the_footer_alone() {
    let file = all_types();
    let fetched = Arc::new(AtomicU64::new(0));
    let counted = Counted {
        inner: source(&file),
        fetched: fetched.clone(),
    };
    let a = ParquetReader
        .inspect(&counted, &Request::default())
        .unwrap()
        .to_json();
    assert_eq!(a["rows"], N);
    assert_eq!(a["row_groups"]["count"], 3);
    let footer = a["footer_bytes"].as_u64().unwrap();
    // The footer, the eight bytes that end the file and the four that
    // start it; no page.
    assert!(
        fetched.load(Ordering::Relaxed) <= footer + 64,
        "{fetched:?} of footer {footer}"
    );
    let col = |name: &str| {
        a["columns"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["path"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(col("s")["logical"], "string");
    assert_eq!(col("ts_ns")["logical"], "timestamp(nanos, local)");
    assert_eq!(col("dec128")["type_length"], 16);
    // The writer's statistics, folded over the three row groups.
    let id = &col("id")["statistics"];
    assert_eq!(id["source"], "writer");
    assert_eq!(
        (id["min"].clone(), id["max"].clone()),
        (json!(0), json!(N - 1))
    );
    let nulls = (0..N).filter(|&i| big(i).is_none()).count();
    assert_eq!(col("big")["statistics"]["null_count"], nulls);
    let u = &col("u32")["statistics"];
    assert_eq!(u["min"], u32::MAX - (N as u32 - 1));
    assert_eq!(u["max"], u32::MAX);
    let day = &col("day")["statistics"];
    assert_eq!(day["min"], civil(-150 * 400));
    assert_eq!(day["max"], civil((N - 1 - 150) * 400));
}

/// A source that counts the bytes read through it.
#[derive(Debug)]
struct Counted {
    inner: BytesSource,
    fetched: Arc<AtomicU64>,
}

impl Source for Counted {
    fn open(&self) -> Result<Box<dyn std::io::BufRead + Send + '_>, Refusal> {
        self.inner.open()
    }
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn len(&self) -> Option<u64> {
        self.inner.len()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Option<std::io::Result<usize>> {
        let r = self.inner.read_at(offset, buf)?;
        if let Ok(n) = &r {
            self.fetched.fetch_add(*n as u64, Ordering::Relaxed);
        }
        Some(r)
    }
    fn read_range(&self, offset: u64, len: usize) -> Option<Result<bytes::Bytes, Refusal>> {
        let r = self.inner.read_range(offset, len)?;
        if let Ok(b) = &r {
            self.fetched.fetch_add(b.len() as u64, Ordering::Relaxed);
        }
        Some(r)
    }
    fn to_shared(&self) -> Option<Arc<dyn Source>> {
        Some(Arc::new(Counted {
            inner: self.inner.clone(),
            fetched: self.fetched.clone(),
        }))
    }
}

/// Three row groups of 20,000 rows: an id and a text.
fn long_file() -> Vec<u8> {
    let schema = "message m { required int64 id; required binary s (STRING); }";
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(20_000))
        .build();
    let group = |g: i64| {
        move |next: &mut Columns<'_>| {
            let ids: Vec<i64> = (g * 20_000..(g + 1) * 20_000).collect();
            next(&mut |c| {
                put::<Int64Type>(c, &ids, None, None);
            });
            let texts: Vec<ByteArray> = ids
                .iter()
                .map(|i| ByteArray::from(format!("text of row {i}").as_str()))
                .collect();
            next(&mut |c| {
                put::<ByteArrayType>(c, &texts, None, None);
            });
        }
    };
    let (a, b, c) = (group(0), group(1), group(2));
    write(schema, props, &[&a, &b, &c])
}

#[test]
fn a_window_reads_only_its_row_groups() {
    let file = long_file();
    let expected_row = |i: i64| json!({"id": i, "s": format!("text of row {i}")});
    let meta = ParquetReader
        .inspect(&source(&file), &Request::default())
        .unwrap()
        .to_json();
    let groups = meta["row_groups"]["list"].as_array().unwrap().clone();
    let last = &groups[2];
    for (offset, limit, from_end) in [(59_000, 100, None), (0, 0, Some(20))] {
        let fetched = Arc::new(AtomicU64::new(0));
        let counted = Counted {
            inner: source(&file),
            fetched: fetched.clone(),
        };
        let req = Request {
            window: Window {
                offset: from_end.is_none().then_some(offset),
                limit: from_end.is_none().then_some(limit),
                from_end,
            },
            ..Request::default()
        };
        let a = ParquetReader.select(&counted, &req).unwrap().to_json();
        assert_eq!(a["row_groups_read"], json!([2]));
        let first = a["offset"].as_u64().unwrap() as i64;
        let rows = a["rows"].as_array().unwrap();
        for (k, r) in rows.iter().enumerate() {
            assert_eq!(r, &expected_row(first + k as i64));
        }
        assert_eq!(rows.len(), if from_end.is_some() { 20 } else { 100 });
        // The footer, the last group's pages, and at most one page
        // header's read-ahead past each column chunk.
        let bound = meta["footer_bytes"].as_u64().unwrap()
            + last["compressed_bytes"].as_u64().unwrap()
            + 2 * 2 * 1024;
        let got = fetched.load(Ordering::Relaxed);
        assert!(bound < file.len() as u64, "the bound {bound} says nothing");
        assert!(got <= bound, "{got} bytes read, bound {bound}");
    }
}

#[test]
fn columns_are_projected_by_name_or_index() {
    let file = all_types();
    let a = select(&file, Some(5), Some(2), Some("s, 0, \"day\""));
    assert_eq!(a["columns"], json!(["s", "id", "day"]));
    for (k, row) in a["rows"].as_array().unwrap().iter().enumerate() {
        let want = expected_row(5 + k as i64);
        assert_eq!(
            row,
            &json!({"s": want["s"], "id": want["id"], "day": want["day"]})
        );
        let keys: Vec<&String> = row.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["s", "id", "day"]);
    }
    let req = Request {
        options: Options::new().with("columns", "nope"),
        ..Request::default()
    };
    let r = refusal(ParquetReader.select(&source(&file), &req));
    assert_eq!(r.reason(), RefusalReason::UnknownColumn);
    assert!(r.extra("available").is_some());
}

fn nested() -> Vec<u8> {
    let schema = "message m {
        optional group tags (LIST) { repeated group list { optional int32 element; } }
        optional group st { optional int32 a; optional binary b (STRING); }
    }";
    write(
        schema,
        WriterProperties::default(),
        &[&|next| {
            // [1, 2], [], null, [null]
            next(&mut |c| {
                put::<Int32Type>(c, &[1, 2], Some(&[3, 3, 1, 0, 2]), Some(&[0, 1, 0, 0, 0]));
            });
            // {a: 1, b: "x"}, {a: null, b: "y"}, null, {a: 4, b: null}
            next(&mut |c| {
                put::<Int32Type>(c, &[1, 4], Some(&[2, 1, 0, 2]), None);
            });
            next(&mut |c| {
                put::<ByteArrayType>(
                    c,
                    &[ByteArray::from("x"), ByteArray::from("y")],
                    Some(&[2, 2, 0, 1]),
                    None,
                );
            });
        }],
    )
}

#[test]
fn nested_lists_and_groups_read_as_json() {
    let a = select(&nested(), None, None, None);
    assert_eq!(
        a["rows"],
        json!([
            {"tags": [1, 2], "st": {"a": 1, "b": "x"}},
            {"tags": [], "st": {"a": null, "b": "y"}},
            {"tags": null, "st": null},
            {"tags": [null], "st": {"a": 4, "b": null}},
        ])
    );
    let v = ParquetReader
        .validate(&source(&nested()), &Request::default())
        .unwrap()
        .to_json();
    assert_eq!(v["valid"], true);
    assert_eq!(v["rows"], 4);
}

#[test]
fn a_changed_byte_in_a_page_is_found_and_nothing_panics() {
    let file = all_types();
    let clean = ParquetReader
        .validate(&source(&file), &Request::default())
        .unwrap()
        .to_json();
    assert_eq!(clean["valid"], true, "{clean}");
    assert_eq!(clean["row_groups_checked"], 3);
    let footer = clean["bytes_fetched"].as_u64().unwrap();
    assert!(footer > 0);
    // Every byte of the file changed in turn (a stride keeps it quick):
    // each answer is a verdict or a typed refusal.
    let mut faults = 0;
    for at in (4..file.len() - 8).step_by(7) {
        let mut bad = file.clone();
        bad[at] ^= 0x5a;
        let src = source(&bad);
        match ParquetReader.validate(&src, &Request::default()) {
            Ok(a) => {
                let a = a.to_json();
                if a["valid"] == false {
                    faults += 1;
                    let f = &a["fault"];
                    assert!(f["message"].as_str().unwrap().contains("malformed"), "{a}");
                    assert!(f["byte_offset"].as_u64().unwrap() <= bad.len() as u64);
                }
            }
            Err(r) => assert!(
                matches!(
                    r.reason(),
                    RefusalReason::InvalidData
                        | RefusalReason::UnsupportedFormat
                        | RefusalReason::SelectionTooLarge
                ),
                "{r:?}"
            ),
        }
        // Select and inspect answer or refuse alike.
        let _ = ParquetReader.select(&src, &Request::default());
        let _ = ParquetReader.inspect(&src, &Request::default());
    }
    assert!(faults > 0, "no changed byte was found");
}

#[test]
fn a_cut_file_is_a_footer_fault() {
    let file = all_types();
    for keep in [0usize, 3, 4, 12, file.len() / 2, file.len() - 1] {
        let src = source(&file[..keep]);
        let v = ParquetReader.validate(&src, &Request::default());
        match v {
            Ok(a) => {
                let a = a.to_json();
                assert_eq!(a["valid"], false, "{keep}: {a}");
            }
            Err(r) => assert_eq!(r.reason(), RefusalReason::InvalidData, "{keep}: {r:?}"),
        }
        let r = refusal(ParquetReader.inspect(&src, &Request::default()));
        assert_eq!(r.reason(), RefusalReason::InvalidData, "{keep}: {r:?}");
    }
}

#[test]
fn the_first_bytes_decide_whatever_the_name() {
    let mut plumb = plumb::Plumb::new();
    plumb.registry_mut().register(ParquetReader);
    let file = all_types();
    let named_csv = BytesSource::new("export.csv", file.clone());
    let d = plumb.detect_source(&named_csv, None).unwrap();
    assert_eq!(d.reader.name(), "parquet");
    // Named as another format, it is refused as what it is.
    let r = plumb.detect_source(&named_csv, Some("csv")).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::UnsupportedFormat);
    assert_eq!(r.extra("found"), Some(&json!("parquet")));
    // Without the reader registered, it is refused as before.
    let bare = plumb::Plumb::new();
    let r = bare.detect_source(&named_csv, None).unwrap_err();
    assert_eq!(r.extra("found"), Some(&json!("parquet")));
}

#[test]
fn a_compressed_parquet_file_is_refused_with_advice() {
    use std::io::Write;
    let mut plumb = plumb::Plumb::new();
    plumb.registry_mut().register(ParquetReader);
    let file = all_types();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&file).unwrap();
    let src = BytesSource::new("t.parquet.gz", gz.finish().unwrap());
    let r = plumb
        .run_source(plumb_core::Op::Inspect, &src, None, &Request::default())
        .unwrap_err();
    assert_eq!(r.reason(), RefusalReason::InvalidArgument);
    assert!(r.message().contains("random access"), "{r:?}");
}

#[test]
fn stats_read_every_value_as_select_shows_it() {
    let file = all_types();
    let req = Request {
        options: Options::new().with("stats", "true"),
        ..Request::default()
    };
    let a = ParquetReader
        .inspect(&source(&file), &req)
        .unwrap()
        .to_json();
    let stats = |name: &str| {
        a["columns"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["path"] == name)
            .map(|c| c["stats"].clone())
            .unwrap()
    };
    // Every value of the column, in all three row groups.
    let id = stats("id");
    assert_eq!(
        (id["count"].clone(), id["nulls"].clone()),
        (json!(N), json!(0))
    );
    assert_eq!(id["distinct"], N);
    assert_eq!(id["numbers"]["sum"], N * (N - 1) / 2);
    let big_nulls = (0..N).filter(|&i| big(i).is_none()).count();
    assert_eq!(stats("big")["nulls"], big_nulls);
    // Decimals by their digits: the exact sum of the test's values.
    let sum: i128 = (0..N).map(|i| i128::from(dec(i))).sum();
    let d = stats("dec32");
    assert_eq!(
        d["numbers"]["sum"],
        json!(decimal(sum, 2).parse::<f64>().unwrap())
    );
    // Text: lengths in characters, the range in byte order.
    let texts: Vec<String> = (0..N).filter_map(text).collect();
    let s = stats("s");
    assert_eq!(s["nulls"], N as usize - texts.len());
    let chars: Vec<u64> = texts.iter().map(|t| t.chars().count() as u64).collect();
    assert_eq!(s["text"]["max_length"], *chars.iter().max().unwrap());
    assert_eq!(s["text"]["min"], *texts.iter().min().unwrap());
    assert_eq!(s["text"]["max"], *texts.iter().max().unwrap());
    // Dates as their ISO text: the range is the calendar's.
    let day = stats("day");
    assert_eq!(day["text"]["min"], civil(-150 * 400));
    assert_eq!(day["text"]["max"], civil((N - 1 - 150) * 400));
    // Unsigned integers as unsigned.
    let u = stats("u32");
    assert!(
        u["numbers"]["quantiles"]["p99"].as_f64().unwrap() > 4e9,
        "{u}"
    );
    // Without the option, no value is read and no stats are given.
    let plain = ParquetReader
        .inspect(&source(&file), &Request::default())
        .unwrap()
        .to_json();
    assert!(plain["columns"][0].get("stats").is_none());
    assert!(plain["bytes_fetched"].as_u64() < a["bytes_fetched"].as_u64());
}

#[test]
fn stats_do_not_depend_on_the_threads() {
    let file = all_types();
    let run = |threads: usize| {
        let req = Request {
            options: Options::new().with("stats", "true"),
            scan: plumb_core::ScanBounds {
                threads: Some(threads),
                ..plumb_core::ScanBounds::default()
            },
            ..Request::default()
        };
        ParquetReader
            .inspect(&source(&file), &req)
            .unwrap()
            .to_json()
    };
    let one = run(1);
    assert!(one["columns"][0]["stats"].is_object());
    for threads in [2, 3, 13, 64] {
        assert_eq!(run(threads), one, "{threads} threads");
    }
}

#[test]
fn the_flat_window_and_the_row_reader_agree() {
    // Flat columns beside a list: asked alone, the flat ones are read
    // column by column past whole pages; asked with the list, row by
    // row. Small pages make the skips cross many of them.
    let schema = "message m {
        required int64 id;
        optional binary s (STRING);
        optional group tags (LIST) { repeated group list { optional int32 element; } }
    }";
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(700))
        .set_data_page_row_count_limit(50)
        .set_write_batch_size(50)
        .build();
    let group = |g: i64| {
        move |next: &mut Columns<'_>| {
            let ids: Vec<i64> = (g * 700..(g + 1) * 700).collect();
            next(&mut |c| {
                put::<Int64Type>(c, &ids, None, None);
            });
            let texts: Vec<ByteArray> = ids
                .iter()
                .filter(|i| *i % 3 != 0)
                .map(|i| ByteArray::from(format!("t{i}").as_str()))
                .collect();
            let defs: Vec<i16> = ids.iter().map(|i| i16::from(i % 3 != 0)).collect();
            next(&mut |c| {
                put::<ByteArrayType>(c, &texts, Some(&defs), None);
            });
            // Row i holds [i] when even, null when odd.
            let vals: Vec<i32> = ids
                .iter()
                .filter(|i| *i % 2 == 0)
                .map(|i| *i as i32)
                .collect();
            let defs: Vec<i16> = ids.iter().map(|i| if i % 2 == 0 { 3 } else { 0 }).collect();
            let reps = vec![0i16; ids.len()];
            next(&mut |c| {
                put::<Int32Type>(c, &vals, Some(&defs), Some(&reps));
            });
        }
    };
    let (a, b, c) = (group(0), group(1), group(2));
    let file = write(schema, props, &[&a, &b, &c]);
    for (offset, limit) in [
        (0, 10),
        (49, 3),
        (650, 120),
        (1399, 2),
        (777, 500),
        (2095, 50),
    ] {
        let flat = select(&file, Some(offset), Some(limit), Some("id,s"));
        let rows = select(&file, Some(offset), Some(limit), None);
        let projected: Vec<Value> = rows["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| json!({"id": r["id"], "s": r["s"]}))
            .collect();
        assert_eq!(flat["rows"], json!(projected), "window {offset}+{limit}");
        assert_eq!(flat["returned"], rows["returned"]);
        for (k, r) in flat["rows"].as_array().unwrap().iter().enumerate() {
            let i = offset as i64 + k as i64;
            assert_eq!(r["id"], i);
            let s = if i % 3 == 0 {
                Value::Null
            } else {
                json!(format!("t{i}"))
            };
            assert_eq!(r["s"], s);
        }
    }
}

fn search(bytes: &[u8], opts: &[(&str, Value)], offset: u64, limit: u64) -> Result<Value, Refusal> {
    search_within(bytes, opts, (offset, limit), None)
}

fn search_within(
    bytes: &[u8],
    opts: &[(&str, Value)],
    (offset, limit): (u64, u64),
    max_scan_bytes: Option<u64>,
) -> Result<Value, Refusal> {
    let mut options = Options::new();
    for (k, v) in opts {
        options = options.with(*k, v.clone());
    }
    let req = Request {
        window: Window {
            offset: Some(offset),
            limit: Some(limit),
            from_end: None,
        },
        options,
        scan: plumb_core::ScanBounds {
            max_scan_bytes,
            ..plumb_core::ScanBounds::default()
        },
    };
    ParquetReader
        .search(&source(bytes), &req)
        .map(|a| a.to_json())
}

/// Every hit of a search, continued by `next_offset` until none follow.
fn all_hits(bytes: &[u8], opts: &[(&str, Value)], limit: u64) -> Vec<i64> {
    let mut rows = Vec::new();
    let mut offset = 0;
    loop {
        let a = search(bytes, opts, offset, limit).unwrap();
        for h in a["hits"].as_array().unwrap() {
            assert_eq!(h["values"], expected_row(h["row"].as_i64().unwrap()));
            rows.push(h["row"].as_i64().unwrap());
        }
        match a["next_offset"].as_u64() {
            Some(next) => {
                assert_eq!(a["has_more"], true);
                offset = next;
            }
            None => {
                assert_eq!(a["total_exact"], true);
                return rows;
            }
        }
    }
}

/// Every hit of a search continued from where each call stopped, at the
/// limit or at a byte budget that grows by `step` each call (it counts
/// from the file's first row).
fn all_hits_within(bytes: &[u8], opts: &[(&str, Value)], step: u64) -> Vec<i64> {
    let (mut rows, mut offset, mut budget) = (Vec::new(), 0, step);
    loop {
        let a = search_within(bytes, opts, (offset, 50), Some(budget)).unwrap();
        rows.extend(
            a["hits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h["row"].as_i64().unwrap()),
        );
        let Some(next) = a["next_offset"].as_u64() else {
            assert_eq!(a["view"]["sampled"], false, "{a}");
            return rows;
        };
        offset = next;
        budget += step;
    }
}

#[test]
fn search_finds_every_hit_once_by_the_values_select_shows() {
    let file = all_types();
    // (the search's options, the rows it must find)
    type Case<'a> = (Vec<(&'a str, Value)>, Vec<i64>);
    let cases: Vec<Case<'_>> = vec![
        (
            vec![("column", json!("id")), ("where", json!(">= 290"))],
            (290..N).collect(),
        ),
        (
            vec![("column", json!("big")), ("where", json!("is null"))],
            (0..N).filter(|&i| big(i).is_none()).collect(),
        ),
        (
            // Exact decimals: the one row whose dec32 is this value.
            vec![
                ("column", json!("dec32")),
                (
                    "where",
                    json!(format!("= {}", decimal(i128::from(dec(77)), 2))),
                ),
            ],
            vec![77],
        ),
        (
            // Past 2^53, compared exactly: no double rounding.
            vec![
                ("column", json!("big")),
                ("where", json!(format!("= {}", big(4).unwrap()))),
            ],
            vec![4],
        ),
        (
            vec![("column", json!("s")), ("pattern", json!("✓ éé$"))],
            (0..N)
                .filter(|&i| text(i).is_some_and(|t| t.ends_with("✓ éé")))
                .collect(),
        ),
        (
            // Dates as their ISO text.
            vec![
                ("column", json!("day")),
                ("where", json!(format!("= {}", civil(0)))),
            ],
            vec![150],
        ),
        (
            // Any column: the text column or the unsigned one.
            vec![("pattern", json!("^(row 12 |4294967290$)"))],
            vec![5, 12],
        ),
    ];
    for (opts, want) in &cases {
        for limit in [1, 3, 20] {
            assert_eq!(
                &all_hits(&file, opts, limit),
                want,
                "{opts:?} limit {limit}"
            );
        }
        for step in [40, 333, 5000] {
            assert_eq!(
                &all_hits_within(&file, opts, step),
                want,
                "{opts:?} step {step}"
            );
        }
        let mut counted = opts.clone();
        counted.push(("count_only", json!(true)));
        let a = search(&file, &counted, 0, 5).unwrap();
        assert_eq!(a["total"], want.len(), "{opts:?}");
        assert_eq!(a["hits"], json!([]));
    }
}

#[test]
fn search_refuses_what_it_cannot_judge() {
    let r = search(
        &nested(),
        &[("column", json!("tags")), ("where", json!("is null"))],
        0,
        5,
    )
    .unwrap_err();
    assert_eq!(r.reason(), RefusalReason::InvalidArgument);
    let r = search(
        &all_types(),
        &[("column", json!("nope")), ("where", json!("= 1"))],
        0,
        5,
    )
    .unwrap_err();
    assert_eq!(r.reason(), RefusalReason::UnknownColumn);
    let r = search(&all_types(), &[("pattern", json!("(unclosed"))], 0, 5).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::InvalidArgument);
}

#[test]
fn a_float_is_searched_as_select_shows_it() {
    let file = all_types();
    // The rows whose shown value (select's JSON text) is `text`.
    let shown = |col: &str, text: &str| -> Vec<i64> {
        (0..N)
            .filter(|&i| {
                let v = &expected_row(i)[col];
                let t = match v.get("$float") {
                    Some(w) => w.as_str().unwrap().to_owned(),
                    None => v.to_string(),
                };
                t == text
            })
            .collect()
    };
    for (col, text) in [
        ("f", "1.0"),
        ("f", "0.2"),
        ("f", "NaN"),
        ("f", "Infinity"),
        ("d", "-3.3"),
    ] {
        let want = shown(col, text);
        assert!(!want.is_empty(), "{col} {text}");
        let pattern = format!("^{}$", text.replace('.', "\\."));
        let got = all_hits(
            &file,
            &[("column", json!(col)), ("pattern", json!(pattern))],
            50,
        );
        assert_eq!(got, want, "{col} {text}");
    }
}

/// A hit's row is fitted as a CSV hit's is: a wide row shows its first
/// columns and the matching one, a long text is cut and says its
/// length, and the view says so; a narrow row is whole.
#[test]
fn a_wide_hit_row_is_fitted_and_keeps_its_matching_column() {
    const WIDE: usize = 300;
    let long = "z".repeat(9_000);
    let text = long.clone();
    let mut schema = String::from("message m {");
    for k in 0..WIDE {
        schema.push_str(&format!(" required int64 c{k};"));
    }
    schema.push_str(" required binary big (STRING); }");
    let rows = 3i64;
    let group = move |next: &mut Columns<'_>| {
        for k in 0..WIDE as i64 {
            let values: Vec<i64> = (0..rows).map(|i| i * k).collect();
            next(&mut |c| put::<Int64Type>(c, &values, None, None));
        }
        let texts: Vec<ByteArray> = (0..rows)
            .map(|i| ByteArray::from(format!("{text}{i}").as_str()))
            .collect();
        next(&mut |c| put::<ByteArrayType>(c, &texts, None, None));
    };
    let file = write(&schema, WriterProperties::builder().build(), &[&group]);
    let last = format!("c{}", WIDE - 1);
    let a = search(
        &file,
        &[("column", json!(last)), ("where", json!("= 299"))],
        0,
        5,
    )
    .unwrap();
    assert_eq!(a["view"]["converted"], json!(true));
    let hit = &a["hits"][0];
    assert_eq!(
        (hit["row"].clone(), hit["column"].clone()),
        (json!(1), json!(last))
    );
    let values = hit["values"].as_object().unwrap();
    assert_eq!(values.len(), plumb_core::HIT_ROW_VALUES + 1);
    assert_eq!(values[&last], json!(299));
    assert_eq!(values["c1"], json!(1));
    let omitted = WIDE + 1 - (plumb_core::HIT_ROW_VALUES);
    assert_eq!(values["$summary"], json!({"omitted_values": omitted}));
    // The long text's column matched a pattern: kept, and cut.
    let a = search(&file, &[("pattern", json!("z2$"))], 0, 5).unwrap();
    let hit = &a["hits"][0];
    assert_eq!(
        (hit["row"].clone(), hit["column"].clone()),
        (json!(2), json!("big"))
    );
    assert_eq!(hit["values"]["big"]["bytes"], json!(long.len() + 1));
    assert!(serde_json::to_string(&a).unwrap().len() < 2 * plumb_core::HIT_ROW_BYTES);
}

/// A file of `rows` rows: `id`, a text of `len` bytes that names its row,
/// and (when `listed`) a list column, which makes select read rows
/// through the record reader rather than column windows.
fn long_texts(rows: i64, len: usize, listed: bool) -> Vec<u8> {
    let list = if listed {
        " optional group tags (LIST) { repeated group list { optional int32 element; } }"
    } else {
        ""
    };
    let schema = format!("message m {{ required int64 id; required binary text (STRING);{list} }}");
    let group = move |next: &mut Columns<'_>| {
        let ids: Vec<i64> = (0..rows).collect();
        next(&mut |c| put::<Int64Type>(c, &ids, None, None));
        let texts: Vec<ByteArray> = (0..rows)
            .map(|i| ByteArray::from(format!("{i}:{}", "t".repeat(len)).as_str()))
            .collect();
        next(&mut |c| put::<ByteArrayType>(c, &texts, None, None));
        if listed {
            let values: Vec<i32> = (0..rows as i32).collect();
            let defs = vec![3i16; rows as usize];
            let reps = vec![0i16; rows as usize];
            next(&mut |c| put::<Int32Type>(c, &values, Some(&defs), Some(&reps)));
        }
    };
    // Two row groups, so a window runs from one into the next.
    write(
        &schema,
        WriterProperties::builder().build(),
        &[&group, &group],
    )
}

#[test]
fn a_select_stays_within_its_byte_budget_and_continues_exactly() {
    let budget = plumb_parquet::PARQUET_SELECT_BUDGET_BYTES;
    for listed in [false, true] {
        // 2 x 30 rows of about 60 KB (under the 64 KiB a value may keep):
        // some seventeen rows to a window.
        let file = long_texts(30, 60_000, listed);
        let mut seen = Vec::new();
        let mut offset = 0u64;
        while offset < 60 {
            let a = select(&file, Some(offset), Some(1000), None);
            let returned = a["returned"].as_u64().unwrap();
            assert!(returned > 0, "{offset}");
            let size = serde_json::to_string(&a["rows"]).unwrap().len();
            assert!(size <= budget, "listed {listed}: {size}");
            let end = offset + returned;
            assert_eq!(a["shortened"], json!(end < 60), "{offset}");
            assert_eq!(a["has_more"], json!(end < 60));
            assert_eq!(a["view"]["exact"], json!(true));
            for row in a["rows"].as_array().unwrap() {
                // Whole and verbatim: no value was cut to fit.
                let id = row["id"].as_i64().unwrap();
                let text = row["text"].as_str().unwrap();
                assert_eq!(text, format!("{}:{}", id % 30, "t".repeat(60_000)));
                seen.push(id);
            }
            offset = end;
        }
        // Every row once, in order, across both row groups.
        let want: Vec<i64> = (0..60).map(|i| i % 30).collect();
        assert_eq!(seen, want, "listed {listed}");
        // A window the budget does not reach is not shortened.
        let a = select(&file, Some(3), Some(4), None);
        assert_eq!(
            (a["returned"].clone(), a["shortened"].clone()),
            (json!(4), json!(false))
        );
    }
}

#[test]
fn a_first_row_past_the_budget_is_cut_to_fit_and_says_so() {
    let budget = plumb_parquet::PARQUET_SELECT_BUDGET_BYTES;
    for listed in [false, true] {
        // Values are cut to 64 KiB as they are read; twenty such columns
        // pass the budget together.
        let mut schema = String::from("message m {");
        for k in 0..20 {
            schema.push_str(&format!(" required binary c{k} (STRING);"));
        }
        if listed {
            schema.push_str(
                " optional group tags (LIST) { repeated group list { optional int32 element; } }",
            );
        }
        schema.push_str(" }");
        let group = move |next: &mut Columns<'_>| {
            for k in 0..20 {
                let texts: Vec<ByteArray> = (0..3)
                    .map(|i| ByteArray::from(format!("{k}/{i}{}", "w".repeat(70_000)).as_str()))
                    .collect();
                next(&mut |c| put::<ByteArrayType>(c, &texts, None, None));
            }
            if listed {
                next(&mut |c| put::<Int32Type>(c, &[7, 8, 9], Some(&[3, 3, 3]), Some(&[0, 0, 0])));
            }
        };
        let file = write(&schema, WriterProperties::builder().build(), &[&group]);
        let a = select(&file, Some(1), None, None);
        assert_eq!(a["returned"], json!(1), "listed {listed}");
        assert_eq!(a["shortened"], json!(true));
        assert_eq!(a["has_more"], json!(true));
        assert_eq!(a["view"]["converted"], json!(true));
        let row = a["rows"][0].as_object().unwrap();
        // Every column is there, each cut to a start of its text.
        assert_eq!(row.len(), if listed { 21 } else { 20 });
        for k in 0..20 {
            let v = &row[&format!("c{k}")];
            let kept = v["$truncated"].as_str().unwrap();
            assert!(kept.starts_with(&format!("{k}/1w")), "{k}: {kept:.20}");
        }
        if listed {
            assert_eq!(row["tags"], json!([8]));
        }
        let size = serde_json::to_string(&a["rows"]).unwrap().len();
        assert!(size <= budget + 4096, "{size}");
        // The next window starts at the row after it.
        let b = select(&file, Some(2), None, None);
        assert_eq!(b["offset"], json!(2));
        assert!(b["rows"][0]["c0"]["$truncated"]
            .as_str()
            .unwrap()
            .starts_with("0/2w"));
    }
}

#[test]
fn hits_read_together_across_row_groups_are_the_rows_select_gives() {
    let file = long_file();
    // Every tenth row, from just before the first row group's end: forty
    // hits, read sixteen at a time, crossing into the second group.
    let a = search(
        &file,
        &[("column", json!("s")), ("pattern", json!("7$"))],
        19_950,
        40,
    )
    .unwrap();
    let hits = a["hits"].as_array().unwrap();
    let rows: Vec<i64> = hits.iter().map(|h| h["row"].as_i64().unwrap()).collect();
    let want: Vec<i64> = (0..40).map(|k| 19_957 + 10 * k).collect();
    assert_eq!(rows, want);
    for h in hits {
        let row = h["row"].as_i64().unwrap();
        assert_eq!(
            h["values"],
            json!({"id": row, "s": format!("text of row {row}")})
        );
        let one = select(&file, Some(row as u64), Some(1), None);
        assert_eq!(h["values"], one["rows"][0]);
    }
    assert_eq!(a["view"]["exact"], json!(true));
    // The search continues from the next hit's row.
    assert_eq!(a["next_offset"], json!(20_357));
}

#[test]
fn hit_rows_wider_than_a_hit_shows_keep_their_first_and_matching_columns() {
    // 300 columns over 40 rows in two row groups: row i holds 7 only in
    // column 256 + i % 40 (past the columns a hit shows), so the hits
    // read together match in different columns.
    const WIDE: i64 = 300;
    const ROWS: i64 = 40;
    let mut schema = String::from("message m {");
    for k in 0..WIDE {
        schema.push_str(&format!(" required int64 c{k};"));
    }
    schema.push_str(" }");
    let group = |g: i64| {
        move |next: &mut Columns<'_>| {
            for k in 0..WIDE {
                let values: Vec<i64> = (g * 20..(g + 1) * 20)
                    .map(|i| {
                        if k == 256 + i % 40 {
                            7
                        } else {
                            i * 1000 + k + 8
                        }
                    })
                    .collect();
                next(&mut |c| put::<Int64Type>(c, &values, None, None));
            }
        }
    };
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(20))
        .build();
    let (a, b) = (group(0), group(1));
    let file = write(&schema, props, &[&a, &b]);
    let found = search(&file, &[("where", json!("= 7"))], 0, 1000).unwrap();
    let hits = found["hits"].as_array().unwrap();
    assert_eq!(hits.len(), ROWS as usize);
    for h in hits {
        let row = h["row"].as_i64().unwrap();
        let column = format!("c{}", 256 + row % 40);
        assert_eq!(h["column"], json!(column));
        let values = h["values"].as_object().unwrap();
        assert_eq!(values[&column], json!(7));
        assert_eq!(values["c0"], json!(row * 1000 + 8));
        assert_eq!(values.len(), plumb_core::HIT_ROW_VALUES + 1);
        // The row a one-row select gives, fitted as a hit is.
        let mut whole = select(&file, Some(row as u64), Some(1), None)["rows"][0].clone();
        let keep = whole.as_object().unwrap().keys().position(|k| *k == column);
        assert!(plumb_core::fit_hit_row(&mut whole, keep));
        assert_eq!(h["values"], whole);
    }
}

#[test]
fn leaf_columns_past_the_statistics_cap_are_described_without() {
    let cap = plumb_stats::STATS_MAX_COLUMNS;
    let width = cap + 8;
    let fields: String = (0..width)
        .map(|c| format!("required int64 c{c}; "))
        .collect();
    let schema = format!("message m {{ {fields}}}");
    let group: &Group = &move |cols| {
        for c in 0..width {
            cols(&mut |w| put::<Int64Type>(w, &[c as i64, 7], None, None));
        }
    };
    let file = write(&schema, WriterProperties::default(), &[group]);
    let req = Request {
        options: Options::new().with("stats", "true"),
        ..Request::default()
    };
    let a = ParquetReader
        .inspect(&source(&file), &req)
        .unwrap()
        .to_json();
    let columns = a["columns"].as_array().unwrap();
    assert_eq!(columns.len(), width);
    assert!(columns[..cap].iter().all(|c| c["stats"]["count"] == 2));
    assert!(columns[cap..].iter().all(|c| c["stats"].is_null()));
    assert_eq!(
        a["view"]["exact"], false,
        "the answer says statistics were left out"
    );
}

#[test]
fn each_op_declares_the_layout_its_answer_follows() {
    use plumb_core::Layout;
    let file = all_types();
    let src = source(&file);
    let mut search = Request::default();
    search.options.set("pattern", json!("1"));
    let layouts = [
        ParquetReader
            .inspect(&src, &Request::default())
            .unwrap()
            .layout(),
        ParquetReader
            .select(&src, &Request::default())
            .unwrap()
            .layout(),
        ParquetReader
            .validate(&src, &Request::default())
            .unwrap()
            .layout(),
        ParquetReader.search(&src, &search).unwrap().layout(),
    ];
    assert_eq!(
        layouts,
        [
            Layout::ColumnarSchema,
            Layout::NamedRows,
            Layout::Verdict,
            Layout::NamedRowHits
        ]
    );
}
