//! The terminal view's share of an answer: the tree the render reads,
//! within bounds a screen can show, and what it says of what it left out.
//!
//! The bounded reading is plumb-tool's (`answer_tree`, the one the agent
//! surface uses for its observations), here with the screen's bounds.

use serde_json::Value;

use crate::render::{Look, Paint};

/// The most an answer's tree may cost on the way to the screen (its
/// values at the size of a JSON value, plus their text): a terminal view
/// is read by a person, so a wider answer (ten thousand columns, a window
/// of a million empty cells) is shown in part, with a line saying what
/// was left out, and `--json` prints it whole. This bounds the view's
/// memory, which would otherwise be many times the answer's text.
pub const SCREEN_TREE_BYTES: usize = 4 << 20;

/// The longest string a terminal view holds; a longer one shows as
/// `{"$truncated": <its start>, "bytes": <its length>}`.
pub const SCREEN_STRING_BYTES: usize = 64 << 10;

/// How much of an answer a terminal view reads (see
/// [`SCREEN_TREE_BYTES`]). Once it is spent, each list read after keeps
/// its first 16 items (an answer's issues come after its columns), within
/// a reserve of a quarter more.
pub const SCREEN_BOUNDS: plumb_tool::TreeBounds = plumb_tool::TreeBounds {
    list_items: usize::MAX,
    list_bytes: usize::MAX,
    string_bytes: SCREEN_STRING_BYTES,
    tree_bytes: SCREEN_TREE_BYTES,
    reserve_bytes: SCREEN_TREE_BYTES / 4,
    floor_items: 16,
    floor_string_bytes: 256,
    column_offset: 0,
};

/// The key under which the terminal view's cuts ride in the tree it
/// renders (`{"field", "kept", "total"}` each): never in `--json`.
const SCREEN_CUT_KEY: &str = "$screen_cut";

/// How many items the list at top-level `key` of the answer holds: the
/// items in the tree, plus any the terminal view left out.
pub(crate) fn listed(a: &Value, key: &str) -> u64 {
    let kept = a[key].as_array().map_or(0, Vec::len) as u64;
    let pointer = format!("/{key}");
    a[SCREEN_CUT_KEY]
        .as_array()
        .into_iter()
        .flatten()
        .find(|n| n["field"] == pointer.as_str())
        .and_then(|n| n["total"].as_u64())
        .unwrap_or(kept)
}

/// The note that says what the terminal view left out of the answer,
/// empty when nothing was: the first three lists cut, by JSON Pointer,
/// then how many more.
pub(crate) fn cut_note(a: &Value, look: &Look) -> String {
    const NAMED: usize = 3;
    let Some(cuts) = a[SCREEN_CUT_KEY].as_array().filter(|c| !c.is_empty()) else {
        return String::new();
    };
    let mut named = Vec::new();
    let mut more = 0u64;
    for c in cuts {
        match (c["field"].as_str(), c["kept"].as_u64(), c["total"].as_u64()) {
            (Some(f), Some(kept), Some(total)) if named.len() < NAMED => {
                named.push(format!("{f} shows {kept} of {total} items"));
            }
            (Some(_), Some(_), Some(_)) => more += 1,
            _ => more += c["count"].as_u64().unwrap_or(0),
        }
    }
    if more > 0 {
        named.push(format!(
            "{more} more list{} cut",
            if more == 1 { "" } else { "s" }
        ));
    }
    let text = format!(
        "the answer is too large for the terminal view and is shown in part ({}); --json prints it whole",
        named.join(", ")
    );
    look.paint(&look.wrap("note: ", &text, 6), Paint::Warn)
}

/// The answer's tree within [`SCREEN_BOUNDS`], the typed answer written
/// out and freed as it is read; the lists cut ride under
/// [`SCREEN_CUT_KEY`] for [`listed`] and [`cut_note`].
///
/// # Errors
/// A message when the answer could not be written out or read back.
pub(crate) fn tree(answer: Box<dyn plumb::Answer>) -> Result<Value, String> {
    let t = plumb_tool::answer_tree(answer, SCREEN_BOUNDS)?;
    let mut v = t.value;
    if !t.trimmed.is_empty() {
        v[SCREEN_CUT_KEY] = Value::Array(t.trimmed);
    }
    Ok(v)
}
