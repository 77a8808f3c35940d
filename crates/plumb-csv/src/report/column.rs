//! One column's accumulator for CSV inspect: class counts, sentinels,
//! samples, lengths, the exact numeric range and precision facts, and
//! the column facts that correct a single cell's reading (decimal
//! commas, code-shaped sentinels and floats, date forms).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use plumb_core::{
    cap_text, float_value_and_precision, number_precision_of, scan_decimal, scan_plain_number,
    DecimalScan, NumericRange, PrecisionKind, MAX_SAFE_INTEGER, SAMPLE_TEXT_BYTES,
    SAMPLE_VALUES_CAP,
};
use plumb_stats::{ColumnSketch, NumberIn, StatsReport};

use crate::cell::{
    infer_column_type, number_class, scan_cell, CellClass, ClassHistogram, InferredType,
    SENTINEL_TOKENS,
};

use super::dates::{date_format, date_slot, DateRange, DATE_SLOTS};
use super::inspect::{Tracking, INSPECT_NARROW_TEXT_BYTES, INSPECT_WIDE_TEXT_COLUMNS};
use super::lossy_prefix;
use super::shape::{char_count, code_shaped, code_shaped_float, comma_decimal};
use super::stats::{ColumnStats, Settled};

mod state;
pub(super) use state::{ColumnState, RangeCounts};

/// A fact about the number literals of a column that a double would misstate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PrecisionFact {
    /// How a double would misstate the literal.
    pub kind: PrecisionKind,
    /// How many cells of the column have this kind.
    pub count: u64,
    /// The first such literal, verbatim.
    pub example: String,
    /// The record of that first literal.
    pub record: u64,
}

/// What inspect reports about one column.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ColumnReport {
    /// The 0-based column index.
    pub index: usize,
    /// The header name, when there is a header.
    pub name: Option<String>,
    /// The type the valued cells support.
    pub inferred_type: InferredType,
    /// Cells that are empty (or only spaces and tabs).
    pub empty: u64,
    /// Rows that gave no cell in this column (a row shorter than it):
    /// not among `empty` or the statistics' `count`. Left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub missing: u64,
    /// Rows whose cell in this column was not read: a cap (a field over
    /// 1 MiB, a record over 16 MiB) cut the row before it, and the rest
    /// of the row was skipped (its issue says where). Not among
    /// `missing`, `empty` or the statistics' `count`. Left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub unread: u64,
    /// Missing-value tokens by token (`{"NA": 1}`); counted, never converted.
    pub sentinels: BTreeMap<String, u64>,
    /// Cells by class.
    pub classes: ClassHistogram,
    /// For a column of two classes or more: the record (from 1, the
    /// header's number included, as issues count) where a cell of each
    /// class was first read. A cell the column's settling reads again as
    /// another class (a code-shaped float among codes, `NA` among
    /// country codes) keeps its first reading here. Left out otherwise.
    /// Boxed: a column of one class (most) costs a pointer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_records: Option<Box<BTreeMap<&'static str, u64>>>,
    /// Up to five distinct non-empty values, verbatim, each cut to the
    /// column's text cap (512 bytes in the first 500 columns, 32 after).
    pub samples: Vec<String>,
    /// The fewest characters in a cell.
    pub min_length: Option<u64>,
    /// The most characters in a cell.
    pub max_length: Option<u64>,
    /// The smallest number (exact for integers of any length); for a
    /// date or timestamp column whose cells all read one way (as ISO
    /// 8601 instants, or as days of its `date_format`), the earliest
    /// cell as written; else null.
    pub min: Value,
    /// The largest number, or the latest date or timestamp cell, or null.
    pub max: Value,
    /// Number literals a double would misstate, by kind.
    pub precision: Vec<PrecisionFact>,
    /// How the column writes dates: `YYYY-MM-DD`, `DD/MM/YYYY`,
    /// `MM/DD/YYYY` (with the separator seen most), `ambiguous: DD/MM/YYYY
    /// or MM/DD/YYYY` when no day is over 12, or `mixed: ...` when its
    /// cells disagree; null without dates.
    pub date_format: Option<String>,
    /// `,` when numbers in the column use a decimal comma (`3,25`, read
    /// in a file not delimited by commas); null otherwise.
    pub decimal_separator: Option<&'static str>,
    /// Statistics (inspect's `stats` option): distinct count, top values,
    /// moments, quantiles, text and date ranges, each figure labelled
    /// exact or estimate; absent unless asked for.
    /// Boxed: ten thousand columns without statistics stay small.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<Box<StatsReport>>,
}

