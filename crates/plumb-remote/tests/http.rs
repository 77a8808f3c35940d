//! Remote objects over HTTP from a server on loopback: answers equal to
//! the same bytes read locally, bytes fetched bounded for heads and
//! tails, a body cut mid-stream resumed, a slow server timed out, an
//! object replaced mid-scan refused, credentials never echoed.

use std::sync::atomic::Ordering;
use std::time::Duration;

use plumb_core::{BytesSource, Op, RefusalReason, Request, Source};
use plumb_remote::{AllowList, RemoteConfig, RemoteSource, RemoteUrl};
use serde_json::Value;

use plumb_testkit::http::Server;

fn csv(rows: usize) -> Vec<u8> {
    let mut out = b"id,name,score\n".to_vec();
    for i in 0..rows {
        out.extend_from_slice(format!("{i},name {i},{}.{}\n", i * 7 % 1000, i % 10).as_bytes());
    }
    out
}

fn small() -> RemoteConfig {
    RemoteConfig {
        range_bytes: 64 << 10,
        read_ahead: 2,
        ..RemoteConfig::default()
    }
}

/// An answer without the fields that name the source.
fn answer(source: &dyn Source, op: Op, req: &Request) -> Value {
    let mut v = plumb::Plumb::new()
        .run_source(op, source, None, req)
        .unwrap()
        .to_json();
    if let Some(o) = v.as_object_mut() {
        o.remove("path");
    }
    v
}

#[test]
fn answers_equal_the_local_ones() {
    let server = Server::start();
    let body = csv(50_000);
    server.put("/data/people.csv", body.clone());
    let remote = RemoteSource::open(&server.url("/data/people.csv"), &small()).unwrap();
    let local = BytesSource::new("people.csv", body.clone());
    assert_eq!(remote.len(), Some(body.len() as u64));
    let mut tail = Request::default();
    tail.window.from_end = Some(5);
    for (op, req) in [
        (Op::Inspect, Request::default()),
        (Op::Select, Request::default()),
        (Op::Select, tail.clone()),
        (Op::Validate, Request::default()),
    ] {
        assert_eq!(
            answer(&remote, op, &req),
            answer(&local, op, &req),
            "{op:?}"
        );
    }
    // A read of the last lines, by ranges from the end.
    let req = plumb::read::ReadRequest {
        offset: -3,
        ..plumb::read::ReadRequest::default()
    };
    let r = plumb::read::read_source(&remote, &req).unwrap();
    let l = plumb::read::read_source(&local, &req).unwrap();
    assert_eq!(r.text, l.text);
}

#[test]
fn a_head_and_a_tail_fetch_only_what_they_need() {
    let server = Server::start();
    let body = csv(400_000); // ~9 MiB
    server.put("/big.csv", body.clone());
    let remote = RemoteSource::open(&server.url("/big.csv"), &RemoteConfig::default()).unwrap();
    let req = plumb::read::ReadRequest {
        offset: -10,
        ..plumb::read::ReadRequest::default()
    };
    let r = plumb::read::read_source(&remote, &req).unwrap();
    assert!(r.text.ends_with("399999,name 399999,993.9\n"), "{}", r.text);
    let fetched = remote.bytes_fetched();
    assert!(
        fetched < 256 << 10,
        "a tail read fetched {fetched} bytes of {}",
        body.len()
    );
    assert_eq!(server.state.sent.load(Ordering::Relaxed), fetched);

    let remote = RemoteSource::open(&server.url("/big.csv"), &RemoteConfig::default()).unwrap();
    let head = remote.head(4096).unwrap();
    assert_eq!(head, body[..4096]);
    // The reads a detection and a sniff make near the start are one
    // request for the object's first REMOTE_EDGE_BYTES, made once.
    assert_eq!(
        remote.bytes_fetched(),
        plumb_remote::REMOTE_EDGE_BYTES as u64
    );
    assert_eq!(remote.head(8).unwrap(), body[..8]);
    assert_eq!(remote.head(100).unwrap(), body[..100]);
    assert_eq!(remote.requests(), 2);
    // A scan starts with the bytes held, then asks for the rest.
    let mut all = Vec::new();
    std::io::Read::read_to_end(&mut remote.open().unwrap(), &mut all).unwrap();
    assert_eq!(all, body);
    assert_eq!(remote.bytes_fetched(), body.len() as u64);
}

