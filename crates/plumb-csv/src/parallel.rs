//! CSV/TSV validate on several threads: the file is cut into parts at
//! line breaks, each part validated on its own thread, and the counts
//! added.
//!
//! A line break is a record boundary only outside quotes, which a part
//! cannot know on its own. Each part after the first is read as if it
//! started outside quotes (the speculation of the parallel CSV readers),
//! with the dialect the head settled; the guess is right exactly when the
//! part before it ended outside quotes, which that part proves by ending
//! clean: a part that ends inside a quoted field reports an unterminated
//! quote. So the parts' answer is taken only when every part is clean
//! (no issue of any kind, every row as wide as the head's), every part
//! read to its end, and the first part consumed the lines to skip; then
//! every row was read as one thread reads it. Anything else (an issue, a
//! refusal, a quoted line break at a cut, a row cap) sends the file
//! through the one-thread scan, which says where the first fault is. A
//! clean file, the case worth speeding up, pays nothing for that rule.
//!
//! Where the head shows quoted line breaks, the cuts are chosen so that
//! the guess holds: the quote characters before each cut are counted
//! (a thread per part, one pass over the bytes before the last cut) and
//! a line feed is a cut only where their number is even. Without them
//! most cuts of such a file would land inside a field and every scan
//! would run twice.

#[cfg(doc)]
use plumb_core::ScanBounds;
use plumb_core::{text_stream, Refusal, Source, SCAN_MAX_PARTS};

use crate::detect::DELIMITER_SAMPLE_BYTES;
use crate::report::{CsvValidate, ValidateSink};
use crate::scan::{scan, scan_resolved, HeaderMode, Resolved, ScanSummary};
use crate::{CsvFormat, CsvOptions};

/// Files smaller than this are validated on one thread.
pub const CSV_PARALLEL_MIN_BYTES: u64 = 16 << 20;

/// Line feeds the first 64 KiB must hold for a file to be split: wider
/// records are read on one thread.
pub const CSV_PARALLEL_MIN_HEAD_LINES: usize = 16;

/// How far past a part's nominal start a line break is looked for.
const CUT_SEARCH_BYTES: u64 = 4 << 20;

/// The first part is at least this long, so that it holds the whole
/// head the dialect and the preamble are read from.
const FIRST_PART_MIN_BYTES: u64 = 1 << 20;

/// Validates `source` on [`ScanBounds::thread_count`] threads when it is
/// a file of at least [`CSV_PARALLEL_MIN_BYTES`] with random access and
/// no row cap applies; otherwise on one thread. The answer is the same
/// either way.
///
/// # Errors
/// The source's refusals, as a one-thread scan gives them.
pub fn validate_source(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
) -> Result<CsvValidate, Refusal> {
    let threads = opts.scan.thread_count();
    let big = source.len().is_some_and(|l| l >= CSV_PARALLEL_MIN_BYTES);
    if threads > 1 && big {
        if let Some(answer) = validate_in_parts(source, format, opts, threads)? {
            return Ok(answer);
        }
    }
    crate::validate(text_stream(source)?, format, opts)
}

