//! Text in encodings other than UTF-8, transcoded as it streams.
//!
//! A file that opens with a UTF-16 or UTF-32 byte order mark is read in
//! that encoding whatever it is called; a file without one is read as
//! UTF-8 unless the caller names an encoding (`latin1`, `windows-1252`,
//! `shift_jis`: any label of the WHATWG Encoding Standard). A
//! [`Transcoded`] source hands the engines UTF-8, so no engine knows
//! about encodings, and keeps a byte order mark as a UTF-8 one so that
//! the engines still report it.
//!
//! Positions stay in the file's own bytes: a byte the encoding cannot
//! map is refused with its offset in the file, and
//! [`Transcoded::file_offset`] maps a position in the UTF-8 text back
//! to the file by decoding again up to it (only on the way out of an
//! answer, never during a scan).
//!
//! The WHATWG decoders are `encoding_rs` (Firefox's, fast and exact to
//! the standard) rather than our own. The standard has no UTF-32, so its
//! decoder is the small one here: four bytes to a scalar value.

use std::io::{self, BufRead, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use plumb_core::{CancelToken, Refusal, RefusalReason, Source};

/// The UTF-8 text buffered ahead of the parser.
const DECODED_BUFFER_BYTES: usize = 64 * 1024;

/// The UTF-8 byte order mark a transcoded stream starts with when the
/// file started with a byte order mark of its own.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The WHATWG encodings' names in lower case, the form answers carry.
const LOWER_NAMES: [&str; 39] = [
    "big5",
    "euc-jp",
    "euc-kr",
    "gb18030",
    "gbk",
    "ibm866",
    "iso-2022-jp",
    "iso-8859-10",
    "iso-8859-13",
    "iso-8859-14",
    "iso-8859-15",
    "iso-8859-16",
    "iso-8859-2",
    "iso-8859-3",
    "iso-8859-4",
    "iso-8859-5",
    "iso-8859-6",
    "iso-8859-7",
    "iso-8859-8",
    "iso-8859-8-i",
    "koi8-r",
    "koi8-u",
    "shift_jis",
    "utf-16be",
    "utf-16le",
    "utf-8",
    "macintosh",
    "replacement",
    "windows-1250",
    "windows-1251",
    "windows-1252",
    "windows-1253",
    "windows-1254",
    "windows-1255",
    "windows-1256",
    "windows-1257",
    "windows-1258",
    "windows-874",
    "x-mac-cyrillic",
];

/// An encoding plumb transcodes to UTF-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextEncoding {
    /// An encoding of the WHATWG Encoding Standard (UTF-16, the
    /// single-byte and the CJK encodings).
    Whatwg(&'static encoding_rs::Encoding),
    /// UTF-32, little-endian.
    Utf32Le,
    /// UTF-32, big-endian.
    Utf32Be,
}

impl TextEncoding {
    /// The encoding a label names: any WHATWG label (`latin1` is
    /// windows-1252 there, as in every browser), or `utf-32le` /
    /// `utf-32be`. `None` for UTF-8, which needs no transcoding.
    ///
    /// ```
    /// use plumb::TextEncoding;
    /// assert_eq!(TextEncoding::for_label("Latin1").unwrap().map(|e| e.name()), Some("windows-1252"));
    /// assert_eq!(TextEncoding::for_label("utf8").unwrap(), None);
    /// assert!(TextEncoding::for_label("klingon").is_err());
    /// ```
    ///
    /// # Errors
    /// `invalid-argument` for a label no encoding has.
    pub fn for_label(label: &str) -> Result<Option<TextEncoding>, Refusal> {
        let trimmed = label.trim().to_ascii_lowercase();
        match trimmed.as_str() {
            "utf-32le" | "utf32le" | "utf-32" | "utf32" => return Ok(Some(TextEncoding::Utf32Le)),
            "utf-32be" | "utf32be" => return Ok(Some(TextEncoding::Utf32Be)),
            _ => {}
        }
        match encoding_rs::Encoding::for_label_no_replacement(trimmed.as_bytes()) {
            Some(e) if e == encoding_rs::UTF_8 => Ok(None),
            Some(e) => Ok(Some(TextEncoding::Whatwg(e))),
            None => Err(Refusal::invalid_argument(format!(
                "`{}` is not an encoding plumb knows; name one by a WHATWG label \
                 (utf-8, utf-16le, utf-16be, utf-32le, utf-32be, latin1, windows-1252, \
                 iso-8859-2, shift_jis, euc-kr, gb18030, ...)",
                plumb_core::echo(label)
            ))),
        }
    }

    /// The encoding a byte order mark at the start of `head` announces,
    /// with the mark's length. A UTF-8 mark is not one: the engines read
    /// it themselves.
    pub fn of_bom(head: &[u8]) -> Option<(TextEncoding, usize)> {
        let found = crate::magic::identify(head)?;
        Some(match found.name {
            "utf-32le" => (TextEncoding::Utf32Le, 4),
            "utf-32be" => (TextEncoding::Utf32Be, 4),
            "utf-16le" => (TextEncoding::Whatwg(encoding_rs::UTF_16LE), 2),
            "utf-16be" => (TextEncoding::Whatwg(encoding_rs::UTF_16BE), 2),
            _ => return None,
        })
    }

    /// The name answers carry, in lower case (`utf-16le`,
    /// `windows-1252`, `shift_jis`).
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf32Le => "utf-32le",
            TextEncoding::Utf32Be => "utf-32be",
            TextEncoding::Whatwg(e) => LOWER_NAMES
                .iter()
                .find(|n| n.eq_ignore_ascii_case(e.name()))
                .copied()
                .unwrap_or(e.name()),
        }
    }

    fn decoder(self) -> Decoder {
        match self {
            TextEncoding::Whatwg(e) => Decoder::Whatwg(e.new_decoder_without_bom_handling()),
            TextEncoding::Utf32Le => Decoder::Utf32 {
                big_endian: false,
                unit: [0; 4],
                have: 0,
            },
            TextEncoding::Utf32Be => Decoder::Utf32 {
                big_endian: true,
                unit: [0; 4],
                have: 0,
            },
        }
    }
}

