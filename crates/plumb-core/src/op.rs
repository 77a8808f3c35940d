//! The data operations: the vocabulary every layer shares (options name
//! the ops they apply to, readers take them, answers report them). It
//! depends on nothing but refusals (and the echo of a name), so options, search and the reader
//! seam all use it without depending on one another; running an op on a
//! reader ([`Op::run`]) is the reader seam's.

use serde::Serialize;

use crate::refusal::Refusal;

/// The data operations.
///
/// A new op is added here, as a [`crate::FormatReader`] method whose default
/// refuses it ([`Op::unsupported`]), and as one arm of [`Op::run`]:
/// readers then opt in by overriding the method, and no reader that
/// does not is touched.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Op {
    /// What is in the file.
    Inspect,
    /// A bounded window of it, verbatim.
    Select,
    /// Is it well formed, and where is the first fault.
    Validate,
    /// Where a pattern or predicate holds: a bounded list of hits, each
    /// with its position, and where to continue.
    Search,
}

impl Op {
    /// Every op, in documentation order.
    pub const ALL: [Op; 4] = [Op::Inspect, Op::Select, Op::Validate, Op::Search];

    /// `inspect`, `select`, `validate` or `search`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Op::Inspect => "inspect",
            Op::Select => "select",
            Op::Validate => "validate",
            Op::Search => "search",
        }
    }

    /// The refusal for an op a reader does not take: `invalid-argument`,
    /// naming the format.
    pub fn unsupported(self, format: &str) -> Refusal {
        Refusal::invalid_argument(format!(
            "{format} does not support {}; ask for another op, or name another --format",
            self.as_str()
        ))
    }
}

impl std::str::FromStr for Op {
    type Err = Refusal;
    fn from_str(s: &str) -> Result<Op, Refusal> {
        let wanted = s.trim().to_ascii_lowercase();
        Op::ALL
            .into_iter()
            .find(|op| op.as_str() == wanted)
            .ok_or_else(|| {
                let names: Vec<&str> = Op::ALL.iter().map(|op| op.as_str()).collect();
                Refusal::invalid_argument(format!(
                    "op `{}` is not one of {}; pass one of those",
                    crate::caps::echo(&wanted),
                    names.join(", ")
                ))
            })
    }
}
