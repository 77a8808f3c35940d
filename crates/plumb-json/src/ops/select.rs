//! JSON select: the value at a pointer, or a window of the array (its
//! elements) or object (its members, as `{key, value}`) there, built
//! within [`SELECT_BUDGET_BYTES`].

use std::io::BufRead;
use std::ops::ControlFlow;

use serde::Serialize;
use serde_json::value::RawValue;

use plumb_core::{
    clamp_limit, Refusal, RefusalReason, SelectWindow, TextStream, ViewFlags, Window,
};

use crate::builder::ValueBuilder;
use crate::parser::Scalar;
use crate::pointer::Pointer;
use crate::sink::JsonSink;
use crate::structure::Structure;

use super::wildcard::{WildcardSink, WILDCARD};
use super::{drive, type_name, JsonSelectOptions, SELECT_BUDGET_BYTES};

/// The answer of JSON select.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct JsonSelect {
    /// Always true.
    pub ok: bool,
    /// `json`.
    pub format: &'static str,
    /// Exact, or cut when a placeholder stands in for part of the value.
    pub view: ViewFlags,
    /// The pointer selected.
    pub pointer: String,
    /// The value (not in windowed mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Box<RawValue>>,
    /// Windowed mode: the elements of the window; for an object, its
    /// members as `{"key": ..., "value": ...}` in document order; for a
    /// pointer with `*`, the matches as `{"pointer": ..., "value": ...}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<Box<RawValue>>>,
    /// Windowed mode (flattened; none of its fields otherwise):
    /// `offset`, the elements skipped; `limit`; `returned`; `has_more`,
    /// whether elements follow the window.
    #[serde(flatten)]
    pub window: Option<SelectWindow>,
}

enum Mode {
    Seeking,
    Capture(ValueBuilder),
    Window {
        /// Open containers once the target array or object is open.
        depth: usize,
        index: u64,
        current: Option<ValueBuilder>,
        skipping: bool,
        /// A window over an object's members: the key of the member
        /// whose value comes next.
        member: Option<Option<String>>,
    },
    Done,
}

struct SelectSink {
    target: Pointer,
    window: Option<(u64, usize)>,
    st: Structure,
    on_path: usize,
    mode: Mode,
    value: Option<Box<RawValue>>,
    items: Vec<Box<RawValue>>,
    used: usize,
    cut: bool,
    has_more: bool,
    error: Option<Refusal>,
}

impl SelectSink {
    fn refuse(&mut self, r: Refusal) -> ControlFlow<()> {
        self.error = Some(r);
        self.mode = Mode::Done;
        ControlFlow::Break(())
    }

    fn not_found(&mut self, prefix: usize) -> ControlFlow<()> {
        let r = self.target.not_found(prefix);
        self.refuse(r)
    }

    /// A value is about to start inside the open containers (before the
    /// structure tracker sees it): is it the target, and does it lie on
    /// the pointer's path?
    fn locate(&self) -> (bool, bool) {
        let depth = self.st.depth();
        if !matches!(self.mode, Mode::Seeking) || self.on_path != depth {
            return (false, false);
        }
        let on_path = depth == 0
            || self
                .st
                .path()
                .upcoming_at(depth - 1)
                .is_some_and(|t| t.matches(&self.target.tokens()[depth - 1]));
        (on_path && depth == self.target.tokens().len(), on_path)
    }

    fn begin_target(&mut self, kind: &'static str) -> ControlFlow<()> {
        match self.window {
            None => {
                self.mode = Mode::Capture(ValueBuilder::new(SELECT_BUDGET_BYTES));
                ControlFlow::Continue(())
            }
            Some(_) if kind == "array" || kind == "object" => {
                self.mode = Mode::Window {
                    depth: self.st.depth() + 1,
                    index: 0,
                    current: None,
                    skipping: false,
                    member: (kind == "object").then_some(None),
                };
                ControlFlow::Continue(())
            }
            Some(_) => {
                let p = self.target.prefix(self.target.tokens().len());
                let shown = if p.is_empty() {
                    "the root".to_owned()
                } else {
                    format!("`{p}`")
                };
                let article = if kind == "object" { "an" } else { "a" };
                self.refuse(Refusal::invalid_argument(format!(
                    "offset and limit select a window of an array or an object, but {shown} is {article} {kind}; drop offset and limit to select it whole"
                )))
            }
        }
    }

    fn too_large(&mut self) -> ControlFlow<()> {
        let p = self.target.prefix(self.target.tokens().len());
        self.refuse(
            Refusal::new(
                RefusalReason::SelectionTooLarge,
                format!(
                    "the value at `{}` is larger than the {SELECT_BUDGET_BYTES}-byte select budget; select an array window with offset and limit, or a deeper pointer",
                    plumb_core::echo(&p)
                ),
            )
            .with_pointer(plumb_core::echo(&p)),
        )
    }

