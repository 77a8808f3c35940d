//! Parquet search: the rows where a top-level column (or any) matches a
//! pattern or satisfies a predicate, each returned whole with its row
//! number, and the row of the next hit to continue from.
//!
//! The judged columns are read together, a batch of rows at a time,
//! from the row the search starts at (the pages before it passed over by
//! their headers); each value is judged as select shows it: a number by
//! its digits, a date or timestamp as its ISO text, text as itself, a
//! null as null. Only top-level primitive columns are judged; a list,
//! group or map column is refused when named and passed over otherwise.

use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::DataType;
use parquet::file::reader::{FileReader, RowGroupReader};
use parquet::schema::types::{ColumnDescPtr, ColumnDescriptor};
use serde::Serialize;
use serde_json::Value;

use plumb_core::{
    impl_answer, Conditions, MatchMode, Predicate, Query, Refusal, RefusalReason, Request,
    SearchProgress, SearchWindow, Subject, SubjectKind, ViewFlags, Window, COLUMN_TRACK_CAP,
    HIT_ROW_VALUES,
};

use crate::budget::Budget;
use crate::value::{self, Cuts, Leaf};

/// Hits whose rows are read together: each column of a row group once
/// for all of them. Their rows are held whole until fitted, so few.
const HITS_READ_TOGETHER: usize = 16;
use crate::{refusal_of, Opened};

/// Rows read from each judged column at a time.
const SEARCH_BATCH: usize = 1024;

/// One row that matched.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ParquetHit {
    /// The 0-based row (the `offset` a select of it takes).
    pub row: u64,
    /// The first column that matched.
    pub column: String,
    /// The row, as select returns it.
    pub values: Value,
}

/// The answer of Parquet search.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ParquetSearch {
    /// Always true.
    pub ok: bool,
    /// `parquet`.
    pub format: &'static str,
    /// Exact, or converted when a hit's value was cut.
    pub view: ViewFlags,
    /// The column searched, or null for every top-level primitive column
    /// (and with conditions, which name their own).
    pub column: Option<String>,
    /// The conditions each row was judged by, when a search gave them
    /// (`{"match": "all", "of": [...]}`); left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Conditions>,
    /// The hits, in row order (none with `count_only`).
    pub hits: Vec<ParquetHit>,
    /// The window (flattened): `offset`, the row the search started at;
    /// `limit`; `returned`, the hits returned; and how many hits were
    /// seen and where to continue.
    #[serde(flatten)]
    pub window: SearchWindow,
}

impl_answer!(ParquetSearch, layout: NamedRowHits, window: window);

/// A judged column: its leaf index, name, and the predicate its values
/// are judged by (a column named by two conditions is judged twice).
struct Judged<'q> {
    leaf: usize,
    name: String,
    predicate: &'q Predicate,
}

/// The columns `query` judges: each condition's, or the one `wanted`
/// (every top-level primitive column when `None`) by its predicate.
fn judged_for<'q>(
    opened: &Opened,
    query: &'q Query,
    wanted: Option<&str>,
) -> Result<Vec<Judged<'q>>, Refusal> {
    let Some(conditions) = &query.conditions else {
        return judged_columns(opened, wanted, &query.predicate);
    };
    if wanted.is_some() {
        return Err(Refusal::invalid_argument(
            "conditions name their own columns; leave column out, or give one test in where",
        ));
    }
    let mut judged = Vec::with_capacity(conditions.items.len());
    for c in &conditions.items {
        judged.extend(judged_columns(opened, Some(&c.target), &c.predicate)?);
    }
    Ok(judged)
}

