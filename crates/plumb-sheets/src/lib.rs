//! plumb's spreadsheet readers (xlsx and xlsm, xlsb, xls, ods), written
//! against plumb-core's public [`FormatReader`] seam alone, as any
//! downstream format would be.
//!
//! ```
//! use plumb_core::{BytesSource, FormatReader, Request};
//! use rust_xlsxwriter::Workbook;
//!
//! // A workbook of one sheet, written with rust_xlsxwriter.
//! let mut book = Workbook::new();
//! let sheet = book.add_worksheet().set_name("people")?;
//! sheet.write(0, 0, "name")?;
//! sheet.write(0, 1, "age")?;
//! sheet.write(1, 0, "Ada")?;
//! sheet.write(1, 1, 36)?;
//! let bytes = book.save_to_buffer()?;
//!
//! let source = BytesSource::new("people.xlsx", bytes);
//! let reader = plumb_sheets::SheetsReader::XLSX;
//! let inspect = reader.inspect(&source, &Request::default())?.to_json();
//! assert_eq!(inspect["sheets"][0]["name"], "people");
//! assert_eq!(inspect["sheets"][0]["header"], true);
//! assert_eq!(inspect["sheets"][0]["columns"][1]["type"], "integer");
//!
//! let select = reader.select(&source, &Request::default())?.to_json();
//! assert_eq!(select["columns"], serde_json::json!(["name", "age"]));
//! assert_eq!(select["rows"][0], serde_json::json!(["Ada", 36]));
//!
//! // The rows where a column holds: each whole, with its row.
//! let mut req = Request::default();
//! req.set("column", serde_json::json!("age"))?.set("where", serde_json::json!("> 30"))?;
//! let search = reader.search(&source, &req)?.to_json();
//! assert_eq!(search["hits"][0]["row"], 0);
//! assert_eq!(search["hits"][0]["values"], serde_json::json!(["Ada", 36]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Built on `calamine`, the Rust spreadsheet reader that knows all four
//! formats (the OOXML zip of XML parts, the binary xlsb records, BIFF
//! in a compound file, OpenDocument): writing any of them by hand would
//! only add bugs. What plumb adds is the caps, the column facts, exact
//! JSON for every cell and typed refusals.
//!
//! Memory, stated as it is: calamine needs the whole file, so it is read
//! whole (over [`SHEETS_MAX_FILE_BYTES`] is refused). An xlsx or xlsb
//! sheet is then streamed cell by cell: plumb keeps the window's rows
//! and per-column counts, never the sheet, and the parts calamine holds
//! whole (shared strings, styles) are refused past
//! [`SHEETS_MAX_PART_BYTES`] as the zip declares them. An xls or ods
//! workbook is parsed whole when it opens (calamine's design): every
//! sheet is held as a grid of its used range: for xls, what those grids
//! would take is counted from the BIFF records before calamine runs and
//! refused past [`SHEETS_MAX_GRID_BYTES`], and for ods the same is
//! counted from `content.xml`'s events (repeats and `text:s` runs as
//! calamine copies them out). An xlsx's XML parts are read once before
//! calamine opens them: a text or tag over [`SHEETS_MAX_STRING_BYTES`]
//! (one cell's string, its rich-text runs together), a shared-strings
//! table whose declared or actual count would take calamine more than
//! [`SHEETS_MAX_SHARED_STRINGS_BYTES`], and a cell reference calamine
//! would wrap past 32 bits are refused first; an xlsb's record
//! headers are walked likewise (a record that declares more than
//! [`SHEETS_MAX_STRING_BYTES`], its shared strings).

mod book;
mod cell;
mod cfb_chains;
mod facts;
mod ods_judge;
mod ods_stream;
mod ops;
mod search;
mod xls_judge;
mod xlsb_judge;
mod xlsx_judge;
mod xlsx_trim;

