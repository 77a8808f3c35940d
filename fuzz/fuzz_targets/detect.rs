//! Format detection: any name and any bytes give a registered format or
//! an `unsupported-format` refusal naming the registered ones; the same
//! input always gives the same answer; bytes that `plumb::identify`
//! names (gzip, xlsx, UTF-16...) are refused with that name.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb::Registry;
use plumb_core::{BytesSource, RefusalReason};

const NAMES: [&str; 6] = ["x.csv", "x.TSV", "x.json", "x.ndjson", "x.txt", "x"];

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, data)) = input.split_first() else {
        return;
    };
    let registry = Registry::with_builtins();
    let source = BytesSource::new(NAMES[usize::from(ctl) % NAMES.len()], data.to_vec());
    let first = registry.detect(&source, None);
    let again = registry.detect(&source, None);
    match (&first, &again) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.reader.name(), b.reader.name());
            assert!(registry.names().contains(&a.reader.name()));
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.reason(), RefusalReason::UnsupportedFormat);
            assert_eq!(a.message(), b.message());
        }
        _ => panic!("detection is not deterministic"),
    }
    // Bytes that name a container or another encoding are refused for it,
    // whatever the file is called.
    if let Some(found) = plumb::identify(&data[..data.len().min(plumb::SNIFF_BYTES)]) {
        let refusal = first
            .as_ref()
            .err()
            .expect("a container is never a text format");
        assert_eq!(
            refusal.extra("found"),
            Some(&serde_json::Value::from(found.name))
        );
    }
    let _ = registry.by_sniff(data);
});
