//! Spreadsheet search: the data rows of a sheet where a column (or any)
//! matches a pattern or satisfies a predicate, each returned whole as
//! select returns it, with its row and the row to continue from.
//!
//! The sheet's cells are streamed once, in the order the workbook keeps
//! them (row by row, left to right, as every writer stores them; a sheet
//! whose cells go back to an earlier row is refused rather than misread).
//! Each value is judged as select shows it: a number by its digits, a
//! date or duration as its ISO text, an error as its code (`#DIV/0!`),
//! text as itself; a blank cell of the used range is empty, as an empty
//! CSV cell is (`is empty` and `is null` hold of it).

use std::ops::ControlFlow;

use serde::Serialize;
use serde_json::Value;

use plumb_core::{
    impl_answer, Conditions, MatchMode, Predicate, Query, Refusal, RefusalReason, Request,
    SearchProgress, SearchWindow, Subject, SubjectKind, Verdict, ViewFlags, HIT_ROW_BYTES,
    HIT_ROW_VALUES,
};

use crate::book::{Book, Kind};
use crate::cell::{column_letters, Cell};
use crate::facts::{projection, Facts};
use crate::ops::{chosen, SheetName};

/// One data row that matched.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SheetsHit {
    /// The 0-based data row (the `offset` a select of it takes).
    pub row: u64,
    /// The sheet row, 1-based as Excel numbers rows.
    pub sheet_row: u64,
    /// The first column (in sheet order) that matched: its name.
    pub column: String,
    /// The row's values, one per column of the used range, as select
    /// returns them: the first [`HIT_ROW_VALUES`], then
    /// `{"$summary": {"omitted_values": n}}` when the range is wider;
    /// the longest cut to a common length so that the row takes about
    /// [`HIT_ROW_BYTES`] (`$truncated` with `bytes`, the view then not
    /// exact).
    pub values: Vec<Value>,
    /// The value that matched, when its column lies past those shown;
    /// left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_cell: Option<Value>,
}

/// The answer of spreadsheet search.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SheetsSearch {
    /// Always true.
    pub ok: bool,
    /// `xlsx`, `xlsb`, `xls` or `ods`.
    pub format: &'static str,
    /// Exact, or cut when a hit's cell text was cut.
    pub view: ViewFlags,
    /// The sheet searched.
    pub sheet: SheetName,
    /// Whether the sheet's first row was taken for a header.
    pub header: bool,
    /// The column searched, or null for every column of the used range
    /// (and with conditions, which name their own).
    pub column: Option<String>,
    /// The conditions each row was judged by, when a search gave them
    /// (`{"match": "all", "of": [...]}`); left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Conditions>,
    /// The columns of each hit's `values`: their names (the first
    /// [`HIT_ROW_VALUES`] of them).
    pub columns: Vec<String>,
    /// Their letters.
    pub letters: Vec<String>,
    /// Columns of the used range past those shown (left out when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted_columns: u64,
    /// The hits, in row order (none with `count_only`).
    pub hits: Vec<SheetsHit>,
    /// The window (flattened): `offset`, the data row the search started
    /// at; `limit`; `returned`, the hits returned; and how many hits were
    /// seen and where to continue.
    #[serde(flatten)]
    pub window: SearchWindow,
}

impl_answer!(SheetsSearch, layout: SheetHits, window: window);

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// How a cell is judged: as select shows it.
fn judge(predicate: &Predicate, cell: &Cell) -> bool {
    let test = |kind: SubjectKind, text: &[u8]| predicate.test(&Subject::new(kind, text));
    match cell {
        Cell::Int(i) => test(SubjectKind::Number, i.to_string().as_bytes()),
        Cell::Float(_) => match cell.to_json().0 {
            Value::Number(n) => test(SubjectKind::Number, n.to_string().as_bytes()),
            // A NaN or infinity: its placeholder's word, as text.
            other => test(
                SubjectKind::Text,
                other["$float"].as_str().unwrap_or_default().as_bytes(),
            ),
        },
        Cell::Text(s) | Cell::Date(s) | Cell::Duration(s) | Cell::Error(s) => {
            test(SubjectKind::Text, s.as_bytes())
        }
        Cell::Bool(b) => test(SubjectKind::Bool, if *b { b"true" } else { b"false" }),
        Cell::Empty => blank(predicate),
    }
}

