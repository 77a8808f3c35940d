//! The window part of an answer: where a select or a search started,
//! what it was allowed, what it returned and how to go on. Every windowed
//! answer flattens one of these into its JSON, so the fields read the
//! same in every format and one implementation tells [`crate::Answer`]
//! its counts.

use serde::Serialize;

use crate::{SearchProgress, WindowCounts};

/// What an answer's window tells [`crate::Answer::window`] and
/// [`crate::Answer::next_offset`]; [`crate::impl_answer!`] reads it from
/// the answer's window field.
pub trait AnswerWindow {
    /// The counts, or `None` for an answer that was not windowed.
    fn counts(&self) -> Option<WindowCounts>;
    /// Where the caller continues from, when more follows: by default
    /// the end of the window.
    fn next_offset(&self) -> Option<u64> {
        self.counts()
            .filter(|w| w.has_more)
            .map(|w| w.offset + w.returned)
    }
}

/// The window of a select counted from the start: items skipped, the
/// limit, items returned, whether more follow.
///
/// ```
/// use plumb_core::{AnswerWindow, SelectWindow};
/// let w = SelectWindow { offset: 10, limit: 5, returned: 5, has_more: true };
/// assert_eq!(w.next_offset(), Some(15));
/// assert_eq!(
///     serde_json::to_string(&w).unwrap(),
///     r#"{"offset":10,"limit":5,"returned":5,"has_more":true}"#
/// );
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SelectWindow {
    /// Items skipped before the window.
    pub offset: u64,
    /// The limit applied.
    pub limit: usize,
    /// Items returned.
    pub returned: usize,
    /// Whether items follow the window.
    pub has_more: bool,
}

impl AnswerWindow for SelectWindow {
    fn counts(&self) -> Option<WindowCounts> {
        Some(WindowCounts {
            returned: self.returned as u64,
            offset: self.offset,
            limit: self.limit as u64,
            has_more: self.has_more,
        })
    }
}

/// A select that may be a whole value rather than a window (JSON's
/// pointer to one value): flattened, `None` writes no window fields.
impl AnswerWindow for Option<SelectWindow> {
    fn counts(&self) -> Option<WindowCounts> {
        self.as_ref().and_then(AnswerWindow::counts)
    }
}

/// The window of a select that may count from the end (the last N rows
/// or records): when it did and the total was not known, `offset` is
/// none and the answer has no counts to continue from.
///
/// ```
/// use plumb_core::{AnswerWindow, TailSelectWindow};
/// let w = TailSelectWindow {
///     offset: None, from_end: Some(3), counted_from_end: true,
///     limit: 3, returned: 3, has_more: false,
/// };
/// assert_eq!(w.counts(), None);
/// assert_eq!(
///     serde_json::to_string(&w).unwrap(),
///     r#"{"offset":null,"from_end":3,"counted_from_end":true,"limit":3,"returned":3,"has_more":false}"#
/// );
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct TailSelectWindow {
    /// Items skipped before the window, when known.
    pub offset: Option<u64>,
    /// The N of "the last N", when that was asked.
    pub from_end: Option<u64>,
    /// Whether the window was found by reading back from the end.
    pub counted_from_end: bool,
    /// The limit applied.
    pub limit: usize,
    /// Items returned.
    pub returned: usize,
    /// Whether items follow the window.
    pub has_more: bool,
}

impl AnswerWindow for TailSelectWindow {
    fn counts(&self) -> Option<WindowCounts> {
        self.offset.map(|offset| WindowCounts {
            returned: self.returned as u64,
            offset,
            limit: self.limit as u64,
            has_more: self.has_more,
        })
    }
}

/// The window of a search: the offset it started from (in the format's
/// unit), the limit, the hits returned, and where it stopped.
///
/// ```
/// use plumb_core::{AnswerWindow, SearchProgress, SearchWindow};
/// let w = SearchWindow {
///     offset: 0, passed_over: 0, limit: 2, returned: 2,
///     progress: SearchProgress { total: 3, total_exact: false, has_more: true, next_offset: Some(41) },
/// };
/// assert_eq!(w.next_offset(), Some(41));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SearchWindow {
    /// The offset the search started from.
    pub offset: u64,
    /// Hits passed over before the first returned (a search for the last
    /// hits, `-N`: every hit but the last N); left out when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub passed_over: u64,
    /// The most hits returned.
    pub limit: usize,
    /// Hits returned.
    pub returned: usize,
    /// How many hits it saw and where it stopped.
    #[serde(flatten)]
    pub progress: SearchProgress,
}

impl AnswerWindow for SearchWindow {
    fn counts(&self) -> Option<WindowCounts> {
        Some(WindowCounts {
            returned: self.returned as u64,
            offset: self.offset,
            limit: self.limit as u64,
            has_more: self.progress.has_more,
        })
    }
    /// Where the next hit is, not the end of the window: hits are
    /// sparse, and the search knows where it stopped.
    fn next_offset(&self) -> Option<u64> {
        self.progress.next_offset
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
