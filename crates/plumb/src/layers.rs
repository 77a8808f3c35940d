//! What lies between a file and its format: an archive member, a
//! compression container, a text encoding. The dispatcher peels them in
//! that order (a member may itself be compressed, and compressed text
//! may be UTF-16), runs the operation on what is left, and says in the
//! answer what it went through.
//!
//! The options that choose a layer (`encoding`, `member`) belong to the
//! source, not to a format: [`SOURCE_OPTIONS`] declares them beside the
//! shared ones, and the dispatcher takes them out of the request before
//! the reader's options are judged.

use plumb_core::{
    Answer, Op, OptionKind, OptionSpec, Options, Refusal, Source, ViewFlags, WindowCounts,
};
use serde_json::Value;

use crate::encoding::{TextEncoding, Transcoded};

/// The options that choose how the file's bytes become text, taken by
/// every format's inspect, select, validate and search (and by `read`).
pub const SOURCE_OPTIONS: [OptionSpec; 2] = [
    OptionSpec {
        name: "encoding",
        kind: OptionKind::Text,
        default: Some("utf-8"),
        ops: &[Op::Inspect, Op::Select, Op::Validate, Op::Search],
        doc: "the text encoding of a file without a byte order mark (latin1, windows-1252, shift_jis, utf-16le: any WHATWG label)",
    },
    OptionSpec {
        name: "member",
        kind: OptionKind::Text,
        default: None,
        ops: &[Op::Inspect, Op::Select, Op::Validate, Op::Search],
        doc: "the member of a zip archive to read (its name in the archive)",
    },
];

/// The source options a caller gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceChoice {
    /// The encoding named (`None`: UTF-8, or what a byte order mark says).
    pub encoding: Option<TextEncoding>,
    /// The archive member named.
    pub member: Option<String>,
}

impl SourceChoice {
    /// Takes the source options out of `options`, judged.
    ///
    /// # Errors
    /// `invalid-argument` for an encoding no label names, or a value
    /// that is not text.
    pub fn take(options: &mut Options) -> Result<SourceChoice, Refusal> {
        let mut choice = SourceChoice::default();
        let text = |v: Value, name: &str| match v {
            Value::String(s) => Ok(s),
            other => Err(Refusal::invalid_argument(format!(
                "`{name}` is text, not {}",
                plumb_core::echo(&other.to_string())
            ))),
        };
        if let Some(v) = options.remove("encoding") {
            choice.encoding = TextEncoding::for_label(&text(v, "encoding")?)?;
        }
        if let Some(v) = options.remove("member") {
            let name = text(v, "member")?;
            if name.is_empty() {
                return Err(Refusal::invalid_argument(
                    "`member` is empty: name a member of the archive",
                ));
            }
            choice.member = Some(name);
        }
        Ok(choice)
    }
}

/// The layers a source was read through.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layers {
    /// The compression (`gzip`), if any.
    pub container: Option<&'static str>,
    /// The archive member, if any.
    pub member: Option<String>,
    /// The text encoding transcoded from (`utf-16le`), if not UTF-8.
    pub encoding: Option<&'static str>,
}

impl Layers {
    /// Whether the source was read as it is.
    pub fn is_empty(&self) -> bool {
        self.container.is_none() && self.member.is_none() && self.encoding.is_none()
    }

    /// Adds what a refusal needs to say where it came from.
    pub(crate) fn mark(&self, mut r: Refusal) -> Refusal {
        if let Some(c) = self.container {
            r = r.with_extra("container", c.into());
        }
        if let Some(m) = &self.member {
            r = r.with_extra("member", m.as_str().into());
        }
        if let Some(e) = self.encoding {
            if r.extra("encoding").is_none() {
                r = r.with_extra("encoding", e.into());
            }
        }
        r
    }

    /// The fields an answer gains, after its `format`.
    fn fields(&self) -> Vec<(&'static str, Value)> {
        let mut out = Vec::new();
        if let Some(m) = &self.member {
            out.push(("member", Value::from(m.as_str())));
        }
        if let Some(c) = self.container {
            out.push(("container", Value::from(c)));
        }
        if let Some(e) = self.encoding {
            out.push(("encoding", Value::from(e)));
        }
        if self.container.is_some() || self.member.is_some() {
            out.push(("offsets", Value::from("decompressed")));
        }
        out
    }
}

