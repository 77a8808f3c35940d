//! plumb's Parquet reader, written against plumb-core's public
//! [`FormatReader`] seam alone, as any downstream format would be.
//!
//! ```
//! use std::sync::Arc;
//! use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
//! use parquet::file::properties::WriterProperties;
//! use parquet::file::writer::SerializedFileWriter;
//! use parquet::schema::parser::parse_message_type;
//! use plumb_core::{BytesSource, FormatReader, Options, Request};
//!
//! // A file of two rows, written with the parquet crate.
//! let schema = Arc::new(parse_message_type(
//!     "message m { required int64 id; optional binary city (STRING); }",
//! )?);
//! let mut out = Vec::new();
//! let mut writer = SerializedFileWriter::new(&mut out, schema, Arc::new(WriterProperties::default()))?;
//! let mut group = writer.next_row_group()?;
//! let mut col = group.next_column()?.unwrap();
//! col.typed::<Int64Type>().write_batch(&[1, 9007199254740993], None, None)?;
//! col.close()?;
//! let mut col = group.next_column()?.unwrap();
//! col.typed::<ByteArrayType>().write_batch(&[ByteArray::from("Lyon")], Some(&[1, 0]), None)?;
//! col.close()?;
//! group.close()?;
//! writer.close()?;
//!
//! let source = BytesSource::new("cities.parquet", out);
//! let reader = plumb_parquet::ParquetReader;
//! let inspect = reader.inspect(&source, &Request::default())?.to_json();
//! assert_eq!(inspect["rows"], 2);
//! assert_eq!(inspect["columns"][1]["logical"], "string");
//!
//! let select = reader.select(&source, &Request::default())?.to_json();
//! assert_eq!(select["rows"][0], serde_json::json!({"id": 1, "city": "Lyon"}));
//! // An int64 a double would misstate keeps its digits.
//! assert_eq!(select["rows"][1]["id"]["$literal"], "9007199254740993");
//! assert_eq!(select["rows"][1]["city"], serde_json::Value::Null);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Built on the `parquet` crate (arrow-rs, the Apache project's Rust
//! implementation) without its arrow layer: the footer, page and record
//! readers are the well-kept parts plumb needs, and writing a Parquet
//! decoder (thrift, eight encodings, seven codecs) by hand would only add
//! bugs. What plumb adds is the bounded, counted access to the bytes
//! ([`PARQUET_MAX_RANGE_BYTES`]), exact JSON for every value, and typed
//! refusals.
//!
//! Memory: the footer is held whole (a footer over
//! [`PARQUET_MAX_RANGE_BYTES`] is refused); select and validate hold one
//! page per column being read and one batch of rows or values, never a
//! row group; a row is assembled whole, so one row whose list holds
//! millions of values costs their size.

mod budget;
mod chunks;
mod guard;
mod inspect;
mod scan;
mod search;
mod select;
mod thrift;
mod types;
mod validate;
mod value;

use parquet::errors::ParquetError;
use parquet::file::reader::{FileReader, SerializedFileReader};

use plumb_core::{
    Answer, FormatReader, Op, OptionKind, OptionSpec, Refusal, RefusalReason, Request, SniffScore,
    Source, ViewFlags, SIGNATURE_SCORE,
};

pub use chunks::PARQUET_MAX_RANGE_BYTES;
pub use guard::{
    PARQUET_MAX_COLUMN_CHUNKS, PARQUET_MAX_DICTIONARY_BYTES, PARQUET_MAX_FOOTER_BYTES,
    PARQUET_MAX_NESTING, PARQUET_MAX_PAGE_BYTES, PARQUET_MAX_SCHEMA_ELEMENTS,
};
pub use inspect::{
    ColumnReport, ParquetInspect, RowGroupReport, RowGroups, WriterStatistics, PARQUET_LIST_KEYS,
    PARQUET_LIST_ROW_GROUPS, PARQUET_SCHEMA_TEXT_BYTES,
};
pub use search::{ParquetHit, ParquetSearch};
pub use select::{ParquetSelect, PARQUET_SELECT_BUDGET_BYTES, PARQUET_SELECT_CELL_FRAME_BYTES};
pub use types::{FieldType, PARQUET_TYPE_DEPTH_MAX, PARQUET_TYPE_TEXT_BYTES};
pub use validate::{Fault, ParquetValidate};
pub use value::{PARQUET_VALUE_MEMBERS, PARQUET_VALUE_TEXT_BYTES};