fn judged_columns<'q>(
    opened: &Opened,
    wanted: Option<&str>,
    predicate: &'q Predicate,
) -> Result<Vec<Judged<'q>>, Refusal> {
    let schema = opened.reader.metadata().file_metadata().schema_descr();
    let root = schema.root_schema();
    let leaves = crate::select::top_level_leaves(schema);
    let flat = |name: &str| leaves.get(name).copied();
    match wanted {
        Some(name) => {
            let fields = crate::select::projection(root, &[name])?;
            let field = &fields[0];
            let leaf = flat(field.name()).filter(|_| {
                field.is_primitive()
                    && field.get_basic_info().repetition() != parquet::basic::Repetition::REPEATED
            });
            match leaf {
                Some(leaf) => Ok(vec![Judged {
                    leaf,
                    name: field.name().to_owned(),
                    predicate,
                }]),
                None => Err(Refusal::invalid_argument(format!(
                    "column `{}` is a list, group or map; search judges top-level primitive columns: name one of those, or select the rows and look",
                    plumb_core::echo(field.name())
                ))),
            }
        }
        None => Ok(root
            .get_fields()
            .iter()
            .filter(|f| {
                f.is_primitive()
                    && f.get_basic_info().repetition() != parquet::basic::Repetition::REPEATED
            })
            .filter_map(|f| {
                Some(Judged {
                    leaf: flat(f.name())?,
                    name: f.name().to_owned(),
                    predicate,
                })
            })
            .take(COLUMN_TRACK_CAP)
            .collect()),
    }
}

/// A column reader of one row group, read a batch of rows at a time,
/// each row judged.
struct Cursor {
    reader: ColumnReader,
    descr: ColumnDescPtr,
}

impl Cursor {
    /// Judges the next `n` rows, setting `hits[k]` for a row that
    /// matches, until `budget` runs out; returns the rows read, and the
    /// first row not judged when the budget ran out.
    fn judge(
        &mut self,
        n: usize,
        predicate: &Predicate,
        hits: &mut [bool],
        budget: &mut Budget,
    ) -> Result<(usize, Option<usize>), Refusal> {
        let descr = std::sync::Arc::clone(&self.descr);
        let node = descr.self_type();
        let physical = descr.physical_type();
        let leaf = value::leaf_of(node);
        let test = |kind: SubjectKind, text: &[u8]| predicate.test(&Subject::new(kind, text));
        let json_subject = |v: &Value| -> bool {
            match v {
                Value::String(s) => test(SubjectKind::Text, s.as_bytes()),
                Value::Number(x) => test(SubjectKind::Number, x.to_string().as_bytes()),
                Value::Object(m) => match m.get("$literal").and_then(Value::as_str) {
                    Some(l) => test(SubjectKind::Number, l.as_bytes()),
                    None => test(SubjectKind::Text, v.to_string().as_bytes()),
                },
                _ => false,
            }
        };
        let mut cuts = Cuts::default();
        let mut buf = ryu::Buffer::new();
        // A float as select shows it: a finite one by its number text, a
        // NaN or infinity by its placeholder's word, as text.
        let float_subject = |v: f64, buf: &mut ryu::Buffer| {
            let (text, finite) = value::float_text(v, buf);
            let kind = if finite {
                SubjectKind::Number
            } else {
                SubjectKind::Text
            };
            test(kind, text.as_bytes())
        };
        match &mut self.reader {
            ColumnReader::BoolColumnReader(r) => {
                batch(r, &descr, (n, budget), hits, predicate, |v| {
                    test(SubjectKind::Bool, if *v { b"true" } else { b"false" })
                })
            }
            ColumnReader::Int32ColumnReader(r) => {
                batch(r, &descr, (n, budget), hits, predicate, |v| {
                    json_subject(&value::int_json(i64::from(*v), node, physical))
                })
            }
            ColumnReader::Int64ColumnReader(r) => {
                batch(r, &descr, (n, budget), hits, predicate, |v| {
                    json_subject(&value::int_json(*v, node, physical))
                })
            }
            ColumnReader::Int96ColumnReader(r) => {
                batch(r, &descr, (n, budget), hits, predicate, |v| {
                    json_subject(&value::timestamp_json(i128::from(v.to_millis()), 3, true))
                })
            }
            ColumnReader::FloatColumnReader(r) => {
                batch(r, &descr, (n, budget), hits, predicate, |v| {
                    float_subject(value::f32_shown(*v), &mut buf)
                })
            }
            ColumnReader::DoubleColumnReader(r) => {
                batch(r, &descr, (n, budget), hits, predicate, |v| {
                    float_subject(*v, &mut buf)
                })
            }
            ColumnReader::ByteArrayColumnReader(r) => {
                batch(r, &descr, (n, budget), hits, predicate, |v| {
                    match leaf {
                        Leaf::Decimal { scale } => test(
                            SubjectKind::Number,
                            value::decimal_text(v.data(), scale).as_bytes(),
                        ),
                        // Text, and bytes that are not called text, by their bytes.
                        _ => test(SubjectKind::Text, v.data()),
                    }
                })
            }
            ColumnReader::FixedLenByteArrayColumnReader(r) => {
                batch(r, &descr, (n, budget), hits, predicate, |v| match leaf {
                    Leaf::Decimal { scale } => test(
                        SubjectKind::Number,
                        value::decimal_text(v.data(), scale).as_bytes(),
                    ),
                    _ => json_subject(&value::hex_json(v.data(), &mut cuts)),
                })
            }
        }
    }
}

