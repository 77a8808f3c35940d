//! Dialect detection: which delimiter and which quote split the sample
//! most consistently.
//!
//! Each candidate parses the sample with the real parser (fields not
//! kept). The modal field count is found, and the candidate scores the
//! number of records that share it. A delimiter whose records never have
//! two fields is out. The highest score wins; ties go to the earlier
//! candidate (comma first). When no candidate splits anything, the file
//! is one column, read with the comma, at confidence 0. The quote is
//! chosen after, by the share of records with the modal count (see
//! [`detect_dialect`]).

use std::ops::ControlFlow;

use crate::block::{below, Masks, BLOCK};
use crate::dialect::QuoteMode;
use crate::machine::{CsvParser, CsvSink, Issue, Record};

/// The delimiters tried first, in tie-break order (the seed's rule).
pub const CSV_DELIMITER_CANDIDATES: [u8; 4] = [b',', b'\t', b';', b'|'];

/// The delimiters tried after [`CSV_DELIMITER_CANDIDATES`], in
/// tie-break order, each with whether a run of it counts as one: `:`
/// (`/etc/passwd`, key lists), one space, and runs of spaces (exports
/// aligned in columns). One of them is chosen only when it splits the
/// sample strictly more consistently than the first four, and with at
/// least [`CSV_EXTENDED_MIN_CONFIDENCE`]: prose splits at spaces too.
pub const CSV_EXTENDED_CANDIDATES: [(u8, bool); 3] = [(b':', false), (b' ', false), (b' ', true)];

/// The least confidence at which an extended candidate is chosen.
pub const CSV_EXTENDED_MIN_CONFIDENCE: f64 = 0.9;

/// What a detected reading by runs of spaces (columns aligned) is
/// worth beside a delimiter: its share of consistent records is scaled
/// by this, so its confidence stays below one half and the answer says
/// the columns are a guess.
pub const CSV_ALIGNED_CONFIDENCE: f64 = 0.45;

/// Below this confidence a detected delimiter is stated as uncertain,
/// with a hint to pass the delimiter.
pub const CSV_LOW_CONFIDENCE: f64 = 0.9;

/// How much text is held back to detect the delimiter: a few hundred
/// records of a typical file, parsed four times in well under a
/// millisecond, and then fed to the real parse (never parsed twice).
pub const DELIMITER_SAMPLE_BYTES: usize = 64 * 1024;

/// The outcome of dialect detection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Detection {
    /// The chosen delimiter.
    pub delimiter: u8,
    /// Whether a run of delimiters counts as one (runs of spaces).
    pub runs: bool,
    /// The chosen quote character, `None` for no quoting.
    pub quote: Option<u8>,
    /// The share of sampled records that have the modal field count, 0
    /// when no candidate split the sample.
    pub confidence: f64,
    /// Whether the sample held no whole record, so the delimiter was
    /// judged from the start of the first one alone (a header wider than
    /// [`DELIMITER_SAMPLE_BYTES`]).
    pub partial: bool,
}

/// The field count of each record, the issues the parser raised, and
/// whether some record spans lines (its quotes hold a line break).
struct Counts {
    fields: Vec<usize>,
    issues: usize,
    /// The line the next record starts on if no record spans lines.
    next_line: u64,
    spanning: bool,
}

impl Default for Counts {
    fn default() -> Counts {
        Counts {
            fields: Vec::new(),
            issues: 0,
            next_line: 1,
            spanning: false,
        }
    }
}

impl CsvSink for Counts {
    fn keep_fields(&self) -> bool {
        false
    }
    fn record(&mut self, record: &Record<'_>) -> ControlFlow<()> {
        self.fields.push(record.len());
        self.spanning |= record.line != self.next_line;
        self.next_line = record.line + 1;
        ControlFlow::Continue(())
    }
    fn issue(&mut self, _issue: &Issue) -> ControlFlow<()> {
        self.issues += 1;
        ControlFlow::Continue(())
    }
    fn blank_line(&mut self, line: u64) -> ControlFlow<()> {
        self.next_line = line + 1;
        ControlFlow::Continue(())
    }
}

