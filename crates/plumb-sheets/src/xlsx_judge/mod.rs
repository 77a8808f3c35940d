//! What calamine would hold for an `.xlsx`, judged from the parts' XML
//! before it reads them.
//!
//! calamine streams an xlsx worksheet cell by cell, but three things in
//! the XML still decide its memory or its truth: the shared-strings
//! table, read whole into a vector when the workbook opens (sized first
//! by the `uniqueCount` the file declares, a claim a 2 KB file can set to
//! petabytes); one cell's text, built whole however long; and cell
//! references, whose row and column calamine accumulates in a `u32`
//! that wraps (a row past 2^32 lands on a small row, silently). plumb
//! reads each XML part first through a reader that refuses any run of
//! bytes between two `<` longer than [`SHEETS_MAX_STRING_BYTES`] (so no
//! event, the judge's own included, is ever buffered past it), then as
//! quick-xml events, keeping only counts.
//!
//! The xlsb kind holds the same things in binary records; its parts are
//! bounded by the declared-size cap only.

use std::io::{Cursor, Read};
use std::mem::size_of;

use plumb_core::CancelToken;

#[cfg(test)]
mod reference;
mod scan;

use scan::Scan;

/// The longest string plumb lets calamine build from one cell or one
/// shared string, in bytes of XML text (Excel itself stores at most
/// 32,767 characters in a cell). It also bounds any run of bytes between
/// two `<` in a workbook's XML parts, which is every text or tag an XML
/// reader holds at once, and the length an xlsb record may declare.
pub const SHEETS_MAX_STRING_BYTES: u64 = 1 << 20;

/// The most memory the shared-strings table of an xlsx or xlsb may take
/// as calamine holds it (one `String` per entry, its text, and the
/// vector's room, by the count the file declares or holds, whichever is
/// more): with the file and a sheet's stream, within the 32 MiB every
/// reader keeps to.
pub const SHEETS_MAX_SHARED_STRINGS_BYTES: u64 = 16 << 20;

/// What one shared string costs beyond its text: the `String` in the
/// vector, its room when the vector grows, and the allocation's header.
pub(crate) const ENTRY_BYTES: u64 = 2 * size_of::<String>() as u64 + 16;

/// Inflated bytes judged between two looks at the cancel token.
const CANCEL_EVERY: u64 = 16 << 20;

/// What the judge found that does not stop the workbook.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Judged {
    /// The zip indices of the parts where some cell's `<v>` text starts
    /// or ends with white space (` 41`), which XML Schema's numbers allow
    /// and calamine refuses or misreads: [`crate::xlsx_trim`] rewrites
    /// them before calamine opens the workbook.
    pub(crate) padded: Vec<usize>,
}

/// The judge's finding that stops the workbook.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Finding {
    /// calamine would build more than a cap allows; the message says what.
    TooLarge(String),
    /// The XML says something no workbook can hold.
    Malformed(String),
    /// The caller cancelled the judging.
    Cancelled,
}

/// A reader that fails once a run of bytes without `<` passes the cap:
/// what stands between two `<` is one XML event, so no event is longer.
struct Runs<R> {
    inner: R,
    run: u64,
    tripped: bool,
    read: u64,
}

impl<R: Read> Read for Runs<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let chunk = &buf[..n];
        self.read += n as u64;
        let mut last = None;
        for at in memchr::memchr_iter(b'<', chunk) {
            let gap = match last {
                None => self.run + at as u64,
                Some(prev) => (at - prev - 1) as u64,
            };
            if gap > SHEETS_MAX_STRING_BYTES {
                self.tripped = true;
            }
            last = Some(at);
        }
        self.run = match last {
            None => self.run + n as u64,
            Some(prev) => (n - prev - 1) as u64,
        };
        if self.run > SHEETS_MAX_STRING_BYTES {
            self.tripped = true;
        }
        if self.tripped {
            return Err(std::io::Error::other("a run of XML past the cap"));
        }
        Ok(n)
    }
}

/// Whether a zip part is XML that calamine may parse.
fn is_xml(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".xml") || lower.ends_with(".rels")
}

