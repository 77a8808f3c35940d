//! What a search asks, shared by every format: a [`Matcher`] for a
//! pattern, a [`Predicate`] over one value, and the [`Query`] that holds
//! them with the flags every search takes.
//!
//! Each engine finds its own values (a line, a cell, the value at a
//! pointer in a record) and hands them to [`Predicate::test`] as a
//! [`Subject`]; the rules for what matches live here, once, so a
//! predicate means the same thing on a CSV cell and a JSON value.
//!
//! Patterns are compiled by the `regex` crate, which runs in time linear
//! in the input (no backtracking) and refuses a pattern whose compiled
//! form passes [`REGEX_SIZE_LIMIT`]; so a hostile pattern can neither
//! exhaust memory nor run away. A pattern without regex syntax (and
//! without the case or word flags) is searched as a literal with
//! `memchr::memmem`, the fastest substring search there is for it.

use std::cmp::Ordering;

use memchr::memmem;
use regex::bytes::{Regex, RegexBuilder};

use crate::caps::echo;
use crate::number::small::{cmp_keys, cmp_small, decimal_key, small_decimal};
use crate::options::{OptionKind, OptionSpec, Request};
use crate::reader::Op;
use crate::refusal::Refusal;

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

/// The options every format's search takes, declared once here beside
/// the window ([`crate::COMMON_OPTIONS`] holds them).
pub const SEARCH_OPTIONS: [OptionSpec; 5] = [
    OptionSpec {
        name: "pattern",
        kind: OptionKind::Text,
        default: None,
        ops: &[Op::Search],
        doc: "a regular expression (Rust regex syntax) a line, cell or value must contain; text without regex syntax is searched as a literal",
    },
    OptionSpec {
        name: "where",
        kind: OptionKind::Text,
        default: None,
        ops: &[Op::Search],
        doc: "a predicate on the value instead of a pattern: = x, != x, < x, <= x, > x, >= x (numbers compared exactly), is empty, is null, is not empty, is not null",
    },
    OptionSpec {
        name: "ignore_case",
        kind: OptionKind::Flag,
        default: Some("false"),
        ops: &[Op::Search],
        doc: "match the pattern without regard to case",
    },
    OptionSpec {
        name: "word",
        kind: OptionKind::Flag,
        default: Some("false"),
        ops: &[Op::Search],
        doc: "match the pattern only as a whole word: no word character right before or after the match (as grep -w and rg -w)",
    },
    OptionSpec {
        name: "count_only",
        kind: OptionKind::Flag,
        default: Some("false"),
        ops: &[Op::Search],
        doc: "return no hits, only how many there are (the scan reads to the end)",
    },
];

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

/// A comparison of a [`Predicate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CompareOp {
    /// Whether a value ordered `ord` against the operand satisfies the
    /// comparison.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use plumb_core::CompareOp;
    /// assert!(CompareOp::Le.holds(Ordering::Equal));
    /// assert!(!CompareOp::Gt.holds(Ordering::Equal));
    /// ```
    #[inline]
    pub fn holds(self, ord: Ordering) -> bool {
        // The orderings each operator accepts, bit `ord + 1` for each: a
        // table load and a shift, where a match on the operator became a
        // jump and a branch on the outcome per value, mispredicted as
        // often as the data goes either way.
        let accepts: u8 = match self {
            CompareOp::Eq => 0b010,
            CompareOp::Ne => 0b101,
            CompareOp::Lt => 0b001,
            CompareOp::Le => 0b011,
            CompareOp::Gt => 0b100,
            CompareOp::Ge => 0b110,
        };
        (accepts >> (ord as i8 + 1)) & 1 == 1
    }
}

/// What a value must be for its record to be a hit.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Predicate {
    /// Its text contains a match of the pattern (boxed: a compiled
    /// regex is large beside the other forms).
    Pattern(Box<Matcher>),
    /// It compares to an operand: as numbers, exactly, when both are
    /// numbers; otherwise as text, byte by byte.
    Compare {
        /// The comparison.
        op: CompareOp,
        /// The operand's text.
        operand: String,
        /// Whether the operand reads as a number.
        numeric: bool,
        /// The operand as a number, read once.
        number: Option<NumberKey>,
    },
    /// It is empty text (`negated`: it is not).
    IsEmpty {
        /// `is not empty`.
        negated: bool,
    },
    /// It is null: missing, JSON null, or (CSV) an empty cell or a
    /// sentinel such as `NA` (`negated`: it is not).
    IsNull {
        /// `is not null`.
        negated: bool,
    },
}