/// `answer` with the fields [`Layers`] adds to an answer read through
/// a container, a zip member or an encoding.
pub(crate) fn layered_schema(answer: plumb_core::schemars::Schema) -> plumb_core::schemars::Schema {
    plumb_core::schemars::json_schema!({
        "allOf": [answer],
        "properties": {
            "member": {"type": "string", "description": "the zip member read"},
            "container": {"type": "string", "description": "the compression or archive read through"},
            "encoding": {"type": "string", "description": "the text encoding transcoded from"},
            "offsets": {"type": "string", "const": "decompressed", "description": "byte offsets count the decompressed bytes"}
        }
    })
}

/// The operation run on what is left once the layers are peeled: the
/// source to read, the layers it went through, and the transcoder when
/// there is one (to map byte offsets back to the file).
pub(crate) type Peeled<'f, T> =
    &'f mut dyn FnMut(&dyn Source, &Layers, Option<&Transcoded<'_>>) -> Result<T, Refusal>;

/// Runs `f` on what `source` holds once its layers are peeled: the
/// compression its first bytes announce, then the encoding its byte
/// order mark or `choice` names. Refusals say which layers they came
/// through; a byte the encoding cannot map is refused with its offset in
/// the file, and byte offsets in refusals count the file's own bytes.
pub(crate) fn through<T>(
    source: &dyn Source,
    choice: &SourceChoice,
    layers: &mut Layers,
    f: Peeled<'_, T>,
) -> Result<T, Refusal> {
    if let Some(member) = &choice.member {
        // Any zip: an archive, or a workbook or document that is one.
        let head = source.head(4)?;
        if !head.starts_with(b"PK\x03\x04") && !head.starts_with(b"PK\x05\x06") {
            return Err(Refusal::invalid_argument(format!(
                "`member` names a member of a zip archive, and `{}` is not one",
                plumb_core::echo(source.name())
            )));
        }
        #[cfg(feature = "compression")]
        {
            let opened = crate::archive::ZipMember::open(source, member)?;
            layers.member = Some(opened.entry().name.clone());
            return compressed(&opened, choice, layers, f);
        }
        #[cfg(not(feature = "compression"))]
        return Err::<T, Refusal>({
            let _ = member;
            Refusal::new(
                plumb_core::RefusalReason::UnsupportedFormat,
                "this plumb was built without the compression feature, which reads zip archives",
            )
        });
    }
    compressed(source, choice, layers, f)
}

fn compressed<T>(
    source: &dyn Source,
    choice: &SourceChoice,
    layers: &mut Layers,
    f: Peeled<'_, T>,
) -> Result<T, Refusal> {
    #[cfg(feature = "compression")]
    if let Some(container) = source
        .head(8)
        .ok()
        .and_then(|head| crate::container::Container::of(&head))
    {
        layers.container = Some(container.name());
        let decoded = crate::container::Decompressed::new(source, container);
        return text(&decoded, choice, layers, f);
    }
    text(source, choice, layers, f)
}

fn text<T>(
    source: &dyn Source,
    choice: &SourceChoice,
    layers: &mut Layers,
    f: Peeled<'_, T>,
) -> Result<T, Refusal> {
    let head = source.head(4).map_err(|r| layers.mark(r))?;
    let chosen = match TextEncoding::of_bom(&head) {
        Some(found) => Some(found),
        // A UTF-8 byte order mark outranks a named encoding, as in the
        // WHATWG decode; the engines read UTF-8 themselves.
        None if head.starts_with(b"\xEF\xBB\xBF") => None,
        None => choice.encoding.map(|e| (e, 0)),
    };
    let Some((encoding, bom)) = chosen else {
        return f(source, layers, None).map_err(|r| layers.mark(r));
    };
    layers.encoding = Some(encoding.name());
    let transcoded = Transcoded::new(source, encoding, bom);
    match f(&transcoded, layers, Some(&transcoded)) {
        Ok(v) => Ok(v),
        Err(r) => {
            let r = match transcoded.malformed() {
                Some(own) => own.with_path(r.path().unwrap_or(source.name()).to_owned()),
                None => match r.byte_offset() {
                    Some(at) => relocate_refusal(r, at, &transcoded),
                    None => r,
                },
            };
            Err(layers.mark(r))
        }
    }
}

