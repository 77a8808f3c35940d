//! CSV validate in parts on several threads against the one-thread scan:
//! parts answer only when every part is clean, and then with the
//! one-thread counts; a cut inside a quoted field, an issue anywhere or a
//! refusal falls back, so the answer never changes.

use plumb_core::{text_stream, BytesSource, Refusal};
use plumb_csv::{validate, validate_in_parts, CsvFormat, CsvOptions, CsvValidate};
use proptest::prelude::*;

const SIZE: usize = 3 << 20;

pub(super) fn sequential(
    bytes: &[u8],
    format: CsvFormat,
    opts: &CsvOptions,
) -> Result<CsvValidate, Refusal> {
    let src = BytesSource::new("t.csv", bytes.to_vec());
    let answer = validate(text_stream(&src)?, format, opts);
    answer
}

/// The parts' answer, or `None` when they fell back.
pub(super) fn parts_only(
    bytes: &[u8],
    format: CsvFormat,
    opts: &CsvOptions,
    parts: usize,
) -> Option<CsvValidate> {
    let src = BytesSource::new("t.csv", bytes.to_vec());
    validate_in_parts(&src, format, opts, parts).unwrap()
}

/// What `validate_source` answers with `parts` threads.
fn in_parts(
    bytes: &[u8],
    format: CsvFormat,
    opts: &CsvOptions,
    parts: usize,
) -> Result<CsvValidate, Refusal> {
    match parts_only(bytes, format, opts, parts) {
        Some(v) => Ok(v),
        None => sequential(bytes, format, opts),
    }
}

/// Rows of four fields from `kinds`, repeated to `SIZE`: plain, quoted
/// with a delimiter, quoted with a line break, doubled quotes, CRLF,
/// blank lines; `bad` puts one broken row after that many rows.
pub(super) fn csv(kinds: &[u8], sep: u8, bad: Option<(usize, u8)>) -> Vec<u8> {
    let s = sep as char;
    let mut out = format!("id{s}name{s}note{s}amount\n").into_bytes();
    let mut i = 0usize;
    while out.len() < SIZE {
        for &k in kinds {
            let row = match k % 7 {
                0 => format!("{i}{s}ann{s}plain{s}{}.5\n", i % 100),
                1 => format!("{i}{s}\"b{s}c\"{s}x{s}1\n"),
                2 => format!("{i}{s}\"line\nbreak\"{s}y{s}2\n"),
                3 => format!("{i}{s}\"say \"\"hi\"\"\"{s}z{s}3\r\n"),
                4 => format!("{i}{s}\"a\n\nb\n\"{s}\"\n\"{s}4\n"),
                5 => "\n".to_owned(),
                _ => format!("{i}{s}{}{s}w{s}5\n", "v".repeat(i % 200)),
            };
            out.extend_from_slice(row.as_bytes());
            i += 1;
            match bad {
                Some((at, kind)) if at == i => {
                    let broken = match kind % 3 {
                        0 => format!("{i}{s}short\n"),
                        1 => format!("{i}{s}\"x\"y{s}z{s}1\n"),
                        _ => format!("{i}{s}\"never closed{s}z{s}1\n"),
                    };
                    out.extend_from_slice(broken.as_bytes());
                }
                _ => {}
            }
        }
    }
    out
}

#[test]
fn a_clean_file_is_answered_by_its_parts_with_the_same_counts() {
    let opts = CsvOptions::default();
    for (kinds, sep, format) in [
        (&[0u8, 1, 3, 5, 6][..], b',', CsvFormat::Csv),
        (&[0u8, 6][..], b'\t', CsvFormat::Tsv),
        (&[0u8, 1, 3, 6][..], b';', CsvFormat::Csv),
    ] {
        let bytes = csv(kinds, sep, None);
        let one = sequential(&bytes, format, &opts).unwrap();
        assert_eq!(one.valid, Some(true));
        for parts in 2..=5 {
            let got = parts_only(&bytes, format, &opts, parts)
                .expect("no quoted line breaks: parts answer");
            assert_eq!(got, one, "{parts} parts, {}", sep as char);
        }
    }
}

