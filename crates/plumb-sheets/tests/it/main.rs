//! plumb-sheets against workbooks rust_xlsxwriter writes: every value
//! read back as written, dates in both date systems, header, window,
//! projection and sheet choice, formulas and merged regions, the caps,
//! and damaged files refused with a reason, never a panic.

use std::io::{Cursor, Read, Write};

use rust_xlsxwriter::{ExcelDateTime, Format, Formula, Workbook, Worksheet};
use serde_json::{json, Value};

use plumb_core::{BytesSource, FormatReader, Refusal, RefusalReason, Request, Source, Window};
use plumb_sheets::{SheetsReader, SHEETS_MAX_FILE_BYTES, SHEETS_MAX_PART_BYTES};

mod wild;

const XLSX: SheetsReader = SheetsReader::XLSX;

/// Writes one cell of a row.
type WriteCell = dyn Fn(&mut Worksheet, u32);

fn book(fill: impl FnOnce(&mut Workbook)) -> Vec<u8> {
    let mut wb = Workbook::new();
    fill(&mut wb);
    wb.save_to_buffer().expect("saved")
}

fn src(bytes: &[u8]) -> BytesSource {
    BytesSource::new("book.xlsx", bytes.to_vec())
}

fn req(options: &[(&str, Value)]) -> Request {
    let mut r = Request::default();
    for (k, v) in options {
        r.options.set(*k, v.clone());
    }
    r
}

fn select(bytes: &[u8], r: &Request) -> Result<Value, Refusal> {
    XLSX.select(&src(bytes), r).map(|a| a.to_json())
}

fn inspect(bytes: &[u8], r: &Request) -> Result<Value, Refusal> {
    XLSX.inspect(&src(bytes), r).map(|a| a.to_json())
}

/// A sheet of a header and `n` rows: id, name, score.
fn table(sheet: &mut Worksheet, n: u32) {
    sheet.write(0, 0, "id").unwrap();
    sheet.write(0, 1, "name").unwrap();
    sheet.write(0, 2, "score").unwrap();
    for i in 1..=n {
        sheet.write(i, 0, i).unwrap();
        sheet.write(i, 1, format!("n{i}")).unwrap();
        sheet.write(i, 2, f64::from(i) / 4.0).unwrap();
    }
}

