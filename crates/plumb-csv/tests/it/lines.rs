//! No line is lost: every line of the input is a preamble line, a
//! comment, a blank line, the header or a row, and inspect and validate
//! count it as one of them, whatever the table's shape (titles above it,
//! trailing delimiters, ragged rows, blank and `#` lines inside it).

use plumb_core::TextStream;
use plumb_csv::{inspect, validate, CsvFormat, CsvOptions};
use proptest::prelude::*;

/// One line of a generated file, without quotes, so a record is a line.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        // Rows of one to six cells of numbers and words, some with a
        // trailing delimiter.
        4 => (prop::collection::vec("[a-z0-9]{0,4}", 1..6), any::<bool>()).prop_map(|(cells, trail)| {
            let mut l = cells.join(",");
            if trail {
                l.push(',');
            }
            l
        }),
        // A title or a banner.
        1 => "[A-Z][a-z ]{0,12}".prop_map(String::from),
        1 => Just("*** export ***".to_owned()),
        // A blank line, a `#` line.
        1 => Just(String::new()),
        1 => "# [a-z ]{0,8}".prop_map(String::from),
    ]
}

fn counted(text: &str, opts: &CsvOptions) -> (u64, u64) {
    let r = inspect(TextStream::new(text.as_bytes()), CsvFormat::Csv, opts).unwrap();
    let d = &r.dialect;
    let header = u64::from(r.header.is_some());
    let rows = r.row_count.expect("a whole scan counts its rows");
    let seen = d.skipped_lines + d.comment_lines + r.blank_lines + header + rows;
    let v = validate(TextStream::new(text.as_bytes()), CsvFormat::Csv, opts).unwrap();
    assert_eq!(
        (
            v.dialect.skipped_lines,
            v.dialect.comment_lines,
            v.blank_lines,
            v.rows_scanned
        ),
        (d.skipped_lines, d.comment_lines, r.blank_lines, rows),
        "validate reads the lines as inspect does: {text:?}"
    );
    // Read three bytes at a time, the same lines are counted alike.
    let split = inspect(
        TextStream::from_buf_read(std::io::BufReader::with_capacity(3, text.as_bytes())),
        CsvFormat::Csv,
        opts,
    )
    .unwrap();
    assert_eq!(
        serde_json::to_value(&split).unwrap(),
        serde_json::to_value(&r).unwrap(),
        "{text:?}"
    );
    (seen, text.lines().count() as u64)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn every_line_is_counted_as_one_thing(lines in prop::collection::vec(line(), 1..30)) {
        let text = lines.join("\n") + "\n";
        for comment in [None, Some(b'#')] {
            let opts = CsvOptions { comment, ..CsvOptions::default() };
            let (seen, lines) = counted(&text, &opts);
            // Trailing blank lines at the end of the text are blank lines
            // too; a line is never dropped.
            prop_assert_eq!(seen, lines, "{:?} comment {:?}", text, comment);
        }
    }
}
