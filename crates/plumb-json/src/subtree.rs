//! One subtree of a document, as if it were the whole: a sink adapter
//! that finds the value at a JSON Pointer, hands the events of that value
//! (and only those) to an inner sink, and stops the parse when the value
//! closes. Inspect at a pointer is inspect through this adapter, so it
//! reads only as far as the subtree's end.

use std::ops::ControlFlow;

use plumb_core::Refusal;

use crate::parser::Scalar;
use crate::pointer::{PathTracker, Pointer};
use crate::sink::JsonSink;

enum State {
    Seeking,
    /// Inside the target: containers open within it.
    Inside(usize),
    Done,
}

/// Forwards to `inner` the events of the value at `target`.
pub struct Subtree<S> {
    inner: S,
    target: Pointer,
    path: PathTracker,
    /// Depth of the deepest open container on the pointer's path.
    on_path: usize,
    state: State,
    error: Option<Refusal>,
}

impl<S: JsonSink> Subtree<S> {
    /// `inner`, shown only the value at `target`.
    pub fn new(inner: S, target: Pointer) -> Subtree<S> {
        Subtree {
            inner,
            target,
            path: PathTracker::default(),
            on_path: 0,
            state: State::Seeking,
            error: None,
        }
    }

    /// The inner sink.
    pub fn into_inner(self) -> S {
        self.inner
    }

    /// The inner sink, borrowed.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    fn not_found(&mut self, prefix: usize) -> ControlFlow<()> {
        self.error = Some(self.target.not_found(prefix));
        self.state = State::Done;
        ControlFlow::Break(())
    }

    /// A value is about to start while seeking: (is it the target, is it
    /// on the pointer's path).
    fn locate(&self) -> (bool, bool) {
        let depth = self.path.depth();
        if self.on_path != depth {
            return (false, false);
        }
        let on_path = depth == 0
            || self
                .path
                .upcoming_at(depth - 1)
                .is_some_and(|t| t.matches(&self.target.tokens()[depth - 1]));
        (on_path && depth == self.target.tokens().len(), on_path)
    }

    fn start(&mut self, object: bool, at: u64) -> ControlFlow<()> {
        match self.state {
            State::Done => ControlFlow::Break(()),
            State::Inside(d) => {
                self.state = State::Inside(d + 1);
                if object {
                    self.inner.start_object(d, at)
                } else {
                    self.inner.start_array(d, at)
                }
            }
            State::Seeking => {
                let (is_target, on_path) = self.locate();
                let depth = self.path.depth();
                self.path.value_starts();
                self.path.open(object);
                if is_target {
                    self.state = State::Inside(1);
                    return if object {
                        self.inner.start_object(0, at)
                    } else {
                        self.inner.start_array(0, at)
                    };
                }
                if on_path {
                    self.on_path = depth + 1;
                }
                ControlFlow::Continue(())
            }
        }
    }

    fn end(&mut self, object: bool) -> ControlFlow<()> {
        match self.state {
            State::Done => ControlFlow::Break(()),
            State::Inside(d) => {
                let flow = if object {
                    self.inner.end_object()
                } else {
                    self.inner.end_array()
                };
                if d == 1 {
                    // The target closed: nothing further is needed.
                    self.state = State::Done;
                    return ControlFlow::Break(());
                }
                self.state = State::Inside(d - 1);
                flow
            }
            State::Seeking => {
                let depth = self.path.depth();
                self.path.close();
                if self.on_path == depth {
                    return self.not_found(depth - 1);
                }
                ControlFlow::Continue(())
            }
        }
    }
}

impl<S: JsonSink> JsonSink for Subtree<S> {
    fn capture_strings(&self) -> bool {
        self.inner.capture_strings()
    }

    fn start_object(&mut self, _: usize, at: u64) -> ControlFlow<()> {
        self.start(true, at)
    }

    fn start_array(&mut self, _: usize, at: u64) -> ControlFlow<()> {
        self.start(false, at)
    }

    fn key(&mut self, key: &str, truncated: bool) -> ControlFlow<()> {
        match self.state {
            State::Inside(_) => self.inner.key(key, truncated),
            State::Seeking => {
                self.path.key_read(key.as_bytes(), truncated);
                ControlFlow::Continue(())
            }
            State::Done => ControlFlow::Break(()),
        }
    }

    fn end_object(&mut self) -> ControlFlow<()> {
        self.end(true)
    }

    fn end_array(&mut self) -> ControlFlow<()> {
        self.end(false)
    }

    fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
        match self.state {
            State::Inside(_) => self.inner.scalar(s),
            State::Done => ControlFlow::Break(()),
            State::Seeking => {
                let (is_target, on_path) = self.locate();
                let depth = self.path.depth();
                self.path.value_starts();
                if is_target {
                    let _ = self.inner.scalar(s);
                    self.state = State::Done;
                    return ControlFlow::Break(());
                }
                if on_path {
                    // The path runs into a scalar before the pointer ends.
                    return self.not_found(depth);
                }
                ControlFlow::Continue(())
            }
        }
    }

    /// A target never reached is `pointer-not-found`, naming the deepest
    /// prefix that exists; else the inner sink's own end.
    fn finish(&mut self) -> Result<(), Refusal> {
        if self.error.is_none() && matches!(self.state, State::Seeking) {
            let _ = self.not_found(0);
        }
        match self.error.take() {
            Some(r) => Err(r),
            None => self.inner.finish(),
        }
    }
}
