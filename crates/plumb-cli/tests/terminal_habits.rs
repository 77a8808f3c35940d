//! The habits of the output for a person, on files of its own: figures
//! never cut at 80 and 120 columns, top values with the counts they
//! surely have, a text search as `grep -n` prints it (held to GNU grep),
//! JSON Lines windows to the width, and the statistics' pictures.
//! (`terminal.rs` holds the snapshots and the real-terminal tests.)

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::{assert_fits, plumb};

/// A CSV of large figures (ten-digit ids, amounts past a billion, long
/// fractions) and text without digits, the same on every run.
fn figures(dir: &Path) -> PathBuf {
    let mut text = String::from("id,amount,price,label\n");
    let mut x: u64 = 11;
    for i in 0..3000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let amount = (x >> 20) as i64 % 20_000_000_000 - 1_000_000_000;
        let price = (x >> 30) % 100_000_000;
        let label = ["alpha", "beta", "gamma", "delta"][(x >> 60) as usize % 4];
        text.push_str(&format!(
            "{},{amount},{}.{:04},{label}\n",
            1_000_000_000 + i,
            price / 100,
            price % 10_000
        ));
    }
    let path = dir.join("figures.csv");
    std::fs::write(&path, text).unwrap();
    path
}

/// No figure loses a digit at 80 or 120 columns: each is shown whole,
/// or rounded and marked `~` (an estimate keeps its `≈`), never cut
/// with an ellipsis; every line keeps to the width.
#[test]
fn no_digit_of_a_figure_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let file = figures(dir.path());
    let file = file.to_str().unwrap();
    for width in ["80", "120"] {
        for args in [
            vec!["inspect", file, "--width", width],
            vec!["inspect", "--stats", file, "--width", width],
            vec!["select", file, "--width", width, "--limit", "5"],
        ] {
            let out = plumb(&args);
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            let text = String::from_utf8(out.stdout).unwrap();
            assert_fits(&text, width.parse().unwrap(), &format!("{args:?}"));
            for line in text.lines() {
                let cut = line
                    .char_indices()
                    .filter(|&(_, c)| c == '…')
                    .any(|(i, _)| line[..i].ends_with(|c: char| c.is_ascii_digit()));
                assert!(!cut, "{args:?}: a figure cut: {line}");
            }
            if args.contains(&"--stats") {
                // The exact figures of --json are there, whole or rounded.
                let json = plumb(&[&args[..3], &["--json"]].concat());
                let v: Value = serde_json::from_slice(&json.stdout).unwrap();
                for c in v["columns"].as_array().unwrap() {
                    let count = c["stats"]["count"].to_string();
                    assert!(text.contains(&count), "{args:?}: count {count}");
                    if let Some(max) = c["max"].as_i64() {
                        let whole = text.contains(&max.to_string());
                        let rounded = text.contains('~');
                        assert!(whole || rounded, "{args:?}: max {max}");
                    }
                }
            }
        }
    }
}

/// The top value's count is the count it surely has: a column of
/// unique ids shows no count at all (not the sketch's bound), and JSON
/// carries the guaranteed count beside the bound.
#[test]
fn top_values_show_only_guaranteed_counts() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("id,kind\n");
    for i in 0..50_000u64 {
        text.push_str(&format!(
            "{},{}\n",
            7_000_000 + i,
            ["a", "b"][(i % 2) as usize]
        ));
    }
    let path = dir.path().join("ids.csv");
    std::fs::write(&path, text).unwrap();
    let file = path.to_str().unwrap();
    let json = plumb(&["inspect", "--stats", file, "--json"]);
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    for c in v["columns"].as_array().unwrap() {
        for t in c["stats"]["top"].as_array().unwrap() {
            let (count, over) = (
                t["count"].as_u64().unwrap(),
                t["overcount"].as_u64().unwrap_or(0),
            );
            assert_eq!(t["at_least"].as_u64(), Some(count - over), "{t}");
        }
    }
    let top_id = &v["columns"][0]["stats"]["top"][0];
    let shown = plumb(&["inspect", "--stats", file, "--width", "120"]);
    let shown = String::from_utf8(shown.stdout).unwrap();
    let id_line = shown
        .lines()
        .find(|l| l.starts_with("id ") && l.contains("50000"))
        .unwrap_or_else(|| panic!("no statistics line for id:\n{shown}"));
    if top_id["at_least"].as_u64().unwrap_or(0) <= 1 {
        assert!(
            !id_line.contains('×'),
            "a bound shown as a count: {id_line}"
        );
    }
    let kind_line = shown
        .lines()
        .find(|l| l.starts_with("kind "))
        .unwrap_or_else(|| panic!("no statistics line for kind:\n{shown}"));
    assert!(kind_line.contains("×25000"), "{kind_line}");
}

