//! JSON Lines inspect: per-record facts (root and key types, duplicate
//! keys, precision, the outline, a sample), and how the facts of parts
//! of a file read on several threads are joined into the one-thread
//! answer.

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use plumb_core::{
    PrecisionKind, Refusal, RowCap, ScanBounds, TextStream, ViewFlags, FIRST_ISSUES_CAP,
};
use plumb_json::{
    same_key, scan_text, JsonParser, JsonSink, Outline, Scalar, ScalarKind, Structure, Tee,
    ValueBuilder, OUTLINE_LIST_DEFAULT, SAMPLE_BUDGET_BYTES,
};

use crate::ops::{drive, oversized_message, InvalidLine};
use crate::splitter::{Line, LineSink};

mod state;
pub(crate) use state::InspectState;

/// Records in the inspect sample when none is asked for.
pub const JSONL_SAMPLE_ROWS_DEFAULT: usize = 3;

/// The most records an inspect sample holds.
pub const JSONL_SAMPLE_ROWS_MAX: usize = 100;

/// Top-level keys counted by inspect, in first-seen order; later new
/// keys are counted in `untracked_keys` only.
pub const KEY_HISTOGRAM_CAP: usize = 500;

/// A duplicate key, with its line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LineDuplicate {
    /// The 1-based line of the record.
    pub line: u64,
    /// The pointer of the object inside the record.
    pub pointer: String,
    /// The repeated key.
    pub key: String,
}

/// A number a double would misstate, with its line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LineDuplicates {
    /// How many were found.
    pub count: u64,
    /// The first ones.
    pub first: Vec<LineDuplicate>,
    /// False when an object had more keys than could be tracked.
    pub checked_fully: bool,
}

/// Precision facts across records.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LinePrecisionReport {
    /// How many were found.
    pub count: u64,
    /// Counts by kind.
    pub by_kind: BTreeMap<PrecisionKind, u64>,
    /// The first ones.
    pub first: Vec<LinePrecision>,
}

/// The answer of JSON Lines inspect.
#[derive(Debug, Serialize, schemars::JsonSchema)]
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
    /// For a key of two value types or more: the line where a value of
    /// each type was first read. Left out when no key has two.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub key_first_lines: BTreeMap<String, BTreeMap<&'static str, u64>>,
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
    /// With statistics and [`plumb_core::ScanBounds::sketches`]: each
    /// top-level key's settled statistics, for a merge with other files'
    /// (not part of the JSON).
    #[serde(skip)]
    #[schemars(skip)]
    pub sketches: Option<plumb_stats::ColumnSketches>,
}

