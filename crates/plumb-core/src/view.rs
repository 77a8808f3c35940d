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
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
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

/// The most values a search hit's row carries in the tabular readers
/// that give a row as JSON values (Parquet, spreadsheets): the values
/// past them are counted in a closing `{"$summary": {"omitted_values":
/// n}}`, the one that matched kept.
pub const HIT_ROW_VALUES: usize = 256;

/// The most bytes of JSON text the values a hit's row carries may take
/// (as a JSON search hit's value): past it the largest are cut to a
/// common length (never below [`HIT_VALUE_MIN_BYTES`]), a string to
/// `{"$truncated": <start>, "bytes": n}`, the text of a `$truncated` or
/// `$hex` placeholder likewise, and a list or group to
/// `{"$summary": {"type", "members"}}`.
pub const HIT_ROW_BYTES: usize = 4 * 1024;

/// The length a fitted hit's value is never cut below: a placeholder is
/// about that long, and a shorter value (a number, a `$float`) is kept
/// whole even when the row then passes [`HIT_ROW_BYTES`].
pub const HIT_VALUE_MIN_BYTES: usize = 64;

/// Fits one search hit's row (`values`: an object of columns, in column
/// order) to [`HIT_ROW_VALUES`] values and [`HIT_ROW_BYTES`]: member
/// `keep` (the matching one, by position) stays among them wherever it
/// is, in place of the last one shown. Anything but an object is left
/// as it is (a row of positional cells, as a sheet's, keeps its first
/// values itself, so that a position still names its column). Returns
/// whether anything was cut or left out.
///
/// Without it a wide row of long text made one hit of tens of KiB, and
/// the agent surface fitted a hit or two into its 32 KiB.
///
/// ```
/// use plumb_core::{fit_hit_row, HIT_ROW_VALUES};
/// use serde_json::{json, Map, Value};
/// let mut row = Value::Object((0..300).map(|i| (format!("c{i}"), json!(i))).collect::<Map<_, _>>());
/// assert!(fit_hit_row(&mut row, Some(299)));
/// let columns = row.as_object().unwrap();
/// assert_eq!(columns.len(), HIT_ROW_VALUES + 1);
/// assert_eq!(columns["c299"], json!(299));
/// assert_eq!(columns["$summary"], json!({"omitted_values": 44}));
/// ```
pub fn fit_hit_row(values: &mut serde_json::Value, keep: Option<usize>) -> bool {
    fit_row(values, keep, HIT_ROW_VALUES, HIT_ROW_BYTES)
}

/// Fits a row (an object of columns, or an array of positional cells)
/// to about `max_bytes` of JSON text, every value kept: the largest are cut to a common length (never
/// below [`HIT_VALUE_MIN_BYTES`]) as [`fit_hit_row`] cuts them. Returns
/// whether anything was cut. A select whose first row alone passes its
/// budget returns that row so.
///
/// ```
/// use plumb_core::fit_row_to_bytes;
/// use serde_json::json;
/// let mut row = json!({"id": 7, "text": "x".repeat(10_000)});
/// assert!(fit_row_to_bytes(&mut row, 1_000));
/// assert_eq!(row["id"], json!(7));
/// assert_eq!(row["text"]["bytes"], json!(10_000));
/// assert!(serde_json::to_string(&row).unwrap().len() < 1_100);
/// ```
pub fn fit_row_to_bytes(values: &mut serde_json::Value, max_bytes: usize) -> bool {
    fit_row(values, None, usize::MAX, max_bytes)
}