#[test]
fn every_value_reads_back_as_written() {
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let stamp = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss");
    let bytes = book(|wb| {
        let s = wb.add_worksheet();
        s.write(0, 0, "kind").unwrap();
        s.write(0, 1, "value").unwrap();
        let rows: Vec<(&str, Box<WriteCell>)> = vec![
            (
                "int",
                Box::new(|s, r| {
                    s.write(r, 1, 42).unwrap();
                }),
            ),
            (
                "negative",
                Box::new(|s, r| {
                    s.write(r, 1, -7).unwrap();
                }),
            ),
            (
                "fraction",
                Box::new(|s, r| {
                    s.write(r, 1, 0.1).unwrap();
                }),
            ),
            (
                "huge",
                Box::new(|s, r| {
                    s.write(r, 1, 1e300).unwrap();
                }),
            ),
            (
                "tiny",
                Box::new(|s, r| {
                    s.write(r, 1, 5e-324).unwrap();
                }),
            ),
            (
                "text",
                Box::new(|s, r| {
                    s.write(r, 1, "naïve – 東京 🙂").unwrap();
                }),
            ),
            (
                "spaces",
                Box::new(|s, r| {
                    s.write(r, 1, "  padded  ").unwrap();
                }),
            ),
            (
                "true",
                Box::new(|s, r| {
                    s.write(r, 1, true).unwrap();
                }),
            ),
            (
                "false",
                Box::new(|s, r| {
                    s.write(r, 1, false).unwrap();
                }),
            ),
            ("blank", Box::new(|_, _| {})),
            (
                "date",
                Box::new(move |s, r| {
                    let d = ExcelDateTime::from_ymd(2021, 1, 1).unwrap();
                    s.write_datetime_with_format(r, 1, &d, &date).unwrap();
                }),
            ),
            (
                "stamp",
                Box::new(move |s, r| {
                    let d = ExcelDateTime::from_ymd(1999, 12, 31)
                        .unwrap()
                        .and_hms(23, 59, 30)
                        .unwrap();
                    s.write_datetime_with_format(r, 1, &d, &stamp).unwrap();
                }),
            ),
            (
                "formula",
                Box::new(|s, r| {
                    s.write_formula(r, 1, Formula::new("=SUM(1,2)").set_result("3"))
                        .unwrap();
                }),
            ),
        ];
        for (i, (name, write)) in rows.iter().enumerate() {
            let r = u32::try_from(i).unwrap() + 1;
            s.write(r, 0, *name).unwrap();
            write(s, r);
        }
    });
    let a = select(&bytes, &Request::default()).unwrap();
    assert_eq!(a["header"], true);
    assert_eq!(a["columns"], json!(["kind", "value"]));
    let got: Vec<(String, Value)> = a["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r[0].as_str().unwrap().to_owned(), r[1].clone()))
        .collect();
    let want = vec![
        ("int", json!(42)),
        ("negative", json!(-7)),
        ("fraction", json!(0.1)),
        ("huge", json!(1e300)),
        ("tiny", json!(5e-324)),
        ("text", json!("naïve – 東京 🙂")),
        ("spaces", json!("  padded  ")),
        ("true", json!(true)),
        ("false", json!(false)),
        ("blank", Value::Null),
        ("date", json!("2021-01-01")),
        ("stamp", json!("1999-12-31T23:59:30")),
        ("formula", json!(3)),
    ];
    assert_eq!(got.len(), want.len());
    for ((k, v), (wk, wv)) in got.iter().zip(&want) {
        assert_eq!((k.as_str(), v), (*wk, wv));
    }
    assert_eq!(a["first_row"], 2);
    assert_eq!(a["total_rows"], want.len());
}

#[test]
fn the_1904_date_system_moves_every_date() {
    let fmt = Format::new().set_num_format("yyyy-mm-dd");
    let bytes = book(|wb| {
        let s = wb.add_worksheet();
        let d = ExcelDateTime::from_ymd(2021, 1, 1).unwrap();
        s.write_datetime_with_format(0, 0, &d, &fmt).unwrap();
    });
    let a = select(&bytes, &Request::default()).unwrap();
    assert_eq!(a["rows"], json!([["2021-01-01"]]));
    // The same serial read in the 1904 system is 1,462 days later.
    let mac = rewrite_part(&bytes, "xl/workbook.xml", |xml| {
        xml.replacen("<workbookPr", "<workbookPr date1904=\"1\"", 1)
    });
    assert_eq!(
        inspect(&mac, &Request::default()).unwrap()["date_system"],
        "1904"
    );
    let a = select(&mac, &Request::default()).unwrap();
    assert_eq!(a["rows"], json!([["2025-01-02"]]));
}

/// A copy of the zip `bytes` with one part's text changed.
fn rewrite_part(bytes: &[u8], name: &str, edit: impl Fn(&str) -> String) -> Vec<u8> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for i in 0..archive.len() {
        let mut f = archive.by_index(i).unwrap();
        let mut body = Vec::new();
        f.read_to_end(&mut body).unwrap();
        let part = f.name().to_owned();
        if part == name {
            body = edit(&String::from_utf8(body).unwrap()).into_bytes();
        }
        out.start_file(part, zip::write::SimpleFileOptions::default())
            .unwrap();
        out.write_all(&body).unwrap();
    }
    out.finish().unwrap().into_inner()
}

