//! Parquet inspect, from the footer alone: the schema, the row count,
//! the row groups and each column's sizes, codecs, encodings and the
//! statistics its writer stored (labelled as the writer's).

use std::collections::BTreeSet;

use parquet::basic::{ConvertedType, Type as PhysicalType};
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaData};
use parquet::file::reader::FileReader;
use parquet::file::statistics::Statistics;
use parquet::schema::types::ColumnDescriptor;
use serde::Serialize;
use serde_json::Value;

use plumb_core::{impl_answer, Refusal, ViewFlags, COLUMN_TRACK_CAP};
use plumb_stats::StatsReport;

use crate::value::{self, Cuts};
use crate::Opened;

/// The most row groups an inspect lists one by one (the rest are
/// counted, and summed in the totals).
pub const PARQUET_LIST_ROW_GROUPS: usize = 100;

/// The most key-value metadata keys an inspect names.
pub const PARQUET_LIST_KEYS: usize = 50;

/// The most bytes of the schema's text an inspect returns.
pub const PARQUET_SCHEMA_TEXT_BYTES: usize = 16 << 10;

/// The answer of Parquet inspect.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ParquetInspect {
    /// Always true.
    pub ok: bool,
    /// `parquet`.
    pub format: &'static str,
    /// Exact: every figure comes from the footer, whole.
    pub view: ViewFlags,
    /// The file's size.
    pub file_bytes: u64,
    /// The footer's size (the metadata the figures come from).
    pub footer_bytes: u64,
    /// Rows, as the footer counts them.
    pub rows: u64,
    /// The writer, as it named itself.
    pub created_by: Option<String>,
    /// The row groups.
    pub row_groups: RowGroups,
    /// The columns its user defined (the schema's top-level fields, the
    /// first 10,000), each with its type (`list<string>`, `struct<…>`)
    /// and how many of `columns` are its leaves, in order.
    pub fields: Vec<crate::types::FieldType>,
    /// The leaf columns, in schema order (the first 10,000).
    pub columns: Vec<ColumnReport>,
    /// Leaf columns past the first 10,000, not listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub columns_omitted: usize,
    /// The schema as Parquet's message-type text (cut to 16 KiB, with
    /// `schema_bytes` then saying its full length).
    pub schema: String,
    /// The full length of the schema text when it was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_bytes: Option<usize>,
    /// The keys of the footer's key-value metadata (values can be large:
    /// an embedded Arrow or pandas schema), the first 50.
    pub metadata_keys: Vec<String>,
    /// Bytes read from the source to answer.
    pub bytes_fetched: u64,
    /// With statistics and [`plumb_core::ScanBounds::sketches`]: each
    /// top-level field's settled statistics, for a merge with other
    /// files' (a field of one leaf column; a nested field's leaves have
    /// none). Not part of the JSON.
    #[serde(skip)]
    #[schemars(skip)]
    pub sketches: Option<plumb_stats::ColumnSketches>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The row groups, summed and listed.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct RowGroups {
    /// How many.
    pub count: usize,
    /// The first 100.
    pub list: Vec<RowGroupReport>,
}

/// One row group.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct RowGroupReport {
    /// Its rows.
    pub rows: u64,
    /// The byte offset of its first column chunk.
    pub byte_offset: u64,
    /// Its column chunks' bytes as stored (compressed).
    pub compressed_bytes: u64,
    /// Its column chunks' bytes uncompressed.
    pub uncompressed_bytes: u64,
}

