//! plumb looks into a data or text file of any size without loading it:
//! **inspect** it, **select** a bounded window of it verbatim,
//! **validate** it, or **read** a line interval of it.
//!
//! ```
//! use plumb::{Plumb, Request, Window};
//! use plumb_core::{BytesSource, Op};
//!
//! let plumb = Plumb::new();
//! let data = BytesSource::new("events.jsonl", "{\"id\": 1}\n{\"id\": 9007199254740993}\n");
//! let req = Request { window: Window { offset: Some(1), limit: None, from_end: None }, ..Request::default() };
//! let answer = plumb.run_source(Op::Select, &data, None, &req)?;
//! let json = answer.to_json();
//! assert_eq!(json["records"][0]["value"]["id"]["precision"], "unsafe-integer");
//! # Ok::<(), plumb_core::Refusal>(())
//! ```
//!
//! This crate is the dispatcher: a [`Registry`] of
//! [`FormatReader`]s (the built-in CSV, TSV, JSON and JSON Lines engines,
//! and any reader a downstream crate registers), format detection
//! (explicit name, then extension, then a content sniff), the entry
//! points with their option cross-checks, and [`read`](mod@read), which
//! returns a line interval of any text file. It never special-cases a format by name: every
//! format-specific answer comes from the reader.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "compression")]
mod archive;
#[cfg(feature = "compression")]
mod container;
pub mod dataset;
mod encoding;
mod layers;
mod magic;
mod ops;
pub mod read;
mod registry;
pub mod search;
mod stream;

#[cfg(feature = "compression")]
pub use archive::{
    directory as zip_directory, ZipDirectory, ZipEntry, ZipListing, ZipMember, ZIP_LIST_MAX,
    ZIP_MAX_DIRECTORY_BYTES, ZIP_MAX_MEMBERS,
};
#[cfg(feature = "compression")]
pub use container::{Container, Decompressed, XZ_MEMORY_LIMIT, ZSTD_WINDOW_LOG_MAX};
pub use encoding::{TextEncoding, Transcoded};
pub use layers::{Layered, Layers, SourceChoice, SOURCE_OPTIONS};
pub use magic::{identify, Magic};
pub use ops::Plumb;
pub use plumb_core::{
    Answer, BytesSource, CancelToken, FileSource, FormatReader, Layout, Op, OptionKind, OptionSpec,
    Options, Refusal, RefusalReason, Request, ScanBounds, SniffScore, Source, ViewFlags, Window,
    WindowCounts, COMMON_OPTIONS,
};
pub use registry::{DeclaredOption, Detected, DetectedBy, Registry, SNIFF_BYTES};
pub use stream::{StreamSource, STREAM_REPLAY_BYTES};

/// `docs/readers.md`, the guide to writing a [`FormatReader`]: its code
/// runs as a test of this crate, so the guide is the API as it is.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/readers.md")]
pub struct ReadersGuide;
