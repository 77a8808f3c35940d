//! Parquet select: a window of rows, read from the row groups that hold
//! it and no others, with the top-level columns asked for.
//!
//! Reference (for flat columns read column by column): the crate's row
//! reader. Held equal by:
//! `tests/it.rs::the_flat_window_and_the_row_reader_agree`.

use std::collections::HashMap;
use std::sync::Arc;

use parquet::basic::{LogicalType, Repetition, Type as PhysicalType};
use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{ByteArray, DataType};
use parquet::file::reader::{FileReader, RowGroupReader};
use parquet::schema::types::{ColumnDescriptor, SchemaDescriptor, Type};
use serde::Serialize;
use serde_json::{Map, Value};

use plumb_core::{
    clamp_limit, impl_answer, json_len, Refusal, RefusalReason, Request, SelectWindow, ViewFlags,
};

use crate::value::{self, row_json, Cuts, Leaf};
use crate::{refusal_of, Opened};

/// The most bytes of JSON text the rows of one Parquet select take
/// (each value of a flat row also costing
/// [`PARQUET_SELECT_CELL_FRAME_BYTES`]): a window stops before the row
/// that would pass it (`shortened`), and a first row that alone passes
/// it has its largest values cut to fit (each saying its full length),
/// as CSV select's budget does. A file of a few KiB whose rows repeat a
/// long string (dictionary encoded, compressed) thus cannot make a select
/// of a gigabyte.
pub const PARQUET_SELECT_BUDGET_BYTES: usize = 1024 * 1024;

/// What each value of a flat row costs the budget beside its text: it is
/// a member of the row's object in memory, its name repeated in every
/// row, so a window of thousands of short columns is bounded by what it
/// holds, not only by what it prints.
pub const PARQUET_SELECT_CELL_FRAME_BYTES: usize = 16;

/// The answer of Parquet select.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ParquetSelect {
    /// Always true.
    pub ok: bool,
    /// `parquet`.
    pub format: &'static str,
    /// Exact, or converted when a value was cut (a `$truncated`, `$hex`
    /// with `bytes`, or `$more` placeholder).
    pub view: ViewFlags,
    /// The top-level columns returned, in order.
    pub columns: Vec<String>,
    /// The rows, each an object of its columns; row `offset + i` is
    /// `rows[i]`.
    pub rows: Vec<Value>,
    /// The window (flattened): `offset`, the first row returned
    /// (0-based); `limit`; `returned`; `has_more`, whether rows follow.
    #[serde(flatten)]
    pub window: SelectWindow,
    /// Whether [`PARQUET_SELECT_BUDGET_BYTES`] ended the window before
    /// the limit (continue from `offset + returned`).
    pub shortened: bool,
    /// Rows in the file, as the footer counts them.
    pub total_rows: u64,
    /// The row groups read (0-based).
    pub row_groups_read: Vec<usize>,
    /// Bytes read from the source to answer.
    pub bytes_fetched: u64,
}

impl_answer!(ParquetSelect, layout: NamedRows, window: window);

/// The top-level fields `wanted` names (a name, or digits for a 0-based
/// index when no field has that name), in the order asked.
pub(crate) fn projection(root: &Type, wanted: &[&str]) -> Result<Vec<Arc<Type>>, Refusal> {
    let fields = root.get_fields();
    let mut out: Vec<Arc<Type>> = Vec::new();
    for &name in wanted {
        let quoted = name.len() >= 2 && name.starts_with('"') && name.ends_with('"');
        let bare = if quoted {
            &name[1..name.len() - 1]
        } else {
            name
        };
        let by_name: Vec<&Arc<Type>> = fields.iter().filter(|f| f.name() == bare).collect();
        let found = match by_name.as_slice() {
            [one] => Some((*one).clone()),
            [] if !quoted && !bare.is_empty() && bare.bytes().all(|b| b.is_ascii_digit()) => bare
                .parse::<usize>()
                .ok()
                .and_then(|i| fields.get(i))
                .cloned(),
            [] => None,
            _ => {
                return Err(Refusal::invalid_argument(format!(
                "column `{}` is the name of {} top-level columns; Parquet names should be unique",
                plumb_core::echo(bare),
                by_name.len()
            )))
            }
        };
        let Some(field) = found else {
            let available: Vec<Value> = fields
                .iter()
                .take(20)
                .map(|f| Value::from(plumb_core::echo(f.name())))
                .collect();
            return Err(Refusal::new(
                RefusalReason::UnknownColumn,
                format!(
                    "column `{}` is not a top-level column of this file; name one of those listed in `available`, or a 0-based index",
                    plumb_core::echo(bare)
                ),
            )
            .with_extra("available", Value::from(available))
            .with_extra("available_total", Value::from(fields.len())));
        };
        if out.iter().any(|f| Arc::ptr_eq(f, &field)) {
            return Err(Refusal::invalid_argument(format!(
                "column `{}` is asked for twice",
                plumb_core::echo(bare)
            )));
        }
        out.push(field);
    }
    Ok(out)
}

