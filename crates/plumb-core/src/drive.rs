//! The one loop every engine runs: a text stream's chunks pushed into a
//! sans-IO machine that reports to a sink, until the input ends or the
//! sink stops the scan, then the sink's end.
//!
//! Engines differ in their machine (a CSV state machine, a JSON parser,
//! a line splitter) and their sink protocol; the loop around them is the
//! same, so it is written once here. A machine is built lazily at the
//! absolute offset of the first text (after a BOM the stream stripped),
//! or handed in already started (CSV pushes its delimiter sample first).

use std::io::BufRead;
use std::ops::ControlFlow;

use crate::refusal::Refusal;
use crate::stream::TextStream;

/// A sans-IO machine that takes text in pushes cut anywhere and reports
/// to a sink of type `S`.
pub trait PushMachine<S: ?Sized> {
    /// Pushes more input. `Break` once the sink stopped the scan: nothing
    /// further is pushed.
    ///
    /// # Errors
    /// A fault the machine refuses (`invalid-json`, `nesting-too-deep`).
    fn push(&mut self, input: &[u8], sink: &mut S) -> Result<ControlFlow<()>, Refusal>;

    /// Ends the input.
    ///
    /// # Errors
    /// As [`PushMachine::push`] (for example a text that ends inside a value).
    fn finish(&mut self, sink: &mut S) -> Result<ControlFlow<()>, Refusal>;

    /// Ends the sink, whether the input ended or the sink stopped the
    /// scan: its own refusal (a column that is not in the header, a
    /// pointer that leads nowhere) comes out here.
    ///
    /// # Errors
    /// The sink's refusal.
    fn close(&mut self, sink: &mut S) -> Result<(), Refusal>;
}

/// Drives `stream` through the machine into `sink`: builds the machine
/// with `start(offset of the first text)` unless `machine` already holds
/// one, pushes every chunk, finishes, and closes the sink. Returns
/// `Break` when the sink stopped the scan before the end, or the stream
/// did at its byte budget ([`TextStream::stopped_early`]; the input is
/// then not finished, so a text cut there is not a truncated one).
///
/// ```
/// use std::ops::ControlFlow;
/// use plumb_core::{drive, PushMachine, Refusal, TextStream};
///
/// /// Counts newlines; the sink is the count.
/// struct Lines;
/// impl PushMachine<u64> for Lines {
///     fn push(&mut self, input: &[u8], n: &mut u64) -> Result<ControlFlow<()>, Refusal> {
///         *n += input.iter().filter(|&&b| b == b'\n').count() as u64;
///         Ok(ControlFlow::Continue(()))
///     }
///     fn finish(&mut self, _: &mut u64) -> Result<ControlFlow<()>, Refusal> {
///         Ok(ControlFlow::Continue(()))
///     }
///     fn close(&mut self, _: &mut u64) -> Result<(), Refusal> {
///         Ok(())
///     }
/// }
/// let mut stream = TextStream::new(&b"\xEF\xBB\xBFa\nb\n"[..]);
/// let (mut machine, mut count, mut base) = (None, 0u64, None);
/// let flow = drive(&mut stream, &mut machine, |at| { base = Some(at); Lines }, &mut count)?;
/// assert_eq!((flow, count, base), (ControlFlow::Continue(()), 2, Some(3)));
/// # Ok::<(), Refusal>(())
/// ```
///
/// # Errors
/// The stream's refusals, the machine's and the sink's.
pub fn drive<R, M, S>(
    stream: &mut TextStream<R>,
    machine: &mut Option<M>,
    start: impl FnOnce(u64) -> M,
    sink: &mut S,
) -> Result<ControlFlow<()>, Refusal>
where
    R: BufRead,
    M: PushMachine<S>,
    S: ?Sized,
{
    let mut start = Some(start);
    let mut build = |machine: &mut Option<M>, at: u64| {
        if machine.is_none() {
            *machine = start.take().map(|f| f(at));
        }
    };
    let flow = loop {
        match stream.next_chunk()? {
            Some(chunk) => {
                build(machine, chunk.byte_offset);
                if let Some(m) = machine.as_mut() {
                    if m.push(chunk.text.as_bytes(), sink)?.is_break() {
                        break ControlFlow::Break(());
                    }
                }
            }
            None => {
                // A stream ended at its byte budget stopped the scan, as
                // a sink would: what was read is answered, not finished.
                if stream.stopped_early() {
                    break ControlFlow::Break(());
                }
                build(machine, stream.position());
                match machine.as_mut() {
                    Some(m) => break m.finish(sink)?,
                    None => break ControlFlow::Continue(()),
                }
            }
        }
    };
    if let Some(m) = machine.as_mut() {
        m.close(sink)?;
    }
    Ok(flow)
}