#[test]
fn inspect_reports_sheets_columns_formulas_and_merges() {
    let bytes = book(|wb| {
        let s = wb.add_worksheet().set_name("data").unwrap();
        table(s, 10);
        s.write(11, 1, "total").unwrap();
        s.write_formula(11, 2, Formula::new("=SUM(C2:C11)").set_result("13.75"))
            .unwrap();
        s.write_formula(12, 2, Formula::new("=IF(C12>1,MAX(C2:C11),\"MIN(x)\")"))
            .unwrap();
        s.merge_range(13, 0, 13, 2, "notes", &Format::new())
            .unwrap();
        let t = wb.add_worksheet().set_name("numbers").unwrap();
        t.write(0, 0, 1).unwrap();
        t.write(1, 0, 2.5).unwrap();
        t.write(4, 3, "far").unwrap();
        wb.add_worksheet()
            .set_name("empty")
            .unwrap()
            .set_hidden(true);
    });
    let a = inspect(&bytes, &Request::default()).unwrap();
    assert_eq!(a["format"], "xlsx");
    let sheets = a["sheets"].as_array().unwrap();
    assert_eq!(sheets.len(), 3);
    let data = &sheets[0];
    assert_eq!(data["name"], "data");
    assert_eq!(data["dimensions"], "A1:C14");
    assert_eq!(data["header"], true);
    assert_eq!(data["data_rows"], 13);
    let cols = data["columns"].as_array().unwrap();
    assert_eq!(cols[0]["name"], "id");
    // ids 1..10 and the merged region's text "notes" in A14.
    assert_eq!(cols[0]["type"], "mixed");
    assert_eq!(cols[0]["kinds"], json!({"integer": 10, "text": 1}));
    assert_eq!(cols[0]["empties"], 2);
    assert_eq!(cols[2]["name"], "score");
    assert_eq!(cols[2]["type"], "number");
    assert_eq!(data["formulas"]["count"], 2);
    assert_eq!(
        data["formulas"]["first"][0],
        json!({"cell": "C12", "formula": "SUM(C2:C11)"})
    );
    assert_eq!(data["formulas"]["functions"], json!(["IF", "MAX", "SUM"]));
    assert_eq!(data["merged"], json!({"count": 1, "first": ["A14:C14"]}));
    let numbers = &sheets[1];
    assert_eq!(numbers["header"], false);
    assert_eq!(numbers["dimensions"], "A1:D5");
    assert_eq!(numbers["columns"][0]["name"], "A");
    assert_eq!(numbers["columns"][0]["type"], "number");
    assert_eq!(numbers["columns"][0]["empties"], 3);
    assert_eq!(numbers["columns"][1]["type"], "empty");
    assert_eq!(sheets[2]["visible"], "hidden");
    assert_eq!(sheets[2]["rows"], 0);
    assert!(sheets[2].get("dimensions").is_none());

    // One sheet described, by name or index; an unknown one refused.
    let one = inspect(&bytes, &req(&[("sheet", json!("numbers"))])).unwrap();
    let described: Vec<bool> = one["sheets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["described"] == true)
        .collect();
    assert_eq!(described, [false, true, false]);
    let r = inspect(&bytes, &req(&[("sheet", json!("nope"))])).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::InvalidArgument);
    assert_eq!(
        r.extra("available"),
        Some(&json!(["data", "numbers", "empty"]))
    );
}

#[test]
fn windows_cover_every_row_once() {
    let bytes = book(|wb| table(wb.add_worksheet(), 237));
    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let r = Request {
            window: Window {
                offset: Some(offset),
                limit: Some(50),
                from_end: None,
            },
            ..Request::default()
        };
        let a = select(&bytes, &r).unwrap();
        assert_eq!(a["first_row"], offset + 2);
        for row in a["rows"].as_array().unwrap() {
            seen.push(row[0].as_u64().unwrap());
        }
        offset += a["returned"].as_u64().unwrap();
        if a["has_more"] != true {
            break;
        }
    }
    assert_eq!(seen, (1..=237).collect::<Vec<u64>>());

    let mut r = Request::default();
    r.window.from_end = Some(3);
    let a = select(&bytes, &r).unwrap();
    assert_eq!(
        a["rows"],
        json!([
            [235, "n235", 58.75],
            [236, "n236", 59],
            [237, "n237", 59.25]
        ])
    );
    assert_eq!(a["offset"], 234);
    assert_eq!(a["has_more"], false);

    r.window = Window {
        offset: Some(1000),
        limit: Some(5),
        from_end: None,
    };
    let a = select(&bytes, &r).unwrap();
    assert_eq!(a["returned"], 0);
    assert_eq!(a["has_more"], false);
}

#[test]
fn projection_by_name_letters_and_index() {
    let bytes = book(|wb| table(wb.add_worksheet(), 3));
    let pick = |cols: Value| select(&bytes, &req(&[("columns", cols)]));
    let a = pick(json!(["score", "id"])).unwrap();
    assert_eq!(a["columns"], json!(["score", "id"]));
    assert_eq!(a["letters"], json!(["C", "A"]));
    assert_eq!(a["rows"][0], json!([0.25, 1]));
    assert_eq!(pick(json!(["B"])).unwrap()["columns"], json!(["name"]));
    assert_eq!(pick(json!(["2"])).unwrap()["columns"], json!(["score"]));
    assert_eq!(
        pick(json!("name,id")).unwrap()["columns"],
        json!(["name", "id"])
    );
    let r = pick(json!(["nope"])).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::UnknownColumn);
    assert_eq!(r.extra("available"), Some(&json!(["id", "name", "score"])));
    let r = pick(json!(["id", "A"])).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::InvalidArgument);

    // Without a header the columns answer to their letters.
    let a = select(
        &bytes,
        &req(&[("header", json!("false")), ("columns", json!(["C"]))]),
    )
    .unwrap();
    assert_eq!(a["header"], false);
    assert_eq!(a["columns"], json!(["C"]));
    assert_eq!(a["rows"][0], json!(["score"]));
    assert_eq!(a["total_rows"], 4);
}