/// What one decode call did.
enum Step {
    /// All input taken (or the output is full); decode more.
    More,
    /// Malformed input: its first byte is this many bytes before the
    /// end of what the call read.
    Malformed { back: usize },
}

enum Decoder {
    Whatwg(encoding_rs::Decoder),
    Utf32 {
        big_endian: bool,
        unit: [u8; 4],
        have: usize,
    },
}

impl Decoder {
    /// Decodes from `src` into `dst`: (what happened, bytes read,
    /// bytes written). `dst` must have room for at least 4 bytes.
    fn decode(&mut self, src: &[u8], dst: &mut [u8], last: bool) -> (Step, usize, usize) {
        match self {
            Decoder::Whatwg(d) => {
                let (result, read, written) = d.decode_to_utf8_without_replacement(src, dst, last);
                let step = match result {
                    encoding_rs::DecoderResult::Malformed(bad, extra) => Step::Malformed {
                        back: bad as usize + extra as usize,
                    },
                    _ => Step::More,
                };
                (step, read, written)
            }
            Decoder::Utf32 {
                big_endian,
                unit,
                have,
            } => {
                let (mut read, mut written) = (0, 0);
                while read < src.len() && dst.len() - written >= 4 {
                    unit[*have] = src[read];
                    *have += 1;
                    read += 1;
                    if *have < 4 {
                        continue;
                    }
                    *have = 0;
                    let value = if *big_endian {
                        u32::from_be_bytes(*unit)
                    } else {
                        u32::from_le_bytes(*unit)
                    };
                    match char::from_u32(value) {
                        Some(c) => written += c.encode_utf8(&mut dst[written..]).len(),
                        None => return (Step::Malformed { back: 4 }, read, written),
                    }
                }
                if last && read == src.len() && *have > 0 {
                    let back = *have;
                    *have = 0;
                    return (Step::Malformed { back }, read, written);
                }
                (Step::More, read, written)
            }
        }
    }
}

/// A source read in `encoding`, handed out as UTF-8.
pub struct Transcoded<'a> {
    inner: &'a dyn Source,
    encoding: TextEncoding,
    bom: usize,
    /// The file offset of the first byte the encoding could not map, once
    /// a reader met one (`u64::MAX` before).
    malformed: Arc<AtomicU64>,
}

impl std::fmt::Debug for Transcoded<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transcoded")
            .field("name", &self.inner.name())
            .field("encoding", &self.encoding.name())
            .finish()
    }
}

