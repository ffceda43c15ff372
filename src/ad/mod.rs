//! ClassAd documents and the files that hold them.

pub mod classad;
pub mod files;
pub mod json;
mod old;
pub mod parse;
pub mod parts;
pub mod print;
pub mod read;
pub mod same;
pub mod stream;
pub mod xml;

pub use classad::ClassAd;
pub use parse::{parse_classad, ParseAds};
pub use print::{
    unparse_ad, unparse_ad_exact, unparse_ad_inline_old, unparse_ad_old, unparse_ad_old_exact,
    unparse_ad_pretty,
};
pub use read::{read_ads, read_ads_as, Format, ReadError};
pub use same::same_ads;
pub use stream::{read_ads_from, ReadLimits};

/// The ads of `text` (any syntax), shared: what unit tests build pools from.
#[cfg(test)]
pub(crate) fn test_ads(text: &str) -> Vec<std::sync::Arc<ClassAd>> {
    read_ads(text, "test")
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(std::sync::Arc::new)
        .collect()
}
