//! An `.ods` read as a stream of cells, for the workbooks whose sheets
//! calamine's reader would lay out past [`crate::SHEETS_MAX_GRID_BYTES`]:
//! calamine builds every sheet of an ods as a dense grid when the
//! workbook opens, so a large one is read here instead, from quick-xml
//! events of `content.xml` one at a time, with nothing held but the
//! cell being read.
//!
//! The cells are the ones calamine's grid holds, at the same places:
//! rows and cells repeated as their `number-rows-repeated` and
//! `number-columns-repeated` say (capped as calamine caps them, at
//! 1,048,576 rows and 16,384 columns), values read from the same
//! attributes (`office:value`, `office:date-value`, `office:time-value`,
//! `office:boolean-value`, `office:string-value`) or, for a string
//! without one, from the paragraphs of the cell (`text:s`, `text:tab`,
//! `text:line-break`; annotations skipped). A test holds the two
//! readings equal on real workbooks. What calamine would hold whole is
//! bounded here: a cell's text past [`crate::SHEETS_MAX_STRING_BYTES`]
//! and a sheet's cells past [`SHEETS_MAX_STREAMED_CELLS`] (repeats
//! counted) are refused.
//!
//! Reference: the grid calamine lays out. Held equal by:
//! `ods_stream::tests::the_stream_holds_what_calamine_s_grid_holds` and
//! `tests::any_small_table_streams_as_calamine_reads_it`.

use std::io::{BufRead, BufReader, Cursor};
use std::ops::ControlFlow;

use calamine::Data;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::book::SheetEntry;

/// The most cells (repeats counted) one streamed sheet may give: past it
/// a few hundred bytes of repeats would cost minutes.
pub const SHEETS_MAX_STREAMED_CELLS: u64 = 50_000_000;

/// calamine's caps on a sheet's rows and columns, applied to repeats.
const MAX_ROWS: u64 = 1_048_576;
const MAX_COLUMNS: u64 = 16_384;

/// Why a streamed read stopped.
#[derive(Debug)]
pub(crate) enum Stop {
    /// The content is not an ods calamine would read.
    Malformed(String),
    /// A cell's text or a sheet's cells past their caps.
    TooLarge(String),
    /// The caller's own refusal (a cancellation, a stop).
    Caller(plumb_core::Refusal),
}

/// A workbook read as a stream: its bytes and its sheets.
pub(crate) struct OdsStream {
    bytes: Vec<u8>,
    sheets: Vec<SheetEntry>,
}

/// A fault of the content (zip, XML, a value), as calamine's refusal
/// would name it.
fn bad(e: impl std::fmt::Display) -> Stop {
    Stop::Malformed(e.to_string())
}

fn xml<R: BufRead>(r: R) -> Reader<R> {
    let mut reader = Reader::from_reader(r);
    let config = reader.config_mut();
    config.check_end_names = false;
    config.trim_text(false);
    config.check_comments = false;
    config.expand_empty_elements = true;
    reader
}

fn attr(e: &BytesStart<'_>, name: &str) -> Result<Option<String>, Stop> {
    for a in e.attributes() {
        let a = a.map_err(bad)?;
        if a.key.as_ref() == name {
            return unescaped(&a.value).map(Some);
        }
    }
    Ok(None)
}

/// An attribute's value with its entities resolved (and its spaces kept,
/// as calamine keeps them).
fn unescaped(raw: &str) -> Result<String, Stop> {
    quick_xml::escape::unescape(raw)
        .map(std::borrow::Cow::into_owned)
        .map_err(bad)
}

fn count(e: &BytesStart<'_>, name: &str) -> Result<u64, Stop> {
    match attr(e, name)? {
        Some(v) => v.trim().parse::<u64>().map_err(|_| {
            Stop::Malformed(format!("`{name}` is not a count: {}", plumb_core::echo(&v)))
        }),
        None => Ok(1),
    }
}

impl OdsStream {
    /// Reads the sheets' names and visibility; refuses a password-protected
    /// package (with calamine's word for it, so it is told as one).
    pub(crate) fn open(bytes: Vec<u8>) -> Result<OdsStream, Stop> {
        let sheets = Self::sheets_of(&bytes)?;
        Ok(OdsStream { bytes, sheets })
    }

