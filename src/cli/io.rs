//! Reading ad files for the commands, with errors that name the file.

use crate::ad::{read_ads, ClassAd};
use std::sync::Arc;

/// Reads every ad of `path` (`-` is standard input).
pub fn load_ads(path: &str) -> Result<Vec<ClassAd>, String> {
    let text = if path == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| format!("<stdin>: {e}"))?;
        s
    } else {
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        String::from_utf8(bytes).map_err(|e| {
            format!(
                "{path}: not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            )
        })?
    };
    read_ads(&text, path).map_err(|e| e.to_string())
}

/// Reads a file that must hold exactly one ad.
pub fn load_one_ad(path: &str) -> Result<Arc<ClassAd>, String> {
    let mut ads = load_ads(path)?;
    match ads.len() {
        1 => Ok(Arc::new(ads.remove(0))),
        0 => Err(format!("{path}: no ad in the file")),
        n => Err(format!("{path}: expected one ad, found {n}")),
    }
}
