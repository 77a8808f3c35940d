//! Parquet files written byte by byte, so that a test can make one
//! declare what no writer would: a dictionary of billions of entries, a
//! page that claims gigabytes once decompressed, a schema nested ten
//! thousand deep, a footer of a hundred thousand row groups.
//!
//! The Thrift compact protocol is written with long-form field headers
//! only (a zero delta, then the id), which every reader accepts.

/// Compact-protocol type codes.
const I32: u8 = 5;
const I64: u8 = 6;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const STRUCT: u8 = 12;

/// A compact-protocol writer.
#[derive(Debug, Default, Clone)]
pub struct Thrift {
    /// The bytes written.
    pub out: Vec<u8>,
}

impl Thrift {
    fn varint(&mut self, mut v: u64) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.out.push(b);
                return;
            }
            self.out.push(b | 0x80);
        }
    }

    fn zigzag(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }

    fn header(&mut self, id: i16, kind: u8) {
        self.out.push(kind);
        self.zigzag(i64::from(id));
    }

    /// An `i32` field.
    pub fn i32(&mut self, id: i16, v: i32) -> &mut Self {
        self.header(id, I32);
        self.zigzag(i64::from(v));
        self
    }

    /// An `i64` field.
    pub fn i64(&mut self, id: i16, v: i64) -> &mut Self {
        self.header(id, I64);
        self.zigzag(v);
        self
    }

    /// A binary (string) field.
    pub fn bin(&mut self, id: i16, v: &[u8]) -> &mut Self {
        self.header(id, BINARY);
        self.varint(v.len() as u64);
        self.out.extend_from_slice(v);
        self
    }

    /// A list field of `n` `i32`s.
    pub fn i32_list(&mut self, id: i16, v: &[i32]) -> &mut Self {
        self.list_header(id, I32, v.len());
        for &x in v {
            self.zigzag(i64::from(x));
        }
        self
    }

    /// A list field of binaries.
    pub fn bin_list(&mut self, id: i16, v: &[&[u8]]) -> &mut Self {
        self.list_header(id, BINARY, v.len());
        for x in v {
            self.varint(x.len() as u64);
            self.out.extend_from_slice(x);
        }
        self
    }

    /// A list field's header, for `n` structs written next (each its
    /// fields, then [`Thrift::end`], with no header of its own).
    pub fn struct_list(&mut self, id: i16, n: usize) -> &mut Self {
        self.list_header(id, STRUCT, n);
        self
    }

    fn list_header(&mut self, id: i16, kind: u8, n: usize) {
        self.header(id, LIST);
        if n < 15 {
            self.out.push(((n as u8) << 4) | kind);
        } else {
            self.out.push(0xf0 | kind);
            self.varint(n as u64);
        }
    }

    /// A struct field's header; its fields follow, then [`Thrift::end`].
    pub fn field_struct(&mut self, id: i16) -> &mut Self {
        self.header(id, STRUCT);
        self
    }

    /// The end of a struct.
    pub fn end(&mut self) -> &mut Self {
        self.out.push(0);
        self
    }
}

/// Physical types and codecs, as Parquet numbers them.
pub mod codes {
    /// INT32.
    pub const INT32: i32 = 1;
    /// BYTE_ARRAY.
    pub const BYTE_ARRAY: i32 = 6;
    /// Uncompressed.
    pub const UNCOMPRESSED: i32 = 0;
    /// Snappy.
    pub const SNAPPY: i32 = 1;
    /// PLAIN.
    pub const PLAIN: i32 = 0;
    /// RLE_DICTIONARY.
    pub const RLE_DICTIONARY: i32 = 8;
    /// DELTA_LENGTH_BYTE_ARRAY.
    pub const DELTA_LENGTH_BYTE_ARRAY: i32 = 6;
}

/// A page: its header's claims and its bytes as stored.
#[derive(Debug, Clone)]
pub struct Page {
    /// 0 data (v1), 2 dictionary.
    pub page_type: i32,
    /// The size it claims once decompressed.
    pub uncompressed: i32,
    /// The values it claims.
    pub num_values: i32,
    /// Its values' encoding.
    pub encoding: i32,
    /// The bytes stored (their length is the compressed size).
    pub body: Vec<u8>,
}

impl Page {
    /// The page's header and body.
    pub fn bytes(&self) -> Vec<u8> {
        let mut t = Thrift::default();
        t.i32(1, self.page_type)
            .i32(2, self.uncompressed)
            .i32(3, self.body.len() as i32);
        let sub = if self.page_type == 2 { 7 } else { 5 };
        t.field_struct(sub)
            .i32(1, self.num_values)
            .i32(2, self.encoding);
        if sub == 5 {
            // Definition and repetition levels: RLE.
            t.i32(3, 3).i32(4, 3);
        }
        t.end().end();
        let mut out = t.out;
        out.extend_from_slice(&self.body);
        out
    }
}

