//! JSON search: the elements of an array (at a pointer; the document by
//! default) whose value at a field pointer matches a pattern or
//! satisfies a predicate, each built as select builds it, with its index,
//! and the index of the next hit to continue from. [`Probe`], the sink
//! that judges one value, is shared with JSON Lines, where each record is
//! judged the same way.
//!
//! What a value is to a predicate: a string is text (its decoded
//! content), a number is its literal (compared exactly), `true`/`false`
//! and `null` their words, and an object or array is never matched. With
//! no field, a value matches when any scalar in it does (keys aside).
//! A field that is not there is missing: `is null` holds, nothing else.
//! A string longer than [`STRING_CAPTURE_BYTES`](crate::parser::STRING_CAPTURE_BYTES) is judged by its first
//! bytes where they decide the predicate (see [`verdict_on_start`]);
//! where they do not, the value is not judged, and the answer counts it
//! so its total is a lower bound.

use std::io::BufRead;
use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use plumb_core::{
    CompareOp, Conditions, Predicate, Query, Refusal, SearchProgress, SearchWindow, Subject,
    SubjectKind, TextStream, ViewFlags,
};

use crate::builder::{scalar_json, ValueBuilder};
use crate::parser::{Scalar, ScalarKind};
use crate::pointer::{PathTracker, Pointer};
use crate::sink::JsonSink;
use crate::subtree::Subtree;

use super::probes::Probes;

/// The most bytes of JSON text one hit's value carries; a larger value
/// is cut (its placeholders say so).
pub const SEARCH_VALUE_BUDGET_BYTES: usize = 4 * 1024;

/// The most bytes of a [`Matched`] value's text: a longer string or
/// number literal is cut there.
pub const MATCHED_VALUE_BYTES: usize = 256;

/// The value that decided a hit, shown beside a hit whose own value was
/// cut or summarized to fit [`SEARCH_VALUE_BUDGET_BYTES`] (which may
/// leave out exactly what matched).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Matched {
    /// Its RFC 6901 pointer inside the hit's value.
    pub pointer: String,
    /// The value as select writes it, a string or number cut to
    /// [`MATCHED_VALUE_BYTES`]; a container as
    /// `{"$summary": {"type": ...}}`.
    pub value: Box<RawValue>,
}

/// Judges one value (a record, an element) against a predicate: feed it
/// the value's events from its start, then ask [`Probe::matched`].
pub struct Probe<'p> {
    predicate: &'p Predicate,
    field: Option<Pointer>,
    path: PathTracker,
    /// Containers open along the field's path.
    on_path: usize,
    /// Some(result) once decided.
    decided: Option<bool>,
    /// Whether a scalar that was judged was cut at the capture cap and
    /// its start did not decide it.
    unsure: bool,
    /// Whether to keep what decided a match ([`Probe::take_found`]).
    capture: bool,
    found: Option<Matched>,
}