impl JsonlInspect {
    /// The records' top-level keys as a table's columns, typed: equal to
    /// what the JSON's `key_types`, `keys` and `key_first_lines` state
    /// (see [`plumb_core::Answer::shape`]).
    pub fn shape(&self) -> Option<plumb_core::Shape> {
        let columns = self
            .key_types
            .iter()
            .map(|(key, types)| plumb_core::ShapeColumn {
                name: key.clone(),
                kind: if types.is_empty() {
                    "unknown".to_owned()
                } else {
                    types.keys().copied().collect::<Vec<_>>().join("|")
                },
                rows: Some(self.keys.get(key).copied().unwrap_or(0)),
                firsts: self
                    .key_first_lines
                    .get(key)
                    .into_iter()
                    .flatten()
                    .map(|(class, line)| ((*class).to_owned(), *line))
                    .collect(),
            })
            .collect();
        Some(plumb_core::Shape {
            rows: Some(self.rows_scanned),
            columns,
            faults: self.invalid_count,
            container: None,
        })
    }
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
    /// The line where a value of each type was first read (0 until one is).
    first_lines: [u64; 6],
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

pub(crate) struct InspectLines {
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
    /// Whether each sample record was shortened.
    sample_cuts: Vec<bool>,
    sample_rows: usize,
    /// Records counted by later parts joined in ([`InspectLines::absorb`]).
    absorbed_rows: u64,
    dups: LineDuplicates,
    precision: LinePrecisionReport,
    outline: Outline,
}

impl InspectLines {
    /// Joins in the facts of the records that follow this part's, read
    /// from the next part of the file: the answer is then the one a
    /// single pass over both gives. Returns false (this part is then
    /// half joined, to be dropped) where that cannot be promised: an
    /// invalid line in the later part (its message places it by the
    /// part's own line count), top-level keys past the tracked ones, or
    /// an outline that cannot join exactly ([`Outline::absorb`]).
    pub(crate) fn absorb(&mut self, later: InspectLines) -> bool {
        let tracked = |p: &InspectLines| p.untracked.is_empty() && !p.untracked_dropped;
        if later.invalid_count > 0 || !tracked(self) || !tracked(&later) {
            return false;
        }
        if !self.outline.absorb(&later.outline) {
            return false;
        }
        // Keys new to this part come after its own, in the later part's
        // first-seen order, as one pass meets them.
        for k in later.key_stats {
            let at = match self.keys.get(&*k.raw) {
                Some(&at) => at,
                None => {
                    if self.key_stats.len() >= KEY_HISTOGRAM_CAP {
                        return false;
                    }
                    self.keys.insert(k.raw.to_vec(), self.key_stats.len());
                    self.key_stats.push(KeyStat {
                        count: 0,
                        types: [0; 6],
                        first_lines: [0; 6],
                        ..k
                    });
                    self.key_stats.len() - 1
                }
            };
            let mine = &mut self.key_stats[at];
            mine.count += k.count;
            for (a, b) in mine.types.iter_mut().zip(k.types) {
                *a += b;
            }
            for (a, b) in mine.first_lines.iter_mut().zip(k.first_lines) {
                if *a == 0 && b != 0 {
                    *a = b + self.lines;
                }
            }
        }
        self.last_keys.clear();
        let lines = self.lines;
        self.lines += later.lines;
        self.blank += later.blank;
        self.absorbed_rows += later.cap.rows() + later.absorbed_rows;
        for (a, b) in self.root_types.iter_mut().zip(later.root_types) {
            *a += b;
        }
        for (built, cut) in later.sample.into_iter().zip(later.sample_cuts) {
            if self.sample.len() < self.sample_rows {
                self.sample.push(built);
                self.sample_cuts.push(cut);
            }
        }
        self.st.absorb(&later.st);
        self.dups.count += later.dups.count;
        self.dups
            .first
            .extend(later.dups.first.into_iter().map(|mut d| {
                d.line += lines;
                d
            }));
        self.dups.first.truncate(FIRST_ISSUES_CAP);
        self.precision.count += later.precision.count;
        self.precision
            .first
            .extend(later.precision.first.into_iter().map(|mut p| {
                p.line += lines;
                p
            }));
        self.precision.first.truncate(FIRST_ISSUES_CAP);
        true
    }

    fn invalid_line(&mut self, line: u64, message: String) {
        self.invalid_count += 1;
        if self.invalid.len() < FIRST_ISSUES_CAP {
            self.invalid.push(InvalidLine { line, message });
        }
    }

