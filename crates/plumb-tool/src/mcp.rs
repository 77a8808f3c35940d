//! The Model Context Protocol server: tools `data` and `read` over stdio,
//! built on the official Rust SDK (`rmcp`).
//!
//! Scans run on tokio's blocking pool, never on the async runtime; an MCP
//! cancellation (`notifications/cancelled`) fires the scan's cancel token,
//! so it stops at its next chunk and answers `aborted`. A refusal is a
//! tool result with `isError: true` whose structured content is the typed
//! refusal. Nothing but protocol messages goes to stdout.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};

use plumb_core::CancelToken;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::gate::{Gate, LineGate, MCP_MAX_LINE_BYTES};

use crate::args::read_schema;
use crate::surface::{CallProgress, Toolbox, READ_DESCRIPTION, TOOL_NAMES};

/// The `data` tool's title, for a host's list of tools.
pub const DATA_TITLE: &str = "Look into a data file: inspect, select, validate, search";

/// The `read` tool's title.
pub const READ_TITLE: &str = "Read lines of a text file";

/// The server: a toolbox behind the MCP handler.
#[derive(Debug, Clone)]
pub struct McpServer {
    toolbox: Arc<Toolbox>,
    scans: Arc<Semaphore>,
}

/// The most scans one MCP server runs at once. Each scan's memory is
/// bounded by the caps, so this bounds the server's: further calls wait
/// for a slot (and can be cancelled while they wait).
pub const MAX_CONCURRENT_SCANS: usize = 2;

fn object(v: Value) -> Arc<Map<String, Value>> {
    Arc::new(match v {
        Value::Object(m) => m,
        _ => Map::new(),
    })
}

impl McpServer {
    /// A server over a toolbox.
    pub fn new(toolbox: Toolbox) -> McpServer {
        McpServer {
            toolbox: Arc::new(toolbox),
            scans: Arc::new(Semaphore::new(MAX_CONCURRENT_SCANS)),
        }
    }

    /// The tools, with input schemas generated from the argument types
    /// and, for `data`, from the option declarations of the readers, in
    /// the strict form every host accepts ([`crate::strict_schema`]).
    /// Every annotation is set: both tools only read, the same call
    /// gives the same answer, and they reach beyond the workspace only
    /// when remote prefixes are allowed.
    pub fn tools(&self) -> Vec<Tool> {
        let annotations = |title: &str| {
            ToolAnnotations::with_title(title)
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(self.toolbox.allows_remote())
        };
        vec![
            Tool::new(
                "data",
                self.toolbox.data_description(),
                object(self.toolbox.schema()["data"]["input_schema"].take()),
            )
            .with_title(DATA_TITLE)
            .with_raw_output_schema(object(self.toolbox.output_schema("data")))
            .with_annotations(annotations(DATA_TITLE)),
            Tool::new("read", READ_DESCRIPTION, object(read_schema()))
                .with_title(READ_TITLE)
                .with_raw_output_schema(object(self.toolbox.output_schema("read")))
                .with_annotations(annotations(READ_TITLE)),
        ]
    }

