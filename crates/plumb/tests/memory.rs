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
