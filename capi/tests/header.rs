//! `include/throng.h` is what cbindgen makes of the code now: regenerated here (cbindgen as a
//! library, so CI needs no `cargo install`) and compared. `THRONG_BLESS=1` rewrites it.

use std::path::Path;

#[test]
fn the_header_matches_the_code() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen reads the crate");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8 header");
    let path = dir.join("include/throng.h");
    if std::env::var_os("THRONG_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write the header");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "capi/include/throng.h is stale: regenerate it with \
         `THRONG_BLESS=1 cargo test -p throng-capi --test header` and commit it"
    );
}
