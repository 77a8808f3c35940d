//! The last rows of a table (`offset: -N`), read backwards from the end.
//!
//! The head is read once for the dialect and the header; then
//! [`plumb_core::last_lines_start`] finds a record boundary far enough
//! back (a line break with an even number of quotes after it, the file
//! ending outside quotes), and the rows after it are parsed forward as a
//! headerless table of the same dialect. The boundary is trusted only
//! when that parse holds: no issue at all (a wrong guess about quotes
//! shows as a stray quote or a row of the wrong width), more rows than
//! asked for (so the first row of the slice, which might be the header,
//! is never returned), and every returned row as wide as the header. If
//! any of that fails, or the source cannot be read backwards (a stream, a
//! decoded layer), or the file has comments (a comment line may hold an
//! odd quote), the tail is read from the start instead: exact, and as
//! slow as a validate.
//!
//! Reference: a scan from the start. Held equal by:
//! `tests/it/tail.rs::random_tails_match_the_csv_crate` (and
//! `the_last_rows_agree_with_python_csv`).

use plumb_core::{
    clamp_limit, last_lines_start, text_stream, Refusal, SliceSource, Source, TailStart, Window,
};

use super::select::{ColumnRef, CsvSelect};
use crate::{CsvFormat, CsvOptions, HeaderMode, QuoteMode, SelectOptions};

/// The bytes read from the start to find where the data rows begin.
const DATA_START_SCAN_BYTES: usize = 1024 * 1024;

/// Selects the rows that start `n` rows before the end (at most the
/// window's limit of them).
///
/// # Errors
/// As [`crate::select`].
pub fn select_last(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
    window: &SelectOptions,
    n: u64,
) -> Result<CsvSelect, Refusal> {
    let limit = clamp_limit(window.window.limit);
    let head = crate::select(
        text_stream(source)?,
        format,
        opts,
        &SelectOptions {
            window: Window {
                offset: Some(0),
                limit: Some(1),
                from_end: None,
            },
            columns: window.columns.clone(),
        },
    )?;
    if let Some(tail) = backwards(source, format, &head, n, limit)? {
        return Ok(tail);
    }
    from_the_start(source, format, opts, window, n, limit)
}

/// The exact way: count the rows, then select the window by offset.
fn from_the_start(
    source: &dyn Source,
    format: CsvFormat,
    opts: &CsvOptions,
    window: &SelectOptions,
    n: u64,
    limit: usize,
) -> Result<CsvSelect, Refusal> {
    let mut counting = opts.clone();
    counting.scan.max_rows = None;
    let total = crate::validate(text_stream(source)?, format, &counting)?.rows_scanned;
    let from = total.saturating_sub(n);
    let take = (total - from).min(limit as u64);
    let mut sel = crate::select(
        text_stream(source)?,
        format,
        opts,
        &SelectOptions {
            window: Window {
                offset: Some(from),
                limit: Some(take.max(1)),
                from_end: None,
            },
            columns: window.columns.clone(),
        },
    )?;
    sel.window.limit = limit;
    sel.window.has_more = from + (sel.window.returned as u64) < total;
    sel.window.from_end = Some(n);
    Ok(sel)
}

