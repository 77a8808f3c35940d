//! An outline as it travels from a range task to the join of its file's
//! ranges (a JSON Lines file cut into byte ranges, each read apart).
//!
//! Only an outline that joins travels: between values, with every value
//! on a kept path, no object collapsed, no statistics. Its paths go as a
//! list in the arena's order, each naming its members and items by
//! their place in the list. Read back, it is a claim checked before it
//! is used: a tree rooted at the first path in which every other path
//! has one parent listed before it (what the outline's arena makes: a
//! path is added under one already there), no more paths than
//! [`OUTLINE_MAX_NODES`], keys distinct and no more than
//! [`OUTLINE_COLLAPSE_KEYS`] a path, samples within their caps, ranges
//! and lengths in order, no count of repeats past the values.

use plumb_core::NumericRange;
use serde::{Deserialize, Serialize};

use super::{
    same_key, Node, Outline, OUTLINE_COLLAPSE_KEYS, OUTLINE_MAX_NODES, OUTLINE_SAMPLES,
    OUTLINE_SAMPLE_BYTES,
};

/// An [`Outline`], serialized (see the module's header); made by
/// [`Outline::to_state`], read back by [`Outline::from_state`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutlineState {
    paths: Vec<PathState>,
}

/// One path's facts, its children by their place in the list.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PathState {
    types: [u64; 6],
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    members: Vec<(String, u32)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    items: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    length: Option<(u64, u64)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    string_length: Option<(u64, u64)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    range: Option<NumericRange>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    samples: Vec<String>,
    #[serde(default)]
    repeats: u64,
}

impl Outline {
    /// This outline's state, when it can join another
    /// ([`Outline::absorb`]) and so travel: between values, nothing cut,
    /// no object collapsed, no statistics; `None` otherwise.
    pub fn to_state(&self) -> Option<OutlineState> {
        let joins = !self.stats
            && self.values_cut == 0
            && self.frames.is_empty()
            && self.free.is_empty()
            && self
                .nodes
                .iter()
                .all(|n| n.star.is_none() && n.key_samples.is_empty() && n.stats.is_none());
        if !joins {
            return None;
        }
        let paths = self.nodes.iter().map(|n| {
            let members = n.members.iter().map(|(k, c)| {
                // The parser gives keys as valid UTF-8.
                Some((String::from_utf8(k.to_vec()).ok()?, *c))
            });
            Some(PathState {
                types: n.types,
                members: members.collect::<Option<_>>()?,
                items: n.items,
                length: n.length,
                string_length: n.string_length,
                range: n.range.as_deref().cloned(),
                samples: n.samples.iter().map(|s| s.to_string()).collect(),
                repeats: n.repeats,
            })
        });
        Some(OutlineState {
            paths: paths.collect::<Option<_>>()?,
        })
    }

    /// The outline `state` was made from (without statistics).
    ///
    /// # Errors
    /// What is wrong, for a state no outline makes (see the module's
    /// header).
    pub fn from_state(state: OutlineState) -> Result<Outline, String> {
        let n = state.paths.len();
        if n == 0 || n > OUTLINE_MAX_NODES {
            return Err(format!("an outline of {n} paths"));
        }
        let mut parent = vec![false; n];
        let mut nodes = Vec::with_capacity(n);
        for (at, p) in state.paths.into_iter().enumerate() {
            let children = p.members.iter().map(|m| m.1).chain(p.items);
            for child in children {
                let c = child as usize;
                if c <= at || c >= n || std::mem::replace(&mut parent[c], true) {
                    return Err(format!("path {at} names path {c} out of its tree"));
                }
            }
            p.check().map_err(|e| format!("path {at}: {e}"))?;
            nodes.push(Node {
                types: p.types,
                members: (p.members.into_iter())
                    .map(|(k, c)| (k.into_bytes().into_boxed_slice(), c))
                    .collect(),
                items: p.items,
                length: p.length,
                string_length: p.string_length,
                range: p.range.map(Box::new),
                samples: p.samples.into_iter().map(String::into_boxed_str).collect(),
                repeats: p.repeats,
                ..Node::default()
            });
        }
        if parent.iter().skip(1).any(|&p| !p) {
            return Err("a path with no parent".into());
        }
        Ok(Outline {
            nodes,
            ..Outline::new()
        })
    }
}

impl PathState {
    /// Whether this path's own facts are ones an outline keeps.
    fn check(&self) -> Result<(), &'static str> {
        let seen = self
            .types
            .iter()
            .try_fold(0u64, |a, &t| a.checked_add(t))
            .ok_or("counts past any file")?;
        let keys_distinct = self.members.iter().enumerate().all(|(i, (k, _))| {
            !self.members[..i]
                .iter()
                .any(|(o, _)| same_key(o.as_bytes(), k.as_bytes()))
        });
        let samples_fit =
            self.samples.len() <= OUTLINE_SAMPLES
                && self.samples.iter().enumerate().all(|(i, s)| {
                    s.len() <= OUTLINE_SAMPLE_BYTES && !self.samples[..i].contains(s)
                });
        let ordered = |r: Option<(u64, u64)>| r.is_none_or(|(lo, hi)| lo <= hi);
        if self.members.len() > OUTLINE_COLLAPSE_KEYS || !keys_distinct {
            Err("members past the cap, or a key twice")
        } else if !samples_fit {
            Err("samples past their caps, or one twice")
        } else if !ordered(self.length) || !ordered(self.string_length) {
            Err("lengths out of order")
        } else if self.repeats > seen {
            Err("more repeats than values")
        } else {
            Ok(())
        }
    }
}
