//! Inspect, select and validate on a workbook.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use serde::Serialize;
use serde_json::Value;

use plumb_core::{
    clamp_limit, impl_answer, Refusal, RefusalReason, Request, SelectWindow, ViewFlags,
};

use crate::book::{Book, Kind, SheetEntry};
use crate::cell::{cell_ref, column_letters};
use crate::facts::{projection, ColumnFacts, Facts, SHEETS_TRACK_COLUMNS};

/// Sheets an inspect describes in full (their column facts, formulas and
/// merged cells); the rest are listed by name.
pub const SHEETS_DESCRIBE_SHEETS: usize = 50;

/// Columns an inspect lists per sheet (the rest are counted).
pub const SHEETS_LIST_COLUMNS: usize = 200;

/// Formulas and merged regions an inspect shows per sheet (all are
/// counted).
pub const SHEETS_LIST_EXAMPLES: usize = 10;

/// Distinct function names an inspect names per sheet.
pub const SHEETS_LIST_FUNCTIONS: usize = 30;

/// The answer of spreadsheet inspect.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SheetsInspect {
    /// Always true.
    pub ok: bool,
    /// `xlsx`, `xlsb`, `xls` or `ods`: what the bytes are, whatever the
    /// name says.
    pub format: &'static str,
    /// Exact: every sheet described was read whole.
    pub view: ViewFlags,
    /// The file's size.
    pub file_bytes: u64,
    /// `1900` or `1904`: the epoch serial dates count from (ods keeps
    /// ISO dates and says `1900`).
    pub date_system: &'static str,
    /// The sheets, in workbook order.
    pub sheets: Vec<SheetReport>,
}

impl_answer!(SheetsInspect, layout: Workbook);

/// One sheet in an inspect.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SheetReport {
    /// 0-based position in the workbook.
    pub index: usize,
    /// Its name.
    pub name: String,
    /// worksheet, chartsheet, dialogsheet, macrosheet or vba.
    pub kind: &'static str,
    /// visible, hidden or very-hidden.
    pub visible: &'static str,
    /// Whether the rest was read (the first
    /// [`SHEETS_DESCRIBE_SHEETS`] sheets, or the one `sheet` names).
    pub described: bool,
    /// The used range (`A1:D20`): the cells holding a value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<String>,
    /// Rows of the used range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// Columns of the used range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub columns_total: Option<u64>,
    /// Cells holding a value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cells: Option<u64>,
    /// Whether the first row is taken for a header (guessed unless the
    /// `header` option says).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<bool>,
    /// Rows below the header (all rows without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_rows: Option<u64>,
    /// The columns' facts, the first [`SHEETS_LIST_COLUMNS`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<ColumnFacts>,
    /// Columns past those listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub columns_omitted: u64,
    /// Cells in columns past Excel's last (`XFD`), left out of the facts.
    #[serde(skip_serializing_if = "is_zero")]
    pub cells_beyond_columns: u64,
    /// Formulas: counted, the first shown, the functions named. The
    /// values plumb shows are the results the writer cached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formulas: Option<Formulas>,
    /// Merged regions; `null` where calamine does not read them (xlsb,
    /// ods).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged: Option<Option<Merged>>,
    /// Why the sheet could not be read, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A sheet's formulas.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Formulas {
    /// Cells holding a formula.
    pub count: u64,
    /// The first few, with their cells.
    pub first: Vec<FormulaCell>,
    /// The functions the formulas call, by name (the first
    /// [`SHEETS_LIST_FUNCTIONS`], sorted).
    pub functions: Vec<String>,
}

/// One formula.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct FormulaCell {
    /// Its cell (`C2`).
    pub cell: String,
    /// The formula, without its `=`.
    pub formula: String,
}

/// A sheet's merged regions.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Merged {
    /// How many.
    pub count: usize,
    /// The first few, as ranges (`A1:C1`).
    pub first: Vec<String>,
}

