//! inspect, select and validate over JSON Lines.

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::ops::ControlFlow;

use serde::Serialize;
use serde_json::value::RawValue;

use plumb_core::{
    clamp_limit, PrecisionKind, Refusal, RowCap, ScanBounds, TextStream, ViewFlags, Window,
    FIRST_ISSUES_CAP,
};
use plumb_json::{
    scan_text, JsonParser, JsonSink, Null, Outline, Scalar, ScalarKind, Structure, Tee,
    ValueBuilder, OUTLINE_LIST_DEFAULT, SAMPLE_BUDGET_BYTES,
};

use crate::splitter::{Line, LineSink, LineSplitter, JSONL_MAX_LINE_BYTES};

/// Top-level keys counted by inspect, in first-seen order; later new
/// keys are counted in `untracked_keys` only.
pub const KEY_HISTOGRAM_CAP: usize = 500;

/// Bytes of JSON text one selected record may take; a larger record
/// becomes a `$summary` and is marked truncated.
pub const SELECT_LINE_BUDGET_BYTES: usize = 1 << 20;

/// Records in the inspect sample when none is asked for.
pub const JSONL_SAMPLE_ROWS_DEFAULT: usize = 3;

/// The most records an inspect sample holds.
pub const JSONL_SAMPLE_ROWS_MAX: usize = 100;

/// A line that is not a JSON value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InvalidLine {
    /// The 1-based physical line.
    pub line: u64,
    /// What is wrong and what to do instead.
    pub message: String,
}

fn oversized_message(len: u64) -> String {
    format!(
        "the line is {len} bytes, over the {JSONL_MAX_LINE_BYTES}-byte line cap, and was skipped unread; \
         if the file is one JSON document rather than one value per line, read it with format json"
    )
}

/// Drives a stream through the splitter into `sink`; returns whether the
/// sink stopped the scan, and the BOM flag.
pub(crate) fn drive<R: BufRead, S: LineSink>(
    mut stream: TextStream<R>,
    sink: &mut S,
) -> Result<(bool, bool), Refusal> {
    let mut splitter = None;
    let flow = plumb_core::drive(&mut stream, &mut splitter, LineSplitter::new, sink)?;
    Ok((flow.is_break(), stream.stats().bom))
}

/// A duplicate key, with its line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineDuplicate {
    /// The 1-based line of the record.
    pub line: u64,
    /// The pointer of the object inside the record.
    pub pointer: String,
    /// The repeated key.
    pub key: String,
}

/// A number a double would misstate, with its line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LinePrecision {
    /// The 1-based line of the record.
    pub line: u64,
    /// The pointer inside the record.
    pub pointer: String,
    /// The source literal.
    pub literal: String,
    /// How a double would misstate it.
    pub kind: PrecisionKind,
}

/// Duplicate keys across records.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LineDuplicates {
    /// How many were found.
    pub count: u64,
    /// The first ones.
    pub first: Vec<LineDuplicate>,
    /// False when an object had more keys than could be tracked.
    pub checked_fully: bool,
}

/// Precision facts across records.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LinePrecisionReport {
    /// How many were found.
    pub count: u64,
    /// Counts by kind.
    pub by_kind: BTreeMap<PrecisionKind, u64>,
    /// The first ones.
    pub first: Vec<LinePrecision>,
}

