//! `cargo xtask memtest [--mb N]`: adversarial inputs of N MiB, each
//! operation run by the release `plumb`, each run's peak RSS taken from
//! the operating system; a CLI run over [`RSS_LIMIT_MIB`] fails, and so
//! does an MCP server run over [`MCP_RSS_LIMIT_MIB`].
//!
//! Besides the size-driven inputs, wide CSVs (10 thousand, 1 million and
//! 5 million columns) hold memory to the column tracking cap, and an MCP
//! session of 50 inspects at once holds the server to its scan bound.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The most resident memory one CLI run may take.
pub const RSS_LIMIT_MIB: u64 = 32;

/// The most resident memory the MCP server may take with 50 inspects of
/// a wide file asked at once (it runs at most `MAX_CONCURRENT_SCANS`).
pub const MCP_RSS_LIMIT_MIB: u64 = 256;

const MIB: u64 = 1024 * 1024;

fn write_file(
    path: &Path,
    mut body: impl FnMut(&mut BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    body(&mut w)?;
    w.flush()
}

/// Writes whole copies of `unit` until at least `bytes` are written, so
/// a repeated record is never cut in the middle.
fn repeat(w: &mut impl Write, unit: &[u8], bytes: u64) -> std::io::Result<()> {
    let per_block = ((1usize << 20) / unit.len()).max(1);
    let block = unit.repeat(per_block);
    let mut written = 0u64;
    while written < bytes {
        w.write_all(&block)?;
        written += block.len() as u64;
    }
    Ok(())
}

/// Writes `piece(0)`, `piece(1)`, ... until `bytes` bytes are written:
/// generated inputs whose every line (or member) differs.
pub(crate) fn pieces_until(
    w: &mut impl Write,
    bytes: u64,
    mut piece: impl FnMut(u64) -> String,
) -> std::io::Result<()> {
    let (mut written, mut i) = (0u64, 0u64);
    while written < bytes {
        let text = piece(i);
        w.write_all(text.as_bytes())?;
        written += text.len() as u64;
        i += 1;
    }
    Ok(())
}

/// Fields per record of the record-cap inputs, and bytes per field: as
/// near the 16 MiB record cap as fields under the 1 MiB field cap come.
const FAT_FIELDS: usize = 15;
const FAT_FIELD_BYTES: usize = 1_040_000;

/// One adversarial input: its name, its file, and the commands to run
/// (a command that starts `--stdin FILE` is fed that file).
pub(crate) type Case = (&'static str, PathBuf, Vec<Vec<String>>);

/// A CSV of `cols` columns: a header and two rows.
fn wide_csv(path: &Path, cols: usize) -> std::io::Result<()> {
    write_file(path, |w| {
        for row in 0..3 {
            for c in 0..cols {
                if c > 0 {
                    w.write_all(b",")?;
                }
                if row == 0 {
                    write!(w, "c{c}")?;
                } else {
                    write!(w, "{}", c % 10)?;
                }
            }
            w.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// The arguments of `plumb OP PATH --json EXTRA...`.
pub(crate) fn cli(op: &str, path: &Path, extra: &[&str]) -> Vec<String> {
    command(op, path, "--json", extra)
}

/// The CLI command `plumb <op> <path> <extra...>` as a person runs it:
/// the terminal view, not `--json` (the pager off).
pub(crate) fn screen(op: &str, path: &Path, extra: &[&str]) -> Vec<String> {
    command(op, path, "--no-pager", extra)
}

fn command(op: &str, path: &Path, mode: &str, extra: &[&str]) -> Vec<String> {
    [op.to_owned(), path.display().to_string(), mode.to_owned()]
        .into_iter()
        .chain(extra.iter().map(|a| (*a).to_owned()))
        .collect()
}

/// A `plumb tool` command over `dir` fed one `data` call with `args`
/// (written to `<name>.json` in `dir`).
pub(crate) fn tool_call(dir: &Path, name: &str, args: &str) -> std::io::Result<Vec<String>> {
    let call = dir.join(format!("{name}.json"));
    std::fs::write(&call, format!(r#"{{"tool":"data","args":{args}}}"#))?;
    Ok(vec![
        "--stdin".into(),
        call.display().to_string(),
        "tool".into(),
        "--root".into(),
        dir.display().to_string(),
    ])
}

/// Writes one group of adversarial files of about `size` bytes each into
/// a folder of its own, and names the commands to run on them.
type Stage = fn(&Path, u64) -> std::io::Result<Vec<Case>>;

/// The groups of inputs, written, measured and deleted one after the
/// other, so the disk holds one group at a time, never all of them.
const STAGES: [Stage; 8] = [
    streams,
    wide,
    text_and_statistics,
    |dir, _| bombs(dir),
    |dir, _| crate::memtest_hostile::hostile(dir),
    |dir, _| crate::memtest_hostile::datasets(dir),
    layered,
    |dir, size| Ok(vec![parquet_one_group(dir, size)?]),
];

/// The commands every size-driven input takes.
fn data_ops(p: &Path) -> Vec<Vec<String>> {
    vec![
        cli("inspect", p, &[]),
        cli("select", p, &["--offset", "1000", "--limit", "5"]),
        cli("validate", p, &[]),
        // In parts on eight threads, more than this machine has
        // cores: each part holds its own reader and parser.
        cli("validate", p, &["--threads", "8"]),
        cli("inspect", p, &["--threads", "8"]),
    ]
}

/// Inputs that one runaway construct fills: a quote, a field, a line,
/// an array, an object of distinct keys, nesting.
fn streams(dir: &Path, size: u64) -> std::io::Result<Vec<Case>> {
    let mut out = Vec::new();

    let p = dir.join("runaway_quote.csv");
    write_file(&p, |w| {
        w.write_all(b"id,text\n1,ok\n2,\"a quote that never closes\n")?;
        repeat(w, b"3,plain row of text\n", size)
    })?;
    out.push(("runaway quote (csv)", p.clone(), data_ops(&p)));

    let p = dir.join("giant_field.csv");
    write_file(&p, |w| {
        w.write_all(b"id,blob\n1,\"")?;
        repeat(w, b"abcdefgh", size)?;
        w.write_all(b"\"\n2,small\n")
    })?;
    out.push(("giant field (csv)", p.clone(), data_ops(&p)));

    let p = dir.join("giant_line.jsonl");
    write_file(&p, |w| {
        w.write_all(b"[")?;
        repeat(w, b"12345678,", size)?;
        w.write_all(b"0]\n{\"a\": 1}\n{\"b\": 2}\n")
    })?;
    out.push(("giant line (jsonl)", p.clone(), data_ops(&p)));

    let p = dir.join("huge_array.json");
    write_file(&p, |w| {
        w.write_all(b"[")?;
        repeat(
            w,
            b"{\"id\": 1, \"name\": \"record\", \"tags\": [\"a\", \"b\"], \"v\": 2.5},",
            size,
        )?;
        w.write_all(b"null]")
    })?;
    let mut ops = data_ops(&p);
    ops.push(cli("select", &p, &["--pointer", "/100000"]));
    ops.push(cli("select", &p, &["--pointer", ""]));
    out.push(("huge array (json)", p, ops));

    // An object of distinct keys (ids as keys, as in a map of cities):
    // the outline collapses them; the key tracker stops at its cap.
    let p = dir.join("distinct_keys.json");
    write_file(&p, |w| {
        w.write_all(b"{\"by_id\": {")?;
        pieces_until(w, size, |k| {
            format!(
                "{}\"k{k}\": {{\"n\": {k}, \"t\": \"x\"}}",
                if k == 0 { "" } else { "," }
            )
        })?;
        w.write_all(b"}}")
    })?;
    let mut ops = data_ops(&p);
    ops.push(cli(
        "inspect",
        &p,
        &["--pointer", "/by_id", "--outline-paths", "2000"],
    ));
    ops.push(cli(
        "select",
        &p,
        &["--pointer", "/by_id", "--offset", "1000", "--limit", "5"],
    ));
    ops.push(cli(
        "select",
        &p,
        &[
            "--pointer",
            "/by_id/*/n",
            "--offset",
            "1000",
            "--limit",
            "5",
        ],
    ));
    out.push(("distinct keys in one object (json)", p, ops));

    let p = dir.join("deep_nesting.json");
    write_file(&p, |w| repeat(w, b"[", size))?;
    out.push(("deep nesting (json)", p.clone(), data_ops(&p)));
    Ok(out)
}

/// Wide CSVs: many columns, records at the record cap, long text in
/// every column.
fn wide(dir: &Path, _size: u64) -> std::io::Result<Vec<Case>> {
    let mut out = Vec::new();
    for (name, cols) in [
        ("10 thousand columns (csv)", 10_000usize),
        ("1 million columns (csv)", 1_000_000),
        ("5 million columns (csv)", 5_000_000),
    ] {
        let p = dir.join(format!("wide_{cols}.csv"));
        wide_csv(&p, cols)?;
        let mut ops = data_ops(&p);
        ops.push(cli("select", &p, &["--columns", "c1,c3"]));
        ops.push(cli("select", &p, &[]));
        out.push((name, p, ops));
    }

    // Records just under the record cap: the header decision holds the
    // first while it waits for a second, select cuts cells to its budget,
    // and a column of megabyte-long numbers keeps bounded range ends.
    for (name, file, cell) in [
        ("records at the record cap (csv)", "fat_text.csv", b'v'),
        ("numbers at the record cap (csv)", "fat_numbers.csv", b'7'),
    ] {
        let p = dir.join(file);
        write_file(&p, |w| {
            for row in 0..4 {
                let unit = if row == 0 { b'h' } else { cell };
                for c in 0..FAT_FIELDS {
                    if c > 0 {
                        w.write_all(b",")?;
                    }
                    w.write_all(&vec![unit; FAT_FIELD_BYTES])?;
                }
                w.write_all(b"\n")?;
            }
            Ok(())
        })?;
        let mut ops = data_ops(&p);
        for op in ["inspect", "select"] {
            let args = format!(r#"{{"op":"{op}","path":"{file}"}}"#);
            ops.push(tool_call(dir, &format!("{file}.{op}"), &args)?);
        }
        out.push((name, p, ops));
    }

    // Tracked columns full of long, distinct text: every column keeps
    // five samples and the sample rows fill their budget.
    let p = dir.join("wide_text.csv");
    write_file(&p, |w| {
        for row in 0..12 {
            for c in 0..10_000 {
                if c > 0 {
                    w.write_all(b",")?;
                }
                w.write_all(&[b'a' + row as u8; 590])?;
                write!(w, "{c:06}{row:04}")?;
            }
            w.write_all(b"\n")?;
        }
        Ok(())
    })?;
    let mut ops = data_ops(&p);
    ops.push(cli("inspect", &p, &["--sample-rows", "100"]));
    ops.push(tool_call(
        dir,
        "wide_text.inspect",
        r#"{"op":"inspect","path":"wide_text.csv","sample_rows":100}"#,
    )?);
    out.push(("10 thousand columns of long text (csv)", p, ops));
    Ok(out)
}

/// A text line as long as the file, and files whose every value is new
/// (statistics at their largest, searches hitting every record).
fn text_and_statistics(dir: &Path, size: u64) -> std::io::Result<Vec<Case>> {
    let mut out = Vec::new();
    let p = dir.join("giant_line.txt");
    write_file(&p, |w| {
        repeat(w, "text é ".as_bytes(), size)?;
        w.write_all(b"\nlast line\n")
    })?;
    let ops = vec![
        cli("read", &p, &[]),
        cli("read", &p, &["--offset", "1"]),
        cli("read", &p, &["--offset", "-1"]),
    ];
    out.push(("giant text line (read)", p, ops));
    // Statistics where every value is new: each column's sketches at
    // their largest, for the whole file.
    let p = dir.join("distinct.csv");
    write_file(&p, |w| {
        w.write_all(b"id,key,amount,when,note\n")?;
        pieces_until(w, size, |i| {
            format!(
                "{i},k{:x},{}.{:02},20{:02}-{:02}-{:02},\"note {i}, free text\"\n",
                i.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                i % 100_003,
                i % 100,
                i % 30,
                i % 12 + 1,
                i % 28 + 1
            )
        })
    })?;
    out.push((
        "distinct values everywhere (csv, stats)",
        p.clone(),
        vec![
            cli("inspect", &p, &["--stats", "--threads", "1"]),
            // Parts on eight threads, more than this machine has cores:
            // each holds its own reader, parser and column facts (and
            // statistics, within `STATS_SPLIT_BYTES`).
            cli("validate", &p, &["--threads", "8"]),
            cli("inspect", &p, &["--threads", "8"]),
            cli("inspect", &p, &["--stats", "--threads", "8"]),
        ],
    ));
    out.push((
        "search hitting every row (csv)",
        p.clone(),
        vec![
            cli("search", &p, &["note", "--limit", "1000"]),
            cli(
                "search",
                &p,
                &[
                    "--column",
                    "key",
                    "--where",
                    "is not null",
                    "--limit",
                    "1000",
                ],
            ),
            cli(
                "search",
                &p,
                &["--column", "amount", "--where", "> 50000.5", "--count-only"],
            ),
            cli(
                "search",
                &p,
                &[
                    "--format",
                    "text",
                    "k[0-9a-f]+,",
                    "--limit",
                    "1000",
                    "--context",
                    "10",
                ],
            ),
        ],
    ));
    let p = dir.join("distinct.jsonl");
    write_file(&p, |w| {
        pieces_until(w, size, |i| {
            format!(
                "{{\"id\":{i},\"user\":{{\"key\":\"k{:x}\",\"score\":{}.5}},\"tags\":[\"t{}\"]}}\n",
                i.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                i % 1_000_003,
                i % 5_000
            )
        })
    })?;
    out.push((
        "distinct values everywhere (jsonl, stats)",
        p.clone(),
        vec![
            cli("inspect", &p, &["--stats", "--threads", "1"]),
            cli("validate", &p, &["--threads", "8"]),
            // Each part holds its own outline and key facts.
            cli("inspect", &p, &["--threads", "8"]),
            cli("inspect", &p, &["--stats", "--threads", "8"]),
        ],
    ));
    out.push((
        "search hitting every record (jsonl)",
        p.clone(),
        vec![
            cli(
                "search",
                &p,
                &["--field", "/user/key", "k", "--limit", "1000"],
            ),
            cli(
                "search",
                &p,
                &["--field", "/id", "--where", ">= 0", "--count-only"],
            ),
        ],
    ));
    // One line as long as the file: searched in pieces, never held.
    let p = dir.join("one_line.txt");
    write_file(&p, |w| {
        pieces_until(w, size, |i| format!("word{} ", i % 1000))?;
        w.write_all(b"NEEDLE")
    })?;
    out.push((
        "one line as long as the file (text search)",
        p.clone(),
        vec![
            cli("search", &p, &["NEEDLE"]),
            cli("search", &p, &["w[a-z]+9{3} ", "--count-only"]),
        ],
    ));
    Ok(out)
}

/// A Parquet file of `size` bytes in one row group (an id and a text
/// column, uncompressed and plain, so the group is as large as the
/// file): read page by page, never held whole.
fn parquet_one_group(dir: &Path, size: u64) -> std::io::Result<Case> {
    use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    use std::sync::Arc;
    let err = |e: parquet::errors::ParquetError| std::io::Error::other(e.to_string());
    let p = dir.join("one_group.parquet");
    let schema = parse_message_type("message m { required int64 id; required binary s (STRING); }")
        .map_err(err)?;
    let props = WriterProperties::builder()
        .set_compression(parquet::basic::Compression::UNCOMPRESSED)
        .set_dictionary_enabled(false)
        .set_max_row_group_row_count(None)
        .build();
    // About 8 + 4 + 24 bytes a row.
    let rows = (size / 36).max(1) as i64;
    let file = std::fs::File::create(&p)?;
    let mut w = SerializedFileWriter::new(BufWriter::new(file), Arc::new(schema), Arc::new(props))
        .map_err(err)?;
    let mut group = w.next_row_group().map_err(err)?;
    const BATCH: i64 = 1 << 16;
    if let Some(mut col) = group.next_column().map_err(err)? {
        let mut at = 0;
        while at < rows {
            let ids: Vec<i64> = (at..(at + BATCH).min(rows)).collect();
            col.typed::<Int64Type>()
                .write_batch(&ids, None, None)
                .map_err(err)?;
            at += BATCH;
        }
        col.close().map_err(err)?;
    }
    if let Some(mut col) = group.next_column().map_err(err)? {
        let mut at = 0;
        while at < rows {
            let texts: Vec<ByteArray> = (at..(at + BATCH).min(rows))
                .map(|i| ByteArray::from(format!("row {i:>12} of text").as_str()))
                .collect();
            col.typed::<ByteArrayType>()
                .write_batch(&texts, None, None)
                .map_err(err)?;
            at += BATCH;
        }
        col.close().map_err(err)?;
    }
    group.close().map_err(err)?;
    w.close().map_err(err)?;
    let ops = vec![
        cli("inspect", &p, &[]),
        cli("select", &p, &["--offset", "-5"]),
        cli("select", &p, &["--offset", "1000", "--limit", "5"]),
        cli("validate", &p, &[]),
    ];
    Ok(("parquet, one row group as large as the file", p, ops))
}

/// Text behind the other layers: a UTF-16 CSV (transcoded as it
/// streams, a tail read streaming it twice) and a CSV stored in a zip
/// archive (read as a member, its CRC checked at the end).
fn layered(dir: &Path, size: u64) -> std::io::Result<Vec<Case>> {
    let ops = |p: &Path, extra: &[&str]| -> Vec<Vec<String>> {
        ["inspect", "validate", "select"]
            .iter()
            .map(|op| cli(op, p, extra))
            .chain([cli("read", p, &[&["--offset", "-2"][..], extra].concat())])
            .collect()
    };
    let p = dir.join("utf16.csv");
    write_file(&p, |w| {
        w.write_all(&[0xFF, 0xFE])?;
        let row: Vec<u8> = "3,Zoë in Köln,2024-01-05\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        repeat(w, &row, size)
    })?;
    let mut out = vec![("UTF-16 csv (transcoded)", p.clone(), ops(&p, &[]))];
    let p = dir.join("member.zip");
    let file = std::io::BufWriter::new(std::fs::File::create(&p)?);
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(size >= 1 << 32);
    zip.start_file("rows.csv", options)?;
    repeat(&mut zip, b"3,plain row of text\n", size)?;
    zip.finish()?.flush()?;
    out.push((
        "csv stored in a zip (member)",
        p.clone(),
        ops(&p, &["--member", "rows.csv"]),
    ));
    Ok(out)
}

/// Decompression bombs, 1 GiB whatever `--memtest-mb` says: a single
/// line of `0` bytes in gzip (a field that passes every cap, a line
/// `read` must cut), and rows of `0,0` in zstd; each compresses to a
/// few megabytes or less and must be answered within the same limit.
fn bombs(dir: &Path) -> std::io::Result<Vec<Case>> {
    const BOMB: u64 = 1 << 30;
    let ops = |p: &Path| -> Vec<Vec<String>> {
        vec![
            cli("inspect", p, &[]),
            cli("validate", p, &[]),
            cli("read", p, &["--offset", "-2"]),
        ]
    };
    let block = vec![b'0'; 1 << 20];
    let p = dir.join("bomb_zeros.csv.gz");
    let file = std::io::BufWriter::new(std::fs::File::create(&p)?);
    let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
    for _ in 0..BOMB / block.len() as u64 {
        gz.write_all(&block)?;
    }
    gz.finish()?.flush()?;
    let mut out = vec![("1 GiB line of 0 in gzip (bomb)", p.clone(), ops(&p))];
    let rows = b"0,0\n".repeat(1 << 18);
    let p = dir.join("bomb_rows.csv.zst");
    let file = std::io::BufWriter::new(std::fs::File::create(&p)?);
    let mut zs = zstd::stream::Encoder::new(file, 3)?;
    for _ in 0..BOMB / rows.len() as u64 {
        zs.write_all(&rows)?;
    }
    zs.finish()?.flush()?;
    out.push(("1 GiB of 0,0 rows in zstd (bomb)", p.clone(), ops(&p)));
    Ok(out)
}

/// Runs one command and returns the peak RSS of that child, in KiB:
/// a helper process (this binary, `__rss`) runs it, reaps it, and reads
/// `getrusage(RUSAGE_CHILDREN)`, whose maximum then covers that child only.
pub(crate) fn peak_rss_kib(plumb: &Path, args: &[String]) -> Result<(u64, i32), String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let (stdin, args) = match args {
        [flag, _, rest @ ..] if flag == "--stdin" => (&args[..2], rest),
        _ => (&args[..0], args),
    };
    let out = Command::new(me)
        .arg("__rss")
        .args(stdin)
        .arg(plumb)
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.split_whitespace();
    let rss = parts
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no measurement: {text}"))?;
    let code = parts.next().and_then(|s| s.parse().ok()).unwrap_or(-1);
    Ok((rss, code))
}

/// The `__rss` helper: run the command, print `maxrss_kib exit_code`.
/// `--stdin FILE` first feeds the command that file.
pub fn rss_helper(args: &[String]) -> i32 {
    let (input, args) = match args {
        [flag, file, rest @ ..] if flag == "--stdin" => (Some(file.clone()), rest),
        _ => (None, args),
    };
    let Some((cmd, rest)) = args.split_first() else {
        return 2;
    };
    let stdin = match input.map(std::fs::File::open) {
        Some(Ok(f)) => std::process::Stdio::from(f),
        Some(Err(_)) => return 2,
        None => std::process::Stdio::null(),
    };
    let status = Command::new(cmd)
        .args(rest)
        .stdin(stdin)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    let code = status.ok().and_then(|s| s.code()).unwrap_or(-1);
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN);
    let kib = usage.map(|u| u.max_rss() as u64).unwrap_or(0);
    println!("{kib} {code}");
    0
}

/// Builds the binary in `profile` (`release` unless told), generates the
/// files, measures every run.
pub fn run(root: &Path, mb: u64, profile: &str) -> Result<bool, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let ok = Command::new(&cargo)
        .args(["build", "--profile", profile, "-p", "plumb-cli"])
        .current_dir(root)
        .status()
        .map_err(|e| e.to_string())?
        .success();
    if !ok {
        return Err(format!(
            "cargo build --profile {profile} -p plumb-cli failed"
        ));
    }
    // Cargo's folder for the `dev` profile is `debug`.
    let folder = if profile == "dev" { "debug" } else { profile };
    let plumb = root.join("target").join(folder).join("plumb");
    let dir = tempfile::Builder::new()
        .prefix("plumb-memtest-")
        .tempdir_in(root.join("target"))
        .map_err(|e| e.to_string())?;
    eprintln!(
        "writing {mb} MiB inputs, a group at a time, in {}",
        dir.path().display()
    );
    println!("| input | command | exit | peak RSS (MiB) | verdict |");
    println!("|---|---|---:|---:|---|");
    let mut all_ok = {
        let folder = dir.path().join("mcp");
        let ok = mcp_case(&plumb, &folder)?;
        std::fs::remove_dir_all(&folder).map_err(|e| e.to_string())?;
        ok
    };
    let dir_text = dir.path().display().to_string();
    for (i, stage) in STAGES.iter().enumerate() {
        let folder = dir.path().join(format!("group{i}"));
        std::fs::create_dir_all(&folder).map_err(|e| e.to_string())?;
        let cases = stage(&folder, mb * MIB).map_err(|e| e.to_string())?;
        all_ok &= measure(&plumb, &cases, &dir_text)?;
        std::fs::remove_dir_all(&folder).map_err(|e| e.to_string())?;
    }
    // Served for as long as the cases run.
    let server = plumb_testkit::http::Server::start();
    all_ok &= measure(
        &plumb,
        &crate::memtest_hostile::remote(&server, mb),
        &dir_text,
    )?;
    Ok(all_ok)
}

/// Runs every command of `cases`, prints a row each, and says whether
/// all kept within [`RSS_LIMIT_MIB`] and exited 0, 1 or 2. Paths under
/// `dir_text` are shown as `FILE`.
fn measure(plumb: &Path, cases: &[Case], dir_text: &str) -> Result<bool, String> {
    let mut all_ok = true;
    for (name, _path, ops) in cases {
        for args in ops {
            let started = std::time::Instant::now();
            let (kib, code) = peak_rss_kib(plumb, args)?;
            let mib = kib as f64 / 1024.0;
            let ok = kib <= RSS_LIMIT_MIB * 1024 && (0..=2).contains(&code);
            all_ok &= ok;
            let (fed, command) = match args.as_slice() {
                [flag, file, rest @ ..] if flag == "--stdin" => {
                    let call = Path::new(file).file_name().unwrap_or_default();
                    (format!(" < {}", call.to_string_lossy()), rest)
                }
                _ => (String::new(), args.as_slice()),
            };
            let shown: Vec<&str> = command
                .iter()
                .map(|a| {
                    if a.starts_with(dir_text) {
                        "FILE"
                    } else {
                        a.as_str()
                    }
                })
                .collect();
            println!(
                "| {name} | plumb {}{fed} | {code} | {mib:.1} | {} ({:.1}s) |",
                shown.join(" "),
                if ok { "ok" } else { "FAIL" },
                started.elapsed().as_secs_f64()
            );
        }
    }
    Ok(all_ok)
}

/// 50 inspects of a 10,000-column CSV sent to one MCP server at once,
/// then the end of its input: the server answers them all, at most
/// `MAX_CONCURRENT_SCANS` at a time, and exits.
fn mcp_case(plumb: &Path, dir: &Path) -> Result<bool, String> {
    let ws = dir.join("mcp");
    std::fs::create_dir_all(&ws).map_err(|e| e.to_string())?;
    wide_csv(&ws.join("wide.csv"), 10_000).map_err(|e| e.to_string())?;
    let mut script = String::new();
    script.push_str(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"memtest","version":"1"}}}"#);
    script.push('\n');
    script.push_str(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    script.push('\n');
    for id in 1..=50 {
        script.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"data","arguments":{{"op":"inspect","path":"wide.csv"}}}}}}"#
        ));
        script.push('\n');
    }
    let input = dir.join("mcp_calls.jsonl");
    std::fs::write(&input, script).map_err(|e| e.to_string())?;
    let args = vec![
        "--stdin".to_owned(),
        input.display().to_string(),
        plumb.display().to_string(),
        "mcp".to_owned(),
        "--root".to_owned(),
        ws.display().to_string(),
    ];
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let started = std::time::Instant::now();
    let out = Command::new(me)
        .arg("__rss")
        .args(&args)
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.split_whitespace();
    let kib: u64 = parts
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no measurement: {text}"))?;
    let code: i32 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(-1);
    let ok = kib <= MCP_RSS_LIMIT_MIB * 1024 && code == 0;
    println!(
        "| 50 concurrent inspects of 10 thousand columns (MCP) | plumb mcp | {code} | {:.1} | {} ({:.1}s) |",
        kib as f64 / 1024.0,
        if ok { "ok" } else { "FAIL" },
        started.elapsed().as_secs_f64()
    );
    Ok(ok)
}