fn fit_row(
    values: &mut serde_json::Value,
    keep: Option<usize>,
    max_values: usize,
    max_bytes: usize,
) -> bool {
    use serde_json::Value;
    let columns = match values {
        Value::Object(columns) => columns,
        // Positional cells: every one kept, each cut alike.
        Value::Array(cells) => {
            let fixed = cells.len() + 2;
            return fit_entries(cells.iter_mut().collect(), fixed, max_bytes, false);
        }
        _ => return false,
    };
    let n = columns.len();
    let cut = n > max_values;
    // Whether the closing `$summary` is plumb's (and not a column of
    // that name, which is then left out with the rest, unless it is the
    // one kept: the count of the others is then not given, and the row
    // still says it was cut).
    let mut summary = false;
    if cut {
        // The first values, and `keep` in place of the last of them when
        // it lies past.
        let keep = keep.filter(|&k| k >= max_values && k < n);
        let first = max_values - usize::from(keep.is_some());
        let named = |k: &str| k == "$summary";
        let mut kept_named = false;
        *columns = std::mem::take(columns)
            .into_iter()
            .enumerate()
            .filter(|(i, (k, _))| {
                let wanted = *i < first || Some(*i) == keep;
                if wanted && named(k) && Some(*i) != keep {
                    return false;
                }
                kept_named |= wanted && named(k);
                wanted
            })
            .map(|(_, kv)| kv)
            .collect();
        if !kept_named {
            let omitted = n - columns.len();
            columns.insert(
                "$summary".to_owned(),
                serde_json::json!({ "omitted_values": omitted }),
            );
            summary = true;
        }
    }
    // The bytes besides the values: keys, quotes, colons and commas.
    let fixed = columns.keys().map(|k| k.len() + 4).sum::<usize>() + 2;
    let entries: Vec<&mut Value> = columns
        .iter_mut()
        .filter(|(k, _)| !summary || k.as_str() != "$summary")
        .map(|(_, v)| v)
        .collect();
    fit_entries(entries, fixed, max_bytes, cut)
}

/// Cuts the largest of `entries` to a common length so that they and
/// `fixed` bytes besides take about `max_bytes`; whether anything was
/// cut (or `cut` already).
fn fit_entries(
    entries: Vec<&mut serde_json::Value>,
    fixed: usize,
    max_bytes: usize,
    cut: bool,
) -> bool {
    let sizes: Vec<usize> = entries.iter().map(|v| json_len(v)).collect();
    if fixed + sizes.iter().sum::<usize>() <= max_bytes {
        return cut;
    }
    // The largest length each value may keep so that all fit.
    let mut sorted = sizes.clone();
    sorted.sort_unstable();
    let mut cut = cut;
    let mut room = max_bytes.saturating_sub(fixed);
    let mut cap = 0;
    for (i, &s) in sorted.iter().enumerate() {
        let left = sorted.len() - i;
        if s.saturating_mul(left) <= room {
            room -= s;
            cap = s;
        } else {
            cap = cap.max(room / left);
            break;
        }
    }
    let cap = cap.max(HIT_VALUE_MIN_BYTES);
    for (v, size) in entries.into_iter().zip(sizes) {
        if size > cap {
            cut |= cut_value(v, cap);
        }
    }
    cut
}

/// The bytes of `value` as compact JSON text, counted without keeping
/// them: what a budget of answer bytes is measured in.
///
/// ```
/// assert_eq!(plumb_core::json_len(&serde_json::json!({"a": [1, "b"]})), 13);
/// ```
pub fn json_len(value: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut n = Count(0);
    // Writing to a counter cannot fail, nor can a `Value` be refused.
    let _ = serde_json::to_writer(&mut n, value);
    n.0
}

/// The bytes of a `$truncated` or `$hex` placeholder besides its text:
/// its keys, quotes and punctuation, and up to twenty digits of length.
const PLACEHOLDER_BYTES: usize = 48;

/// The longest start of `text`, in whole characters, that takes at most
/// `max` bytes as a JSON string's contents (escapes counted: a control
/// character's `\u0001` is six bytes), so a cut value's size is known
/// whatever its text holds.
fn json_prefix(text: &str, max: usize) -> &str {
    let mut used = 0;
    for (i, c) in text.char_indices() {
        let n = match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if (c as u32) < 0x20 => 6,
            c => c.len_utf8(),
        };
        if used + n > max {
            return &text[..i];
        }
        used += n;
    }
    text
}

/// The placeholder an object is, when it has the shape of one plumb
/// writes: `{"$truncated": text, "bytes": n}`, `{"$hex": text}` with or
/// without `bytes`, or a lone `$float`, `$literal`, `$bytes`, `$summary`
/// `$more` or `$error`. A group whose first field merely has such a name (a
/// Parquet struct with a field `$hex` beside others) is a value, cut as
/// any object is.
fn placeholder_of(o: &serde_json::Map<String, serde_json::Value>) -> Option<&str> {
    let mut keys = o.keys().map(String::as_str);
    let first = keys.next()?;
    let second = keys.next();
    if keys.next().is_some() {
        return None;
    }
    let text = o.get(first).is_some_and(serde_json::Value::is_string);
    match (first, second) {
        ("$truncated", Some("bytes")) | ("$hex", Some("bytes") | None) if text => Some(first),
        ("$float" | "$literal" | "$bytes" | "$summary" | "$more" | "$error", None) => Some(first),
        _ => None,
    }
}

