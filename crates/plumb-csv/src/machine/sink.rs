//! What the parser hands out: [`Record`]s, and the [`CsvSink`] that
//! receives them with issues and blank lines.

use std::ops::ControlFlow;

use plumb_core::{PushMachine, Refusal};

use super::{CsvParser, Issue, IssueKind};

/// One parsed record, borrowed from the parser.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    /// The 1-based record number (the header counts).
    pub number: u64,
    /// The 1-based line it starts on.
    pub line: u64,
    /// The absolute byte offset of its first byte.
    pub byte_offset: u64,
    /// Set when a cap was hit: the record's content is incomplete.
    pub overflow: Option<IssueKind>,
    /// How many quoting issues (`bare-quote`, `text-after-quote`,
    /// `unterminated-quote`) it has.
    pub quoting_issues: u32,
    pub(super) data: &'a [u8],
    pub(super) ends: &'a [u32],
    pub(super) field_count: usize,
}

impl<'a> Record<'a> {
    /// A record over stored fields, for sinks that keep one and replay it.
    pub fn from_parts(
        number: u64,
        line: u64,
        byte_offset: u64,
        data: &'a [u8],
        ends: &'a [u32],
    ) -> Record<'a> {
        Record {
            number,
            line,
            byte_offset,
            overflow: None,
            quoting_issues: 0,
            data,
            ends,
            field_count: ends.len(),
        }
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.field_count
    }

    /// Whether the record has no fields (never, for a parsed record).
    pub fn is_empty(&self) -> bool {
        self.field_count == 0
    }

    /// Whether field contents were kept (the sink asked for them).
    pub fn has_fields(&self) -> bool {
        self.ends.len() == self.field_count
    }

    /// The content of field `i`, unescaped; `None` past the end or when
    /// contents were not kept.
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 {
            0
        } else {
            *self.ends.get(i - 1)? as usize
        };
        self.data.get(start..end)
    }

    /// Field `i` as text. Fields of a validated stream are UTF-8; a field
    /// cut by a cap in the middle of a character is shown lossily.
    pub fn get_str(&self, i: usize) -> Option<std::borrow::Cow<'a, str>> {
        self.get(i).map(String::from_utf8_lossy)
    }

    /// The fields, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        (0..self.ends.len()).filter_map(move |i| self.get(i))
    }

    /// The stored bytes and field ends, to keep a copy.
    pub fn parts(&self) -> (&'a [u8], &'a [u32]) {
        (self.data, self.ends)
    }
}

/// What the parser tells its consumer: the reference events, which every
/// path of the parser produces alike. Every event may stop the parse by
/// returning `ControlFlow::Break`; the parser then reads nothing further.
///
/// A sink that reads one column and judges records by it may offer
/// [`ColumnJudge`] too, and be pushed with [`CsvParser::push_judged`]:
/// the parser then takes such records in bulk.
pub trait CsvSink {
    /// Whether to keep field contents for the record about to start.
    /// Validation alone needs none, and keeping none is faster.
    fn keep_fields(&self) -> bool {
        true
    }

    /// Whether, for a record whose fields are not kept, each field's
    /// content should be handed to [`CsvSink::cell`] as it ends. A sink
    /// that folds cells one by one (inspect) asks for this: fields then
    /// come straight from the input when they need no unescaping, with
    /// no copy.
    fn wants_cells(&self) -> bool {
        false
    }

    /// Field `index` (0-based) of record `record` (1-based), unescaped,
    /// for a sink that [wants cells](CsvSink::wants_cells). Cells come in
    /// order, before their record's [`CsvSink::record`] event, which then
    /// carries the field count but no contents.
    fn cell(&mut self, record: u64, index: usize, content: &[u8]) -> ControlFlow<()> {
        let _ = (record, index, content);
        ControlFlow::Continue(())
    }

    /// Record `record` (1-based), whose fields this sink would keep, has
    /// begun: its first byte was read, so it will be reported (at the
    /// latest by [`CsvParser::finish`](super::CsvParser::finish)). Called before any of its cells
    /// or issues, and before [`CsvSink::keep_fields`] is asked for it
    /// again: a sink may change its mind here. A sink that holds one
    /// record while it waits to learn whether another follows learns it
    /// here, before the new record's content takes memory. (Records the
    /// sink would not keep begin unannounced: the block path opens them
    /// with no call.)
    fn record_begins(&mut self, record: u64) -> ControlFlow<()> {
        let _ = record;
        ControlFlow::Continue(())
    }

