//! ClassAd documents and the files that hold them.

pub mod classad;
pub mod files;
pub mod json;
mod old;
pub mod parts;
pub mod read;
pub mod stream;
pub mod xml;

pub use classad::ClassAd;
pub use read::{read_ads, read_ads_as, Format, ReadError};
pub use stream::{read_ads_from, ReadLimits};