pub(crate) fn select(opened: &Opened, req: &Request) -> Result<ParquetSelect, Refusal> {
    let meta = opened.reader.metadata();
    let root = meta.file_metadata().schema_descr().root_schema();
    let total: u64 = meta
        .row_groups()
        .iter()
        .map(|g| u64::try_from(g.num_rows()).unwrap_or(0))
        .sum();
    let (offset, limit) = match req.window.from_end {
        Some(n) => (
            total.saturating_sub(n),
            clamp_limit(Some(n.min(total).max(1))),
        ),
        None => (
            req.window.offset.unwrap_or(0),
            clamp_limit(req.window.limit),
        ),
    };
    // Normalized here too, for a caller that calls the reader directly
    // with `columns` as one comma-separated string.
    let mut options = req.options.clone();
    options.normalize(&crate::PARQUET_OPTIONS)?;
    let wanted = options.list("columns");
    let (fields, proj): (Vec<Arc<Type>>, Option<Type>) = match wanted {
        Some(names) if !names.is_empty() => {
            let fields = projection(root, &names)?;
            let proj = Type::group_type_builder(root.name())
                .with_fields(fields.clone())
                .build()
                .map_err(|e| refusal_of(&e))?;
            (fields, Some(proj))
        }
        _ => (root.get_fields().to_vec(), None),
    };
    let shape = proj.clone().unwrap_or_else(|| root.clone());
    let flat = flat_leaves(meta.file_metadata().schema_descr(), &fields);
    let mut rows = Vec::new();
    let mut read = Vec::new();
    let mut cuts = Cuts::default();
    let mut start = 0u64;
    let end = offset.saturating_add(limit as u64);
    let mut used = 0usize;
    let mut shortened = false;
    for (i, group) in meta.row_groups().iter().enumerate() {
        if shortened {
            break;
        }
        let n = u64::try_from(group.num_rows()).unwrap_or(0);
        let (from, to) = (start, start + n);
        start = to;
        if to <= offset || n == 0 {
            continue;
        }
        if from >= end {
            break;
        }
        if opened.chunks.cancelled() {
            return Err(Refusal::new(
                RefusalReason::Aborted,
                "the caller cancelled the select",
            ));
        }
        read.push(i);
        let reader = opened.row_group(i).map_err(|e| refusal_of(&e))?;
        let skip = offset.saturating_sub(from);
        let take = end.min(to) - from.max(offset);
        if let Some(leaves) = flat.as_deref() {
            // Flat columns: whole pages before the window are passed
            // over by their headers, and only the window is decoded.
            let room = PARQUET_SELECT_BUDGET_BYTES.saturating_sub(used);
            let (bytes, stopped) =
                window_of_flat(&reader, leaves, (skip, take), &mut rows, &mut cuts, room)?;
            used += bytes;
            shortened = stopped;
            continue;
        }
        let iter = reader
            .get_row_iter(proj.clone())
            .map_err(|e| refusal_of(&e))?;
        for (k, row) in iter.enumerate() {
            let at = from + k as u64;
            if at < offset {
                continue;
            }
            if at >= end || at >= to {
                break;
            }
            let row = row.map_err(|e| refusal_of(&e))?;
            let row = row_json(&row, &shape, &mut cuts);
            let size = json_len(&row) + 1;
            if !rows.is_empty() && used + size > PARQUET_SELECT_BUDGET_BYTES {
                shortened = true;
                break;
            }
            used += size;
            rows.push(row);
            if used > PARQUET_SELECT_BUDGET_BYTES {
                // The first row alone: cut to fit below, and the last.
                shortened = at + 1 < end.min(total);
                break;
            }
        }
    }
    if let [row] = rows.as_mut_slice() {
        if json_len(row) > PARQUET_SELECT_BUDGET_BYTES {
            cuts.converted |= plumb_core::fit_row_to_bytes(row, PARQUET_SELECT_BUDGET_BYTES);
        }
    }
    let returned = rows.len();
    Ok(ParquetSelect {
        ok: true,
        format: "parquet",
        view: ViewFlags::exact().with_cut(cuts.converted),
        columns: fields.iter().map(|f| f.name().to_owned()).collect(),
        rows,
        window: SelectWindow {
            offset,
            limit,
            returned,
            has_more: offset.saturating_add(returned as u64) < total,
        },
        shortened,
        total_rows: total,
        row_groups_read: read,
        bytes_fetched: opened.chunks.fetched(),
    })
}

