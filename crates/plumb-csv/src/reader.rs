//! The CSV and TSV [`FormatReader`]s.

use plumb_core::{
    impl_answer, text_stream, Answer, FormatReader, Op, OptionKind, OptionSpec, RangePart,
    RangePlan, Refusal, Request, SniffScore, Source,
};

use crate::dialect::{parse_comment, parse_delimiter};
use crate::{
    select, ColumnRef, CsvFormat, CsvInspect, CsvOptions, CsvSearch, CsvSelect, CsvValidate,
    HeaderMode, QuoteMode, SelectOptions,
};

impl_answer!(CsvInspect, layout: TableColumns, shape: shape, sketches: sketches);
impl_answer!(CsvValidate, verdict: valid, rows: rows_read);
impl_answer!(CsvSelect, layout: Rows, window: window);
impl_answer!(CsvSearch, layout: RowHits, window: window);

/// Reads CSV or TSV through the plumb-csv engine.
#[derive(Debug, Clone, Copy)]
pub struct CsvReader {
    format: CsvFormat,
}

impl CsvReader {
    /// The tab-separated reader (`tsv`, `.tsv` and `.tab`).
    pub const TSV: CsvReader = CsvReader {
        format: CsvFormat::Tsv,
    };
    /// The comma-separated reader (`csv`; delimiter detected unless given).
    pub const CSV: CsvReader = CsvReader {
        format: CsvFormat::Csv,
    };

    fn options(&self, req: &Request) -> Result<CsvOptions, Refusal> {
        let delimiter = req
            .options
            .text("delimiter")
            .map(parse_delimiter)
            .transpose()?;
        Ok(CsvOptions {
            delimiter: delimiter.map(|(d, _)| d),
            delimiter_runs: delimiter.is_some_and(|(_, runs)| runs),
            comment: req.options.text("comment").map(parse_comment).transpose()?,
            skip_lines: req.options.count("skip_lines"),
            quote: match req.options.text("quote") {
                Some(q) => q.parse()?,
                None => QuoteMode::default(),
            },
            header: match req.options.text("header") {
                Some(h) => h.parse()?,
                None => HeaderMode::default(),
            },
            scan: req.scan,
            stats: req.options.flag("stats").unwrap_or(false),
        })
    }
}

/// The options CSV and TSV declare: the dialect for every op, the
/// projection for select.
pub const CSV_OPTIONS: [OptionSpec; 8] = [
    OptionSpec {
        name: "delimiter",
        kind: OptionKind::Text,
        default: None,
        ops: &Op::ALL,
        doc: "the delimiter: one character, or tab, space, or spaces (a run of spaces as one); detected for csv, a tab for tsv",
    },
    OptionSpec {
        name: "quote",
        kind: OptionKind::Choice(&["auto", "\"", "'", "none"]),
        default: Some("auto"),
        ops: &Op::ALL,
        doc: "the quote character, or none; auto chooses on the first 64 KiB (\" unless tab-separated, then none)",
    },
    OptionSpec {
        name: "skip_lines",
        kind: OptionKind::Count,
        default: None,
        ops: &Op::ALL,
        doc: "lines to skip before the table (a title, banners); a preamble is detected when not given, 0 turns that off",
    },
    OptionSpec {
        name: "comment",
        kind: OptionKind::Text,
        default: None,
        ops: &Op::ALL,
        doc: "lines starting with this character are comments, skipped and counted (for example #)",
    },
    plumb_core::HEADER_OPTION,
    plumb_core::COLUMNS_OPTION,
    OptionSpec {
        name: "stats",
        kind: OptionKind::Flag,
        default: Some("false"),
        ops: &[Op::Inspect],
        doc: "add each column's statistics: distinct count, top values, sum, mean, standard deviation, quantiles, text and date ranges, each labelled exact or estimate",
    },
    OptionSpec {
        name: "column",
        kind: OptionKind::Text,
        default: None,
        ops: &[Op::Search],
        doc: "the column to search, by header name or 0-based index (a name of digits in double quotes: \"2019\"); a name shared by several columns, or digits that are one column's index and another's name, is refused; every column when left out",
    },
];

fn first_line(head: &[u8]) -> &[u8] {
    let end = memchr::memchr(b'\n', head).unwrap_or(head.len());
    &head[..end]
}

