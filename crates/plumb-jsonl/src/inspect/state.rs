//! Inspect's facts of a byte range as they travel from its task to the
//! join of the file's ranges (see `crate::ranges`).
//!
//! Only facts that join travel: every line of the range valid, every
//! top-level key tracked, no row cap met, the outline whole and without
//! statistics (see [`plumb_json::OutlineState`]). Read back, they are a
//! claim about a range of known bytes, checked before anything adds
//! them: no count past the range's lines, lines that hold the rows and
//! blank lines counted, each valid row of one root type, a key's types
//! each first read on a line (and only those), keys distinct and within
//! [`KEY_HISTOGRAM_CAP`], samples that are JSON within the sample's
//! caps, first facts within theirs.

use std::collections::HashMap;

use plumb_core::{RowCap, FIRST_ISSUES_CAP};
use plumb_json::{
    JsonParser, Outline, OutlineState, Structure, StructureState, SAMPLE_BUDGET_BYTES,
};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{
    InspectLines, KeyStat, LineDuplicates, LinePrecisionReport, TopKeys, KEY_HISTOGRAM_CAP,
};

/// An inspect range's facts, serialized (see the module's header).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct InspectState {
    lines: u64,
    blank: u64,
    rows: u64,
    root_types: [u64; 6],
    keys: Vec<KeyState>,
    /// The sample records as the builder wrote them.
    sample: Vec<String>,
    sample_cuts: Vec<bool>,
    dups: LineDuplicates,
    precision: LinePrecisionReport,
    structure: StructureState,
    outline: OutlineState,
}

/// A tracked top-level key.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyState {
    raw: Vec<u8>,
    count: u64,
    types: [u64; 6],
    first_lines: [u64; 6],
}

impl InspectLines {
    /// These facts' state, when they can join another range's: `None`
    /// for a range with an invalid line, an untracked key, a row cap
    /// met, or an outline that does not join.
    pub(crate) fn into_state(self) -> Option<InspectState> {
        let joins = self.invalid_count == 0
            && self.untracked.is_empty()
            && !self.untracked_dropped
            && !self.cap.capped();
        if !joins {
            return None;
        }
        Some(InspectState {
            outline: self.outline.to_state()?,
            structure: self.st.to_state(),
            lines: self.lines,
            blank: self.blank,
            rows: self.cap.rows() + self.absorbed_rows,
            root_types: self.root_types,
            keys: (self.key_stats.into_iter())
                .map(|k| KeyState {
                    raw: k.raw.into_vec(),
                    count: k.count,
                    types: k.types,
                    first_lines: k.first_lines,
                })
                .collect(),
            sample: self.sample.iter().map(|s| s.get().to_owned()).collect(),
            sample_cuts: self.sample_cuts,
            dups: self.dups,
            precision: self.precision,
        })
    }

    /// The facts `state` holds, of a range of `bytes` bytes, with room
    /// for `sample_rows` sample records; `None` for a state no scan of
    /// such a range makes (see the module's header).
    pub(crate) fn from_state(
        state: InspectState,
        bytes: u64,
        sample_rows: usize,
    ) -> Option<InspectLines> {
        let lines = state.lines;
        let sum = |c: &[u64]| c.iter().try_fold(0u64, |a, &n| a.checked_add(n));
        let counts_fit = lines <= bytes.saturating_add(1)
            && state.dups.count <= bytes
            && state.precision.count <= bytes
            && state.rows.checked_add(state.blank)? <= lines
            && sum(&state.root_types)? == state.rows;
        let firsts_fit = |first: Vec<u64>, count: u64| {
            first.len() <= FIRST_ISSUES_CAP
                && first.len() as u64 <= count
                && first.iter().all(|l| (1..=lines).contains(l))
        };
        let facts_fit = firsts_fit(
            state.dups.first.iter().map(|d| d.line).collect(),
            state.dups.count,
        ) && firsts_fit(
            state.precision.first.iter().map(|p| p.line).collect(),
            state.precision.count,
        );
        let sample_fits = state.sample.len() <= sample_rows
            && state.sample.len() == state.sample_cuts.len()
            && state.sample.iter().all(|s| s.len() <= SAMPLE_BUDGET_BYTES);
        if !(counts_fit && facts_fit && sample_fits) || state.keys.len() > KEY_HISTOGRAM_CAP {
            return None;
        }
        let mut keys = HashMap::with_capacity(state.keys.len());
        let mut key_stats = Vec::with_capacity(state.keys.len());
        for (at, k) in state.keys.into_iter().enumerate() {
            // A repeated key counts each time: a key's count is held to
            // the bytes, not the rows.
            let fits = k.count <= bytes
                && sum(&k.types)? <= k.count
                && (k.types.iter().zip(&k.first_lines))
                    .all(|(&n, &l)| (n > 0) == (l > 0) && l <= lines);
            if !fits || keys.insert(k.raw.clone(), at).is_some() {
                return None;
            }
            key_stats.push(KeyStat {
                name: String::from_utf8_lossy(&k.raw).into_owned(),
                raw: k.raw.into_boxed_slice(),
                count: k.count,
                types: k.types,
                first_lines: k.first_lines,
            });
        }
        let sample = (state.sample.into_iter())
            .map(|s| RawValue::from_string(s).ok())
            .collect::<Option<_>>()?;
        Some(InspectLines {
            parser: JsonParser::new(),
            st: Structure::from_state(state.structure).ok()?,
            lines,
            cap: RowCap::new(None),
            blank: state.blank,
            invalid: Vec::new(),
            invalid_count: 0,
            root_types: state.root_types,
            keys,
            key_stats,
            last_keys: Vec::new(),
            this_keys: Vec::new(),
            untracked: HashMap::new(),
            untracked_dropped: false,
            top_keys: TopKeys::default(),
            sample,
            sample_cuts: state.sample_cuts,
            sample_rows,
            absorbed_rows: state.rows,
            dups: state.dups,
            precision: state.precision,
            outline: Outline::from_state(state.outline).ok()?,
        })
    }
}