/// Whether a blank cell of the used range holds: it is empty text, and
/// null, as an empty CSV cell is.
fn blank(predicate: &Predicate) -> bool {
    predicate.test(&Subject {
        kind: SubjectKind::Text,
        text: b"",
        null: true,
    })
}

/// The row being read: its judged cells' verdicts and, while hits are
/// still kept, its cells.
struct Row {
    /// The sheet row (0-based).
    at: u32,
    /// The judged column last seen in it (index into `judged`), so the
    /// blank ones before a cell are judged as blanks.
    next: usize,
    /// The first judged column that held, by index into `judged`.
    hit: Option<usize>,
    /// The last column seen in it.
    last: Option<u32>,
    /// Its cells, by column, kept for a hit's values.
    cells: Vec<(u32, Cell)>,
    /// With conditions: each one's verdict on its cell, once the cell came
    /// (a condition whose cell never comes judges a blank).
    verdicts: Vec<Option<bool>>,
}

/// A search's conditions, each at its column.
struct Tests<'q> {
    /// Each condition's column and predicate.
    each: Vec<(u32, &'q Predicate)>,
    mode: MatchMode,
    /// Index into the judged columns of the first condition's column
    /// (the `column` of a hit).
    first: usize,
}

/// The search in progress over the data rows `first..end` (sheet rows).
struct Scan<'q> {
    query: &'q Query,
    /// The conditions, when the search gave them: judged per row in
    /// place of the first judged column that holds.
    tests: Option<Tests<'q>>,
    /// Hits still to pass over before one is kept (`Query::skip_hits`).
    skip_left: u64,
    /// The judged columns, in sheet order.
    judged: Vec<u32>,
    /// The used range's columns (a hit's values).
    columns: Vec<u32>,
    /// Whether a blank cell holds.
    blank_holds: bool,
    /// The first data row searched and the end of the data rows.
    first: u32,
    end: u64,
    /// The data rows' first sheet row (for the `row` of a hit).
    body: u32,
    row: Option<Row>,
    /// The next sheet row not yet judged.
    done: u64,
    progress: SearchProgress,
    hits: Vec<SheetsHit>,
    cut: bool,
    names: Vec<String>,
}