/// Judges every XML part of the xlsx in `bytes`. Parts the zip or XML
/// reader cannot read are left to calamine, which reports them.
pub(crate) fn judge(bytes: &[u8], cancel: Option<&CancelToken>) -> Result<Judged, Finding> {
    let mut judged = Judged::default();
    let Ok(mut archive) = zip::ZipArchive::new(Cursor::new(bytes)) else {
        return Ok(judged);
    };
    for i in 0..archive.len() {
        let Ok(part) = archive.by_index(i) else {
            continue;
        };
        let name = part.name().to_owned();
        if !is_xml(&name) || part.is_dir() {
            continue;
        }
        let shared = name.to_ascii_lowercase().ends_with("sharedstrings.xml");
        if judge_part(&name, part, shared, cancel)? {
            judged.padded.push(i);
        }
    }
    Ok(judged)
}

/// Where in a part the events are.
#[derive(Default)]
struct Part {
    /// Inside a shared string (`si`) or an inline one (`is`): its bytes.
    string: Option<u64>,
    /// Shared strings seen, their text, and the count declared.
    entries: u64,
    text: u64,
    declared: u64,
    /// Inside a cell (`c`), and inside its value (`v`): the first and
    /// last bytes of the value's text so far.
    cell: bool,
    value: Option<(Option<u8>, u8)>,
    /// A cell's value padded with white space was seen.
    padded: bool,
}

impl Part {
    /// The raw bytes of a text event (entities as written).
    fn value_text(&mut self, bytes: &[u8]) {
        if let (Some((first, last)), Some(&end)) = (self.value.as_mut(), bytes.last()) {
            first.get_or_insert(bytes[0]);
            *last = end;
        }
    }

    fn open(&mut self, name: &[u8], empty: bool) {
        match name {
            b"c" if !empty => self.cell = true,
            b"v" if !empty && self.cell => self.value = Some((None, b'x')),
            _ => {}
        }
    }

    fn close(&mut self, name: &[u8]) {
        match name {
            b"c" => self.cell = false,
            b"v" => {
                if let Some((Some(first), last)) = self.value.take() {
                    self.padded |= is_xml_space(first) || is_xml_space(last);
                }
            }
            _ => {}
        }
    }

    fn table_cost(&self) -> u64 {
        let slots = self.entries.max(self.declared);
        slots.saturating_mul(ENTRY_BYTES).saturating_add(self.text)
    }
}

fn judge_part(
    name: &str,
    part: impl Read,
    shared: bool,
    cancel: Option<&CancelToken>,
) -> Result<bool, Finding> {
    let echo = plumb_core::echo(name);
    let mut runs = Runs {
        inner: part,
        run: 0,
        tripped: false,
        read: 0,
    };
    let mut scan = Scan::new(shared, &echo);
    let mut buf = vec![0u8; 64 << 10];
    let mut next_look = CANCEL_EVERY;
    loop {
        let n = match runs.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(_) if runs.tripped => return Err(too_long(&echo)),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // The zip or its inflater failed: calamine will say so.
            Err(_) => break,
        };
        scan.feed(&buf[..n])?;
        if runs.read >= next_look {
            next_look = runs.read + CANCEL_EVERY;
            if cancel.is_some_and(CancelToken::is_cancelled) {
                return Err(Finding::Cancelled);
            }
        }
    }
    Ok(scan.part.padded)
}

/// XML's white space: what XML Schema's numbers may be padded with.
pub(crate) fn is_xml_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn too_long(echo: &str) -> Finding {
    Finding::TooLarge(format!(
        "the workbook's part `{echo}` holds a text or tag of more than {SHEETS_MAX_STRING_BYTES} bytes, which calamine would build whole; plumb's cap is {SHEETS_MAX_STRING_BYTES} bytes"
    ))
}

