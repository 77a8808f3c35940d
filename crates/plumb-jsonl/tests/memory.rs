//! Memory bound for an oversized line, under a counting allocator.

use std::io::Read;

use plumb_core::ScanBounds;
use plumb_core::TextStream;
use plumb_jsonl::inspect;

#[global_allocator]
static ALLOC: plumb_testkit::CountingAlloc = plumb_testkit::CountingAlloc;

/// A 64 MB JSON array on one line, then two records.
struct BigThenRecords {
    emitted: usize,
    total: usize,
    tail: &'static [u8],
}

impl Read for BigThenRecords {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.emitted == 0 && !buf.is_empty() {
            buf[0] = b'[';
            self.emitted = 1;
            return Ok(1);
        }
        if self.emitted < self.total {
            let n = buf.len().min(self.total - self.emitted);
            for (i, b) in buf[..n].iter_mut().enumerate() {
                *b = if (self.emitted + i).is_multiple_of(2) {
                    b','
                } else {
                    b'7'
                };
            }
            self.emitted += n;
            return Ok(n);
        }
        let n = self.tail.len().min(buf.len());
        buf[..n].copy_from_slice(&self.tail[..n]);
        self.tail = &self.tail[n..];
        Ok(n)
    }
}

#[test]
fn a_64_mb_line_is_skipped_without_being_held() {
    let source = BigThenRecords {
        emitted: 0,
        total: 64 * 1024 * 1024,
        tail: b"7]\n{\"a\": 1}\n{\"b\": 2}\n",
    };
    let (report, peak) = plumb_testkit::peak_during(|| {
        inspect(TextStream::new(source), &ScanBounds::default()).unwrap()
    });
    assert!(peak < 16 * 1024 * 1024, "peak live heap {peak} bytes");
    assert_eq!(report.rows_scanned, 3);
    assert_eq!(report.invalid[0].line, 1);
    assert!(report.invalid[0].message.contains("format json"));
    assert_eq!(report.root_types.get("object"), Some(&2));
}