/// What a value is, as an engine found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SubjectKind {
    /// Text (a CSV cell that is not a number, a JSON string).
    Text,
    /// A number literal (a CSV cell that reads as one, a JSON number).
    Number,
    /// `true` or `false`.
    Bool,
    /// JSON `null`.
    Null,
    /// An object or an array (never matched by a pattern or compared).
    Container,
    /// Not there: a column past a short row's end, a key a record lacks.
    Missing,
}

/// One value a predicate is tested on.
#[derive(Clone, Copy, Debug)]
pub struct Subject<'a> {
    /// What it is.
    pub kind: SubjectKind,
    /// Its text: a cell's content, a string's decoded text, a number's
    /// literal, `true`, `null`; empty for a container or a missing value.
    pub text: &'a [u8],
    /// Whether it counts as null (`is null`).
    pub null: bool,
}

impl<'a> Subject<'a> {
    /// A value of `kind` with `text`; null when missing or JSON null.
    pub fn new(kind: SubjectKind, text: &'a [u8]) -> Subject<'a> {
        Subject {
            kind,
            text,
            null: matches!(kind, SubjectKind::Null | SubjectKind::Missing),
        }
    }

    /// A value that is not there.
    pub fn missing() -> Subject<'static> {
        Subject::new(SubjectKind::Missing, b"")
    }
}

impl Predicate {
    /// Reads a predicate: `= x`, `!= x`, `< x`, `<= x`, `> x`, `>= x`,
    /// `is empty`, `is null`, `is not empty`, `is not null`. The operand
    /// is the rest, trimmed of ASCII white space, or a JSON string in
    /// double quotes (to keep spaces or write `""`), which is always text: `= "1.50"` matches
    /// the text `1.50` and not the number `1.5`.
    ///
    /// ```
    /// use plumb_core::{Predicate, Subject, SubjectKind};
    /// let p = Predicate::parse("> 9007199254740992")?;
    /// assert!(p.test(&Subject::new(SubjectKind::Number, b"9007199254740993")));
    /// assert!(!p.test(&Subject::new(SubjectKind::Number, b"9.007199254740992e15")));
    /// let eq = Predicate::parse("= \"a b\"")?;
    /// assert!(eq.test(&Subject::new(SubjectKind::Text, b"a b")));
    /// let text = Predicate::parse("= \"1.50\"")?;
    /// assert!(text.test(&Subject::new(SubjectKind::Number, b"1.50")));
    /// assert!(!text.test(&Subject::new(SubjectKind::Number, b"1.5")));
    /// # Ok::<(), plumb_core::Refusal>(())
    /// ```
    ///
    /// # Errors
    /// `invalid-argument` naming the forms taken.
    pub fn parse(text: &str) -> Result<Predicate, Refusal> {
        // ASCII white space only, as cells are trimmed: `= <NBSP>` asks
        // for a cell holding a no-break space, not for an empty one.
        let t = text.trim_ascii();
        let words: Vec<String> = t.split_whitespace().map(str::to_ascii_lowercase).collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        match words.as_slice() {
            ["is", "empty"] => return Ok(Predicate::IsEmpty { negated: false }),
            ["is", "not", "empty"] => return Ok(Predicate::IsEmpty { negated: true }),
            ["is", "null"] => return Ok(Predicate::IsNull { negated: false }),
            ["is", "not", "null"] => return Ok(Predicate::IsNull { negated: true }),
            _ => {}
        }
        let (op, rest) = [
            ("!=", CompareOp::Ne),
            ("<=", CompareOp::Le),
            (">=", CompareOp::Ge),
            ("==", CompareOp::Eq),
            ("=", CompareOp::Eq),
            ("<", CompareOp::Lt),
            (">", CompareOp::Gt),
        ]
        .iter()
        .find_map(|(sym, op)| t.strip_prefix(sym).map(|rest| (*op, rest.trim_ascii())))
        .ok_or_else(|| {
            Refusal::invalid_argument(format!(
                "`{}` is not a predicate; write one of = x, != x, < x, <= x, > x, >= x, \
                 is empty, is null, is not empty, is not null",
                echo(t)
            ))
        })?;
        // A quoted operand is a JSON string: text, even when it reads as
        // a number (`= "007"` matches the text `007`, not `7`).
        let quoted = rest.starts_with('"');
        let operand = if quoted {
            serde_json::from_str::<String>(rest).map_err(|e| {
                Refusal::invalid_argument(format!(
                    "the operand {} starts with a quote but is not a JSON string ({e}); \
                     close the quote, or leave the quotes out",
                    echo(rest)
                ))
            })?
        } else {
            rest.to_owned()
        };
        let number = if quoted {
            None
        } else {
            Decimal::parse(operand.as_bytes())
        }
        .map(|d| {
            let plain = operand.trim_ascii().as_bytes();
            NumberKey {
                negative: d.negative,
                digits: [d.head, d.tail].concat(),
                exponent_negative: d.magnitude.exponent_negative,
                exponent: d.magnitude.exponent.to_vec(),
                shift: d.magnitude.shift,
                small: small_decimal(plain),
                key: decimal_key(plain),
            }
        });
        Ok(Predicate::Compare {
            op,
            numeric: number.is_some(),
            number,
            operand,
        })
    }

