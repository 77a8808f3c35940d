//! An xlsx sheet is streamed, never held: the peak heap of a select or
//! an inspect is the file (calamine needs it whole) plus a bounded
//! amount, far below what the sheet would cost as a grid of cells.

use plumb_core::{BytesSource, FormatReader, Request};
use plumb_sheets::SheetsReader;

#[global_allocator]
static ALLOC: plumb_testkit::CountingAlloc = plumb_testkit::CountingAlloc;

#[test]
fn a_large_sheet_costs_its_file_and_a_bounded_rest() {
    let rows: u32 = 200_000;
    let cols: u16 = 5;
    let mut wb = rust_xlsxwriter::Workbook::new();
    let sheet = wb.add_worksheet();
    for r in 0..rows {
        for c in 0..cols {
            sheet
                .write(r, c, f64::from(r) * 10.0 + f64::from(c))
                .unwrap();
        }
    }
    let bytes = wb.save_to_buffer().unwrap();
    drop(wb);
    let file = bytes.len();
    let source = BytesSource::new("big.xlsx", bytes);
    // As a grid of calamine cells (32 bytes each) the sheet would be:
    let grid = rows as usize * cols as usize * 32;
    let budget = 4 << 20;
    assert!(grid > 4 * budget, "the sheet is large enough to tell");

    let mut req = Request::default();
    req.window.from_end = Some(10);
    let (answer, peak) =
        plumb_testkit::peak_during(|| SheetsReader::XLSX.select(&source, &req).unwrap().to_json());
    assert_eq!(answer["rows"][9][4], f64::from(rows - 1) * 10.0 + 4.0);
    assert!(
        peak < file + budget,
        "select: peak {peak} bytes for a file of {file} (the grid would be {grid})"
    );

    let (answer, peak) = plumb_testkit::peak_during(|| {
        SheetsReader::XLSX
            .inspect(&source, &Request::default())
            .unwrap()
            .to_json()
    });
    assert_eq!(answer["sheets"][0]["rows"], rows);
    assert!(
        peak < file + budget,
        "inspect: peak {peak} bytes for a file of {file} (the grid would be {grid})"
    );
}

/// The workbook with every value of its sheet padded with a space, so
/// its sheet is rewritten before calamine reads it.
fn padded(bytes: &[u8]) -> Vec<u8> {
    use std::io::{Cursor, Read, Write};
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    for i in 0..archive.len() {
        let mut f = archive.by_index(i).unwrap();
        let mut body = Vec::new();
        f.read_to_end(&mut body).unwrap();
        let name = f.name().to_owned();
        if name == "xl/worksheets/sheet1.xml" {
            body = String::from_utf8(body)
                .unwrap()
                .replace("<v>", "<v> ")
                .into_bytes();
        }
        out.start_file(name, opts).unwrap();
        out.write_all(&body).unwrap();
    }
    out.finish().unwrap().into_inner()
}

#[test]
fn a_sheet_of_padded_values_costs_its_file_twice_and_a_bounded_rest() {
    let rows: u32 = 100_000;
    let mut wb = rust_xlsxwriter::Workbook::new();
    let sheet = wb.add_worksheet();
    for r in 0..rows {
        for c in 0..4u16 {
            sheet.write(r, c, f64::from(r) + f64::from(c)).unwrap();
        }
    }
    let bytes = padded(&wb.save_to_buffer().unwrap());
    drop(wb);
    let file = bytes.len();
    let source = BytesSource::new("padded.xlsx", bytes);
    let budget = 4 << 20;
    let mut req = Request::default();
    req.window.from_end = Some(1);
    let (answer, peak) =
        plumb_testkit::peak_during(|| SheetsReader::XLSX.select(&source, &req).unwrap().to_json());
    assert_eq!(answer["rows"][0][3], f64::from(rows - 1) + 3.0);
    assert!(
        peak < 2 * file + budget,
        "select: peak {peak} bytes for a file of {file}"
    );
}
