//! What calamine would hold for an `.xlsb`, judged from the parts'
//! records before it reads them.
//!
//! An xlsb part is a run of binary records, each a type and a declared
//! length; calamine sizes its record buffer by that length (up to
//! 256 MiB, a claim a few bytes make) and holds the shared-strings table
//! whole when the workbook opens. plumb walks every `.bin` part's record
//! headers first, skipping the bodies: a record over
//! [`SHEETS_MAX_STRING_BYTES`] is refused, and the shared strings are
//! counted against [`SHEETS_MAX_SHARED_STRINGS_BYTES`] as for an xlsx.

use std::io::{Cursor, Read};

use plumb_core::CancelToken;

use crate::xlsx_judge::{
    Finding, ENTRY_BYTES, SHEETS_MAX_SHARED_STRINGS_BYTES, SHEETS_MAX_STRING_BYTES,
};

/// The record type of one shared string (`BrtSSTItem`).
const SST_ITEM: u16 = 0x0013;

/// Records walked between two looks at the cancel token.
const CANCEL_EVERY: u64 = 1 << 16;

/// Judges the binary parts calamine reads as records: the workbook, its
/// shared strings and styles, and every part the workbook's
/// relationships name as a `.bin` (its sheets among them) that is not
/// a compound file (a VBA project is one). A part that ends inside a record, or
/// does not inflate, is left to calamine.
pub(crate) fn judge(bytes: &[u8], cancel: Option<&CancelToken>) -> Result<(), Finding> {
    let Ok(mut archive) = zip::ZipArchive::new(Cursor::new(bytes)) else {
        return Ok(());
    };
    let targets = targets(&mut archive);
    for i in 0..archive.len() {
        let Ok(part) = archive.by_index(i) else {
            continue;
        };
        let name = part.name().to_owned();
        let lower = name.replace('\\', "/").to_ascii_lowercase();
        let fixed =
            ["xl/workbook.bin", "xl/sharedstrings.bin", "xl/styles.bin"].contains(&lower.as_str());
        let named = lower.ends_with(".bin") && targets.iter().any(|t| lower.ends_with(t.as_str()));
        if part.is_dir() || !(fixed || named) {
            continue;
        }
        let shared = lower.ends_with("sharedstrings.bin");
        let mut part = std::io::BufReader::new(part);
        let head = std::io::BufRead::fill_buf(&mut part).unwrap_or_default();
        if head.starts_with(OLE_MAGIC) {
            continue;
        }
        walk(&plumb_core::echo(&name), part, shared, cancel)?;
    }
    Ok(())
}