impl<'p> Probe<'p> {
    /// A probe of the value at `field` (relative to the value judged), or
    /// of any scalar in it when `None`.
    pub fn new(predicate: &'p Predicate, field: Option<Pointer>) -> Probe<'p> {
        Probe {
            predicate,
            // `""` names the value itself: any scalar in it, as none.
            field: field.filter(|f| !f.tokens().is_empty()),
            path: PathTracker::default(),
            on_path: 0,
            decided: None,
            unsure: false,
            capture: false,
            found: None,
        }
    }

    /// Keeps, from now on, the value that decides each match, for
    /// [`Probe::take_found`] (off by default: a count needs none).
    pub fn set_capture(&mut self, on: bool) {
        self.capture = on;
    }

    /// The value that decided the match of the value judged, when the
    /// probe captures ([`Probe::set_capture`]) and a value present
    /// decided it (not a missing field that matched `is null`).
    pub fn take_found(&mut self) -> Option<Matched> {
        self.found.take()
    }

    /// Ready for the next value.
    pub fn reset(&mut self) {
        self.path = PathTracker::default();
        self.on_path = 0;
        self.decided = None;
        self.unsure = false;
        self.found = None;
    }

    /// Notes the value starting now as what decided the match, when it
    /// just did.
    #[cold]
    fn keep_found(&mut self, value: Box<RawValue>) {
        self.found = Some(Matched {
            pointer: self.path.pointer(),
            value,
        });
    }

    /// Whether the value judged matched.
    pub fn matched(&self) -> bool {
        match self.decided {
            Some(m) => m,
            None if self.field.is_some() => self.predicate.test(&Subject::missing()),
            None => false,
        }
    }

    /// Whether the value judged may match though it did not: a string
    /// it was judged by was longer than the capture cap, and its start
    /// did not decide the predicate.
    pub fn unjudged(&self) -> bool {
        self.unsure && !self.matched()
    }

    /// Whether the value about to start is the field (and whether it is
    /// on the field's path).
    fn locate(&self) -> (bool, bool) {
        let Some(field) = &self.field else {
            return (false, false);
        };
        let depth = self.path.depth();
        if self.on_path != depth {
            return (false, false);
        }
        let on_path = depth == 0
            || self
                .path
                .upcoming_at(depth - 1)
                .is_some_and(|t| t.matches(&field.tokens()[depth - 1]));
        (on_path && depth == field.tokens().len(), on_path)
    }

    fn decide(&mut self, subject: &Subject<'_>) {
        if self.field.is_some() {
            self.decided = Some(self.predicate.test(subject));
        } else if self.predicate.test(subject) {
            self.decided = Some(true);
        }
    }

    /// [`Probe::decide`] for a scalar of which only the start was read
    /// (`len` bytes in all).
    fn decide_cut(&mut self, start: &Subject<'_>, len: u64) {
        match verdict_on_start(self.predicate, start, len) {
            Some(true) => self.decided = Some(true),
            Some(false) if self.field.is_some() => self.decided = Some(false),
            Some(false) => {}
            None => {
                self.unsure = true;
                if self.field.is_some() {
                    self.decided = Some(false);
                }
            }
        }
    }

    fn start(&mut self, object: bool) {
        let open = self.decided.is_none();
        if open {
            let (is_field, on_path) = self.locate();
            if is_field {
                self.decide(&Subject::new(SubjectKind::Container, b""));
            } else if on_path {
                self.on_path = self.path.depth() + 1;
            }
        }
        self.path.value_starts();
        if open && self.capture && self.decided == Some(true) {
            let kind = if object { "object" } else { "array" };
            let summary = format!("{{\"$summary\":{{\"type\":\"{kind}\"}}}}");
            if let Ok(value) = RawValue::from_string(summary) {
                self.keep_found(value);
            }
        }
        self.path.open(object);
    }

    fn end(&mut self) {
        let depth = self.path.depth();
        self.path.close();
        if self.on_path == depth && depth > 0 {
            self.on_path = depth - 1;
        }
    }
}

/// The verdict on a value of `len` bytes of which only the first were
/// read (`start`: a string past [`STRING_CAPTURE_BYTES`](crate::parser::STRING_CAPTURE_BYTES)), when they
/// decide it: `None` when the rest could change it.
///
/// A match that ends at least four bytes (one character) before the cut
/// is a match in the whole value: the regex crate has no look-around,
/// and its assertions (`\b`, `$`) look at most one character past a
/// match. Equality needs the lengths alone; an order against text
/// shorter than the start is settled within the start; `is empty` and
/// `is null` are settled by the start's kind.
fn verdict_on_start(predicate: &Predicate, start: &Subject<'_>, len: u64) -> Option<bool> {
    let read = start.text.len();
    match predicate {
        Predicate::Pattern(m) => match m.find_at(start.text, 0) {
            Some((_, end)) if end + 4 <= read => Some(true),
            _ => None,
        },
        Predicate::IsEmpty { .. } | Predicate::IsNull { .. } => Some(predicate.test(start)),
        Predicate::Compare { op, operand, .. } if start.kind == SubjectKind::Text => match op {
            CompareOp::Eq | CompareOp::Ne if operand.len() as u64 != len => {
                Some(*op == CompareOp::Ne)
            }
            CompareOp::Eq | CompareOp::Ne => None,
            _ if operand.len() < read => Some(predicate.test(start)),
            _ => None,
        },
        _ => None,
    }
}

/// A scalar as a predicate sees it.
fn scalar_subject<'a>(s: &Scalar<'a>) -> Subject<'a> {
    let kind = match s.kind {
        ScalarKind::String => SubjectKind::Text,
        ScalarKind::Number => SubjectKind::Number,
        ScalarKind::True | ScalarKind::False => SubjectKind::Bool,
        ScalarKind::Null => SubjectKind::Null,
    };
    Subject::new(kind, s.raw)
}

