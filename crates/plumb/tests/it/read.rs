//! The read operation: intervals, ceilings, refusals, tail reads.

use plumb::read::{read, read_source, ReadRequest, READ_MAX_BYTES, READ_MAX_LINES};
use plumb::BytesSource;
use plumb_core::RefusalReason;

fn req(offset: i64, limit: Option<u64>) -> ReadRequest {
    ReadRequest {
        offset,
        limit,
        ..ReadRequest::default()
    }
}

fn mem(text: &[u8], r: &ReadRequest) -> Result<plumb::read::ReadAnswer, plumb_core::Refusal> {
    read_source(&BytesSource::new("mem.txt", text.to_vec()), r)
}

#[test]
fn a_whole_small_file_comes_back_byte_exact() {
    for text in [
        "a\nb\nc\n",
        "a\r\nb\r\nc",
        "only line",
        "",
        "\n\n",
        "é\r\n😀\n",
    ] {
        let a = mem(text.as_bytes(), &ReadRequest::default()).unwrap();
        assert_eq!(a.text, text);
        assert_eq!(a.bytes, text.len() as u64);
        assert_eq!((a.total_lines, a.next_offset), (None, None), "{text:?}");
    }
}

#[test]
fn an_interval_reports_total_and_next_offset() {
    let text: String = (0..10).map(|i| format!("line {i}\n")).collect();
    let a = mem(text.as_bytes(), &req(3, Some(4))).unwrap();
    assert_eq!(a.text, "line 3\nline 4\nline 5\nline 6\n");
    assert_eq!((a.total_lines, a.next_offset), (Some(10), Some(7)));
    let a = mem(text.as_bytes(), &req(7, Some(10))).unwrap();
    assert_eq!(a.text, "line 7\nline 8\nline 9\n");
    assert_eq!(
        (a.total_lines, a.next_offset),
        (None, None),
        "reaches the end"
    );
    // The last line without a newline counts.
    let a = mem(b"a\nb\nc", &req(0, Some(1))).unwrap();
    assert_eq!((a.total_lines, a.next_offset), (Some(3), Some(1)));
}

#[test]
fn an_offset_past_the_end_gets_the_total_and_no_next_offset() {
    let a = mem(b"a\nb\n", &req(2, None)).unwrap();
    assert_eq!(
        (a.text.as_str(), a.total_lines, a.next_offset),
        ("", Some(2), None)
    );
    let a = mem(b"a\nb\n", &req(99, None)).unwrap();
    assert_eq!((a.total_lines, a.next_offset), (Some(2), None));
    let a = mem(b"", &req(3, None)).unwrap();
    assert_eq!((a.total_lines, a.next_offset), (Some(0), None));
}

#[test]
fn limit_zero_is_refused_and_a_large_limit_is_served_at_the_cap() {
    let e = mem(b"a\n", &req(0, Some(0))).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::InvalidArgument);
    assert!(e.message().contains("1 to 512"), "{}", e.message());
    let text = "x\n".repeat(2000);
    let a = mem(text.as_bytes(), &req(0, Some(5000))).unwrap();
    assert_eq!(a.text.lines().count() as u64, READ_MAX_LINES);
    assert_eq!((a.total_lines, a.next_offset), (Some(2000), Some(512)));
}

#[test]
fn the_byte_ceiling_cuts_a_run_of_long_lines_with_a_correct_next_offset() {
    let line = format!("{}\n", "y".repeat(999));
    let text = line.repeat(100);
    let a = mem(text.as_bytes(), &req(10, None)).unwrap();
    let fit = (READ_MAX_BYTES / 1000) as u64;
    assert_eq!(a.bytes, fit * 1000);
    assert_eq!((a.total_lines, a.next_offset), (Some(100), Some(10 + fit)));
    assert!(!a.line_truncated);
    // Following next_offset covers every line exactly once.
    let mut seen = 0u64;
    let mut at = 0i64;
    loop {
        let a = mem(text.as_bytes(), &req(at, None)).unwrap();
        seen += a.text.lines().count() as u64;
        match a.next_offset {
            Some(n) => at = n as i64,
            None => break,
        }
    }
    assert_eq!(seen, 100);
}

