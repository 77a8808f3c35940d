//! A dataset's work as tasks that run anywhere: a whole file each, or a
//! byte range of a large one, every task serializable, its result a
//! [`Partial`] that merges with the others'.
//!
//! A range task's partial holds the file pending: the plan and the
//! parts its ranges found, which merge like everything else (the parts
//! of one file collect, in any order, a range given twice counting
//! once). [`Dataset::settle`] joins every file whose ranges are all in
//! through the reader that planned them into that file's partial, the
//! one a whole-file task gives; a file whose parts cannot join (a range
//! met a fault, a guess did not hold, a part is missing) comes back as a
//! whole-file task, which finds and places the fault. The answer is the
//! one a run of whole files gives, byte for byte.

use std::sync::Arc;

use plumb_core::{FormatReader, Op, RangePart, RangePlan, Refusal, Request, Source};
use serde::{Deserialize, Serialize};

use super::facts::FileFacts;
use super::{Dataset, DatasetAnswer, DatasetOp, Member, OpenContext, Partial};
use crate::layers::SourceChoice;
use crate::Plumb;

/// One unit of a dataset's work, to run where the caller likes
/// ([`Dataset::run_task`]); it serializes (serde), so it travels to
/// another process or machine as it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// The file.
    pub member: Member,
    /// Whether it is the dataset's first file (a search's offset applies
    /// to the first file alone).
    pub first: bool,
    /// A byte range of the file; `None` for the whole file.
    pub range: Option<TaskRange>,
}

/// The byte range a task reads: range `index` of `plan`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRange {
    /// How the file is cut, as its reader planned it.
    pub plan: RangePlan,
    /// Which range.
    pub index: usize,
}

/// A file whose ranges are being merged: what its range tasks found so
/// far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PendingFile {
    pub member: Member,
    pub first: bool,
    pub plan: RangePlan,
    /// One per range found, by index.
    pub parts: Vec<RangePart>,
}

impl PendingFile {
    /// The task that reads this file whole.
    pub(crate) fn whole(self) -> Task {
        Task {
            member: self.member,
            first: self.first,
            range: None,
        }
    }