/// The sheet a request names (`sheet`: a name, or digits for a 0-based
/// index when no sheet has that name), or the first.
pub(crate) fn chosen(sheets: &[SheetEntry], wanted: Option<&str>) -> Result<usize, Refusal> {
    let Some(w) = wanted else {
        return if sheets.is_empty() {
            Err(Refusal::new(
                RefusalReason::InvalidData,
                "the workbook lists no sheet",
            ))
        } else {
            Ok(0)
        };
    };
    if let Some(i) = sheets.iter().position(|s| s.name == w) {
        return Ok(i);
    }
    if let Some(i) = w.parse::<usize>().ok().filter(|&i| i < sheets.len()) {
        return Ok(i);
    }
    let available: Vec<Value> = sheets
        .iter()
        .take(50)
        .map(|s| Value::from(plumb_core::echo(&s.name)))
        .collect();
    Err(Refusal::invalid_argument(format!(
        "the workbook has no sheet `{}`; name one of those listed in `available`, or give a 0-based index",
        plumb_core::echo(w)
    ))
    .with_extra("available", available.into())
    .with_extra("available_total", sheets.len().into()))
}

pub(crate) fn inspect(
    book: &mut Book,
    kind: Kind,
    file_bytes: u64,
    req: &Request,
) -> Result<SheetsInspect, Refusal> {
    let entries = book.sheets();
    let wanted = req.options.text("sheet");
    let only = match wanted {
        Some(_) => Some(chosen(&entries, wanted)?),
        None => None,
    };
    let header_opt = req.options.text("header");
    let mut sheets = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let described = match only {
            Some(j) => i == j,
            None => i < SHEETS_DESCRIBE_SHEETS,
        } && e.kind != "chartsheet"
            && e.kind != "vba";
        let mut report = SheetReport {
            index: i,
            name: e.name.clone(),
            kind: e.kind,
            visible: e.visible,
            described,
            dimensions: None,
            rows: None,
            columns_total: None,
            cells: None,
            header: None,
            data_rows: None,
            columns: Vec::new(),
            columns_omitted: 0,
            cells_beyond_columns: 0,
            formulas: None,
            merged: None,
            error: None,
        };
        if described {
            if let Err(r) = describe(book, kind, e, header_opt, &mut report) {
                if r.reason() != RefusalReason::InvalidData {
                    return Err(r);
                }
                report.error = Some(r.message().to_owned());
            }
        }
        sheets.push(report);
    }
    // Cells past the tracked columns are counted, not described.
    let beyond = sheets.iter().any(|s| s.cells_beyond_columns > 0);
    Ok(SheetsInspect {
        ok: true,
        format: kind.name(),
        view: ViewFlags::exact().with_cut(beyond),
        file_bytes,
        date_system: if book.is_1904() { "1904" } else { "1900" },
        sheets,
    })
}

fn describe(
    book: &mut Book,
    kind: Kind,
    e: &SheetEntry,
    header_opt: Option<&str>,
    report: &mut SheetReport,
) -> Result<(), Refusal> {
    let facts = Facts::scan(book, kind, &e.name)?;
    let header = facts.header(header_opt);
    let names = facts.names(header);
    report.dimensions = facts
        .range
        .map(|(r0, r1, c0, c1)| format!("{}:{}", cell_ref(r0, c0), cell_ref(r1, c1)));
    report.rows = Some(facts.rows());
    report.columns_total = Some(
        facts
            .range
            .map_or(0, |(_, _, c0, c1)| u64::from(c1) - u64::from(c0) + 1),
    );
    report.cells = Some(facts.cells);
    report.header = Some(header);
    report.data_rows = Some(facts.body(header).1);
    report.columns_omitted = names.len().saturating_sub(SHEETS_LIST_COLUMNS) as u64;
    report.columns = names
        .into_iter()
        .take(SHEETS_LIST_COLUMNS)
        .map(|(c, n)| facts.column(c, n, header))
        .collect();
    report.cells_beyond_columns = facts.beyond;

    let mut count = 0u64;
    let mut first = Vec::new();
    let mut functions = BTreeSet::new();
    book.formulas(kind, &e.name, |row, col, f| {
        count += 1;
        if first.len() < SHEETS_LIST_EXAMPLES {
            first.push(FormulaCell {
                cell: cell_ref(row, col),
                formula: plumb_core::echo_within(f, 512),
            });
        }
        for name in function_names(f) {
            if functions.len() < SHEETS_LIST_FUNCTIONS || functions.contains(name) {
                functions.insert(name.to_owned());
            } else {
                break;
            }
        }
    })?;
    report.formulas = Some(Formulas {
        count,
        first,
        functions: functions.into_iter().collect(),
    });
    report.merged = Some(book.merged(kind, &e.name)?.map(|regions| {
        Merged {
            count: regions.len(),
            first: regions
                .iter()
                .take(SHEETS_LIST_EXAMPLES)
                .map(|d| {
                    format!(
                        "{}:{}",
                        cell_ref(d.start.0, d.start.1),
                        cell_ref(d.end.0, d.end.1)
                    )
                })
                .collect(),
        }
    }));
    Ok(())
}