/// A CSV of fixed-width rows over at least 1 GiB, made as it is asked
/// for: the server never holds it.
fn gigabyte_csv() -> (u64, u64, plumb_testkit::http::Generator) {
    const HEAD: &[u8] = b"id,value\n";
    const ROW: u64 = 17; // "0000000042,00042\n"
    let rows = ((1u64 << 30) - HEAD.len() as u64).div_ceil(ROW);
    let len = HEAD.len() as u64 + rows * ROW;
    let make = std::sync::Arc::new(move |offset: u64, buf: &mut [u8]| {
        for (i, b) in buf.iter_mut().enumerate() {
            let at = offset + i as u64;
            *b = if at < HEAD.len() as u64 {
                HEAD[at as usize]
            } else {
                let (row, k) = ((at - 9) / ROW, (at - 9) % ROW);
                let line = format!("{:010},{:05}\n", row, row % 100_000);
                line.as_bytes()[k as usize]
            };
        }
    });
    (len, rows, make)
}

#[test]
fn a_gigabyte_objects_tail_costs_under_a_mebibyte() {
    let server = Server::start();
    let (len, rows, make) = gigabyte_csv();
    server.put_generated("/huge.csv", len, make);
    let url = server.url("/huge.csv");
    let last = format!("{:010},{:05}\n", rows - 1, (rows - 1) % 100_000);

    // read --offset -5: the last lines, by ranges from the end.
    let remote = RemoteSource::open(&url, &RemoteConfig::default()).unwrap();
    assert_eq!(remote.len(), Some(len));
    let req = plumb::read::ReadRequest {
        offset: -5,
        ..plumb::read::ReadRequest::default()
    };
    let r = plumb::read::read_source(&remote, &req).unwrap();
    assert!(r.text.ends_with(&last), "{}", r.text);
    assert_eq!(r.text.lines().count(), 5);
    assert!(
        remote.bytes_fetched() < 1 << 20,
        "{}",
        remote.bytes_fetched()
    );
    assert_eq!(remote.requests(), 3);

    // select --offset -5: the last rows, verbatim.
    let remote = RemoteSource::open(&url, &RemoteConfig::default()).unwrap();
    let mut tail = Request::default();
    tail.window.from_end = Some(5);
    let v = answer(&remote, Op::Select, &tail);
    let got = v["rows"].as_array().expect("rows");
    assert_eq!(got.len(), 5, "{v}");
    assert_eq!(got[4][0], format!("{:010}", rows - 1), "{v}");
    assert!(
        remote.bytes_fetched() < 1 << 20,
        "{}",
        remote.bytes_fetched()
    );
    // A HEAD, the first bytes (detection and the dialect's sniff) and
    // the last (the tail) in one request each.
    assert_eq!(remote.requests(), 3);
    let sent = server.state.sent.load(Ordering::Relaxed);
    assert!(sent < 2 << 20, "the server sent {sent} bytes");
}

#[test]
fn a_scan_streams_every_byte_once_in_order() {
    let server = Server::start();
    let body = csv(30_000);
    server.put("/s.csv", body.clone());
    let remote = RemoteSource::open(&server.url("/s.csv"), &small()).unwrap();
    let mut got = Vec::new();
    std::io::Read::read_to_end(&mut remote.open().unwrap(), &mut got).unwrap();
    assert_eq!(got, body);
    assert_eq!(remote.bytes_fetched(), body.len() as u64);
    // One HEAD and one streamed GET: ranges of the configured 64 KiB
    // have nothing to grow to, so the scan streams from the start.
    assert_eq!(remote.requests(), 2);

    // A reader that wants only the first bytes costs one small range,
    // not a scan's read-ahead.
    let big = csv(400_000);
    server.put("/big.csv", big.clone());
    let remote = RemoteSource::open(&server.url("/big.csv"), &RemoteConfig::default()).unwrap();
    let mut reader = remote.open().unwrap();
    let mut first = vec![0u8; 4096];
    std::io::Read::read_exact(&mut reader, &mut first).unwrap();
    assert_eq!(first, big[..4096]);
    drop(reader);
    assert_eq!(remote.bytes_fetched(), 256 << 10);
    // And a whole scan still reads every byte once: ranges of 256 KiB
    // and 512 KiB, then the rest in one streamed GET.
    let mut all = Vec::new();
    std::io::Read::read_to_end(&mut remote.open().unwrap(), &mut all).unwrap();
    assert_eq!(all, big);
    assert_eq!(remote.requests(), 1 + 1 + 2 + 1);
    assert_eq!(remote.bytes_fetched(), (256 << 10) + big.len() as u64);
}

