//! The serialized form of a column's statistics, so that statistics made
//! in one process merge in another (a dataset's partials).
//!
//! Every sketch is written as the plain data it holds (hashes, registers,
//! counters, levels, sums) and rebuilt from it; the caches each keeps for
//! speed (hash indexes, the smallest counter, level capacities) are made
//! again on reading. A state read back is a claim: every size is held to
//! the budget it names, and the budget to [`STATS_FULL_BUDGET`], before
//! anything is built from it, and a state that no scan could have made
//! (a register past its range, an unsorted level, a counter twice) is
//! refused with what is wrong. Doubles travel as their bits: JSON has no
//! infinity, and the bits come back equal.

use serde::{Deserialize, Serialize};

use crate::{StatsBudget, STATS_FULL_BUDGET};

/// The kinds a JSON value's statistics tell apart (see
/// [`ValueStats::with_kind_names`](crate::ValueStats::with_kind_names)),
/// in the order the JSON engines number them.
pub const JSON_KINDS: [&str; 6] = ["object", "array", "string", "number", "boolean", "null"];

/// The sets of kind names statistics read back may name: none, or
/// [`JSON_KINDS`].
const KNOWN_KIND_NAMES: [&[&str]; 2] = [&[], &JSON_KINDS];

/// Bytes, written as lowercase hex (a JSON array of numbers would take
/// about twice the room).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hex(pub Vec<u8>);

impl Serialize for Hex {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(self.0.len() * 2);
        for &b in &self.0 {
            out.push(char::from(DIGITS[usize::from(b >> 4)]));
            out.push(char::from(DIGITS[usize::from(b & 15)]));
        }
        s.serialize_str(&out)
    }
}

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Hex, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        let digit = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        let bytes = text.as_bytes();
        if bytes.len() % 2 != 0 {
            return Err(serde::de::Error::custom("hex of odd length"));
        }
        bytes
            .chunks_exact(2)
            .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
            .collect::<Option<Vec<u8>>>()
            .map(Hex)
            .ok_or_else(|| serde::de::Error::custom("not lowercase hex"))
    }
}

/// A [`StatsBudget`] as written.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct BudgetState {
    pub top_counters: usize,
    pub exact_distinct: usize,
    pub hll_precision: u8,
    pub quantile_k: u32,
    pub text_bytes: usize,
}

impl BudgetState {
    pub(crate) fn of(b: StatsBudget) -> BudgetState {
        BudgetState {
            top_counters: b.top_counters,
            exact_distinct: b.exact_distinct,
            hll_precision: b.hll_precision,
            quantile_k: b.quantile_k,
            text_bytes: b.text_bytes,
        }
    }

    /// The budget, when no part of it passes [`STATS_FULL_BUDGET`] and
    /// each sketch can be made with it.
    pub(crate) fn budget(self) -> Result<StatsBudget, String> {
        let f = STATS_FULL_BUDGET;
        let ok = (1..=f.top_counters).contains(&self.top_counters)
            && self.exact_distinct <= f.exact_distinct
            && (4..=f.hll_precision).contains(&self.hll_precision)
            && (8..=f.quantile_k).contains(&self.quantile_k)
            && self.text_bytes <= f.text_bytes;
        if !ok {
            return Err(format!(
                "a statistics budget past the full budget: {self:?}"
            ));
        }
        Ok(StatsBudget {
            top_counters: self.top_counters,
            exact_distinct: self.exact_distinct,
            hll_precision: self.hll_precision,
            quantile_k: self.quantile_k,
            text_bytes: self.text_bytes,
        })
    }
}

/// A distinct count as written: the exact set's hashes (sorted) while it
/// holds, else the registers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct DistinctState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<Vec<u64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registers: Option<Hex>,
    pub precision: u8,
}

/// One top-values counter as written.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct CounterState {
    pub hash: u64,
    pub count: u64,
    pub error: u64,
    pub text: Hex,
    pub len: u64,
    pub kind: u8,
}

/// A top-values summary as written: its counters in their order (the
/// first of equal counts is the one reused), whether one was ever
/// reused, the gate's miss counts, and the values counted.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct TopState {
    pub counters: Vec<CounterState>,
    pub reused: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gate: Vec<u64>,
    pub n: u64,
}

/// A KLL sketch as written.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct QuantilesState {
    pub levels: Vec<Vec<u64>>,
    pub n: u64,
    pub coin: u64,
    pub compacted: bool,
}

/// Exact sums as written (decimal text: a JSON reader may hold a number
/// as a double).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ExactState {
    pub scale: u32,
    pub sum: String,
    pub squares: String,
}

/// Moments as written; doubles as their bits.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct MomentsState {
    pub n: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<ExactState>,
    /// sum, compensation, magnitude, mean, m2.
    pub float: [u64; 5],
}

/// A column's numbers as written.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct NumbersState {
    pub moments: MomentsState,
    pub quantiles: QuantilesState,
    pub count: u64,
    pub non_finite: u64,
    pub rounded: u64,
    pub tiny: u64,
}

/// A column's text range as written.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct TextState {
    pub min: Hex,
    pub max: Hex,
    pub min_len: u64,
    pub max_len: u64,
    pub total_len: u64,
    pub count: u64,
    pub max_bytes: u64,
}

/// A [`ValueStats`](crate::ValueStats) as written.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct StatsState {
    pub budget: BudgetState,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_start: Option<usize>,
    pub distinct: DistinctState,
    pub top: TopState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numbers: Option<NumbersState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<TextState>,
}

/// The known set of kind names equal to `names`.
pub(crate) fn kind_names(names: &[String]) -> Result<&'static [&'static str], String> {
    KNOWN_KIND_NAMES
        .iter()
        .copied()
        .find(|known| known.len() == names.len() && known.iter().zip(names).all(|(a, b)| a == b))
        .ok_or_else(|| format!("statistics of unknown kinds {names:?}"))
}