    /// Whether `subject` satisfies the predicate.
    pub fn test(&self, subject: &Subject<'_>) -> bool {
        let absent = matches!(subject.kind, SubjectKind::Missing | SubjectKind::Container);
        match self {
            Predicate::Pattern(m) => !absent && m.is_match(subject.text),
            Predicate::IsEmpty { negated } => {
                let empty = subject.kind == SubjectKind::Text && subject.text.is_empty();
                empty != *negated
            }
            Predicate::IsNull { negated } => subject.null != *negated,
            Predicate::Compare {
                op,
                operand,
                numeric,
                number,
            } => {
                if absent {
                    return false;
                }
                if let (Some(key), SubjectKind::Number) = (number, subject.kind) {
                    return key.test(*op, subject.text, operand.as_bytes());
                }
                match op {
                    CompareOp::Eq => subject.text == operand.as_bytes(),
                    CompareOp::Ne => subject.text != operand.as_bytes(),
                    // Order between a number and text is not defined:
                    // no hit, rather than a guess.
                    _ if *numeric => false,
                    _ => {
                        subject.kind == SubjectKind::Text
                            && op.holds(subject.text.cmp(operand.as_bytes()))
                    }
                }
            }
        }
    }

    /// The pattern, when the predicate is one.
    pub fn matcher(&self) -> Option<&Matcher> {
        match self {
            Predicate::Pattern(m) => Some(m),
            _ => None,
        }
    }
}

/// A search, as the shared options ask for it.
#[derive(Clone, Debug)]
pub struct Query {
    /// What a value (or a line) must be.
    pub predicate: Predicate,
    /// Hits to skip over: the search starts at this line, row, record or
    /// element (the unit of the format).
    pub offset: u64,
    /// Hits to return (clamped to `1..=SEARCH_MAX_LIMIT`).
    pub limit: usize,
    /// Count the hits to the end instead of returning them.
    pub count_only: bool,
    /// Stop after this many bytes of text ([`crate::ScanBounds::max_scan_bytes`]);
    /// the progress then says where to go on.
    pub max_scan_bytes: Option<u64>,
}

