//! Delimiter detection: which candidate splits the sample most
//! consistently.
//!
//! Each candidate parses the sample with the real parser (fields not
//! kept). The modal field count is found, and the candidate scores the
//! number of records that share it. A candidate whose records never have
//! two fields is out. The highest score wins; ties go to the earlier
//! candidate (comma first). When no candidate splits anything, the file
//! is one column, read with the comma, at confidence 0.

use std::collections::HashMap;
use std::ops::ControlFlow;

use crate::machine::{CsvParser, CsvSink, Record};

/// The delimiters tried, in tie-break order.
pub const CSV_DELIMITER_CANDIDATES: [u8; 4] = [b',', b'\t', b';', b'|'];

/// How much text is held back to detect the delimiter: a few hundred
/// records of a typical file, parsed four times in well under a
/// millisecond, and then fed to the real parse (never parsed twice).
pub const DELIMITER_SAMPLE_BYTES: usize = 64 * 1024;

/// The outcome of delimiter detection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Detection {
    /// The chosen delimiter.
    pub delimiter: u8,
    /// The share of sampled records that have the modal field count, 0
    /// when no candidate split the sample.
    pub confidence: f64,
}

struct Counts(Vec<usize>);

impl CsvSink for Counts {
    fn keep_fields(&self) -> bool {
        false
    }
    fn record(&mut self, record: &Record<'_>) -> ControlFlow<()> {
        self.0.push(record.len());
        ControlFlow::Continue(())
    }
}

/// Detects the delimiter of `sample`. When `complete` is false the
/// sample was cut from a longer file, so its last record is left out.
///
/// ```
/// use plumb_csv::detect_delimiter;
/// let d = detect_delimiter(b"a;b;c\n1;2;3\n4;5;6\n", true);
/// assert_eq!(d.delimiter, b';');
/// assert_eq!(d.confidence, 1.0);
/// let one = detect_delimiter(b"words\nmore words\n", true);
/// assert_eq!((one.delimiter, one.confidence), (b',', 0.0));
/// ```
pub fn detect_delimiter(sample: &[u8], complete: bool) -> Detection {
    let mut best: Option<(usize, usize, u8)> = None;
    for &candidate in &CSV_DELIMITER_CANDIDATES {
        let mut counts = Counts(Vec::new());
        let mut parser = CsvParser::new(candidate);
        let _ = parser.push(sample, &mut counts);
        if complete {
            let _ = parser.finish(&mut counts);
        }
        let records = counts.0;
        if records.iter().all(|&n| n < 2) {
            continue;
        }
        let mut freq: HashMap<usize, usize> = HashMap::new();
        for &n in &records {
            *freq.entry(n).or_default() += 1;
        }
        // The modal count; among equally frequent counts the larger one,
        // so a header-plus-rows file is not judged by stray short lines.
        let (mode, score) = freq
            .into_iter()
            .max_by_key(|&(count, times)| (times, count))
            .unwrap_or((0, 0));
        if mode < 2 {
            continue;
        }
        if best.is_none_or(|(s, _, _)| score > s) {
            best = Some((score, records.len(), candidate));
        }
    }
    match best {
        Some((score, total, delimiter)) => Detection {
            delimiter,
            confidence: score as f64 / total.max(1) as f64,
        },
        None => Detection {
            delimiter: b',',
            confidence: 0.0,
        },
    }
}
