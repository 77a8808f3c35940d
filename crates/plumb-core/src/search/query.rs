//! A search as the shared options ask for it ([`Query`]), and how far
//! one has gone ([`SearchProgress`]).

use super::{Conditions, MatchMode, Matcher, Predicate, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT};
use crate::options::Request;
use crate::refusal::Refusal;

/// A search, as the shared options ask for it.
#[derive(Clone, Debug)]
pub struct Query {
    /// What a value (or a line) must be; with [`Query::conditions`], the
    /// first condition's predicate (an engine that judges conditions
    /// reads them instead).
    pub predicate: Predicate,
    /// Several tests of a record, each naming its column or field, in
    /// place of one predicate on one column or field.
    pub conditions: Option<Conditions>,
    /// Hits to skip over: the search starts at this line, row, record or
    /// element (the unit of the format).
    pub offset: u64,
    /// Hits to return (clamped to `1..=SEARCH_MAX_LIMIT`).
    pub limit: usize,
    /// Count the hits to the end instead of returning them.
    pub count_only: bool,
    /// Stop after this many bytes of text ([`crate::ScanBounds::max_scan_bytes`]);
    /// the progress then says where to go on.
    pub max_scan_bytes: Option<u64>,
    /// Hits passed over, counted but not kept, before the first kept
    /// ([`crate::ScanBounds::skip_hits`]).
    pub skip_hits: u64,
}

impl Query {
    /// Whether the search starts at the first unit and keeps every hit
    /// from there (no offset, no hits passed over): the searches a scan
    /// split into parts answers, each part from its own start.
    ///
    /// ```
    /// use plumb_core::{Query, Request};
    /// let mut req = Request::default();
    /// req.set("pattern", serde_json::json!("x"))?;
    /// let mut q = Query::from_request(&req)?;
    /// assert!(q.from_first());
    /// q.offset = 3;
    /// assert!(!q.from_first());
    /// # Ok::<(), plumb_core::Refusal>(())
    /// ```
    pub fn from_first(&self) -> bool {
        self.offset == 0 && self.skip_hits == 0
    }

    /// The query the request's shared search options ask for: exactly
    /// one of `pattern` and `where`.
    ///
    /// ```
    /// use plumb_core::{Query, Request};
    /// use serde_json::json;
    /// let mut req = Request::default();
    /// req.set("pattern", json!("timeout"))?.set("limit", json!(5))?;
    /// let q = Query::from_request(&req)?;
    /// assert_eq!((q.limit, q.offset, q.count_only), (5, 0, false));
    /// assert!(q.predicate.matcher().is_some_and(|m| m.is_literal()));
    /// # Ok::<(), plumb_core::Refusal>(())
    /// ```
    ///
    /// `conditions` are refused: a reader that judges them asks with
    /// [`Query::judging_conditions`], so that no reader drops them
    /// unread.
    ///
    /// # Errors
    /// `invalid-argument`: neither or both of `pattern` and `where`,
    /// `conditions`, a zero limit, a bad pattern or predicate.
    pub fn from_request(req: &Request) -> Result<Query, Refusal> {
        Query::read(req, false)
    }

    /// The query as [`Query::from_request`] reads it, or, with
    /// `conditions` (and `match`), several tests of a record, which the
    /// caller judges ([`Query::conditions`]).
    ///
    /// ```
    /// use plumb_core::{MatchMode, Query, Request};
    /// use serde_json::json;
    /// let mut req = Request::default();
    /// req.set("conditions", json!(["level = error", "ts >= 2024-03-01"]))?
    ///     .set("match", json!("any"))?;
    /// assert!(Query::from_request(&req).is_err());
    /// let q = Query::judging_conditions(&req)?;
    /// let c = q.conditions.as_ref().unwrap();
    /// assert_eq!((c.items.len(), c.mode), (2, MatchMode::Any));
    /// req.set("where", json!("= 1"))?;
    /// assert!(Query::judging_conditions(&req).is_err());
    /// # Ok::<(), plumb_core::Refusal>(())
    /// ```
    ///
    /// # Errors
    /// As [`Query::from_request`], and `conditions` beside `pattern` or
    /// `where`, or a bad condition.
    pub fn judging_conditions(req: &Request) -> Result<Query, Refusal> {
        Query::read(req, true)
    }