/// Detects the delimiter of `sample`, quoting with `"`. When `complete`
/// is false the sample was cut from a longer file, so its last record is
/// left out.
///
/// ```
/// use plumb_csv::detect_delimiter;
/// let d = detect_delimiter(b"a;b;c\n1;2;3\n4;5;6\n", true);
/// assert_eq!(d.delimiter, b';');
/// assert_eq!(d.confidence, 1.0);
/// let one = detect_delimiter(b"words\nmore words\n", true);
/// assert_eq!((one.delimiter, one.confidence), (b',', 0.0));
/// ```
pub fn detect_delimiter(sample: &[u8], complete: bool) -> Detection {
    detect_dialect(sample, complete, None, QuoteMode::Char(b'"'))
}

/// The quotes tried under `quote auto` for a delimiter, in tie-break
/// order. Tab-separated text does not quote (IANA
/// text/tab-separated-values), so a stray `"` in it is text unless
/// quoting makes the sample strictly more consistent; every other
/// delimiter quotes with `"` (RFC 4180), or `'` when that alone splits
/// the sample consistently. A CSV is never read without quotes unless
/// asked: a quoting fault in it is the file's, and is reported.
pub const fn quote_candidates(delimiter: u8) -> &'static [Option<u8>] {
    if delimiter == b'\t' {
        &[None, Some(b'"')]
    } else {
        &[Some(b'"'), Some(b'\'')]
    }
}

/// Detects the dialect of `sample`: the delimiter (unless `delimiter`
/// gives it, with whether its runs count as one) and the quote (unless
/// `quote` gives it).
///
/// For each delimiter, the quote is the candidate of
/// [`quote_candidates`] whose parse is most consistent (the largest
/// share of records with the modal field count); among equally
/// consistent ones a quote that opens fields in the sample and closes
/// every one cleanly on its own line (no quoting issue, no quoted line
/// break) beats no quote, and otherwise the
/// earlier wins. A candidate after the first is tried only when it opens
/// some field, since it otherwise parses as no quote. Then the
/// delimiters are compared by the rule of
/// [`detect_delimiter`], and the extended candidates after them
/// ([`CSV_EXTENDED_CANDIDATES`]). A quote that was never meant as one (a stray
/// `"` in a tab-separated export) merges lines into records of odd
/// widths, so the parse without it is the more consistent; a file whose
/// quoted fields hold delimiters or line breaks is consistent only with
/// its quote.
///
/// ```
/// use plumb_csv::{detect_dialect, QuoteMode};
/// let tsv = b"id\tnote\n1\t\"quoted\n2\tplain\n3\tmore\"\n4\tend\n";
/// let d = detect_dialect(tsv, true, None, QuoteMode::Auto);
/// assert_eq!((d.delimiter, d.quote, d.confidence), (b'\t', None, 1.0));
/// let aligned = b"id   name    score\n1    ann     10\n22   bob     7\n";
/// let d = detect_dialect(aligned, true, None, QuoteMode::Auto);
/// assert_eq!((d.delimiter, d.runs), (b' ', true));
/// assert!(d.confidence < 0.5);
/// let csv = b"id,note\n1,\"a, b\"\n2,\"c, d\"\n";
/// assert_eq!(detect_dialect(csv, true, None, QuoteMode::Auto).quote, Some(b'"'));
/// ```
pub fn detect_dialect(
    sample: &[u8],
    complete: bool,
    delimiter: Option<(u8, bool)>,
    quote: QuoteMode,
) -> Detection {
    detect_dialect_with(sample, complete, delimiter, quote, true)
}