/// The answer of JSON Lines inspect.
#[derive(Debug, Serialize)]
pub struct JsonlInspect {
    /// Always true.
    pub ok: bool,
    /// `jsonl`.
    pub format: &'static str,
    /// Exact, or sampled when the row cap stopped the scan.
    pub view: ViewFlags,
    /// Physical lines read, blank ones included.
    pub lines_scanned: u64,
    /// Records read (non-blank lines, valid or not).
    pub rows_scanned: u64,
    /// Lines holding only white space (counted, not invalid).
    pub blank_lines: u64,
    /// The first lines that are not one JSON value.
    pub invalid: Vec<InvalidLine>,
    /// All such lines.
    pub invalid_count: u64,
    /// Records by root type.
    pub root_types: BTreeMap<&'static str, u64>,
    /// Object records carrying each top-level key (first 500 keys).
    pub keys: BTreeMap<String, u64>,
    /// Top-level keys in first-seen order (first 500).
    pub key_order: Vec<String>,
    /// Distinct top-level keys past the 500 tracked (counted up to
    /// 10,000; see `untracked_keys_is_lower_bound`).
    pub untracked_keys: u64,
    /// Whether `untracked_keys` stopped at its 10,000 cap and is a lower
    /// bound (the view is then cut).
    pub untracked_keys_is_lower_bound: bool,
    /// Value types per top-level key.
    pub key_types: BTreeMap<String, BTreeMap<&'static str, u64>>,
    /// The deepest nesting of any record.
    pub max_depth: usize,
    /// Duplicate keys, with their lines.
    pub duplicate_keys: LineDuplicates,
    /// Numbers a double would misstate, with their lines.
    pub precision: LinePrecisionReport,
    /// The first valid records, each within 8 KiB, else a `$summary`.
    pub sample: Vec<Box<RawValue>>,
    /// Set when the sample holds a `$summary` or `$truncated` placeholder
    /// (the facts beside it are still of every record).
    pub sample_shortened: bool,
    /// Whether a UTF-8 BOM was stripped (JSON Lines forbids one).
    pub bom: bool,
    /// Every path of the records, merged ([`Outline`]): the first
    /// `outline_paths` listed, all counted. A line that turns out not
    /// to be JSON adds the values read before its fault.
    pub outline: serde_json::Value,
}

/// The types of a record's root and of its top-level keys: the one
/// part of inspect's per-record facts that [`Structure`] and
/// [`ValueBuilder`] (the other parts, composed with [`Tee`]) do not keep.
struct RecordTypes<'a> {
    depth: usize,
    root: Option<usize>,
    top_keys: &'a mut TopKeys,
}

/// The value types inspect counts, by index: counts are kept in arrays
/// and made maps of names only for the answer.
const VALUE_TYPES: [&str; 6] = ["object", "array", "string", "number", "boolean", "null"];
const OBJECT: usize = 0;
const ARRAY: usize = 1;
const NULL: usize = 5;

/// A scalar's place in [`VALUE_TYPES`] (named as `plumb_json::type_name` names it).
fn scalar_type(kind: ScalarKind) -> usize {
    match kind {
        ScalarKind::String => 2,
        ScalarKind::Number => 3,
        ScalarKind::True | ScalarKind::False => 4,
        ScalarKind::Null => NULL,
    }
}

/// Counts by type index as the answer's map of the types seen.
fn type_map(counts: &[u64; 6]) -> BTreeMap<&'static str, u64> {
    VALUE_TYPES
        .iter()
        .zip(counts)
        .filter(|(_, &n)| n > 0)
        .map(|(&t, &n)| (t, n))
        .collect()
}

/// Byte equality for keys: short ones compared in a loop rather than a
/// call into `memcmp` (a hit compares every byte, and most keys hit).
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && if b.len() <= 16 {
            a.iter().zip(b).all(|(x, y)| x == y)
        } else {
            a == b
        }
}

/// One record's top-level keys, in one buffer reused record to record
/// (a key costs no allocation), each with the type of its value.
#[derive(Default)]
struct TopKeys {
    bytes: Vec<u8>,
    keys: Vec<(usize, Option<usize>)>,
}

impl TopKeys {
    fn clear(&mut self) {
        self.bytes.clear();
        self.keys.clear();
    }

    /// The keys in order: bytes and type.
    fn iter(&self) -> impl Iterator<Item = (&[u8], Option<usize>)> + '_ {
        let mut start = 0;
        self.keys.iter().map(move |&(end, t)| {
            let key = &self.bytes[start..end];
            start = end;
            (key, t)
        })
    }
}

/// A tracked top-level key: its name, its bytes, the records carrying
/// it and its values' types (by [`VALUE_TYPES`] index).
struct KeyStat {
    name: String,
    raw: Box<[u8]>,
    count: u64,
    types: [u64; 6],
}

impl RecordTypes<'_> {
    fn value_type(&mut self, t: usize) {
        if self.depth == 0 {
            self.root = Some(t);
        } else if self.depth == 1 && self.root == Some(OBJECT) {
            if let Some(last) = self.top_keys.keys.last_mut() {
                last.1 = Some(t);
            }
        }
    }
}