/// Validates `source` in up to `parts` parts (at most [`SCAN_MAX_PARTS`])
/// on as many threads; `None`
/// when the parts cannot give the answer (see the module's header), for
/// the caller to scan on one thread. Public so that tests can cut small
/// files into many parts: the first part is still at least 1 MiB.
///
/// # Errors
/// A read error while reading the head or looking for cut points.
pub fn validate_in_parts(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
    parts: usize,
) -> Result<Option<CsvValidate>, Refusal> {
    let Some(len) = source.len() else {
        return Ok(None);
    };
    if opts.scan.max_rows.is_some() || parts < 2 {
        return Ok(None);
    }
    // The dialect as the first part will settle it, read here from the
    // same head so that the later parts can start at once.
    let mut head = text_stream(source)?;
    let mut sample = Vec::new();
    let mut eof = false;
    while sample.len() < DELIMITER_SAMPLE_BYTES {
        match head.next_chunk()? {
            Some(chunk) => sample.extend_from_slice(chunk.text.as_bytes()),
            None => {
                eof = true;
                break;
            }
        }
    }
    drop(head);
    let asked = format.dialect(opts);
    let resolved = Resolved::detect(&sample, eof, asked);
    let later = resolved.for_later_part();
    // Quoted line breaks in the head: cut where the quotes before the cut
    // are even in number, or most cuts would land inside a field.
    let parity = resolved.quote.filter(|&q| quoted_line_break(&sample, q));
    // Records of kilobytes and more gain nothing from parts, and each
    // part would hold its own: a head of fewer than
    // [`CSV_PARALLEL_MIN_HEAD_LINES`] lines is read on one thread.
    if memchr::memchr_iter(b'\n', &sample).count() < CSV_PARALLEL_MIN_HEAD_LINES {
        return Ok(None);
    }
    drop(sample);
    let parts = parts.min(SCAN_MAX_PARTS);
    let Some(cuts) = cut_points(source, len, parts, parity)? else {
        return Ok(None);
    };

    let results: Vec<Option<(ScanSummary, u64)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = cuts
            .windows(2)
            .map(|w| {
                let (start, end) = (w[0], w[1]);
                let later = later.clone();
                scope.spawn(move || {
                    let mut sink = ValidateSink::default();
                    let stream = plumb_core::part_stream(source, start, end);
                    let summary = if start == 0 {
                        scan(stream, asked, opts.header, None, &mut sink)
                    } else {
                        scan_resolved(
                            stream,
                            (Vec::new(), None),
                            later,
                            HeaderMode::Absent,
                            None,
                            &mut sink,
                        )
                    };
                    summary.ok().map(|s| (s, sink.issue_count()))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().ok().flatten())
            .collect()
    });

    let mut merged: Option<ScanSummary> = None;
    for part in results {
        let Some((s, issues)) = part else {
            return Ok(None);
        };
        if issues > 0 || s.stopped || s.ragged_rows > 0 {
            return Ok(None);
        }
        match merged.as_mut() {
            None => {
                // The head must be the one read above, its lines to skip
                // all inside the first part, its width known.
                let same = s.delimiter == resolved.delimiter
                    && s.runs == resolved.runs
                    && s.quote == resolved.quote
                    && s.comment == resolved.comment
                    && s.skipped_lines == resolved.skip_lines
                    && s.width.is_some();
                if !same {
                    return Ok(None);
                }
                merged = Some(s);
            }
            Some(m) => {
                if s.width.is_some_and(|w| Some(w) != m.width) {
                    return Ok(None);
                }
                m.rows += s.rows;
                m.blank_lines += s.blank_lines;
                m.comment_lines += s.comment_lines;
                m.endings.lf += s.endings.lf;
                m.endings.crlf += s.endings.crlf;
                m.endings.cr += s.endings.cr;
            }
        }
    }
    Ok(merged.map(|m| ValidateSink::default().finish(format.name(), &m)))
}

/// Whether a line feed of `sample` lies inside quotes.
fn quoted_line_break(sample: &[u8], quote: u8) -> bool {
    let mut inside = false;
    for &b in sample {
        if b == quote {
            inside = !inside;
        } else if b == b'\n' && inside {
            return true;
        }
    }
    false
}

/// Reads `from..to` of the source in blocks, handing each to `each`
/// with its offset until it returns false; false on a read error or
/// without random access.
fn read_blocks(
    source: &dyn Source,
    from: u64,
    to: u64,
    mut each: impl FnMut(u64, &[u8]) -> bool,
) -> Result<bool, Refusal> {
    let mut buf = vec![0u8; 1 << 16];
    let mut at = from;
    while at < to {
        let want = buf
            .len()
            .min(usize::try_from(to - at).unwrap_or(usize::MAX));
        let n = match source.read_at(at, &mut buf[..want]) {
            None => return Ok(false),
            Some(Ok(0)) => return Ok(true),
            Some(Ok(n)) => n,
            Some(Err(e)) => return Err(Refusal::from_io(&e, Some(source.name()))),
        };
        if !each(at, &buf[..n]) {
            return Ok(true);
        }
        at += n as u64;
    }
    Ok(true)
}

/// The part boundaries: 0, the byte after a line feed near each
/// `len * k / parts` (the first at least [`FIRST_PART_MIN_BYTES`] in),
/// and `len`; strictly increasing. With `parity`, a line feed counts only
/// where the quote characters before it are even in number (counted on
/// as many threads as there are cuts). `None` without random access or
/// when no cut is found.
fn cut_points(
    source: &dyn Source,
    len: u64,
    parts: usize,
    parity: Option<u8>,
) -> Result<Option<Vec<u64>>, Refusal> {
    let mut nominal: Vec<u64> = Vec::new();
    for k in 1..parts as u64 {
        let at = ((len / parts as u64) * k).max(FIRST_PART_MIN_BYTES);
        if at < len && nominal.last().is_none_or(|&l| at > l) {
            nominal.push(at);
        }
    }
    // The quotes before each nominal point, odd or even.
    let mut odd = vec![false; nominal.len()];
    if let Some(q) = parity {
        let counts: Vec<Result<Option<u64>, Refusal>> = std::thread::scope(|scope| {
            let handles: Vec<_> = nominal
                .iter()
                .enumerate()
                .map(|(i, &to)| {
                    let from = if i == 0 { 0 } else { nominal[i - 1] };
                    scope.spawn(move || {
                        let mut n = 0u64;
                        let ok = read_blocks(source, from, to, |_, block| {
                            n += block.iter().filter(|&&b| b == q).count() as u64;
                            true
                        })?;
                        Ok(ok.then_some(n))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or(Ok(None)))
                .collect()
        });
        let mut total = 0u64;
        for (slot, count) in odd.iter_mut().zip(counts) {
            let Some(n) = count? else {
                return Ok(None);
            };
            total += n;
            *slot = total % 2 == 1;
        }
    }
    let mut cuts = vec![0u64];
    for (&start, &odd_before) in nominal.iter().zip(&odd) {
        let last = *cuts.last().unwrap_or(&0);
        let from = start.max(last);
        let limit = from.saturating_add(CUT_SEARCH_BYTES).min(len);
        // Quotes between the nominal point and `from` (when an earlier
        // cut ran past it) would change the parity: no cut then.
        if from != start && parity.is_some() {
            continue;
        }
        let mut inside = odd_before;
        let mut cut = None;
        let readable = read_blocks(source, from, limit, |at, block| {
            for (i, &b) in block.iter().enumerate() {
                if Some(b) == parity {
                    inside = !inside;
                } else if b == b'\n' && !inside {
                    cut = Some(at + i as u64 + 1);
                    return false;
                }
            }
            true
        })?;
        if !readable {
            return Ok(None);
        }
        if let Some(c) = cut.filter(|&c| c < len && c > last) {
            cuts.push(c);
        }
    }
    if cuts.len() == 1 {
        return Ok(None);
    }
    cuts.push(len);
    Ok(Some(cuts))
}
