//! The push parser: event logs every way, syntax faults, depth, strings.

use plumb_core::RefusalReason;
use plumb_json::{JsonParser, JSON_MAX_DEPTH, KEY_CAPTURE_BYTES, STRING_CAPTURE_BYTES};
use proptest::prelude::*;

use crate::util::{check, parse_pieces, Log};

#[test]
fn event_log_is_identical_whole_split_and_byte_by_byte() {
    let doc = "{\"a\": [1, -2.5e3, true, false, null], \"b\": {\"c\": \"x\\n\\u00e9\\ud83d\\ude00é\"}, \"d\": []}";
    let (log, err) = check(doc.as_bytes());
    assert_eq!(err, None);
    assert_eq!(
        log,
        vec![
            "{ d0 @0",
            "key \"a\"",
            "[ d1 @6",
            "num \"1\" len=1 @7",
            "num \"-2.5e3\" len=6 @10",
            "true \"true\" len=4 @18",
            "false \"false\" len=5 @24",
            "null \"null\" len=4 @31",
            "]",
            "key \"b\"",
            "{ d1 @43",
            "key \"c\"",
            "str \"x\\né😀é\" len=10 @49",
            "}",
            "key \"d\"",
            "[ d1 @82",
            "]",
            "}",
        ]
    );
}

#[test]
fn syntax_faults_each_with_message_and_offset() {
    let table: &[(&str, u64, &str)] = &[
        ("", 0, "expected a JSON value, found the end of the input"),
        (
            "   ",
            3,
            "expected a JSON value, found the end of the input",
        ),
        ("[1,]", 3, "expected a value, found `]` after a comma"),
        ("{\"a\":1,}", 7, "expected a key, found `}` after a comma"),
        ("{a:1}", 1, "expected a string key, found `a`"),
        ("{\"a\" 1}", 5, "expected `:` after the key, found `1`"),
        ("[1 2]", 3, "expected `,` or `]` after a value, found `2`"),
        (
            "{\"a\":1 \"b\":2}",
            7,
            "expected `,` or `}` after a value, found `\"`",
        ),
        ("[01]", 1, "invalid number: leading zeros are not allowed"),
        ("[1.]", 3, "invalid number: unexpected `]`"),
        ("[-]", 2, "invalid number: unexpected `]`"),
        ("[1e]", 3, "invalid number: unexpected `]`"),
        (
            "[NaN]",
            1,
            "expected a value, found `N` (`NaN` is not JSON)",
        ),
        (
            "{\"x\": Infinity}",
            6,
            "expected a value, found `I` (`Infinity` is not JSON)",
        ),
        (
            "[1, -Infinity]",
            5,
            "invalid number: unexpected `I` (`-Infinity` is not JSON)",
        ),
        ("[tru]", 1, "invalid literal: expected `true`"),
        ("[\"a\tb\"]", 3, "control character U+0009 inside a string"),
        ("[\"\\x\"]", 3, "invalid escape `\\x`"),
        (
            "[\"\\u12G4\"]",
            6,
            "invalid \\u escape: expected four hex digits",
        ),
        ("[\"abc", 1, "unterminated string"),
        (
            "[1, 2",
            5,
            "unexpected end of input: the document is incomplete",
        ),
        (
            "{} {}",
            3,
            "trailing characters after the JSON value, found `{`",
        ),
        (
            "[1] x",
            4,
            "trailing characters after the JSON value, found `x`",
        ),
        ("// c\n1", 0, "expected a value, found `/`"),
        ("1.5e", 0, "invalid number: it ends before its digits"),
        ("nul", 0, "invalid literal: the input ends inside it"),
    ];
    assert!(table.len() >= 17);
    for (doc, offset, what) in table {
        let (_, err) = check(doc.as_bytes());
        let err = err.unwrap_or_else(|| panic!("{doc:?} must be refused"));
        assert!(
            err.starts_with(&format!("invalid-json@{offset} ")),
            "{doc:?}: {err}"
        );
        assert!(err.contains(what), "{doc:?}: {err}");
        assert!(
            err.contains("; "),
            "{doc:?}: the message says what to do: {err}"
        );
    }
}