impl JsonSink for RecordTypes<'_> {
    fn capture_strings(&self) -> bool {
        false
    }
    fn start_object(&mut self, _: usize, _: u64) -> ControlFlow<()> {
        self.value_type(OBJECT);
        self.depth += 1;
        ControlFlow::Continue(())
    }
    fn start_array(&mut self, _: usize, _: u64) -> ControlFlow<()> {
        self.value_type(ARRAY);
        self.depth += 1;
        ControlFlow::Continue(())
    }
    fn key_bytes(&mut self, key: &[u8], _: bool) -> ControlFlow<()> {
        if self.depth == 1 {
            if key.len() <= 16 {
                self.top_keys.bytes.extend(key.iter().copied());
            } else {
                self.top_keys.bytes.extend_from_slice(key);
            }
            let end = self.top_keys.bytes.len();
            self.top_keys.keys.push((end, None));
        }
        ControlFlow::Continue(())
    }
    fn end_object(&mut self) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }
    fn end_array(&mut self) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }
    fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
        self.value_type(scalar_type(s.kind));
        ControlFlow::Continue(())
    }
}

struct InspectLines {
    parser: JsonParser,
    st: Structure,
    lines: u64,
    cap: RowCap,
    blank: u64,
    invalid: Vec<InvalidLine>,
    invalid_count: u64,
    root_types: [u64; 6],
    keys: HashMap<Vec<u8>, usize>,
    key_stats: Vec<KeyStat>,
    /// The tracked keys of the last valid record, in its order: records
    /// tend to repeat their keys in one order, so the key at the same
    /// place is tried before the map.
    last_keys: Vec<Option<usize>>,
    this_keys: Vec<Option<usize>>,
    untracked: HashMap<Vec<u8>, ()>,
    /// A distinct untracked key went uncounted: the count is a lower bound.
    untracked_dropped: bool,
    top_keys: TopKeys,
    sample: Vec<Box<RawValue>>,
    sample_shortened: bool,
    sample_rows: usize,
    dups: LineDuplicates,
    precision: LinePrecisionReport,
    outline: Outline,
}

impl InspectLines {
    fn invalid_line(&mut self, line: u64, message: String) {
        self.invalid_count += 1;
        if self.invalid.len() < FIRST_ISSUES_CAP {
            self.invalid.push(InvalidLine { line, message });
        }
    }

    /// Counts the top-level keys of a valid record.
    fn count_keys(&mut self) {
        self.this_keys.clear();
        for (at, (key, t)) in self.top_keys.iter().enumerate() {
            let guess = self.last_keys.get(at).copied().flatten();
            let idx = match guess.filter(|&i| same_bytes(&self.key_stats[i].raw, key)) {
                Some(i) => Some(i),
                None => match self.keys.get(key) {
                    Some(&i) => Some(i),
                    None if self.key_stats.len() < KEY_HISTOGRAM_CAP => {
                        self.key_stats.push(KeyStat {
                            name: String::from_utf8_lossy(key).into_owned(),
                            raw: key.into(),
                            count: 0,
                            types: [0; 6],
                        });
                        self.keys.insert(key.to_vec(), self.key_stats.len() - 1);
                        Some(self.key_stats.len() - 1)
                    }
                    None => {
                        if self.untracked.len() < plumb_core::COLUMN_TRACK_CAP {
                            self.untracked.insert(key.to_vec(), ());
                        } else if !self.untracked.contains_key(key) {
                            self.untracked_dropped = true;
                        }
                        None
                    }
                },
            };
            self.this_keys.push(idx);
            if let Some(i) = idx {
                let entry = &mut self.key_stats[i];
                entry.count += 1;
                if let Some(t) = t {
                    entry.types[t] += 1;
                }
            }
        }
        std::mem::swap(&mut self.last_keys, &mut self.this_keys);
    }