/// Cuts one value of a hit's row to about `cap` bytes (see
/// [`HIT_ROW_BYTES`]); whether it did. A placeholder other than
/// `$truncated` and `$hex` (a `$float`, a `$literal`) is kept whole:
/// its text is what the value is.
fn cut_value(v: &mut serde_json::Value, cap: usize) -> bool {
    use serde_json::{json, Value};
    // The text a placeholder keeps, so that the placeholder as a whole
    // takes about `cap` bytes.
    let kept = cap.saturating_sub(PLACEHOLDER_BYTES).max(16);
    let placeholder = match v {
        Value::Object(o) => placeholder_of(o).map(str::to_owned),
        _ => None,
    };
    *v = match (&mut *v, placeholder.as_deref()) {
        (Value::String(s), _) => json!({"$truncated": json_prefix(s, kept), "bytes": s.len()}),
        (Value::Object(o), Some("$truncated")) => {
            let Some(Value::String(text)) = o.get_mut("$truncated") else {
                return false;
            };
            *text = json_prefix(text, kept).to_owned();
            return true;
        }
        (Value::Object(o), Some("$hex")) => {
            let Some(Value::String(hex)) = o.get("$hex") else {
                return false;
            };
            // Whole bytes, two digits each; the length said in bytes.
            let bytes = o
                .get("bytes")
                .and_then(Value::as_u64)
                .unwrap_or(hex.len() as u64 / 2);
            let keep = hex[..(kept / 2 * 2).min(hex.len())].to_owned();
            json!({"$hex": keep, "bytes": bytes})
        }
        (Value::Object(_), Some(_)) => return false,
        (Value::Array(a), _) => {
            // A list already cut to its first members ends with
            // `{"$more": n}`, the count of the rest.
            let more = match a.last() {
                Some(Value::Object(o)) if placeholder_of(o) == Some("$more") => {
                    o.get("$more").and_then(Value::as_u64)
                }
                _ => None,
            };
            let members = match more {
                Some(n) => (a.len() as u64 - 1).saturating_add(n),
                None => a.len() as u64,
            };
            json!({"$summary": {"type": "array", "members": members}})
        }
        (Value::Object(o), None) => json!({"$summary": {"type": "object", "members": o.len()}}),
        // A number, a boolean or null is short: kept whole.
        _ => return false,
    };
    true
}