    /// A complete record.
    fn record(&mut self, record: &Record<'_>) -> ControlFlow<()>;

    /// Right after [`CsvSink::record`] for a record whose fields were
    /// kept: the buffers they live in (see [`Record::parts`]). A sink that must keep the
    /// record may take them (`std::mem::take`) instead of copying them,
    /// so the record is never held twice; the parser then starts on new
    /// buffers. Leaving them costs nothing.
    fn adopt(&mut self, data: &mut Vec<u8>, ends: &mut Vec<u32>) {
        let _ = (data, ends);
    }

    /// A problem, reported when it is found (before its record).
    fn issue(&mut self, issue: &Issue) -> ControlFlow<()> {
        let _ = issue;
        ControlFlow::Continue(())
    }

    /// An empty line between records (not a record).
    fn blank_line(&mut self, line: u64) -> ControlFlow<()> {
        let _ = line;
        ControlFlow::Continue(())
    }

    /// The input ended and the parser closed its last record (not called
    /// when the sink stopped the parse first): a sink that held a record
    /// back to decide about it decides now.
    fn end_of_input(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// The end, whether the input ended or the sink stopped the parse: a
    /// sink that stopped because the answer cannot be given (a column
    /// that is not in the header) says why here, and the drive loop
    /// returns it.
    ///
    /// # Errors
    /// The sink's refusal.
    fn finish(&mut self) -> Result<(), Refusal> {
        Ok(())
    }
}

/// What a sink that judges records by one column (a column search) may
/// offer beside the reference events, for a parser pushed with
/// [`CsvParser::push_judged`]: which fields it wants, and the terms on
/// which records are taken in bulk. Every method is a hint the events
/// must agree with: a sink answers the same whichever path a record
/// took, and a test holds the judged paths equal to the plain events
/// (`tests/it/runs.rs`, `tests/it/blocks.rs`).
pub trait ColumnJudge: CsvSink {
    /// Whether [`CsvSink::cell`] wants field `index` at all: a sink that
    /// reads one column says no to the rest, and the block path then
    /// skips them without slicing or unescaping. A hint only: cells may
    /// still come, and a sink ignores those it did not want.
    #[inline]
    fn cell_wanted(&self, index: usize) -> bool {
        let _ = index;
        true
    }

    /// The one field [`CsvSink::cell`] wants, when the sink wants only
    /// one: the block path then passes over the other fields of a block
    /// by counting delimiters, not one by one. A hint like
    /// [`ColumnJudge::cell_wanted`], which it must agree with.
    #[inline]
    fn only_cell(&self) -> Option<usize> {
        None
    }

    /// A record on one line that the block path read whole, for a sink
    /// that wants [only](ColumnJudge::only_cell) field `index`: `cell` is
    /// that field, and `record` carries the field count but no contents.
    /// The same as [`CsvSink::cell`] then [`CsvSink::record`], which is
    /// what it does unless a sink takes it in fewer steps (judging a row
    /// at once).
    #[inline(always)]
    fn one_cell_record(
        &mut self,
        record: &Record<'_>,
        index: usize,
        cell: &[u8],
    ) -> ControlFlow<()> {
        self.cell(record.number, index, cell)?;
        self.record(record)
    }

    /// Whether the parser may take a run of records in bulk, for a sink
    /// that wants [only](ColumnJudge::only_cell) one field and judges each
    /// record by it: the run's terms, or `None` for record by record.
    /// Asked at a record's start, before each run.
    ///
    /// A run holds records each on one line, each exactly
    /// [`RowRun::width`] fields wide, with no issue, no field to
    /// unescape and no cap near; the first record that is anything else
    /// ends it and comes the usual way. Each record of the run is
    /// judged by [`ColumnJudge::run_holds`] on its field [`RowRun::field`],
    /// and the run is told at its end by [`ColumnJudge::run_passed`] in
    /// place of the records' [`CsvSink::cell`] and [`CsvSink::record`]
    /// events.
    #[inline]
    fn row_run(&self) -> Option<RowRun> {
        None
    }

    /// Whether field [`RowRun::field`] of a record in a run, `cell`
    /// (as it lies in the input, its quotes taken off), makes the record
    /// a hit.
    #[inline]
    fn run_holds(&self, cell: &[u8]) -> bool {
        let _ = cell;
        false
    }

    /// A run ended: `records` records passed in bulk (the next ones in
    /// number), `hits` of them a hit by [`ColumnJudge::run_holds`].
    fn run_passed(&mut self, records: u64, hits: u64) -> ControlFlow<()> {
        let _ = (records, hits);
        ControlFlow::Continue(())
    }
}

/// The terms of a run of records taken in bulk (see
/// [`ColumnJudge::row_run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowRun {
    /// The field (0-based) each record is judged by; under `width`.
    pub field: usize,
    /// How many fields each record of the run has.
    pub width: usize,
    /// The most records the run may take (a row cap's room); at 0 no
    /// run is taken.
    pub most: u64,
    /// Whether the run ends before a record that is a hit, which then
    /// comes the usual way (a search that lists its hits); else hits
    /// are only counted.
    pub stop_at_hit: bool,
}

/// A [`ColumnJudge`] sink, as the one drive loop (`plumb_core::drive`)
/// takes it: the parser drives it by [`CsvParser::push_judged`].
#[derive(Debug)]
pub struct Judged<'a, S: ?Sized>(pub &'a mut S);

