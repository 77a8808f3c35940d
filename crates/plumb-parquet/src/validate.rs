//! Parquet validate: the footer, then every page of every column chunk
//! (its header, its checksum where the writer stored one, its
//! decompression), then every value decoded.

use crate::budget::Budget;
use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::DataType;
use parquet::errors::ParquetError;
use parquet::file::reader::{FileReader, RowGroupReader};
use serde::Serialize;

use plumb_core::{impl_answer, Refusal, RefusalReason, ViewFlags};

use crate::inspect::chunk_start;
use crate::Opened;

/// Values decoded at a time when a column chunk's values are checked.
const DECODE_BATCH: usize = 4096;

/// The answer of Parquet validate.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ParquetValidate {
    /// Always true (the check ran; see `valid`).
    pub ok: bool,
    /// `parquet`.
    pub format: &'static str,
    /// Exact.
    pub view: ViewFlags,
    /// Whether the footer, every page and every value read.
    pub valid: Option<bool>,
    /// The first fault, or null.
    pub fault: Option<Fault>,
    /// Rows, as the footer counts them (0 when the footer is the fault).
    pub rows: u64,
    /// Row groups checked whole.
    pub row_groups_checked: usize,
    /// Pages read.
    pub pages: u64,
    /// Values decoded (nulls included).
    pub values: u64,
    /// Bytes read from the source.
    pub bytes_fetched: u64,
}

/// Where and what the first fault is.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Fault {
    /// What was wrong.
    pub message: String,
    /// The byte offset of the column chunk the fault is in (of the
    /// footer, for a footer fault).
    pub byte_offset: u64,
    /// The row group (0-based), when the fault is in one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row_group: Option<usize>,
    /// The column's dotted path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// The page of the chunk (0-based, its dictionary page counted) the
    /// fault is in, when pages were being read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u64>,
}

impl_answer!(ParquetValidate, verdict: valid);

/// A footer that did not read: the answer names it.
pub(crate) fn footer_fault(len: u64, message: String, fetched: u64) -> ParquetValidate {
    ParquetValidate {
        ok: true,
        format: "parquet",
        view: ViewFlags::exact(),
        valid: Some(false),
        fault: Some(Fault {
            message,
            byte_offset: len.saturating_sub(8),
            row_group: None,
            column: None,
            page: None,
        }),
        rows: 0,
        row_groups_checked: 0,
        pages: 0,
        values: 0,
        bytes_fetched: fetched,
    }
}

/// What a column chunk's values were checked against: the levels its
/// column allows and the rows its row group holds.
#[derive(Clone, Copy)]
struct Bounds {
    max_def: i16,
    max_rep: i16,
    rows: u64,
}

/// Decodes every value of a column chunk, checking each level against
/// the column's bounds and the record count against the row group's:
/// returns the values (nulls included), or what broke.
fn drain<T: DataType>(
    mut r: ColumnReaderImpl<T>,
    b: Bounds,
    budget: &mut Budget,
) -> Result<u64, String> {
    let mut def = Vec::new();
    let mut rep = Vec::new();
    let mut values = Vec::new();
    let (mut total, mut records) = (0u64, 0u64);
    let mut first = true;
    loop {
        def.clear();
        rep.clear();
        values.clear();
        let (n, _, levels) = r
            .read_records(DECODE_BATCH, Some(&mut def), Some(&mut rep), &mut values)
            .map_err(|e| crate::refusal_of(&e).message().to_owned())?;
        if n == 0 && levels == 0 {
            break;
        }
        if b.max_def > 0 {
            if let Some(d) = def.iter().find(|&&d| d < 0 || d > b.max_def) {
                return Err(format!(
                    "a definition level of {d}, past the column's highest ({})",
                    b.max_def
                ));
            }
        }
        if b.max_rep > 0 {
            if let Some(x) = rep.iter().find(|&&x| x < 0 || x > b.max_rep) {
                return Err(format!(
                    "a repetition level of {x}, past the column's highest ({})",
                    b.max_rep
                ));
            }
            if first && rep.first().is_some_and(|&x| x != 0) {
                return Err(
                    "the column chunk's first repetition level is not 0 (a value \
                            continues a row before the first)"
                        .to_owned(),
                );
            }
        }
        first = false;
        records += n as u64;
        total += levels.max(values.len()) as u64;
        if !values.iter().all(|v| budget.take_value(v)) {
            // Stopped before the column chunk's end: its row count is
            // not known to disagree.
            return Ok(total);
        }
    }
    if records != b.rows {
        return Err(format!(
            "the column chunk holds {records} rows, and its row group {}",
            b.rows
        ));
    }
    Ok(total)
}

fn decode(reader: ColumnReader, b: Bounds, budget: &mut Budget) -> Result<u64, String> {
    match reader {
        ColumnReader::BoolColumnReader(r) => drain(r, b, budget),
        ColumnReader::Int32ColumnReader(r) => drain(r, b, budget),
        ColumnReader::Int64ColumnReader(r) => drain(r, b, budget),
        ColumnReader::Int96ColumnReader(r) => drain(r, b, budget),
        ColumnReader::FloatColumnReader(r) => drain(r, b, budget),
        ColumnReader::DoubleColumnReader(r) => drain(r, b, budget),
        ColumnReader::ByteArrayColumnReader(r) => drain(r, b, budget),
        ColumnReader::FixedLenByteArrayColumnReader(r) => drain(r, b, budget),
    }
}

