//! The output for a person: snapshots of every command at 80 and 120
//! columns (insta), the width rule checked on every line, colour only
//! where asked for, usage errors in the caller's format, and a real
//! terminal under tmux (colour, width, the pager, the progress bar).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

mod common;
use common::{assert_fits, bin, plumb, strip_escapes, Tmux};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/people.csv")
}

/// A 53-column TSV of mixed text and numbers, the same on every run.
fn wide(dir: &Path) -> PathBuf {
    let mut text = String::new();
    let names: Vec<String> = (0..53)
        .map(|i| format!("field_{i}_{}", "abcdefg".get(..i % 8).unwrap_or("")))
        .collect();
    text.push_str(&names.join("\t"));
    text.push('\n');
    let mut x: u64 = 7;
    for r in 0..12 {
        let cells: Vec<String> = (0..53)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                match i % 4 {
                    0 => format!("text {r} with words"),
                    1 => ((x >> 33) % 100_000).to_string(),
                    2 => format!("{}.{}", (x >> 40) % 1000, (x >> 20) % 100),
                    _ => format!("2024-0{}-1{}", 1 + (x >> 50) % 9, (x >> 45) % 10),
                }
            })
            .collect();
        text.push_str(&cells.join("\t"));
        text.push('\n');
    }
    let path = dir.join("wide.tsv");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn every_command_at_80_and_120_columns() {
    let dir = tempfile::tempdir().unwrap();
    let wide = wide(dir.path());
    let people = sample();
    let files = [("people", people.as_path()), ("wide", wide.as_path())];
    for width in [80usize, 120] {
        let w = width.to_string();
        for (name, file) in files {
            let file = file.to_str().unwrap();
            for cmd in ["inspect", "select", "validate", "detect", "read"] {
                let mut args = vec![cmd, file, "--width", &w];
                if cmd == "read" {
                    args.extend(["--limit", "4"]);
                }
                let out = plumb(&args);
                assert_eq!(out.status.code(), Some(0), "{cmd} {name}: {out:?}");
                let text = String::from_utf8(out.stdout).unwrap();
                assert!(!text.contains('\x1b'), "no colour off a terminal");
                // A read is the file's own lines, verbatim; every other
                // command keeps to the width (detect's path excepted,
                // which is never cut: the temporary one is replaced).
                if cmd != "read" && cmd != "detect" {
                    assert_fits(&text, width, &format!("{cmd} {name}"));
                }
                let shown = text
                    .replace(dir.path().to_str().unwrap(), "[TMP]")
                    .replace(people.parent().unwrap().to_str().unwrap(), "[DATA]");
                insta::assert_snapshot!(format!("{cmd}_{name}_{width}"), shown);
            }
        }
    }
}

#[test]
fn wide_rows_leave_columns_out_or_turn_vertical() {
    let dir = tempfile::tempdir().unwrap();
    let wide = wide(dir.path());
    let file = wide.to_str().unwrap();
    // inspect's sample table leaves columns out and says how many.
    let text = String::from_utf8(plumb(&["inspect", file, "--width", "80"]).stdout).unwrap();
    let note = text.lines().find(|l| l.contains("more columns")).unwrap();
    let left: usize = note.split_whitespace().nth(1).unwrap().parse().unwrap();
    let sample_head = text.lines().skip_while(|l| *l != "sample").nth(1).unwrap();
    assert_eq!(
        sample_head.split_whitespace().count() + left,
        53,
        "the shown and the left-out columns make all 53"
    );
    // A select of rows this wide keeps its first and last columns
    // readable and counts the ones between.
    let text = String::from_utf8(plumb(&["select", file, "--width", "80", "--limit", "2"]).stdout)
        .unwrap();
    assert_fits(&text, 80, "select of a wide table");
    let head: Vec<&str> = text.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(head.first(), Some(&"field_0_"), "{text}");
    assert_eq!(head.last(), Some(&"field_52_abcd"), "{text}");
    let gap = head.iter().position(|h| *h == "…").expect("a gap column");
    let note = text.lines().find(|l| l.contains("hidden between")).unwrap();
    let hidden: usize = note.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert_eq!(head.len() - 1 + hidden, 53, "shown and hidden make all 53");
    assert!(note.contains(&format!("between {} and {}", head[gap - 1], head[gap + 1])));
    for line in text.lines().skip(2).take(2) {
        // No shown column is squeezed unreadable: each cell of the first
        // column is whole ("text 0 with words").
        assert!(line.starts_with("text "), "{line}");
        assert!(
            line.split("  ").next().unwrap().ends_with("words"),
            "{line}"
        );
    }
    // --vertical still shows every field of every row.
    let text = String::from_utf8(
        plumb(&[
            "select",
            file,
            "--width",
            "80",
            "--limit",
            "2",
            "--vertical",
        ])
        .stdout,
    )
    .unwrap();
    assert_eq!(text.matches("── row ").count(), 2, "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("field_")).count(),
        2 * 53
    );
    assert_fits(&text, 80, "vertical select");
    // Unlimited width: one header line with every name, nothing cut.
    let text =
        String::from_utf8(plumb(&["select", file, "--width", "0", "--limit", "2"]).stdout).unwrap();
    assert_eq!(text.lines().next().unwrap().split_whitespace().count(), 53);
    assert!(!text.contains('…'));
}