/// One leaf column.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ColumnReport {
    /// Its path, dotted (`address.city`; a list's element shows its
    /// levels: `tags.list.element`).
    pub path: String,
    /// The top-level field (the column its user defined) it belongs to.
    pub column: String,
    /// Its type as its values read (`string`, `timestamp[us]`,
    /// `decimal(10,2)`, `binary`): the logical annotation, else the
    /// legacy converted type, else the physical type.
    #[serde(rename = "type")]
    pub kind: String,
    /// The physical type (`INT64`, `BYTE_ARRAY`, `FIXED_LEN_BYTE_ARRAY`).
    pub physical: String,
    /// The width of a fixed-length byte array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub type_length: Option<i32>,
    /// The logical type (`string`, `decimal(10,2)`,
    /// `timestamp(micros, utc)`), or null.
    pub logical: Option<String>,
    /// The legacy converted type an older writer gave, or null.
    pub converted: Option<String>,
    /// `required`, `optional` or `repeated` (the leaf's own repetition).
    pub repetition: &'static str,
    /// Whether a value may be missing (the leaf or a level above it is
    /// optional or repeated).
    pub nullable: bool,
    /// The highest definition level (nesting of optional levels).
    pub max_definition_level: i16,
    /// The highest repetition level (nesting of lists).
    pub max_repetition_level: i16,
    /// The codecs its chunks are compressed with.
    pub compression: Vec<String>,
    /// The encodings its chunks use.
    pub encodings: Vec<String>,
    /// Values (nulls included) in all its chunks.
    pub values: u64,
    /// Bytes as stored.
    pub compressed_bytes: u64,
    /// Bytes uncompressed.
    pub uncompressed_bytes: u64,
    /// The statistics its writer stored, or null when none did.
    pub statistics: Option<WriterStatistics>,
    /// plumb's own statistics of every value, with `stats` (left out
    /// otherwise): for a repeated column, of each list's values, an
    /// empty or null list counting as a null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<StatsReport>,
}

/// Statistics as the writer stored them in the footer: plumb read no
/// value to make them.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct WriterStatistics {
    /// Always `writer`.
    pub source: &'static str,
    /// Row groups whose chunk carries statistics, of all row groups:
    /// a figure below is given only when every row group has it.
    pub row_groups: usize,
    /// Nulls in the column (the sum over its chunks).
    pub null_count: Option<u64>,
    /// Distinct values, when the file has one row group and its writer
    /// counted them (distinct counts of chunks do not add up).
    pub distinct_count: Option<u64>,
    /// The smallest value, read as the column's type.
    pub min: Option<Value>,
    /// The largest value.
    pub max: Option<Value>,
    /// Whether the writer said `min` and `max` are values of the column
    /// (false: a bound, such as a long string cut short).
    pub min_max_exact: bool,
}

impl_answer!(ParquetInspect, layout: ColumnarSchema, sketches: sketches);

pub(crate) fn inspect(opened: &Opened) -> Result<ParquetInspect, Refusal> {
    let meta = opened.reader.metadata();
    let file = meta.file_metadata();
    let schema = file.schema_descr();
    let groups = meta.row_groups();
    let list = groups
        .iter()
        .take(PARQUET_LIST_ROW_GROUPS)
        .map(|g| RowGroupReport {
            rows: u64::try_from(g.num_rows()).unwrap_or(0),
            byte_offset: g.columns().first().map_or(0, chunk_start),
            compressed_bytes: u64::try_from(g.compressed_size()).unwrap_or(0),
            uncompressed_bytes: u64::try_from(g.total_byte_size()).unwrap_or(0),
        })
        .collect();
    let columns = (0..schema.num_columns().min(COLUMN_TRACK_CAP))
        .map(|i| column_report(meta, i, &schema.column(i)))
        .collect();
    let mut text = Vec::new();
    parquet::schema::printer::print_schema(&mut text, schema.root_schema());
    let full = text.len();
    let mut schema_text = String::from_utf8_lossy(&text).into_owned();
    let cut = full > PARQUET_SCHEMA_TEXT_BYTES;
    if cut {
        let mut at = PARQUET_SCHEMA_TEXT_BYTES;
        while !schema_text.is_char_boundary(at) {
            at -= 1;
        }
        schema_text.truncate(at);
    }
    Ok(ParquetInspect {
        ok: true,
        format: "parquet",
        view: ViewFlags::exact().with_cut(cut),
        file_bytes: opened.len,
        footer_bytes: opened.footer_bytes,
        rows: u64::try_from(file.num_rows()).unwrap_or(0),
        created_by: file.created_by().map(str::to_owned),
        row_groups: RowGroups {
            count: groups.len(),
            list,
        },
        fields: crate::types::field_types(schema.root_schema(), COLUMN_TRACK_CAP),
        columns,
        columns_omitted: schema.num_columns().saturating_sub(COLUMN_TRACK_CAP),
        schema: schema_text,
        schema_bytes: cut.then_some(full),
        metadata_keys: file
            .key_value_metadata()
            .map(|kv| {
                kv.iter()
                    .take(PARQUET_LIST_KEYS)
                    .map(|k| plumb_core::echo(&k.key))
                    .collect()
            })
            .unwrap_or_default(),
        bytes_fetched: opened.chunks.fetched(),
        sketches: None,
    })
}

