//! The judge of one value for a whole search ([`Probes`]): one [`Probe`]
//! for a predicate at one field, or one per condition when a search names
//! several ([`plumb_core::Conditions`]), each fed the same events and
//! their verdicts joined. Shared by JSON arrays and JSON Lines.

use std::ops::ControlFlow;

use plumb_core::{echo, MatchMode, Query, Refusal, Verdict};

use super::search::{Matched, Probe};
use crate::parser::Scalar;
use crate::pointer::Pointer;
use crate::sink::JsonSink;

/// One value's judges: a probe, or a probe per condition.
pub enum Probes<'q> {
    /// One predicate, at one field or anywhere.
    One(Probe<'q>),
    /// Several conditions, each at its field, joined by `mode`.
    Many {
        /// A probe per condition, in order.
        probes: Vec<Probe<'q>>,
        /// How their verdicts join.
        mode: MatchMode,
    },
}

/// The pointer a condition names: a JSON pointer as written (`/a/b`,
/// `#/a`), or else one key of the value judged, verbatim.
///
/// ```
/// use plumb_json::condition_pointer;
/// assert_eq!(condition_pointer("/user/id")?.tokens(), ["user", "id"]);
/// assert_eq!(condition_pointer("a/b")?.tokens(), ["a/b"]);
/// # Ok::<(), plumb_core::Refusal>(())
/// ```
///
/// # Errors
/// `invalid-argument` for a pointer that is not an RFC 6901 pointer.
pub fn condition_pointer(target: &str) -> Result<Pointer, Refusal> {
    if target.starts_with('/') || target.starts_with('#') {
        return Pointer::parse(target);
    }
    Pointer::parse(&format!(
        "/{}",
        target.replace('~', "~0").replace('/', "~1")
    ))
}

impl<'q> Probes<'q> {
    /// The probes `query` asks for: its conditions, each at the pointer
    /// it names ([`condition_pointer`]), or its predicate at `field`.
    ///
    /// # Errors
    /// `invalid-argument`: a field beside conditions (each names its
    /// own), or a condition's pointer that does not parse.
    pub fn of(query: &'q Query, field: Option<Pointer>) -> Result<Probes<'q>, Refusal> {
        let Some(conditions) = &query.conditions else {
            return Ok(Probes::One(Probe::new(&query.predicate, field)));
        };
        if field.is_some() {
            return Err(Refusal::invalid_argument(
                "conditions name their own fields; leave field out, or give one test in where",
            ));
        }
        let probes = conditions
            .items
            .iter()
            .map(|c| {
                let at = condition_pointer(&c.target).map_err(|r| {
                    Refusal::invalid_argument(format!(
                        "in the condition `{}`: {}",
                        echo(&c.text),
                        r.message()
                    ))
                })?;
                Ok(Probe::new(&c.predicate, Some(at)))
            })
            .collect::<Result<Vec<_>, Refusal>>()?;
        Ok(Probes::Many {
            probes,
            mode: conditions.mode,
        })
    }

    fn each(&mut self, mut f: impl FnMut(&mut Probe<'q>)) {
        match self {
            Probes::One(p) => f(p),
            Probes::Many { probes, .. } => probes.iter_mut().for_each(f),
        }
    }

    /// Keeps what decides each match ([`Probe::set_capture`]).
    pub fn set_capture(&mut self, on: bool) {
        self.each(|p| p.set_capture(on));
    }

    /// Ready for the next value.
    pub fn reset(&mut self) {
        self.each(Probe::reset);
    }

    fn verdict(&self) -> Verdict {
        let of = |p: &Probe<'_>| {
            if p.matched() {
                Verdict::Holds
            } else if p.unjudged() {
                Verdict::Unknown
            } else {
                Verdict::Fails
            }
        };
        match self {
            Probes::One(p) => of(p),
            Probes::Many { probes, mode } => mode.join(probes.iter().map(of)),
        }
    }

    /// Whether the value judged matched.
    pub fn matched(&self) -> bool {
        self.verdict() == Verdict::Holds
    }

    /// Whether the value judged may match though it did not: a string
    /// that decides it was not read whole.
    pub fn unjudged(&self) -> bool {
        self.verdict() == Verdict::Unknown
    }

    /// What decided the match: the first probe's value that did.
    pub fn take_found(&mut self) -> Option<Matched> {
        match self {
            Probes::One(p) => p.take_found(),
            Probes::Many { probes, .. } => probes.iter_mut().find_map(Probe::take_found),
        }
    }
}

impl JsonSink for Probes<'_> {
    fn start_object(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
        self.each(|p| {
            let _ = p.start_object(depth, at);
        });
        ControlFlow::Continue(())
    }
    fn key_bytes(&mut self, key: &[u8], truncated: bool) -> ControlFlow<()> {
        self.each(|p| {
            let _ = p.key_bytes(key, truncated);
        });
        ControlFlow::Continue(())
    }
    fn end_object(&mut self) -> ControlFlow<()> {
        self.each(|p| {
            let _ = p.end_object();
        });
        ControlFlow::Continue(())
    }
    fn start_array(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
        self.each(|p| {
            let _ = p.start_array(depth, at);
        });
        ControlFlow::Continue(())
    }
    fn end_array(&mut self) -> ControlFlow<()> {
        self.each(|p| {
            let _ = p.end_array();
        });
        ControlFlow::Continue(())
    }
    fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
        self.each(|p| {
            let _ = p.scalar(s);
        });
        ControlFlow::Continue(())
    }
}
