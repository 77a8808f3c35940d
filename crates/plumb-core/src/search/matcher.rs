//! A search pattern compiled once: a literal through `memchr::memmem`,
//! anything else through the `regex` crate under its size caps.

use memchr::memmem;
use regex::bytes::{Regex, RegexBuilder};

use super::{PATTERN_MAX_BYTES, REGEX_DFA_SIZE_LIMIT, REGEX_NEST_LIMIT, REGEX_SIZE_LIMIT};
use crate::caps::echo;
use crate::refusal::Refusal;

/// A compiled search pattern.
///
/// ```
/// use plumb_core::Matcher;
/// let m = Matcher::new("err(or)?", false, false)?;
/// assert!(m.is_match(b"an error here"));
/// assert_eq!(m.find_at(b"no; err", 0), Some((4, 7)));
/// assert!(Matcher::new("ERROR", false, false)?.is_literal());
/// assert!(Matcher::new("(", false, false).is_err());
/// # Ok::<(), plumb_core::Refusal>(())
/// ```
#[derive(Clone, Debug)]
pub struct Matcher {
    pattern: String,
    literal: Option<memmem::Finder<'static>>,
    prefix: Option<memmem::Finder<'static>>,
    regex: Regex,
    /// The regex for one line's content (no line break in it), where a
    /// `\r` is an ordinary character: `regex` treats a lone `\r` as a
    /// line end for `^`, `$` and `.`, as grep does not.
    line_regex: Option<Regex>,
    /// Whether the two regexes differ on a lone `\r` by more than their
    /// anchors (a `.` or a class that leaves `\r` out in CRLF mode).
    lone_cr_apart: bool,
    whole_text: bool,
}

impl Matcher {
    /// Compiles `pattern`: as a literal when it has no regex syntax and
    /// neither flag is set, else as a regex (with `^` and `$` at line
    /// ends, `\r\n` taken as one).
    ///
    /// # Errors
    /// `invalid-argument`: a pattern longer than [`PATTERN_MAX_BYTES`], a
    /// pattern the regex crate refuses (its message is kept), or one
    /// whose compiled form passes [`REGEX_SIZE_LIMIT`].
    pub fn new(pattern: &str, ignore_case: bool, word: bool) -> Result<Matcher, Refusal> {
        if pattern.len() > PATTERN_MAX_BYTES {
            return Err(Refusal::invalid_argument(format!(
                "the pattern is {} bytes; a pattern may have at most {PATTERN_MAX_BYTES}",
                pattern.len()
            )));
        }
        let plain = !pattern.chars().any(regex_syntax::is_meta_character)
            && !pattern.contains('\n')
            && !ignore_case
            && !word;
        let source = if word {
            // Half boundaries, as ripgrep's -w and grep -w judge a word:
            // no word character just before the match or just after it.
            // (`\b...\b` would also demand one inside, so `-w '^$'` could
            // never match an empty line, nor `-w '-'` a lone dash.)
            format!(r"\b{{start-half}}(?:{pattern})\b{{end-half}}")
        } else if plain {
            regex::escape(pattern)
        } else {
            pattern.to_owned()
        };
        let build = |crlf: bool| {
            RegexBuilder::new(&source)
                .case_insensitive(ignore_case)
                .multi_line(true)
                .crlf(crlf)
                .size_limit(REGEX_SIZE_LIMIT)
                .dfa_size_limit(REGEX_DFA_SIZE_LIMIT)
                .nest_limit(REGEX_NEST_LIMIT)
                .build()
                .map_err(|e| {
                    Refusal::invalid_argument(format!(
                        "the pattern `{}` is not a regex plumb can run: {e}",
                        echo(pattern)
                    ))
                })
        };
        let regex = build(true)?;
        let line_regex = if plain { None } else { Some(build(false)?) };
        let parse = |crlf: bool| {
            regex_syntax::ParserBuilder::new()
                .case_insensitive(ignore_case)
                .multi_line(true)
                .crlf(crlf)
                .build()
                .parse(&source)
                .ok()
        };
        let hir = parse(true);
        // Anchors alone make the CRLF regex match more on a line with a
        // lone `\r`, never less, and each hit's line is checked alone;
        // anything else the modes read apart (`.`) could hide a match.
        // Told by the two parses with the anchors' kinds made one: a
        // difference that hides there only costs a scan for lone CRs.
        let lone_cr_apart = !plain
            && match (&hir, parse(false)) {
                (Some(a), Some(b)) => {
                    format!("{a:?}").replace("CRLF", "LF") != format!("{b:?}").replace("CRLF", "LF")
                }
                _ => true,
            };
        // \A and \z anchor to the whole text: a line is then searched on
        // its own, never as part of a block of lines.
        let whole_text = !plain
            && hir.as_ref().is_none_or(|hir| {
                let looks = hir.properties().look_set();
                looks.contains(regex_syntax::hir::Look::Start)
                    || looks.contains(regex_syntax::hir::Look::End)
            });
        // The bytes every match starts with, when there are some: found
        // with memchr/memmem, they pick the lines worth running the regex
        // on, faster than a general multi-literal prefilter when the
        // first byte is rare (`x[0-9]{3}y`).
        let prefix = match (&hir, plain) {
            (Some(hir), false) => {
                let seq = regex_syntax::hir::literal::Extractor::new().extract(hir);
                seq.longest_common_prefix()
                    .filter(|p| !p.is_empty())
                    .map(|p| memmem::Finder::new(p).into_owned())
            }
            _ => None,
        };
        Ok(Matcher {
            pattern: pattern.to_owned(),
            literal: plain.then(|| memmem::Finder::new(pattern.as_bytes()).into_owned()),
            prefix,
            regex,
            line_regex,
            lone_cr_apart,
            whole_text,
        })
    }

