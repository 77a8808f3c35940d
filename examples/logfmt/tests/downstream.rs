//! The downstream reader through plumb's own entry points.

use plumb::{DetectedBy, Op, Plumb, ReadOptions};
use plumb_example_logfmt::Logfmt;

const LOG: &str = "level=info msg=\"server started\" port=8080\nlevel=warn msg=\"slow \\\"disk\\\"\" ms=1200 retry\n\nlevel=error msg=\"unclosed\n";

fn plumb() -> Plumb {
    let mut p = Plumb::new();
    p.registry_mut().register(Logfmt);
    p
}

#[test]
fn registered_by_extension_and_by_sniff() {
    let dir = tempfile::tempdir().unwrap();
    let by_ext = dir.path().join("app.logfmt");
    std::fs::write(&by_ext, LOG).unwrap();
    let d = plumb().detect(&by_ext, None).unwrap();
    assert_eq!((d.reader.name(), d.by), ("logfmt", DetectedBy::Extension));
    let by_sniff = dir.path().join("app.log");
    std::fs::write(&by_sniff, LOG).unwrap();
    let d = plumb().detect(&by_sniff, None).unwrap();
    assert_eq!((d.reader.name(), d.by), ("logfmt", DetectedBy::Sniff));
    // Without the registration, the same file is unsupported.
    assert!(Plumb::new().detect(&by_sniff, None).is_err());
    assert!(plumb().registry().names().contains(&"logfmt"));
}

#[test]
fn every_entry_point_answers_in_the_cli_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.logfmt");
    std::fs::write(&path, LOG).unwrap();
    let p = plumb();
    let inspect = p
        .inspect(&path, None, &ReadOptions::default())
        .unwrap()
        .to_json();
    assert_eq!(inspect["ok"], true);
    assert_eq!(inspect["format"], "logfmt");
    assert_eq!(inspect["view"]["exact"], true);
    assert_eq!(inspect["rows_scanned"], 3);
    assert_eq!(inspect["keys"]["level"], 2);
    assert_eq!(inspect["invalid"], 1);

    let opts = ReadOptions {
        offset: Some(1),
        limit: Some(1),
        ..Default::default()
    };
    let select = p.run(Op::Select, &path, None, &opts).unwrap();
    let w = select.window().unwrap();
    assert_eq!((w.returned, w.has_more), (1, true));
    let v = select.to_json();
    assert_eq!(v["records"][0]["msg"], "slow \"disk\"");
    assert_eq!(v["records"][0]["retry"], true);

    let validate = p.validate(&path, None, &ReadOptions::default()).unwrap();
    assert_eq!(validate.verdict(), Some(Some(false)));
    assert_eq!(validate.to_json()["first_invalid"][0], 4);

    // The dispatcher's cross-check applies to downstream readers too.
    let bad = ReadOptions {
        pointer: Some("/x".into()),
        ..Default::default()
    };
    let e = p.select(&path, None, &bad).unwrap_err();
    assert_eq!(e.reason(), plumb::RefusalReason::InvalidArgument);
    assert!(
        e.message().contains("logfmt select takes: offset, limit"),
        "{}",
        e.message()
    );
}
