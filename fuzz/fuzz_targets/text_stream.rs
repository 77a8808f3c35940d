//! Fuzz target for `plumb_core::TextStream`: any chunking gives the same
//! text, BOM flag and refusal (reason and offset) as the whole input, and
//! validity and the error offset agree with `std::str::from_utf8`.
#![no_main]

use std::io::BufReader;

use libfuzzer_sys::fuzz_target;
use plumb_core::{RefusalReason, TextStream, BINARY_SNIFF_BYTES};

type Seen = (String, bool, Option<(RefusalReason, Option<u64>)>);

fn drain<R: std::io::BufRead>(mut stream: TextStream<R>) -> Seen {
    let mut text = String::new();
    loop {
        match stream.next_chunk() {
            Ok(Some(chunk)) => text.push_str(chunk.text),
            Ok(None) => return (text, stream.stats().bom, None),
            Err(r) => {
                return (
                    text,
                    stream.stats().bom,
                    Some((r.reason(), r.byte_offset())),
                )
            }
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&cap, data)) = input.split_first() else {
        return;
    };
    let cap = usize::from(cap % 16) + 1;
    let whole = drain(TextStream::new(data));
    let chunked = drain(TextStream::from_buf_read(BufReader::with_capacity(
        cap, data,
    )));
    assert_eq!(whole, chunked, "chunking changed the result");
    let sized = drain(TextStream::new(data).with_chunk_size(cap));
    assert_eq!(whole, sized, "chunk size changed the result");

    let window = &data[..data.len().min(BINARY_SNIFF_BYTES)];
    if let Some(at) = window.iter().position(|&b| b == 0) {
        assert_eq!(whole.2, Some((RefusalReason::Binary, Some(at as u64))));
        return;
    }
    let bom = data.starts_with(&[0xEF, 0xBB, 0xBF]);
    assert_eq!(whole.1, bom);
    let body = if bom { &data[3..] } else { data };
    let base = if bom { 3 } else { 0 };
    match std::str::from_utf8(body) {
        Ok(s) => {
            assert_eq!(whole.0, s);
            assert_eq!(whole.2, None);
        }
        Err(e) => {
            assert_eq!(whole.0.as_bytes(), &body[..e.valid_up_to()]);
            assert_eq!(
                whole.2,
                Some((
                    RefusalReason::InvalidUtf8,
                    Some(base + e.valid_up_to() as u64)
                ))
            );
        }
    }
});