impl Scan<'_> {
    /// Counts (or keeps) a hit at sheet row `at`, matched in judged
    /// column `j`; breaks at the limit.
    fn hit(&mut self, at: u64, j: usize, cells: &[(u32, Cell)]) -> ControlFlow<()> {
        self.progress.total += 1;
        if self.query.count_only {
            return ControlFlow::Continue(());
        }
        if self.skip_left > 0 {
            // Passed over (the last hits are asked for): counted only.
            self.skip_left -= 1;
            return ControlFlow::Continue(());
        }
        let row = at - u64::from(self.body);
        if self.hits.len() >= self.query.limit {
            self.progress.has_more = true;
            self.progress.next_offset = Some(row);
            return ControlFlow::Break(());
        }
        let mut values = vec![Value::Null; self.columns.len()];
        for (col, cell) in cells {
            if let Ok(k) = self.columns.binary_search(col) {
                let (v, was_cut) = cell.to_json();
                self.cut |= was_cut;
                values[k] = v;
            }
        }
        let col = self.judged[j];
        let k = self.columns.binary_search(&col).unwrap_or(0);
        // A wide row shows its first values, as the header its first
        // names; the matching one, when past them, beside.
        let matched_cell = (k >= HIT_ROW_VALUES).then(|| values[k].clone());
        if values.len() > HIT_ROW_VALUES {
            let omitted = values.len() - HIT_ROW_VALUES;
            values.truncate(HIT_ROW_VALUES);
            values.push(serde_json::json!({"$summary": {"omitted_values": omitted}}));
            self.cut = true;
        }
        // Long cells cut so that a hit takes about 4 KiB, as a Parquet
        // hit's row does: forty cells of 4 KiB made a hit of 160 KiB.
        let mut fitted = Value::Array(values);
        self.cut |= plumb_core::fit_row_to_bytes(&mut fitted, HIT_ROW_BYTES);
        let values = match fitted {
            Value::Array(values) => values,
            _ => Vec::new(),
        };
        self.hits.push(SheetsHit {
            row,
            sheet_row: at + 1,
            column: self
                .names
                .get(k)
                .cloned()
                .unwrap_or_else(|| column_letters(col)),
            values,
            matched_cell,
        });
        ControlFlow::Continue(())
    }

    /// Judges the rows before sheet row `until` that hold no cell: every
    /// judged column is blank in them.
    fn blank_rows(&mut self, until: u64) -> ControlFlow<()> {
        let until = until.min(self.end);
        if self.done >= until {
            return ControlFlow::Continue(());
        }
        if !self.blank_holds || self.judged.is_empty() {
            self.done = until;
            return ControlFlow::Continue(());
        }
        if self.query.count_only {
            self.progress.total += until - self.done;
            self.done = until;
            return ControlFlow::Continue(());
        }
        let j = self.tests.as_ref().map_or(0, |t| t.first);
        while self.done < until {
            let at = self.done;
            self.done += 1;
            self.hit(at, j, &[])?;
        }
        ControlFlow::Continue(())
    }

    /// Ends the row being read: the judged columns after its last cell
    /// are blank.
    fn end_row(&mut self) -> ControlFlow<()> {
        let Some(mut row) = self.row.take() else {
            return ControlFlow::Continue(());
        };
        if let Some(t) = &self.tests {
            let joined = t
                .mode
                .join(row.verdicts.iter().zip(&t.each).map(|(v, (_, p))| {
                    if v.unwrap_or_else(|| blank(p)) {
                        Verdict::Holds
                    } else {
                        Verdict::Fails
                    }
                }));
            row.hit = (joined == Verdict::Holds).then_some(t.first);
        } else if row.hit.is_none() && row.next < self.judged.len() && self.blank_holds {
            row.hit = Some(row.next);
        }
        self.done = u64::from(row.at) + 1;
        match row.hit {
            Some(j) => self.hit(u64::from(row.at), j, &row.cells),
            None => ControlFlow::Continue(()),
        }
    }

    /// Takes in one cell at sheet row `at`, column `col`.
    fn cell(&mut self, at: u32, col: u32, cell: Cell) -> Result<ControlFlow<()>, Refusal> {
        if at < self.first || u64::from(at) >= self.end {
            if u64::from(at) >= self.end {
                return Ok(ControlFlow::Break(()));
            }
            return Ok(ControlFlow::Continue(()));
        }
        match &self.row {
            Some(r) if r.at == at => {}
            Some(r) if r.at > at => {
                return Err(Refusal::new(
                    RefusalReason::InvalidData,
                    format!(
                        "the sheet's cells go back from row {} to row {}; search reads a sheet's rows in order, as every writer stores them",
                        r.at + 1,
                        at + 1
                    ),
                ))
            }
            _ => {
                if self.end_row().is_break() || self.blank_rows(u64::from(at)).is_break() {
                    return Ok(ControlFlow::Break(()));
                }
                self.row = Some(Row {
                    at,
                    next: 0,
                    hit: None,
                    last: None,
                    cells: Vec::new(),
                    verdicts: vec![None; self.tests.as_ref().map_or(0, |t| t.each.len())],
                });
            }
        }
        let keep = !self.query.count_only && self.hits.len() < self.query.limit;
        let Some(row) = self.row.as_mut() else {
            return Ok(ControlFlow::Continue(()));
        };
        if row.last.is_some_and(|l| l >= col) {
            return Err(Refusal::new(
                RefusalReason::InvalidData,
                format!(
                    "the sheet's cells in row {} go back to column {}; search reads a row's cells in order, as every writer stores them",
                    at + 1,
                    column_letters(col)
                ),
            ));
        }
        row.last = Some(col);
        if let Some(t) = &self.tests {
            for ((c, p), v) in t.each.iter().zip(row.verdicts.iter_mut()) {
                if *c == col {
                    *v = Some(judge(p, &cell));
                }
            }
            if keep && self.columns.binary_search(&col).is_ok() {
                row.cells.push((col, cell));
            }
            return Ok(ControlFlow::Continue(()));
        }
        // The judged columns before this one that held no cell: blanks.
        let j = self.judged[row.next..].partition_point(|&c| c < col) + row.next;
        if row.hit.is_none() && j > row.next && self.blank_holds {
            row.hit = Some(row.next);
        }
        if j < self.judged.len() && self.judged[j] == col {
            if row.hit.is_none() && judge(&self.query.predicate, &cell) {
                row.hit = Some(j);
            }
            row.next = j + 1;
        } else {
            row.next = j;
        }
        if keep && self.columns.binary_search(&col).is_ok() {
            row.cells.push((col, cell));
        }
        Ok(ControlFlow::Continue(()))
    }
}

