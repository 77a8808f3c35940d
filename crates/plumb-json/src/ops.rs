//! inspect, select and validate over a text stream.

use std::collections::{BTreeMap, HashSet};
use std::io::BufRead;
use std::ops::ControlFlow;

use serde::Serialize;
use serde_json::value::RawValue;

use plumb_core::{
    clamp_limit, Refusal, RefusalReason, ScanBounds, TextStream, ViewFlags, Window,
    COLUMN_TRACK_CAP,
};

use crate::builder::ValueBuilder;
use crate::parser::{JsonParser, JsonSink, Scalar, ScalarKind, Status};
use crate::pointer::Pointer;
use crate::structure::{DuplicateReport, PrecisionReport, Structure};

/// Bytes of JSON text one inspect sample element may take; a larger
/// element becomes a `$summary`. Enough to show a typical record whole.
pub const SAMPLE_BUDGET_BYTES: usize = 8 * 1024;

/// Bytes of JSON text a select may return; a larger target is refused
/// `selection-too-large` (or, in a window, summarized).
pub const SELECT_BUDGET_BYTES: usize = 1024 * 1024;

/// Keys listed by inspect, in first-seen order.
pub const KEY_LIST_CAP: usize = 200;

/// Elements in the inspect sample when none is asked for.
pub const JSON_SAMPLE_ROWS_DEFAULT: usize = 3;

/// The most elements an inspect sample holds.
pub const JSON_SAMPLE_ROWS_MAX: usize = 100;

/// What a select targets.
#[derive(Clone, Debug, Default)]
pub struct JsonSelectOptions {
    /// An RFC 6901 pointer; `""` is the whole document.
    pub pointer: String,
    /// Windowed mode, when either is set: elements of the target array
    /// to skip, and to return (clamped to 1..=1000).
    pub window: Window,
}

/// The JSON type name of a scalar kind (`string`, `number`, `boolean`, `null`).
pub fn type_name(kind: ScalarKind) -> &'static str {
    match kind {
        ScalarKind::String => "string",
        ScalarKind::Number => "number",
        ScalarKind::True | ScalarKind::False => "boolean",
        ScalarKind::Null => "null",
    }
}

/// Pushes a whole stream through a parser.
pub(crate) fn drive<R: BufRead, S: JsonSink>(
    mut stream: TextStream<R>,
    sink: &mut S,
) -> Result<(Status, bool), Refusal> {
    let mut parser: Option<JsonParser> = None;
    while let Some(chunk) = stream.next_chunk()? {
        let p = parser.get_or_insert_with(|| JsonParser::new().with_base_offset(chunk.byte_offset));
        if p.push(chunk.text.as_bytes(), sink)? == Status::Stopped {
            return Ok((Status::Stopped, stream.stats().bom));
        }
    }
    let mut p = parser.unwrap_or_else(|| JsonParser::new().with_base_offset(stream.position()));
    let status = p.finish(sink)?;
    Ok((status, stream.stats().bom))
}

/// The answer of JSON inspect.
#[derive(Debug, Serialize)]
pub struct JsonInspect {
    /// Always true.
    pub ok: bool,
    /// `json`.
    pub format: &'static str,
    /// Exact, or sampled when the row cap stopped the scan.
    pub view: ViewFlags,
    /// `object`, `array`, `string`, `number`, `boolean` or `null`.
    pub root_type: &'static str,
    /// Elements (array root) or members (object root) read.
    pub count: u64,
    /// Keys in first-seen order: of the root object, or of the objects
    /// in the root array (at most 200).
    pub keys: Vec<String>,
    /// Distinct keys seen (counted up to 10,000).
    pub key_count: u64,
    /// Value types of the root's elements or members.
    pub types: BTreeMap<&'static str, u64>,
    /// A preview: the first elements (array root), the root object, or
    /// the scalar; each element within 8 KiB, else a `$summary`.
    pub sample: Box<RawValue>,
    /// The deepest nesting (a scalar root is 0).
    pub max_depth: usize,
    /// Duplicate keys (legal JSON, reported).
    pub duplicate_keys: DuplicateReport,
    /// Numbers a double would misstate.
    pub precision: PrecisionReport,
    /// Whether a UTF-8 BOM was stripped.
    pub bom: bool,
}

struct InspectSink {
    st: Structure,
    depth: usize,
    root: Option<&'static str>,
    count: u64,
    keys: Vec<String>,
    key_seen: HashSet<String>,
    types: BTreeMap<&'static str, u64>,
    builder: Option<ValueBuilder>,
    samples: Vec<Box<RawValue>>,
    sample_rows: usize,
    max_rows: Option<u64>,
    capped: bool,
}

