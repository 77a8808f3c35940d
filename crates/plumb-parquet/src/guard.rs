//! The caps on what a Parquet file may declare, checked before the
//! `parquet` crate sizes anything by it.
//!
//! The crate allocates what a footer, a page header, a dictionary page
//! or a delta-encoded block says it needs, and an allocation that fails
//! aborts the process: no `catch_unwind` can stop that. So each claim is
//! read first (by [`crate::thrift`] for the footer and page headers, and
//! from the decompressed page for the rest) and held against what the
//! bytes could hold and a documented cap here. The row-group and page
//! readers every op uses are wrapped so that no path reaches the crate's
//! readers unchecked.

use std::mem::size_of;

use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::column::page::{Page, PageMetadata, PageReader};
use parquet::data_type::{ByteArray, FixedLenByteArray, Int96};
use parquet::errors::{ParquetError, Result as PResult};
use parquet::file::metadata::RowGroupMetaData;
use parquet::file::reader::RowGroupReader;
use parquet::record::reader::RowIter;
use parquet::schema::types::Type as SchemaType;

use plumb_core::{Refusal, RefusalReason};

use crate::thrift;

/// The largest page plumb decompresses, by the size its header declares:
/// writers cut pages at about 1 MiB, and a page is held whole while its
/// values are read, so a larger claim is refused (`selection-too-large`)
/// before its buffer exists.
pub const PARQUET_MAX_PAGE_BYTES: u64 = 16 << 20;

/// The largest footer plumb decodes. The decoded metadata takes tens of
/// times the footer's bytes, so this is what keeps a footer's cost
/// within the memory bound; writers' footers are kilobytes.
pub const PARQUET_MAX_FOOTER_BYTES: u64 = 4 << 20;

/// The most schema elements (groups and leaves) a footer may declare.
pub const PARQUET_MAX_SCHEMA_ELEMENTS: u64 = 20_000;

/// The most column chunks (row groups × leaf columns) a footer may
/// declare: each is decoded into a few hundred bytes of metadata.
pub const PARQUET_MAX_COLUMN_CHUNKS: u64 = 40_000;

/// The deepest nesting of groups a schema may have. The `parquet` crate
/// builds and reads a schema by recursion, so depth is capped well
/// below what a 2 MiB thread stack holds; real schemas nest a few deep.
pub const PARQUET_MAX_NESTING: u64 = 100;

/// The most memory a column's dictionary may take once decoded (its
/// entries times the size of one decoded value): a dictionary page of a
/// few bytes can declare billions of entries.
pub const PARQUET_MAX_DICTIONARY_BYTES: u64 = 16 << 20;

/// The marker the refusals of a claim carry through a `ParquetError`, so
/// that [`crate::refusal_of`] returns the refusal itself.
fn claim_error(r: Refusal) -> ParquetError {
    ParquetError::External(Box::new(r))
}

fn too_large(message: String) -> Refusal {
    Refusal::new(RefusalReason::SelectionTooLarge, message).with_extra(
        "advice",
        "the file declares more than plumb holds in bounded memory; rewrite it with smaller pages, row groups or footer (pyarrow, DuckDB and Spark write pages of about 1 MiB)"
            .into(),
    )
}

fn malformed(message: String) -> Refusal {
    Refusal::new(
        RefusalReason::InvalidData,
        format!("the Parquet file is malformed: {message}"),
    )
}

/// The refusal of a footer longer than [`PARQUET_MAX_FOOTER_BYTES`].
pub(crate) fn footer_too_large(n: u64) -> Refusal {
    too_large(format!(
        "the Parquet footer is {n} bytes; plumb decodes footers of up to {PARQUET_MAX_FOOTER_BYTES}"
    ))
}