fn relocate_refusal(r: Refusal, at: u64, transcoded: &Transcoded<'_>) -> Refusal {
    match transcoded.file_offset(at) {
        Some(file) if file != at => {
            let message = shift_positions(r.message(), at, file);
            r.with_byte_offset(file).with_message(message)
        }
        _ => r,
    }
}

/// `message` with the position `from` it names (`byte 12`, `offset 12`)
/// named as `to`.
fn shift_positions(message: &str, from: u64, to: u64) -> String {
    message
        .replace(&format!("byte {from}"), &format!("byte {to}"))
        .replace(&format!("offset {from}"), &format!("offset {to}"))
}

/// Every `byte_offset` in an answer, mapped from the UTF-8 text to the
/// file (with the position in a sibling `message`).
pub(crate) fn relocate_answer(value: &mut Value, transcoded: &Transcoded<'_>) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if let Some(at) = map.get("byte_offset").and_then(Value::as_u64) {
                    if let Some(file) = transcoded.file_offset(at).filter(|&f| f != at) {
                        map.insert("byte_offset".into(), file.into());
                        if let Some(Value::String(m)) = map.get_mut("message") {
                            *m = shift_positions(m, at, file);
                        }
                    }
                }
                stack.extend(map.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// An answer read through layers: the engine's answer, with `member`,
/// `container`, `encoding` and (for decompressed bytes) `offsets:
/// "decompressed"` beside its `format`.
pub struct Layered {
    inner: Box<dyn Answer>,
    layers: Layers,
    /// The answer's JSON, when byte offsets in it had to be mapped to
    /// the file while the file was still open.
    relocated: Option<Value>,
}

impl std::fmt::Debug for Layered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Layered")
            .field("format", &self.inner.format())
            .field("layers", &self.layers)
            .finish()
    }
}

impl Layered {
    /// `inner`, read through `layers`; byte offsets mapped through
    /// `transcoded` when there is one.
    pub(crate) fn new(
        inner: Box<dyn Answer>,
        layers: Layers,
        transcoded: Option<&Transcoded<'_>>,
    ) -> Layered {
        let relocated = transcoded.and_then(|t| {
            let mut json = inner.to_json();
            let before = json.clone();
            relocate_answer(&mut json, t);
            (json != before).then_some(json)
        });
        Layered {
            inner,
            layers,
            relocated,
        }
    }

    /// The layers the answer was read through.
    pub fn layers(&self) -> &Layers {
        &self.layers
    }

    /// The engine's own answer.
    pub fn inner(&self) -> &dyn Answer {
        self.inner.as_ref()
    }
}

impl Answer for Layered {
    fn format(&self) -> &'static str {
        self.inner.format()
    }

    fn to_json(&self) -> Value {
        let json = match &self.relocated {
            Some(v) => v.clone(),
            None => self.inner.to_json(),
        };
        let Value::Object(map) = json else {
            return json;
        };
        let mut out = serde_json::Map::new();
        for (k, v) in map {
            let after_format = k == "format";
            out.insert(k, v);
            if after_format {
                for (name, value) in self.layers.fields() {
                    out.insert(name.into(), value);
                }
            }
        }
        Value::Object(out)
    }

    fn view(&self) -> ViewFlags {
        self.inner.view()
    }

    fn verdict(&self) -> Option<Option<bool>> {
        self.inner.verdict()
    }

    fn window(&self) -> Option<WindowCounts> {
        self.inner.window()
    }

    fn next_offset(&self) -> Option<u64> {
        self.inner.next_offset()
    }

    fn layout(&self) -> plumb_core::Layout {
        self.inner.layout()
    }

    fn shape(&self) -> Option<plumb_core::Shape> {
        let mut shape = self.inner.shape()?;
        shape.container = self.layers.container.map(str::to_owned);
        Some(shape)
    }

    fn take_sketches(&mut self) -> Option<Box<dyn std::any::Any + Send>> {
        self.inner.take_sketches()
    }

    /// The engine's answer, so that code that knows the engine's types
    /// still finds them.
    fn as_any(&self) -> &dyn std::any::Any {
        self.inner.as_any()
    }
}