#[cfg(test)]
mod fit_tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn a_wide_row_of_long_text_fits_and_keeps_what_matched() {
        let long = "é".repeat(3000);
        let mut row = serde_json::Map::new();
        for i in 0..400 {
            let v = if i % 50 == 0 { json!(long) } else { json!(i) };
            row.insert(format!("c{i}"), v);
        }
        row.insert("tags".into(), json!((0..2000).collect::<Vec<_>>()));
        row.insert("c3".into(), json!({"$float": "NaN"}));
        row.insert(
            "c4".into(),
            json!({"$hex": "ab".repeat(3000), "bytes": 3000}),
        );
        let mut value = Value::Object(row);
        assert!(fit_hit_row(&mut value, Some(350)));
        let fitted = value.as_object().unwrap();
        // The first values, the matched one in place of the last, and
        // the count of the rest.
        assert_eq!(fitted.len(), HIT_ROW_VALUES + 1);
        assert!(fitted.contains_key("c350") && !fitted.contains_key("c255"));
        assert_eq!(fitted["$summary"], json!({"omitted_values": 145}));
        assert_eq!(fitted["c1"], json!(1));
        // Long text is cut at a character boundary and says its length.
        let cut = &fitted["c0"];
        assert_eq!(cut["bytes"], json!(long.len()));
        let kept = cut["$truncated"].as_str().unwrap();
        assert!(long.starts_with(kept) && kept.len() < long.len());
        assert_eq!(fitted["c350"]["bytes"], json!(long.len()));
        // A placeholder keeps its kind: a `$float` whole, a `$hex` cut
        // to whole bytes with its length.
        assert_eq!(fitted["c3"], json!({"$float": "NaN"}));
        let hex = fitted["c4"]["$hex"].as_str().unwrap();
        assert!(
            hex.len().is_multiple_of(2) && hex.len() < 6000 && "ab".repeat(3000).starts_with(hex)
        );
        assert_eq!(fitted["c4"]["bytes"], json!(3000));
        // The whole row is near the budget, not tens of KiB.
        let size = serde_json::to_string(&value).unwrap().len();
        assert!(size < HIT_ROW_BYTES + 1024, "{size}");
        // A row that fits is left as it is.
        let mut small = json!({"a": 1, "b": "two", "c": null});
        assert!(!fit_hit_row(&mut small, Some(1)));
        assert_eq!(small, json!({"a": 1, "b": "two", "c": null}));
    }

    #[test]
    fn a_value_shaped_only_partly_like_a_placeholder_is_cut_as_a_value() {
        let long = "y".repeat(6000);
        // A group whose first field is named `$hex`, beside another: a
        // value, summarized as an object; a lone `$hex` of text is
        // plumb's and keeps its kind.
        let mut row = json!({
            "group": {"$hex": "ab", "other": long},
            "named": {"$truncated": 5, "bytes": 6},
            "bytes": {"$hex": "cd".repeat(3000)},
        });
        assert!(fit_row_to_bytes(&mut row, 1024));
        assert_eq!(
            row["group"],
            json!({"$summary": {"type": "object", "members": 2}})
        );
        let hex = row["bytes"]["$hex"].as_str().unwrap();
        assert!(hex.len() < 6000 && "cd".repeat(3000).starts_with(hex));
        // Short: left as it is whatever its keys.
        assert_eq!(row["named"], json!({"$truncated": 5, "bytes": 6}));
    }

    #[test]
    fn a_column_named_summary_is_never_overwritten_by_the_count() {
        let wide = |at: usize| {
            let mut row = serde_json::Map::new();
            for i in 0..300 {
                let name = if i == at {
                    "$summary".to_owned()
                } else {
                    format!("c{i}")
                };
                row.insert(name, json!(i));
            }
            Value::Object(row)
        };
        // Among the first values: left out with the rest and counted.
        let mut row = wide(3);
        assert!(fit_hit_row(&mut row, Some(299)));
        let fitted = row.as_object().unwrap();
        assert_eq!(fitted["$summary"], json!({"omitted_values": 45}));
        assert_eq!(fitted["c299"], json!(299));
        assert_eq!(fitted.len(), HIT_ROW_VALUES);
        // The one that matched: kept as it is, with no count beside it.
        let mut row = wide(280);
        assert!(fit_hit_row(&mut row, Some(280)));
        let fitted = row.as_object().unwrap();
        assert_eq!(fitted["$summary"], json!(280));
        assert_eq!(fitted.len(), HIT_ROW_VALUES);
    }

    #[test]
    fn fitting_to_bytes_keeps_every_value() {
        let mut row = serde_json::Map::new();
        for i in 0..400 {
            row.insert(format!("c{i}"), json!("z".repeat(500)));
        }
        let mut value = Value::Object(row);
        assert!(fit_row_to_bytes(&mut value, 64 * 1024));
        let fitted = value.as_object().unwrap();
        assert_eq!(fitted.len(), 400);
        assert!(!fitted.contains_key("$summary"));
        for v in fitted.values() {
            assert_eq!(v["bytes"], json!(500));
        }
        let size = serde_json::to_string(&value).unwrap().len();
        assert!(size <= 64 * 1024, "{size}");
        // Text that JSON escapes (six bytes a control character) is cut
        // by its escaped size, whole characters kept.
        let mut row = serde_json::Map::new();
        for i in 0..100 {
            row.insert(format!("e{i}"), json!("\u{1}é\"".repeat(300)));
        }
        let mut value = Value::Object(row);
        assert!(fit_row_to_bytes(&mut value, 16 * 1024));
        let size = serde_json::to_string(&value).unwrap().len();
        assert!(size <= 16 * 1024, "{size}");
        let kept = value["e0"]["$truncated"].as_str().unwrap();
        assert!(!kept.is_empty() && "\u{1}é\"".repeat(300).starts_with(kept));
        // A list cut to its first members before (a `$more` last) is
        // summarized by all of them.
        let mut first: Vec<Value> = (0..1000).map(|i| json!(format!("{i:0>40}"))).collect();
        first.push(json!({"$more": 19_000}));
        let mut row = json!({"id": 1, "list": first});
        assert!(fit_row_to_bytes(&mut row, 4096));
        assert_eq!(
            row["list"],
            json!({"$summary": {"type": "array", "members": 20_000}})
        );
    }
}
