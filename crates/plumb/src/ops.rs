//! The entry points: inspect, select and validate over any registered
//! format, with the option cross-checks and the refusal mapping.

use std::path::Path;

use plumb_core::{Answer, ByteSource, FileSource, Op, ReadOptions, Refusal};

use crate::registry::{Detected, Registry};

/// plumb: a registry of readers and the operations over them.
///
/// ```
/// use plumb::{Plumb, ReadOptions};
/// use plumb_core::BytesSource;
///
/// let plumb = Plumb::new();
/// let source = BytesSource::new("people.csv", "id,name\n1,ann\n2,bob\n");
/// let answer = plumb.inspect_source(&source, None, &ReadOptions::default())?;
/// let json = answer.to_json();
/// assert_eq!(json["format"], "csv");
/// assert_eq!(json["row_count"], 2);
/// assert_eq!(answer.view().label(), "exact");
/// # Ok::<(), plumb_core::Refusal>(())
/// ```
#[derive(Debug, Clone)]
pub struct Plumb {
    registry: Registry,
}

impl Default for Plumb {
    fn default() -> Plumb {
        Plumb::new()
    }
}

impl Plumb {
    /// plumb with the built-in readers.
    pub fn new() -> Plumb {
        Plumb {
            registry: Registry::with_builtins(),
        }
    }

    /// plumb over a registry of your own.
    pub fn with_registry(registry: Registry) -> Plumb {
        Plumb { registry }
    }

    /// The registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The registry, to register more readers.
    pub fn registry_mut(&mut self) -> &mut Registry {
        &mut self.registry
    }

    /// Decides the format of a file.
    ///
    /// # Errors
    /// `not-found`, `not-a-file`, `unsupported-format`, and read refusals.
    pub fn detect(&self, path: &Path, format: Option<&str>) -> Result<Detected, Refusal> {
        let source = FileSource::new(path)?;
        self.registry.detect(&source, format)
    }

    /// Decides the format of any byte source.
    ///
    /// # Errors
    /// `unsupported-format`, and read refusals.
    pub fn detect_source(
        &self,
        source: &dyn ByteSource,
        format: Option<&str>,
    ) -> Result<Detected, Refusal> {
        self.registry.detect(source, format)
    }

    /// Runs `op` on a file.
    ///
    /// # Errors
    /// `not-found`, `not-a-file` (the stat check comes first),
    /// `unsupported-format`, `invalid-argument` for an option the format
    /// does not take, and the reader's refusals.
    pub fn run(
        &self,
        op: Op,
        path: &Path,
        format: Option<&str>,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal> {
        let source = FileSource::new(path)?;
        self.run_source(op, &source, format, opts)
    }

    /// Runs `op` on any byte source.
    ///
    /// # Errors
    /// As [`Plumb::run`].
    pub fn run_source(
        &self,
        op: Op,
        source: &dyn ByteSource,
        format: Option<&str>,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal> {
        let detected = self.registry.detect(source, format)?;
        let reader = detected.reader;
        let accepted = reader.accepts(op);
        for option in opts.given() {
            if !accepted.contains(&option) {
                let advice = reader.option_hint(op, option).unwrap_or_else(|| {
                    if accepted.is_empty() {
                        format!("{} {} takes no options", reader.name(), op.as_str())
                    } else {
                        format!(
                            "{} {} takes: {}",
                            reader.name(),
                            op.as_str(),
                            accepted.join(", ")
                        )
                    }
                });
                return Err(Refusal::invalid_argument(format!(
                    "`{option}` does not apply to {} {}; {advice}",
                    reader.name(),
                    op.as_str()
                )));
            }
        }
        let answer = match op {
            Op::Inspect => reader.inspect(source, opts),
            Op::Select => reader.select(source, opts),
            Op::Validate => reader.validate(source, opts),
        };
        answer.map_err(|r| {
            if r.path().is_none() {
                r.with_path(source.name())
            } else {
                r
            }
        })
    }

    /// Inspects a file.
    ///
    /// # Errors
    /// As [`Plumb::run`].
    pub fn inspect(
        &self,
        path: &Path,
        format: Option<&str>,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal> {
        self.run(Op::Inspect, path, format, opts)
    }

    /// Selects a window of a file.
    ///
    /// # Errors
    /// As [`Plumb::run`].
    pub fn select(
        &self,
        path: &Path,
        format: Option<&str>,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal> {
        self.run(Op::Select, path, format, opts)
    }

    /// Validates a file.
    ///
    /// # Errors
    /// As [`Plumb::run`].
    pub fn validate(
        &self,
        path: &Path,
        format: Option<&str>,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal> {
        self.run(Op::Validate, path, format, opts)
    }

    /// Inspects any byte source.
    ///
    /// # Errors
    /// As [`Plumb::run`].
    pub fn inspect_source(
        &self,
        source: &dyn ByteSource,
        format: Option<&str>,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal> {
        self.run_source(Op::Inspect, source, format, opts)
    }
}
