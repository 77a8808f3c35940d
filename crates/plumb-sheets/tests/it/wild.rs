//! Workbooks as other writers leave them (R's writexl and openxlsx,
//! tools that pad numbers with white space): detected as they are read,
//! and every value read as the number or text it is.

use std::io::{Cursor, Read, Write};

use serde_json::json;

use plumb_core::{FormatReader, Request};
use plumb_sheets::SheetsReader;

use rust_xlsxwriter::Formula;

use super::{book, rewrite_part, select, table, XLSX};

/// A copy of the zip `bytes` whose first entry is the directory `xl/`
/// and that holds a printer-settings part, as R's writexl and openxlsx
/// write them (a `bin` default in the content types).
fn as_writexl_writes_it(bytes: &[u8]) -> Vec<u8> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    out.add_directory("xl/", opts).unwrap();
    for i in 0..archive.len() {
        let mut f = archive.by_index(i).unwrap();
        let mut body = Vec::new();
        f.read_to_end(&mut body).unwrap();
        let part = f.name().to_owned();
        if part == "[Content_Types].xml" {
            let text = String::from_utf8(body).unwrap().replacen(
                "<Default ",
                "<Default Extension=\"bin\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.printerSettings\"/><Default ",
                1,
            );
            body = text.into_bytes();
        }
        out.start_file(part, opts).unwrap();
        out.write_all(&body).unwrap();
        if i == 0 {
            out.start_file("xl/printerSettings/printerSettings1.bin", opts)
                .unwrap();
            out.write_all(&[0; 64]).unwrap();
        }
    }
    out.finish().unwrap().into_inner()
}

#[test]
fn a_text_workbook_with_binary_printer_settings_is_detected_as_it_is_read() {
    let bytes = as_writexl_writes_it(&book(|wb| table(wb.add_worksheet(), 3)));
    let head = &bytes[..bytes.len().min(4096)];
    assert!(head.windows(4).any(|w| w == b".bin"));
    // Detection names what the reading reads: a text workbook.
    assert!(XLSX.sniff(head).is_some());
    assert!(SheetsReader::XLSB.sniff(head).is_none());
    let a = select(&bytes, &Request::default()).unwrap();
    assert_eq!(a["format"], "xlsx");
    assert_eq!(a["returned"], 3);
    // A binary workbook is still told by its parts.
    for name in [
        "xl/workbook.bin",
        "xl/worksheets/sheet1.bin",
        "xl/sharedStrings.bin",
    ] {
        let mut head = b"PK\x03\x04 ....".to_vec();
        head.extend_from_slice(name.as_bytes());
        assert!(SheetsReader::XLSB.sniff(&head).is_some(), "{name}");
        assert!(XLSX.sniff(&head).is_none(), "{name}");
    }
    // A macro project is in text workbooks too (`.xlsm`).
    let head = b"PK\x03\x04 ....xl/vbaProject.bin....xl/workbook.xml";
    assert!(XLSX.sniff(head).is_some());
}

/// The sheet's XML with every value padded with white space, and every
/// untyped cell typed `t="n"` when `typed`, as some writers leave them.
fn pad_values(xml: &str, typed: bool) -> String {
    let padded = xml.replace("<v>", "<v> \r\n").replace("</v>", "\t </v>");
    if !typed {
        return padded;
    }
    let mut pieces = padded.split("<c r=\"");
    let mut out = pieces.next().unwrap().to_owned();
    for piece in pieces {
        out.push_str("<c r=\"");
        let (reference, rest) = piece.split_once('"').unwrap();
        out.push_str(reference);
        out.push('"');
        if rest.starts_with("><v>") || rest.starts_with(" s=") && !rest.contains(" t=") {
            out.push_str(" t=\"n\"");
        }
        out.push_str(rest);
    }
    out
}

#[test]
fn values_padded_with_white_space_read_as_the_numbers_they_are() {
    let bytes = book(|wb| {
        let s = wb.add_worksheet();
        table(s, 4);
        s.write(5, 0, 5.5e-3).unwrap();
        s.write(5, 1, true).unwrap();
        s.write_formula(5, 2, Formula::new("=\" x \"").set_result(" x "))
            .unwrap();
    });
    let clean = select(&bytes, &Request::default()).unwrap();
    assert_eq!(clean["rows"][0], json!([1, "n1", 0.25]));
    for typed in [false, true] {
        // As R's writexl leaves a workbook too: a directory first, a
        // binary printer-settings part.
        let padded = as_writexl_writes_it(&rewrite_part(&bytes, "xl/worksheets/sheet1.xml", |x| {
            let p = pad_values(x, typed);
            assert_ne!(p, x);
            assert_eq!(p.contains(" t=\"n\""), typed);
            p
        }));
        assert_eq!(
            select(&padded, &Request::default())
                .map(|a| a["format"].clone())
                .ok(),
            Some(json!("xlsx"))
        );
        let a = select(&padded, &Request::default())
            .unwrap_or_else(|r| panic!("typed {typed}: {}", r.message()));
        assert_eq!(a["columns"], clean["columns"], "typed {typed}");
        let rows = a["rows"].as_array().unwrap();
        let want = clean["rows"].as_array().unwrap();
        assert_eq!(rows.len(), want.len(), "typed {typed}");
        // Numbers, shared strings and booleans read as written; a
        // formula's text result keeps its white space, which is its value
        // (its line end normalized, as XML reads every line end).
        for (got, want) in rows.iter().zip(want).take(4) {
            assert_eq!(got, want, "typed {typed}");
        }
        assert_eq!(rows[4][0], json!(5.5e-3), "typed {typed}");
        assert_eq!(rows[4][1], json!(true), "typed {typed}");
        assert_eq!(rows[4][2], json!(" \n x \t "), "typed {typed}");
        // The statistics see numbers too.
        let i = super::inspect(&padded, &Request::default()).unwrap();
        let c = super::inspect(&bytes, &Request::default()).unwrap();
        assert_eq!(i["sheets"], c["sheets"], "typed {typed}");
    }
}