/// Reads the next `n` rows of a flat column, or-ing each row's verdict
/// into `hits` (a null is judged as null), each value charged to the
/// budget first; returns the rows read, and the first row not judged
/// when the budget ran out.
fn batch<T: DataType>(
    r: &mut ColumnReaderImpl<T>,
    descr: &ColumnDescriptor,
    (n, budget): (usize, &mut Budget),
    hits: &mut [bool],
    predicate: &Predicate,
    mut judge: impl FnMut(&T::T) -> bool,
) -> Result<(usize, Option<usize>), Refusal> {
    let mut def = Vec::new();
    let mut values = Vec::new();
    let (records, _, levels) = r
        .read_records(n, Some(&mut def), None, &mut values)
        .map_err(|e| refusal_of(&e))?;
    let null = predicate.test(&Subject::new(SubjectKind::Null, b""));
    if descr.max_def_level() > 0 {
        let mut next = values.iter();
        for (k, &d) in def.iter().take(levels).enumerate() {
            let hit = if d == descr.max_def_level() {
                match next.next() {
                    Some(v) if !budget.take_value(v) => return Ok((records, Some(k))),
                    v => v.is_some_and(&mut judge),
                }
            } else if !budget.take(1) {
                return Ok((records, Some(k)));
            } else {
                null
            };
            if let Some(h) = hits.get_mut(k) {
                *h |= hit;
            }
        }
    } else {
        for (k, v) in values.iter().enumerate() {
            if !budget.take_value(v) {
                return Ok((records, Some(k)));
            }
            if let Some(h) = hits.get_mut(k) {
                *h |= judge(v);
            }
        }
    }
    Ok((records, None))
}

