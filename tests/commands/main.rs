//! The `classad` command and the repository around it: the command-line
//! contract, every example of the README and the manual run as written, and the
//! layering of the source.
//!
//! One test binary of a few (each links the whole crate): the modules below were
//! test files of their own.

mod cli;
mod layers;
mod readme;