#[test]
fn the_sheet_option_picks_by_name_or_index() {
    let bytes = book(|wb| {
        wb.add_worksheet()
            .set_name("one")
            .unwrap()
            .write(0, 0, "first")
            .unwrap();
        wb.add_worksheet()
            .set_name("2")
            .unwrap()
            .write(0, 0, "named two")
            .unwrap();
        wb.add_worksheet()
            .set_name("three")
            .unwrap()
            .write(0, 0, "third")
            .unwrap();
    });
    let cell = |sheet: &str| {
        let a = select(&bytes, &req(&[("sheet", json!(sheet))])).unwrap();
        (a["sheet"]["name"].clone(), a["rows"][0][0].clone())
    };
    assert_eq!(cell("three"), (json!("three"), json!("third")));
    assert_eq!(cell("0"), (json!("one"), json!("first")));
    // A name wins over an index.
    assert_eq!(cell("2"), (json!("2"), json!("named two")));
    let r = select(&bytes, &req(&[("sheet", json!("9"))])).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::InvalidArgument);
}

#[test]
fn long_text_is_cut_and_said() {
    let long = "x".repeat(plumb_sheets::SHEETS_CELL_TEXT_BYTES * 2);
    let bytes = book(|wb| {
        wb.add_worksheet().write(0, 0, long.as_str()).unwrap();
    });
    let a = select(&bytes, &Request::default()).unwrap();
    assert_eq!(a["view"]["exact"], false);
    assert_eq!(a["rows"][0][0]["bytes"], long.len());
    assert_eq!(
        a["rows"][0][0]["$truncated"].as_str().unwrap().len(),
        plumb_sheets::SHEETS_CELL_TEXT_BYTES
    );
}

#[test]
fn damaged_workbooks_are_refused_or_found_invalid_never_a_panic() {
    let bytes = book(|wb| table(wb.add_worksheet(), 40));
    let allowed = |r: &Refusal| {
        matches!(
            r.reason(),
            RefusalReason::InvalidData | RefusalReason::UnsupportedFormat
        )
    };
    let mut refused = 0;
    // Every truncation on a stride, and bytes flipped through the file.
    let mut cases: Vec<Vec<u8>> = (0..bytes.len())
        .step_by(97)
        .map(|n| bytes[..n].to_vec())
        .collect();
    for at in (0..bytes.len()).step_by(61) {
        let mut b = bytes.clone();
        b[at] ^= 0x5a;
        cases.push(b);
    }
    for case in &cases {
        for op in [
            plumb_core::Op::Inspect,
            plumb_core::Op::Select,
            plumb_core::Op::Validate,
        ] {
            match op.run(&XLSX, &src(case), &Request::default()) {
                Ok(a) => {
                    let v = a.to_json();
                    assert_eq!(v["ok"], true);
                }
                Err(r) => {
                    assert!(allowed(&r), "{op:?}: {r}");
                    refused += 1;
                }
            }
        }
    }
    assert!(refused > cases.len(), "most damaged files are refused");
    // A truncated zip: validate finds it invalid rather than refusing.
    let v = XLSX
        .validate(&src(&bytes[..bytes.len() / 2]), &Request::default())
        .unwrap()
        .to_json();
    assert_eq!(v["valid"], false);
    assert!(v["faults"][0]["message"].as_str().unwrap().contains("zip"));
}

#[test]
fn the_file_cap_refuses_before_reading() {
    /// A source that says it is larger than the cap and reads nothing.
    #[derive(Debug)]
    struct Huge;
    impl Source for Huge {
        fn name(&self) -> &str {
            "huge.xlsx"
        }
        fn len(&self) -> Option<u64> {
            Some(SHEETS_MAX_FILE_BYTES + 1)
        }
        fn open(&self) -> Result<Box<dyn std::io::BufRead + Send + '_>, Refusal> {
            panic!("a source over the cap is never read")
        }
    }
    let r = XLSX.inspect(&Huge, &Request::default()).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::SelectionTooLarge);
    assert!(r.message().contains(&SHEETS_MAX_FILE_BYTES.to_string()));
}