impl Query {
    /// The query the request's shared search options ask for: exactly
    /// one of `pattern` and `where`.
    ///
    /// ```
    /// use plumb_core::{Query, Request};
    /// use serde_json::json;
    /// let mut req = Request::default();
    /// req.set("pattern", json!("timeout"))?.set("limit", json!(5))?;
    /// let q = Query::from_request(&req)?;
    /// assert_eq!((q.limit, q.offset, q.count_only), (5, 0, false));
    /// assert!(q.predicate.matcher().is_some_and(|m| m.is_literal()));
    /// # Ok::<(), plumb_core::Refusal>(())
    /// ```
    ///
    /// # Errors
    /// `invalid-argument`: neither or both of `pattern` and `where`, a
    /// zero limit, a bad pattern or predicate.
    pub fn from_request(req: &Request) -> Result<Query, Refusal> {
        let opts = &req.options;
        let predicate = match (opts.text("pattern"), opts.text("where")) {
            (Some(p), None) => Predicate::Pattern(Box::new(Matcher::new(
                p,
                opts.flag("ignore_case").unwrap_or(false),
                opts.flag("word").unwrap_or(false),
            )?)),
            (None, Some(w)) => {
                if opts.flag("ignore_case").is_some() || opts.flag("word").is_some() {
                    return Err(Refusal::invalid_argument(
                        "ignore_case and word apply to a pattern, not to a where predicate; \
                         drop them, or search with a pattern",
                    ));
                }
                Predicate::parse(w)?
            }
            (None, None) => {
                return Err(Refusal::invalid_argument(
                    "a search needs a pattern (a regex or literal text) or a where predicate \
                     (such as `= 42` or `is null`); give one",
                ))
            }
            (Some(_), Some(_)) => {
                return Err(Refusal::invalid_argument(
                    "a search takes a pattern or a where predicate, not both; give one",
                ))
            }
        };
        if req.window.limit == Some(0) {
            return Err(crate::caps::zero_limit(SEARCH_MAX_LIMIT as u64));
        }
        Ok(Query {
            predicate,
            offset: req.window.offset.unwrap_or(0),
            limit: req.window.limit.map_or(SEARCH_DEFAULT_LIMIT, |n| {
                usize::try_from(n)
                    .unwrap_or(SEARCH_MAX_LIMIT)
                    .clamp(1, SEARCH_MAX_LIMIT)
            }),
            count_only: opts.flag("count_only").unwrap_or(false),
            max_scan_bytes: req.scan.max_scan_bytes,
        })
    }
}

/// Where a search stopped, and how many hits it saw: the part of every
/// search answer that says how to go on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SearchProgress {
    /// Hits seen from the offset on: returned ones, plus the one past the
    /// limit that stopped the scan.
    pub total: u64,
    /// Whether `total` is every hit from the offset to the end (the scan
    /// reached the end); otherwise there are at least `total`.
    pub total_exact: bool,
    /// Whether hits follow the ones returned.
    pub has_more: bool,
    /// Where the next hit is, in the unit of the format: search again
    /// with this offset to continue exactly there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
}

impl SearchProgress {
    /// The scan stopped at its byte budget ([`crate::ScanBounds::max_scan_bytes`])
    /// before unit `next`, which it did not read whole: unless the limit
    /// stopped it first, hits may follow, and a search from `next` goes
    /// on exactly there.
    ///
    /// ```
    /// use plumb_core::SearchProgress;
    /// let mut p = SearchProgress { total: 2, total_exact: true, ..SearchProgress::default() };
    /// p.stopped_before(1500);
    /// assert_eq!((p.has_more, p.total_exact, p.next_offset), (true, false, Some(1500)));
    /// ```
    pub fn stopped_before(&mut self, next: u64) {
        if !self.has_more {
            self.has_more = true;
            self.total_exact = false;
            self.next_offset = Some(next);
        }
    }

    /// Joins the progress of the next part of a search split into parts
    /// read on several threads, `before` units (rows, records) after this
    /// one's start: `kept` of its hits were kept, and `dropped_at` is the
    /// unit of its first hit dropped for want of room (where one scan
    /// would have stopped, counting it), if any. A search that stopped
    /// already takes in nothing.
    ///
    /// ```
    /// use plumb_core::SearchProgress;
    /// let mut whole = SearchProgress { total: 3, ..SearchProgress::default() };
    /// let later = SearchProgress { total: 9, ..SearchProgress::default() };
    /// // Room for 2 of the later part's hits: its third, at its unit 40,
    /// // is where one scan would have stopped.
    /// whole.join_part(&later, 2, Some(40), 1000);
    /// assert_eq!((whole.total, whole.has_more, whole.next_offset), (6, true, Some(1040)));
    /// ```
    pub fn join_part(
        &mut self,
        later: &SearchProgress,
        kept: u64,
        dropped_at: Option<u64>,
        before: u64,
    ) {
        if self.has_more {
            return;
        }
        match dropped_at {
            Some(unit) => {
                self.total += kept + 1;
                self.has_more = true;
                self.next_offset = Some(unit + before);
            }
            None => {
                self.total += later.total;
                if later.has_more {
                    self.has_more = true;
                    self.next_offset = later.next_offset.map(|u| u + before);
                }
            }
        }
    }
}

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

