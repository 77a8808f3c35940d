//! Zip archives: the members listed with their sizes and formats, and
//! one member read as a stream, decompressed, its CRC-32 checked at its
//! end.
//!
//! A zip keeps its directory at its end, so an archive needs a source
//! with random access (a file, not a pipe). The directory is read by the
//! `zip` crate (the maintained reader of the format, ZIP64 included);
//! its size is judged first from the end record, so that a directory
//! claiming millions of members is refused before it is read
//! ([`ZIP_MAX_MEMBERS`], [`ZIP_MAX_DIRECTORY_BYTES`]). A member's bytes
//! are then read straight from the file, as a range, through the same
//! decoders the compressed files use (raw deflate by `flate2`, zstd,
//! bzip2, xz): nothing of a member is ever held whole. A member name is
//! a name in the archive, never a path on disk.

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

use plumb_core::{Answer, CancelToken, Refusal, RefusalReason, Source, ViewFlags};
use serde_json::{json, Value};

/// The most members an archive's directory may declare (20,000): its
/// entries are held while the directory is read, and this many fit in
/// a few MiB.
pub const ZIP_MAX_MEMBERS: u64 = 20_000;

/// The largest central directory read (4 MiB).
pub const ZIP_MAX_DIRECTORY_BYTES: u64 = 4 << 20;

/// The members one listing shows, each with its detected format; the
/// rest are counted.
pub const ZIP_LIST_MAX: usize = 100;

/// The raw bytes read ahead of a member's decoder.
const RAW_BUFFER_BYTES: usize = 64 * 1024;

/// How a member is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Stored,
    Deflated,
    Bzip2,
    Zstd,
    Xz,
    Other,
}

impl Method {
    fn of(m: zip::CompressionMethod) -> Method {
        // By the named constants, which hold whatever features the
        // `zip` crate was built with.
        use zip::CompressionMethod as C;
        [
            (C::STORE, Method::Stored),
            (C::DEFLATE, Method::Deflated),
            (C::BZIP2, Method::Bzip2),
            (C::ZSTD, Method::Zstd),
            (C::XZ, Method::Xz),
        ]
        .into_iter()
        .find(|(c, _)| *c == m)
        .map_or(Method::Other, |(_, k)| k)
    }

    fn name(self, raw: zip::CompressionMethod) -> String {
        match self {
            Method::Stored => "stored".into(),
            Method::Deflated => "deflate".into(),
            Method::Bzip2 => "bzip2".into(),
            Method::Zstd => "zstd".into(),
            Method::Xz => "xz".into(),
            Method::Other => format!("{raw:?}").to_ascii_lowercase(),
        }
    }
}

/// One member, as the archive's directory describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZipEntry {
    /// Its name in the archive.
    pub name: String,
    /// Its size, decompressed.
    pub size: u64,
    /// Its size in the archive.
    pub compressed_size: u64,
    /// How it is compressed (`deflate`, `stored`, ...).
    pub method: String,
    /// Whether it is encrypted (plumb does not decrypt).
    pub encrypted: bool,
    /// Whether it is a directory.
    pub is_dir: bool,
    kind: Method,
    data_start: u64,
    crc32: u32,
}

/// A source read through `Read + Seek`, as the `zip` crate wants.
struct Seeker<'a> {
    source: &'a dyn Source,
    pos: u64,
    len: u64,
}

impl Read for Seeker<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self
            .source
            .read_at(self.pos, buf)
            .unwrap_or_else(|| Err(io::Error::other("the source has no random access")))?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for Seeker<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let at = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = at.ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "a seek before the start")
        })?;
        Ok(self.pos)
    }
}

fn le16(b: &[u8], at: usize) -> u64 {
    u64::from(u16::from_le_bytes([b[at], b[at + 1]]))
}

fn le32(b: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]))
}