impl InspectSink {
    fn note_key(&mut self, key: &str) {
        if self.key_seen.len() < COLUMN_TRACK_CAP && !self.key_seen.contains(key) {
            self.key_seen.insert(key.to_owned());
            if self.keys.len() < KEY_LIST_CAP {
                self.keys.push(key.to_owned());
            }
        }
    }

    /// A root element (or member value) starts: count it, maybe sample it.
    fn element(&mut self, type_name: &'static str) -> ControlFlow<()> {
        if self.root == Some("array") {
            if self.max_rows.is_some_and(|m| self.count >= m) {
                self.capped = true;
                return ControlFlow::Break(());
            }
            self.count += 1;
            if self.samples.len() < self.sample_rows {
                self.builder = Some(ValueBuilder::new(SAMPLE_BUDGET_BYTES));
            }
        }
        *self.types.entry(type_name).or_default() += 1;
        ControlFlow::Continue(())
    }

    fn builder_done(&mut self) {
        if self.builder.as_ref().is_some_and(ValueBuilder::is_done) {
            if let Some(b) = self.builder.take() {
                self.samples.push(b.finish().json);
            }
        }
    }

    fn start(&mut self, object: bool) -> ControlFlow<()> {
        let kind = if object { "object" } else { "array" };
        if self.depth == 0 {
            self.root = Some(kind);
            if object {
                self.builder = Some(ValueBuilder::new(SAMPLE_BUDGET_BYTES));
            }
        } else if self.depth == 1 {
            self.element(kind)?;
        }
        self.st.start(object);
        if let Some(b) = self.builder.as_mut() {
            b.start(object);
        }
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn end(&mut self) {
        self.depth -= 1;
        self.st.end();
        if let Some(b) = self.builder.as_mut() {
            b.end();
        }
        self.builder_done();
    }
}

impl JsonSink for InspectSink {
    fn start_object(&mut self, _depth: usize, _at: u64) -> ControlFlow<()> {
        self.start(true)
    }
    fn start_array(&mut self, _depth: usize, _at: u64) -> ControlFlow<()> {
        self.start(false)
    }
    fn key(&mut self, key: &str, truncated: bool) -> ControlFlow<()> {
        match (self.root, self.depth) {
            (Some("object"), 1) => {
                if self.max_rows.is_some_and(|m| self.count >= m) {
                    self.capped = true;
                    return ControlFlow::Break(());
                }
                self.count += 1;
                self.note_key(key);
            }
            (Some("array"), 2) => self.note_key(key),
            _ => {}
        }
        self.st.key(key.as_bytes());
        if let Some(b) = self.builder.as_mut() {
            b.key(key, truncated);
        }
        ControlFlow::Continue(())
    }
    fn end_object(&mut self) -> ControlFlow<()> {
        self.end();
        ControlFlow::Continue(())
    }
    fn end_array(&mut self) -> ControlFlow<()> {
        self.end();
        ControlFlow::Continue(())
    }
    fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
        let t = type_name(s.kind);
        if self.depth == 0 {
            self.root = Some(t);
            self.builder = Some(ValueBuilder::new(SAMPLE_BUDGET_BYTES));
        } else if self.depth == 1 {
            self.element(t)?;
        }
        self.st.scalar(s);
        if let Some(b) = self.builder.as_mut() {
            b.scalar(s);
        }
        self.builder_done();
        ControlFlow::Continue(())
    }
}

fn raw(text: &str) -> Box<RawValue> {
    RawValue::from_string(text.to_owned())
        .unwrap_or_else(|_| RawValue::from_string("null".to_owned()).expect("null is JSON"))
}

/// Inspects a JSON stream. `max_rows` counts elements (or members) of
/// the root; the sample holds 3 elements unless asked (at most 100).
///
/// # Errors
/// `invalid-json` (with line, column, byte offset), `nesting-too-deep`,
/// and the stream's refusals.
pub fn inspect<R: BufRead>(
    stream: TextStream<R>,
    opts: &ScanBounds,
) -> Result<JsonInspect, Refusal> {
    let mut sink = InspectSink {
        st: Structure::default(),
        depth: 0,
        root: None,
        count: 0,
        keys: Vec::new(),
        key_seen: HashSet::new(),
        types: BTreeMap::new(),
        builder: None,
        samples: Vec::new(),
        sample_rows: opts
            .sample_rows
            .unwrap_or(JSON_SAMPLE_ROWS_DEFAULT)
            .min(JSON_SAMPLE_ROWS_MAX),
        max_rows: opts.max_rows,
        capped: false,
    };
    let (_, bom) = drive(stream, &mut sink)?;
    let root_type = sink.root.unwrap_or("null");
    let sample = if root_type == "array" {
        let parts: Vec<&str> = sink.samples.iter().map(|r| r.get()).collect();
        raw(&format!("[{}]", parts.join(",")))
    } else {
        sink.samples.pop().unwrap_or_else(|| raw("null"))
    };
    let max_depth = sink.st.max_depth();
    let (duplicate_keys, precision) = sink.st.into_reports();
    Ok(JsonInspect {
        ok: true,
        format: "json",
        view: ViewFlags::of_scan(sink.capped),
        root_type,
        count: sink.count,
        keys: sink.keys,
        key_count: sink.key_seen.len() as u64,
        types: sink.types,
        sample,
        max_depth,
        duplicate_keys,
        precision,
        bom,
    })
}