impl<'a> Transcoded<'a> {
    /// `inner`, whose first `bom` bytes are a byte order mark (0 for
    /// none), read in `encoding`.
    pub fn new(inner: &'a dyn Source, encoding: TextEncoding, bom: usize) -> Transcoded<'a> {
        Transcoded {
            inner,
            encoding,
            bom,
            malformed: Arc::new(AtomicU64::new(u64::MAX)),
        }
    }

    /// The encoding read.
    pub fn encoding(&self) -> TextEncoding {
        self.encoding
    }

    /// The refusal for a byte the encoding could not map, when a reader
    /// met one: the operation's own refusal (a read error from the
    /// reader's point of view) is replaced by it.
    pub fn malformed(&self) -> Option<Refusal> {
        let at = self.malformed.load(Ordering::Relaxed);
        (at != u64::MAX).then(|| {
            Refusal::new(
                RefusalReason::InvalidUtf8,
                format!(
                    "the bytes at offset {at} are not valid {} text; name the file's encoding \
                     with the encoding option, or convert it to UTF-8 (for example with iconv)",
                    self.encoding.name()
                ),
            )
            .with_byte_offset(at)
            .with_extra("encoding", self.encoding.name().into())
        })
    }

    /// The offset in the file of byte `at` of the UTF-8 text: the start
    /// of the character it belongs to. Decodes the file again up to it.
    /// `None` when the file cannot be read again or ends before it.
    pub fn file_offset(&self, at: u64) -> Option<u64> {
        let mark = if self.bom > 0 {
            UTF8_BOM.len() as u64
        } else {
            0
        };
        if at < mark {
            return Some(0);
        }
        let target = at - mark;
        let mut raw = self.inner.open().ok()?;
        skip(raw.as_mut(), self.bom).ok()?;
        let mut decoder = self.encoding.decoder();
        let mut out = vec![0u8; DECODED_BUFFER_BYTES];
        let (mut pos, mut written) = (self.bom as u64, 0u64);
        loop {
            let src = raw.fill_buf().ok()?;
            if src.is_empty() {
                return (written == target).then_some(pos);
            }
            // Whole chunks while the target cannot be inside them; then
            // byte by byte, to find the character that holds it.
            let chunk = src.len().min(4096);
            let most = 3 * chunk as u64 + 4;
            if written + most <= target {
                let (_, read, n) = decoder.decode(&src[..chunk], &mut out, false);
                written += n as u64;
                pos += read as u64;
                raw.consume(read);
                continue;
            }
            let mut char_start = pos;
            let mut read_total = 0;
            for i in 0..src.len() {
                let (step, read, n) = decoder.decode(&src[i..=i], &mut out, false);
                if matches!(step, Step::Malformed { .. }) {
                    return None;
                }
                read_total += read;
                if n > 0 {
                    if written + n as u64 > target {
                        return Some(char_start);
                    }
                    written += n as u64;
                    char_start = pos + i as u64 + 1;
                }
                if written == target && n > 0 {
                    return Some(char_start);
                }
            }
            pos += read_total as u64;
            raw.consume(read_total);
        }
    }
}

impl Source for Transcoded<'_> {
    fn open(&self) -> Result<Box<dyn BufRead + Send + '_>, Refusal> {
        let mut raw = self.inner.open()?;
        skip(raw.as_mut(), self.bom).map_err(|e| Refusal::from_io(&e, Some(self.inner.name())))?;
        let mark = if self.bom > 0 { UTF8_BOM.len() } else { 0 };
        let mut out = vec![0u8; DECODED_BUFFER_BYTES];
        out[..mark].copy_from_slice(&UTF8_BOM[..mark]);
        Ok(Box::new(Transcoder {
            raw,
            decoder: self.encoding.decoder(),
            out,
            start: 0,
            end: mark,
            pos: self.bom as u64,
            done: false,
            failed: None,
            malformed: Arc::clone(&self.malformed),
        }))
    }

    fn name(&self) -> &str {
        self.inner.name()
    }

    /// The UTF-8 length is not known without decoding.
    fn len(&self) -> Option<u64> {
        None
    }

    fn cancel_token(&self) -> Option<&CancelToken> {
        self.inner.cancel_token()
    }

    fn extension(&self) -> Option<String> {
        self.inner.extension()
    }
}

/// Reads past the first `n` bytes (a byte order mark).
fn skip(raw: &mut dyn BufRead, n: usize) -> io::Result<()> {
    let mut skipped = 0;
    while skipped < n {
        let got = raw.fill_buf()?.len();
        if got == 0 {
            break;
        }
        let step = got.min(n - skipped);
        raw.consume(step);
        skipped += step;
    }
    Ok(())
}

/// The UTF-8 text of one reader.
struct Transcoder<'r> {
    raw: Box<dyn BufRead + Send + 'r>,
    decoder: Decoder,
    out: Vec<u8>,
    start: usize,
    end: usize,
    /// The file offset the next raw byte has.
    pos: u64,
    done: bool,
    /// A malformed sequence met after text that is still to be read.
    failed: Option<u64>,
    malformed: Arc<AtomicU64>,
}

impl Transcoder<'_> {
    fn fail(&mut self, bad: u64) -> io::Error {
        self.malformed.fetch_min(bad, Ordering::Relaxed);
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the bytes at offset {bad} cannot be decoded"),
        )
    }
}

impl Read for Transcoder<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let have = self.fill_buf()?;
        let n = have.len().min(buf.len());
        buf[..n].copy_from_slice(&have[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Transcoder<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.start == self.end && !self.done {
            if let Some(bad) = self.failed {
                return Err(self.fail(bad));
            }
            let src = self.raw.fill_buf()?;
            let last = src.is_empty();
            let (step, read, written) = self.decoder.decode(src, &mut self.out, last);
            self.raw.consume(read);
            let at = self.pos + read as u64;
            self.pos = at;
            (self.start, self.end) = (0, written);
            if let Step::Malformed { back } = step {
                // The text before the fault is handed out first.
                self.failed = Some(at.saturating_sub(back as u64));
                continue;
            }
            if last {
                self.done = true;
            }
        }
        Ok(&self.out[self.start..self.end])
    }

    fn consume(&mut self, amt: usize) {
        self.start = (self.start + amt).min(self.end);
    }
}
