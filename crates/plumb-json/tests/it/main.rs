//! Integration tests for plumb-json: the seed's focused tests and more;
//! every parser case runs whole, split at every byte and byte by byte.

mod conformance;
mod ops;
mod outline;
mod parallel;
mod parser;
mod ranges;
mod sinks;
mod util;
