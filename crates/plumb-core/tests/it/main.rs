//! Integration tests for plumb-core: one binary, a module per topic.

mod lines;
mod number;
mod predicate;
mod refusal;
mod source;
mod stream;
mod time;
