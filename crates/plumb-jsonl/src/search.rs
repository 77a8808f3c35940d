//! JSON Lines search: the records (non-blank lines, counted as select
//! counts them) whose value at a field pointer matches a pattern or
//! satisfies a predicate (or several conditions), as [`plumb_json::Probes`]
//! judge a value. Each
//! record is parsed once to be judged, and a hit once more to be built;
//! records before the offset are only split, never parsed. A line that
//! is not JSON is no hit, and is counted.

use std::io::BufRead;
use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use plumb_core::{Conditions, Query, Refusal, SearchProgress, SearchWindow, TextStream, ViewFlags};
use plumb_json::{
    scan_text, JsonParser, Matched, Pointer, Probes, ValueBuilder, SEARCH_VALUE_BUDGET_BYTES,
};

use crate::splitter::{Line, LineSink};

/// One record that matched.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// What decided the hit, when `value` was cut or summarized; left
    /// out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<Matched>,
}

/// The answer of JSON Lines search.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct JsonlSearch {
    /// Always true.
    pub ok: bool,
    /// `jsonl`.
    pub format: &'static str,
    /// Exact, or cut when a hit's record was cut.
    pub view: ViewFlags,
    /// The field judged in each record, or null for any scalar in it
    /// (and with conditions, which name their own).
    pub field: Option<String>,
    /// The conditions each record was judged by, when a search gave them
    /// (`{"match": "all", "of": [...]}`); left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Conditions>,
    /// The hits, in file order (none with `count_only`).
    pub hits: Vec<RecordHit>,
    /// The window (flattened): `offset`, the record the search started
    /// at; `limit`; `returned`, the hits returned; and how many hits were
    /// seen and where to continue (`next_offset` is the record of the
    /// next hit).
    #[serde(flatten)]
    pub window: SearchWindow,
    /// Lines read that are not JSON values (no hits).
    #[serde(skip_serializing_if = "is_zero")]
    pub invalid_lines: u64,
    /// Lines over the line cap, skipped unread (no hits).
    #[serde(skip_serializing_if = "is_zero")]
    pub oversized_lines: u64,
    /// Records from the offset on that were not judged whole: lines over
    /// the line cap, and records whose judged string was longer than
    /// [`STRING_CAPTURE_BYTES`](plumb_json::STRING_CAPTURE_BYTES) and did
    /// not match by its start, which did not decide the predicate. Any
    /// may match, so `total` is then a lower bound (`total_exact:
    /// false`). Left out when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub unjudged_records: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What a search of one byte range found, in a form that travels (see
/// [`crate::scan_search_range`]): the sink's counts and hits, its
/// records and lines numbered from the range's start.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct SearchState {
    hits: Vec<RecordHit>,
    before_hit: Vec<(u64, u64, u64, bool)>,
    progress: SearchProgress,
    cut: bool,
    invalid: u64,
    oversized: u64,
    unjudged: u64,
    records: u64,
    lines: u64,
}

impl SearchState {
    /// Whether every count is one a read of `bytes` bytes could give (a
    /// record, a line, a hit each take a byte at least, but the last): a
    /// state read back is a claim, and counts past that would overflow
    /// the sums of a join.
    pub(crate) fn within(&self, bytes: u64) -> bool {
        let most = bytes.saturating_add(1);
        let before = self.before_hit.iter().flat_map(|b| [b.0, b.1, b.2]);
        [
            self.records,
            self.lines,
            self.invalid,
            self.oversized,
            self.unjudged,
            self.progress.total,
        ]
        .into_iter()
        .chain(before)
        .all(|n| n <= most)
    }
}