/// What the parser's paths call: the reference events of a [`CsvSink`]
/// and the hints of a [`ColumnJudge`]. A plain sink is wrapped in
/// [`Plain`], whose hints say "no column judged", a judging one in
/// [`Judged`]; both are resolved at compile time, so the plain parse
/// carries none of the judging and the judged one no indirection.
pub(super) trait Events {
    type Sink: CsvSink + ?Sized;
    fn sink(&mut self) -> &mut Self::Sink;
    fn sink_ref(&self) -> &Self::Sink;

    #[inline(always)]
    fn keep_fields(&self) -> bool {
        self.sink_ref().keep_fields()
    }
    #[inline(always)]
    fn wants_cells(&self) -> bool {
        self.sink_ref().wants_cells()
    }
    #[inline(always)]
    fn cell(&mut self, record: u64, index: usize, content: &[u8]) -> ControlFlow<()> {
        self.sink().cell(record, index, content)
    }
    #[inline(always)]
    fn record_begins(&mut self, record: u64) -> ControlFlow<()> {
        self.sink().record_begins(record)
    }
    #[inline(always)]
    fn record(&mut self, record: &Record<'_>) -> ControlFlow<()> {
        self.sink().record(record)
    }
    #[inline(always)]
    fn adopt(&mut self, data: &mut Vec<u8>, ends: &mut Vec<u32>) {
        self.sink().adopt(data, ends)
    }
    #[inline(always)]
    fn issue(&mut self, issue: &Issue) -> ControlFlow<()> {
        self.sink().issue(issue)
    }
    #[inline(always)]
    fn blank_line(&mut self, line: u64) -> ControlFlow<()> {
        self.sink().blank_line(line)
    }

    fn cell_wanted(&self, index: usize) -> bool;
    fn only_cell(&self) -> Option<usize>;
    fn one_cell_record(
        &mut self,
        record: &Record<'_>,
        index: usize,
        cell: &[u8],
    ) -> ControlFlow<()>;
    fn row_run(&self) -> Option<RowRun>;
    fn run_holds(&self, cell: &[u8]) -> bool;
    fn run_passed(&mut self, records: u64, hits: u64) -> ControlFlow<()>;
}

/// A sink that judges no column: every record comes as events.
pub(super) struct Plain<'a, S: ?Sized>(pub(super) &'a mut S);

impl<S: CsvSink + ?Sized> Events for Plain<'_, S> {
    type Sink = S;
    #[inline(always)]
    fn sink(&mut self) -> &mut S {
        self.0
    }
    #[inline(always)]
    fn sink_ref(&self) -> &S {
        self.0
    }
    #[inline(always)]
    fn cell_wanted(&self, _index: usize) -> bool {
        true
    }
    #[inline(always)]
    fn only_cell(&self) -> Option<usize> {
        None
    }
    #[inline(always)]
    fn one_cell_record(
        &mut self,
        record: &Record<'_>,
        index: usize,
        cell: &[u8],
    ) -> ControlFlow<()> {
        self.0.cell(record.number, index, cell)?;
        self.0.record(record)
    }
    #[inline(always)]
    fn row_run(&self) -> Option<RowRun> {
        None
    }
    #[inline(always)]
    fn run_holds(&self, _cell: &[u8]) -> bool {
        false
    }
    #[inline(always)]
    fn run_passed(&mut self, _records: u64, _hits: u64) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

