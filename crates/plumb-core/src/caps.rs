//! Caps shared by more than one engine. Every cap bounds memory or the
//! size of an answer; none depends on the size of the file.

/// Issues listed in full per report; later ones are only counted. Ten
/// show a pattern without letting one broken file flood an answer.
pub const FIRST_ISSUES_CAP: usize = 10;

/// Sample values kept per column or key: enough to show the shape of the
/// data, few enough that a wide file stays small.
pub const SAMPLE_VALUES_CAP: usize = 5;

/// The longest sample value kept, in bytes of UTF-8; longer values are
/// cut at a character boundary and marked.
pub const SAMPLE_TEXT_BYTES: usize = 512;

/// Columns (CSV) or keys (JSON) tracked with full statistics; past this,
/// further ones are counted but not described, so a pathological header
/// cannot grow memory without bound.
pub const COLUMN_TRACK_CAP: usize = 10_000;

/// The default number of rows or records a select returns.
pub const SELECT_DEFAULT_LIMIT: usize = 50;

/// The most rows or records one select returns; larger limits are served
/// at this cap (never refused), and the answer says there is more.
pub const SELECT_MAX_LIMIT: usize = 1000;

/// The one rule for a limit of zero, for `select` and `read` alike: it
/// asks for nothing, so it is refused, with the range to pass instead
/// (a limit above the cap is served at the cap, and the answer's `limit`
/// says so).
///
/// ```
/// let r = plumb_core::zero_limit(512);
/// assert_eq!(r.reason(), plumb_core::RefusalReason::InvalidArgument);
/// assert!(r.message().starts_with("`limit` is zero, which asks for nothing"));
/// ```
#[cold]
pub fn zero_limit(max: u64) -> crate::Refusal {
    crate::Refusal::invalid_argument(format!(
        "`limit` is zero, which asks for nothing at all; pass a limit from 1 to {max}, or leave it out"
    ))
}

/// Clamps a requested select limit to `1..=SELECT_MAX_LIMIT`, with
/// [`SELECT_DEFAULT_LIMIT`] when none was given. (The entry points refuse
/// a zero limit first, with [`zero_limit`]; the engines' own functions
/// serve it as 1.)
///
/// ```
/// assert_eq!(plumb_core::clamp_limit(Some(5000)), 1000);
/// assert_eq!(plumb_core::clamp_limit(Some(0)), 1);
/// assert_eq!(plumb_core::clamp_limit(None), 50);
/// ```
pub fn clamp_limit(limit: Option<u64>) -> usize {
    match limit {
        None => SELECT_DEFAULT_LIMIT,
        Some(n) => usize::try_from(n)
            .unwrap_or(SELECT_MAX_LIMIT)
            .clamp(1, SELECT_MAX_LIMIT),
    }
}

/// Cuts `text` to at most `max` bytes at a character boundary; the flag
/// says whether anything was cut.
///
/// ```
/// assert_eq!(plumb_core::cap_text("héllo", 2), ("h", true));
/// assert_eq!(plumb_core::cap_text("hi", 2), ("hi", false));
/// ```
pub fn cap_text(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

/// The first whole characters of the lossy text of `bytes` (invalid
/// UTF-8 shown as U+FFFD), at most `cap` bytes of them: cut while
/// copying, so a long value is never copied whole only to be cut.
///
/// ```
/// assert_eq!(plumb_core::lossy_prefix(b"caf\xc3\xa9!", 4), "caf");
/// assert_eq!(plumb_core::lossy_prefix(b"a\xffb", 8), "a\u{FFFD}b");
/// ```
pub fn lossy_prefix(bytes: &[u8], cap: usize) -> String {
    let mut out = String::with_capacity(cap.min(bytes.len()));
    for chunk in bytes.utf8_chunks() {
        let replacement = if chunk.invalid().is_empty() {
            ""
        } else {
            "\u{FFFD}"
        };
        for piece in [chunk.valid(), replacement] {
            let (kept, cut) = cap_text(piece, cap.saturating_sub(out.len()));
            out.push_str(kept);
            if cut {
                return out;
            }
        }
    }
    out
}

/// The most bytes of a caller's string (a path, a pointer, a column
/// name) that one echo in a message or refusal carries whole.
///
/// A refusal names the thing it could not serve, but the caller chose
/// that string and may make it megabytes long; every echo is cut so that
/// no answer grows with its input.
pub const ECHO_MAX_BYTES: usize = 256;

/// `text`, whole when it fits [`ECHO_MAX_BYTES`], else cut at a
/// character boundary with a marked ellipsis and its full length.
///
/// ```
/// assert_eq!(plumb_core::echo("a.csv"), "a.csv");
/// assert!(plumb_core::echo(&"x".repeat(1000)).ends_with("…[cut: 1000 bytes in all]"));
/// ```
pub fn echo(text: &str) -> String {
    echo_within(text, ECHO_MAX_BYTES)
}

/// `text`, whole when it fits `max` bytes, else its first characters (at
/// most `max` bytes) followed by `…[cut: N bytes in all]`.
pub fn echo_within(text: &str, max: usize) -> String {
    match cap_text(text, max) {
        (kept, false) => kept.to_owned(),
        (kept, true) => format!("{kept}…[cut: {} bytes in all]", text.len()),
    }
}
