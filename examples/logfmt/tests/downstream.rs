//! The downstream reader through plumb's own entry points.

use plumb::{DetectedBy, Op, Options, Plumb, Request, Window};
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
        .inspect(&path, None, &Request::default())
        .unwrap()
        .to_json();
    assert_eq!(inspect["ok"], true);
    assert_eq!(inspect["format"], "logfmt");
    assert_eq!(inspect["view"]["exact"], true);
    assert_eq!(inspect["rows_scanned"], 3);
    assert_eq!(inspect["keys"]["level"], 2);
    assert_eq!(inspect["invalid"], 1);

    let opts = Request {
        window: Window {
            offset: Some(1),
            limit: Some(1),
            from_end: None,
        },
        ..Default::default()
    };
    let select = p.run(Op::Select, &path, None, &opts).unwrap();
    let w = select.window().unwrap();
    assert_eq!((w.returned, w.has_more), (1, true));
    let v = select.to_json();
    assert_eq!(v["records"][0]["msg"], "slow \"disk\"");
    assert_eq!(v["records"][0]["retry"], true);

    let validate = p.validate(&path, None, &Request::default()).unwrap();
    assert_eq!(validate.verdict(), Some(Some(false)));
    assert_eq!(validate.to_json()["first_invalid"][0], 4);

    // The dispatcher's cross-check applies to downstream readers too.
    let bad = Request {
        options: Options::new().with("pointer", "/x"),
        ..Default::default()
    };
    let e = p.select(&path, None, &bad).unwrap_err();
    assert_eq!(e.reason(), plumb::RefusalReason::InvalidArgument);
    assert!(
        e.message().contains("it is an option of json")
            && e.message()
                .contains("logfmt select takes: keys, offset, limit"),
        "{}",
        e.message()
    );
}

#[test]
fn its_own_option_is_declared_checked_and_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.logfmt");
    std::fs::write(&path, LOG).unwrap();
    let p = plumb();
    // Given as text, read as the list it is declared to be.
    let req = Request {
        options: Options::new().with("keys", "level , ms"),
        ..Default::default()
    };
    let v = p.select(&path, None, &req).unwrap().to_json();
    assert_eq!(
        v["records"][1],
        serde_json::json!({"level": "warn", "ms": "1200", "_line": 2})
    );
    // A wrong type is refused by the declaration, naming the option.
    let req = Request {
        options: Options::new().with("keys", serde_json::json!({"a": 1})),
        ..Default::default()
    };
    let e = p.select(&path, None, &req).unwrap_err();
    assert!(
        e.message().starts_with("`keys` takes a list"),
        "{}",
        e.message()
    );
    // The option is the reader's: it does not apply to inspect, and
    // another format is told which one takes it.
    let e = p.inspect(&path, None, &req).unwrap_err();
    assert!(e.message().contains("it is for select"), "{}", e.message());
    let csv = dir.path().join("a.csv");
    std::fs::write(&csv, "a,b\n1,2\n").unwrap();
    let e = p.select(&csv, None, &req).unwrap_err();
    assert!(
        e.message().contains("it is an option of logfmt"),
        "{}",
        e.message()
    );
    // The registry lists it for the CLI and the tool schema.
    let declared = p.registry().options();
    let keys = declared.iter().find(|d| d.spec.name == "keys").unwrap();
    assert_eq!(
        (keys.formats.clone(), keys.ops.clone()),
        (vec!["logfmt"], vec![Op::Select])
    );
}

#[test]
fn a_line_past_the_cap_is_a_fault_never_held_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.logfmt");
    let cap = plumb_core::LINE_MAX_BYTES;
    let long = format!("level=info msg={}\n", "x".repeat(cap + 1));
    std::fs::write(&path, format!("level=info\n{long}level=warn\n")).unwrap();
    let validate = plumb().validate(&path, None, &Request::default()).unwrap();
    assert_eq!(validate.verdict(), Some(Some(false)));
    let json = validate.to_json();
    assert_eq!(json["first_invalid"][0], 2);
    let why = json["first_invalid"][1].as_str().unwrap();
    assert!(why.contains(&(cap + 16).to_string()), "{why}");
}
