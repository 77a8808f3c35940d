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
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};

use plumb_core::CancelToken;

use crate::args::{DataArgs, ReadArgs};
use crate::surface::{Toolbox, DATA_DESCRIPTION, READ_DESCRIPTION, TOOL_NAMES};

/// The server: a toolbox behind the MCP handler.
#[derive(Debug, Clone)]
pub struct McpServer {
    toolbox: Arc<Toolbox>,
}

fn object(v: Value) -> Arc<Map<String, Value>> {
    Arc::new(match v {
        Value::Object(m) => m,
        _ => Map::new(),
    })
}

/// The output schema: every observation is an object with `ok`.
fn output_schema() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "properties": {
            "ok": {"type": "boolean", "description": "true for an answer, false for a refusal"},
            "tool": {"type": "string"},
            "details": {"type": "object", "description": "op, path, format, view {exact, sampled, converted}, view_label (exact | sampled | cut)"},
            "counts": {"type": "object", "description": "returned, offset, limit, has_more (windowed answers)"},
            "hint": {"type": "string", "description": "how to continue"},
            "result": {"type": "object", "description": "the answer; see docs/cli.md for its shape per format and op"},
            "error": {"type": "string", "description": "data: {op} refused ({reason}): {message}"},
            "refusal": {"type": "object", "description": "{ok: false, reason, message, location fields}"}
        },
        "required": ["ok"]
    }))
}

impl McpServer {
    /// A server over a toolbox.
    pub fn new(toolbox: Toolbox) -> McpServer {
        McpServer {
            toolbox: Arc::new(toolbox),
        }
    }

    /// The tools, with input schemas generated from the argument types.
    pub fn tools() -> Vec<Tool> {
        let annotations = ToolAnnotations::new().read_only(true).destructive(false);
        vec![
            Tool::new(
                "data",
                DATA_DESCRIPTION,
                object(
                    serde_json::to_value(schemars::schema_for!(DataArgs)).unwrap_or(Value::Null),
                ),
            )
            .with_raw_output_schema(output_schema())
            .with_annotations(annotations.clone()),
            Tool::new(
                "read",
                READ_DESCRIPTION,
                object(
                    serde_json::to_value(schemars::schema_for!(ReadArgs)).unwrap_or(Value::Null),
                ),
            )
            .with_raw_output_schema(output_schema())
            .with_annotations(annotations),
        ]
    }

    /// Serves MCP on stdin/stdout until the client goes away.
    ///
    /// # Errors
    /// When the transport fails to start or the service task panics.
    pub async fn serve_stdio(self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let service = self.serve(rmcp::transport::stdio()).await?;
        service.waiting().await?;
        Ok(())
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("plumb", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "plumb looks into data and text files of any size without loading them. \
                 Use `data` (op inspect | select | validate) for CSV, TSV, JSON and JSON Lines, \
                 and `read` for line intervals of any text file. Paths are relative to the workspace root.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(McpServer::tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        McpServer::tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !TOOL_NAMES.contains(&name.as_str()) {
            return Err(ErrorData::invalid_params(
                format!("there is no tool `{name}`; the tools are data and read"),
                None,
            ));
        }
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let token = CancelToken::new();
        let scan_token = token.clone();
        let toolbox = self.toolbox.clone();
        let mut task =
            tokio::task::spawn_blocking(move || toolbox.call(&name, args, Some(scan_token)));
        let observation = tokio::select! {
            done = &mut task => done,
            () = context.ct.cancelled() => {
                token.cancel();
                task.await
            }
        }
        .map_err(|e| ErrorData::internal_error(format!("the scan task failed: {e}"), None))?;
        let result = if observation["ok"] == Value::Bool(true) {
            CallToolResult::structured(observation)
        } else {
            CallToolResult::structured_error(observation)
        };
        Ok(result.into())
    }
}