#[test]
fn an_8_mib_single_line_is_cut_marked_and_moved_past() {
    let mut text = "é".repeat(4 * 1024 * 1024).into_bytes();
    text.extend_from_slice(b"\nnext\n");
    let a = mem(&text, &ReadRequest::default()).unwrap();
    assert!(a.line_truncated);
    assert!(a.bytes as usize <= READ_MAX_BYTES);
    assert!(
        a.bytes as usize >= READ_MAX_BYTES - 1,
        "cut at a character boundary"
    );
    assert_eq!((a.total_lines, a.next_offset), (Some(2), Some(1)));
    let b = mem(&text, &req(1, None)).unwrap();
    assert_eq!(b.text, "next\n");
}

#[test]
fn invalid_utf8_and_binary_are_refused_with_offsets() {
    let e = mem(b"ok\nbad \xff here\n", &ReadRequest::default()).unwrap_err();
    assert_eq!(
        (e.reason(), e.byte_offset()),
        (RefusalReason::InvalidUtf8, Some(7))
    );
    let e = mem(b"a\x00b\n", &ReadRequest::default()).unwrap_err();
    assert_eq!(
        (e.reason(), e.byte_offset()),
        (RefusalReason::Binary, Some(1))
    );
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        read(dir.path(), &ReadRequest::default())
            .unwrap_err()
            .reason(),
        RefusalReason::NotAFile
    );
    assert_eq!(
        read(&dir.path().join("nope"), &ReadRequest::default())
            .unwrap_err()
            .reason(),
        RefusalReason::NotFound
    );
}

#[test]
fn every_way_of_cutting_reads_gives_the_same_answer() {
    let text = "α\r\nβγ\n\nδ😀\nlast";
    for offset in 0..6 {
        for limit in 1..4 {
            let want = mem(text.as_bytes(), &req(offset, Some(limit))).unwrap();
            let r = ReadRequest {
                max_bytes: 1 << 20,
                ..req(offset, Some(limit))
            };
            let got =
                read_source(&BytesSource::new("mem.txt", text.as_bytes().to_vec()), &r).unwrap();
            assert_eq!(got, want, "{offset} {limit}");
        }
    }
}

#[test]
fn tail_reads_the_last_lines() {
    let text: String = (0..1000).map(|i| format!("row {i}\n")).collect();
    let a = mem(text.as_bytes(), &req(-3, None)).unwrap();
    assert_eq!(a.text, "row 997\nrow 998\nrow 999\n");
    assert_eq!(a.from_end, Some(3));
    assert_eq!(a.byte_offset, Some((text.len() - a.text.len()) as u64));
    let a = mem(b"a\nb", &req(-1, None)).unwrap();
    assert_eq!(a.text, "b");
    let a = mem(b"a\nb\n", &req(-5, None)).unwrap();
    assert_eq!(a.text, "a\nb\n");
    assert_eq!(a.from_end, Some(2));
    let a = mem(b"\xEF\xBB\xBFa\nb\n", &req(-5, None)).unwrap();
    assert_eq!(a.text, "a\nb\n", "the BOM is not text");
}

/// A stream: bytes in order, no length, no random access, handed out
/// in pieces of at most `piece` bytes.
#[derive(Debug)]
struct Stream(&'static [u8], usize);

impl plumb::Source for Stream {
    fn open(&self) -> Result<Box<dyn std::io::BufRead + Send + '_>, plumb_core::Refusal> {
        Ok(Box::new(std::io::BufReader::with_capacity(self.1, self.0)))
    }
    fn name(&self) -> &str {
        "stream"
    }
    fn len(&self) -> Option<u64> {
        None
    }
}