impl JsonSink for Probe<'_> {
    fn start_object(&mut self, _depth: usize, _at: u64) -> ControlFlow<()> {
        self.start(true);
        ControlFlow::Continue(())
    }
    fn key_bytes(&mut self, key: &[u8], truncated: bool) -> ControlFlow<()> {
        self.path.key_read(key, truncated);
        ControlFlow::Continue(())
    }
    fn end_object(&mut self) -> ControlFlow<()> {
        self.end();
        ControlFlow::Continue(())
    }
    fn start_array(&mut self, _depth: usize, _at: u64) -> ControlFlow<()> {
        self.start(false);
        ControlFlow::Continue(())
    }
    fn end_array(&mut self) -> ControlFlow<()> {
        self.end();
        ControlFlow::Continue(())
    }
    fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
        let open = self.decided.is_none();
        if open {
            let is_field = match &self.field {
                Some(_) => self.locate().0,
                None => true,
            };
            if is_field && s.truncated {
                self.decide_cut(&scalar_subject(s), s.len);
            } else if is_field {
                self.decide(&scalar_subject(s));
            }
        }
        self.path.value_starts();
        if open && self.capture && self.decided == Some(true) {
            self.keep_found(scalar_json(s, MATCHED_VALUE_BYTES));
        }
        ControlFlow::Continue(())
    }
}

/// One element that matched.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ElementHit {
    /// Its 0-based index in the array (the `offset` a select of it takes).
    pub index: u64,
    /// Its byte offset.
    pub byte_offset: u64,
    /// The element, built as select builds it (cut to
    /// [`SEARCH_VALUE_BUDGET_BYTES`] when larger).
    pub value: Box<RawValue>,
    /// What decided the hit, when `value` was cut or summarized; left
    /// out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<Matched>,
}

/// The answer of JSON search.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct JsonSearch {
    /// Always true.
    pub ok: bool,
    /// `json`.
    pub format: &'static str,
    /// Exact, or cut when a hit's value was cut.
    pub view: ViewFlags,
    /// The array searched.
    pub pointer: String,
    /// The field judged in each element, or null for any scalar in it
    /// (and with conditions, which name their own).
    pub field: Option<String>,
    /// The conditions each element was judged by, when a search gave
    /// them (`{"match": "all", "of": [...]}`); left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Conditions>,
    /// The hits, in order (none with `count_only`).
    pub hits: Vec<ElementHit>,
    /// The window (flattened): `offset`, the element the search started
    /// at; `limit`; `returned`, the hits returned; and how many hits were
    /// seen and where to continue.
    #[serde(flatten)]
    pub window: SearchWindow,
    /// Elements whose judged string was longer than
    /// [`STRING_CAPTURE_BYTES`](crate::parser::STRING_CAPTURE_BYTES) and did not match by its start, which did
    /// not decide the predicate: any may match, so `total` is then a
    /// lower bound (`total_exact: false`). Left out when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub unjudged_elements: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

struct ElementSink<'q> {
    query: &'q Query,
    /// Hits still to pass over before one is kept (`Query::skip_hits`).
    skip_left: u64,
    probe: Probes<'q>,
    builder: Option<ValueBuilder>,
    /// Containers open inside the array (0 between elements).
    depth: usize,
    index: u64,
    start: u64,
    hits: Vec<ElementHit>,
    progress: SearchProgress,
    cut: bool,
    not_array: Option<&'static str>,
    seen_root: bool,
    /// Elements not judged whole (see [`JsonSearch::unjudged_elements`]).
    unjudged: u64,
}

impl ElementSink<'_> {
    fn begin(&mut self, at: u64) {
        self.start = at;
        self.probe.reset();
        let listed = self.index >= self.query.offset && !self.query.count_only;
        self.probe.set_capture(listed);
        self.builder = listed.then(|| ValueBuilder::new(SEARCH_VALUE_BUDGET_BYTES));
    }

    /// An element ended; returns Break when the search is over.
    fn close(&mut self) -> ControlFlow<()> {
        let index = self.index;
        self.index += 1;
        if index < self.query.offset {
            return ControlFlow::Continue(());
        }
        if !self.probe.matched() {
            self.unjudged += u64::from(self.probe.unjudged());
            return ControlFlow::Continue(());
        }
        self.progress.total += 1;
        if self.query.count_only {
            return ControlFlow::Continue(());
        }
        if self.skip_left > 0 {
            // Passed over (the last hits are asked for): counted only.
            self.skip_left -= 1;
            self.builder = None;
            let _ = self.probe.take_found();
            return ControlFlow::Continue(());
        }
        if self.hits.len() >= self.query.limit {
            self.progress.has_more = true;
            self.progress.next_offset = Some(index);
            return ControlFlow::Break(());
        }
        if let Some(b) = self.builder.take() {
            let built = b.finish();
            self.cut |= built.cut;
            let found = self.probe.take_found();
            self.hits.push(ElementHit {
                index,
                byte_offset: self.start,
                value: built.json,
                matched: found.filter(|_| built.cut),
            });
        }
        ControlFlow::Continue(())
    }

    fn open(&mut self, object: bool, at: u64) -> ControlFlow<()> {
        if !self.seen_root {
            self.seen_root = true;
            if object {
                self.not_array = Some("an object");
                return ControlFlow::Break(());
            }
            return ControlFlow::Continue(());
        }
        if self.depth == 0 {
            self.begin(at);
        }
        self.depth += 1;
        let d = self.depth - 1;
        if let Some(b) = self.builder.as_mut() {
            let _ = if object {
                b.start_object(d, at)
            } else {
                b.start_array(d, at)
            };
        }
        if object {
            self.probe.start_object(d, at)
        } else {
            self.probe.start_array(d, at)
        }
    }

    fn shut(&mut self, object: bool) -> ControlFlow<()> {
        if self.depth == 0 {
            // The array itself closed.
            return ControlFlow::Break(());
        }
        self.depth -= 1;
        if let Some(b) = self.builder.as_mut() {
            let _ = if object {
                b.end_object()
            } else {
                b.end_array()
            };
        }
        let _ = if object {
            self.probe.end_object()
        } else {
            self.probe.end_array()
        };
        if self.depth == 0 {
            return self.close();
        }
        ControlFlow::Continue(())
    }
}

