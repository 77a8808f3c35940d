//! How an answer is laid out for a person: a declaration each answer
//! type makes of the JSON shape it follows, so a front end (the `plumb`
//! command's tables) picks its view from the answer's type instead of
//! guessing from which keys the JSON happens to hold.

/// The shape an answer's JSON follows, as far as a view for a person is
/// concerned. An answer type declares it through [`crate::Answer::layout`]
/// (or the `layout:` key of [`crate::impl_answer!`]); a front end that
/// has no view for a layout shows the answer as [`Layout::Fields`].
///
/// Each layout names the fields its view reads; an answer that declares
/// one promises them. The default is [`Layout::Verdict`] for an answer
/// with a verdict and [`Layout::Fields`] for any other, which suits
/// every shape.
///
/// ```
/// use plumb_core::{impl_answer, Answer, Layout, ViewFlags};
///
/// #[derive(Debug, serde::Serialize)]
/// struct Valid {
///     ok: bool,
///     format: &'static str,
///     view: ViewFlags,
///     valid: bool,
/// }
/// impl_answer!(Valid, verdict: valid);
///
/// let a = Valid { ok: true, format: "env", view: ViewFlags::exact(), valid: true };
/// assert_eq!(a.layout(), Layout::Verdict);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Layout {
    /// Any object, shown as `name: value` lines; arrays of objects as
    /// tables of their keys.
    Fields,
    /// An inspect of a delimited table: `header`, `row_count` and
    /// `columns`, each with `name`, `inferred_type` and the facts of a
    /// column (`min`, `max`, `samples`, `stats`), beside the dialect
    /// (`delimiter`, `quote`).
    TableColumns,
    /// An inspect of a columnar file: `rows`, `row_groups`, `fields`
    /// and `columns`, each with `path`, `type`, `physical` and its
    /// `statistics`.
    ColumnarSchema,
    /// An inspect of a workbook: `date_system` and `sheets`, each with
    /// its `name`, `dimensions`, `data_rows` and `columns`.
    Workbook,
    /// An inspect of a document or a file of records: an `outline`
    /// whose `paths` each have their kinds and counts, beside the keys
    /// and counts of the whole.
    Outline,
    /// A window of rows: `rows` of cells, named by `columns` (or by a
    /// `header` row), with `first_row` or `offset`.
    Rows,
    /// A window of rows as objects, keyed by the names in `columns`.
    NamedRows,
    /// A window of records: `records`, each with its `line` and either
    /// its `value` or its `error`.
    Records,
    /// One value, shown pretty-printed: `value`.
    Value,
    /// A validate: `valid`, the fault that made it false (with its
    /// place and message) and the counts of what was read.
    Verdict,
    /// Hits in rows of cells: each hit's `row`, `line` and `cells`,
    /// named by `header`.
    RowHits,
    /// Hits in rows as objects: each hit's `row`, the `column` that
    /// matched and the row's `values` by name.
    NamedRowHits,
    /// Hits in a sheet's rows: each hit's `row`, `sheet_row`, `column`
    /// and `values`, named by the answer's `columns`.
    SheetHits,
    /// Hits in a document or records: each hit's `record` (or `index`)
    /// and its `value`.
    ValueHits,
    /// Hits in lines of text: each hit's `line`, `text`, the `match`
    /// range and its context `before` and `after`, printed as grep does.
    LineHits,
    /// An op over many files: `op`, the merged view (`totals`,
    /// `columns` with their `types`, `groups`, or `hits` by file) and
    /// one line per file in `files`.
    Dataset,
}

/// A table's shape as an answer states it, typed: the rows and the named
/// columns (with each one's type and where each class of its values was
/// first read) that a [`Layout::TableColumns`] answer's JSON holds (or,
/// for a file of records laid out as [`Layout::Outline`], its records'
/// top-level keys), and the faults it counts. A summary over many files
/// (a dataset's merged schema) reads this instead of building each
/// answer's JSON; an answer that gives it promises the same facts its
/// JSON states (see [`crate::Answer::shape`]).
///
/// ```
/// use plumb_core::{Shape, ShapeColumn};
/// let s = Shape {
///     rows: Some(2),
///     columns: vec![ShapeColumn {
///         name: "id".into(),
///         kind: "integer".into(),
///         rows: None,
///         firsts: vec![],
///     }],
///     faults: 0,
///     container: None,
/// };
/// assert_eq!(s.columns[0].name, "id");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The data rows (a table's `row_count`, the records read), when
    /// counted.
    pub rows: Option<u64>,
    /// The named columns, in order (a column without a name is left out).
    pub columns: Vec<ShapeColumn>,
    /// The faults the answer counts (`issue_count` and `invalid_count`).
    pub faults: u64,
    /// The container the file was read out of (`gzip`), when one was.
    pub container: Option<String>,
}

/// One named column of a [`Shape`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeColumn {
    /// Its name.
    pub name: String,
    /// Its type, as the JSON names it (`inferred_type`; several types a
    /// key holds joined by `|`, in name order).
    pub kind: String,
    /// The rows that hold it, when not every row does (`None`: the
    /// shape's `rows`).
    pub rows: Option<u64>,
    /// Where a value of each class was first read, by class name
    /// (`first_records`, `key_first_lines`), for a column of several.
    pub firsts: Vec<(String, u64)>,
}
