//! Workbooks that declare more than they hold, made byte by byte: every
//! op answers or refuses with a typed reason, within a bounded heap. The
//! heap is capped for the whole binary, so a workbook the reader trusted
//! fails this test rather than taking the machine's memory.

use plumb_core::{BytesSource, FormatReader, RefusalReason, Request};
use plumb_sheets::SheetsReader;
use serde_json::Value;
use std::io::Write;

#[global_allocator]
static ALLOC: plumb_testkit::CountingAlloc = plumb_testkit::CountingAlloc;

/// The heap one op on a hostile workbook may add, above its file.
const BOUND: usize = 32 << 20;

fn rec(out: &mut Vec<u8>, typ: u16, data: &[u8]) {
    out.extend_from_slice(&typ.to_le_bytes());
    out.extend_from_slice(&(data.len() as u16).to_le_bytes());
    out.extend_from_slice(data);
}

fn bof(dt: u16) -> Vec<u8> {
    let mut d = Vec::new();
    d.extend_from_slice(&0x0600u16.to_le_bytes());
    d.extend_from_slice(&dt.to_le_bytes());
    d.extend_from_slice(&[0; 12]);
    d
}

fn number(row: u16, col: u16, v: f64) -> Vec<u8> {
    let mut d = Vec::new();
    d.extend_from_slice(&row.to_le_bytes());
    d.extend_from_slice(&col.to_le_bytes());
    d.extend_from_slice(&0u16.to_le_bytes());
    d.extend_from_slice(&v.to_le_bytes());
    d
}

/// An xls (BIFF8 in a compound file) whose globals list `entries` sheet
/// entries, every one pointing at one sheet of `cells` numbers.
fn xls(cells: &[(u16, u16, f64)], entries: usize) -> Vec<u8> {
    let boundsheet_len = 4 + 4 + 2 + 2 + 2;
    let globals_len = (4 + 16) + entries * boundsheet_len + 4;
    let mut s = Vec::new();
    rec(&mut s, 0x0809, &bof(0x0005));
    for i in 0..entries {
        let mut d = Vec::new();
        d.extend_from_slice(&(globals_len as u32).to_le_bytes());
        d.extend_from_slice(&[0, 0]); // visible, worksheet
        d.extend_from_slice(&[2, 0]); // two 8-bit characters
        let name = [b'A' + (i % 26) as u8, b'a' + (i / 26 % 26) as u8];
        d.extend_from_slice(&name);
        rec(&mut s, 0x0085, &d);
    }
    rec(&mut s, 0x000A, &[]);
    assert_eq!(s.len(), globals_len);
    rec(&mut s, 0x0809, &bof(0x0010));
    for &(r, c, v) in cells {
        rec(&mut s, 0x0203, &number(r, c, v));
    }
    rec(&mut s, 0x000A, &[]);
    let mut file = cfb::CompoundFile::create(std::io::Cursor::new(Vec::new())).unwrap();
    file.create_stream("/Workbook")
        .unwrap()
        .write_all(&s)
        .unwrap();
    file.flush().unwrap();
    file.into_inner().into_inner()
}

fn run(op: &str, bytes: &[u8]) -> (Result<Value, (RefusalReason, String)>, usize) {
    plumb_testkit::limit_heap(2 << 30);
    let source = BytesSource::new("h.xls", bytes.to_vec());
    let r = SheetsReader::XLS;
    let req = Request::default();
    plumb_testkit::peak_during(|| {
        let out = match op {
            "inspect" => r.inspect(&source, &req),
            "select" => r.select(&source, &req),
            "validate" => r.validate(&source, &req),
            _ => unreachable!(),
        };
        out.map(|a| a.to_json())
            .map_err(|e| (e.reason(), e.message().to_owned()))
    })
}

#[test]
fn a_crafted_xls_of_two_cells_reads_back() {
    let file = xls(&[(0, 0, 1.5), (1, 1, 2.0)], 1);
    let (out, _) = run("select", &file);
    let a = out.unwrap();
    // No header (numbers), so both records are rows.
    assert_eq!(a["rows"][0][0], 1.5, "{a}");
    assert_eq!(a["rows"][1][1], 2.0, "{a}");
}

#[test]
fn two_cells_at_the_grid_corners_are_refused_before_the_grid() {
    let file = xls(&[(0, 0, 1.0), (65535, 255, 2.0)], 1);
    assert!(file.len() < 32 << 10, "{} bytes", file.len());
    for op in ["inspect", "select", "validate"] {
        let (out, peak) = run(op, &file);
        assert!(peak < file.len() * 2 + BOUND, "{op}: peak {peak}");
        let (reason, message) = out.unwrap_err();
        assert_eq!(reason, RefusalReason::SelectionTooLarge, "{op}: {message}");
        assert!(message.contains("as calamine lays them out"), "{message}");
    }
}

#[test]
fn sixty_entries_for_one_sheet_are_counted_sixty_times() {
    // One sheet of 5 MiB as a grid, under the cap alone; sixty times over it.
    let one = xls(&[(0, 0, 1.0), (8191, 19, 2.0)], 1);
    assert!(run("inspect", &one).0.is_ok());
    let sixty = xls(&[(0, 0, 1.0), (8191, 19, 2.0)], 60);
    let (out, peak) = run("inspect", &sixty);
    assert!(peak < sixty.len() * 2 + BOUND, "peak {peak}");
    assert_eq!(out.unwrap_err().0, RefusalReason::SelectionTooLarge);
}
