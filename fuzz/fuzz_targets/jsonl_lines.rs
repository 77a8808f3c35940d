//! `LineSplitter`: any chunking gives the lines a naive split gives
//! (LF ends a line, one CR before it stripped, a last unterminated line
//! kept), and oversized lines are reported, never returned. A sink that
//! takes lines in place (`JsonParser::push_record`) sees the same lines,
//! numbered and placed the same, and each it takes as a value is one.
#![no_main]

use std::ops::ControlFlow;

use libfuzzer_sys::fuzz_target;
use plumb_json::{scan_text, JsonParser, Null, RecordEnd};
use plumb_jsonl::{InPlace, Line, LineSink, LineSplitter, JSONL_MAX_LINE_BYTES};

#[derive(Default, PartialEq, Debug)]
struct Lines(Vec<(u64, u64, Vec<u8>)>);

impl LineSink for Lines {
    fn line(&mut self, l: &Line<'_>) -> ControlFlow<()> {
        self.0.push((l.number, l.byte_offset, l.text.to_vec()));
        ControlFlow::Continue(())
    }
    fn oversized(&mut self, n: u64, at: u64, _len: u64) -> ControlFlow<()> {
        self.0.push((n, at, b"<oversized>".to_vec()));
        ControlFlow::Continue(())
    }
}

/// Takes the lines it can judge in place, as validation does.
#[derive(Default)]
struct InPlaceLines {
    lines: Lines,
    parser: JsonParser,
}

impl LineSink for InPlaceLines {
    fn line(&mut self, l: &Line<'_>) -> ControlFlow<()> {
        self.lines.line(l)
    }
    fn oversized(&mut self, n: u64, at: u64, len: u64) -> ControlFlow<()> {
        self.lines.oversized(n, at, len)
    }
    fn lines_in_place(&mut self, input: &[u8], number: u64, byte_offset: u64) -> InPlace {
        let mut taken = InPlace::default();
        loop {
            let rest = &input[taken.bytes..];
            self.parser.reset(0, 1);
            let (lf, value) = match self.parser.push_record(rest, &mut Null) {
                RecordEnd::Complete(lf) => (lf, true),
                RecordEnd::Blank(lf) => (lf, false),
                RecordEnd::Unsure => return taken,
            };
            if lf > JSONL_MAX_LINE_BYTES {
                return taken;
            }
            let text = &rest[..lf];
            assert_eq!(rest[lf], b'\n');
            assert!(!text.contains(&b'\n'));
            if value {
                let mut p = JsonParser::new();
                assert!(scan_text(&mut p, text, 0, 1, &mut Null).is_ok(), "{text:?}");
            } else {
                assert!(text.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')));
            }
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            self.lines.0.push((
                number + taken.lines,
                byte_offset + taken.bytes as u64,
                text.to_vec(),
            ));
            taken.bytes += lf + 1;
            taken.lines += 1;
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, data)) = input.split_first() else {
        return;
    };
    let run = |size: usize| {
        let mut s = LineSplitter::new(0);
        let mut lines = Lines::default();
        for piece in data.chunks(size.max(1)) {
            let _ = s.push(piece, &mut lines);
        }
        let _ = s.finish(&mut lines);
        lines
    };
    let whole = run(data.len().max(1));
    assert_eq!(run(usize::from(ctl) + 1), whole);
    for size in [data.len().max(1), usize::from(ctl) + 1] {
        let mut s = LineSplitter::new(0);
        let mut sink = InPlaceLines::default();
        for piece in data.chunks(size) {
            let _ = s.push(piece, &mut sink);
        }
        let _ = s.finish(&mut sink);
        assert_eq!(sink.lines, whole, "chunks of {size}");
    }
    let mut naive = Vec::new();
    let mut offset = 0u64;
    let parts: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        if !(last && part.is_empty()) {
            let text = part.strip_suffix(b"\r").unwrap_or(part);
            assert!(part.len() <= JSONL_MAX_LINE_BYTES);
            naive.push((i as u64 + 1, offset, text.to_vec()));
        }
        offset += part.len() as u64 + 1;
    }
    assert_eq!(whole.0, naive);
});
