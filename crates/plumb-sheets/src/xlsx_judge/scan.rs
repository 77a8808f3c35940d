//! The judge's byte scanner: the part's XML read byte by byte for what
//! the judge needs, held equal to the quick-xml reading in `reference`.
//!
//! Reference: `reference.rs`, the same judge over quick-xml's events. Held
//! equal by: `xlsx_judge::tests::the_scanner_agrees_with_quick_xml` and
//! `tests::the_scanner_agrees_one_byte_at_a_time`.

use super::{check_reference, check_table, declared_count, text, Finding, Part};

/// Where the byte scanner is in the XML.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum St {
    /// Between tags.
    Text,
    /// Just after `<`.
    Lt,
    /// In a start tag's name.
    Name,
    /// In a start tag, between attributes.
    Tag,
    /// In an attribute's name.
    AttrName,
    /// After an attribute's name, before its `=`.
    AfterName,
    /// After `=`, before the quote.
    Eq,
    /// In a value quoted by this byte.
    Value(u8),
    /// After a `/` in a start tag.
    Slash,
    /// In an end tag's name, then past it.
    EndName,
    EndTag,
    /// After `<!`: this many bytes of it seen.
    Bang,
    /// In a comment, with the dashes just seen.
    Comment(u8),
    /// In a CDATA section, with the `]` just seen.
    CData(u8),
    /// In a processing instruction, after a `?` or not.
    Pi(bool),
    /// In a declaration (`<!DOCTYPE`), this deep in brackets.
    Decl(u32),
}

/// The part's XML read byte by byte for what the judge needs: element
/// and attribute local names, the values of the attributes it checks,
/// and the length of text inside a string. Held equal to the quick-xml
/// reading in `reference` by `tests::the_scanner_agrees_with_quick_xml`.
pub(super) struct Scan<'e> {
    pub(super) st: St,
    pub(super) shared: bool,
    pub(super) echo: &'e str,
    pub(super) part: Part,
    /// The current element's local name and attribute's local name
    /// (their first bytes: only short names are checked).
    pub(super) name: Vec<u8>,
    pub(super) attr: Vec<u8>,
    /// The value of an attribute the judge checks, while it is read.
    pub(super) value: Vec<u8>,
    /// What follows `<!`, while it decides between comment and CDATA.
    pub(super) bang: Vec<u8>,
}

/// Names longer than this are no name the judge checks.
pub(super) const NAME_BYTES: usize = 16;

pub(super) fn push_name(buf: &mut Vec<u8>, b: u8) {
    if b == b':' {
        buf.clear();
    } else if buf.len() <= NAME_BYTES {
        buf.push(b);
    }
}

