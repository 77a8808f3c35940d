//! Shared input generators for plumb's criterion benches.
//!
//! The data is generated, deterministic and shaped like real files, so a
//! bench needs no download and every run measures the same bytes.

/// ASCII-heavy text: CSV-like lines of words and numbers.
pub fn ascii_text(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 64);
    let mut i: u64 = 0;
    while out.len() < bytes {
        let line = format!(
            "{i},name-{i},{}.{},plain words here\n",
            i * 7 % 1000,
            i % 97
        );
        out.extend_from_slice(line.as_bytes());
        i += 1;
    }
    out
}

/// Multibyte-heavy text: Greek, CJK and emoji mixed with ASCII.
pub fn multibyte_text(bytes: usize) -> Vec<u8> {
    let pieces = [
        "αβγδε ",
        "日本語のテキスト ",
        "😀🎉 ",
        "naïve café ",
        "Ωμέγα\n",
    ];
    let mut out = Vec::with_capacity(bytes + 64);
    let mut i = 0;
    while out.len() < bytes {
        out.extend_from_slice(pieces[i % pieces.len()].as_bytes());
        i += 1;
    }
    out
}

/// A mixed-type CSV: integers, floats, names, quoted text with commas
/// and doubled quotes, dates, booleans and missing values.
pub fn mixed_csv(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 256);
    out.extend_from_slice(b"id,name,score,comment,date,active,ratio\n");
    let mut i: u64 = 0;
    while out.len() < bytes {
        let comment = match i % 4 {
            0 => "\"said \"\"hello\"\", then left\"".to_owned(),
            1 => "plain words".to_owned(),
            2 => "\"a, b and c\"".to_owned(),
            _ => "NA".to_owned(),
        };
        let line = format!(
            "{i},name{},{}.{},{comment},2024-{:02}-{:02},{},{}\n",
            i % 1000,
            i % 100,
            i % 7,
            i % 12 + 1,
            i % 28 + 1,
            if i.is_multiple_of(2) { "true" } else { "false" },
            (i as f64) / 3.0
        );
        out.extend_from_slice(line.as_bytes());
        i += 1;
    }
    out
}

/// A plain numeric CSV: eight integer and float columns, no quotes.
pub fn numeric_csv(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 256);
    out.extend_from_slice(b"a,b,c,d,e,f,g,h\n");
    let mut i: u64 = 0;
    while out.len() < bytes {
        let line = format!(
            "{},{},{}.{},{},{},{}.5,{},{}\n",
            i,
            i * 31 % 10007,
            i % 1000,
            i % 10,
            i * 7,
            (i * 13) % 999,
            i % 50,
            i % 3,
            i * 101 % 65536
        );
        out.extend_from_slice(line.as_bytes());
        i += 1;
    }
    out
}

/// A CSV of identifiers and times: 19-digit ids (beyond a double's safe
/// integers), epoch seconds, epoch milliseconds with a fraction, and a
/// status with a missing-value token.
pub fn ids_csv(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 256);
    out.extend_from_slice(b"id,seconds,millis,status\n");
    let mut i: u64 = 0;
    while out.len() < bytes {
        let line = format!(
            "{},{},{}.{:03},{}\n",
            1_234_567_890_123_456_789u64 - i * 7919,
            1_700_000_000 + i,
            1_700_000_000_000u64 + i * 13,
            i % 1000,
            if i.is_multiple_of(3) { "NA" } else { "ok" }
        );
        out.extend_from_slice(line.as_bytes());
        i += 1;
    }
    out
}

/// A CSV of measurements in scientific notation: shortest exponent
/// forms, three-digit exponent forms and long negative fractions.
pub fn scientific_csv(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 256);
    out.extend_from_slice(b"flux,radius,delta\n");
    let mut i: u64 = 0;
    while out.len() < bytes {
        let line = format!(
            "{:e},{:.3e},{}\n",
            (i as f64) * 1.000001e-7,
            (i as f64).sqrt(),
            -(i as f64) / 7.0
        );
        out.extend_from_slice(line.as_bytes());
        i += 1;
    }
    out
}

/// A text-heavy CSV: quoted names and addresses with delimiters inside,
/// emails and quoted remarks with doubled quotes.
pub fn text_csv(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 256);
    out.extend_from_slice(b"id,name,address,email,remark\n");
    let mut i: u64 = 0;
    while out.len() < bytes {
        let line = format!(
            "{i},\"Smith, John {i}\",\"12 Main St, Apt {}\",someone{}@example.com,\"said \"\"hi\"\"\"\n",
            i % 100,
            i % 977
        );
        out.extend_from_slice(line.as_bytes());
        i += 1;
    }
    out
}

/// Counts records with the `csv` crate's `read_byte_record` loop: the
/// peer baseline (it checks neither UTF-8 nor row shapes).
pub fn csv_crate_count(data: &[u8]) -> u64 {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(data);
    let mut record = csv::ByteRecord::new();
    let mut n = 0;
    while reader.read_byte_record(&mut record).expect("csv") {
        n += 1;
    }
    n
}

/// A large JSON array of objects: ids, names, floats, booleans, nulls,
/// nested arrays and escaped strings.
pub fn objects_json(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 256);
    out.push(b'[');
    let mut i: u64 = 0;
    while out.len() < bytes {
        if i > 0 {
            out.push(b',');
        }
        let item = format!(
            "{{\"id\":{i},\"name\":\"user {i}\",\"score\":{}.{},\"active\":{},\"tags\":[\"a\",\"b\\n{}\"],\"parent\":null,\"ratio\":{}}}",
            i % 1000,
            i % 97,
            i.is_multiple_of(2),
            i % 13,
            (i as f64) * 0.37
        );
        out.extend_from_slice(item.as_bytes());
        i += 1;
    }
    out.push(b']');
    out
}

/// Lines of JSON records (JSON Lines).
pub fn records_jsonl(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 256);
    let mut i: u64 = 0;
    while out.len() < bytes {
        let item = format!(
            "{{\"id\":{i},\"name\":\"user {i}\",\"score\":{}.{},\"active\":{},\"tags\":[\"a\",\"b\"],\"parent\":null}}\n",
            i % 1000,
            i % 97,
            i.is_multiple_of(2),
        );
        out.extend_from_slice(item.as_bytes());
        i += 1;
    }
    out
}
