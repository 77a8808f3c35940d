//! Integration tests for plumb-core: one binary, a module per topic.

mod number;
mod refusal;
mod source;
mod stats;
mod stream;
