//! memtest's hostile rows: small files of the newer readers (xlsx, ods,
//! Parquet) that declare far more than they hold, written here byte by
//! byte or by plumb-testkit's crafted-Parquet writer; a Parquet work bomb
//! read within a byte budget; a table of ten thousand columns whose
//! statistics every value fills, and one of empty cells, each also shown
//! as a person sees it; remote scans split over threads; and datasets of
//! many files.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::memtest::{cli, screen, tool_call, Case};

/// Small files of the newer readers that declare far more than they
/// hold (whatever `--memtest-mb` says): each op answers or refuses within
/// the same limit as the large inputs.
pub(crate) fn hostile(dir: &Path) -> std::io::Result<Vec<Case>> {
    use plumb_testkit::parquet::{
        dictionary_file, dictionary_run_file, many_row_groups_file, nested_schema_file,
        page_claim_file,
    };
    let ops = |p: &Path, extra: &[&str]| -> Vec<Vec<String>> {
        ["inspect", "select", "validate"]
            .iter()
            .map(|op| cli(op, p, extra))
            .chain([cli("search", p, &[&["a"][..], extra].concat())])
            .collect()
    };
    let mut out = Vec::new();
    let zip = |name: &str, parts: &[(&str, Vec<u8>)]| -> std::io::Result<PathBuf> {
        let p = dir.join(name);
        let mut z = zip::ZipWriter::new(std::io::BufWriter::new(std::fs::File::create(&p)?));
        for (part, bytes) in parts {
            z.start_file(*part, zip::write::SimpleFileOptions::default())?;
            z.write_all(bytes)?;
        }
        z.finish()?.flush()?;
        Ok(p)
    };
    let main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
    let rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    let xlsx = |name: &str, sheet: Vec<u8>, shared: Vec<u8>| {
        zip(
            name,
            &[
                ("[Content_Types].xml", b"<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>".to_vec()),
                ("xl/workbook.xml", format!("<workbook xmlns=\"{main}\" xmlns:r=\"{rel}\"><sheets><sheet name=\"S\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>").into_bytes()),
                ("xl/_rels/workbook.xml.rels", format!("<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship Id=\"rId1\" Type=\"{rel}/worksheet\" Target=\"worksheets/sheet1.xml\"/></Relationships>").into_bytes()),
                ("xl/worksheets/sheet1.xml", [format!("<worksheet xmlns=\"{main}\"><sheetData>").into_bytes(), sheet, b"</sheetData></worksheet>".to_vec()].concat()),
                ("xl/sharedStrings.xml", shared),
            ],
        )
    };
    let p = xlsx(
        "unique_count.xlsx",
        b"<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c></row>".to_vec(),
        b"<sst uniqueCount=\"99999999999999\"><si><t>a</t></si></sst>".to_vec(),
    )?;
    out.push((
        "xlsx declaring 10^14 shared strings (2 KB)",
        p.clone(),
        ops(&p, &[]),
    ));
    let mut cell = b"<row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>".to_vec();
    cell.extend(std::iter::repeat_n(b'a', 100 << 20));
    cell.extend_from_slice(b"</t></is></c></row>");
    let p = xlsx("inline_string.xlsx", cell, b"<sst/>".to_vec())?;
    out.push((
        "xlsx, one cell of 100 MiB (100 KB)",
        p.clone(),
        ops(&p, &[]),
    ));
    let content = |rows: &str| {
        format!("<office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\"><office:body><office:spreadsheet><table:table table:name=\"S\">{rows}</table:table></office:spreadsheet></office:body></office:document-content>").into_bytes()
    };
    let p = zip(
        "spaces.ods",
        &[
            ("mimetype", b"application/vnd.oasis.opendocument.spreadsheet".to_vec()),
            ("content.xml", content("<table:table-row><table:table-cell office:value-type=\"string\"><text:p>a<text:s text:c=\"2000000000\"/></text:p></table:table-cell></table:table-row>")),
        ],
    )?;
    out.push((
        "ods, one text:s of 2 billion spaces (1 KB)",
        p.clone(),
        ops(&p, &[]),
    ));
    let p = dir.join("dictionary.parquet");
    std::fs::write(&p, dictionary_file(i32::MAX, vec![1, 0, 0, 0]))?;
    out.push((
        "Parquet dictionary declaring 2^31 entries (300 B)",
        p.clone(),
        ops(&p, &[]),
    ));
    let p = dir.join("page_claim.parquet");
    std::fs::write(&p, page_claim_file(8))?;
    out.push((
        "Parquet page declaring 2 GiB decompressed",
        p.clone(),
        ops(&p, &[]),
    ));
    let p = dir.join("nested.parquet");
    std::fs::write(&p, nested_schema_file(10_000))?;
    out.push(("Parquet schema nested 10,000 deep", p.clone(), ops(&p, &[])));
    let p = dir.join("groups.parquet");
    std::fs::write(&p, many_row_groups_file(200_000))?;
    out.push((
        "Parquet footer of 200,000 row groups",
        p.clone(),
        ops(&p, &[]),
    ));
    // One 64 KiB value repeated 2^30 times: 64 TB of values, read within
    // a budget on the command line and the agent surface's default.
    let p = dir.join("run.parquet");
    std::fs::write(&p, dictionary_run_file(64 << 10, 1 << 30))?;
    let budget = ["--max-scan-bytes", "268435456"];
    let mut run: Vec<Vec<String>> = ["inspect", "validate"]
        .iter()
        .map(|op| cli(op, &p, &budget))
        .collect();
    run.push(cli("select", &p, &[]));
    run.push(cli("search", &p, &[&["a"][..], &budget].concat()));
    run.push(cli("inspect", &p, &[&["--stats"][..], &budget].concat()));
    for (op, args) in [
        (
            "inspect",
            r#"{"op":"inspect","path":"run.parquet","stats":true}"#,
        ),
        ("validate", r#"{"op":"validate","path":"run.parquet"}"#),
        (
            "search",
            r#"{"op":"search","path":"run.parquet","pattern":"a"}"#,
        ),
    ] {
        run.push(tool_call(dir, &format!("run.{op}"), args)?);
    }
    out.push(("Parquet dictionary run of 64 TB (budgeted)", p, run));
    out.push(wide_statistics(dir)?);
    out.push(empty_cells(dir)?);
    Ok(out)
}

/// Ten thousand columns of empty cells, a thousand rows (10 MB): a
/// window of them prints little but holds a cell each.
fn empty_cells(dir: &Path) -> std::io::Result<Case> {
    let p = dir.join("empty_cells.csv");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&p)?);
    let header: Vec<String> = (0..10_000).map(|c| format!("c{c}")).collect();
    writeln!(w, "{}", header.join(","))?;
    let row = ",".repeat(9_999);
    for _ in 0..1_000 {
        writeln!(w, "{row}")?;
    }
    w.flush()?;
    let ops = vec![
        cli("select", &p, &["--limit", "1000"]),
        screen("select", &p, &["--limit", "1000"]),
        screen("inspect", &p, &[]),
    ];
    Ok(("a window of ten million empty cells (csv)", p, ops))
}