pub(crate) struct SearchLines<'q> {
    query: &'q Query,
    /// Hits still to pass over before one is kept (`Query::skip_hits`).
    skip_left: u64,
    parser: JsonParser,
    probe: Probes<'q>,
    index: u64,
    hits: Vec<RecordHit>,
    progress: SearchProgress,
    cut: bool,
    invalid: u64,
    oversized: u64,
    /// Records not judged whole (see [`JsonlSearch::unjudged_records`]).
    unjudged: u64,
    /// Physical lines read (a part's lines, for the parts after it).
    lines: u64,
    /// For each hit kept: (invalid, oversized, unjudged, cut) as they
    /// stood just before it, so a split search can cut a part at any hit
    /// exactly.
    before_hit: Vec<(u64, u64, u64, bool)>,
    /// The row of the first hit dropped by [`SearchLines::keep_first`].
    stopped_at: Option<u64>,
    /// Whether the scan stopped at its byte budget.
    budget: bool,
}

impl LineSink for SearchLines<'_> {
    fn line(&mut self, line: &Line<'_>) -> ControlFlow<()> {
        self.lines = line.number;
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
            self.unjudged += u64::from(self.probe.unjudged());
            return ControlFlow::Continue(());
        }
        self.progress.total += 1;
        if self.query.count_only {
            return ControlFlow::Continue(());
        }
        if self.skip_left > 0 {
            // Passed over (the last hits are asked for): counted only.
            self.skip_left -= 1;
            let _ = self.probe.take_found();
            return ControlFlow::Continue(());
        }
        if self.hits.len() >= self.query.limit {
            self.progress.has_more = true;
            self.progress.next_offset = Some(index);
            return ControlFlow::Break(());
        }
        let before = (self.invalid, self.oversized, self.unjudged, self.cut);
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
            self.before_hit.push(before);
            let found = self.probe.take_found();
            self.hits.push(RecordHit {
                record: index,
                line: line.number,
                byte_offset: line.byte_offset,
                value: built.json,
                matched: found.filter(|_| built.cut),
            });
        }
        ControlFlow::Continue(())
    }

    fn oversized(&mut self, number: u64, _at: u64, _len: u64) -> ControlFlow<()> {
        self.lines = number;
        self.unjudged += u64::from(self.index >= self.query.offset);
        self.index += 1;
        self.oversized += 1;
        ControlFlow::Continue(())
    }
}

