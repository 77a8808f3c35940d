//! What calamine would build for an `.ods`, judged before it does.
//!
//! calamine reads every sheet of an ods when the workbook opens, as a
//! dense grid of its used range (values and formulas side by side), with
//! each repeated row and cell copied out and each `<text:s text:c="N"/>`
//! written as N spaces. A file of a few hundred bytes can so ask for
//! gigabytes. plumb streams `content.xml` first (quick-xml events, one
//! at a time, nothing kept but counts), counts the grid and text each
//! sheet would take, and refuses past
//! [`crate::SHEETS_MAX_GRID_BYTES`].

use std::io::{BufReader, Cursor, Read};
use std::mem::size_of;

use calamine::Data;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::xls_judge::{Verdict, SHEETS_MAX_GRID_BYTES};

/// calamine's own caps on a sheet's rows and columns, which it applies to
/// repeats (so plumb counts as it does).
const MAX_ROWS: u64 = 1_048_576;
const MAX_COLUMNS: u64 = 16_384;

fn count_attr(e: &BytesStart<'_>, name: &str) -> u64 {
    e.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == name)
        .and_then(|a| a.value.trim().parse::<u64>().ok())
        .unwrap_or(1)
}

/// One sheet's extent so far.
#[derive(Default)]
struct Sheet {
    row: u64,
    rows: Option<(u64, u64)>,
    cols: Option<(u64, u64)>,
    text: u64,
}

impl Sheet {
    fn cost(&self) -> u64 {
        let grid = match (self.rows, self.cols) {
            (Some((r0, r1)), Some((c0, c1))) => (r1 - r0 + 1).saturating_mul(c1 - c0 + 1),
            _ => 0,
        };
        grid.saturating_mul((size_of::<Data>() + size_of::<String>()) as u64)
            .saturating_add(self.text)
    }
}

/// Judges the workbook in `bytes` (an ods zip).
pub(crate) fn judge(bytes: &[u8]) -> Verdict {
    let Ok(mut archive) = zip::ZipArchive::new(Cursor::new(bytes)) else {
        return Verdict::Unjudged;
    };
    let Ok(content) = archive.by_name("content.xml") else {
        return Verdict::Unjudged;
    };
    let mut reader = Reader::from_reader(BufReader::new(
        content.take(crate::book::SHEETS_MAX_PART_BYTES),
    ));
    let mut buf = Vec::new();
    let mut total = 0u64;
    let mut sheet: Option<Sheet> = None;
    // Within a row: its repeat count, the next column, and the repeats
    // of the cell being read (for its text).
    let mut row_repeats = 1u64;
    let mut col = 0u64;
    let mut cell_repeats = 0u64;
    loop {
        buf.clear();
        let event = match reader.read_event_into(&mut buf) {
            Ok(e) => e,
            Err(_) => return Verdict::Unjudged,
        };
        let (start, empty) = match &event {
            Event::Start(e) => (Some(e), false),
            Event::Empty(e) => (Some(e), true),
            _ => (None, false),
        };
        if let Some(e) = start {
            match e.name().as_ref() {
                "table:table" if !empty => sheet = Some(Sheet::default()),
                "table:table-row" => {
                    row_repeats = count_attr(e, "table:number-rows-repeated");
                    col = 0;
                    if empty {
                        if let Some(s) = sheet.as_mut() {
                            s.row = (s.row + row_repeats).min(MAX_ROWS);
                        }
                    }
                }
                "table:table-cell" | "table:covered-table-cell" => {
                    let repeats = count_attr(e, "table:number-columns-repeated")
                        .min(MAX_COLUMNS.saturating_sub(col));
                    let valued = e
                        .attributes()
                        .flatten()
                        .any(|a| matches!(a.key.as_ref(), "office:value-type" | "table:formula"));
                    if let Some(s) = sheet.as_mut() {
                        if (valued || !empty) && repeats > 0 {
                            let last_row = (s.row + row_repeats - 1).min(MAX_ROWS);
                            let last_col = col + repeats - 1;
                            s.rows = Some(s.rows.map_or((s.row, last_row), |(a, b)| {
                                (a.min(s.row), b.max(last_row))
                            }));
                            s.cols =
                                Some(s.cols.map_or((col, last_col), |(a, b)| {
                                    (a.min(col), b.max(last_col))
                                }));
                        }
                    }
                    cell_repeats = if empty { 0 } else { repeats };
                    col += repeats;
                }
                "text:s" => {
                    let n = count_attr(e, "text:c");
                    if let Some(s) = sheet.as_mut() {
                        s.text = s.text.saturating_add(
                            n.saturating_mul(cell_repeats).saturating_mul(row_repeats),
                        );
                    }
                }
                _ => {}
            }
        }
        match &event {
            Event::Text(t) => {
                if let Some(s) = sheet.as_mut() {
                    s.text = s.text.saturating_add(
                        (t.len() as u64)
                            .saturating_mul(cell_repeats)
                            .saturating_mul(row_repeats),
                    );
                }
            }
            Event::End(e) => match e.name().as_ref() {
                "table:table-row" => {
                    if let Some(s) = sheet.as_mut() {
                        s.row = (s.row + row_repeats).min(MAX_ROWS);
                    }
                }
                "table:table-cell" | "table:covered-table-cell" => cell_repeats = 0,
                "table:table" => {
                    if let Some(s) = sheet.take() {
                        total = total.saturating_add(s.cost());
                    }
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
        let open = sheet.as_ref().map_or(0, Sheet::cost);
        if total.saturating_add(open) > SHEETS_MAX_GRID_BYTES {
            return Verdict::TooLarge(total.saturating_add(open));
        }
    }
    Verdict::Fits(total)
}