/// Compares two decimal number literals exactly (`-1.50e2` and `-150`
/// are equal; `9007199254740993` is greater than `9007199254740992`);
/// `None` when either is not a plain decimal (`NaN`, `0x1F`, `1,5`).
/// Spaces around a literal are ignored, and a leading `+` is taken.
///
/// ```
/// use std::cmp::Ordering;
/// use plumb_core::compare_number_literals as cmp;
/// assert_eq!(cmp(b"9007199254740993", b"9007199254740992"), Some(Ordering::Greater));
/// assert_eq!(cmp(b"-1.50e2", b"-150"), Some(Ordering::Equal));
/// assert_eq!(cmp(b"0.1", b"1e-1"), Some(Ordering::Equal));
/// assert_eq!(cmp(b"-0", b"0.0"), Some(Ordering::Equal));
/// assert_eq!(cmp(b"NaN", b"1"), None);
/// ```
pub fn compare_number_literals(a: &[u8], b: &[u8]) -> Option<Ordering> {
    Some(Decimal::parse(a)?.cmp(&Decimal::parse(b)?))
}

/// Whether `text` reads as a decimal number literal, as
/// [`compare_number_literals`] reads one: an untyped cell (CSV) that
/// does is a number to an ordering predicate, which never orders a
/// number against text.
///
/// ```
/// use plumb_core::is_number_literal as n;
/// assert!(n(b"-1.50e2") && n(b" 7 ") && n(b"+3"));
/// assert!(!n(b"") && !n(b"NaN") && !n(b"1,5") && !n(b"Lyon"));
/// ```
pub fn is_number_literal(text: &[u8]) -> bool {
    Decimal::parse(text).is_some()
}

/// A predicate's numeric operand, read once: its sign, its significant
/// digits and the power of ten of the first (see [`compare_number_literals`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumberKey {
    negative: bool,
    digits: Vec<u8>,
    /// Its magnitude (see [`Magnitude`]), the exponent's digits owned.
    exponent_negative: bool,
    exponent: Vec<u8>,
    shift: i64,
    /// The operand as a short plain decimal, when it is one.
    small: Option<(i64, u32)>,
    /// The operand's [`decimal_key`], when it is a plain decimal of at
    /// most eight bytes after its sign.
    key: Option<(bool, u128)>,
}

impl NumberKey {
    /// How the number `text` (a cell, spaces already trimmed) orders
    /// against this operand, exactly; `None` when `text` is no number.
    /// A short plain decimal (most cells) is read and compared in
    /// integer arithmetic, any other through the general comparison.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use plumb_core::Predicate;
    /// let Predicate::Compare { number: Some(key), .. } = Predicate::parse("> 5000.5").unwrap() else {
    ///     unreachable!()
    /// };
    /// assert_eq!(key.compare(b"5000.50"), Some(Ordering::Equal));
    /// assert_eq!(key.compare(b"1e4"), Some(Ordering::Greater));
    /// assert_eq!(key.compare(b"Lyon"), None);
    /// ```
    #[inline(always)]
    pub fn compare(&self, text: &[u8]) -> Option<Ordering> {
        if let Some(k) = self.key {
            if let Some(v) = decimal_key(text) {
                return Some(cmp_keys(v, k));
            }
            // `small_decimal` refuses every text of up to eight bytes
            // that `decimal_key` does (a text column searched with a
            // numeric operand): not read twice.
            if text.len() <= 8 {
                return self.compare_general(text);
            }
        }
        if let (Some(k), Some(v)) = (self.small, small_decimal(text)) {
            return Some(cmp_small(v, k));
        }
        self.compare_general(text)
    }

    /// Whether `text` (a value that may be a number, spaces trimmed)
    /// stands in relation `op` to this operand, whose literal is
    /// `operand`: compared as numbers when `text` reads as one, else
    /// equal only as the same text, and in no order with it.
    ///
    /// ```
    /// use plumb_core::{CompareOp, Predicate};
    /// let Predicate::Compare { number: Some(key), .. } = Predicate::parse("> 5").unwrap() else {
    ///     unreachable!()
    /// };
    /// assert!(key.test(CompareOp::Gt, b"1e1", b"5"));
    /// assert!(!key.test(CompareOp::Gt, b"Lyon", b"5"));
    /// assert!(key.test(CompareOp::Ne, b"Lyon", b"5"));
    /// ```
    #[inline(always)]
    pub fn test(&self, op: CompareOp, text: &[u8], operand: &[u8]) -> bool {
        match self.compare(text) {
            Some(order) => op.holds(order),
            None => match op {
                CompareOp::Eq => text == operand,
                CompareOp::Ne => text != operand,
                _ => false,
            },
        }
    }

