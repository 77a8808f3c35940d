//! Inspect's `stats` scan: every value of every leaf column read, one
//! column chunk at a time, into plumb's own statistics (the same
//! fixed-memory, mergeable figures CSV and JSON give: distinct count,
//! top values, moments, quantiles, text ranges), beside the writer's.
//!
//! Each value is fed as the text select would show it, so a top value
//! or a range reads as a row's value does: a decimal by its digits, a
//! date or timestamp as ISO text, an unsigned integer as unsigned.

use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{AsBytes, DataType};
use parquet::file::reader::{FileReader, RowGroupReader};
use parquet::schema::types::ColumnDescriptor;
use serde_json::Value;

use plumb_core::{Refusal, RefusalReason, COLUMN_TRACK_CAP};
use plumb_stats::{ColumnSketch, NumberIn, StatsBudget, ValueStats, STATS_MAX_COLUMNS};

use crate::budget::Budget;
use crate::value::{self, Leaf};
use crate::Opened;

/// Values read from a column chunk at a time.
const SCAN_BATCH: usize = 4096;

/// One column's statistics as the scan gathers them.
struct Gathered {
    stats: ValueStats,
    count: u64,
    nulls: u64,
    budget: Budget,
}

/// Reads every value of the first [`STATS_MAX_COLUMNS`] leaf columns and
/// returns each one's statistics (settled, to report or to merge with
/// other files'), in column order, and whether a column
/// stopped at its share of `max_bytes` (see [`crate::budget`]). Columns
/// are shared out among `threads` threads (a column is one thread's,
/// whole): a column's figures do not depend on how many there were.
pub(crate) fn scan(
    opened: &Opened,
    threads: usize,
    max_bytes: Option<u64>,
) -> Result<(Vec<ColumnSketch>, bool), Refusal> {
    let meta = opened.reader.metadata();
    let n = meta
        .file_metadata()
        .schema_descr()
        .num_columns()
        .min(COLUMN_TRACK_CAP)
        .min(STATS_MAX_COLUMNS);
    let threads = threads.clamp(1, n.max(1));
    let column = |c: usize| column(opened, c, Budget::share(max_bytes, n));
    if threads == 1 {
        return Ok(gathered((0..n).map(column).collect::<Result<Vec<_>, _>>()?));
    }
    // Each thread takes the next column not yet taken. Columns are taken
    // in order, so when one fails every column before it is already
    // taken and will be finished: the failure reported is the first
    // column's, as one thread reports it, however the threads ran.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    type Part = Result<Vec<(usize, Column)>, (usize, Refusal)>;
    let done: Vec<Part> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        if failed.load(std::sync::atomic::Ordering::Relaxed) {
                            return Ok(mine);
                        }
                        let c = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if c >= n {
                            return Ok(mine);
                        }
                        match crate::guarded(|| column(c)) {
                            Ok(r) => mine.push((c, r)),
                            Err(e) => {
                                failed.store(true, std::sync::atomic::Ordering::Relaxed);
                                return Err((c, e));
                            }
                        }
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join().unwrap_or_else(|_| {
                    Err((
                        n,
                        Refusal::new(
                            RefusalReason::InvalidData,
                            "the Parquet file is malformed: a scan thread failed on it",
                        ),
                    ))
                })
            })
            .collect()
    });
    let mut all = Vec::with_capacity(n);
    let mut first_failure: Option<(usize, Refusal)> = None;
    for part in done {
        match part {
            Ok(columns) => all.extend(columns),
            Err((c, e)) => {
                if first_failure.as_ref().is_none_or(|(f, _)| c < *f) {
                    first_failure = Some((c, e));
                }
            }
        }
    }
    if let Some((_, e)) = first_failure {
        return Err(e);
    }
    all.sort_by_key(|(c, _)| *c);
    Ok(gathered(all.into_iter().map(|(_, r)| r).collect()))
}

/// A column's statistics, and whether it stopped at its budget.
type Column = (ColumnSketch, bool);

/// The columns' statistics, and whether any stopped at its budget.
fn gathered(columns: Vec<Column>) -> (Vec<ColumnSketch>, bool) {
    let stopped = columns.iter().any(|(_, s)| *s);
    (columns.into_iter().map(|(r, _)| r).collect(), stopped)
}

/// Column `c`'s statistics, from every row group until `budget` runs
/// out, and whether it did.
fn column(opened: &Opened, c: usize, budget: Budget) -> Result<Column, Refusal> {
    let meta = opened.reader.metadata();
    let descr = meta.file_metadata().schema_descr().column(c);
    let mut g = Gathered {
        stats: ValueStats::new(StatsBudget::for_index(c)),
        count: 0,
        nulls: 0,
        budget,
    };
    for i in 0..meta.num_row_groups() {
        if opened.chunks.cancelled() {
            return Err(Refusal::new(
                RefusalReason::Aborted,
                "the caller cancelled the scan",
            ));
        }
        let group = opened.row_group(i).map_err(|e| crate::refusal_of(&e))?;
        let reader = group
            .get_column_reader(c)
            .map_err(|e| crate::refusal_of(&e))?;
        gather(reader, &descr, &mut g)?;
        if g.budget.out() {
            break;
        }
    }
    let out = g.budget.out();
    Ok((ColumnSketch::new(g.stats, g.count, g.nulls), out))
}

