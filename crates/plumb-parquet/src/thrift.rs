//! A reader of just enough of Thrift's compact protocol to check what a
//! Parquet file declares before the `parquet` crate acts on it.
//!
//! The crate trusts a footer's and a page header's numbers: it sizes
//! buffers by them and recurses over the schema they describe. So plumb
//! reads the same bytes first, with no recursion and no allocation that
//! a number in them decides, and refuses a claim past a cap
//! ([`crate::guard`]). The crate keeps its own decoder for everything
//! else; nothing here decodes a value the answer shows, so a field this
//! reader does not know is skipped, never guessed at. Its own thrift
//! module is private to the crate, which is why this exists at all.

/// Compact protocol type codes.
const STOP: u8 = 0;
const TRUE: u8 = 1;
const FALSE: u8 = 2;
const BYTE: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const STRUCT: u8 = 12;

/// The deepest nesting of containers this reader follows when it skips
/// a value it does not know; Parquet's own structures nest five deep.
const SKIP_DEPTH: usize = 64;

/// Why the bytes could not be read: plumb then leaves the verdict to the
/// `parquet` crate's own decoder, which names the fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unreadable;

type R<T> = Result<T, Unreadable>;

/// The unsigned LEB128 varint at `*at` (Thrift's and Parquet's delta
/// encodings' alike), moving `*at` past it; `None` when the bytes end
/// first or it runs past ten bytes.
pub(crate) fn uleb128(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut out = 0u64;
    for shift in (0..70).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        out |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(out);
        }
    }
    None
}

/// A cursor over compact-protocol bytes.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// A field's header: its id and its type code.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    pub(crate) id: i16,
    pub(crate) kind: u8,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Cursor<'a> {
        Cursor { bytes, pos: 0 }
    }

    /// Bytes read so far.
    #[cfg(test)]
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    fn byte(&mut self) -> R<u8> {
        let b = *self.bytes.get(self.pos).ok_or(Unreadable)?;
        self.pos += 1;
        Ok(b)
    }

    fn advance(&mut self, n: u64) -> R<()> {
        let n = usize::try_from(n).map_err(|_| Unreadable)?;
        let end = self.pos.checked_add(n).ok_or(Unreadable)?;
        if end > self.bytes.len() {
            return Err(Unreadable);
        }
        self.pos = end;
        Ok(())
    }

    fn varint(&mut self) -> R<u64> {
        uleb128(self.bytes, &mut self.pos).ok_or(Unreadable)
    }

    fn zigzag(&mut self) -> R<i64> {
        let v = self.varint()?;
        #[allow(clippy::cast_possible_wrap)]
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// An `i32` field's value (also read for `i16` and `i64` fields, whose
    /// encodings are the same zigzag varint).
    pub(crate) fn int(&mut self, kind: u8) -> R<i64> {
        match kind {
            BYTE => Ok(i64::from(self.byte()? as i8)),
            I16 | I32 | I64 => self.zigzag(),
            _ => Err(Unreadable),
        }
    }

    /// A field header, or `None` at the struct's end. `last` is the id of
    /// the field before, which the short form counts from.
    pub(crate) fn field(&mut self, last: &mut i16) -> R<Option<Field>> {
        let b = self.byte()?;
        let kind = b & 0x0f;
        if kind == STOP {
            return Ok(None);
        }
        let delta = b >> 4;
        let id = if delta == 0 {
            i16::try_from(self.zigzag()?).map_err(|_| Unreadable)?
        } else {
            last.checked_add(i16::from(delta)).ok_or(Unreadable)?
        };
        *last = id;
        Ok(Some(Field { id, kind }))
    }

    /// A list's or set's header: its length and its elements' type code.
    /// The length is checked against the bytes left (every element takes
    /// at least one byte, but booleans pack one to a byte too).
    pub(crate) fn list(&mut self) -> R<(u64, u8)> {
        let b = self.byte()?;
        let short = u64::from(b >> 4);
        let n = if short == 15 { self.varint()? } else { short };
        if n > (self.bytes.len() - self.pos) as u64 {
            return Err(Unreadable);
        }
        Ok((n, b & 0x0f))
    }

    /// Skips one value of type `kind`, containers included, by a loop
    /// over an explicit stack (so depth in the bytes costs no stack).
    pub(crate) fn skip(&mut self, kind: u8) -> R<()> {
        // Each frame: (values still to skip, their type, or a struct).
        enum Frame {
            Values {
                left: u64,
                kind: u8,
            },
            Pairs {
                left: u64,
                key: u8,
                value: u8,
                on_key: bool,
            },
            Struct {
                last: i16,
            },
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut next = Some(kind);
        loop {
            if let Some(kind) = next.take() {
                match kind {
                    TRUE | FALSE => {}
                    BYTE => self.advance(1)?,
                    I16 | I32 | I64 => {
                        self.varint()?;
                    }
                    DOUBLE => self.advance(8)?,
                    BINARY => {
                        let n = self.varint()?;
                        self.advance(n)?;
                    }
                    LIST | SET => {
                        let (n, elem) = self.list()?;
                        stack.push(Frame::Values {
                            left: n,
                            kind: elem,
                        });
                    }
                    MAP => {
                        let n = self.varint()?;
                        if n > (self.bytes.len() - self.pos) as u64 {
                            return Err(Unreadable);
                        }
                        let types = if n == 0 { 0 } else { self.byte()? };
                        stack.push(Frame::Pairs {
                            left: n,
                            key: types >> 4,
                            value: types & 0x0f,
                            on_key: true,
                        });
                    }
                    STRUCT => stack.push(Frame::Struct { last: 0 }),
                    _ => return Err(Unreadable),
                }
                if stack.len() > SKIP_DEPTH {
                    return Err(Unreadable);
                }
            }
            let Some(top) = stack.last_mut() else {
                return Ok(());
            };
            match top {
                Frame::Values { left, kind } => {
                    if *left == 0 {
                        stack.pop();
                    } else {
                        *left -= 1;
                        // A boolean in a list is one byte of its own.
                        next = Some(if matches!(*kind, TRUE | FALSE) {
                            BYTE
                        } else {
                            *kind
                        });
                    }
                }
                Frame::Pairs {
                    left,
                    key,
                    value,
                    on_key,
                } => {
                    if *left == 0 {
                        stack.pop();
                    } else if *on_key {
                        *on_key = false;
                        next = Some(*key);
                    } else {
                        *on_key = true;
                        *left -= 1;
                        next = Some(*value);
                    }
                }
                Frame::Struct { last } => {
                    let mut id = *last;
                    match self.field(&mut id)? {
                        None => {
                            stack.pop();
                        }
                        Some(f) => {
                            *last = id;
                            next = Some(f.kind);
                        }
                    }
                }
            }
        }
    }
}

/// What a page header declares, as far as plumb checks it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PageClaims {
    /// Its size once decompressed.
    pub(crate) uncompressed: i64,
    /// Its size as stored.
    pub(crate) compressed: i64,
    /// The header's own length in bytes.
    pub(crate) len: usize,
}