    fn record(&mut self, line: &Line<'_>) {
        let dup_before = self.st.duplicates().first.len();
        let dup_count = self.st.duplicates().count;
        let prec_before = self.st.precision().first.len();
        let prec_count = self.st.precision().count;
        self.top_keys.clear();
        let types = RecordTypes {
            depth: 0,
            root: None,
            top_keys: &mut self.top_keys,
        };
        let builder =
            (self.sample.len() < self.sample_rows).then(|| ValueBuilder::new(SAMPLE_BUDGET_BYTES));
        let mut sink = Tee(&mut self.st, Tee(types, Tee(builder, &mut self.outline)));
        let result = scan_text(
            &mut self.parser,
            line.text,
            line.byte_offset,
            line.number,
            &mut sink,
        );
        let Tee(_, Tee(types, Tee(builder, _))) = sink;
        let root = types.root;
        match result {
            Err(e) => {
                self.st.reset_path();
                self.outline.abandon_value();
                self.invalid_line(line.number, e.message().to_owned());
            }
            Ok(_) => {
                self.root_types[root.unwrap_or(NULL)] += 1;
                self.count_keys();
                if let Some(b) = builder.filter(ValueBuilder::is_done) {
                    let built = b.finish();
                    self.sample_shortened |= built.cut;
                    self.sample.push(built.json);
                }
            }
        }
        // Facts found in this record carry its line.
        let d = self.st.duplicates();
        self.dups.count += d.count - dup_count;
        for entry in &d.first[dup_before..] {
            self.dups.first.push(LineDuplicate {
                line: line.number,
                pointer: entry.pointer.clone(),
                key: entry.key.clone(),
            });
        }
        let p = self.st.precision();
        self.precision.count += p.count - prec_count;
        for entry in &p.first[prec_before..] {
            self.precision.first.push(LinePrecision {
                line: line.number,
                pointer: entry.pointer.clone(),
                literal: entry.literal.clone(),
                kind: entry.kind,
            });
        }
    }
}

impl LineSink for InspectLines {
    fn line(&mut self, line: &Line<'_>) -> ControlFlow<()> {
        if line.is_blank() {
            self.lines += 1;
            self.blank += 1;
            return ControlFlow::Continue(());
        }
        self.cap.admit()?;
        self.lines += 1;
        self.record(line);
        ControlFlow::Continue(())
    }

    fn oversized(&mut self, number: u64, _at: u64, len: u64) -> ControlFlow<()> {
        self.cap.admit()?;
        self.lines += 1;
        self.invalid_line(number, oversized_message(len));
        ControlFlow::Continue(())
    }
}

/// Inspects a JSON Lines stream.
///
/// # Errors
/// The stream's refusals (`invalid-utf8`, `binary`, `aborted`,
/// `read-error`); a record that is not JSON is reported, not refused.
pub fn inspect<R: BufRead>(
    stream: TextStream<R>,
    opts: &ScanBounds,
) -> Result<JsonlInspect, Refusal> {
    inspect_outlined(stream, opts, OUTLINE_LIST_DEFAULT)
}

/// [`inspect`], with the outline listing at most `outline_paths` paths.
///
/// # Errors
/// As [`inspect`].
pub fn inspect_outlined<R: BufRead>(
    stream: TextStream<R>,
    opts: &ScanBounds,
    outline: impl Into<plumb_json::OutlineOptions>,
) -> Result<JsonlInspect, Refusal> {
    let listing = outline.into();
    let outline_paths = listing.paths;
    let mut sink = InspectLines {
        parser: JsonParser::new(),
        st: Structure::default(),
        lines: 0,
        cap: RowCap::new(opts.max_rows),
        blank: 0,
        invalid: Vec::new(),
        invalid_count: 0,
        root_types: [0; 6],
        keys: HashMap::new(),
        key_stats: Vec::new(),
        last_keys: Vec::new(),
        this_keys: Vec::new(),
        untracked: HashMap::new(),
        untracked_dropped: false,
        top_keys: TopKeys::default(),
        sample: Vec::new(),
        sample_shortened: false,
        sample_rows: opts
            .sample_rows
            .unwrap_or(JSONL_SAMPLE_ROWS_DEFAULT)
            .min(JSONL_SAMPLE_ROWS_MAX),
        dups: LineDuplicates::default(),
        precision: LinePrecisionReport::default(),
        outline: if listing.stats {
            Outline::with_stats()
        } else {
            Outline::new()
        },
    };
    let (_, bom) = drive(stream, &mut sink)?;
    let max_depth = sink.st.max_depth();
    let (dups, precision) = sink.st.into_reports();
    let mut line_dups = sink.dups;
    line_dups.checked_fully = dups.checked_fully;
    line_dups.first.truncate(FIRST_ISSUES_CAP);
    let mut line_precision = sink.precision;
    line_precision.by_kind = precision.by_kind;
    line_precision.first.truncate(FIRST_ISSUES_CAP);
    let key_order = sink.key_stats.iter().map(|k| k.name.clone()).collect();
    let mut keys = BTreeMap::new();
    let mut key_types = BTreeMap::new();
    for k in sink.key_stats {
        keys.insert(k.name.clone(), k.count);
        key_types.insert(k.name, type_map(&k.types));
    }
    let untracked_capped = sink.untracked_dropped;
    Ok(JsonlInspect {
        ok: true,
        format: "jsonl",
        // Counts that stopped at a cap are lower bounds: the untracked
        // keys, or the duplicate keys once the tracker filled.
        view: ViewFlags::of_scan(sink.cap.capped())
            .with_cut(untracked_capped || !line_dups.checked_fully || sink.outline.is_cut()),
        lines_scanned: sink.lines,
        rows_scanned: sink.cap.rows(),
        blank_lines: sink.blank,
        invalid: sink.invalid,
        invalid_count: sink.invalid_count,
        root_types: type_map(&sink.root_types),
        keys,
        key_order,
        untracked_keys: sink.untracked.len() as u64,
        untracked_keys_is_lower_bound: untracked_capped,
        key_types,
        max_depth,
        duplicate_keys: line_dups,
        precision: line_precision,
        sample: sink.sample,
        sample_shortened: sink.sample_shortened,
        bom,
        outline: sink.outline.to_json(outline_paths),
    })
}

