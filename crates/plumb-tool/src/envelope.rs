//! The observation envelope: every answer a tool gives fits in
//! [`OBSERVATION_CAP_BYTES`] of JSON, says what it is a view of, and says
//! how to continue.
//!
//! The cap is reserved before any reading starts (from an optional
//! session budget) and reconciled when the answer is known: unused bytes
//! go back. An answer that would not fit is made to fit without cutting a
//! value in the middle: a select window is shortened (and says so, with
//! the offset to continue from); a long list (columns, keys) keeps its
//! first entries and records how many it had; only a single value that
//! alone outgrows the cap has its longest strings shortened, marked.

use std::sync::{Arc, Mutex};

use serde_json::{json, Map, Value};

use plumb_core::{cap_text, Refusal, RefusalReason};

/// The most bytes of JSON one observation may take.
pub const OBSERVATION_CAP_BYTES: usize = 32 * 1024;

/// Below this, no useful answer fits: the call is refused
/// `budget-exhausted` rather than answered with nothing.
pub const OBSERVATION_MIN_BYTES: usize = 1024;

/// A session's total observation budget, shared by every call.
#[derive(Debug, Clone, Default)]
pub struct Budget(Option<Arc<Mutex<u64>>>);

impl Budget {
    /// No session limit: every call gets the full per-call cap.
    pub fn unlimited() -> Budget {
        Budget(None)
    }

    /// A session limit of `bytes` across all calls.
    pub fn limited(bytes: u64) -> Budget {
        Budget(Some(Arc::new(Mutex::new(bytes))))
    }

    /// Reserves the cap for one call before any reading.
    ///
    /// # Errors
    /// `budget-exhausted` when less than [`OBSERVATION_MIN_BYTES`] remain.
    pub fn reserve(&self) -> Result<Reservation, Refusal> {
        let Some(pool) = &self.0 else {
            return Ok(Reservation {
                bytes: OBSERVATION_CAP_BYTES,
                pool: None,
            });
        };
        let mut left = pool
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let take = (*left).min(OBSERVATION_CAP_BYTES as u64);
        if take < OBSERVATION_MIN_BYTES as u64 {
            return Err(Refusal::new(
                RefusalReason::BudgetExhausted,
                format!(
                    "the observation budget has {} bytes left, too few for an answer; start a new session or ask a narrower question",
                    *left
                ),
            ));
        }
        *left -= take;
        Ok(Reservation {
            bytes: take as usize,
            pool: Some(pool.clone()),
        })
    }

    /// Bytes left in the session (None when unlimited).
    pub fn remaining(&self) -> Option<u64> {
        self.0
            .as_ref()
            .map(|p| *p.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }
}

/// Bytes held for one call; unused bytes return to the pool on settle
/// (or all of them on drop, for a call that failed).
#[derive(Debug)]
pub struct Reservation {
    bytes: usize,
    pool: Option<Arc<Mutex<u64>>>,
}

impl Reservation {
    /// The bytes this call may use.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Charges what the answer used and returns the rest.
    pub fn settle(mut self, used: usize) {
        if let Some(pool) = self.pool.take() {
            let back = self.bytes.saturating_sub(used) as u64;
            *pool
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) += back;
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.take() {
            *pool
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) += self.bytes as u64;
        }
    }
}

/// The length of a value's compact JSON.
pub fn json_len(v: &Value) -> usize {
    serde_json::to_vec(v).map_or(usize::MAX, |b| b.len())
}

const WINDOW_FIELDS: [&str; 4] = ["rows", "records", "items", "hits"];

