//! Every op on every format for a person, at 80 and 120 columns: the
//! sample CSV, Parquet file and workbook and a JSON and JSON Lines file
//! of their own, each laid out within the width with no digit of a
//! figure cut; snapshots (insta) of each; the same text in a real
//! terminal of 80x24 and 120x40 under tmux; every hit of a search paged
//! as grep prints them; and the progress bar's bytes rising on a split
//! scan.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use unicode_width::UnicodeWidthStr;

mod common;
use common::{bin, plumb, strip_escapes, Tmux};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data")
        .join(name)
}

/// Records of people with figures past what a double holds, long
/// fractions, dates and nested lists, the same on every run.
fn records() -> Vec<String> {
    (0..30u64)
        .map(|i| {
            let name = if i % 7 == 3 { "Ann Lee" } else { "Bo Chen" };
            format!(
                "{{\"id\": {}, \"name\": \"{name} {i}\", \"balance\": {}.{:04}, \
                 \"joined\": \"2024-{:02}-{:02}\", \"tags\": [\"t{}\", \"u{}\"], \
                 \"address\": {{\"city\": \"Lyon\", \"zip\": \"{:05}\"}}}}",
                9_007_199_254_740_993u64 + i * 1_000_003,
                1_000_000_000 + i * 987_654_321,
                (i * 37) % 10_000,
                i % 12 + 1,
                i % 28 + 1,
                i % 3,
                i % 5,
                69_000 + i
            )
        })
        .collect()
}

/// The files of every format, by name.
fn files(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let json = dir.join("people.json");
    std::fs::write(&json, format!("[\n{}\n]\n", records().join(",\n"))).unwrap();
    let jsonl = dir.join("people.jsonl");
    std::fs::write(&jsonl, records().join("\n") + "\n").unwrap();
    vec![
        ("csv", data("people.csv")),
        ("json", json),
        ("jsonl", jsonl),
        ("parquet", data("people.parquet")),
        ("xlsx", data("people.xlsx")),
    ]
}

/// Whether a format takes an op (a workbook has no statistics).
fn takes(format: &str, op: &str) -> bool {
    !(format == "xlsx" && op == "stats")
}

/// Every op as a person runs it.
const OPS: [(&str, &[&str]); 5] = [
    ("inspect", &["inspect"]),
    ("stats", &["inspect", "--stats"]),
    ("select", &["select", "--limit", "5"]),
    ("validate", &["validate"]),
    ("search", &["search", "Lee", "--limit", "5"]),
];

fn args<'a>(op: &[&'a str], file: &'a str) -> Vec<&'a str> {
    let mut v = vec![op[0], file];
    v.extend(&op[1..]);
    v
}

/// No line wider than `width`; no figure cut (a digit right before `…`).
fn assert_readable(text: &str, width: usize, what: &str) {
    for line in text.lines() {
        assert!(
            UnicodeWidthStr::width(line) <= width,
            "{what}: a line of {} columns at width {width}: {line:?}",
            UnicodeWidthStr::width(line)
        );
        let chars: Vec<char> = line.chars().collect();
        assert!(
            !chars
                .windows(2)
                .any(|w| w[0].is_ascii_digit() && w[1] == '…'),
            "{what}: a figure cut at width {width}: {line:?}"
        );
    }
}

/// The whole count an inspect answers, as its JSON gives it.
fn count_of(json: &Value) -> u64 {
    ["row_count", "rows", "count", "rows_scanned"]
        .iter()
        .find_map(|k| json[*k].as_u64())
        .or_else(|| json["sheets"][0]["data_rows"].as_u64())
        .unwrap_or_else(|| panic!("no count in {json}"))
}

