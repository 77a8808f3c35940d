//! An answer made into a JSON tree no larger than an observation could
//! show.
//!
//! The envelope's `fit` works on a `serde_json::Value`, and a tree costs
//! many times the text it stands for (a 10,000-column inspect is a few
//! megabytes of text and tens of megabytes of tree). Since an observation
//! holds at most [`OBSERVATION_CAP_BYTES`], no list can show more than a
//! few thousand items and no string more than the cap: the answer is
//! written as compact text, then read back into a tree that keeps the
//! first [`OBSERVATION_LIST_ITEMS`] items of each list, and no more than
//! [`OBSERVATION_LIST_BYTES`] of their text (counting the rest, which
//! are skipped unread) and cuts longer strings to
//! [`OBSERVATION_STRING_BYTES`] with the usual `$truncated` placeholder.
//! Each list cut here is noted like a list `fit` trims, with its true
//! total, so the observation says what it left out.
//!
//! serde's `DeserializeSeed` is used rather than a hand-written parser:
//! serde_json's reader is the oracle for the text it wrote, and its
//! recursion limit bounds the depth.

use std::cell::RefCell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{json, Map, Value};

use crate::envelope::{truncated, OBSERVATION_CAP_BYTES};

/// The most items of one list a tool answer's tree holds. A list this
/// long passes 32 KiB unless its items average under 32 bytes, so `fit`
/// would cut it in any case; a list of the very smallest items is cut
/// here instead, and noted the same way. (A select window holds at most
/// 1,000 rows, so windows are never cut here.)
pub const OBSERVATION_LIST_ITEMS: usize = 1024;

/// The most bytes of one string a tool answer's tree holds.
pub const OBSERVATION_STRING_BYTES: usize = OBSERVATION_CAP_BYTES;

/// The text one list's kept items may add up to before the rest are
/// counted, not kept: twice what an observation holds, so `fit` still
/// chooses among more than it can show, while a list of thousands of
/// large items (a wide inspect's columns with their statistics) costs
/// the tree no more than this.
pub const OBSERVATION_LIST_BYTES: usize = 2 * OBSERVATION_CAP_BYTES;

/// The most lists noted one by one; the rest are counted in one note.
const NOTED_LISTS: usize = 16;

/// A tool answer's tree and what was left out of it.
#[derive(Debug)]
pub(crate) struct BoundedJson {
    /// The answer, lists and strings bounded.
    pub value: Value,
    /// `{"field", "kept", "total"}` for each list cut (as `fit` notes them).
    pub trimmed: Vec<Value>,
    /// Whether anything was left out or cut.
    pub cut: bool,
}

#[derive(Default)]
struct Notes {
    trimmed: Vec<Value>,
    more_lists: u64,
    cut: bool,
}

/// JSON text as a bounded tree (see the module docs).
///
/// # Errors
/// A message when the text is not JSON.
#[cfg(test)]
pub(crate) fn bounded_text(text: &[u8]) -> Result<BoundedJson, String> {
    bounded(serde_json::Deserializer::from_slice(text))
}

/// [`bounded_text`] of text read as it comes, never held whole: an answer
/// written into a pipe on one thread is read here on another, so neither
/// its text nor more of its tree than the observation could show is in
/// memory at once.
///
/// # Errors
/// A message when the text is not JSON, or the reader failed.
pub(crate) fn bounded_reader(reader: impl std::io::Read) -> Result<BoundedJson, String> {
    bounded(serde_json::Deserializer::from_reader(reader))
}

fn bounded<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
) -> Result<BoundedJson, String> {
    let notes = RefCell::new(Notes::default());
    let value = Seed {
        at: String::new(),
        notes: &notes,
    }
    .deserialize(&mut de)
    .map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    let mut notes = notes.into_inner();
    if notes.more_lists > 0 {
        notes
            .trimmed
            .push(json!({"field": "(more lists)", "count": notes.more_lists}));
    }
    Ok(BoundedJson {
        value,
        cut: notes.cut,
        trimmed: notes.trimmed,
    })
}

/// Reads one value at pointer `at`.
struct Seed<'n> {
    at: String,
    notes: &'n RefCell<Notes>,
}