/// Shortens a select window to the most leading items that fit; returns
/// `(kept, total)` when it had to.
fn shorten_window(envelope: &mut Value, cap: usize) -> Option<(usize, usize)> {
    let field = {
        let result = envelope.get("result")?;
        WINDOW_FIELDS
            .into_iter()
            .find(|f| result.get(*f).is_some_and(Value::is_array))?
    };
    let items = envelope["result"][field].as_array()?.clone();
    let total = items.len();
    let fits = |env: &mut Value, k: usize| {
        env["result"][field] = Value::Array(items[..k].to_vec());
        json_len(env) <= cap
    };
    let (mut lo, mut hi) = (0usize, total);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(envelope, mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    // An item too large to fit whole still travels, alone, with its
    // longest strings cut below: a window that returned nothing would
    // send the caller back to the offset it asked for, forever.
    let lo = lo.max(usize::from(total > 0));
    envelope["result"][field] = Value::Array(items[..lo].to_vec());
    let offset = envelope["result"]
        .get("offset")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    // A window counted from the end (no offset from the start) goes on
    // by a smaller negative offset.
    let from_end = envelope["result"]
        .get("offset")
        .is_some_and(Value::is_null)
        .then(|| envelope["result"].get("from_end").and_then(Value::as_u64))
        .flatten();
    // A search goes on after its last kept hit, in the unit of its
    // format (a text hit's 1-based line is the next 0-based one).
    let next = match (field, lo.checked_sub(1).map(|i| &items[i])) {
        ("hits", Some(hit)) => ["row", "record", "index"]
            .iter()
            .find_map(|k| hit.get(*k).and_then(Value::as_u64).map(|n| n + 1))
            .or_else(|| hit.get("line").and_then(Value::as_u64))
            .unwrap_or(offset),
        _ => offset + lo as u64,
    };
    let next = match from_end {
        Some(n) if field != "hits" => format!("-{}", n.saturating_sub(lo as u64)),
        _ => next.to_string(),
    };
    if let Some(r) = envelope["result"].as_object_mut() {
        r.insert("returned".into(), Value::from(lo));
        r.insert("has_more".into(), Value::from(true));
        r.insert("shortened".into(), Value::from(true));
        if field == "hits" {
            r.insert(
                "next_offset".into(),
                Value::from(next.parse::<u64>().unwrap_or(0)),
            );
            r.insert("total_exact".into(), Value::from(false));
        }
    }
    if let Some(c) = envelope.get_mut("counts").and_then(Value::as_object_mut) {
        c.insert("returned".into(), Value::from(lo));
        c.insert("has_more".into(), Value::from(true));
    }
    envelope["hint"] = Value::from(format!(
        "the window was shortened to {lo} of {total} to fit the {cap}-byte observation; continue with offset={next}"
    ));
    Some((lo, total))
}

/// The room kept free for the `trimmed` notes while lists are trimmed.
const TRIM_NOTES_BYTES: usize = 2048;

/// Finds the largest array (with `arrays`) or the largest object other
/// than the answer itself (without) under `v` that has more than one
/// member; returns its JSON length and pointer. Lists are trimmed before
/// any object loses a member, and the answer's own fields never do.
fn largest_container(v: &Value, at: &str, arrays: bool, best: &mut Option<(usize, String)>) {
    let (is_array, members) = match v {
        Value::Array(a) => (true, a.len()),
        Value::Object(m) => (false, m.len()),
        _ => return,
    };
    let eligible = members > 1 && is_array == arrays && !at.is_empty();
    if eligible {
        let len = json_len(v);
        if best.as_ref().is_none_or(|(l, _)| len > *l) {
            *best = Some((len, at.to_owned()));
        }
    }
    match v {
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                largest_container(x, &format!("{at}/{i}"), arrays, best);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                let t = k.replace('~', "~0").replace('/', "~1");
                largest_container(x, &format!("{at}/{t}"), arrays, best);
            }
        }
        _ => {}
    }
}

fn keep_first(v: &mut Value, k: usize) {
    match v {
        Value::Array(a) => a.truncate(k),
        Value::Object(m) => {
            let kept: Map<String, Value> = std::mem::take(m).into_iter().take(k).collect();
            *m = kept;
        }
        _ => {}
    }
}

/// The placeholder of a string cut to at most `max` bytes (whole
/// characters): `{"$truncated": "<kept prefix>", "bytes": <full length>}`.
pub(crate) fn truncated(s: &str, max: usize) -> Value {
    json!({"$truncated": cap_text(s, max).0, "bytes": s.len()})
}

fn cut_long_strings(v: &mut Value, max: usize) -> bool {
    let mut cut = false;
    match v {
        Value::String(s) if s.len() > max => {
            *v = truncated(s, max);
            cut = true;
        }
        Value::Array(a) => {
            for x in a {
                cut |= cut_long_strings(x, max);
            }
        }
        // Already a placeholder: shorten its kept prefix in place, and
        // keep the full length it states.
        Value::Object(m) if m.get("$truncated").is_some_and(Value::is_string) => {
            if let Some(Value::String(kept)) = m.get_mut("$truncated") {
                let end = cap_text(kept, max).0.len();
                if end < kept.len() {
                    kept.truncate(end);
                    cut = true;
                }
            }
        }
        Value::Object(m) => {
            for (_, x) in m.iter_mut() {
                cut |= cut_long_strings(x, max);
            }
        }
        _ => {}
    }
    cut
}

