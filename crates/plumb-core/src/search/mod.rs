//! What a search asks, shared by every format: a [`Matcher`] for a
//! pattern, a [`Predicate`] over one value, and the [`Query`] that holds
//! them with the flags every search takes.
//!
//! Each engine finds its own values (a line, a cell, the value at a
//! pointer in a record) and hands them to [`Predicate::test`] as a
//! [`Subject`]; the rules for what matches live here, once, so a
//! predicate means the same thing on a CSV cell and a JSON value.
//! The rooms: `matcher` (patterns), `predicate` (one value judged),
//! `number` (numbers compared exactly, in tiers), `time` (dates and
//! timestamps as instants), `conditions` (several tests of a record
//! joined), `query` (the request and how far a search went).
//!
//! Patterns are compiled by the `regex` crate, which runs in time linear
//! in the input (no backtracking) and refuses a pattern whose compiled
//! form passes [`REGEX_SIZE_LIMIT`]; so a hostile pattern can neither
//! exhaust memory nor run away. A pattern without regex syntax (and
//! without the case or word flags) is searched as a literal with
//! `memchr::memmem`, the fastest substring search there is for it.

mod conditions;
mod matcher;
mod number;
mod predicate;
mod query;
mod time;

pub use conditions::{Condition, Conditions, MatchMode, Verdict, SEARCH_MAX_CONDITIONS};
pub use time::instant_of;

pub use matcher::Matcher;
pub use number::{compare_number_literals, is_number_literal, NumberKey};
pub use predicate::{CompareOp, Predicate, Subject, SubjectKind};
pub use query::{Query, SearchProgress};

/// Hits one search returns when no limit is given.
pub const SEARCH_DEFAULT_LIMIT: usize = 20;

/// The most hits one search returns; a larger limit is served at this
/// cap and the answer says where to continue.
pub const SEARCH_MAX_LIMIT: usize = 1000;

/// The most bytes of a hit's text (a line, a cell) an answer carries: a
/// longer one is cut to a window around its first match, which always
/// stays inside the cut.
pub const SEARCH_TEXT_BYTES: usize = 240;

/// The most context lines before and after a hit (text search).
pub const SEARCH_CONTEXT_MAX: u64 = 10;

/// The longest pattern taken, in bytes.
pub const PATTERN_MAX_BYTES: usize = 4096;

/// The most heap a compiled pattern may take (the regex crate's
/// `size_limit`); a larger one is refused `invalid-argument`.
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// The most heap the regex crate's lazy DFA cache may take while a
/// pattern runs (`dfa_size_limit`).
pub const REGEX_DFA_SIZE_LIMIT: usize = 2 << 20;

/// The deepest nesting of groups and repetitions a pattern may have.
pub const REGEX_NEST_LIMIT: u32 = 64;

/// `text` cut to at most `budget` bytes around the match `at` (a byte
/// range in it), at character boundaries: the match is kept whole when
/// it fits, else its start. Returns the kept text (lossy UTF-8), the
/// byte offset in `text` where it starts, and whether it was cut.
///
/// ```
/// let line = format!("{}needle{}", "a".repeat(300), "b".repeat(300));
/// let (kept, from, cut) = plumb_core::cut_around(line.as_bytes(), Some((300, 306)), 60);
/// assert!(cut && kept.contains("needle") && kept.len() <= 60);
/// assert_eq!(&line[from..from + kept.len()], kept);
/// ```
pub fn cut_around(text: &[u8], at: Option<(usize, usize)>, budget: usize) -> (String, usize, bool) {
    if text.len() <= budget {
        return (String::from_utf8_lossy(text).into_owned(), 0, false);
    }
    let (ms, me) = at.unwrap_or((0, 0));
    let ms = ms.min(text.len());
    let me = me.clamp(ms, text.len());
    // A quarter of the budget before the match, the rest from its start.
    let lead = (budget / 4).min(ms).min(budget.saturating_sub(me - ms));
    let mut start = ms - lead;
    while start > 0 && is_continuation(text[start]) {
        start -= 1;
    }
    let mut end = (start + budget).min(text.len());
    while end < text.len() && end > start && is_continuation(text[end]) {
        end -= 1;
    }
    (
        String::from_utf8_lossy(&text[start..end]).into_owned(),
        start,
        true,
    )
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}
