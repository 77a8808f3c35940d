//! The MCP line gate: any bytes, cut into lines, are each either handed
//! to the SDK (only a well-formed JSON-RPC object) or answered with a
//! JSON-RPC error carrying a code the specification names and an id that
//! is null, a string or an integer. Never silence, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb_tool::{Gate, LineGate, INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR};
use serde_json::Value;

fn check_reply(v: &Value) {
    assert_eq!(v["jsonrpc"], "2.0");
    let code = v["error"]["code"].as_i64().unwrap();
    assert!(
        [PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS].contains(&code),
        "{v}"
    );
    assert!(v["error"]["message"].is_string());
    let id = &v["id"];
    assert!(
        id.is_null() || id.is_string() || id.is_i64() || id.is_u64(),
        "{v}"
    );
    assert!(
        v.to_string().len() < 4096,
        "a reply grew with its input: {v}"
    );
}

fuzz_target!(|input: &[u8]| {
    let mut gate = LineGate::new();
    for line in input.split(|&b| b == b'\n') {
        match gate.judge(line) {
            Gate::Reply(v) => check_reply(&v),
            Gate::Forward(request) => {
                let v: Value = serde_json::from_slice(line.strip_suffix(b"\r").unwrap_or(line))
                    .expect("only JSON is forwarded");
                // A request's id is carried; nothing else is.
                let expected = v.get("method").and(v.get("id")).map(Value::to_string);
                assert_eq!(request, expected, "{v}");
                assert_eq!(v["jsonrpc"], "2.0");
                assert!(
                    v["method"].is_string()
                        || v.get("result").is_some()
                        || v.get("error").is_some()
                );
            }
        }
    }
    check_reply(&gate.too_long(input));
});