/// The answer of JSON validate.
#[derive(Debug, Serialize)]
pub struct JsonValidate {
    /// Always true (the scan ran; see `valid`).
    pub ok: bool,
    /// `json`.
    pub format: &'static str,
    /// Exact, or sampled when the row cap stopped the scan.
    pub view: ViewFlags,
    /// True: one well-formed JSON text. False: a syntax fault (see
    /// `syntax_error`). Null: stopped at the row cap with no fault.
    pub valid: Option<bool>,
    /// The first syntax fault, or null.
    pub syntax_error: Option<SyntaxError>,
    /// Root elements (or members) read.
    pub rows_scanned: u64,
    /// The deepest nesting.
    pub max_depth: usize,
    /// Duplicate keys: legal JSON, reported, never failed.
    pub duplicate_keys: DuplicateReport,
}

/// Where and what the first syntax fault is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SyntaxError {
    /// What was wrong and what to do instead.
    pub message: String,
    /// The 1-based line.
    pub line: u64,
    /// The 1-based column, in characters.
    pub column: u64,
    /// The 0-based absolute byte offset.
    pub byte_offset: u64,
}

impl SyntaxError {
    /// The syntax fault a refusal describes, when it is one.
    pub fn of(refusal: &Refusal) -> Option<SyntaxError> {
        (refusal.reason() == RefusalReason::InvalidJson).then(|| SyntaxError {
            message: refusal.message().to_owned(),
            line: refusal.line().unwrap_or(0),
            column: refusal.column().unwrap_or(0),
            byte_offset: refusal.byte_offset().unwrap_or(0),
        })
    }
}

struct ValidateSink {
    st: Structure,
    depth: usize,
    rows: u64,
    max_rows: Option<u64>,
    capped: bool,
}

impl ValidateSink {
    fn element(&mut self) -> ControlFlow<()> {
        if self.depth == 1 {
            if self.max_rows.is_some_and(|m| self.rows >= m) {
                self.capped = true;
                return ControlFlow::Break(());
            }
            self.rows += 1;
        }
        ControlFlow::Continue(())
    }
}

impl JsonSink for ValidateSink {
    fn capture_strings(&self) -> bool {
        false
    }
    fn start_object(&mut self, _: usize, _: u64) -> ControlFlow<()> {
        self.element()?;
        self.depth += 1;
        self.st.start(true);
        ControlFlow::Continue(())
    }
    fn start_array(&mut self, _: usize, _: u64) -> ControlFlow<()> {
        self.element()?;
        self.depth += 1;
        self.st.start(false);
        ControlFlow::Continue(())
    }
    fn key_bytes(&mut self, key: &[u8], _: bool) -> ControlFlow<()> {
        self.st.key(key);
        ControlFlow::Continue(())
    }
    fn end_object(&mut self) -> ControlFlow<()> {
        self.depth -= 1;
        self.st.end();
        ControlFlow::Continue(())
    }
    fn end_array(&mut self) -> ControlFlow<()> {
        self.depth -= 1;
        self.st.end();
        ControlFlow::Continue(())
    }
    fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
        self.element()?;
        self.st.scalar(s);
        ControlFlow::Continue(())
    }
}

/// Validates a JSON stream. A syntax fault is an answer (`valid:
/// false`), not a refusal; duplicate keys are reported, never failed.
///
/// # Errors
/// `nesting-too-deep` and the stream's refusals (`invalid-utf8`,
/// `binary`, `aborted`, `read-error`).
pub fn validate<R: BufRead>(
    stream: TextStream<R>,
    opts: &ScanBounds,
) -> Result<JsonValidate, Refusal> {
    let mut sink = ValidateSink {
        st: Structure::default(),
        depth: 0,
        rows: 0,
        max_rows: opts.max_rows,
        capped: false,
    };
    let outcome = drive(stream, &mut sink);
    let (valid, syntax_error) = match outcome {
        Ok(_) if sink.capped => (None, None),
        Ok(_) => (Some(true), None),
        Err(r) => match SyntaxError::of(&r) {
            Some(e) => (Some(false), Some(e)),
            None => return Err(r),
        },
    };
    let max_depth = sink.st.max_depth();
    let (duplicate_keys, _) = sink.st.into_reports();
    Ok(JsonValidate {
        ok: true,
        format: "json",
        view: ViewFlags::of_scan(sink.capped),
        valid,
        syntax_error,
        rows_scanned: sink.rows,
        max_depth,
        duplicate_keys,
    })
}

