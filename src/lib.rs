//! `classad`: HTCondor's ClassAd language, parsed, unparsed, evaluated and matched
//! exactly as HTCondor 25 does.

pub mod ad;
pub mod cli;
pub mod eval;
pub mod functions;
pub mod matching;
pub mod syntax;

pub use classad_vm::Value;