    /// Serves MCP on stdin/stdout until the client goes away.
    ///
    /// # Errors
    /// When the transport fails to start or the service task panics.
    pub async fn serve_stdio(self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves MCP over any byte streams, behind the line gate: every line
    /// is judged ([`crate::LineGate`]) before the SDK sees it, malformed
    /// lines are answered here, and the session ends when `input` ends or
    /// `output` can no longer be written.
    ///
    /// # Errors
    /// When the service fails to start.
    pub async fn serve_io<R, W>(
        self,
        input: R,
        output: W,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (from_sdk, mut to_sdk) = tokio::io::split(ours);
        let (lines_tx, mut lines_rx) = mpsc::channel::<Vec<u8>>(64);
        let closed = CancellationToken::new();

        // One writer owns the output, so replies never interleave; a
        // failed write ends the session.
        let writer_closed = closed.clone();
        let writer = tokio::spawn(async move {
            let mut output = output;
            while let Some(line) = lines_rx.recv().await {
                let wrote = async {
                    output.write_all(&line).await?;
                    output.flush().await
                };
                if wrote.await.is_err() {
                    break;
                }
            }
            writer_closed.cancel();
        });

        // Requests handed to the SDK and not answered yet, by id: when the
        // client closes its input, these are still answered (for at most
        // DRAIN_WAIT) before the SDK is told the input ended.
        let pending = Arc::new(Pending::default());

        // The SDK's messages, line by line, to the writer.
        let sdk_tx = lines_tx.clone();
        let answered = pending.clone();
        let sdk_reader = tokio::spawn(async move {
            let mut reader = BufReader::new(from_sdk);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        answered.settle(&line);
                        if sdk_tx.send(line).await.is_err() {
                            break;
                        }
                    }
                }
            }
        });

        // The client's lines, judged, to the SDK or answered here.
        let reader_closed = closed.clone();
        let forwarded = pending.clone();
        let pump = tokio::spawn(async move {
            let mut input = BufReader::with_capacity(1 << 16, input);
            let mut gate = LineGate::new();
            loop {
                let line = match read_capped_line(&mut input, MCP_MAX_LINE_BYTES).await {
                    Ok(Some(l)) => l,
                    Ok(None) | Err(_) => break,
                };
                let reply = match line {
                    Line::Whole(bytes) => match gate.judge(&bytes) {
                        Gate::Forward(request) => {
                            match request {
                                Some(id) => forwarded.expect(id),
                                // A cancelled request gets no answer: it
                                // is no longer waited for.
                                None => {
                                    if let Some(id) = cancelled_request(&bytes) {
                                        forwarded.forget(&id);
                                    }
                                }
                            }
                            let mut bytes = bytes;
                            bytes.push(b'\n');
                            if to_sdk.write_all(&bytes).await.is_err() {
                                break;
                            }
                            continue;
                        }
                        Gate::Reply(v) => v,
                    },
                    Line::TooLong(prefix) => gate.too_long(&prefix),
                };
                let mut text = reply.to_string().into_bytes();
                text.push(b'\n');
                if lines_tx.send(text).await.is_err() {
                    break;
                }
            }
            // The client is done: answer what it asked, then the SDK sees
            // the end of its input.
            let _ = tokio::time::timeout(DRAIN_WAIT, forwarded.drained()).await;
            let _ = to_sdk.shutdown().await;
            reader_closed.cancel();
        });

        let service = self.serve(tokio::io::split(theirs)).await;
        let outcome = match service {
            Ok(service) => {
                let stop = service.cancellation_token();
                tokio::select! {
                    done = service.waiting() => done.map(|_| ()).map_err(|e| e.into()),
                    () = closed.cancelled() => {
                        stop.cancel();
                        Ok(())
                    }
                }
            }
            // The client left before initializing: not a failure.
            Err(_) if closed.is_cancelled() => Ok(()),
            Err(e) => Err(e.into()),
        };
        pump.abort();
        sdk_reader.abort();
        // Let the writer deliver what was already answered.
        let _ = tokio::time::timeout(std::time::Duration::from_millis(500), writer).await;
        outcome
    }
}

/// The largest observation a tool result also carries whole as text;
/// a larger one is summed up there (its scalar members, and where the
/// whole is), so a reply is not the observation twice over.
pub const MCP_TEXT_WHOLE_BYTES: usize = 4 << 10;

/// The longest string or member a summary keeps.
const SUMMARY_MEMBER_BYTES: usize = 200;