/// Checks a footer's claims (the bytes between the file's data and its
/// last eight): its size, its schema's depth and size, its column
/// chunks. Claims the reader cannot read are left to the `parquet`
/// crate's decoder.
pub(crate) fn check_footer(footer: &[u8]) -> Result<(), Refusal> {
    let Ok(c) = thrift::footer_claims(footer) else {
        return Ok(());
    };
    if c.depth > PARQUET_MAX_NESTING {
        return Err(Refusal::new(
            RefusalReason::NestingTooDeep,
            format!(
                "the Parquet schema nests {} groups deep; plumb reads schemas up to {PARQUET_MAX_NESTING} deep",
                c.depth
            ),
        ));
    }
    if c.schema_elements > PARQUET_MAX_SCHEMA_ELEMENTS {
        return Err(too_large(format!(
            "the Parquet schema declares {} fields; plumb reads schemas of up to {PARQUET_MAX_SCHEMA_ELEMENTS}",
            c.schema_elements
        )));
    }
    if c.column_chunks > PARQUET_MAX_COLUMN_CHUNKS {
        return Err(too_large(format!(
            "the Parquet footer declares {} column chunks in {} row groups; plumb reads footers of up to {PARQUET_MAX_COLUMN_CHUNKS}",
            c.column_chunks, c.row_groups
        )));
    }
    Ok(())
}

/// Checks a page header's claims.
pub(crate) fn check_page_header(c: thrift::PageClaims, at: u64) -> PResult<()> {
    // The crate keeps the low 32 bits of the number as its `i32`: the
    // claim is what it keeps, not the wider number written.
    let kept = c.uncompressed as i32;
    if u64::try_from(kept).is_ok_and(|n| n > PARQUET_MAX_PAGE_BYTES) {
        return Err(claim_error(too_large(format!(
            "the page at byte {at} declares {kept} bytes once decompressed; plumb decompresses pages of up to {PARQUET_MAX_PAGE_BYTES}"
        ))));
    }
    Ok(())
}

/// The bytes one decoded value of a physical type takes in the crate's
/// buffers, and the fewest bytes one takes in a PLAIN-encoded page.
fn value_sizes(physical: PhysicalType, type_length: i32) -> (u64, u64) {
    let width = u64::try_from(type_length).unwrap_or(0);
    match physical {
        PhysicalType::BOOLEAN => (1, 0),
        PhysicalType::INT32 | PhysicalType::FLOAT => (4, 4),
        PhysicalType::INT64 | PhysicalType::DOUBLE => (8, 8),
        PhysicalType::INT96 => (size_of::<Int96>() as u64, 12),
        PhysicalType::BYTE_ARRAY => (size_of::<ByteArray>() as u64, 4),
        PhysicalType::FIXED_LEN_BYTE_ARRAY => (size_of::<FixedLenByteArray>() as u64, width),
    }
}

/// Checks a decompressed page's claims against its bytes.
fn check_page(page: &Page, leaf: &Leaf) -> PResult<()> {
    match page {
        Page::DictionaryPage {
            buf, num_values, ..
        } => {
            let n = u64::from(*num_values);
            let (decoded, least) = value_sizes(leaf.physical, leaf.type_length);
            if n.saturating_mul(least) > buf.len() as u64 {
                return Err(claim_error(malformed(format!(
                    "a dictionary page of column {} declares {n} entries in {} bytes",
                    leaf.path,
                    buf.len()
                ))));
            }
            if n.saturating_mul(decoded) > PARQUET_MAX_DICTIONARY_BYTES {
                return Err(claim_error(too_large(format!(
                    "a dictionary page of column {} declares {n} entries, {} bytes once decoded; plumb holds dictionaries of up to {PARQUET_MAX_DICTIONARY_BYTES} bytes",
                    leaf.path,
                    n.saturating_mul(decoded)
                ))));
            }
        }
        Page::DataPage {
            buf,
            num_values,
            encoding,
            def_level_encoding,
            rep_level_encoding,
            ..
        } => {
            if is_delta(*encoding) {
                let levels = [
                    (leaf.max_rep, *rep_level_encoding),
                    (leaf.max_def, *def_level_encoding),
                ];
                let values = levels_end_v1(buf, *num_values, levels).and_then(|at| buf.get(at..));
                check_delta(values, *encoding, *num_values, leaf)?;
            }
        }
        Page::DataPageV2 {
            buf,
            num_values,
            encoding,
            def_levels_byte_len,
            rep_levels_byte_len,
            ..
        } => {
            if is_delta(*encoding) {
                let at = u64::from(*def_levels_byte_len) + u64::from(*rep_levels_byte_len);
                let values = usize::try_from(at).ok().and_then(|at| buf.get(at..));
                check_delta(values, *encoding, *num_values, leaf)?;
            }
        }
    }
    Ok(())
}