#[test]
fn a_bad_literal_on_line_3_after_multibyte_text_has_exact_line_and_offset() {
    let doc = "{\n  \"naïve\": \"日本\",\n  \"ok\": tru\n}";
    let (_, err) = check(doc.as_bytes());
    let at = doc.find("tru").unwrap();
    assert_eq!(
        err.unwrap(),
        format!(
            "invalid-json@{at} 3:9 invalid literal: expected `true` at line 3 column 9 (byte {at}); the only bare words in JSON are true, false and null; quote text as a string"
        )
    );
    assert_eq!(
        at, 32,
        "the byte offset counts the multibyte prefix in bytes"
    );
}

#[test]
fn column_counts_characters_across_pushes() {
    let doc = "[\"é\", \"ü\", x]";
    let (_, err) = check(doc.as_bytes());
    // `x` is the 12th character of line 1, at byte 13.
    assert!(err.unwrap().starts_with("invalid-json@13 1:12 "));
}

#[test]
fn nesting_past_the_cap_is_refused_without_recursion() {
    let ok = "[".repeat(JSON_MAX_DEPTH) + &"]".repeat(JSON_MAX_DEPTH);
    assert_eq!(parse_pieces(&[ok.as_bytes()]).1, None);
    let deep = "[".repeat(JSON_MAX_DEPTH + 1);
    let (_, err) = parse_pieces(&[deep.as_bytes()]);
    assert!(err
        .unwrap()
        .starts_with(&format!("nesting-too-deep@{JSON_MAX_DEPTH} ")));
    // 10 MB of `[`: refused, no stack overflow.
    let huge = vec![b'['; 10 * 1000 * 1000];
    let mut p = JsonParser::new();
    let e = p.push(&huge, &mut Log::default()).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::NestingTooDeep);
    assert_eq!(e.byte_offset(), Some(JSON_MAX_DEPTH as u64));
}

#[test]
fn strings_and_keys_are_cut_at_their_caps_on_a_char_boundary() {
    let long_key = "k".repeat(KEY_CAPTURE_BYTES - 1) + "é" + "tail";
    let long_val = "v".repeat(STRING_CAPTURE_BYTES + 10);
    let doc = format!("{{\"{long_key}\": \"{long_val}\"}}");
    let (log, err) = parse_pieces(&[doc.as_bytes()]);
    assert_eq!(err, None);
    let key_line = &log[1];
    assert!(
        key_line.ends_with("\" cut"),
        "{}",
        &key_line[key_line.len() - 20..]
    );
    assert_eq!(key_line.matches('k').count(), KEY_CAPTURE_BYTES - 1 + 1);
    let val_line = &log[2];
    assert!(
        val_line.contains(" cut len=65546 "),
        "{}",
        &val_line[val_line.len() - 40..]
    );
}

#[test]
fn lone_surrogates_become_replacement_characters() {
    let (log, err) = check(br#"["\ud800", "\udc00x", "\ud800\u0041"]"#);
    assert_eq!(err, None);
    assert_eq!(log[1], "str \"\u{fffd}\" len=3 @1");
    assert_eq!(log[2], "str \"\u{fffd}x\" len=4 @11");
    assert_eq!(log[3], "str \"\u{fffd}A\" len=4 @22");
}

#[test]
fn long_number_literals_are_kept_to_the_cap_and_marked() {
    let lit = "1".repeat(600);
    let (log, err) = parse_pieces(&[format!("[{lit}]").as_bytes()]);
    assert_eq!(err, None);
    assert!(log[1].contains(" cut len=600 "), "{}", &log[1][500..]);
}

/// Generates JSON-ish documents: valid ones from serde_json values, and
/// mutations of them.
fn value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-zé\"\\\\\n😀]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-c]{0,2}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn accept_reject_agrees_with_serde_json(
        v in value(),
        pretty in any::<bool>(),
        mutate in prop::option::of((any::<prop::sample::Index>(), prop::sample::select(vec![
            "", ",", "]", "}", "\"", "0", "-", ".", "e", " ", "tru", "\\", "[", "{", ":", "\u{1}",
        ]))),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut text = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { serde_json::to_string(&v).unwrap() };
        if let Some((at, insert)) = mutate {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) { i -= 1; }
            text.insert_str(i, insert);
        }
        let oracle = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
        let whole = parse_pieces(&[text.as_bytes()]);
        prop_assert_eq!(whole.1.is_none(), oracle, "{} -> {:?}", text, whole.1);
        let at = cut.index(text.len() + 1);
        let (a, b) = text.as_bytes().split_at(at);
        prop_assert_eq!(parse_pieces(&[a, b]), whole);
    }
}