fn le64(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

/// What the end record declares: (members, directory bytes), when it
/// can be found.
fn declared(source: &dyn Source, len: u64) -> Option<(u64, u64)> {
    let back = len.min(22 + 65_535);
    let tail = source.read_range(len - back, back as usize)?.ok()?;
    let at = memchr::memmem::rfind(&tail, b"PK\x05\x06")?;
    let end = tail.get(at..at + 22)?;
    let (members, bytes) = (le16(end, 10), le32(end, 12));
    if members != 0xFFFF && bytes != 0xFFFF_FFFF {
        return Some((members, bytes));
    }
    // ZIP64: a locator just before the end record points to the
    // ZIP64 end record.
    let locator = tail.get(at.checked_sub(20)?..at)?;
    if !locator.starts_with(b"PK\x06\x07") {
        return Some((members, bytes));
    }
    let record = source.read_range(le64(locator, 8), 56)?.ok()?;
    if record.len() < 56 || !record.starts_with(b"PK\x06\x06") {
        return None;
    }
    Some((le64(&record, 32), le64(&record, 40)))
}

fn corrupt(source: &dyn Source, e: &dyn std::fmt::Display) -> Refusal {
    Refusal::new(
        RefusalReason::ReadError,
        format!(
            "`{}` is not a readable zip archive: {e}",
            plumb_core::echo(source.name())
        ),
    )
    .with_extra("container", "zip".into())
}

/// What a reading of an archive's directory found.
#[derive(Clone, Debug, Default)]
pub struct ZipDirectory {
    /// Members in the archive.
    pub count: u64,
    /// The first [`ZIP_LIST_MAX`] members.
    pub listed: Vec<ZipEntry>,
    /// The member asked for, when it was found.
    pub found: Option<ZipEntry>,
    /// What the archive is by the names in its directory, when it is a
    /// workbook or another Office package (`xlsx`, `ods`, `ooxml`).
    pub package: Option<crate::Magic>,
}

/// Reads the directory of the zip archive `source`, keeping the first
/// `list` members and the one called `want`.
///
/// # Errors
/// `invalid-argument` for a source without random access;
/// `unsupported-format` for a directory past the caps; `read-error` for
/// an archive the reader cannot read.
pub fn directory(
    source: &dyn Source,
    list: usize,
    want: Option<&str>,
) -> Result<ZipDirectory, Refusal> {
    let Some(len) = source
        .len()
        .filter(|_| source.read_at(0, &mut []).is_some())
    else {
        return Err(Refusal::invalid_argument(format!(
            "`{}` is a zip archive read as a stream; a zip keeps its directory at its end, \
             so it needs random access: save it to a file and name the file",
            plumb_core::echo(source.name())
        ))
        .with_extra("container", "zip".into()));
    };
    if let Some((members, bytes)) = declared(source, len) {
        if members > ZIP_MAX_MEMBERS || bytes > ZIP_MAX_DIRECTORY_BYTES {
            return Err(Refusal::new(
                RefusalReason::UnsupportedFormat,
                format!(
                    "the zip archive `{}` declares {members} members in a directory of {bytes} \
                     bytes; plumb reads archives of at most {ZIP_MAX_MEMBERS} members and \
                     {ZIP_MAX_DIRECTORY_BYTES} directory bytes: extract the member you want",
                    plumb_core::echo(source.name())
                ),
            )
            .with_extra("container", "zip".into()));
        }
    }
    let mut zip = zip::ZipArchive::new(Seeker {
        source,
        pos: 0,
        len,
    })
    .map_err(|e| corrupt(source, &e))?;
    let mut out = ZipDirectory {
        count: zip.len() as u64,
        ..ZipDirectory::default()
    };
    out.package = crate::magic::zip_package(zip.file_names());
    for i in 0..zip.len() {
        if out.listed.len() >= list && (want.is_none() || out.found.is_some()) {
            break;
        }
        let f = zip.by_index_raw(i).map_err(|e| corrupt(source, &e))?;
        let raw_method = f.compression();
        let kind = Method::of(f.compression());
        let entry = ZipEntry {
            name: f.name().to_owned(),
            size: f.size(),
            compressed_size: f.compressed_size(),
            method: kind.name(raw_method),
            encrypted: f.encrypted() || raw_method == zip::CompressionMethod::AES,
            is_dir: f.is_dir(),
            kind,
            data_start: f.data_start(),
            crc32: f.crc32(),
        };
        if want == Some(entry.name.as_str()) {
            out.found = Some(entry.clone());
        }
        if out.listed.len() < list {
            out.listed.push(entry);
        }
    }
    Ok(out)
}

/// One member of a zip archive, read decompressed.
pub struct ZipMember<'a> {
    archive: &'a dyn Source,
    entry: ZipEntry,
    name: String,
}

impl std::fmt::Debug for ZipMember<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZipMember")
            .field("name", &self.name)
            .finish()
    }
}