const OLE_MAGIC: &[u8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1";

/// The parts the workbook's relationships name, lowercased, without a
/// leading `/` or `../`: calamine opens each sheet by its target.
fn targets(archive: &mut zip::ZipArchive<Cursor<&[u8]>>) -> Vec<String> {
    let Some(i) = (0..archive.len()).find(|&i| {
        archive.name_for_index(i).is_some_and(|n| {
            n.replace('\\', "/")
                .eq_ignore_ascii_case("xl/_rels/workbook.bin.rels")
        })
    }) else {
        return Vec::new();
    };
    let mut xml = Vec::new();
    if let Ok(part) = archive.by_index(i) {
        let _ = part.take(SHEETS_MAX_STRING_BYTES).read_to_end(&mut xml);
    }
    let xml = String::from_utf8_lossy(&xml).to_ascii_lowercase();
    let mut out = Vec::new();
    for piece in xml.split("target=").skip(1) {
        let mut chars = piece.chars();
        let Some(q @ ('"' | '\'')) = chars.next() else {
            continue;
        };
        let value: String = chars.take_while(|&c| c != q).collect();
        let mut t = value.trim_start_matches('/');
        while let Some(rest) = t.strip_prefix("../") {
            t = rest;
        }
        if !t.is_empty() {
            out.push(t.to_owned());
        }
    }
    out
}

/// One byte, or `None` at the end of the part (or a read that failed).
fn byte(r: &mut impl Read) -> Option<u8> {
    let mut b = [0u8];
    r.read_exact(&mut b).ok().map(|()| b[0])
}

/// A record's type and declared length, read as calamine reads them;
/// `None` where the part ends.
fn header(r: &mut impl Read) -> Option<(u16, u64)> {
    let b = byte(r)?;
    let typ = if b & 0x80 == 0 {
        u16::from(b)
    } else {
        u16::from(b & 0x7F) | (u16::from(byte(r)? & 0x7F) << 7)
    };
    let mut b = byte(r)?;
    let mut len = u64::from(b & 0x7F);
    for i in 1..4 {
        if b & 0x80 == 0 {
            break;
        }
        b = byte(r)?;
        len |= u64::from(b & 0x7F) << (7 * i);
    }
    Some((typ, len))
}

fn walk(
    echo: &str,
    part: impl Read,
    shared: bool,
    cancel: Option<&CancelToken>,
) -> Result<(), Finding> {
    let mut r = std::io::BufReader::new(part);
    let (mut entries, mut text, mut seen) = (0u64, 0u64, 0u64);
    while let Some((typ, len)) = header(&mut r) {
        if len > SHEETS_MAX_STRING_BYTES {
            return Err(Finding::TooLarge(format!(
                "a record in the workbook's part `{echo}` declares {len} bytes, which calamine would allocate before reading it; plumb's cap is {SHEETS_MAX_STRING_BYTES} bytes"
            )));
        }
        if shared && typ == SST_ITEM {
            entries += 1;
            text += len;
            let cost = entries.saturating_mul(ENTRY_BYTES).saturating_add(text);
            if cost > SHEETS_MAX_SHARED_STRINGS_BYTES {
                return Err(Finding::TooLarge(format!(
                    "the shared strings in `{echo}` ({entries} read so far) would take at least {cost} bytes as calamine holds them, whole, when the workbook opens; plumb's cap is {SHEETS_MAX_SHARED_STRINGS_BYTES} bytes"
                )));
            }
        }
        let skipped = std::io::copy(&mut (&mut r).take(len), &mut std::io::sink()).unwrap_or(0);
        if skipped < len {
            break;
        }
        seen += 1;
        if seen.is_multiple_of(CANCEL_EVERY) && cancel.is_some_and(CancelToken::is_cancelled) {
            return Err(Finding::Cancelled);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(typ: u16, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        if typ < 0x80 {
            out.push(typ as u8);
        } else {
            out.push((typ & 0x7F) as u8 | 0x80);
            out.push((typ >> 7) as u8);
        }
        let mut len = body.len();
        loop {
            let b = (len & 0x7F) as u8;
            len >>= 7;
            out.push(if len > 0 { b | 0x80 } else { b });
            if len == 0 {
                break;
            }
        }
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn headers_read_as_calamine_reads_them() {
        let mut bytes = record(0x009F, &[0; 8]);
        bytes.extend(record(SST_ITEM, &[1; 300]));
        let mut r = bytes.as_slice();
        assert_eq!(header(&mut r), Some((0x009F, 8)));
        r = &r[8..];
        assert_eq!(header(&mut r), Some((SST_ITEM, 300)));
        // A length of four bytes, all continued, is 28 bits: 256 MiB.
        let mut lie: &[u8] = &[0x01, 0xFF, 0xFF, 0xFF, 0x7F];
        assert_eq!(header(&mut lie), Some((1, (1 << 28) - 1)));
    }

    #[test]
    fn a_record_that_lies_is_refused_and_a_table_is_counted() {
        let lie = [0x01, 0xFF, 0xFF, 0xFF, 0x7F];
        assert!(matches!(
            walk("p", lie.as_slice(), false, None),
            Err(Finding::TooLarge(_))
        ));
        let one = record(SST_ITEM, &[0; 9]);
        let fits = one.repeat(1000);
        assert_eq!(walk("p", fits.as_slice(), true, None), Ok(()));
        let many = one.repeat(600_000);
        assert!(matches!(
            walk("p", many.as_slice(), true, None),
            Err(Finding::TooLarge(_))
        ));
        // The same records outside the shared strings are not a table.
        assert_eq!(walk("p", many.as_slice(), false, None), Ok(()));
    }
}
