//! Memory bounds, measured with a counting allocator in a binary of
//! their own (the counters are process-wide).

use std::io::Read;

use plumb_core::TextStream;
use plumb_csv::{inspect, CsvFormat, CsvOptions};

#[global_allocator]
static ALLOC: plumb_testkit::CountingAlloc = plumb_testkit::CountingAlloc;

/// The counters are process-wide: the tests here take turns.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

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
    let _turn = serial();
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

/// A CSV of `cols` columns (a header and `rows` data rows), produced as
/// it is read, never held.
struct Wide {
    cols: usize,
    rows: usize,
    row: usize,
    col: usize,
    pending: Vec<u8>,
}

impl Wide {
    fn new(cols: usize, rows: usize) -> Wide {
        Wide {
            cols,
            rows,
            row: 0,
            col: 0,
            pending: Vec::new(),
        }
    }
}

impl Read for Wide {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.pending.len() < buf.len() && self.row <= self.rows {
            if self.col > 0 {
                self.pending.push(b',');
            }
            if self.row == 0 {
                self.pending
                    .extend_from_slice(format!("c{}", self.col).as_bytes());
            } else {
                self.pending.push(b'0' + (self.col % 10) as u8);
            }
            self.col += 1;
            if self.col == self.cols {
                self.pending.push(b'\n');
                self.col = 0;
                self.row += 1;
            }
        }
        let n = self.pending.len().min(buf.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Ok(n)
    }
}

/// The peak live heap of each operation on a CSV of `cols` columns.
fn wide_peaks(cols: usize) -> [(&'static str, usize); 3] {
    use plumb_csv::{select, validate, ColumnRef, SelectOptions};
    let opts = CsvOptions::default();
    let (inspected, inspect_peak) = plumb_testkit::peak_during(|| {
        inspect(TextStream::new(Wide::new(cols, 2)), CsvFormat::Csv, &opts).unwrap()
    });
    assert!(inspected.columns.len() <= plumb_core::COLUMN_TRACK_CAP);
    assert!(inspected
        .sample
        .iter()
        .all(|r| r.len() <= plumb_core::COLUMN_TRACK_CAP));
    // A projection needs a row that was not dropped at the record cap.
    let window = SelectOptions {
        offset: 0,
        limit: Some(2),
        columns: (cols <= 1_000_000).then(|| ColumnRef::parse_list("1,3")),
    };
    let (_, select_peak) = plumb_testkit::peak_during(|| {
        select(
            TextStream::new(Wide::new(cols, 2)),
            CsvFormat::Csv,
            &opts,
            &window,
        )
        .unwrap()
    });
    let (_, validate_peak) = plumb_testkit::peak_during(|| {
        validate(TextStream::new(Wide::new(cols, 2)), CsvFormat::Csv, &opts).unwrap()
    });
    [
        ("inspect", inspect_peak),
        ("select", select_peak),
        ("validate", validate_peak),
    ]
}

#[test]
fn memory_is_bounded_by_the_caps_whatever_the_column_count() {
    let _turn = serial();
    // Live heap counts capacity, not touched pages. Its bound is the
    // record cap: the header decision holds the first record while the
    // second is parsed, and a growing buffer may hold up to twice its
    // content. (The release binary's peak RSS on the same inputs stays
    // under 32 MiB; `cargo xtask memtest` measures it.)
    let bound = 3 * plumb_csv::CSV_MAX_RECORD_BYTES;
    let mut peaks = Vec::new();
    for cols in [10_000, 1_000_000, 5_000_000] {
        for (op, peak) in wide_peaks(cols) {
            eprintln!("{op} of {cols} columns: peak live heap {peak} bytes");
            assert!(peak < bound, "{op} of {cols} columns: {peak} bytes");
            if cols == 10_000 {
                // Within the tracking cap: 10,000 columns in 32 MiB.
                assert!(peak < 32 * 1024 * 1024, "{op}: {peak} bytes");
            }
        }
        peaks.push(wide_peaks(cols));
    }
    // Past the tracking cap, more columns add no cost per column: 5
    // million columns take little more than 1 million (the record cap
    // bounds both).
    for ((op, a), (_, b)) in peaks[1].iter().zip(peaks[2].iter()) {
        assert!(*b <= a + a / 2, "{op}: {a} bytes at 1M columns, {b} at 5M");
    }
}