    fn sheets_of(bytes: &[u8]) -> Result<Vec<SheetEntry>, Stop> {
        let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(bad)?;
        if let Ok(manifest) = zip.by_name("META-INF/manifest.xml") {
            let mut r = xml(BufReader::new(manifest));
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_event_into(&mut buf) {
                    Ok(Event::Start(e)) if e.name().as_ref() == "manifest:encryption-data" => {
                        return Err(Stop::Malformed("Workbook is password protected".into()));
                    }
                    Ok(Event::Eof) | Err(_) => break,
                    _ => {}
                }
            }
        }
        let content = zip.by_name("content.xml").map_err(bad)?;
        let mut r = xml(BufReader::new(content));
        let mut buf = Vec::new();
        let mut hidden_styles = std::collections::HashSet::new();
        let mut style: Option<String> = None;
        let mut sheets = Vec::new();
        loop {
            buf.clear();
            match r.read_event_into(&mut buf) {
                Ok(Event::Start(e)) => match e.name().as_ref() {
                    "style:style" => style = attr(&e, "style:name")?,
                    "style:table-properties"
                        if style.is_some()
                            && attr(&e, "table:display")?.is_some_and(|v| v != "true") =>
                    {
                        hidden_styles.extend(style.clone());
                    }
                    "table:table" => {
                        if let Some(name) = attr(&e, "table:name")? {
                            let hidden = attr(&e, "table:style-name")?
                                .is_some_and(|s| hidden_styles.contains(&s));
                            sheets.push(SheetEntry {
                                name,
                                kind: "worksheet",
                                visible: if hidden { "hidden" } else { "visible" },
                            });
                        }
                        // The rows are read when the sheet is asked for.
                        r.read_to_end_into(e.name(), &mut Vec::new()).map_err(bad)?;
                    }
                    _ => {}
                },
                Ok(Event::Eof) => break,
                Err(e) => return Err(bad(e)),
                _ => {}
            }
        }
        Ok(sheets)
    }

    /// The sheets, in workbook order.
    pub(crate) fn sheets(&self) -> Vec<SheetEntry> {
        self.sheets.clone()
    }

    /// Streams every cell of sheet `name` that holds a value or a
    /// formula, repeats given one by one, in file order: its row, its
    /// column, its value and its formula (empty when it has none).
    pub(crate) fn walk(
        &self,
        name: &str,
        mut f: impl FnMut(u32, u32, &Data, &str) -> Result<ControlFlow<()>, plumb_core::Refusal>,
    ) -> Result<(), Stop> {
        let mut zip = zip::ZipArchive::new(Cursor::new(&self.bytes)).map_err(bad)?;
        let content = zip.by_name("content.xml").map_err(bad)?;
        let mut r = xml(BufReader::new(content));
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match r.read_event_into(&mut buf) {
                Ok(Event::Start(e)) if e.name().as_ref() == "table:table" => {
                    if attr(&e, "table:name")?.as_deref() == Some(name) {
                        return Table::default().read(&mut r, &mut f);
                    }
                    r.read_to_end_into(e.name(), &mut Vec::new()).map_err(bad)?;
                }
                Ok(Event::Eof) => return Ok(()),
                Err(e) => return Err(bad(e)),
                _ => {}
            }
        }
    }
}

/// Where a sheet's reading stands.
#[derive(Default)]
struct Table {
    /// The first row of the row being read.
    row: u64,
    /// Cells given so far, repeats counted.
    cells: u64,
}

