//! JSON validate and inspect on several threads, for a large document
//! whose root is an array: the array is cut between its elements, each
//! part is parsed on a thread of its own, and the parts' counts (and,
//! for inspect, their keys, types and outlines) are joined in file
//! order.
//!
//! A part cannot know on its own whether a byte is inside a string, so
//! the cuts are a guess, checked after the fact (the speculation the
//! parallel CSV readers use, here on JSON's grammar):
//!
//! - **The guess.** The head of the file is parsed for real, and the
//!   bytes that separate consecutive root elements there (`},\n  {`,
//!   `},{`, `],[`) are taken as the separator, when every pair of root
//!   elements in the head is separated by those same bytes and they
//!   occur nowhere else in the head. Each cut is the byte after the comma
//!   of the first such separator past an equal share of the file.
//! - **The check.** The first part is read from the file's start, each
//!   later one by a parser placed inside the root array after a comma.
//!   A part's answer counts only when it parsed without fault and ended
//!   exactly between two root elements (the last part: with the document
//!   complete). The first part starts where the file does, so its end
//!   state is the true state at the first cut; a later part's parse is
//!   then the one a single thread would have made from there, and its
//!   end state the true one at the next cut. Every guess is confirmed
//!   in file order, or the answer is not taken.
//! - **Anything else** (a fault, a separator inside a string, a
//!   duplicate key past the first part, whose pointer would need the
//!   elements before it, a root that is no array) sends the file through
//!   the one-thread scan, which says where the first fault is. A valid
//!   array, the case worth speeding up, pays nothing for that rule.
//!
//! `std::thread::scope` rather than rayon, as in the JSON Lines and CSV
//! engines: one scoped thread per part is all this needs.
//!
//! Reference: the one-thread scan. Held equal by:
//! `tests/it/parallel.rs::parts_agree_with_one_thread_on_any_array` and `te
//! sts/it/parallel.rs::inspect_parts_agree_with_one_thread_on_any_array`.

use std::ops::ControlFlow;

use memchr::memmem;
use plumb_core::{
    part_stream, text_stream, Refusal, ScanBounds, Source, TextStream, ViewFlags,
    BINARY_SNIFF_BYTES, SCAN_MAX_PARTS,
};

use std::io::BufRead;

use crate::ops::{inspect_part, join_parts, validate_part, PartVerdict};
use crate::sink::JsonSink;
use crate::{inspect_at, validate, JsonInspect, JsonParser, JsonValidate, OutlineOptions, Scalar};

/// Files smaller than this are validated on one thread: starting threads
/// and finding cuts costs more than it saves.
pub const JSON_PARALLEL_MIN_BYTES: u64 = 16 << 20;

/// How much of the head is parsed to learn the separator between root
/// elements.
const HEAD_BYTES: usize = 1 << 20;

/// How far past a share's start a separator is looked for; a share
/// without one joins its neighbour.
const CUT_SEARCH_BYTES: usize = 1 << 20;

/// How far a separator is looked for first, before
/// [`CUT_SEARCH_BYTES`].
const CUT_SEARCH_FIRST_BYTES: usize = 64 << 10;

/// Root elements of the head enough to trust the separator they show.
const MIN_HEAD_ELEMENTS: usize = 3;

/// Validates `source` on [`ScanBounds::thread_count`] threads when it is
/// a file of at least [`JSON_PARALLEL_MIN_BYTES`] with random access,
/// whose root is an array, and no row cap applies; otherwise on one
/// thread. The answer is the same either way.
///
/// # Errors
/// The source's refusals, as a one-thread scan gives them.
pub fn validate_source(source: &dyn Source, opts: &ScanBounds) -> Result<JsonValidate, Refusal> {
    let threads = opts.thread_count();
    let big = source.len().is_some_and(|l| l >= JSON_PARALLEL_MIN_BYTES);
    let whole = source.len().is_some_and(|l| opts.reads_whole(l));
    if threads > 1 && big && whole {
        if let Some(answer) = validate_in_parts(source, threads)? {
            return Ok(answer);
        }
    }
    validate(text_stream(source)?, opts)
}

