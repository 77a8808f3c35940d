//! Format resolution: explicit, then extension, then sniff.

use std::path::PathBuf;

use plumb::{DetectedBy, Plumb};
use plumb_core::RefusalReason;

fn file(dir: &tempfile::TempDir, name: &str, content: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, content).unwrap();
    p
}

#[test]
fn resolution_priority() {
    let dir = tempfile::tempdir().unwrap();
    let plumb = Plumb::new();
    let csv = file(&dir, "data.csv", b"a,b\n1,2\n");
    let d = plumb.detect(&csv, Some(" JSON ")).unwrap();
    assert_eq!((d.reader.name(), d.by), ("json", DetectedBy::Explicit));
    let e = plumb.detect(&csv, Some("yaml")).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::UnsupportedFormat);
    assert!(e.message().contains("`yaml`"), "{}", e.message());
    let d = plumb.detect(&csv, None).unwrap();
    assert_eq!((d.reader.name(), d.by), ("csv", DetectedBy::Extension));
    let upper = file(&dir, "DATA.TAB", b"a\tb\n");
    assert_eq!(plumb.detect(&upper, None).unwrap().reader.name(), "tsv");
    let nd = file(&dir, "x.NDJSON", b"{}\n");
    assert_eq!(plumb.detect(&nd, None).unwrap().reader.name(), "jsonl");
}

#[test]
fn sniffing_without_an_extension() {
    let dir = tempfile::tempdir().unwrap();
    let plumb = Plumb::new();
    let cases: &[(&str, &[u8], Option<&str>)] = &[
        ("tabs.txt", b"a\tb\n1\t2\n", Some("tsv")),
        ("commas.txt", b"a,b\n1,2\n", Some("csv")),
        ("pipes", b"a|b\n1|2\n", Some("csv")),
        ("one.txt", b"{\"a\": 1}", Some("json")),
        ("two.txt", b"{\"a\": 1}\n{\"a\": 2}\n", Some("jsonl")),
        ("pretty.txt", b"{\n  \"a\": 1\n}\n", Some("json")),
        ("array.dat", b"  [1, 2]", Some("json")),
        (
            "bom.txt",
            b"\xEF\xBB\xBF{\"a\": 1}\n{\"a\": 2}\n",
            Some("jsonl"),
        ),
        (
            "prose.txt",
            b"This is just some prose.\nNothing tabular here.\n",
            None,
        ),
    ];
    for (name, content, want) in cases {
        let p = file(&dir, name, content);
        match (plumb.detect(&p, None), want) {
            (Ok(d), Some(w)) => {
                assert_eq!(d.reader.name(), *w, "{name}");
                assert_eq!(d.by, DetectedBy::Sniff, "{name}");
            }
            (Err(e), None) => assert_eq!(e.reason(), RefusalReason::UnsupportedFormat, "{name}"),
            (got, _) => panic!("{name}: {got:?}"),
        }
    }
}