impl Table {
    fn read<R: BufRead>(
        mut self,
        r: &mut Reader<R>,
        f: &mut impl FnMut(u32, u32, &Data, &str) -> Result<ControlFlow<()>, plumb_core::Refusal>,
    ) -> Result<(), Stop> {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match r.read_event_into(&mut buf) {
                Ok(Event::Start(e)) if e.name().as_ref() == "table:table-row" => {
                    let repeats = count(&e, "table:number-rows-repeated")?
                        .min(MAX_ROWS.saturating_sub(self.row));
                    let flow = self.read_row(r, repeats, f)?;
                    self.row += repeats;
                    if flow.is_break() {
                        return Ok(());
                    }
                }
                Ok(Event::End(e)) if e.name().as_ref() == "table:table" => return Ok(()),
                Ok(Event::Eof) => return Ok(()),
                Err(e) => return Err(bad(e)),
                _ => {}
            }
        }
    }

    /// Reads one row element, repeated `repeats` times, giving its cells.
    fn read_row<R: BufRead>(
        &mut self,
        r: &mut Reader<R>,
        repeats: u64,
        f: &mut impl FnMut(u32, u32, &Data, &str) -> Result<ControlFlow<()>, plumb_core::Refusal>,
    ) -> Result<ControlFlow<()>, Stop> {
        // The row's cells with values, by column, kept for its repeats.
        let mut kept: Vec<(u64, u64, Data, String)> = Vec::new();
        let mut col = 0u64;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match r.read_event_into(&mut buf) {
                Ok(Event::Start(e))
                    if matches!(
                        e.name().as_ref(),
                        "table:table-cell" | "table:covered-table-cell"
                    ) =>
                {
                    let n = count(&e, "table:number-columns-repeated")?
                        .min(MAX_COLUMNS.saturating_sub(col));
                    let (value, formula) = cell(r, &e)?;
                    if !(matches!(value, Data::Empty) && formula.is_empty()) && n > 0 {
                        self.count(n.saturating_mul(repeats))?;
                        kept.push((col, n, value, formula));
                    }
                    col += n;
                }
                Ok(Event::End(e)) if e.name().as_ref() == "table:table-row" => break,
                Ok(Event::Eof) => {
                    return Err(Stop::Malformed("the content ends inside a row".into()))
                }
                Err(e) => return Err(bad(e)),
                Ok(other) => {
                    return Err(Stop::Malformed(format!(
                        "a row holds {} where a cell was expected",
                        plumb_core::echo(&format!("{other:?}"))
                    )))
                }
            }
        }
        for k in 0..repeats {
            let row = u32::try_from(self.row + k).unwrap_or(u32::MAX);
            for (start, n, value, formula) in &kept {
                for c in *start..start + n {
                    let c = u32::try_from(c).unwrap_or(u32::MAX);
                    if f(row, c, value, formula).map_err(Stop::Caller)?.is_break() {
                        return Ok(ControlFlow::Break(()));
                    }
                }
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    fn count(&mut self, n: u64) -> Result<(), Stop> {
        self.cells = self.cells.saturating_add(n);
        if self.cells > SHEETS_MAX_STREAMED_CELLS {
            return Err(Stop::TooLarge(format!(
                "the sheet holds over {SHEETS_MAX_STREAMED_CELLS} cells once its repeats are counted; plumb reads at most that many"
            )));
        }
        Ok(())
    }
}

/// A cell's value and formula, read as calamine reads them; the reader
/// is left after the cell's end.
fn cell<R: BufRead>(r: &mut Reader<R>, e: &BytesStart<'_>) -> Result<(Data, String), Stop> {
    let mut value = None;
    let (mut is_string, mut is_error) = (false, false);
    let mut formula = String::new();
    for a in e.attributes() {
        let a = a.map_err(bad)?;
        let key = a.key.as_ref();
        let text = || unescaped(&a.value);
        match key {
            "office:value" if value.is_none() => {
                let v = a.value.trim().parse::<f64>().map_err(|_| {
                    Stop::Malformed(format!(
                        "`office:value` is not a number: {}",
                        plumb_core::echo(&a.value)
                    ))
                })?;
                value = Some(Data::Float(v));
            }
            "office:string-value" if value.is_none() => value = Some(Data::String(text()?)),
            "office:date-value" if value.is_none() => value = Some(Data::DateTimeIso(text()?)),
            "office:time-value" if value.is_none() => value = Some(Data::DurationIso(text()?)),
            "office:boolean-value" if value.is_none() => {
                value = Some(Data::Bool(a.value == "TRUE" || a.value == "true"));
            }
            "office:value-type" if value.is_none() => is_string = a.value == "string",
            "calcext:value-type" => is_error = a.value == "error",
            "table:formula" => formula = text()?,
            _ => {}
        }
    }
    let from_text = (value.is_none() && is_string)
        || (is_error && matches!(&value, Some(Data::String(s)) if s.is_empty()));
    if !from_text {
        r.read_to_end_into(e.name(), &mut Vec::new()).map_err(bad)?;
        return Ok((value.unwrap_or(Data::Empty), formula));
    }
    let mut s = String::new();
    let mut first = true;
    let mut buf = Vec::new();
    let room = |s: &String, more: u64| -> Result<(), Stop> {
        if s.len() as u64 + more > crate::SHEETS_MAX_STRING_BYTES {
            return Err(Stop::TooLarge(format!(
                "a cell's text passes {} bytes, the most plumb reads of one value",
                crate::SHEETS_MAX_STRING_BYTES
            )));
        }
        Ok(())
    };
    loop {
        buf.clear();
        match r.read_event_into(&mut buf) {
            Ok(Event::Text(t)) => {
                let t = t.xml10_content();
                room(&s, t.len() as u64)?;
                s.push_str(&t);
            }
            Ok(Event::GeneralRef(g)) => {
                let name: &str = g.as_ref();
                let c = match name {
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    "amp" => Some('&'),
                    "apos" => Some('\''),
                    "quot" => Some('"'),
                    _ => g.resolve_char_ref().map_err(bad)?,
                };
                let Some(c) = c else {
                    return Err(Stop::Malformed(format!(
                        "an unknown entity `&{}`",
                        plumb_core::echo(name)
                    )));
                };
                room(&s, 4)?;
                s.push(c);
            }
            Ok(Event::End(end))
                if matches!(
                    end.name().as_ref(),
                    "table:table-cell" | "table:covered-table-cell"
                ) =>
            {
                return Ok((Data::String(s), formula));
            }
            Ok(Event::Start(t)) => match t.name().as_ref() {
                "office:annotation" => {
                    r.read_to_end_into(t.name(), &mut Vec::new()).map_err(bad)?;
                }
                "text:p" if !std::mem::take(&mut first) => {
                    room(&s, 1)?;
                    s.push('\n');
                }
                "text:s" => {
                    let n = count(&t, "text:c")?;
                    room(&s, n)?;
                    s.extend(std::iter::repeat_n(' ', usize::try_from(n).unwrap_or(0)));
                }
                "text:tab" => s.push('\t'),
                "text:line-break" => s.push('\n'),
                _ => {}
            },
            Ok(Event::Eof) => return Err(Stop::Malformed("the content ends inside a cell".into())),
            Err(e) => return Err(bad(e)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;

    use calamine::{Data, Ods, Reader};

    use super::{OdsStream, Stop};

    /// What calamine's grid holds of a sheet: each used cell, and each
    /// formula, with its absolute place.
    type Seen = (Vec<(u32, u32, Data)>, Vec<(u32, u32, String)>);

    fn calamine(bytes: &[u8], name: &str) -> Option<Seen> {
        let mut book = Ods::new(std::io::Cursor::new(bytes.to_vec())).ok()?;
        let range = book.worksheet_range(name).ok()?;
        let (r0, c0) = range.start().unwrap_or((0, 0));
        let cells = range
            .used_cells()
            .map(|(r, c, v)| (r0 + r as u32, c0 + c as u32, v.clone()))
            .collect();
        let formulas = book.worksheet_formula(name).ok()?;
        let (f0, g0) = formulas.start().unwrap_or((0, 0));
        let formulas = formulas
            .used_cells()
            .filter(|(_, _, v)| !v.is_empty())
            .map(|(r, c, v)| (f0 + r as u32, g0 + c as u32, v.clone()))
            .collect();
        Some((cells, formulas))
    }

    fn streamed(stream: &OdsStream, name: &str) -> Result<Seen, Stop> {
        let (mut cells, mut formulas) = (Vec::new(), Vec::new());
        stream.walk(name, |r, c, v, f| {
            if !matches!(v, Data::Empty) {
                cells.push((r, c, v.clone()));
            }
            if !f.is_empty() {
                formulas.push((r, c, f.to_owned()));
            }
            Ok(ControlFlow::Continue(()))
        })?;
        Ok((cells, formulas))
    }

    /// Every ods of calamine's own test suite that calamine opens reads
    /// the same streamed: the sheets, every used cell and every formula,
    /// at the same places.
    #[test]
    fn the_stream_holds_what_calamine_s_grid_holds() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/conformance/calamine-spreadsheets/tests");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return;
        };
        let mut compared = 0;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "ods") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let Ok(book) = Ods::new(std::io::Cursor::new(bytes.clone())) else {
                // calamine refuses it (a password, a grid past its cell
                // limit): the stream refuses it too, or reads it within
                // its own caps.
                if let Ok(stream) = OdsStream::open(bytes) {
                    for sheet in stream.sheets() {
                        let mut cells = 0u64;
                        let read = stream.walk(&sheet.name, |_, _, _, _| {
                            cells += 1;
                            Ok(ControlFlow::Continue(()))
                        });
                        assert!(cells <= super::SHEETS_MAX_STREAMED_CELLS);
                        assert!(!matches!(read, Err(Stop::Caller(_))), "{}", path.display());
                    }
                }
                continue;
            };
            let stream = OdsStream::open(bytes.clone()).unwrap();
            let names: Vec<String> = book.sheet_names();
            let ours: Vec<String> = stream.sheets().into_iter().map(|s| s.name).collect();
            assert_eq!(ours, names, "{}", path.display());
            let visible: Vec<String> = book
                .sheets_metadata()
                .iter()
                .map(|s| format!("{:?}", s.visible))
                .collect();
            let vis: Vec<String> = stream
                .sheets()
                .iter()
                .map(|s| {
                    if s.visible == "hidden" {
                        "Hidden"
                    } else {
                        "Visible"
                    }
                    .to_owned()
                })
                .collect();
            assert_eq!(vis, visible, "{}", path.display());
            for name in &names {
                let Some(theirs) = calamine(&bytes, name) else {
                    continue;
                };
                let ours = streamed(&stream, name)
                    .unwrap_or_else(|e| panic!("{} {name}: {e:?}", path.display()));
                assert_eq!(ours.0, theirs.0, "{} {name}: cells", path.display());
                assert_eq!(ours.1, theirs.1, "{} {name}: formulas", path.display());
                compared += 1;
            }
        }
        assert!(compared >= 10, "{compared} sheets compared");
    }

    /// A workbook of one sheet whose rows are `rows` (table XML).
    fn book(rows: &str) -> Vec<u8> {
        use std::io::Write;
        let content = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet><table:table table:name="S">{rows}</table:table></office:spreadsheet></office:body></office:document-content>"#
        );
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default();
        zip.start_file("mimetype", opts).unwrap();
        zip.write_all(b"application/vnd.oasis.opendocument.spreadsheet")
            .unwrap();
        zip.start_file("META-INF/manifest.xml", opts).unwrap();
        zip.write_all(br#"<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>"#).unwrap();
        zip.start_file("content.xml", opts).unwrap();
        zip.write_all(content.as_bytes()).unwrap();
        zip.finish().unwrap().into_inner()
    }

    /// One cell's XML: empty, a number, a string in paragraphs with runs
    /// of spaces and entities, a boolean, a date, a formula alone, a
    /// covered cell; repeated or not.
    fn cell() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let body = prop_oneof![
            Just(String::new()),
            (-1e6f64..1e6)
                .prop_map(|v| format!(r#" office:value-type="float" office:value="{v}""#)),
            Just(r#" office:value-type="boolean" office:boolean-value="true""#.to_owned()),
            Just(r#" office:value-type="date" office:date-value="2024-02-29T10:00:00""#.to_owned()),
            Just(r#" table:formula="of:=1+1""#.to_owned()),
        ];
        let text = prop_oneof![
            Just(String::new()),
            Just("<text:p>a &amp; b</text:p>".to_owned()),
            Just(r#"<text:p>x<text:s text:c="3"/>y</text:p><text:p>z</text:p>"#.to_owned()),
        ];
        (body, text, 0u8..4, any::<bool>(), any::<bool>()).prop_map(
            |(body, text, rep, string, covered)| {
                let name = if covered {
                    "table:covered-table-cell"
                } else {
                    "table:table-cell"
                };
                let rep = if rep > 1 {
                    format!(r#" table:number-columns-repeated="{rep}""#)
                } else {
                    String::new()
                };
                let body = if string && body.is_empty() {
                    r#" office:value-type="string""#.to_owned()
                } else {
                    body
                };
                format!("<{name}{rep}{body}>{text}</{name}>")
            },
        )
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Any table of such cells and rows, repeated or not, reads the
        /// same streamed as calamine's grid holds it.
        #[test]
        fn any_small_table_streams_as_calamine_reads_it(
            rows in proptest::collection::vec(
                (proptest::collection::vec(cell(), 0..5), 0u8..4),
                0..6,
            )
        ) {
            let xml: String = rows
                .iter()
                .map(|(cells, rep)| {
                    let rep = if *rep > 1 { format!(r#" table:number-rows-repeated="{rep}""#) } else { String::new() };
                    format!("<table:table-row{rep}>{}</table:table-row>", cells.concat())
                })
                .collect();
            let bytes = book(&xml);
            let theirs = calamine(&bytes, "S");
            let stream = OdsStream::open(bytes).unwrap();
            let ours = streamed(&stream, "S").ok();
            proptest::prop_assert_eq!(ours, theirs, "{}", xml);
        }
    }
}
