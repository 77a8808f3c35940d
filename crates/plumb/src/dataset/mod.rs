//! Datasets: many files answered as one.
//!
//! A [`Dataset`] is a listing of files in path order (a folder, a glob,
//! a zip's members, several paths, or any listing a caller builds, such
//! as an object-store prefix) and an [`Opener`] that opens each. An op
//! over it runs per file and folds the per-file results into one
//! [`Partial`]: a versioned, serializable result with one merge,
//! associative and commutative, so the partials of any split of the
//! files, made on any threads or machines, merge to the same bytes as
//! the whole. [`Dataset::finish`] makes the answer. To run elsewhere,
//! [`Dataset::plan`] lists the work as [`Task`]s (a file, or a byte range
//! of a large one) and [`Dataset::settle`] joins the ranges of each file.
//!
//! ```
//! use plumb::dataset::{Dataset, DatasetOp, ListOptions, Partial};
//! use plumb::{Answer, Plumb, Request};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("a.csv"), "id,name\n1,ann\n")?;
//! std::fs::write(dir.path().join("b.csv"), "id,name,city\n2,bob,Oslo\n")?;
//! let name = dir.path().to_string_lossy().into_owned();
//! let data = Dataset::local(&[name], &ListOptions::default())?;
//! let plumb = Plumb::new();
//! let req = Request::default();
//! // The whole, and the same from one partial per file, merged.
//! let whole = data.run(&plumb, DatasetOp::Inspect, None, &req)?;
//! let mut parts = data
//!     .members()
//!     .iter()
//!     .map(|m| data.partial(&plumb, DatasetOp::Inspect, None, &req, m, false));
//! let first = parts.next().unwrap();
//! let merged = parts.try_fold(first, |a, b| a.merge(b))?;
//! let again = data.finish(merged);
//! assert_eq!(whole.to_json(), again.to_json());
//! let json = whole.to_json();
//! assert_eq!(json["totals"]["files"], 2);
//! assert_eq!(json["columns"][0]["name"], "city");
//! assert_eq!(json["columns"][0]["files"], 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Memory is a function of the caps, never of the number of files: the
//! listing keeps at most [`DATASET_MAX_FILES`] paths, and a partial at
//! most [`DATASET_LINES_MAX`] per-file lines, [`DATASET_COLUMNS_MAX`]
//! columns and [`DATASET_GROUPS_MAX`] schema groups, each cut so that
//! what is kept stays exact (see [`Partial`]).

mod answer;
mod columns;
mod facts;
mod list;
mod partial;
mod stats;
mod tasks;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use plumb_core::{CancelToken, Refusal, RefusalReason, Request, Source};

pub use answer::{
    Continuation, DatasetAnswer, DatasetColumn, FileHits, FileLine, SchemaGroup, Totals, TypeGroup,
    TypeMoment,
};
pub use list::{is_glob, split_glob, Glob, LocalOpener};

pub use partial::{Partial, PARTIAL_VERSION};
pub use stats::DatasetStats;
pub use tasks::{Task, TaskRange};

use crate::Plumb;

/// The most files one call reads: past it the answer names the first
/// file left (`next.from`) and how many are left.
pub const DATASET_MAX_FILES: usize = 100_000;
/// The deepest a folder is walked below the folder named.
pub const DATASET_MAX_DEPTH: usize = 64;
/// The most per-file lines an answer lists (the first, by path); the
/// rest are counted.
pub const DATASET_LINES_MAX: usize = 1_000;
/// The most columns (or keys) a merged answer describes: the first by
/// name; the rest are counted.
pub const DATASET_COLUMNS_MAX: usize = 4_096;
/// The most schema groups a merged answer describes (by fingerprint);
/// the files of the rest are counted.
pub const DATASET_GROUPS_MAX: usize = 256;
/// The most types a column is described in (the first by name).
pub const DATASET_TYPES_MAX: usize = 16;
/// The most columns a schema group lists; the rest are counted.
pub const GROUP_COLUMNS_SHOWN: usize = 64;
/// The example paths a schema group names.
pub const GROUP_EXAMPLES: usize = 3;

