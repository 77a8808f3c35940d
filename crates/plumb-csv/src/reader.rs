//! The CSV and TSV [`FormatReader`]s.

use plumb_core::{
    impl_answer, text_stream, Answer, ByteSource, FormatReader, Op, ReadOptions, Refusal,
    SniffScore, Window,
};

use crate::{
    inspect, parse_delimiter, select, validate, ColumnRef, CsvFormat, CsvInspect, CsvOptions,
    CsvSelect, CsvValidate, SelectOptions,
};

impl_answer!(CsvInspect);
impl_answer!(
    CsvValidate,
    |a: &CsvValidate| Some(a.valid),
    |_a: &CsvValidate| None
);
impl_answer!(CsvSelect, |_a: &CsvSelect| None, |a: &CsvSelect| Some(
    Window {
        returned: a.returned as u64,
        offset: a.offset,
        limit: a.limit as u64,
        has_more: a.has_more,
    }
));

/// Reads CSV or TSV through the plumb-csv engine.
#[derive(Debug, Clone, Copy)]
pub struct CsvReader {
    format: CsvFormat,
}

impl CsvReader {
    /// The comma-separated reader (`csv`; delimiter detected unless given).
    pub const CSV: CsvReader = CsvReader {
        format: CsvFormat::Csv,
    };
    /// The tab-separated reader (`tsv`, `.tsv` and `.tab`).
    pub const TSV: CsvReader = CsvReader {
        format: CsvFormat::Tsv,
    };

    fn options(&self, opts: &ReadOptions) -> Result<CsvOptions, Refusal> {
        Ok(CsvOptions {
            delimiter: opts.delimiter.as_deref().map(parse_delimiter).transpose()?,
            header: match &opts.header {
                Some(h) => h.parse()?,
                None => Default::default(),
            },
            max_rows: opts.max_rows,
            sample_rows: opts.sample_rows,
            cancel: opts.cancel.clone(),
        })
    }
}

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

    fn accepts(&self, op: Op) -> &'static [&'static str] {
        match op {
            Op::Inspect => &["delimiter", "header", "max_rows", "sample_rows"],
            Op::Select => &["delimiter", "header", "offset", "limit", "columns"],
            Op::Validate => &["delimiter", "header", "max_rows"],
        }
    }

    fn option_hint(&self, op: Op, option: &str) -> Option<String> {
        (op == Op::Select && option == "pointer").then(|| {
            format!(
                "{} selects rows by offset and limit and columns by name or index; a JSON pointer does not apply",
                self.format.name()
            )
        })
    }

    fn inspect(
        &self,
        source: &dyn ByteSource,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal> {
        let o = self.options(opts)?;
        Ok(Box::new(inspect(
            text_stream(source, opts.cancel.as_ref())?,
            self.format,
            &o,
        )?))
    }

    fn select(
        &self,
        source: &dyn ByteSource,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal> {
        let o = self.options(opts)?;
        let window = SelectOptions {
            offset: opts.offset.unwrap_or(0),
            limit: opts.limit,
            columns: opts
                .columns
                .as_ref()
                .map(|cols| cols.iter().map(|c| ColumnRef::parse(c)).collect()),
        };
        Ok(Box::new(select(
            text_stream(source, opts.cancel.as_ref())?,
            self.format,
            &o,
            &window,
        )?))
    }

    fn validate(
        &self,
        source: &dyn ByteSource,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal> {
        let o = self.options(opts)?;
        Ok(Box::new(validate(
            text_stream(source, opts.cancel.as_ref())?,
            self.format,
            &o,
        )?))
    }
}
