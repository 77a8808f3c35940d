//! The peers of `cargo xtask bench --process` that are libraries, not
//! programs: each mode reads a file the way a Rust user would without
//! plumb and prints what it counted, so the whole process (start-up, file
//! reading, the parse) is timed beside plumb's own.
//!
//! - `gen mixed-csv|objects-json|records-jsonl FILE MIB`: writes the
//!   benches' generated input (`plumb_benches`), so both sides read the
//!   same bytes as the criterion benches do.
//! - `csv-records FILE`: the `csv` crate's `read_byte_record` loop.
//! - `serde-reader FILE`: serde_json `from_reader` into `IgnoredAny`
//!   (streaming, as plumb does).
//! - `serde-slice FILE`: the whole file read into memory, then
//!   `from_slice` into `IgnoredAny`.
//! - `serde-lines FILE`: JSON Lines, each line `from_slice` into
//!   `IgnoredAny`, read through a buffered reader.
//!
//! A parse error exits 1: a peer that did not read the file is no
//! measure.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::process::ExitCode;

use serde::de::IgnoredAny;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match run(&args) {
        Ok(n) => {
            println!("{n}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("peer-harness: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[&str]) -> Result<u64, String> {
    let open = |p: &str| File::open(p).map_err(|e| format!("{p}: {e}"));
    match args {
        ["gen", kind, path, mib] => {
            let bytes = mib.parse::<usize>().map_err(|e| e.to_string())? << 20;
            let data = match *kind {
                "mixed-csv" => plumb_benches::mixed_csv(bytes),
                "objects-json" => plumb_benches::objects_json(bytes),
                "records-jsonl" => plumb_benches::records_jsonl(bytes),
                other => return Err(format!("no generator {other}")),
            };
            let mut f = File::create(path).map_err(|e| e.to_string())?;
            f.write_all(&data).map_err(|e| e.to_string())?;
            Ok(data.len() as u64)
        }
        ["csv-records", path] => {
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .from_reader(open(path)?);
            let mut record = csv::ByteRecord::new();
            let mut n = 0;
            while reader
                .read_byte_record(&mut record)
                .map_err(|e| e.to_string())?
            {
                n += 1;
            }
            Ok(n)
        }
        ["serde-reader", path] => {
            let _: IgnoredAny = serde_json::from_reader(BufReader::new(open(path)?))
                .map_err(|e| e.to_string())?;
            Ok(1)
        }
        ["serde-slice", path] => {
            let data = std::fs::read(path).map_err(|e| e.to_string())?;
            let _: IgnoredAny = serde_json::from_slice(&data).map_err(|e| e.to_string())?;
            Ok(1)
        }
        ["serde-lines", path] => {
            let mut reader = BufReader::with_capacity(1 << 16, open(path)?);
            let mut line = Vec::new();
            let mut n = 0;
            loop {
                line.clear();
                let read = reader
                    .read_until(b'\n', &mut line)
                    .map_err(|e| e.to_string())?;
                if read == 0 {
                    return Ok(n);
                }
                let text = line.strip_suffix(b"\n").unwrap_or(&line);
                if text.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let _: IgnoredAny = serde_json::from_slice(text)
                    .map_err(|e| format!("line {}: {e}", n + 1))?;
                n += 1;
            }
        }
        _ => Err("usage: peer-harness gen KIND FILE MIB | csv-records FILE | serde-reader FILE | serde-slice FILE | serde-lines FILE".to_owned()),
    }
}