    /// Routes an event into the window, when one is open.
    fn window_event(&mut self, ev: Ev<'_, '_>) -> ControlFlow<()> {
        let (offset, limit) = self.window.unwrap_or((0, 1));
        let depth_now = self.st.depth();
        let used = self.used;
        let Mode::Window {
            depth,
            index,
            current,
            skipping,
            member,
        } = &mut self.mode
        else {
            return ControlFlow::Continue(());
        };
        if let (Ev::Key(k, _), Some(slot)) = (ev, member.as_mut()) {
            if depth_now == *depth {
                // A member of the target object: its key, kept for the
                // value that follows (skipped members keep none).
                *slot = Some(k.to_owned());
                return ControlFlow::Continue(());
            }
        }
        if matches!(ev, Ev::End) && depth_now + 1 == *depth {
            // The target array closed before the window filled.
            self.mode = Mode::Done;
            return ControlFlow::Break(());
        }
        if matches!(ev, Ev::Start(_) | Ev::Scalar(_)) && depth_now == *depth {
            let i = *index;
            *index += 1;
            if i < offset {
                *skipping = true;
            } else if (i - offset) as usize >= limit || used >= SELECT_BUDGET_BYTES {
                self.has_more = true;
                self.mode = Mode::Done;
                return ControlFlow::Break(());
            } else {
                *skipping = false;
                *current = Some(ValueBuilder::new(SELECT_BUDGET_BYTES - used));
            }
        }
        if *skipping {
            return ControlFlow::Continue(());
        }
        let mut finished = None;
        if let Some(b) = current.as_mut() {
            ev.feed(b);
            if b.is_done() {
                finished = current.take();
            }
        }
        let key = match member {
            Some(slot) if finished.is_some() => Some(slot.take().unwrap_or_default()),
            _ => None,
        };
        if let Some(b) = finished {
            let built = b.finish();
            let item = match key {
                // `{key, value}`, in document order.
                Some(k) => {
                    let key = serde_json::to_string(&k).unwrap_or_else(|_| "\"\"".into());
                    RawValue::from_string(format!(
                        "{{\"key\":{key},\"value\":{}}}",
                        built.json.get()
                    ))
                    .unwrap_or(built.json)
                }
                None => built.json,
            };
            self.used += item.get().len();
            self.cut |= built.cut;
            self.items.push(item);
        }
        ControlFlow::Continue(())
    }