/// The fast way, or None when it cannot be trusted (see the module).
fn backwards(
    source: &dyn Source,
    format: CsvFormat,
    head: &CsvSelect,
    n: u64,
    limit: usize,
) -> Result<Option<CsvSelect>, Refusal> {
    // A small file is read whole: as fast, and its rows keep their numbers.
    let small = source
        .len()
        .is_none_or(|l| l <= DATA_START_SCAN_BYTES as u64);
    if small || head.dialect.comment.is_some() || head.dialect.comment_lines > 0 {
        return Ok(None);
    }
    let quote = match head.dialect.quote.as_str() {
        "none" => None,
        q => q.bytes().next(),
    };
    let Some(data_start) = data_start(source, head, quote)? else {
        return Ok(None);
    };
    let (delimiter, runs) = match crate::dialect::parse_delimiter(&head.dialect.delimiter) {
        Ok(d) => d,
        Err(_) => return Ok(None),
    };
    let slice_opts = CsvOptions {
        delimiter: Some(delimiter),
        delimiter_runs: runs,
        quote: quote.map_or(QuoteMode::Off, QuoteMode::Char),
        comment: None,
        skip_lines: Some(0),
        header: HeaderMode::Absent,
        scan: plumb_core::ScanBounds::default(),
        stats: false,
    };
    let columns = head
        .columns
        .as_ref()
        .map(|c| c.iter().map(|&i| ColumnRef::Index(i as i64)).collect());
    let width = head.header.as_ref().map(Vec::len);
    // One line more than the rows asked for, so the first row of the
    // slice is never one returned; doubled while blank lines make the
    // rows fewer than the lines.
    let mut lines = n.saturating_add(1);
    loop {
        let start = match last_lines_start(source, lines, quote) {
            None => return Ok(None),
            Some(found) => match found? {
                TailStart::At(start) if start >= data_start => start,
                _ => return Ok(None),
            },
        };
        let slice = SliceSource::new(source, start);
        let check = crate::validate(text_stream(&slice)?, format, &slice_opts)?;
        if !check.issues.is_empty() || check.issue_count > 0 {
            return Ok(None);
        }
        let rows = check.rows_scanned;
        if rows <= n {
            lines = lines.saturating_mul(2);
            continue;
        }
        let from = rows - n;
        let take = n.min(limit as u64);
        let mut sel = crate::select(
            text_stream(&slice)?,
            format,
            &slice_opts,
            &SelectOptions {
                window: Window {
                    offset: Some(from),
                    limit: Some(take),
                    from_end: None,
                },
                columns: columns.clone(),
            },
        )?;
        if head.columns.is_none() && width.is_some_and(|w| sel.rows.iter().any(|r| r.len() != w)) {
            return Ok(None);
        }
        sel.header = head.header.clone();
        sel.columns = head.columns.clone();
        sel.dialect = head.dialect.clone();
        sel.issues = head.issues.clone();
        sel.view = sel.view.with_cut(head.view.converted);
        sel.window.offset = None;
        sel.window.limit = limit;
        sel.window.has_more = from + (sel.window.returned as u64) < rows;
        sel.window.from_end = Some(n);
        sel.window.counted_from_end = true;
        return Ok(Some(sel));
    }
}

/// The byte where the data rows begin: after the skipped lines and the
/// header, counted forward from the start (where the quote state is
/// known), within the first [`DATA_START_SCAN_BYTES`]. None past that.
fn data_start(
    source: &dyn Source,
    head: &CsvSelect,
    quote: Option<u8>,
) -> Result<Option<u64>, Refusal> {
    let lines = head.dialect.skipped_lines + u64::from(head.header.is_some());
    if lines == 0 {
        return Ok(Some(0));
    }
    // Read in growing pieces: a header is a line or two, and each read
    // of a remote object is a request of its own.
    let (mut at, mut piece) = (0u64, 16 << 10);
    let (mut inside, mut seen) = (false, 0);
    while at < DATA_START_SCAN_BYTES as u64 {
        let want = piece.min(DATA_START_SCAN_BYTES - at as usize);
        let bytes = match source.read_range(at, want) {
            Some(b) => b?,
            None => return Ok(None),
        };
        for (i, &b) in bytes.iter().enumerate() {
            if Some(b) == quote {
                inside = !inside;
            } else if b == b'\n' && !inside {
                seen += 1;
                if seen == lines {
                    return Ok(Some(at + i as u64 + 1));
                }
            }
        }
        if bytes.len() < want {
            break;
        }
        at += bytes.len() as u64;
        piece = piece.saturating_mul(2);
    }
    Ok(None)
}
