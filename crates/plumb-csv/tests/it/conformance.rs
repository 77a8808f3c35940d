//! csv-spectrum from ../shared/conformance: each file, parsed with the
//! first row as header, must equal its expected JSON exactly. Skips with
//! a printed note when the shared folder is absent.

use std::path::PathBuf;

use plumb_core::TextStream;
use plumb_csv::{select, CsvFormat, CsvOptions, HeaderMode, SelectOptions};
use serde_json::{Map, Value};

fn spectrum() -> Option<PathBuf> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/csv-spectrum");
    dir.is_dir().then_some(dir)
}

#[test]
fn csv_spectrum_matches_its_expected_json() {
    let Some(dir) = spectrum() else {
        eprintln!("note: ../shared/conformance/csv-spectrum is absent; skipped");
        return;
    };
    let mut checked = 0;
    for entry in std::fs::read_dir(dir.join("csvs")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let expected: Value = serde_json::from_slice(
            &std::fs::read(dir.join("json").join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        let opts = CsvOptions {
            delimiter: Some(b','),
            header: HeaderMode::Present,
            ..CsvOptions::default()
        };
        let window = SelectOptions {
            window: plumb_core::Window {
                offset: Some(0),
                limit: Some(1000),
                from_end: None,
            },
            columns: None,
        };
        let got = select(
            TextStream::open(&path).unwrap(),
            CsvFormat::Csv,
            &opts,
            &window,
        )
        .unwrap();
        let header = got.header.clone().unwrap();
        let objects: Vec<Value> = got
            .rows
            .iter()
            .map(|row| {
                let mut m = Map::new();
                for (h, cell) in header.iter().zip(row) {
                    let name = h.as_text().expect("a whole header name").to_owned();
                    m.insert(name, Value::from(cell.as_text().unwrap_or_default()));
                }
                Value::Object(m)
            })
            .collect();
        assert_eq!(Value::Array(objects), expected, "{name}");
        checked += 1;
    }
    assert_eq!(checked, 11, "every csv-spectrum file was checked");
}