#[test]
fn a_part_over_the_cap_is_refused_by_its_declared_size() {
    let bytes = book(|wb| table(wb.add_worksheet(), 3));
    // The shared strings grown past the cap with trailing blanks (the
    // part compresses to almost nothing).
    let pad = " ".repeat(usize::try_from(SHEETS_MAX_PART_BYTES).unwrap() + 1);
    let big = rewrite_part(&bytes, "xl/sharedStrings.xml", |xml| format!("{xml}{pad}"));
    assert!(big.len() < 1 << 20);
    let r = inspect(&big, &Request::default()).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::SelectionTooLarge);
    assert!(
        r.message().contains("xl/sharedstrings.xml"),
        "{}",
        r.message()
    );
}

#[test]
fn detection_goes_by_the_bytes_not_the_name() {
    let bytes = book(|wb| table(wb.add_worksheet(), 2));
    let mut plumb = plumb::Plumb::new();
    for r in SheetsReader::ALL {
        plumb.registry_mut().register(r);
    }
    for name in ["data.csv", "data", "data.xlsx", "report.json"] {
        let s = BytesSource::new(name, bytes.clone());
        let a = plumb
            .run_source(plumb_core::Op::Select, &s, None, &Request::default())
            .unwrap()
            .to_json();
        assert_eq!(a["format"], "xlsx", "{name}");
        assert_eq!(a["rows"][0][1], "n1");
    }
    // A text file named .xlsx is not a workbook.
    let s = BytesSource::new("fake.xlsx", b"id,name\n1,a\n".to_vec());
    let r = plumb
        .run_source(plumb_core::Op::Inspect, &s, None, &Request::default())
        .unwrap_err();
    assert_eq!(r.reason(), RefusalReason::UnsupportedFormat);
}

#[test]
fn a_cancelled_read_stops_with_aborted() {
    let bytes = book(|wb| table(wb.add_worksheet(), 3000));
    let token = plumb_core::CancelToken::new();
    let s = BytesSource::new("book.xlsx", bytes.clone()).with_cancel(Some(token.clone()));
    assert!(XLSX.inspect(&s, &Request::default()).is_ok());
    token.cancel();
    let r = XLSX.inspect(&s, &Request::default()).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::Aborted);
}

fn search(bytes: &[u8], set: &[(&str, Value)]) -> Result<Value, Refusal> {
    let mut r = Request::default();
    for (k, v) in set {
        r.set(k, v.clone()).unwrap();
    }
    XLSX.search(&src(bytes), &r).map(|a| a.to_json())
}

/// A sheet whose data rows are known here: row `i` (0-based) holds
/// `i + 1`, a city (blank every fourth row), a score (blank every
/// seventh) and a flag; rows 60 to 62 are blank, and row 63 holds only
/// a city.
fn known_rows() -> (Vec<u8>, Vec<[Option<String>; 4]>) {
    let cities = ["Lyon", "Köln", "Paris", "Oslo"];
    let mut rows = Vec::new();
    for i in 0..64u32 {
        let blank = (60..63).contains(&i);
        let id = (!blank && i < 60).then(|| (i + 1).to_string());
        let city =
            (!blank && (i % 4 != 3 || i == 63)).then(|| cities[(i % 5 % 4) as usize].to_owned());
        let score =
            (!blank && i < 60 && i % 7 != 6).then(|| format!("{}", f64::from(i * 37 % 100) / 4.0));
        let flag = (!blank && i < 60).then(|| (i % 2 == 0).to_string());
        rows.push([id, city, score, flag]);
    }
    let bytes = book(|wb| {
        let s = wb.add_worksheet();
        for (c, h) in ["id", "city", "score", "flag"].iter().enumerate() {
            s.write(0, c as u16, *h).unwrap();
        }
        for (i, r) in rows.iter().enumerate() {
            let at = i as u32 + 1;
            if let Some(v) = &r[0] {
                s.write(at, 0, v.parse::<f64>().unwrap()).unwrap();
            }
            if let Some(v) = &r[1] {
                s.write(at, 1, v.as_str()).unwrap();
            }
            if let Some(v) = &r[2] {
                s.write(at, 2, v.parse::<f64>().unwrap()).unwrap();
            }
            if let Some(v) = &r[3] {
                s.write(at, 3, v == "true").unwrap();
            }
        }
    });
    (bytes, rows)
}

