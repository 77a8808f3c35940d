//! JSONTestSuite from ../shared/conformance: every `y_` accepted, every
//! `n_` rejected, every `i_` answered without a crash (the choices are
//! listed in docs/json.md). Skips with a note when the folder is absent.

use std::path::PathBuf;

use plumb_core::ScanBounds;
use plumb_core::TextStream;
use plumb_json::validate;

fn suite() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance/json-testsuite/test_parsing");
    dir.is_dir().then_some(dir)
}

/// Accepted: the stream and the parser both took it.
fn accepts(path: &std::path::Path) -> bool {
    match validate(TextStream::open(path).unwrap(), &ScanBounds::default()) {
        Ok(r) => r.valid == Some(true),
        Err(_) => false,
    }
}

#[test]
fn json_test_suite_verdicts() {
    let Some(dir) = suite() else {
        eprintln!("note: ../shared/conformance/json-testsuite is absent; skipped");
        return;
    };
    let mut counts = [0usize; 3];
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let accepted = accepts(&path);
        match &name[..2] {
            "y_" => {
                counts[0] += 1;
                if !accepted {
                    wrong.push(format!("{name} rejected"));
                }
            }
            "n_" => {
                counts[1] += 1;
                if accepted {
                    wrong.push(format!("{name} accepted"));
                }
            }
            _ => {
                counts[2] += 1;
                if std::env::var_os("PLUMB_SHOW_I").is_some() {
                    eprintln!("{name}\t{}", if accepted { "accepted" } else { "rejected" });
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong verdicts:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(
        counts[0] > 90 && counts[1] > 180 && counts[2] > 30,
        "{counts:?}"
    );
}