/// Where a column chunk's bytes begin (its dictionary page, if any).
pub(crate) fn chunk_start(c: &ColumnChunkMetaData) -> u64 {
    let data = c.data_page_offset();
    let start = c
        .dictionary_page_offset()
        .filter(|&d| d > 0 && d < data)
        .unwrap_or(data);
    u64::try_from(start).unwrap_or(0)
}

fn column_report(meta: &ParquetMetaData, i: usize, descr: &ColumnDescriptor) -> ColumnReport {
    let node = descr.self_type();
    let mut compression = BTreeSet::new();
    let mut encodings = BTreeSet::new();
    let (mut values, mut compressed, mut uncompressed) = (0u64, 0u64, 0u64);
    let chunks: Vec<&ColumnChunkMetaData> = meta
        .row_groups()
        .iter()
        .filter_map(|g| g.columns().get(i))
        .collect();
    for c in &chunks {
        let codec = format!("{:?}", c.compression()).to_ascii_lowercase();
        // The codec, not its level: `zstd`, not `zstd(zstdlevel(1))`.
        compression.insert(codec.split('(').next().unwrap_or_default().to_owned());
        for e in c.encodings() {
            encodings.insert(format!("{e:?}"));
        }
        values += u64::try_from(c.num_values()).unwrap_or(0);
        compressed += u64::try_from(c.compressed_size()).unwrap_or(0);
        uncompressed += u64::try_from(c.uncompressed_size()).unwrap_or(0);
    }
    let physical = descr.physical_type();
    ColumnReport {
        path: descr.path().string(),
        column: descr.path().parts().first().cloned().unwrap_or_default(),
        kind: crate::types::leaf_type(descr),
        physical: physical.to_string(),
        type_length: (physical == PhysicalType::FIXED_LEN_BYTE_ARRAY).then(|| descr.type_length()),
        logical: value::logical_text(node),
        converted: (descr.converted_type() != ConvertedType::NONE)
            .then(|| descr.converted_type().to_string()),
        repetition: if node.get_basic_info().has_repetition() {
            match node.get_basic_info().repetition() {
                parquet::basic::Repetition::REQUIRED => "required",
                parquet::basic::Repetition::OPTIONAL => "optional",
                parquet::basic::Repetition::REPEATED => "repeated",
            }
        } else {
            "required"
        },
        nullable: descr.max_def_level() > 0,
        max_definition_level: descr.max_def_level(),
        max_repetition_level: descr.max_rep_level(),
        compression: compression.into_iter().collect(),
        encodings: encodings.into_iter().collect(),
        values,
        compressed_bytes: compressed,
        uncompressed_bytes: uncompressed,
        statistics: writer_statistics(&chunks, descr),
        stats: None,
    }
}

/// A value of a statistic, comparable within its column.
#[derive(Clone, Debug, PartialEq, PartialOrd)]
enum Key {
    Bool(bool),
    Int(i128),
    Float(f64),
    Bytes(Vec<u8>),
}

