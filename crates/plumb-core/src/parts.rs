//! Where a file is cut for a scan on several threads: at line feeds near
//! equal shares of it, found by reading a little past each share's start
//! through [`Source::read_at`]. The line-based engines (CSV/TSV, JSON
//! Lines) share it; each then reads every part through
//! [`part_stream`](crate::part_stream) on a thread of its own.
//!
//! A line feed inside a quoted CSV field is not a record boundary. With
//! a quote character given, a line feed is a cut only where the quote
//! characters before it are even in number; those counts are taken on a
//! thread per part, in one pass over the bytes before the last cut.

use crate::{Refusal, Source};

/// How far past a part's nominal start a line feed is looked for before
/// the cut is given up (the part then joins its neighbour).
pub const CUT_SEARCH_BYTES: u64 = 4 << 20;

/// Reads `from..to` of the source in blocks, handing each to `each`
/// with its offset until it returns false; false without random access.
fn read_blocks(
    source: &dyn Source,
    from: u64,
    to: u64,
    mut each: impl FnMut(u64, &[u8]) -> bool,
) -> Result<bool, Refusal> {
    let mut buf = vec![0u8; 1 << 16];
    let mut at = from;
    while at < to {
        let want = buf
            .len()
            .min(usize::try_from(to - at).unwrap_or(usize::MAX));
        let n = match source.read_at(at, &mut buf[..want]) {
            None => return Ok(false),
            Some(Ok(0)) => return Ok(true),
            Some(Ok(n)) => n,
            Some(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Some(Err(e)) => return Err(Refusal::from_io(&e, Some(source.name()))),
        };
        if !each(at, &buf[..n]) {
            return Ok(true);
        }
        at += n as u64;
    }
    Ok(true)
}

/// The boundaries of up to `parts` parts of a source of `len` bytes: 0,
/// the byte after a line feed at or after each `len * k / parts` (the
/// first at least `first_min` in), and `len`; strictly increasing. With
/// `quote_parity`, a line feed counts only where that quote character
/// occurs an even number of times before it. `None` without random
/// access, or when no cut is found within [`CUT_SEARCH_BYTES`] of any
/// share's start.
///
/// ```
/// use plumb_core::{line_cuts, BytesSource};
/// let text = "a\nbb\nccc\ndddd\n".repeat(100);
/// let src = BytesSource::new("t", text.clone().into_bytes());
/// let cuts = line_cuts(&src, text.len() as u64, 3, 0, None).unwrap().unwrap();
/// assert_eq!((cuts[0], *cuts.last().unwrap()), (0, text.len() as u64));
/// assert!(cuts[1..cuts.len() - 1].iter().all(|&c| text.as_bytes()[c as usize - 1] == b'\n'));
/// ```
///
/// # Errors
/// A read error of the source.
pub fn line_cuts(
    source: &dyn Source,
    len: u64,
    parts: usize,
    first_min: u64,
    quote_parity: Option<u8>,
) -> Result<Option<Vec<u64>>, Refusal> {
    let mut nominal: Vec<u64> = Vec::new();
    for k in 1..parts.max(1) as u64 {
        let at = ((len / parts as u64) * k).max(first_min);
        if at < len && nominal.last().is_none_or(|&l| at > l) {
            nominal.push(at);
        }
    }
    // The quotes before each nominal point, odd or even.
    let mut odd = vec![false; nominal.len()];
    if let Some(q) = quote_parity {
        let counts: Vec<Result<Option<u64>, Refusal>> = std::thread::scope(|scope| {
            let handles: Vec<_> = nominal
                .iter()
                .enumerate()
                .map(|(i, &to)| {
                    let from = if i == 0 { 0 } else { nominal[i - 1] };
                    scope.spawn(move || {
                        let mut n = 0u64;
                        let ok = read_blocks(source, from, to, |_, block| {
                            n += memchr::memchr_iter(q, block).count() as u64;
                            true
                        })?;
                        Ok(ok.then_some(n))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or(Ok(None)))
                .collect()
        });
        let mut total = 0u64;
        for (slot, count) in odd.iter_mut().zip(counts) {
            let Some(n) = count? else {
                return Ok(None);
            };
            total += n;
            *slot = total % 2 == 1;
        }
    }
    let mut cuts = vec![0u64];
    for (&start, &odd_before) in nominal.iter().zip(&odd) {
        let last = *cuts.last().unwrap_or(&0);
        let from = start.max(last);
        // Quotes between the nominal point and `from` (when an earlier
        // cut ran past it) would change the parity: no cut then.
        if from != start && quote_parity.is_some() {
            continue;
        }
        let limit = from.saturating_add(CUT_SEARCH_BYTES).min(len);
        let mut inside = odd_before;
        let mut cut = None;
        let readable = read_blocks(source, from, limit, |at, block| {
            match quote_parity {
                None => {
                    if let Some(i) = memchr::memchr(b'\n', block) {
                        cut = Some(at + i as u64 + 1);
                        return false;
                    }
                }
                Some(q) => {
                    for (i, &b) in block.iter().enumerate() {
                        if b == q {
                            inside = !inside;
                        } else if b == b'\n' && !inside {
                            cut = Some(at + i as u64 + 1);
                            return false;
                        }
                    }
                }
            }
            true
        })?;
        if !readable {
            return Ok(None);
        }
        if let Some(c) = cut.filter(|&c| c < len && c > last) {
            cuts.push(c);
        }
    }
    if cuts.len() == 1 {
        return Ok(None);
    }
    cuts.push(len);
    Ok(Some(cuts))
}

#[cfg(test)]
mod tests {
    use super::line_cuts;
    use crate::BytesSource;

    proptest::proptest! {
        /// Every cut follows a line feed (outside quotes when asked), the
        /// cuts increase strictly, and they span the whole source.
        #[test]
        fn cuts_follow_line_feeds_outside_quotes(
            text in "[a\"\n]{0,300}",
            parts in 1usize..6,
            first_min in 0u64..50,
            parity in proptest::bool::ANY,
        ) {
            let src = BytesSource::new("t", text.clone().into_bytes());
            let len = text.len() as u64;
            let q = parity.then_some(b'"');
            if let Some(cuts) = line_cuts(&src, len, parts, first_min, q).unwrap() {
                proptest::prop_assert_eq!(cuts[0], 0);
                proptest::prop_assert_eq!(*cuts.last().unwrap(), len);
                proptest::prop_assert!(cuts.windows(2).all(|w| w[0] < w[1]));
                proptest::prop_assert!(cuts.len() <= parts + 1);
                for &c in &cuts[1..cuts.len() - 1] {
                    let before = &text.as_bytes()[..c as usize];
                    proptest::prop_assert_eq!(before.last(), Some(&b'\n'));
                    proptest::prop_assert!(c >= first_min);
                    if parity {
                        let quotes = before.iter().filter(|&&b| b == b'"').count();
                        proptest::prop_assert_eq!(quotes % 2, 0);
                    }
                }
            } else {
                // No cut: either nothing to split or no line feed after
                // the first share's start.
                let share = (len / parts.max(1) as u64).max(first_min) as usize;
                let after = text.as_bytes().get(share..).unwrap_or(&[]);
                proptest::prop_assert!(parts < 2 || !after[..after.len().saturating_sub(1)].contains(&b'\n') || parity);
            }
        }
    }
}
