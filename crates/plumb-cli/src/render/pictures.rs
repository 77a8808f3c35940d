//! Pictures where people would rather look than read: a column's
//! distribution as a sparkline from its quantiles, and its most common
//! values as bars with their counts. Plain characters, so `--color
//! never` and a pipe get the same picture without escapes.

use serde_json::Value;

use super::{word, Cell, Grid, Look, Paint};

/// Top values a column shows as bars.
const TOP_BARS: usize = 5;

/// The widest a top value's bar is.
const TOP_BAR_MAX: usize = 24;

/// The most common values of each column as bars, as xan's `hist` draws
/// them: each value, a bar scaled to the column's largest count, solid
/// (`█`) as far as the count it surely has and light (`░`) over what the
/// sketch's bound adds, and its count (`608–611` where the sketch bounds
/// it). Columns where no value surely repeats are left out.
pub(super) fn top_bars(items: &[Value], name_key: &str, look: &Look) -> String {
    let bar_max = look
        .width
        .map_or(TOP_BAR_MAX, |w| (w / 4).clamp(4, TOP_BAR_MAX));
    let mut grid = Grid::new(&["column", "value", "", "count"]);
    grid.flex = vec![1];
    for item in items {
        let tops = item["stats"]["top"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let counted: Vec<(&Value, u64, u64)> = tops
            .iter()
            .take(TOP_BARS)
            .filter_map(|t| {
                let count = t["count"].as_u64()?;
                let least = t["at_least"].as_u64().unwrap_or(count);
                (least > 1).then_some((t, least, count))
            })
            .collect();
        let Some(most) = counted.iter().map(|c| c.2).max() else {
            continue;
        };
        let name = match &item[name_key] {
            Value::String(n) => n.clone(),
            _ => word(&item["index"]),
        };
        for (k, (t, least, count)) in counted.iter().enumerate() {
            let scale = |n: u64| ((n as f64 / most as f64) * bar_max as f64).round() as usize;
            let solid = scale(*least).max(1);
            let light = scale(*count).saturating_sub(solid);
            let more = if t["bytes"].is_u64() { "…" } else { "" };
            let figure = if least == count {
                count.to_string()
            } else {
                format!("{least}–{count}")
            };
            grid.rows.push(vec![
                Cell::new(if k == 0 { name.as_str() } else { "" }, Paint::Bold),
                Cell::plain(format!("{}{more}", word(&t["value"]))),
                Cell::new(
                    format!("{}{}", "█".repeat(solid), "░".repeat(light)),
                    Paint::Number,
                ),
                Cell::number(figure),
            ]);
        }
    }
    if grid.rows.is_empty() {
        return String::new();
    }
    format!(
        "\n{}\n{}",
        look.heading("top values"),
        grid.layout(look, false)
    )
}

/// Bars a sparkline is drawn with, lowest first.
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// How many bars a sparkline has.
pub(super) const SPARK_BINS: usize = 8;

/// The shape of a column's numbers between its 1st and 99th percentile,
/// as [`SPARK_BINS`] bars of equal width in value, each as tall as the
/// share of values in it: the quantiles (`p1` … `p99`) read as a
/// piecewise-linear distribution. Empty when there are no quantiles or
/// no spread.
pub(super) fn sparkline(q: &Value) -> String {
    // `p25` is the value a quarter of the values are at or below.
    let mut points: Vec<(f64, f64)> = q
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(name, x)| {
            let rank: f64 = name.strip_prefix('p')?.parse().ok()?;
            Some((rank / 100.0, x.as_f64()?))
        })
        .filter(|(p, x)| x.is_finite() && (0.0..=1.0).contains(p))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (Some(&(p0, lo)), Some(&(_, hi))) = (points.first(), points.last()) else {
        return String::new();
    };
    if points.len() < 2 || hi <= lo {
        return String::new();
    }
    // The share of values at or below `x`.
    let cdf = |x: f64| -> f64 {
        let Some(i) = points.iter().rposition(|(_, px)| *px <= x) else {
            return p0;
        };
        match points.get(i + 1) {
            Some(&(p1, x1)) if x1 > points[i].1 => {
                let (pa, xa) = points[i];
                pa + (p1 - pa) * (x - xa) / (x1 - xa)
            }
            _ => points[i].0,
        }
    };
    let step = (hi - lo) / SPARK_BINS as f64;
    let mass: Vec<f64> = (0..SPARK_BINS)
        .map(|k| {
            let a = lo + step * k as f64;
            let b = if k + 1 == SPARK_BINS { hi } else { a + step };
            let below = if k == 0 { p0 } else { cdf(a) };
            (cdf(b) - below).max(0.0)
        })
        .collect();
    let top = mass.iter().copied().fold(0.0, f64::max);
    if top <= 0.0 {
        return String::new();
    }
    mass.iter()
        .map(|m| {
            let level = ((m / top) * (BARS.len() - 1) as f64).round() as usize;
            BARS[level.min(BARS.len() - 1)]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_sparkline_draws_the_share_of_values_along_the_range() {
        // Uniform on [1, 99]: every bar as tall as the others.
        let uniform =
            json!({"p1": 1, "p5": 5, "p25": 25, "p50": 50, "p75": 75, "p95": 95, "p99": 99});
        assert_eq!(sparkline(&uniform), "█".repeat(SPARK_BINS));
        // Most values low, a long tail: the first bar the tallest, the
        // last the lowest.
        let skewed = json!({"p1": 0, "p5": 1, "p25": 2, "p50": 4, "p75": 8, "p95": 30, "p99": 100});
        let bars: Vec<char> = sparkline(&skewed).chars().collect();
        assert_eq!(bars.len(), SPARK_BINS);
        assert_eq!(bars[0], '█');
        assert_eq!(bars[SPARK_BINS - 1], '▁');
        assert!(bars.windows(2).all(|w| w[0] >= w[1]), "{bars:?}");
        // No spread, no quantiles: nothing drawn, never a made-up shape.
        let constant = json!({"p1": 7, "p5": 7, "p25": 7, "p50": 7, "p75": 7, "p95": 7, "p99": 7});
        assert_eq!(sparkline(&constant), "");
        assert_eq!(sparkline(&json!(null)), "");
        assert_eq!(sparkline(&json!({"p50": 3})), "");
    }
}
