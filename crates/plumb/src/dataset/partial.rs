//! The partial result of an op over some of a dataset's files, and its
//! one merge.
//!
//! Every part of a partial merges by a rule that forgets the order the
//! files came in: counts add, flags join, and each capped list keeps the
//! first items by a key that is the same wherever they are counted (per-
//! file lines by path, columns by name, schema groups by fingerprint,
//! types by name). A key cut from one side had the cap's number of
//! smaller keys on that side alone, so it is cut from the whole too:
//! what a merged partial keeps is exact, and what it cuts is counted.

use std::collections::BTreeMap;

use plumb_core::Refusal;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::answer::{
    Continuation, DatasetAnswer, DatasetColumn, FileHits, FileLine, SchemaGroup, Totals,
};
use super::columns::{fingerprint, ColumnAcc, GroupAcc, TypeAcc};
use super::facts::FileFacts;
use super::stats::StatsAcc;
use super::tasks::PendingFile;
use super::{
    DatasetOp, Member, DATASET_COLUMNS_MAX, DATASET_GROUPS_MAX, DATASET_LINES_MAX,
    GROUP_COLUMNS_SHOWN, GROUP_EXAMPLES,
};

/// The version of [`Partial`]'s serialized form. A partial of another
/// version is refused by [`Partial::merge`] and [`Partial::from_bytes`]:
/// a reader of an older form would drop what it does not know (version 4
/// carries the files pending on their byte ranges, for validate and
/// search, each range's account stamped with the bytes it read).
pub const PARTIAL_VERSION: u32 = 4;

/// The result of an op over some of a dataset's files, in a form that
/// serializes (serde; [`Partial::to_bytes`]), travels to another
/// process or machine, and merges ([`Partial::merge`]) with the results
/// of the other files in any grouping and order to the same bytes.
///
/// ```
/// use plumb::dataset::{Dataset, DatasetOp, ListOptions, Partial};
/// use plumb::{Answer, Plumb, Request};
///
/// let dir = tempfile::tempdir()?;
/// for (name, text) in [("a.jsonl", "{\"id\": 1}\n"), ("b.jsonl", "{\"id\": \"x\"}\n")] {
///     std::fs::write(dir.path().join(name), text)?;
/// }
/// let data = Dataset::local(&[dir.path().display().to_string()], &ListOptions::default())?;
/// let plumb = Plumb::new();
/// let req = Request::default();
/// let parts: Vec<Vec<u8>> = data
///     .members()
///     .iter()
///     .map(|m| data.partial(&plumb, DatasetOp::Inspect, None, &req, m, false).to_bytes())
///     .collect();
/// // Merged in reverse, after a trip through bytes.
/// let mut merged = Partial::from_bytes(&parts[1])?;
/// merged = merged.merge(Partial::from_bytes(&parts[0])?)?;
/// let answer = data.finish(merged).to_json();
/// assert_eq!(answer["columns"][0]["types"].as_array().unwrap().len(), 2);
/// assert!(answer["columns"][0]["type_differs"]["path"].as_str().unwrap().ends_with("b.jsonl"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Partial {
    version: u32,
    op: DatasetOp,
    limit: Option<u64>,
    files: u64,
    bytes: u64,
    rows: u64,
    rows_unknown: u64,
    refused: u64,
    valid: u64,
    invalid: u64,
    exact: bool,
    sampled: bool,
    converted: bool,
    formats: BTreeMap<String, u64>,
    reasons: BTreeMap<String, u64>,
    lines: Vec<FileLine>,
    lines_cut: u64,
    columns: BTreeMap<String, ColumnAcc>,
    column_entries_cut: u64,
    groups: BTreeMap<String, GroupAcc>,
    groups_cut_files: u64,
    hits: Vec<FileHits>,
    /// A search: the hits its files counted, and whether each file's
    /// count is exact; `None` once the limit is held (the files past the
    /// last hit held need not be read, so no count is the same in every
    /// grouping).
    hits_total: Option<u64>,
    hits_total_exact: bool,
    /// Files read by byte ranges whose parts are not joined yet, by path
    /// (see [`super::Dataset::settle`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    ranges: BTreeMap<String, PendingFile>,
}