/// [`detect_dialect`], with `settle_early`: a reading no later candidate
/// can beat ends the search. Without it every candidate is profiled (the
/// reference the early end is held to, in the tests).
pub(crate) fn detect_dialect_with(
    sample: &[u8],
    complete: bool,
    delimiter: Option<(u8, bool)>,
    quote: QuoteMode,
    settle_early: bool,
) -> Detection {
    let one = |(d, runs): (u8, bool)| -> (Profile, Detection) {
        let given;
        let quotes: &[Option<u8>] = match quote {
            QuoteMode::Auto => quote_candidates(d),
            QuoteMode::Char(q) => {
                given = [Some(q)];
                &given
            }
            QuoteMode::Off => &[None],
        };
        let mut best: Option<(Profile, Option<u8>)> = None;
        for (k, &q) in quotes.iter().enumerate() {
            // A quote the sample never opens a field with reads as no
            // quote: it cannot be told apart, so only the first
            // candidate is tried without that evidence.
            if k > 0 && !q.is_some_and(|q| opens_a_field(sample, d, q)) {
                continue;
            }
            let p = profile(sample, complete, (d, runs), q);
            if best.as_ref().is_none_or(|(b, _)| p.beats(b)) {
                best = Some((p, q));
            }
        }
        let (p, q) = best.unwrap_or_else(|| (profile(sample, complete, (d, runs), None), None));
        let detection = Detection {
            delimiter: d,
            runs,
            quote: q,
            confidence: p.share(),
            partial: p.partial,
        };
        (p, detection)
    };
    if let Some(d) = delimiter {
        return one(d).1;
    }
    // Where no quote the dialect may read occurs in the sample, every
    // delimiter reads its lines as its records, so none scores more
    // records than there are lines and none reads quoted records: a
    // reading in which every record has the modal width (two fields or
    // more) wins against every later candidate, the extended ones
    // included (they must score strictly more), and the search ends
    // there. Most files of a dataset are such tables.
    let unquoted = settle_early
        && match quote {
            QuoteMode::Auto => memchr::memchr2(b'"', b'\'', sample).is_none(),
            QuoteMode::Char(q) => memchr::memchr(q, sample).is_none(),
            QuoteMode::Off => true,
        };
    let mut settled = false;
    // The seed's rule: the delimiter whose modal count (two fields or
    // more) the most records share; ties to the earlier candidate.
    let mut best_of = |candidates: &mut dyn Iterator<Item = (u8, bool)>| {
        let mut best: Option<(Profile, Detection)> = None;
        for candidate in candidates {
            if settled {
                break;
            }
            // A delimiter the sample never holds splits no record: its
            // profile would be passed over below, so it is not made.
            if memchr::memchr(candidate.0, sample).is_none() {
                continue;
            }
            let (p, detection) = one(candidate);
            if !p.splits || p.mode < 2 {
                continue;
            }
            if best.as_ref().is_none_or(|(b, _)| p.beats_delimiter(b)) {
                settled = unquoted && p.score == p.total;
                best = Some((p, detection));
            }
        }
        best.map(|(p, d)| (p.score, d))
    };
    let standard = best_of(&mut CSV_DELIMITER_CANDIDATES.iter().map(|&d| (d, false)));
    let extended = best_of(&mut CSV_EXTENDED_CANDIDATES.iter().copied())
        // Prose splits at spaces: the start of one record is no evidence
        // for them, and lines that end as sentences do are prose however
        // evenly their words fall.
        .filter(|(_, e)| {
            !e.partial
                && e.confidence >= CSV_EXTENDED_MIN_CONFIDENCE
                && !(e.delimiter == b' ' && reads_as_sentences(sample, complete, e))
        });
    let chosen = match (standard, extended) {
        (Some(s), Some(e)) if e.0 > s.0 && e.1.confidence > s.1.confidence => Some(e),
        (None, e) => e,
        (s, _) => s,
    }
    .map(|(score, mut d)| {
        // Columns aligned by runs of spaces are a layout, not a
        // delimiter a writer chose: read so, as awk would, but said to
        // be a guess (Python's sniffer and DuckDB find no delimiter).
        if d.delimiter == b' ' && d.runs {
            d.confidence *= CSV_ALIGNED_CONFIDENCE;
        }
        (score, d)
    });
    match chosen {
        Some((_, detection)) => detection,
        None => Detection {
            delimiter: b',',
            runs: false,
            quote: one((b',', false)).1.quote,
            confidence: 0.0,
            partial: one((b',', false)).1.partial,
        },
    }
}

