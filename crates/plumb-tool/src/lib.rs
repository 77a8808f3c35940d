//! plumb's agent surface: the `data` and `read` tools, JSON in and JSON
//! out, for AI agents.
//!
//! ```
//! use plumb_tool::{Toolbox, Workspace};
//! use serde_json::json;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("people.csv"), "id,name\n1,ann\n2,bob\n3,cy\n")?;
//! let tools = Toolbox::new(Workspace::new(dir.path(), &[], &[])?);
//! // A weak caller: `file` for `path`, numbers as strings, columns as a string.
//! let answer = tools.call("data", json!({"op": "select", "file": "people.csv", "limit": "2", "columns": "name"}), None);
//! assert_eq!(answer["result"]["rows"], json!([["ann"], ["bob"]]));
//! assert_eq!(answer["hint"], "more follows; continue with offset=2");
//! assert_eq!(answer["details"]["view_label"], "exact");
//! let refused = tools.call("data", json!({"op": "inspect", "path": "../etc/passwd"}), None);
//! assert!(refused["error"].as_str().unwrap().starts_with("data: inspect refused (outside-root): "));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! - [`repair`] fixes the argument shapes weak callers send.
//! - [`Workspace`] judges paths: confined to a root (symlinks resolved),
//!   reserved subtrees refused, catalog names resolved first.
//! - The observation envelope keeps every answer within 32 KiB of JSON,
//!   reserved before reading, with counts, a continuation hint and the
//!   view label.
//! - [`McpServer`] serves both tools over the Model Context Protocol.
//!
//! - [`output_schema`] describes every answer, per op, from the answer
//!   types the readers derive their schemas for.
//!
//! This crate, not the engines, carries the heavy dependencies (tokio,
//! the MCP SDK, globset); the engines derive only their answers'
//! schemas, with schemars.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod args;
mod bounded;
mod datasets;
mod envelope;
mod gate;
mod listing;
mod mcp;
mod output;
mod paths;
mod schema;
mod shape;
mod surface;

pub use args::{data_schema, jsonpath_to_pointer, read_schema, repair, ReadArgs};
pub use bounded::{
    answer_tree, BoundedJson, TreeBounds, OBSERVATION_LIST_BYTES, OBSERVATION_LIST_ITEMS,
    OBSERVATION_STRING_BYTES,
};
pub use envelope::{
    fit, json_len, Budget, Reservation, OBSERVATION_CAP_BYTES, OBSERVATION_MIN_BYTES,
};
pub use gate::{Gate, LineGate, INVALID_PARAMS, INVALID_REQUEST, MCP_MAX_LINE_BYTES, PARSE_ERROR};
pub use listing::{
    Entry, EntryKind, Folder, LIST_DEFAULT_LIMIT, LIST_FOLDER_MAX_ENTRIES, LIST_MAX_LIMIT,
    WALK_MAX_DEPTH, WALK_MAX_FILES,
};
pub use mcp::{
    resource_uri, McpServer, DATA_TITLE, MAX_CONCURRENT_SCANS, PROGRESS_INTERVAL, READ_TITLE,
    RESOURCES_PAGE,
};
pub use output::{output_schema, COLUMNS_FORM_DROPPED};
pub use paths::{Workspace, DEFAULT_RESERVED, MISS_LISTING, MISS_NAME_BYTES};
pub use plumb_core::{echo, echo_within, ECHO_MAX_BYTES};
pub use schema::{strict_schema, STRICT_FORMATS};
pub use shape::{
    brief, columns_only, window_columns, ColumnWindow, ColumnsShown, Detail, BRIEF_DROPPED,
    BRIEF_SAMPLES, BRIEF_SAMPLE_ROWS, COLUMN_FIELDS,
};
pub use surface::{
    CallProgress, RemoteOpener, Toolbox, AGENT_SCAN_MAX_BYTES, COLUMNS_FORM_LIST_BYTES,
    DATA_DESCRIPTION, READ_DESCRIPTION, TABLE_FORMATS, TOOL_CALL_MAX_BYTES, TOOL_NAMES,
};