/// What is asked of every file of a dataset.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum DatasetOp {
    /// Each file's format, rows and columns; the merged schema.
    Inspect,
    /// Each file's verdict and first fault; valid when every file is.
    Validate,
    /// Hits of every file, in path order, to a limit.
    Search,
    /// Each file's format and how it was decided.
    Detect,
}

impl DatasetOp {
    /// The op's name (`inspect`).
    pub fn as_str(self) -> &'static str {
        match self {
            DatasetOp::Inspect => "inspect",
            DatasetOp::Validate => "validate",
            DatasetOp::Search => "search",
            DatasetOp::Detect => "detect",
        }
    }

    /// The op over a dataset of a per-file op; `select` and `read` stay
    /// per file and are refused, naming the files to pick from.
    ///
    /// # Errors
    /// `invalid-argument` for `select`.
    pub fn of(op: plumb_core::Op, data: &Dataset) -> Result<DatasetOp, Refusal> {
        match op {
            plumb_core::Op::Inspect => Ok(DatasetOp::Inspect),
            plumb_core::Op::Validate => Ok(DatasetOp::Validate),
            plumb_core::Op::Search => Ok(DatasetOp::Search),
            other => Err(data.per_file_only(other.as_str())),
        }
    }
}

/// A file of a dataset.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Member {
    /// Its path as the answer names it: a local path, an object's URL,
    /// or `ARCHIVE::MEMBER` for a zip's member.
    pub path: String,
    /// Its size as the listing saw it (see [`ListOptions::sizes`]).
    pub bytes: Option<u64>,
    /// For a zip's member: its name in the archive.
    pub archive_member: Option<String>,
    /// A member the listing could not read (a folder it could not
    /// open): its reason and message, given as the member's refusal.
    pub refused: Option<(RefusalReason, String)>,
}

impl Member {
    /// A file, as listed.
    pub fn file(path: String, bytes: Option<u64>) -> Member {
        Member {
            path,
            bytes,
            archive_member: None,
            refused: None,
        }
    }

    /// A member the listing could not read.
    pub fn refused(path: String, reason: RefusalReason, message: &str) -> Member {
        Member {
            refused: Some((reason, message.to_owned())),
            ..Member::file(path, None)
        }
    }

    /// The file to open: the path, or a zip member's archive.
    pub fn file_path(&self) -> &str {
        match &self.archive_member {
            Some(m) => self
                .path
                .strip_suffix(m.as_str())
                .and_then(|p| p.strip_suffix("::"))
                .unwrap_or(&self.path),
            None => &self.path,
        }
    }
}

impl Ord for Member {
    fn cmp(&self, other: &Member) -> std::cmp::Ordering {
        self.path.cmp(&other.path)
    }
}

impl PartialOrd for Member {
    fn partial_cmp(&self, other: &Member) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// What a file is opened with: the call's cancel token and progress
/// counter (bytes read, across every file).
#[derive(Clone, Debug, Default)]
pub struct OpenContext {
    /// Cancels every scan of the call.
    pub cancel: Option<CancelToken>,
    /// Counts the bytes read.
    pub progress: Option<Arc<AtomicU64>>,
}

/// Opens a dataset's members: local files, a workspace's files judged
/// beneath its root, or objects in a store.
pub trait Opener: Send + Sync + std::fmt::Debug {
    /// Opens one member.
    ///
    /// # Errors
    /// The refusal that becomes the member's line.
    fn open(&self, member: &Member, cx: &OpenContext) -> Result<Box<dyn Source>, Refusal>;
}

/// How a dataset is listed: how deep, whether hidden files count, and
/// which part of the listing one call reads.
#[derive(Clone, Debug)]
pub struct ListOptions {
    /// Folders walked below a folder named (`None`: to
    /// [`DATASET_MAX_DEPTH`]); 1 reads the folder's own files.
    pub depth: Option<usize>,
    /// Lists names that start with a dot.
    pub hidden: bool,
    /// The most files read (at most [`DATASET_MAX_FILES`]).
    pub max_files: usize,
    /// The first path read: the `next.from` of an answer before.
    pub from: Option<String>,
    /// Asks each file of a folder its size as it is listed (a call to
    /// the file system a file), for a total known before the files are
    /// read (a progress bar's). Otherwise a file's size in the answer is
    /// the size it had when opened, which is the same figure for a file
    /// that does not change; only a file that cannot be opened then goes
    /// without one.
    pub sizes: bool,
}

impl Default for ListOptions {
    fn default() -> ListOptions {
        ListOptions {
            depth: None,
            hidden: false,
            max_files: DATASET_MAX_FILES,
            from: None,
            sizes: false,
        }
    }
}

/// Files in path order, with the opener that opens them.
#[derive(Clone, Debug)]
pub struct Dataset {
    named: Vec<String>,
    members: Vec<Member>,
    left: u64,
    next: Option<String>,
    unnamed: u64,
    opener: Arc<dyn Opener>,
}

impl Dataset {
    /// The dataset that `names` name on this machine: files, folders
    /// (walked to `opts.depth`), globs (`'logs/**/*.jsonl.gz'`) and a
    /// zip's members (`data.zip::*.csv`).
    ///
    /// # Errors
    /// `invalid-argument` for no name or a glob that does not parse;
    /// a zip archive's refusal.
    pub fn local(names: &[String], opts: &ListOptions) -> Result<Dataset, Refusal> {
        list::local(names, opts)
    }

