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
//!
//! The scan itself (blocks, lines, the searcher) is in `scan`; here, the
//! `text` reader, its options and its answer.

mod scan;

use serde::Serialize;

use plumb_core::{
    impl_answer, judge_head, FormatReader, Op, OptionKind, OptionSpec, Query, Refusal, Request,
    SearchProgress, SearchWindow, Source, ViewFlags, BINARY_SNIFF_BYTES, SEARCH_CONTEXT_MAX,
};

use scan::{Block, Lines, Searcher};

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

    fn answer_schema(
        &self,
        op: plumb_core::Op,
        generator: &mut plumb_core::schemars::SchemaGenerator,
    ) -> Option<plumb_core::schemars::Schema> {
        (op == plumb_core::Op::Search).then(|| generator.subschema_for::<TextSearch>())
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ContextLine {
    /// The 1-based line number.
    pub line: u64,
    /// The line without its terminator (cut to [`SEARCH_TEXT_BYTES`](plumb_core::SEARCH_TEXT_BYTES)).
    pub text: String,
    /// Whether the text was cut.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

/// One line that matched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LineHit {
    /// The 1-based line number (`read` it with offset `line - 1`).
    pub line: u64,
    /// The byte offset of the line's first byte.
    pub byte_offset: u64,
    /// The line without its terminator, cut to [`SEARCH_TEXT_BYTES`](plumb_core::SEARCH_TEXT_BYTES)
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LineCut {
    /// The byte offset in the line where `text` starts.
    pub from: u64,
    /// The line's full length in bytes, without its terminator (null
    /// when the line was too long to hold and ended after the answer).
    pub bytes: Option<u64>,
}

/// The answer of a text search.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TextSearch {
    /// Always true.
    pub ok: bool,
    /// `text`.
    pub format: &'static str,
    /// Exact, or cut when a hit's line was cut.
    pub view: ViewFlags,
    /// The hits, in file order (none with `count_only`).
    pub hits: Vec<LineHit>,
    /// The window (flattened): `offset`, the 0-based line the search
    /// started at; `limit`; `returned`, the hits returned; and how many
    /// hits were seen and where to continue.
    #[serde(flatten)]
    pub window: SearchWindow,
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

impl_answer!(TextSearch, layout: LineHits, window: window);

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
/// assert_eq!(found.window.progress.next_offset, Some(3));
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
        skip_left: query.skip_hits,
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
        window: SearchWindow {
            offset: query.offset,
            passed_over: query.skip_hits,
            limit: query.limit,
            returned: s.hits.len(),
            progress: s.progress,
        },
        hits: s.hits,
        long_lines: s.long_lines,
    })
}
