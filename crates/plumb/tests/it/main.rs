//! Integration tests for the dispatcher: the seed's detection and
//! refusal tests through the real entry points.

#[cfg(feature = "compression")]
mod archives;
#[cfg(feature = "compression")]
mod budget;
#[cfg(feature = "compression")]
mod containers;
mod dataset;
mod dataset_ranges;
mod detect;
mod encodings;
mod entry;
mod layout;
mod read;
mod search;
mod snapshot;