/// The function names a formula calls: a name of letters, digits, dots
/// and underscores directly before `(`, outside string literals.
fn function_names(f: &str) -> Vec<&str> {
    let bytes = f.as_bytes();
    let mut out = Vec::new();
    let mut in_string = false;
    let mut start: Option<usize> = None;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'"' {
            in_string = !in_string;
            start = None;
            continue;
        }
        if in_string {
            continue;
        }
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' {
            start.get_or_insert(i);
        } else {
            if b == b'(' {
                if let Some(s) = start {
                    let name = &f[s..i];
                    if name.as_bytes()[0].is_ascii_alphabetic() || name.as_bytes()[0] == b'_' {
                        out.push(name);
                    }
                }
            }
            start = None;
        }
    }
    out
}

/// The answer of spreadsheet select.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SheetsSelect {
    /// Always true.
    pub ok: bool,
    /// `xlsx`, `xlsb`, `xls` or `ods`.
    pub format: &'static str,
    /// Exact, or cut when a cell's text was cut (a `$truncated`
    /// placeholder).
    pub view: ViewFlags,
    /// The sheet read.
    pub sheet: SheetName,
    /// Whether the sheet's first row was taken for a header.
    pub header: bool,
    /// The columns returned: their names (header text, or letters).
    pub columns: Vec<String>,
    /// Their letters.
    pub letters: Vec<String>,
    /// The rows, each an array of the columns' values; `rows[i]` is
    /// sheet row `first_row + i` (1-based, as Excel numbers rows).
    pub rows: Vec<Vec<Value>>,
    /// The sheet row (1-based) of `rows[0]`.
    pub first_row: u64,
    /// The window (flattened): `offset`, the first data row returned
    /// (0-based, below the header); `limit`; `returned`; `has_more`,
    /// whether data rows follow.
    #[serde(flatten)]
    pub window: SelectWindow,
    /// Whether [`SHEETS_SELECT_BUDGET_BYTES`] ended the window before
    /// the limit (continue from `offset + returned`).
    pub shortened: bool,
    /// Data rows in the sheet.
    pub total_rows: u64,
}

/// A sheet, by index and name.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SheetName {
    /// 0-based position in the workbook.
    pub index: usize,
    /// Its name.
    pub name: String,
}

impl_answer!(SheetsSelect, layout: Rows, window: window);

