//! What a file is when it is not text: compressed and archive
//! containers, binary data formats, images, executables, and text in an
//! encoding other than UTF-8, recognized by their leading bytes before
//! any format is sniffed, whatever the file is called.
//!
//! A name says what the caller hoped; the first bytes say what the file
//! is. A gzip file named `data.csv` is refused as gzip-compressed data,
//! not read as a CSV of garbage, and a UTF-16 file is named as UTF-16
//! text rather than refused for its NUL bytes.

/// A kind of file recognized by its leading bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Magic {
    /// A short name (`gzip`, `parquet`, `utf-16le`).
    pub name: &'static str,
    /// What it is, for a person (`gzip-compressed data`).
    pub what: &'static str,
    /// What reads it, or what to do instead.
    pub advice: &'static str,
}

const fn magic(name: &'static str, what: &'static str, advice: &'static str) -> Magic {
    Magic { name, what, advice }
}

/// The signatures, tried in order (longer prefixes of a shared start
/// come first: UTF-32 LE before UTF-16 LE).
const SIGNATURES: &[(&[u8], Magic)] = &[
    (
        b"\x1f\x8b",
        magic(
            "gzip",
            "gzip-compressed data",
            "decompress it first (gunzip -k FILE, or zcat FILE > out) and read the result",
        ),
    ),
    (
        b"\x28\xb5\x2f\xfd",
        magic(
            "zstd",
            "zstd-compressed data",
            "decompress it first (zstd -d FILE) and read the result",
        ),
    ),
    (
        b"\xfd7zXZ\x00",
        magic(
            "xz",
            "xz-compressed data",
            "decompress it first (xz -dk FILE) and read the result",
        ),
    ),
    (
        b"7z\xbc\xaf\x27\x1c",
        magic(
            "7z",
            "a 7-Zip archive",
            "extract the member you want (7z x FILE) and read it",
        ),
    ),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        magic(
            "ole2",
            "a Microsoft Compound File (a legacy .xls workbook, a .doc or .msg, or a password-protected Office file)",
            "export the sheet as CSV, or read it with a spreadsheet library (calamine, xlrd)",
        ),
    ),
    (
        b"PARE",
        magic(
            "parquet-encrypted",
            "an encrypted Apache Parquet file",
            "read it with a Parquet reader given its keys (pyarrow with a decryption configuration)",
        ),
    ),
    (
        b"PAR1",
        magic(
            "parquet",
            "an Apache Parquet file",
            "read it with a Parquet reader (pyarrow, DuckDB, polars)",
        ),
    ),
    (
        b"ARROW1",
        magic(
            "arrow",
            "an Apache Arrow IPC (Feather v2) file",
            "read it with an Arrow reader (pyarrow.feather, polars)",
        ),
    ),
    (
        b"FEA1",
        magic(
            "feather",
            "a Feather v1 file",
            "read it with an Arrow reader (pyarrow.feather)",
        ),
    ),
    (
        b"SQLite format 3\x00",
        magic(
            "sqlite",
            "an SQLite database",
            "query it with sqlite3 or DuckDB",
        ),
    ),
    (
        b"%PDF-",
        magic(
            "pdf",
            "a PDF document",
            "extract its text or tables with a PDF tool first",
        ),
    ),
    (
        b"\x89PNG\r\n\x1a\n",
        magic("png", "a PNG image", "it holds no rows or records to read"),
    ),
    (
        b"\xff\xd8\xff",
        magic("jpeg", "a JPEG image", "it holds no rows or records to read"),
    ),
    (
        b"\x7fELF",
        magic(
            "elf",
            "an ELF executable or library",
            "it holds no rows or records to read",
        ),
    ),
    (
        b"\xff\xfe\x00\x00",
        magic(
            "utf-32le",
            "UTF-32 text (little-endian, by its byte order mark)",
            "convert it to UTF-8 first (iconv -f UTF-32 -t UTF-8 FILE)",
        ),
    ),
    (
        b"\x00\x00\xfe\xff",
        magic(
            "utf-32be",
            "UTF-32 text (big-endian, by its byte order mark)",
            "convert it to UTF-8 first (iconv -f UTF-32 -t UTF-8 FILE)",
        ),
    ),
    (
        b"\xff\xfe",
        magic(
            "utf-16le",
            "UTF-16 text (little-endian, by its byte order mark)",
            "convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8 FILE)",
        ),
    ),
    (
        b"\xfe\xff",
        magic(
            "utf-16be",
            "UTF-16 text (big-endian, by its byte order mark)",
            "convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8 FILE)",
        ),
    ),
];