fn is_delta(e: Encoding) -> bool {
    matches!(
        e,
        Encoding::DELTA_LENGTH_BYTE_ARRAY | Encoding::DELTA_BYTE_ARRAY
    )
}

/// Where a v1 data page's values start: after its repetition and
/// definition levels, each RLE run prefixed by its length, or (the
/// deprecated BIT_PACKED) packed with no prefix.
fn levels_end_v1(buf: &[u8], num_values: u32, levels: [(i16, Encoding); 2]) -> Option<usize> {
    let mut at = 0usize;
    for (max, encoding) in levels {
        if max <= 0 {
            continue;
        }
        #[allow(deprecated)]
        let bit_packed = encoding == Encoding::BIT_PACKED;
        let len = if bit_packed {
            let width = u64::from(16 - max.leading_zeros());
            (u64::from(num_values) * width).div_ceil(8)
        } else {
            let len = u32::from_le_bytes(buf.get(at..at + 4)?.try_into().ok()?);
            at = at.checked_add(4)?;
            u64::from(len)
        };
        at = at.checked_add(usize::try_from(len).ok()?)?;
    }
    Some(at)
}

/// The value count a DELTA_BINARY_PACKED header declares, and where its
/// blocks end (found by walking their miniblocks' widths; `None` when
/// they run past the bytes).
fn delta_block(bytes: &[u8]) -> Option<(u64, Option<usize>)> {
    let mut at = 0usize;
    let varint = |at: &mut usize| thrift::uleb128(bytes, at);
    let block = varint(&mut at)?;
    let minis = varint(&mut at)?;
    let total = varint(&mut at)?;
    let _first = varint(&mut at)?;
    if minis == 0 || block == 0 || block % minis != 0 {
        return Some((total, None));
    }
    Some((total, delta_end(bytes, at, block / minis, minis, total)))
}

/// Where a delta header's blocks end, from `at` just after the header.
fn delta_end(bytes: &[u8], mut at: usize, per_mini: u64, minis: u64, total: u64) -> Option<usize> {
    let varint = |at: &mut usize| thrift::uleb128(bytes, at);
    let mut left = total.saturating_sub(1);
    while left > 0 {
        let _min_delta = varint(&mut at)?;
        let minis_n = usize::try_from(minis).ok()?;
        let widths = bytes.get(at..at.checked_add(minis_n)?)?;
        at += minis_n;
        for &w in widths {
            if left == 0 {
                break;
            }
            let n = u64::from(w).checked_mul(per_mini)? / 8;
            at = at.checked_add(usize::try_from(n).ok()?)?;
            left = left.saturating_sub(per_mini);
        }
        if at > bytes.len() {
            return None;
        }
    }
    Some(at)
}

/// Holds the counts a delta-encoded page's length blocks declare (the
/// crate sizes a buffer by each) to the page's own value count.
fn check_delta(
    values: Option<&[u8]>,
    encoding: Encoding,
    num_values: u32,
    leaf: &Leaf,
) -> PResult<()> {
    let Some(values) = values else {
        return Ok(());
    };
    let fail = |total: u64| {
        Err(claim_error(malformed(format!(
            "a {encoding} page of column {} declares {total} lengths for {num_values} values",
            leaf.path
        ))))
    };
    let Some((total, end)) = delta_block(values) else {
        return Ok(());
    };
    if total > u64::from(num_values) {
        return fail(total);
    }
    if encoding == Encoding::DELTA_BYTE_ARRAY {
        // The prefixes' block, then the suffixes' lengths block.
        let suffixes = end.and_then(|end| values.get(end..));
        if let Some((total, _)) = suffixes.and_then(delta_block) {
            if total > u64::from(num_values) {
                return fail(total);
            }
        }
    }
    Ok(())
}

/// What a page check needs of its column.
#[derive(Clone, Debug)]
struct Leaf {
    physical: PhysicalType,
    type_length: i32,
    max_def: i16,
    max_rep: i16,
    path: String,
}

