//! search over lines of text: hits and counts against an oracle (the
//! regex crate on each line alone, `grep -n`, Python's `re`), at every
//! block size, with continuation covering every hit exactly once.

use std::io::Write;
use std::process::Command;

use plumb::search::{search_text_tuned, Tuning};
use plumb::{BytesSource, Op, Plumb, Request};
use plumb_core::{Query, RefusalReason};
use serde_json::json;

fn query(pattern: &str, flags: &[(&str, bool)], offset: u64, limit: u64) -> Query {
    let mut req = Request::default();
    req.set("pattern", json!(pattern)).unwrap();
    for (f, v) in flags {
        req.set(f, json!(v)).unwrap();
    }
    req.set("offset", json!(offset)).unwrap();
    req.set("limit", json!(limit)).unwrap();
    Query::from_request(&req).unwrap()
}

fn tiny(block: usize) -> Tuning {
    Tuning {
        block,
        line_max: block * 4,
        overlap: 8,
        context_keep: 64,
    }
}

/// Blocks of `block` bytes and lines held up to three blocks, with the
/// fuzz target's small overlap: long-line seams fall everywhere.
fn seams(block: usize) -> Tuning {
    Tuning {
        block,
        line_max: block * 3,
        overlap: 4,
        context_keep: 32,
    }
}

/// The 1-based numbers of the lines (split on `\n`, one `\r` before it
/// left out) the regex matches, each line searched alone.
fn oracle(text: &[u8], pattern: &str, ignore_case: bool, word: bool) -> Vec<u64> {
    let source = if word {
        // grep -w's word: no word character just before or after.
        format!(r"\b{{start-half}}(?:{pattern})\b{{end-half}}")
    } else {
        pattern.to_owned()
    };
    let re = regex::bytes::RegexBuilder::new(&source)
        .case_insensitive(ignore_case)
        .build()
        .unwrap();
    let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if text.ends_with(b"\n") || text.is_empty() {
        lines.pop();
    }
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| re.is_match(l.strip_suffix(b"\r").unwrap_or(l)))
        .map(|(i, _)| i as u64 + 1)
        .collect()
}

/// Every hit, page by page: each search resumes at the last one's
/// `next_offset`; the pages together must hold each hit once.
fn all_hits(
    text: &[u8],
    pattern: &str,
    flags: &[(&str, bool)],
    page: u64,
    tune: Tuning,
) -> Vec<u64> {
    let source = BytesSource::new("t.txt", text.to_vec());
    let mut offset = 0;
    let mut out = Vec::new();
    loop {
        let a = search_text_tuned(&source, &query(pattern, flags, offset, page), 0, tune).unwrap();
        assert!(a.hits.len() as u64 <= page);
        for h in &a.hits {
            assert!(h.line > offset, "a hit before the offset");
        }
        out.extend(a.hits.iter().map(|h| h.line));
        match a.window.progress.next_offset {
            Some(n) => {
                assert!(a.window.progress.has_more && !a.window.progress.total_exact);
                assert_eq!(a.hits.len() as u64, page);
                assert!(n >= offset);
                offset = n;
            }
            None => {
                assert!(a.window.progress.total_exact);
                assert_eq!(a.window.progress.total, a.hits.len() as u64);
                return out;
            }
        }
    }
}

fn texts() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    let piece = proptest::sample::select(vec![
        &b"a"[..],
        b"b",
        b"ab",
        b"\n",
        b"\r\n",
        // A lone CR is a character of its line, as grep reads it.
        b"\r",
        b" ",
        "é".as_bytes(),
        "日本".as_bytes(),
        b"abab",
        b"xyz",
    ]);
    proptest::collection::vec(piece, 0..120).prop_map(|p| p.concat())
}

use proptest::prelude::*;