/// The type the `parquet` crate reads each known field of a page header
/// (and of the headers it holds) as. The crate reads a field by its id
/// alone, whatever type the field declares; a field declared otherwise
/// would be read there as one length and skipped here as another, and
/// the two readers would part ways on where the fields, and the claims,
/// are. So a known field must declare the type it is read as.
const PAGE_HEADER_FIELDS: [(i16, u8); 8] = [
    (1, I32),
    (2, I32),
    (3, I32),
    (4, I32),
    (5, STRUCT),
    (6, STRUCT),
    (7, STRUCT),
    (8, STRUCT),
];
/// `DataPageHeader`: num_values and three encodings; 5 (statistics) is
/// skipped by the crate as it is declared.
const DATA_PAGE_FIELDS: [(i16, u8); 4] = [(1, I32), (2, I32), (3, I32), (4, I32)];
/// `DictionaryPageHeader`: num_values, encoding, is_sorted.
const DICTIONARY_PAGE_FIELDS: [(i16, u8); 3] = [(1, I32), (2, I32), (3, TRUE)];
/// `DataPageHeaderV2`: six counts and encodings, is_compressed; 8
/// (statistics) is skipped as it is declared.
const DATA_PAGE_V2_FIELDS: [(i16, u8); 7] = [
    (1, I32),
    (2, I32),
    (3, I32),
    (4, I32),
    (5, I32),
    (6, I32),
    (7, TRUE),
];

/// Whether a field of id `id` declared `kind` is read as `fields` say
/// (a boolean is declared true or false); an unknown id is skipped by
/// both readers as declared.
fn declared_as_read(fields: &[(i16, u8)], id: i16, kind: u8) -> bool {
    match fields.iter().find(|(i, _)| *i == id) {
        None => true,
        Some((_, TRUE)) => kind == TRUE || kind == FALSE,
        Some((_, want)) => *want == kind,
    }
}

/// Skips a struct whose known fields must be declared as `fields` say.
fn skip_struct_as_read(c: &mut Cursor<'_>, fields: &[(i16, u8)]) -> R<()> {
    let mut last = 0i16;
    while let Some(f) = c.field(&mut last)? {
        if !declared_as_read(fields, f.id, f.kind) {
            return Err(Unreadable);
        }
        c.skip(f.kind)?;
    }
    Ok(())
}