fn gather(reader: ColumnReader, descr: &ColumnDescriptor, g: &mut Gathered) -> Result<(), Refusal> {
    let leaf = value::leaf_of(descr.self_type());
    match reader {
        ColumnReader::BoolColumnReader(r) => each(r, g, |v: &bool, s| {
            s.add_value(if *v { b"true" } else { b"false" });
        }),
        ColumnReader::Int32ColumnReader(r) => each(r, g, |v: &i32, s| {
            let v = if leaf == Leaf::Unsigned {
                i64::from(*v as u32)
            } else {
                i64::from(*v)
            };
            integer(v, leaf, descr, s);
        }),
        ColumnReader::Int64ColumnReader(r) => each(r, g, |v: &i64, s| {
            if leaf == Leaf::Unsigned && *v < 0 {
                let text = (*v as u64).to_string();
                s.add_value(text.as_bytes());
                s.add_number(NumberIn::Rounded(*v as u64 as f64));
            } else {
                integer(*v, leaf, descr, s);
            }
        }),
        ColumnReader::Int96ColumnReader(r) => each(r, g, |v, s| {
            let ticks = i128::from(v.to_nanos());
            if let Value::String(t) = value::timestamp_json(ticks, 9, true) {
                text(&t, s);
            }
        }),
        ColumnReader::FloatColumnReader(r) => {
            let mut buf = ryu::Buffer::new();
            each(r, g, move |v: &f32, s| {
                let shown = value::f32_shown(*v);
                s.add_value(value::float_text(shown, &mut buf).0.as_bytes());
                s.add_number(NumberIn::Float(shown));
            })
        }
        ColumnReader::DoubleColumnReader(r) => {
            let mut buf = ryu::Buffer::new();
            each(r, g, move |v: &f64, s| {
                s.add_value(value::float_text(*v, &mut buf).0.as_bytes());
                s.add_number(NumberIn::Float(*v));
            })
        }
        ColumnReader::ByteArrayColumnReader(r) => each(r, g, |v, s| bytes(v.data(), leaf, s)),
        ColumnReader::FixedLenByteArrayColumnReader(r) => {
            each(r, g, |v, s| bytes(v.as_bytes(), leaf, s))
        }
    }
}

/// Feeds every non-null value of a column chunk to `feed`, counting the
/// chunk's levels and its nulls (a level with no value: a null, or an
/// empty or null list), until the budget runs out: the values of the
/// batch it ran out in are then counted as far as they were fed.
fn each<T: DataType>(
    mut r: ColumnReaderImpl<T>,
    g: &mut Gathered,
    mut feed: impl FnMut(&T::T, &mut ValueStats),
) -> Result<(), Refusal> {
    let mut def = Vec::new();
    let mut rep = Vec::new();
    let mut values = Vec::new();
    loop {
        def.clear();
        rep.clear();
        values.clear();
        let (records, _, levels) = r
            .read_records(SCAN_BATCH, Some(&mut def), Some(&mut rep), &mut values)
            .map_err(|e| crate::refusal_of(&e))?;
        if records == 0 && levels == 0 {
            return Ok(());
        }
        // A required column has no levels: every value is one.
        let levels = levels.max(values.len());
        for (k, v) in values.iter().enumerate() {
            if !g.budget.take_value(v) {
                g.count += k as u64;
                return Ok(());
            }
            feed(v, &mut g.stats);
        }
        g.count += levels as u64;
        g.nulls += (levels - values.len()) as u64;
    }
}

fn text(t: &str, s: &mut ValueStats) {
    s.add_value(t.as_bytes());
    s.add_text(t.as_bytes(), t.chars().count() as u64);
}

fn integer(v: i64, leaf: Leaf, descr: &ColumnDescriptor, s: &mut ValueStats) {
    if let Leaf::Decimal { scale } = leaf {
        let t = value::decimal_text(&v.to_be_bytes(), scale);
        s.add_value(t.as_bytes());
        s.add_number(match u32::try_from(scale) {
            Ok(scale) if scale <= 18 => NumberIn::Decimal { mantissa: v, scale },
            _ => NumberIn::Rounded(t.parse().unwrap_or(f64::NAN)),
        });
        return;
    }
    match value::int_json(v, descr.self_type(), descr.physical_type()) {
        // Dates, times and timestamps: their ISO text.
        Value::String(t) => text(&t, s),
        _ => {
            s.add_value(v.to_string().as_bytes());
            s.add_number(NumberIn::Int(v));
        }
    }
}

fn bytes(data: &[u8], leaf: Leaf, s: &mut ValueStats) {
    match leaf {
        Leaf::Text => match std::str::from_utf8(data) {
            Ok(t) => text(t, s),
            Err(_) => s.add_value(data),
        },
        Leaf::Decimal { scale } if !data.is_empty() => {
            let t = value::decimal_text(data, scale);
            s.add_value(t.as_bytes());
            // Eight bytes or fewer hold the digits exactly.
            let mantissa = (data.len() <= 8 && (0..=18).contains(&scale)).then(|| {
                let fill = if data[0] & 0x80 != 0 { 0xff } else { 0 };
                let mut w = [fill; 8];
                w[8 - data.len()..].copy_from_slice(data);
                i64::from_be_bytes(w)
            });
            match mantissa {
                Some(m) => s.add_number(NumberIn::Decimal {
                    mantissa: m,
                    scale: scale as u32,
                }),
                None => s.add_number(NumberIn::Rounded(t.parse().unwrap_or(f64::NAN))),
            }
        }
        _ => s.add_value(data),
    }
}
