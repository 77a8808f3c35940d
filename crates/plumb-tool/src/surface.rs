//! The tools: `data` and `read`, JSON in, JSON out.

use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Value};

use plumb::read::{read_source, ReadRequest};
use plumb::Plumb;
use std::sync::Arc;

use plumb_core::{echo, echo_within, CancelToken, FileSource, Refusal, RefusalReason, Source};

use crate::args::{data_args, data_schema, list_args, read_args, DataArgs, ReadArgs};
use crate::bounded::{answer_tree, TreeBounds};
use crate::envelope::{fit_noted, json_len, Budget, OBSERVATION_CAP_BYTES};
use crate::listing::{Entry, EntryKind};
use crate::paths::Workspace;
use crate::shape::{columns_kept, columns_text, join_hint, window_columns, ColumnWindow, Detail};

/// The most bytes one call read from a stream (`plumb tool`'s stdin)
/// may hold; a longer call is refused `invalid-argument` after reading
/// one byte past it, never buffered whole.
pub const TOOL_CALL_MAX_BYTES: usize = 1024 * 1024;

/// The bytes of text (counted after decompression; Parquet: of values
/// decoded) an inspect, validate or search on the agent surface reads
/// when the call gives no `max_scan_bytes` (2 GiB): past it the answer
/// is sampled and its hint says how to go on.
pub const AGENT_SCAN_MAX_BYTES: u64 = 2 << 30;

/// Bytes of an observation's cap kept free while a listing adds
/// entries, for the counts and hint written after them.
const LIST_ENVELOPE_MARGIN: usize = 512;

/// Whether `head` is UTF-8 text, allowing a character cut at its end
/// and no NUL.
fn utf8_prefix(head: &[u8]) -> bool {
    if plumb_core::judge_head(head).is_err() {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    }
}

/// The most bytes of a table's columns list read into an inspect asked
/// for in the columns form ([`Detail::Columns`]), before each column
/// shrinks to its row; the answer is then fitted to its cap as any is.
pub const COLUMNS_FORM_LIST_BYTES: usize = 32 * crate::bounded::OBSERVATION_LIST_BYTES;

/// The formats whose inspect describes a table's columns, which a
/// column window applies to.
pub const TABLE_FORMATS: [&str; 7] = ["csv", "tsv", "parquet", "xlsx", "xlsb", "xls", "ods"];

/// The tool names.
pub const TOOL_NAMES: [&str; 2] = ["data", "read"];

/// What the `data` tool does, for a model.
/// [`Toolbox::data_description`] adds the formats this toolbox reads and
/// the remote prefixes it allows.
pub const DATA_DESCRIPTION: &str = "Look into a data file of any size without loading it. \
op=inspect: format, columns and their types, keys, counts, problems. op=select: a bounded window, verbatim \
(offset/limit, a negative offset for the last rows; columns for tables; pointer for JSON; sheet for workbooks). op=validate: is it well formed, and where is the first fault. \
op=search: where a pattern (regex; plain text is a literal) or a where predicate (= x, > x, is null, ...) holds: \
lines of any text file (format text, the default for non-data files), CSV rows (column), JSON Lines records or \
JSON array elements (field: a pointer inside each; pointer: the array); or where several conditions hold \
(conditions: [\"level = error\", \"ts >= 2026-03-01T00:00:00Z\"], each a column, field or pointer then a predicate; \
match all or any; dates and timestamps compare as instants) in tables, JSON Lines and JSON arrays; hits come with \
line, row or record numbers and next_offset to continue (offset=-N: the last N hits). A wide table's inspect takes \
detail=columns (one short row per column) or column_offset/column_limit. op=list: a folder's entries (path \".\" for the workspace root) with their kind, \
size and detected format, to find the files to look into. Answers say whether they are exact, sampled or cut, and how to continue.";

/// What the `read` tool does, for a model.
pub const READ_DESCRIPTION: &str = "Read lines [offset, offset+limit) of any text file (at most 512 lines and 24 KiB). \
A partial answer carries total_lines and next_offset to continue from; a negative offset reads the last lines. \
A catalog name may be given instead of a path.";

/// What a call reports while it runs: the bytes it has read of its file
/// and the file's size (0 until the file is opened, and for a source of
/// unknown size). Shared with whoever reports progress.
#[derive(Clone, Debug, Default)]
pub struct CallProgress {
    /// Bytes read so far: by a stream or by position, the parts of a
    /// split scan included, so it may pass `total` by the few blocks a
    /// scan probes first.
    pub read: Arc<AtomicU64>,
    /// The file's size in bytes.
    pub total: Arc<AtomicU64>,
}

