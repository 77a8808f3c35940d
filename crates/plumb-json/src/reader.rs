//! The JSON [`FormatReader`].

use plumb_core::{
    impl_answer, text_stream, Answer, FormatReader, Op, OptionKind, OptionSpec, Refusal, Request,
    SniffScore, Source,
};

use crate::{select, JsonInspect, JsonSearch, JsonSelect, JsonSelectOptions, JsonValidate};

impl_answer!(JsonSearch, layout: ValueHits, window: window);
impl_answer!(JsonInspect, layout: Outline);
impl_answer!(JsonValidate, verdict: valid);
impl_answer!(JsonSelect, layout: Value, window: window);

/// Reads JSON through the plumb-json engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonReader;

/// The options JSON declares: where select looks, and how many paths
/// inspect's outline lists.
pub const JSON_OPTIONS: [OptionSpec; 4] = [
    OptionSpec {
        name: "pointer",
        kind: OptionKind::Text,
        default: Some(""),
        ops: &[Op::Inspect, Op::Select, Op::Search],
        doc:
            "an RFC 6901 JSON Pointer (\"\" is the whole document): the value to inspect, or to select; with offset and limit, an array (its elements) or an object (its members); for search, the array whose elements are searched",
    },
    OUTLINE_PATHS_OPTION,
    STATS_OPTION,
    FIELD_OPTION,
];

/// `field`: the value a search judges in each record or element, shared
/// by JSON and JSON Lines.
pub const FIELD_OPTION: OptionSpec = OptionSpec {
    name: "field",
    kind: OptionKind::Text,
    default: None,
    ops: &[Op::Search],
    doc: "an RFC 6901 JSON Pointer inside each record or element (/user/id): the value the pattern or predicate is tested on; any scalar in it when left out",
};

/// `outline_paths`: how many paths inspect's outline lists (all are
/// counted), shared by JSON and JSON Lines.
pub const OUTLINE_PATHS_OPTION: OptionSpec = OptionSpec {
    name: "outline_paths",
    kind: OptionKind::Count,
    default: Some("60"),
    ops: &[Op::Inspect],
    doc: "how many paths the outline lists (each with its types, presence, ranges and samples; at most 2000)",
};

/// `stats`: statistics of every outline path's scalars, shared by JSON
/// and JSON Lines.
pub const STATS_OPTION: OptionSpec = OptionSpec {
    name: "stats",
    kind: OptionKind::Flag,
    default: Some("false"),
    ops: &[Op::Inspect],
    doc: "add statistics to each outline path: distinct count, top values, sum, mean, standard deviation, quantiles, text ranges, each labelled exact or estimate",
};

/// The outline a request asks for: its listing budget and whether paths
/// keep statistics.
pub fn outline_options(req: &Request) -> crate::OutlineOptions {
    crate::OutlineOptions {
        paths: outline_paths(req),
        stats: req.options.flag("stats").unwrap_or(false),
    }
}

/// Whether an inspect asked so is cut into ranges: of the whole
/// document, without statistics.
fn inspects_in_ranges(req: &Request) -> bool {
    req.options.text("pointer").unwrap_or_default().is_empty() && !outline_options(req).stats
}

/// The outline's listing budget a request asks for.
pub fn outline_paths(req: &Request) -> usize {
    req.options
        .count("outline_paths")
        .map_or(crate::OUTLINE_LIST_DEFAULT, |n| {
            usize::try_from(n).unwrap_or(usize::MAX)
        })
        .min(crate::OUTLINE_MAX_NODES)
}

/// The first non-white-space byte.
pub(crate) fn first_significant(head: &[u8]) -> Option<u8> {
    head.iter().copied().find(|b| !b.is_ascii_whitespace())
}

impl FormatReader for JsonReader {
    fn name(&self) -> &'static str {
        "json"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["json"]
    }

    fn sniff(&self, head: &[u8]) -> Option<SniffScore> {
        matches!(first_significant(head), Some(b'{' | b'[')).then_some(50)
    }

    fn options(&self) -> &'static [OptionSpec] {
        &JSON_OPTIONS
    }

    fn answer_schema(
        &self,
        op: plumb_core::Op,
        generator: &mut plumb_core::schemars::SchemaGenerator,
    ) -> Option<plumb_core::schemars::Schema> {
        plumb_core::schema_by_op::<JsonInspect, JsonSelect, JsonValidate, JsonSearch>(op, generator)
    }

    fn inspect(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        Ok(Box::new(crate::inspect_source(
            source,
            &req.scan,
            outline_options(req),
            req.options.text("pointer").unwrap_or_default(),
        )?))
    }

    fn select(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let sel = JsonSelectOptions {
            pointer: req.options.text("pointer").unwrap_or_default().to_owned(),
            window: req.window,
        };
        Ok(Box::new(select(text_stream(source)?, &sel)?))
    }

    fn validate(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        Ok(Box::new(crate::validate_source(source, &req.scan)?))
    }

    fn plan_ranges(
        &self,
        source: &dyn Source,
        op: plumb_core::Op,
        req: &Request,
        parts: usize,
    ) -> Result<Option<plumb_core::RangePlan>, Refusal> {
        match op {
            plumb_core::Op::Validate => crate::plan_ranges(source, &req.scan, parts),
            plumb_core::Op::Inspect if inspects_in_ranges(req) => {
                crate::plan_ranges(source, &req.scan, parts)
            }
            _ => Ok(None),
        }
    }

    fn scan_range(
        &self,
        source: &dyn Source,
        op: plumb_core::Op,
        req: &Request,
        plan: &plumb_core::RangePlan,
        index: usize,
    ) -> plumb_core::RangePart {
        match op {
            plumb_core::Op::Validate => crate::scan_validate_range(source, &req.scan, plan, index),
            plumb_core::Op::Inspect if inspects_in_ranges(req) => {
                crate::scan_inspect_range(source, &req.scan, outline_options(req), plan, index)
            }
            _ => plumb_core::RangePart { index, state: None },
        }
    }

    fn join_ranges(
        &self,
        op: plumb_core::Op,
        req: &Request,
        plan: &plumb_core::RangePlan,
        parts: &[plumb_core::RangePart],
    ) -> Option<Box<dyn Answer>> {
        match op {
            plumb_core::Op::Validate => Some(Box::new(crate::join_validate_ranges(plan, parts)?)),
            plumb_core::Op::Inspect if inspects_in_ranges(req) => {
                let answer =
                    crate::join_inspect_ranges(&req.scan, outline_options(req), plan, parts)?;
                Some(Box::new(answer))
            }
            _ => None,
        }
    }

    fn search(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let query = plumb_core::Query::judging_conditions(req)?;
        Ok(Box::new(crate::search(
            text_stream(source)?,
            req.options.text("pointer").unwrap_or_default(),
            req.options.text("field"),
            &query,
        )?))
    }
}
