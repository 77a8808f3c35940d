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
//!
//! Reference: the whole answer's tree, cut afterwards. Held equal by:
//! `bounded.rs::tests::read_as_it_comes_a_cut_answer_is_cut_the_same_way`.

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

/// What a tree costs per value beyond its text: the size of a
/// `serde_json::Value`, which every scalar, list and member takes.
const VALUE_COST: usize = std::mem::size_of::<Value>();

/// How much of an answer a bounded tree keeps.
///
/// Each list keeps its first `list_items` items, and stops sooner once
/// its kept items' text passes `list_bytes`; each string keeps at most
/// `string_bytes`. The whole tree is also held to `tree_bytes` (its
/// values counted at the size of a `serde_json::Value` plus their text):
/// past that, each list keeps at most `floor_items` items and each
/// string `floor_string_bytes`, so the lists read last (an answer's
/// issues, after its columns) still show their first few; past
/// `tree_bytes + reserve_bytes`, lists and objects keep nothing more,
/// except the answer's own top-level members. Whatever is not kept is
/// counted and noted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeBounds {
    /// The most items one list keeps.
    pub list_items: usize,
    /// The text (compact JSON) one list's kept items may add up to;
    /// `usize::MAX` for no such bound (items are then never measured).
    pub list_bytes: usize,
    /// The longest string kept whole, in bytes.
    pub string_bytes: usize,
    /// What the whole tree may cost before the floor applies.
    pub tree_bytes: usize,
    /// What the tree may cost past `tree_bytes`, under the floor.
    pub reserve_bytes: usize,
    /// The most items a list keeps once `tree_bytes` is spent.
    pub floor_items: usize,
    /// The longest string kept once `tree_bytes` is spent.
    pub floor_string_bytes: usize,
    /// Items passed over, before any is kept, at the start of each list
    /// of a table's columns: `/columns`, `/sheets/N/columns`, `/header`
    /// and the cells of each `/sample/N` row (an inspect's column window,
    /// see [`crate::window_columns`]). They are counted in
    /// [`BoundedJson::columns_total`], never noted as cut.
    pub column_offset: usize,
}

impl TreeBounds {
    /// The bounds of a tool answer's tree (see the module docs): by list
    /// and string only, as the envelope's `fit` cuts further.
    pub const OBSERVATION: TreeBounds = TreeBounds {
        list_items: OBSERVATION_LIST_ITEMS,
        list_bytes: OBSERVATION_LIST_BYTES,
        string_bytes: OBSERVATION_STRING_BYTES,
        tree_bytes: usize::MAX,
        reserve_bytes: 0,
        floor_items: 0,
        floor_string_bytes: 0,
        column_offset: 0,
    };
}

/// Whether the list at pointer `at` is one a column window applies to
/// (see [`TreeBounds::column_offset`]).
fn is_column_list(at: &str) -> bool {
    column_list_kind(at).is_some()
}

/// `Some(true)` for a list of a table's columns themselves (`/columns`,
/// `/sheets/N/columns`), `Some(false)` for a list that follows them (a
/// header, a sample row's cells), `None` for any other.
fn column_list_kind(at: &str) -> Option<bool> {
    let parts: Vec<&str> = at.split('/').skip(1).collect();
    let index = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    match parts.as_slice() {
        ["columns"] => Some(true),
        ["sheets", i, "columns"] if index(i) => Some(true),
        ["header"] => Some(false),
        ["sample", i] if index(i) => Some(false),
        _ => None,
    }
}

/// An answer's tree and what was left out of it.
#[derive(Debug)]
pub struct BoundedJson {
    /// The answer, lists, objects and strings bounded.
    pub value: Value,
    /// `{"field", "kept", "total"}` for each list or object cut (as
    /// `fit` notes them; `field` is a JSON Pointer), at most sixteen,
    /// then `{"field": "(more lists)", "count"}`.
    pub trimmed: Vec<Value>,
    /// Whether anything was left out or cut (a string included).
    pub cut: bool,
    /// The longest list of a table's columns (`/columns`, or a sheet's),
    /// counted whole: the items a column window passed over, kept, and
    /// left out; `None` when the answer has no such list.
    pub columns_total: Option<u64>,
}

#[derive(Default)]
struct Notes {
    trimmed: Vec<Value>,
    more_lists: u64,
    cut: bool,
    columns_total: Option<u64>,
    /// What the kept tree costs so far (see [`TreeBounds`]).
    spent: usize,
}