use plumb_core::{
    Answer, FormatReader, Op, OptionKind, OptionSpec, Refusal, RefusalReason, Request, SniffScore,
    Source, SIGNATURE_SCORE,
};

pub use book::{Kind, SHEETS_MAX_FILE_BYTES, SHEETS_MAX_PART_BYTES};
pub use cell::{column_letters, SHEETS_CELL_TEXT_BYTES};
pub use facts::{ColumnFacts, SHEETS_TRACK_COLUMNS};
pub use ods_stream::SHEETS_MAX_STREAMED_CELLS;
pub use ops::{
    FormulaCell, Formulas, Merged, SheetFault, SheetName, SheetReport, SheetsInspect, SheetsSelect,
    SheetsValidate, SHEETS_DESCRIBE_SHEETS, SHEETS_LIST_COLUMNS, SHEETS_LIST_EXAMPLES,
    SHEETS_LIST_FUNCTIONS, SHEETS_SELECT_BUDGET_BYTES, SHEETS_SELECT_CELL_FRAME_BYTES,
};
pub use search::{SheetsHit, SheetsSearch};
pub use xls_judge::SHEETS_MAX_GRID_BYTES;
pub use xlsx_judge::{SHEETS_MAX_SHARED_STRINGS_BYTES, SHEETS_MAX_STRING_BYTES};

use book::Book;

/// The spreadsheet options, the same for every kind.
pub const SHEETS_OPTIONS: [OptionSpec; 4] = [
    OptionSpec {
        name: "sheet",
        kind: OptionKind::Text,
        default: None,
        ops: &[Op::Inspect, Op::Select, Op::Search],
        doc: "the sheet, by name or 0-based index (select and search read the first when left out; inspect describes only this one)",
    },
    plumb_core::HEADER_OPTION,
    plumb_core::COLUMNS_OPTION,
    OptionSpec {
        name: "column",
        kind: OptionKind::Text,
        default: None,
        ops: &[Op::Search],
        doc: "the column to search, by header name, letters or 0-based index; every column of the used range when left out",
    },
];

/// A spreadsheet reader. The four share their code and read whatever
/// kind the bytes are; each answers to its own format name, extensions
/// and signature, so that `detect` and `--format` name the kind.
#[derive(Debug, Clone, Copy)]
pub struct SheetsReader {
    kind: Kind,
}

impl SheetsReader {
    /// xlsx and xlsm.
    pub const XLSX: SheetsReader = SheetsReader { kind: Kind::Xlsx };
    /// xlsb.
    pub const XLSB: SheetsReader = SheetsReader { kind: Kind::Xlsb };
    /// xls.
    pub const XLS: SheetsReader = SheetsReader { kind: Kind::Xls };
    /// ods.
    pub const ODS: SheetsReader = SheetsReader { kind: Kind::Ods };
    /// All four, in the order to register them.
    pub const ALL: [SheetsReader; 4] = [Self::XLSX, Self::XLSB, Self::XLS, Self::ODS];
}

/// Runs `f`, turning a panic inside calamine (a hostile file can reach
/// an index or arithmetic it does not guard) into an `invalid-data`
/// refusal rather than a crash.
fn guarded<T>(f: impl FnOnce() -> Result<T, Refusal>) -> Result<T, Refusal> {
    Refusal::guarded("the workbook", "the spreadsheet library", f)
}

fn normalized(req: &Request) -> Result<Request, Refusal> {
    let mut req = req.clone();
    req.options.normalize(&SHEETS_OPTIONS)?;
    Ok(req)
}