    /// A dataset of members a caller listed (an object-store prefix, a
    /// workspace's files), read with `opener`. The members are sorted
    /// by path, duplicates dropped, and those before `opts.from` and past
    /// `opts.max_files` left out (counted as left when past).
    pub fn from_members(
        named: Vec<String>,
        mut members: Vec<Member>,
        opts: &ListOptions,
        opener: Arc<dyn Opener>,
    ) -> Dataset {
        members.sort();
        members.dedup_by(|a, b| a.path == b.path);
        if let Some(from) = &opts.from {
            members.retain(|m| m.path.as_str() >= from.as_str());
        }
        let max = opts.max_files.clamp(1, DATASET_MAX_FILES);
        let left = members.len().saturating_sub(max) as u64;
        let next = members.get(max).map(|m| m.path.clone());
        members.truncate(max);
        Dataset {
            named,
            members,
            left,
            next,
            unnamed: 0,
            opener,
        }
    }

    /// The names the dataset was given by.
    pub fn named(&self) -> &[String] {
        &self.named
    }

    /// The files this call reads, in path order.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// The files listed past [`ListOptions::max_files`].
    pub fn files_left(&self) -> u64 {
        self.left
    }

    /// The refusal of an op that stays per file, naming the files.
    pub fn per_file_only(&self, op: &str) -> Refusal {
        let some: Vec<&str> = self
            .members
            .iter()
            .take(3)
            .map(|m| m.path.as_str())
            .collect();
        let total = self.members.len() as u64 + self.left;
        let example = some.first().copied().unwrap_or("data.csv");
        Refusal::invalid_argument(format!(
            "{op} reads one file, and this names a dataset of {total} files ({}{}): name one of \
             them (`{example}`), or a zip's member as `ARCHIVE::MEMBER`",
            some.join(", "),
            if total > some.len() as u64 {
                ", ..."
            } else {
                ""
            },
        ))
        .with_extra("files", serde_json::json!(some))
    }

