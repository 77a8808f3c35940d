//! The text stream, every case run every way: whole, split at every
//! byte, and one byte at a time, with identical results demanded.

use std::io::{BufReader, Read};

use plumb_core::{CancelToken, RefusalReason, TextStream, BINARY_SNIFF_BYTES};
use proptest::prelude::*;

/// What a consumer sees from a whole stream.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    text: String,
    bom: bool,
    refusal: Option<(RefusalReason, Option<u64>)>,
}

/// A reader that hands out its bytes in pieces of the given sizes, then
/// the rest in one piece.
struct Pieces<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = if self.sizes.is_empty() {
            self.data.len()
        } else {
            self.sizes.remove(0)
        };
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn drain<R: std::io::BufRead>(mut stream: TextStream<R>) -> Seen {
    let mut text = String::new();
    let mut refusal = None;
    let mut offsets = Vec::new();
    loop {
        match stream.next_chunk() {
            Ok(Some(chunk)) => {
                assert!(!chunk.text.is_empty(), "a chunk is never empty");
                offsets.push((chunk.byte_offset, text.len() as u64));
                text.push_str(chunk.text);
            }
            Ok(None) => break,
            Err(r) => {
                refusal = Some((r.reason(), r.byte_offset()));
                break;
            }
        }
    }
    assert!(matches!(stream.next_chunk(), Ok(None)), "done stays done");
    let bom = if stream.stats().bom { 3 } else { 0 };
    for (offset, before) in offsets {
        assert_eq!(
            offset,
            bom + before,
            "each chunk carries its absolute offset"
        );
    }
    Seen {
        text,
        bom: stream.stats().bom,
        refusal,
    }
}

/// Runs `bytes` whole, split at every byte, one byte at a time, and in
/// small chunk sizes; all must agree. Returns the common result.
#[track_caller]
fn check(bytes: &[u8]) -> Seen {
    let whole = drain(TextStream::new(bytes));
    for split in 0..=bytes.len() {
        let reader = Pieces {
            data: bytes,
            sizes: vec![split],
        };
        let seen = drain(TextStream::from_buf_read(BufReader::with_capacity(
            bytes.len().max(1),
            reader,
        )));
        assert_eq!(seen, whole, "split at {split}");
    }
    let one = drain(TextStream::from_buf_read(BufReader::with_capacity(
        1, bytes,
    )));
    assert_eq!(one, whole, "one byte at a time");
    for size in 1..=5 {
        let seen = drain(TextStream::new(bytes).with_chunk_size(size));
        assert_eq!(seen, whole, "chunk size {size}");
    }
    whole
}

/// The oracle: NUL sniff, BOM strip, then `std::str::from_utf8`.
fn oracle(bytes: &[u8]) -> Seen {
    let window = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)];
    if let Some(at) = window.iter().position(|&b| b == 0) {
        return Seen {
            text: String::new(),
            bom: false,
            refusal: Some((RefusalReason::Binary, Some(at as u64))),
        };
    }
    let bom = bytes.starts_with(&[0xEF, 0xBB, 0xBF]);
    let rest = if bom { &bytes[3..] } else { bytes };
    let base = if bom { 3 } else { 0 };
    match std::str::from_utf8(rest) {
        Ok(s) => Seen {
            text: s.to_owned(),
            bom,
            refusal: None,
        },
        Err(e) => Seen {
            text: std::str::from_utf8(&rest[..e.valid_up_to()])
                .unwrap()
                .to_owned(),
            bom,
            refusal: Some((
                RefusalReason::InvalidUtf8,
                Some(base + e.valid_up_to() as u64),
            )),
        },
    }
}

#[test]
fn valid_multibyte_characters_survive_every_edge() {
    let text = "aé日😀b ß€𐍈\n";
    let seen = check(text.as_bytes());
    assert_eq!(seen.text, text);
    assert_eq!(seen.refusal, None);
    assert!(!seen.bom);
}

#[test]
fn each_ill_formed_class_is_refused_at_its_offset() {
    let cases: &[(&str, &[u8], u64)] = &[
        ("overlong 2-byte", b"ab\xC0\x80cd", 2),
        ("overlong 2-byte C1", b"ab\xC1\xBFcd", 2),
        ("overlong 3-byte", b"ab\xE0\x80\x80cd", 2),
        ("overlong 4-byte", b"ab\xF0\x80\x80\x80cd", 2),
        ("surrogate", b"ab\xED\xA0\x80cd", 2),
        ("above U+10FFFF", b"ab\xF4\x90\x80\x80cd", 2),
        ("bad continuation", b"abc\xC3\x41", 3),
        ("bad third byte", b"x\xE6\x97\x41", 1),
        ("F5 lead", b"ab\xF5\x80\x80\x80", 2),
        ("FF byte", b"abc\xFF", 3),
        ("lone continuation", b"a\x80b", 1),
        ("dangling at end", b"abcd\xE6\x97", 4),
        (
            "dangling 4-byte at end",
            "é".as_bytes()
                .iter()
                .chain(b"\xF0\x9F\x98")
                .copied()
                .collect::<Vec<u8>>()
                .leak(),
            2,
        ),
        ("latin-1 e-acute", b"name,val\n\xe9t\xe9", 9),
    ];
    for (what, bytes, offset) in cases {
        let seen = check(bytes);
        assert_eq!(
            seen.refusal,
            Some((RefusalReason::InvalidUtf8, Some(*offset))),
            "{what}"
        );
        assert_eq!(
            seen.text.len() as u64,
            *offset,
            "{what}: text before the fault"
        );
        assert_eq!(seen, oracle(bytes), "{what}: agrees with std");
    }
}