    fn read(req: &Request, conditions_judged: bool) -> Result<Query, Refusal> {
        let opts = &req.options;
        if !conditions_judged && opts.get("conditions").is_some() {
            return Err(Refusal::invalid_argument(
                "this format's search judges one value per line or record, not conditions on \
                 named columns or fields; give a pattern or a where predicate",
            ));
        }
        let mode = match opts.text("match") {
            Some("any") => Some(MatchMode::Any),
            Some(_) => Some(MatchMode::All),
            None => None,
        };
        let conditions = match opts.list("conditions") {
            Some(texts) => {
                let taken = ["pattern", "where", "ignore_case", "word"]
                    .into_iter()
                    .find(|n| opts.get(n).is_some());
                if let Some(name) = taken {
                    return Err(Refusal::invalid_argument(format!(
                        "conditions replace pattern and where; `{name}` cannot go with them: \
                         put every test in conditions (a pattern as `name ~ regex`)"
                    )));
                }
                Some(Conditions::parse(&texts, mode.unwrap_or_default())?)
            }
            None if mode.is_some() => {
                return Err(Refusal::invalid_argument(
                    "match joins conditions; give conditions too, or leave match out",
                ))
            }
            None => None,
        };
        let predicate = match (opts.text("pattern"), opts.text("where")) {
            _ if conditions.is_some() => conditions
                .as_ref()
                .and_then(|c| c.items.first())
                .map(|c| c.predicate.clone())
                .ok_or_else(|| Refusal::invalid_argument("conditions is empty"))?,
            (Some(p), None) => Predicate::Pattern(Box::new(Matcher::new(
                p,
                opts.flag("ignore_case").unwrap_or(false),
                opts.flag("word").unwrap_or(false),
            )?)),
            (None, Some(w)) => {
                if opts.flag("ignore_case").is_some() || opts.flag("word").is_some() {
                    return Err(Refusal::invalid_argument(
                        "ignore_case and word apply to a pattern, not to a where predicate; \
                         drop them, or search with a pattern",
                    ));
                }
                Predicate::parse(w)?
            }
            (None, None) => {
                return Err(Refusal::invalid_argument(
                    "a search needs a pattern (a regex or literal text) or a where predicate \
                     (such as `= 42` or `is null`); give one",
                ))
            }
            (Some(_), Some(_)) => {
                return Err(Refusal::invalid_argument(
                    "a search takes a pattern or a where predicate, not both; give one",
                ))
            }
        };
        if req.window.limit == Some(0) {
            return Err(crate::caps::zero_limit(SEARCH_MAX_LIMIT as u64));
        }
        Ok(Query {
            predicate,
            conditions,
            offset: req.window.offset.unwrap_or(0),
            limit: req.window.limit.map_or(SEARCH_DEFAULT_LIMIT, |n| {
                usize::try_from(n)
                    .unwrap_or(SEARCH_MAX_LIMIT)
                    .clamp(1, SEARCH_MAX_LIMIT)
            }),
            count_only: opts.flag("count_only").unwrap_or(false),
            max_scan_bytes: req.scan.max_scan_bytes,
            skip_hits: req.scan.skip_hits,
        })
    }
}

/// Where a search stopped, and how many hits it saw: the part of every
/// search answer that says how to go on.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
pub struct SearchProgress {
    /// Hits seen from the offset on: returned ones, plus the one past the
    /// limit that stopped the scan.
    pub total: u64,
    /// Whether `total` is every hit from the offset to the end (the scan
    /// reached the end); otherwise there are at least `total`.
    pub total_exact: bool,
    /// Whether hits follow the ones returned.
    pub has_more: bool,
    /// Where the next hit is, in the unit of the format: search again
    /// with this offset to continue exactly there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
}

impl SearchProgress {
    /// The scan stopped at its byte budget ([`crate::ScanBounds::max_scan_bytes`])
    /// before unit `next`, which it did not read whole: unless the limit
    /// stopped it first, hits may follow, and a search from `next` goes
    /// on exactly there.
    ///
    /// ```
    /// use plumb_core::SearchProgress;
    /// let mut p = SearchProgress { total: 2, total_exact: true, ..SearchProgress::default() };
    /// p.stopped_before(1500);
    /// assert_eq!((p.has_more, p.total_exact, p.next_offset), (true, false, Some(1500)));
    /// ```
    pub fn stopped_before(&mut self, next: u64) {
        if !self.has_more {
            self.has_more = true;
            self.total_exact = false;
            self.next_offset = Some(next);
        }
    }

    /// Joins the progress of the next part of a search split into parts
    /// read on several threads, `before` units (rows, records) after this
    /// one's start: `kept` of its hits were kept, and `dropped_at` is the
    /// unit of its first hit dropped for want of room (where one scan
    /// would have stopped, counting it), if any. A search that stopped
    /// already takes in nothing.
    ///
    /// ```
    /// use plumb_core::SearchProgress;
    /// let mut whole = SearchProgress { total: 3, ..SearchProgress::default() };
    /// let later = SearchProgress { total: 9, ..SearchProgress::default() };
    /// // Room for 2 of the later part's hits: its third, at its unit 40,
    /// // is where one scan would have stopped.
    /// whole.join_part(&later, 2, Some(40), 1000);
    /// assert_eq!((whole.total, whole.has_more, whole.next_offset), (6, true, Some(1040)));
    /// ```
    pub fn join_part(
        &mut self,
        later: &SearchProgress,
        kept: u64,
        dropped_at: Option<u64>,
        before: u64,
    ) {
        if self.has_more {
            return;
        }
        match dropped_at {
            // Saturating: a part may come back from another process,
            // its counts a claim.
            Some(unit) => {
                self.total = self.total.saturating_add(kept.saturating_add(1));
                self.has_more = true;
                self.next_offset = Some(unit.saturating_add(before));
            }
            None => {
                self.total = self.total.saturating_add(later.total);
                if later.has_more {
                    self.has_more = true;
                    self.next_offset = later.next_offset.map(|u| u.saturating_add(before));
                }
            }
        }
    }
}
