//! A workbook opened: the bytes read whole (under a cap), the kind told
//! from the bytes themselves, the zip's declared part sizes checked, and
//! calamine's four readers behind one face that streams a sheet's cells.

use std::io::Cursor;
use std::ops::ControlFlow;

use calamine::{Data, DataRef, Dimensions, Ods, Reader, Xls, Xlsb, Xlsx};

use plumb_core::{CancelToken, Refusal, RefusalReason, Source};

use crate::cell::Cell;
use crate::xls_judge::{Verdict, SHEETS_MAX_GRID_BYTES};
use crate::xlsx_judge::Finding;

/// The largest workbook file plumb reads: calamine needs the whole file
/// in memory (it seeks inside the zip or compound file), so the file is
/// read whole, and a larger one is refused. An xlsx whose cell values are
/// padded with white space is held twice while its parts are rewritten.
pub const SHEETS_MAX_FILE_BYTES: u64 = 256 << 20;

/// The largest zip part calamine holds whole once inflated, by the size
/// the zip declares for it: the shared-strings table, the styles and the
/// workbook of an xlsx or xlsb, every part of an ods (its `content.xml`
/// holds every sheet). A worksheet part of an xlsx or xlsb is streamed
/// cell by cell and has no cap.
pub const SHEETS_MAX_PART_BYTES: u64 = 64 << 20;

/// The workbook kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Office Open XML workbook (`.xlsx`, `.xlsm`).
    Xlsx,
    /// Excel binary workbook (`.xlsb`).
    Xlsb,
    /// Legacy Excel workbook (BIFF in a compound file, `.xls`).
    Xls,
    /// OpenDocument spreadsheet (`.ods`).
    Ods,
}

impl Kind {
    /// The format's name, as answers carry it.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Xlsx => "xlsx",
            Kind::Xlsb => "xlsb",
            Kind::Xls => "xls",
            Kind::Ods => "ods",
        }
    }
}

const OLE_MAGIC: &[u8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1";

type Bytes = Cursor<Vec<u8>>;

/// One of calamine's readers.
pub(crate) enum Which {
    Xlsx(Box<Xlsx<Bytes>>),
    Xlsb(Box<Xlsb<Bytes>>),
    Xls(Box<Xls<Bytes>>),
    Ods(Box<Ods<Bytes>>),
    /// An ods too large for calamine's grids, read as a stream.
    OdsStream(Box<crate::ods_stream::OdsStream>),
}

/// A workbook opened, with the caller's cancel token.
pub(crate) struct Book {
    reader: Which,
    cancel: Option<CancelToken>,
}

/// Cells streamed between two looks at the cancel token.
const CANCEL_EVERY: u64 = 4096;

/// One sheet, as the workbook lists it.
#[derive(Clone, Debug)]
pub(crate) struct SheetEntry {
    pub(crate) name: String,
    pub(crate) kind: &'static str,
    pub(crate) visible: &'static str,
}

fn malformed(kind: Kind, e: impl std::fmt::Display) -> Refusal {
    Refusal::new(
        RefusalReason::InvalidData,
        format!(
            "the {} workbook is malformed: {}",
            kind.name(),
            plumb_core::echo(&e.to_string())
        ),
    )
}

/// The file's bytes, read whole under [`SHEETS_MAX_FILE_BYTES`].
fn read_whole(source: &dyn Source) -> Result<Vec<u8>, Refusal> {
    use std::io::Read;
    if let Some(len) = source.len() {
        if len > SHEETS_MAX_FILE_BYTES {
            return Err(too_large(format!(
                "the workbook is {len} bytes; plumb reads spreadsheets of up to {SHEETS_MAX_FILE_BYTES} bytes, because calamine holds the whole file"
            )));
        }
    }
    let mut out = Vec::new();
    source
        .open()?
        .take(SHEETS_MAX_FILE_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| Refusal::from_io(&e, Some(source.name())))?;
    if out.len() as u64 > SHEETS_MAX_FILE_BYTES {
        return Err(too_large(format!(
            "the workbook is over {SHEETS_MAX_FILE_BYTES} bytes; plumb reads spreadsheets of up to that size, because calamine holds the whole file"
        )));
    }
    Ok(out)
}

fn too_large(message: String) -> Refusal {
    Refusal::new(RefusalReason::SelectionTooLarge, message).with_extra(
        "advice",
        "export the sheet you need as CSV (for example with LibreOffice: soffice --headless --convert-to csv) and read that"
            .into(),
    )
}

/// What the zip's central directory says: the kind, and a refusal for a
/// part calamine would hold whole that declares more than the cap.
fn judge_zip(bytes: &[u8]) -> Result<Kind, Refusal> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
        Refusal::new(
            RefusalReason::InvalidData,
            format!(
                "the workbook's zip archive is malformed: {}",
                plumb_core::echo(&e.to_string())
            ),
        )
    })?;
    let mut names = Vec::with_capacity(archive.len());
    for i in 0..archive.len() {
        let Ok(entry) = archive.by_index_raw(i) else {
            continue;
        };
        names.push((
            entry.name().replace('\\', "/").to_ascii_lowercase(),
            entry.size(),
        ));
    }
    let has = |n: &str| names.iter().any(|(name, _)| name == n);
    let kind = if has("content.xml") && (has("mimetype") || !has("[content_types].xml")) {
        Kind::Ods
    } else if names.iter().any(|(n, _)| n.ends_with("workbook.bin")) {
        Kind::Xlsb
    } else {
        Kind::Xlsx
    };
    for (name, size) in &names {
        let streamed = kind != Kind::Ods && name.contains("worksheets/");
        let held = name.ends_with(".xml") || name.ends_with(".bin") || name.ends_with(".rels");
        if held && !streamed && *size > SHEETS_MAX_PART_BYTES {
            return Err(too_large(format!(
                "the workbook's part `{}` inflates to {size} bytes, and calamine holds it whole; plumb's cap is {SHEETS_MAX_PART_BYTES} bytes",
                plumb_core::echo(name)
            )));
        }
    }
    Ok(kind)
}

