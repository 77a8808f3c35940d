//! The line gate in front of the MCP server: every line a client sends
//! is judged here before the SDK sees it.
//!
//! The SDK (`rmcp`) drops what it cannot parse without a word, reads a
//! line of any length, and answers a malformed `tools/call` as an unknown
//! method. A client that sent a bad line would wait forever. The gate
//! answers every malformed line itself with the JSON-RPC error the
//! specification names, carrying the request's `id` whenever one can be
//! read, and forwards only well-formed messages:
//!
//! | line | answer |
//! |---|---|
//! | not UTF-8, not JSON, blank | `-32700` parse error |
//! | JSON but not a request, notification or response object | `-32600` invalid request |
//! | longer than [`MCP_MAX_LINE_BYTES`] | `-32600`, with the id if its first bytes show one |
//! | a second `initialize` | `-32600` |
//! | `params` that is not an object; `tools/call` without a tool name or with arguments that are not an object | `-32602` invalid params |
//!
//! The gate is a plain function over bytes, so the `mcp_lines` fuzz
//! target drives it with any input.

use serde_json::{json, Value};

/// The longest line (one JSON-RPC message) the server reads; a longer
/// one is skipped to its end and answered `-32600`, never buffered whole.
pub const MCP_MAX_LINE_BYTES: usize = 1024 * 1024;

/// JSON-RPC: the line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: the JSON is not a valid request.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: the method's parameters are wrong.
pub const INVALID_PARAMS: i64 = -32602;

/// What to do with one line.
#[derive(Debug, Clone, PartialEq)]
pub enum Gate {
    /// Hand the line to the SDK unchanged. A request carries its id (as
    /// JSON text), which the SDK's answer will settle; a notification or
    /// a response carries none.
    Forward(Option<String>),
    /// Answer with this JSON-RPC error object; the SDK never sees the line.
    Reply(Value),
}

/// The gate's memory across lines: whether `initialize` went through.
#[derive(Debug, Default, Clone)]
pub struct LineGate {
    initialized: bool,
}

/// A JSON-RPC error response.
pub(crate) fn error_response(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

fn valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        // The SDK reads an integer id as an i64: a larger one would be
        // refused there without its id, and never answered.
        Value::Number(n) => n.is_i64(),
        _ => false,
    }
}

/// The `id` of a line cut at the size cap, if its kept prefix shows one
/// as a top-level member (best effort: the line is not JSON as a whole).
pub(crate) fn id_of_prefix(prefix: &[u8]) -> Value {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut i = 0usize;
    while i < prefix.len() {
        let b = prefix[i];
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' if depth == 1 && prefix[i..].starts_with(b"\"id\"") => {
                let rest = &prefix[i + 4..];
                let rest = rest.trim_ascii_start();
                if let Some(after) = rest.strip_prefix(b":") {
                    let mut values =
                        serde_json::Deserializer::from_slice(after).into_iter::<Value>();
                    if let Some(Ok(v)) = values.next() {
                        if valid_id(&v) {
                            return v;
                        }
                    }
                }
                return Value::Null;
            }
            b'"' => in_string = true,
            _ => {}
        }
        i += 1;
    }
    Value::Null
}

impl LineGate {
    /// A gate for a new session.
    pub fn new() -> LineGate {
        LineGate::default()
    }

    /// The answer to a line that passed [`MCP_MAX_LINE_BYTES`]; `prefix`
    /// is what was kept of it.
    pub fn too_long(&self, prefix: &[u8]) -> Value {
        error_response(
            id_of_prefix(prefix),
            INVALID_REQUEST,
            format!(
                "the message is longer than {MCP_MAX_LINE_BYTES} bytes and was not read; send smaller requests"
            ),
        )
    }

