//! JSON Lines validate in parts on several threads against the
//! one-thread scan: the parts answer only when every line is valid, and
//! then with the one-thread counts; everything else falls back.

use plumb_core::{text_stream, BytesSource, ScanBounds, BINARY_SNIFF_BYTES};
use plumb_jsonl::{validate, validate_in_parts};
use proptest::prelude::*;

pub(super) fn sequential(bytes: &[u8]) -> Result<plumb_jsonl::JsonlValidate, plumb_core::Refusal> {
    let src = BytesSource::new("t.jsonl", bytes.to_vec());
    let answer = validate(text_stream(&src)?, &ScanBounds::default());
    answer
}

/// What `validate_source` answers when it splits into `parts`.
fn in_parts(bytes: &[u8], parts: usize) -> Result<plumb_jsonl::JsonlValidate, plumb_core::Refusal> {
    let src = BytesSource::new("t.jsonl", bytes.to_vec());
    match validate_in_parts(&src, &ScanBounds::default(), parts)? {
        Some(v) => Ok(v),
        None => sequential(bytes),
    }
}

/// Lines of records, blank lines, CRLF endings and (when `bad` says
/// where) one broken line, past the first part's minimum.
pub(super) fn jsonl(lines: &[(u8, u32)], bad: Option<usize>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0usize;
    while out.len() < BINARY_SNIFF_BYTES * 3 {
        for &(kind, n) in lines {
            match kind % 6 {
                0 => out.extend_from_slice(format!("{{\"id\":{n},\"s\":\"a\\nb\"}}\n").as_bytes()),
                1 => out.extend_from_slice(format!("[{n}, true, null]\r\n").as_bytes()),
                2 => out.extend_from_slice(b"\n"),
                3 => out.extend_from_slice(b"  \t\n"),
                4 => out.extend_from_slice(
                    format!("{{\"k\":\"{}\"}}\n", "x".repeat(n as usize % 3000)).as_bytes(),
                ),
                _ => out.extend_from_slice(format!("{n}\n").as_bytes()),
            }
            i += 1;
            if bad == Some(i) {
                out.extend_from_slice(b"{\"broken\": }\n");
            }
        }
    }
    out
}

#[test]
fn a_valid_file_is_answered_by_its_parts_with_the_same_counts() {
    let bytes = jsonl(&[(0, 1), (1, 2), (2, 0), (3, 0), (4, 2500), (5, 7)], None);
    let one = sequential(&bytes).unwrap();
    assert_eq!(one.valid, Some(true));
    for parts in 2..=8 {
        let src = BytesSource::new("t.jsonl", bytes.clone());
        let v = validate_in_parts(&src, &ScanBounds::default(), parts)
            .unwrap()
            .expect("a valid file of several parts is answered in parts");
        assert_eq!(v, one, "{parts} parts");
    }
}

#[test]
fn an_invalid_line_in_any_part_gets_the_one_thread_answer() {
    for bad in [1, 10, 40, 90] {
        let bytes = jsonl(&[(0, 1), (1, 2), (2, 0), (4, 900)], Some(bad));
        let one = sequential(&bytes).unwrap();
        assert_eq!(one.valid, Some(false), "line {bad}");
        for parts in 2..=6 {
            let src = BytesSource::new("t.jsonl", bytes.clone());
            assert!(validate_in_parts(&src, &ScanBounds::default(), parts)
                .unwrap()
                .is_none());
            assert_eq!(in_parts(&bytes, parts).unwrap(), one);
        }
    }
}

#[test]
fn a_bom_bad_utf8_or_a_nul_late_in_the_file_falls_back() {
    let good = jsonl(&[(0, 1), (5, 2)], None);
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(&good);
    let mut bad_utf8 = good.clone();
    let at = bad_utf8.len() - 10;
    bad_utf8[at] = 0xFF;
    let mut nul = good.clone();
    let at = nul.len() - 10;
    nul[at] = 0;
    for bytes in [bom, bad_utf8, nul] {
        let one = sequential(&bytes);
        for parts in 2..=4 {
            let got = in_parts(&bytes, parts);
            assert_eq!(format!("{got:?}"), format!("{one:?}"), "{parts} parts");
        }
    }
}

#[test]
fn a_row_cap_is_never_split() {
    let bytes = jsonl(&[(0, 1)], None);
    let src = BytesSource::new("t.jsonl", bytes);
    let capped = ScanBounds {
        max_rows: Some(5),
        ..Default::default()
    };
    assert!(validate_in_parts(&src, &capped, 4).unwrap().is_none());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Any mix of lines, any number of parts: the answer (or refusal) is
    /// the one-thread scan's.
    #[test]
    fn parts_agree_with_one_thread(
        lines in proptest::collection::vec((0u8..6, 0u32..4000), 1..40),
        bad in proptest::option::of(0usize..2000),
        parts in 1usize..7,
    ) {
        let bytes = jsonl(&lines, bad);
        let one = sequential(&bytes);
        let got = in_parts(&bytes, parts);
        prop_assert_eq!(format!("{got:?}"), format!("{one:?}"));
    }
}
