//! Detection shortcuts held to the parse they stand in for.

use super::*;
use proptest::prelude::*;

/// Text of the bytes detection turns on: delimiters, quotes, `#`,
/// line breaks and a letter.
fn csvish() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(prop::sample::select(b"a1,;\t| \"'#\n\r".to_vec()), 0..120)
}

fn no_preamble(sample: &[u8], complete: bool, d: &Detection, comment: Option<u8>) -> bool {
    detect_preamble(sample, complete, d, comment)
        == Preamble {
            lines: 0,
            marked: false,
            commented_header: false,
        }
}

/// Tables: rows of one width (a few cut short or widened), after a
/// few lines of anything.
fn tables() -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec(csvish(), 0..3),
        prop::sample::select(vec![b',', b';', b'\t', b'|']),
        1usize..5,
        proptest::collection::vec((0usize..6, any::<bool>()), 1..12),
    )
        .prop_map(|(above, delim, width, rows)| {
            let mut out = Vec::new();
            for line in above {
                out.extend(line);
                out.push(b'\n');
            }
            for (r, (ragged, quoted)) in rows.into_iter().enumerate() {
                let n = if ragged == 0 { width + 1 } else { width };
                for c in 0..n {
                    if c > 0 {
                        out.push(delim);
                    }
                    let cell = format!("{}{c}{r}", if r == 0 { "h" } else { "" });
                    if quoted && c == 0 {
                        out.extend(format!("\"{cell}\"").bytes());
                    } else {
                        out.extend(cell.bytes());
                    }
                }
                out.push(b'\n');
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    /// The same over tables, where the shortcut is mostly taken.
    #[test]
    fn the_plain_case_agrees_on_tables(sample in tables(), complete in any::<bool>()) {
        let d = detect_dialect(&sample, complete, None, QuoteMode::Auto);
        if plainly_no_preamble(&sample, &d, None) {
            prop_assert!(no_preamble(&sample, complete, &d, None));
        }
    }

    /// The shortcut never says "no preamble" where the parse finds one.
    #[test]
    fn the_plain_case_agrees_with_the_parse(
        sample in csvish(),
        complete in any::<bool>(),
        given in prop::option::of(prop::sample::select(vec![b',', b';', b'\t', b' '])),
    ) {
        let d = detect_dialect(&sample, complete, given.map(|g| (g, false)), QuoteMode::Auto);
        if plainly_no_preamble(&sample, &d, None) {
            prop_assert!(no_preamble(&sample, complete, &d, None));
        }
    }
}

/// Text with no quote in it: delimiters, line breaks of every kind,
/// spaces and letters.
fn unquoted() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(prop::sample::select(b"a1,;\t| #\n\r\r\n".to_vec()), 0..160)
}

fn same(a: &Profile, b: &Profile) -> bool {
    (
        a.mode,
        a.score,
        a.total,
        a.splits,
        a.partial,
        a.clean_quotes,
        a.quoted_records,
    ) == (
        b.mode,
        b.score,
        b.total,
        b.splits,
        b.partial,
        b.clean_quotes,
        b.quoted_records,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8192))]

    /// Counted by lines or read by the parser, a sample no quote
    /// enters profiles alike, whole or cut, with the quote absent or
    /// unused, for every delimiter candidate.
    #[test]
    fn the_plain_profile_is_the_parsed_one(
        sample in unquoted(),
        complete in any::<bool>(),
        delimiter in prop::sample::select(vec![b',', b';', b'\t', b'|', b' ', b':']),
        quote in prop::option::of(Just(b'"')),
    ) {
        let parsed = parsed_profile(&sample, complete, (delimiter, false), quote);
        let plain = plain_profile(&sample, complete, delimiter);
        prop_assert!(same(&parsed, &plain), "{:?}", String::from_utf8_lossy(&sample));
    }

    /// The same over tables read with no quote character, where a
    /// `"` is text like any other.
    #[test]
    fn the_plain_profile_is_the_parsed_one_on_tables(
        sample in tables(),
        complete in any::<bool>(),
        delimiter in prop::sample::select(vec![b',', b';', b'\t', b'|']),
    ) {
        let parsed = parsed_profile(&sample, complete, (delimiter, false), None);
        let plain = plain_profile(&sample, complete, delimiter);
        prop_assert!(same(&parsed, &plain), "{:?}", String::from_utf8_lossy(&sample));
    }
}

#[test]
fn a_regular_table_is_plain_and_a_titled_one_is_not() {
    let plain = b"id,name\n1,a\n2,b\n";
    let d = detect_dialect(plain, true, None, QuoteMode::Auto);
    assert!(plainly_no_preamble(plain, &d, None));
    assert!(!plainly_no_preamble(plain, &d, Some(b'#')));
    let titled = b"Export\nid,name\n1,a\n2,b\n3,c\n";
    let d = detect_dialect(titled, true, None, QuoteMode::Auto);
    assert!(!plainly_no_preamble(titled, &d, None));
    assert_eq!(detect_preamble(titled, true, &d, None).lines, 1);
    let noted = b"#id,name\n1,a\n2,b\n";
    let d = detect_dialect(noted, true, None, QuoteMode::Auto);
    assert!(!plainly_no_preamble(noted, &d, None));
}

/// Tables of any delimiter, the extended ones among them, whose cells
/// may hold other candidates, with or without a quote anywhere.
fn tables_of_any_delimiter() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::sample::select(vec![b',', b';', b'\t', b'|', b':', b' ']),
        1usize..5,
        proptest::collection::vec(
            (
                0usize..8,
                prop::sample::select(b"a1;:| \t,\"'".to_vec()),
                0usize..6,
            ),
            1..14,
        ),
        any::<bool>(),
    )
        .prop_map(|(delim, width, rows, crlf)| {
            let mut out = Vec::new();
            for (r, (ragged, stray, at)) in rows.into_iter().enumerate() {
                let n = match ragged {
                    0 => width + 1,
                    1 => width.saturating_sub(1).max(1),
                    _ => width,
                };
                for c in 0..n {
                    if c > 0 {
                        out.push(delim);
                    }
                    out.extend(format!("v{c}{r}").bytes());
                    if c == at {
                        out.push(stray);
                    }
                }
                out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8192))]

    /// Ending the search at a reading no later candidate can beat gives
    /// the detection that profiling every candidate gives, under every
    /// quote mode.
    #[test]
    fn settling_early_detects_what_every_candidate_detects(
        sample in prop_oneof![tables_of_any_delimiter(), tables(), csvish(), unquoted()],
        complete in any::<bool>(),
        quote in prop::sample::select(vec![
            QuoteMode::Auto,
            QuoteMode::Off,
            QuoteMode::Char(b'"'),
            QuoteMode::Char(b'\''),
        ]),
    ) {
        let early = detect_dialect_with(&sample, complete, None, quote, true);
        let every = detect_dialect_with(&sample, complete, None, quote, false);
        prop_assert_eq!(early, every, "{:?}", String::from_utf8_lossy(&sample));
    }
}