pub(crate) fn search(opened: &Opened, req: &Request) -> Result<ParquetSearch, Refusal> {
    let query = Query::judging_conditions(req)?;
    let mut options = req.options.clone();
    options.normalize(&crate::PARQUET_OPTIONS)?;
    let wanted = options.text("column").map(str::to_owned);
    let judged = judged_for(opened, &query, wanted.as_deref())?;
    // Every condition must hold: a row is a hit when each judged column's
    // verdict is; otherwise (any, or one predicate) when one is.
    let all = query
        .conditions
        .as_ref()
        .is_some_and(|c| c.mode == MatchMode::All);
    let meta = opened.reader.metadata();
    let mut progress = SearchProgress::default();
    // Each judged column has its share of the budget, so that every
    // row before the first a column could not judge was judged by all.
    let mut budgets = vec![Budget::share(query.max_scan_bytes, judged.len()); judged.len()];
    let mut found: Vec<(u64, usize)> = Vec::new();
    // Hits still to pass over before one is kept (`Query::skip_hits`).
    let mut skip_left = query.skip_hits;
    let mut start = 0u64;
    'groups: for (g, group) in meta.row_groups().iter().enumerate() {
        let rows = u64::try_from(group.num_rows()).unwrap_or(0);
        let (from, to) = (start, start + rows);
        start = to;
        if to <= query.offset || rows == 0 || judged.is_empty() {
            continue;
        }
        if opened.chunks.cancelled() {
            return Err(Refusal::new(
                RefusalReason::Aborted,
                "the caller cancelled the search",
            ));
        }
        let reader = opened.row_group(g).map_err(|e| refusal_of(&e))?;
        let skip = query.offset.saturating_sub(from);
        let mut cursors = Vec::with_capacity(judged.len());
        for j in &judged {
            let mut column = reader
                .get_column_reader(j.leaf)
                .map_err(|e| refusal_of(&e))?;
            skip_rows(&mut column, skip)?;
            cursors.push(Cursor {
                reader: column,
                descr: meta.file_metadata().schema_descr().column(j.leaf),
            });
        }
        let mut at = from + skip;
        while at < to {
            let n = usize::try_from(to - at)
                .unwrap_or(usize::MAX)
                .min(SEARCH_BATCH);
            // Per row: the first judged column that matched.
            let mut first: Vec<Option<usize>> = vec![None; n];
            let mut every = vec![true; n];
            // Rows every judged column judged: all, unless the budget ran out.
            let mut judged_rows = n;
            for (ci, cursor) in cursors.iter_mut().enumerate() {
                let mut hits = vec![false; n];
                let (read, stop) =
                    cursor.judge(n, judged[ci].predicate, &mut hits, &mut budgets[ci])?;
                if let Some(k) = stop {
                    judged_rows = judged_rows.min(k);
                }
                if read != n {
                    return Err(Refusal::new(
                        RefusalReason::InvalidData,
                        format!(
                            "the Parquet file is malformed: column {} of row group {g} ends before its rows do",
                            judged[ci].name
                        ),
                    ));
                }
                for ((f, e), h) in first.iter_mut().zip(every.iter_mut()).zip(hits) {
                    if h && f.is_none() {
                        *f = Some(ci);
                    }
                    *e &= h;
                }
            }
            if all {
                for (f, e) in first.iter_mut().zip(&every) {
                    *f = e.then_some(0);
                }
            }
            first.truncate(judged_rows);
            for (k, f) in first.into_iter().enumerate() {
                let Some(ci) = f else { continue };
                progress.total += 1;
                if query.count_only {
                    continue;
                }
                if skip_left > 0 {
                    // Passed over (the last hits are asked for).
                    skip_left -= 1;
                    continue;
                }
                if found.len() == query.limit {
                    progress.has_more = true;
                    progress.next_offset = Some(at + k as u64);
                    break 'groups;
                }
                found.push((at + k as u64, ci));
            }
            if judged_rows < n {
                progress.stopped_before(at + judged_rows as u64);
                break 'groups;
            }
            at += n as u64;
        }
    }
    let stopped = budgets.iter().any(Budget::out);
    if !stopped {
        progress.total_exact = !progress.has_more;
    }
    // Each hit's row, whole, as select gives it: a few hits at a time,
    // each column of a flat file read once across them (a select per
    // hit would decode the same pages and dictionaries again for every
    // hit in them), and few enough that rows of long values are held
    // only until they are fitted.
    let mut hits = Vec::with_capacity(found.len());
    let mut view = ViewFlags::of_scan(stopped);
    let flat = crate::select::file_flat_leaves(opened);
    let places = flat.as_deref().map(|leaves| key_places(opened, leaves));
    for chunk in found.chunks(HITS_READ_TOGETHER) {
        let rows: Vec<u64> = chunk.iter().map(|&(row, _)| row).collect();
        let read = match (flat.as_deref(), places.as_ref()) {
            (Some(leaves), Some((names, places, wide))) => {
                // In a row wider than a hit shows, only the columns
                // `fit_hit_row` keeps: the first, and the ones matched.
                let matched: Vec<&str> = chunk
                    .iter()
                    .map(|&(_, ci)| judged[ci].name.as_str())
                    .collect();
                let kept = |j: usize| {
                    !wide || places[j] < HIT_ROW_VALUES || matched.contains(&names[j].as_str())
                };
                let (values, converted) =
                    crate::select::flat_rows_at(opened, leaves, &rows, &kept)?;
                view = view.with_cut(converted);
                values
            }
            _ => {
                let mut values = Vec::with_capacity(rows.len());
                for &row in &rows {
                    let one = Request {
                        window: Window {
                            offset: Some(row),
                            limit: Some(1),
                            from_end: None,
                        },
                        ..Request::default()
                    };
                    let picked = crate::select::select(opened, &one)?;
                    view = if picked.view.exact { view } else { picked.view };
                    values.push(picked.rows.into_iter().next().unwrap_or(Value::Null));
                }
                values
            }
        };
        for (&(row, ci), mut values) in chunk.iter().zip(read) {
            let column = judged[ci].name.clone();
            // A wide or long row is fitted as a CSV hit's is, its
            // matching column kept.
            let keep = values
                .as_object()
                .and_then(|m| m.keys().position(|k| *k == column));
            if plumb_core::fit_hit_row(&mut values, keep) {
                view = view.with_cut(true);
            }
            hits.push(ParquetHit {
                row,
                column,
                values,
            });
        }
    }
    Ok(ParquetSearch {
        ok: true,
        format: "parquet",
        view,
        column: wanted.and(judged.first().map(|j| j.name.clone())),
        conditions: query.conditions.clone(),
        window: SearchWindow {
            offset: query.offset,
            passed_over: query.skip_hits,
            limit: query.limit,
            returned: hits.len(),
            progress,
        },
        hits,
    })
}