/// Validates `source` in up to `parts` parts (at most [`SCAN_MAX_PARTS`])
/// on as many threads, cut between the elements of its root array;
/// `None` when the parts cannot give the one-thread answer (see the
/// module notes), for the caller to scan on one thread. Public so that
/// tests can cut small files into many parts.
///
/// # Errors
/// A read error while reading the head or looking for cuts.
pub fn validate_in_parts(
    source: &dyn Source,
    parts: usize,
) -> Result<Option<JsonValidate>, Refusal> {
    let Some(verdicts) = in_parts(source, parts, |stream, first, last| {
        validate_part(stream, first, last)
    })?
    else {
        return Ok(None);
    };
    let verdicts: Option<Vec<PartVerdict>> = verdicts.into_iter().collect();
    Ok(verdicts.and_then(join_verdicts))
}

/// The validate answer of the parts of a root array, in file order;
/// `None` when a later part holds a duplicate key (its pointer would
/// need the elements before the part) or could not check every key.
pub(crate) fn join_verdicts(verdicts: Vec<PartVerdict>) -> Option<JsonValidate> {
    let mut verdicts = verdicts.into_iter();
    let mut whole = verdicts.next()?;
    for part in verdicts {
        let dups = part.st.duplicates();
        if dups.count > 0 || !dups.checked_fully {
            return None;
        }
        whole.rows = whole.rows.saturating_add(part.rows);
        whole.st.absorb(&part.st);
    }
    let max_depth = whole.st.max_depth();
    let (duplicate_keys, _) = whole.st.into_reports();
    Some(JsonValidate {
        ok: true,
        format: "json",
        view: ViewFlags::of_scan(false).with_cut(!duplicate_keys.checked_fully),
        valid: Some(true),
        syntax_error: None,
        rows_scanned: whole.rows,
        max_depth,
        duplicate_keys,
    })
}

/// Inspects `source` on [`ScanBounds::thread_count`] threads when it is
/// a file of at least [`JSON_PARALLEL_MIN_BYTES`] with random access,
/// whose root is an array, and the whole document is inspected without
/// statistics or a row cap; otherwise on one thread. The answer is the
/// same either way.
///
/// # Errors
/// As [`crate::inspect_at`].
pub fn inspect_source(
    source: &dyn Source,
    opts: &ScanBounds,
    outline: impl Into<OutlineOptions>,
    pointer: &str,
) -> Result<JsonInspect, Refusal> {
    let listing = outline.into();
    let threads = opts.thread_count();
    let big = source.len().is_some_and(|l| l >= JSON_PARALLEL_MIN_BYTES);
    if threads > 1 && big && pointer.is_empty() {
        if let Some(answer) = inspect_in_parts(source, opts, listing, threads)? {
            return Ok(answer);
        }
    }
    inspect_at(text_stream(source)?, opts, listing, pointer)
}

/// The most outline paths each part of a split inspect with statistics
/// keeps (it holds statistics for each until the parts merge): an
/// outline with more is learnt on one thread. The parts are as many as
/// [`plumb_stats::stats_parts`] allows for this many paths.
pub const STATS_SPLIT_PATHS: usize = plumb_stats::STATS_FULL_COLUMNS;

/// Inspects the whole of `source` in up to `parts` parts (see
/// [`validate_in_parts`]), joining each later part's facts to the ones
/// before as one pass would have gathered them; `None` when that cannot
/// be promised (a row cap, and what `join_parts` in `ops/inspect.rs`
/// lists), for the caller to scan on one thread. Statistics merge: their
/// exact figures are the one-thread ones, and an estimate may differ from
/// the one-thread estimate within its stated error.
///
/// # Errors
/// A read error while reading the head or looking for cuts.
pub fn inspect_in_parts(
    source: &dyn Source,
    opts: &ScanBounds,
    outline: impl Into<OutlineOptions>,
    parts: usize,
) -> Result<Option<JsonInspect>, Refusal> {
    let listing = outline.into();
    if !source.len().is_some_and(|l| opts.reads_whole(l)) {
        return Ok(None);
    }
    // Each part's outline keeps statistics for at most
    // `STATS_SPLIT_PATHS` paths (more, and the parts do not join).
    let parts = if listing.stats {
        plumb_stats::stats_parts(parts, STATS_SPLIT_PATHS)
    } else {
        parts
    };
    let Some(found) = in_parts(source, parts, |stream, first, last| {
        inspect_part(stream, first, last, opts, listing.stats)
    })?
    else {
        return Ok(None);
    };
    let found: Option<Vec<_>> = found.into_iter().collect();
    Ok(found.and_then(|parts| join_parts(parts, listing.paths)))
}