/// Checks the footer, then every page and value of every column chunk,
/// in file order, until `max_bytes` of pages and values are decoded (see
/// [`crate::budget`]): the verdict is then null, the answer sampled.
pub(crate) fn validate(
    opened: &Opened,
    max_bytes: Option<u64>,
) -> Result<ParquetValidate, Refusal> {
    let mut budget = Budget::new(max_bytes);
    let meta = opened.reader.metadata();
    let schema = meta.file_metadata().schema_descr();
    let mut answer = ParquetValidate {
        ok: true,
        format: "parquet",
        view: ViewFlags::exact(),
        valid: Some(true),
        fault: None,
        rows: u64::try_from(meta.file_metadata().num_rows()).unwrap_or(0),
        row_groups_checked: 0,
        pages: 0,
        values: 0,
        bytes_fetched: 0,
    };
    'groups: for (g, group) in meta.row_groups().iter().enumerate() {
        let reader = match opened.row_group(g) {
            Ok(r) => r,
            Err(e) => {
                answer.fail(fault_of(
                    &e,
                    group.columns().first().map_or(0, chunk_start),
                    Some(g),
                    None,
                    None,
                ))?;
                break;
            }
        };
        for (c, chunk) in group.columns().iter().enumerate() {
            if opened.chunks.cancelled() {
                return Err(Refusal::new(
                    RefusalReason::Aborted,
                    "the caller cancelled the validate",
                ));
            }
            let at = chunk_start(chunk);
            let path = Some(schema.column(c).path().string());
            // The footer's own word on where the chunk lies, checked
            // before a byte of it is read: a fault of the footer.
            // (Its bytes start at its dictionary page, when it has one.)
            let (from, size) = (at, chunk.compressed_size());
            let end = u64::try_from(size).ok().and_then(|n| from.checked_add(n));
            if end.is_none_or(|e| e > opened.len) {
                answer.fail(Ok(Fault {
                    message: format!(
                        "the Parquet file is malformed: the footer puts column chunk {} of row group {g} at bytes {from} to {from} + {size}, outside the file ({} bytes)",
                        path.as_deref().unwrap_or_default(),
                        opened.len
                    ),
                    byte_offset: opened.len.saturating_sub(opened.footer_bytes),
                    row_group: Some(g),
                    column: path,
                    page: None,
                }))?;
                break 'groups;
            }
            // The pages: headers, checksums, decompression.
            let mut page = 0u64;
            let pages = crate::guarded(|| {
                let mut pages = reader
                    .get_column_page_reader(c)
                    .map_err(|e| crate::refusal_of(&e))?;
                while let Some(p) = pages.get_next_page().map_err(|e| crate::refusal_of(&e))? {
                    page += 1;
                    if !budget.take(p.buffer().len()) {
                        break;
                    }
                }
                Ok(())
            });
            answer.pages += page;
            if let Err(r) = pages {
                answer.fail(fault_from(r, at, Some(g), path, Some(page)))?;
                break 'groups;
            }
            if budget.out() {
                break 'groups;
            }
            // The values: levels and encodings decoded.
            let descr = schema.column(c);
            let bounds = Bounds {
                max_def: descr.max_def_level(),
                max_rep: descr.max_rep_level(),
                rows: u64::try_from(group.num_rows()).unwrap_or(0),
            };
            let decoded = crate::guarded(|| {
                let column = reader
                    .get_column_reader(c)
                    .map_err(|e| crate::refusal_of(&e))?;
                decode(column, bounds, &mut budget).map_err(|m| {
                    Refusal::new(
                        RefusalReason::InvalidData,
                        format!("the Parquet file is malformed: {m}"),
                    )
                })
            });
            match decoded {
                Ok(n) => answer.values += n,
                Err(r) => {
                    answer.fail(fault_from(r, at, Some(g), path, None))?;
                    break 'groups;
                }
            }
            if budget.out() {
                break 'groups;
            }
        }
        answer.row_groups_checked += 1;
    }
    if budget.out() && answer.fault.is_none() {
        answer.valid = None;
        answer.view = ViewFlags::sampled();
    }
    answer.bytes_fetched = opened.chunks.fetched();
    Ok(answer)
}

impl ParquetValidate {
    /// Records the first fault; a refusal that is no fault of the file
    /// (a failed read, a cancellation) is returned instead.
    fn fail(&mut self, fault: Result<Fault, Refusal>) -> Result<(), Refusal> {
        let fault = fault?;
        self.valid = Some(false);
        self.fault = Some(fault);
        Ok(())
    }
}

fn fault_of(
    e: &ParquetError,
    byte_offset: u64,
    row_group: Option<usize>,
    column: Option<String>,
    page: Option<u64>,
) -> Result<Fault, Refusal> {
    fault_from(crate::refusal_of(e), byte_offset, row_group, column, page)
}

/// A refusal as the fault it names, when it is one (`invalid-data`, or
/// a page too large to hold); any other refusal is returned as it is.
fn fault_from(
    refusal: Refusal,
    byte_offset: u64,
    row_group: Option<usize>,
    column: Option<String>,
    page: Option<u64>,
) -> Result<Fault, Refusal> {
    match refusal.reason() {
        RefusalReason::InvalidData | RefusalReason::SelectionTooLarge => Ok(Fault {
            message: refusal.message().to_owned(),
            byte_offset,
            row_group,
            column,
            page,
        }),
        _ => Err(refusal),
    }
}