/// The most bytes inspect keeps of one text of column `index`.
pub(super) fn text_cap(index: usize) -> usize {
    if index < INSPECT_WIDE_TEXT_COLUMNS {
        SAMPLE_TEXT_BYTES
    } else {
        INSPECT_NARROW_TEXT_BYTES
    }
}

#[derive(Clone, Debug)]
pub(super) struct ColumnAcc {
    classes: ClassHistogram,
    /// The record of the column's first cell (records count from 1; 0
    /// until a cell is read), with its class's index in the top four bits.
    first: u64,
    /// The record where a cell of each other class was first read (by
    /// class index; 0 for none), boxed on a second class: most columns
    /// have one, and ten thousand columns stay small.
    later_firsts: Option<Box<[u64; 8]>>,
    samples: Vec<String>,
    /// `u64::MAX` and 0 until a cell is seen.
    min_len: u64,
    max_len: u64,
    /// Boxed on the first number: a column of text holds none.
    range: Option<Box<NumericRange>>,
    precision: BTreeMap<PrecisionKind, PrecisionFact>,
    /// Cells looked at for new sample values. A column with fewer than
    /// five distinct values stops looking after [`SAMPLE_LOOKS`] cells
    /// instead of comparing every cell to its samples forever; a column
    /// with all its samples stops at once.
    looks: u32,
    /// The most bytes kept of one text (see [`text_cap`]).
    text_cap: u32,
    /// Keeps no samples and no date ends (a brief inspect's column).
    brief: bool,
    /// Whether `3,25` may be a number (the delimiter is not a comma).
    decimal_comma: bool,
    /// String cells that are two or three capital letters (`US`, `DEU`).
    codes: u64,
    /// What few columns need (dates, decimal commas, code-shaped
    /// floats), boxed on first need so that ten thousand columns of
    /// text stay small.
    rare: Option<Box<Rare>>,
    /// Statistics, when asked for: their own box, so that ten thousand
    /// columns with statistics hold no rare facts they never need.
    stats: Option<Box<ColumnStats>>,
    /// Set in a part of the file after the first (a scan on several
    /// threads): the column then keeps up to [`LATER_SAMPLE_ROOM`]
    /// samples, each with the look it was found on, so that
    /// [`ColumnAcc::absorb`] can pick the samples a one-thread scan would
    /// have picked. Boxed: a first part, and a one-thread scan, hold none,
    /// and a pointer is a third of an empty `Vec` in every column.
    #[allow(clippy::box_collection)]
    sample_looks: Option<Box<Vec<u32>>>,
}

/// The samples a column of a later part keeps: enough that, whichever
/// of them the parts before already hold (at most one fewer than
/// [`SAMPLE_VALUES_CAP`], or they would have stopped looking), the new
/// ones still fill the samples.
const LATER_SAMPLE_ROOM: usize = 2 * SAMPLE_VALUES_CAP - 1;

/// A column's rarer facts.
#[derive(Clone, Debug, Default)]
struct Rare {
    /// Sentinel cells by index in [`SENTINEL_TOKENS`].
    sentinels: [u64; SENTINEL_TOKENS.len()],
    /// Numbers written with a decimal comma.
    comma_decimals: u64,
    /// Date cells by form (see [`date_slot`]).
    dates: [u64; DATE_SLOTS],
    /// Float cells shaped like codes (`0E8`: digits, `E`, digits), kept
    /// out of the range until the column says whether they are numbers.
    code_floats: u64,
    /// The least and greatest of them, with their literals.
    code_float_ends: Option<(CodeFloat, CodeFloat)>,
    /// Rows a cap cut before this column (see [`ColumnReport::unread`]).
    unread: u64,
    /// The earliest and latest of its date and timestamp cells.
    date_range: DateRange,
}