    fn capture_event(&mut self, ev: Ev<'_, '_>) -> ControlFlow<()> {
        let Mode::Capture(b) = &mut self.mode else {
            return ControlFlow::Continue(());
        };
        ev.feed(b);
        if b.is_over() {
            return self.too_large();
        }
        if b.is_done() {
            if let Mode::Capture(b) = std::mem::replace(&mut self.mode, Mode::Done) {
                let built = b.finish();
                self.cut |= built.cut;
                self.value = Some(built.json);
            }
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    fn route(&mut self, ev: Ev<'_, '_>) -> ControlFlow<()> {
        match self.mode {
            Mode::Capture(_) => self.capture_event(ev),
            Mode::Window { .. } => self.window_event(ev),
            _ => ControlFlow::Continue(()),
        }
    }

    fn start(&mut self, object: bool) -> ControlFlow<()> {
        let kind = if object { "object" } else { "array" };
        let (is_target, on_path) = self.locate();
        let depth = self.st.depth();
        if is_target {
            self.begin_target(kind)?;
            self.st.start(object);
            if matches!(self.mode, Mode::Capture(_)) {
                return self.route(Ev::Start(object));
            }
            return ControlFlow::Continue(());
        }
        if matches!(self.mode, Mode::Window { .. }) {
            // Route before the structure opens, so an element start is
            // seen at the window's depth.
            let flow = self.route(Ev::Start(object));
            self.st.start(object);
            return flow;
        }
        self.st.start(object);
        if on_path {
            self.on_path = depth + 1;
        }
        self.route(Ev::Start(object))
    }

    fn end(&mut self) -> ControlFlow<()> {
        let depth = self.st.depth();
        self.st.end();
        if matches!(self.mode, Mode::Seeking) && self.on_path == depth {
            // A container on the pointer's path closed without the target.
            return self.not_found(depth - 1);
        }
        self.route(Ev::End)
    }
}

/// One parser event, held while the select decides where it goes (the
/// target's builder, the current window element's, or nowhere): the
/// window needs to know an event's kind to find element boundaries.
#[derive(Clone, Copy)]
enum Ev<'a, 'b> {
    Start(bool),
    Key(&'a str, bool),
    End,
    Scalar(&'a Scalar<'b>),
}

impl Ev<'_, '_> {
    fn feed(self, b: &mut ValueBuilder) {
        match self {
            Ev::Start(o) => b.start(o),
            Ev::Key(k, t) => b.key(k, t),
            Ev::End => b.end(),
            Ev::Scalar(s) => b.scalar(s),
        }
    }
}

impl JsonSink for SelectSink {
    fn start_object(&mut self, _: usize, _: u64) -> ControlFlow<()> {
        self.start(true)
    }
    fn start_array(&mut self, _: usize, _: u64) -> ControlFlow<()> {
        self.start(false)
    }
    fn key(&mut self, key: &str, truncated: bool) -> ControlFlow<()> {
        self.st.key(key.as_bytes());
        self.route(Ev::Key(key, truncated))
    }
    fn end_object(&mut self) -> ControlFlow<()> {
        self.end()
    }
    fn end_array(&mut self) -> ControlFlow<()> {
        self.end()
    }
    fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
        let (is_target, on_path) = self.locate();
        let depth = self.st.depth();
        if is_target {
            self.begin_target(type_name(s.kind))?;
            self.st.scalar(s);
            return self.route(Ev::Scalar(s));
        }
        if on_path {
            // The path runs into a scalar before the pointer ends.
            self.st.scalar(s);
            return self.not_found(depth);
        }
        if matches!(self.mode, Mode::Window { .. }) {
            let flow = self.route(Ev::Scalar(s));
            self.st.scalar(s);
            return flow;
        }
        self.st.scalar(s);
        self.route(Ev::Scalar(s))
    }

    /// The answer is known or cannot be given: a target never reached is
    /// `pointer-not-found`, naming the deepest prefix that exists.
    fn finish(&mut self) -> Result<(), Refusal> {
        let found = match self.window {
            None => self.value.is_some(),
            Some(_) => !matches!(self.mode, Mode::Seeking),
        };
        if self.error.is_none() && !found {
            let _ = self.not_found(0);
        }
        self.error.take().map_or(Ok(()), Err)
    }
}

/// Selects the value at a JSON Pointer, or a window of the array or
/// object there; a pointer with `*` segments selects every value it
/// matches, each as `{pointer, value}` in document order, windowed by
/// offset and limit. Reading stops as soon as the answer is known.
///
/// # Errors
/// `invalid-argument` for a malformed pointer or a window on a non-array;
/// `pointer-not-found` naming the deepest prefix that exists;
/// `selection-too-large` past [`SELECT_BUDGET_BYTES`]; `invalid-json`,
/// `nesting-too-deep` and the stream's refusals.
pub fn select<R: BufRead>(
    stream: TextStream<R>,
    sel: &JsonSelectOptions,
) -> Result<JsonSelect, Refusal> {
    let target = Pointer::parse(&sel.pointer)?;
    let Window { offset, limit, .. } = sel.window;
    if target.tokens().iter().any(|t| t == WILDCARD) {
        let (offset, limit) = (offset.unwrap_or(0), clamp_limit(limit));
        let mut sink = WildcardSink::new(target.tokens().to_vec(), offset, limit);
        let _ = drive(stream, &mut sink)?;
        return Ok(JsonSelect {
            ok: true,
            format: "json",
            view: ViewFlags::exact().with_cut(sink.cut),
            pointer: sel.pointer.clone(),
            value: None,
            window: Some(SelectWindow {
                offset,
                limit,
                returned: sink.items.len(),
                has_more: sink.has_more,
            }),
            items: Some(sink.items),
        });
    }
    let windowed = offset.is_some() || limit.is_some();
    let window = windowed.then(|| (offset.unwrap_or(0), clamp_limit(limit)));
    let mut sink = SelectSink {
        target,
        window,
        st: Structure::default(),
        on_path: 0,
        mode: Mode::Seeking,
        value: None,
        items: Vec::new(),
        used: 0,
        cut: false,
        has_more: false,
        error: None,
    };
    // The sink's own refusal (the pointer leads nowhere, the selection
    // is too large) comes out of the drive loop, from its `finish`.
    let _ = drive(stream, &mut sink)?;
    let pointer = sel.pointer.clone();
    let view = ViewFlags::exact().with_cut(sink.cut);
    match window {
        None => match sink.value {
            Some(value) => Ok(JsonSelect {
                ok: true,
                format: "json",
                view,
                pointer,
                value: Some(value),
                items: None,
                window: None,
            }),
            None => Err(Refusal::new(
                RefusalReason::PointerNotFound,
                "the pointer does not resolve",
            )),
        },
        Some((offset, limit)) => Ok(JsonSelect {
            ok: true,
            format: "json",
            view,
            pointer,
            value: None,
            window: Some(SelectWindow {
                offset,
                limit,
                returned: sink.items.len(),
                has_more: sink.has_more,
            }),
            items: Some(sink.items),
        }),
    }
}
