//! `cargo xtask conformance`: every suite in ../shared/conformance run
//! against plumb, one pass/fail row per suite. A documented choice counts
//! as a pass only where docs/ states it (docs/conformance.md).

use std::path::{Path, PathBuf};

use serde_json::Value;

mod binary;
mod csv;
mod json;

use binary::{binary_containers, calamine_spreadsheets, parquet_testing};
use csv::{clevercsv, csv_spectrum, csvlint, system_tables, tsv_utils, w3c};
use json::{json_testsuite, jsonlines, read_suite, rfc6901, utf8};

/// One suite's outcome.
pub struct Row {
    pub suite: &'static str,
    pub passed: usize,
    pub failed: Vec<String>,
    pub documented: usize,
}

impl Row {
    fn new(suite: &'static str) -> Row {
        Row {
            suite,
            passed: 0,
            failed: Vec::new(),
            documented: 0,
        }
    }

    fn check(&mut self, ok: bool, what: impl Into<String>) {
        if ok {
            self.passed += 1;
        } else {
            self.failed.push(what.into());
        }
    }

    fn documented(&mut self, ok: bool, what: impl Into<String>) {
        if ok {
            self.passed += 1;
            self.documented += 1;
        } else {
            self.failed.push(what.into());
        }
    }
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_default()).unwrap_or(Value::Null)
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// Runs every suite under `root`.
pub fn run(root: &Path) -> Vec<Row> {
    vec![
        json_testsuite(root),
        csv_spectrum(root),
        tsv_utils(root),
        csvlint(root),
        w3c(root),
        clevercsv(root),
        system_tables(),
        utf8(root),
        rfc6901(root),
        jsonlines(root),
        read_suite(root),
        binary_containers(root),
        parquet_testing(root),
        calamine_spreadsheets(root),
    ]
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}