impl Rare {
    /// Takes in a later part's rare facts (see [`ColumnAcc::absorb`]).
    fn absorb(&mut self, later: Rare) -> bool {
        for (mine, theirs) in self.sentinels.iter_mut().zip(later.sentinels) {
            *mine += theirs;
        }
        for (mine, theirs) in self.dates.iter_mut().zip(later.dates) {
            *mine += theirs;
        }
        self.comma_decimals += later.comma_decimals;
        self.unread += later.unread;
        self.date_range.absorb(later.date_range);
        self.code_floats += later.code_floats;
        match (&mut self.code_float_ends, later.code_float_ends) {
            (_, None) => {}
            (mine @ None, theirs) => *mine = theirs,
            // The ends keep the first of equal values, and one without a
            // value (NaN) never moves them: an earlier NaN end stays, and
            // a later part whose first end is NaN never compared its
            // other values with these ends.
            (Some(_), Some((lo, _))) if lo.0.is_nan() => return false,
            (Some((lo, hi)), Some((their_lo, their_hi))) => {
                if their_lo.0 < lo.0 {
                    *lo = their_lo;
                }
                if their_hi.0 > hi.0 {
                    *hi = their_hi;
                }
            }
        }
        true
    }
}

/// A code-shaped float's value and literal.
type CodeFloat = (f64, Vec<u8>);

/// The value of a code-shaped float literal (`0E8`): a double past the
/// quick reading's range (`12E34`) is parsed, as an end without a value
/// would never move; NaN when neither reads it.
fn code_float_value(literal: &[u8]) -> f64 {
    scan_decimal(literal)
        .and_then(|n| n.exponent_f64())
        .or_else(|| {
            std::str::from_utf8(literal)
                .ok()
                .and_then(|t| t.parse::<f64>().ok())
        })
        .unwrap_or(f64::NAN)
}

impl ColumnAcc {
    /// The accumulator of column `index`, kept as `how` says.
    pub(super) fn new(index: usize, how: Tracking) -> ColumnAcc {
        let text_cap = text_cap(index) as u32;
        ColumnAcc {
            brief: how.brief,
            sample_looks: how.later.then(Box::default),
            stats: (how.stats && plumb_stats::keeps_stats(index))
                .then(|| Box::new(ColumnStats::new(index))),
            rare: None,
            decimal_comma: how.decimal_comma,
            codes: 0,
            classes: ClassHistogram::default(),
            first: 0,
            later_firsts: None,
            samples: Vec::new(),
            min_len: u64::MAX,
            max_len: 0,
            range: None,
            precision: BTreeMap::new(),
            looks: if how.brief { SAMPLE_LOOKS } else { 0 },
            text_cap,
        }
    }
}

/// The record bits of [`ColumnAcc::first`]: past 2^60 records (a file
/// no disk holds) the record reads as this.
const FIRST_RECORD_MASK: u64 = (1 << 60) - 1;

/// How many cells a column compares to its samples at most.
const SAMPLE_LOOKS: u32 = 4096;

impl ColumnAcc {
    /// Counts a cell of `class`, `len` characters long.
    #[inline(always)]
    fn tally(&mut self, class: CellClass, len: u64, record: u64) {
        if self.classes.get(class) == 0 {
            self.first_seen(class.index(), record);
        }
        self.classes.add(class);
        self.min_len = self.min_len.min(len);
        self.max_len = self.max_len.max(len);
    }

    /// Notes the record where a class was first read.
    #[cold]
    #[inline(never)]
    fn first_seen(&mut self, class: usize, record: u64) {
        if self.first == 0 {
            self.first = record.min(FIRST_RECORD_MASK) | ((class as u64) << 60);
        } else {
            self.later_firsts.get_or_insert_with(|| Box::new([0; 8]))[class] = record;
        }
    }

    /// The record where a cell of class `class` was first read, if one was.
    fn first_of(&self, class: usize) -> Option<u64> {
        if self.first != 0 && (self.first >> 60) as usize == class {
            return Some(self.first & FIRST_RECORD_MASK);
        }
        self.later_firsts
            .as_ref()
            .map(|f| f[class])
            .filter(|&r| r != 0)
    }

