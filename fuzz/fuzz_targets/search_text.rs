//! `search` over text: any bytes, a pattern made from the input, blocks
//! of a few bytes (so block edges and long-line seams fall anywhere);
//! paging by `next_offset` finds exactly the lines the regex crate finds
//! on each line alone, or the search refuses.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb::search::{search_text_tuned, Tuning};
use plumb_core::{Query, Request};

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, rest)) = input.split_first() else {
        return;
    };
    let n = usize::from(ctl % 5).min(rest.len());
    let Ok(pattern) = std::str::from_utf8(&rest[..n]) else {
        return;
    };
    let text = &rest[n..];
    let mut req = Request::default();
    req.set("pattern", pattern.into()).expect("text");
    req.set("limit", u64::from(ctl / 64 + 1).into())
        .expect("count");
    let Ok(mut query) = Query::from_request(&req) else {
        return;
    };
    let literal = query.predicate.matcher().is_some_and(|m| m.is_literal());
    let block = usize::from(ctl % 29) + 4;
    let tune = Tuning {
        block,
        // A regex is exact on lines held whole.
        line_max: if literal { block * 3 } else { 1 << 16 },
        overlap: 4,
        context_keep: 32,
    };
    let re = regex::bytes::RegexBuilder::new(pattern)
        .multi_line(true)
        .build()
        .expect("compiled once already");
    // Lines split at `\n` alone: a lone CR is a character of its line
    // (grep's reading), and the CR of a CRLF is not part of the line.
    // A byte order mark is not text.
    let body = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let mut lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    if body.ends_with(b"\n") || body.is_empty() {
        lines.pop();
    }
    let expected: Vec<u64> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| re.is_match(l.strip_suffix(b"\r").unwrap_or(l)))
        .map(|(i, _)| i as u64 + 1)
        .collect();
    let source = plumb::BytesSource::new("f", text.to_vec());
    let mut found = Vec::new();
    for _ in 0..10_000 {
        let Ok(a) = search_text_tuned(&source, &query, 0, tune) else {
            return;
        };
        found.extend(a.hits.iter().map(|h| h.line));
        match a.window.progress.next_offset {
            Some(next) => {
                assert!(next >= query.offset, "next_offset went back");
                query.offset = next;
            }
            None => {
                assert!(a.window.progress.total_exact || a.long_lines > 0);
                break;
            }
        }
    }
    assert_eq!(found, expected, "hits differ from the per-line oracle");
});