/// A file of one required top-level column of `physical` type, its
/// pages in one row group, `rows` rows as the footer says, compressed
/// with `codec`.
pub fn one_column_file(physical: i32, codec: i32, rows: i64, pages: &[Page]) -> Vec<u8> {
    let written: Vec<(Vec<u8>, i32, i64)> = pages
        .iter()
        .map(|p| (p.bytes(), p.page_type, i64::from(p.uncompressed)))
        .collect();
    column_file(physical, codec, rows, &written)
}

/// [`one_column_file`] of pages already written: each its bytes (header
/// and body), its type and the size it claims once decompressed.
fn column_file(physical: i32, codec: i32, rows: i64, pages: &[(Vec<u8>, i32, i64)]) -> Vec<u8> {
    let mut out = b"PAR1".to_vec();
    let first = out.len() as i64;
    let dict = pages.first().is_some_and(|p| p.1 == 2);
    let mut data_offset = first;
    let mut uncompressed = 0i64;
    for (i, (bytes, _, claim)) in pages.iter().enumerate() {
        if i == 1 && dict {
            data_offset = out.len() as i64;
        }
        uncompressed += claim;
        out.extend_from_slice(bytes);
    }
    let chunk_len = out.len() as i64 - first;
    let mut t = Thrift::default();
    t.i32(1, 1);
    t.struct_list(2, 2);
    t.bin(4, b"schema").i32(5, 1).end();
    t.i32(1, physical).i32(3, 0).bin(4, b"v").end();
    t.i64(3, rows);
    t.struct_list(4, 1);
    {
        t.struct_list(1, 1);
        t.i64(2, first).field_struct(3);
        t.i32(1, physical)
            .i32_list(2, &[0, 3, 8])
            .bin_list(3, &[b"v"])
            .i32(4, codec)
            .i64(5, rows)
            .i64(6, uncompressed)
            .i64(7, chunk_len)
            .i64(9, data_offset);
        if dict {
            t.i64(11, first);
        }
        t.end().end();
        t.i64(2, uncompressed).i64(3, rows).end();
    }
    t.end();
    finish(out, &t.out)
}

/// A file whose schema nests `depth` optional groups around one int32
/// leaf, with no row groups.
pub fn nested_schema_file(depth: usize) -> Vec<u8> {
    let mut t = Thrift::default();
    t.i32(1, 1);
    t.struct_list(2, depth + 2);
    t.bin(4, b"schema").i32(5, 1).end();
    for _ in 0..depth {
        t.i32(3, 1).bin(4, b"g").i32(5, 1).end();
    }
    t.i32(1, codes::INT32).i32(3, 1).bin(4, b"v").end();
    t.i64(3, 0);
    t.struct_list(4, 0);
    t.end();
    finish(b"PAR1".to_vec(), &t.out)
}

/// A file of one int32 column whose footer lists `groups` empty row
/// groups, each with its one column chunk.
pub fn many_row_groups_file(groups: usize) -> Vec<u8> {
    let mut t = Thrift::default();
    t.i32(1, 1);
    t.struct_list(2, 2);
    t.bin(4, b"schema").i32(5, 1).end();
    t.i32(1, codes::INT32).i32(3, 0).bin(4, b"v").end();
    t.i64(3, 0);
    t.struct_list(4, groups);
    for _ in 0..groups {
        t.struct_list(1, 1);
        t.i64(2, 4).field_struct(3);
        t.i32(1, codes::INT32)
            .i32_list(2, &[0])
            .bin_list(3, &[b"v"])
            .i32(4, 0)
            .i64(5, 0)
            .i64(6, 0)
            .i64(7, 0)
            .i64(9, 4);
        t.end().end();
        t.i64(2, 0).i64(3, 0).end();
    }
    t.end();
    finish(b"PAR1".to_vec(), &t.out)
}

/// A file of one int32 column of one row, its one page well formed,
/// whose footer places the column chunk at `data_offset` (and a
/// dictionary page at `dictionary_offset`) with `compressed` bytes: the
/// place a footer claims, which may lie (be negative).
pub fn chunk_place_file(
    data_offset: i64,
    dictionary_offset: Option<i64>,
    compressed: i64,
) -> Vec<u8> {
    let page = Page {
        page_type: 0,
        uncompressed: 4,
        num_values: 1,
        encoding: 0,
        body: 7i32.to_le_bytes().to_vec(),
    };
    let mut out = b"PAR1".to_vec();
    out.extend(page.bytes());
    let mut t = Thrift::default();
    t.i32(1, 1);
    t.struct_list(2, 2);
    t.bin(4, b"schema").i32(5, 1).end();
    t.i32(1, codes::INT32).i32(3, 0).bin(4, b"v").end();
    t.i64(3, 1);
    t.struct_list(4, 1);
    t.struct_list(1, 1);
    t.i64(2, data_offset).field_struct(3);
    t.i32(1, codes::INT32)
        .i32_list(2, &[0])
        .bin_list(3, &[b"v"])
        .i32(4, 0)
        .i64(5, 1)
        .i64(6, 4)
        .i64(7, compressed)
        .i64(9, data_offset);
    if let Some(d) = dictionary_offset {
        t.i64(11, d);
    }
    t.end().end();
    t.i64(2, 4).i64(3, 1).end();
    t.end();
    finish(out, &t.out)
}

