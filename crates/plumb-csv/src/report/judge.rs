//! How a search predicate judges a CSV cell: the CSV meaning of its
//! words (a cell of only spaces and tabs is empty; an empty cell or a
//! sentinel is null), and the short ways a column search takes for the
//! usual predicates (text equality without a `memcmp` call, a number
//! through the operand read once). Apart from `search.rs`, which holds
//! the sink that hands cells here and keeps the hits.
//!
//! Reference: `Predicate::test` on the cell as a `Subject`
//! (`cell_subject`). Held equal by: `tests/it/search.rs::predicates_agree_w
//! ith_python_csv_and_exact_decimals` (against Python's csv and exact
//! decimals) and `judge.rs::tests::same_bytes_agrees_with_slice_equality`.

use plumb_core::{CompareOp, NumberKey, Predicate, Subject, SubjectKind};

use crate::cell::SENTINEL_TOKENS;

/// A predicate's short way for a cell passing in a column search.
pub(super) enum Quick {
    /// `= text` or `!= text` (`negated` for `!=`): the trimmed cell is
    /// compared with the operand's bytes.
    TextEq { operand: Vec<u8>, negated: bool },
    /// A comparison with a number: the cell judged through the
    /// operand's key ([`NumberKey::test`]).
    Number {
        op: CompareOp,
        key: NumberKey,
        operand: Vec<u8>,
    },
    /// Every cell goes through [`Predicate::test`].
    None,
}

impl Quick {
    pub(super) fn of(predicate: &Predicate) -> Quick {
        match predicate {
            Predicate::Compare {
                op: op @ (CompareOp::Eq | CompareOp::Ne),
                numeric: false,
                operand,
                ..
            } => Quick::TextEq {
                operand: operand.as_bytes().to_vec(),
                negated: *op == CompareOp::Ne,
            },
            Predicate::Compare {
                op,
                number: Some(key),
                operand,
                ..
            } => Quick::Number {
                op: *op,
                key: key.clone(),
                operand: operand.as_bytes().to_vec(),
            },
            _ => Quick::None,
        }
    }
}

/// A cell without the spaces and tabs around it.
#[inline(always)]
pub(super) fn trim_blanks(cell: &[u8]) -> &[u8] {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    // Most cells have nothing to trim: two byte tests tell.
    if cell.first().is_some_and(|b| !blank(b)) && cell.last().is_some_and(|b| !blank(b)) {
        return cell;
    }
    let start = cell.iter().position(|b| !blank(b)).unwrap_or(cell.len());
    let end = cell
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |e| e + 1);
    &cell[start..end]
}

/// Whether two byte strings are equal: short ones (most cells) with a
/// few fixed-width loads, overlapping when the length is between
/// widths, rather than a call to `memcmp` per cell.
#[inline]
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    // Never short here (each use is behind a length test), so the zeros
    // are never compared; `get` keeps a wrong length from panicking.
    fn word<const N: usize>(s: &[u8], at: usize) -> [u8; N] {
        s.get(at..at + N)
            .and_then(|w| w.try_into().ok())
            .unwrap_or([0; N])
    }
    // Chosen by the operand's length `m`, the same for every cell; the
    // cell's length joins the word tests with `&`, not as a branch of
    // its own, which mispredicted on columns of mixed lengths.
    let (n, m) = (a.len(), b.len());
    match m {
        0 => n == 0,
        1..=3 => {
            n >= 1 && (n == m) & (a[0] == b[0]) & (a[n / 2] == b[m / 2]) & (a[n - 1] == b[m - 1])
        }
        4..=8 => {
            n >= 4
                && (n == m)
                    & (word::<4>(a, 0) == word::<4>(b, 0))
                    & (word::<4>(a, n - 4) == word::<4>(b, m - 4))
        }
        9..=16 => {
            n >= 8
                && (n == m)
                    & (word::<8>(a, 0) == word::<8>(b, 0))
                    & (word::<8>(a, n - 8) == word::<8>(b, m - 8))
        }
        _ => a == b,
    }
}

/// A cell as a predicate sees it.
pub(super) fn cell_subject<'a>(cell: &'a [u8], predicate: &Predicate) -> Subject<'a> {
    if matches!(predicate, Predicate::Pattern(_)) {
        return Subject::new(SubjectKind::Text, cell);
    }
    let text = trim_blanks(cell);
    // A numeric comparison reads the cell as a number itself, and falls
    // back to text when it is not one.
    let numeric = matches!(predicate, Predicate::Compare { numeric: true, .. });
    // A text operand orders text only: a cell that reads as a number is
    // one, and a number and text never order.
    let ordered_text = matches!(
        predicate,
        Predicate::Compare { numeric: false, op, .. }
            if !matches!(op, CompareOp::Eq | CompareOp::Ne)
    );
    let sentinel = matches!(predicate, Predicate::IsNull { .. })
        && SENTINEL_TOKENS.iter().any(|t| t.as_bytes() == text);
    Subject {
        kind: if numeric || (ordered_text && plumb_core::is_number_literal(text)) {
            SubjectKind::Number
        } else {
            SubjectKind::Text
        },
        text,
        null: text.is_empty() || sentinel,
    }
}

#[cfg(test)]
mod tests {
    use super::same_bytes;

    /// Every length across the fixed-width branches, equal, one byte
    /// off at each position, and one byte shorter.
    #[test]
    fn same_bytes_agrees_with_slice_equality() {
        for n in 0..40usize {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(same_bytes(&a, &a.clone()), "length {n}");
            for k in 0..n {
                let mut b = a.clone();
                b[k] ^= 1;
                assert!(!same_bytes(&a, &b), "length {n}, byte {k} differs");
            }
            if n > 0 {
                assert!(!same_bytes(&a, &a[..n - 1]), "length {n} against one less");
            }
        }
        // A cell of every length against an operand of every length,
        // across the width classes both ways, equal prefixes included.
        let long: Vec<u8> = (0..40).map(|i| b'a' + (i % 26) as u8).collect();
        for n in 0..40 {
            for m in 0..40 {
                let (cell, operand) = (&long[..n], &long[..m]);
                assert_eq!(same_bytes(cell, operand), n == m, "cell {n}, operand {m}");
                let mut other = operand.to_vec();
                if let Some(last) = other.last_mut() {
                    *last ^= 1;
                    assert!(!same_bytes(cell, &other), "cell {n}, changed operand {m}");
                }
            }
        }
    }
}
