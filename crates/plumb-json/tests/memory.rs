//! Memory bounds under a counting allocator, in a binary of their own.

use std::io::Read;

use plumb_core::ScanBounds;
use plumb_core::TextStream;
use plumb_json::inspect;

#[global_allocator]
static ALLOC: plumb_testkit::CountingAlloc = plumb_testkit::CountingAlloc;

/// A generated array of records, produced as it is read.
struct Records {
    emitted: usize,
    total: usize,
    i: u64,
    pending: Vec<u8>,
    closed: bool,
}

impl Read for Records {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pending.is_empty() {
            if self.closed {
                return Ok(0);
            }
            self.pending = if self.i == 0 {
                b"[".to_vec()
            } else if self.emitted >= self.total {
                self.closed = true;
                b"{\"end\": true}]".to_vec()
            } else {
                format!(
                    "{{\"id\": {}, \"name\": \"record {}\", \"k{}\": [1, 2.5, null]}},",
                    self.i,
                    self.i,
                    self.i % 50
                )
                .into_bytes()
            };
            self.i += 1;
        }
        let n = self.pending.len().min(buf.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        self.emitted += n;
        Ok(n)
    }
}

#[test]
fn inspecting_a_256_mb_array_keeps_peak_heap_under_16_mib() {
    let source = Records {
        emitted: 0,
        total: 256 * 1024 * 1024,
        i: 0,
        pending: Vec::new(),
        closed: false,
    };
    let (report, peak) = plumb_testkit::peak_during(|| {
        inspect(TextStream::new(source), &ScanBounds::default()).unwrap()
    });
    assert!(peak < 16 * 1024 * 1024, "peak live heap {peak} bytes");
    assert!(report.count > 3_000_000, "{}", report.count);
    assert_eq!(report.keys.len(), 53);
    assert_eq!(report.view.label(), "exact");
}
