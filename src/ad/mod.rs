//! ClassAd documents and the files that hold them.

pub mod classad;

pub use classad::ClassAd;
