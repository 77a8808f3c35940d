//! Reading a hit's row back: a search over a source with random access
//! judges cells as they pass and keeps only each hit's byte range; the
//! cells of the few hits returned are parsed again from those bytes, in
//! the dialect the scan read with, up to [`CSV_SEARCH_FETCH_BYTES`].

use std::ops::ControlFlow;

use plumb_core::{Refusal, Source};

use crate::machine::{CsvParser, CsvSink, Record};
use crate::scan::ScanSummary;

use super::search::{SearchSink, CSV_SEARCH_FETCH_BYTES};

/// The first record of some bytes, its cells kept.
#[derive(Default)]
struct FirstRecord {
    got: Option<(u64, u64, Vec<u8>, Vec<u32>)>,
}

impl CsvSink for FirstRecord {
    fn record(&mut self, r: &Record<'_>) -> ControlFlow<()> {
        let mut data = Vec::new();
        let mut ends = Vec::with_capacity(r.len());
        for i in 0..r.len() {
            data.extend_from_slice(r.get(i).unwrap_or_default());
            ends.push(u32::try_from(data.len()).unwrap_or(u32::MAX));
        }
        self.got = Some((r.number, r.line, data, ends));
        ControlFlow::Break(())
    }
}

/// Reads each hit's cells back from its byte range in `source`, parsed
/// in the dialect the scan read with.
///
/// # Errors
/// `read-error` when the source cannot be read there.
pub(crate) fn fetch_hits(
    sink: &mut SearchSink,
    source: &dyn Source,
    s: &ScanSummary,
) -> Result<(), Refusal> {
    for (hit, at, end) in std::mem::take(&mut sink.to_fetch) {
        let full = end
            .or(source.len())
            .map_or(CSV_SEARCH_FETCH_BYTES as u64, |e| e.saturating_sub(at));
        let len = usize::try_from(full)
            .unwrap_or(usize::MAX)
            .min(CSV_SEARCH_FETCH_BYTES);
        let Some(bytes) = source.read_range(at, len) else {
            continue;
        };
        let bytes = bytes?;
        let mut parser = CsvParser::new(s.delimiter)
            .with_quote(s.quote)
            .with_delimiter_runs(s.runs)
            .with_comment(s.comment)
            .with_base_offset(at);
        let mut first = FirstRecord::default();
        if parser.push(&bytes, &mut first).is_continue() {
            let _ = parser.finish(&mut first);
        }
        if let Some((number, line, data, ends)) = first.got {
            let record = Record::from_parts(number, line, at, &data, &ends);
            sink.fill(hit, &record, len as u64 >= full);
        }
    }
    Ok(())
}