#[test]
fn every_op_on_every_format_fits_and_keeps_its_figures() {
    let dir = tempfile::tempdir().unwrap();
    for (format, path) in files(dir.path()) {
        let file = path.to_str().unwrap();
        let json: Value =
            serde_json::from_slice(&plumb(&["inspect", file, "--json"]).stdout).unwrap();
        let count = count_of(&json).to_string();
        for width in [80usize, 120] {
            let w = width.to_string();
            for (name, op) in OPS.into_iter().filter(|(n, _)| takes(format, n)) {
                let mut a = args(op, file);
                a.extend(["--width", &w]);
                let out = plumb(&a);
                assert_eq!(out.status.code(), Some(0), "{format} {name}: {out:?}");
                let text = String::from_utf8(out.stdout).unwrap();
                let what = format!("{format} {name}");
                assert_readable(&text, width, &what);
                if op[0] == "inspect" {
                    let words: Vec<&str> = text
                        .split(|c: char| !c.is_ascii_digit() && c != '.')
                        .collect();
                    assert!(
                        words.contains(&count.as_str()),
                        "{what}: {count} in\n{text}"
                    );
                }
                if name == "search" {
                    assert!(text.contains("Lee"), "{what}:\n{text}");
                }
                let shown = text
                    .replace(dir.path().to_str().unwrap(), "[TMP]")
                    .replace(data("").to_str().unwrap(), "[DATA]/");
                insta::assert_snapshot!(format!("{format}_{name}_{width}"), shown);
            }
        }
    }
}

/// In a real terminal of 80x24 and of 120x40 each op shows what
/// `--width` shows at that width: the terminal's width is found, and the
/// text keeps within it.
#[test]
fn in_a_real_terminal_every_op_keeps_to_its_width() {
    if !Tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let files = files(dir.path());
    for (width, height) in [(80u16, 24u16), (120, 40)] {
        let mut script = Vec::new();
        let mut expected = Vec::new();
        for (format, path) in &files {
            let file = path.to_str().unwrap();
            for (name, op) in OPS.into_iter().filter(|(n, _)| takes(format, n)) {
                let label = format!("@@ {format} {name}");
                let a = args(op, file);
                script.push(format!(
                    "echo '{label}'; {} {} --no-pager",
                    bin(),
                    a.join(" ")
                ));
                let mut given = a.clone();
                let w = width.to_string();
                given.extend(["--width", &w]);
                let text = String::from_utf8(plumb(&given).stdout).unwrap();
                expected.push((label, text));
            }
        }
        let t = Tmux::start(width, height, &script.join("; "), &[("NO_COLOR", "1")]);
        t.wait_for("__DONE__");
        let history = strip_escapes(&t.history());
        for (i, (label, text)) in expected.iter().enumerate() {
            let start = history
                .find(&format!("{label}\n"))
                .unwrap_or_else(|| panic!("{label} not shown:\n{history}"))
                + label.len()
                + 1;
            let end = expected
                .get(i + 1)
                .and_then(|(next, _)| history[start..].find(&format!("{next}\n")))
                .map_or_else(
                    || history[start..].find("__DONE__").unwrap() + start,
                    |e| e + start,
                );
            let shown = &history[start..end];
            assert_readable(shown, usize::from(width), label);
            let trim =
                |s: &str| -> Vec<String> { s.lines().map(|l| l.trim_end().to_owned()).collect() };
            assert_eq!(trim(shown), trim(text), "{label} at {width}x{height}");
        }
    }
}

/// On a terminal a search shows every hit, a page of hits at a time
/// through the pager: the lines GNU grep prints, context merged across
/// the pages' seams; and every hit of a table, its total the whole
/// search's.
#[test]
fn on_a_terminal_every_hit_is_paged() {
    if !Tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text_path = dir.path().join("log.txt");
    // Hits closer than the context, so groups run across the seams
    // between pages of 1,000 hits.
    let text: String = (0..9_000)
        .map(|i| {
            if i % 3 == 0 || i % 1000 == 1 {
                format!("needle {i}\n")
            } else {
                format!("hay {i}\n")
            }
        })
        .collect();
    std::fs::write(&text_path, &text).unwrap();
    let csv = dir.path().join("rows.csv");
    let rows: String = (0..5_000)
        .map(|i| format!("{i},{}\n", if i % 2 == 0 { "needle" } else { "hay" }))
        .collect();
    std::fs::write(&csv, format!("id,word\n{rows}")).unwrap();
    for (name, extra, grep_args) in [
        ("plain", "", vec!["-n", "needle"]),
        ("context", "-C 2", vec!["-n", "-C", "2", "needle"]),
    ] {
        let out = dir.path().join(format!("{name}.out"));
        let pager = format!("cat > '{}'", out.display());
        let cmd = format!(
            "{} search {} needle {extra} 2>{}/{name}.err",
            bin(),
            text_path.display(),
            dir.path().display()
        );
        let t = Tmux::start(100, 30, &cmd, &[("PAGER", &pager), ("NO_COLOR", "1")]);
        t.wait_for("__DONE__");
        let grep = Command::new("grep")
            .args(&grep_args)
            .arg(&text_path)
            .output()
            .unwrap();
        let paged = std::fs::read_to_string(&out).unwrap();
        assert_eq!(paged, String::from_utf8(grep.stdout).unwrap(), "{name}");
        let err = std::fs::read_to_string(dir.path().join(format!("{name}.err"))).unwrap();
        let hits = text.lines().filter(|l| l.starts_with("needle")).count();
        assert!(err.contains(&format!("{hits} matching lines")), "{err}");
    }
    let out = dir.path().join("table.out");
    let pager = format!("cat > '{}'", out.display());
    let cmd = format!("{} search {} needle", bin(), csv.display());
    let t = Tmux::start(100, 30, &cmd, &[("PAGER", &pager), ("NO_COLOR", "1")]);
    t.wait_for("__DONE__");
    let paged = std::fs::read_to_string(&out).unwrap();
    let shown: Vec<u64> = paged
        .lines()
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    // The rows that hold the word: every even one.
    assert_eq!(shown, (0..5_000).step_by(2).collect::<Vec<u64>>());
    assert!(paged.trim_end().ends_with("(2500 in all)"), "{paged}");
}