    /// One member's partial: the op on that file alone. `first` says it
    /// is the call's first file, which a search's `offset` applies to.
    /// Never fails: a file's refusal is part of its partial.
    pub fn partial(
        &self,
        plumb: &Plumb,
        op: DatasetOp,
        format: Option<&str>,
        req: &Request,
        member: &Member,
        first: bool,
    ) -> Partial {
        self.partial_with(
            plumb,
            op,
            format,
            req,
            member,
            first,
            &OpenContext::default(),
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn partial_with(
        &self,
        plumb: &Plumb,
        op: DatasetOp,
        format: Option<&str>,
        req: &Request,
        member: &Member,
        first: bool,
        cx: &OpenContext,
    ) -> Partial {
        let mut req = tasks::file_request(op, req, first);
        let start = req.window.offset.unwrap_or(0);
        if let Some(name) = &member.archive_member {
            // A member option the caller gave is replaced by the member listed.
            let _ = req.set("member", serde_json::Value::from(name.clone()));
        }
        let mut opened = None;
        let outcome = match &member.refused {
            Some((reason, message)) => Err(Refusal::new(*reason, message.clone())),
            None => self.opener.open(member, cx).and_then(|source| {
                opened = source.len();
                tasks::run_one(plumb, op, format, &req, &*source)
            }),
        };
        // A member's source is its archive: its size is the listing's.
        let bytes = match &member.archive_member {
            Some(_) => member.bytes,
            None => opened.or(member.bytes),
        };
        Partial::of_file(op, member, bytes, start, req.window.limit, outcome)
    }

    /// Runs `op` on every member on `req.scan.threads` threads (every
    /// core when not set) and answers for the whole.
    ///
    /// # Errors
    /// `aborted` when cancelled; `invalid-argument` for a dataset of no
    /// files.
    pub fn run(
        &self,
        plumb: &Plumb,
        op: DatasetOp,
        format: Option<&str>,
        req: &Request,
    ) -> Result<DatasetAnswer, Refusal> {
        self.run_with(plumb, op, format, req, &OpenContext::default())
    }

    /// [`Dataset::run`] with a cancel token and progress counter.
    ///
    /// # Errors
    /// As [`Dataset::run`].
    pub fn run_with(
        &self,
        plumb: &Plumb,
        op: DatasetOp,
        format: Option<&str>,
        req: &Request,
        cx: &OpenContext,
    ) -> Result<DatasetAnswer, Refusal> {
        Ok(self.finish(self.scan(plumb, op, format, req, cx)?))
    }

    /// The merged partial of every member (what [`Dataset::run`]
    /// finishes).
    ///
    /// # Errors
    /// As [`Dataset::run`].
    pub fn scan(
        &self,
        plumb: &Plumb,
        op: DatasetOp,
        format: Option<&str>,
        req: &Request,
        cx: &OpenContext,
    ) -> Result<Partial, Refusal> {
        if self.members.is_empty() {
            return Err(Refusal::new(
                RefusalReason::NotFound,
                format!(
                    "no file matches {}{}",
                    self.named
                        .iter()
                        .map(|n| format!("`{}`", plumb_core::echo(n)))
                        .collect::<Vec<_>>()
                        .join(", "),
                    if self.unnamed > 0 {
                        format!(" ({} names that are not UTF-8 were skipped)", self.unnamed)
                    } else {
                        String::new()
                    }
                ),
            ));
        }
        let threads = req.scan.thread_count().clamp(1, self.members.len());
        let mut per_file = req.clone();
        if threads > 1 {
            // The files are the parts: each is read on one thread.
            per_file.scan.threads = Some(1);
        }
        // Statistics merge across files in a fixed order (see
        // `fan_out_ordered`).
        let stats = asks_stats(op, req);
        let run = |i: usize| {
            let m = &self.members[i];
            self.partial_with(plumb, op, format, &per_file, m, i == 0, cx)
        };
        let mut total = Partial::empty(op, req.window.limit);
        // A search reads batches in path order and stops at its limit;
        // every other op reads every file.
        let batch = if op == DatasetOp::Search {
            threads * 4
        } else {
            self.members.len()
        };
        let mut start = 0;
        while start < self.members.len() {
            let end = (start + batch).min(self.members.len());
            total = total.merge(if stats {
                fan_out_ordered(threads, start..end, &run, cx)?
            } else {
                fan_out(threads, start..end, &run, cx)?
            })?;
            start = end;
            if total.limit_reached() {
                break;
            }
        }
        if cx.cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
            return Err(Refusal::aborted(0));
        }
        Ok(total)
    }

    /// The answer from the merged partial of this dataset's members.
    pub fn finish(&self, partial: Partial) -> DatasetAnswer {
        partial.finish(
            self.named.clone(),
            self.left,
            self.next.clone(),
            self.unnamed,
        )
    }
}

/// Merges `p` into what `acc` holds, or holds `p` when it holds none.
fn fold_in(acc: &mut Option<Partial>, p: Partial) -> Result<(), Refusal> {
    *acc = Some(match acc.take() {
        None => p,
        Some(a) => a.merge(p)?,
    });
    Ok(())
}

/// Whether `req` asks an inspect for statistics (read through the
/// option's declaration: a caller may give it as text, which each reader
/// normalizes in its turn).
fn asks_stats(op: DatasetOp, req: &Request) -> bool {
    op == DatasetOp::Inspect
        && req.options.get("stats").is_some_and(|v| {
            plumb_json::STATS_OPTION.normalize(v).ok() == Some(serde_json::Value::Bool(true))
        })
}

/// [`fan_out`] merging in one order at any thread count: the files are
/// cut into runs of a length that follows from their number alone, each
/// run folded in path order on one thread, and the runs' partials merged
/// in order. Statistics' estimates depend on the order sketches merge in
/// (see [`DatasetStats`]), and an answer is the same at 1 and N threads.
///
/// Runs are read a wave at a time: the first alone, then as many at once
/// as keep the statistics of the widest file seen so far within
/// [`plumb_stats::STATS_SPLIT_BYTES`] beyond one file's (as a split scan
/// of one file does, [`plumb_stats::stats_parts`]), so memory stays
/// bounded however wide the files are.
fn fan_out_ordered(
    threads: usize,
    range: std::ops::Range<usize>,
    run: &(dyn Fn(usize) -> Partial + Sync),
    cx: &OpenContext,
) -> Result<Partial, Refusal> {
    let run_len = (range.len() / 64).clamp(1, 32);
    let runs: Vec<std::ops::Range<usize>> = range
        .clone()
        .step_by(run_len)
        .map(|s| s..(s + run_len).min(range.end))
        .collect();
    let fold = |r: &std::ops::Range<usize>| -> Result<Partial, Refusal> {
        let mut acc: Option<Partial> = None;
        for i in r.clone() {
            if cx.cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
                return Err(Refusal::aborted(0));
            }
            fold_in(&mut acc, run(i))?;
        }
        acc.ok_or_else(|| Refusal::aborted(0))
    };
    let mut out: Option<Partial> = None;
    let mut widest = 0;
    let mut at = 0;
    while at < runs.len() {
        let width = if at == 0 {
            1
        } else {
            plumb_stats::stats_parts(threads.max(1), widest)
        };
        let wave = &runs[at..(at + width).min(runs.len())];
        at += wave.len();
        let parts: Vec<Result<Partial, Refusal>> = if wave.len() == 1 {
            vec![fold(&wave[0])]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = wave.iter().map(|r| s.spawn(|| fold(r))).collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| Err(Refusal::aborted(0))))
                    .collect()
            })
        };
        for p in parts {
            let p = p?;
            widest = widest.max(p.widest_file());
            fold_in(&mut out, p)?;
        }
    }
    out.ok_or_else(|| Refusal::aborted(0))
}