const ZIP: Magic = magic(
    "zip",
    "a zip archive",
    "inspect it to list its members, and read one with the member option (member=NAME, or ARCHIVE::NAME on the command line)",
);

const XLSX: Magic = magic(
    "xlsx",
    "an Excel workbook (.xlsx, .xlsm or .xlsb: a zip archive)",
    "export the sheet as CSV, or read it with a spreadsheet library (openpyxl, calamine)",
);

const ODS: Magic = magic(
    "ods",
    "an OpenDocument spreadsheet (.ods: a zip archive)",
    "export the sheet as CSV, or read it with a spreadsheet library (calamine, odfpy)",
);

const OOXML: Magic = magic(
    "ooxml",
    "an Office Open XML package (.xlsx, .docx or .pptx: a zip archive)",
    "export its data as CSV, or read it with the library for its kind (openpyxl, calamine)",
);

/// What a zip archive is, by the names in its directory: a workbook, a
/// spreadsheet or another Office package (whose first bytes may not say
/// so when its first member is not the one that names it).
pub(crate) fn zip_package<'a>(mut names: impl Iterator<Item = &'a str>) -> Option<Magic> {
    let (mut content_types, mut mimetype, mut content, mut workbook) = (false, false, false, false);
    for name in names.by_ref() {
        // Some writers separate a path with `\`, as Windows does.
        if name.starts_with("xl/") || name.starts_with("xl\\") {
            return Some(XLSX);
        }
        content_types |= name == "[Content_Types].xml";
        mimetype |= name == "mimetype";
        content |= name == "content.xml";
        workbook |= name.ends_with("workbook.xml") || name.ends_with("workbook.bin");
    }
    if mimetype && content {
        Some(ODS)
    } else if content_types && workbook {
        // A workbook whose parts are not under `xl/` (a minimal package).
        Some(XLSX)
    } else if content_types {
        Some(OOXML)
    } else {
        None
    }
}

/// What the leading bytes say the file is, when they say it is not
/// UTF-8 text. `None` for anything else (which the format sniff judges).
///
/// ```
/// use plumb::identify;
/// assert_eq!(identify(b"\x1f\x8b\x08\x00rest").unwrap().name, "gzip");
/// assert_eq!(identify(b"\xff\xfei\x00d\x00").unwrap().name, "utf-16le");
/// assert_eq!(identify(b"PK\x03\x04....[Content_Types].xml....xl/workbook.xml").unwrap().name, "xlsx");
/// assert!(identify(b"id,name\n1,ann\n").is_none());
/// ```
pub fn identify(head: &[u8]) -> Option<Magic> {
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        // An xlsx names its parts in the first local headers.
        let find = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
        return Some(
            if find(b"mimetypeapplication/vnd.oasis.opendocument.spreadsheet") {
                ODS
            } else if find(b"xl/") {
                XLSX
            } else if find(b"[Content_Types].xml") {
                OOXML
            } else {
                ZIP
            },
        );
    }
    if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
        return Some(magic(
            "bzip2",
            "bzip2-compressed data",
            "decompress it first (bunzip2 -k FILE) and read the result",
        ));
    }
    let found = SIGNATURES
        .iter()
        .find(|(sig, _)| head.starts_with(sig))
        .map(|(_, m)| *m)?;
    // A few signatures are printable text: a file that merely starts with
    // `PAR1` is taken for Parquet only when binary bytes follow.
    let printable = matches!(
        found.name,
        "parquet" | "parquet-encrypted" | "arrow" | "feather"
    );
    (!printable || head.contains(&0)).then_some(found)
}
