//! The schema side of a [`Partial`](super::Partial): each column's
//! files, rows and types across files, and the groups of files that
//! share a schema, each merging by a rule that forgets the order files
//! came in (counts add; the first file, type and example by path).

use serde::{Deserialize, Serialize};

use super::answer::{DatasetColumn, TypeGroup, TypeMoment};
use super::stats::StatsAcc;
use super::DATASET_TYPES_MAX;

/// A column across files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct ColumnAcc {
    pub(super) files: u64,
    pub(super) rows: u64,
    pub(super) first: String,
    /// By type name, sorted: a short list (a map's node would cost more
    /// than the few types a column has, times thousands of columns).
    pub(super) types: Vec<(String, TypeAcc)>,
    pub(super) types_cut_files: u64,
    /// With statistics: the column's, merged across files.
    #[serde(default, skip_serializing_if = "StatsAcc::is_empty")]
    pub(super) stats: StatsAcc,
}

/// A column's files of one type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct TypeAcc {
    pub(super) files: u64,
    pub(super) rows: u64,
    pub(super) first: String,
    /// In the first file: where a value of each class was first read,
    /// and what those places count (`record`, `line`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) firsts: Vec<(String, u64)>,
    #[serde(default)]
    pub(super) unit: String,
}

/// Files that share one schema.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct GroupAcc {
    pub(super) files: u64,
    pub(super) columns: Vec<(String, String)>,
    pub(super) columns_total: u64,
    pub(super) examples: Vec<String>,
}

/// FNV-1a, 64 bits: a fingerprint that is the same in every build and
/// on every machine, which a std hasher does not promise.
pub(super) fn fingerprint(columns: &[(String, String)]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, kind) in columns {
        for b in name.bytes().chain([0x1f]).chain(kind.bytes()).chain([0x1e]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// Whether a column of type `from` holds a value of `class`: its own
/// class (or one of its types, `number|string`), a null, or an integer
/// where floats are.
fn admits(from: &str, class: &str) -> bool {
    from.split('|').any(|f| f == class)
        || matches!(class, "empty" | "sentinel" | "null")
        || (from == "float" && class == "integer")
}

/// Where, in a file whose first places of each class are `firsts`, a
/// column of type `from` first held a value it does not admit: known
/// only when the file began with values it admits.
fn changed_at(from: &str, firsts: &[(String, u64)]) -> Option<u64> {
    let began = firsts
        .iter()
        .filter(|(c, _)| admits(from, c))
        .map(|&(_, at)| at)
        .min()?;
    firsts
        .iter()
        .filter(|(c, _)| !admits(from, c))
        .map(|&(_, at)| at)
        .min()
        .filter(|&at| at > began)
}

impl ColumnAcc {
    pub(super) fn absorb(&mut self, theirs: ColumnAcc) {
        // Saturating, as a partial's counts (see `Partial::merge`).
        self.files = self.files.saturating_add(theirs.files);
        self.rows = self.rows.saturating_add(theirs.rows);
        self.first = self.first.clone().min(theirs.first);
        self.types_cut_files = self.types_cut_files.saturating_add(theirs.types_cut_files);
        self.stats.absorb(theirs.stats);
        for (kind, t) in theirs.types {
            match self.types.binary_search_by(|(k, _)| k.cmp(&kind)) {
                Err(at) => self.types.insert(at, (kind, t)),
                Ok(at) => {
                    let mine = &mut self.types[at].1;
                    mine.files = mine.files.saturating_add(t.files);
                    mine.rows = mine.rows.saturating_add(t.rows);
                    if t.first < mine.first {
                        mine.first = t.first;
                        mine.firsts = t.firsts;
                        mine.unit = t.unit;
                    }
                }
            }
        }
        while self.types.len() > DATASET_TYPES_MAX {
            if let Some((_, t)) = self.types.pop() {
                self.types_cut_files = self.types_cut_files.saturating_add(t.files);
            }
        }
    }

    pub(super) fn finish(self, name: String) -> DatasetColumn {
        // The type of the first file that holds the column; where another
        // first appears is where the column's type first differs.
        let first_kind = self
            .types
            .iter()
            .find(|(_, t)| t.first == self.first)
            .map(|(k, _)| k.clone());
        let type_differs = self
            .types
            .iter()
            .filter(|(k, _)| Some(k) != first_kind.as_ref())
            .min_by(|a, b| a.1.first.cmp(&b.1.first))
            .map(|(k, t)| {
                let from = first_kind.clone().unwrap_or_default();
                let at = changed_at(&from, &t.firsts);
                TypeMoment {
                    path: t.first.clone(),
                    record: at.filter(|_| t.unit == "record"),
                    line: at.filter(|_| t.unit == "line"),
                    from,
                    to: k.clone(),
                }
            });
        let mut types: Vec<TypeGroup> = self
            .types
            .into_iter()
            .map(|(kind, t)| TypeGroup {
                kind,
                files: t.files,
                rows: t.rows,
                first: t.first,
            })
            .collect();
        types.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.first.cmp(&b.first)));
        DatasetColumn {
            name,
            files: self.files,
            rows: self.rows,
            first: self.first,
            types,
            types_cut_files: self.types_cut_files,
            type_differs,
            stats: self.stats.finish(),
        }
    }
}
