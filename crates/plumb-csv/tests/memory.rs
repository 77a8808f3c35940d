//! Memory bounds, measured with a counting allocator in a binary of
//! their own (the counters are process-wide).

use std::io::Read;

use plumb_core::TextStream;
use plumb_csv::{inspect, CsvFormat, CsvOptions};

#[global_allocator]
static ALLOC: plumb_testkit::CountingAlloc = plumb_testkit::CountingAlloc;

/// Generates a CSV with a runaway quote on line 3, `total` bytes long,
/// without holding it: rows are produced as they are read.
struct Runaway {
    emitted: usize,
    total: usize,
    row: u64,
    pending: Vec<u8>,
}

impl Read for Runaway {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pending.is_empty() {
            if self.emitted >= self.total {
                return Ok(0);
            }
            self.row += 1;
            let line = match self.row {
                1 => "id,text\n".to_owned(),
                3 => "3,\"runaway quote starts here\n".to_owned(),
                n => format!("{n},plain row number {n}\n"),
            };
            self.pending = line.into_bytes();
        }
        let n = self.pending.len().min(buf.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        self.emitted += n;
        Ok(n)
    }
}

#[test]
fn a_64_mb_runaway_quote_stays_under_16_mib_and_rows_after_it_parse() {
    let total = 64 * 1024 * 1024;
    let source = Runaway {
        emitted: 0,
        total,
        row: 0,
        pending: Vec::new(),
    };
    let (report, peak) = plumb_testkit::peak_during(|| {
        inspect(
            TextStream::new(source),
            CsvFormat::Csv,
            &CsvOptions::default(),
        )
        .unwrap()
    });
    assert!(peak < 16 * 1024 * 1024, "peak live heap {peak} bytes");
    assert_eq!(report.issues[0].kind.as_str(), "field-too-large");
    assert_eq!(report.issues[0].record, 3);
    // Rows after the runaway record parse: almost all of the file's rows
    // are counted, and they are well formed two-column rows.
    assert!(
        report.row_count.unwrap() > 2_000_000,
        "{:?}",
        report.row_count
    );
    assert_eq!(report.columns.len(), 2);
    assert_eq!(report.ragged_rows, 0);
}