fn skip_rows(reader: &mut ColumnReader, n: u64) -> Result<(), Refusal> {
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    if n == 0 {
        return Ok(());
    }
    let skipped = match reader {
        ColumnReader::BoolColumnReader(r) => r.skip_records(n),
        ColumnReader::Int32ColumnReader(r) => r.skip_records(n),
        ColumnReader::Int64ColumnReader(r) => r.skip_records(n),
        ColumnReader::Int96ColumnReader(r) => r.skip_records(n),
        ColumnReader::FloatColumnReader(r) => r.skip_records(n),
        ColumnReader::DoubleColumnReader(r) => r.skip_records(n),
        ColumnReader::ByteArrayColumnReader(r) => r.skip_records(n),
        ColumnReader::FixedLenByteArrayColumnReader(r) => r.skip_records(n),
    }
    .map_err(|e| refusal_of(&e))?;
    if skipped != n {
        return Err(Refusal::new(
            RefusalReason::InvalidData,
            "the Parquet file is malformed: a column chunk ends before its row group's rows",
        ));
    }
    Ok(())
}

/// For each of a flat file's top-level leaf columns `leaves`: its name,
/// and its place among the members of a row (a name that two columns
/// share is one member, at the first one's place); and whether a row has
/// more members than a hit shows ([`HIT_ROW_VALUES`]).
fn key_places(opened: &Opened, leaves: &[usize]) -> (Vec<String>, Vec<usize>, bool) {
    let schema = opened.reader.metadata().file_metadata().schema_descr();
    let names: Vec<String> = leaves
        .iter()
        .map(|&c| schema.column(c).self_type().name().to_owned())
        .collect();
    let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let places = names
        .iter()
        .map(|n| {
            let next = first.len();
            *first.entry(n.as_str()).or_insert(next)
        })
        .collect();
    let wide = first.len() > HIT_ROW_VALUES;
    (names, places, wide)
}