proptest! {
    /// At every block size (down to a few bytes, so block edges and
    /// long-line seams fall everywhere), paging through every hit gives
    /// the lines the oracle finds, and a count gives their number.
    #[test]
    fn hits_and_counts_match_the_oracle(
        text in texts(),
        block in 4usize..48,
        page in 1u64..5,
        which in 0usize..10,
    ) {
        let (pattern, flags): (&str, Vec<(&str, bool)>) = [
            ("ab", vec![]),
            ("b", vec![]),
            ("é", vec![]),
            ("a+b", vec![]),
            ("^b", vec![]),
            ("AB", vec![("ignore_case", true)]),
            ("ab", vec![("word", true)]),
            ("b$", vec![]),
            ("a.b", vec![]),
            ("^$", vec![("word", true)]),
        ][which].clone();
        let expected = oracle(&text, pattern, flags.iter().any(|f| f.0 == "ignore_case"), flags.iter().any(|f| f.0 == "word"));
        // Regexes other than literals are exact only on lines held
        // whole: give those a line cap past the text.
        let literal = which <= 2;
        let tune = if literal { tiny(block) } else { Tuning { line_max: 4096, ..tiny(block) } };
        prop_assert_eq!(all_hits(&text, pattern, &flags, page, tune), expected.clone());
        let mut q = query(pattern, &flags, 0, 1);
        q.count_only = true;
        let counted = search_text_tuned(&BytesSource::new("t.txt", text.clone()), &q, 0, tune).unwrap();
        prop_assert!(counted.hits.is_empty() && counted.window.progress.total_exact);
        prop_assert_eq!(counted.window.progress.total, expected.len() as u64);
    }

    /// A hit's text is its line (terminator left out), its byte offset
    /// the line's, and its match inside it.
    #[test]
    fn hits_carry_their_line_and_offset(text in texts(), block in 4usize..48) {
        let source = BytesSource::new("t.txt", text.clone());
        let a = search_text_tuned(&source, &query("b", &[], 0, 1000), 0, Tuning { line_max: 4096, ..tiny(block) }).unwrap();
        for h in &a.hits {
            let at = h.byte_offset as usize;
            let end = text[at..].iter().position(|&b| b == b'\n').map_or(text.len(), |i| at + i);
            let line = &text[at..end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            prop_assert_eq!(h.text.as_bytes(), line);
            let [s, e] = h.matched.unwrap();
            prop_assert_eq!(&h.text[s..e], "b");
            prop_assert_eq!(bytecount(&text[..at]) + 1, h.line);
        }
    }
}

fn bytecount(b: &[u8]) -> u64 {
    b.iter().filter(|&&c| c == b'\n').count() as u64
}

fn generated() -> Vec<u8> {
    // About 1.5 MiB: several default blocks, CRLF lines, multibyte text,
    // and no newline at the end.
    let mut out = Vec::new();
    for i in 0..40_000u32 {
        let word =
            ["alpha", "Beta", "gamma délta", "ERROR", "日本語", "error-x"][(i * 7 % 6) as usize];
        let end = if i % 5 == 0 { "\r\n" } else { "\n" };
        write!(out, "{i} {word} {}{end}", "z".repeat((i % 13) as usize)).unwrap();
    }
    out.extend(b"last error line");
    out
}

fn grep_lines(path: &std::path::Path, args: &[&str]) -> Vec<u64> {
    let out = Command::new("grep")
        // A UTF-8 locale, whatever the caller's: grep then reads `é` and
        // `日本` as the letters plumb (and the regex crate) reads.
        .env("LC_ALL", "C.UTF-8")
        .args(args)
        .arg("-n")
        .arg("--")
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split(':').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn a_generated_file_is_searched_as_grep_searches_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gen.log");
    let text = generated();
    std::fs::write(&path, &text).unwrap();
    for (pattern, grep_args, flags) in [
        ("error", vec!["-F", "error"], vec![]),
        ("ERROR", vec!["-F", "ERROR"], vec![]),
        (
            "error",
            vec!["-i", "-F", "error"],
            vec![("ignore_case", true)],
        ),
        ("error", vec!["-w", "-F", "error"], vec![("word", true)]),
        ("日本", vec!["-F", "日本"], vec![]),
        ("^1[0-9]*5 ", vec!["-E", "^1[0-9]*5 "], vec![]),
    ] {
        let expected = grep_lines(&path, &grep_args);
        assert!(!expected.is_empty(), "{pattern}");
        let found = all_hits(&text, pattern, &flags, 1000, Tuning::default());
        assert_eq!(found, expected, "{pattern} {flags:?}");
    }
}

/// Whole-word search judged as `grep -w` judges it: the characters
/// around a match must not be word characters, whatever the pattern
/// matches itself (an empty line, a dash, a space at the end).
#[test]
fn whole_words_are_found_as_grep_w_finds_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("words.txt");
    let text =
        "foo\n\nfoobar\nbar foo-x\n-\na - b\nx-y\ntrail \nfoo_bar\ncafé\nécole é\n\n日本 語\nend";
    std::fs::write(&path, text).unwrap();
    for pattern in [
        "foo", "^$", "-", " $", "é", "bar", r"\w+", "x|y", "日本", "o-",
    ] {
        let expected = grep_lines(&path, &["-w", "-E", pattern]);
        let found = all_hits(
            text.as_bytes(),
            pattern,
            &[("word", true)],
            1000,
            Tuning::default(),
        );
        assert_eq!(found, expected, "-w {pattern}");
    }
}