/// A text search with context prints what `grep -n -C N` prints: each
/// line once, `--` between groups that do not touch; `-c` prints the
/// count alone, as `grep -c` does.
#[test]
fn search_prints_as_grep_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..200u64 {
        let word = if i % 7 == 0 || i % 11 == 0 {
            "needle"
        } else {
            "hay"
        };
        text.push_str(&format!("{word} {i}\n"));
    }
    let path = dir.path().join("stack.txt");
    std::fs::write(&path, &text).unwrap();
    let file = path.to_str().unwrap();
    let grep = |args: &[&str]| {
        Command::new("grep")
            .args(args)
            .arg(file)
            .output()
            .ok()
            .filter(|o| o.status.code() == Some(0))
    };
    for context in ["0", "1", "2", "3"] {
        let ours = plumb(&["search", file, "needle", "-C", context, "--limit", "1000"]);
        let ours = String::from_utf8(ours.stdout).unwrap();
        let lines: Vec<&str> = ours.lines().collect();
        // plumb counts lines from 1, as grep -n does.
        // GNU grep given `-C 0` still separates groups; without context
        // asked for, neither tool does.
        let asked: &[&str] = if context == "0" {
            &[]
        } else {
            &["-C", context]
        };
        let Some(theirs) = grep(&[&["-n"], asked, &["needle"]].concat()) else {
            eprintln!("note: no grep here; the merge is checked by its own rules only");
            let numbers: Vec<u64> = lines
                .iter()
                .filter(|l| **l != "--")
                .map(|l| l.split([':', '-']).next().unwrap().parse().unwrap())
                .collect();
            assert!(
                numbers.windows(2).all(|w| w[0] < w[1]),
                "a line printed twice"
            );
            continue;
        };
        assert_eq!(
            ours,
            String::from_utf8(theirs.stdout).unwrap(),
            "-C {context}"
        );
    }
    let count = plumb(&["search", file, "needle", "-c"]);
    let count = String::from_utf8(count.stdout).unwrap();
    let expected = text.lines().filter(|l| l.contains("needle")).count();
    assert_eq!(count, format!("{expected}\n"));
}

/// A window of JSON Lines uses the width (a record is not cut at 40
/// characters), shows an invalid line's error where its value would be,
/// and honours `--vertical` with one field per line.
#[test]
fn json_lines_windows_use_the_width_and_show_errors() {
    let dir = tempfile::tempdir().unwrap();
    let long = "a value that goes on past forty characters, and on";
    let text = format!("{{\"id\": 1, \"note\": \"{long}\"}}\n{{\"broken\n{{\"id\": 3}}\n");
    let path = dir.path().join("log.jsonl");
    std::fs::write(&path, text).unwrap();
    let file = path.to_str().unwrap();
    let out = plumb(&["select", file, "--width", "120"]);
    let shown = String::from_utf8(out.stdout).unwrap();
    assert_fits(&shown, 120, "jsonl select");
    assert!(
        shown.contains(long),
        "the record is cut at 120 columns:\n{shown}"
    );
    let error_line = shown.lines().find(|l| l.starts_with("2 ")).unwrap();
    assert!(
        error_line.contains("error: unterminated string"),
        "{error_line}"
    );
    let narrow = plumb(&["select", file, "--width", "60"]);
    assert_fits(
        &String::from_utf8(narrow.stdout).unwrap(),
        60,
        "jsonl select at 60",
    );
    let vertical = plumb(&["select", file, "--width", "120", "--vertical"]);
    let vertical = String::from_utf8(vertical.stdout).unwrap();
    assert!(vertical.contains("── line 1"), "{vertical}");
    assert!(
        vertical
            .lines()
            .any(|l| l.starts_with("note") && l.contains(long)),
        "{vertical}"
    );
    assert!(vertical
        .lines()
        .any(|l| l.starts_with("id") && l.ends_with('3')));
}

/// With statistics, each numeric column's distribution is drawn from its
/// quantiles, and the most common values as bars with the counts the
/// JSON gives; with colour off, no escape is written.
#[test]
fn statistics_draw_shapes_and_top_value_bars() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("wait,colour\n");
    for i in 0..5000u64 {
        // Mostly short waits, a long tail.
        let wait = (i * i) % 97 * (i % 13 + 1) / 13 + (i % 5);
        let colour = ["red", "red", "red", "green", "blue"][(i % 5) as usize];
        text.push_str(&format!("{wait},{colour}\n"));
    }
    let path = dir.path().join("waits.csv");
    std::fs::write(&path, text).unwrap();
    let file = path.to_str().unwrap();
    let out = plumb(&[
        "inspect", "--stats", file, "--width", "120", "--color", "never",
    ]);
    let shown = String::from_utf8(out.stdout).unwrap();
    assert!(!shown.contains('\x1b'));
    assert_fits(&shown, 120, "inspect --stats");
    let wait_line = shown
        .lines()
        .find(|l| l.starts_with("wait ") && l.contains("5000"))
        .unwrap_or_else(|| panic!("{shown}"));
    let bars = wait_line
        .chars()
        .filter(|c| ('▁'..='█').contains(c))
        .count();
    assert_eq!(bars, 8, "{wait_line}");
    let tops = shown
        .lines()
        .skip_while(|l| *l != "top values")
        .collect::<Vec<_>>();
    let red = tops
        .iter()
        .find(|l| l.contains(" red "))
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(
        red.contains('█') && red.trim_end().ends_with("3000"),
        "{red}"
    );
    let blue = tops.iter().find(|l| l.contains(" blue ")).unwrap();
    assert!(blue.trim_end().ends_with("1000"), "{blue}");
    let red_bar = red.chars().filter(|c| *c == '█').count();
    let blue_bar = blue.chars().filter(|c| *c == '█').count();
    assert!(
        red_bar > 2 * blue_bar,
        "bars scale with counts: {red} / {blue}"
    );
}

