//! A file opened once and judged by its handle.
//!
//! Everything plumb reads from disk goes through an [`OpenedFile`]: the
//! path is looked up exactly once, with `O_NONBLOCK` so a named pipe or a
//! device cannot block the open, and the *handle* is then `fstat`ed and
//! refused unless it is a regular file. No later step looks the name up
//! again, so swapping a symlink, a directory or a pipe in after the check
//! changes nothing: the bytes read are the bytes of the file that was
//! judged.
//!
//! The size is snapshotted when the file is opened, and every reader
//! reads at most that many bytes, by position (`pread`), so several
//! readers over one handle never disturb each other. A file that grows
//! while it is read is read to its size at open; a file that shrinks is
//! refused `read-error` at the point it ends early, never reported as if
//! it were whole.
//!
//! `rustix` supplies the open flags (`O_NONBLOCK`, `O_NOCTTY`) portably
//! and safely; std has no spelling for them.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

use crate::refusal::{Refusal, RefusalReason};

/// A regular file, opened once, with the size it had when it was opened.
///
/// Cloning shares the handle.
#[derive(Debug, Clone)]
pub struct OpenedFile {
    file: Arc<File>,
    len: u64,
    name: String,
}

impl OpenedFile {
    /// Opens `path` (without blocking on a pipe or device) and judges the
    /// opened handle.
    ///
    /// # Errors
    /// `not-found`, `not-a-file` (a directory, pipe, socket or device),
    /// `read-error` (`permission denied` and other failures).
    pub fn open(path: &Path) -> Result<OpenedFile, Refusal> {
        let shown = path.display().to_string();
        let file = open_nonblocking(path).map_err(|e| Refusal::from_io(&e, Some(&shown)))?;
        OpenedFile::from_file(file, shown)
    }

    /// Judges a handle opened elsewhere (for example beneath a workspace
    /// root): refused unless it is a regular file. `name` is how the
    /// caller named it, for messages.
    ///
    /// # Errors
    /// `not-a-file` for anything but a regular file; `read-error` when
    /// the handle cannot be `fstat`ed.
    pub fn from_file(file: File, name: impl Into<String>) -> Result<OpenedFile, Refusal> {
        let name = name.into();
        let meta = file
            .metadata()
            .map_err(|e| Refusal::from_io(&e, Some(&name)))?;
        if !meta.is_file() {
            let what = describe_kind(&meta.file_type());
            return Err(Refusal::new(
                RefusalReason::NotAFile,
                format!("`{name}` is {what}, not a regular file; name a file"),
            )
            .with_path(name));
        }
        Ok(OpenedFile {
            file: Arc::new(file),
            len: meta.len(),
            name,
        })
    }

    /// The size when the file was opened: no reader reads past it.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file was empty when it was opened.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How the caller named the file.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The handle.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Reads at `offset` into `buf`, never past the size at open:
    /// `Ok(0)` at or past it.
    ///
    /// # Errors
    /// The read's errors; ending before the size at open (the file
    /// shrank) is an error, as for [`SnapshotReader`].
    pub fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let mut reader = self.reader();
        reader.pos = offset;
        reader.read(buf)
    }

    /// A reader from the start, bounded by the size at open.
    pub fn reader(&self) -> SnapshotReader<'_> {
        SnapshotReader {
            file: &self.file,
            pos: 0,
            end: self.len,
        }
    }
}

fn describe_kind(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(File::from(fd))
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, pos)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, pos)
}

/// Reads an [`OpenedFile`] by position, up to its size at open.
///
/// Ending before that size (the file shrank) is an error naming both
/// sizes, so no scan can report a shortened file as whole.
#[derive(Debug)]
pub struct SnapshotReader<'a> {
    file: &'a File,
    pos: u64,
    end: u64,
}

impl Read for SnapshotReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.end.saturating_sub(self.pos);
        if left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = read_at(self.file, &mut buf[..want], self.pos)?;
        if n == 0 {
            return Err(io::Error::other(format!(
                "the file changed while being read: it was {} bytes when opened and now ends at byte {}; read it again once it stops changing",
                self.end, self.pos
            )));
        }
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for SnapshotReader<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.end.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        match target {
            Some(n) => {
                self.pos = n;
                Ok(n)
            }
            None => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek to a negative position",
            )),
        }
    }
}
