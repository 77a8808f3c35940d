//! Compressed sources: any bytes behind a gzip, zstd, xz or bzip2 magic
//! are decoded or refused `read-error` naming the container; never a
//! panic. An answer states its container, and the same bytes read
//! whole, through a source and as a stream, answer alike.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb::{Op, Plumb, RefusalReason, Request, StreamSource};
use plumb_core::BytesSource;

const MAGICS: [(&[u8], &str); 4] = [
    (b"\x1f\x8b", "gzip"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"BZh9", "bzip2"),
];

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, body)) = input.split_first() else {
        return;
    };
    let (magic, name) = MAGICS[usize::from(ctl & 3)];
    let mut bytes = magic.to_vec();
    bytes.extend_from_slice(body);
    let op = Op::ALL[usize::from(ctl >> 2) % 3];
    let plumb = Plumb::new();
    let source = BytesSource::new("input.csv", bytes.clone());
    let whole = plumb.run_source(op, &source, Some("csv"), &Request::default());
    match &whole {
        Ok(answer) => assert_eq!(answer.to_json()["container"], name),
        Err(r) => {
            assert_eq!(r.extra("container").and_then(|v| v.as_str()), Some(name));
            assert!(
                matches!(
                    r.reason(),
                    RefusalReason::ReadError
                        | RefusalReason::Binary
                        | RefusalReason::InvalidUtf8
                        | RefusalReason::UnsupportedFormat
                ),
                "{r:?}"
            );
        }
    }
    let stream = StreamSource::new("input.csv", std::io::Cursor::new(bytes));
    let streamed = plumb.run_source(op, &stream, Some("csv"), &Request::default());
    match (whole, streamed) {
        (Ok(a), Ok(b)) => assert_eq!(a.to_json(), b.to_json()),
        (Err(a), Err(b)) => assert_eq!(a.reason(), b.reason()),
        (a, b) => panic!(
            "a file and a stream disagree: {:?} / {:?}",
            a.map(|x| x.to_json()),
            b.map(|x| x.to_json())
        ),
    }
});