impl<'a> ZipMember<'a> {
    /// The member called `member` of the archive `archive`.
    ///
    /// # Errors
    /// As [`directory`]; `not-found` for a name the archive does not
    /// hold; `unsupported-format` for an encrypted member, a directory,
    /// or a compression method plumb does not decode.
    pub fn open(archive: &'a dyn Source, member: &str) -> Result<ZipMember<'a>, Refusal> {
        let dir = directory(archive, 8, Some(member))?;
        let Some(entry) = dir.found else {
            let some: Vec<&str> = dir.listed.iter().map(|e| e.name.as_str()).collect();
            return Err(Refusal::new(
                RefusalReason::NotFound,
                format!(
                    "the zip archive `{}` has no member `{}`; it has {} members, among them: {}",
                    plumb_core::echo(archive.name()),
                    plumb_core::echo(member),
                    dir.count,
                    some.join(", ")
                ),
            )
            .with_extra("member", member.into()));
        };
        let refuse = |why: String| {
            Err(Refusal::new(RefusalReason::UnsupportedFormat, why)
                .with_extra("member", member.into()))
        };
        if entry.encrypted {
            return refuse(format!(
                "the member `{}` is encrypted; plumb does not decrypt archives: extract it \
                 with its password (unzip -P) and read the file",
                plumb_core::echo(member)
            ));
        }
        if entry.is_dir {
            return refuse(format!(
                "`{}` is a directory in the archive, not a file; name a file member",
                plumb_core::echo(member)
            ));
        }
        if entry.kind == Method::Other {
            return refuse(format!(
                "the member `{}` is compressed with {}, which plumb does not decode \
                 (it reads stored, deflate, bzip2, zstd and xz members)",
                plumb_core::echo(member),
                entry.method
            ));
        }
        Ok(ZipMember::from_entry(archive, entry))
    }

    /// The member `entry` of the archive `archive`, as its directory
    /// describes it.
    pub(crate) fn from_entry(archive: &'a dyn Source, entry: ZipEntry) -> ZipMember<'a> {
        ZipMember {
            archive,
            name: format!("{}::{}", archive.name(), entry.name),
            entry,
        }
    }

    /// Whether plumb can read the member: a file, not encrypted, in a
    /// compression it decodes.
    pub(crate) fn readable(entry: &ZipEntry) -> bool {
        !entry.encrypted && !entry.is_dir && entry.kind != Method::Other
    }

    /// The member's entry in the directory.
    pub fn entry(&self) -> &ZipEntry {
        &self.entry
    }
}

/// A member's bytes in the archive.
struct Range<'a> {
    source: &'a dyn Source,
    pos: u64,
    end: u64,
}

impl Read for Range<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let room = usize::try_from(self.end - self.pos).unwrap_or(usize::MAX);
        let want = buf.len().min(room);
        if want == 0 {
            return Ok(0);
        }
        let n = self
            .source
            .read_at(self.pos, &mut buf[..want])
            .unwrap_or_else(|| Err(io::Error::other("the source has no random access")))?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the archive ends inside the member",
            ));
        }
        self.pos += n as u64;
        Ok(n)
    }
}

/// Checks the CRC-32 and size of what the decoder gave, at its end.
struct Checked<R> {
    inner: R,
    hasher: crc32fast::Hasher,
    seen: u64,
    entry: ZipEntry,
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the zip member `{}` is corrupt ({e})", self.entry.name),
            )
        })?;
        self.hasher.update(&buf[..n]);
        self.seen += n as u64;
        let bad = if n == 0 {
            let crc = self.hasher.clone().finalize();
            (crc != self.entry.crc32 || self.seen != self.entry.size).then(|| {
                format!(
                    "the zip member `{}` does not match its directory entry: {} bytes with \
                     CRC-32 {crc:08x}, where {} bytes with CRC-32 {:08x} were recorded",
                    self.entry.name, self.seen, self.entry.size, self.entry.crc32
                )
            })
        } else {
            (self.seen > self.entry.size).then(|| {
                format!(
                    "the zip member `{}` decompresses past the {} bytes its directory entry records",
                    self.entry.name, self.entry.size
                )
            })
        };
        match bad {
            Some(why) => Err(io::Error::new(io::ErrorKind::InvalidData, why)),
            None => Ok(n),
        }
    }
}