fn finish(mut out: Vec<u8>, footer: &[u8]) -> Vec<u8> {
    out.extend_from_slice(footer);
    out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    out.extend_from_slice(b"PAR1");
    out
}

/// A DELTA_BINARY_PACKED header for `total` values (128-value blocks of
/// four miniblocks), with no blocks after it.
pub fn delta_header(total: u64) -> Vec<u8> {
    let mut t = Thrift::default();
    for v in [128, 4, total, 0] {
        t.varint(v);
    }
    t.out
}

/// One RLE run of dictionary index 0 (bit width 1, then a run of 1):
/// the data page after a dictionary.
fn first_index_page() -> Page {
    Page {
        page_type: 0,
        uncompressed: 3,
        num_values: 1,
        encoding: codes::RLE_DICTIONARY,
        body: vec![1, 2, 0],
    }
}

/// A byte-array column whose dictionary page holds `body` and declares
/// `entries`, and one data page of index 0.
pub fn dictionary_file(entries: i32, body: Vec<u8>) -> Vec<u8> {
    let dict = Page {
        page_type: 2,
        uncompressed: i32::try_from(body.len()).unwrap_or(i32::MAX),
        num_values: entries,
        encoding: codes::PLAIN,
        body,
    };
    one_column_file(
        codes::BYTE_ARRAY,
        codes::UNCOMPRESSED,
        1,
        &[dict, first_index_page()],
    )
}

/// A work bomb: a byte-array column whose dictionary holds one value of
/// `value_len` bytes, and one data page of a single RLE run that repeats
/// it `run` times (the file's rows): a few hundred bytes that decode to
/// `value_len * run` bytes of values.
pub fn dictionary_run_file(value_len: usize, run: u32) -> Vec<u8> {
    let mut body = u32::try_from(value_len)
        .unwrap_or(u32::MAX)
        .to_le_bytes()
        .to_vec();
    body.resize(4 + value_len, b'x');
    let dict = Page {
        page_type: 2,
        uncompressed: i32::try_from(body.len()).unwrap_or(i32::MAX),
        num_values: 1,
        encoding: codes::PLAIN,
        body,
    };
    // Bit width 1, then an RLE run header (the run length shifted left,
    // as a ULEB128 varint) and the repeated index, 0.
    let mut index = vec![1u8];
    let mut header = u64::from(run) << 1;
    loop {
        let byte = (header & 0x7F) as u8;
        header >>= 7;
        if header == 0 {
            index.push(byte);
            break;
        }
        index.push(byte | 0x80);
    }
    index.push(0);
    let data = Page {
        page_type: 0,
        uncompressed: i32::try_from(index.len()).unwrap_or(i32::MAX),
        num_values: i32::try_from(run).unwrap_or(i32::MAX),
        encoding: codes::RLE_DICTIONARY,
        body: index,
    };
    one_column_file(
        codes::BYTE_ARRAY,
        codes::UNCOMPRESSED,
        i64::from(run),
        &[dict, data],
    )
}

/// How [`odd_claim_file`] writes its page's claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OddClaim {
    /// The size once decompressed in a field declared `i64`, which the
    /// `parquet` crate reads as its `i32` all the same.
    DeclaredI64,
    /// A number wider than 32 bits in the `i32` field: its low 32 bits,
    /// which the crate keeps, are a gigabyte.
    Wide,
}

/// An int32 column of one Snappy page whose header claims a gigabyte
/// once decompressed in a way no writer writes it (see [`OddClaim`]), and
/// stores ten zero bytes.
pub fn odd_claim_file(form: OddClaim) -> Vec<u8> {
    let body = vec![0u8; 10];
    let gigabyte = 1i64 << 30;
    let mut t = Thrift::default();
    t.i32(1, 0);
    match form {
        OddClaim::DeclaredI64 => {
            t.i64(2, gigabyte);
        }
        OddClaim::Wide => {
            t.header(2, I32);
            t.zigzag(gigabyte - (1 << 32));
        }
    }
    t.i32(3, body.len() as i32);
    t.field_struct(5)
        .i32(1, 1)
        .i32(2, codes::PLAIN)
        .i32(3, 3)
        .i32(4, 3)
        .end();
    t.end();
    let mut page = t.out;
    page.extend_from_slice(&body);
    column_file(codes::INT32, codes::SNAPPY, 1, &[(page, 0, gigabyte)])
}

/// An int32 column of one Snappy page that claims `i32::MAX` bytes once
/// decompressed and stores `stored` zero bytes.
pub fn page_claim_file(stored: usize) -> Vec<u8> {
    let data = Page {
        page_type: 0,
        uncompressed: i32::MAX,
        num_values: 1,
        encoding: codes::PLAIN,
        body: vec![0; stored],
    };
    one_column_file(codes::INT32, codes::SNAPPY, 1, &[data])
}