/// The agent surface: a workspace, a registry and a session budget.
#[derive(Debug, Clone)]
pub struct Toolbox {
    workspace: Workspace,
    plumb: Plumb,
    budget: Budget,
    remote: Option<RemoteOpener>,
    /// The URL prefixes the remote opener allows, for the description.
    allowed_remote: Vec<String>,
}

/// Opens a path that names a remote object (a URL), judged by the
/// caller's allow-list: `None` when the path is no URL it takes (it is
/// then a path inside the workspace), a refusal when the URL is not
/// allowed or cannot be read. The CLI installs one built on plumb-remote
/// and its `--allow-remote` prefixes; without one, every path is a path
/// in the workspace.
#[derive(Clone)]
pub struct RemoteOpener(
    #[allow(clippy::type_complexity)]
    pub  Arc<
        dyn Fn(&str, Option<CancelToken>) -> Option<Result<Box<dyn Source>, Refusal>> + Send + Sync,
    >,
);

impl std::fmt::Debug for RemoteOpener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RemoteOpener")
    }
}

fn refusal_observation(tool: &str, op: &str, r: &Refusal) -> Value {
    let label = match tool {
        "data" => format!("data: {}", echo(op)),
        "read" => "read".to_owned(),
        _ => "call".to_owned(),
    };
    let mut refusal = serde_json::to_value(r).unwrap_or(Value::Null);
    bound_echoes(&mut refusal);
    // Remedies name only plumb's own tools: a host may have no other.
    let message = refusal["message"].as_str().unwrap_or_default().to_owned();
    json!({
        "ok": false,
        "tool": echo(tool),
        "error": format!("{label} refused ({}): {message}", r.reason()),
        "refusal": refusal,
    })
}

/// The longest string a refusal carries whole (its message included).
pub const REFUSAL_STRING_BYTES: usize = 2048;

/// The most items a list in a refusal carries (a listing of names).
pub const REFUSAL_LIST_ITEMS: usize = 50;

/// The last guard of the "every answer under 32 KiB" promise for
/// refusals: whatever an engine echoed, strings are cut (marked, with
/// their full length) and lists keep their first items plus a count.
fn bound_echoes(v: &mut Value) {
    match v {
        Value::String(s) if s.len() > REFUSAL_STRING_BYTES => {
            *s = echo_within(s, REFUSAL_STRING_BYTES);
        }
        Value::Array(items) => {
            if items.len() > REFUSAL_LIST_ITEMS {
                let more = items.len() - REFUSAL_LIST_ITEMS;
                items.truncate(REFUSAL_LIST_ITEMS);
                items.push(json!({"$summary": {"omitted_items": more}}));
            }
            items.iter_mut().for_each(bound_echoes);
        }
        Value::Object(m) => m.values_mut().for_each(bound_echoes),
        _ => {}
    }
}

impl Toolbox {
    /// A toolbox over a workspace, with no session budget.
    pub fn new(workspace: Workspace) -> Toolbox {
        Toolbox {
            workspace,
            plumb: Plumb::new(),
            budget: Budget::unlimited(),
            remote: None,
            allowed_remote: Vec::new(),
        }
    }

    /// Reads remote objects through `opener` (see [`RemoteOpener`]),
    /// which allows URLs under `allowed` (named in the `data` tool's
    /// description, so that a model knows what it may ask for).
    pub fn with_remote(mut self, opener: RemoteOpener, allowed: &[String]) -> Toolbox {
        self.remote = Some(opener);
        self.allowed_remote = allowed.to_vec();
        self
    }

    /// What the `data` tool does: [`DATA_DESCRIPTION`], the formats this
    /// toolbox's registry reads and, when remote objects are allowed,
    /// the URL prefixes a path may name.
    pub fn data_description(&self) -> String {
        let mut text = format!(
            "{DATA_DESCRIPTION} Formats (detected from the bytes; `format` forces one): {}.",
            self.plumb.registry().names().join(", ")
        );
        if self.allows_remote() {
            text.push_str(&format!(
                " A path (of data or read) may also be a URL under one of these prefixes, read by ranges without a download: {}.",
                self.allowed_remote.join(", ")
            ));
        }
        text
    }