    /// [`NumberKey::compare`] for a cell or operand that is no short
    /// plain decimal: out of line, to keep the usual way small.
    #[inline(never)]
    fn compare_general(&self, text: &[u8]) -> Option<Ordering> {
        Some(Decimal::parse(text)?.cmp(&self.as_decimal()))
    }

    fn as_decimal(&self) -> Decimal<'_> {
        Decimal {
            negative: self.negative,
            head: &self.digits,
            tail: &[],
            magnitude: Magnitude {
                exponent_negative: self.exponent_negative,
                exponent: &self.exponent,
                shift: self.shift,
            },
        }
    }
}

/// A decimal literal read without allocating: its sign, its significant
/// digits (the integer and fraction digits with leading and trailing
/// zeros stripped, as up to two slices) and the power of ten of the
/// first of them.
#[derive(Clone, Copy, Debug)]
struct Decimal<'a> {
    negative: bool,
    /// The digits, with leading and trailing zeros stripped.
    head: &'a [u8],
    tail: &'a [u8],
    /// The position of the first significant digit: the number is
    /// `0.d1d2... × 10^magnitude`.
    magnitude: Magnitude<'a>,
}

/// The power of ten of a decimal's first significant digit, exactly:
/// its written exponent (any number of digits: `1e99999999999999999999`
/// is a number too, and larger than `1e9223372036854775807`) plus a
/// shift that the digits' position gives (at most the literal's length).
#[derive(Clone, Copy, Debug)]
struct Magnitude<'a> {
    exponent_negative: bool,
    /// The exponent's digits, leading zeros stripped (none for 0).
    exponent: &'a [u8],
    shift: i64,
}

/// The most exponent digits read into an `i128` (with any shift added,
/// it stays far inside one).
const EXPONENT_DIGITS_EXACT: usize = 36;

impl Magnitude<'_> {
    /// The exponent as an integer, when it has at most
    /// [`EXPONENT_DIGITS_EXACT`] digits.
    fn exponent_small(&self) -> Option<i128> {
        if self.exponent.len() > EXPONENT_DIGITS_EXACT {
            return None;
        }
        let v = self
            .exponent
            .iter()
            .fold(0i128, |a, &d| a * 10 + i128::from(d - b'0'));
        Some(if self.exponent_negative { -v } else { v })
    }

    fn cmp(&self, other: &Magnitude<'_>) -> Ordering {
        let shifts = i128::from(self.shift) - i128::from(other.shift);
        if let (Some(a), Some(b)) = (self.exponent_small(), other.exponent_small()) {
            return (a - b + shifts).cmp(&0);
        }
        // An exponent of more than 36 digits is at least 10^36 away from
        // any exponent of fewer, and from a larger one of its own sign by
        // at least its difference: shifts (each at most a literal's
        // length) matter only when that difference is small.
        match exponent_difference(self, other) {
            Difference::Small(d) => (d + shifts).cmp(&0),
            Difference::Huge(order) => order,
        }
    }
}

/// The difference of two exponents: exact when under 10^36, else only
/// its sign.
enum Difference {
    Small(i128),
    Huge(Ordering),
}