impl JsonSink for ElementSink<'_> {
    fn start_object(&mut self, _depth: usize, at: u64) -> ControlFlow<()> {
        self.open(true, at)
    }
    fn key_bytes(&mut self, key: &[u8], truncated: bool) -> ControlFlow<()> {
        if let Some(b) = self.builder.as_mut() {
            let _ = b.key_bytes(key, truncated);
        }
        self.probe.key_bytes(key, truncated)
    }
    // Adapters (the subtree) hand keys on as text.
    fn key(&mut self, key: &str, truncated: bool) -> ControlFlow<()> {
        self.key_bytes(key.as_bytes(), truncated)
    }
    fn end_object(&mut self) -> ControlFlow<()> {
        self.shut(true)
    }
    fn start_array(&mut self, _depth: usize, at: u64) -> ControlFlow<()> {
        self.open(false, at)
    }
    fn end_array(&mut self) -> ControlFlow<()> {
        self.shut(false)
    }
    fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
        if !self.seen_root {
            self.seen_root = true;
            self.not_array = Some("a scalar");
            return ControlFlow::Break(());
        }
        if self.depth == 0 {
            self.begin(s.byte_offset);
            if let Some(b) = self.builder.as_mut() {
                b.scalar(s);
            }
            let _ = self.probe.scalar(s);
            return self.close();
        }
        if let Some(b) = self.builder.as_mut() {
            b.scalar(s);
        }
        self.probe.scalar(s)
    }
}

/// Searches the elements of the array at `pointer` (`""`: the document)
/// for `query`, judging each element's value at `field` (any scalar in
/// it when `None`). Reading stops at the hit past the limit.
///
/// # Errors
/// `invalid-argument` for a pointer or field that is not an RFC 6901
/// pointer, or a value at `pointer` that is not an array;
/// `pointer-not-found`; the stream's refusals and syntax errors.
pub fn search<R: BufRead>(
    stream: TextStream<R>,
    pointer: &str,
    field: Option<&str>,
    query: &Query,
) -> Result<JsonSearch, Refusal> {
    let target = Pointer::parse(pointer)?;
    let field_ptr = field.map(Pointer::parse).transpose()?;
    let inner = ElementSink {
        query,
        skip_left: query.skip_hits,
        probe: Probes::of(query, field_ptr)?,
        builder: None,
        depth: 0,
        index: 0,
        start: 0,
        hits: Vec::new(),
        progress: SearchProgress::default(),
        cut: false,
        not_array: None,
        seen_root: false,
        unjudged: 0,
    };
    let mut sink = Subtree::new(inner, target);
    let ended = super::drive(stream.within(query.max_scan_bytes), &mut sink)?;
    let mut inner = sink.into_inner();
    if let Some(what) = inner.not_array {
        return Err(Refusal::invalid_argument(format!(
            "the value at `{}` is {what}, not an array; search takes the elements of an array: \
             point at one with the pointer option",
            plumb_core::echo(pointer)
        )));
    }
    // An element not judged whole may match.
    inner.progress.total_exact = !inner.progress.has_more && inner.unjudged == 0;
    if ended.budget {
        inner.progress.stopped_before(inner.index.max(query.offset));
    }
    Ok(JsonSearch {
        ok: true,
        format: "json",
        view: ViewFlags::of_scan(ended.budget).with_cut(inner.cut),
        pointer: pointer.to_owned(),
        field: field.map(str::to_owned),
        conditions: query.conditions.clone(),
        window: SearchWindow {
            offset: query.offset,
            passed_over: query.skip_hits,
            limit: query.limit,
            returned: inner.hits.len(),
            progress: inner.progress,
        },
        hits: inner.hits,
        unjudged_elements: inner.unjudged,
    })
}