pub(crate) fn select(book: &mut Book, kind: Kind, req: &Request) -> Result<SheetsSelect, Refusal> {
    let entries = book.sheets();
    let i = chosen(&entries, req.options.text("sheet"))?;
    let name = entries[i].name.clone();
    let facts = Facts::scan(book, kind, &name)?;
    let header = facts.header(req.options.text("header"));
    let names = facts.names(header);
    let cols: Vec<u32> = match req.options.list("columns") {
        Some(w) if !w.is_empty() => projection(&names, &w)?,
        _ => names.iter().map(|(c, _)| *c).collect(),
    };
    let (body_start, total) = facts.body(header);
    let (offset, limit) = match req.window.from_end {
        Some(n) => (
            total.saturating_sub(n),
            clamp_limit(Some(n.min(total).max(1))),
        ),
        None => (
            req.window.offset.unwrap_or(0),
            clamp_limit(req.window.limit),
        ),
    };
    let wanted = total.saturating_sub(offset).min(limit as u64);
    let first = u64::from(body_start) + offset;
    let last = first + wanted; // exclusive
    let slot: BTreeMap<u32, usize> = cols.iter().enumerate().map(|(k, &c)| (c, k)).collect();
    // A row's bytes before its values: `null,` and the frame for each
    // column, the brackets and the comma after it. Rows are made on
    // their first value, so a window of empty columns holds nothing
    // until then.
    let base = cols.len() * (5 + SHEETS_SELECT_CELL_FRAME_BYTES) + 3;
    #[allow(clippy::cast_possible_truncation)]
    let mut window = Window::new(wanted as usize, base, SHEETS_SELECT_BUDGET_BYTES);
    let mut rows: Vec<Option<Vec<Value>>> = vec![None; window.cutoff];
    let mut cut = false;
    if wanted > 0 && !cols.is_empty() {
        book.cells(kind, &name, |row, col, cell| {
            let r = u64::from(row);
            if !(first..last).contains(&r) {
                return ControlFlow::Continue(());
            }
            #[allow(clippy::cast_possible_truncation)]
            let i = (r - first) as usize;
            let Some(&k) = slot.get(&col) else {
                return ControlFlow::Continue(());
            };
            if i >= window.cutoff {
                return ControlFlow::Continue(());
            }
            let (v, was_cut) = cell.to_json();
            cut |= was_cut;
            window.add(i, plumb_core::json_len(&v).saturating_sub(4));
            rows.truncate(window.cutoff);
            if let Some(row) = rows.get_mut(i) {
                row.get_or_insert_with(|| vec![Value::Null; cols.len()])[k] = v;
            }
            ControlFlow::Continue(())
        })?;
    }
    let returned = window.cutoff;
    let mut rows: Vec<Vec<Value>> = rows
        .into_iter()
        .map(|r| r.unwrap_or_else(|| vec![Value::Null; cols.len()]))
        .collect();
    if let [row] = rows.as_mut_slice() {
        if window.sizes[0] > SHEETS_SELECT_BUDGET_BYTES {
            let mut cells = Value::Array(std::mem::take(row));
            cut |= plumb_core::fit_row_to_bytes(&mut cells, SHEETS_SELECT_BUDGET_BYTES);
            if let Value::Array(cells) = cells {
                *row = cells;
            }
        }
    }
    #[allow(clippy::cast_possible_truncation)]
    let shortened = returned < wanted as usize;
    let named: BTreeMap<u32, &String> = names.iter().map(|(c, n)| (*c, n)).collect();
    Ok(SheetsSelect {
        ok: true,
        format: kind.name(),
        // Cells past the tracked columns are not in any window.
        view: ViewFlags::exact().with_cut(cut || facts.beyond > 0),
        sheet: SheetName { index: i, name },
        header,
        columns: cols
            .iter()
            .map(|c| {
                named
                    .get(c)
                    .map_or_else(|| column_letters(*c), |n| (*n).clone())
            })
            .collect(),
        letters: cols.iter().map(|&c| column_letters(c)).collect(),
        rows,
        first_row: first + 1,
        window: SelectWindow {
            offset,
            limit,
            returned,
            has_more: offset.saturating_add(returned as u64) < total,
        },
        shortened,
        total_rows: total,
    })
}

/// The most bytes of JSON text the rows of one spreadsheet select take,
/// each cell also costing [`SHEETS_SELECT_CELL_FRAME_BYTES`]: a window
/// stops before the row that would pass it (`shortened`), and a first
/// row that alone passes it has its largest values cut to fit (each
/// saying its full length). A workbook of 5 KB with a cell in its last
/// column (`XFD`) thus cannot make a select of 80 MB of `null`s.
pub const SHEETS_SELECT_BUDGET_BYTES: usize = 1024 * 1024;

/// What each cell of a window costs the budget beside its text: a row
/// holds a JSON value for every column, so a window of thousands of short
/// or empty columns is bounded by what it holds, not only by what it
/// prints.
pub const SHEETS_SELECT_CELL_FRAME_BYTES: usize = 16;