impl Book {
    /// Reads and opens the workbook.
    pub(crate) fn open(source: &dyn Source) -> Result<(Book, Kind, u64), Refusal> {
        let bytes = read_whole(source)?;
        let len = bytes.len() as u64;
        let kind = if bytes.starts_with(OLE_MAGIC) {
            Kind::Xls
        } else if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            judge_zip(&bytes)?
        } else {
            return Err(Refusal::new(
                RefusalReason::UnsupportedFormat,
                "this is not a spreadsheet: an xlsx, xlsb or ods is a zip archive, an xls a compound file, and the file starts with neither",
            ));
        };
        if kind == Kind::Xls && is_encrypted_package(&bytes) {
            return Err(Refusal::new(
                RefusalReason::UnsupportedFormat,
                "this workbook is password-protected (an encrypted Office package), and plumb does not decrypt it",
            )
            .with_extra("found", "encrypted-office".into()));
        }
        if kind == Kind::Xls && crate::cfb_chains::loops(&bytes) {
            return Err(malformed(
                kind,
                "a chain of sectors in its compound file loops back on itself (it would never end)",
            ));
        }
        let cancel = source.cancel_token();
        let finding = |f: Finding| match f {
            Finding::TooLarge(m) => too_large(m),
            Finding::Malformed(m) => malformed(kind, m),
            Finding::Cancelled => Refusal::new(
                RefusalReason::Aborted,
                "the caller cancelled the read of the workbook",
            ),
        };
        let mut bytes = bytes;
        match kind {
            Kind::Xlsx => {
                let judged = crate::xlsx_judge::judge(&bytes, cancel).map_err(finding)?;
                if !judged.padded.is_empty() {
                    if let Some(trimmed) =
                        crate::xlsx_trim::trim(&bytes, &judged.padded, cancel).map_err(finding)?
                    {
                        bytes = trimmed;
                    }
                }
            }
            Kind::Xlsb => crate::xlsb_judge::judge(&bytes, cancel).map_err(finding)?,
            Kind::Xls | Kind::Ods => {}
        }
        let verdict = match kind {
            Kind::Xls => crate::xls_judge::judge(&bytes),
            Kind::Ods => crate::ods_judge::judge(&bytes),
            Kind::Xlsx | Kind::Xlsb => Verdict::Unjudged,
        };
        match verdict {
            // calamine would lay an ods out as grids past the cap: it is
            // read as a stream of cells instead.
            Verdict::TooLarge(_) if kind == Kind::Ods => {
                let stream = crate::ods_stream::OdsStream::open(bytes).map_err(|s| stopped(kind, s))?;
                let cancel = source.cancel_token().cloned();
                let reader = Which::OdsStream(Box::new(stream));
                return Ok((Book { reader, cancel }, kind, len));
            }
            Verdict::TooLarge(n) => {
                return Err(too_large(format!(
                    "the {} workbook's sheets would take at least {n} bytes as calamine lays them out (every sheet as a grid of its used range, its repeats copied out, when the workbook opens); plumb's cap is {SHEETS_MAX_GRID_BYTES} bytes",
                    kind.name()
                )))
            }
            Verdict::Tangled => {
                return Err(malformed(
                    kind,
                    "its sheet entries point into one another's records past what a workbook of its size can hold",
                ))
            }
            Verdict::Malformed(m) => {
                return Err(malformed(
                    kind,
                    format!("its compound file does not read ({})", plumb_core::echo(&m)),
                ))
            }
            Verdict::Fits(_) | Verdict::Unjudged => {}
        }
        let cursor = Cursor::new(bytes);
        let reader = match kind {
            Kind::Xlsx => Which::Xlsx(Box::new(
                Xlsx::new(cursor).map_err(|e| open_error(kind, &e))?,
            )),
            Kind::Xlsb => Which::Xlsb(Box::new(
                Xlsb::new(cursor).map_err(|e| open_error(kind, &e))?,
            )),
            Kind::Xls => Which::Xls(Box::new(
                Xls::new(cursor).map_err(|e| open_error(kind, &e))?,
            )),
            Kind::Ods => Which::Ods(Box::new(
                Ods::new(cursor).map_err(|e| open_error(kind, &e))?,
            )),
        };
        let cancel = source.cancel_token().cloned();
        Ok((Book { reader, cancel }, kind, len))
    }

    /// Whether the workbook counts dates from 1904 (the old Mac system).
    pub(crate) fn is_1904(&self) -> bool {
        match &self.reader {
            Which::Xlsx(b) => b.has_1904_epoch(),
            Which::Xlsb(b) => b.has_1904_epoch(),
            Which::Xls(b) => b.has_1904_epoch(),
            Which::Ods(_) | Which::OdsStream(_) => false,
        }
    }

    /// The sheets, in workbook order.
    pub(crate) fn sheets(&self) -> Vec<SheetEntry> {
        let meta = match &self.reader {
            Which::Xlsx(b) => b.sheets_metadata(),
            Which::Xlsb(b) => b.sheets_metadata(),
            Which::Xls(b) => b.sheets_metadata(),
            Which::Ods(b) => b.sheets_metadata(),
            Which::OdsStream(b) => return b.sheets(),
        };
        meta.iter()
            .map(|s| SheetEntry {
                name: s.name.clone(),
                kind: match s.typ {
                    calamine::SheetType::WorkSheet => "worksheet",
                    calamine::SheetType::DialogSheet => "dialogsheet",
                    calamine::SheetType::MacroSheet => "macrosheet",
                    calamine::SheetType::ChartSheet => "chartsheet",
                    calamine::SheetType::Vba => "vba",
                },
                visible: match s.visible {
                    calamine::SheetVisible::Visible => "visible",
                    calamine::SheetVisible::Hidden => "hidden",
                    calamine::SheetVisible::VeryHidden => "very-hidden",
                },
            })
            .collect()
    }

    /// Streams the sheet's stored cells, in the order the file holds
    /// them (row by row for every writer plumb has seen; nothing here
    /// depends on it). An xlsx or xlsb sheet is parsed as it streams; an
    /// xls or ods sheet was parsed when the workbook opened.
    pub(crate) fn cells(
        &mut self,
        kind: Kind,
        name: &str,
        mut f: impl FnMut(u32, u32, Cell) -> ControlFlow<()>,
    ) -> Result<(), Refusal> {
        let is_1904 = self.is_1904();
        let cancel = self.cancel.clone();
        let mut seen = 0u64;
        let mut go = |row: u32, col: u32, cell: Cell| -> Result<ControlFlow<()>, Refusal> {
            seen += 1;
            if seen.is_multiple_of(CANCEL_EVERY)
                && cancel.as_ref().is_some_and(CancelToken::is_cancelled)
            {
                return Err(Refusal::new(
                    RefusalReason::Aborted,
                    "the caller cancelled the read of the sheet",
                ));
            }
            Ok(f(row, col, cell))
        };
        // calamine's xlsx and xlsb cell readers, and its xls and ods
        // readers, are different types with the same methods.
        macro_rules! streamed {
            ($b:expr) => {{
                let mut r = $b
                    .worksheet_cells_reader(name)
                    .map_err(|e| malformed(kind, e))?;
                while let Some(c) = r.next_cell().map_err(|e| malformed(kind, e))? {
                    let (row, col) = c.get_position();
                    if go(row, col, Cell::of_ref(c.get_value(), is_1904))?.is_break() {
                        break;
                    }
                }
            }};
        }
        match &mut self.reader {
            Which::Xlsx(b) => streamed!(b),
            Which::Xlsb(b) => streamed!(b),
            Which::Xls(b) => {
                let range = b.worksheet_range(name).map_err(|e| malformed(kind, e))?;
                each_used(&range, is_1904, &mut go)?;
            }
            Which::Ods(b) => {
                let range = b.worksheet_range(name).map_err(|e| malformed(kind, e))?;
                each_used(&range, is_1904, &mut go)?;
            }
            Which::OdsStream(b) => b
                .walk(name, |row, col, value, _| {
                    if matches!(value, Data::Empty) {
                        return Ok(ControlFlow::Continue(()));
                    }
                    go(row, col, Cell::of_data(value, is_1904))
                })
                .map_err(|s| stopped(kind, s))?,
        }
        Ok(())
    }

    /// Streams the sheet's formulas (`=` left off), each with its cell.
    pub(crate) fn formulas(
        &mut self,
        kind: Kind,
        name: &str,
        mut f: impl FnMut(u32, u32, &str),
    ) -> Result<(), Refusal> {
        macro_rules! streamed {
            ($b:expr) => {{
                let mut r = $b
                    .worksheet_cells_reader(name)
                    .map_err(|e| malformed(kind, e))?;
                while let Some(c) = r.next_formula().map_err(|e| malformed(kind, e))? {
                    if !c.get_value().is_empty() {
                        let (row, col) = c.get_position();
                        f(row, col, c.get_value());
                    }
                }
            }};
        }
        macro_rules! parsed {
            ($b:expr) => {{
                let range = $b.worksheet_formula(name).map_err(|e| malformed(kind, e))?;
                let (r0, c0) = range.start().unwrap_or((0, 0));
                for (r, c, v) in range.used_cells() {
                    if !v.is_empty() {
                        #[allow(clippy::cast_possible_truncation)]
                        f(r0 + r as u32, c0 + c as u32, v);
                    }
                }
            }};
        }
        match &mut self.reader {
            Which::Xlsx(b) => streamed!(b),
            Which::Xlsb(b) => streamed!(b),
            Which::Xls(b) => parsed!(b),
            Which::Ods(b) => parsed!(b),
            Which::OdsStream(b) => b
                .walk(name, |row, col, _, formula| {
                    if !formula.is_empty() {
                        f(row, col, formula.strip_prefix("of:=").unwrap_or(formula));
                    }
                    Ok(ControlFlow::Continue(()))
                })
                .map_err(|s| stopped(kind, s))?,
        }
        Ok(())
    }

    /// The sheet's merged regions, where calamine reads them (xlsx and
    /// xls); `None` for xlsb and ods.
    pub(crate) fn merged(
        &mut self,
        kind: Kind,
        name: &str,
    ) -> Result<Option<Vec<Dimensions>>, Refusal> {
        Ok(match &mut self.reader {
            Which::Xlsx(b) => Some(
                b.merge_cells_by_sheet_name(name)
                    .map_err(|e| malformed(kind, e))?,
            ),
            Which::Xls(b) => Some(
                b.merge_cells_by_sheet_name(name)
                    .map_err(|e| malformed(kind, e))?,
            ),
            Which::Xlsb(_) | Which::Ods(_) | Which::OdsStream(_) => None,
        })
    }
}