/// One record of a select window.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum SelectedRecord {
    /// A record that is one JSON value.
    Value {
        /// The 1-based physical line; null in a window counted from the
        /// end ([`JsonlSelect::counted_from_end`]).
        line: Option<u64>,
        /// The value (compact JSON, with placeholders where cut).
        value: Box<RawValue>,
        /// Whether a placeholder stands in for part of it.
        truncated: bool,
    },
    /// A record that is not, in its place.
    Error {
        /// The 1-based physical line; null in a window counted from the
        /// end.
        line: Option<u64>,
        /// What is wrong with it.
        error: String,
    },
}

/// The answer of JSON Lines select.
#[derive(Debug, Serialize)]
pub struct JsonlSelect {
    /// Always true.
    pub ok: bool,
    /// `jsonl`.
    pub format: &'static str,
    /// Exact, or cut when a record was summarized.
    pub view: ViewFlags,
    /// The window, in file order.
    pub records: Vec<SelectedRecord>,
    /// Records skipped (non-blank lines).
    pub offset: Option<u64>,
    /// With a negative offset (`-N`): N, the window starting N records
    /// before the end; null otherwise.
    pub from_end: Option<u64>,
    /// Whether the window was found by reading backwards from the end, so
    /// the records' lines and offset from the start are not known (null).
    pub counted_from_end: bool,
    /// The limit applied.
    pub limit: usize,
    /// Records returned.
    pub returned: usize,
    /// Whether records follow the window.
    pub has_more: bool,
}

struct SelectLines {
    parser: JsonParser,
    offset: u64,
    limit: usize,
    index: u64,
    records: Vec<SelectedRecord>,
    has_more: bool,
    cut: bool,
}

impl SelectLines {
    /// A record arrives; returns whether it is in the window.
    fn admit(&mut self) -> Result<bool, ()> {
        let i = self.index;
        self.index += 1;
        if i < self.offset {
            return Ok(false);
        }
        if self.records.len() >= self.limit {
            self.has_more = true;
            return Err(());
        }
        Ok(true)
    }
}

impl LineSink for SelectLines {
    fn line(&mut self, line: &Line<'_>) -> ControlFlow<()> {
        if line.is_blank() {
            return ControlFlow::Continue(());
        }
        match self.admit() {
            Err(()) => return ControlFlow::Break(()),
            Ok(false) => return ControlFlow::Continue(()),
            Ok(true) => {}
        }
        let mut sink = ValueBuilder::new(SELECT_LINE_BUDGET_BYTES);
        let record = match scan_text(
            &mut self.parser,
            line.text,
            line.byte_offset,
            line.number,
            &mut sink,
        ) {
            Ok(_) => {
                let built = sink.finish();
                self.cut |= built.cut;
                SelectedRecord::Value {
                    line: Some(line.number),
                    value: built.json,
                    truncated: built.cut,
                }
            }
            Err(e) => SelectedRecord::Error {
                line: Some(line.number),
                error: e.message().to_owned(),
            },
        };
        self.records.push(record);
        ControlFlow::Continue(())
    }

