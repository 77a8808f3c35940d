//! What one part of a root array found, as it travels from a range task
//! to the join of the file's ranges (see `crate::ranges`).
//!
//! Only a part without statistics travels (their sketches merge only
//! within their error). Read back, it is a claim about a range of known
//! bytes, checked before the join takes it: no count past the bytes,
//! types by their names only, listed keys among the counted ones and no
//! more of either than are kept, samples that are JSON within the
//! sample's caps, a structure and an outline each as their own checks
//! want them.

use std::collections::{BTreeMap, HashSet};

use plumb_core::{RowCap, ScanBounds, COLUMN_TRACK_CAP};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::outline::{Outline, OutlineState};
use crate::structure::{Structure, StructureState};

use super::super::{KEY_LIST_CAP, SAMPLE_BUDGET_BYTES};
use super::{InspectPart, InspectSink};

/// The type names a part counts values by.
const TYPE_NAMES: [&str; 6] = ["object", "array", "string", "number", "boolean", "null"];

/// A part of a root array, serialized (see the module's header).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PartState {
    rows: u64,
    keys: Vec<String>,
    /// Every counted key, sorted.
    key_seen: Vec<String>,
    keys_uncounted: bool,
    types: BTreeMap<String, u64>,
    sample_shortened: bool,
    /// The sampled elements as the builder wrote them.
    samples: Vec<String>,
    structure: StructureState,
    outline: OutlineState,
    bom: bool,
}

impl InspectPart {
    /// This part's state; `None` when its outline cannot travel (see
    /// [`Outline::to_state`]) or the part is not inside a root array.
    pub(crate) fn into_state(self) -> Option<PartState> {
        let sink = self.sink;
        if sink.root != Some("array") || sink.builder.is_some() {
            return None;
        }
        let mut key_seen: Vec<String> = sink.key_seen.into_iter().collect();
        key_seen.sort_unstable();
        Some(PartState {
            outline: self.outline.to_state()?,
            structure: sink.st.to_state(),
            rows: sink.cap.rows(),
            keys: sink.keys,
            key_seen,
            keys_uncounted: sink.keys_uncounted,
            types: (sink.types.into_iter())
                .map(|(t, n)| (t.to_owned(), n))
                .collect(),
            sample_shortened: sink.sample_shortened,
            samples: sink.samples.iter().map(|s| s.get().to_owned()).collect(),
            bom: self.bom,
        })
    }

    /// The part `state` holds, of a range of `bytes` bytes, as a scan
    /// with `opts` keeps it; `None` for a state no such scan makes.
    pub(crate) fn from_state(
        state: PartState,
        bytes: u64,
        opts: &ScanBounds,
    ) -> Option<InspectPart> {
        let mut sink = InspectSink::new(&ScanBounds {
            max_rows: None,
            ..*opts
        });
        let mut types = BTreeMap::new();
        for (name, n) in state.types {
            let known = TYPE_NAMES.iter().find(|&&t| t == name)?;
            if n > bytes {
                return None;
            }
            types.insert(*known, n);
        }
        let key_seen: HashSet<String> = state.key_seen.into_iter().collect();
        let listed: HashSet<&String> = state.keys.iter().collect();
        let fits = state.rows <= bytes
            && key_seen.len() <= COLUMN_TRACK_CAP
            && state.keys.len() <= KEY_LIST_CAP
            && listed.len() == state.keys.len()
            && state.keys.iter().all(|k| key_seen.contains(k))
            && state.samples.len() <= sink.sample_rows
            && state.samples.iter().all(|s| s.len() <= SAMPLE_BUDGET_BYTES);
        if !fits {
            return None;
        }
        sink.samples = (state.samples.into_iter())
            .map(|s| RawValue::from_string(s).ok())
            .collect::<Option<_>>()?;
        sink.st = Structure::from_state(state.structure).ok()?;
        sink.root = Some("array");
        sink.depth = 1;
        sink.cap = RowCap::new(None);
        sink.cap.admit_many(state.rows);
        sink.keys = state.keys;
        sink.key_seen = key_seen;
        sink.keys_uncounted = state.keys_uncounted;
        sink.types = types;
        sink.sample_shortened = state.sample_shortened;
        Some(InspectPart {
            sink,
            outline: Outline::from_state(state.outline).ok()?,
            bom: state.bom,
        })
    }
}