/// Whether most records of `sample`, read as `detection` says, end as
/// a sentence does: a last field of words closed by `.`, `!` or `?`
/// (before any closing quote or bracket). A table split at single spaces
/// has no room for sentences in a field, so lines that read so are
/// prose (Python's sniffer may still call it space-delimited; DuckDB does
/// not).
fn reads_as_sentences(sample: &[u8], complete: bool, detection: &Detection) -> bool {
    #[derive(Default)]
    struct Ends {
        records: usize,
        sentences: usize,
    }
    impl CsvSink for Ends {
        fn record(&mut self, record: &Record<'_>) -> ControlFlow<()> {
            self.records += 1;
            let last = record.get(record.len().saturating_sub(1)).unwrap_or(b"");
            let end = last
                .iter()
                .rposition(|b| !matches!(b, b'"' | b'\'' | b')' | b']'))
                .map_or(&b""[..], |k| &last[..=k]);
            if matches!(end.last(), Some(b'.' | b'!' | b'?'))
                && end.iter().any(u8::is_ascii_alphabetic)
            {
                self.sentences += 1;
            }
            ControlFlow::Continue(())
        }
    }
    let mut ends = Ends::default();
    let mut parser = CsvParser::new(detection.delimiter)
        .with_quote(detection.quote)
        .with_delimiter_runs(detection.runs);
    let _ = parser.push(sample, &mut ends);
    if complete {
        let _ = parser.finish(&mut ends);
    }
    ends.records > 0 && 2 * ends.sentences >= ends.records
}

/// Whether `quote` stands at the start of some field of `sample`
/// (after a delimiter or a line break, or first).
fn opens_a_field(sample: &[u8], delimiter: u8, quote: u8) -> bool {
    memchr::memchr_iter(quote, sample)
        .any(|k| k == 0 || matches!(sample[k - 1], b'\n' | b'\r') || sample[k - 1] == delimiter)
}

/// The most lines a detected preamble may hold: a title, a few banner
/// or note lines, a count line. Longer runs of odd lines are data's.
pub const CSV_PREAMBLE_MAX_LINES: u64 = 32;

/// What preamble detection needs of one record.
struct Shape {
    line: u64,
    fields: usize,
    /// Its cells read as column names.
    names: bool,
    /// It opens with `#`, the common mark of a comment line.
    hash: bool,
    /// It opens with `#` and a name right after (`#code`), as a
    /// commented header does and a prose note (`# text`) does not.
    hash_name: bool,
    /// Its last field is empty: a trailing delimiter, when most rows
    /// have one.
    trailing_empty: bool,
}

#[derive(Default)]
struct Shapes(Vec<Shape>);

impl CsvSink for Shapes {
    fn record(&mut self, record: &Record<'_>) -> ControlFlow<()> {
        let hash = record
            .iter()
            .next()
            .is_some_and(|f| f.first() == Some(&b'#'));
        self.0.push(Shape {
            line: record.line,
            fields: record.len(),
            // Only the first record and `#` lines are ever asked whether
            // they read as names (a row-names header, a commented header).
            names: (self.0.is_empty() || hash)
                && crate::dialect::header::header_looks_like_names(record),
            hash,
            hash_name: record.iter().next().is_some_and(|f| {
                f.first() == Some(&b'#') && f.get(1).is_some_and(|b| b.is_ascii_alphanumeric())
            }),
            trailing_empty: record.len() >= 2 && record.get(record.len() - 1) == Some(&b""[..]),
        });
        ControlFlow::Continue(())
    }
}

/// A detected preamble.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preamble {
    /// The lines to skip (0 when none).
    pub lines: u64,
    /// Every one of them opens with `#`: the file marks comments so,
    /// and later `#` lines are comments too.
    pub marked: bool,
    /// The `#` line just after them reads as the table's header: it is
    /// the header, not a comment.
    pub commented_header: bool,
}

