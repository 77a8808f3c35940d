//! A predicate over one value, and the value as a format hands it over
//! (a [`Subject`]): what matches is decided here once for every format.

use std::cmp::Ordering;

use super::number::NumberKey;
use super::Matcher;
use crate::caps::echo;
use crate::refusal::Refusal;

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
    /// numbers; as instants when both are dates or timestamps; otherwise
    /// as text, byte by byte.
    Compare {
        /// The comparison.
        op: CompareOp,
        /// The operand's text.
        operand: String,
        /// Whether the operand reads as a number.
        numeric: bool,
        /// The operand as a number, read once.
        number: Option<NumberKey>,
        /// The operand as a date or timestamp ([`crate::instant_of`]),
        /// read once: a value that reads as one too is compared as an
        /// instant; any other is only equal or not, as text.
        time: Option<i128>,
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
    /// `is empty`, `is null`, `is not empty`, `is not null`, or `~ regex`
    /// (`~* regex` without regard to case) for a pattern. The operand
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
    /// // Dates and timestamps compare as instants, not as text.
    /// let after = Predicate::parse(">= 2024-03-01T09:00:00Z")?;
    /// assert!(after.test(&Subject::new(SubjectKind::Text, b"2024-03-01T10:30:00+01:00")));
    /// assert!(!after.test(&Subject::new(SubjectKind::Text, b"2024-03-01T09:30:00+01:00")));
    /// let re = Predicate::parse("~* ^time(out)?$")?;
    /// assert!(re.test(&Subject::new(SubjectKind::Text, b"Timeout")));
    /// // What it tests goes in `column` or `field`, and the refusal says so.
    /// let named = Predicate::parse("amount > 1000").unwrap_err();
    /// assert!(named.message().contains("give `amount` as the column"));
    /// assert!(named.message().contains("the predicate alone: `> 1000`"));
    /// # Ok::<(), plumb_core::Refusal>(())
    /// ```
    ///
    /// # Errors
    /// `invalid-argument` naming the forms taken, or, for a predicate
    /// written after the name of what it tests, the column or field to
    /// name instead.
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
        if let Some(rest) = t.strip_prefix('~') {
            let (ignore_case, pattern) = match rest.strip_prefix('*') {
                Some(p) => (true, p),
                None => (false, rest),
            };
            return Ok(Predicate::Pattern(Box::new(Matcher::new(
                pattern.trim_ascii(),
                ignore_case,
                false,
            )?)));
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
            if let Some((name, alone)) = named_predicate(t) {
                return Refusal::invalid_argument(format!(
                    "`{}` names what it tests (`{}`) inside the predicate; give `{}` as the \
                     column (for JSON and JSON Lines, the field) and the predicate alone: `{}`; \
                     or give it as written in `conditions`, which takes several such tests \
                     (`[\"{}\"]`)",
                    echo(t),
                    echo(name),
                    echo(name),
                    echo(&alone),
                    echo(t).replace('"', "\\\""),
                ));
            }
            Refusal::invalid_argument(format!(
                "`{}` is not a predicate; write one of = x, != x, < x, <= x, > x, >= x, \
                 is empty, is null, is not empty, is not null, ~ regex",
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
            NumberKey::of(&operand)
        };
        let time = if quoted || number.is_some() {
            None
        } else {
            super::time::instant_of(operand.as_bytes())
        };
        Ok(Predicate::Compare {
            op,
            numeric: number.is_some(),
            number,
            time,
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
                time,
            } => {
                if absent {
                    return false;
                }
                if let (Some(key), SubjectKind::Number) = (number, subject.kind) {
                    return key.test(*op, subject.text, operand.as_bytes());
                }
                if let Some(when) = time {
                    let ordered = !matches!(op, CompareOp::Eq | CompareOp::Ne);
                    match super::time::instant_of(subject.text) {
                        Some(at) if subject.kind == SubjectKind::Text => {
                            return op.holds(at.cmp(when))
                        }
                        // Order between an instant and anything else is
                        // not defined: no hit, rather than a guess.
                        _ if ordered => return false,
                        _ => {}
                    }
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

/// A predicate written with what it tests in front (`amount > 1000`,
/// `level = error`, `name is null`): the name, and the predicate alone.
fn named_predicate(t: &str) -> Option<(&str, String)> {
    let end = t.find(|c: char| c.is_ascii_whitespace() || "=!<>~".contains(c))?;
    let (name, rest) = t.split_at(end);
    let rest = rest.trim_ascii();
    let is_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "_-./$[]".contains(c));
    let ops = ["!=", "<=", ">=", "==", "=", "<", ">", "~", "is "];
    (is_name
        && ops
            .iter()
            .any(|op| rest.starts_with(op) && rest.len() > op.len()))
    .then(|| (name, rest.to_owned()))
}
