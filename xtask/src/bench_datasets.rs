//! `cargo xtask bench --process`'s dataset rows: many files read as one
//! beside one file of the same total size (the cost of being many), and
//! beside DuckDB's `read_csv(..., union_by_name=true)` over the same glob.
//!
//! - 10,000 CSV files of about 10 KB, one in a hundred with a column
//!   added and a type that changes: inspect.
//! - 200 JSON Lines files of 5 MiB: validate, beside one of 1,000 MiB.

use std::io::Write;
use std::path::Path;
use std::process::Command;

/// A CSV part of about 10 KB: `drift` adds a column and turns one
/// amount to text. Rows are also appended to `whole` (the one file).
fn csv_part(i: u32, drift: bool, whole: &mut impl Write) -> std::io::Result<String> {
    let mut text = String::from(if drift {
        "id,name,amount,day,flag,extra\n"
    } else {
        "id,name,amount,day,flag\n"
    });
    let mut n = 0u32;
    while text.len() < 10_000 {
        let amount = if drift && n == 50 {
            "oops".to_owned()
        } else {
            ((i * 7919 + n * 104_729) % 100_000).to_string()
        };
        let row = format!(
            "{},name{n},{amount},2024-01-{:02},{}",
            u64::from(i) * 1000 + u64::from(n),
            n % 28 + 1,
            n.is_multiple_of(2)
        );
        if drift {
            text.push_str(&format!("{row},x\n"));
        } else {
            text.push_str(&row);
            text.push('\n');
            writeln!(whole, "{row}")?;
        }
        n += 1;
    }
    Ok(text)
}

/// The dataset rows: (label, plumb's arguments, the rows it is measured
/// against), each row's peers a name, a program and its arguments.
pub(crate) fn rows(
    dir: &Path,
    harness: &str,
    plumb: &str,
) -> Result<Vec<crate::peers::SpeedRow>, String> {
    let io = |e: std::io::Error| e.to_string();
    let csv_dir = dir.join("csv-parts");
    std::fs::create_dir_all(&csv_dir).map_err(io)?;
    let one_csv = dir.join("csv-one.csv");
    let mut whole = std::io::BufWriter::new(std::fs::File::create(&one_csv).map_err(io)?);
    whole.write_all(b"id,name,amount,day,flag\n").map_err(io)?;
    for i in 0..10_000u32 {
        let text = csv_part(i, i % 100 == 37, &mut whole).map_err(io)?;
        std::fs::write(csv_dir.join(format!("part-{i:05}.csv")), text).map_err(io)?;
    }
    whole.flush().map_err(io)?;
    let jsonl_dir = dir.join("jsonl-parts");
    std::fs::create_dir_all(&jsonl_dir).map_err(io)?;
    let gen = |path: &Path, mb: u64| -> Result<(), String> {
        let ok = Command::new(harness)
            .args([
                "gen",
                "records-jsonl",
                &path.display().to_string(),
                &mb.to_string(),
            ])
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| e.to_string())?
            .success();
        ok.then_some(())
            .ok_or_else(|| "peer-harness gen failed".to_owned())
    };
    for i in 0..200 {
        gen(&jsonl_dir.join(format!("part-{i:03}.jsonl")), 5)?;
    }
    let one_jsonl = dir.join("jsonl-one.jsonl");
    gen(&one_jsonl, 1000)?;
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    let (csv_dir, one_csv) = (csv_dir.display().to_string(), one_csv.display().to_string());
    let (jsonl_dir, one_jsonl) = (
        jsonl_dir.display().to_string(),
        one_jsonl.display().to_string(),
    );
    let mut csv_peers = vec![(
        "plumb, one file of the same size",
        plumb.to_owned(),
        s(&["inspect", &one_csv, "--json"]),
    )];
    if crate::peers::found("python3", &["-c", "import duckdb"]) {
        let glob = format!("{csv_dir}/*.csv");
        let script = format!(
            "import duckdb; c = duckdb.connect(); \
             c.sql(\"SELECT * FROM read_csv('{glob}', union_by_name=true) LIMIT 0\").fetchall(); \
             c.sql(\"DESCRIBE SELECT * FROM read_csv('{glob}', union_by_name=true)\").fetchall()"
        );
        csv_peers.push((
            "duckdb union_by_name + DESCRIBE",
            "python3".into(),
            vec!["-c".into(), script],
        ));
    } else {
        eprintln!("duckdb not importable (pip install duckdb): its dataset row is left out");
    }
    Ok(vec![
        (
            "dataset: 10,000 CSV files inspect",
            s(&["inspect", &csv_dir, "--json"]),
            csv_peers,
        ),
        (
            "dataset: 200 JSONL files validate",
            s(&["validate", &jsonl_dir, "--json"]),
            vec![(
                "plumb, one file of the same size",
                plumb.to_owned(),
                s(&["validate", &one_jsonl, "--json"]),
            )],
        ),
    ])
}
