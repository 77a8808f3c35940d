//! Several tests of one record joined by `all` or `any` ([`Conditions`]):
//! each names what it tests (a column, a field or a JSON pointer, as
//! the format names its values) and a [`Predicate`] on it, so `level =
//! error` and two bounds on a timestamp go in one search.

use serde::Serialize;

use super::Predicate;
use crate::caps::echo;
use crate::refusal::Refusal;

/// The most conditions one search takes: each is judged on every record,
/// so the cost of a search grows with them.
pub const SEARCH_MAX_CONDITIONS: usize = 16;

/// How the verdicts of several conditions make one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MatchMode {
    /// Every condition holds.
    #[default]
    All,
    /// At least one holds.
    Any,
}

/// A condition's verdict on one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It holds.
    Holds,
    /// It does not.
    Fails,
    /// The value was not read whole (a cap cut it): it may hold.
    Unknown,
}

impl MatchMode {
    /// The one verdict of several: with `All`, a failure decides it and
    /// an unknown leaves it unknown; with `Any`, a hold decides it.
    ///
    /// ```
    /// use plumb_core::{MatchMode, Verdict::*};
    /// assert_eq!(MatchMode::All.join([Holds, Unknown, Fails]), Fails);
    /// assert_eq!(MatchMode::All.join([Holds, Unknown]), Unknown);
    /// assert_eq!(MatchMode::Any.join([Fails, Unknown, Holds]), Holds);
    /// assert_eq!(MatchMode::Any.join([Fails, Fails]), Fails);
    /// ```
    pub fn join(self, verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
        let (decisive, other) = match self {
            MatchMode::All => (Verdict::Fails, Verdict::Holds),
            MatchMode::Any => (Verdict::Holds, Verdict::Fails),
        };
        let mut joined = other;
        for v in verdicts {
            if v == decisive {
                return decisive;
            }
            if v == Verdict::Unknown {
                joined = Verdict::Unknown;
            }
        }
        joined
    }
}

/// One test of a record: what it names, and the predicate on it.
#[derive(Clone, Debug)]
pub struct Condition {
    /// What it tests, as written: a column's name or 0-based index, a
    /// field's name, or a JSON pointer (`/user/id`).
    pub target: String,
    /// The predicate on it.
    pub predicate: Predicate,
    /// The condition as given.
    pub text: String,
}

impl Condition {
    /// Reads `name predicate`: the name runs to the first space or
    /// operator (`=`, `!`, `<`, `>`, `~`), or is a JSON string in double
    /// quotes (for a name with spaces or operators in it); the predicate
    /// is one [`Predicate::parse`] takes.
    ///
    /// ```
    /// use plumb_core::Condition;
    /// let c = Condition::parse("level=error")?;
    /// assert_eq!(c.target, "level");
    /// let quoted = Condition::parse(r#""first name" is not null"#)?;
    /// assert_eq!(quoted.target, "first name");
    /// let pointer = Condition::parse("/user/age >= 18")?;
    /// assert_eq!(pointer.target, "/user/age");
    /// assert!(Condition::parse("= 5").is_err());
    /// # Ok::<(), plumb_core::Refusal>(())
    /// ```
    ///
    /// # Errors
    /// `invalid-argument`: no name, or a predicate [`Predicate::parse`]
    /// refuses.
    pub fn parse(text: &str) -> Result<Condition, Refusal> {
        let t = text.trim_ascii();
        let (target, rest) = if t.starts_with('"') {
            // The shortest prefix that is a whole JSON string.
            let mut stream = serde_json::Deserializer::from_str(t).into_iter::<String>();
            match stream.next() {
                Some(Ok(name)) => (name, &t[stream.byte_offset()..]),
                _ => {
                    return Err(Refusal::invalid_argument(format!(
                        "the condition `{}` starts with a quote but no JSON string closes it; \
                         write \"name with spaces\" = value",
                        echo(t)
                    )))
                }
            }
        } else {
            let end = t
                .find(|c: char| c.is_ascii_whitespace() || "=!<>~".contains(c))
                .unwrap_or(t.len());
            (t[..end].to_owned(), &t[end..])
        };
        if target.is_empty() {
            return Err(Refusal::invalid_argument(format!(
                "the condition `{}` names nothing to test; write the column or field first, \
                 then the predicate: `level = error`, `/user/age >= 18`, `amount is not null`",
                echo(t)
            )));
        }
        let predicate = Predicate::parse(rest).map_err(|r| {
            Refusal::invalid_argument(format!("in the condition `{}`: {}", echo(t), r.message()))
        })?;
        Ok(Condition {
            target,
            predicate,
            text: t.to_owned(),
        })
    }
}

/// Several conditions on a record, joined by [`MatchMode`].
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Conditions {
    /// How the verdicts join.
    #[serde(rename = "match")]
    pub mode: MatchMode,
    /// The conditions, in the order given.
    /// Each is written as it was given (`level = error`).
    #[serde(rename = "of", serialize_with = "texts")]
    #[schemars(with = "Vec<String>")]
    pub items: Vec<Condition>,
}

fn texts<S: serde::Serializer>(items: &[Condition], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(items.iter().map(|c| &c.text))
}

/// Equal when given alike: the same mode and the same texts.
impl PartialEq for Conditions {
    fn eq(&self, other: &Conditions) -> bool {
        self.mode == other.mode
            && self.items.len() == other.items.len()
            && self
                .items
                .iter()
                .zip(&other.items)
                .all(|(a, b)| a.text == b.text)
    }
}

impl Conditions {
    /// Reads each of `texts` ([`Condition::parse`]), joined by `mode`.
    ///
    /// ```
    /// use plumb_core::{Conditions, MatchMode};
    /// let c = Conditions::parse(&["level = error", "ts >= 2024-01-01"], MatchMode::All)?;
    /// assert_eq!(c.items.len(), 2);
    /// assert_eq!(
    ///     serde_json::to_value(&c).unwrap(),
    ///     serde_json::json!({"match": "all", "of": ["level = error", "ts >= 2024-01-01"]})
    /// );
    /// # Ok::<(), plumb_core::Refusal>(())
    /// ```
    ///
    /// # Errors
    /// `invalid-argument`: none given, more than
    /// [`SEARCH_MAX_CONDITIONS`], or one that does not parse.
    pub fn parse<S: AsRef<str>>(texts: &[S], mode: MatchMode) -> Result<Conditions, Refusal> {
        if texts.is_empty() {
            return Err(Refusal::invalid_argument(
                "conditions is empty; give one or more tests such as `level = error`",
            ));
        }
        if texts.len() > SEARCH_MAX_CONDITIONS {
            return Err(Refusal::invalid_argument(format!(
                "{} conditions given; a search takes at most {SEARCH_MAX_CONDITIONS}",
                texts.len()
            )));
        }
        let items = texts
            .iter()
            .map(|t| Condition::parse(t.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Conditions { mode, items })
    }

    /// The one verdict of the conditions, `verdict(i)` being condition
    /// `i`'s (asked only as far as needed).
    pub fn judge(&self, mut verdict: impl FnMut(usize, &Predicate) -> Verdict) -> Verdict {
        self.mode.join(
            self.items
                .iter()
                .enumerate()
                .map(|(i, c)| verdict(i, &c.predicate)),
        )
    }
}