#[test]
fn a_stream_reads_forward_and_its_tail_in_one_pass() {
    let s = Stream(b"one\ntwo\nthree\n", 1 << 16);
    let a = read_source(&s, &req(1, Some(1))).unwrap();
    assert_eq!((a.text.as_str(), a.next_offset), ("two\n", Some(2)));
    let mut tail = read_source(&s, &req(-2, None)).unwrap();
    assert!(
        tail.streamed,
        "the answer says the stream was read to its end"
    );
    tail.streamed = false;
    let file = read_source(&BytesSource::new("stream", s.0.to_vec()), &req(-2, None));
    assert_eq!(tail, file.unwrap());
    assert_eq!(tail.text, "two\nthree\n");
    assert_eq!(tail.byte_offset, Some(4));
    // Faults in the lines returned are refused at their offsets; faults
    // before them are not read as text.
    let e = read_source(&Stream(b"a\nb\xff\n", 1 << 16), &req(-1, None)).unwrap_err();
    assert_eq!(
        (e.reason(), e.byte_offset()),
        (RefusalReason::InvalidUtf8, Some(3))
    );
    let e = read_source(&Stream(b"a\nb\x00\n", 1 << 16), &req(-1, None)).unwrap_err();
    assert_eq!(
        (e.reason(), e.byte_offset()),
        (RefusalReason::Binary, Some(3))
    );
    let fine = read_source(&Stream(b"\xffa\nb\n", 1 << 16), &req(-1, None));
    assert_eq!(
        fine.map(|a| a.text),
        mem(b"\xffa\nb\n", &req(-1, None)).map(|a| a.text)
    );
}

/// A stream that never ends: `y` lines, as `yes` writes them.
#[derive(Debug)]
struct Endless;

impl std::io::Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        for (i, b) in buf.iter_mut().enumerate() {
            *b = if i % 2 == 0 { b'y' } else { b'\n' };
        }
        Ok(buf.len() - buf.len() % 2)
    }
}

impl plumb::Source for Endless {
    fn open(&self) -> Result<Box<dyn std::io::BufRead + Send + '_>, plumb_core::Refusal> {
        Ok(Box::new(std::io::BufReader::new(Endless)))
    }
    fn name(&self) -> &str {
        "endless"
    }
    fn len(&self) -> Option<u64> {
        None
    }
}

#[test]
fn a_stream_is_not_read_past_the_answer() {
    // Counting the rest would never end; lines follow, their count unknown.
    let a = read_source(&Endless, &req(0, Some(1))).unwrap();
    assert_eq!(
        (a.text.as_str(), a.next_offset, a.total_lines),
        ("y\n", Some(1), None)
    );
    let a = read_source(&Endless, &req(3, Some(2))).unwrap();
    assert_eq!(
        (a.text.as_str(), a.next_offset, a.total_lines),
        ("y\ny\n", Some(5), None)
    );
    // A stream that ends within what was read has its total known.
    let a = read_source(&Stream(b"one\ntwo\n", 3), &req(0, Some(2))).unwrap();
    assert_eq!((a.next_offset, a.total_lines), (None, None));
    let a = read_source(&Stream(b"one\ntwo", 3), &req(0, Some(1))).unwrap();
    assert_eq!((a.next_offset, a.total_lines), (Some(1), Some(2)));
}

/// Text from a small alphabet that makes long lines, short lines, blank
/// lines, CRLF and multi-byte characters likely.
fn texts() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    proptest::collection::vec(
        prop_oneof![
            Just(b"a".to_vec()),
            Just(b"xyz".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\r\n".to_vec()),
            Just("é".as_bytes().to_vec()),
            Just("😀".as_bytes().to_vec()),
        ],
        0..80,
    )
    .prop_map(|parts| parts.concat())
}

proptest::proptest! {
    /// A tail read of a stream, in one pass, answers as the backward
    /// read of the same bytes in a file does, for every count and ceiling.
    #[test]
    fn a_streamed_tail_answers_as_the_backward_tail(
        text in texts(),
        bom in proptest::bool::ANY,
        wanted in 1i64..12,
        max_bytes in 4usize..40,
        piece in 1usize..9,
        filler in 0usize..3,
    ) {
        let mut bytes = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        // Lines before the text put its tail past the head that is
        // judged first, so that it arrives in pieces.
        for k in 0..filler * 1500 {
            bytes.extend(format!("filler line {k}\n").as_bytes());
        }
        bytes.extend(&text);
        let r = ReadRequest { max_bytes, ..req(-wanted, None) };
        let leaked: &'static [u8] = Box::leak(bytes.clone().into_boxed_slice());
        let streamed = read_source(&Stream(leaked, piece), &r).map(|mut a| {
            assert!(a.streamed);
            a.streamed = false;
            a
        });
        let backward = read_source(&BytesSource::new("stream", bytes), &r);
        proptest::prop_assert_eq!(streamed, backward);
    }
}