impl FormatReader for CsvReader {
    fn name(&self) -> &'static str {
        self.format.name()
    }

    fn extensions(&self) -> &'static [&'static str] {
        match self.format {
            CsvFormat::Csv => &["csv"],
            CsvFormat::Tsv => &["tsv", "tab"],
        }
    }

    fn sniff(&self, head: &[u8]) -> Option<SniffScore> {
        let line = first_line(head);
        match self.format {
            CsvFormat::Tsv => line.contains(&b'\t').then_some(40),
            CsvFormat::Csv => line
                .iter()
                .any(|b| matches!(b, b',' | b';' | b'|'))
                .then_some(30),
        }
    }

    fn options(&self) -> &'static [OptionSpec] {
        &CSV_OPTIONS
    }

    fn inspect(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let o = self.options(req)?;
        Ok(Box::new(crate::inspect_source(source, self.format, &o)?))
    }

    fn answer_schema(
        &self,
        op: Op,
        generator: &mut plumb_core::schemars::SchemaGenerator,
    ) -> Option<plumb_core::schemars::Schema> {
        plumb_core::schema_by_op::<CsvInspect, CsvSelect, CsvValidate, CsvSearch>(op, generator)
    }

    fn selects_from_end(&self) -> bool {
        true
    }

    fn select(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let o = self.options(req)?;
        let window = SelectOptions {
            window: req.window,
            columns: req
                .options
                .list("columns")
                .map(|cols| cols.into_iter().map(ColumnRef::parse).collect()),
        };
        if let Some(n) = req.window.from_end {
            return Ok(Box::new(crate::report::select_last(
                source,
                self.format,
                &o,
                &window,
                n,
            )?));
        }
        Ok(Box::new(select(
            text_stream(source)?,
            self.format,
            &o,
            &window,
        )?))
    }

    fn validate(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let o = self.options(req)?;
        Ok(Box::new(crate::validate_source(source, self.format, &o)?))
    }

    fn plan_ranges(
        &self,
        source: &dyn Source,
        op: Op,
        req: &Request,
        parts: usize,
    ) -> Result<Option<RangePlan>, Refusal> {
        let o = self.options(req)?;
        let splits = match op {
            Op::Validate => true,
            Op::Search => crate::parallel::splits(&plumb_core::Query::judging_conditions(req)?),
            Op::Inspect => !o.stats,
            _ => false,
        };
        if !splits {
            return Ok(None);
        }
        crate::plan_ranges(source, self.format, &o, parts)
    }

    fn scan_range(
        &self,
        source: &dyn Source,
        op: Op,
        req: &Request,
        plan: &RangePlan,
        index: usize,
    ) -> RangePart {
        let Ok(o) = self.options(req) else {
            return RangePart { index, state: None };
        };
        match (op, plumb_core::Query::judging_conditions(req)) {
            (Op::Validate, _) => crate::scan_validate_range(source, self.format, &o, plan, index),
            (Op::Inspect, _) => crate::scan_inspect_range(source, self.format, &o, plan, index),
            (Op::Search, Ok(query)) => {
                let column = req.options.text("column").map(ColumnRef::parse);
                crate::scan_search_range(source, (self.format, &o), (&query, column), plan, index)
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
            Op::Validate => Some(Box::new(crate::join_validate_ranges(
                self.format,
                plan,
                parts,
            )?)),
            Op::Search => {
                let query = plumb_core::Query::judging_conditions(req).ok()?;
                let answer = crate::join_search_ranges(self.format, &query, plan, parts)?;
                Some(Box::new(answer))
            }
            Op::Inspect => {
                let o = self.options(req).ok()?;
                let answer = crate::join_inspect_ranges(self.format, &o, plan, parts)?;
                Some(Box::new(answer))
            }
            _ => None,
        }
    }

    fn search(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let o = self.options(req)?;
        let query = plumb_core::Query::judging_conditions(req)?;
        let column = req.options.text("column").map(ColumnRef::parse);
        if query.conditions.is_some() && column.is_some() {
            return Err(Refusal::invalid_argument(
                "conditions name their own columns; leave column out, or give one test in where",
            ));
        }
        Ok(Box::new(crate::search_source(
            source,
            self.format,
            &o,
            &query,
            column,
        )?))
    }
}