/// Reads a page header's claims from the bytes at its start; a known
/// field declared as another type than the `parquet` crate reads it as
/// makes the header unreadable (see [`PAGE_HEADER_FIELDS`]).
pub(crate) fn page_claims(bytes: &[u8]) -> R<PageClaims> {
    let mut c = Cursor::new(bytes);
    let mut out = PageClaims::default();
    let mut last = 0i16;
    while let Some(f) = c.field(&mut last)? {
        if !declared_as_read(&PAGE_HEADER_FIELDS, f.id, f.kind) {
            return Err(Unreadable);
        }
        match f.id {
            2 => out.uncompressed = c.int(f.kind)?,
            3 => out.compressed = c.int(f.kind)?,
            5 => skip_struct_as_read(&mut c, &DATA_PAGE_FIELDS)?,
            7 => skip_struct_as_read(&mut c, &DICTIONARY_PAGE_FIELDS)?,
            8 => skip_struct_as_read(&mut c, &DATA_PAGE_V2_FIELDS)?,
            _ => c.skip(f.kind)?,
        }
    }
    out.len = c.pos;
    Ok(out)
}

/// What a footer declares, as far as plumb checks it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FooterClaims {
    /// Schema elements (the root and every group and leaf).
    pub(crate) schema_elements: u64,
    /// The most groups nested one in another below the root, by the
    /// schema's `num_children` counts.
    pub(crate) depth: u64,
    /// Row groups.
    pub(crate) row_groups: u64,
    /// Column chunks, summed over the row groups.
    pub(crate) column_chunks: u64,
}

/// Reads a footer's (`FileMetaData`'s) claims: the schema's shape, walked
/// by a stack of children left to see, and the row groups' count and
/// column chunks.
pub(crate) fn footer_claims(bytes: &[u8]) -> R<FooterClaims> {
    let mut c = Cursor::new(bytes);
    let mut out = FooterClaims::default();
    let mut last = 0i16;
    while let Some(f) = c.field(&mut last)? {
        match (f.id, f.kind) {
            (2, LIST) => {
                let (n, elem) = c.list()?;
                if elem != STRUCT {
                    return Err(Unreadable);
                }
                out.schema_elements = n;
                // Children still to come at each open level.
                let mut open: Vec<u64> = Vec::new();
                for _ in 0..n {
                    let children = schema_children(&mut c)?;
                    // This element fills one slot of its parent's.
                    while let Some(left) = open.last_mut() {
                        if *left == 0 {
                            open.pop();
                        } else {
                            *left -= 1;
                            break;
                        }
                    }
                    if children > 0 {
                        open.push(children);
                        out.depth = out.depth.max(open.len() as u64 - 1);
                    }
                }
            }
            (4, LIST) => {
                let (n, elem) = c.list()?;
                if elem != STRUCT {
                    return Err(Unreadable);
                }
                out.row_groups = n;
                for _ in 0..n {
                    out.column_chunks = out.column_chunks.saturating_add(group_chunks(&mut c)?);
                }
            }
            (_, kind) => c.skip(kind)?,
        }
    }
    Ok(out)
}

/// A schema element's `num_children` (field 5), the rest skipped.
fn schema_children(c: &mut Cursor<'_>) -> R<u64> {
    let mut children = 0u64;
    let mut last = 0i16;
    while let Some(f) = c.field(&mut last)? {
        if f.id == 5 && f.kind == I32 {
            children = u64::try_from(c.int(f.kind)?).unwrap_or(0);
        } else {
            c.skip(f.kind)?;
        }
    }
    Ok(children)
}

/// A row group's column chunk count (the length of field 1), the rest
/// skipped.
fn group_chunks(c: &mut Cursor<'_>) -> R<u64> {
    let mut chunks = 0u64;
    let mut last = 0i16;
    while let Some(f) = c.field(&mut last)? {
        if f.id == 1 && f.kind == LIST {
            let (n, elem) = c.list()?;
            chunks = n;
            for _ in 0..n {
                c.skip(elem)?;
            }
        } else {
            c.skip(f.kind)?;
        }
    }
    Ok(chunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_deep_nesting_without_recursion_and_refuses_past_its_cap() {
        // A struct holding a struct ... 100,000 deep: the skipper gives
        // up at its depth cap instead of overflowing anything.
        let mut bytes = vec![0x1c; 100_000];
        bytes.extend(std::iter::repeat_n(0u8, 100_001));
        let mut c = Cursor::new(&bytes);
        assert_eq!(c.skip(STRUCT), Err(Unreadable));
        // Shallow enough, it reads to the end.
        let mut bytes = vec![0x1c; 10];
        bytes.extend(std::iter::repeat_n(0u8, 11));
        let mut c = Cursor::new(&bytes);
        assert_eq!(c.skip(STRUCT), Ok(()));
        assert_eq!(c.position(), bytes.len());
    }

    #[test]
    fn a_list_longer_than_its_bytes_is_unreadable() {
        // A list of 2^40 i32s in five bytes.
        let bytes = [0xf5, 0x80, 0x80, 0x80, 0x80, 0x20];
        assert_eq!(Cursor::new(&bytes).skip(LIST), Err(Unreadable));
    }
}