impl Notes {
    fn note(&mut self, at: &str, kept: usize, skipped: u64) {
        self.cut = true;
        if self.trimmed.len() < NOTED_LISTS {
            let total = kept as u64 + skipped;
            self.trimmed
                .push(json!({"field": at, "kept": kept, "total": total}));
        } else {
            self.more_lists += 1;
        }
    }
}

/// JSON text as a bounded tree (see the module docs).
///
/// # Errors
/// A message when the text is not JSON.
#[cfg(test)]
pub(crate) fn bounded_text(text: &[u8], bounds: TreeBounds) -> Result<BoundedJson, String> {
    bounded(serde_json::Deserializer::from_slice(text), bounds)
}

/// [`bounded_text`] of text read as it comes, never held whole: an answer
/// written into a pipe on one thread is read here on another, so neither
/// its text nor more of its tree than the observation could show is in
/// memory at once.
///
/// # Errors
/// A message when the text is not JSON, or the reader failed.
pub(crate) fn bounded_reader(
    reader: impl std::io::Read,
    bounds: TreeBounds,
) -> Result<BoundedJson, String> {
    bounded(serde_json::Deserializer::from_reader(reader), bounds)
}

/// An answer's JSON as a tree within `bounds`, its text never held
/// whole: it is written into a pipe on a thread of its own (which frees
/// the answer once written) and read from the other end here. A reader
/// that stops early closes its end, so the writer ends too.
///
/// # Errors
/// A message when the pipe or the writing failed.
pub fn answer_tree(
    answer: Box<dyn plumb::Answer>,
    bounds: TreeBounds,
) -> Result<BoundedJson, String> {
    let (reader, writer) = std::io::pipe().map_err(|e| e.to_string())?;
    std::thread::scope(|s| {
        let written = s.spawn(move || {
            let mut out = std::io::BufWriter::with_capacity(64 << 10, writer);
            answer
                .write_json(&mut out)
                .and_then(|()| std::io::Write::flush(&mut out))
        });
        let read = bounded_reader(std::io::BufReader::with_capacity(64 << 10, reader), bounds);
        let written = written
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("writing the answer failed")));
        // The reader's fault is the first; a writer that met a closed
        // pipe only followed it.
        let bounded = read?;
        written.map_err(|e| e.to_string())?;
        Ok(bounded)
    })
}

fn bounded<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
    bounds: TreeBounds,
) -> Result<BoundedJson, String> {
    let notes = RefCell::new(Notes::default());
    let value = Seed {
        at: String::new(),
        notes: &notes,
        bounds: &bounds,
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
        columns_total: notes.columns_total,
    })
}

/// Reads one value at pointer `at`.
struct Seed<'n> {
    at: String,
    notes: &'n RefCell<Notes>,
    bounds: &'n TreeBounds,
}

