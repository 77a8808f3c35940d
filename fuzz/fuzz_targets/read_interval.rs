//! `read`: any bytes, any offset and limit, answer or refusal; an answer
//! is a run of whole lines of the input, and following `next_offset`
//! from 0 gives back the whole text exactly when no line was cut.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb::read::{read_source, ReadRequest};

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, data)) = input.split_first() else {
        return;
    };
    let req = ReadRequest {
        offset: i64::from(ctl as i8) / 8,
        limit: Some(u64::from(ctl % 7) + 1),
        max_bytes: 64,
        ..ReadRequest::default()
    };
    let Ok(a) = read_source(&plumb::BytesSource::new("f", data.to_vec()), &req) else {
        return;
    };
    let text = std::str::from_utf8(data).ok();
    if let Some(text) = text {
        let body = text.strip_prefix('\u{feff}').unwrap_or(text);
        assert!(
            body.contains(&a.text) || a.line_truncated,
            "not a run of the input"
        );
    }
    // Page through from the start.
    let mut at = 0i64;
    let mut all = String::new();
    let mut cut = false;
    for _ in 0..10_000 {
        let r = ReadRequest {
            offset: at,
            limit: Some(3),
            max_bytes: 64,
            ..ReadRequest::default()
        };
        let Ok(page) = read_source(&plumb::BytesSource::new("f", data.to_vec()), &r) else {
            return;
        };
        cut |= page.line_truncated;
        all.push_str(&page.text);
        match page.next_offset {
            Some(n) => {
                assert!(n as i64 > at, "next_offset must move");
                at = n as i64;
            }
            None => break,
        }
    }
    if let (Some(text), false) = (text, cut) {
        assert_eq!(all, text.strip_prefix('\u{feff}').unwrap_or(text));
    }
});