/// The answer of JSON select.
#[derive(Debug, Serialize)]
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
    /// Windowed mode: the elements of the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<Box<RawValue>>>,
    /// Windowed mode: elements skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Windowed mode: the limit applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// Windowed mode: elements returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub returned: Option<usize>,
    /// Windowed mode: whether elements follow the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

enum Mode {
    Seeking,
    Capture(ValueBuilder),
    Window {
        /// Open containers once the target array is open.
        depth: usize,
        index: u64,
        current: Option<ValueBuilder>,
        skipping: bool,
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
        let asked = self.target.prefix(self.target.tokens().len());
        let deepest = self.target.prefix(prefix);
        let shown = if deepest.is_empty() {
            "the document root".to_owned()
        } else {
            format!("`{}`", plumb_core::echo(&deepest))
        };
        self.refuse(
            Refusal::new(
                RefusalReason::PointerNotFound,
                format!(
                    "pointer `{}` does not resolve; the deepest part that exists is {shown}; inspect or select it to see what it holds",
                    plumb_core::echo(&asked)
                ),
            )
            .with_pointer(plumb_core::echo(&asked))
            .with_extra("deepest", serde_json::Value::from(plumb_core::echo(&deepest))),
        )
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
            Some(_) if kind == "array" => {
                self.mode = Mode::Window {
                    depth: self.st.depth() + 1,
                    index: 0,
                    current: None,
                    skipping: false,
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
                    "offset and limit select a window of an array, but {shown} is {article} {kind}; drop offset and limit to select it whole"
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
        } = &mut self.mode
        else {
            return ControlFlow::Continue(());
        };
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
            match ev {
                Ev::Start(o) => b.start(o),
                Ev::Key(k, t) => b.key(k, t),
                Ev::End => b.end(),
                Ev::Scalar(s) => b.scalar(s),
            }
            if b.is_done() {
                finished = current.take();
            }
        }
        if let Some(b) = finished {
            let built = b.finish();
            self.used += built.json.get().len();
            self.cut |= built.cut;
            self.items.push(built.json);
        }
        ControlFlow::Continue(())
    }

    fn capture_event(&mut self, ev: Ev<'_, '_>) -> ControlFlow<()> {
        let Mode::Capture(b) = &mut self.mode else {
            return ControlFlow::Continue(());
        };
        match ev {
            Ev::Start(o) => b.start(o),
            Ev::Key(k, t) => b.key(k, t),
            Ev::End => b.end(),
            Ev::Scalar(s) => b.scalar(s),
        }
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

#[derive(Clone, Copy)]
enum Ev<'a, 'b> {
    Start(bool),
    Key(&'a str, bool),
    End,
    Scalar(&'a Scalar<'b>),
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
}

/// Selects the value at a JSON Pointer, or a window of the array there.
/// Reading stops as soon as the answer is known.
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
    let Window { offset, limit } = sel.window;
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
    drive(stream, &mut sink)?;
    if let Some(r) = sink.error.take() {
        return Err(r);
    }
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
                offset: None,
                limit: None,
                returned: None,
                has_more: None,
            }),
            None => {
                let mut s = sink;
                let _ = s.not_found(0);
                Err(s.error.take().unwrap_or_else(|| {
                    Refusal::new(
                        RefusalReason::PointerNotFound,
                        "the pointer does not resolve",
                    )
                }))
            }
        },
        Some((offset, limit)) => {
            if matches!(sink.mode, Mode::Seeking) {
                let mut s = sink;
                let _ = s.not_found(0);
                return Err(s.error.take().unwrap_or_else(|| {
                    Refusal::new(
                        RefusalReason::PointerNotFound,
                        "the pointer does not resolve",
                    )
                }));
            }
            Ok(JsonSelect {
                ok: true,
                format: "json",
                view,
                pointer,
                value: None,
                returned: Some(sink.items.len()),
                items: Some(sink.items),
                offset: Some(offset),
                limit: Some(limit),
                has_more: Some(sink.has_more),
            })
        }
    }
}