#[test]
fn nan_and_infinity_are_refused_naming_the_cause() {
    // What Python's json.dumps writes for float('nan') and float('inf'):
    // the refusal names the token and where it comes from, however the
    // input was cut (check parses whole, split at every byte, byte by byte).
    for doc in ["[NaN]", "{\"x\": Infinity}", "[1, -Infinity]", "NaN"] {
        let (_, err) = check(doc.as_bytes());
        let err = err.unwrap_or_else(|| panic!("{doc:?} must be refused"));
        assert!(err.contains("is not JSON"), "{doc:?}: {err}");
        assert!(
            err.contains("json.dumps") && err.contains("write null"),
            "{doc:?}: {err}"
        );
    }
    // A literal that merely starts with the same letter is not blamed on NaN.
    let (_, err) = check(b"[nul]");
    assert!(!err.unwrap().contains("NaN"));
}

/// Keys of every length around the path tracker's in-place widths (4,
/// 8, 16, 32 bytes) come back whole in pointers, and a shorter key after
/// a longer one leaves nothing of it behind; a level that turns from an
/// array into an object and back keeps its key right.
#[test]
fn path_keys_of_every_length_round_trip() {
    use plumb_json::{PathToken, PathTracker};
    let mut t = PathTracker::default();
    t.open(true);
    for n in (0..80).chain((0..80).rev()) {
        let key: String = (0..n)
            .map(|i| char::from(b'a' + (i * 7 + n) as u8 % 26))
            .collect();
        t.key(key.as_bytes());
        assert_eq!(t.pointer(), format!("/{key}"), "{n}");
        assert_eq!(t.token_at(0), Some(PathToken::Key(&key)), "{n}");
        t.value_starts();
        t.open(false);
        t.value_starts();
        assert_eq!(t.pointer(), format!("/{key}/0"), "{n}");
        t.close();
        t.value_starts();
        t.open(true);
        t.key(b"inner");
        assert_eq!(t.pointer(), format!("/{key}/inner"), "{n}");
        t.close();
    }
}

/// Documents whose strings and gaps are long enough for the fast path's
/// block masks (`parser/block.rs`): strings up to 300 characters, runs
/// of white space with line breaks, faults planted inside them.
fn long_runs() -> impl Strategy<Value = String> {
    use serde_json::Value;
    let leaf = prop_oneof![
        any::<i64>().prop_map(Value::from),
        "[a-z é\"\\\\\n\t😀]{0,300}".prop_map(Value::from),
    ];
    let doc = leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{0,40}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    (
        doc,
        any::<bool>(),
        prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                prop::sample::select(vec![
                    "\u{1}",
                    "\u{1f}",
                    "\"",
                    "\\",
                    "\n",
                    " \n\t\r\n                                          ",
                    "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n x",
                ]),
            ),
            0..3,
        ),
    )
        .prop_map(|(v, pretty, inserts)| {
            let mut text = if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                serde_json::to_string(&v).unwrap()
            };
            for (at, insert) in inserts {
                let mut i = at.index(text.len() + 1);
                while !text.is_char_boundary(i) {
                    i -= 1;
                }
                text.insert_str(i, insert);
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The block masks cross long strings and gaps only when a push holds
    /// a block's bytes: one byte at a time never uses them, whole input
    /// does, and the two must tell the same events, lines and faults.
    #[test]
    fn long_strings_and_gaps_read_the_same_through_the_block_masks(
        text in long_runs(),
        cut in any::<prop::sample::Index>(),
    ) {
        let oracle = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
        let whole = parse_pieces(&[text.as_bytes()]);
        prop_assert_eq!(whole.1.is_none(), oracle, "{} -> {:?}", text, whole.1);
        let bytes: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
        prop_assert_eq!(&parse_pieces(&bytes), &whole);
        let at = cut.index(text.len() + 1);
        let (a, b) = text.as_bytes().split_at(at);
        prop_assert_eq!(parse_pieces(&[a, b]), whole);
    }
}
