//! The parser's settings (the dialect, the lines to skip, the byte
//! machine forced) and what it tells of the text it read (lines, records,
//! endings): the builder and the getters, apart from the machine itself.

use super::{class_table, CsvParser, LineEndings, Mode, State};

impl CsvParser {
    /// A parser for `delimiter` (`b','`, `b'\t'`, `b';'`, ...).
    pub fn new(delimiter: u8) -> CsvParser {
        CsvParser {
            delimiter,
            quote: b'"',
            class: class_table(delimiter, b'"'),
            state: State::FieldStart,
            mode: Mode::Keep,
            cell_from: 0,
            cell_quoted: false,
            cell_opening: false,
            cell_escaped: false,
            data: Vec::new(),
            ends: Vec::new(),
            fields: 0,
            field_offset: 0,
            in_record: false,
            overflow: None,
            quoting_issues: 0,
            line: 1,
            record_no: 0,
            record_line: 1,
            record_offset: 0,
            quote_line: 1,
            quote_offset: 0,
            offset: 0,
            after_cr: false,
            endings: LineEndings::default(),
            blank_lines: 0,
            runs: false,
            byte_machine: false,
            skip_lines: 0,
            comment: None,
            comments_after: 0,
            skipped_lines: 0,
            comment_lines: 0,
            origin: 0,
            stopped: false,
            finished: false,
            run_after: 0,
        }
    }

    /// Sets the quote character: `Some(b'"')` (the default, RFC 4180),
    /// another byte such as `Some(b'\'')`, or `None` for a dialect with
    /// no quoting, where every byte but the delimiter and line breaks is
    /// field content (IANA's text/tab-separated-values). A quote equal to
    /// the delimiter, CR or LF is taken as no quote.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use plumb_csv::{CsvParser, CsvSink, Record};
    ///
    /// struct Widths(Vec<usize>);
    /// impl CsvSink for Widths {
    ///     fn record(&mut self, r: &Record<'_>) -> ControlFlow<()> {
    ///         self.0.push(r.len());
    ///         ControlFlow::Continue(())
    ///     }
    /// }
    /// let text = b"a\t\"b\n1\t2\n";
    /// let mut quoted = Widths(Vec::new());
    /// let mut p = CsvParser::new(b'\t');
    /// let _ = p.push(text, &mut quoted);
    /// p.finish(&mut quoted);
    /// assert_eq!(quoted.0, vec![2]); // the quote swallowed the second line
    /// let mut plain = Widths(Vec::new());
    /// let mut p = CsvParser::new(b'\t').with_quote(None);
    /// let _ = p.push(text, &mut plain);
    /// p.finish(&mut plain);
    /// assert_eq!(plain.0, vec![2, 2]);
    /// ```
    pub fn with_quote(mut self, quote: Option<u8>) -> CsvParser {
        self.quote = match quote {
            Some(q) if !matches!(q, b'\r' | b'\n') && q != self.delimiter => q,
            _ => self.delimiter,
        };
        self.class = class_table(self.delimiter, self.quote);
        self
    }

    /// Reads a run of delimiters as one, and ignores delimiters that open
    /// or close a line: text aligned in columns with spaces, read with
    /// the delimiter `b' '`, gives one field per column (as `awk` splits
    /// it). Empty fields cannot occur; a quoted field may still hold
    /// spaces.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use plumb_csv::{CsvParser, CsvSink, Record};
    ///
    /// struct Widths(Vec<usize>);
    /// impl CsvSink for Widths {
    ///     fn record(&mut self, r: &Record<'_>) -> ControlFlow<()> {
    ///         self.0.push(r.len());
    ///         ControlFlow::Continue(())
    ///     }
    /// }
    /// let mut w = Widths(Vec::new());
    /// let mut p = CsvParser::new(b' ').with_delimiter_runs(true);
    /// let _ = p.push(b"id   name     score\n  1  \"ann b\"  10  \n", &mut w);
    /// p.finish(&mut w);
    /// assert_eq!(w.0, vec![3, 3]);
    /// ```
    pub fn with_delimiter_runs(mut self, runs: bool) -> CsvParser {
        self.runs = runs;
        self
    }