#[test]
fn quoted_line_breaks_at_the_cuts_never_change_the_answer() {
    let opts = CsvOptions::default();
    // Most line feeds are inside quotes: most cuts land in a field.
    let bytes = csv(&[2, 4, 4, 2, 0], b',', None);
    let one = sequential(&bytes, CsvFormat::Csv, &opts).unwrap();
    assert_eq!(one.valid, Some(true));
    let mut answered = 0;
    for parts in 2..=12 {
        if let Some(got) = parts_only(&bytes, CsvFormat::Csv, &opts, parts) {
            answered += 1;
            assert_eq!(got, one, "{parts} parts");
        }
        assert_eq!(in_parts(&bytes, CsvFormat::Csv, &opts, parts).unwrap(), one);
    }
    // The head shows quoted line breaks, so the cuts are made where the
    // quotes before them are even: in a well-formed file every split
    // answers from its parts.
    assert_eq!(answered, 11);
}

#[test]
fn an_issue_in_any_part_gets_the_one_thread_answer() {
    let opts = CsvOptions::default();
    for (at, kind) in [(3, 0), (20_000, 1), (40_000, 2), (55_000, 0)] {
        let bytes = csv(&[0, 1, 6], b',', Some((at, kind)));
        let one = sequential(&bytes, CsvFormat::Csv, &opts).unwrap();
        assert_eq!(one.valid, Some(false), "row {at}");
        for parts in 2..=4 {
            assert!(parts_only(&bytes, CsvFormat::Csv, &opts, parts).is_none());
            assert_eq!(in_parts(&bytes, CsvFormat::Csv, &opts, parts).unwrap(), one);
        }
    }
}

#[test]
fn comments_preambles_and_bad_bytes_fall_back_or_agree() {
    let body = csv(&[0, 1, 6], b',', None);
    let mut preamble = b"Report of things\nGenerated today\n\n".to_vec();
    preamble.extend_from_slice(&body);
    let mut commented = body.clone();
    let at = commented.len() / 2;
    let at = at + commented[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
    commented.splice(at..at, b"# a comment half way\n".iter().copied());
    let mut bad_utf8 = body.clone();
    let end = bad_utf8.len() - 20;
    bad_utf8[end] = 0xFF;
    let comment = CsvOptions {
        comment: Some(b'#'),
        ..CsvOptions::default()
    };
    for (bytes, opts) in [
        (&preamble, CsvOptions::default()),
        (&commented, comment.clone()),
        (&commented, CsvOptions::default()),
        (&bad_utf8, CsvOptions::default()),
    ] {
        let one = sequential(bytes, CsvFormat::Csv, &opts);
        for parts in 2..=4 {
            let got = in_parts(bytes, CsvFormat::Csv, &opts, parts);
            assert_eq!(format!("{got:?}"), format!("{one:?}"), "{parts} parts");
        }
    }
    // A comment in a later part is skipped there as it is on one thread.
    let one = sequential(&commented, CsvFormat::Csv, &comment).unwrap();
    assert_eq!(one.valid, Some(true));
    assert_eq!(
        parts_only(&commented, CsvFormat::Csv, &comment, 3),
        Some(one)
    );
}

#[test]
fn a_row_cap_is_never_split() {
    let bytes = csv(&[0], b',', None);
    let mut opts = CsvOptions::default();
    opts.scan.max_rows = Some(10);
    assert!(parts_only(&bytes, CsvFormat::Csv, &opts, 4).is_none());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Any mix of rows (quoted line breaks included, so cuts land in and
    /// out of quotes), any broken row, any number of parts: the answer is
    /// the one-thread scan's.
    #[test]
    fn parts_agree_with_one_thread(
        kinds in proptest::collection::vec(0u8..7, 1..12),
        bad in proptest::option::of((0usize..80_000, 0u8..3)),
        parts in 2usize..7,
    ) {
        let opts = CsvOptions::default();
        let bytes = csv(&kinds, b',', bad);
        let one = sequential(&bytes, CsvFormat::Csv, &opts);
        let got = in_parts(&bytes, CsvFormat::Csv, &opts, parts);
        prop_assert_eq!(format!("{got:?}"), format!("{one:?}"));
    }
}