    /// Offers a cell as a sample while the column still looks for them.
    #[inline(always)]
    fn offer_sample(&mut self, cell: &[u8]) {
        if self.looks < SAMPLE_LOOKS {
            self.add_sample(cell);
        }
    }

    /// [`ColumnAcc::add`] with the commonest cells folded inline: a
    /// plain number (no sign, no padding, no exponent, at most one
    /// point); up to fifteen digits here, sixteen to nineteen in
    /// out-of-line steps. It keeps few values live, so the cell loop
    /// stays in registers; anything else takes the full path. Both paths
    /// give the same column (a proptest holds them together).
    #[inline(always)]
    pub(super) fn add_plain(&mut self, cell: &[u8], record: u64) {
        let Some(number) = scan_plain_number(cell) else {
            return self.add(cell, record);
        };
        let frac_digits = match number.frac_digits {
            Some(f) if number.digits > 15 => {
                // A long fraction, as shortest float formatting writes
                // them: judged without reading the text again.
                let scan = DecimalScan::plain_fraction(number.mantissa, number.digits, f);
                return self.add_long_plain(scan, cell, record);
            }
            None if number.digits > 15 => {
                return self.add_long_integer(number.mantissa, cell, record)
            }
            f => f,
        };
        let len = cell.len() as u64;
        // At most fifteen digits: below 10^15, so the cast is exact.
        let value = number.mantissa as i64;
        let number = match frac_digits {
            None => {
                self.tally(CellClass::Integer, len, record);
                self.range().add_i64(value);
                NumberIn::Int(value)
            }
            Some(f) => {
                self.tally(CellClass::Float, len, record);
                self.range().add_short_decimal(value, f);
                NumberIn::Decimal {
                    mantissa: value,
                    scale: f,
                }
            }
        };
        if let Some(stats) = self.stats.as_mut() {
            stats.number(cell, number);
        }
        self.offer_sample(cell);
    }

    /// [`ColumnAcc::add_plain`] for an integer of sixteen to nineteen
    /// digits (ids, hashes, nanosecond times): exact as an `i64` when it
    /// fits, flagged when a double cannot hold it.
    #[inline(never)]
    fn add_long_integer(&mut self, value: u64, cell: &[u8], record: u64) {
        self.tally(CellClass::Integer, cell.len() as u64, record);
        let number = match i64::try_from(value) {
            Ok(v) => {
                self.range().add_i64(v);
                NumberIn::Int(v)
            }
            Err(_) => {
                self.range()
                    .add_integer(std::str::from_utf8(cell).unwrap_or_default());
                NumberIn::Rounded(value as f64)
            }
        };
        if let Some(stats) = self.stats.as_mut() {
            stats.number(cell, number);
        }
        if value > MAX_SAFE_INTEGER {
            self.note_precision(PrecisionKind::UnsafeInteger, cell, record);
        }
        self.offer_sample(cell);
    }

    /// [`ColumnAcc::add_plain`] for a fraction of sixteen to nineteen
    /// digits.
    #[inline(never)]
    fn add_long_plain(&mut self, scan: DecimalScan, cell: &[u8], record: u64) {
        self.tally(CellClass::Float, cell.len() as u64, record);
        if let Some(stats) = self.stats.as_mut() {
            stats.number(cell, NumberIn::of_scan(&scan, cell));
        }
        self.add_long_number(scan, cell, record);
        self.offer_sample(cell);
    }

