//! JSON inspect: the root, top-level keys and their types, structure
//! facts, and a sample within its budget.

use std::collections::{BTreeMap, HashSet};
use std::io::BufRead;
use std::ops::ControlFlow;

use serde::Serialize;
use serde_json::value::RawValue;

use plumb_core::{Refusal, RowCap, ScanBounds, TextStream, ViewFlags, COLUMN_TRACK_CAP};

use crate::builder::ValueBuilder;
use crate::outline::{Outline, OutlineOptions, OUTLINE_LIST_DEFAULT};
use crate::parser::Scalar;
use crate::pointer::Pointer;
use crate::sink::{JsonSink, Tee};
use crate::structure::{DuplicateReport, PrecisionReport, Structure};
use crate::subtree::Subtree;

use super::{
    drive, type_name, JSON_SAMPLE_ROWS_DEFAULT, JSON_SAMPLE_ROWS_MAX, KEY_LIST_CAP,
    SAMPLE_BUDGET_BYTES,
};

mod state;
pub(crate) use state::PartState;

/// The answer of JSON inspect.
#[derive(Debug, Serialize, schemars::JsonSchema)]
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
    /// Distinct keys seen, counted exactly up to 10,000
    /// (`COLUMN_TRACK_CAP`); past that it is a lower bound, and
    /// `key_count_is_lower_bound` and the view (cut) say so.
    pub key_count: u64,
    /// Set when more distinct keys than `key_count` exist: the count hit
    /// its cap.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub key_count_is_lower_bound: bool,
    /// Value types of the root's elements or members.
    pub types: BTreeMap<&'static str, u64>,
    /// A preview: the first elements (array root), the root object, or
    /// the scalar; each element within 8 KiB, else a `$summary`.
    pub sample: Box<RawValue>,
    /// Set when the sample holds a `$summary` or `$truncated` placeholder
    /// (the facts beside it are still of every value).
    pub sample_shortened: bool,
    /// The deepest nesting (a scalar root is 0).
    pub max_depth: usize,
    /// Duplicate keys (legal JSON, reported).
    pub duplicate_keys: DuplicateReport,
    /// Numbers a double would misstate.
    pub precision: PrecisionReport,
    /// Whether a UTF-8 BOM was stripped.
    pub bom: bool,
    /// Every path of the document with what was seen there
    /// ([`Outline`]): the first `outline_paths` listed, all counted.
    pub outline: serde_json::Value,
    /// The pointer inspected, when it was not the whole document: every
    /// fact above is of the value there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
}

struct InspectSink {
    st: Structure,
    depth: usize,
    root: Option<&'static str>,
    cap: RowCap,
    keys: Vec<String>,
    key_seen: HashSet<String>,
    keys_uncounted: bool,
    types: BTreeMap<&'static str, u64>,
    builder: Option<ValueBuilder>,
    sample_shortened: bool,
    samples: Vec<Box<RawValue>>,
    sample_rows: usize,
}

impl InspectSink {
    fn new(opts: &ScanBounds) -> InspectSink {
        InspectSink {
            st: Structure::default(),
            depth: 0,
            root: None,
            cap: RowCap::new(opts.max_rows),
            keys: Vec::new(),
            key_seen: HashSet::new(),
            keys_uncounted: false,
            types: BTreeMap::new(),
            builder: None,
            sample_shortened: false,
            samples: Vec::new(),
            sample_rows: opts
                .sample_rows
                .unwrap_or(JSON_SAMPLE_ROWS_DEFAULT)
                .min(JSON_SAMPLE_ROWS_MAX),
        }
    }

    fn note_key(&mut self, key: &str) {
        if self.key_seen.contains(key) {
            return;
        }
        if self.key_seen.len() >= COLUMN_TRACK_CAP {
            // A key not among the counted ones: the count is a floor now.
            self.keys_uncounted = true;
            return;
        }
        self.key_seen.insert(key.to_owned());
        if self.keys.len() < KEY_LIST_CAP {
            self.keys.push(key.to_owned());
        }
    }