    /// Reads every byte through the byte machine, the reference the fast
    /// paths are held equal to: the block path and the run path are
    /// never taken, whatever the sink asks. The events are the same
    /// either way (that is what the tests that set it check); a reader
    /// never needs it, as csv-core's `nfa(true)` keeps its reference
    /// reachable.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use plumb_csv::{CsvParser, CsvSink, Record};
    /// #[derive(Default)]
    /// struct Widths(Vec<usize>);
    /// impl CsvSink for Widths {
    ///     fn keep_fields(&self) -> bool {
    ///         false
    ///     }
    ///     fn record(&mut self, r: &Record<'_>) -> ControlFlow<()> {
    ///         self.0.push(r.len());
    ///         ControlFlow::Continue(())
    ///     }
    /// }
    /// let text = "a,b,c\n".repeat(100);
    /// let (mut fast, mut reference) = (Widths::default(), Widths::default());
    /// let mut p = CsvParser::new(b',');
    /// let _ = p.push(text.as_bytes(), &mut fast);
    /// p.finish(&mut fast);
    /// let mut p = CsvParser::new(b',').with_byte_machine(true);
    /// let _ = p.push(text.as_bytes(), &mut reference);
    /// p.finish(&mut reference);
    /// assert_eq!(fast.0, reference.0);
    /// ```
    pub fn with_byte_machine(mut self, on: bool) -> CsvParser {
        self.byte_machine = on;
        self
    }

    /// Skips the first `lines` physical lines unparsed (a preamble: a
    /// title, banners, a count line). A quote in them opens nothing.
    pub fn with_skip_lines(mut self, lines: u64) -> CsvParser {
        self.skip_lines = lines;
        self
    }

    /// Skips every line that starts with `comment` where a record would
    /// start (not inside a quoted field, nor after a delimiter). A
    /// comment equal to the delimiter, the quote, CR or LF is taken as
    /// none.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use plumb_csv::{CsvParser, CsvSink, Record};
    ///
    /// struct Count(usize);
    /// impl CsvSink for Count {
    ///     fn record(&mut self, _: &Record<'_>) -> ControlFlow<()> {
    ///         self.0 += 1;
    ///         ControlFlow::Continue(())
    ///     }
    /// }
    /// let mut n = Count(0);
    /// let mut p = CsvParser::new(b',').with_skip_lines(2).with_comment(Some(b'#'));
    /// let _ = p.push(b"Report\n\"unbalanced\na,b\n# note\n1,#2\n", &mut n);
    /// p.finish(&mut n);
    /// assert_eq!((n.0, p.skipped_lines(), p.comment_lines()), (2, 2, 1));
    /// ```
    pub fn with_comment(mut self, comment: Option<u8>) -> CsvParser {
        self.comment = comment
            .filter(|&c| !matches!(c, b'\r' | b'\n') && c != self.delimiter && c != self.quote);
        self
    }

    /// Takes no line up to `line` for a comment: a header marked like
    /// the comments above it (`#code\tname`) is read as a record.
    pub fn with_comments_after(mut self, line: u64) -> CsvParser {
        self.comments_after = line;
        self
    }

    /// Lines skipped as asked by [`CsvParser::with_skip_lines`] so far.
    pub fn skipped_lines(&self) -> u64 {
        self.skipped_lines
    }

    /// Comment lines skipped so far.
    pub fn comment_lines(&self) -> u64 {
        self.comment_lines
    }

    /// The quote character, `None` when the dialect has none.
    pub fn quote(&self) -> Option<u8> {
        (self.quote != self.delimiter).then_some(self.quote)
    }

    /// Sets the absolute offset of the first byte to be pushed (3 after
    /// a BOM), so every reported offset is a file offset.
    pub fn with_base_offset(mut self, offset: u64) -> CsvParser {
        self.offset = offset;
        self.origin = offset;
        self
    }

    /// The delimiter.
    pub fn delimiter(&self) -> u8 {
        self.delimiter
    }

    /// Record terminators seen so far, by kind.
    ///
    /// A CR is counted as `cr` when seen and moved to `crlf` when an LF
    /// follows, so a count taken between pushes may still move.
    pub fn line_endings(&self) -> LineEndings {
        self.endings
    }

    /// Blank lines seen so far.
    pub fn blank_lines(&self) -> u64 {
        self.blank_lines
    }

    /// Records completed so far (the header counts).
    pub fn records(&self) -> u64 {
        self.record_no - u64::from(self.in_record)
    }

    /// Physical lines started so far.
    pub fn lines(&self) -> u64 {
        self.line
    }

    /// Whether a sink stopped the parse.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }
}
