//! `search` over text: the lines of any file `read` takes that contain a
//! pattern (or satisfy a predicate), as the `text` reader.
//!
//! The file is read in large blocks and the pattern is run over each
//! block of whole lines at once, as ripgrep does, not line by line: a
//! literal goes to `memchr::memmem`, a regex to the regex crate's
//! searcher, and only a candidate's own line is looked at closely (a
//! regex match that crosses a line end is checked again on its line
//! alone, so every hit is a match within one line). Line numbers are
//! counted lazily with `bytecount`, only as far as the next hit needs.
//! A `where` predicate, or a pattern anchored to the whole text (`\A`,
//! `\z`), is tested line by line.
//!
//! Memory: one block of [`TEXT_BLOCK_BYTES`], grown for a long line up
//! to [`TEXT_LINE_MAX_BYTES`]; a longer line is searched in pieces that
//! overlap by [`LONG_LINE_OVERLAP`] bytes (a literal is found wherever it
//! is; a regex match longer than the overlap could be missed, and the
//! answer then says its total is not exact). A search stops at the hit
//! past its limit and reads no further.

use std::io::BufRead;

use serde::Serialize;

use plumb_core::{
    cut_around, impl_answer, judge_head, CancelToken, FormatReader, Op, OptionKind, OptionSpec,
    Predicate, Query, Refusal, Request, SearchProgress, Source, Subject, SubjectKind, ViewFlags,
    BINARY_SNIFF_BYTES, SEARCH_CONTEXT_MAX, SEARCH_TEXT_BYTES,
};

/// The block a text search reads at a time.
pub const TEXT_BLOCK_BYTES: usize = 256 * 1024;

/// The longest line held whole; a longer one is searched in pieces.
pub const TEXT_LINE_MAX_BYTES: usize = 8 << 20;

/// How much of a long line's piece is kept for the next piece, so a
/// match across the seam is still found (at least the longest pattern).
pub const LONG_LINE_OVERLAP: usize = 64 * 1024;

/// The most bytes of lines kept before a block's end for the context of
/// a hit at the start of the next block.
const CONTEXT_KEEP_BYTES: usize = 64 * 1024;

/// The sizes a text search works with: the constants above, smaller in
/// tests so that every block edge and long-line seam is crossed.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Tuning {
    /// The first block size.
    pub block: usize,
    /// The longest line held whole.
    pub line_max: usize,
    /// The overlap of a long line's pieces.
    pub overlap: usize,
    /// The context bytes kept across a block edge.
    pub context_keep: usize,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            block: TEXT_BLOCK_BYTES,
            line_max: TEXT_LINE_MAX_BYTES,
            overlap: LONG_LINE_OVERLAP,
            context_keep: CONTEXT_KEEP_BYTES,
        }
    }
}

/// The options of a text search.
pub const TEXT_OPTIONS: [OptionSpec; 1] = [OptionSpec {
    name: "context",
    kind: OptionKind::Count,
    default: Some("0"),
    ops: &[Op::Search],
    doc: "lines of context to return before and after each hit (at most 10)",
}];

/// Reads any text file as lines, for `search`: never detected, only
/// named (`--format text`), and the reader a search falls back to when
/// the file is not a data format plumb reads.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextReader;

impl FormatReader for TextReader {
    fn name(&self) -> &'static str {
        "text"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[]
    }

    fn sniff(&self, _head: &[u8]) -> Option<plumb_core::SniffScore> {
        None
    }

    fn options(&self) -> &'static [OptionSpec] {
        &TEXT_OPTIONS
    }

    fn search(
        &self,
        source: &dyn Source,
        req: &Request,
    ) -> Result<Box<dyn plumb_core::Answer>, Refusal> {
        let query = Query::from_request(req)?;
        let context = req.options.count("context").unwrap_or(0);
        if context > SEARCH_CONTEXT_MAX {
            return Err(Refusal::invalid_argument(format!(
                "context {context} is more than {SEARCH_CONTEXT_MAX} lines; ask for fewer"
            )));
        }
        Ok(Box::new(search_text(source, &query, context)?))
    }
}