    pub(super) fn add(&mut self, cell: &[u8], record: u64) {
        let mut scan = scan_cell(cell);
        let comma;
        if scan.class == CellClass::String && self.decimal_comma {
            if let Some(pointed) = comma_decimal(scan.trimmed) {
                comma = pointed;
                if let Some(d) = scan_decimal(&comma) {
                    scan.class = CellClass::Float;
                    scan.number = Some(d);
                    scan.trimmed = &comma;
                    self.rare().comma_decimals += 1;
                }
            }
        }
        let class = scan.class;
        // Every class but `string` is ASCII: one byte, one character.
        let len = if class == CellClass::String {
            char_count(cell)
        } else {
            cell.len() as u64
        };
        self.tally(class, len, record);
        if let Some(stats) = self.stats.as_mut() {
            stats.cell(cell, &scan, len);
        }
        match class {
            CellClass::Empty => return,
            CellClass::Sentinel => {
                if let Some(i) = scan.sentinel {
                    self.rare().sentinels[i] += 1;
                }
            }
            CellClass::Float if code_shaped_float(scan.trimmed) => {
                let rare = self.rare();
                rare.code_floats += 1;
                let v = code_float_value(scan.trimmed);
                let literal = scan.trimmed.to_vec();
                match &mut rare.code_float_ends {
                    None => rare.code_float_ends = Some(((v, literal.clone()), (v, literal))),
                    Some((lo, hi)) => {
                        if v < lo.0 {
                            *lo = (v, literal);
                        } else if v > hi.0 {
                            *hi = (v, literal);
                        }
                    }
                }
            }
            CellClass::Integer | CellClass::Float => {
                // `scan_cell` reads the number of every number cell.
                if let Some(number) = scan.number {
                    self.add_number(number, scan.trimmed, record);
                }
            }
            CellClass::Date | CellClass::Timestamp => {
                let (cap, brief) = (self.text_cap as usize, self.brief);
                let rare = self.rare();
                if let Some(form) = scan.date {
                    rare.dates[date_slot(form)] += 1;
                }
                if !brief {
                    rare.date_range
                        .add(scan.trimmed, scan.date.map(|f| f.order), cap);
                }
            }
            CellClass::String if code_shaped(scan.trimmed) => self.codes += 1,
            _ => {}
        }
        self.offer_sample(cell);
    }

