//! The JSON Lines [`FormatReader`].

use plumb_core::{
    impl_answer, text_stream, Answer, FormatReader, Op, RangePart, RangePlan, Refusal, Request,
    SniffScore, Source,
};

use crate::{inspect_source, select, JsonlInspect, JsonlSearch, JsonlSelect, JsonlValidate};

impl_answer!(JsonlSearch, layout: ValueHits, window: window);
impl_answer!(JsonlInspect, layout: Outline, shape: shape, sketches: sketches);
impl_answer!(JsonlValidate, verdict: valid, rows: rows_read);
impl_answer!(JsonlSelect, layout: Records, window: window);

/// The options JSON Lines declares: how many paths inspect's outline
/// lists, statistics, and the field a search judges.
pub const JSONL_OPTIONS: [plumb_core::OptionSpec; 3] = [
    plumb_json::OUTLINE_PATHS_OPTION,
    plumb_json::STATS_OPTION,
    plumb_json::FIELD_OPTION,
];

/// Reads JSON Lines through the plumb-jsonl engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonlReader;

impl FormatReader for JsonlReader {
    fn name(&self) -> &'static str {
        "jsonl"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["jsonl", "ndjson"]
    }

    /// Two lines that each look like a whole JSON value: the first opens
    /// with `{` or `[` and ends with `}` or `]`, and the next non-blank
    /// line opens with `{` or `[`. Beats a plain JSON sniff.
    fn sniff(&self, head: &[u8]) -> Option<SniffScore> {
        let mut lines = head
            .split(|&b| b == b'\n')
            .map(|l| l.trim_ascii())
            .filter(|l| !l.is_empty());
        let first = lines.next()?;
        let second = lines.next()?;
        let opens = |l: &[u8]| matches!(l.first(), Some(b'{' | b'['));
        let closes = |l: &[u8]| matches!(l.last(), Some(b'}' | b']'));
        (opens(first) && closes(first) && opens(second)).then_some(60)
    }

    fn options(&self) -> &'static [plumb_core::OptionSpec] {
        &JSONL_OPTIONS
    }

    fn inspect(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        Ok(Box::new(inspect_source(
            source,
            &req.scan,
            plumb_json::outline_options(req),
        )?))
    }

    fn answer_schema(
        &self,
        op: plumb_core::Op,
        generator: &mut plumb_core::schemars::SchemaGenerator,
    ) -> Option<plumb_core::schemars::Schema> {
        plumb_core::schema_by_op::<JsonlInspect, JsonlSelect, JsonlValidate, JsonlSearch>(
            op, generator,
        )
    }

    fn selects_from_end(&self) -> bool {
        true
    }

    fn select(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        if let Some(n) = req.window.from_end {
            return Ok(Box::new(crate::tail::select_last(source, &req.window, n)?));
        }
        Ok(Box::new(select(text_stream(source)?, &req.window)?))
    }

    fn validate(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        Ok(Box::new(crate::validate_source(source, &req.scan)?))
    }

    fn plan_ranges(
        &self,
        source: &dyn Source,
        op: Op,
        req: &Request,
        parts: usize,
    ) -> Result<Option<RangePlan>, Refusal> {
        match op {
            Op::Validate => crate::plan_ranges(source, &req.scan, parts),
            Op::Search => {
                let query = plumb_core::Query::judging_conditions(req)?;
                if !query.from_first() {
                    return Ok(None);
                }
                crate::plan_ranges(source, &req.scan, parts)
            }
            Op::Inspect if !plumb_json::outline_options(req).stats => {
                crate::plan_ranges(source, &req.scan, parts)
            }
            _ => Ok(None),
        }
    }

    fn scan_range(
        &self,
        source: &dyn Source,
        op: Op,
        req: &Request,
        plan: &RangePlan,
        index: usize,
    ) -> RangePart {
        match op {
            Op::Validate => crate::scan_validate_range(source, &req.scan, plan, index),
            Op::Search => match plumb_core::Query::judging_conditions(req) {
                Ok(query) => {
                    let field = req.options.text("field");
                    crate::scan_search_range(source, &req.scan, (field, &query), plan, index)
                }
                Err(_) => RangePart { index, state: None },
            },
            Op::Inspect => {
                let outline = plumb_json::outline_options(req);
                crate::scan_inspect_range(source, &req.scan, outline, plan, index)
            }
            _ => RangePart { index, state: None },
        }
    }

    fn join_ranges(
        &self,
        op: Op,
        req: &Request,
        plan: &RangePlan,
        parts: &[RangePart],
    ) -> Option<Box<dyn Answer>> {
        match op {
            Op::Validate => Some(Box::new(crate::join_validate_ranges(plan, parts)?)),
            Op::Search => {
                let query = plumb_core::Query::judging_conditions(req).ok()?;
                let field = req.options.text("field");
                let answer = crate::join_search_ranges((field, &query), plan, parts)?;
                Some(Box::new(answer))
            }
            Op::Inspect => {
                let outline = plumb_json::outline_options(req);
                let answer = crate::join_inspect_ranges(&req.scan, outline, plan, parts)?;
                Some(Box::new(answer))
            }
            _ => None,
        }
    }

    fn search(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let query = plumb_core::Query::judging_conditions(req)?;
        Ok(Box::new(crate::search_source(
            source,
            &req.scan,
            req.options.text("field"),
            &query,
        )?))
    }
}