/// A line around a hit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ContextLine {
    /// The 1-based line number.
    pub line: u64,
    /// The line without its terminator (cut to [`SEARCH_TEXT_BYTES`]).
    pub text: String,
    /// Whether the text was cut.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

/// One line that matched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineHit {
    /// The 1-based line number (`read` it with offset `line - 1`).
    pub line: u64,
    /// The byte offset of the line's first byte.
    pub byte_offset: u64,
    /// The line without its terminator, cut to [`SEARCH_TEXT_BYTES`]
    /// around the first match when longer.
    pub text: String,
    /// The byte range of the first match within `text` (patterns only).
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub matched: Option<[usize; 2]>,
    /// Set when `text` is a cut of the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<LineCut>,
    /// Lines before it (with the `context` option).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<ContextLine>,
    /// Lines after it (with the `context` option).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<ContextLine>,
}

/// Where a cut hit's text lies in its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LineCut {
    /// The byte offset in the line where `text` starts.
    pub from: u64,
    /// The line's full length in bytes, without its terminator (null
    /// when the line was too long to hold and ended after the answer).
    pub bytes: Option<u64>,
}

/// The answer of a text search.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TextSearch {
    /// Always true.
    pub ok: bool,
    /// `text`.
    pub format: &'static str,
    /// Exact, or cut when a hit's line was cut.
    pub view: ViewFlags,
    /// The hits, in file order (none with `count_only`).
    pub hits: Vec<LineHit>,
    /// The 0-based line the search started at.
    pub offset: u64,
    /// The limit applied.
    pub limit: usize,
    /// Hits returned.
    pub returned: usize,
    /// How many hits were seen and where to continue.
    #[serde(flatten)]
    pub progress: SearchProgress,
    /// Lines longer than [`TEXT_LINE_MAX_BYTES`], searched in pieces.
    #[serde(skip_serializing_if = "is_zero")]
    pub long_lines: u64,
}

/// Whether `data` holds a `\r` that is not the first byte of a `\r\n`
/// (a `\r` at the very end counts: its `\n` is not seen).
fn has_lone_cr(data: &[u8]) -> bool {
    memchr::memchr_iter(b'\r', data).any(|i| data.get(i + 1) != Some(&b'\n'))
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl_answer!(TextSearch, search);

/// The block being searched: `data[..len]` holds the file's bytes from
/// offset `base`.
struct Block<'r> {
    reader: Box<dyn BufRead + Send + 'r>,
    line_max: usize,
    data: Vec<u8>,
    len: usize,
    base: u64,
    eof: bool,
    /// Bytes the byte budget still lets the block read (none: no budget).
    left: Option<u64>,
    /// Whether the budget ended the reading with bytes left unread: the
    /// block's last line, unended, is then not searched.
    cut_short: bool,
}

impl Block<'_> {
    /// Drops `data[..keep]`, then reads until the block is full or the
    /// source ends (growing it up to the line cap when `grow`).
    fn refill(&mut self, keep: usize, grow: bool) -> Result<(), Refusal> {
        self.data.copy_within(keep..self.len, 0);
        self.len -= keep;
        self.base += keep as u64;
        if grow && self.len == self.data.len() && self.data.len() < self.line_max {
            let size = (self.data.len() * 2).min(self.line_max);
            self.data.resize(size, 0);
        }
        while self.len < self.data.len() && !self.eof {
            let room = self.data.len() - self.len;
            let want = match self.left {
                Some(0) => {
                    self.eof = true;
                    let more = self
                        .reader
                        .fill_buf()
                        .map_err(|e| Refusal::from_io(&e, None))?;
                    self.cut_short = !more.is_empty();
                    break;
                }
                Some(left) => room.min(usize::try_from(left).unwrap_or(usize::MAX)),
                None => room,
            };
            match self.reader.read(&mut self.data[self.len..self.len + want]) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.len += n;
                    self.left = self.left.map(|l| l - n as u64);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Refusal::from_io(&e, None)),
            }
        }
        Ok(())
    }

    /// The end of the whole lines in the block: after its last newline,
    /// or its end once the source ended (not the budget).
    fn complete_end(&self, from: usize) -> usize {
        if self.eof && !self.cut_short {
            return self.len;
        }
        memchr::memrchr(b'\n', &self.data[from..self.len]).map_or(from, |i| from + i + 1)
    }
}

