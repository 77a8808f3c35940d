//! [`impl_answer!`](crate::impl_answer): the [`Answer`](crate::Answer)
//! of a typed result, each optional part of the trait named by a key.

/// Implements [`Answer`](crate::Answer) for a `Serialize` result type with a `view`
/// field and a `format: &'static str` field. Optional keys, in this
/// order, answer the rest: `layout:` the [`Layout`](crate::Layout)
/// variant the JSON follows, `verdict:` a validate's `valid` field (a
/// `bool`, or an `Option<bool>` that is none when the scan stopped
/// early), `window:` a field that is an
/// [`AnswerWindow`](crate::AnswerWindow) (a select's or a search's
/// window, flattened into the JSON), `shape:` a method of the type
/// that gives its [`Shape`](crate::Shape) (see [`Answer::shape`](crate::Answer::shape)),
/// `sketches:` an `Option` field (skipped by serde) whose value
/// [`Answer::take_sketches`](crate::Answer::take_sketches) takes out,
/// and `rows:` a method of the type that gives the rows it read whole
/// (see [`Answer::rows`](crate::Answer::rows)).
///
/// ```
/// use plumb_core::{impl_answer, Answer, SelectWindow, ViewFlags};
///
/// #[derive(Debug, serde::Serialize)]
/// struct Lines {
///     ok: bool,
///     format: &'static str,
///     view: ViewFlags,
///     lines: Vec<String>,
///     #[serde(flatten)]
///     window: SelectWindow,
/// }
/// impl_answer!(Lines, layout: Rows, window: window);
///
/// let a = Lines {
///     ok: true,
///     format: "text",
///     view: ViewFlags::exact(),
///     lines: vec!["a".into()],
///     window: SelectWindow { offset: 4, limit: 1, returned: 1, has_more: true },
/// };
/// assert_eq!(a.next_offset(), Some(5));
/// assert_eq!(a.verdict(), None);
/// assert_eq!(a.layout(), plumb_core::Layout::Rows);
/// ```
#[macro_export]
macro_rules! impl_answer {
    ($ty:ty $(, layout: $layout:ident)? $(, verdict: $valid:ident)? $(, window: $window:ident)? $(, shape: $shape:ident)? $(, sketches: $sketches:ident)? $(, rows: $rows:ident)? $(,)?) => {
        impl $crate::Answer for $ty {
            fn format(&self) -> &'static str {
                self.format
            }
            fn to_json(&self) -> serde_json::Value {
                serde_json::to_value(self).unwrap_or_else(|e| {
                    serde_json::json!({"ok": false, "reason": "read-error", "message": e.to_string()})
                })
            }
            fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
                serde_json::to_writer(out, self).map_err(std::io::Error::from)
            }
            fn view(&self) -> $crate::ViewFlags {
                self.view
            }
            $(
            fn verdict(&self) -> Option<Option<bool>> {
                Some(::core::convert::Into::<Option<bool>>::into(self.$valid))
            }
            )?
            $(
            fn window(&self) -> Option<$crate::WindowCounts> {
                $crate::AnswerWindow::counts(&self.$window)
            }
            fn next_offset(&self) -> Option<u64> {
                $crate::AnswerWindow::next_offset(&self.$window)
            }
            )?
            $(
            fn layout(&self) -> $crate::Layout {
                $crate::Layout::$layout
            }
            )?
            $(
            fn shape(&self) -> Option<$crate::Shape> {
                self.$shape()
            }
            )?
            $(
            fn take_sketches(&mut self) -> Option<Box<dyn std::any::Any + Send>> {
                let taken = self.$sketches.take()?;
                Some(Box::new(taken))
            }
            )?
            $(
            fn rows(&self) -> Option<u64> {
                self.$rows()
            }
            )?
            fn as_any(&self) -> &dyn std::any::Any {
                self
            }
        }
    };
}
