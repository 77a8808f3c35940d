//! Headers over row names, as R's `write.csv` and pandas' `to_csv` (with
//! its index) write them: an empty first cell, then the column names.
//! The bytes here are what those writers produce for the frames named
//! beside them; the header is read as a header, its empty cell named
//! `column0` (as DuckDB names it) and the answer says so, read whole,
//! split at every byte, and a byte at a time alike.

use plumb_core::TextStream;
use plumb_csv::{inspect, select, validate, CsvFormat, CsvOptions, SelectOptions};
use serde_json::{json, Value};

/// `write.csv(data.frame(year = c(2001, 2002, 2003), title = c("a", "b, c", "d")))`.
const R_WRITE_CSV: &str =
    "\"\",\"year\",\"title\"\n\"1\",2001,\"a\"\n\"2\",2002,\"b, c\"\n\"3\",2003,\"d\"\n";

/// `write.csv(head(mtcars, 2)[, 1:3])`: row names that are text.
const R_MTCARS: &str =
    "\"\",\"mpg\",\"cyl\",\"disp\"\n\"Mazda RX4\",21,6,160\n\"Mazda RX4 Wag\",21,6,160\n";

/// `pd.DataFrame({"year": [2001, 2002], "title": ["a", "b"]}).to_csv("f.csv")`.
const PANDAS_INDEX: &str = ",year,title\n0,2001,a\n1,2002,b\n";

fn inspect_json(text: &str, cap: Option<usize>) -> Value {
    let opts = CsvOptions::default();
    let report = match cap {
        None => inspect(TextStream::new(text.as_bytes()), CsvFormat::Csv, &opts),
        Some(cap) => inspect(
            TextStream::from_buf_read(std::io::BufReader::with_capacity(cap, text.as_bytes())),
            CsvFormat::Csv,
            &opts,
        ),
    };
    serde_json::to_value(report.unwrap()).unwrap()
}

#[test]
fn a_header_over_row_names_is_a_header_with_its_first_column_named() {
    for (text, header, rows) in [
        (R_WRITE_CSV, json!(["column0", "year", "title"]), 3),
        (R_MTCARS, json!(["column0", "mpg", "cyl", "disp"]), 2),
        (PANDAS_INDEX, json!(["column0", "year", "title"]), 2),
    ] {
        let whole = inspect_json(text, None);
        assert_eq!(whole["header"], header, "{text}");
        assert_eq!(whole["row_count"], rows, "{text}");
        assert_eq!(whole["view"]["exact"], true);
        assert!(
            whole["header_note"].as_str().unwrap().contains("column0"),
            "{whole}"
        );
        assert_eq!(whole["columns"][1]["inferred_type"], "integer", "{text}");
        for cap in 1..=text.len() {
            assert_eq!(
                inspect_json(text, Some(cap)),
                whole,
                "{text} capacity {cap}"
            );
        }
        let v = validate(
            TextStream::new(text.as_bytes()),
            CsvFormat::Csv,
            &CsvOptions::default(),
        )
        .unwrap();
        let v = serde_json::to_value(v).unwrap();
        assert_eq!(
            (v["valid"].clone(), v["rows_scanned"].clone()),
            (json!(true), json!(rows))
        );
    }
    // The named column is selected by its name.
    let window = SelectOptions {
        window: plumb_core::Window::default(),
        columns: Some(vec![
            plumb_csv::ColumnRef::parse("column0"),
            plumb_csv::ColumnRef::parse("year"),
        ]),
    };
    let s = select(
        TextStream::new(R_WRITE_CSV.as_bytes()),
        CsvFormat::Csv,
        &CsvOptions::default(),
        &window,
    )
    .unwrap();
    let s = serde_json::to_value(s).unwrap();
    assert_eq!(
        s["rows"],
        json!([["1", "2001"], ["2", "2002"], ["3", "2003"]]),
        "{s}"
    );
}

/// An empty first cell is a header only when the next record reads as a
/// row under it: a row name, and some cell that is not text.
#[test]
fn an_empty_first_cell_without_rows_under_it_is_data() {
    for text in [
        // The next record has no row name either.
        ",a,b\n,c,d\n,e,f\n",
        // Nothing but text: no sign the first record is names.
        "\"\",a,b\n\"x\",\"y\",\"z\"\n",
    ] {
        let v = inspect_json(text, None);
        assert_eq!(v["header"], Value::Null, "{text}: {v}");
        assert!(v.get("header_note").is_none());
        assert_eq!(v["row_count"], text.lines().count(), "{text}");
    }
    // A lone header over row names is a header of no rows, as a lone
    // record of names is.
    let v = inspect_json("\"\",\"year\"\n", None);
    assert_eq!(
        (v["header"].clone(), v["row_count"].clone()),
        (json!(["column0", "year"]), json!(0))
    );
}