fn exponent_difference(a: &Magnitude<'_>, b: &Magnitude<'_>) -> Difference {
    let sign = |m: &Magnitude<'_>| match (m.exponent.is_empty(), m.exponent_negative) {
        (true, _) => Ordering::Equal,
        (false, true) => Ordering::Less,
        (false, false) => Ordering::Greater,
    };
    if sign(a) != sign(b) {
        // Opposite signs (or one zero), one of them huge: the difference
        // is huge, with the sign of the larger.
        return Difference::Huge(sign(a).cmp(&sign(b)));
    }
    // Same sign: the difference of the absolute values, negated for
    // negative exponents.
    let (x, y) = (a.exponent, b.exponent);
    let order = x.len().cmp(&y.len()).then_with(|| x.cmp(y));
    let (big, small) = match order {
        Ordering::Equal => return Difference::Small(0),
        Ordering::Greater => (x, y),
        Ordering::Less => (y, x),
    };
    // Schoolbook subtraction from the last digit; the difference is
    // wanted exactly only while it has at most 36 digits.
    let mut digits = Vec::with_capacity(big.len());
    let mut borrow = 0u8;
    for k in 0..big.len() {
        let d = big[big.len() - 1 - k] - b'0';
        let e = small
            .len()
            .checked_sub(1 + k)
            .map_or(0, |i| small[i] - b'0')
            + borrow;
        let (v, b) = if d >= e { (d - e, 0) } else { (d + 10 - e, 1) };
        digits.push(v);
        borrow = b;
    }
    while digits.last() == Some(&0) {
        digits.pop();
    }
    let negated = a.exponent_negative != (order == Ordering::Less);
    if digits.len() > EXPONENT_DIGITS_EXACT {
        let magnitude_order = if negated {
            Ordering::Less
        } else {
            Ordering::Greater
        };
        return Difference::Huge(magnitude_order);
    }
    let v = digits
        .iter()
        .rev()
        .fold(0i128, |a, &d| a * 10 + i128::from(d));
    Difference::Small(if negated { -v } else { v })
}

impl<'a> Decimal<'a> {
    fn parse(text: &'a [u8]) -> Option<Decimal<'a>> {
        let t = text.trim_ascii();
        let (negative, t) = match t.first()? {
            b'-' => (true, &t[1..]),
            b'+' => (false, &t[1..]),
            _ => (false, t),
        };
        let int_len = t.iter().take_while(|b| b.is_ascii_digit()).count();
        let (int, rest) = t.split_at(int_len);
        let (frac, rest) = match rest.strip_prefix(b".") {
            Some(r) => {
                let n = r.iter().take_while(|b| b.is_ascii_digit()).count();
                r.split_at(n)
            }
            None => (&rest[..0], rest),
        };
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let (exponent_negative, exponent) = match rest.first() {
            None => (false, &rest[..0]),
            Some(b'e' | b'E') => {
                let e = &rest[1..];
                let (neg, digits) = match e.first()? {
                    b'-' => (true, &e[1..]),
                    b'+' => (false, &e[1..]),
                    _ => (false, e),
                };
                if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                let lead = digits.iter().take_while(|&&d| d == b'0').count();
                (neg, &digits[lead..])
            }
            Some(_) => return None,
        };
        // Strip leading zeros across int then frac, trailing across frac then int.
        let int_lead = int.iter().take_while(|&&d| d == b'0').count();
        // A literal's length fits an i64 (it is in memory).
        let (head, tail, shift) = if int_lead < int.len() {
            let head = &int[int_lead..];
            (head, frac, head.len() as i64)
        } else {
            let frac_lead = frac.iter().take_while(|&&d| d == b'0').count();
            (&frac[frac_lead..], &frac[..0], -(frac_lead as i64))
        };
        let magnitude = Magnitude {
            exponent_negative,
            exponent,
            shift,
        };
        let (head, tail) = if tail.iter().all(|&d| d == b'0') {
            let n = head.iter().rev().take_while(|&&d| d == b'0').count();
            (&head[..head.len() - n], &tail[..0])
        } else {
            let n = tail.iter().rev().take_while(|&&d| d == b'0').count();
            (head, &tail[..tail.len() - n])
        };
        Some(Decimal {
            negative,
            head,
            tail,
            magnitude,
        })
    }

    fn is_zero(&self) -> bool {
        self.head.is_empty() && self.tail.is_empty()
    }

    fn cmp_magnitude(&self, other: &Decimal<'_>) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        self.magnitude.cmp(&other.magnitude).then_with(|| {
            let a = self.head.iter().chain(self.tail);
            let b = other.head.iter().chain(other.tail);
            // Equal magnitudes: digit by digit, a shorter run padded with zeros.
            a.cmp(b)
        })
    }

    fn cmp(&self, other: &Decimal<'_>) -> Ordering {
        let sign = |d: &Decimal<'_>| {
            if d.is_zero() {
                0
            } else if d.negative {
                -1
            } else {
                1
            }
        };
        match sign(self).cmp(&sign(other)) {
            Ordering::Equal if sign(self) < 0 => other.cmp_magnitude(self),
            Ordering::Equal => self.cmp_magnitude(other),
            o => o,
        }
    }
}
