//! JSON Lines search: the records (non-blank lines, counted as select
//! counts them) whose value at a field pointer matches a pattern or
//! satisfies a predicate, as [`plumb_json::Probe`] judges a value. Each
//! record is parsed once to be judged, and a hit once more to be built;
//! records before the offset are only split, never parsed. A line that
//! is not JSON is no hit, and is counted.

use std::io::BufRead;
use std::ops::ControlFlow;

use serde::Serialize;
use serde_json::value::RawValue;

use plumb_core::{Query, Refusal, SearchProgress, TextStream, ViewFlags};
use plumb_json::{scan_text, JsonParser, Pointer, Probe, ValueBuilder, SEARCH_VALUE_BUDGET_BYTES};

use crate::splitter::{Line, LineSink};

/// One record that matched.
#[derive(Debug, Serialize)]
pub struct RecordHit {
    /// The 0-based record (the `offset` a select of it takes).
    pub record: u64,
    /// The 1-based line.
    pub line: u64,
    /// The byte offset of the line.
    pub byte_offset: u64,
    /// The record, built as select builds it (cut to
    /// [`SEARCH_VALUE_BUDGET_BYTES`] when larger).
    pub value: Box<RawValue>,
}

/// The answer of JSON Lines search.
#[derive(Debug, Serialize)]
pub struct JsonlSearch {
    /// Always true.
    pub ok: bool,
    /// `jsonl`.
    pub format: &'static str,
    /// Exact, or cut when a hit's record was cut.
    pub view: ViewFlags,
    /// The field judged in each record, or null for any scalar in it.
    pub field: Option<String>,
    /// The hits, in file order (none with `count_only`).
    pub hits: Vec<RecordHit>,
    /// The record the search started at.
    pub offset: u64,
    /// The limit applied.
    pub limit: usize,
    /// Hits returned.
    pub returned: usize,
    /// How many hits were seen and where to continue (`next_offset` is
    /// the record of the next hit).
    #[serde(flatten)]
    pub progress: SearchProgress,
    /// Lines read that are not JSON values (no hits).
    #[serde(skip_serializing_if = "is_zero")]
    pub invalid_lines: u64,
    /// Lines over the line cap, skipped unread (no hits).
    #[serde(skip_serializing_if = "is_zero")]
    pub oversized_lines: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

struct SearchLines<'q> {
    query: &'q Query,
    parser: JsonParser,
    probe: Probe<'q>,
    index: u64,
    hits: Vec<RecordHit>,
    progress: SearchProgress,
    cut: bool,
    invalid: u64,
    oversized: u64,
}

impl LineSink for SearchLines<'_> {
    fn line(&mut self, line: &Line<'_>) -> ControlFlow<()> {
        if line.is_blank() {
            return ControlFlow::Continue(());
        }
        let index = self.index;
        self.index += 1;
        if index < self.query.offset {
            return ControlFlow::Continue(());
        }
        self.probe.reset();
        let judged = scan_text(
            &mut self.parser,
            line.text,
            line.byte_offset,
            line.number,
            &mut self.probe,
        );
        if judged.is_err() {
            self.invalid += 1;
            return ControlFlow::Continue(());
        }
        if !self.probe.matched() {
            return ControlFlow::Continue(());
        }
        self.progress.total += 1;
        if self.query.count_only {
            return ControlFlow::Continue(());
        }
        if self.hits.len() >= self.query.limit {
            self.progress.has_more = true;
            self.progress.next_offset = Some(index);
            return ControlFlow::Break(());
        }
        let mut builder = ValueBuilder::new(SEARCH_VALUE_BUDGET_BYTES);
        if scan_text(
            &mut self.parser,
            line.text,
            line.byte_offset,
            line.number,
            &mut builder,
        )
        .is_ok()
        {
            let built = builder.finish();
            self.cut |= built.cut;
            self.hits.push(RecordHit {
                record: index,
                line: line.number,
                byte_offset: line.byte_offset,
                value: built.json,
            });
        }
        ControlFlow::Continue(())
    }

    fn oversized(&mut self, _number: u64, _at: u64, _len: u64) -> ControlFlow<()> {
        self.index += 1;
        self.oversized += 1;
        ControlFlow::Continue(())
    }
}

/// Searches the records from record `query.offset` for `query`, judging
/// each record's value at `field` (any scalar in it when `None`).
/// Reading stops at the hit past the limit.
///
/// # Errors
/// `invalid-argument` for a field that is not an RFC 6901 pointer; the
/// stream's refusals.
pub fn search<R: BufRead>(
    stream: TextStream<R>,
    field: Option<&str>,
    query: &Query,
) -> Result<JsonlSearch, Refusal> {
    let pointer = field.map(Pointer::parse).transpose()?;
    let mut sink = SearchLines {
        query,
        parser: JsonParser::new(),
        probe: Probe::new(&query.predicate, pointer),
        index: 0,
        hits: Vec::new(),
        progress: SearchProgress::default(),
        cut: false,
        invalid: 0,
        oversized: 0,
    };
    let mut stream = stream;
    let mut splitter = None;
    let _stopped = plumb_core::drive(
        &mut stream,
        &mut splitter,
        crate::splitter::LineSplitter::new,
        &mut sink,
    )?;
    sink.progress.total_exact = !sink.progress.has_more;
    Ok(JsonlSearch {
        ok: true,
        format: "jsonl",
        view: ViewFlags::exact().with_cut(sink.cut),
        field: field.map(str::to_owned),
        returned: sink.hits.len(),
        hits: sink.hits,
        offset: query.offset,
        limit: query.limit,
        progress: sink.progress,
        invalid_lines: sink.invalid,
        oversized_lines: sink.oversized,
    })
}
