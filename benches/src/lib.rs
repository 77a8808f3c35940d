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