use chunks::{Chunks, RANGE_TOO_LARGE};

/// The Parquet reader.
#[derive(Debug, Clone, Copy, Default)]
pub struct ParquetReader;

/// Parquet's own options.
pub const PARQUET_OPTIONS: [OptionSpec; 3] = [
    OptionSpec {
        name: "columns",
        kind: OptionKind::List,
        default: None,
        ops: &[Op::Select],
        doc: "top-level columns to keep, by name or 0-based index (a name of digits in double quotes: \"2019\")",
    },
    OptionSpec {
        name: "column",
        kind: OptionKind::Text,
        default: None,
        ops: &[Op::Search],
        doc: "the top-level column to search, by name or 0-based index; every top-level primitive column when left out",
    },
    OptionSpec {
        name: "stats",
        kind: OptionKind::Flag,
        default: Some("false"),
        ops: &[Op::Inspect],
        doc: "read every value and add plumb's own statistics to each column (distinct count, top values, mean, quantiles, text ranges, each labelled exact or estimate) beside the writer's",
    },
];

/// A file opened: its footer read.
pub(crate) struct Opened {
    pub(crate) reader: SerializedFileReader<Chunks>,
    pub(crate) chunks: Chunks,
    pub(crate) len: u64,
    pub(crate) footer_bytes: u64,
}

/// Reads the footer.
fn open(source: &dyn Source) -> Result<Result<Opened, (ParquetError, Chunks)>, Refusal> {
    let chunks = Chunks::new(source)?;
    let len = chunks_len(&chunks);
    chunks.check_footer()?;
    let reader = match SerializedFileReader::new(chunks.clone()) {
        Ok(r) => r,
        Err(e) => return Ok(Err((e, chunks))),
    };
    let footer_bytes = footer_len(source, len).unwrap_or(0);
    Ok(Ok(Opened {
        reader,
        chunks,
        len,
        footer_bytes,
    }))
}

fn chunks_len(chunks: &Chunks) -> u64 {
    parquet::file::reader::Length::len(chunks)
}

/// The footer's length, from the eight bytes that end the file.
fn footer_len(source: &dyn Source, len: u64) -> Option<u64> {
    let tail = source.read_range(len.checked_sub(8)?, 8)?.ok()?;
    let n = u32::from_le_bytes(tail.get(..4)?.try_into().ok()?);
    Some(u64::from(n) + 8)
}

/// The refusal a `parquet` crate error becomes.
pub(crate) fn refusal_of(e: &ParquetError) -> Refusal {
    match e {
        ParquetError::External(inner) => {
            if let Some(r) = inner.downcast_ref::<Refusal>() {
                r.clone()
            } else if let Some(io) = inner.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::UnexpectedEof {
                    // A structure that runs past its chunk: the file's
                    // own sizes disagree, no read failed.
                    Refusal::new(
                        RefusalReason::InvalidData,
                        format!(
                            "the Parquet file is malformed: a structure runs past its end ({io})"
                        ),
                    )
                } else if matches!(
                    io.kind(),
                    std::io::ErrorKind::Other
                        | std::io::ErrorKind::InvalidData
                        | std::io::ErrorKind::InvalidInput
                ) {
                    // A codec's own error (lz4's "destination buffer is
                    // too small", a corrupt zstd frame): the pages are
                    // read from bytes already fetched, so no read failed.
                    Refusal::new(
                        RefusalReason::InvalidData,
                        format!("the Parquet file is malformed: a page does not decompress ({io})"),
                    )
                } else {
                    Refusal::from_io(io, None)
                }
            } else {
                // A codec's error: the compressed bytes are corrupt.
                Refusal::new(
                    RefusalReason::InvalidData,
                    format!("the Parquet file is malformed: {inner}"),
                )
            }
        }
        ParquetError::General(m) if m.starts_with(RANGE_TOO_LARGE) => Refusal::new(
            RefusalReason::SelectionTooLarge,
            format!("{m}: the file names a footer or page too large to read in bounded memory"),
        ),
        ParquetError::NYI(m) => Refusal::new(
            RefusalReason::UnsupportedFormat,
            format!("this Parquet file uses a feature the parquet library does not read: {m}"),
        ),
        other => {
            let m = other.to_string();
            if m.to_ascii_lowercase().contains("encrypt") {
                Refusal::new(
                    RefusalReason::UnsupportedFormat,
                    format!(
                        "this Parquet file is encrypted, and plumb does not decrypt Parquet ({m})"
                    ),
                )
                .with_extra("found", "parquet-encrypted".into())
            } else {
                Refusal::new(
                    RefusalReason::InvalidData,
                    format!("the Parquet file is malformed: {m}"),
                )
            }
        }
    }
}