impl<S: ColumnJudge + ?Sized> Events for Judged<'_, S> {
    type Sink = S;
    #[inline(always)]
    fn sink(&mut self) -> &mut S {
        self.0
    }
    #[inline(always)]
    fn sink_ref(&self) -> &S {
        self.0
    }
    #[inline(always)]
    fn cell_wanted(&self, index: usize) -> bool {
        self.0.cell_wanted(index)
    }
    #[inline(always)]
    fn only_cell(&self) -> Option<usize> {
        self.0.only_cell()
    }
    #[inline(always)]
    fn one_cell_record(
        &mut self,
        record: &Record<'_>,
        index: usize,
        cell: &[u8],
    ) -> ControlFlow<()> {
        self.0.one_cell_record(record, index, cell)
    }
    #[inline(always)]
    fn row_run(&self) -> Option<RowRun> {
        self.0.row_run()
    }
    #[inline(always)]
    fn run_holds(&self, cell: &[u8]) -> bool {
        self.0.run_holds(cell)
    }
    #[inline(always)]
    fn run_passed(&mut self, records: u64, hits: u64) -> ControlFlow<()> {
        self.0.run_passed(records, hits)
    }
}

/// Forwards every event through a pointer type, so `&mut S` and
/// `Box<S>` are sinks wherever `S` is.
macro_rules! forward_csv_sink {
    ($($ty:ty),*) => {$(
impl<S: CsvSink + ?Sized> CsvSink for $ty {
    fn keep_fields(&self) -> bool {
        (**self).keep_fields()
    }
    fn wants_cells(&self) -> bool {
        (**self).wants_cells()
    }
    fn cell(&mut self, record: u64, index: usize, content: &[u8]) -> ControlFlow<()> {
        (**self).cell(record, index, content)
    }
    fn record_begins(&mut self, record: u64) -> ControlFlow<()> {
        (**self).record_begins(record)
    }
    fn record(&mut self, record: &Record<'_>) -> ControlFlow<()> {
        (**self).record(record)
    }
    fn adopt(&mut self, data: &mut Vec<u8>, ends: &mut Vec<u32>) {
        (**self).adopt(data, ends)
    }
    fn issue(&mut self, issue: &Issue) -> ControlFlow<()> {
        (**self).issue(issue)
    }
    fn blank_line(&mut self, line: u64) -> ControlFlow<()> {
        (**self).blank_line(line)
    }
    fn end_of_input(&mut self) -> ControlFlow<()> {
        (**self).end_of_input()
    }
    fn finish(&mut self) -> Result<(), Refusal> {
        (**self).finish()
    }
}
impl<S: ColumnJudge + ?Sized> ColumnJudge for $ty {
    fn cell_wanted(&self, index: usize) -> bool {
        (**self).cell_wanted(index)
    }
    fn only_cell(&self) -> Option<usize> {
        (**self).only_cell()
    }
    fn one_cell_record(&mut self, record: &Record<'_>, index: usize, cell: &[u8]) -> ControlFlow<()> {
        (**self).one_cell_record(record, index, cell)
    }
    fn row_run(&self) -> Option<RowRun> {
        (**self).row_run()
    }
    fn run_holds(&self, cell: &[u8]) -> bool {
        (**self).run_holds(cell)
    }
    fn run_passed(&mut self, records: u64, hits: u64) -> ControlFlow<()> {
        (**self).run_passed(records, hits)
    }
}
    )*};
}

forward_csv_sink!(&mut S, Box<S>);

/// The parser in the one drive loop (`plumb_core::drive`).
impl<S: CsvSink + ?Sized> PushMachine<S> for CsvParser {
    #[inline]
    fn push(&mut self, input: &[u8], sink: &mut S) -> Result<ControlFlow<()>, Refusal> {
        Ok(CsvParser::push(self, input, sink))
    }
    fn finish(&mut self, sink: &mut S) -> Result<ControlFlow<()>, Refusal> {
        let flow = CsvParser::finish(self, sink);
        Ok(if flow.is_break() {
            flow
        } else {
            sink.end_of_input()
        })
    }
    fn close(&mut self, sink: &mut S) -> Result<(), Refusal> {
        sink.finish()
    }
}

/// The parser in the one drive loop, for a sink that judges a column.
impl<S: ColumnJudge + ?Sized> PushMachine<Judged<'_, S>> for CsvParser {
    #[inline]
    fn push(&mut self, input: &[u8], sink: &mut Judged<'_, S>) -> Result<ControlFlow<()>, Refusal> {
        Ok(CsvParser::push_judged(self, input, sink.0))
    }
    fn finish(&mut self, sink: &mut Judged<'_, S>) -> Result<ControlFlow<()>, Refusal> {
        let flow = CsvParser::finish_judged(self, sink.0);
        Ok(if flow.is_break() {
            flow
        } else {
            sink.0.end_of_input()
        })
    }
    fn close(&mut self, sink: &mut Judged<'_, S>) -> Result<(), Refusal> {
        sink.0.finish()
    }
}