impl Source for ZipMember<'_> {
    fn open(&self) -> Result<Box<dyn BufRead + Send + '_>, Refusal> {
        let raw = BufReader::with_capacity(
            RAW_BUFFER_BYTES,
            Range {
                source: self.archive,
                pos: self.entry.data_start,
                end: self
                    .entry
                    .data_start
                    .saturating_add(self.entry.compressed_size),
            },
        );
        let decoded: Box<dyn Read + Send + '_> = match self.entry.kind {
            Method::Stored => Box::new(raw),
            Method::Deflated => Box::new(flate2::bufread::DeflateDecoder::new(raw)),
            Method::Bzip2 => Box::new(bzip2::bufread::BzDecoder::new(raw)),
            Method::Zstd => {
                let mut d = zstd::stream::read::Decoder::with_buffer(raw)
                    .map_err(|e| Refusal::from_io(&e, Some(&self.name)))?;
                d.window_log_max(crate::container::ZSTD_WINDOW_LOG_MAX)
                    .map_err(|e| Refusal::from_io(&e, Some(&self.name)))?;
                Box::new(d)
            }
            Method::Xz => {
                let stream = liblzma::stream::Stream::new_stream_decoder(
                    crate::container::XZ_MEMORY_LIMIT,
                    0,
                )
                .map_err(|e| Refusal::from_io(&io::Error::other(e), Some(&self.name)))?;
                Box::new(liblzma::bufread::XzDecoder::new_stream(raw, stream))
            }
            Method::Other => {
                return Err(Refusal::new(
                    RefusalReason::UnsupportedFormat,
                    format!(
                        "the member `{}` uses a compression plumb does not decode",
                        self.entry.name
                    ),
                ))
            }
        };
        Ok(Box::new(BufReader::with_capacity(
            RAW_BUFFER_BYTES,
            Checked {
                inner: decoded,
                hasher: crc32fast::Hasher::new(),
                seen: 0,
                entry: self.entry.clone(),
            },
        )))
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn len(&self) -> Option<u64> {
        // The directory's figure, checked as the member is read; known
        // before, so progress and caps can use it.
        Some(self.entry.size)
    }

    fn cancel_token(&self) -> Option<&CancelToken> {
        self.archive.cancel_token()
    }

    /// The member's own extension (`csv` for `data/x.csv`).
    fn extension(&self) -> Option<String> {
        std::path::Path::new(&self.entry.name)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
    }
}

/// The answer of an inspect of a zip archive named without a member:
/// its members, with their sizes and the formats plumb reads them as.
#[derive(Clone, Debug)]
pub struct ZipListing {
    members: Vec<Value>,
    count: u64,
}

impl ZipListing {
    pub(crate) fn new(members: Vec<Value>, count: u64) -> ZipListing {
        ZipListing { members, count }
    }

    /// One member's line: its entry and what detection said of it.
    pub(crate) fn member(entry: &ZipEntry, detected: Result<Value, Refusal>) -> Value {
        let mut m = json!({
            "name": entry.name,
            "size": entry.size,
            "compressed_size": entry.compressed_size,
            "method": entry.method,
        });
        if entry.encrypted {
            m["encrypted"] = true.into();
        }
        if entry.is_dir {
            m["directory"] = true.into();
        }
        match detected {
            Ok(v) => {
                if let Value::Object(extra) = v {
                    for (k, v) in extra {
                        m[k] = v;
                    }
                }
            }
            Err(r) => {
                m["format"] = Value::Null;
                if let Some(found) = r.extra("found") {
                    m["found"] = found.clone();
                }
            }
        }
        m
    }
}

/// The JSON [`ZipListing`]'s answer writes.
impl plumb_core::schemars::JsonSchema for ZipListing {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ZipListing".into()
    }
    fn json_schema(
        generator: &mut plumb_core::schemars::SchemaGenerator,
    ) -> plumb_core::schemars::Schema {
        let view = generator.subschema_for::<ViewFlags>();
        let count = json!({"type": "integer", "minimum": 0});
        plumb_core::schemars::json_schema!({
            "description": "the members of a zip archive named without a member, with their sizes and the formats plumb reads them as",
            "type": "object",
            "properties": {
                "ok": {"type": "boolean", "const": true},
                "format": {"type": "string", "const": "zip"},
                "container": {"type": "string", "const": "zip"},
                "view": view,
                "member_count": count,
                "members": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "size": count,
                            "compressed_size": count,
                            "method": {"type": "string"},
                            "encrypted": {"type": "boolean"},
                            "directory": {"type": "boolean"},
                            "format": {"type": ["string", "null"], "description": "the format detected; null when none was"},
                            "found": {"description": "what detection found instead, when no format was"}
                        },
                        "required": ["name", "size", "compressed_size", "method"]
                    }
                },
                "has_more": {"type": "boolean"},
                "hint": {"type": "string"}
            },
            "required": ["ok", "format", "container", "view", "member_count", "members", "has_more", "hint"]
        })
    }
}

impl Answer for ZipListing {
    fn format(&self) -> &'static str {
        "zip"
    }

    fn to_json(&self) -> Value {
        let has_more = (self.members.len() as u64) < self.count;
        json!({
            "ok": true,
            "format": "zip",
            "container": "zip",
            "view": self.view(),
            "member_count": self.count,
            "members": self.members,
            "has_more": has_more,
            "hint": "read one member with the member option (member=NAME; on the command line also ARCHIVE::NAME)",
        })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn view(&self) -> ViewFlags {
        ViewFlags {
            exact: (self.members.len() as u64) >= self.count,
            sampled: (self.members.len() as u64) < self.count,
            converted: false,
        }
    }
}
