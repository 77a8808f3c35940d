//! The run path: a column search's usual records taken in bulk.
//!
//! The block path (`blocks.rs`) reports every record: it opens it,
//! closes it and hands it to the sink, with the state the byte machine
//! would hold at each step, so that either may take over anywhere. For a
//! sink that judges each record by one field (see
//! [`ColumnJudge::row_run`](super::ColumnJudge::row_run)), most of that is spent on records that are all
//! alike: one line, the file's width, nothing to report. The run path
//! takes those with no state but where the current line began, how many
//! delimiters it has passed and where the judged field lies; it judges
//! the field, counts the record, and tells the parser and the sink how
//! many records passed only when the run ends. The first record that is
//! not like the others ends the run before it, at its start, where the
//! block path (and the byte machine behind it) takes it the general way.
//!
//! A block is taken under the block path's own conditions (see
//! [`CsvParser::run_blocks`]), and in addition: no line break inside
//! quotes, no field holding a doubled quote, no comment byte, and no line
//! longer than [`RUN_LINE_BYTES`], well under the field and record caps.
//! What carries from one block to the next (inside quotes or not, a
//! closing quote or a CR on the last byte, a field starting on the first)
//! is checked on the next block's first byte, as the byte machine would.
//!
//! Reference: the record-by-record path its sink would otherwise be handed.
//! Held equal by: `tests/it/runs.rs::runs_account_for_every_record`.

use std::ops::ControlFlow;

use crate::block::{below, Masks, Structure, BLOCK};

use super::{CsvParser, Events, RowRun, State};

/// The longest line a run takes; a longer one ends the run and goes the
/// general way. Far under [`super::CSV_MAX_FIELD_BYTES`] and, with
/// [`super::FIELD_END_COST`] a field, under
/// [`super::CSV_MAX_RECORD_BYTES`]: no record of a run can reach a cap.
pub const RUN_LINE_BYTES: usize = 64 * 1024;

/// How many fields before the judged one a run passes one by one; from
/// further away, a block's delimiters are counted at once (a population
/// count costs about as much as passing this many one by one, without
/// the instruction, which the x86-64 baseline lacks).
pub const RUN_COUNTED_FIELDS: usize = 8;

/// After a run that took no record, how many records go the general
/// way before another run is tried.
pub const RUN_PAUSE_RECORDS: u64 = 32;

impl CsvParser {
    /// Takes the records from `*i` (a record's start, outside quotes)
    /// that lie whole in `input` and fit `run`, judging each by the sink;
    /// leaves `*i` at the first record it did not take.
    pub(super) fn run_rows<S: Events>(
        &mut self,
        input: &[u8],
        i: &mut usize,
        base: u64,
        run: RowRun,
        sink: &mut S,
    ) -> ControlFlow<()> {
        debug_assert!(self.state == State::FieldStart && !self.in_record);
        let (c, quote) = (run.field, self.quote);
        // Where the current line began, and the last whole line's start.
        let mut line_start = *i;
        let mut last_start = *i;
        // Delimiters passed in the current line; field `c`'s bounds.
        let mut fields = 0usize;
        let (mut cell_a, mut cell_b) = (line_start, line_start);
        // What the block before left: inside quotes, a field starting on
        // the next byte, a closing quote or a CR on its last byte.
        let (mut quoted, mut sep_end, mut close_end, mut cr_end) = (false, true, false, false);
        let (mut records, mut hits, mut crlfs) = (0u64, 0u64, 0u64);
        let mut at = *i;
        'blocks: while input.len() - at >= BLOCK && at + BLOCK - line_start <= RUN_LINE_BYTES {
            let mut block = [0u8; BLOCK];
            block.copy_from_slice(&input[at..at + BLOCK]);
            let m = Masks::of(&block, self.delimiter, quote);
            let Structure {
                inside,
                closes,
                delims,
                lfs,
                crs,
                bad_quotes,
                ..
            } = Structure::of(&m, quoted, sep_end);
            let seps = delims | lfs | crs;
            let lone_cr = crs & !((lfs >> 1) | 1 << 63);
            // The last block's closing quote must meet a field's end, not
            // a quote (a doubled quote across the edge) or text; its CR
            // an LF.
            let after_close = (m.delimiter | m.lf | m.cr) & 1 == 1;
            if bad_quotes | lone_cr != 0
                || m.lf != lfs
                || close_end && !after_close
                || cr_end && lfs & 1 == 0
            {
                break;
            }
            let mut terms = lfs;
            let mut ds = delims;
            loop {
                let end = if terms != 0 {
                    terms.trailing_zeros()
                } else {
                    64
                };
                let mut mine = ds & below(end);
                if fields + RUN_COUNTED_FIELDS <= c {
                    // Far from field `c` (a late column of a wide
                    // table): the block's delimiters counted at once,
                    // when field `c` does not end in it.
                    let n = mine.count_ones() as usize;
                    if fields + n <= c {
                        if n != 0 && fields + n == c {
                            cell_a = at + (64 - mine.leading_zeros()) as usize;
                        }
                        fields += n;
                        mine = 0;
                    }
                }
                while mine != 0 && fields <= c {
                    let p = at + mine.trailing_zeros() as usize;
                    mine &= mine - 1;
                    if fields == c {
                        cell_b = p;
                    } else {
                        cell_a = p + 1;
                    }
                    fields += 1;
                }
                fields += mine.count_ones() as usize;
                if terms == 0 {
                    break;
                }
                terms &= terms - 1;
                ds &= !below(end + 1);
                let p = at + end as usize;
                let crlf = if end > 0 {
                    (crs >> (end - 1)) & 1 == 1
                } else {
                    cr_end
                };
                let content_end = p - usize::from(crlf);
                if fields == c {
                    cell_b = content_end;
                }
                if content_end == line_start || fields + 1 != run.width {
                    // A blank line or a record of another width.
                    break 'blocks;
                }
                let cell = match input.get(cell_a..cell_b) {
                    Some([q, inner @ .., _]) if *q == quote => {
                        if memchr::memchr(quote, inner).is_some() {
                            // A doubled quote to unescape.
                            break 'blocks;
                        }
                        inner
                    }
                    Some(cell) => cell,
                    None => break 'blocks,
                };
                let hit = sink.run_holds(cell);
                if hit && run.stop_at_hit {
                    break 'blocks;
                }
                hits += u64::from(hit);
                records += 1;
                crlfs += u64::from(crlf);
                last_start = line_start;
                line_start = p + 1;
                fields = 0;
                cell_a = line_start;
                if records == run.most {
                    break 'blocks;
                }
            }
            quoted = inside >> 63 == 1;
            sep_end = seps >> 63 == 1;
            close_end = closes >> 63 == 1;
            cr_end = crs >> 63 == 1;
            at += BLOCK;
        }
        if records == 0 {
            // The first record was not one for a run: the general way
            // for a while, so a file of such records (all of another
            // width than the header) is not tried at every one.
            self.run_after = self.record_no + RUN_PAUSE_RECORDS;
            return ControlFlow::Continue(());
        }
        // The parser as the records' own close would have left it.
        self.record_no += records;
        self.record_line = self.line + records - 1;
        self.line += records;
        self.record_offset = base + last_start as u64;
        self.field_offset = self.record_offset;
        self.endings.crlf += crlfs;
        self.endings.lf += records - crlfs;
        *i = line_start;
        self.cell_from = line_start;
        sink.run_passed(records, hits)
    }
}
