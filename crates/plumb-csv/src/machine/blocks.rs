//! The block path: 64 bytes at a time with classification masks (see
//! `block.rs`), for records whose fields are counted or handed out as
//! cells; anything else goes back to the byte machine at the block's
//! start.
//!
//! Reference: the byte machine (`machine/bytes.rs`). Held equal by:
//! `tests/it/blocks.rs::block_path_is_the_byte_machine` (with
//! `block_path_at_every_split_of_a_long_example`,
//! `block_path_on_written_files`).

use std::ops::ControlFlow;

use crate::block::{below, below_bit, Masks, Structure, BLOCK};

use super::bytes::unescape_into;
use super::{
    CsvParser, Events, Mode, Record, RowRun, State, CSV_MAX_FIELD_BYTES, CSV_MAX_RECORD_BYTES,
    FIELD_END_COST,
};

impl CsvParser {
    /// The block path: 64 bytes at a time through bit masks, for records
    /// whose fields are not kept (validation counts them, inspect takes
    /// them one by one).
    ///
    /// A block is taken only when the byte machine would find nothing to
    /// report in it: every opening quote starts a field (or doubles a
    /// quote), every closing quote is followed by a delimiter, a line
    /// break or a quote, every CR outside quotes is followed by an LF,
    /// and no cap can be reached. Counting, the fields of a record are
    /// counted with `count_ones` on the delimiter mask and only line
    /// breaks cost a step; handing out cells, each field is a slice of
    /// the input (unescaped into `data` only when it holds doubled quotes
    /// or began in an earlier push). Anything else returns at the block's
    /// start and the byte machine, the reference, takes it; both leave
    /// the parser in the same state, so the paths may alternate anywhere.
    pub(super) fn run_blocks<S: Events>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        sink: &mut S,
    ) -> ControlFlow<()> {
        // A field the byte machine began is continued from the block's start.
        self.cell_from = *i;
        self.cell_quoted = self.state == State::Quoted;
        self.cell_opening = false;
        self.cell_escaped = false;
        let entry = *i;
        self.blocks(input, i, base, sink)?;
        // Leaving mid-field: what the block path held goes into `data`,
        // as the byte machine would have stored it.
        if *i > entry
            && self.in_record
            && self.mode == Mode::Cells
            && matches!(
                self.state,
                State::Unquoted | State::Quoted | State::QuoteInQuoted
            )
        {
            let mut end = *i;
            if self.state == State::QuoteInQuoted {
                // That quote is still undecided: the byte machine decides it.
                end -= 1;
            }
            let from = self.cell_from + usize::from(self.cell_opening);
            let raw = input.get(from..end).unwrap_or_default();
            if self.cell_quoted {
                unescape_into(&mut self.data, raw, self.quote);
            } else {
                self.data.extend_from_slice(raw);
            }
        }
        ControlFlow::Continue(())
    }

    /// The block loop, in the instance for the kind of the block at
    /// `*i` (see [`BlockKind`]), and again in another when a block of
    /// another kind follows.
    pub(super) fn blocks<S: Events>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        sink: &mut S,
    ) -> ControlFlow<()> {
        loop {
            let again = match self.block_kind(sink) {
                BlockKind::Count => self.blocks_as::<S, COUNT>(input, i, base, sink),
                BlockKind::Cells => self.blocks_as::<S, CELLS>(input, i, base, sink),
                BlockKind::Only(_) => self.blocks_as::<S, ONLY>(input, i, base, sink),
            };
            match again {
                ControlFlow::Continue(true) => {}
                ControlFlow::Continue(false) => return ControlFlow::Continue(()),
                ControlFlow::Break(()) => return ControlFlow::Break(()),
            }
        }
    }

    /// What the block path does with the fields of the next block: the
    /// open record's mode, or for a record yet to open the sink's wish.
    #[inline(always)]
    fn block_kind<S: Events>(&self, sink: &S) -> BlockKind {
        let cells = if self.in_record {
            self.mode == Mode::Cells
        } else {
            sink.wants_cells()
        };
        // The one field a column search wants, asked once a block: it
        // changes only when the header is read, and a cell handed
        // out the general way is never wrong (see `only_cell`).
        match (cells, sink.only_cell()) {
            (false, _) => BlockKind::Count,
            (true, None) => BlockKind::Cells,
            (true, Some(c)) => BlockKind::Only(c),
        }
    }

    /// The block loop for blocks of one kind (`KIND`, one of [`COUNT`],
    /// [`CELLS`] and [`ONLY`]): each kind's instance holds only its own
    /// way with fields, which made a column search's loop a few percent
    /// faster than one loop that chose per block. Returns
    /// `Continue(true)` at a block of another kind, `Continue(false)`
    /// where the byte machine is to go on (or the input ends).
    #[inline(always)]
    fn blocks_as<S: Events, const KIND: u8>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        sink: &mut S,
    ) -> ControlFlow<(), bool> {
        while input.len() - *i >= BLOCK {
            let state = self.state;
            let blockable = !self.after_cr
                && !self.runs
                && self.line > self.skip_lines
                && matches!(state, State::FieldStart | State::Unquoted | State::Quoted)
                && if self.in_record {
                    self.mode != Mode::Keep
                } else {
                    !sink.keep_fields()
                };
            if !blockable {
                return ControlFlow::Continue(false);
            }
            if KIND == ONLY && state == State::FieldStart && !self.in_record {
                // At a record's start: the usual records in bulk, if the
                // sink takes them so, and this block the general way
                // from the first that is not.
                if let Some(run) = self.run_terms(sink) {
                    self.run_rows(input, i, base, run, sink)?;
                    if input.len() - *i < BLOCK {
                        return ControlFlow::Continue(false);
                    }
                }
            }
            let mut block = [0u8; BLOCK];
            block.copy_from_slice(&input[*i..*i + BLOCK]);
            let m = Masks::of(&block, self.delimiter, self.quote);
            let at = base + *i as u64;

            // What follows the last byte is not known yet: a closing quote
            // there leaves the machine in QuoteInQuoted to decide.
            let Structure {
                inside,
                opens,
                closes,
                delims,
                lfs,
                crs,
                field_starts,
                bad_quotes,
            } = Structure::of(&m, state == State::Quoted, state == State::FieldStart);
            let lone_cr = crs & !(lfs >> 1);
            if bad_quotes | lone_cr != 0 {
                return ControlFlow::Continue(false);
            }
            if let Some(c) = self.comment {
                // A line that opens with the comment byte is the byte
                // machine's to skip.
                let line_starts =
                    (lfs << 1) | u64::from(state == State::FieldStart && !self.in_record);
                if line_starts & byte_mask(&block, c) != 0 {
                    return ControlFlow::Continue(false);
                }
            }
            if self.in_record {
                let end = at + BLOCK as u64;
                let spent = end - self.record_offset;
                let over = |fields: u64| {
                    spent + FIELD_END_COST as u64 * fields > CSV_MAX_RECORD_BYTES as u64
                };
                // The block ends at most one field a byte: the fields are
                // counted only when that bound would pass the cap.
                if end - self.field_offset > CSV_MAX_FIELD_BYTES as u64
                    || over(self.fields as u64 + BLOCK as u64)
                        && over(self.fields as u64 + u64::from((delims | lfs).count_ones()))
                {
                    return ControlFlow::Continue(false);
                }
            }

            let start = *i;
            let line0 = self.line;
            let line_at = |k: u32| line0 + u64::from((m.lf & below(k)).count_ones());
            // The line at bit `k`, where `passed` line breaks are behind:
            // with no line break inside quotes (the usual block) that is
            // the count of them, and no population count is needed.
            let plain = m.lf == lfs;
            let line_after = |passed: u64, k: u32| {
                if plain {
                    line0 + passed
                } else {
                    line_at(k)
                }
            };
            let mut passed = 0u64;
            let only = match (self.block_kind(sink), KIND) {
                (BlockKind::Count, COUNT) | (BlockKind::Cells, CELLS) => None,
                (BlockKind::Only(c), ONLY) => Some(c),
                // Nothing of this block was taken yet.
                _ => return ControlFlow::Continue(true),
            };
            let cells = KIND != COUNT;
            if cells && state == State::FieldStart {
                // A field (or record) starts with the block.
                self.start_cell(start, 0, opens);
            }
            // `pos`: where the bytes of the current line begin in the block.
            let mut pos = 0u32;
            let mut terms = lfs;
            while terms != 0 {
                let p = terms.trailing_zeros();
                terms &= terms - 1;
                let crlf = p > 0 && (crs >> (p - 1)) & 1 == 1;
                let content_end = p - u32::from(crlf);
                // Inside the loop `p`, `content_end` and `pos` are bits of
                // the block: a line break at or after `pos` is still ahead.
                let ends = delims & below_bit(content_end) & !below_bit(pos);
                let one = match (only, self.in_record) {
                    // A record on one line of this block, its field `c`
                    // a slice of the block (the usual record of a column
                    // search, if lines are shorter than a block).
                    (Some(c), false)
                        if content_end > pos && m.lf & below_bit(p) & !below_bit(pos) == 0 =>
                    {
                        field_at(ends, pos, content_end, c)
                            .and_then(|f| bare(f, m.quote, opens))
                            .map(|f| (c, f))
                    }
                    _ => None,
                };
                if let Some((c, (a, b))) = one {
                    self.line = line_after(passed, pos);
                    if Mode::of(sink) != Mode::Cells {
                        *i = start + pos as usize;
                        return ControlFlow::Continue(false);
                    }
                    self.open_record(at + u64::from(pos), Mode::Cells);
                    passed += 1;
                    self.line = line_after(passed, p + 1);
                    self.count_ending(crlf);
                    pos = p + 1;
                    *i = start + pos as usize;
                    self.cell_from = *i;
                    let fields = ends.count_ones() as usize + 1;
                    let cell = input.get(start + a..start + b).unwrap_or_default();
                    self.plain_record(fields, cell, c, sink)?;
                    continue;
                }
                if !self.in_record {
                    if content_end == pos {
                        passed += 1;
                        self.line = line_after(passed, p + 1);
                        self.count_ending(crlf);
                        self.blank_lines += 1;
                        pos = p + 1;
                        *i = start + pos as usize;
                        sink.blank_line(self.line - 1)?;
                        continue;
                    }
                    self.line = line_after(passed, pos);
                    if !self.open_in_block(sink, cells, start, pos, at, opens) {
                        *i = start + pos as usize;
                        return ControlFlow::Continue(false);
                    }
                }
                if let Some(c) = only {
                    let quotes = (opens, m.quote);
                    self.hand_out_one(input, start, ends, content_end, quotes, c, sink)?;
                } else if cells {
                    self.hand_out(input, start, ends, content_end, (opens, m.quote), sink)?;
                } else {
                    self.fields += ends.count_ones() as usize + 1;
                }
                passed += 1;
                self.line = line_after(passed, p + 1);
                self.count_ending(crlf);
                pos = p + 1;
                *i = start + pos as usize;
                self.emit(at + u64::from(content_end), true, sink)?;
                self.cell_from = *i;
            }
            if KIND == ONLY
                && pos < BLOCK as u32
                && (passed >= 2 || passed == 1 && self.run_terms(sink).is_some())
            {
                // A record starts at `pos` and goes on past the block.
                // Rather than take it in pieces (a field held across the
                // blocks, the record closed the general way), the next
                // block starts where it does: its bytes here are
                // classified again, and a record shorter than a block
                // then takes the one-line way above. Only where lines are
                // short (a whole one lay in this block): a long record
                // would be classified twice for nothing. A line break
                // came before `pos`, so the state there is a record's
                // start, outside quotes, and the loop advances.
                let field_opens = opens & field_starts & below(pos);
                if field_opens != 0 {
                    let k = 63 - field_opens.leading_zeros();
                    self.quote_line = line_at(k);
                    self.quote_offset = at + u64::from(k);
                }
                self.line = line_after(passed, pos);
                self.state = State::FieldStart;
                continue;
            }
            if pos < BLOCK as u32 {
                // The rest of the block belongs to a record still open.
                if !self.in_record {
                    self.line = line_after(passed, pos);
                    if !self.open_in_block(sink, cells, start, pos, at, opens) {
                        *i = start + pos as usize;
                        return ControlFlow::Continue(false);
                    }
                }
                let ends = delims & !below(pos);
                if let Some(c) = only {
                    let quotes = (opens, m.quote);
                    self.hand_out_one(input, start, ends, BLOCK as u32, quotes, c, sink)?;
                } else if cells {
                    self.hand_out(input, start, ends, BLOCK as u32, (opens, m.quote), sink)?;
                }
                if cells {
                    // The last field goes on into the next block.
                    if self.cell_quoted && m.quote & !below(self.first_in(start)) != 0 {
                        self.cell_escaped = true;
                    }
                } else {
                    self.fields += ends.count_ones() as usize;
                }
                if ends != 0 {
                    self.field_offset = at + u64::from(64 - ends.leading_zeros());
                }
            }
            // The byte machine notes where every quoted field opens; the
            // last opening in the block is the one it would hold now.
            let field_opens = opens & field_starts;
            if field_opens != 0 {
                let k = 63 - field_opens.leading_zeros();
                self.quote_line = line_at(k);
                self.quote_offset = at + u64::from(k);
            }
            // Every line break of the block was passed.
            self.line = line_after(passed, BLOCK as u32);
            self.state = if inside >> 63 != 0 {
                State::Quoted
            } else if closes >> 63 != 0 {
                State::QuoteInQuoted
            } else if pos == BLOCK as u32 || delims >> 63 != 0 {
                State::FieldStart
            } else {
                State::Unquoted
            };
            *i = start + BLOCK;
        }
        ControlFlow::Continue(false)
    }

    /// Counts a line ending the block path passed: CRLF or LF.
    #[inline]
    fn count_ending(&mut self, crlf: bool) {
        if crlf {
            self.endings.crlf += 1;
        } else {
            self.endings.lf += 1;
        }
    }

    /// The terms of a run (see [`ColumnJudge::row_run`](super::ColumnJudge::row_run)) the sink would
    /// take from here, where no comment line can interrupt one and no
    /// run failed just before.
    #[inline]
    fn run_terms<S: Events>(&self, sink: &S) -> Option<RowRun> {
        if self.comment.is_some() || self.record_no < self.run_after {
            return None;
        }
        sink.row_run().filter(|run| run.most > 0)
    }

    /// Opens a record at bit `pos` of the block at `start` (file offset
    /// `at`), or returns false when the sink now wants another mode than
    /// the block's, for the byte machine to take over there.
    #[inline]
    pub(super) fn open_in_block<S: Events>(
        &mut self,
        sink: &S,
        cells: bool,
        start: usize,
        pos: u32,
        at: u64,
        opens: u64,
    ) -> bool {
        let mode = Mode::of(sink);
        if mode != if cells { Mode::Cells } else { Mode::Count } {
            return false;
        }
        // Not a kept record: the sink is not told it began.
        self.open_record(at + u64::from(pos), mode);
        self.start_cell(start, pos, opens);
        true
    }

    /// Reports the record just opened, on one line that began and ended
    /// in one block, holding `fields` fields, whose field `c` is `cell`
    /// and needed no unescaping: what handing that field out and emitting
    /// the record would do, in fewer steps. Nothing of it was held in
    /// `data` (no field went on into another block) and no cap can be
    /// reached in a block, so closing it leaves the parser as
    /// [`CsvParser::emit`] does.
    #[inline(always)]
    fn plain_record<S: Events>(
        &mut self,
        fields: usize,
        cell: &[u8],
        c: usize,
        sink: &mut S,
    ) -> ControlFlow<()> {
        self.in_record = false;
        let record = Record {
            number: self.record_no,
            line: self.record_line,
            byte_offset: self.record_offset,
            overflow: None,
            quoting_issues: 0,
            data: &[],
            ends: &[],
            field_count: fields,
        };
        sink.one_cell_record(&record, c, cell)
    }

    /// The first bit of the block at `start` that belongs to the held
    /// field's content (after its opening quote, if that is in the block).
    #[inline]
    pub(super) fn first_in(&self, start: usize) -> u32 {
        match self.cell_from.checked_sub(start) {
            Some(k) => k as u32 + u32::from(self.cell_opening),
            None => 0,
        }
    }

    /// Notes that a field starts at bit `k` of the block at `start`.
    #[inline]
    pub(super) fn start_cell(&mut self, start: usize, k: u32, opens: u64) {
        let opening = (opens >> k) & 1 == 1;
        self.cell_from = start + k as usize;
        self.cell_quoted = opening;
        self.cell_opening = opening;
        self.cell_escaped = false;
    }

    /// Hands out the fields of the open record that end in this block:
    /// one at each bit of `ends` (delimiters), and the last at
    /// `content_end` when that is before the block's end (a line break).
    /// `quotes` is the block's opening quotes and all its quotes.
    #[inline(always)]
    pub(super) fn hand_out<S: Events>(
        &mut self,
        input: &[u8],
        start: usize,
        mut ends: u64,
        content_end: u32,
        (opens, quotes): (u64, u64),
        sink: &mut S,
    ) -> ControlFlow<()> {
        loop {
            let (end, next) = if ends != 0 {
                let d = ends.trailing_zeros();
                ends &= ends - 1;
                (d, d + 1)
            } else if content_end < BLOCK as u32 {
                (content_end, BLOCK as u32)
            } else {
                return ControlFlow::Continue(());
            };
            self.fields += 1;
            let flow = if sink.cell_wanted(self.fields - 1) {
                self.pass_field(input, start, end, quotes, self.fields - 1, sink)
            } else {
                self.data.clear();
                ControlFlow::Continue(())
            };
            flow?;
            if next == BLOCK as u32 {
                // The next field starts with the next block, or the line ended.
                return ControlFlow::Continue(());
            }
            self.start_cell(start, next, opens);
        }
    }

    /// Hands the held field, ending at bit `end` of the block at
    /// `start`, to the sink as field `index`: a slice of the input when
    /// it needs no unescaping and nothing of it was held before, else
    /// through `data`. `quotes` are all the block's quotes.
    #[inline(always)]
    fn pass_field<S: Events>(
        &mut self,
        input: &[u8],
        start: usize,
        end: u32,
        quotes: u64,
        index: usize,
        sink: &mut S,
    ) -> ControlFlow<()> {
        let from = self.cell_from;
        let stop = start + end as usize;
        // A quoted field's bytes end with its closing quote.
        let raw = if self.cell_quoted {
            input.get(from + usize::from(self.cell_opening)..stop - 1)
        } else {
            input.get(from..stop)
        }
        .unwrap_or_default();
        // A quoted field needs unescaping when it holds a quote: the
        // quote bits between its opening and closing quotes tell, with
        // what earlier blocks saw of it.
        let plain = !self.cell_quoted
            || !self.cell_escaped
                && quotes & below(end.saturating_sub(1)) & !below(self.first_in(start)) == 0;
        if plain && self.data.is_empty() {
            return sink.cell(self.record_no, index, raw);
        }
        if plain {
            self.data.extend_from_slice(raw);
        } else {
            unescape_into(&mut self.data, raw, self.quote);
        }
        let flow = sink.cell(self.record_no, index, &self.data);
        self.data.clear();
        flow
    }

    /// [`CsvParser::hand_out`] for a sink that wants field `c` alone (a
    /// column search): the fields before it are passed over by clearing
    /// delimiter bits, field `c` is handed out, and the fields after it
    /// are only counted. Each field that goes on into the next block is
    /// still noted as the open one, so the byte machine can take over at
    /// any block's start.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn hand_out_one<S: Events>(
        &mut self,
        input: &[u8],
        start: usize,
        mut ends: u64,
        content_end: u32,
        (opens, quotes): (u64, u64),
        c: usize,
        sink: &mut S,
    ) -> ControlFlow<()> {
        let line_ends = content_end < BLOCK as u32;
        if ends == 0 && self.fields != c {
            // Only the open field, not `c`, goes on or ends the record.
            self.fields += usize::from(line_ends);
            return ControlFlow::Continue(());
        }
        if self.fields < c {
            // A field before `c` ends here: whatever the byte machine
            // held of it is dropped.
            self.data.clear();
            let mut want = c - self.fields;
            let mut last = 0;
            while want != 0 && ends != 0 {
                last = ends.trailing_zeros();
                ends &= ends - 1;
                want -= 1;
            }
            self.fields = c - want;
            if want != 0 {
                if line_ends {
                    self.fields += 1;
                } else if last + 1 < BLOCK as u32 {
                    self.start_cell(start, last + 1, opens);
                }
                return ControlFlow::Continue(());
            }
            if last + 1 == BLOCK as u32 {
                // Field `c` starts with the next block.
                return ControlFlow::Continue(());
            }
            self.start_cell(start, last + 1, opens);
        }
        if self.fields == c {
            // `at_delimiter`: another field follows in the record.
            let (end, at_delimiter) = if ends != 0 {
                let d = ends.trailing_zeros();
                ends &= ends - 1;
                (d, true)
            } else if line_ends {
                (content_end, false)
            } else {
                // Field `c` goes on into the next block.
                return ControlFlow::Continue(());
            };
            self.fields += 1;
            self.pass_field(input, start, end, quotes, c, sink)?;
            if ends == 0 {
                if !at_delimiter {
                    // Field `c` was the record's last.
                } else if line_ends {
                    // One more field, the record's last.
                    self.fields += 1;
                } else if end + 1 < BLOCK as u32 {
                    // The next field goes on into the next block.
                    self.start_cell(start, end + 1, opens);
                }
                return ControlFlow::Continue(());
            }
        } else {
            self.data.clear();
        }
        // Past `c`: the rest are counted, and the last one noted when it
        // goes on into the next block.
        let last = 63 - ends.leading_zeros();
        let mut n = 0;
        while ends != 0 {
            ends &= ends - 1;
            n += 1;
        }
        self.fields += n + usize::from(line_ends);
        if !line_ends && last + 1 < BLOCK as u32 {
            self.start_cell(start, last + 1, opens);
        }
        ControlFlow::Continue(())
    }
}

