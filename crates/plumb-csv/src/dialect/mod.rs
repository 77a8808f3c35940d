//! The dialect's vocabulary: how a table is written (its delimiter,
//! quote and comment character, whether a header opens it), as options
//! name them and answers show them, and the judgement of whether a
//! record is a header (`header`). Detection (`detect`), the scan and the
//! reports all speak it; it depends on none of them.

use plumb_core::Refusal;

pub(crate) mod header;

/// Whether the first record is a header.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum HeaderMode {
    /// Decide from the data: the first record is a header when every
    /// cell of it is non-empty text that is not a number, date, boolean or
    /// missing-value token, whether or not a second record follows (a
    /// file of that one record is a header and zero rows).
    #[default]
    Auto,
    /// The first record is the header.
    #[serde(rename = "true")]
    Present,
    /// Every record is data.
    #[serde(rename = "false")]
    Absent,
}

impl std::str::FromStr for HeaderMode {
    type Err = Refusal;
    fn from_str(s: &str) -> Result<HeaderMode, Refusal> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(HeaderMode::Auto),
            "true" | "yes" | "1" => Ok(HeaderMode::Present),
            "false" | "no" | "0" => Ok(HeaderMode::Absent),
            other => Err(Refusal::invalid_argument(format!(
                "header `{other}` is not one of auto, true, false; pass one of those"
            ))),
        }
    }
}

/// The quote character of a dialect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QuoteMode {
    /// Chosen on the sample among the delimiter's candidates (see
    /// [`quote_candidates`](crate::quote_candidates)).
    #[default]
    Auto,
    /// This character quotes fields (`"` or `'`).
    Char(u8),
    /// No quoting: every byte but the delimiter and line breaks is
    /// content.
    Off,
}

impl std::str::FromStr for QuoteMode {
    type Err = Refusal;
    fn from_str(s: &str) -> Result<QuoteMode, Refusal> {
        match s.trim() {
            "auto" => Ok(QuoteMode::Auto),
            "\"" | "double" => Ok(QuoteMode::Char(b'"')),
            "'" | "single" => Ok(QuoteMode::Char(b'\'')),
            "none" | "off" | "" => Ok(QuoteMode::Off),
            other => Err(Refusal::invalid_argument(format!(
                "quote `{other}` is not one of auto, \", ', none; pass one of those"
            ))),
        }
    }
}

/// How a quote is named in answers: the character, or `none`.
pub(crate) fn quote_name(quote: Option<u8>) -> String {
    quote.map_or_else(|| "none".to_owned(), |q| char::from(q).to_string())
}

/// Parses a delimiter argument: one ASCII character, `tab`/`\t`,
/// `space`, or `spaces` (a run of spaces as one delimiter); the second
/// value says whether runs count as one.
///
/// # Errors
/// `invalid-argument` for anything that is not one ASCII character
/// other than a quote, CR or LF.
pub(crate) fn parse_delimiter(s: &str) -> Result<(u8, bool), Refusal> {
    let d = match s {
        "\\t" | "tab" | "TAB" | "\t" => b'\t',
        "space" => b' ',
        "spaces" => return Ok((b' ', true)),
        _ if s.len() == 1 => s.as_bytes()[0],
        _ => 0,
    };
    if d == 0 || !d.is_ascii() || matches!(d, b'"' | b'\'' | b'\r' | b'\n') {
        return Err(Refusal::invalid_argument(format!(
            "delimiter `{s}` is not usable; pass one ASCII character such as , ; | : or tab, space, or spaces (runs of spaces)"
        )));
    }
    Ok((d, false))
}

/// How a delimiter is named in answers (and may be passed back).
pub(crate) fn delimiter_name(d: u8, runs: bool) -> String {
    match (d, runs) {
        (b' ', true) => "spaces".to_owned(),
        _ => char::from(d).to_string(),
    }
}

/// Parses a comment argument: one ASCII character that is not a quote,
/// a line break or whitespace.
///
/// # Errors
/// `invalid-argument` for anything else.
pub(crate) fn parse_comment(s: &str) -> Result<u8, Refusal> {
    match s.as_bytes() {
        [c] if c.is_ascii_graphic() && !matches!(c, b'"' | b'\'') => Ok(*c),
        _ => Err(Refusal::invalid_argument(format!(
            "comment `{s}` is not usable; pass one visible ASCII character such as # or %"
        ))),
    }
}