impl Seed<'_> {
    fn child(&self, token: &str) -> Seed<'_> {
        let token = token.replace('~', "~0").replace('/', "~1");
        Seed {
            at: format!("{}/{token}", self.at),
            notes: self.notes,
            bounds: self.bounds,
        }
    }

    /// The most items a list or object may hold now, given what the tree
    /// has spent.
    fn room(&self, full: usize) -> usize {
        let spent = self.notes.borrow().spent;
        let b = self.bounds;
        if spent < b.tree_bytes {
            full
        } else if spent < b.tree_bytes.saturating_add(b.reserve_bytes) {
            full.min(b.floor_items)
        } else {
            0
        }
    }

    /// Whether the tree has spent its bounds and reserve.
    fn spent_all(&self) -> bool {
        self.room(usize::MAX) == 0
    }

    fn spend(&self, bytes: usize) {
        let mut notes = self.notes.borrow_mut();
        notes.spent = notes.spent.saturating_add(VALUE_COST + bytes);
    }

    fn string(&self, s: &str) -> Value {
        let max = if self.notes.borrow().spent < self.bounds.tree_bytes {
            self.bounds.string_bytes
        } else {
            self.bounds.floor_string_bytes
        };
        if s.len() <= max {
            self.spend(s.len());
            return Value::from(s);
        }
        self.spend(max);
        self.notes.borrow_mut().cut = true;
        truncated(s, max)
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
        self.spend(0);
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        self.spend(0);
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        self.spend(0);
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        self.spend(0);
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(self.string(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        self.spend(0);
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        self.spend(0);
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.spend(0);
        let columns = self.bounds.column_offset > 0 && is_column_list(&self.at);
        let mut passed = 0u64;
        if columns {
            while passed < self.bounds.column_offset as u64 {
                if seq.next_element::<IgnoredAny>()?.is_none() {
                    break;
                }
                passed += 1;
            }
        }
        let mut items = Vec::new();
        let mut bytes = 0;
        let measured = self.bounds.list_bytes != usize::MAX;
        let mut ended = false;
        while items.len() < self.room(self.bounds.list_items) && bytes <= self.bounds.list_bytes {
            match seq.next_element_seed(self.child(&items.len().to_string()))? {
                Some(v) => {
                    if measured {
                        bytes += crate::envelope::json_len(&v);
                    }
                    items.push(v);
                }
                None => {
                    ended = true;
                    break;
                }
            }
        }
        // Past the bounds: counted, not kept.
        let mut skipped = 0u64;
        while !ended && seq.next_element::<IgnoredAny>()?.is_some() {
            skipped += 1;
        }
        if skipped > 0 {
            self.notes.borrow_mut().note(&self.at, items.len(), skipped);
        }
        if column_list_kind(&self.at) == Some(true) {
            let whole = passed + items.len() as u64 + skipped;
            let mut notes = self.notes.borrow_mut();
            notes.columns_total = Some(notes.columns_total.map_or(whole, |t| t.max(whole)));
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.spend(0);
        let mut out = Map::new();
        let mut skipped = 0u64;
        while let Some(key) = map.next_key::<String>()? {
            // An answer's own objects are small and their members name
            // what the lists mean, so an object keeps every member until
            // the tree is spent; only an object of the file's (a JSON
            // select's value) is long enough to matter. The answer itself
            // keeps every member (its lists and strings are bounded).
            if skipped > 0 || (!self.at.is_empty() && self.spent_all()) {
                map.next_value::<IgnoredAny>()?;
                skipped += 1;
                continue;
            }
            self.spend(key.len());
            let value = map.next_value_seed(self.child(&key))?;
            out.insert(key, value);
        }
        if skipped > 0 {
            self.notes.borrow_mut().note(&self.at, out.len(), skipped);
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
        let b = bounded_text(&text(&v), TreeBounds::OBSERVATION).unwrap();
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
        let b = bounded_text(&text(&v), TreeBounds::OBSERVATION).unwrap();
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
        let b = bounded_text(&text(&v), TreeBounds::OBSERVATION).unwrap();
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

    /// Bounds by the whole tree: 100 values' worth, then four items a
    /// list within a reserve of eight values more.
    const SMALL_TREE: TreeBounds = TreeBounds {
        list_items: usize::MAX,
        list_bytes: usize::MAX,
        string_bytes: 1000,
        tree_bytes: 100 * VALUE_COST,
        reserve_bytes: 8 * VALUE_COST,
        floor_items: 4,
        floor_string_bytes: 3,
        column_offset: 0,
    };

    #[test]
    fn a_tree_past_its_bytes_keeps_a_floor_of_each_later_list_then_nothing() {
        let v = json!({
            "columns": (0..1000).collect::<Vec<_>>(),
            "issues": ["first issue", "b", "c", "d", "e", "f"],
            "count": 7,
            "value": {"deep": (0..1000).collect::<Vec<_>>()},
            "sample": [[1, 2], [3, 4]],
            "last": "ok",
        });
        let b = bounded_text(&text(&v), SMALL_TREE).unwrap();
        // The first list spends the budget: it stops where the tree does.
        let columns = b.value["columns"].as_array().unwrap();
        assert!(
            columns.len() < 100 && columns.len() > 90,
            "{}",
            columns.len()
        );
        assert_eq!(
            columns[..5],
            [json!(0), json!(1), json!(2), json!(3), json!(4)]
        );
        // A later list keeps the floor, its strings cut to the floor.
        let issues = b.value["issues"].as_array().unwrap();
        assert_eq!(issues.len(), 4);
        assert_eq!(issues[0]["$truncated"], "fir");
        assert_eq!(issues[0]["bytes"], 11);
        assert_eq!(issues[1], "b");
        // The reserve spent, lists and nested objects keep nothing more,
        // but the answer keeps every top-level member.
        assert_eq!(b.value["count"], 7);
        assert_eq!(b.value["last"], "ok");
        assert!(b.value["sample"].as_array().unwrap().is_empty());
        let fields: Vec<&str> = b
            .trimmed
            .iter()
            .map(|n| n["field"].as_str().unwrap())
            .collect();
        assert_eq!(fields[..2], ["/columns", "/issues"]);
        assert_eq!(b.trimmed[0]["total"], 1000);
        assert_eq!(
            b.trimmed[1],
            json!({"field": "/issues", "kept": 4, "total": 6})
        );
        assert!(fields.contains(&"/sample"), "{fields:?}");
        assert!(b.cut);
    }

    #[test]
    fn an_object_of_the_files_past_the_tree_is_cut_and_noted() {
        let big: Map<String, Value> = (0..500).map(|i| (format!("k{i}"), json!(i))).collect();
        let v = json!({"value": big});
        let b = bounded_text(&text(&v), SMALL_TREE).unwrap();
        let kept = b.value["value"].as_object().unwrap();
        assert!(kept.len() < 100, "{}", kept.len());
        // serde_json's map is ordered by key here; what is kept is what
        // came first in the text.
        assert_eq!(kept["k0"], 0);
        assert_eq!(
            b.trimmed,
            vec![json!({"field": "/value", "kept": kept.len(), "total": 500})]
        );
    }

    #[test]
    fn text_that_is_not_json_is_an_error() {
        assert!(bounded_text(b"{\"a\": [1, 2", TreeBounds::OBSERVATION).is_err());
        assert!(bounded_text(b"[1] 2", TreeBounds::OBSERVATION).is_err());
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
            let b = bounded_text(&t, TreeBounds::OBSERVATION).unwrap();
            let oracle: Value = serde_json::from_slice(&t).unwrap();
            prop_assert_eq!(&b.value, &oracle);
            prop_assert!(b.trimmed.is_empty() && !b.cut);
            // Read as it comes, a byte at a time: the same tree.
            let r = bounded_reader(std::io::BufReader::with_capacity(1, t.as_slice()), TreeBounds::OBSERVATION).unwrap();
            prop_assert_eq!(r.value, oracle);
        }
    }

    /// `kept` is `whole` with lists and objects cut to a leading part and
    /// strings to a `$truncated` prefix.
    fn is_cut_of(kept: &Value, whole: &Value) -> bool {
        match (kept, whole) {
            (Value::Array(k), Value::Array(w)) => {
                k.len() <= w.len() && k.iter().zip(w).all(|(a, b)| is_cut_of(a, b))
            }
            (Value::Object(k), Value::Object(w)) => {
                k.len() <= w.len()
                    && k.iter()
                        .zip(w)
                        .all(|((ka, a), (kb, b))| ka == kb && is_cut_of(a, b))
            }
            (Value::Object(k), Value::String(w)) => {
                k["$truncated"].as_str().is_some_and(|p| w.starts_with(p)) && k["bytes"] == w.len()
            }
            (k, w) => k == w,
        }
    }

    fn values(v: &Value) -> usize {
        1 + match v {
            Value::Array(a) => a.iter().map(values).sum(),
            Value::Object(m) => m.values().map(values).sum(),
            _ => 0,
        }
    }

    proptest! {
        /// Under a tree bound, what is kept is a leading part of the
        /// answer, never more values than the bound and reserve hold
        /// (plus the answer's own members and the values in flight).
        #[test]
        fn a_bounded_tree_is_a_leading_cut_of_the_answer(
            v in prop::collection::vec(small_json(), 0..40).prop_map(Value::Array),
        ) {
            let t = text(&json!({"a": v.clone(), "b": v}));
            // What serde_json reads back is the answer (a float's last
            // digit may differ from the one written).
            let v: Value = serde_json::from_slice(&t).unwrap();
            let b = bounded_text(&t, SMALL_TREE).unwrap();
            prop_assert!(is_cut_of(&b.value, &v));
            prop_assert!(values(&b.value) <= 108 + 3 + 8, "{}", values(&b.value));
            prop_assert_eq!(b.cut, b.value != v);
        }
    }

    #[test]
    fn read_as_it_comes_a_cut_answer_is_cut_the_same_way() {
        let v = json!({"columns": (0..3000).map(|i| json!({"i": i})).collect::<Vec<_>>(),
                       "long": "x".repeat(OBSERVATION_STRING_BYTES + 10)});
        let t = text(&v);
        let whole = bounded_text(&t, TreeBounds::OBSERVATION).unwrap();
        let read = bounded_reader(
            std::io::BufReader::with_capacity(7, t.as_slice()),
            TreeBounds::OBSERVATION,
        )
        .unwrap();
        assert_eq!(
            (read.value, read.trimmed, read.cut),
            (whole.value, whole.trimmed, whole.cut)
        );
        assert!(bounded_reader(&b"{\"a\": [1, 2"[..], TreeBounds::OBSERVATION).is_err());
    }
}