#[test]
fn patterns_agree_with_python_re_on_crlf_lines() {
    let text = generated();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gen.log");
    std::fs::write(&path, &text).unwrap();
    let script = r#"
import re, sys
data = open(sys.argv[1], 'rb').read().decode('utf-8')
lines = data.split('\n')
if data.endswith('\n'): lines.pop()
for pat in sys.argv[2:]:
    n = [str(i + 1) for i, l in enumerate(lines) if re.search(pat, l[:-1] if l.endswith('\r') else l)]
    print(' '.join(n))
"#;
    let patterns = ["z$", r"\d+ Beta", "^[0-9]{2} ", "délta z{3}$", "x z+$"];
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&path)
        .args(patterns)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers = String::from_utf8(out.stdout).unwrap();
    for (pattern, line) in patterns.iter().zip(answers.lines()) {
        let expected: Vec<u64> = line
            .split_whitespace()
            .map(|n| n.parse().unwrap())
            .collect();
        assert!(!expected.is_empty(), "{pattern}");
        assert_eq!(
            all_hits(&text, pattern, &[], 700, Tuning::default()),
            expected,
            "{pattern}"
        );
    }
}

#[test]
fn a_pattern_that_matches_every_line_stops_at_the_limit() {
    // A source that fails if read past its first megabyte.
    let text: Vec<u8> = (0..2_000_000u32)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect();
    let head = text[..1 << 20].to_vec();
    let source = BytesSource::new("t.txt", head);
    let a = search_text_tuned(&source, &query("", &[], 0, 5), 0, Tuning::default()).unwrap();
    assert_eq!(
        a.hits.iter().map(|h| h.line).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    assert_eq!(a.window.progress.next_offset, Some(5));
    assert!(a.window.progress.has_more && !a.window.progress.total_exact);
    assert_eq!(
        a.window.progress.total, 6,
        "the hit past the limit, and no more"
    );
}

/// A `\r` inside a line too long to hold is a byte of the line, not its
/// ending, where a piece of the line stops at a seam: a literal that ends
/// with one is found wherever the seams fall (the fuzz target
/// `search_text` found it missed when a seam fell just after it).
#[test]
fn a_literal_ending_in_a_cr_is_found_across_long_line_seams() {
    let long = "x,".repeat(30);
    for text in [
        format!("{long}a\rb\r\r{long}\nshort\n"),
        format!("short\n{long}ab\r\r{long}\r\n"),
        // The fuzz target's input (its NUL and control byte made letters).
        "\r\r!\"{\"\".:;\rQR\r\ra\":4}\n\"\r!z]T\"".to_owned(),
    ] {
        for pattern in ["b\r", "\r\r", "a\rb\r", "ab\r", "\rQR\r"] {
            let lines = oracle(text.as_bytes(), &regex::escape(pattern), false, false);
            for block in 4..40 {
                let got = all_hits(text.as_bytes(), pattern, &[], 2, seams(block));
                assert_eq!(got, lines, "block {block}, {pattern:?}: {text:?}");
            }
        }
    }
}

/// A line too long to hold that ends with the file's last byte (its
/// newline) ends the text: a pattern that matches the empty string finds
/// each line once and no line after the last, whatever the block size
/// and wherever a page starts (the fuzz target `search_text` found a
/// phantom line here once).
#[test]
fn a_long_last_line_ending_the_file_is_followed_by_no_line() {
    let long = "x,".repeat(60);
    for text in [
        format!("short\nmid line\n{long}\n"),
        format!("{long}\nshort\n{long}\r\n"),
        format!("{long}\n"),
    ] {
        let lines = oracle(text.as_bytes(), "", false, false);
        assert_eq!(lines.len(), text.matches('\n').count());
        for block in 4..40 {
            for page in 1..4 {
                let got = all_hits(text.as_bytes(), "", &[], page, seams(block));
                assert_eq!(got, lines, "block {block}, page {page}: {text:?}");
            }
        }
    }
}

#[test]
fn context_lines_come_before_and_after() {
    let text = b"one\ntwo\nthree hit\nfour\nfive hit\nsix";
    let source = BytesSource::new("t.txt", text.to_vec());
    for block in [4, 7, 16, 1024] {
        let a = search_text_tuned(&source, &query("hit", &[], 0, 10), 1, tiny(block)).unwrap();
        let lines = |v: &[plumb::search::ContextLine]| {
            v.iter()
                .map(|c| (c.line, c.text.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(a.hits.len(), 2, "block {block}");
        assert_eq!(
            lines(&a.hits[0].before),
            [(2, "two".to_owned())],
            "block {block}"
        );
        assert_eq!(
            lines(&a.hits[0].after),
            [(4, "four".to_owned())],
            "block {block}"
        );
        assert_eq!(
            lines(&a.hits[1].before),
            [(4, "four".to_owned())],
            "block {block}"
        );
        assert_eq!(
            lines(&a.hits[1].after),
            [(6, "six".to_owned())],
            "block {block}"
        );
    }
}

#[test]
fn a_long_line_is_cut_around_its_match() {
    let mut text = "x".repeat(100_000).into_bytes();
    text.extend(b"NEEDLE");
    text.extend("y".repeat(50_000).as_bytes());
    text.extend(b"\nshort NEEDLE\n");
    for tune in [
        Tuning::default(),
        Tuning {
            block: 1024,
            line_max: 4096,
            overlap: 64,
            context_keep: 64,
        },
    ] {
        let a = search_text_tuned(
            &BytesSource::new("t.txt", text.clone()),
            &query("NEEDLE", &[], 0, 10),
            0,
            tune,
        )
        .unwrap();
        assert_eq!(a.hits.len(), 2);
        let h = &a.hits[0];
        assert!(h.text.len() <= plumb_core::SEARCH_TEXT_BYTES && h.text.contains("NEEDLE"));
        let [s, e] = h.matched.unwrap();
        assert_eq!(&h.text[s..e], "NEEDLE");
        let cut = h.cut.unwrap();
        assert_eq!(cut.bytes, Some(150_006));
        assert_eq!(
            &text[cut.from as usize..cut.from as usize + h.text.len()],
            h.text.as_bytes()
        );
        assert_eq!(
            (a.hits[1].line, a.hits[1].text.as_str()),
            (2, "short NEEDLE")
        );
        assert!(a.view.label() == "cut");
    }
}

#[test]
fn hostile_and_invalid_patterns_are_refused() {
    let mut req = Request::default();
    for p in ["(", "a{99999999}", "(a{1000}){1000}", "[z-a]"] {
        req.set("pattern", json!(p)).unwrap();
        let r = Query::from_request(&req).unwrap_err();
        assert_eq!(r.reason(), RefusalReason::InvalidArgument, "{p}");
        assert!(r.message().contains("not a regex"), "{}", r.message());
    }
    req.set("pattern", json!("a".repeat(5000))).unwrap();
    assert!(Query::from_request(&req)
        .unwrap_err()
        .message()
        .contains("at most"));
    let deep = "(".repeat(200) + &")".repeat(200);
    req.set("pattern", json!(deep)).unwrap();
    assert_eq!(
        Query::from_request(&req).unwrap_err().reason(),
        RefusalReason::InvalidArgument
    );
}

#[test]
fn a_search_needs_one_of_pattern_and_where() {
    let plumb = Plumb::new();
    let source = BytesSource::new("notes.txt", "a\n");
    let r = plumb
        .run_source(Op::Search, &source, None, &Request::default())
        .unwrap_err();
    assert!(r.message().contains("needs a pattern"), "{}", r.message());
    let mut req = Request::default();
    req.set("pattern", json!("a"))
        .unwrap()
        .set("where", json!("= a"))
        .unwrap();
    let r = plumb
        .run_source(Op::Search, &source, None, &req)
        .unwrap_err();
    assert!(r.message().contains("not both"));
}

#[test]
fn a_binary_file_and_bad_utf8_in_a_hit_are_refused() {
    let plumb = Plumb::new();
    let mut req = Request::default();
    req.set("pattern", json!("b")).unwrap();
    let r = plumb
        .run_source(
            Op::Search,
            &BytesSource::new("x.bin", &b"a\0b\n"[..]),
            None,
            &req,
        )
        .unwrap_err();
    assert_eq!(r.reason(), RefusalReason::Binary);
    let r = plumb
        .run_source(
            Op::Search,
            &BytesSource::new("x.txt", &b"ok\nb \xff\n"[..]),
            None,
            &req,
        )
        .unwrap_err();
    assert_eq!(r.reason(), RefusalReason::InvalidUtf8);
    assert_eq!(r.byte_offset(), Some(5));
}

#[test]
fn a_log_with_commas_is_searched_as_lines_and_a_csv_as_rows() {
    let plumb = Plumb::new();
    let text = "time,level\n10:00,error\n";
    let mut req = Request::default();
    req.set("pattern", json!("error")).unwrap();
    let a = plumb
        .run_source(Op::Search, &BytesSource::new("app.log", text), None, &req)
        .unwrap();
    assert_eq!(a.format(), "text");
    let a = plumb
        .run_source(Op::Search, &BytesSource::new("app.csv", text), None, &req)
        .unwrap();
    assert_eq!(a.format(), "csv");
    assert_eq!(a.to_json()["hits"][0]["row"], 0);
    // A column says the caller means a table.
    req.set("column", json!("level")).unwrap();
    let a = plumb
        .run_source(Op::Search, &BytesSource::new("app.log", text), None, &req)
        .unwrap();
    assert_eq!(a.format(), "csv");
}

#[test]
fn a_compressed_log_is_searched_through_its_layer() {
    #[cfg(feature = "compression")]
    {
        use flate2::{write::GzEncoder, Compression};
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        gz.write_all(b"a\nneedle here\nb\n").unwrap();
        let bytes = gz.finish().unwrap();
        let mut req = Request::default();
        req.set("pattern", json!("needle")).unwrap();
        let a = Plumb::new()
            .run_source(
                Op::Search,
                &BytesSource::new("app.log.gz", bytes),
                None,
                &req,
            )
            .unwrap();
        let json = a.to_json();
        assert_eq!(json["container"], "gzip");
        assert_eq!(json["hits"][0]["line"], 2);
    }
}

/// The hits a search of `name` (its bytes `bytes`) with `args` returns:
/// their positions, the answer's total, and the hits it passed over.
fn hit_positions(
    name: &str,
    bytes: &[u8],
    args: serde_json::Value,
) -> (Vec<serde_json::Value>, u64, u64) {
    let plumb = Plumb::new();
    let source = BytesSource::new(name, bytes.to_vec());
    let mut req = Request::default();
    for (k, v) in args.as_object().unwrap() {
        req.set(k, v.clone()).unwrap();
    }
    let a = plumb
        .run_source(Op::Search, &source, None, &req)
        .unwrap()
        .to_json();
    let unit = ["line", "row", "record", "index"]
        .into_iter()
        .find(|u| a["hits"][0].get(*u).is_some());
    let positions = a["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h[unit.unwrap_or("line")].clone())
        .collect();
    let passed = a["passed_over"].as_u64().unwrap_or(0);
    (positions, a["total"].as_u64().unwrap(), passed)
}

/// A negative offset returns the last hits of a search, in every format
/// that searches: the tail of what one forward search of every hit
/// returns, with the same total.
#[test]
fn a_negative_offset_returns_the_last_hits_in_every_format() {
    let mut text = String::new();
    let mut csv = String::from("id,level\n");
    let mut jsonl = String::new();
    let mut json = Vec::new();
    for i in 0..300u32 {
        let level = if i % 7 == 3 || i % 11 == 0 {
            "error"
        } else {
            "info"
        };
        text.push_str(&format!("{i} {level}\n"));
        csv.push_str(&format!("{i},{level}\n"));
        jsonl.push_str(&format!("{{\"id\": {i}, \"level\": \"{level}\"}}\n"));
        json.push(json!({"id": i, "level": level}));
    }
    let json = serde_json::to_string(&json).unwrap();
    let cases: [(&str, &[u8], serde_json::Value); 4] = [
        ("log.txt", text.as_bytes(), json!({"pattern": "error"})),
        (
            "a.csv",
            csv.as_bytes(),
            json!({"column": "level", "where": "= error"}),
        ),
        (
            "a.jsonl",
            jsonl.as_bytes(),
            json!({"field": "/level", "where": "= error"}),
        ),
        (
            "a.json",
            json.as_bytes(),
            json!({"field": "/level", "where": "= error"}),
        ),
    ];
    for (name, bytes, args) in cases {
        let mut all = args.clone();
        all["limit"] = json!(1000);
        let (every, total, none) = hit_positions(name, bytes, all);
        assert_eq!(none, 0, "{name}: a forward search passes over nothing");
        assert_eq!(every.len() as u64, total, "{name}");
        assert!(total > 40, "{name}: {total}");
        for n in [1u64, 5, 17, total, total + 10] {
            let mut last = args.clone();
            last["offset"] = json!(-(n as i64));
            last["limit"] = json!(1000);
            let (got, t, passed) = hit_positions(name, bytes, last);
            let want = &every[every.len() - (n.min(total) as usize)..];
            assert_eq!(got, want, "{name} -{n}");
            assert_eq!(t, total, "{name} -{n}");
            assert_eq!(passed, total - n.min(total), "{name} -{n}");
        }
        // The last 30, at most 10 at once: the first 10 of them, and the
        // answer goes on forward.
        let mut last = args.clone();
        last["offset"] = json!(-30);
        last["limit"] = json!(10);
        let (got, _, _) = hit_positions(name, bytes, last);
        assert_eq!(got, every[every.len() - 30..every.len() - 20], "{name}");
    }
}