/// Cuts `source` between the elements of its root array into up to
/// `parts` parts and runs `read` on each part's stream (with whether it
/// is the first and the last) on a thread of its own; the results in
/// file order (`None` for a part whose thread panicked), or `None` when
/// the file is not cut.
fn in_parts<T: Send>(
    source: &dyn Source,
    parts: usize,
    read: impl Fn(TextStream<Box<dyn BufRead + Send + '_>>, bool, bool) -> Option<T> + Sync,
) -> Result<Option<Vec<Option<T>>>, Refusal> {
    let Some(len) = source.len() else {
        return Ok(None);
    };
    let Some(cuts) = element_cuts(source, len, parts.clamp(1, SCAN_MAX_PARTS))? else {
        return Ok(None);
    };
    let count = cuts.len() - 1;
    let read = &read;
    Ok(Some(std::thread::scope(|scope| {
        let handles: Vec<_> = cuts
            .windows(2)
            .enumerate()
            .map(|(k, w)| {
                let (start, end) = (w[0], w[1]);
                scope.spawn(move || read(part_stream(source, start, end), k == 0, k + 1 == count))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().ok().flatten())
            .collect()
    })))
}

/// Up to `len` bytes of `source` from `at` (fewer at its end); `None`
/// without random access.
fn read_window(source: &dyn Source, at: u64, len: usize) -> Result<Option<Vec<u8>>, Refusal> {
    let mut buf = vec![0u8; len];
    let mut got = 0;
    while got < len {
        match source.read_at(at + got as u64, &mut buf[got..]) {
            None => return Ok(None),
            Some(Ok(0)) => break,
            Some(Ok(n)) => got += n,
            Some(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Some(Err(e)) => return Err(Refusal::from_io(&e, Some(source.name()))),
        }
    }
    buf.truncate(got);
    Ok(Some(buf))
}

/// Where the root elements of a parsed head begin, and whether any of
/// them is a scalar (whose separators are not learnt).
#[derive(Default)]
struct RootStarts {
    starts: Vec<u64>,
    open: usize,
    scalar: bool,
}

impl RootStarts {
    fn opens(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
        if depth == 1 {
            self.starts.push(at);
        }
        self.open += 1;
        ControlFlow::Continue(())
    }
}

impl JsonSink for RootStarts {
    fn capture_strings(&self) -> bool {
        false
    }
    fn start_object(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
        self.opens(depth, at)
    }
    fn start_array(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
        self.opens(depth, at)
    }
    fn end_object(&mut self) -> ControlFlow<()> {
        self.open = self.open.saturating_sub(1);
        ControlFlow::Continue(())
    }
    fn end_array(&mut self) -> ControlFlow<()> {
        self.end_object()
    }
    fn scalar(&mut self, _: &Scalar<'_>) -> ControlFlow<()> {
        self.scalar |= self.open == 1;
        ControlFlow::Continue(())
    }
}

/// The bytes between consecutive root elements of the head (from the
/// closing bracket through the next opening one) and where their comma
/// is, when the head shows one such separator and nothing else like it.
fn learn_separator(head: &[u8]) -> Option<(Vec<u8>, usize)> {
    let first = head.iter().position(|b| !b.is_ascii_whitespace())?;
    if head[first] != b'[' {
        return None;
    }
    let mut sink = RootStarts::default();
    let mut parser = JsonParser::new();
    // The head ends anywhere: only a fault stops the learning.
    parser.push(head, &mut sink).ok()?;
    if sink.scalar || sink.starts.len() < MIN_HEAD_ELEMENTS {
        return None;
    }
    let mut separator: Option<(Vec<u8>, usize)> = None;
    for &next in &sink.starts[1..] {
        let next = usize::try_from(next).ok()?;
        let before = head[..next]
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())?;
        if head[before] != b',' {
            return None;
        }
        let close = head[..before]
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())?;
        if !matches!(head[close], b'}' | b']') {
            return None;
        }
        let found = (head[close..=next].to_vec(), before - close);
        match &separator {
            None => separator = Some(found),
            Some(s) if *s != found => return None,
            Some(_) => {}
        }
    }
    let (sep, comma) = separator?;
    // Seen only between root elements, as many times as there are pairs.
    let from = usize::try_from(sink.starts[0]).ok()?;
    let to = usize::try_from(*sink.starts.last()?).ok()? + 1;
    let seen = memmem::find_iter(&head[from..to], &sep).count();
    (seen == sink.starts.len() - 1).then_some((sep, comma))
}

/// The boundaries of up to `parts` parts of the root array: 0, the byte
/// after the comma of the first separator past each share's start, and
/// `len`; strictly increasing, with at least two parts. `None` when the
/// head teaches no separator or no cut is found.
pub(crate) fn element_cuts(
    source: &dyn Source,
    len: u64,
    parts: usize,
) -> Result<Option<Vec<u64>>, Refusal> {
    if parts < 2 {
        return Ok(None);
    }
    let Some(head) = read_window(source, 0, HEAD_BYTES.min(len as usize))? else {
        return Ok(None);
    };
    let Some((sep, comma)) = learn_separator(&head) else {
        return Ok(None);
    };
    let finder = memmem::Finder::new(&sep);
    let mut cuts = vec![0u64];
    for k in 1..parts as u64 {
        // The first part holds the head a one-thread scan sniffs.
        let share = (len / parts as u64).saturating_mul(k);
        let from = share
            .max(BINARY_SNIFF_BYTES as u64)
            .max(*cuts.last().unwrap_or(&0));
        if from >= len {
            break;
        }
        // A short window first: most separators are near, and a plan of
        // thousands of ranges reads no megabyte at each cut.
        let mut found = None;
        for size in [CUT_SEARCH_FIRST_BYTES, CUT_SEARCH_BYTES] {
            let Some(window) = read_window(source, from, size)? else {
                return Ok(None);
            };
            found = finder.find(&window);
            if found.is_some() || window.len() < size {
                break;
            }
        }
        if let Some(p) = found {
            let cut = from + (p + comma + 1) as u64;
            if cut < len && cut > *cuts.last().unwrap_or(&0) {
                cuts.push(cut);
            }
        }
    }
    cuts.push(len);
    Ok((cuts.len() > 2).then_some(cuts))
}

#[cfg(test)]
mod tests {
    use super::learn_separator;

    #[test]
    fn the_head_teaches_one_separator_or_none() {
        let sep = |t: &str| {
            learn_separator(t.as_bytes()).map(|(s, c)| (String::from_utf8(s).unwrap(), c))
        };
        assert_eq!(
            sep(r#"[{"a":1},{"a":2},{"a":3},{"a""#),
            Some(("},{".into(), 1))
        );
        assert_eq!(
            sep("[\n  {\"a\": 1},\n  {\"a\": [2]} ,\n  {\"a\": 3}]"),
            None,
            "two spellings of the separator"
        );
        assert_eq!(
            sep("[\n  [1, {\"b\": 2}],\n  [3],\n  [4]\n]"),
            Some(("],\n  [".into(), 1))
        );
        // Also seen inside an element: not trusted.
        assert_eq!(sep(r#"[{"a":[{},{}]},{"a":2},{"a":3}]"#), None);
        // A string holding it counts as an occurrence too.
        assert_eq!(sep(r#"[{"a":"},{"},{"a":2},{"a":3}]"#), None);
        // Scalars, too few elements, no array, a fault.
        for t in [
            "[1,2,3,4]",
            r#"[{"a":1},{"a":2}]"#,
            r#"{"a":[{},{},{}]}"#,
            "[{},{},{]",
        ] {
            assert_eq!(sep(t), None, "{t}");
        }
    }
}
