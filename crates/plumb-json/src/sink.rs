//! The sink protocol of the JSON parser, in ripgrep's shape: every event
//! may stop the parse, `finish` ends it and carries the sink's refusal,
//! `&mut S`, `Box<S>` and `Option<S>` are sinks wherever `S` is, and two
//! adapters compose sinks: [`Tee`] hands every event to two sinks,
//! [`Null`] keeps nothing. [`ValueBuilder`](crate::ValueBuilder) and
//! [`Structure`](crate::Structure) are sinks themselves, so an op builds
//! its sink from parts instead of forwarding events by hand.

use std::ops::ControlFlow;

use plumb_core::{PushMachine, Refusal};

use crate::parser::{JsonParser, Scalar, Status};

/// What the parser tells its consumer, modelled on ripgrep's `Sink`:
/// every event may stop the parse by returning `Break`, after which the
/// parser reads nothing further. Only `scalar` is required.
pub trait JsonSink {
    /// Whether to decode and keep string values (keys are always kept).
    /// Validation needs none; skipping them is faster.
    #[inline]
    fn capture_strings(&self) -> bool {
        true
    }
    /// An object opens. `depth` is its nesting level (the root is 0).
    #[inline]
    fn start_object(&mut self, depth: usize, byte_offset: u64) -> ControlFlow<()> {
        let _ = (depth, byte_offset);
        ControlFlow::Continue(())
    }
    /// A key inside the innermost object.
    #[inline]
    fn key(&mut self, key: &str, truncated: bool) -> ControlFlow<()> {
        let _ = (key, truncated);
        ControlFlow::Continue(())
    }
    /// A key as bytes: what the parser calls. The default checks UTF-8
    /// and calls [`JsonSink::key`]; a sink that only hashes or counts
    /// keys can take the bytes directly.
    #[inline]
    fn key_bytes(&mut self, key: &[u8], truncated: bool) -> ControlFlow<()> {
        self.key(std::str::from_utf8(key).unwrap_or_default(), truncated)
    }
    /// The innermost object closes.
    #[inline]
    fn end_object(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// An array opens. `depth` is its nesting level (the root is 0).
    #[inline]
    fn start_array(&mut self, depth: usize, byte_offset: u64) -> ControlFlow<()> {
        let _ = (depth, byte_offset);
        ControlFlow::Continue(())
    }
    /// The innermost array closes.
    #[inline]
    fn end_array(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// A scalar value.
    fn scalar(&mut self, scalar: &Scalar<'_>) -> ControlFlow<()>;
    /// The end: the input ended or the sink stopped the parse. A sink
    /// that stopped because the answer cannot be given (a pointer that
    /// leads nowhere, a selection too large) says why here, and the
    /// drive loop returns it; nobody fishes for it.
    ///
    /// # Errors
    /// The sink's refusal.
    fn finish(&mut self) -> Result<(), Refusal> {
        Ok(())
    }
}

/// Forwards every event of a sink through a pointer type, so `&mut S`
/// and `Box<S>` are sinks wherever `S` is.
macro_rules! forward_sink {
    ($($ty:ty),*) => {$(
        impl<S: JsonSink + ?Sized> JsonSink for $ty {
            #[inline]
            fn capture_strings(&self) -> bool {
                (**self).capture_strings()
            }
            #[inline]
            fn start_object(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
                (**self).start_object(depth, at)
            }
            #[inline]
            fn key(&mut self, key: &str, truncated: bool) -> ControlFlow<()> {
                (**self).key(key, truncated)
            }
            #[inline]
            fn key_bytes(&mut self, key: &[u8], truncated: bool) -> ControlFlow<()> {
                (**self).key_bytes(key, truncated)
            }
            #[inline]
            fn end_object(&mut self) -> ControlFlow<()> {
                (**self).end_object()
            }
            #[inline]
            fn start_array(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
                (**self).start_array(depth, at)
            }
            #[inline]
            fn end_array(&mut self) -> ControlFlow<()> {
                (**self).end_array()
            }
            #[inline]
            fn scalar(&mut self, scalar: &Scalar<'_>) -> ControlFlow<()> {
                (**self).scalar(scalar)
            }
            fn finish(&mut self) -> Result<(), Refusal> {
                (**self).finish()
            }
        }
    )*};
}

forward_sink!(&mut S, Box<S>);

/// `None` hears nothing and never stops the parse; `Some(s)` is `s`.
impl<S: JsonSink> JsonSink for Option<S> {
    #[inline]
    fn capture_strings(&self) -> bool {
        self.as_ref().is_some_and(JsonSink::capture_strings)
    }
    #[inline]
    fn start_object(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
        self.as_mut()
            .map_or(ControlFlow::Continue(()), |s| s.start_object(depth, at))
    }
    #[inline]
    fn key(&mut self, key: &str, truncated: bool) -> ControlFlow<()> {
        self.as_mut()
            .map_or(ControlFlow::Continue(()), |s| s.key(key, truncated))
    }
    #[inline]
    fn key_bytes(&mut self, key: &[u8], truncated: bool) -> ControlFlow<()> {
        self.as_mut()
            .map_or(ControlFlow::Continue(()), |s| s.key_bytes(key, truncated))
    }
    #[inline]
    fn end_object(&mut self) -> ControlFlow<()> {
        self.as_mut()
            .map_or(ControlFlow::Continue(()), JsonSink::end_object)
    }
    #[inline]
    fn start_array(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
        self.as_mut()
            .map_or(ControlFlow::Continue(()), |s| s.start_array(depth, at))
    }
    #[inline]
    fn end_array(&mut self) -> ControlFlow<()> {
        self.as_mut()
            .map_or(ControlFlow::Continue(()), JsonSink::end_array)
    }
    #[inline]
    fn scalar(&mut self, scalar: &Scalar<'_>) -> ControlFlow<()> {
        self.as_mut()
            .map_or(ControlFlow::Continue(()), |s| s.scalar(scalar))
    }
    fn finish(&mut self) -> Result<(), Refusal> {
        self.as_mut().map_or(Ok(()), JsonSink::finish)
    }
}

/// Keeps nothing and asks for no string contents: the sink of a parse
/// that only validates.
#[derive(Clone, Copy, Debug, Default)]
pub struct Null;

impl JsonSink for Null {
    #[inline]
    fn capture_strings(&self) -> bool {
        false
    }
    #[inline]
    fn key_bytes(&mut self, _: &[u8], _: bool) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    #[inline]
    fn scalar(&mut self, _: &Scalar<'_>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

/// Hands every event to `0` and then to `1`; stops the parse when either
/// asks to (both still hear the event that stopped it), captures strings
/// when either wants them, and ends both, the first refusal winning.
///
/// ```
/// use plumb_json::{JsonParser, Null, Structure, Tee, ValueBuilder};
/// let mut sink = Tee(Structure::default(), ValueBuilder::new(1024));
/// let mut parser = JsonParser::new();
/// parser.push(br#"{"a": 1, "a": 2}"#, &mut sink)?;
/// parser.finish(&mut sink)?;
/// let Tee(structure, builder) = sink;
/// assert_eq!(structure.duplicates().count, 1);
/// assert_eq!(builder.finish().json.get(), r#"{"a":1,"a":2}"#);
/// # let _ = Null;
/// # Ok::<(), plumb_core::Refusal>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Tee<A, B>(pub A, pub B);

impl<A: JsonSink, B: JsonSink> JsonSink for Tee<A, B> {
    #[inline]
    fn capture_strings(&self) -> bool {
        self.0.capture_strings() || self.1.capture_strings()
    }
    #[inline]
    fn start_object(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
        both(
            self.0.start_object(depth, at),
            self.1.start_object(depth, at),
        )
    }
    #[inline]
    fn key(&mut self, key: &str, truncated: bool) -> ControlFlow<()> {
        both(self.0.key(key, truncated), self.1.key(key, truncated))
    }
    #[inline]
    fn key_bytes(&mut self, key: &[u8], truncated: bool) -> ControlFlow<()> {
        both(
            self.0.key_bytes(key, truncated),
            self.1.key_bytes(key, truncated),
        )
    }
    #[inline]
    fn end_object(&mut self) -> ControlFlow<()> {
        both(self.0.end_object(), self.1.end_object())
    }
    #[inline]
    fn start_array(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
        both(self.0.start_array(depth, at), self.1.start_array(depth, at))
    }
    #[inline]
    fn end_array(&mut self) -> ControlFlow<()> {
        both(self.0.end_array(), self.1.end_array())
    }
    #[inline]
    fn scalar(&mut self, scalar: &Scalar<'_>) -> ControlFlow<()> {
        both(self.0.scalar(scalar), self.1.scalar(scalar))
    }
    fn finish(&mut self) -> Result<(), Refusal> {
        let first = self.0.finish();
        let second = self.1.finish();
        first.and(second)
    }
}

#[inline]
fn both(a: ControlFlow<()>, b: ControlFlow<()>) -> ControlFlow<()> {
    if a.is_break() || b.is_break() {
        ControlFlow::Break(())
    } else {
        ControlFlow::Continue(())
    }
}

/// The parser in the one drive loop (`plumb_core::drive`).
impl<S: JsonSink + ?Sized> PushMachine<S> for JsonParser {
    #[inline]
    fn push(&mut self, input: &[u8], sink: &mut S) -> Result<ControlFlow<()>, Refusal> {
        Ok(flow(JsonParser::push(self, input, sink)?))
    }
    fn finish(&mut self, sink: &mut S) -> Result<ControlFlow<()>, Refusal> {
        Ok(flow(JsonParser::finish(self, sink)?))
    }
    fn close(&mut self, sink: &mut S) -> Result<(), Refusal> {
        sink.finish()
    }
}

fn flow(status: Status) -> ControlFlow<()> {
    if status == Status::Stopped {
        ControlFlow::Break(())
    } else {
        ControlFlow::Continue(())
    }
}