/// Line numbers, counted only as far as they are asked for.
struct Lines {
    /// The index in the block up to which newlines are counted.
    at: usize,
    /// The 0-based number of the line starting at or containing `at`.
    line: u64,
}

impl Lines {
    fn upto(&mut self, data: &[u8], to: usize) -> u64 {
        if to > self.at {
            self.line += bytecount::count(&data[self.at..to], b'\n') as u64;
        } else {
            // Back, to a hit among the context lines already counted.
            self.line -= bytecount::count(&data[to..self.at], b'\n') as u64;
        }
        self.at = to;
        self.line
    }
}

/// A line's content without its terminator: `[start, end)` with a
/// trailing `\r` left out.
fn content_end(data: &[u8], start: usize, end: usize) -> usize {
    if end > start && data[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

fn utf8_text(bytes: &[u8], at: u64) -> Result<(), Refusal> {
    match std::str::from_utf8(bytes) {
        Ok(_) => Ok(()),
        // A character cut by the budget is the cut's, not the file's.
        Err(e) if e.error_len().is_none() => Ok(()),
        Err(e) => Err(Refusal::invalid_utf8(at + e.valid_up_to() as u64)),
    }
}

/// A line's text for an answer: checked as UTF-8 (`invalid-utf8` with
/// its offset), cut around the match when longer than the budget.
fn line_text(
    data: &[u8],
    start: usize,
    end: usize,
    base: u64,
    at: Option<(usize, usize)>,
) -> Result<(String, usize, bool), Refusal> {
    let line = &data[start..end];
    let (text, from, cut) = cut_around(line, at, SEARCH_TEXT_BYTES);
    utf8_text(
        &line[from..from + text.len().min(line.len() - from)],
        base + (start + from) as u64,
    )?;
    Ok((text, from, cut))
}

/// Searches the lines of `source` (from the line `query.offset`, counted
/// from 0) for `query`, with `context` lines around each hit.
///
/// ```
/// use plumb::search::search_text;
/// use plumb_core::{BytesSource, Request, Query};
/// let source = BytesSource::new("app.log", "ok\nerror: disk\nok\nerror: net\n");
/// let mut req = Request::default();
/// req.set("pattern", "error".into())?.set("limit", 1.into())?;
/// let found = search_text(&source, &Query::from_request(&req)?, 0)?;
/// assert_eq!((found.hits[0].line, found.hits[0].text.as_str()), (2, "error: disk"));
/// assert_eq!(found.progress.next_offset, Some(3));
/// # Ok::<(), plumb_core::Refusal>(())
/// ```
///
/// # Errors
/// `binary` (a NUL in the head), `invalid-utf8` in a returned line,
/// `aborted`, `read-error`.
pub fn search_text(
    source: &dyn Source,
    query: &Query,
    context: u64,
) -> Result<TextSearch, Refusal> {
    search_text_tuned(source, query, context, Tuning::default())
}

/// [`search_text`] with the sizes given (for tests).
///
/// # Errors
/// As [`search_text`].
#[doc(hidden)]
pub fn search_text_tuned(
    source: &dyn Source,
    query: &Query,
    context: u64,
    tune: Tuning,
) -> Result<TextSearch, Refusal> {
    let cancel = source.cancel_token();
    let tune = Tuning {
        block: tune.block.max(4),
        line_max: tune.line_max.max(tune.block.max(4)),
        ..tune
    };
    let mut block = Block {
        reader: source.open()?,
        line_max: tune.line_max,
        data: vec![0; tune.block],
        len: 0,
        base: 0,
        eof: false,
        left: query.max_scan_bytes,
        cut_short: false,
    };
    block.refill(0, false)?;
    let bom = judge_head(&block.data[..block.len.min(BINARY_SNIFF_BYTES)])?;
    let mut s = Searcher {
        query,
        context: usize::try_from(context).unwrap_or(0),
        lines: Lines { at: bom, line: 0 },
        hits: Vec::new(),
        progress: SearchProgress::default(),
        pending_after: 0,
        long_lines: 0,
        long: None,
        cut: false,
        inexact: false,
        floor: bom,
        tune,
    };
    s.run(&mut block, bom, cancel)?;
    s.progress.total_exact = !s.progress.has_more && !s.inexact;
    if block.cut_short {
        // The first line not read whole: the one the block ends inside.
        let last_end = memchr::memrchr(b'\n', &block.data[..block.len]).map_or(0, |i| i + 1);
        let next = s.lines.upto(&block.data, last_end).max(query.offset);
        s.progress.stopped_before(next);
    }
    Ok(TextSearch {
        ok: true,
        format: "text",
        view: ViewFlags::of_scan(block.cut_short).with_cut(s.cut),
        returned: s.hits.len(),
        hits: s.hits,
        offset: query.offset,
        limit: query.limit,
        progress: s.progress,
        long_lines: s.long_lines,
    })
}

/// A line too long to hold, being searched piece by piece.
struct LongLine {
    /// Its 0-based number, and the offset of its first byte.
    line: u64,
    start: u64,
    /// The hit it gave, when it gave one (its length is filled in when
    /// the line ends).
    hit: Option<usize>,
    matched: bool,
}

struct Searcher<'q> {
    query: &'q Query,
    context: usize,
    lines: Lines,
    hits: Vec<LineHit>,
    progress: SearchProgress,
    /// After-context lines the last hit still waits for.
    pending_after: usize,
    long_lines: u64,
    long: Option<LongLine>,
    cut: bool,
    inexact: bool,
    /// The first index of the block that holds text (the BOM skipped).
    floor: usize,
    tune: Tuning,
}

impl Searcher<'_> {
    fn run(
        &mut self,
        block: &mut Block<'_>,
        start: usize,
        cancel: Option<&CancelToken>,
    ) -> Result<(), Refusal> {
        let mut pos = start;
        // Skip to the line the search starts at.
        let first = self.query.offset;
        while self.lines.line < first {
            let end = block.complete_end(pos);
            let region = &block.data[pos..end];
            let want = (first - self.lines.line) as usize;
            match memchr::memchr_iter(b'\n', region).nth(want.saturating_sub(1)) {
                Some(i) if want > 0 => {
                    pos += i + 1;
                    self.lines = Lines {
                        at: pos,
                        line: first,
                    };
                }
                _ => {
                    self.lines.upto(&block.data, end);
                    if block.eof {
                        return Ok(());
                    }
                    // Lines before the start are only counted: drop them
                    // (and a line longer than the block, read so far).
                    let drop = if end == pos { block.len } else { end };
                    self.lines.at = 0;
                    block.refill(drop, false)?;
                    pos = 0;
                }
            }
        }
        loop {
            if cancel.is_some_and(CancelToken::is_cancelled) {
                return Err(Refusal::aborted(block.base + pos as u64));
            }
            let end = block.complete_end(pos);
            let full = block.len == block.data.len() && !block.eof;
            let grown = block.data.len() >= self.tune.line_max;
            if self.long.is_none() && full && grown && pos == block.len {
                // A block at the line cap read to its very end, the last
                // line ended: no line has begun (a long line opened here
                // would be a phantom line after the last), so read on
                // from here, as a long line would have, keeping nothing.
                self.lines.upto(&block.data, pos);
                self.lines.at -= pos;
                self.floor = 0;
                block.refill(pos, false)?;
                pos = 0;
                continue;
            }
            if self.long.is_some() || (end == pos && full) {
                if block.data.len() < self.tune.line_max && self.long.is_none() {
                    let keep = self.keep_from(&block.data, pos);
                    self.lines.upto(&block.data, keep);
                    self.lines.at -= keep;
                    self.floor = 0;
                    block.refill(keep, true)?;
                    pos -= keep;
                    continue;
                }
                match self.long_piece(block, pos)? {
                    Some(next) => pos = next,
                    None => return Ok(()),
                }
                continue;
            }
            self.take_after(block, pos, end)?;
            if self.search_region(block, &mut pos, end)? {
                return Ok(());
            }
            if block.eof && pos >= block.complete_end(pos) {
                return Ok(());
            }
            let keep = self.keep_from(&block.data, pos);
            self.lines.upto(&block.data, keep);
            self.lines.at -= keep;
            self.floor = 0;
            block.refill(keep, false)?;
            pos -= keep;
        }
    }

    /// Where the kept part of the block starts: the line being read, and
    /// the context lines before it (within [`CONTEXT_KEEP_BYTES`]).
    fn keep_from(&self, data: &[u8], pos: usize) -> usize {
        let mut keep = pos;
        for _ in 0..self.context {
            if keep <= self.floor {
                break;
            }
            let prev = memchr::memrchr(b'\n', &data[self.floor..keep - 1])
                .map_or(self.floor, |i| self.floor + i + 1);
            if pos - prev > self.tune.context_keep {
                break;
            }
            keep = prev;
        }
        keep
    }

    /// The after-context lines the last hit waits for, from `pos`.
    fn take_after(&mut self, block: &Block<'_>, pos: usize, end: usize) -> Result<(), Refusal> {
        let mut at = pos;
        while self.pending_after > 0 && at < end {
            let le = memchr::memchr(b'\n', &block.data[at..end]).map_or(end, |i| at + i);
            let number = self.lines.upto(&block.data, at) + 1;
            let ce = content_end(&block.data, at, le);
            let (text, _, cut) = line_text(&block.data, at, ce, block.base, None)?;
            if let Some(hit) = self.hits.last_mut() {
                hit.after.push(ContextLine {
                    line: number,
                    text,
                    cut,
                });
            }
            self.pending_after -= 1;
            at = le + 1;
        }
        Ok(())
    }

    /// Searches the whole lines `[pos, end)`; returns whether the search
    /// is over (the hit past the limit was found).
    fn search_region(
        &mut self,
        block: &Block<'_>,
        pos: &mut usize,
        end: usize,
    ) -> Result<bool, Refusal> {
        let data = &block.data[..end];
        let matcher = match &self.query.predicate {
            // Lines with a lone `\r` are searched one by one when it could
            // hide a match: the regex run over many lines at once takes
            // it for a line end.
            Predicate::Pattern(m)
                if !m.anchors_whole_text()
                    && (!m.lone_cr_hides_matches() || !has_lone_cr(&data[*pos..])) =>
            {
                Some(m)
            }
            _ => None,
        };
        while *pos < end {
            let (ls, le, at) = match matcher {
                Some(m) if m.required_prefix().is_some() => {
                    // The first line holding the prefix; the regex runs
                    // on that line alone, from the prefix on (no match
                    // starts before it).
                    let Some(c) = m.candidate(data, *pos) else {
                        *pos = end;
                        break;
                    };
                    let ls = memchr::memrchr(b'\n', &data[*pos..c]).map_or(*pos, |i| *pos + i + 1);
                    let le = memchr::memchr(b'\n', &data[c..]).map_or(end, |i| c + i);
                    let ce = content_end(data, ls, le);
                    match m.find_in_line(&data[ls..ce], c.min(ce) - ls) {
                        Some(at) => (ls, le, Some(at)),
                        None => {
                            *pos = (le + 1).min(end);
                            continue;
                        }
                    }
                }
                Some(m) => {
                    let Some((ms, me)) = m.find_at(data, *pos) else {
                        *pos = end;
                        break;
                    };
                    // An empty match after the last newline is on no line.
                    if ms == end && (end == 0 || data[end - 1] == b'\n') {
                        *pos = end;
                        break;
                    }
                    let ls = memchr::memrchr(b'\n', &data[*pos..ms]).map_or(*pos, |i| *pos + i + 1);
                    let le = memchr::memchr(b'\n', &data[ms..]).map_or(end, |i| ms + i);
                    let ce = content_end(data, ls, le);
                    // A line holding a `\r` is judged alone (its anchors
                    // read a lone `\r` as grep does).
                    let at = if me <= ce && memchr::memchr(b'\r', &data[ls..ce]).is_none() {
                        Some((ms - ls, me - ls))
                    } else {
                        // The match ran past the line's end: the line
                        // alone decides.
                        m.find_in_line(&data[ls..ce], 0)
                    };
                    match at {
                        Some(at) => (ls, le, Some(at)),
                        None => {
                            *pos = (le + 1).min(end);
                            continue;
                        }
                    }
                }
                None => {
                    let ls = *pos;
                    let le = memchr::memchr(b'\n', &data[ls..]).map_or(end, |i| ls + i);
                    let ce = content_end(data, ls, le);
                    let line = &data[ls..ce];
                    let hit = match &self.query.predicate {
                        Predicate::Pattern(m) => m.find_in_line(line, 0),
                        p => p
                            .test(&Subject::new(SubjectKind::Text, line))
                            .then_some((0, 0)),
                    };
                    match hit {
                        Some(at) => (
                            ls,
                            le,
                            matches!(self.query.predicate, Predicate::Pattern(_)).then_some(at),
                        ),
                        None => {
                            *pos = (le + 1).min(end);
                            continue;
                        }
                    }
                }
            };
            *pos = (le + 1).min(end);
            if self.hit(block, ls, le, at)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// A hit on the line `[ls, le)`; returns whether the search is over.
    fn hit(
        &mut self,
        block: &Block<'_>,
        ls: usize,
        le: usize,
        at: Option<(usize, usize)>,
    ) -> Result<bool, Refusal> {
        self.progress.total += 1;
        if self.query.count_only {
            return Ok(false);
        }
        let number = self.lines.upto(&block.data, ls);
        if self.hits.len() >= self.query.limit {
            self.progress.has_more = true;
            self.progress.next_offset = Some(number);
            return Ok(true);
        }
        let data = &block.data;
        let ce = content_end(data, ls, le);
        let (text, from, cut) = line_text(data, ls, ce, block.base, at)?;
        self.cut |= cut;
        let mut before = Vec::new();
        let mut start = ls;
        for k in 1..=self.context as u64 {
            if start <= self.floor || k > number {
                break;
            }
            let prev = memchr::memrchr(b'\n', &data[self.floor..start - 1])
                .map_or(self.floor, |i| self.floor + i + 1);
            let pce = content_end(data, prev, start - 1);
            let (t, _, c) = line_text(data, prev, pce, block.base, None)?;
            before.push(ContextLine {
                line: number + 1 - k,
                text: t,
                cut: c,
            });
            start = prev;
        }
        before.reverse();
        self.hits.push(LineHit {
            line: number + 1,
            byte_offset: block.base + ls as u64,
            matched: at.map(|(s, e)| {
                let s = s.saturating_sub(from).min(text.len());
                [s, e.saturating_sub(from).clamp(s, text.len())]
            }),
            text,
            cut: cut.then_some(LineCut {
                from: from as u64,
                bytes: Some((ce - ls) as u64),
            }),
            before,
            after: Vec::new(),
        });
        self.pending_after = self.context;
        // The lines right after it, as far as the block holds them.
        let end = block.complete_end(ls);
        self.take_after(block, (le + 1).min(end), end)?;
        Ok(false)
    }

    /// One piece of a line longer than [`TEXT_LINE_MAX_BYTES`]: searched
    /// for a match (until the line gave one), then dropped but for the
    /// overlap. Returns where to go on, or `None` when the search is over.
    fn long_piece(&mut self, block: &mut Block<'_>, pos: usize) -> Result<Option<usize>, Refusal> {
        if self.long.is_none() {
            self.long_lines += 1;
            let line = self.lines.upto(&block.data, pos);
            self.long = Some(LongLine {
                line,
                start: block.base + pos as u64,
                hit: None,
                matched: false,
            });
        }
        let newline = memchr::memchr(b'\n', &block.data[pos..block.len]).map(|i| pos + i);
        let piece_end = newline.unwrap_or(block.len);
        let long = self.long.as_ref().map(|l| (l.matched, l.line, l.start));
        if let Some((false, line, start)) = long {
            // A piece after a seam may open inside a character.
            let lead = block.data[pos..piece_end]
                .iter()
                .take(3)
                .take_while(|&&b| b & 0xC0 == 0x80)
                .count();
            let pos = pos + lead;
            // A `\r` is a line's ending only at its `\n` (or the end of
            // the file): at a seam it is a byte of the line, which a
            // pattern may hold.
            let stop = if newline.is_some() || block.eof {
                content_end(&block.data, pos, piece_end)
            } else {
                piece_end
            };
            let piece = &block.data[pos..stop];
            let found = match &self.query.predicate {
                Predicate::Pattern(m) => m
                    .find_in_line(piece, 0)
                    // A match at the piece's end may go on in the next.
                    .filter(|&(_, e)| newline.is_some() || block.eof || e < piece.len()),
                // A predicate on a line too long to hold: only a pattern
                // is searched in pieces.
                _ => None,
            };
            if !matches!(self.query.predicate, Predicate::Pattern(ref m) if m.is_literal()) {
                self.inexact = true;
            }
            if let Some((ms, me)) = found {
                if let Some(l) = self.long.as_mut() {
                    l.matched = true;
                }
                self.progress.total += 1;
                if !self.query.count_only {
                    if self.hits.len() >= self.query.limit {
                        self.progress.has_more = true;
                        self.progress.next_offset = Some(line);
                        return Ok(None);
                    }
                    let from_line = block.base + pos as u64 - start;
                    let (text, from, _) = cut_around(piece, Some((ms, me)), SEARCH_TEXT_BYTES);
                    utf8_text(
                        &piece[from..from + text.len().min(piece.len() - from)],
                        block.base + (pos + from) as u64,
                    )?;
                    self.cut = true;
                    self.hits.push(LineHit {
                        line: line + 1,
                        byte_offset: start,
                        matched: Some([ms - from, (me - from).min(text.len())]),
                        text,
                        cut: Some(LineCut {
                            from: from_line + from as u64,
                            bytes: None,
                        }),
                        before: Vec::new(),
                        after: Vec::new(),
                    });
                    if let Some(l) = self.long.as_mut() {
                        l.hit = Some(self.hits.len() - 1);
                    }
                    self.pending_after = self.context;
                }
            }
        }
        match newline {
            Some(nl) => {
                // The line ends here.
                if let Some(l) = self.long.take() {
                    if let Some(h) = l.hit {
                        let ce = content_end(&block.data, pos, nl);
                        let full = block.base + ce as u64 - l.start;
                        if let Some(c) = self.hits[h].cut.as_mut() {
                            c.bytes = Some(full);
                        }
                    }
                    self.lines = Lines {
                        at: nl + 1,
                        line: l.line + 1,
                    };
                    // Context never reaches back into the long line.
                    self.floor = nl + 1;
                }
                Ok(Some(nl + 1))
            }
            None if block.eof => {
                if let Some(l) = self.long.take() {
                    if let Some(h) = l.hit {
                        let ce = content_end(&block.data, pos, block.len);
                        if let Some(c) = self.hits[h].cut.as_mut() {
                            c.bytes = Some(block.base + ce as u64 - l.start);
                        }
                    }
                }
                Ok(None)
            }
            None => {
                // Keep the overlap (a match may straddle the seam).
                // At least a literal's length, so none is missed.
                let needle = self
                    .query
                    .predicate
                    .matcher()
                    .map_or(0, |m| m.pattern().len());
                let back = self.tune.overlap.max(needle).min(block.len / 2);
                let keep = (block.len - back).max(pos);
                self.floor = 0;
                self.lines.at = 0;
                block.refill(keep, false)?;
                Ok(Some(0))
            }
        }
    }
}