/// The leaf column indices of `fields` when every one is a top-level
/// primitive of a type the window path renders as the row path does
/// (no list, group or map; no float16), in the order asked.
fn flat_leaves(schema: &SchemaDescriptor, fields: &[Arc<Type>]) -> Option<Vec<usize>> {
    let leaves = top_level_leaves(schema);
    fields
        .iter()
        .map(|f| {
            if !f.is_primitive() || f.get_basic_info().repetition() == Repetition::REPEATED {
                return None;
            }
            let c = *leaves.get(f.name())?;
            let leaf = value::leaf_of(f);
            let float16 = matches!(
                f.get_basic_info().logical_type_ref(),
                Some(LogicalType::Float16)
            );
            let ok = match f.get_physical_type() {
                PhysicalType::FIXED_LEN_BYTE_ARRAY => {
                    !float16 && matches!(leaf, Leaf::Decimal { .. } | Leaf::Plain)
                }
                PhysicalType::BYTE_ARRAY => !float16,
                _ => true,
            };
            ok.then_some(c)
        })
        .collect()
}

/// The leaf column of each top-level primitive field, by the field's
/// name (the first, should two share one), in one pass over the leaves:
/// a search of the leaves per field would be quadratic in a wide file.
pub(crate) fn top_level_leaves(schema: &SchemaDescriptor) -> HashMap<&str, usize> {
    let mut out = HashMap::new();
    for c in 0..schema.num_columns() {
        let root = schema.get_column_root(c);
        if root.is_primitive() {
            out.entry(root.name()).or_insert(c);
        }
    }
    out
}

/// Rows `skip..skip + take` of a row group whose projected columns are
/// `leaves` (flat), appended to `rows` as objects, within `room` bytes of
/// JSON text: the bytes the rows kept take, and whether the budget ended
/// the window before `take` rows.
///
/// Read a column at a time, so a row's size is known only at the last
/// column; but sizes only grow, so once the rows up to `r` pass `room`
/// in the columns read so far, no row from `r` on can be returned and
/// later columns are read only up to it. What is held stays near `room`
/// (plus the first row of a window whole, which the caller then cuts).
fn window_of_flat(
    group: &dyn RowGroupReader,
    leaves: &[usize],
    (skip, take): (u64, u64),
    rows: &mut Vec<Value>,
    cuts: &mut Cuts,
    room: usize,
) -> Result<(usize, bool), Refusal> {
    let first = rows.len();
    let wanted = usize::try_from(take).unwrap_or(usize::MAX);
    let skip = usize::try_from(skip).unwrap_or(usize::MAX);
    let mut take = wanted;
    // Each row's bytes so far: its braces and the comma after it.
    let mut sizes: Vec<usize> = vec![3; take];
    let schema = group.metadata().schema_descr();
    let mut columns: Vec<(String, Vec<Value>)> = Vec::with_capacity(leaves.len());
    for &c in leaves {
        if take == 0 {
            break;
        }
        let descr = schema.column(c);
        let node = descr.self_type();
        let name = node.name().to_owned();
        let mut reader = group.get_column_reader(c).map_err(|e| refusal_of(&e))?;
        // A key, its quotes, its colon and a comma, and the member.
        let key = name.len() + 4 + PARQUET_SELECT_CELL_FRAME_BYTES;
        let mut prefix = 0usize;
        let mut fits = |r: usize, v: &Value| {
            sizes[r] += key + json_len(v);
            prefix += sizes[r];
            // The window's first row is always returned.
            prefix <= room || (r == 0 && first == 0)
        };
        let (values, stopped) = column_window(&mut reader, &descr, (skip, take), cuts, &mut fits)?;
        let reached = values.len();
        if reached < take && !stopped {
            return Err(Refusal::new(
                RefusalReason::InvalidData,
                format!(
                    "the Parquet file is malformed: column {name} holds {reached} of the {take} rows asked"
                ),
            ));
        }
        take = reached;
        for (_, earlier) in &mut columns {
            if earlier.len() > take {
                earlier.truncate(take);
                earlier.shrink_to_fit();
            }
        }
        columns.push((name, values));
    }
    let width = columns.len();
    let mut built: Vec<Map<String, Value>> = (0..take).map(|_| Map::with_capacity(width)).collect();
    for (name, values) in columns {
        for (row, v) in built.iter_mut().zip(values) {
            row.insert(name.clone(), v);
        }
    }
    rows.extend(built.into_iter().map(Value::Object));
    let bytes = sizes[..take].iter().sum();
    Ok((bytes, take < wanted))
}