/// Ten thousand columns of numbers and text, 600 rows of values that are
/// mostly new: every column's sketches fill, so statistics are held for
/// as many columns as keep them.
fn wide_statistics(dir: &Path) -> std::io::Result<Case> {
    let p = dir.join("wide_stats.csv");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&p)?);
    for row in 0..601u64 {
        for c in 0..10_000u64 {
            if c > 0 {
                w.write_all(b",")?;
            }
            match (row, c % 2) {
                (0, _) => write!(w, "c{c}")?,
                (_, 0) => write!(w, "{}", (row * 7919 + c * 104_729) % 1_000_003)?,
                _ => write!(w, "t{}x{row}", (row * 31 + c) % 997)?,
            }
        }
        w.write_all(b"\n")?;
    }
    w.flush()?;
    let ops = vec![
        cli("inspect", &p, &["--stats"]),
        cli("inspect", &p, &["--stats", "--threads", "2"]),
        screen("inspect", &p, &["--stats"]),
        screen("select", &p, &["--limit", "1000"]),
        cli("select", &p, &["--limit", "1000"]),
        tool_call(
            dir,
            "wide_stats.inspect",
            r#"{"op":"inspect","path":"wide_stats.csv","stats":true}"#,
        )?,
    ];
    Ok(("10 thousand columns with statistics filled (csv)", p, ops))
}