    /// A root element (or member value) starts: count it, maybe sample it.
    fn element(&mut self, type_name: &'static str) -> ControlFlow<()> {
        if self.root == Some("array") {
            self.cap.admit()?;
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
                let built = b.finish();
                self.sample_shortened |= built.cut;
                self.samples.push(built.json);
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
                self.cap.admit()?;
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

fn array_sample(samples: &[Box<RawValue>]) -> Box<RawValue> {
    let parts: Vec<&str> = samples.iter().map(|r| r.get()).collect();
    raw(&format!("[{}]", parts.join(",")))
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
    inspect_outlined(stream, opts, OUTLINE_LIST_DEFAULT)
}

/// [`inspect`], with the outline listing at most `outline_paths` paths.
///
/// # Errors
/// As [`inspect`].
pub fn inspect_outlined<R: BufRead>(
    stream: TextStream<R>,
    opts: &ScanBounds,
    outline: impl Into<OutlineOptions>,
) -> Result<JsonInspect, Refusal> {
    inspect_at(stream, opts, outline, "")
}

/// [`inspect_outlined`] of the value at `pointer` (`""` is the whole
/// document), read as a document of its own: reading stops at its end.
/// The outline's paths are the document's (prefixed with `pointer`);
/// the pointers of duplicate keys and precision facts are relative to
/// the value.
///
/// # Errors
/// As [`inspect`]; `invalid-argument` for a malformed pointer and
/// `pointer-not-found` naming the deepest prefix that exists.
pub fn inspect_at<R: BufRead>(
    stream: TextStream<R>,
    opts: &ScanBounds,
    outline: impl Into<OutlineOptions>,
    pointer: &str,
) -> Result<JsonInspect, Refusal> {
    let target = Pointer::parse(pointer)?;
    let listing = outline.into();
    let outline_paths = listing.paths;
    let mut outline = if listing.stats {
        Outline::with_stats()
    } else {
        Outline::new()
    };
    let mut sink = InspectSink::new(opts);
    let stream = stream.within(opts.max_scan_bytes);
    let ended = if target.tokens().is_empty() {
        drive(stream, &mut Tee(&mut sink, &mut outline))?
    } else {
        let mut sub = Subtree::new(Tee(&mut sink, &mut outline), target);
        drive(stream, &mut sub)?
    };
    if ended.budget {
        sink.cap.stop();
    }
    let bom = ended.bom;
    let root_type = sink.root.unwrap_or("null");
    let sample = if root_type == "array" {
        array_sample(&sink.samples)
    } else {
        sink.samples.pop().unwrap_or_else(|| raw("null"))
    };
    let max_depth = sink.st.max_depth();
    let (duplicate_keys, precision) = sink.st.into_reports();
    Ok(JsonInspect {
        ok: true,
        format: "json",
        // A count that stopped at a cap is a lower bound: the key count,
        // or the duplicate keys once the tracker filled.
        view: ViewFlags::of_scan(sink.cap.capped())
            .with_cut(sink.keys_uncounted || !duplicate_keys.checked_fully || outline.is_cut()),
        root_type,
        count: sink.cap.rows(),
        keys: sink.keys,
        key_count: sink.key_seen.len() as u64,
        key_count_is_lower_bound: sink.keys_uncounted,
        types: sink.types,
        sample,
        sample_shortened: sink.sample_shortened,
        max_depth,
        duplicate_keys,
        precision,
        bom,
        outline: outline.to_json_under(outline_paths, pointer),
        pointer: (!pointer.is_empty()).then(|| pointer.to_owned()),
    })
}

/// What one part of a root array read on its own thread found (see
/// `crate::parallel`): the sink's facts and the part's outline, the root
/// array counted open in each.
pub(crate) struct InspectPart {
    sink: InspectSink,
    outline: Outline,
    bom: bool,
}

/// Inspects one part of a root array (see `crate::ops::validate_part`
/// for the parts and when one answers); no statistics, no row cap.
pub(crate) fn inspect_part<R: BufRead>(
    stream: TextStream<R>,
    first: bool,
    last: bool,
    opts: &ScanBounds,
    stats: bool,
) -> Option<InspectPart> {
    let mut sink = InspectSink::new(opts);
    // A part's statistics are budgeted for `STATS_SPLIT_PATHS` paths.
    let mut outline = if stats {
        Outline::with_stats().with_node_cap(crate::STATS_SPLIT_PATHS)
    } else {
        Outline::new()
    };
    if !first {
        // Inside the root array, as the first part left it.
        sink.root = Some("array");
        sink.depth = 1;
        sink.st.start(false);
        let _ = outline.start_array(0, 0);
    }
    let bom = super::parse_part(stream, first, last, &mut Tee(&mut sink, &mut outline))?;
    if !last {
        // The root array closes here for this part's outline, which then
        // holds no open frame and joins the next (its length is mended
        // after the join).
        let _ = outline.end_array();
    }
    Some(InspectPart { sink, outline, bom })
}

/// Joins the parts of a root array, in file order, into the answer one
/// thread gives; `None` where that cannot be promised: a later part with
/// a duplicate key or a precision fact (whose pointers would need the
/// elements before the part), more distinct keys than are counted, a
/// first part holding fewer elements than the sample, an outline that
/// will not join (see [`Outline::absorb`]).
pub(crate) fn join_parts(parts: Vec<InspectPart>, outline_paths: usize) -> Option<JsonInspect> {
    let count = parts.len() as u64;
    let mut parts = parts.into_iter();
    let InspectPart {
        sink: mut whole,
        mut outline,
        bom,
    } = parts.next()?;
    if whole.root != Some("array")
        || whole.keys_uncounted
        || whole.samples.len() < whole.sample_rows
    {
        return None;
    }
    let mut elements = whole.cap.rows();
    for part in parts {
        let later = part.sink;
        let (dups, precision) = (later.st.duplicates(), later.st.precision());
        if dups.count > 0 || !dups.checked_fully || precision.count > 0 || later.keys_uncounted {
            return None;
        }
        elements += later.cap.rows();
        // The later part's keys new here follow, in its first-seen order;
        // past its listed ones that order is not kept, which matters
        // only while the list has room.
        for key in &later.keys {
            if whole.key_seen.insert(key.clone()) && whole.keys.len() < KEY_LIST_CAP {
                whole.keys.push(key.clone());
            }
        }
        for key in &later.key_seen {
            if whole.key_seen.insert(key.clone()) && whole.keys.len() < KEY_LIST_CAP {
                return None;
            }
        }
        if whole.key_seen.len() > COLUMN_TRACK_CAP {
            return None;
        }
        for (t, n) in &later.types {
            *whole.types.entry(t).or_default() += n;
        }
        whole.st.absorb(&later.st);
        if !outline.absorb(&part.outline) {
            return None;
        }
    }
    outline.join_root_array(count, elements);
    let max_depth = whole.st.max_depth();
    let (duplicate_keys, precision) = whole.st.into_reports();
    Some(JsonInspect {
        ok: true,
        format: "json",
        view: ViewFlags::of_scan(false).with_cut(!duplicate_keys.checked_fully || outline.is_cut()),
        root_type: "array",
        count: elements,
        keys: whole.keys,
        key_count: whole.key_seen.len() as u64,
        key_count_is_lower_bound: false,
        types: whole.types,
        sample: array_sample(&whole.samples),
        sample_shortened: whole.sample_shortened,
        max_depth,
        duplicate_keys,
        precision,
        bom,
        outline: outline.to_json_under(outline_paths, ""),
        pointer: None,
    })
}