/// Where `byte` sits in the block (no bits without a search when it is
/// absent, the common case).
fn byte_mask(block: &[u8; BLOCK], byte: u8) -> u64 {
    if memchr::memchr(byte, block).is_none() {
        return 0;
    }
    block
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == byte)
        .fold(0, |m, (k, _)| m | 1 << k)
}

/// The bits of field `c` (from its first bit to the one after its
/// last) of a line of unquoted fields whose content runs from bit `from`
/// to bit `to`, with delimiters `ends`; `None` when the line has fewer
/// fields.
#[inline(always)]
fn field_at(mut ends: u64, from: u32, to: u32, c: usize) -> Option<(usize, usize)> {
    // Delimiters passed one by one, not counted first: without a
    // population count instruction (the x86-64 baseline has none) a
    // count costs more than the few fields before `c`.
    let mut a = from;
    for _ in 0..c {
        if ends == 0 {
            return None;
        }
        a = ends.trailing_zeros() + 1;
        ends &= ends - 1;
    }
    let b = if ends != 0 { ends.trailing_zeros() } else { to };
    Some((a as usize, b as usize))
}

/// The bytes of a field at bits `a..b` of a block with quotes `quotes`
/// (`opens` of them opening a field), as bits: the same when it holds no
/// quote, those inside its quotes when it is quoted and holds no other;
/// `None` when it has a doubled quote to unescape.
#[inline(always)]
fn bare((a, b): (usize, usize), quotes: u64, opens: u64) -> Option<(usize, usize)> {
    // A field on one line of the block ends before its line break.
    let within = quotes & below_bit(b as u32) & !below_bit(a as u32);
    if within == 0 {
        return Some((a, b));
    }
    let quoted = b >= a + 2 && within == (1 << a | 1 << (b - 1)) && (opens >> a) & 1 == 1;
    quoted.then_some((a + 1, b - 1))
}

/// What the block path does with a block's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockKind {
    /// Counts them (validation).
    Count,
    /// Hands each to the sink (inspect).
    Cells,
    /// Hands field `c` alone to the sink (a column search).
    Only(usize),
}

/// `KIND` of [`CsvParser::blocks_as`] for [`BlockKind::Count`].
const COUNT: u8 = 0;
/// `KIND` of [`CsvParser::blocks_as`] for [`BlockKind::Cells`].
const CELLS: u8 = 1;
/// `KIND` of [`CsvParser::blocks_as`] for [`BlockKind::Only`].
const ONLY: u8 = 2;