    /// The pattern as given.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether the pattern is searched as a literal (`memmem`).
    pub fn is_literal(&self) -> bool {
        self.literal.is_some()
    }

    /// Whether the pattern anchors to the whole text (`\A`, `\z`), so a
    /// line must be searched on its own rather than within a block.
    pub fn anchors_whole_text(&self) -> bool {
        self.whole_text
    }

    /// The bytes every match of a regex starts with, when there are
    /// some (none for a literal, which is its own).
    pub fn required_prefix(&self) -> Option<&[u8]> {
        self.prefix.as_ref().map(|f| f.needle())
    }

    /// The first place at or after `start` where a match could start (a
    /// match of a literal, an occurrence of a regex's required prefix),
    /// with `start` itself for a regex without one.
    pub fn candidate(&self, hay: &[u8], start: usize) -> Option<usize> {
        let rest = hay.get(start..)?;
        match (&self.literal, &self.prefix) {
            (Some(f), _) | (None, Some(f)) => f.find(rest).map(|i| start + i),
            (None, None) => Some(start),
        }
    }

    /// The first match at or after `start` in `hay`, as a byte range.
    pub fn find_at(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        let rest = hay.get(start..)?;
        match &self.literal {
            Some(f) => f
                .find(rest)
                .map(|i| (start + i, start + i + f.needle().len())),
            None => self.regex.find_at(hay, start).map(|m| (m.start(), m.end())),
        }
    }

    /// The first match at or after `start` in `line`, the content of
    /// one line (no `\n` in it, the `\r` of a CRLF left out), judged as
    /// grep judges a line: a lone `\r` in it is an ordinary character,
    /// so `^` and `$` match only at the line's ends and `.` matches it.
    /// [`Matcher::find_at`] on lines with no lone `\r` gives the same.
    ///
    /// ```
    /// use plumb_core::Matcher;
    /// let m = Matcher::new("^b|a.c", false, false)?;
    /// assert_eq!(m.find_in_line(b"a\rb", 0), None);
    /// assert_eq!(m.find_in_line(b"a\rc", 0), Some((0, 3)));
    /// assert_eq!(m.find_at(b"a\rb", 0), Some((2, 3)));
    /// # Ok::<(), plumb_core::Refusal>(())
    /// ```
    pub fn find_in_line(&self, line: &[u8], start: usize) -> Option<(usize, usize)> {
        match &self.line_regex {
            Some(re) if start <= line.len() => {
                re.find_at(line, start).map(|m| (m.start(), m.end()))
            }
            _ => self.find_at(line, start),
        }
    }

    /// Whether a lone `\r` can hide a match of the pattern from a search
    /// of many lines at once (its `.`, or a class, reads `\r` apart
    /// there): lines holding one must then be searched alone with
    /// [`Matcher::find_in_line`]. False for a literal, and for a pattern
    /// whose only such difference is its anchors (those add matches,
    /// which checking each hit's line alone takes away).
    ///
    /// ```
    /// use plumb_core::Matcher;
    /// assert!(Matcher::new("a.b", false, false)?.lone_cr_hides_matches());
    /// assert!(!Matcher::new("^b|a$", false, false)?.lone_cr_hides_matches());
    /// assert!(!Matcher::new("needle", false, false)?.lone_cr_hides_matches());
    /// # Ok::<(), plumb_core::Refusal>(())
    /// ```
    pub fn lone_cr_hides_matches(&self) -> bool {
        self.lone_cr_apart
    }

    /// Whether `hay` contains a match.
    pub fn is_match(&self, hay: &[u8]) -> bool {
        match &self.literal {
            Some(f) => f.find(hay).is_some(),
            None => self.regex.is_match(hay),
        }
    }
}