fn hit_rows(a: &Value) -> Vec<u64> {
    a["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["row"].as_u64().unwrap())
        .collect()
}

#[test]
fn search_finds_the_rows_each_predicate_holds_in_and_pages_through_them_once() {
    let (bytes, rows) = known_rows();
    let num = |v: &Option<String>| v.as_deref().map(|t| t.parse::<f64>().unwrap());
    type Holds = Box<dyn Fn(&[Option<String>; 4]) -> bool>;
    let cases: Vec<(Vec<(&str, Value)>, Holds)> = vec![
        (
            vec![("column", json!("city")), ("where", json!("= Lyon"))],
            Box::new(|r| r[1].as_deref() == Some("Lyon")),
        ),
        (
            vec![("column", json!("C")), ("where", json!("> 12.5"))],
            Box::new(move |r| num(&r[2]).is_some_and(|v| v > 12.5)),
        ),
        (
            vec![("column", json!("2")), ("where", json!("is empty"))],
            Box::new(|r| r[2].is_none()),
        ),
        (
            vec![("column", json!("flag")), ("where", json!("= true"))],
            Box::new(|r| r[3].as_deref() == Some("true")),
        ),
        // Every column: a pattern in any cell, a blank in any cell.
        (
            vec![("pattern", json!("(?i)^k"))],
            Box::new(|r| {
                r.iter()
                    .flatten()
                    .any(|v| v.to_lowercase().starts_with('k'))
            }),
        ),
        (
            vec![("where", json!("is null"))],
            Box::new(|r| r.iter().any(Option::is_none)),
        ),
    ];
    for (set, holds) in cases {
        let want: Vec<u64> = (0..rows.len() as u64)
            .filter(|&i| holds(&rows[i as usize]))
            .collect();
        let mut counted = set.clone();
        counted.push(("count_only", json!(true)));
        let a = search(&bytes, &counted).unwrap();
        assert_eq!(a["total"], want.len(), "{set:?}");
        assert_eq!(a["total_exact"], true);
        // Pages of three, each from the last one's next_offset: every
        // hit exactly once, in order.
        let mut got = Vec::new();
        let mut offset = 0u64;
        loop {
            let mut page = set.clone();
            page.push(("limit", json!(3)));
            page.push(("offset", json!(offset)));
            let a = search(&bytes, &page).unwrap();
            got.extend(hit_rows(&a));
            match a["next_offset"].as_u64() {
                Some(n) => {
                    assert!(n > offset, "{set:?}: {n} after {offset}");
                    offset = n;
                }
                None => break,
            }
        }
        assert_eq!(got, want, "{set:?}");
    }
    // A hit is its row as select returns it, with the sheet's row number.
    let a = search(
        &bytes,
        &[
            ("column", json!("city")),
            ("where", json!("= Paris")),
            ("limit", json!(1)),
        ],
    )
    .unwrap();
    let h = &a["hits"][0];
    let row = h["row"].as_u64().unwrap();
    let window = Request {
        window: Window {
            offset: Some(row),
            limit: Some(1),
            from_end: None,
        },
        ..Request::default()
    };
    let sel = select(&bytes, &window).unwrap();
    assert_eq!(h["values"], sel["rows"][0]);
    assert_eq!(h["sheet_row"], row + 2);
    assert_eq!(
        (h["column"].clone(), a["column"].clone()),
        (json!("city"), json!("city"))
    );
    assert_eq!(a["columns"], json!(["id", "city", "score", "flag"]));
}

#[test]
fn search_refuses_what_it_cannot_read_in_order_or_name() {
    let (bytes, _) = known_rows();
    let unknown = search(
        &bytes,
        &[("column", json!("nope")), ("where", json!("= 1"))],
    )
    .unwrap_err();
    assert_eq!(unknown.reason(), RefusalReason::UnknownColumn);
    let bad = search(&bytes, &[("pattern", json!("("))]).unwrap_err();
    assert_eq!(bad.reason(), RefusalReason::InvalidArgument);
    // Rows 2 and 3 of the sheet swapped in its XML: refused, not misread.
    let swapped = rewrite_part(&bytes, "xl/worksheets/sheet1.xml", |xml| {
        let row = |n: u32| {
            let start = xml.find(&format!("<row r=\"{n}\"")).unwrap();
            let end = start + xml[start..].find("</row>").unwrap() + "</row>".len();
            (start, end)
        };
        let (a0, a1) = row(2);
        let (b0, b1) = row(3);
        format!(
            "{}{}{}{}{}",
            &xml[..a0],
            &xml[b0..b1],
            &xml[a1..b0],
            &xml[a0..a1],
            &xml[b1..]
        )
    });
    let r = search(&swapped, &[("pattern", json!("x"))]).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::InvalidData, "{}", r.message());
    assert!(r.message().contains("in order"), "{}", r.message());
}