#[test]
fn cells_are_cut_never_wrapped_and_control_characters_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.csv");
    let long = "word ".repeat(40);
    std::fs::write(
        &path,
        format!("id,text,evil\n1,{long},\"a\x1b[31mred\tb\"\n2,short,x\n"),
    )
    .unwrap();
    let out = plumb(&["select", path.to_str().unwrap(), "--width", "60"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_fits(&text, 60, "select");
    assert_eq!(
        text.lines().filter(|l| l.starts_with('1')).count(),
        1,
        "{text}"
    );
    assert!(text.contains('…'), "the long cell is cut: {text}");
    assert!(
        !text.contains('\x1b'),
        "an escape in the data is not sent to the terminal"
    );
    assert!(text.contains("\\u{1b}[31mred\\tb"), "{text}");
}

#[test]
fn colour_only_where_asked() {
    let file = sample();
    let file = file.to_str().unwrap();
    let run = |args: &[&str], no_color: bool| {
        let mut cmd = Command::new(bin());
        cmd.args(args).env_remove("NO_COLOR");
        if no_color {
            cmd.env("NO_COLOR", "1");
        }
        String::from_utf8(cmd.output().unwrap().stdout).unwrap()
    };
    assert!(
        !run(&["inspect", file], false).contains('\x1b'),
        "auto, piped: none"
    );
    assert!(run(&["inspect", file, "--color", "always"], true).contains("\x1b["));
    assert!(!run(&["inspect", file, "--color", "never"], false).contains('\x1b'));
    let always = run(&["validate", file, "--color", "always"], false);
    assert!(
        always.contains("\x1b[32mvalid\x1b[0m"),
        "valid in green: {always:?}"
    );
    // --json is never coloured.
    let json = run(&["inspect", file, "--json", "--color", "always"], false);
    assert!(!json.contains('\x1b'));
    serde_json::from_str::<Value>(&json).unwrap();
}

#[test]
fn usage_errors_are_json_under_json() {
    let file = sample();
    let file = file.to_str().unwrap();
    for args in [
        vec!["select", file, "--json", "--limit", "many"],
        vec!["read", file, "--json", "--offset", "x"],
        vec!["inspect", file, "--json", "--no-such-flag"],
        vec!["inspect", file, "--json", "--offset", "-3"],
        vec!["search", file, "--json", "--limit", "0", "x"],
        vec!["inspect", "--json"],
    ] {
        let out = plumb(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let v: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"));
        assert_eq!(v["ok"], false, "{args:?}");
        assert_eq!(v["reason"], "invalid-argument", "{args:?}");
        assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    // Without --json it stays clap's text on stderr.
    let out = plumb(&["select", file, "--color", "purple"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid value 'purple'"));
    let out = plumb(&["select", file, "--json", "--color", "purple"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["message"].as_str().unwrap().contains("purple"), "{v}");
    // Help is not an error.
    let out = plumb(&["select", "--json", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage"));
}

#[test]
fn detect_keeps_the_whole_path_and_a_tab_is_written_as_an_escape() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir
        .path()
        .join("a-directory-with-a-rather-long-name-that-goes-on".repeat(3));
    std::fs::create_dir(&deep).unwrap();
    let path = deep.join("table.tsv");
    std::fs::write(&path, "a\tb\n1\t2\n").unwrap();
    let out = plumb(&["detect", path.to_str().unwrap(), "--width", "40"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!("path: {}\n", path.display())),
        "{text}"
    );
    let text = String::from_utf8(plumb(&["inspect", path.to_str().unwrap()]).stdout).unwrap();
    assert!(text.contains("delimiter \\t"), "{text}");
    assert!(!text.contains('\t'), "{text:?}");
}

#[test]
fn on_a_terminal_colour_width_and_pager() {
    if !Tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let wide = wide(dir.path());
    let cmd = format!("{} inspect {} --no-pager", bin(), wide.display());
    // On the terminal: coloured, and no line past the pane's 80 columns.
    let t = Tmux::start(80, 200, &cmd, &[]);
    let screen = t.wait_for("__DONE__");
    assert!(screen.contains("__DONE__"), "{screen}");
    assert!(screen.contains("\x1b["), "colour on a terminal: {screen}");
    let plain = strip_escapes(&screen);
    assert!(plain.contains(" · 12 rows · 53 columns · exact"), "{plain}");
    assert_fits(&plain, 80, "inspect on an 80-column terminal");
    // The same under NO_COLOR, and piped: no colour.
    let t = Tmux::start(80, 200, &cmd, &[("NO_COLOR", "1")]);
    let screen = t.wait_for("__DONE__");
    assert!(
        !strip_escapes(&screen).is_empty() && !screen.contains("\x1b[3"),
        "{screen}"
    );
    let t = Tmux::start(80, 200, &format!("{cmd} | cat"), &[]);
    let screen = t.wait_for("__DONE__");
    assert!(!screen.contains("\x1b[3"), "piped: no colour: {screen}");
    // Taller than the pane: through PAGER.
    let pager = dir.path().join("pager.sh");
    std::fs::write(&pager, "#!/bin/sh\nsed 's/^/PAGED|/'\n").unwrap();
    std::fs::set_permissions(&pager, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let paged = format!("{} inspect {}", bin(), wide.display());
    let t = Tmux::start(80, 20, &paged, &[("PAGER", pager.to_str().unwrap())]);
    let screen = strip_escapes(&t.wait_for("__DONE__"));
    assert!(screen.contains("PAGED|"), "{screen}");
    let t = Tmux::start(
        80,
        20,
        &format!("{paged} --no-pager"),
        &[("PAGER", pager.to_str().unwrap())],
    );
    let screen = t.wait_for("__DONE__");
    assert!(!screen.contains("PAGED|"), "{screen}");
}

#[test]
fn on_a_terminal_a_read_without_a_final_newline_says_so() {
    if !Tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("open.txt");
    std::fs::write(&path, "first\nlast line").unwrap();
    let t = Tmux::start(80, 20, &format!("{} read {}", bin(), path.display()), &[]);
    let screen = strip_escapes(&t.wait_for("__DONE__"));
    assert!(screen.contains("last line\n"), "{screen}");
    assert!(screen.contains("no newline at the end"), "{screen}");
    // Piped, the text is the file's, byte for byte.
    let out = plumb(&["read", path.to_str().unwrap()]);
    assert_eq!(out.stdout, b"first\nlast line");
}

#[test]
fn on_a_terminal_the_progress_bar_shows_for_a_slow_source() {
    if !Tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("slow.csv");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let cmd = format!("{} validate {} --no-pager", bin(), fifo.display());
    let t = Tmux::start(100, 20, &cmd, &[]);
    // The writer sends a little, then stalls past the bar's first second.
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            f.write_all(b"a,b\n1,2\n3,4\n").unwrap();
            f.flush().unwrap();
            std::thread::sleep(Duration::from_millis(2500));
            f.write_all(b"5,6\n").unwrap();
        })
    };
    let during = strip_escapes(&t.wait_for("B/s"));
    assert!(
        during.contains("12 B read"),
        "the bytes read so far: {during}"
    );
    writer.join().unwrap();
    let after = strip_escapes(&t.wait_for("__DONE__"));
    assert!(after.contains("valid · 3 rows scanned"), "{after}");
    assert!(
        !after.contains("B/s"),
        "the bar is cleared when the scan ends: {after}"
    );
    // Off a terminal (stderr piped) no bar is drawn.
    let t = Tmux::start(
        100,
        20,
        &format!("{cmd} 2>{}/err", dir.path().display()),
        &[],
    );
    let fifo2 = fifo.clone();
    std::thread::spawn(move || {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&fifo2)
            .unwrap();
        f.write_all(b"a,b\n").unwrap();
        std::thread::sleep(Duration::from_millis(1500));
        f.write_all(b"1,2\n").unwrap();
    })
    .join()
    .unwrap();
    t.wait_for("__DONE__");
    assert_eq!(std::fs::read_to_string(dir.path().join("err")).unwrap(), "");
}

#[test]
fn select_from_the_end() {
    let file = sample();
    let file = file.to_str().unwrap();
    let out = plumb(&["select", file, "--offset", "-2", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rows"][0][1], "Dee");
    assert_eq!(v["rows"][1][1], "Eve");
    assert_eq!(
        (v["offset"].clone(), v["from_end"].clone()),
        (3.into(), 2.into())
    );
    let text =
        String::from_utf8(plumb(&["select", file, "--offset", "-2", "--width", "80"]).stdout)
            .unwrap();
    assert!(text.contains("rows 3–4"), "{text}");
    // Formats that cannot say where their end is refuse, never give the head.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("a.json");
    std::fs::write(&json, "[1,2,3]").unwrap();
    let out = plumb(&["select", json.to_str().unwrap(), "--offset", "-1", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("cannot select from the end"),
        "{v}"
    );
}

/// In the statistics table, a JSON path holding strings beside numbers
/// shows a top string quoted (`"100"` is not the number `100`), and a
/// path of strings alone shows it bare.
#[test]
fn a_top_string_beside_numbers_is_quoted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.jsonl");
    std::fs::write(
        &path,
        "{\"v\":\"100\",\"w\":\"a\"}\n{\"v\":\"100\",\"w\":\"a\"}\n{\"v\":100,\"w\":\"b\"}\n",
    )
    .unwrap();
    let out = plumb(&[
        "inspect",
        path.to_str().unwrap(),
        "--stats",
        "--width",
        "120",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let row = |name: &str| {
        text.lines()
            .skip_while(|l| !l.starts_with("statistics"))
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name} row in {text}"))
            .to_owned()
    };
    assert!(row("/v").contains("\"100\" ×2"), "{}", row("/v"));
    assert!(row("/w").contains(" a ×2"), "{}", row("/w"));
    assert!(!row("/w").contains('"'), "{}", row("/w"));
}

/// A column that short rows do not reach says in how many rows it has no
/// cell; a column every row reaches says nothing of it.
#[test]
fn a_column_short_rows_leave_out_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("short.csv");
    std::fs::write(&path, "a,b,c\n1,2,3\n4\n5,6\n7,8,9\n").unwrap();
    let out = plumb(&["inspect", path.to_str().unwrap(), "--width", "120"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let row = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("no {name} row in {text}"))
            .to_owned()
    };
    assert!(!row("a").contains("short row"), "{}", row("a"));
    assert!(row("b").contains("no cell in 1 short row"), "{}", row("b"));
    assert!(row("c").contains("no cell in 2 short rows"), "{}", row("c"));
}

#[test]
fn an_answer_too_large_for_the_view_is_shown_in_part_and_says_what_it_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("wide.csv");
    let cols = 9_000;
    let mut text: String = (0..cols).map(|c| format!("c{c},")).collect();
    text.pop();
    text.push('\n');
    for r in 0..3 {
        let row: Vec<String> = (0..cols).map(|c| format!("{}", r * c)).collect();
        text.push_str(&row.join(","));
        text.push('\n');
    }
    std::fs::write(&p, text).unwrap();
    let path = p.to_str().unwrap();
    let out = plumb(&["inspect", path, "--no-pager"]);
    assert_eq!(out.status.code(), Some(0));
    let shown = String::from_utf8(out.stdout).unwrap();
    // The summary counts the whole answer, not what the view kept.
    assert!(
        shown.lines().next().unwrap().contains("9000 columns"),
        "{shown}"
    );
    let note = shown
        .split("note: the answer is too large for the terminal view")
        .nth(1)
        .expect("a note says the view is partial");
    let note = note.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(note.contains("/columns shows"), "{note}");
    assert!(note.contains("of 9000 items"), "{note}");
    assert!(note.contains("--json prints it whole"), "{note}");
    let listed = shown
        .lines()
        .filter(|l| {
            // A column's line: its index, then its name.
            let mut w = l.split_whitespace();
            w.next().is_some_and(|i| i.parse::<u32>().is_ok())
                && w.next()
                    .is_some_and(|n| n.starts_with('c') && n[1..].parse::<u32>().is_ok())
        })
        .count();
    let kept: u64 = note
        .split("/columns shows ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(kept > 100 && kept < 9000, "{kept}");
    assert_eq!(listed as u64, kept, "{shown}");
    // --json prints every column.
    let out = plumb(&["inspect", path, "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["columns"].as_array().unwrap().len(), cols);
}

/// On a terminal a search without `--limit` shows as many hits as one
/// answer holds (through the pager when taller than the screen); piped
/// or under `--json` it keeps the short default.
#[test]
fn on_a_terminal_a_search_shows_every_hit_one_answer_holds() {
    if !Tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.txt");
    let text: String = (0..300).map(|i| format!("match {i}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let file = path.to_str().unwrap();
    // Piped, the short default.
    let piped = String::from_utf8(plumb(&["search", file, "match"]).stdout).unwrap();
    assert_eq!(piped.lines().count(), 20);
    let t = Tmux::start(
        80,
        24,
        &format!("{} search {file} match --no-pager", bin()),
        &[],
    );
    let screen = strip_escapes(&t.wait_for("__DONE__"));
    assert!(screen.contains("300:match 299"), "{screen}");
}
