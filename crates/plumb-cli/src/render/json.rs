//! A JSON value for a person: written as the file wrote it, a number
//! past what a double holds shown as its literal (an answer stands in
//! for one with `{"$literal": "…"}`), compact or indented. Written
//! with a stack of its own: a value nests as deep as its file does.

use serde_json::Value;

/// What is left to write of a value, in order.
enum Step<'a> {
    Value(&'a Value, usize),
    Text(&'static str),
    Key(&'a str),
    /// A line break and the indent of this depth, when indented.
    Break(usize),
}

/// `v` as JSON text: one line, or (with `indent`) indented by that many
/// spaces a level, as `serde_json::to_string_pretty` lays it out; a
/// `$literal` stand-in written as its literal.
pub(super) fn json_text(v: &Value, indent: Option<usize>) -> String {
    let mut out = String::new();
    let colon = if indent.is_some() { ": " } else { ":" };
    let mut stack = vec![Step::Value(v, 0)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Text(t) => out.push_str(t),
            Step::Key(k) => out.push_str(&serde_json::to_string(k).unwrap_or_default()),
            Step::Break(depth) => {
                if let Some(n) = indent {
                    out.push('\n');
                    out.push_str(&" ".repeat(n * depth));
                }
            }
            Step::Value(v, depth) => {
                let mut steps = Vec::new();
                match v {
                    Value::Object(m) => match m.get("$literal") {
                        Some(Value::String(lit)) if is_literal(lit) => out.push_str(lit),
                        _ if m.is_empty() => out.push_str("{}"),
                        _ => {
                            out.push('{');
                            for (i, (k, item)) in m.iter().enumerate() {
                                if i > 0 {
                                    steps.push(Step::Text(","));
                                }
                                steps.push(Step::Break(depth + 1));
                                steps.push(Step::Key(k));
                                steps.push(Step::Text(colon));
                                steps.push(Step::Value(item, depth + 1));
                            }
                            steps.push(Step::Break(depth));
                            steps.push(Step::Text("}"));
                        }
                    },
                    Value::Array(items) if items.is_empty() => out.push_str("[]"),
                    Value::Array(items) => {
                        out.push('[');
                        for (i, item) in items.iter().enumerate() {
                            if i > 0 {
                                steps.push(Step::Text(","));
                            }
                            steps.push(Step::Break(depth + 1));
                            steps.push(Step::Value(item, depth + 1));
                        }
                        steps.push(Step::Break(depth));
                        steps.push(Step::Text("]"));
                    }
                    scalar => out.push_str(&scalar.to_string()),
                }
                stack.extend(steps.into_iter().rev());
            }
        }
    }
    out
}

/// Whether `s` is number text, as a `$literal` stand-in holds (a
/// file's own object with a `$literal` key of other text is written as
/// an object).
fn is_literal(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes()
            .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::json_text;
    use serde_json::{json, Value};

    #[test]
    fn plain_values_read_as_serde_writes_them() {
        let values = [
            json!({"a": [1, 2.5, {"b": null}], "c": "x\"y", "d": {}, "e": []}),
            json!([[[]], {"k": [true, false]}]),
            json!("text"),
            json!(-3),
        ];
        for v in values {
            assert_eq!(json_text(&v, None), v.to_string());
            assert_eq!(
                json_text(&v, Some(2)),
                serde_json::to_string_pretty(&v).unwrap()
            );
        }
    }

    #[test]
    fn a_literal_is_written_as_the_file_wrote_it() {
        let v = json!({"id": {"$literal": "9007199254740993", "precision": "unsafe-integer"},
                       "list": [{"$literal": "1e400"}]});
        assert_eq!(
            json_text(&v, None),
            r#"{"id":9007199254740993,"list":[1e400]}"#
        );
        // A file's own `$literal` key of text stays an object.
        let own = json!({"$literal": "hello"});
        assert_eq!(json_text(&own, None), own.to_string());
    }

    #[test]
    fn a_value_nested_deeper_than_the_stack_allows_recursion_is_written() {
        let mut v = Value::Null;
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        let text = json_text(&v, None);
        assert_eq!(text.len(), 100_000 * 2 + 4);
        // serde_json's own drop of a deep value recurses: leak it.
        std::mem::forget(v);
    }
}