/// The leaf columns of the file's top-level fields, when every one is
/// flat (see [`flat_rows_at`]); `None` when a row needs the row reader.
pub(crate) fn file_flat_leaves(opened: &Opened) -> Option<Vec<usize>> {
    let schema = opened.reader.metadata().file_metadata().schema_descr();
    flat_leaves(schema, schema.root_schema().get_fields())
}

/// Rows `rows` (0-based in the file, ascending) as select returns them,
/// in a file whose top-level fields are all flat, with leaf columns
/// `leaves` ([`file_flat_leaves`]): each column of a row group is read
/// once across the rows it holds, so rows that share a page or a
/// dictionary decode it once. A search lists its hits so, a few at a
/// time (and works out `leaves` once for all of them).
///
/// Only the columns `read` takes (by their place in `leaves`) are read;
/// every other one is a `null` in its place: a hit row keeps only its
/// first columns and its matching one, so in a wide file the rest
/// would be read to be dropped.
pub(crate) fn flat_rows_at(
    opened: &Opened,
    leaves: &[usize],
    rows: &[u64],
    read: &dyn Fn(usize) -> bool,
) -> Result<(Vec<Value>, bool), Refusal> {
    let meta = opened.reader.metadata();
    let schema = meta.file_metadata().schema_descr();
    let mut out: Vec<Map<String, Value>> = rows.iter().map(|_| Map::new()).collect();
    let mut cuts = Cuts::default();
    let mut start = 0u64;
    let mut next = 0;
    for (i, group) in meta.row_groups().iter().enumerate() {
        let n = u64::try_from(group.num_rows()).unwrap_or(0);
        let (from, to) = (start, start + n);
        start = to;
        let held = rows[next..].iter().take_while(|&&r| r < to).count();
        if held == 0 {
            continue;
        }
        let mine = next..next + held;
        next += held;
        let reader = opened.row_group(i).map_err(|e| refusal_of(&e))?;
        for (j, &c) in leaves.iter().enumerate() {
            let descr = schema.column(c);
            let name = descr.self_type().name().to_owned();
            if !read(j) {
                for row in &mut out[mine.clone()] {
                    row.insert(name.clone(), Value::Null);
                }
                continue;
            }
            let mut column = reader.get_column_reader(c).map_err(|e| refusal_of(&e))?;
            let mut at = from;
            for k in mine.clone() {
                let skip = usize::try_from(rows[k] - at).unwrap_or(usize::MAX);
                let (mut value, _) =
                    column_window(&mut column, &descr, (skip, 1), &mut cuts, &mut |_, _| true)?;
                let Some(v) = value.pop() else {
                    return Err(Refusal::new(
                        RefusalReason::InvalidData,
                        format!(
                            "the Parquet file is malformed: column {name} has no value for row {}",
                            rows[k]
                        ),
                    ));
                };
                out[k].insert(name.clone(), v);
                at = rows[k] + 1;
            }
        }
    }
    Ok((out.into_iter().map(Value::Object).collect(), cuts.converted))
}