#[test]
fn bom_is_stripped_once_whole_or_split() {
    let seen = check(b"\xEF\xBB\xBFa,b\n");
    assert!(seen.bom);
    assert_eq!(seen.text, "a,b\n");
    let seen = check(b"\xEF\xBB\xBF\xEF\xBB\xBFx");
    assert!(seen.bom);
    assert_eq!(seen.text, "\u{feff}x", "only one BOM is stripped");
    let seen = check(b"\xEF\xBB\xBF");
    assert!(seen.bom);
    assert_eq!(seen.text, "");
    let seen = check(b"\xEF\xBB");
    assert_eq!(seen.refusal, Some((RefusalReason::InvalidUtf8, Some(0))));
    let seen = check(b"\xEF\xBB\xBF\xC3");
    assert_eq!(seen.refusal, Some((RefusalReason::InvalidUtf8, Some(3))));
}

#[test]
fn nul_inside_the_sniff_window_is_binary() {
    let mut bytes = vec![b'a'; 100];
    bytes[42] = 0;
    let seen = check(&bytes);
    assert_eq!(seen.refusal, Some((RefusalReason::Binary, Some(42))));
    assert_eq!(seen.text, "", "no text leaves before the sniff verdict");

    let mut bytes = vec![b'a'; BINARY_SNIFF_BYTES + 10];
    bytes[BINARY_SNIFF_BYTES - 1] = 0;
    let seen = drain(TextStream::from_buf_read(BufReader::with_capacity(
        1,
        bytes.as_slice(),
    )));
    assert_eq!(
        seen.refusal,
        Some((RefusalReason::Binary, Some(BINARY_SNIFF_BYTES as u64 - 1)))
    );
    // Binary wins over an earlier UTF-8 fault inside the window.
    let mut bytes = b"ab\xFFcd".to_vec();
    bytes.push(0);
    assert_eq!(
        check(&bytes).refusal,
        Some((RefusalReason::Binary, Some(5)))
    );
}

#[test]
fn nul_past_the_sniff_window_is_text() {
    let mut bytes = vec![b'a'; BINARY_SNIFF_BYTES + 10];
    bytes[BINARY_SNIFF_BYTES] = 0;
    for cap in [1, 7, 4096, 1 << 16] {
        let seen = drain(TextStream::from_buf_read(BufReader::with_capacity(
            cap,
            bytes.as_slice(),
        )));
        assert_eq!(seen.refusal, None, "capacity {cap}");
        assert_eq!(seen.text.as_bytes(), bytes.as_slice());
    }
}

/// A reader that counts what it handed out.
struct Counting<'a> {
    data: &'a [u8],
    handed: std::rc::Rc<std::cell::Cell<usize>>,
}

impl Read for Counting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.data.read(buf)?;
        self.handed.set(self.handed.get() + n);
        Ok(n)
    }
}

#[test]
fn a_reader_that_stops_early_reads_nothing_further() {
    let data = vec![b'x'; 4 << 20];
    let handed = std::rc::Rc::new(std::cell::Cell::new(0));
    let mut stream = TextStream::new(Counting {
        data: &data,
        handed: handed.clone(),
    });
    let first = stream.next_chunk().unwrap().unwrap();
    assert_eq!(first.byte_offset, 0);
    drop(stream);
    assert!(
        handed.get() <= plumb_core::CHUNK_BYTES,
        "read {} bytes for one chunk",
        handed.get()
    );
}

#[test]
fn cancellation_refuses_aborted_at_the_position() {
    let data = vec![b'x'; 200_000];
    let token = CancelToken::new();
    let mut stream = TextStream::new(data.as_slice()).with_cancel(token.clone());
    let first = stream.next_chunk().unwrap().unwrap().text.len() as u64;
    token.cancel();
    let refusal = stream.next_chunk().unwrap_err();
    assert_eq!(refusal.reason(), RefusalReason::Aborted);
    assert_eq!(refusal.byte_offset(), Some(first));
    assert!(stream.next_chunk().unwrap().is_none());

    let token = CancelToken::new();
    token.cancel();
    let mut stream = TextStream::new(&b"abc"[..]).with_cancel(token);
    assert_eq!(
        stream.next_chunk().unwrap_err().byte_offset(),
        Some(0),
        "cancelled before the first chunk"
    );
}