/// How many lines of metadata open `sample` (0 when none): the first
/// records whose field count is below the sample's modal count, when
/// the records after them mostly have it, or that open with `#` (comment
/// lines, whatever they hold; a `#` line of names just above the table,
/// at least as wide as it, is its commented header and is kept). A
/// title, `***` banners, a count line or a block of `#` notes above a
/// table are such lines; a header one field short of
/// the rows (R's `write.table` leaves the row-name column unnamed) is
/// not, when its cells read as names and the table has three columns or
/// more, nor are lines one field short of rows that end with a
/// delimiter (the table's shape less the trailing empty field). At most [`CSV_PREAMBLE_MAX_LINES`], unless every line is a `#`
/// line (then as many as the sample holds).
///
/// ```
/// use plumb_csv::{detect_delimiter, detect_preamble};
/// let text = b"Quarterly export\n*** do not edit ***\nrows: 3\nid,name,city\n1,a,x\n2,b,y\n3,c,z\n";
/// let comma = detect_delimiter(text, true);
/// assert_eq!(detect_preamble(text, true, &comma, None).lines, 3);
/// assert_eq!(detect_preamble(b"id,name\n1,a\n2,b\n", true, &comma, None).lines, 0);
/// let noted = b"# exported 2024-01-15\n# by the ledger, v2\nid,name\n1,a\n2,b\n";
/// let p = detect_preamble(noted, true, &comma, None);
/// assert_eq!((p.lines, p.marked), (2, true));
/// ```
pub fn detect_preamble(
    sample: &[u8],
    complete: bool,
    dialect: &Detection,
    comment: Option<u8>,
) -> Preamble {
    let none = Preamble {
        lines: 0,
        marked: false,
        commented_header: false,
    };
    let mut shapes = Shapes::default();
    let mut parser = CsvParser::new(dialect.delimiter)
        .with_quote(dialect.quote)
        .with_delimiter_runs(dialect.runs)
        .with_comment(comment);
    let _ = parser.push(sample, &mut shapes);
    if complete {
        let _ = parser.finish(&mut shapes);
    }
    let records = shapes.0;
    let counts: Vec<usize> = records
        .iter()
        .filter(|r| !r.hash)
        .map(|r| r.fields)
        .collect();
    let Some((mode, _)) = modal(counts) else {
        return none;
    };
    // A block of `#` lines is a preamble by its mark alone, however the
    // table under it varies; the last one, if it reads as names at least
    // as many as the table's modal width and its first name touches the
    // `#` (`#code`, not `# a note`), is the table's commented header and
    // is kept.
    let marked = records.iter().take_while(|r| r.hash).count();
    if marked > 0 && marked < records.len() {
        let above = &records[marked - 1];
        let header = above.hash_name && above.names && above.fields >= mode;
        let k = marked - usize::from(header);
        if k == 0 {
            return none;
        }
        return Preamble {
            lines: records[k].line - 1,
            marked: true,
            commented_header: header,
        };
    }
    // Otherwise short lines above a table that mostly keeps its width.
    // Rows that end with a delimiter (an empty last field) make the
    // table's shape one field wider than its lines without one: a line of
    // that shape less the empty field (a header written without the
    // trailing delimiter) is the table's, not a preamble's.
    let modal = records.iter().filter(|r| r.fields == mode && !r.hash);
    let (trailing, all) = modal.fold((0, 0), |(t, a), r| {
        (t + usize::from(r.trailing_empty), a + 1)
    });
    let short_of_trailing =
        |r: &Shape| mode >= 3 && r.fields == mode - 1 && trailing * 5 >= all * 4;
    let Some(k) = records
        .iter()
        .position(|r| r.fields >= mode || short_of_trailing(r))
    else {
        return none;
    };
    if mode < 2 || k == 0 {
        return none;
    }
    let line = records[k].line;
    let first = &records[0];
    let row_names_header = k == 1 && mode >= 3 && first.fields == mode - 1 && first.names;
    let rest = &records[k..];
    let regular = rest
        .iter()
        .filter(|r| r.fields == mode || short_of_trailing(r))
        .count();
    if line - 1 > CSV_PREAMBLE_MAX_LINES
        || row_names_header
        || rest.len() < 2
        || regular * 5 < rest.len() * 4
    {
        return none;
    }
    Preamble {
        lines: line - 1,
        marked: false,
        commented_header: false,
    }
}