/// Remote files of `mb` MiB (CSV, JSON Lines, a JSON array) served over
/// HTTP by `server`, each scanned split over four threads: the parts
/// share one scan's buffers.
pub(crate) fn remote(server: &plumb_testkit::http::Server, mb: u64) -> Vec<Case> {
    let size = usize::try_from(mb << 20).unwrap_or(usize::MAX);
    let lines = |line: &dyn Fn(usize) -> String| {
        let mut text = String::with_capacity(size + 256);
        let mut i = 0;
        while text.len() < size {
            text.push_str(&line(i));
            i += 1;
        }
        text
    };
    let csv = format!(
        "id,name,score\n{}",
        lines(&|i| format!("{i},n{},{}.5\n", i % 1000, i % 977))
    );
    let jsonl = lines(&|i| {
        format!(
            "{{\"id\":{i},\"name\":\"n{}\",\"v\":{}.5}}\n",
            i % 1000,
            i % 977
        )
    });
    let json = format!("[{}]", jsonl.trim_end().replace('\n', ","));
    let mut out = Vec::new();
    for (name, path, text) in [
        ("remote csv split over 4 threads", "/split.csv", csv),
        ("remote jsonl split over 4 threads", "/split.jsonl", jsonl),
        ("remote json split over 4 threads", "/split.json", json),
    ] {
        server.put(path, text.into_bytes());
        let url = server.url(path);
        let ops = ["validate", "inspect"]
            .iter()
            .map(|op| {
                [*op, url.as_str(), "--json", "--threads", "4"]
                    .map(str::to_owned)
                    .to_vec()
            })
            .chain([[
                "inspect",
                url.as_str(),
                "--json",
                "--threads",
                "4",
                "--stats",
            ]
            .map(str::to_owned)
            .to_vec()])
            .collect();
        out.push((name, PathBuf::from(path), ops));
    }
    out
}

/// Datasets: a hundred thousand small files in a hundred folders (two
/// schemas, a planted fault), and two thousand files whose columns all
/// differ (a hundred thousand names, past the merged columns' cap): the
/// listing, the per-file lines and the merged columns are capped, so
/// memory does not grow with the files.
pub(crate) fn datasets(dir: &Path) -> std::io::Result<Vec<Case>> {
    let many = dir.join("many");
    for i in 0..100_000u32 {
        let folder = many.join(format!("{:03}", i / 1000));
        if i % 1000 == 0 {
            std::fs::create_dir_all(&folder)?;
        }
        let body = if i == 77_777 {
            "id,v\n1\n".to_owned()
        } else {
            format!("id,v{}\n{i},x\n", i % 2)
        };
        std::fs::write(folder.join(format!("f{i:06}.csv")), body)?;
    }
    let wide = dir.join("wide");
    std::fs::create_dir_all(&wide)?;
    for i in 0..2_000u32 {
        let head: Vec<String> = (0..50).map(|j| format!("c{i}_{j}")).collect();
        let row: Vec<String> = (0..50).map(|j| j.to_string()).collect();
        std::fs::write(
            wide.join(format!("w{i:05}.csv")),
            format!("{}\n{}\n", head.join(","), row.join(",")),
        )?;
    }
    // Wide files whose columns hold many values, so every full budget
    // fills: their statistics merged across files, names shifting from
    // file to file so the union passes the statistics' column cap.
    let stats = dir.join("stats");
    std::fs::create_dir_all(&stats)?;
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for f in 0..8u64 {
        let head: Vec<String> = (0..300u64)
            .map(|c| format!("c{:03}", (c * 7 + f * 53) % 700))
            .collect();
        let mut text = head.join(",");
        text.push('\n');
        for _ in 0..3_000 {
            let row: Vec<String> = (0..300)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % 1_000_000_000).to_string()
                })
                .collect();
            text.push_str(&row.join(","));
            text.push('\n');
        }
        std::fs::write(stats.join(format!("s{f}.csv")), text)?;
    }
    let glob = format!("{}/**/*.csv", many.display());
    Ok(vec![
        (
            "100,000 small CSV files (dataset)",
            many.clone(),
            vec![
                cli("inspect", &many, &[]),
                cli("inspect", &many, &["--stats"]),
                cli("validate", &many, &[]),
                cli("search", &many, &["99999"]),
                cli("detect", &many, &[]),
                cli("inspect", Path::new(&glob), &[]),
                screen("inspect", &many, &[]),
                tool_call(dir, "dataset_many", r#"{"op": "inspect", "path": "many"}"#)?,
            ],
        ),
        (
            "2,000 files of 50 columns each, every name new (dataset)",
            wide.clone(),
            vec![
                cli("inspect", &wide, &[]),
                cli("inspect", &wide, &["--stats"]),
                screen("inspect", &wide, &[]),
            ],
        ),
        (
            "8 files of 300 columns of distinct numbers, statistics merged (dataset)",
            stats.clone(),
            vec![
                cli("inspect", &stats, &["--stats"]),
                screen("inspect", &stats, &["--stats"]),
            ],
        ),
    ])
}