fn writer_statistics(
    chunks: &[&ColumnChunkMetaData],
    descr: &ColumnDescriptor,
) -> Option<WriterStatistics> {
    let stats: Vec<&Statistics> = chunks.iter().filter_map(|c| c.statistics()).collect();
    if stats.is_empty() {
        return None;
    }
    let all = stats.len() == chunks.len();
    let null_count = if all {
        stats
            .iter()
            .map(|s| s.null_count_opt())
            .sum::<Option<u64>>()
    } else {
        None
    };
    let distinct_count = (chunks.len() == 1)
        .then(|| stats[0].distinct_count_opt())
        .flatten();
    let node = descr.self_type();
    let physical = descr.physical_type();
    // Min and max are folded across chunks only where their order is
    // plain (numbers, booleans, text compared bytewise); elsewhere only
    // a single chunk's are given.
    let ordered = match physical {
        PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY => value::is_text(node),
        PhysicalType::INT96 => false,
        _ => true,
    };
    let mut lo: Option<(Key, Value)> = None;
    let mut hi: Option<(Key, Value)> = None;
    let mut exact = true;
    let mut complete = all && (ordered || chunks.len() == 1);
    let mut cuts = Cuts::default();
    for s in &stats {
        let Some((min, max)) = bounds(s, descr, &mut cuts) else {
            complete = false;
            break;
        };
        exact &= s.min_is_exact() && s.max_is_exact();
        if lo.as_ref().is_none_or(|(k, _)| min.0 < *k) {
            lo = Some(min);
        }
        if hi.as_ref().is_none_or(|(k, _)| max.0 > *k) {
            hi = Some(max);
        }
    }
    let (min, max) = if complete {
        (lo.map(|(_, v)| v), hi.map(|(_, v)| v))
    } else {
        (None, None)
    };
    Some(WriterStatistics {
        source: "writer",
        row_groups: stats.len(),
        null_count,
        distinct_count,
        min_max_exact: exact && min.is_some() && !cuts.converted,
        min,
        max,
    })
}

/// A chunk's min and max, each as a comparable key and its JSON value;
/// `None` when the chunk has no min or max, or a float bound is NaN.
fn bounds(
    s: &Statistics,
    descr: &ColumnDescriptor,
    cuts: &mut Cuts,
) -> Option<((Key, Value), (Key, Value))> {
    let node = descr.self_type();
    let physical = descr.physical_type();
    let unsigned = value::is_unsigned(node);
    let int = |v: i64, width_mask: u64| {
        let key = if unsigned {
            Key::Int(i128::from(v as u64 & width_mask))
        } else {
            Key::Int(i128::from(v))
        };
        (key, value::int_json(v, node, physical))
    };
    let float =
        |v: f64, text: String| (!v.is_nan()).then(|| (Key::Float(v), value::float_json(v, &text)));
    Some(match s {
        Statistics::Boolean(v) => {
            let (a, b) = (*v.min_opt()?, *v.max_opt()?);
            (
                (Key::Bool(a), Value::Bool(a)),
                (Key::Bool(b), Value::Bool(b)),
            )
        }
        Statistics::Int32(v) => (
            int(i64::from(*v.min_opt()?), u64::from(u32::MAX)),
            int(i64::from(*v.max_opt()?), u64::from(u32::MAX)),
        ),
        Statistics::Int64(v) => (int(*v.min_opt()?, u64::MAX), int(*v.max_opt()?, u64::MAX)),
        Statistics::Int96(_) => return None,
        Statistics::Float(v) => (
            float(f64::from(*v.min_opt()?), v.min_opt()?.to_string())?,
            float(f64::from(*v.max_opt()?), v.max_opt()?.to_string())?,
        ),
        Statistics::Double(v) => (
            float(*v.min_opt()?, v.min_opt()?.to_string())?,
            float(*v.max_opt()?, v.max_opt()?.to_string())?,
        ),
        Statistics::ByteArray(v) => {
            let (a, b) = (v.min_opt()?.data(), v.max_opt()?.data());
            (
                (
                    Key::Bytes(a.to_vec()),
                    value::bytes_stat_json(a, node, cuts),
                ),
                (
                    Key::Bytes(b.to_vec()),
                    value::bytes_stat_json(b, node, cuts),
                ),
            )
        }
        Statistics::FixedLenByteArray(v) => {
            let (a, b) = (v.min_opt()?.data(), v.max_opt()?.data());
            (
                (
                    Key::Bytes(a.to_vec()),
                    value::bytes_stat_json(a, node, cuts),
                ),
                (
                    Key::Bytes(b.to_vec()),
                    value::bytes_stat_json(b, node, cuts),
                ),
            )
        }
    })
}