impl<'q> SearchLines<'q> {
    /// A search of `query` at `pointer`, from the stream's first line.
    ///
    /// # Errors
    /// `invalid-argument` for a field beside conditions, or a condition's
    /// pointer that does not parse.
    pub(crate) fn new(
        query: &'q Query,
        pointer: Option<Pointer>,
    ) -> Result<SearchLines<'q>, Refusal> {
        Ok(SearchLines {
            query,
            skip_left: query.skip_hits,
            parser: JsonParser::new(),
            probe: {
                let mut probe = Probes::of(query, pointer)?;
                // A count shows no hit, and needs no value of one.
                probe.set_capture(!query.count_only);
                probe
            },
            index: 0,
            hits: Vec::new(),
            progress: SearchProgress::default(),
            cut: false,
            invalid: 0,
            oversized: 0,
            unjudged: 0,
            lines: 0,
            before_hit: Vec::new(),
            stopped_at: None,
            budget: false,
        })
    }

    /// What this search found, to travel; `None` when it stopped at its
    /// byte budget (a range's state is only ever of a range read whole).
    pub(crate) fn into_state(self) -> Option<SearchState> {
        (!self.budget && self.stopped_at.is_none()).then_some(SearchState {
            hits: self.hits,
            before_hit: self.before_hit,
            progress: self.progress,
            cut: self.cut,
            invalid: self.invalid,
            oversized: self.oversized,
            unjudged: self.unjudged,
            records: self.index,
            lines: self.lines,
        })
    }

    /// The search of `query` at `pointer` that found `state`, as if it
    /// had read that range here; `None` when the state is not one such
    /// a search gives (a hit for each place before one, no more hits than
    /// the limit).
    pub(crate) fn from_state(
        query: &'q Query,
        pointer: Option<Pointer>,
        state: SearchState,
    ) -> Option<SearchLines<'q>> {
        let mut sink = SearchLines::new(query, pointer).ok()?;
        if state.hits.len() != state.before_hit.len() || state.hits.len() > query.limit {
            return None;
        }
        sink.hits = state.hits;
        sink.before_hit = state.before_hit;
        sink.progress = state.progress;
        sink.cut = state.cut;
        sink.invalid = state.invalid;
        sink.oversized = state.oversized;
        sink.unjudged = state.unjudged;
        sink.index = state.records;
        sink.lines = state.lines;
        Some(sink)
    }

    /// Reads `stream` to its end or to the hit past the limit.
    ///
    /// # Errors
    /// The stream's refusals.
    pub(crate) fn read<R: BufRead>(mut self, stream: TextStream<R>) -> Result<Self, Refusal> {
        let mut stream = stream.within(self.query.max_scan_bytes);
        let mut splitter = None;
        let _flow = plumb_core::drive(
            &mut stream,
            &mut splitter,
            crate::splitter::LineSplitter::new,
            &mut self,
        )?;
        self.budget = stream.stopped_early();
        Ok(self)
    }

    /// How many hits of `later` (the next part of a split search) the
    /// limit leaves room for.
    pub(crate) fn room_for(&self, later: &SearchLines<'_>) -> usize {
        if self.progress.has_more {
            return 0;
        }
        let room = self.query.limit.saturating_sub(self.hits.len());
        room.min(later.hits.len())
    }

    /// Keeps the first `n` hits: a one-thread search would have stopped
    /// at the next, with the counts as they stood before it.
    pub(crate) fn keep_first(&mut self, n: usize) {
        if let (Some(dropped), Some(&(invalid, oversized, unjudged, cut))) =
            (self.hits.get(n), self.before_hit.get(n))
        {
            self.stopped_at = Some(dropped.record);
            (self.invalid, self.oversized, self.unjudged, self.cut) =
                (invalid, oversized, unjudged, cut);
            self.hits.truncate(n);
        }
    }

    /// Takes in the next part of a split search (cut by
    /// [`SearchLines::keep_first`] to the room left), whose records and
    /// lines are offset by the `records` records and `lines` lines before
    /// it: hits, counts and the place to continue are those one thread
    /// would have found.
    pub(crate) fn absorb(&mut self, mut later: SearchLines<'_>, records: u64, lines: u64) {
        if self.progress.has_more {
            return;
        }
        // Saturating: a part read back is a claim (its counts are held
        // to its bytes; its hits' places are not).
        for hit in &mut later.hits {
            hit.record = hit.record.saturating_add(records);
            hit.line = hit.line.saturating_add(lines);
        }
        let kept = later.hits.len() as u64;
        self.progress
            .join_part(&later.progress, kept, later.stopped_at, records);
        self.cut |= later.cut;
        self.invalid += later.invalid;
        self.oversized += later.oversized;
        self.unjudged += later.unjudged;
        self.index += later.index;
        self.lines += later.lines;
        self.hits.append(&mut later.hits);
    }

    /// Records (non-blank lines) and physical lines read.
    pub(crate) fn read_so_far(&self) -> (u64, u64) {
        (self.index, self.lines)
    }

    /// Whether the search stopped at the hit past the limit.
    pub(crate) fn stopped(&self) -> bool {
        self.progress.has_more
    }

    /// The answer.
    pub(crate) fn answer(mut self, field: Option<&str>) -> JsonlSearch {
        // A record not judged whole may match.
        self.progress.total_exact = !self.progress.has_more && self.unjudged == 0;
        if self.budget {
            self.progress
                .stopped_before(self.index.max(self.query.offset));
        }
        JsonlSearch {
            ok: true,
            format: "jsonl",
            view: ViewFlags::of_scan(self.budget).with_cut(self.cut),
            field: field.map(str::to_owned),
            conditions: self.query.conditions.clone(),
            window: SearchWindow {
                offset: self.query.offset,
                passed_over: self.query.skip_hits,
                limit: self.query.limit,
                returned: self.hits.len(),
                progress: self.progress,
            },
            hits: self.hits,
            invalid_lines: self.invalid,
            oversized_lines: self.oversized,
            unjudged_records: self.unjudged,
        }
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
    let sink = SearchLines::new(query, pointer)?.read(stream)?;
    Ok(sink.answer(field))
}