impl Partial {
    /// The partial of no files: the identity of [`Partial::merge`] for
    /// the partials of `op` under the request's `limit` (a search's
    /// default limit when `None`, as its files' partials take it).
    pub fn empty(op: DatasetOp, limit: Option<u64>) -> Partial {
        let limit = limit.or(Some(plumb_core::SEARCH_DEFAULT_LIMIT as u64));
        Partial {
            version: PARTIAL_VERSION,
            op,
            limit: if op == DatasetOp::Search { limit } else { None },
            files: 0,
            bytes: 0,
            rows: 0,
            rows_unknown: 0,
            refused: 0,
            valid: 0,
            invalid: 0,
            exact: true,
            sampled: false,
            converted: false,
            formats: BTreeMap::new(),
            reasons: BTreeMap::new(),
            lines: Vec::new(),
            lines_cut: 0,
            columns: BTreeMap::new(),
            column_entries_cut: 0,
            groups: BTreeMap::new(),
            groups_cut_files: 0,
            hits: Vec::new(),
            hits_total: (op == DatasetOp::Search).then_some(0),
            hits_total_exact: op == DatasetOp::Search,
            ranges: BTreeMap::new(),
        }
    }

    /// The partial of one byte range of a file: the file pending.
    pub(crate) fn pending(op: DatasetOp, limit: Option<u64>, file: PendingFile) -> Partial {
        let mut p = Partial::empty(op, limit);
        p.ranges.insert(file.member.path.clone(), file);
        p
    }

    /// Takes out the files pending on their ranges, in path order.
    pub(crate) fn take_pending(&mut self) -> Vec<PendingFile> {
        std::mem::take(&mut self.ranges).into_values().collect()
    }

    /// Holds `file` pending again (taken out by [`Partial::take_pending`]).
    pub(crate) fn keep_pending(&mut self, file: PendingFile) {
        self.ranges.insert(file.member.path.clone(), file);
    }

    /// The files pending on their byte ranges: merged from range tasks,
    /// not yet joined by [`super::Dataset::settle`].
    pub fn pending_files(&self) -> usize {
        self.ranges.len()
    }

    /// The op this partial answers.
    pub fn op(&self) -> DatasetOp {
        self.op
    }

    /// The files it holds.
    pub fn files(&self) -> u64 {
        self.files
    }

