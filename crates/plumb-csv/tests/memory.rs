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

/// A CSV of `cols` columns and `rows` records whose cells `cell(row,
/// col)` writes, produced as it is read, never held.
struct Wide {
    cols: usize,
    rows: usize,
    cell: fn(usize, usize, &mut Vec<u8>),
    row: usize,
    col: usize,
    pending: Vec<u8>,
}

impl Wide {
    /// A header of names (`c0`, `c1`, ...) and `rows` rows of digits.
    fn new(cols: usize, rows: usize) -> Wide {
        Wide::of(cols, rows + 1, |row, col, out| {
            if row == 0 {
                out.extend_from_slice(format!("c{col}").as_bytes());
            } else {
                out.push(b'0' + (col % 10) as u8);
            }
        })
    }

    fn of(cols: usize, rows: usize, cell: fn(usize, usize, &mut Vec<u8>)) -> Wide {
        Wide {
            cols,
            rows,
            cell,
            row: 0,
            col: 0,
            pending: Vec::new(),
        }
    }
}

impl Read for Wide {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.pending.len() < buf.len() && self.row < self.rows {
            if self.col > 0 {
                self.pending.push(b',');
            }
            (self.cell)(self.row, self.col, &mut self.pending);
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
        window: plumb_core::Window {
            offset: Some(0),
            limit: Some(2),
            from_end: None,
        },
        columns: (cols <= 1_000_000).then(|| "1,3".split(',').map(ColumnRef::parse).collect()),
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
    // record cap: one record is held at a time (the header decision
    // keeps the first record's own buffers, and only until a second one
    // begins), and a buffer grown by doubling may hold up to twice its
    // content. (The release binary's peak RSS on the same inputs stays
    // under 32 MiB; `cargo xtask memtest` measures it.)
    let bound = 3 * plumb_csv::CSV_MAX_RECORD_BYTES;
    let mut peaks = Vec::new();
    for cols in [10_000, 1_000_000, 5_000_000, 10_000_000] {
        let found = wide_peaks(cols);
        for (op, peak) in found {
            eprintln!("{op} of {cols} columns: peak live heap {peak} bytes");
            assert!(peak < bound, "{op} of {cols} columns: {peak} bytes");
            if op == "inspect" {
                // Inspect holds only the first record whole (for the
                // header decision): its sample rows are cut as their
                // cells pass, and the parser gives back the buffers a
                // long record grew before the next one grows the others.
                let whole = 2 * plumb_csv::CSV_MAX_RECORD_BYTES;
                assert!(peak < whole, "inspect of {cols} columns: {peak} bytes");
            }
            if cols == 10_000 {
                // Within the tracking cap: 10,000 columns in 32 MiB.
                assert!(peak < 32 * 1024 * 1024, "{op}: {peak} bytes");
            }
        }
        peaks.push(found);
    }
    // Past the record cap (5 and 10 million columns both pass it), more
    // columns add nothing at all: twice the columns, the same peak.
    for ((op, a), (_, b)) in peaks[2].iter().zip(peaks[3].iter()) {
        assert!(
            *b <= a + a / 10,
            "{op}: {a} bytes at 5M columns, {b} at 10M"
        );
    }
}

/// Records as near the record cap as fields under the field cap come: a
/// header of names, then data rows whose cells are `unit` repeated.
fn fat_records(unit: u8, rows: usize) -> Vec<u8> {
    let field = plumb_csv::CSV_MAX_FIELD_BYTES - 8 * 1024;
    let fields = plumb_csv::CSV_MAX_RECORD_BYTES / (field + 1 + plumb_csv::FIELD_END_COST);
    let mut out = Vec::new();
    for row in 0..=rows {
        let cell = vec![if row == 0 { b'h' } else { unit }; field];
        for f in 0..fields {
            if f > 0 {
                out.push(b',');
            }
            out.extend_from_slice(&cell);
        }
        out.push(b'\n');
    }
    out
}

#[test]
fn records_at_the_cap_are_held_once_not_twice() {
    let _turn = serial();
    let record = plumb_csv::CSV_MAX_RECORD_BYTES;
    for unit in [b'v', b'7'] {
        let file = fat_records(unit, 3);
        let opts = CsvOptions::default();
        let stream = || TextStream::new(std::io::BufReader::new(&file[..]));
        let (report, inspect_peak) =
            plumb_testkit::peak_during(|| inspect(stream(), CsvFormat::Csv, &opts).unwrap());
        // Every record was read whole: a header and three rows.
        assert_eq!(report.row_count, Some(3));
        assert!(report.header.is_some());
        assert_eq!(report.issue_count, 0);
        let window = plumb_csv::SelectOptions {
            window: plumb_core::Window {
                offset: Some(0),
                limit: Some(10),
                from_end: None,
            },
            columns: None,
        };
        let (selected, select_peak) = plumb_testkit::peak_during(|| {
            plumb_csv::select(stream(), CsvFormat::Csv, &opts, &window).unwrap()
        });
        // The first row is cut to the budget; the next does not fit.
        assert_eq!(selected.rows.len(), 1);
        assert!(selected.window.has_more && selected.shortened);
        let (_, validate_peak) = plumb_testkit::peak_during(|| {
            plumb_csv::validate(stream(), CsvFormat::Csv, &opts).unwrap()
        });
        for (op, peak) in [
            ("inspect", inspect_peak),
            ("select", select_peak),
            ("validate", validate_peak),
        ] {
            eprintln!(
                "{op} of records at the cap ({}): peak live heap {peak} bytes",
                unit as char
            );
            // One record (in a buffer grown by doubling) and the caps'
            // bounded state; holding the first record while the second
            // is read would take twice the record cap.
            assert!(
                peak < record + record / 2,
                "{op} ({}): {peak} bytes",
                unit as char
            );
        }
    }
}

#[test]
fn tracked_columns_of_long_text_stay_within_their_budget() {
    let _turn = serial();
    // Text of 600 bytes that differs in every cell, so every column
    // keeps five samples and every sample row its whole budget.
    let source = Wide::of(plumb_core::COLUMN_TRACK_CAP, 12, |row, col, out| {
        let tag = format!("{col:06}{row:04}");
        out.extend(std::iter::repeat_n(
            b'a' + (row % 26) as u8,
            600 - tag.len(),
        ));
        out.extend_from_slice(tag.as_bytes());
    });
    let opts = CsvOptions {
        scan: plumb_core::ScanBounds {
            sample_rows: Some(100),

            ..Default::default()
        },
        ..CsvOptions::default()
    };
    let (report, peak) = plumb_testkit::peak_during(|| {
        inspect(TextStream::new(source), CsvFormat::Csv, &opts).unwrap()
    });
    eprintln!("inspect of 10,000 columns of 600-byte text: peak live heap {peak} bytes");
    assert_eq!(report.columns.len(), plumb_core::COLUMN_TRACK_CAP);
    assert_eq!(
        report.columns[9_999].samples.len(),
        plumb_core::SAMPLE_VALUES_CAP
    );
    assert!(report.sample_shortened);
    // Samples, header and sample rows all cut to the text caps: the
    // same input kept 512 bytes of everything once and peaked past
    // 70 MiB.
    assert!(peak < 24 * 1024 * 1024, "peak live heap {peak} bytes");
}

/// Statistics keep a fixed budget per column, for the first
/// `STATS_MAX_COLUMNS` columns: ten thousand columns of distinct values
/// (every sketch at its largest) and a few columns of millions of
/// distinct values stay within the stated budgets.
#[test]
fn stats_memory_is_a_budget_per_column_not_a_function_of_the_data() {
    let _turn = serial();
    let opts = CsvOptions {
        stats: true,
        ..CsvOptions::default()
    };
    // Distinct numbers and text in every cell: each column's sketches
    // fill (past the exact set, every top counter taken).
    let distinct = |row: usize, col: usize, out: &mut Vec<u8>| {
        if row == 0 {
            out.extend_from_slice(format!("c{col}").as_bytes());
        } else if col.is_multiple_of(2) {
            out.extend_from_slice(format!("{}", row * 7919 + col).as_bytes());
        } else {
            out.extend_from_slice(format!("v{row}x{col}").as_bytes());
        }
    };
    let (report, peak) = plumb_testkit::peak_during(|| {
        inspect(
            TextStream::new(Wide::of(10_000, 700, distinct)),
            CsvFormat::Csv,
            &opts,
        )
        .unwrap()
    });
    let (_, plain) = plumb_testkit::peak_during(|| {
        let plain = CsvOptions::default();
        inspect(
            TextStream::new(Wide::of(10_000, 700, distinct)),
            CsvFormat::Csv,
            &plain,
        )
        .unwrap()
    });
    assert_eq!(report.columns.len(), 10_000);
    let cap = plumb_stats::STATS_MAX_COLUMNS;
    let last = report.columns[cap - 1].stats.as_ref().unwrap();
    assert_ne!(last.accuracy["distinct"], plumb_stats::Accuracy::Exact);
    assert!(report.columns[cap..].iter().all(|c| c.stats.is_none()));
    assert_eq!(report.columns_without_stats, (10_000 - cap) as u64);
    let added = peak.saturating_sub(plain);
    eprintln!(
        "10,000 columns: peak live heap {plain} bytes plain, {peak} with stats ({added} added)"
    );
    // The statistics of the columns that keep them, within their stated
    // budgets: a total divided among the columns, whatever their number.
    assert!(
        added < plumb_stats::stats_bytes(10_000),
        "{added} bytes added"
    );

    let few = |row: usize, col: usize, out: &mut Vec<u8>| {
        if row == 0 {
            out.extend_from_slice(format!("c{col}").as_bytes());
        } else {
            out.extend_from_slice(format!("{}.{}", row * 31 + col, row % 97).as_bytes());
        }
    };
    let peaks = |rows: usize| {
        let (stats, with) = plumb_testkit::peak_during(|| {
            inspect(
                TextStream::new(Wide::of(4, rows, few)),
                CsvFormat::Csv,
                &opts,
            )
            .unwrap()
        });
        assert_eq!(stats.row_count, Some(rows as u64 - 1));
        assert!(stats.columns[0].stats.is_some());
        let (_, without) = plumb_testkit::peak_during(|| {
            let plain = CsvOptions::default();
            inspect(
                TextStream::new(Wide::of(4, rows, few)),
                CsvFormat::Csv,
                &plain,
            )
            .unwrap()
        });
        with.saturating_sub(without)
    };
    let (small, large) = (peaks(20_000), peaks(2_000_000));
    eprintln!("stats of 4 columns: {small} bytes at 20,000 rows, {large} at 2,000,000");
    // A hundred times the rows, the same memory for the statistics (a
    // KLL level per doubling is the one growth: a few bytes each).
    assert!(large < small + 16 * 1024, "{small} -> {large}");
    assert!(
        large < plumb_stats::stats_bytes(4),
        "{large} bytes for four full budgets"
    );
}