/// The text block of a tool result: the observation as JSON when it is
/// at most [`MCP_TEXT_WHOLE_BYTES`], else a summary of it.
fn text_of(observation: &Value) -> String {
    let whole = observation.to_string();
    if whole.len() <= MCP_TEXT_WHOLE_BYTES {
        return whole;
    }
    let small = |v: &Value| match v {
        Value::Null | Value::Bool(_) | Value::Number(_) => true,
        Value::String(s) => s.len() <= SUMMARY_MEMBER_BYTES,
        Value::Object(_) => v.to_string().len() <= SUMMARY_MEMBER_BYTES,
        Value::Array(_) => false,
    };
    let pick = |m: &Map<String, Value>| -> Map<String, Value> {
        m.iter()
            .filter(|(_, v)| small(v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let mut out = observation.as_object().map(pick).unwrap_or_default();
    for (k, v) in observation.as_object().into_iter().flatten() {
        if let Some(inner) = v.as_object() {
            if !small(v) {
                out.insert(k.clone(), Value::Object(pick(inner)));
            }
        }
    }
    out.insert(
        "summary".to_owned(),
        Value::String(format!(
            "this text sums the answer up; the whole answer ({} bytes of JSON) is the result's structuredContent",
            whole.len()
        )),
    );
    Value::Object(out).to_string()
}

/// How long a server whose input ended still waits for the answers to
/// requests it already took.
pub const DRAIN_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// The ids of requests forwarded to the SDK and not yet answered.
#[derive(Default)]
struct Pending {
    ids: std::sync::Mutex<std::collections::HashSet<String>>,
    changed: tokio::sync::Notify,
}

impl Pending {
    /// A request forwarded with this id (JSON text) awaits an answer.
    fn expect(&self, id: String) {
        self.lock().insert(id);
    }

    /// A request the client cancelled: the server answers it no more.
    fn forget(&self, id: &str) {
        if self.lock().remove(id) {
            self.changed.notify_waiters();
        }
    }

    /// An SDK line: a response settles its request.
    fn settle(&self, line: &[u8]) {
        // Only while requests wait is an SDK line worth parsing.
        if self.lock().is_empty() {
            return;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        if v.get("method").is_none() {
            if let Some(id) = v.get("id").filter(|id| !id.is_null()) {
                self.lock().remove(&id.to_string());
                self.changed.notify_waiters();
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.ids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    async fn drained(&self) {
        loop {
            let notified = self.changed.notified();
            if self.lock().is_empty() {
                return;
            }
            notified.await;
        }
    }
}

/// The id (as JSON text, as [`Pending`] keys it) of the request a
/// `notifications/cancelled` line names, if the line is one.
fn cancelled_request(line: &[u8]) -> Option<String> {
    memchr::memmem::find(line, b"notifications/cancelled")?;
    let v: Value = serde_json::from_slice(line).ok()?;
    if v.get("method")?.as_str()? != "notifications/cancelled" {
        return None;
    }
    let id = v.get("params")?.get("requestId")?;
    (!id.is_null()).then(|| id.to_string())
}

/// A line read under the size cap.
enum Line {
    /// The line, without its newline.
    Whole(Vec<u8>),
    /// The first bytes of a line that passed the cap (the rest skipped).
    TooLong(Vec<u8>),
}

/// Reads one line of at most `cap` bytes; a longer line is skipped to
/// its newline and only its first `cap` bytes kept. `None` at the end.
async fn read_capped_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    cap: usize,
) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut over = false;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            if line.is_empty() && !over {
                return Ok(None);
            }
            break;
        }
        let (take, done) = match memchr::memchr(b'\n', buf) {
            Some(p) => (p, true),
            None => (buf.len(), false),
        };
        if !over {
            let room = cap - line.len();
            if take > room {
                line.extend_from_slice(&buf[..room]);
                over = true;
            } else {
                line.extend_from_slice(&buf[..take]);
            }
        }
        input.consume(take + usize::from(done));
        if done {
            break;
        }
    }
    Ok(Some(if over {
        Line::TooLong(line)
    } else {
        Line::Whole(line)
    }))
}

/// The least time between two progress notifications of one call.
pub const PROGRESS_INTERVAL: std::time::Duration = std::time::Duration::from_millis(200);

/// Tells the client, until aborted, how many bytes of its file the call
/// has read of how many: at most once a [`PROGRESS_INTERVAL`], only when
/// the count grew (MCP asks that progress increase), never past the
/// total.
async fn report_progress(peer: Peer<RoleServer>, token: ProgressToken, progress: CallProgress) {
    let mut told = 0u64;
    let mut ticks = tokio::time::interval(PROGRESS_INTERVAL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let total = progress.total.load(std::sync::atomic::Ordering::Relaxed);
        let mut read = progress.read.load(std::sync::atomic::Ordering::Relaxed);
        if total > 0 {
            read = read.min(total);
        }
        if read <= told {
            continue;
        }
        told = read;
        let mut note = ProgressNotificationParam::new(token.clone(), read as f64)
            .with_message(format!("{read} bytes read"));
        if total > 0 {
            note = note.with_total(total as f64);
        }
        if peer.notify_progress(note).await.is_err() {
            return;
        }
    }
}

/// The resources a `resources/list` page holds.
pub const RESOURCES_PAGE: usize = 100;

/// The URI of a resource: what `op` (`inspect` or `read`) answers about
/// the file at `path` (from the root; encoded as RFC 3986 asks, its `/`s
/// kept, as the template's `{+path}` expands).
pub fn resource_uri(op: &str, path: &str) -> String {
    const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'/')
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    format!(
        "plumb://{op}/{}",
        percent_encoding::utf8_percent_encode(path, KEEP)
    )
}

/// The op and path a resource URI names, or why it names none.
fn parse_resource_uri(uri: &str) -> Result<(&'static str, String), ErrorData> {
    let bad = || {
        ErrorData::invalid_params(
            format!(
                "`{}` is not a resource of this server; its resources are plumb://inspect/{{path}} and plumb://read/{{path}}",
                plumb_core::echo(uri)
            ),
            None,
        )
    };
    let rest = uri.strip_prefix("plumb://").ok_or_else(bad)?;
    let (op, path) = rest.split_once('/').ok_or_else(bad)?;
    let op = match op {
        "inspect" => "inspect",
        "read" => "read",
        _ => return Err(bad()),
    };
    let path = percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .map_err(|_| bad())?
        .into_owned();
    Ok((op, path))
}

/// The media type of a detected format, for a resource listing.
fn mime_of(format: Option<&str>) -> Option<&'static str> {
    Some(match format? {
        "csv" => "text/csv",
        "tsv" => "text/tab-separated-values",
        "json" => "application/json",
        "jsonl" => "application/jsonl",
        "parquet" => "application/vnd.apache.parquet",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "xlsb" => "application/vnd.ms-excel.sheet.binary.macroEnabled.12",
        "xls" => "application/vnd.ms-excel",
        "ods" => "application/vnd.oasis.opendocument.spreadsheet",
        "text" => "text/plain",
        _ => return None,
    })
}

impl McpServer {
    /// One page of the workspace's files as resources, from `offset`,
    /// and the offset of the next page.
    fn resource_page(&self, offset: usize) -> (Vec<Resource>, Option<usize>) {
        let (files, _complete) = self.toolbox.workspace().walk_files();
        let mut page = Vec::new();
        for e in files.iter().skip(offset).take(RESOURCES_PAGE) {
            let v = self.toolbox.describe(e);
            if v.get("refused").is_some() {
                continue;
            }
            let format = v["format"].as_str();
            let size = v["size"].as_u64().unwrap_or(0);
            let mut about = format!("{}, {size} bytes", format.unwrap_or("binary"));
            if let Some(c) = v["container"].as_str() {
                about.push_str(&format!(", {c}-compressed"));
            }
            about.push_str("; reading it gives its inspect answer as JSON");
            let mut r = Resource::new(resource_uri("inspect", &e.path), e.path.clone())
                .with_description(about)
                .with_size(size);
            if let Some(m) = mime_of(format) {
                r = r.with_mime_type(m);
            }
            page.push(r);
        }
        let next = offset + RESOURCES_PAGE;
        (page, (next < files.len()).then_some(next))
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("plumb", env!("CARGO_PKG_VERSION")))
        .with_instructions(self.toolbox.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let offset = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(c) => c.parse::<usize>().map_err(|_| {
                ErrorData::invalid_params(
                    format!(
                        "`{}` is not a cursor this server gave",
                        plumb_core::echo(&c)
                    ),
                    None,
                )
            })?,
        };
        let server = self.clone();
        let (page, next) = tokio::task::spawn_blocking(move || server.resource_page(offset))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the listing failed: {e}"), None))?;
        let mut result = ListResourcesResult::with_all_items(page);
        result.next_cursor = next.map(|n| n.to_string());
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let templates = vec![
            ResourceTemplate::new("plumb://inspect/{+path}", "inspect")
                .with_title("Inspect a data file")
                .with_description(
                    "What is in the file at path (from the workspace root): the data tool's inspect answer, as JSON",
                )
                .with_mime_type("application/json")
                ,
            ResourceTemplate::new("plumb://read/{+path}", "read")
                .with_title("Read the first lines of a text file")
                .with_description(
                    "The first lines of the text file at path: the read tool's answer, as JSON (use the read tool for other lines)",
                )
                .with_mime_type("application/json")
                ,
        ];
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.clone();
        let (op, path) = parse_resource_uri(&uri)?;
        let toolbox = self.toolbox.clone();
        let permit =
            self.scans.clone().acquire_owned().await.map_err(|e| {
                ErrorData::internal_error(format!("the scan slots closed: {e}"), None)
            })?;
        let observation = tokio::task::spawn_blocking(move || {
            let answer = if op == "read" {
                toolbox.call("read", json!({"path": path}), None)
            } else {
                toolbox.call("data", json!({"op": "inspect", "path": path}), None)
            };
            drop(permit);
            answer
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("the scan task failed: {e}"), None))?;
        if observation["ok"] != Value::Bool(true) {
            let message = observation["error"]
                .as_str()
                .unwrap_or("refused")
                .to_owned();
            return Err(if observation["refusal"]["reason"] == "not-found" {
                ErrorData::resource_not_found(message, Some(observation))
            } else {
                ErrorData::invalid_params(message, Some(observation))
            });
        }
        let contents = ResourceContents::TextResourceContents {
            uri,
            mime_type: Some("application/json".to_owned()),
            text: observation.to_string(),
            meta: None,
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !TOOL_NAMES.contains(&name.as_str()) {
            return Err(ErrorData::invalid_params(
                format!(
                    "there is no tool `{}`; the tools are data and read",
                    plumb_core::echo(&name)
                ),
                None,
            ));
        }
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        // Wait for a scan slot; a cancellation while waiting ends the call.
        let permit = tokio::select! {
            permit = self.scans.clone().acquire_owned() => permit
                .map_err(|e| ErrorData::internal_error(format!("the scan slots closed: {e}"), None))?,
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error("the call was cancelled before it started", None));
            }
        };
        let token = CancelToken::new();
        let scan_token = token.clone();
        let toolbox = self.toolbox.clone();
        let progress = CallProgress::default();
        let counted = progress.clone();
        let mut task = tokio::task::spawn_blocking(move || {
            let answer = toolbox.call_observed(&name, args, Some(scan_token), Some(&counted));
            drop(permit);
            answer
        });
        // Progress is told only to a caller that asked (a progressToken),
        // at most once a PROGRESS_INTERVAL and only when it moved.
        let reporter = context.meta.get_progress_token().map(|t| {
            let peer = context.peer.clone();
            tokio::spawn(report_progress(peer, t, progress))
        });
        let observation = tokio::select! {
            done = &mut task => done,
            () = context.ct.cancelled() => {
                token.cancel();
                task.await
            }
        };
        if let Some(r) = reporter {
            r.abort();
        }
        let observation = observation
            .map_err(|e| ErrorData::internal_error(format!("the scan task failed: {e}"), None))?;
        let mut result = if observation["ok"] == Value::Bool(true) {
            CallToolResult::structured(observation)
        } else {
            CallToolResult::structured_error(observation)
        };
        // The observation travels whole once, as structured content; the
        // text beside it is the whole only when small.
        if let Some(whole) = &result.structured_content {
            result.content = vec![rmcp::model::ContentBlock::text(text_of(whole))];
        }
        Ok(result.into())
    }
}