/// Runs `run` on `range` across `threads` threads, each folding what
/// it ran into one partial, and merges the threads' partials.
fn fan_out(
    threads: usize,
    range: std::ops::Range<usize>,
    run: &(dyn Fn(usize) -> Partial + Sync),
    cx: &OpenContext,
) -> Result<Partial, Refusal> {
    let next = AtomicUsize::new(range.start);
    let results: Mutex<Vec<Result<Partial, Refusal>>> = Mutex::new(Vec::new());
    let work = || {
        let mut mine: Option<Partial> = None;
        loop {
            if cx.cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
                break;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= range.end {
                break;
            }
            let p = run(i);
            mine = Some(match mine {
                None => p,
                Some(acc) => match acc.merge(p) {
                    Ok(m) => m,
                    Err(r) => {
                        results
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push(Err(r));
                        return;
                    }
                },
            });
        }
        if let Some(p) = mine {
            results
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(Ok(p));
        }
    };
    let n = threads.min(range.len()).max(1);
    if n == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..n {
                s.spawn(work);
            }
        });
    }
    let mut out: Option<Partial> = None;
    for r in results.into_inner().unwrap_or_else(|e| e.into_inner()) {
        fold_in(&mut out, r?)?;
    }
    out.ok_or_else(|| Refusal::aborted(0))
}