#[test]
fn a_streamed_scan_holds_back_what_the_reader_has_not_taken() {
    let server = Server::start();
    let big = csv(1_000_000); // ~24 MiB
    server.put("/big.csv", big.clone());
    let remote = RemoteSource::open(&server.url("/big.csv"), &small()).unwrap();
    let mut reader = remote.open_range(0, big.len() as u64).unwrap().unwrap();
    let mut first = vec![0u8; 1000];
    std::io::Read::read_exact(&mut reader, &mut first).unwrap();
    assert_eq!(first, big[..1000]);
    std::thread::sleep(Duration::from_millis(300));
    // Pieces of 64 KiB, 3 held ahead of the one read: the connection
    // holds the rest back (whatever the client's and the kernel's
    // buffers take in besides).
    let fetched = remote.bytes_fetched();
    assert!(
        fetched < 4 << 20,
        "{fetched} of {} fetched ahead",
        big.len()
    );
    let mut rest = Vec::new();
    std::io::Read::read_to_end(&mut reader, &mut rest).unwrap();
    assert_eq!(rest, big[1000..]);
    assert_eq!(remote.requests(), 2);
    // A reader dropped mid-stream ends the stream.
    let remote = RemoteSource::open(&server.url("/big.csv"), &small()).unwrap();
    let mut reader = remote.open_range(0, big.len() as u64).unwrap().unwrap();
    std::io::Read::read_exact(&mut reader, &mut first).unwrap();
    drop(reader);
    std::thread::sleep(Duration::from_millis(300));
    let fetched = remote.bytes_fetched();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(remote.bytes_fetched(), fetched);
    assert!(fetched < 4 << 20, "{fetched}");
}

#[test]
fn a_scan_in_parts_streams_each_part_with_read_ahead() {
    let server = Server::start();
    let body = csv(800_000);
    assert!(body.len() as u64 > 16 << 20);
    server.put("/parts.csv", body.clone());
    let local = BytesSource::new("parts.csv", body.clone());
    let mut req = Request::default();
    req.scan.threads = Some(2);
    for op in [Op::Validate, Op::Inspect] {
        let remote =
            RemoteSource::open(&server.url("/parts.csv"), &RemoteConfig::default()).unwrap();
        assert_eq!(
            answer(&remote, op, &req),
            answer(&local, op, &req),
            "{op:?}"
        );
        // Each part is a stream of growing ranges, not a request per
        // reader's buffer (256 KiB): 80 such requests would cover it.
        assert!(
            remote.requests() < 30,
            "{op:?}: {} requests",
            remote.requests()
        );
        assert!(
            remote.bytes_fetched() < body.len() as u64 + (1 << 20),
            "{op:?}: {} of {}",
            remote.bytes_fetched(),
            body.len()
        );
    }
}

#[test]
fn a_cut_body_is_resumed_from_its_last_byte() {
    let server = Server::start();
    let body = csv(30_000);
    server.put("/cut.csv", body.clone());
    let remote = RemoteSource::open(&server.url("/cut.csv"), &small()).unwrap();
    // The next three bodies stop after 1,000 bytes.
    *server.state.cut_after.lock().unwrap() = Some((1000, 3));
    let mut got = Vec::new();
    std::io::Read::read_to_end(&mut remote.open().unwrap(), &mut got).unwrap();
    assert_eq!(got, body);
    // Only the bytes that were cut off were asked for again: the server
    // sent each byte once, over more requests than there are ranges.
    assert_eq!(remote.bytes_fetched(), body.len() as u64);
    assert_eq!(server.state.sent.load(Ordering::Relaxed), body.len() as u64);
    // A HEAD, the streamed GET, and one GET from the last byte per cut.
    assert_eq!(server.state.requests.load(Ordering::Relaxed), 1 + 1 + 3);

    // A connection cut every time gives up, saying where.
    *server.state.cut_after.lock().unwrap() = Some((10, 1000));
    let remote = RemoteSource::open(&server.url("/cut.csv"), &small()).unwrap();
    let r = remote.read_range(0, 5000).unwrap().unwrap_err();
    assert_eq!(r.reason(), RefusalReason::ReadError);
    assert!(r.message().contains("cut"), "{}", r.message());
}

