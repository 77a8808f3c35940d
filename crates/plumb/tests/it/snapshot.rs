//! A file is read as it was when it was opened: one handle, its size at
//! open. A file that shrinks under a scan is refused, never counted as
//! whole; one that grows is read to its size at open; a path swapped
//! after the open changes nothing.

use std::io::Write;

use plumb::read::{read_source, ReadRequest};
use plumb::{FileSource, Op, Plumb, RefusalReason, Request};
use plumb_core::OpenedFile;

fn rows(n: usize) -> String {
    let mut s = String::from("id,name\n");
    for i in 0..n {
        s.push_str(&format!("{i},name{i}\n"));
    }
    s
}

#[test]
fn a_file_that_shrinks_after_the_open_is_refused_not_reported_exact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    std::fs::write(&path, rows(50_000)).unwrap();
    let source = FileSource::new(&path).unwrap();
    // Truncated between the open and the scan.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(1000)
        .unwrap();
    for op in [Op::Inspect, Op::Validate] {
        let r = Plumb::new()
            .run_source(op, &source, None, &Request::default())
            .unwrap_err();
        assert_eq!(r.reason(), RefusalReason::ReadError, "{op:?}");
        assert!(
            r.message().contains("changed while being read"),
            "{}",
            r.message()
        );
    }
    let r = read_source(&source, &ReadRequest::default()).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::ReadError);
}

#[test]
fn a_file_that_grows_is_read_to_its_size_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.csv");
    std::fs::write(&path, rows(1000)).unwrap();
    let source = FileSource::new(&path).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(rows(5000).split_once('\n').unwrap().1.as_bytes())
        .unwrap();
    let a = Plumb::new()
        .run_source(Op::Inspect, &source, None, &Request::default())
        .unwrap();
    let j = a.to_json();
    assert_eq!(j["row_count"], 1000, "{j}");
    assert_eq!(j["view"]["exact"], true);
}

#[test]
fn the_handle_is_read_whatever_the_name_points_to_later() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("n.txt");
    std::fs::write(&path, "first\n").unwrap();
    let opened = OpenedFile::open(&path).unwrap();
    std::fs::rename(&path, dir.path().join("moved.txt")).unwrap();
    std::fs::write(&path, "an impostor, longer than the first\n").unwrap();
    let a = read_source(
        &FileSource::from_opened(opened.clone()),
        &ReadRequest::default(),
    )
    .unwrap();
    assert_eq!(a.text, "first\n");
}

#[test]
fn a_nul_found_by_a_tail_read_is_binary_with_a_binary_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tail.log");
    let mut bytes = "text line\n".repeat(2000).into_bytes();
    bytes.extend_from_slice(b"end \0 of file\nlast\n");
    std::fs::write(&path, &bytes).unwrap();
    let req = ReadRequest {
        offset: -2,
        ..ReadRequest::default()
    };
    let r = plumb::read::read(&path, &req).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::Binary);
    let at = bytes.iter().position(|&b| b == 0).unwrap() as u64;
    assert_eq!(r.byte_offset(), Some(at));
    assert!(r.message().contains("NUL"), "{}", r.message());
    assert!(!r.message().contains("UTF-8"), "{}", r.message());
}

#[test]
fn pipes_are_refused_by_the_opened_handle_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fifo");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let started = std::time::Instant::now();
    let r = FileSource::new(&path).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::NotAFile);
    assert!(r.message().contains("named pipe"));
    let r = plumb::read::read(&path, &ReadRequest::default()).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::NotAFile);
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
}

#[test]
fn permission_failures_are_read_errors_that_say_so() {
    let r: plumb::Refusal = std::io::Error::from(std::io::ErrorKind::PermissionDenied).into();
    assert_eq!(r.reason(), RefusalReason::ReadError);
    assert!(r.message().contains("permission denied"), "{}", r.message());
    // Root reads anything, so the real case runs only for other users.
    if rustix::process::geteuid().is_root() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("locked.csv");
    std::fs::write(&path, "a\n1\n").unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let r = FileSource::new(&path).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::ReadError);
    assert!(r.message().contains("permission denied"));
}