/// The count a `uniqueCount` declares, as calamine reads it: decimal
/// digits (around spaces plumb forgives), else nothing reserved.
fn declared_count(v: &[u8]) -> u64 {
    let t = v.trim_ascii();
    if t.is_empty() || !t.iter().all(u8::is_ascii_digit) {
        return 0;
    }
    std::str::from_utf8(t)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

fn text(p: &mut Part, len: u64, shared: bool, echo: &str) -> Result<(), Finding> {
    let Some(bytes) = p.string.as_mut() else {
        return Ok(());
    };
    *bytes += len;
    if *bytes > SHEETS_MAX_STRING_BYTES {
        return Err(Finding::TooLarge(format!(
            "a string in the workbook's part `{echo}` is over {SHEETS_MAX_STRING_BYTES} bytes (its runs of rich text together), which calamine would build whole; plumb's cap is {SHEETS_MAX_STRING_BYTES} bytes"
        )));
    }
    if shared {
        p.text += len;
        check_table(p, echo)?;
    }
    Ok(())
}

fn check_table(p: &Part, echo: &str) -> Result<(), Finding> {
    let cost = p.table_cost();
    if cost > SHEETS_MAX_SHARED_STRINGS_BYTES {
        return Err(Finding::TooLarge(format!(
            "the shared strings in `{echo}` ({} entries declared, {} read so far) would take at least {cost} bytes as calamine holds them, whole, when the workbook opens; plumb's cap is {SHEETS_MAX_SHARED_STRINGS_BYTES} bytes",
            p.declared, p.entries
        )));
    }
    Ok(())
}

/// Refuses a reference whose column letters or row digits do not fit
/// the `u32` calamine accumulates them in (it would wrap, and the cell
/// would be read at another place). What fits but lies past Excel's grid
/// is read and counted as such by the sheet's facts.
fn check_reference(r: &[u8], echo: &str) -> Result<(), Finding> {
    let mut col = 0u64;
    let mut row = 0u64;
    let mut digits = false;
    for &b in r {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' if !digits => {
                col = col * 26 + u64::from(b.to_ascii_uppercase() - b'A') + 1;
            }
            b'0'..=b'9' => {
                digits = true;
                row = row * 10 + u64::from(b - b'0');
            }
            // `$` marks an absolute reference; anything else calamine
            // refuses on its own.
            _ => {}
        }
        if col > u64::from(u32::MAX) || row > u64::from(u32::MAX) {
            return Err(Finding::Malformed(format!(
                "the cell reference `{}` in `{echo}` lies past any grid (its row or column does not fit 32 bits)",
                plumb_core::echo(&String::from_utf8_lossy(r))
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn runs_over(bytes: &[u8], chunk: usize) -> bool {
        struct Chunked<'a>(&'a [u8], usize);
        impl Read for Chunked<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut r = Runs {
            inner: Chunked(bytes, chunk),
            run: 0,
            tripped: false,
            read: 0,
        };
        std::io::copy(&mut r, &mut std::io::sink()).is_err()
    }

    #[test]
    fn a_run_trips_at_the_cap_however_it_is_split() {
        let cap = SHEETS_MAX_STRING_BYTES as usize;
        // Between the two `<`: `a>` and the run of `x`.
        let at_cap = [b"<a>".as_slice(), &vec![b'x'; cap - 2], b"<b/>"].concat();
        let over = [b"<a>".as_slice(), &vec![b'x'; cap - 1], b"<b/>"].concat();
        let tail = [b"<a>".as_slice(), &vec![b'x'; cap - 1]].concat();
        // Chunks that put the `<` at every place in a read, one a byte
        // at a time in spirit (three keeps a mebibyte quick).
        for chunk in [1 << 16, 8191, 3, 1] {
            assert!(!runs_over(&at_cap, chunk), "{chunk}");
            assert!(runs_over(&over, chunk), "{chunk}");
            assert!(runs_over(&tail, chunk), "{chunk}");
        }
    }

    fn scan(xml: &[u8], shared: bool, chunk: usize) -> Result<bool, Finding> {
        let mut runs = Runs {
            inner: xml,
            run: 0,
            tripped: false,
            read: 0,
        };
        let mut scan = Scan::new(shared, "p");
        let mut buf = vec![0u8; chunk];
        loop {
            match runs.read(&mut buf) {
                Ok(0) => return Ok(scan.part.padded),
                Ok(n) => scan.feed(&buf[..n])?,
                Err(_) => return Err(too_long("p")),
            }
        }
    }

    /// One piece of a part: a cell or row with a reference, a shared or
    /// inline string of text pieces, or markup the scanner must step over.
    fn piece() -> impl Strategy<Value = String> {
        let reference = prop_oneof![
            Just("A1".to_owned()),
            Just("XFD1048576".to_owned()),
            Just("$B$4294967295".to_owned()),
            Just("A4294967296".to_owned()),
            Just("ZZZZZZZ1".to_owned()),
            Just("GZZZZZZ1".to_owned()),
            "[A-Z]{1,3}[0-9]{1,6}",
        ];
        let text = prop_oneof![
            "[a-z ]{0,12}",
            Just("&amp;".to_owned()),
            Just("<![CDATA[x<y]]]>".to_owned()),
            (0usize..3).prop_map(|k| "w".repeat([1000, 400_000, 700_000][k])),
        ];
        let string = (prop::collection::vec(text, 0..4), any::<bool>()).prop_map(|(t, rich)| {
            if rich {
                t.iter().map(|x| format!("<r><t>{x}</t></r>")).collect()
            } else {
                format!("<t>{}</t>", t.concat())
            }
        });
        prop_oneof![
            (reference.clone(), 0usize..4).prop_map(|(r, k)| match k {
                0 => format!("<c r=\"{r}\"><v>1</v></c>"),
                1 => format!("<x:c x:r = '{r}' s=\"2\"/>"),
                2 => format!("<row r=\"{r}\" spans=\"1:2\"></row>"),
                _ => format!("<mergeCell ref=\"A1:{r}\"/>"),
            }),
            string.clone().prop_map(|s| format!("<si>{s}</si>")),
            string.prop_map(|s| format!("<c t=\"inlineStr\"><is>{s}</is></c>")),
            Just("<si/>".to_owned()),
            // Values padded or not, in a cell or not, as text or CDATA.
            prop_oneof![
                Just("<c t=\"n\"><v> 41</v></c>".to_owned()),
                Just("<x:c><x:v>41\n</x:v></x:c>".to_owned()),
                Just("<c><v>4&amp;\t</v></c>".to_owned()),
                Just("<c><v>&amp; 1</v></c>".to_owned()),
                Just("<c><v><![CDATA[ 1 ]]></v></c>".to_owned()),
                Just("<c><v>41</v><v/></c>".to_owned()),
                Just("<c/><v> 2</v>".to_owned()),
                Just("<pt><v> 2</v></pt>".to_owned()),
                Just("<c><f>x</f><v>1<!-- -->2</v></c>".to_owned()),
            ],
            Just("<!-- it's a='b <c r=\"A9999999999\"/> -->".to_owned()),
            Just("<?pi a='b?>".to_owned()),
        ]
    }

    fn part() -> impl Strategy<Value = (String, bool)> {
        let count = prop_oneof![
            Just(String::new()),
            Just(" uniqueCount=\"524288\"".to_owned()),
            Just(" uniqueCount=\"524289\"".to_owned()),
            Just(" uniqueCount=\" 99999999999 \"".to_owned()),
            Just(" uniqueCount=\"+5\"".to_owned()),
        ];
        (prop::collection::vec(piece(), 0..12), count, any::<bool>()).prop_map(
            |(pieces, count, shared)| {
                let body = pieces.concat();
                let xml = if shared {
                    format!("<?xml version=\"1.0\"?><sst{count}>{body}</sst>")
                } else {
                    format!("<?xml version=\"1.0\"?><worksheet><sheetData>{body}</sheetData></worksheet>")
                };
                (xml, shared)
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn the_scanner_agrees_with_quick_xml((xml, shared) in part(), split in 1usize..64) {
            let want = reference::judge(xml.as_bytes(), shared).ok();
            for chunk in [xml.len().max(1), split, 4096 + split] {
                prop_assert_eq!(scan(xml.as_bytes(), shared, chunk).ok(), want, "chunk {}", chunk);
            }
        }
    }

    #[test]
    fn the_scanner_agrees_one_byte_at_a_time() {
        let xml = "<sst uniqueCount='3'><si><t>a&amp;b</t></si><!-- <si> --><si><r><t><![CDATA[]]]]></t></r></si></sst>";
        let sheet = "<worksheet><c r=\"A1\" t=\"inlineStr\"><is><t>x</t></is></c><?p ?><c r='B4294967296'/></worksheet>";
        let padded =
            "<worksheet><c r=\"A1\"><v>1</v></c><c r=\"A2\" t=\"n\"><v>\r\n2 </v></c></worksheet>";
        let tidy =
            "<worksheet><c r=\"A1\"><v>1</v></c><c><v><![CDATA[ 1]]></v></c><v> 3</v></worksheet>";
        for (xml, shared, want) in [
            (xml, true, Some(false)),
            (sheet, false, None),
            (padded, false, Some(true)),
            (tidy, false, Some(false)),
        ] {
            assert_eq!(reference::judge(xml.as_bytes(), shared).ok(), want, "{xml}");
            for chunk in 1..xml.len() {
                assert_eq!(
                    scan(xml.as_bytes(), shared, chunk).ok(),
                    want,
                    "{chunk}: {xml}"
                );
            }
        }
    }

    #[test]
    fn references_that_wrap_are_malformed() {
        assert!(check_reference(b"A1", "p").is_ok());
        assert!(check_reference(b"XFD1048576", "p").is_ok());
        assert!(check_reference(b"$B$4294967295", "p").is_ok());
        assert!(check_reference(b"A4294967296", "p").is_err());
        assert!(check_reference(b"ZZZZZZZ1", "p").is_err());
    }
}