/// Makes `envelope` fit `cap` bytes of JSON; returns whether anything
/// was trimmed (the view is then marked cut).
pub fn fit(envelope: &mut Value, cap: usize) -> bool {
    fit_noted(envelope, cap, Vec::new())
}

/// [`fit`] for a result whose lists were already cut as it was made
/// (see [`bounded_json`](crate::bounded_json)): `trimmed` notes them,
/// each with its true total, which a further trim keeps. The notes go
/// into the envelope even when nothing more is trimmed; returns whether
/// anything was trimmed, here or before.
pub(crate) fn fit_noted(envelope: &mut Value, cap: usize, trimmed: Vec<Value>) -> bool {
    let notes = serde_json::to_vec(&trimmed).map_or(usize::MAX, |b| b.len());
    if json_len(envelope) <= cap.saturating_sub(notes) {
        if trimmed.is_empty() {
            return false;
        }
        envelope["trimmed"] = Value::Array(trimmed);
        return true;
    }
    let mut trimmed = trimmed;
    if let Some((kept, _)) = shorten_window(envelope, cap) {
        if json_len(envelope) <= cap {
            return true;
        }
        if kept == 1 {
            // One item alone is too large: cut its longest strings (each
            // says its full length) before any of its members is dropped.
            let field = WINDOW_FIELDS
                .into_iter()
                .find(|f| envelope["result"].get(*f).is_some_and(Value::is_array));
            if let Some(field) = field {
                let mut max = 4096;
                while json_len(envelope) > cap && max >= 16 {
                    cut_long_strings(&mut envelope["result"][field][0], max);
                    max /= 2;
                }
                if json_len(envelope) <= cap {
                    return true;
                }
            }
        }
    }
    // Room for the `trimmed` notes this loop adds.
    let room = cap.saturating_sub(TRIM_NOTES_BYTES);
    // Each round halves the largest list at most (or cuts just what is
    // over): lists shrink together, so a wide answer keeps some columns,
    // some header names and some sample cells rather than one of each.
    for _ in 0..64 {
        let over = json_len(envelope).saturating_sub(room);
        if over == 0 {
            break;
        }
        let mut best = None;
        largest_container(&envelope["result"], "", true, &mut best);
        if best.is_none() {
            largest_container(&envelope["result"], "", false, &mut best);
        }
        let Some((_, pointer)) = best else { break };
        let Some(slot) = envelope["result"].pointer_mut(&pointer) else {
            break;
        };
        // Each member's size once, then the envelope with the container
        // emptied: the most leading members that fit follow by addition,
        // with no trial copies of a large answer.
        let sizes: Vec<usize> = match &*slot {
            Value::Array(a) => a.iter().map(json_len).collect(),
            Value::Object(m) => m
                .iter()
                .map(|(k, v)| json_len(&Value::from(k.as_str())) + 1 + json_len(v))
                .collect(),
            _ => break,
        };
        let taken = match slot {
            Value::Array(_) => std::mem::replace(slot, Value::Array(Vec::new())),
            _ => std::mem::replace(slot, Value::Object(Map::new())),
        };
        let full: usize = sizes.iter().sum::<usize>() + sizes.len().saturating_sub(1);
        let target = full.saturating_sub(over).max(full / 2);
        let mut used = 0usize;
        let mut keep = 0usize;
        for size in &sizes {
            let add = size + usize::from(keep > 0);
            if used + add > target {
                break;
            }
            used += add;
            keep += 1;
        }
        let keep = keep.clamp(1, sizes.len() - 1);
        let mut kept = taken;
        keep_first(&mut kept, keep);
        if let Some(slot) = envelope["result"].pointer_mut(&pointer) {
            *slot = kept;
        }
        let total = sizes.len();
        match trimmed
            .iter_mut()
            .find(|t: &&mut Value| t["field"] == pointer.as_str())
        {
            // A list trimmed again keeps its first total.
            Some(note) => note["kept"] = Value::from(keep),
            None => trimmed.push(json!({"field": pointer, "kept": keep, "total": total})),
        }
    }
    let mut max = 4096;
    while json_len(envelope) > cap && max >= 16 {
        cut_long_strings(&mut envelope["result"], max);
        max /= 2;
    }
    if json_len(envelope) > cap {
        // Nothing left to trim: keep the envelope, drop the result.
        envelope["result"] =
            json!({"$summary": "the answer does not fit the observation; ask a narrower question"});
    }
    if !trimmed.is_empty() {
        envelope["trimmed"] = Value::Array(trimmed);
    }
    true
}