/// A split scan's bar counts what every part has read: the bytes shown
/// rise through the scan and never pass the file's size.
#[test]
fn on_a_terminal_the_bar_rises_on_a_split_scan() {
    if !Tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.csv");
    // About 200 MB of figures in 20 columns: long enough for several
    // frames at two threads.
    let mut block = String::new();
    for i in 0..20_000u64 {
        let row: Vec<String> = (0..20)
            .map(|c| {
                format!(
                    "{}.{:06}",
                    (i * 7919 + c * 104_729) % 1_000_003,
                    (i * c) % 999_983
                )
            })
            .collect();
        block.push_str(&row.join(","));
        block.push('\n');
    }
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let header: Vec<String> = (0..20).map(|c| format!("c{c}")).collect();
        writeln!(f, "{}", header.join(",")).unwrap();
        while f.get_ref().metadata().unwrap().len() < 200 << 20 {
            f.write_all(block.as_bytes()).unwrap();
        }
        f.flush().unwrap();
    }
    let size = std::fs::metadata(&path).unwrap().len();
    let record = dir.path().join("screen.rec");
    let cmd = format!(
        "{} inspect {} --stats --threads 2 --progress always > /dev/null",
        bin(),
        path.display()
    );
    let t = Tmux::start_recorded(100, 20, &cmd, &[], &record);
    t.wait_for("__DONE__");
    drop(t);
    let recorded = String::from_utf8_lossy(&std::fs::read(&record).unwrap()).into_owned();
    let frames = strip_escapes(&recorded.replace('\r', "\n"));
    // `⠁ 123.45 MiB/200.01 MiB ███ …`: what was read, of the whole.
    let mib = |n: &str, unit: &str| -> Option<f64> {
        let n: f64 = n.parse().ok()?;
        Some(match unit {
            "B" => n / 1048576.0,
            "KiB" => n / 1024.0,
            "MiB" => n,
            "GiB" => n * 1024.0,
            _ => return None,
        })
    };
    let read: Vec<(f64, f64)> = frames
        .lines()
        .filter_map(|l| {
            let (done, rest) = l.split_once('/')?;
            let done: Vec<&str> = done.split_whitespace().collect();
            let total: Vec<&str> = rest.split_whitespace().collect();
            let [.., n, unit] = done.as_slice() else {
                return None;
            };
            let [m, total_unit, ..] = total.as_slice() else {
                return None;
            };
            Some((mib(n, unit)?, mib(m, total_unit)?))
        })
        .collect();
    let size_mib = size as f64 / 1048576.0;
    assert!(read.len() >= 2, "frames of the bar: {frames:?}");
    for pair in read.windows(2) {
        assert!(
            pair[1].0 >= pair[0].0,
            "the bytes read never fall: {read:?}"
        );
    }
    assert!(
        read.first().unwrap().0 < read.last().unwrap().0,
        "they rise: {read:?}"
    );
    for (done, total) in &read {
        assert!(
            (total - size_mib).abs() < 0.01 * size_mib,
            "{total} of {size_mib}"
        );
        assert!(*done <= *total, "never past the size: {read:?}");
    }
}