#[test]
fn an_object_replaced_mid_scan_is_refused() {
    let server = Server::start();
    let body = csv(30_000);
    server.put("/moving.csv", body.clone());
    // The default ranges grow from 256 KiB, and the next are asked for
    // only once the first is read: the replacement comes between them.
    let remote = RemoteSource::open(&server.url("/moving.csv"), &RemoteConfig::default()).unwrap();
    let mut reader = remote.open().unwrap();
    let mut first = [0u8; 100];
    std::io::Read::read_exact(&mut reader, &mut first).unwrap();
    server.put("/moving.csv", csv(30_001));
    let mut rest = Vec::new();
    let e = std::io::Read::read_to_end(&mut reader, &mut rest).unwrap_err();
    assert!(e.to_string().contains("changed while it was read"), "{e}");
    // And through plumb: validate refuses rather than judging a mix.
    let r = remote.read_range(0, 10).unwrap().unwrap_err();
    assert!(r.message().contains("changed"), "{}", r.message());
    // A stream's GET is pinned to the version opened as well.
    let remote = RemoteSource::open(&server.url("/moving.csv"), &small()).unwrap();
    server.put("/moving.csv", csv(30_002));
    let mut rest = Vec::new();
    let e = std::io::Read::read_to_end(&mut remote.open().unwrap(), &mut rest).unwrap_err();
    assert!(e.to_string().contains("changed while it was read"), "{e}");
}

#[test]
fn a_slow_server_times_out() {
    let server = Server::start();
    server.put("/slow.csv", csv(10));
    let config = RemoteConfig {
        timeout: Duration::from_millis(300),
        retries: 1,
        ..RemoteConfig::default()
    };
    let remote = RemoteSource::open(&server.url("/slow.csv"), &config).unwrap();
    *server.state.delay.lock().unwrap() = Duration::from_millis(1500);
    let t = std::time::Instant::now();
    let r = remote.read_range(0, 10).unwrap().unwrap_err();
    assert_eq!(r.reason(), RefusalReason::ReadError);
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
}

#[test]
fn a_server_that_trickles_is_refused_within_the_stall_bound() {
    // One byte every 40 ms: each request brings a little before its
    // timeout, retries and resumes each start another; the whole read is
    // bounded by (REMOTE_RESUMES + 1) timeouts from the last progress.
    let server = Server::start();
    server.put("/trickle.csv", csv(20_000));
    let config = RemoteConfig {
        timeout: Duration::from_millis(400),
        ..small()
    };
    let remote = RemoteSource::open(&server.url("/trickle.csv"), &config).unwrap();
    *server.state.trickle.lock().unwrap() = Duration::from_millis(40);
    let bound = Duration::from_millis(400 * (plumb_remote::REMOTE_RESUMES as u64 + 1));
    // A range read, and a streamed one.
    let t = std::time::Instant::now();
    let r = remote.read_range(0, 100_000).unwrap().unwrap_err();
    assert_eq!(r.reason(), RefusalReason::ReadError, "{r}");
    assert!(t.elapsed() < bound * 2, "{:?}", t.elapsed());
    assert!(r.message().contains("too slowly"), "{}", r.message());
    let t = std::time::Instant::now();
    let mut rest = Vec::new();
    let e = std::io::Read::read_to_end(&mut remote.open().unwrap(), &mut rest).unwrap_err();
    assert!(t.elapsed() < bound * 2, "{:?}", t.elapsed());
    assert!(e.to_string().contains("too slowly"), "{e}");
}