pub(crate) fn search(book: &mut Book, kind: Kind, req: &Request) -> Result<SheetsSearch, Refusal> {
    let query = Query::judging_conditions(req)?;
    let entries = book.sheets();
    let i = chosen(&entries, req.options.text("sheet"))?;
    let name = entries[i].name.clone();
    let facts = Facts::scan(book, kind, &name)?;
    let header = facts.header(req.options.text("header"));
    let names = facts.names(header);
    let columns: Vec<u32> = names.iter().map(|(c, _)| *c).collect();
    let wanted = req.options.text("column").map(str::to_owned);
    let (judged, tests) =
        match (&query.conditions, &wanted) {
            (Some(_), Some(_)) => return Err(Refusal::invalid_argument(
                "conditions name their own columns; leave column out, or give one test in where",
            )),
            (Some(conditions), None) => {
                let mut each = Vec::with_capacity(conditions.items.len());
                for c in &conditions.items {
                    let col = projection(&names, &[c.target.as_str()])?;
                    each.extend(col.into_iter().map(|col| (col, &c.predicate)));
                }
                let mut judged: Vec<u32> = each.iter().map(|&(c, _)| c).collect();
                judged.sort_unstable();
                judged.dedup();
                let first = each
                    .first()
                    .and_then(|(c, _)| judged.binary_search(c).ok())
                    .unwrap_or(0);
                let tests = Tests {
                    each,
                    mode: conditions.mode,
                    first,
                };
                (judged, Some(tests))
            }
            (None, Some(w)) => (projection(&names, &[w.as_str()])?, None),
            (None, None) => (columns.clone(), None),
        };
    // A row with no cell judges every condition on a blank.
    let blank_holds = match &tests {
        Some(t) => {
            t.mode.join(t.each.iter().map(|(_, p)| {
                if blank(p) {
                    Verdict::Holds
                } else {
                    Verdict::Fails
                }
            })) == Verdict::Holds
        }
        None => blank(&query.predicate),
    };
    let (body, total) = facts.body(header);
    let first = u64::from(body).saturating_add(query.offset);
    let end = u64::from(body) + total;
    let mut scan = Scan {
        blank_holds,
        skip_left: query.skip_hits,
        query: &query,
        tests,
        judged,
        columns: columns.clone(),
        first: u32::try_from(first).unwrap_or(u32::MAX),
        end,
        body,
        row: None,
        done: first.min(end),
        progress: SearchProgress::default(),
        hits: Vec::new(),
        cut: false,
        names: names.iter().map(|(_, n)| n.clone()).collect(),
    };
    if first < end {
        let mut fault = None;
        book.cells(kind, &name, |row, col, cell| {
            match scan.cell(row, col, cell) {
                Ok(flow) => flow,
                Err(r) => {
                    fault = Some(r);
                    ControlFlow::Break(())
                }
            }
        })?;
        if let Some(r) = fault {
            return Err(r);
        }
        if !scan.progress.has_more && scan.end_row().is_continue() {
            let _ = scan.blank_rows(end);
        }
    }
    // Cells past the tracked columns were not searched.
    scan.progress.total_exact = !scan.progress.has_more && facts.beyond == 0;
    let column = wanted.and_then(|_| {
        let c = *scan.judged.first()?;
        let k = columns.binary_search(&c).ok()?;
        Some(names[k].1.clone())
    });
    Ok(SheetsSearch {
        ok: true,
        format: kind.name(),
        view: ViewFlags::exact().with_cut(scan.cut || facts.beyond > 0),
        sheet: SheetName { index: i, name },
        header,
        column,
        conditions: query.conditions.clone(),
        columns: names
            .iter()
            .take(HIT_ROW_VALUES)
            .map(|(_, n)| n.clone())
            .collect(),
        letters: columns
            .iter()
            .take(HIT_ROW_VALUES)
            .map(|&c| column_letters(c))
            .collect(),
        omitted_columns: columns.len().saturating_sub(HIT_ROW_VALUES) as u64,
        window: SearchWindow {
            offset: query.offset,
            passed_over: query.skip_hits,
            limit: query.limit,
            returned: scan.hits.len(),
            progress: scan.progress,
        },
        hits: scan.hits,
    })
}