#[test]
fn empty_input_is_empty_text() {
    let seen = check(b"");
    assert_eq!(seen.text, "");
    assert_eq!(seen.refusal, None);
}

#[test]
fn open_refuses_missing_files_and_directories() {
    let dir = std::env::temp_dir();
    let missing = dir.join("plumb-core-no-such-file.csv");
    assert_eq!(
        TextStream::open(&missing).unwrap_err().reason(),
        RefusalReason::NotFound
    );
    assert_eq!(
        TextStream::open(&dir).unwrap_err().reason(),
        RefusalReason::NotAFile
    );
}

fn utf8ish() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => "[a-z,\n]{1,4}".prop_map(String::into_bytes),
        2 => any::<char>().prop_map(|c| c.to_string().into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 1..3),
        1 => Just(vec![0xEF, 0xBB, 0xBF]),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_chunking_agrees_with_std(bytes in utf8ish(), cap in 1usize..9, size in 1usize..9) {
        let expected = oracle(&bytes);
        let a = drain(TextStream::from_buf_read(BufReader::with_capacity(cap, bytes.as_slice())));
        prop_assert_eq!(&a, &expected);
        let b = drain(TextStream::new(bytes.as_slice()).with_chunk_size(size));
        prop_assert_eq!(&b, &expected);
    }
}

/// What a stream bounded at `stop_at` hands out: the text, whether it
/// stopped early, and its refusal.
fn drain_within<R: std::io::BufRead>(stream: TextStream<R>) -> (Seen, bool) {
    let mut stream = stream;
    let mut text = String::new();
    let mut refusal = None;
    loop {
        match stream.next_chunk() {
            Ok(Some(chunk)) => text.push_str(chunk.text),
            Ok(None) => break,
            Err(r) => {
                refusal = Some((r.reason(), r.byte_offset()));
                break;
            }
        }
    }
    let seen = Seen {
        text,
        bom: stream.stats().bom,
        refusal,
    };
    (seen, stream.stopped_early())
}

/// The bound's oracle on valid text: the prefix up to the first character
/// boundary at or after `stop_at` (the BOM counted), stopped when
/// anything follows it.
fn within_oracle(text: &str, bom: bool, stop_at: u64) -> (Seen, bool) {
    let base = if bom { 3 } else { 0 };
    let mut k = usize::try_from(stop_at.saturating_sub(base)).unwrap_or(usize::MAX);
    k = k.min(text.len());
    while !text.is_char_boundary(k) {
        k += 1;
    }
    let seen = Seen {
        text: text[..k].to_owned(),
        bom,
        refusal: None,
    };
    (seen, k < text.len())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_bound_ends_the_text_at_the_same_place_however_it_is_read(
        bytes in utf8ish(), stop_at in 0u64..40, cap in 1usize..9, size in 1usize..9,
    ) {
        let whole = drain_within(TextStream::new(bytes.as_slice()).within(Some(stop_at)));
        let a = drain_within(
            TextStream::from_buf_read(BufReader::with_capacity(cap, bytes.as_slice()))
                .within(Some(stop_at)),
        );
        prop_assert_eq!(&a, &whole);
        let b = drain_within(
            TextStream::new(bytes.as_slice()).with_chunk_size(size).within(Some(stop_at)),
        );
        prop_assert_eq!(&b, &whole);
        // Valid text: the oracle says where the text ends.
        let unbounded = oracle(&bytes);
        if unbounded.refusal.is_none() {
            prop_assert_eq!(&whole, &within_oracle(&unbounded.text, unbounded.bom, stop_at));
        } else if !whole.1 {
            // A stream that did not stop early read everything, refusal too.
            prop_assert_eq!(&whole.0, &unbounded);
        } else {
            prop_assert!(unbounded.text.starts_with(&whole.0.text));
        }
    }
}

#[test]
fn a_bound_at_or_past_the_end_stops_nothing() {
    let text = "id,name\n1,α\n";
    for stop_at in [text.len() as u64, text.len() as u64 + 1, u64::MAX] {
        let (seen, stopped) = drain_within(TextStream::new(text.as_bytes()).within(Some(stop_at)));
        assert_eq!((seen.text.as_str(), stopped), (text, false), "{stop_at}");
    }
    let (seen, stopped) = drain_within(TextStream::new(text.as_bytes()).within(Some(3)));
    assert_eq!((seen.text.as_str(), stopped), ("id,", true));
}

#[test]
fn a_bound_inside_the_byte_order_mark_stops_before_any_text() {
    for stop_at in 0..=3 {
        let (seen, stopped) =
            drain_within(TextStream::new(&b"\xEF\xBB\xBFab"[..]).within(Some(stop_at)));
        assert_eq!(
            (seen.text.as_str(), seen.bom, stopped),
            ("", true, true),
            "{stop_at}"
        );
    }
}