/// Runs `f`, turning a panic inside the `parquet` crate (it has a few
/// `unimplemented!` arms for type combinations a hostile file can
/// declare, and asserts on some corrupt pages) into an `invalid-data`
/// refusal rather than a crash.
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, Refusal>) -> Result<T, Refusal> {
    Refusal::guarded("the Parquet file", "the parquet library", f)
}

impl Opened {
    /// Row group `i`, its pages checked as they are read
    /// ([`guard::Group`]).
    pub(crate) fn row_group(&self, i: usize) -> parquet::errors::Result<guard::Group<'_>> {
        Ok(guard::Group::new(self.reader.get_row_group(i)?))
    }
}

fn opened(source: &dyn Source) -> Result<Opened, Refusal> {
    open(source)?.map_err(|(e, _)| refusal_of(&e))
}

impl FormatReader for ParquetReader {
    fn name(&self) -> &'static str {
        "parquet"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["parquet", "parq", "pqt"]
    }

    fn sniff(&self, head: &[u8]) -> Option<SniffScore> {
        head.starts_with(b"PAR1").then_some(SIGNATURE_SCORE)
    }

    fn options(&self) -> &'static [OptionSpec] {
        &PARQUET_OPTIONS
    }

    fn inspect(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let mut options = req.options.clone();
        options.normalize(&PARQUET_OPTIONS)?;
        let stats = options.flag("stats").unwrap_or(false);
        guarded(|| {
            let opened = opened(source)?;
            let mut answer = inspect::inspect(&opened)?;
            if stats {
                let threads = req.scan.threads.filter(|&t| t > 0).unwrap_or_else(|| {
                    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
                });
                let (sketches, stopped) = scan::scan(&opened, threads, req.scan.max_scan_bytes)?;
                let mut kept = plumb_stats::ColumnSketches::default();
                for (column, sketch) in answer.columns.iter_mut().zip(sketches) {
                    column.stats = Some(sketch.report());
                    // A field of one leaf is a dataset's column of its name.
                    if req.scan.sketches && column.path == column.column {
                        kept.columns.push((column.column.clone(), sketch));
                    }
                }
                answer.sketches = req.scan.sketches.then_some(kept);
                if stopped {
                    answer.view = ViewFlags::sampled().with_cut(answer.view.converted);
                }
                // Columns past the statistics cap are described without.
                let leaves = opened
                    .reader
                    .metadata()
                    .file_metadata()
                    .schema_descr()
                    .num_columns();
                if leaves > plumb_stats::STATS_MAX_COLUMNS {
                    answer.view = answer.view.with_cut(true);
                }
                answer.bytes_fetched = opened.chunks.fetched();
            }
            Ok(Box::new(answer) as Box<dyn Answer>)
        })
    }

    fn select(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        guarded(|| {
            let opened = opened(source)?;
            Ok(Box::new(select::select(&opened, req)?) as Box<dyn Answer>)
        })
    }

    fn validate(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        guarded(|| match open(source)? {
            Ok(opened) => Ok(
                Box::new(validate::validate(&opened, req.scan.max_scan_bytes)?) as Box<dyn Answer>,
            ),
            Err((e, chunks)) => {
                let r = refusal_of(&e);
                if r.reason() != RefusalReason::InvalidData {
                    return Err(r);
                }
                Ok(Box::new(validate::footer_fault(
                    chunks_len(&chunks),
                    r.message().to_owned(),
                    chunks.fetched(),
                )) as Box<dyn Answer>)
            }
        })
    }

    fn search(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        guarded(|| {
            let opened = opened(source)?;
            Ok(Box::new(search::search(&opened, req)?) as Box<dyn Answer>)
        })
    }

    fn answer_schema(
        &self,
        op: plumb_core::Op,
        generator: &mut plumb_core::schemars::SchemaGenerator,
    ) -> Option<plumb_core::schemars::Schema> {
        plumb_core::schema_by_op::<
            inspect::ParquetInspect,
            select::ParquetSelect,
            validate::ParquetValidate,
            search::ParquetSearch,
        >(op, generator)
    }

    fn selects_from_end(&self) -> bool {
        true
    }
}
