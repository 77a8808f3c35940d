//! A search across parts: the pieces of a split search (a thread's
//! part or a byte range's task) cut to the room the limit leaves and
//! joined in file order, the form a range's part travels in, and the
//! probe a range past the first resolves its column with.

use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};

use plumb_core::{Query, Refusal, SearchProgress};

use crate::machine::{Issue, Record};
use crate::scan::RowSink;

use super::super::select::Head;
use super::super::{ColumnRef, SelectCell};
use super::{RowHit, SearchSink};

/// What a search of one byte range found, in a form that travels (see
/// [`crate::scan_search_range`]): its hits (their cells read back) and
/// counts, rows and lines numbered from the range's start, and the
/// column it searched.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct SearchState {
    column: Option<usize>,
    header: Option<Vec<SelectCell>>,
    hits: Vec<RowHit>,
    progress: SearchProgress,
    cut: bool,
}

impl SearchSink {
    /// What this search found, to travel; `None` unless it can join a
    /// split search exactly: no issue, every row judged whole, every
    /// hit's cells read back, not cut by [`SearchSink::keep_first`].
    pub fn into_state(self) -> Option<SearchState> {
        let whole = self.issues == 0 && self.unjudged == 0 && self.error.is_none();
        let fetched = self.to_fetch.is_empty() && self.stopped_at.is_none();
        (whole && fetched && self.resolved).then_some(SearchState {
            column: self.column,
            header: self.header,
            hits: self.hits,
            progress: self.progress,
            cut: self.cut,
        })
    }

    /// The search of `query` that found `state`, as if it had read that
    /// range here; `None` when the state holds more hits than the limit.
    pub fn from_state(query: Query, state: SearchState) -> Option<SearchSink> {
        if state.hits.len() > query.limit || query.conditions.is_some() {
            return None;
        }
        Some(SearchSink {
            header: state.header,
            hits: state.hits,
            progress: state.progress,
            cut: state.cut,
            ..SearchSink::later_part(query, state.column)
        })
    }

    /// Ends the byte range of a hit whose row ended its part: the row
    /// ends where the next part starts.
    pub fn close_span(&mut self, end: u64) {
        if let Some(i) = self.open_span.take() {
            if let Some(span) = self.to_fetch.get_mut(i) {
                span.2 = Some(end);
            }
        }
    }

    /// How many of `later`'s hits (the next part of a split search) this
    /// search keeps: as many as its limit leaves room for. `None` when
    /// they cannot be cut there exactly: a hit to be dropped may have
    /// marked the part's answer cut.
    pub fn room_for(&self, later: &SearchSink) -> Option<usize> {
        let room = self.query.limit.saturating_sub(self.hits.len());
        if self.progress.has_more {
            return Some(0);
        }
        if later.hits.len() > room && later.cut {
            return None;
        }
        Some(room.min(later.hits.len()))
    }

    /// Keeps the first `n` hits, noting the row of the first one dropped
    /// (where a one-thread search would have stopped).
    pub fn keep_first(&mut self, n: usize) {
        if let Some(dropped) = self.hits.get(n) {
            self.stopped_at = Some(dropped.row);
            self.hits.truncate(n);
            self.to_fetch.retain(|&(hit, _, _)| hit < n);
        }
    }

    /// Takes in the next part of a split search (its hits read back, cut
    /// to [`SearchSink::room_for`] by [`SearchSink::keep_first`]), whose
    /// rows and lines are offset by the `rows` data rows and `lines` line
    /// breaks before it: the hits and counts are those one thread would
    /// have found, stopping where it would have stopped.
    pub fn absorb(&mut self, mut later: SearchSink, rows: u64, lines: u64) {
        if self.progress.has_more {
            return;
        }
        // Saturating: a part read back is a claim.
        for hit in &mut later.hits {
            hit.row = hit.row.saturating_add(rows);
            hit.line = hit.line.saturating_add(lines);
        }
        let kept = later.hits.len() as u64;
        self.progress
            .join_part(&later.progress, kept, later.stopped_at, rows);
        self.cut |= later.cut;
        self.hits.append(&mut later.hits);
    }
}

/// Resolves the column a search names as the first part of a split
/// search resolves it (by the header's names, or by the first data
/// row's width), and reads no further: a byte range past the first
/// judges its rows by that column, and learns it this way from the
/// file's head rather than from the first range's task.
pub(crate) struct ColumnProbe {
    wanted: Option<ColumnRef>,
    /// `Some(Ok(column))` once resolved (`None` inside: any column).
    pub(crate) resolved: Option<Result<Option<usize>, Refusal>>,
}

impl ColumnProbe {
    pub(crate) fn new(wanted: Option<ColumnRef>) -> ColumnProbe {
        ColumnProbe {
            wanted,
            resolved: None,
        }
    }

    fn settle(&mut self, head: Head<'_, '_>) {
        let column = match &self.wanted {
            Some(w) => w.resolve_past_header(head).map(Some),
            None => Ok(None),
        };
        self.resolved = Some(column);
    }
}

impl RowSink for ColumnProbe {
    fn header(&mut self, header: Option<&Record<'_>>) -> Result<(), Refusal> {
        if let Some(h) = header {
            self.settle(Head::Header(h));
        }
        Ok(())
    }

    fn row(&mut self, _index: u64, row: &Record<'_>) -> ControlFlow<()> {
        if self.resolved.is_none() {
            self.settle(Head::FirstRow(row));
        }
        ControlFlow::Break(())
    }

    fn issue(&mut self, _issue: &Issue) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}
