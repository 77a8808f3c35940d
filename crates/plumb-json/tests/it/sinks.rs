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

/// A generated value for the duplicate-key oracle: objects whose keys
/// come from a few names (so repeats and shared orders are common).
#[derive(Clone, Debug)]
enum Gen {
    Leaf,
    Object(Vec<(usize, Gen)>),
    Array(Vec<Gen>),
}

fn key_name(k: usize) -> String {
    format!("k{k}")
}

fn gen_value() -> impl Strategy<Value = Gen> {
    Just(Gen::Leaf).prop_recursive(3, 200, 40, |inner| {
        prop_oneof![
            // Few names: objects that repeat, extend or reorder another.
            prop::collection::vec((0usize..6, inner.clone()), 0..8).prop_map(Gen::Object),
            // Many names: objects that pass the linear-compare bound.
            prop::collection::vec((0usize..60, inner.clone()), 20..45).prop_map(Gen::Object),
            prop::collection::vec(inner, 0..6).prop_map(Gen::Array),
        ]
    })
}

fn write_gen(g: &Gen, out: &mut String) {
    match g {
        Gen::Leaf => out.push('1'),
        Gen::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_gen(v, out);
            }
            out.push(']');
        }
        Gen::Object(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&format!("\"{}\":", key_name(*k)));
                write_gen(v, out);
            }
            out.push('}');
        }
    }
}

/// The duplicate keys of `g` in document order: (object pointer, key).
fn oracle_duplicates(g: &Gen, pointer: &str, out: &mut Vec<(String, String)>) {
    match g {
        Gen::Leaf => {}
        Gen::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                oracle_duplicates(v, &format!("{pointer}/{i}"), out);
            }
        }
        Gen::Object(members) => {
            let mut seen = std::collections::HashSet::new();
            for (k, v) in members {
                if !seen.insert(*k) {
                    out.push((pointer.to_owned(), key_name(*k)));
                }
                oracle_duplicates(v, &format!("{pointer}/{}", key_name(*k)), out);
            }
        }
    }
}

proptest! {
    /// Duplicate keys as a per-object set finds them, in order, with their
    /// objects' pointers, whatever the objects before at the same level
    /// held (the structure reads keys against the last object's first).
    #[test]
    fn duplicate_keys_match_a_set_per_object(
        values in prop::collection::vec(gen_value(), 1..6),
    ) {
        let root = Gen::Array(values);
        let mut doc = String::new();
        write_gen(&root, &mut doc);
        let mut structure = Structure::default();
        feed(doc.as_bytes(), &mut structure).unwrap();
        let mut expected = Vec::new();
        oracle_duplicates(&root, "", &mut expected);
        let report = structure.duplicates();
        prop_assert_eq!(report.count, expected.len() as u64, "{}", doc);
        prop_assert!(report.checked_fully);
        let found: Vec<(String, String)> = report
            .first
            .iter()
            .map(|d| (d.pointer.clone(), d.key.clone()))
            .collect();
        prop_assert_eq!(&found[..], &expected[..found.len()], "{}", doc);
    }
}