    /// Judges one line (without its newline).
    pub fn judge(&mut self, line: &[u8]) -> Gate {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.trim_ascii().is_empty() {
            return Gate::Reply(error_response(
                Value::Null,
                PARSE_ERROR,
                "a blank line is not a JSON-RPC message; send one JSON object per line",
            ));
        }
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                let what = if std::str::from_utf8(line).is_err() {
                    "the line is not UTF-8".to_owned()
                } else {
                    format!("the line is not JSON ({e})")
                };
                return Gate::Reply(error_response(
                    Value::Null,
                    PARSE_ERROR,
                    format!("{what}; send one JSON-RPC object per line"),
                ));
            }
        };
        let Value::Object(m) = &value else {
            return Gate::Reply(error_response(
                Value::Null,
                INVALID_REQUEST,
                "a JSON-RPC message is a JSON object (batches are not part of MCP)",
            ));
        };
        let id = m.get("id").cloned();
        if let Some(id) = &id {
            if !valid_id(id) {
                // An integer too large is still the client's id: echoed,
                // so the client can tell which request failed.
                let echoed = if id.is_u64() { id.clone() } else { Value::Null };
                return Gate::Reply(error_response(
                    echoed,
                    INVALID_REQUEST,
                    "`id` must be a string or an integer from -2^63 to 2^63 - 1",
                ));
            }
        }
        let reply_id = id.clone().unwrap_or(Value::Null);
        let invalid =
            |code: i64, msg: &str| Gate::Reply(error_response(reply_id.clone(), code, msg));
        if m.get("jsonrpc") != Some(&Value::from("2.0")) {
            return invalid(INVALID_REQUEST, "`jsonrpc` must be \"2.0\"");
        }
        let Some(method) = m.get("method") else {
            // A response to a request of the server's own.
            if id.is_some() && (m.contains_key("result") || m.contains_key("error")) {
                return Gate::Forward(None);
            }
            return invalid(
                INVALID_REQUEST,
                "a message needs a `method` (a request or notification) or a `result` or `error` (a response)",
            );
        };
        let Some(method) = method.as_str() else {
            return invalid(INVALID_REQUEST, "`method` must be a string");
        };
        if let Some(params) = m.get("params") {
            if !params.is_object() {
                return invalid(INVALID_PARAMS, "`params` must be an object");
            }
        }
        match method {
            "initialize" if id.is_some() => {
                if self.initialized {
                    return invalid(
                        INVALID_REQUEST,
                        "the session is already initialized; `initialize` is sent once",
                    );
                }
                self.initialized = true;
            }
            "tools/call" if id.is_some() => {
                let params = m.get("params");
                let name = params.and_then(|p| p.get("name"));
                if !name.is_some_and(Value::is_string) {
                    return invalid(
                        INVALID_PARAMS,
                        "tools/call needs `params.name`, the tool's name (data or read)",
                    );
                }
                match params.and_then(|p| p.get("arguments")) {
                    Some(Value::Object(_)) => {}
                    Some(_) => {
                        return invalid(
                            INVALID_PARAMS,
                            "`params.arguments` must be an object, such as {\"op\": \"inspect\", \"path\": \"data.csv\"}",
                        )
                    }
                    None => {
                        return invalid(
                            INVALID_PARAMS,
                            "tools/call needs `params.arguments`, such as {\"op\": \"inspect\", \"path\": \"data.csv\"}",
                        )
                    }
                }
            }
            _ => {}
        }
        Gate::Forward(id.map(|id| id.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(g: Gate) -> Option<(Value, i64)> {
        match g {
            Gate::Forward(_) => None,
            Gate::Reply(v) => Some((v["id"].clone(), v["error"]["code"].as_i64().unwrap())),
        }
    }

    #[test]
    fn malformed_lines_get_their_codes_and_ids() {
        let mut g = LineGate::new();
        assert_eq!(code(g.judge(b"")), Some((Value::Null, PARSE_ERROR)));
        assert_eq!(code(g.judge(b"  \r")), Some((Value::Null, PARSE_ERROR)));
        assert_eq!(code(g.judge(b"{nope")), Some((Value::Null, PARSE_ERROR)));
        assert_eq!(code(g.judge(b"\xff\xfe")), Some((Value::Null, PARSE_ERROR)));
        assert_eq!(code(g.judge(b"[1]")), Some((Value::Null, INVALID_REQUEST)));
        assert_eq!(
            code(g.judge(br#"{"jsonrpc":"2.0","id":3}"#)),
            Some((json!(3), INVALID_REQUEST))
        );
        assert_eq!(
            code(g.judge(br#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#)),
            Some((json!("a"), INVALID_REQUEST))
        );
        assert_eq!(
            code(g.judge(br#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#)),
            Some((Value::Null, INVALID_REQUEST))
        );
        assert_eq!(
            code(g.judge(
                br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"data"}}"#
            )),
            Some((json!(4), INVALID_PARAMS))
        );
        assert_eq!(
            code(g.judge(br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"data","arguments":"x"}}"#)),
            Some((json!(5), INVALID_PARAMS))
        );
        assert_eq!(
            code(g.judge(br#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":7}"#)),
            Some((json!(6), INVALID_PARAMS))
        );
        assert_eq!(
            code(g.judge(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"data","arguments":{}}}"#)),
            None
        );
    }

    #[test]
    fn an_id_past_i64_is_refused_here_with_its_id() {
        let mut g = LineGate::new();
        let big =
            br#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"initialize","params":{}}"#;
        assert_eq!(
            code(g.judge(big)),
            Some((json!(18_446_744_073_709_551_615_u64), INVALID_REQUEST))
        );
        let fraction = br#"{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{}}"#;
        assert_eq!(
            code(g.judge(fraction)),
            Some((Value::Null, INVALID_REQUEST))
        );
        let top =
            br#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"initialize","params":{}}"#;
        assert_eq!(
            g.judge(top),
            Gate::Forward(Some("9223372036854775807".to_owned()))
        );
    }

    #[test]
    fn initialize_passes_once() {
        let mut g = LineGate::new();
        let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        assert_eq!(g.judge(init), Gate::Forward(Some("1".to_owned())));
        assert_eq!(code(g.judge(init)), Some((json!(1), INVALID_REQUEST)));
    }

    #[test]
    fn a_cut_line_shows_its_top_level_id() {
        assert_eq!(
            id_of_prefix(br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":"aaaa"#),
            json!(42)
        );
        assert_eq!(
            id_of_prefix(br#"{"params":{"id":9,"x":"aaa"#),
            Value::Null,
            "a nested id is not the request's"
        );
        assert_eq!(id_of_prefix(br#"{"a":"\"id\":5","id":"k","#), json!("k"));
    }
}