    /// Takes in `other`'s parts of the same plan. Of two parts of one
    /// range (a task retried) the settled one is kept, and of two settled
    /// ones the one whose serialized form sorts last, so the order
    /// partials merge in never shows.
    ///
    /// # Errors
    /// `invalid-argument` when the two were planned differently.
    pub fn absorb(&mut self, other: PendingFile) -> Result<(), Refusal> {
        if self.plan != other.plan || self.member != other.member {
            return Err(Refusal::invalid_argument(format!(
                "these partials do not merge: they cut `{}` differently",
                plumb_core::echo(&self.member.path)
            )));
        }
        self.first |= other.first;
        for part in other.parts {
            match self.parts.binary_search_by_key(&part.index, |p| p.index) {
                Err(at) => self.parts.insert(at, part),
                Ok(at) => {
                    let key = |p: &RangePart| (p.settled(), serde_json::to_string(p).ok());
                    if key(&part) > key(&self.parts[at]) {
                        self.parts[at] = part;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Runs one op on one opened file.
pub(crate) fn run_one(
    plumb: &Plumb,
    op: DatasetOp,
    format: Option<&str>,
    req: &Request,
    source: &dyn Source,
) -> Result<FileFacts, Refusal> {
    let core_op = match op {
        DatasetOp::Inspect => plumb_core::Op::Inspect,
        DatasetOp::Validate => plumb_core::Op::Validate,
        DatasetOp::Search => plumb_core::Op::Search,
        DatasetOp::Detect => {
            let mut options = req.options.clone();
            let choice = SourceChoice::take(&mut options)?;
            let d = plumb.detect_with(source, format, &choice)?;
            return Ok(FileFacts {
                unit: "record",
                format: d.reader.name().to_owned(),
                container: d.container.map(str::to_owned),
                view: plumb_core::ViewFlags::exact(),
                rows: None,
                columns: None,
                valid: None,
                fault: None,
                by: serde_json::to_value(d.by)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned)),
                hits: None,
                sketches: None,
            });
        }
    };
    let mut answer = plumb.run_source(core_op, source, format, req)?;
    Ok(FileFacts::of_answer(&mut *answer, op == DatasetOp::Search))
}

/// The op of the readers a dataset op runs.
fn core_op(op: DatasetOp) -> Op {
    match op {
        DatasetOp::Inspect | DatasetOp::Detect => Op::Inspect,
        DatasetOp::Validate => Op::Validate,
        DatasetOp::Search => Op::Search,
    }
}

impl Dataset {
    /// The tasks of `op` over this dataset's members, in path order: a
    /// task per file, except that with `range_bytes` a validate, a
    /// search or an inspect cuts each file of at least twice that many
    /// bytes into ranges of about that size, where its reader splits a
    /// scan (CSV/TSV and JSON Lines read as they are stored, and a JSON
    /// document cut between the elements of its root array;
    /// not a compressed file, a transcoded one, a zip's member, or a CSV
    /// whose head shows quoted line breaks; a search only from its
    /// file's first record, and by one column in CSV; an inspect without
    /// statistics). The planner opens those large files and reads their
    /// heads and a little at each cut; a file it cannot plan stays
    /// whole, and its task says why when it runs.
    pub fn plan(
        &self,
        plumb: &Plumb,
        op: DatasetOp,
        format: Option<&str>,
        req: &Request,
        range_bytes: Option<u64>,
    ) -> Vec<Task> {
        let mut tasks = Vec::with_capacity(self.members.len());
        for (i, member) in self.members.iter().enumerate() {
            let whole = Task {
                member: member.clone(),
                first: i == 0,
                range: None,
            };
            let plan = range_bytes
                .filter(|_| op != DatasetOp::Detect)
                .and_then(|size| {
                    let req = file_request(op, req, i == 0);
                    self.plan_file(plumb, op, format, &req, member, size)
                });
            match plan {
                Some(plan) => tasks.extend((0..plan.ranges()).map(|index| Task {
                    range: Some(TaskRange {
                        plan: plan.clone(),
                        index,
                    }),
                    ..whole.clone()
                })),
                None => tasks.push(whole),
            }
        }
        tasks
    }

    /// The ranges of one member, when it is worth cutting and its reader
    /// cuts it.
    fn plan_file(
        &self,
        plumb: &Plumb,
        op: DatasetOp,
        format: Option<&str>,
        req: &Request,
        member: &Member,
        range_bytes: u64,
    ) -> Option<RangePlan> {
        if member.archive_member.is_some()
            || member.refused.is_some()
            || req.window.from_end.is_some()
        {
            return None;
        }
        let range_bytes = range_bytes.max(1);
        let large = |len: u64| len / 2 >= range_bytes;
        if member.bytes.is_some_and(|b| !large(b)) {
            return None;
        }
        let source = self.opener.open(member, &OpenContext::default()).ok()?;
        let len = source.len().filter(|&l| large(l))?;
        let (reader, checked) = checked_reader(plumb, op, format, req, &*source)?;
        let parts = usize::try_from(len.div_ceil(range_bytes)).unwrap_or(usize::MAX);
        reader
            .plan_ranges(&*source, core_op(op), &checked, parts)
            .ok()
            .flatten()
    }

    /// Runs one task: the partial of its file, or of its file's range
    /// (the file pending until [`Dataset::settle`] joins its ranges).
    /// Never fails: a refusal is part of the partial (a range's is left
    /// for the file's whole-file task to give).
    pub fn run_task(
        &self,
        plumb: &Plumb,
        op: DatasetOp,
        format: Option<&str>,
        req: &Request,
        task: &Task,
    ) -> Partial {
        let Some(range) = &task.range else {
            return self.partial(plumb, op, format, req, &task.member, task.first);
        };
        let req = &file_request(op, req, task.first);
        let part = self
            .opener
            .open(&task.member, &OpenContext::default())
            .ok()
            .and_then(|source| {
                let (reader, checked) = planner(plumb, op, req, &range.plan)?;
                Some(reader.scan_range(&*source, core_op(op), &checked, &range.plan, range.index))
            })
            .unwrap_or(RangePart {
                index: range.index,
                state: None,
            });
        Partial::pending(
            op,
            req.window.limit,
            PendingFile {
                member: task.member.clone(),
                first: task.first,
                plan: range.plan.clone(),
                parts: vec![part],
            },
        )
    }

    /// Joins the ranges of every pending file of `partial` whose ranges
    /// are all in into the file's partial, and gives back, beside the
    /// partial, a whole-file task for each such file whose ranges did not
    /// join: run them ([`Dataset::run_task`]) and merge their partials in
    /// before [`Dataset::finish`]. A file with ranges still out stays
    /// pending, so a driver may settle as parts arrive and hold only the
    /// files in flight.
    ///
    /// # Errors
    /// As [`Partial::merge`].
    pub fn settle(
        &self,
        plumb: &Plumb,
        op: DatasetOp,
        req: &Request,
        mut partial: Partial,
    ) -> Result<(Partial, Vec<Task>), Refusal> {
        let mut reruns = Vec::new();
        let mut waiting = Vec::new();
        for file in partial.take_pending() {
            if file.parts.len() < file.plan.ranges() {
                waiting.push(file);
                continue;
            }
            match join(plumb, op, &file_request(op, req, file.first), &file) {
                Some(facts) => {
                    let one = Partial::of_file(
                        op,
                        &file.member,
                        Some(file.plan.len),
                        0,
                        req.window.limit,
                        Ok(facts),
                    );
                    partial = partial.merge(one)?;
                }
                None => reruns.push(file.whole()),
            }
        }
        for file in waiting {
            partial.keep_pending(file);
        }
        Ok((partial, reruns))
    }

    /// The answer from a merged partial that may hold pending files:
    /// settles it ([`Dataset::settle`]), runs here the whole-file tasks
    /// of files whose ranges did not join or are not all in, and
    /// finishes.
    ///
    /// # Errors
    /// As [`Partial::merge`].
    pub fn complete(
        &self,
        plumb: &Plumb,
        op: DatasetOp,
        format: Option<&str>,
        req: &Request,
        partial: Partial,
    ) -> Result<DatasetAnswer, Refusal> {
        let (mut partial, mut reruns) = self.settle(plumb, op, req, partial)?;
        reruns.extend(partial.take_pending().into_iter().map(PendingFile::whole));
        for task in &reruns {
            partial = partial.merge(self.run_task(plumb, op, format, req, task))?;
        }
        Ok(self.finish(partial))
    }
}

/// The request one file of a dataset is read with, whole or by ranges:
/// a search's offset applies to the call's first file alone; an inspect
/// is brief (the merged view reads no sample rows, samples or date
/// ends), and keeps its statistics' sketches to merge across files.
pub(crate) fn file_request(op: DatasetOp, req: &Request, first: bool) -> Request {
    let mut req = req.clone();
    if !first {
        req.window.offset = None;
    }
    req.scan.sketches |= super::asks_stats(op, &req);
    req.scan.brief |= op == DatasetOp::Inspect;
    req
}

/// The reader that reads `source` as it is stored (no compression, no
/// transcoding) and `req` checked for it; `None` otherwise.
fn checked_reader(
    plumb: &Plumb,
    op: DatasetOp,
    format: Option<&str>,
    req: &Request,
    source: &dyn plumb_core::Source,
) -> Option<(Arc<dyn FormatReader>, Request)> {
    let mut options = req.options.clone();
    let choice = SourceChoice::take(&mut options).ok()?;
    if choice.member.is_some() {
        return None;
    }
    let detected = plumb.detect_with(source, format, &choice).ok()?;
    if detected.container.is_some() || detected.encoding.is_some() {
        return None;
    }
    checked(plumb, op, req, detected.reader)
}

/// The reader that made `plan`, and `req` checked for it.
fn planner(
    plumb: &Plumb,
    op: DatasetOp,
    req: &Request,
    plan: &RangePlan,
) -> Option<(Arc<dyn FormatReader>, Request)> {
    checked(plumb, op, req, plumb.registry().by_name(&plan.format)?)
}

/// `reader` with `req` as it reads it: the source options taken out,
/// the rest checked against what the reader declares.
fn checked(
    plumb: &Plumb,
    op: DatasetOp,
    req: &Request,
    reader: Arc<dyn FormatReader>,
) -> Option<(Arc<dyn FormatReader>, Request)> {
    let mut checked = req.clone();
    SourceChoice::take(&mut checked.options).ok()?;
    plumb
        .registry()
        .check_options(reader.as_ref(), core_op(op), &mut checked)
        .ok()?;
    Some((reader, checked))
}

/// A pending file's facts from its ranges' parts, when they join.
fn join(plumb: &Plumb, op: DatasetOp, req: &Request, file: &PendingFile) -> Option<FileFacts> {
    let ranges = file.plan.ranges();
    let complete = file.parts.len() == ranges && file.parts.iter().all(RangePart::settled);
    if !complete {
        return None;
    }
    let (reader, checked) = planner(plumb, op, req, &file.plan)?;
    let mut answer = reader.join_ranges(core_op(op), &checked, &file.plan, &file.parts)?;
    Some(FileFacts::of_answer(&mut *answer, op == DatasetOp::Search))
}
