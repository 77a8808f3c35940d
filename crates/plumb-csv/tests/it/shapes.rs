//! Tables as writers in the wild leave them: rows that end with a
//! delimiter, quoted texts over several lines holding another delimiter,
//! columns aligned by spaces, windows of thousands of empty cells.

use plumb_core::TextStream;
use plumb_csv::{inspect, select, validate, CsvFormat, CsvOptions, SelectOptions};

fn stream(text: &str) -> TextStream<std::io::BufReader<&[u8]>> {
    TextStream::new(text.as_bytes())
}

#[test]
fn a_window_of_empty_cells_is_bounded_as_long_cells_are() {
    // 5,000 columns, every cell empty: no text at all, yet each cell is
    // held; the frame each costs ends the window as text would.
    let cols = 5_000;
    let header: Vec<String> = (0..cols).map(|c| format!("c{c}")).collect();
    let mut text = header.join(",") + "\n";
    for _ in 0..200 {
        text.push_str(&",".repeat(cols - 1));
        text.push('\n');
    }
    let w = SelectOptions {
        window: plumb_core::Window {
            offset: Some(0),
            limit: Some(1000),
            from_end: None,
        },
        columns: None,
    };
    let r = select(stream(&text), CsvFormat::Csv, &CsvOptions::default(), &w).unwrap();
    let per_row = cols * plumb_csv::CSV_SELECT_CELL_FRAME_BYTES;
    let budget = plumb_csv::CSV_SELECT_BUDGET_BYTES;
    assert_eq!(r.rows.len(), budget / per_row, "{}", r.rows.len());
    assert!(r
        .rows
        .iter()
        .all(|row| row.len() == cols && row.iter().all(|c| c.as_text() == Some(""))));
    assert!(r.shortened && r.window.has_more);
}

#[test]
fn lines_of_the_tables_shape_less_a_trailing_delimiter_are_not_a_preamble() {
    // The header and the first row have three fields; every later row
    // ends with a delimiter, four. Nothing is skipped: the first row is
    // a row, and the rows that disagree in width are reported.
    let text = "id,name,score\n1,a,10\n2,b,20,\n3,c,30,\n4,d,40,\n5,e,50,\n";
    let r = inspect(stream(text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!((r.dialect.skipped_lines, r.preamble.len()), (0, 0));
    assert_eq!(
        r.header.as_deref(),
        Some(&["id".to_owned(), "name".to_owned(), "score".to_owned()][..])
    );
    assert_eq!((r.row_count, r.ragged_rows), (Some(5), 4));
    let v = validate(stream(text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(
        (v.valid, v.dialect.skipped_lines, v.rows_scanned),
        (Some(false), 0, 5)
    );
    // Python's csv reads the same records: six, the widths as here.
    let widths: Vec<usize> = text.lines().map(|l| l.split(',').count()).collect();
    assert_eq!(widths, [3, 3, 4, 4, 4, 4]);
    // A title above such a table is still a preamble.
    let titled = format!("Scores, term 2\n{text}");
    let r = inspect(stream(&titled), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(r.preamble, vec!["Scores, term 2"]);
    assert_eq!(r.row_count, Some(5));
}

#[test]
fn quoted_multi_line_fields_holding_tabs_keep_the_comma() {
    // A comma file whose last field is quoted text of two lines, each
    // with one tab: as lines, every line splits in two on tabs; as
    // records, under the comma's quotes, every record has 24 fields.
    let mut text: Vec<String> = vec![(0..24)
        .map(|c| format!("c{c}"))
        .collect::<Vec<_>>()
        .join(",")];
    for r in 0..44 {
        let mut cells: Vec<String> = (0..23).map(|c| ((r * 7 + c) % 100).to_string()).collect();
        cells.push(format!("\"first\tline {r}\nsecond\tline\""));
        text.push(cells.join(","));
    }
    let text = text.join("\n") + "\n";
    for piece in [1, 7, 1 << 16] {
        let fed = plumb_core::TextStream::from_buf_read(std::io::BufReader::with_capacity(
            piece,
            text.as_bytes(),
        ));
        let r = inspect(fed, CsvFormat::Csv, &CsvOptions::default()).unwrap();
        assert_eq!(r.dialect.delimiter, ",");
        assert_eq!((r.row_count, r.columns.len()), (Some(44), 24));
        assert_eq!(r.issue_count, 0);
    }
    // A tab file whose lines hold a stray quote still reads as tabs.
    let tsv = "id\tnote\n1\t\"quoted\n2\tplain\n3\tmore\"\n4\tend\n";
    let r = inspect(stream(tsv), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!((r.dialect.delimiter.as_str(), r.row_count), ("\t", Some(4)));
}

#[test]
fn columns_aligned_by_spaces_are_read_but_said_to_be_a_guess() {
    let text = "id   name    score\n1    ann     10\n22   bob     7\n333  cy      12\n";
    let r = inspect(stream(text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(
        (r.dialect.delimiter.as_str(), r.columns.len()),
        ("spaces", 3)
    );
    let c = r.delimiter_confidence.unwrap();
    assert!(c < 0.5, "{c}");
    let note = r.dialect.delimiter_note.as_deref().unwrap();
    assert!(
        note.contains("runs of spaces") && note.contains("100%"),
        "{note}"
    );
    // Single spaces that separate a consistent number of fields are a
    // delimiter, said with the share.
    let text = "a b c\n1 2 3\n4 5 6\n7 8 9\n";
    let r = inspect(stream(text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(r.dialect.delimiter, " ");
    assert_eq!(r.delimiter_confidence, Some(1.0));
}

#[test]
fn prose_whose_lines_split_evenly_at_spaces_is_not_a_table() {
    // Every line five words, the names quoted: split at spaces it is as
    // even as a table, but its lines end as sentences do.
    let prose = "\"Alice\" said hello to everyone.\n\"Bob\" answered with a smile!\n\
        \"Carol\" walked into the room.\n\"Dave\" asked about (the weather?)\n\
        \"Eve\" laughed at the joke.\n\"Frank\" closed the old door.\n";
    for text in [prose.to_owned(), prose.replace(' ', "  ")] {
        let r = inspect(stream(&text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
        assert_eq!(r.columns.len(), 1, "{text}");
        assert_eq!(r.delimiter_confidence, Some(0.0), "{text}");
        let note = r.dialect.delimiter_note.as_deref().unwrap();
        assert!(note.contains("pass the delimiter"), "{note}");
    }
    // A table split at single spaces whose last column holds a few
    // abbreviations or numbers with a point stays a table.
    let table = "name kind score\nacme Inc. 3.5\nbeta Ltd 4.\ngamma LLC 7\ndelta Co. 1.25\n";
    let r = inspect(stream(table), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!((r.dialect.delimiter.as_str(), r.columns.len()), (" ", 3));
    assert_eq!(r.delimiter_confidence, Some(1.0));
    // Told the delimiter, the prose is split as asked.
    let o = CsvOptions {
        delimiter: Some(b' '),
        ..CsvOptions::default()
    };
    let r = inspect(stream(prose), CsvFormat::Csv, &o).unwrap();
    assert_eq!(r.columns.len(), 5);
}