#[test]
fn a_stream_longer_than_the_request_timeout_goes_on() {
    // The timeout bounds a whole request, body included: a long scan's
    // streamed GET is cut by it, and resumed from its last byte as often
    // as each attempt made progress.
    let server = Server::start();
    let body = csv(200_000); // ~4.6 MiB
    server.put("/long.csv", body.clone());
    // Long enough that a loaded machine still delivers each piece within
    // the stall bound (five timeouts), short against the 3.6 s scan.
    let config = RemoteConfig {
        timeout: Duration::from_millis(250),
        ..small()
    };
    let remote = RemoteSource::open(&server.url("/long.csv"), &config).unwrap();
    let mut reader = remote.open().unwrap();
    let mut got = Vec::new();
    let mut buf = vec![0u8; 64 << 10];
    let started = std::time::Instant::now();
    loop {
        let n = std::io::Read::read(&mut reader, &mut buf).unwrap();
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
        // A slow reader: the scan takes ~3.6 s, many timeouts long.
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(got, body);
    assert!(started.elapsed() > Duration::from_secs(3));
    // The timeout did cut the stream: it was resumed by a GET of ours
    // (object_store's own retries of a body are not counted).
    assert!(remote.requests() > 2, "{} requests", remote.requests());
}

#[test]
fn a_server_without_ranges_is_refused_with_what_to_do() {
    let server = Server::start();
    server.put("/whole.csv", csv(100));
    server.state.no_ranges.store(true, Ordering::Relaxed);
    let remote = RemoteSource::open(&server.url("/whole.csv"), &small()).unwrap();
    let r = remote.read_range(0, 10).unwrap().unwrap_err();
    assert_eq!(r.reason(), RefusalReason::ReadError);
    assert!(
        r.message().contains("does not serve byte ranges"),
        "{}",
        r.message()
    );
    assert!(r.message().contains("download it"), "{}", r.message());
}

#[test]
fn a_missing_object_is_not_found() {
    let server = Server::start();
    let r = RemoteSource::open(&server.url("/nope.csv"), &small()).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::NotFound);
    assert_eq!(r.path(), Some(server.url("/nope.csv").as_str()));
}

#[test]
fn urls_with_credentials_are_refused_without_echoing_them() {
    for url in [
        "https://user:hunter2secret@example.com/data.csv",
        "s3://bucket/key.csv?X-Amz-Signature=hunter2secret",
        "http://example.com/a.csv#hunter2secret",
    ] {
        let r = RemoteUrl::parse(url).unwrap_err();
        assert_eq!(r.reason(), RefusalReason::InvalidArgument);
        assert!(!r.message().contains("hunter2"), "{}", r.message());
    }
    // Dot segments are resolved when the URL is parsed, so the key
    // judged is the key fetched.
    let u = RemoteUrl::parse("s3://Bucket/a/./b/%2e%2e/c").unwrap();
    assert_eq!(u.key_segments().unwrap(), ["a", "c"]);
    // A segment hiding a separator is no key.
    let u = RemoteUrl::parse("s3://bucket/a%2F..%2Fb").unwrap();
    assert_eq!(
        u.key_segments().unwrap_err().reason(),
        RefusalReason::InvalidArgument
    );
    // A bucket name is kept as written (names are case-sensitive); an
    // HTTP host is lowercased.
    let u = RemoteUrl::parse("s3://Bucket/a/./b//c.csv").unwrap();
    assert_eq!(u.host(), "Bucket");
    assert_eq!(
        RemoteUrl::parse("https://Example.ORG/a").unwrap().host(),
        "example.org"
    );
    assert_eq!(u.key_segments().unwrap(), ["a", "b", "c.csv"]);
    assert!(plumb_remote::scrub("GET https://h/p?X-Amz-Signature=abc failed").contains("?***"));
}

#[test]
fn the_allow_list_judges_parsed_urls() {
    let server = Server::start();
    let allowed = [
        "s3://bucket/prefix".to_owned(),
        format!("{}/data", server.base),
    ];
    let list = AllowList::new(&allowed).unwrap();
    let ok = |u: &str| list.judge(u).map(|u| u.as_str().to_owned());
    assert!(ok("s3://bucket/prefix/a.csv").is_ok());
    assert!(ok("s3://bucket/prefix/deeper/b.parquet").is_ok());
    assert!(ok("S3://bucket/prefix/./c.csv").is_ok());
    assert!(ok(&format!("{}/data/x.csv", server.base)).is_ok());
    let refused = [
        "s3://bucket/prefix2/a.csv".to_owned(),
        "s3://bucket/other/a.csv".to_owned(),
        "s3://other/prefix/a.csv".to_owned(),
        "s3://bucket/prefix/../secret.csv".to_owned(),
        "s3://bucket/prefix/%2e%2e/secret.csv".to_owned(),
        "s3://bucket/prefix%2F..%2Fsecret.csv".to_owned(),
        "s3://bucket/PREFIX/a.csv".to_owned(),
        "s3://BUCKET/prefix/a.csv".to_owned(),
        "s3://Bucket/prefix/a.csv".to_owned(),
        "s3://user:pw@bucket/prefix/a.csv".to_owned(),
        "s3://bucket/prefix/a.csv?versionId=1".to_owned(),
        "gs://bucket/prefix/a.csv".to_owned(),
        "https://bucket/prefix/a.csv".to_owned(),
        format!(
            "{}/data/x.csv",
            server.base.replace("127.0.0.1", "localhost")
        ),
        "http://127.0.0.1:1/data/x.csv".to_owned(),
        format!("{}/database/x.csv", server.base),
        "not a url".to_owned(),
    ];
    for u in &refused {
        let r = list.judge(u).unwrap_err();
        assert!(
            matches!(
                r.reason(),
                RefusalReason::OutsideRoot | RefusalReason::InvalidArgument
            ),
            "{u}: {r}"
        );
    }
    let r = AllowList::default()
        .judge("s3://bucket/prefix/a.csv")
        .unwrap_err();
    assert_eq!(r.reason(), RefusalReason::OutsideRoot);
}

