//! Answers whose statistics were merged from parts of a file (a scan on
//! several threads) against the one-thread answer: everything outside
//! the statistics must be equal, every figure labelled `exact` must be
//! equal, and every estimate must carry the same method on both sides.
//! How far an estimate may stray is each caller's to check against a
//! truth it knows (see [`check_all_distinct`]).

use serde_json::Value;

/// The figure of a statistics object that `name` in its `accuracy` map
/// labels.
fn figure(stats: &Value, name: &str) -> Value {
    let text = &stats["text"];
    match name {
        "sum" | "mean" | "stddev" | "quantiles" => stats["numbers"][name].clone(),
        "text_range" => serde_json::json!([text["min"], text["max"]]),
        "text_length" => serde_json::json!([
            text["min_length"],
            text["max_length"],
            text["mean_length"],
            text["count"]
        ]),
        other => stats[other].clone(),
    }
}

/// The method of an accuracy label: `exact`, or the estimate's method.
fn label(accuracy: &Value) -> &str {
    accuracy
        .as_str()
        .or_else(|| accuracy["estimate"].as_str())
        .unwrap_or("unlabelled")
}

/// Compares `got` (merged from parts) with `one` (one thread) as the
/// module says. Returns how many exact figures were compared, or where
/// the two differ.
///
/// # Errors
/// The path of the first difference, and both sides there.
pub fn stats_agree(got: &Value, one: &Value) -> Result<usize, String> {
    let mut compared = 0;
    // (got, one, where): a test's answers are shallow, but a work list
    // keeps this free of recursion all the same.
    let mut work = vec![(got, one, String::new())];
    while let Some((g, o, at)) = work.pop() {
        let differ = || Err(format!("at {at}: {g} against {o}"));
        match (g, o) {
            (Value::Object(gm), Value::Object(om)) if om.contains_key("accuracy") => {
                let (ga, oa) = (&g["accuracy"], &o["accuracy"]);
                let names =
                    |a: &Value| a.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>());
                if names(ga) != names(oa) || gm.len() != om.len() {
                    return differ();
                }
                for (name, acc) in oa.as_object().into_iter().flatten() {
                    if label(&ga[name]) != label(acc) {
                        return Err(format!("at {at}: {name} is {} against {}", ga[name], acc));
                    }
                    if label(acc) == "exact" {
                        compared += 1;
                        if figure(g, name) != figure(o, name) {
                            return Err(format!(
                                "at {at}: exact {name} {} against {}",
                                figure(g, name),
                                figure(o, name)
                            ));
                        }
                    }
                }
            }
            (Value::Object(gm), Value::Object(om)) => {
                if !gm.keys().eq(om.keys()) {
                    return differ();
                }
                for (k, ov) in om {
                    work.push((&gm[k], ov, format!("{at}/{k}")));
                }
            }
            (Value::Array(ga), Value::Array(oa)) => {
                if ga.len() != oa.len() {
                    return differ();
                }
                for (i, (gv, ov)) in ga.iter().zip(oa).enumerate() {
                    work.push((gv, ov, format!("{at}/{i}")));
                }
            }
            _ if g != o => return differ(),
            _ => {}
        }
    }
    Ok(compared)
}

/// Checks a statistics object of the integers `0..n`, each once (in any
/// order), against that truth: the count and mean exactly, the distinct
/// count within its 99.7% bound, every top count within its stated
/// overcount of 1, every quantile within its rank error.
///
/// # Errors
/// The first figure out of its bound.
pub fn check_all_distinct(stats: &Value, n: u64) -> Result<(), String> {
    let acc = &stats["accuracy"];
    let nf = n as f64;
    if stats["count"] != n || stats["numbers"]["mean"] != (nf - 1.0) / 2.0 {
        return Err(format!("count or mean: {stats}"));
    }
    let distinct = stats["distinct"].as_f64().unwrap_or(f64::NAN);
    let bound = acc["distinct"]["bound_99_7"].as_f64().unwrap_or(0.0);
    if (distinct - nf).abs() / nf > bound {
        return Err(format!("distinct {distinct} of {n}, bound {bound}"));
    }
    let max_over = acc["top"]["max_overcount"].as_f64().unwrap_or(0.0);
    for t in stats["top"].as_array().into_iter().flatten() {
        let count = t["count"].as_u64().unwrap_or(0);
        let over = t["overcount"].as_u64().unwrap_or(0);
        if count == 0 || count - 1 > over || over as f64 > max_over {
            return Err(format!("top value {t}, most overcount {max_over}"));
        }
    }
    let rank_error = acc["quantiles"]["rank_error"].as_f64().unwrap_or(0.0);
    let quantiles = &stats["numbers"]["quantiles"];
    for (name, q) in [
        ("p1", 0.01),
        ("p5", 0.05),
        ("p25", 0.25),
        ("p50", 0.5),
        ("p75", 0.75),
        ("p95", 0.95),
        ("p99", 0.99),
    ] {
        // Value v has rank v + 1; the nearest rank of q is ceil(q n).
        let want = (q * nf).ceil() - 1.0;
        let got = quantiles[name].as_f64().unwrap_or(f64::NAN);
        if (got - want).abs() / nf > rank_error || got.is_nan() {
            return Err(format!(
                "{name} {got} against {want}, rank error {rank_error}"
            ));
        }
    }
    Ok(())
}