    /// The most columns (or keys) of a file whose line it holds.
    pub(crate) fn widest_file(&self) -> usize {
        let most = self.lines.iter().filter_map(|l| l.columns).max();
        most.map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// The partial of one file from its facts or its refusal.
    pub(crate) fn of_file(
        op: DatasetOp,
        member: &Member,
        bytes: Option<u64>,
        start: u64,
        limit: Option<u64>,
        outcome: Result<FileFacts, Refusal>,
    ) -> Partial {
        let mut p = Partial::empty(op, limit);
        p.files = 1;
        p.bytes = bytes.unwrap_or(0);
        let mut line = FileLine::new(member.path.clone(), bytes);
        match outcome {
            Err(r) => {
                p.refused = 1;
                // A file not read may hold hits.
                p.hits_total_exact = false;
                // A search counts nothing it might not have read in
                // another grouping: its refusals are its lines alone.
                if op != DatasetOp::Search {
                    *p.reasons.entry(r.reason().as_str().to_owned()).or_default() += 1;
                }
                line.refusal = serde_json::to_value(&r).ok();
                p.lines.push(line);
                return p;
            }
            Ok(facts) => {
                if op != DatasetOp::Search {
                    *p.formats.entry(facts.format.clone()).or_default() += 1;
                }
                p.exact = facts.view.exact;
                p.sampled = facts.view.sampled;
                p.converted = facts.view.converted;
                match facts.rows {
                    Some(n) => p.rows = n,
                    None => p.rows_unknown = 1,
                }
                match facts.valid {
                    Some(true) => p.valid = 1,
                    Some(false) => p.invalid = 1,
                    None => {}
                }
                line.format = Some(facts.format);
                line.container = facts.container;
                line.rows = facts.rows;
                line.valid = facts.valid;
                line.fault = facts.fault;
                line.by = facts.by;
                if let Some(cols) = facts.columns {
                    line.columns = Some(cols.len() as u64);
                    p.add_schema(&member.path, cols, facts.unit, facts.sketches);
                }
                if let Some(h) = facts.hits {
                    line.hits = Some(h.hits.len() as u64);
                    p.hits_total = Some(h.total.map_or(0, |t| t.0));
                    p.hits_total_exact = h.total.is_some_and(|t| t.1);
                    if !h.hits.is_empty() || h.more {
                        p.hits.push(FileHits {
                            path: member.path.clone(),
                            start,
                            header: h.header,
                            hits: h.hits,
                            more: h.more,
                            unit: h.unit.map(str::to_owned),
                            next_offset: h.next_offset.filter(|_| h.more),
                        });
                    }
                }
            }
        }
        // A search lists only the files it could not read: its hits say the rest.
        if op != DatasetOp::Search {
            p.lines.push(line);
        }
        p.cut();
        p
    }

    fn add_schema(
        &mut self,
        path: &str,
        cols: Vec<super::facts::ColumnFact>,
        unit: &str,
        sketches_in: Option<plumb_stats::ColumnSketches>,
    ) {
        let mut schema: Vec<(String, String)> = Vec::with_capacity(cols.len());
        // A name twice keeps its first column's statistics, as its type.
        let mut sketches: BTreeMap<String, plumb_stats::ColumnSketch> = BTreeMap::new();
        for (name, sketch) in sketches_in.into_iter().flat_map(|s| s.columns) {
            sketches.entry(name).or_insert(sketch);
        }
        for c in cols {
            schema.push((c.name.clone(), c.kind.clone()));
            // A name twice in one file (a header that repeats one) is one
            // column of that file, of its first type: its rows are the
            // most either holds. (This partial holds this file alone.)
            if let Some(col) = self.columns.get_mut(&c.name) {
                col.rows = col.rows.max(c.rows);
                for (_, t) in &mut col.types {
                    t.rows = col.rows;
                }
                continue;
            }
            let types = vec![(
                c.kind,
                TypeAcc {
                    files: 1,
                    rows: c.rows,
                    first: path.to_owned(),
                    firsts: c.firsts,
                    unit: unit.to_owned(),
                },
            )];
            let stats = StatsAcc::of(sketches.remove(&c.name));
            self.columns.insert(
                c.name,
                ColumnAcc {
                    stats,
                    files: 1,
                    rows: c.rows,
                    first: path.to_owned(),
                    types,
                    types_cut_files: 0,
                },
            );
        }
        let columns_total = schema.len() as u64;
        let key = fingerprint(&schema);
        schema.truncate(GROUP_COLUMNS_SHOWN);
        self.groups.insert(
            key,
            GroupAcc {
                files: 1,
                columns: schema,
                columns_total,
                examples: vec![path.to_owned()],
            },
        );
    }

    /// Whether a search holds its limit of hits: the files after the
    /// last it holds need not be read.
    pub(crate) fn limit_reached(&self) -> bool {
        let held: u64 = self.hits.iter().map(|h| h.hits.len() as u64).sum();
        self.op == DatasetOp::Search && self.limit.is_some_and(|l| held >= l)
    }

    /// Merges the partial of other files: counts add, and every capped
    /// list keeps its first items by key, so any grouping and order of
    /// the same files' partials merges to the same partial.
    ///
    /// # Errors
    /// `invalid-argument` when the two are of different versions, ops
    /// or search limits, or hold a file in common.
    pub fn merge(mut self, other: Partial) -> Result<Partial, Refusal> {
        if self.version != other.version || self.op != other.op || self.limit != other.limit {
            return Err(Refusal::invalid_argument(format!(
                "these partials do not merge: version {} {} (limit {:?}) and version {} {} (limit {:?})",
                self.version,
                self.op.as_str(),
                self.limit,
                other.version,
                other.op.as_str(),
                other.limit
            )));
        }
        // Saturating: a partial read from bytes is a claim, and a sum past
        // any count a disk holds stays at the top rather than wrap.
        for (mine, theirs) in [
            (&mut self.files, other.files),
            (&mut self.bytes, other.bytes),
            (&mut self.rows, other.rows),
            (&mut self.rows_unknown, other.rows_unknown),
            (&mut self.refused, other.refused),
            (&mut self.valid, other.valid),
            (&mut self.invalid, other.invalid),
            (&mut self.lines_cut, other.lines_cut),
            (&mut self.column_entries_cut, other.column_entries_cut),
            (&mut self.groups_cut_files, other.groups_cut_files),
        ] {
            *mine = mine.saturating_add(theirs);
        }
        self.exact &= other.exact;
        self.sampled |= other.sampled;
        self.converted |= other.converted;
        for (k, n) in other.formats {
            let mine = self.formats.entry(k).or_default();
            *mine = mine.saturating_add(n);
        }
        for (k, n) in other.reasons {
            let mine = self.reasons.entry(k).or_default();
            *mine = mine.saturating_add(n);
        }
        if !merge_by_path(&mut self.lines, other.lines, |l| &l.path) {
            return Err(Refusal::invalid_argument(
                "these partials do not merge: they hold a file in common",
            ));
        }
        for (name, theirs) in other.columns {
            match self.columns.get_mut(&name) {
                None => {
                    self.columns.insert(name, theirs);
                }
                Some(mine) => mine.absorb(theirs),
            }
        }
        for (key, theirs) in other.groups {
            match self.groups.get_mut(&key) {
                None => {
                    self.groups.insert(key, theirs);
                }
                Some(mine) => {
                    mine.files = mine.files.saturating_add(theirs.files);
                    mine.examples.extend(theirs.examples);
                    mine.examples.sort();
                    mine.examples.truncate(GROUP_EXAMPLES);
                }
            }
        }
        self.hits_total = (self.hits_total.zip(other.hits_total)).map(|(a, b)| a.saturating_add(b));
        self.hits_total_exact &= other.hits_total_exact;
        // Hits name files whose lines were just found apart.
        let _ = merge_by_path(&mut self.hits, other.hits, |h| &h.path);
        for (path, theirs) in other.ranges {
            match self.ranges.get_mut(&path) {
                None => {
                    self.ranges.insert(path, theirs);
                }
                Some(mine) => mine.absorb(theirs)?,
            }
        }
        // A file read whole on one side and by ranges on the other would
        // count twice once its ranges join.
        let whole = |path: &String| {
            self.lines
                .binary_search_by(|l| l.path.as_str().cmp(path))
                .is_ok()
        };
        if self.ranges.keys().any(whole) {
            return Err(Refusal::invalid_argument(
                "these partials do not merge: they hold a file in common (whole, and by ranges)",
            ));
        }
        self.cut();
        Ok(self)
    }

    /// Holds every list to its cap, counting what goes.
    fn cut(&mut self) {
        if self.lines.len() > DATASET_LINES_MAX {
            let cut = (self.lines.len() - DATASET_LINES_MAX) as u64;
            self.lines_cut = self.lines_cut.saturating_add(cut);
            self.lines.truncate(DATASET_LINES_MAX);
        }
        while self.columns.len() > DATASET_COLUMNS_MAX {
            if let Some((_, c)) = self.columns.pop_last() {
                self.column_entries_cut = self.column_entries_cut.saturating_add(c.files);
            }
        }
        super::stats::cut(&mut self.columns, |c| &mut c.stats);
        while self.groups.len() > DATASET_GROUPS_MAX {
            if let Some((_, g)) = self.groups.pop_last() {
                self.groups_cut_files = self.groups_cut_files.saturating_add(g.files);
            }
        }
        if let Some(limit) = self.limit.filter(|_| self.op == DatasetOp::Search) {
            let mut held = 0u64;
            let mut keep = self.hits.len();
            for (i, h) in self.hits.iter_mut().enumerate() {
                let room = limit - held;
                if h.hits.len() as u64 >= room {
                    if h.hits.len() as u64 > room {
                        h.hits.truncate(room as usize);
                        h.more = true;
                        h.next_offset = None;
                    }
                    keep = i + 1;
                    break;
                }
                held += h.hits.len() as u64;
            }
            self.hits.truncate(keep);
            if self.limit_reached() {
                self.hits_total = None;
                self.hits_total_exact = false;
                // A file past the last hit held may not have been read in
                // another grouping: none is named.
                if let Some(last) = self.hits.last().map(|h| h.path.clone()) {
                    self.lines.retain(|l| l.path <= last);
                }
            }
        }
    }

    /// The partial as bytes (JSON), to send to another process.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// A partial from [`Partial::to_bytes`].
    ///
    /// # Errors
    /// `invalid-argument` for bytes that are not a partial of this
    /// version.
    pub fn from_bytes(bytes: &[u8]) -> Result<Partial, Refusal> {
        let version = serde_json::from_slice::<Value>(bytes)
            .ok()
            .and_then(|v| v.get("version").and_then(Value::as_u64));
        if version != Some(u64::from(PARTIAL_VERSION)) {
            return Err(Refusal::invalid_argument(format!(
                "not a partial of version {PARTIAL_VERSION} (found version {})",
                version.map_or("none".to_owned(), |v| v.to_string())
            )));
        }
        let mut p: Partial = serde_json::from_slice(bytes)
            .map_err(|e| Refusal::invalid_argument(format!("not a partial: {e}")))?;
        // Held as a merge leaves them, whatever the bytes say: lines and
        // hits in path order, a file's line once, every list within its cap.
        p.hits.sort_by(|a, b| a.path.cmp(&b.path));
        let lines = std::mem::take(&mut p.lines);
        if !merge_by_path(&mut p.lines, lines, |l| &l.path) {
            return Err(Refusal::invalid_argument(
                "not a partial: it holds a file's line twice",
            ));
        }
        // Pending files by their own paths, each range's part once.
        for file in p.take_pending() {
            let parts = file.parts;
            let mut one = PendingFile {
                parts: Vec::new(),
                ..file
            };
            one.absorb(PendingFile {
                parts,
                ..one.clone()
            })?;
            match p.ranges.get_mut(&one.member.path) {
                Some(held) => held.absorb(one)?,
                None => {
                    p.ranges.insert(one.member.path.clone(), one);
                }
            }
        }
        p.cut();
        Ok(p)
    }

    /// This partial with every file left pending refused (it was not
    /// answered, and is never dropped).
    fn refuse_pending(mut self) -> Partial {
        let mut refused = Partial::empty(self.op, self.limit);
        for file in self.take_pending() {
            let clean = file.parts.iter().filter(|p| p.settled()).count();
            let refusal = Refusal::invalid_argument(format!(
                "`{}` was read in {} byte ranges, and their parts were not joined ({} in, \
                 {clean} clean): settle the partial (Dataset::settle) and run the tasks it gives back",
                plumb_core::echo(&file.member.path),
                file.plan.ranges(),
                file.parts.len(),
            ));
            let limit = self.limit;
            let one = Partial::of_file(
                self.op,
                &file.member,
                Some(file.plan.len),
                0,
                limit,
                Err(refusal),
            );
            // Pending files have distinct paths: they merge.
            if let Ok(merged) = refused.clone().merge(one) {
                refused = merged;
            }
        }
        self.clone().merge(refused).unwrap_or(self)
    }

    /// The answer: the merged view of the files held, with the listing's
    /// facts (`named`, the files left and where the next call starts).
    pub(crate) fn finish(
        mut self,
        named: Vec<String>,
        left: u64,
        next_from: Option<String>,
        unnamed: u64,
    ) -> DatasetAnswer {
        if !self.ranges.is_empty() {
            self = self.refuse_pending();
        }
        let search = self.op == DatasetOp::Search;
        let held: u64 = self.hits.iter().map(|h| h.hits.len() as u64).sum();
        let next = if search && self.limit_reached() {
            self.hits.last().map(|h| Continuation {
                from: h.path.clone(),
                offset: Some(h.resume_at()),
            })
        } else {
            None
        }
        .or(next_from.map(|from| Continuation { from, offset: None }));
        let mut columns: Vec<DatasetColumn> = self
            .columns
            .into_iter()
            .map(|(name, c)| c.finish(name))
            .collect();
        columns.sort_by(|a, b| a.name.cmp(&b.name));
        let mut groups: Vec<SchemaGroup> = self
            .groups
            .into_iter()
            .map(|(fingerprint, g)| SchemaGroup {
                fingerprint,
                files: g.files,
                columns: g.columns.into_iter().map(|(n, t)| [n, t]).collect(),
                columns_total: g.columns_total,
                examples: g.examples,
            })
            .collect();
        groups.sort_by(|a, b| {
            b.files
                .cmp(&a.files)
                .then_with(|| a.examples.cmp(&b.examples))
        });
        let valid =
            (self.op == DatasetOp::Validate).then_some(self.invalid == 0 && self.refused == 0);
        // Statistics asked for and missing from some column's files (a
        // column past the statistics' cap, a reader that keeps none): the
        // view is not the whole's.
        let stats_cut = columns.iter().any(|c| c.stats.is_some())
            && columns
                .iter()
                .any(|c| c.stats.as_ref().is_none_or(|s| s.files < c.files));
        let view = plumb_core::ViewFlags {
            exact: self.exact && left == 0 && !(search && next.is_some()) && !stats_cut,
            sampled: self.sampled || left > 0,
            converted: self.converted,
        };
        let schema = matches!(self.op, DatasetOp::Inspect);
        DatasetAnswer {
            ok: true,
            format: "dataset",
            op: self.op,
            view,
            named,
            valid,
            totals: (!search).then_some(Totals {
                files: self.files,
                bytes: self.bytes,
                rows: self.rows,
                rows_unknown_files: self.rows_unknown,
                valid: self.valid,
                invalid: self.invalid,
                refused: self.refused,
                files_left: left,
                names_skipped: unnamed,
            }),
            formats: self.formats,
            refusals: self.reasons,
            columns: schema.then_some(columns),
            column_entries_cut: schema.then_some(self.column_entries_cut),
            groups: schema.then_some(groups),
            groups_cut_files: schema.then_some(self.groups_cut_files),
            hits: search.then_some(self.hits),
            returned: search.then_some(held),
            total: self.hits_total.filter(|_| search),
            total_exact: self
                .hits_total
                .filter(|_| search)
                .map(|_| self.hits_total_exact && left == 0),
            limit: self.limit,
            has_more: next.is_some(),
            next,
            files: self.lines,
            files_cut: self.lines_cut,
        }
    }
}

/// Puts `theirs` into `mine`, both in path order (stable: equal paths
/// keep `mine`'s first), and says whether every path is still held once.
/// Files fold into a thread's partial in path order, so `theirs` mostly
/// comes after all of `mine`: appended then, without the sort and the
/// pass that would compare every path held on every file. `mine` is in
/// order with no path twice (as every partial is: see
/// [`Partial::from_bytes`]).
fn merge_by_path<T>(mine: &mut Vec<T>, theirs: Vec<T>, path: impl Fn(&T) -> &String) -> bool {
    let after = |a: &T, b: &T| path(a) < path(b);
    let in_order = theirs.windows(2).all(|w| after(&w[0], &w[1]));
    let follows = match (mine.last(), theirs.first()) {
        (Some(last), Some(first)) => after(last, first),
        _ => true,
    };
    mine.extend(theirs);
    if in_order && follows {
        return true;
    }
    mine.sort_by(|a, b| path(a).cmp(path(b)));
    mine.windows(2).all(|w| path(&w[0]) != path(&w[1]))
}
