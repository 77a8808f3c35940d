//! The value builder: one subtree, written as compact JSON text under a
//! byte budget, with placeholders where the text would not be the truth.
//!
//! * A number a double would misstate becomes
//!   `{"$literal": "<source text>", "precision": "<kind>"}`; every other
//!   number keeps its source text exactly.
//! * A string cut at the capture cap becomes
//!   `{"$truncated": "<kept prefix>", "bytes": <full length>}`.
//! * When the subtree outgrows the budget, its root becomes
//!   `{"$summary": {"type": "array", "members": <true count>}}`; the
//!   builder stops writing but keeps counting, so the count is the truth.
//!
//! Building text rather than a tree keeps memory equal to the budget,
//! keeps duplicate keys as they stand in the source, and keeps every
//! number's literal.

use plumb_core::{number_literal_precision, PrecisionKind};
use serde_json::value::RawValue;

use crate::parser::{Scalar, ScalarKind};

/// Writes `s` as a JSON string literal.
pub(crate) fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0..=0x1f => None,
            _ => continue,
        };
        out.push_str(&s[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => out.push_str(&format!("\\u{:04x}", b)),
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Whether a number literal needs a `$literal` placeholder, and of which kind.
pub(crate) fn literal_precision(s: &Scalar<'_>) -> Option<PrecisionKind> {
    if s.truncated {
        return Some(PrecisionKind::OversizedLiteral);
    }
    number_literal_precision(s.text())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Object,
    Array,
}

/// What a finished build holds.
#[derive(Debug)]
pub struct Built {
    /// The compact JSON text of the value (or of its placeholder).
    pub json: Box<RawValue>,
    /// Whether any placeholder stands in for a cut value.
    pub cut: bool,
    /// Whether the whole value became a `$summary`.
    pub summarized: bool,
    /// The direct members of the root container (elements or members).
    pub members: u64,
}

/// Builds one value from parser events under a byte budget.
#[derive(Debug)]
pub struct ValueBuilder {
    out: String,
    budget: usize,
    over: bool,
    cut: bool,
    stack: Vec<(Kind, bool)>,
    root: Option<&'static str>,
    members: u64,
    done: bool,
    pending_key: bool,
    /// Open containers below [`BUILD_DEPTH_CAP`] that are being skipped.
    elided: usize,
}

/// The deepest nesting a built value keeps; a container deeper than this
/// becomes `{"$summary": {"type": ..., "deeper_than": 100}}`. JSON readers
/// commonly stop at 128 levels, so a returned value stays readable.
pub const BUILD_DEPTH_CAP: usize = 100;

impl ValueBuilder {
    /// A builder that writes at most `budget` bytes of JSON text.
    pub fn new(budget: usize) -> ValueBuilder {
        ValueBuilder {
            out: String::new(),
            budget,
            over: false,
            cut: false,
            stack: Vec::new(),
            root: None,
            members: 0,
            done: false,
            pending_key: false,
            elided: 0,
        }
    }

    /// Whether the value is complete.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Whether the budget has been spent (the result will be a summary).
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// Bytes written so far.
    pub fn written(&self) -> usize {
        self.out.len()
    }

    fn before_value(&mut self) {
        if self.pending_key {
            // An object member: counted, and its comma written, at its key.
            self.pending_key = false;
            return;
        }
        if self.stack.len() == 1 {
            self.members += 1;
        }
        if let Some((_, first)) = self.stack.last_mut() {
            if !*first && !self.over {
                self.out.push(',');
            }
            *first = false;
        }
    }

    fn check(&mut self) {
        if self.out.len() > self.budget {
            self.over = true;
            self.out.clear();
            self.out.shrink_to(0);
        }
    }

    /// A container opens.
    pub fn start(&mut self, object: bool) {
        if self.elided > 0 {
            self.elided += 1;
            return;
        }
        if self.stack.len() >= BUILD_DEPTH_CAP {
            self.before_value();
            if !self.over {
                let kind = if object { "object" } else { "array" };
                self.out.push_str(&format!(
                    "{{\"$summary\":{{\"type\":\"{kind}\",\"deeper_than\":{BUILD_DEPTH_CAP}}}}}"
                ));
                self.check();
            }
            self.cut = true;
            self.elided = 1;
            return;
        }
        if self.root.is_none() {
            self.root = Some(if object { "object" } else { "array" });
        } else {
            self.before_value();
        }
        if !self.over {
            self.out.push(if object { '{' } else { '[' });
            self.check();
        }
        self.stack
            .push((if object { Kind::Object } else { Kind::Array }, true));
    }

    /// A key in the innermost object.
    pub fn key(&mut self, key: &str, truncated: bool) {
        if self.elided > 0 {
            return;
        }
        if self.stack.len() == 1 {
            self.members += 1;
        }
        if let Some((_, first)) = self.stack.last_mut() {
            if !self.over {
                if !*first {
                    self.out.push(',');
                }
                write_json_string(&mut self.out, key);
                self.out.push(':');
            }
            *first = false;
        }
        if truncated {
            self.cut = true;
        }
        self.pending_key = true;
        self.check();
    }

    /// The innermost container closes.
    pub fn end(&mut self) {
        if self.elided > 0 {
            self.elided -= 1;
            return;
        }
        if let Some((kind, _)) = self.stack.pop() {
            if !self.over {
                self.out.push(if kind == Kind::Object { '}' } else { ']' });
                self.check();
            }
        }
        if self.stack.is_empty() {
            self.done = true;
        }
    }

    /// A scalar.
    pub fn scalar(&mut self, s: &Scalar<'_>) {
        if self.elided > 0 {
            return;
        }
        if self.root.is_none() {
            self.root = Some(match s.kind {
                ScalarKind::String => "string",
                ScalarKind::Number => "number",
                ScalarKind::True | ScalarKind::False => "boolean",
                ScalarKind::Null => "null",
            });
        } else {
            self.before_value();
        }
        if self.stack.is_empty() {
            self.done = true;
        }
        if self.over {
            return;
        }
        match s.kind {
            ScalarKind::String if s.truncated => {
                self.cut = true;
                self.out.push_str("{\"$truncated\":");
                write_json_string(&mut self.out, s.text());
                self.out.push_str(&format!(",\"bytes\":{}}}", s.len));
            }
            ScalarKind::String => write_json_string(&mut self.out, s.text()),
            ScalarKind::Number => match literal_precision(s) {
                Some(kind) => {
                    self.cut |= kind == PrecisionKind::OversizedLiteral;
                    self.out.push_str("{\"$literal\":");
                    write_json_string(&mut self.out, s.text());
                    self.out.push_str(",\"precision\":\"");
                    self.out.push_str(kind.as_str());
                    self.out.push_str("\"}");
                }
                None => self.out.push_str(s.text()),
            },
            ScalarKind::True => self.out.push_str("true"),
            ScalarKind::False => self.out.push_str("false"),
            ScalarKind::Null => self.out.push_str("null"),
        }
        self.check();
    }

    /// The finished value (or its summary).
    pub fn finish(self) -> Built {
        let summarized = self.over;
        let text = if self.over {
            match self.root {
                Some(t @ ("object" | "array")) => format!(
                    "{{\"$summary\":{{\"type\":\"{t}\",\"members\":{}}}}}",
                    self.members
                ),
                Some(t) => format!("{{\"$summary\":{{\"type\":\"{t}\"}}}}"),
                None => "null".to_owned(),
            }
        } else if self.out.is_empty() {
            "null".to_owned()
        } else {
            self.out
        };
        Built {
            json: RawValue::from_string(text).unwrap_or_else(|_| {
                RawValue::from_string("null".to_owned()).expect("null is JSON")
            }),
            cut: self.cut || summarized,
            summarized,
            members: self.members,
        }
    }
}

/// The builder hears the parser directly: a subtree's events in, its
/// compact text out.
impl crate::JsonSink for ValueBuilder {
    fn start_object(&mut self, _: usize, _: u64) -> std::ops::ControlFlow<()> {
        self.start(true);
        std::ops::ControlFlow::Continue(())
    }
    fn start_array(&mut self, _: usize, _: u64) -> std::ops::ControlFlow<()> {
        self.start(false);
        std::ops::ControlFlow::Continue(())
    }
    fn key(&mut self, key: &str, truncated: bool) -> std::ops::ControlFlow<()> {
        ValueBuilder::key(self, key, truncated);
        std::ops::ControlFlow::Continue(())
    }
    fn end_object(&mut self) -> std::ops::ControlFlow<()> {
        self.end();
        std::ops::ControlFlow::Continue(())
    }
    fn end_array(&mut self) -> std::ops::ControlFlow<()> {
        self.end();
        std::ops::ControlFlow::Continue(())
    }
    fn scalar(&mut self, s: &Scalar<'_>) -> std::ops::ControlFlow<()> {
        ValueBuilder::scalar(self, s);
        std::ops::ControlFlow::Continue(())
    }
}

/// One scalar as JSON text, as [`ValueBuilder`] writes it, with a string
/// or number literal longer than `cap` bytes cut there (at a character
/// boundary) as `{"$truncated": <start>, "bytes": <whole length>}`.
pub(crate) fn scalar_json(s: &Scalar<'_>, cap: usize) -> Box<RawValue> {
    let text = s.text();
    let long = s.truncated || text.len() > cap;
    let json = if long && matches!(s.kind, ScalarKind::String | ScalarKind::Number) {
        let mut out = String::from("{\"$truncated\":");
        write_json_string(&mut out, plumb_core::cap_text(text, cap).0);
        out.push_str(&format!(",\"bytes\":{}}}", s.len));
        out
    } else {
        let mut b = ValueBuilder::new(usize::MAX);
        b.scalar(s);
        return b.finish().json;
    };
    RawValue::from_string(json)
        .unwrap_or_else(|_| RawValue::from_string("null".to_owned()).expect("null is JSON"))
}
