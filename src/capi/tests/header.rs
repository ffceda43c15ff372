//! The committed header, `include/classad.h`, is what cbindgen makes of the
//! crate today: regenerated here and compared, so a change to the C ABI that
//! forgets the header fails CI. `CLASSAD_BLESS=1` rewrites the file instead.

use std::path::Path;

#[test]
fn the_committed_header_is_what_cbindgen_generates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut fresh = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut fresh);
    let fresh = String::from_utf8(fresh).expect("the header is UTF-8");
    let path = dir.join("include/classad.h");
    if std::env::var_os("CLASSAD_BLESS").is_some() {
        std::fs::write(&path, &fresh).expect("include/classad.h is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "src/capi/include/classad.h is stale: rerun with CLASSAD_BLESS=1 \
         (cargo test -p classad-capi --test header) and commit it"
    );
}