/// Whether row `r` of the window, given its value `v` of a column, may
/// still be returned.
type Fits<'a> = &'a mut dyn FnMut(usize, &Value) -> bool;

/// One flat column's values for the window, nulls in place, up to the
/// first that `fits` refuses (and whether one was refused).
fn column_window(
    reader: &mut ColumnReader,
    descr: &ColumnDescriptor,
    (skip, take): (usize, usize),
    cuts: &mut Cuts,
    fits: Fits<'_>,
) -> Result<(Vec<Value>, bool), Refusal> {
    let node = descr.self_type();
    let physical = descr.physical_type();
    let leaf = value::leaf_of(node);
    match reader {
        ColumnReader::BoolColumnReader(r) => {
            window(r, descr, (skip, take), fits, |v| Value::Bool(*v))
        }
        ColumnReader::Int32ColumnReader(r) => window(r, descr, (skip, take), fits, |v| {
            value::int_json(i64::from(*v), node, physical)
        }),
        ColumnReader::Int64ColumnReader(r) => window(r, descr, (skip, take), fits, |v| {
            value::int_json(*v, node, physical)
        }),
        ColumnReader::Int96ColumnReader(r) => window(r, descr, (skip, take), fits, |v| {
            value::timestamp_json(i128::from(v.to_millis()), 3, true)
        }),
        ColumnReader::FloatColumnReader(r) => window(r, descr, (skip, take), fits, |v| {
            value::float_json(f64::from(*v), &v.to_string())
        }),
        ColumnReader::DoubleColumnReader(r) => window(r, descr, (skip, take), fits, |v| {
            value::float_json(*v, &v.to_string())
        }),
        ColumnReader::ByteArrayColumnReader(r) => {
            window(r, descr, (skip, take), fits, |v| match leaf {
                Leaf::Decimal { scale } => {
                    value::number_text(&value::decimal_text(v.data(), scale))
                }
                _ => value::bytes_json(v, leaf, cuts),
            })
        }
        ColumnReader::FixedLenByteArrayColumnReader(r) => {
            window(r, descr, (skip, take), fits, |v| match leaf {
                Leaf::Decimal { scale } => {
                    value::number_text(&value::decimal_text(v.data(), scale))
                }
                // As the row path shows fixed bytes: text when they
                // read as UTF-8, else hex.
                _ => value::bytes_json(&ByteArray::from(v.data().to_vec()), leaf, cuts),
            })
        }
    }
}

/// Skips `skip` rows of a flat column and renders the next `take`, up
/// to the first that `fits` refuses.
fn window<T: DataType>(
    r: &mut ColumnReaderImpl<T>,
    descr: &ColumnDescriptor,
    (skip, take): (usize, usize),
    fits: Fits<'_>,
    mut render: impl FnMut(&T::T) -> Value,
) -> Result<(Vec<Value>, bool), Refusal> {
    let skipped = r.skip_records(skip).map_err(|e| refusal_of(&e))?;
    if skipped != skip {
        return Ok((Vec::new(), false));
    }
    let optional = descr.max_def_level() > 0;
    // Grown as values fit, not sized to `take`: a wide file's window
    // ends after few rows, and every column would hold room for all.
    let mut out = Vec::new();
    let mut def = Vec::new();
    let mut values = Vec::new();
    while out.len() < take {
        def.clear();
        values.clear();
        let (records, _, levels) = r
            .read_records(take - out.len(), Some(&mut def), None, &mut values)
            .map_err(|e| refusal_of(&e))?;
        if records == 0 {
            break;
        }
        let mut next = values.iter();
        let count = if optional { levels } else { values.len() };
        for i in 0..count {
            let v = if optional && def.get(i) != Some(&descr.max_def_level()) {
                Value::Null
            } else {
                next.next().map_or(Value::Null, &mut render)
            };
            if !fits(out.len(), &v) {
                return Ok((out, true));
            }
            out.push(v);
        }
    }
    Ok((out, false))
}