/// A hit of a sheet wider than the values a hit shows carries its first
/// values, a count of the rest, and the matching one beside; the names
/// and letters stop where the values do.
#[test]
fn a_wide_hit_row_shows_its_first_values_and_what_matched() {
    let shown = plumb_core::HIT_ROW_VALUES;
    let wide = shown as u16 + 40;
    let bytes = book(|wb| {
        let sheet = wb.add_worksheet();
        for c in 0..wide {
            sheet.write_string(0, c, format!("h{c}")).unwrap();
            for r in 1..4u32 {
                let text = if r == 2 && c == wide - 1 {
                    "needle".to_owned()
                } else {
                    format!("v{r}")
                };
                sheet.write_string(r, c, text).unwrap();
            }
        }
    });
    let a = search(&bytes, &[("pattern", json!("needle"))]).unwrap();
    assert_eq!(a["returned"], json!(1));
    let hit = &a["hits"][0];
    assert_eq!(hit["column"], json!(format!("h{}", wide - 1)));
    assert_eq!(hit["matched_cell"], json!("needle"));
    let values = hit["values"].as_array().unwrap();
    assert_eq!(values.len(), shown + 1);
    assert_eq!(values[0], json!("v2"));
    assert_eq!(values[shown], json!({"$summary": {"omitted_values": 40}}));
    assert_eq!(a["columns"].as_array().unwrap().len(), shown);
    assert_eq!(a["letters"].as_array().unwrap().len(), shown);
    assert_eq!(a["omitted_columns"], json!(40));
    assert_eq!(a["view"]["converted"], json!(true));
    // A match among the values shown is not repeated.
    let a = search(&bytes, &[("column", json!("h0")), ("where", json!("= v1"))]).unwrap();
    assert_eq!(a["returned"], json!(1));
    assert!(a["hits"][0].get("matched_cell").is_none());
}

#[test]
fn a_select_stays_within_its_byte_budget_and_continues_exactly() {
    let budget = plumb_sheets::SHEETS_SELECT_BUDGET_BYTES;
    // 100 rows of ten cells just under the cell cap: about 25 rows a
    // window, each whole.
    let text = |r: u32, c: u16| {
        let mut t = format!("{r}.{c}:");
        t.push_str(&"s".repeat(plumb_sheets::SHEETS_CELL_TEXT_BYTES - 16));
        t
    };
    let bytes = book(|wb| {
        let sheet = wb.add_worksheet();
        for r in 0..100u32 {
            for c in 0..10u16 {
                sheet.write(r, c, text(r, c).as_str()).unwrap();
            }
        }
    });
    let mut r = req(&[("header", json!("false"))]);
    r.window.limit = Some(1000);
    let mut seen = Vec::new();
    let mut offset = 0u64;
    while offset < 100 {
        r.window.offset = Some(offset);
        let a = select(&bytes, &r).unwrap();
        let returned = a["returned"].as_u64().unwrap();
        assert!(returned > 0);
        let size = serde_json::to_string(&a["rows"]).unwrap().len();
        assert!(size <= budget, "{size}");
        let end = offset + returned;
        assert_eq!(a["shortened"], json!(end < 100), "{offset}");
        assert_eq!(a["has_more"], json!(end < 100));
        assert_eq!(a["view"]["exact"], json!(true));
        for (i, row) in a["rows"].as_array().unwrap().iter().enumerate() {
            let n = offset as u32 + i as u32;
            let want: Vec<Value> = (0..10).map(|c| json!(text(n, c))).collect();
            assert_eq!(row, &Value::Array(want));
            seen.push(n);
        }
        offset = end;
    }
    assert_eq!(seen, (0..100).collect::<Vec<u32>>());
}

#[test]
fn a_window_of_empty_columns_is_bounded_by_its_nulls() {
    // Two cells, the second in the last column a sheet has (XFD): a
    // thousand rows of 16,384 columns, most of them null.
    let bytes = book(|wb| {
        let sheet = wb.add_worksheet();
        sheet.write(0, 0, "a").unwrap();
        sheet.write(999, 16_383, "b").unwrap();
    });
    let mut r = req(&[("header", json!("false"))]);
    r.window.limit = Some(1000);
    let a = select(&bytes, &r).unwrap();
    let returned = a["returned"].as_u64().unwrap();
    assert!(returned > 1 && returned < 1000, "{returned}");
    assert_eq!(a["shortened"], json!(true));
    let rows = a["rows"].as_array().unwrap();
    assert_eq!(rows[0].as_array().unwrap().len(), 16_384);
    assert_eq!(rows[0][0], json!("a"));
    assert!(rows
        .iter()
        .skip(1)
        .flat_map(|r| r.as_array().unwrap())
        .all(Value::is_null));
    let size = serde_json::to_string(&a["rows"]).unwrap().len();
    assert!(size <= plumb_sheets::SHEETS_SELECT_BUDGET_BYTES, "{size}");
    // Each cell is held as a value, and costs its frame: the rows held
    // stay within the budget counted so.
    let frames = returned as usize * 16_384 * plumb_sheets::SHEETS_SELECT_CELL_FRAME_BYTES;
    assert!(
        size + frames <= plumb_sheets::SHEETS_SELECT_BUDGET_BYTES,
        "{size} + {frames}"
    );
    // The last row, asked for alone, has its value where it was written.
    r.window.offset = Some(999);
    let a = select(&bytes, &r).unwrap();
    assert_eq!(a["rows"][0][16_383], json!("b"));
    assert_eq!(a["shortened"], json!(false));
}