    /// Whether a path may name a remote object (a URL under an allowed
    /// prefix): the tools then reach beyond the workspace.
    pub fn allows_remote(&self) -> bool {
        self.remote.is_some() && !self.allowed_remote.is_empty()
    }

    /// What a model is told when it connects: the tools, the ops, the
    /// formats this toolbox's registry reads, the containers and
    /// archives it opens, the remote prefixes it allows, and the size an
    /// answer keeps to. Made from the registry and the configuration, so
    /// it names exactly what this server does.
    pub fn instructions(&self) -> String {
        let ops: Vec<&str> = plumb::Op::ALL.iter().map(|op| op.as_str()).collect();
        let containers: Vec<&str> = plumb::Container::ALL.iter().map(|c| c.name()).collect();
        let mut text = format!(
            "plumb looks into data and text files of any size without loading them. \
             Use `data` (op {ops}) for data files and `read` for line intervals of any text file. \
             Formats, detected from the bytes: {formats}. Compressed files ({containers}) are read \
             decompressed, and a zip member is named with `member`. Paths are relative to the \
             workspace root. Every answer fits {cap} bytes of JSON, says whether it is exact, sampled \
             or cut, and a `hint` says how to continue a partial one.",
            ops = ops.join(" | "),
            formats = self.plumb.registry().names().join(", "),
            containers = containers.join(", "),
            cap = OBSERVATION_CAP_BYTES,
        );
        if self.allows_remote() {
            text.push_str(&format!(
                " A path may also be a URL under one of these prefixes, read by ranges: {}.",
                self.allowed_remote.join(", ")
            ));
        }
        text
    }

    /// The source a path names: a remote object when the opener takes
    /// it, else the file beneath the root, its bytes counted into
    /// `progress` as they are read.
    fn source(
        &self,
        path: &str,
        cancel: Option<CancelToken>,
        progress: Option<&CallProgress>,
    ) -> Result<Box<dyn Source>, Refusal> {
        if let Some(opened) = self
            .remote
            .as_ref()
            .and_then(|o| (o.0)(path, cancel.clone()))
        {
            return opened;
        }
        let mut file = FileSource::from_opened(self.workspace.resolve(path)?).with_cancel(cancel);
        if let Some(p) = progress {
            p.total.store(file.file().len(), Ordering::Relaxed);
            file = file.with_progress(p.read.clone());
        }
        Ok(Box::new(file))
    }

    /// Uses a session budget shared across calls.
    pub fn with_budget(mut self, budget: Budget) -> Toolbox {
        self.budget = budget;
        self
    }