/// A row group's reader whose page readers check each page.
pub(crate) struct Group<'a> {
    inner: Box<dyn RowGroupReader + 'a>,
}

impl<'a> Group<'a> {
    pub(crate) fn new(inner: Box<dyn RowGroupReader + 'a>) -> Group<'a> {
        Group { inner }
    }
}

impl RowGroupReader for Group<'_> {
    fn metadata(&self) -> &RowGroupMetaData {
        self.inner.metadata()
    }

    fn num_columns(&self) -> usize {
        self.inner.num_columns()
    }

    fn get_column_page_reader(&self, i: usize) -> PResult<Box<dyn PageReader>> {
        if i >= self.num_columns() {
            return Err(claim_error(malformed(format!(
                "column {i} is past the row group's {} column chunks",
                self.num_columns()
            ))));
        }
        // The crate asserts a chunk's place is not negative when it opens
        // its pages, and a failed assertion aborts: the footer's claim is
        // checked here first.
        let chunk = self.metadata().column(i);
        let place = [
            chunk.dictionary_page_offset().unwrap_or(0),
            chunk.data_page_offset(),
            chunk.compressed_size(),
        ];
        if place.iter().any(|&v| v < 0) {
            return Err(claim_error(malformed(format!(
                "column chunk {i} declares a negative offset or size ({}, {}, {})",
                place[0], place[1], place[2]
            ))));
        }
        let descr = self.metadata().schema_descr().column(i);
        let leaf = Leaf {
            physical: descr.physical_type(),
            type_length: descr.type_length(),
            max_def: descr.max_def_level(),
            max_rep: descr.max_rep_level(),
            path: descr.path().string(),
        };
        let inner = self.inner.get_column_page_reader(i)?;
        Ok(Box::new(Pages { inner, leaf }))
    }

    fn get_column_bloom_filter(&self, i: usize) -> Option<&parquet::bloom_filter::Sbbf> {
        self.inner.get_column_bloom_filter(i)
    }

    fn get_row_iter(&self, projection: Option<SchemaType>) -> PResult<RowIter<'_>> {
        RowIter::from_row_group(projection, self)
    }
}

/// A page reader that checks each page before the column reader sees it.
struct Pages {
    inner: Box<dyn PageReader>,
    leaf: Leaf,
}

impl Iterator for Pages {
    type Item = PResult<Page>;

    fn next(&mut self) -> Option<Self::Item> {
        self.get_next_page().transpose()
    }
}

impl PageReader for Pages {
    fn get_next_page(&mut self) -> PResult<Option<Page>> {
        let page = self.inner.get_next_page()?;
        if let Some(p) = &page {
            check_page(p, &self.leaf)?;
        }
        Ok(page)
    }

    fn peek_next_page(&mut self) -> PResult<Option<PageMetadata>> {
        self.inner.peek_next_page()
    }

    fn skip_next_page(&mut self) -> PResult<()> {
        self.inner.skip_next_page()
    }

    fn at_record_boundary(&mut self) -> PResult<bool> {
        self.inner.at_record_boundary()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }

    #[test]
    fn a_delta_block_is_walked_to_its_end() {
        // 128-value blocks of 4 miniblocks of 32; 70 values, width 3:
        // one block, its first three miniblocks 12 bytes each... only
        // as many as hold the 69 deltas (three miniblocks).
        let mut b = Vec::new();
        for v in [128, 4, 70, 0] {
            varint(v, &mut b);
        }
        varint(0, &mut b); // min delta
        b.extend([3, 3, 3, 3]);
        b.extend(std::iter::repeat_n(0u8, 36));
        let end = b.len();
        b.extend([9, 9]);
        assert_eq!(delta_block(&b), Some((70, Some(end))));
        // A count past the bytes' miniblocks is read, with no end.
        let mut c = Vec::new();
        for v in [128, 4, 1 << 40, 0, 0] {
            varint(v, &mut c);
        }
        c.extend([3, 3, 3, 3]);
        assert_eq!(delta_block(&c), Some((1 << 40, None)));
    }
}
