//! Integration tests for plumb-csv: the seed's focused tests and more,
//! every parser case run whole, split at every byte and byte by byte.

mod blocks;
mod brief;
mod cell;
mod conformance;
mod inspect_ranges;
mod lines;
mod ops;
mod parallel;
mod parallel_inspect;
mod parallel_search;
mod parser;
mod ranges;
mod row_names;
mod runs;
mod search;
mod shapes;
mod stats;
mod tail;
mod util;