    /// Uses a registry of your own (downstream readers).
    pub fn with_plumb(mut self, plumb: Plumb) -> Toolbox {
        self.plumb = plumb;
        self
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// One call: `{"tool": "data" | "read", "args": {...}}` (or the
    /// tool name and arguments apart). Always an observation: refusals
    /// are `{"ok": false, "error": "data: select refused (reason): ...",
    /// "refusal": {...}}`.
    pub fn call(&self, tool: &str, args: Value, cancel: Option<CancelToken>) -> Value {
        self.call_observed(tool, args, cancel, None)
    }

    /// [`Toolbox::call`], counting into `progress` the bytes the call
    /// reads of its file, and the file's size, as it runs (for progress
    /// notifications; a remote object is not counted).
    pub fn call_observed(
        &self,
        tool: &str,
        args: Value,
        cancel: Option<CancelToken>,
        progress: Option<&CallProgress>,
    ) -> Value {
        match tool.trim() {
            "data" => self.data_observed(args, cancel, progress),
            "read" => self.read_observed(args, cancel, progress),
            other => refusal_observation(
                other,
                "call",
                &Refusal::invalid_argument(format!(
                    "there is no tool `{other}`; the tools are data and read"
                )),
            ),
        }
    }

    /// A whole call message: `{"tool": ..., "args": ...}`.
    pub fn call_message(&self, message: Value, cancel: Option<CancelToken>) -> Value {
        let tool = message
            .get("tool")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let args = message
            .get("args")
            .or_else(|| message.get("arguments"))
            .cloned()
            .unwrap_or(Value::Null);
        self.call(&tool, args, cancel)
    }

    /// One call read from a stream (`plumb tool`'s stdin): at most
    /// [`TOOL_CALL_MAX_BYTES`] are read, and a longer call, a call that is
    /// not UTF-8 JSON, or a failed read is refused as an observation.
    pub fn call_reader(&self, reader: impl Read, cancel: Option<CancelToken>) -> Value {
        let mut input = Vec::new();
        let refused = |r: Refusal| refusal_observation("call", "call", &r);
        if let Err(e) = reader
            .take(TOOL_CALL_MAX_BYTES as u64 + 1)
            .read_to_end(&mut input)
        {
            return refused(Refusal::from_io(&e, Some("stdin")));
        }
        if input.len() > TOOL_CALL_MAX_BYTES {
            return refused(Refusal::invalid_argument(format!(
                "the call is longer than {TOOL_CALL_MAX_BYTES} bytes; send one call of {{\"tool\": ..., \"args\": {{...}}}} under that size"
            )));
        }
        match serde_json::from_slice::<Value>(&input) {
            Ok(message) => self.call_message(message, cancel),
            Err(e) => refused(Refusal::invalid_argument(format!(
                "the call is not JSON ({e}); send {{\"tool\": \"data\" | \"read\", \"args\": {{...}}}}"
            ))),
        }
    }

    /// The `data` tool.
    pub fn data(&self, args: Value, cancel: Option<CancelToken>) -> Value {
        self.data_observed(args, cancel, None)
    }

    fn data_observed(
        &self,
        args: Value,
        cancel: Option<CancelToken>,
        progress: Option<&CallProgress>,
    ) -> Value {
        let op_hint = args
            .get("op")
            .and_then(Value::as_str)
            .unwrap_or("call")
            .trim()
            .to_ascii_lowercase();
        if op_hint == "list" {
            return self.list(args);
        }
        let a = match data_args(args) {
            Ok(x) => x,
            Err(r) => return refusal_observation("data", &op_hint, &r),
        };
        let op = a.op;
        let reservation = match self.budget.reserve() {
            Ok(r) => r,
            Err(r) => return refusal_observation("data", op.as_str(), &r),
        };
        let cap = reservation.bytes();
        match self.run_data(&a, cancel, progress) {
            Err(r) => refusal_observation("data", op.as_str(), &r.with_path(a.path.clone())),
            Ok(answer) => {
                let format = answer.format();
                let view = answer.view();
                let window = answer.window();
                let next = answer.next_offset();
                // Only the JSON is needed from here: the typed answer is
                // written into a pipe and freed once written, while its
                // bounded tree is read from the other end.
                let windowed = a.columns != ColumnWindow::default();
                if a.detail == Detail::Columns && !TABLE_FORMATS.contains(&format) {
                    let r = Refusal::invalid_argument(format!(
                        "detail columns gives a table's columns one row each (csv, tsv, parquet, sheets); a {format} inspect describes keys and paths: ask for brief or full"
                    ));
                    return refusal_observation("data", op.as_str(), &r);
                }
                if windowed && !TABLE_FORMATS.contains(&format) {
                    let r = Refusal::invalid_argument(format!(
                        "column_offset and column_limit window the columns of a table's inspect (csv, tsv, parquet, sheets); a {format} inspect describes keys and paths, whole"
                    ));
                    return refusal_observation("data", op.as_str(), &r);
                }
                let bounds = TreeBounds {
                    column_offset: a.columns.offset,
                    // Each column shrinks to a short row afterwards: its
                    // list may be read far past what a list keeps whole.
                    list_bytes: if a.detail == Detail::Columns {
                        COLUMNS_FORM_LIST_BYTES
                    } else {
                        TreeBounds::OBSERVATION.list_bytes
                    },
                    ..TreeBounds::OBSERVATION
                };
                let mut bounded = match answer_tree(answer, bounds) {
                    Ok(b) => b,
                    Err(message) => {
                        let r = Refusal::new(RefusalReason::ReadError, message);
                        return refusal_observation("data", op.as_str(), &r);
                    }
                };
                // An inspect is shaped for the agent: brief unless asked
                // in full, and its columns from the window's start.
                let mut columns = None;
                let brief_hint = (op == plumb::Op::Inspect && format == "dataset")
                    .then(|| crate::shape::dataset_brief(&mut bounded.value, a.detail))
                    .flatten();
                if op == plumb::Op::Inspect && format != "dataset" {
                    match a.detail {
                        Detail::Brief => crate::shape::brief(&mut bounded.value),
                        Detail::Columns => crate::shape::columns_only(&mut bounded.value),
                        Detail::Full => {}
                    }
                    if let Some(total) = bounded.columns_total {
                        let limit = ColumnWindow {
                            offset: 0,
                            limit: a.columns.limit,
                        };
                        let returned = window_columns(&mut bounded.value, limit)
                            .map_or(0, |shown| shown.returned);
                        columns = Some((a.columns.offset as u64, returned as u64, total));
                    }
                }
                let mut envelope = json!({
                    "ok": true,
                    "tool": "data",
                    "details": {
                        "op": op.as_str(),
                        "path": echo(&a.path),
                        "format": format,
                        "view": view,
                        "view_label": view.label(),
                    },
                });
                if !a.repaired.is_empty() {
                    envelope["details"]["repaired"] = json!(a.repaired);
                }
                if op == plumb::Op::Inspect {
                    envelope["details"]["detail"] = Value::from(a.detail.as_str());
                }
                if let Some((offset, returned, total)) = columns {
                    envelope["details"]["columns"] =
                        json!({"offset": offset, "returned": returned, "total": total});
                }
                if let Some(w) = window {
                    envelope["counts"] = json!({
                        "returned": w.returned, "offset": w.offset, "limit": w.limit, "has_more": w.has_more,
                    });
                    let budget = a.request.scan.max_scan_bytes.filter(|_| view.sampled);
                    if let Some(next) = next.filter(|_| w.has_more) {
                        envelope["hint"] = Value::from(
                            if let (plumb::Op::Search, Some(b)) = (op, budget) {
                                format!(
                                "the scan stopped at its budget, max_scan_bytes={b} (bytes of text counted from the start of the file; of values decoded, for Parquet), before the end; hits may follow: search again with offset={next} and a larger max_scan_bytes"
                            )
                            } else if op == plumb::Op::Search {
                                format!(
                                "more hits follow; search again with the same arguments and offset={next}"
                            )
                            } else {
                                format!("more follows; continue with offset={next}")
                            },
                        );
                    }
                }
                // A window counted from the end has no offset from the
                // start: it goes on by a smaller negative one.
                if let (None, Some(n), Some(true)) = (
                    window,
                    bounded.value["from_end"].as_u64(),
                    bounded.value["has_more"].as_bool(),
                ) {
                    let returned = bounded.value["returned"].as_u64().unwrap_or(0);
                    let left = n.saturating_sub(returned);
                    if left > 0 {
                        envelope["hint"] =
                            Value::from(format!("more follows; continue with offset=-{left}"));
                    }
                }
                if let (None, Some(b), true) = (
                    window,
                    a.request.scan.max_scan_bytes,
                    view.sampled && a.request.scan.max_rows.is_none(),
                ) {
                    envelope["hint"] = Value::from(format!(
                        "the scan stopped at its budget, max_scan_bytes={b} (bytes of text; of values decoded, for Parquet), before the end: counts are lower bounds; call again with a larger max_scan_bytes to read further"
                    ));
                }
                if let Some(files) = brief_hint {
                    let base = envelope["hint"].as_str().map(str::to_owned);
                    envelope["hint"] = Value::from(join_hint(base.as_deref(), Some(&files)));
                }
                // The columns' hint is written after the fit (which may cut
                // the columns); its longest form holds its room before.
                let base_hint = envelope["hint"].as_str().map(str::to_owned);
                if let Some((offset, _, total)) = columns {
                    let longest = columns_text(offset, total, total);
                    envelope["hint"] = Value::from(join_hint(base_hint.as_deref(), Some(&longest)));
                }
                envelope["result"] = bounded.value;
                if fit_noted(&mut envelope, cap, bounded.trimmed) || bounded.cut {
                    let cut = view.with_cut(true);
                    envelope["details"]["view"] = json!(cut);
                    envelope["details"]["view_label"] = Value::from(cut.label());
                }
                if let Some((offset, returned, total)) = columns {
                    let returned = columns_kept(&envelope, returned);
                    envelope["details"]["columns"]["returned"] = Value::from(returned);
                    let more = (offset + returned < total && returned > 0)
                        .then(|| columns_text(offset, returned, total));
                    match join_hint(base_hint.as_deref(), more.as_deref()) {
                        h if h.is_empty() => {
                            if let Some(m) = envelope.as_object_mut() {
                                m.remove("hint");
                            }
                        }
                        h => envelope["hint"] = Value::from(h),
                    }
                }
                reservation.settle(json_len(&envelope));
                envelope
            }
        }
    }

    /// `op: "list"`: a folder's entries, each with its kind, size and
    /// detected format, a page at a time (see [`crate::listing`]).
    fn list(&self, args: Value) -> Value {
        let refused = |r: &Refusal| refusal_observation("data", "list", r);
        let a = match list_args(args) {
            Ok(a) => a,
            Err(r) => return refused(&r),
        };
        let reservation = match self.budget.reserve() {
            Ok(r) => r,
            Err(r) => return refused(&r),
        };
        let cap = reservation.bytes();
        let folder = match self.workspace.list_folder(&a.path) {
            Ok(f) => f,
            Err(r) => return refused(&r.with_path(echo(&a.path))),
        };
        let total = folder.entries.len() as u64;
        let view = if folder.complete {
            plumb_core::ViewFlags::exact()
        } else {
            plumb_core::ViewFlags::of_scan(true)
        };
        let mut envelope = json!({
            "ok": true,
            "tool": "data",
            "details": {
                "op": "list",
                "path": echo(&a.path),
                "format": "folder",
                "view": view,
                "view_label": view.label(),
            },
            "result": {
                "path": folder.path,
                "entries": [],
                "total": total,
                "hidden": folder.hidden,
                "complete": folder.complete,
            },
        });
        // Entries are described one at a time, each opened and judged,
        // until the page is full or the next would pass the cap.
        let room = cap.saturating_sub(LIST_ENVELOPE_MARGIN);
        let mut used = json_len(&envelope);
        let mut returned = 0u64;
        for e in folder.entries.iter().skip(a.offset as usize).take(a.limit) {
            let described = self.describe(e);
            let cost = json_len(&described) + 1;
            if used + cost > room && returned > 0 {
                break;
            }
            used += cost;
            returned += 1;
            if let Some(list) = envelope["result"]["entries"].as_array_mut() {
                list.push(described);
            }
        }
        let next = a.offset + returned;
        let has_more = next < total;
        envelope["counts"] = json!({
            "returned": returned, "offset": a.offset, "limit": a.limit, "has_more": has_more,
        });
        if has_more {
            envelope["hint"] = Value::from(format!(
                "more entries follow; list again with the same path and offset={next}"
            ));
        }
        reservation.settle(json_len(&envelope));
        envelope
    }

    /// One entry as a listing shows it: a file (or what a symlink leads
    /// to) opened beneath the root, with its size and the format its
    /// bytes are detected as (`text` for text no data reader takes,
    /// null for other bytes); or the refusal that opening it meets.
    pub(crate) fn describe(&self, e: &Entry) -> Value {
        let mut v = json!({"name": e.name, "path": e.path, "kind": e.kind});
        if !matches!(e.kind, EntryKind::File | EntryKind::Symlink) {
            return v;
        }
        match self.workspace.resolve(&e.path) {
            Ok(opened) => {
                let source = FileSource::from_opened(opened);
                v["size"] = json!(source.len());
                let (format, container) = self.sniff(&source);
                v["format"] = json!(format);
                if let Some(c) = container {
                    v["container"] = Value::from(c);
                }
            }
            Err(r) => {
                v["refused"] = json!({"reason": r.reason(), "message": r.message()});
            }
        }
        v
    }

    /// A `read` of a binary file that a data reader takes (Parquet, a
    /// workbook) is pointed at the `data` tool, which reads it.
    fn data_format_remedy(&self, r: Refusal, source: &dyn Source) -> Refusal {
        if r.reason() != RefusalReason::Binary {
            return r;
        }
        match self.sniff(source) {
            (Some(format), _) if format != "text" => {
                let mut turned = Refusal::new(
                    RefusalReason::Binary,
                    format!(
                        "this is a {format} file, not text: `read` takes text by lines; look into it with the `data` tool (op inspect, select, validate or search)"
                    ),
                )
                .with_extra("format", Value::from(format));
                if let Some(at) = r.byte_offset() {
                    turned = turned.with_byte_offset(at);
                }
                turned
            }
            _ => r,
        }
    }

    /// The format `source`'s bytes are detected as, and the container it
    /// was read through.
    pub(crate) fn sniff(
        &self,
        source: &dyn Source,
    ) -> (Option<&'static str>, Option<&'static str>) {
        match self.plumb.detect_source(source, None) {
            Ok(d) => (Some(d.reader.name()), d.container),
            Err(_) => {
                let mut head = [0u8; 4096];
                let n = match source.read_at(0, &mut head) {
                    Some(Ok(n)) => n,
                    _ => return (None, None),
                };
                (utf8_prefix(&head[..n]).then_some("text"), None)
            }
        }
    }

    /// Opens the file once (the handle judged beneath the root), arms
    /// the cancel token on it, and lets the dispatcher detect and run.
    fn run_data(
        &self,
        a: &DataArgs,
        cancel: Option<CancelToken>,
        progress: Option<&CallProgress>,
    ) -> Result<Box<dyn plumb::Answer>, Refusal> {
        if let Some(data) = crate::datasets::dataset(&self.workspace, &a.path, &a.listing)? {
            let op = plumb::dataset::DatasetOp::of(a.op, &data)?;
            let cx = plumb::dataset::OpenContext {
                cancel,
                progress: None,
            };
            let answer = data.run_with(&self.plumb, op, a.format.as_deref(), &a.request, &cx)?;
            return Ok(Box::new(answer));
        }
        let source = self.source(&a.path, cancel, progress)?;
        self.plumb
            .run_source(a.op, source.as_ref(), a.format.as_deref(), &a.request)
    }

    /// The `read` tool.
    pub fn read(&self, args: Value, cancel: Option<CancelToken>) -> Value {
        self.read_observed(args, cancel, None)
    }

    fn read_observed(
        &self,
        args: Value,
        cancel: Option<CancelToken>,
        progress: Option<&CallProgress>,
    ) -> Value {
        let a: ReadArgs = match read_args(args) {
            Ok(a) => a,
            Err(r) => return refusal_observation("read", "read", &r),
        };
        let reservation = match self.budget.reserve() {
            Ok(r) => r,
            Err(r) => return refusal_observation("read", "read", &r),
        };
        let cap = reservation.bytes();
        let source = match self.source(&a.path, cancel, progress) {
            Ok(s) => s,
            Err(r) => return refusal_observation("read", "read", &r),
        };
        let encoding = match a.encoding.as_deref().map(plumb::TextEncoding::for_label) {
            Some(Err(r)) => return refusal_observation("read", "read", &r),
            Some(Ok(e)) => e,
            None => None,
        };
        let mut req = ReadRequest {
            offset: a.offset.unwrap_or(0),
            limit: a.limit,
            encoding,
            member: a.member.clone(),
            ..ReadRequest::default()
        };
        // JSON escaping can make text longer; read less until it fits,
        // so next_offset stays the truth.
        loop {
            let answer = match read_source(source.as_ref(), &req) {
                Ok(ans) => ans,
                Err(r) => {
                    let r = self.data_format_remedy(r, source.as_ref());
                    return refusal_observation("read", "read", &r.with_path(a.path.clone()));
                }
            };
            let mut result = serde_json::to_value(&answer).unwrap_or(Value::Null);
            result["path"] = Value::from(echo(&a.path));
            let mut envelope = json!({"ok": true, "tool": "read", "details": {"op": "read", "path": echo(&a.path)}});
            if let Some(next) = answer.next_offset {
                envelope["hint"] =
                    Value::from(format!("more follows; continue with offset={next}"));
            }
            envelope["result"] = result;
            if json_len(&envelope) <= cap || req.max_bytes <= 256 {
                reservation.settle(json_len(&envelope));
                return envelope;
            }
            req.max_bytes /= 2;
        }
    }

    /// The JSON Schema of what `tool` answers (an observation: the
    /// envelope, and per op the answers of this toolbox's readers as the
    /// envelope may shape them; see [`crate::output_schema`]); `null`
    /// for a name that is no tool.
    pub fn output_schema(&self, tool: &str) -> Value {
        crate::output_schema(&self.plumb, tool).unwrap_or(Value::Null)
    }

    /// The JSON Schema of both tools' arguments (`data`'s made from the
    /// option declarations of this toolbox's readers) and of their
    /// answers.
    pub fn schema(&self) -> Value {
        json!({
            "data": {
                "description": self.data_description(),
                "input_schema": data_schema(self.plumb.registry()),
                "output_schema": self.output_schema("data"),
            },
            "read": {
                "description": READ_DESCRIPTION,
                "input_schema": crate::args::read_schema(),
                "output_schema": self.output_schema("read"),
            },
            "observation_cap_bytes": OBSERVATION_CAP_BYTES,
        })
    }
}
