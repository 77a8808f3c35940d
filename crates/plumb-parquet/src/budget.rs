//! The work a Parquet scan may do, counted in bytes decoded: what
//! `max_scan_bytes` bounds for Parquet, where the file's own bytes say
//! little of it (a dictionary of one long value, referenced by a run of
//! millions of indices, expands without limit from a few hundred bytes).
//!
//! A value counts its bytes as decoded (a number its width, a string its
//! length, at least one byte each); validate also counts each page's
//! bytes once decompressed. The count is taken value by value, so where
//! a scan stops depends on the file and the budget alone.

use parquet::data_type::AsBytes;

/// Bytes a scan may still decode, and whether it ran out.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    left: Option<u64>,
    out: bool,
}

impl Budget {
    /// A budget of `max` bytes (none: no bound).
    pub(crate) const fn new(max: Option<u64>) -> Budget {
        Budget {
            left: max,
            out: false,
        }
    }

    /// The budget of one of `parts` scans that share `max` (each column
    /// of a statistics scan): an even share, at least one byte.
    pub(crate) fn share(max: Option<u64>, parts: usize) -> Budget {
        let parts = u64::try_from(parts.max(1)).unwrap_or(u64::MAX);
        Budget::new(max.map(|m| (m / parts).max(1)))
    }

    /// Charges `bytes` (at least one); false, and nothing charged, once
    /// they do not fit: the scan stops before them.
    #[inline]
    pub(crate) fn take(&mut self, bytes: usize) -> bool {
        let Some(left) = self.left.as_mut() else {
            return true;
        };
        let cost = u64::try_from(bytes.max(1)).unwrap_or(u64::MAX);
        if cost > *left {
            self.out = true;
            return false;
        }
        *left -= cost;
        true
    }

    /// Charges one decoded value.
    #[inline]
    pub(crate) fn take_value<T: AsBytes + ?Sized>(&mut self, v: &T) -> bool {
        self.left.is_none() || self.take(v.as_bytes().len())
    }

    /// Whether the scan stopped for want of budget.
    pub(crate) const fn out(&self) -> bool {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::Budget;

    #[test]
    fn a_value_that_does_not_fit_stops_the_scan_and_costs_nothing() {
        let mut b = Budget::new(Some(10));
        assert!(b.take(4) && b.take(0) && !b.out());
        assert!(!b.take(6), "4 + 1 + 6 > 10");
        assert!(b.out() && b.take(5), "what still fits is taken");
        assert!(!b.take(1));
    }

    #[test]
    fn no_budget_takes_everything_and_shares_split_evenly() {
        let mut b = Budget::new(None);
        assert!(b.take(usize::MAX) && !b.out());
        let mut share = Budget::share(Some(10), 3);
        assert!(share.take(3) && !share.take(1));
        let mut tiny = Budget::share(Some(2), 5);
        assert!(tiny.take(1) && !tiny.take(1), "at least one byte each");
    }
}