impl Seed<'_> {
    fn child(&self, token: &str) -> Seed<'_> {
        let token = token.replace('~', "~0").replace('/', "~1");
        Seed {
            at: format!("{}/{token}", self.at),
            notes: self.notes,
        }
    }

    fn string(&self, s: &str) -> Value {
        if s.len() <= OBSERVATION_STRING_BYTES {
            return Value::from(s);
        }
        self.notes.borrow_mut().cut = true;
        truncated(s, OBSERVATION_STRING_BYTES)
    }
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(self.string(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        let mut bytes = 0;
        while items.len() < OBSERVATION_LIST_ITEMS && bytes <= OBSERVATION_LIST_BYTES {
            match seq.next_element_seed(self.child(&items.len().to_string()))? {
                Some(v) => {
                    bytes += crate::envelope::json_len(&v);
                    items.push(v);
                }
                None => return Ok(Value::Array(items)),
            }
        }
        // Past what an observation could show: counted, not kept.
        let mut skipped = 0u64;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            skipped += 1;
        }
        if skipped > 0 {
            let mut notes = self.notes.borrow_mut();
            notes.cut = true;
            if notes.trimmed.len() < NOTED_LISTS {
                let total = items.len() as u64 + skipped;
                notes
                    .trimmed
                    .push(json!({"field": self.at, "kept": items.len(), "total": total}));
            } else {
                notes.more_lists += 1;
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(self.child(&key))?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text(v: &Value) -> Vec<u8> {
        serde_json::to_vec(v).unwrap()
    }

    #[test]
    fn long_lists_keep_their_first_items_and_say_their_total() {
        let v = json!({"columns": (0..5000).collect::<Vec<_>>(), "n": 1});
        let b = bounded_text(&text(&v)).unwrap();
        let kept = b.value["columns"].as_array().unwrap();
        assert_eq!(kept.len(), OBSERVATION_LIST_ITEMS);
        assert_eq!(kept[1023], json!(1023));
        assert_eq!(b.value["n"], json!(1));
        assert_eq!(
            b.trimmed,
            vec![json!({"field": "/columns", "kept": 1024, "total": 5000})]
        );
        assert!(b.cut);
    }

    #[test]
    fn long_strings_are_cut_with_their_length() {
        let long = "é".repeat(OBSERVATION_STRING_BYTES);
        let v = json!({"a/b": [{"s": long}]});
        let b = bounded_text(&text(&v)).unwrap();
        let cut = &b.value["a/b"][0]["s"];
        assert_eq!(cut["bytes"], json!(long.len()));
        let kept = cut["$truncated"].as_str().unwrap();
        assert!(long.starts_with(kept) && kept.len() <= OBSERVATION_STRING_BYTES);
        assert!(b.cut && b.trimmed.is_empty());
    }

    #[test]
    fn nested_lists_are_noted_by_pointer_and_past_sixteen_counted() {
        let rows: Vec<Value> = (0..20).map(|_| json!(vec![0; 1100])).collect();
        let v = json!({"sample": rows, "we~ird/key": vec![1; 2000]});
        let b = bounded_text(&text(&v)).unwrap();
        assert_eq!(
            b.trimmed[0],
            json!({"field": "/sample/0", "kept": 1024, "total": 1100})
        );
        assert_eq!(b.trimmed.len(), NOTED_LISTS + 1);
        // 21 lists cut: sixteen named, five counted.
        assert_eq!(
            b.trimmed[NOTED_LISTS],
            json!({"field": "(more lists)", "count": 5})
        );
        assert_eq!(b.value["we~ird/key"].as_array().unwrap().len(), 1024);
    }

    #[test]
    fn text_that_is_not_json_is_an_error() {
        assert!(bounded_text(b"{\"a\": [1, 2").is_err());
        assert!(bounded_text(b"[1] 2").is_err());
    }

    fn small_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e300f64..1e300).prop_map(Value::from),
            "\\PC{0,12}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec(("\\PC{0,6}", inner), 0..8)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Within the bounds, the tree is exactly what serde_json reads.
        #[test]
        fn within_bounds_the_tree_is_serde_json_s(v in small_json()) {
            let t = text(&v);
            let b = bounded_text(&t).unwrap();
            let oracle: Value = serde_json::from_slice(&t).unwrap();
            prop_assert_eq!(&b.value, &oracle);
            prop_assert!(b.trimmed.is_empty() && !b.cut);
            // Read as it comes, a byte at a time: the same tree.
            let r = bounded_reader(std::io::BufReader::with_capacity(1, t.as_slice())).unwrap();
            prop_assert_eq!(r.value, oracle);
        }
    }

    #[test]
    fn read_as_it_comes_a_cut_answer_is_cut_the_same_way() {
        let v = json!({"columns": (0..3000).map(|i| json!({"i": i})).collect::<Vec<_>>(),
                       "long": "x".repeat(OBSERVATION_STRING_BYTES + 10)});
        let t = text(&v);
        let whole = bounded_text(&t).unwrap();
        let read = bounded_reader(std::io::BufReader::with_capacity(7, t.as_slice())).unwrap();
        assert_eq!(
            (read.value, read.trimmed, read.cut),
            (whole.value, whole.trimmed, whole.cut)
        );
        assert!(bounded_reader(&b"{\"a\": [1, 2"[..]).is_err());
    }
}