/// A streamed read's stop as a refusal.
fn stopped(kind: Kind, s: crate::ods_stream::Stop) -> Refusal {
    match s {
        crate::ods_stream::Stop::Malformed(m) => open_error(kind, &m),
        crate::ods_stream::Stop::TooLarge(m) => too_large(m),
        crate::ods_stream::Stop::Caller(r) => r,
    }
}

fn each_used(
    range: &calamine::Range<Data>,
    is_1904: bool,
    f: &mut impl FnMut(u32, u32, Cell) -> Result<ControlFlow<()>, Refusal>,
) -> Result<(), Refusal> {
    let (r0, c0) = range.start().unwrap_or((0, 0));
    for (r, c, v) in range.used_cells() {
        let cell = Cell::of_data(v, is_1904);
        #[allow(clippy::cast_possible_truncation)]
        if f(r0 + r as u32, c0 + c as u32, cell)?.is_break() {
            break;
        }
    }
    Ok(())
}

/// An OOXML file encrypted with a password is a compound file holding an
/// `EncryptedPackage` stream: its name, in UTF-16, is in the directory.
fn is_encrypted_package(bytes: &[u8]) -> bool {
    let needle: Vec<u8> = "EncryptedPackage"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    bytes.windows(needle.len()).any(|w| w == needle.as_slice())
}

fn open_error(kind: Kind, e: &dyn std::fmt::Display) -> Refusal {
    let m = e.to_string();
    let lower = m.to_ascii_lowercase();
    if lower.contains("password") || lower.contains("encrypt") {
        return Refusal::new(
            RefusalReason::UnsupportedFormat,
            format!(
                "this {} workbook is password-protected, and plumb does not decrypt it ({})",
                kind.name(),
                plumb_core::echo(&m)
            ),
        )
        .with_extra("found", "encrypted-office".into());
    }
    if kind == Kind::Xls && (lower.contains("workbook") || lower.contains("stream")) {
        return Refusal::new(
            RefusalReason::UnsupportedFormat,
            format!(
                "this compound file holds no Excel workbook (a .doc, .msg or other Office file?): {}",
                plumb_core::echo(&m)
            ),
        );
    }
    malformed(kind, m)
}

/// `DataRef` is only re-exported for the cell conversions.
pub(crate) type Ref<'a> = DataRef<'a>;
