//! `LineSplitter`: any chunking gives the lines a naive split gives
//! (LF ends a line, one CR before it stripped, a last unterminated line
//! kept), and oversized lines are reported, never returned.
#![no_main]

use std::ops::ControlFlow;

use libfuzzer_sys::fuzz_target;
use plumb_jsonl::{Line, LineSink, LineSplitter, JSONL_MAX_LINE_BYTES};

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
