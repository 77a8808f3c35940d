//! JSON select through a pointer with `*` segments (plumb's extension:
//! RFC 6901 has no wildcard). A `*` stands for every element of an array
//! and every member of an object, so `/items/*/id` names the `id` of
//! each item. The matches come in document order, each with its concrete
//! pointer; the window (offset, limit) counts matches, and reading stops
//! once the window is full and one more match is seen.

use std::ops::ControlFlow;

use serde_json::value::RawValue;

use crate::builder::ValueBuilder;
use crate::parser::Scalar;
use crate::pointer::PathTracker;
use crate::sink::JsonSink;

use super::SELECT_BUDGET_BYTES;

/// The wildcard segment.
pub const WILDCARD: &str = "*";

pub(crate) struct WildcardSink {
    tokens: Vec<String>,
    path: PathTracker,
    /// Open containers whose own pointer matches the pattern's prefix.
    matched: usize,
    offset: u64,
    limit: usize,
    seen: u64,
    current: Option<(String, ValueBuilder)>,
    /// Depth at which the current match's value opened.
    current_depth: usize,
    pub(crate) items: Vec<Box<RawValue>>,
    pub(crate) used: usize,
    pub(crate) cut: bool,
    pub(crate) has_more: bool,
}

impl WildcardSink {
    pub(crate) fn new(tokens: Vec<String>, offset: u64, limit: usize) -> WildcardSink {
        WildcardSink {
            tokens,
            path: PathTracker::default(),
            matched: 0,
            offset,
            limit,
            seen: 0,
            current: None,
            current_depth: 0,
            items: Vec::new(),
            used: 0,
            cut: false,
            has_more: false,
        }
    }

    /// A value is about to start: does its pointer match the pattern's
    /// first `depth` segments, and is it a whole match?
    fn locate(&self) -> (bool, bool) {
        let depth = self.path.depth();
        if self.matched != depth || depth > self.tokens.len() {
            return (false, false);
        }
        let step = depth == 0
            || self.path.upcoming_at(depth - 1).is_some_and(|t| {
                let want = &self.tokens[depth - 1];
                want == WILDCARD || t.matches(want)
            });
        (step && depth == self.tokens.len(), step)
    }

    /// A match starts: count it, and capture it if it is in the window.
    fn begin(&mut self) -> ControlFlow<()> {
        let i = self.seen;
        self.seen += 1;
        if i < self.offset {
            return ControlFlow::Continue(());
        }
        if self.items.len() >= self.limit || self.used >= SELECT_BUDGET_BYTES {
            self.has_more = true;
            return ControlFlow::Break(());
        }
        let pointer = self.path.pointer();
        self.current = Some((pointer, ValueBuilder::new(SELECT_BUDGET_BYTES - self.used)));
        self.current_depth = self.path.depth();
        ControlFlow::Continue(())
    }

    fn done_if_finished(&mut self) {
        if !self.current.as_ref().is_some_and(|(_, b)| b.is_done()) {
            return;
        }
        if let Some((pointer, b)) = self.current.take() {
            let built = b.finish();
            self.cut |= built.cut;
            let p = serde_json::to_string(&pointer).unwrap_or_else(|_| "\"\"".into());
            let text = format!("{{\"pointer\":{p},\"value\":{}}}", built.json.get());
            if let Ok(item) = RawValue::from_string(text) {
                self.used += item.get().len();
                self.items.push(item);
            }
        }
    }

    fn start(&mut self, object: bool) -> ControlFlow<()> {
        if let Some((_, b)) = self.current.as_mut() {
            b.start(object);
            self.path.value_starts();
            self.path.open(object);
            return ControlFlow::Continue(());
        }
        let (whole, step) = self.locate();
        self.path.value_starts();
        if whole {
            self.begin()?;
        }
        self.path.open(object);
        if let Some((_, b)) = self.current.as_mut() {
            b.start(object);
        } else if step && !whole {
            self.matched += 1;
        }
        ControlFlow::Continue(())
    }

    fn end(&mut self) -> ControlFlow<()> {
        let depth = self.path.depth();
        self.path.close();
        if let Some((_, b)) = self.current.as_mut() {
            b.end();
            self.done_if_finished();
            return ControlFlow::Continue(());
        }
        if self.matched == depth && depth > 0 {
            self.matched -= 1;
        }
        ControlFlow::Continue(())
    }
}

impl JsonSink for WildcardSink {
    fn start_object(&mut self, _: usize, _: u64) -> ControlFlow<()> {
        self.start(true)
    }

    fn start_array(&mut self, _: usize, _: u64) -> ControlFlow<()> {
        self.start(false)
    }

    fn key(&mut self, key: &str, truncated: bool) -> ControlFlow<()> {
        if let Some((_, b)) = self.current.as_mut() {
            if self.path.depth() > self.current_depth {
                b.key(key, truncated);
            }
        }
        self.path.key_read(key.as_bytes(), truncated);
        ControlFlow::Continue(())
    }

    fn end_object(&mut self) -> ControlFlow<()> {
        self.end()
    }

    fn end_array(&mut self) -> ControlFlow<()> {
        self.end()
    }

    fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
        if let Some((_, b)) = self.current.as_mut() {
            b.scalar(s);
            self.path.value_starts();
            return ControlFlow::Continue(());
        }
        let (whole, _) = self.locate();
        self.path.value_starts();
        if whole {
            self.begin()?;
            if let Some((_, b)) = self.current.as_mut() {
                b.scalar(s);
            }
            self.done_if_finished();
        }
        ControlFlow::Continue(())
    }
}