    /// The rare facts, made on first need.
    #[inline]
    fn rare(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    /// A row whose cell in this column a cap cut away.
    #[cold]
    pub(super) fn note_unread(&mut self) {
        self.rare().unread += 1;
    }

    /// The range, made on the first number.
    #[inline]
    fn range(&mut self) -> &mut NumericRange {
        let cap = self.text_cap as usize;
        self.range
            .get_or_insert_with(|| Box::new(NumericRange::with_literal_cap(cap)))
    }

    /// Folds a number into the range, exactly.
    fn add_number(&mut self, number: DecimalScan, trimmed: &[u8], record: u64) {
        if let Some(v) = number.small_integer() {
            self.range().add_i64(v);
        } else if let Some((m, d)) = number.short_decimal() {
            if m == 0 && number.is_negative() {
                // `-0.0` keeps its sign as a double.
                self.range().add_float(-0.0);
            } else {
                self.range().add_short_decimal(m, d);
            }
        } else if let Some(v) = number.exponent_f64() {
            // A short literal with an exponent near its digits.
            self.range().add_float(v);
        } else {
            // Long literals and far exponents: the general path, with the
            // precision check (short ones never misstate).
            self.add_long_number(number, trimmed, record);
        }
    }

    /// What the whole column says of cells a cell alone cannot judge:
    /// a missing-value token shaped like the column's codes (`NA`,
    /// Namibia, among `US`, `DE`) is a value, and code-shaped floats
    /// (`0E8`) among integers or text are codes, not numbers.
    fn settle(&mut self) -> Settled {
        let mut settled = Settled::default();
        let strings = self.classes.get(CellClass::String);
        if self.codes >= 3 && self.codes * 10 >= strings * 9 {
            settled.tokens_are_text = true;
            for (i, token) in SENTINEL_TOKENS.iter().enumerate() {
                let n = self.rare.as_ref().map_or(0, |r| r.sentinels[i]);
                if n > 0 && code_shaped(token.as_bytes()) {
                    if let Some(r) = self.rare.as_mut() {
                        r.sentinels[i] = 0;
                    }
                    self.classes
                        .shift(CellClass::Sentinel, CellClass::String, n);
                }
            }
        }
        let Some(rare) = self.rare.as_mut() else {
            return settled;
        };
        let code_floats = rare.code_floats;
        if code_floats == 0 {
            return settled;
        }
        let ends = rare.code_float_ends.take();
        let other_floats = self.classes.get(CellClass::Float) - code_floats;
        let beside = self.classes.get(CellClass::Integer) + self.classes.get(CellClass::String);
        if other_floats == 0 && beside > 0 {
            settled.floats_are_text = true;
            self.classes
                .shift(CellClass::Float, CellClass::String, code_floats);
        } else if let Some((lo, hi)) = ends {
            for literal in [lo.1, hi.1] {
                if let Some(number) = scan_decimal(&literal) {
                    self.add_number(number, &literal, 0);
                }
            }
        }
        settled
    }

    /// The date format the column's date cells share, in words.
    fn date_format(&self) -> Option<String> {
        date_format(&self.rare.as_ref()?.dates)
    }

    #[inline(never)]
    fn add_sample(&mut self, cell: &[u8]) {
        self.looks += 1;
        let lossy;
        let kept = match std::str::from_utf8(cell) {
            Ok(text) => cap_text(text, self.text_cap as usize).0,
            Err(_) => {
                lossy = lossy_prefix(cell, self.text_cap as usize);
                lossy.as_str()
            }
        };
        if !self.samples.iter().any(|s| s == kept) {
            // One at a time: ten thousand columns of one sample each
            // should not hold room for four.
            self.samples.reserve_exact(1);
            self.samples.push(kept.to_owned());
            let room = if let Some(looks) = &mut self.sample_looks {
                looks.push(self.looks - 1);
                LATER_SAMPLE_ROOM
            } else {
                SAMPLE_VALUES_CAP
            };
            if self.samples.len() == room {
                self.looks = SAMPLE_LOOKS;
            }
        }
    }

    #[inline(never)]
    fn add_long_number(&mut self, number: DecimalScan, digits: &[u8], record: u64) {
        let kind = match number_class(&number) {
            CellClass::Float => {
                let (parsed, kind) = float_value_and_precision(digits, &number);
                if let Some(v) = parsed {
                    self.range().add_float(v);
                }
                kind
            }
            _ => {
                // A number literal is ASCII, so this never falls back.
                let text = std::str::from_utf8(digits).unwrap_or_default();
                self.range().add_integer(text);
                number_precision_of(text, None)
            }
        };
        if let Some(kind) = kind {
            self.note_precision(kind, digits, record);
        }
    }

    /// Counts a literal a double would misstate; the first one of each
    /// kind is kept as the example.
    fn note_precision(&mut self, kind: PrecisionKind, literal: &[u8], record: u64) {
        self.precision
            .entry(kind)
            .and_modify(|f| f.count += 1)
            .or_insert_with(|| PrecisionFact {
                kind,
                count: 1,
                example: lossy_prefix(literal, self.text_cap as usize),
                record,
            });
    }

    /// Takes in the same column of the next part of the file, read on
    /// another thread, as if its cells had come here: counts and ranges
    /// add up, first examples keep the earlier part's (with `records_before`
    /// added to the later part's record numbers), and samples are the
    /// ones a one-thread scan would have picked. Statistics merge: their
    /// exact figures are the one-thread ones, and an estimate may differ
    /// from the one-thread estimate within its stated error. False when
    /// the two cannot be combined exactly (a later part whose
    /// code-shaped floats begin with one that has no value): the caller
    /// then scans on one thread.
    pub(super) fn absorb(&mut self, later: ColumnAcc, records_before: u64) -> bool {
        // Before the counts join: a class is new here if this part had none.
        let mut new: Vec<(u64, usize)> = CellClass::ALL
            .iter()
            .filter(|c| self.classes.get(**c) == 0)
            .filter_map(|c| Some((later.first_of(c.index())?, c.index())))
            .collect();
        new.sort_unstable();
        for (record, class) in new {
            self.first_seen(class, record + records_before);
        }
        self.classes.absorb(&later.classes);
        self.min_len = self.min_len.min(later.min_len);
        self.max_len = self.max_len.max(later.max_len);
        self.codes += later.codes;
        match (&mut self.range, later.range) {
            (Some(mine), Some(theirs)) => mine.merge(&theirs),
            (mine @ None, theirs) => *mine = theirs,
            (Some(_), None) => {}
        }
        for (kind, fact) in later.precision {
            self.precision
                .entry(kind)
                .and_modify(|f| f.count += fact.count)
                .or_insert(PrecisionFact {
                    record: fact.record + records_before,
                    ..fact
                });
        }
        if let Some(theirs) = later.rare {
            if !self.rare().absorb(*theirs) {
                return false;
            }
        }
        match (&mut self.stats, later.stats) {
            (Some(mine), Some(theirs)) => mine.merge(&theirs),
            (mine @ None, theirs) => *mine = theirs,
            (Some(_), None) => {}
        }
        // The samples this column would have gone on to find: a later
        // sample found on the later part's look `i` was this column's
        // look `looks + i`, if it still looked then.
        if self.looks < SAMPLE_LOOKS {
            let looked = self.looks;
            let looks = later.sample_looks.map(|l| *l).unwrap_or_default();
            for (text, at) in later.samples.into_iter().zip(looks) {
                if u64::from(looked) + u64::from(at) >= u64::from(SAMPLE_LOOKS) {
                    break;
                }
                if !self.samples.contains(&text) {
                    self.samples.push(text);
                    if self.samples.len() == SAMPLE_VALUES_CAP {
                        break;
                    }
                }
            }
            self.looks = if self.samples.len() == SAMPLE_VALUES_CAP {
                SAMPLE_LOOKS
            } else {
                looked.saturating_add(later.looks).min(SAMPLE_LOOKS)
            };
        }
        true
    }

    /// The column's facts; `rows` is how many rows were read, so that
    /// those without a cell here are told.
    /// With `keep`, also the column's settled statistics, to merge with
    /// other files' (see [`plumb_core::ScanBounds::sketches`]).
    pub(super) fn report(
        mut self,
        index: usize,
        name: Option<String>,
        rows: u64,
        keep: bool,
    ) -> (ColumnReport, Option<ColumnSketch>) {
        let settled = self.settle();
        let date_format = self.date_format();
        let cells: u64 = CellClass::ALL.iter().map(|&c| self.classes.get(c)).sum();
        let mut kept = None;
        let stats = self.stats.take().map(|s| {
            let nulls = self.classes.get(CellClass::Empty) + self.classes.get(CellClass::Sentinel);
            let sketch = s.settle(cells, nulls, date_format.as_deref(), settled);
            let report = Box::new(sketch.report());
            if keep {
                kept = Some(sketch);
            }
            report
        });
        let decimal_separator = self
            .rare
            .as_ref()
            .is_some_and(|r| r.comma_decimals > 0)
            .then_some(",");
        let empty = self.classes.get(CellClass::Empty);
        let (mut min, mut max) = match &self.range {
            Some(r) => r.bounds(),
            None => NumericRange::default().bounds(),
        };
        // A date or timestamp column's earliest and latest cells, as
        // written, when every one of its dates read one way.
        let dated = matches!(
            infer_column_type(&self.classes),
            InferredType::Date | InferredType::Timestamp
        );
        let ends = self
            .rare
            .as_ref()
            .and_then(|r| r.date_range.ends(date_format.as_deref()));
        if let (true, Value::Null, Value::Null, Some((lo, hi))) = (dated, &min, &max, ends) {
            min = Value::String(lo.to_owned());
            max = Value::String(hi.to_owned());
        }
        let sentinels = self
            .rare
            .as_ref()
            .map_or([0; SENTINEL_TOKENS.len()], |r| r.sentinels);
        let unread = self.rare.as_ref().map_or(0, |r| r.unread);
        let report = ColumnReport {
            index,
            name,
            inferred_type: infer_column_type(&self.classes),
            empty,
            missing: rows.saturating_sub(cells).saturating_sub(unread),
            unread,
            sentinels: SENTINEL_TOKENS
                .iter()
                .zip(sentinels)
                .filter(|&(_, n)| n > 0)
                .map(|(token, n)| ((*token).to_owned(), n))
                .collect(),
            first_records: (self.classes.iter().count() > 1).then(|| {
                Box::new(
                    CellClass::ALL
                        .iter()
                        .filter(|c| self.classes.get(**c) > 0)
                        .filter_map(|c| Some((c.as_str(), self.first_of(c.index())?)))
                        .collect(),
                )
            }),
            classes: self.classes,
            samples: self.samples,
            min_length: (self.min_len != u64::MAX).then_some(self.min_len),
            max_length: (self.min_len != u64::MAX).then_some(self.max_len),
            min,
            max,
            precision: self.precision.into_values().collect(),
            date_format,
            decimal_separator,
            stats,
        };
        (report, kept)
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