/// Each format's validate names its fault on the terminal, whatever the
/// reader calls the field that holds it: the message `--json` gives is
/// shown (wrapped, so compared word by word).
#[test]
fn validate_shows_the_fault_of_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("cut.json", "{\"a\": [1, 2"),
        ("bad.jsonl", "{\"a\": 1}\n{x}\n"),
        ("ragged.csv", "a,b\n1,2\n\"open,3\n"),
    ];
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let p = path.to_str().unwrap();
        let json: Value =
            serde_json::from_slice(&plumb(&["validate", p, "--json"]).stdout).unwrap();
        assert_eq!(json["valid"], false, "{name}");
        let message = ["syntax_error", "first_invalid", "issues"]
            .iter()
            .find_map(|k| {
                let v = &json[*k];
                v["message"].as_str().or_else(|| v[0]["message"].as_str())
            })
            .unwrap_or_else(|| panic!("{name}: no message in {json}"));
        for width in ["80", "120"] {
            let out = plumb(&["validate", p, "--width", width]);
            assert_eq!(out.status.code(), Some(1), "{name}");
            let shown = String::from_utf8(out.stdout).unwrap();
            let words: Vec<&str> = shown.split_whitespace().collect();
            let wanted: Vec<&str> = message.split_whitespace().collect();
            assert!(
                words.windows(wanted.len()).any(|w| w == wanted.as_slice()),
                "{name} at {width}: {message:?} not in\n{shown}"
            );
            assert_fits(&shown, width.parse().unwrap(), name);
        }
    }
}

/// A window of a JSON array's elements is a table of its places and
/// values, to the width, with where it sits.
#[test]
fn json_windows_show_each_element_by_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("list.json");
    let items: Vec<String> = (0..50)
        .map(|i| format!("{{\"n\": {i}, \"pad\": \"{}\"}}", "x".repeat(i)))
        .collect();
    std::fs::write(&path, format!("[{}]", items.join(", "))).unwrap();
    let p = path.to_str().unwrap();
    let out = plumb(&[
        "select", p, "--offset", "40", "--limit", "3", "--width", "80",
    ]);
    let shown = String::from_utf8(out.stdout).unwrap();
    assert_fits(&shown, 80, "json window");
    for i in 40..43 {
        let row = shown
            .lines()
            .find(|l| l.starts_with(&format!("{i} ")))
            .unwrap_or_else(|| panic!("no element {i} in\n{shown}"));
        assert!(row.contains(&format!("{{\"n\":{i},")), "{row}");
    }
    assert!(shown.contains("elements 40–42; more follow"), "{shown}");
}

/// A date column's shape is drawn along time from its date quantiles:
/// most dates early, a long tail, so the first bar is the tallest and
/// the last the lowest; its quartiles show as the dates `--json` gives.
#[test]
fn a_date_column_draws_its_shape_along_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("day\n");
    for i in 0..3000u64 {
        // Days from 2024-01-01 bunched at the start: i*i scaled down.
        let offset = i * i / 30_000;
        let (month, day) = (offset / 28 + 1, offset % 28 + 1);
        text.push_str(&format!("2024-{month:02}-{day:02}\n"));
    }
    let path = dir.path().join("days.csv");
    std::fs::write(&path, text).unwrap();
    let file = path.to_str().unwrap();
    let out = plumb(&["inspect", "--stats", file, "--width", "120"]);
    let shown = String::from_utf8(out.stdout).unwrap();
    let line = shown
        .lines()
        .find(|l| l.starts_with("day ") && l.contains("3000"))
        .unwrap_or_else(|| panic!("{shown}"));
    let bars: Vec<char> = line.chars().filter(|c| ('▁'..='█').contains(c)).collect();
    assert_eq!(bars.len(), 8, "{line}");
    assert_eq!(bars[0], '█', "{line}");
    assert!(bars[7] < bars[0], "{line}");
    let json: Value =
        serde_json::from_slice(&plumb(&["inspect", "--stats", file, "--json"]).stdout).unwrap();
    let q = &json["columns"][0]["stats"]["dates"]["quantiles"];
    for p in ["p25", "p50", "p75"] {
        let day = q[p].as_str().unwrap_or_else(|| panic!("{q}"));
        assert!(line.contains(day), "{p} {day} in {line}");
    }
}