    /// Counts the top-level keys of a valid record on line `line`.
    fn count_keys(&mut self, line: u64) {
        self.this_keys.clear();
        for (at, (key, t)) in self.top_keys.iter().enumerate() {
            let guess = self.last_keys.get(at).copied().flatten();
            let idx = match guess.filter(|&i| same_key(&self.key_stats[i].raw, key)) {
                Some(i) => Some(i),
                None => match self.keys.get(key) {
                    Some(&i) => Some(i),
                    None if self.key_stats.len() < KEY_HISTOGRAM_CAP => {
                        self.key_stats.push(KeyStat {
                            name: String::from_utf8_lossy(key).into_owned(),
                            raw: key.into(),
                            count: 0,
                            types: [0; 6],
                            first_lines: [0; 6],
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
                    if entry.first_lines[t] == 0 {
                        entry.first_lines[t] = line;
                    }
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
                self.count_keys(line.number);
                if let Some(b) = builder.filter(ValueBuilder::is_done) {
                    let built = b.finish();
                    self.sample_cuts.push(built.cut);
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
    let (sink, bom) = scan(stream, opts, listing, plumb_json::OUTLINE_MAX_NODES)?;
    Ok(answer(sink, bom, listing.paths, opts.sketches))
}

/// The sample records an inspect keeps.
pub(crate) fn sample_rows(opts: &ScanBounds) -> usize {
    opts.sample_rows
        .unwrap_or(JSONL_SAMPLE_ROWS_DEFAULT)
        .min(JSONL_SAMPLE_ROWS_MAX)
}

/// Reads a stream's records into inspect's facts; returns them and the
/// BOM flag. With statistics, the outline keeps at most `stats_paths`
/// paths (a part of a split scan: see `parallel.rs`).
pub(crate) fn scan<R: BufRead>(
    stream: TextStream<R>,
    opts: &ScanBounds,
    listing: plumb_json::OutlineOptions,
    stats_paths: usize,
) -> Result<(InspectLines, bool), Refusal> {
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
        sample_cuts: Vec::new(),
        absorbed_rows: 0,
        sample_rows: sample_rows(opts),
        dups: LineDuplicates::default(),
        precision: LinePrecisionReport::default(),
        outline: if listing.stats {
            Outline::with_stats().with_node_cap(stats_paths)
        } else {
            Outline::new()
        },
    };
    let (budget, bom) = drive(stream.within(opts.max_scan_bytes), &mut sink)?;
    if budget {
        sink.cap.stop();
    }
    Ok((sink, bom))
}

/// The answer from the facts of a whole file.
/// With `sketches`, it keeps the top-level keys' statistics
/// ([`JsonlInspect::sketches`]).
pub(crate) fn answer(
    sink: InspectLines,
    bom: bool,
    outline_paths: usize,
    sketches: bool,
) -> JsonlInspect {
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
    let mut key_first_lines = BTreeMap::new();
    for k in sink.key_stats {
        keys.insert(k.name.clone(), k.count);
        if k.types.iter().filter(|&&n| n > 0).count() > 1 {
            let firsts: BTreeMap<&'static str, u64> = VALUE_TYPES
                .iter()
                .zip(k.first_lines)
                .filter(|&(_, line)| line > 0)
                .map(|(name, line)| (*name, line))
                .collect();
            key_first_lines.insert(k.name.clone(), firsts);
        }
        key_types.insert(k.name, type_map(&k.types));
    }
    let untracked_capped = sink.untracked_dropped;
    JsonlInspect {
        ok: true,
        format: "jsonl",
        // Counts that stopped at a cap are lower bounds: the untracked
        // keys, or the duplicate keys once the tracker filled.
        view: ViewFlags::of_scan(sink.cap.capped())
            .with_cut(untracked_capped || !line_dups.checked_fully || sink.outline.is_cut()),
        lines_scanned: sink.lines,
        rows_scanned: sink.cap.rows() + sink.absorbed_rows,
        blank_lines: sink.blank,
        invalid: sink.invalid,
        invalid_count: sink.invalid_count,
        root_types: type_map(&sink.root_types),
        keys,
        key_order,
        untracked_keys: sink.untracked.len() as u64,
        untracked_keys_is_lower_bound: untracked_capped,
        key_types,
        key_first_lines,
        max_depth,
        duplicate_keys: line_dups,
        precision: line_precision,
        sample: sink.sample,
        sample_shortened: sink.sample_cuts.contains(&true),
        bom,
        outline: sink.outline.to_json(outline_paths),
        sketches: sketches.then(|| sink.outline.key_sketches()),
    }
}