#[test]
fn redirects_to_another_host_are_not_followed_when_pinned() {
    let there = Server::start();
    there.put("/x.csv", csv(10));
    let here = Server::start();
    *here.state.redirect.lock().unwrap() = Some(there.base.clone());
    let pinned = RemoteConfig {
        follow_redirects: false,
        retries: 0,
        ..RemoteConfig::default()
    };
    let r = RemoteSource::open(&here.url("/x.csv"), &pinned).unwrap_err();
    assert!(
        matches!(
            r.reason(),
            RefusalReason::ReadError | RefusalReason::NotFound
        ),
        "{r}"
    );
    assert_eq!(there.state.requests.load(Ordering::Relaxed), 0);
    // The CLI's default follows it, as curl -L does.
    let followed = RemoteSource::open(&here.url("/x.csv"), &RemoteConfig::default()).unwrap();
    assert_eq!(followed.len(), Some(csv(10).len() as u64));
}

#[test]
fn a_compressed_object_streams_through_the_decoders() {
    use std::io::Write as _;
    let server = Server::start();
    let body = csv(20_000);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&body).unwrap();
    let gz = gz.finish().unwrap();
    server.put("/people.csv.gz", gz.clone());
    let remote = RemoteSource::open(&server.url("/people.csv.gz"), &small()).unwrap();
    let local = BytesSource::new("people.csv.gz", gz.clone());
    for op in [Op::Inspect, Op::Validate, Op::Select] {
        let (r, l) = (
            answer(&remote, op, &Request::default()),
            answer(&local, op, &Request::default()),
        );
        assert_eq!(r, l, "{op:?}");
        assert_eq!(r["container"], "gzip", "{op:?}");
    }
    let v = answer(&remote, Op::Validate, &Request::default());
    assert_eq!(v["valid"], true, "{v}");
    assert_eq!(v["rows_scanned"], 20_000);
}

#[test]
fn the_environment_sets_ranges_read_ahead_timeout_and_retries() {
    let vars = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    };
    let c = RemoteConfig::from_vars(vars(&[])).unwrap();
    assert_eq!(c.range_bytes, plumb_remote::REMOTE_RANGE_BYTES);
    assert_eq!(c.read_ahead, plumb_remote::REMOTE_READ_AHEAD);
    let c = RemoteConfig::from_vars(vars(&[
        ("PLUMB_REMOTE_RANGE_BYTES", "65536"),
        ("PLUMB_REMOTE_READ_AHEAD", "0"),
        ("PLUMB_REMOTE_TIMEOUT", "7"),
        ("PLUMB_REMOTE_RETRIES", " 1 "),
    ]))
    .unwrap();
    assert_eq!(
        (c.range_bytes, c.read_ahead, c.timeout, c.retries),
        (65536, 0, Duration::from_secs(7), 1)
    );
    for (name, bad) in [
        ("PLUMB_REMOTE_RANGE_BYTES", "1024"),
        ("PLUMB_REMOTE_RANGE_BYTES", "4MiB"),
        ("PLUMB_REMOTE_READ_AHEAD", "17"),
        ("PLUMB_REMOTE_TIMEOUT", "0"),
        ("PLUMB_REMOTE_RETRIES", "-1"),
    ] {
        let get = move |n: &str| (n == name).then(|| bad.to_owned());
        let r = RemoteConfig::from_vars(get).unwrap_err();
        assert_eq!(r.reason(), RefusalReason::InvalidArgument);
        assert!(r.message().contains(name), "{}", r.message());
    }
}
