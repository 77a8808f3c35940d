//! View flags: what a result is a view of.

use serde::Serialize;

/// Whether a result covers the whole file, stopped early, or holds a
/// value cut to a budget.
///
/// * `exact`: the scan reached the end and nothing returned was cut.
/// * `sampled`: the scan stopped early (a row cap, a window); counts are
///   lower bounds and row counts are `null`.
/// * `converted`: the scan finished, but a returned value was cut to a
///   budget and carries a `$summary` or `$truncated` placeholder.
///
/// Inspection samples are previews: a placeholder inside a sample does not
/// turn an inspection into a cut view, because `exact` speaks for the
/// counts, not for the preview.
///
/// ```
/// use plumb_core::ViewFlags;
/// assert_eq!(ViewFlags::exact().label(), "exact");
/// assert_eq!(ViewFlags::sampled().label(), "sampled");
/// assert_eq!(ViewFlags::cut().label(), "cut");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ViewFlags {
    /// The whole file was read and the result is complete and verbatim.
    pub exact: bool,
    /// The scan stopped early; counts are lower bounds.
    pub sampled: bool,
    /// A returned value was cut to a budget and marked by a placeholder.
    pub converted: bool,
}

impl ViewFlags {
    /// The whole file, verbatim.
    pub const fn exact() -> ViewFlags {
        ViewFlags {
            exact: true,
            sampled: false,
            converted: false,
        }
    }

    /// A scan that stopped early.
    pub const fn sampled() -> ViewFlags {
        ViewFlags {
            exact: false,
            sampled: true,
            converted: false,
        }
    }

    /// A complete scan whose returned value was cut to a budget.
    pub const fn cut() -> ViewFlags {
        ViewFlags {
            exact: false,
            sampled: false,
            converted: true,
        }
    }

    /// The view of a scan: sampled when it stopped early, else exact.
    pub const fn of_scan(stopped_early: bool) -> ViewFlags {
        if stopped_early {
            ViewFlags::sampled()
        } else {
            ViewFlags::exact()
        }
    }

    /// Marks a returned value as cut; the view is no longer exact.
    #[must_use]
    pub const fn with_cut(self, cut: bool) -> ViewFlags {
        if cut {
            ViewFlags {
                exact: false,
                sampled: self.sampled,
                converted: true,
            }
        } else {
            self
        }
    }

    /// `sampled` when the scan stopped early, else `cut` when a value was
    /// cut, else `exact`. Stopping early is the bigger caveat, so it wins.
    pub const fn label(self) -> &'static str {
        if self.sampled {
            "sampled"
        } else if self.converted {
            "cut"
        } else {
            "exact"
        }
    }
}
