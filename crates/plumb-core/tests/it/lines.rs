//! The capped line iterator against the plain reading of the same text
//! (split at `\n`, a `\r` before it dropped, the start kept of a line
//! past the cap), whatever the chunks the stream cuts.

use plumb_core::{Lines, TextStream};
use proptest::prelude::*;

/// (number, offset, kept text, whole length, cut) of each line.
type Want = Vec<(u64, u64, String, u64, bool)>;

fn reference(text: &str, cap: usize) -> Want {
    let mut out = Vec::new();
    let mut start = 0;
    let mut number = 0;
    while start < text.len() {
        let end = text[start..].find('\n').map_or(text.len(), |k| start + k);
        let broken = end < text.len();
        let mut line = &text[start..end];
        if broken {
            line = line.strip_suffix('\r').unwrap_or(line);
        }
        let mut keep = line.len().min(cap);
        while !line.is_char_boundary(keep) {
            keep -= 1;
        }
        number += 1;
        out.push((
            number,
            start as u64,
            line[..keep].to_owned(),
            line.len() as u64,
            line.len() > cap,
        ));
        start = end + 1;
    }
    out
}

fn read(text: &str, cap: usize, chunk: usize) -> Want {
    let stream = TextStream::new(text.as_bytes()).with_chunk_size(chunk);
    let mut lines = Lines::new(stream, cap);
    let mut out = Vec::new();
    while let Some(l) = lines.next_line().unwrap() {
        out.push((l.number, l.byte_offset, l.text.to_owned(), l.len, l.cut));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    #[test]
    fn lines_read_as_the_text_splits_whatever_the_chunks(
        text in "([a-zé€ ]{0,12}(\r\n|\n|\r)?){0,12}",
        cap in 0usize..16,
        chunk in 1usize..20,
    ) {
        let want = reference(&text, cap);
        prop_assert_eq!(read(&text, cap, chunk), want.clone(), "chunk {}", chunk);
        prop_assert_eq!(read(&text, cap, 1 << 16), want, "whole");
    }
}

#[test]
fn a_line_past_the_cap_is_never_held_whole() {
    // One line of 8 MiB with no break: what is held is the cap.
    let text = "x".repeat(8 << 20) + "\nend";
    let mut lines = Lines::new(TextStream::new(text.as_bytes()), 1024);
    let first = lines.next_line().unwrap().unwrap();
    assert_eq!(
        (first.text.len(), first.len, first.cut),
        (1024, 8 << 20, true)
    );
    let last = lines.next_line().unwrap().unwrap();
    assert_eq!(
        (last.number, last.text, last.byte_offset),
        (2, "end", (8 << 20) + 1)
    );
    assert!(lines.next_line().unwrap().is_none());
}

#[test]
fn invalid_utf8_is_refused_with_its_offset() {
    let mut lines = Lines::new(TextStream::new(&b"ok\nbad \xff\n"[..]), 64);
    assert_eq!(lines.next_line().unwrap().unwrap().text, "ok");
    let refusal = lines.next_line().unwrap_err();
    assert_eq!(refusal.byte_offset(), Some(7));
}