    fn oversized(&mut self, number: u64, _at: u64, len: u64) -> ControlFlow<()> {
        match self.admit() {
            Err(()) => ControlFlow::Break(()),
            Ok(false) => ControlFlow::Continue(()),
            Ok(true) => {
                self.records.push(SelectedRecord::Error {
                    line: Some(number),
                    error: oversized_message(len),
                });
                ControlFlow::Continue(())
            }
        }
    }
}

/// Selects a window of records (non-blank lines; the limit is clamped
/// to 1..=1000, 50 when `None`); a broken record stands in its place as
/// `{line, error}`. Reading stops one record past the window.
///
/// # Errors
/// The stream's refusals.
pub fn select<R: BufRead>(stream: TextStream<R>, window: &Window) -> Result<JsonlSelect, Refusal> {
    let mut sink = SelectLines {
        parser: JsonParser::new(),
        offset: window.offset.unwrap_or(0),
        limit: clamp_limit(window.limit),
        index: 0,
        records: Vec::new(),
        has_more: false,
        cut: false,
    };
    drive(stream, &mut sink)?;
    Ok(JsonlSelect {
        ok: true,
        format: "jsonl",
        view: ViewFlags::exact().with_cut(sink.cut),
        returned: sink.records.len(),
        records: sink.records,
        offset: Some(sink.offset),
        from_end: None,
        counted_from_end: false,
        limit: sink.limit,
        has_more: sink.has_more,
    })
}

/// The answer of JSON Lines validate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JsonlValidate {
    /// Always true (the scan ran; see `valid`).
    pub ok: bool,
    /// `jsonl`.
    pub format: &'static str,
    /// Exact, sampled when the row cap stopped the scan.
    pub view: ViewFlags,
    /// True: every non-blank line is one JSON value. False: see
    /// `first_invalid`. Null: stopped at the row cap with no fault.
    pub valid: Option<bool>,
    /// The first line that is not one JSON value (or the BOM, line 1).
    pub first_invalid: Option<InvalidLine>,
    /// Records read.
    pub rows_scanned: u64,
    /// Blank lines (counted, not invalid).
    pub blank_lines: u64,
}

struct ValidateLines {
    parser: JsonParser,
    cap: RowCap,
    blank: u64,
    first_invalid: Option<InvalidLine>,
}

impl LineSink for ValidateLines {
    fn line(&mut self, line: &Line<'_>) -> ControlFlow<()> {
        if line.is_blank() {
            self.blank += 1;
            return ControlFlow::Continue(());
        }
        self.cap.admit()?;
        if let Err(e) = scan_text(
            &mut self.parser,
            line.text,
            line.byte_offset,
            line.number,
            &mut Null,
        ) {
            self.first_invalid = Some(InvalidLine {
                line: line.number,
                message: e.message().to_owned(),
            });
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    fn oversized(&mut self, number: u64, _at: u64, len: u64) -> ControlFlow<()> {
        self.cap.admit()?;
        self.first_invalid = Some(InvalidLine {
            line: number,
            message: oversized_message(len),
        });
        ControlFlow::Break(())
    }
}

/// Validates a JSON Lines stream, stopping at the first invalid line.
/// Blank lines are counted, not invalid; a BOM makes the file invalid
/// at line 1 (JSON Lines forbids one), though inspect and select read
/// past it.
///
/// # Errors
/// The stream's refusals.
pub fn validate<R: BufRead>(
    stream: TextStream<R>,
    opts: &ScanBounds,
) -> Result<JsonlValidate, Refusal> {
    let mut sink = ValidateLines {
        parser: JsonParser::new(),
        cap: RowCap::new(opts.max_rows),
        blank: 0,
        first_invalid: None,
    };
    let (_, bom) = drive(stream, &mut sink)?;
    let stopped = sink.cap.capped() || sink.first_invalid.is_some();
    let first_invalid = if bom {
        Some(InvalidLine {
            line: 1,
            message: "the file starts with a byte order mark, which JSON Lines forbids; save it as UTF-8 without a BOM".to_owned(),
        })
    } else {
        sink.first_invalid
    };
    let valid = if first_invalid.is_some() {
        Some(false)
    } else if sink.cap.capped() {
        None
    } else {
        Some(true)
    };
    Ok(JsonlValidate {
        ok: true,
        format: "jsonl",
        view: ViewFlags::of_scan(stopped),
        valid,
        first_invalid,
        rows_scanned: sink.cap.rows(),
        blank_lines: sink.blank,
    })
}