/// Whether a name in `head` (a zip's first local headers) is a part of
/// a binary workbook: `workbook.bin`, or a sheet, shared strings or
/// styles part ending in `.bin`. Other `.bin` parts (printer settings,
/// which R's writexl and openxlsx write, a macro project in an `.xlsm`)
/// are in text workbooks too, so they say nothing: the reading, which
/// sees every name, takes a workbook for `xlsb` only by its
/// `workbook.bin`, and detection must agree with it.
fn names_binary_workbook_part(head: &[u8]) -> bool {
    const PARTS: [&[u8]; 4] = [b"workbook", b"worksheets/", b"sharedstrings", b"styles"];
    memchr::memmem::find_iter(head, b".bin").any(|end| {
        // The name before `.bin`, back to the bytes a name cannot hold.
        let start = head[..end]
            .iter()
            .rposition(|&b| !(b.is_ascii_graphic()))
            .map_or(0, |k| k + 1);
        let name = head[start..end].to_ascii_lowercase();
        PARTS.iter().any(|p| name.windows(p.len()).any(|w| w == *p))
    })
}

fn zip_kind(head: &[u8]) -> Option<Kind> {
    if !(head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06")) {
        return None;
    }
    let find = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    if find(b"mimetypeapplication/vnd.oasis.opendocument.spreadsheet") {
        Some(Kind::Ods)
    } else if names_binary_workbook_part(head) {
        Some(Kind::Xlsb)
    } else if find(b"xl/")
        || find(b"xl\\")
        || find(b"[Content_Types].xml")
        || find(b"workbook.xml")
        || find(b"sheet1.xml")
    {
        Some(Kind::Xlsx)
    } else {
        None
    }
}

impl FormatReader for SheetsReader {
    fn name(&self) -> &'static str {
        self.kind.name()
    }

    fn extensions(&self) -> &'static [&'static str] {
        match self.kind {
            Kind::Xlsx => &["xlsx", "xlsm"],
            Kind::Xlsb => &["xlsb"],
            Kind::Xls => &["xls"],
            Kind::Ods => &["ods"],
        }
    }

    fn sniff(&self, head: &[u8]) -> Option<SniffScore> {
        let found = if head.starts_with(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1") {
            Some(Kind::Xls)
        } else {
            zip_kind(head)
        };
        (found == Some(self.kind)).then_some(SIGNATURE_SCORE)
    }

    fn options(&self) -> &'static [OptionSpec] {
        &SHEETS_OPTIONS
    }

    fn inspect(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let req = normalized(req)?;
        guarded(|| {
            let (mut book, kind, len) = Book::open(source)?;
            Ok(Box::new(ops::inspect(&mut book, kind, len, &req)?) as Box<dyn Answer>)
        })
    }

    fn select(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let req = normalized(req)?;
        guarded(|| {
            let (mut book, kind, _) = Book::open(source)?;
            Ok(Box::new(ops::select(&mut book, kind, &req)?) as Box<dyn Answer>)
        })
    }

    fn search(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let req = normalized(req)?;
        guarded(|| {
            let (mut book, kind, _) = Book::open(source)?;
            Ok(Box::new(search::search(&mut book, kind, &req)?) as Box<dyn Answer>)
        })
    }

    fn answer_schema(
        &self,
        op: plumb_core::Op,
        generator: &mut plumb_core::schemars::SchemaGenerator,
    ) -> Option<plumb_core::schemars::Schema> {
        plumb_core::schema_by_op::<
            ops::SheetsInspect,
            ops::SheetsSelect,
            ops::SheetsValidate,
            search::SheetsSearch,
        >(op, generator)
    }

    fn selects_from_end(&self) -> bool {
        // The sheet's rows are counted before the window is taken.
        true
    }

    fn validate(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        normalized(req)?;
        guarded(|| match Book::open(source) {
            Ok((mut book, kind, _)) => {
                Ok(Box::new(ops::validate(&mut book, kind)?) as Box<dyn Answer>)
            }
            Err(r) if r.reason() == RefusalReason::InvalidData => Ok(Box::new(ops::unopened(
                self.kind.name(),
                r.message().to_owned(),
            ))
                as Box<dyn Answer>),
            Err(r) => Err(r),
        })
    }
}