/// The rows of a select window that fit the budget, as their cells come
/// (in any order): each row's size so far, and `cutoff`, the rows kept.
/// Sizes only grow, so once the rows before `cutoff` pass the budget the
/// last of them can never be returned, and `cutoff` only falls.
struct Window {
    sizes: Vec<usize>,
    /// The bytes of the rows before `cutoff`.
    kept: usize,
    cutoff: usize,
    budget: usize,
}

impl Window {
    fn new(rows: usize, base: usize, budget: usize) -> Window {
        // The rows whose bare size alone fits, the first always.
        let cutoff = rows.min((budget / base.max(1)).max(1));
        Window {
            sizes: vec![base; cutoff],
            kept: base * cutoff,
            cutoff,
            budget,
        }
    }

    /// Row `i` (below `cutoff`) grew by `bytes`.
    fn add(&mut self, i: usize, bytes: usize) {
        self.sizes[i] += bytes;
        self.kept += bytes;
        while self.kept > self.budget && self.cutoff > 1 {
            self.cutoff -= 1;
            self.kept -= self.sizes[self.cutoff];
        }
        self.sizes.truncate(self.cutoff);
    }
}

/// The answer of spreadsheet validate.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SheetsValidate {
    /// Always true (a file that fails to read is an answer with
    /// `valid: false`, not a refusal).
    pub ok: bool,
    /// `xlsx`, `xlsb`, `xls` or `ods`.
    pub format: &'static str,
    /// Exact: every sheet was read whole.
    pub view: ViewFlags,
    /// Whether the workbook and every sheet in it read.
    pub valid: bool,
    /// Sheets in the workbook.
    pub sheets: usize,
    /// Cells holding a value, over the sheets that read.
    pub cells: u64,
    /// What failed: the workbook itself (no `sheet`), or a sheet.
    pub faults: Vec<SheetFault>,
}

/// One failure.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SheetFault {
    /// The sheet, when a sheet failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sheet: Option<String>,
    /// calamine's account of it.
    pub message: String,
}

impl_answer!(SheetsValidate, verdict: valid);

pub(crate) fn validate(book: &mut Book, kind: Kind) -> Result<SheetsValidate, Refusal> {
    let entries = book.sheets();
    let mut faults = Vec::new();
    let mut cells = 0u64;
    for e in &entries {
        if e.kind == "chartsheet" || e.kind == "vba" {
            continue;
        }
        match Facts::scan(book, kind, &e.name) {
            Ok(f) => {
                cells += f.cells;
                if f.beyond > 0 {
                    faults.push(SheetFault {
                        sheet: Some(e.name.clone()),
                        message: format!(
                            "{} cells lie past column {}, the last a sheet can hold",
                            f.beyond,
                            column_letters(SHEETS_TRACK_COLUMNS - 1)
                        ),
                    });
                }
            }
            Err(r) if r.reason() == RefusalReason::InvalidData => faults.push(SheetFault {
                sheet: Some(e.name.clone()),
                message: r.message().to_owned(),
            }),
            Err(r) => return Err(r),
        }
    }
    Ok(SheetsValidate {
        ok: true,
        format: kind.name(),
        view: ViewFlags::exact(),
        valid: faults.is_empty(),
        sheets: entries.len(),
        cells,
        faults,
    })
}

/// Validate's answer for a workbook that does not open.
pub(crate) fn unopened(kind: &'static str, message: String) -> SheetsValidate {
    SheetsValidate {
        ok: true,
        format: kind,
        view: ViewFlags::exact(),
        valid: false,
        sheets: 0,
        cells: 0,
        faults: vec![SheetFault {
            sheet: None,
            message,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::function_names;

    #[test]
    fn functions_outside_strings() {
        assert_eq!(
            function_names("SUM(A1:A3)+IF(B1>0,\"MAX(x)\",_xlfn.XLOOKUP(1,C:C,D:D))"),
            vec!["SUM", "IF", "_xlfn.XLOOKUP"]
        );
        assert!(function_names("A1+B2").is_empty());
        assert!(function_names("(1+2)").is_empty());
    }
}