/// Whether [`detect_preamble`] finds no preamble in `sample`, told
/// without a parse of its own, where that is plain: `detection` was made
/// on this same sample with no comment character, every record it read
/// had the modal field count (confidence 1), the sample held a whole
/// record, and its first byte opens no `#` line, quoted field or blank
/// line. Then the first record already has the table's width and is not
/// a `#` line, so no line above the table is a preamble's. Otherwise
/// false, and [`detect_preamble`] decides. Every file of a dataset pays
/// the preamble's parse of its sample: most are regular tables.
pub(crate) fn plainly_no_preamble(
    sample: &[u8],
    detection: &Detection,
    comment: Option<u8>,
) -> bool {
    comment.is_none()
        && !detection.runs
        && !detection.partial
        && detection.confidence >= 1.0
        && sample
            .first()
            .is_some_and(|&b| !matches!(b, b'#' | b'\n' | b'\r') && Some(b) != detection.quote)
}

/// How one dialect splits the sample.
struct Profile {
    /// The modal field count (the larger among equally frequent ones).
    mode: usize,
    /// Records with the modal count.
    score: usize,
    /// Records in all.
    total: usize,
    /// Whether some record has two fields or more.
    splits: bool,
    /// Whether no record ended in the sample, and the first one's start
    /// was judged instead.
    partial: bool,
    /// Whether the quote opens fields and every one closes cleanly on
    /// the line it opened on: quoting the file was written with, as a
    /// reader such as Python's csv or pandas would strip it. (A quoted
    /// line break that costs no consistency is no evidence either way.)
    clean_quotes: bool,
    /// Whether the quote opens fields, every one closes without a
    /// quoting issue, and some holds a line break: records that only
    /// this quote tells apart from lines.
    quoted_records: bool,
}

impl Profile {
    /// The profile of records of these field counts; `quoting` is
    /// `(clean_quotes, quoted_records)`.
    fn of(
        records: Vec<usize>,
        partial: bool,
        (clean_quotes, quoted_records): (bool, bool),
    ) -> Profile {
        let splits = records.iter().any(|&n| n >= 2);
        let total = records.len();
        let (mode, score) = modal(records).unwrap_or((0, 0));
        Profile {
            mode,
            score,
            total,
            splits,
            partial,
            clean_quotes,
            quoted_records,
        }
    }

    fn share(&self) -> f64 {
        self.score as f64 / self.total.max(1) as f64
    }

    /// Whether this parse is to be preferred to `other`: more consistent,
    /// or as consistent and quoted cleanly where `other` is not.
    fn beats(&self, other: &Profile) -> bool {
        let (a, b) = (self.share(), other.share());
        a > b || a == b && self.clean_quotes && !other.clean_quotes
    }

    /// Whether this delimiter's reading is to be preferred to `other`'s:
    /// the more records of one width (the seed's rule), unless one of
    /// them reads whole records whose quoted fields hold line breaks,
    /// consistently and without a quoting issue, and the other reads no
    /// such quote. Lines of a quoted field that hold the other delimiter
    /// (a comma file whose multi-line texts hold tabs) split alike on
    /// it, but only as lines, so its count of records of one width says
    /// nothing against the quoted reading.
    fn beats_delimiter(&self, other: &Profile) -> bool {
        let held = |p: &Profile| p.quoted_records && p.share() >= CSV_LOW_CONFIDENCE;
        match (held(self), held(other)) {
            (true, false) => true,
            (false, true) => false,
            _ => self.score > other.score,
        }
    }
}

/// The modal field count and how many records have it; among equally
/// frequent counts the larger one, so a header-plus-rows file is not
/// judged by stray short lines. Sorted rather than hashed: a sample's
/// records are few, and every file of a dataset pays this per candidate.
fn modal(mut counts: Vec<usize>) -> Option<(usize, usize)> {
    counts.sort_unstable();
    let mut best: Option<(usize, usize)> = None;
    for run in counts.chunk_by(|a, b| a == b) {
        let here = (run[0], run.len());
        if best.is_none_or(|(count, times)| (here.1, here.0) >= (times, count)) {
            best = Some(here);
        }
    }
    best
}

fn profile(
    sample: &[u8],
    complete: bool,
    (delimiter, runs): (u8, bool),
    quote: Option<u8>,
) -> Profile {
    if !runs && quote.is_none_or(|q| memchr::memchr(q, sample).is_none()) {
        return plain_profile(sample, complete, delimiter);
    }
    parsed_profile(sample, complete, (delimiter, runs), quote)
}

