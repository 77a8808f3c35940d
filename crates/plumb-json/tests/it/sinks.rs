//! The sink adapters and the sinks the crate's own types are: a tee hears
//! what each side would hear alone, stops when either stops, and ends
//! both; `None` hears nothing; the builder and the structure give, as
//! sinks, what they give when fed by hand.

use std::ops::ControlFlow;

use plumb_core::{Refusal, RefusalReason};
use plumb_json::{JsonParser, JsonSink, Null, Scalar, Structure, Tee, ValueBuilder};
use proptest::prelude::*;

use crate::util::Log;

fn feed<S: JsonSink>(text: &[u8], sink: &mut S) -> Result<(), Refusal> {
    let mut p = JsonParser::new();
    p.push(text, sink)?;
    p.finish(sink)?;
    sink.finish()
}

/// Stops after `after` scalars, and refuses at the end if it stopped.
struct StopAfter {
    after: usize,
    seen: usize,
}

impl JsonSink for StopAfter {
    fn scalar(&mut self, _: &Scalar<'_>) -> ControlFlow<()> {
        self.seen += 1;
        if self.seen >= self.after {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
    fn finish(&mut self) -> Result<(), Refusal> {
        if self.seen >= self.after {
            Err(Refusal::invalid_argument("stopped"))
        } else {
            Ok(())
        }
    }
}

const DOCS: [&str; 4] = [
    r#"{"a": [1, "x", {"b": null}], "a": true}"#,
    r#"[1.5, 2, 9007199254740993, "long string with \u00e9scape"]"#,
    r#""just a string""#,
    r#"{"k": {"k": {"k": []}}}"#,
];

#[test]
fn a_tee_hears_what_each_side_hears_alone() {
    for doc in DOCS {
        let mut alone = Log::default();
        feed(doc.as_bytes(), &mut alone).unwrap();
        let mut tee = Tee(Log::default(), Tee(Null, Some(Log::default())));
        feed(doc.as_bytes(), &mut tee).unwrap();
        let Tee(left, Tee(Null, right)) = tee;
        assert_eq!(left, alone, "{doc}");
        assert_eq!(right.unwrap(), alone, "{doc}");
        // None hears nothing, and asks for no strings.
        let mut none: Option<Log> = None;
        feed(doc.as_bytes(), &mut none).unwrap();
        assert!(!none.capture_strings() && !Null.capture_strings());
    }
}

#[test]
fn the_builder_and_the_structure_as_sinks_match_their_hand_fed_selves() {
    for doc in DOCS {
        let mut as_sink = Tee(Structure::default(), ValueBuilder::new(1 << 20));
        feed(doc.as_bytes(), &mut as_sink).unwrap();
        let Tee(structure, builder) = as_sink;
        let parsed: serde_json::Value = serde_json::from_str(doc).unwrap();
        let built: serde_json::Value = serde_json::from_str(builder.finish().json.get()).unwrap();
        // The one number a double misstates is a placeholder, not rounded.
        if doc.contains("9007199254740993") {
            assert_eq!(built[2]["$literal"], "9007199254740993");
        } else {
            assert_eq!(built, parsed, "{doc}");
        }
        let dups = u64::from(doc.matches("\"a\":").count() > 1);
        assert_eq!(structure.duplicates().count, dups, "{doc}");
    }
}

#[test]
fn a_tee_stops_when_either_side_stops_and_ends_both() {
    let doc = br#"[1, 2, 3, 4, 5]"#;
    let mut tee = Tee(Log::default(), StopAfter { after: 2, seen: 0 });
    let e = feed(doc, &mut tee).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::InvalidArgument);
    // The side that did not stop heard the event that stopped the parse,
    // and nothing after it.
    let Tee(log, stop) = tee;
    assert_eq!(stop.seen, 2);
    assert_eq!(log.0.iter().filter(|e| e.starts_with("num")).count(), 2);
}

proptest! {
    /// Any split of any of the documents: a tee of two logs is two copies
    /// of the log, wherever the pushes were cut.
    #[test]
    fn a_tee_is_chunking_blind(doc in 0..DOCS.len(), cut in 0usize..64) {
        let text = DOCS[doc].as_bytes();
        let cut = cut.min(text.len());
        let mut whole = Log::default();
        feed(text, &mut whole).unwrap();
        let mut tee = Tee(Log::default(), Box::new(Log::default()));
        let mut p = JsonParser::new();
        p.push(&text[..cut], &mut tee).unwrap();
        p.push(&text[cut..], &mut tee).unwrap();
        p.finish(&mut tee).unwrap();
        prop_assert_eq!(&tee.0, &whole);
        prop_assert_eq!(&*tee.1, &whole);
    }
}
