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

/// Runs `op` on `bytes` read as `reader`'s kind, with its outcome and
/// the peak heap it added.
fn run_as(
    reader: SheetsReader,
    op: &str,
    bytes: &[u8],
) -> (Result<Value, (RefusalReason, String)>, usize) {
    plumb_testkit::limit_heap(2 << 30);
    let source = BytesSource::new("h", bytes.to_vec());
    let req = Request::default();
    plumb_testkit::peak_during(|| {
        let out = match op {
            "inspect" => reader.inspect(&source, &req),
            "select" => reader.select(&source, &req),
            "validate" => reader.validate(&source, &req),
            _ => unreachable!(),
        };
        out.map(|a| a.to_json())
            .map_err(|e| (e.reason(), e.message().to_owned()))
    })
}

fn run(op: &str, bytes: &[u8]) -> (Result<Value, (RefusalReason, String)>, usize) {
    run_as(SheetsReader::XLS, op, bytes)
}

/// `op` with shared options set, its answer.
fn run_as_with(reader: SheetsReader, op: &str, bytes: &[u8], opts: &[(&str, Value)]) -> Value {
    let source = BytesSource::new("h", bytes.to_vec());
    let mut req = Request::default();
    for (k, v) in opts {
        req.set(k, v.clone()).unwrap();
    }
    let out = match op {
        "select" => reader.select(&source, &req),
        _ => reader.inspect(&source, &req),
    };
    out.unwrap().to_json()
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

/// An ods whose one sheet holds `rows` (the XML of its table rows).
fn ods(rows: &str) -> Vec<u8> {
    let content = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:spreadsheet><table:table table:name="S">{rows}</table:table></office:spreadsheet></office:body></office:document-content>"#
    );
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("mimetype", stored).unwrap();
    zip.write_all(b"application/vnd.oasis.opendocument.spreadsheet")
        .unwrap();
    zip.start_file(
        "META-INF/manifest.xml",
        zip::write::SimpleFileOptions::default(),
    )
    .unwrap();
    zip.write_all(br#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>"#)
        .unwrap();
    zip.start_file("content.xml", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(content.as_bytes()).unwrap();
    zip.finish().unwrap().into_inner()
}

const FLOAT_CELL: &str = r#"<table:table-cell office:value-type="float" office:value="1.5"><text:p>1.5</text:p></table:table-cell>"#;

fn run_ods(op: &str, bytes: &[u8]) -> (Result<Value, (RefusalReason, String)>, usize) {
    run_as(SheetsReader::ODS, op, bytes)
}

#[test]
fn a_crafted_ods_reads_back() {
    let file = ods(&format!(
        "<table:table-row>{FLOAT_CELL}{FLOAT_CELL}</table:table-row><table:table-row table:number-rows-repeated=\"3\">{FLOAT_CELL}</table:table-row>"
    ));
    let (out, _) = run_ods("select", &file);
    let a = out.unwrap();
    assert_eq!(a["rows"][0][1], 1.5, "{a}");
    assert_eq!(a["rows"][3][0], 1.5, "{a}");
}

#[test]
fn a_run_of_two_billion_spaces_is_refused_before_it_is_written() {
    let file = ods(
        r#"<table:table-row><table:table-cell office:value-type="string"><text:p>a<text:s text:c="2000000000"/>b</text:p></table:table-cell></table:table-row>"#,
    );
    assert!(file.len() < 1 << 10, "{} bytes", file.len());
    for op in ["inspect", "select", "validate"] {
        let (out, peak) = run_ods(op, &file);
        assert!(peak < BOUND, "{op}: peak {peak}");
        let (reason, message) = out.unwrap_err();
        assert_eq!(reason, RefusalReason::SelectionTooLarge, "{op}: {message}");
        assert!(message.contains("a cell's text passes"), "{message}");
    }
}

/// Two cells a million rows and 16,000 columns apart: calamine would lay
/// out a grid of 16 billion cells; the sheet is read as a stream of its
/// two cells instead.
#[test]
fn two_far_apart_cells_are_read_as_a_stream() {
    let file = ods(&format!(
        "<table:table-row>{FLOAT_CELL}</table:table-row><table:table-row table:number-rows-repeated=\"1000000\"><table:table-cell/></table:table-row><table:table-row><table:table-cell table:number-columns-repeated=\"16000\"/>{FLOAT_CELL}</table:table-row>"
    ));
    let (out, peak) = run_ods("inspect", &file);
    assert!(peak < BOUND, "peak {peak}");
    let sheet = &out.unwrap()["sheets"][0];
    assert_eq!(sheet["dimensions"], "A1:WQK1000002");
    assert_eq!(
        (sheet["cells"].clone(), sheet["rows"].clone()),
        (2.into(), 1_000_002.into())
    );
    let (out, peak) = run_ods("select", &file);
    assert!(peak < BOUND, "peak {peak}");
    assert_eq!(out.unwrap()["rows"][0][0], 1.5);
}

/// A value repeated over a million rows of 16,384 cells: 17 billion
/// cells from a few hundred bytes, refused once the sheet passes the
/// streamed-cell cap, in bounded time and memory.
#[test]
fn a_repeat_bomb_is_refused_at_the_streamed_cell_cap() {
    let file = ods(
        r#"<table:table-row table:number-rows-repeated="1048576"><table:table-cell table:number-columns-repeated="16384" office:value-type="float" office:value="1"/></table:table-row>"#,
    );
    let started = std::time::Instant::now();
    for op in ["inspect", "validate"] {
        let (out, peak) = run_ods(op, &file);
        assert!(peak < BOUND, "{op}: peak {peak}");
        let (reason, message) = out.unwrap_err();
        assert_eq!(reason, RefusalReason::SelectionTooLarge, "{message}");
        assert!(
            message.contains("cells once its repeats are counted"),
            "{message}"
        );
    }
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}

/// A sheet past calamine's grid cap with every cell different: read as a
/// stream, each cell counted and in place.
#[test]
fn an_ods_past_the_grid_cap_is_read_whole() {
    let (rows, cols) = (3_000, 100);
    let mut xml = String::new();
    for r in 0..rows {
        xml.push_str("<table:table-row>");
        for c in 0..cols {
            xml.push_str(&format!(
                r#"<table:table-cell office:value-type="float" office:value="{}"/>"#,
                r * cols + c
            ));
        }
        xml.push_str("</table:table-row>");
    }
    let file = ods(&xml);
    let (out, peak) = run_ods("inspect", &file);
    assert!(peak < file.len() * 2 + BOUND, "peak {peak}");
    let sheet = &out.unwrap()["sheets"][0];
    assert_eq!(sheet["cells"], rows * cols, "{sheet}");
    let last = (rows * cols - 1) as f64;
    let window = run_as_with(
        SheetsReader::ODS,
        "select",
        &file,
        &[("offset", (rows - 1).into())],
    );
    assert_eq!(window["rows"][0][cols - 1], last, "{window}");
}

/// An xlsx of one sheet: `sheet` writes the sheet's rows (the XML inside
/// `sheetData`), `shared` the shared-strings part when given; both write
/// in pieces, so a part of a hundred megabytes is never one string here.
/// Writes one part's XML into the zip.
type Writer<'a> = &'a dyn Fn(&mut dyn Write);

fn xlsx(sheet: Writer<'_>, shared: Option<Writer<'_>>) -> Vec<u8> {
    const MAIN: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
    const REL: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let deflated = zip::write::SimpleFileOptions::default();
    let mut part = |name: &str, text: &str| {
        zip.start_file(name, deflated).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    };
    part(
        "[Content_Types].xml",
        r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>"#,
    );
    part(
        "_rels/.rels",
        &format!(
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>"#
        ),
    );
    part(
        "xl/workbook.xml",
        &format!(
            r#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{MAIN}" xmlns:r="{REL}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>"#
        ),
    );
    part(
        "xl/_rels/workbook.xml.rels",
        &format!(
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="{REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>"#
        ),
    );
    zip.start_file("xl/worksheets/sheet1.xml", deflated)
        .unwrap();
    write!(
        zip,
        r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="{MAIN}"><sheetData>"#
    )
    .unwrap();
    sheet(&mut zip);
    zip.write_all(b"</sheetData></worksheet>").unwrap();
    if let Some(shared) = shared {
        zip.start_file("xl/sharedStrings.xml", deflated).unwrap();
        shared(&mut zip);
    }
    zip.finish().unwrap().into_inner()
}

fn run_xlsx(op: &str, bytes: &[u8]) -> (Result<Value, (RefusalReason, String)>, usize) {
    run_as(SheetsReader::XLSX, op, bytes)
}

const ONE_SHARED: &str = r#"<row r="1"><c r="A1" t="s"><v>0</v></c></row>"#;

#[test]
fn a_crafted_xlsx_reads_back() {
    let file = xlsx(
        &|w| {
            w.write_all(br#"<row r="1"><c r="A1" t="s"><v>1</v></c><c r="B1" t="inlineStr"><is><t>in</t></is></c></row><row r="2"><c r="A2"><v>2.5</v></c></row>"#).unwrap();
        },
        Some(&|w| {
            w.write_all(br#"<sst uniqueCount="2"><si><t>zero</t></si><si><r><t>o</t></r><r><t>ne</t></r></si></sst>"#).unwrap();
        }),
    );
    let a = run_xlsx("select", &file).0.unwrap();
    assert_eq!(a["view"]["exact"], true, "{a}");
    // The first row (two names) is the header.
    assert_eq!(a["columns"], serde_json::json!(["one", "in"]), "{a}");
    assert_eq!(a["rows"], serde_json::json!([[2.5, null]]), "{a}");
}

#[test]
fn a_declared_count_of_shared_strings_is_a_claim() {
    // calamine reserves the vector by `uniqueCount` as it opens the
    // workbook: this one asks for 2.4 PB, an abort, in under 2 KB.
    let file = xlsx(
        &|w| w.write_all(ONE_SHARED.as_bytes()).unwrap(),
        Some(&|w| {
            w.write_all(br#"<sst uniqueCount="99999999999999"><si><t>a</t></si></sst>"#)
                .unwrap();
        }),
    );
    assert!(file.len() < 2 << 10, "{} bytes", file.len());
    for op in ["inspect", "select", "validate"] {
        let (out, peak) = run_xlsx(op, &file);
        assert!(peak < BOUND, "{op}: peak {peak}");
        let (reason, message) = out.unwrap_err();
        assert_eq!(reason, RefusalReason::SelectionTooLarge, "{op}: {message}");
        assert!(
            message.contains("99999999999999 entries declared"),
            "{message}"
        );
    }
}

#[test]
fn millions_of_shared_strings_are_refused_before_the_table() {
    // 3.7 million one-letter strings, declared as none: 63 MB of XML in a
    // zip of about 150 KB, which calamine would hold as 200 MiB.
    let file = xlsx(
        &|w| w.write_all(ONE_SHARED.as_bytes()).unwrap(),
        Some(&|w| {
            w.write_all(b"<sst>").unwrap();
            let block = "<si><t>a</t></si>".repeat(10_000);
            for _ in 0..370 {
                w.write_all(block.as_bytes()).unwrap();
            }
            w.write_all(b"</sst>").unwrap();
        }),
    );
    let (out, peak) = run_xlsx("select", &file);
    assert!(peak < file.len() * 2 + BOUND, "peak {peak}");
    let (reason, message) = out.unwrap_err();
    assert_eq!(reason, RefusalReason::SelectionTooLarge, "{message}");
    assert!(message.contains("shared strings"), "{message}");
}

#[test]
fn one_cell_of_a_hundred_megabytes_is_refused_before_it_is_built() {
    let file = xlsx(
        &|w| {
            w.write_all(br#"<row r="1"><c r="A1" t="inlineStr"><is><t>"#)
                .unwrap();
            let block = vec![b'a'; 1 << 20];
            for _ in 0..100 {
                w.write_all(&block).unwrap();
            }
            w.write_all(b"</t></is></c></row>").unwrap();
        },
        None,
    );
    for op in ["inspect", "select"] {
        let (out, peak) = run_xlsx(op, &file);
        assert!(peak < file.len() * 2 + BOUND, "{op}: peak {peak}");
        let (reason, message) = out.unwrap_err();
        assert_eq!(reason, RefusalReason::SelectionTooLarge, "{op}: {message}");
    }
    // Rich text: many runs of one string, each short, add up.
    let runs = xlsx(
        &|w| {
            w.write_all(br#"<row r="1"><c r="A1" t="inlineStr"><is>"#)
                .unwrap();
            let run = format!("<r><t>{}</t></r>", "b".repeat(1 << 16));
            for _ in 0..20 {
                w.write_all(run.as_bytes()).unwrap();
            }
            w.write_all(b"</is></c></row>").unwrap();
        },
        None,
    );
    assert_eq!(
        run_xlsx("select", &runs).0.unwrap_err().0,
        RefusalReason::SelectionTooLarge
    );
}

#[test]
fn a_row_past_two_to_the_thirty_second_is_malformed_not_wrapped() {
    // calamine would read row 4294967298 as row 2, and the cell with it.
    let file = xlsx(
        &|w| {
            w.write_all(br#"<row r="1"><c r="A1"><v>1</v></c></row><row r="4294967298"><c r="A4294967298"><v>3</v></c></row>"#).unwrap();
        },
        None,
    );
    for op in ["inspect", "select"] {
        let (reason, message) = run_xlsx(op, &file).0.unwrap_err();
        assert_eq!(reason, RefusalReason::InvalidData, "{op}: {message}");
        assert!(message.contains("4294967298"), "{message}");
    }
}

#[test]
fn a_cell_past_the_last_column_makes_no_answer_exact() {
    let file = xlsx(
        &|w| {
            w.write_all(br#"<row r="1"><c r="A1"><v>1</v></c><c r="XFE1"><v>2</v></c></row><row r="2"><c r="A2"><v>3</v></c></row>"#).unwrap();
        },
        None,
    );
    let inspect = run_xlsx("inspect", &file).0.unwrap();
    assert_eq!(inspect["view"]["exact"], false, "{inspect}");
    assert_eq!(inspect["sheets"][0]["cells_beyond_columns"], 1, "{inspect}");
    let select = run_xlsx("select", &file).0.unwrap();
    assert_eq!(select["view"]["exact"], false, "{select}");
    let validate = run_xlsx("validate", &file).0.unwrap();
    assert_eq!(validate["valid"], false, "{validate}");
    assert!(
        validate["faults"][0]["message"]
            .as_str()
            .unwrap()
            .contains("past column XFD"),
        "{validate}"
    );
    // The same sheet without the stray cell is exact and valid.
    let fine = xlsx(
        &|w| {
            w.write_all(br#"<row r="1"><c r="A1"><v>1</v></c></row><row r="2"><c r="A2"><v>3</v></c></row>"#).unwrap();
        },
        None,
    );
    assert_eq!(run_xlsx("select", &fine).0.unwrap()["view"]["exact"], true);
    assert_eq!(run_xlsx("validate", &fine).0.unwrap()["valid"], true);
}

/// An xlsb's zip with these binary parts (the names calamine looks for).
fn xlsb(parts: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in parts {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn an_xlsb_record_that_declares_a_quarter_gigabyte_is_refused_unread() {
    // BrtBeginBook (0x0183) whose four-byte length says 2^28 - 1.
    let lie: &[u8] = &[0x83, 0x03, 0xFF, 0xFF, 0xFF, 0x7F, 0, 0];
    let file = xlsb(&[("xl/workbook.bin", lie)]);
    for op in ["inspect", "validate"] {
        let (out, peak) = run_as(SheetsReader::XLSB, op, &file);
        assert!(peak < BOUND, "{op}: peak {peak}");
        let (reason, message) = out.unwrap_err();
        assert_eq!(reason, RefusalReason::SelectionTooLarge, "{op}: {message}");
        assert!(message.contains("declares 268435455 bytes"), "{message}");
    }
}

#[test]
fn a_sector_chain_that_loops_is_malformed_before_calamine_follows_it() {
    // The directory's chain pointed back at itself: calamine appends its
    // sector until memory runs out.
    let mut file = xls(&[(0, 0, 1.0)], 1);
    let dir_start = u32::from_le_bytes(file[0x30..0x34].try_into().unwrap()) as usize;
    let fat_sector = u32::from_le_bytes(file[0x4C..0x50].try_into().unwrap()) as usize;
    let size = 1usize << u16::from_le_bytes([file[0x1E], file[0x1F]]);
    let at = (fat_sector + 1) * size + dir_start * 4;
    file[at..at + 4].copy_from_slice(&(dir_start as u32).to_le_bytes());
    for op in ["inspect", "select", "validate"] {
        let (out, peak) = run(op, &file);
        assert!(peak < file.len() * 2 + BOUND, "{op}: peak {peak}");
        match out {
            Err((reason, message)) => {
                assert_eq!(reason, RefusalReason::InvalidData, "{op}: {message}");
                assert!(message.contains("loops back"), "{message}");
            }
            // validate answers a workbook that does not open as invalid.
            Ok(a) => {
                assert_eq!(op, "validate", "{a}");
                assert_eq!(a["valid"], false, "{a}");
            }
        }
    }
    // The file as written reads.
    assert!(run("select", &xls(&[(0, 0, 1.0)], 1)).0.is_ok());
}

#[test]
fn a_compound_file_the_judge_cannot_read_is_not_handed_to_calamine() {
    // calamine reads some compound files the cfb crate refuses (here a
    // directory entry naming 4096 bytes of name), and so would build
    // their grids unjudged.
    let mut file = xls(&[(0, 0, 1.0)], 1);
    let size = 1usize << u16::from_le_bytes([file[0x1E], file[0x1F]]);
    let dir_start = u32::from_le_bytes(file[0x30..0x34].try_into().unwrap()) as usize;
    let at = (dir_start + 1) * size + 0x40;
    file[at..at + 2].copy_from_slice(&4096u16.to_le_bytes());
    let (reason, message) = run("select", &file).0.unwrap_err();
    assert_eq!(reason, RefusalReason::InvalidData, "{message}");
    assert!(message.contains("compound file does not read"), "{message}");
}

/// A workbook whose cell A2 holds `41` padded with `spaces` spaces
/// before it, under a header `n`.
fn padded_41(spaces: usize) -> Vec<u8> {
    xlsx(
        &|w| {
            w.write_all(br#"<row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c></row><row r="2"><c r="A2" t="n"><v>"#)
                .unwrap();
            let block = vec![b' '; 1 << 16];
            for _ in 0..spaces / block.len() {
                w.write_all(&block).unwrap();
            }
            w.write_all(&block[..spaces % block.len()]).unwrap();
            w.write_all(b"41</v></c></row>").unwrap();
        },
        None,
    )
}

#[test]
fn a_value_padded_with_a_hundred_megabytes_of_spaces_is_refused_unread() {
    // XML Schema allows white space around a number, and such values are
    // rewritten trimmed before calamine reads them; padding of 100 MB (in
    // a zip of about 100 KB) is refused by the text cap before any
    // rewrite gathers it.
    let file = padded_41(100 << 20);
    assert!(file.len() < 1 << 20, "{} bytes", file.len());
    for op in ["inspect", "select", "validate"] {
        let (out, peak) = run_xlsx(op, &file);
        assert!(peak < BOUND, "{op}: peak {peak}");
        let (reason, message) = out.unwrap_err();
        assert_eq!(reason, RefusalReason::SelectionTooLarge, "{op}: {message}");
        assert!(message.contains("xl/worksheets/sheet1.xml"), "{message}");
    }
    // Padding under the cap is trimmed, and the number read as it is.
    let file = padded_41(900 << 10);
    let (out, peak) = run_xlsx("select", &file);
    assert!(peak < file.len() * 2 + BOUND, "peak {peak}");
    let a = out.unwrap();
    assert_eq!(a["columns"], serde_json::json!(["n"]), "{a}");
    assert_eq!(a["rows"], serde_json::json!([[41]]), "{a}");
    assert_eq!(a["view"]["exact"], true, "{a}");
}