/// [`profile`] of a sample no quote enters and no run of delimiters is
/// read in, counted without the state machine: its records are its
/// lines (ended by LF, CRLF or CR; an empty one is blank), each with one
/// field more than it holds delimiters. No quote opens a field, so no
/// quoting is judged clean. Every file of a dataset is profiled once at
/// least, and most samples are of this kind. Held equal to
/// [`parsed_profile`] by `tests::the_plain_profile_is_the_parsed_one`.
fn plain_profile(sample: &[u8], complete: bool, delimiter: u8) -> Profile {
    let mut records = Vec::new();
    // Lines are short and many: the delimiters are counted a block at a
    // time over the whole sample, and a line's fields are the count
    // at its end less the count at its start (a line break is never
    // counted, so the count is the same at either side of one).
    let mut start = 0;
    let mut at_start = 0;
    let mut line_end = |end: usize, before: usize, records: &mut Vec<usize>| {
        if end < start {
            // The LF of a CRLF already passed.
            return;
        }
        if end > start {
            records.push(1 + before - at_start);
        }
        start = end + 1;
        if sample[end] == b'\r' && sample.get(end + 1) == Some(&b'\n') {
            start += 1;
        }
        at_start = before;
    };
    let mut total = 0;
    if delimiter == b'\n' || delimiter == b'\r' {
        // No table splits so, and the block classifier would count the
        // byte as a delimiter only: counted a byte at a time.
        for (end, &b) in sample.iter().enumerate() {
            if b == b'\n' || b == b'\r' {
                line_end(end, total, &mut records);
            }
        }
    } else {
        let blocks = sample.chunks_exact(BLOCK);
        // The last few bytes, padded with zeros whose bits are masked out.
        let tail = blocks.remainder().len();
        let mut last = [0u8; BLOCK];
        last[..tail].copy_from_slice(blocks.remainder());
        let blocks = blocks.map(|b| (<[u8; BLOCK]>::try_from(b).unwrap_or([0; BLOCK]), u64::MAX));
        for (k, (block, valid)) in blocks.chain([(last, below(tail as u32))]).enumerate() {
            // A dialect without a quote passes the delimiter as its quote.
            let m = Masks::of(&block, delimiter, delimiter);
            let delims = m.delimiter & valid;
            let mut breaks = m.lf | m.cr;
            while breaks != 0 {
                let bit = breaks.trailing_zeros();
                let before = (delims & below(bit)).count_ones() as usize;
                line_end(k * BLOCK + bit as usize, total + before, &mut records);
                breaks &= breaks - 1;
            }
            total += delims.count_ones() as usize;
        }
    }
    let partial = !complete && records.is_empty();
    if (complete || partial) && start < sample.len() {
        records.push(1 + total - at_start);
    }
    Profile::of(records, partial, (false, false))
}

/// [`profile`] by the parser itself.
fn parsed_profile(
    sample: &[u8],
    complete: bool,
    (delimiter, runs): (u8, bool),
    quote: Option<u8>,
) -> Profile {
    let mut counts = Counts::default();
    let mut parser = CsvParser::new(delimiter)
        .with_quote(quote)
        .with_delimiter_runs(runs);
    let _ = parser.push(sample, &mut counts);
    // A sample that holds no whole record (a header wider than the
    // sample) is judged by the start of its first: without it, a wide
    // tab-separated file was read as one column.
    let partial = !complete && counts.fields.is_empty();
    if complete || partial {
        let _ = parser.finish(&mut counts);
        // The last record spanned lines if more lines began after it
        // than its own (and a final line break's).
        counts.spanning |= complete && parser.lines() > counts.next_line;
    }
    // The quote opens fields and closes every one without an issue:
    // on one line each (clean quotes) or some across lines.
    let quoted_cleanly =
        quote.is_some_and(|q| opens_a_field(sample, delimiter, q)) && counts.issues == 0;
    Profile::of(
        counts.fields,
        partial,
        (
            quoted_cleanly && !counts.spanning,
            quoted_cleanly && counts.spanning,
        ),
    )
}

#[cfg(test)]
mod tests;