#[test]
fn a_first_row_past_the_budget_is_cut_to_fit_and_says_so() {
    // 600 cells of 4 KiB: 2.4 MB in one row.
    let long = "k".repeat(plumb_sheets::SHEETS_CELL_TEXT_BYTES - 8);
    let bytes = book(|wb| {
        let sheet = wb.add_worksheet();
        for r in 0..3u32 {
            for c in 0..600u16 {
                sheet
                    .write(r, c, format!("{r}/{c}{long}").as_str())
                    .unwrap();
            }
        }
    });
    let mut r = req(&[("header", json!("false"))]);
    r.window.offset = Some(1);
    let a = select(&bytes, &r).unwrap();
    assert_eq!(a["returned"], json!(1));
    assert_eq!(a["shortened"], json!(true));
    assert_eq!(a["view"]["converted"], json!(true));
    let row = a["rows"][0].as_array().unwrap();
    assert_eq!(row.len(), 600);
    for (c, v) in row.iter().enumerate() {
        let kept = v["$truncated"].as_str().unwrap();
        assert!(kept.starts_with(&format!("1/{c}k")), "{c}");
    }
    let size = serde_json::to_string(&a["rows"]).unwrap().len();
    assert!(
        size <= plumb_sheets::SHEETS_SELECT_BUDGET_BYTES + 8192,
        "{size}"
    );
}

#[test]
fn a_hit_row_of_long_cells_is_cut_to_about_four_kib() {
    let long = "m".repeat(plumb_sheets::SHEETS_CELL_TEXT_BYTES - 8);
    let bytes = book(|wb| {
        let sheet = wb.add_worksheet();
        for r in 0..5u32 {
            for c in 0..40u16 {
                let text = if c == 7 {
                    format!("key{r}")
                } else {
                    format!("{r}/{c}{long}")
                };
                sheet.write(r, c, text.as_str()).unwrap();
            }
        }
    });
    let a = search(
        &bytes,
        &[("header", json!("false")), ("pattern", json!("^key3$"))],
    )
    .unwrap();
    assert_eq!(a["total"], json!(1));
    let hit = &a["hits"][0];
    let values = hit["values"].as_array().unwrap();
    assert_eq!(values.len(), 40);
    // The matching cell is short, kept whole; the long ones are cut to a
    // start of their text, each with its length.
    assert_eq!(values[7], json!("key3"));
    for (c, v) in values.iter().enumerate().filter(|(c, _)| *c != 7) {
        assert!(v["$truncated"]
            .as_str()
            .unwrap()
            .starts_with(&format!("3/{c}m")));
        assert_eq!(v["bytes"], json!(long.len() + format!("3/{c}").len()));
    }
    let size = serde_json::to_string(&hit["values"]).unwrap().len();
    assert!(size <= plumb_core::HIT_ROW_BYTES, "{size}");
    assert_eq!(a["view"]["exact"], json!(false));
}

#[test]
fn each_op_declares_the_layout_its_answer_follows() {
    use plumb_core::Layout;
    let bytes = book(|wb| table(wb.add_worksheet(), 5));
    let s = src(&bytes);
    let search = req(&[("pattern", json!("1"))]);
    let layouts = [
        XLSX.inspect(&s, &Request::default()).unwrap().layout(),
        XLSX.select(&s, &Request::default()).unwrap().layout(),
        XLSX.validate(&s, &Request::default()).unwrap().layout(),
        XLSX.search(&s, &search).unwrap().layout(),
    ];
    assert_eq!(
        layouts,
        [
            Layout::Workbook,
            Layout::Rows,
            Layout::Verdict,
            Layout::SheetHits
        ]
    );
}