impl<'e> Scan<'e> {
    pub(super) fn new(shared: bool, echo: &'e str) -> Scan<'e> {
        Scan {
            st: St::Text,
            shared,
            echo,
            part: Part::default(),
            name: Vec::new(),
            attr: Vec::new(),
            value: Vec::new(),
            bang: Vec::new(),
        }
    }

    pub(super) fn feed(&mut self, mut chunk: &[u8]) -> Result<(), Finding> {
        while !chunk.is_empty() {
            if self.st == St::Text {
                let upto = memchr::memchr(b'<', chunk).unwrap_or(chunk.len());
                self.text(upto as u64)?;
                if !self.shared {
                    self.part.value_text(&chunk[..upto]);
                }
                chunk = &chunk[upto..];
                if chunk.is_empty() {
                    break;
                }
            }
            let b = chunk[0];
            chunk = &chunk[1..];
            self.byte(b)?;
        }
        Ok(())
    }

    pub(super) fn text(&mut self, len: u64) -> Result<(), Finding> {
        if len == 0 {
            return Ok(());
        }
        text(&mut self.part, len, self.shared, self.echo)
    }

    pub(super) fn checked(&self) -> bool {
        matches!(
            (self.name.as_slice(), self.attr.as_slice()),
            (b"c" | b"row", b"r")
                | (b"dimension" | b"mergeCell", b"ref")
                | (b"sst", b"uniqueCount")
        )
    }

    #[allow(clippy::too_many_lines)]
    pub(super) fn byte(&mut self, b: u8) -> Result<(), Finding> {
        let space = b.is_ascii_whitespace();
        self.st = match self.st {
            St::Text => {
                if b == b'<' {
                    St::Lt
                } else {
                    self.text(1)?;
                    if !self.shared {
                        self.part.value_text(&[b]);
                    }
                    St::Text
                }
            }
            St::Lt => match b {
                b'/' => {
                    self.name.clear();
                    St::EndName
                }
                b'!' => {
                    self.bang.clear();
                    St::Bang
                }
                b'?' => St::Pi(false),
                _ => {
                    self.name.clear();
                    push_name(&mut self.name, b);
                    St::Name
                }
            },
            St::Name => match b {
                b'>' => self.open(false)?,
                b'/' => St::Slash,
                _ if space => St::Tag,
                _ => {
                    push_name(&mut self.name, b);
                    St::Name
                }
            },
            St::Tag | St::AfterName => match b {
                b'>' => self.open(false)?,
                b'/' => St::Slash,
                b'=' if self.st == St::AfterName => St::Eq,
                _ if space => self.st,
                _ => {
                    self.attr.clear();
                    push_name(&mut self.attr, b);
                    St::AttrName
                }
            },
            St::AttrName => match b {
                b'>' => self.open(false)?,
                b'/' => St::Slash,
                b'=' => St::Eq,
                _ if space => St::AfterName,
                _ => {
                    push_name(&mut self.attr, b);
                    St::AttrName
                }
            },
            St::Eq => match b {
                b'"' | b'\'' => {
                    self.value.clear();
                    St::Value(b)
                }
                b'>' => self.open(false)?,
                _ if space => St::Eq,
                _ => St::Tag,
            },
            St::Value(q) => {
                if b == q {
                    if self.checked() {
                        self.attribute()?;
                    }
                    St::Tag
                } else {
                    if self.checked() {
                        self.value.push(b);
                    }
                    St::Value(q)
                }
            }
            St::Slash => match b {
                b'>' => self.open(true)?,
                _ => St::Tag,
            },
            St::EndName => match b {
                b'>' => self.close(),
                _ if space => St::EndTag,
                _ => {
                    push_name(&mut self.name, b);
                    St::EndName
                }
            },
            St::EndTag => match b {
                b'>' => self.close(),
                _ => St::EndTag,
            },
            St::Bang => {
                self.bang.push(b);
                if self.bang == b"--" {
                    St::Comment(0)
                } else if self.bang == b"[CDATA[" {
                    St::CData(0)
                } else if b"--".starts_with(&self.bang) || b"[CDATA[".starts_with(&self.bang) {
                    St::Bang
                } else if b == b'>' {
                    St::Text
                } else {
                    St::Decl(u32::from(b == b'['))
                }
            }
            St::Comment(dashes) => match b {
                b'-' => St::Comment((dashes + 1).min(2)),
                b'>' if dashes == 2 => St::Text,
                _ => St::Comment(0),
            },
            // A `]` is text once it cannot be part of the closing `]]>`.
            St::CData(closing) => match b {
                b']' => {
                    if closing == 2 {
                        self.text(1)?;
                    }
                    St::CData((closing + 1).min(2))
                }
                b'>' if closing == 2 => St::Text,
                _ => {
                    self.text(u64::from(closing) + 1)?;
                    St::CData(0)
                }
            },
            St::Pi(question) => match b {
                b'>' if question => St::Text,
                _ => St::Pi(b == b'?'),
            },
            St::Decl(depth) => match b {
                b'[' => St::Decl(depth + 1),
                b']' => St::Decl(depth.saturating_sub(1)),
                b'>' if depth == 0 => St::Text,
                _ => St::Decl(depth),
            },
        };
        Ok(())
    }

    pub(super) fn attribute(&mut self) -> Result<(), Finding> {
        let v = self.value.as_slice();
        match self.attr.as_slice() {
            b"uniqueCount" => self.part.declared = declared_count(v),
            _ => {
                for side in v.split(|&b| b == b':') {
                    check_reference(side, self.echo)?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn open(&mut self, empty: bool) -> Result<St, Finding> {
        match self.name.as_slice() {
            b"sst" if self.shared => check_table(&self.part, self.echo)?,
            b"si" if self.shared => {
                self.part.entries += 1;
                check_table(&self.part, self.echo)?;
            }
            _ => {}
        }
        if !empty && matches!(self.name.as_slice(), b"si" | b"is") {
            self.part.string = Some(0);
        }
        if !self.shared {
            self.part.open(&self.name, empty);
        }
        Ok(St::Text)
    }

    pub(super) fn close(&mut self) -> St {
        if matches!(self.name.as_slice(), b"si" | b"is") {
            self.part.string = None;
        }
        if !self.shared {
            self.part.close(&self.name);
        }
        St::Text
    }
}
