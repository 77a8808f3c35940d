//! A tail read of a large file keeps memory bounded (counting allocator).

use std::io::Write;

use plumb::read::{read, ReadRequest};

#[global_allocator]
static ALLOC: plumb_testkit::CountingAlloc = plumb_testkit::CountingAlloc;

#[test]
fn a_tail_read_of_a_large_file_is_bounded_and_does_not_scan_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.log");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for i in 0..2_000_000u32 {
        writeln!(f, "2026-11-30T10:00:00Z event number {i} happened").unwrap();
    }
    drop(f);
    let r = ReadRequest {
        offset: -20,
        ..ReadRequest::default()
    };
    let (a, peak) = plumb_testkit::peak_during(|| read(&path, &r).unwrap());
    assert!(a.text.ends_with("event number 1999999 happened\n"));
    assert_eq!(a.text.lines().count(), 20);
    assert!(peak < 512 * 1024, "peak live heap {peak} bytes");
    let r = ReadRequest::default();
    let (a, peak) = plumb_testkit::peak_during(|| read(&path, &r).unwrap());
    assert_eq!(a.total_lines, Some(2_000_000));
    assert!(peak < 1024 * 1024, "forward read peak {peak} bytes");
}

/// A decompression bomb costs time, not memory: 256 MiB of rows that
/// gzip and zstd shrink to well under a megabyte are read in bounded
/// memory, each op and a tail read.
#[cfg(feature = "compression")]
#[test]
fn a_decompression_bomb_costs_time_not_memory() {
    use plumb::{Op, Plumb, Request};
    let dir = tempfile::tempdir().unwrap();
    let rows: u64 = 64 << 20;
    let block = b"0,0\n".repeat(1 << 16);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut zs = zstd::stream::Encoder::new(Vec::new(), 19).unwrap();
    for _ in 0..(rows >> 16) {
        gz.write_all(&block).unwrap();
        zs.write_all(&block).unwrap();
    }
    for (name, bytes) in [
        ("bomb.csv.gz", gz.finish().unwrap()),
        ("bomb.csv.zst", zs.finish().unwrap()),
    ] {
        assert!(bytes.len() < 1 << 20, "{name} is {} bytes", bytes.len());
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let plumb = Plumb::new();
        for op in [Op::Validate, Op::Inspect] {
            let (a, peak) = plumb_testkit::peak_during(|| {
                plumb.run(op, &path, None, &Request::default()).unwrap()
            });
            // `0,0` reads as data, not names: every line is a row.
            assert_eq!(a.to_json()["rows_scanned"], rows, "{name} {op:?}");
            assert!(
                peak < 32 << 20,
                "{name} {op:?}: peak live heap {peak} bytes"
            );
        }
        let r = ReadRequest {
            offset: -3,
            ..ReadRequest::default()
        };
        let (a, peak) = plumb_testkit::peak_during(|| read(&path, &r).unwrap());
        assert_eq!(a.text, "0,0\n0,0\n0,0\n");
        assert!(peak < 32 << 20, "{name} tail: peak live heap {peak} bytes");
    }
}
