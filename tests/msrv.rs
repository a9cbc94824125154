//! The minimum Rust version that Cargo.toml states (`rust-version`) is one every dependency
//! accepts: no crate in Cargo.lock (dependencies, dev-dependencies, their dependencies) may
//! declare a newer `rust-version`. Only the stable and nightly toolchains are on CI's image, so
//! the code itself is held to the stated version by clippy's `incompatible_msrv` lint (standard
//! library items newer than `rust-version` are errors under `-D warnings`), and this test holds
//! the dependencies to it.
//!
//! It reads the crates of this machine's platform only (`--filter-platform`): a fresh machine
//! that has run `cargo test` has downloaded those and no others (winapi, wasm-bindgen and the
//! like are in Cargo.lock for other platforms), so cargo finds them all in its cache. Cargo may
//! still reach the registry: should one be missing (a cache cleaned since the build), it is
//! fetched as the build fetched it, rather than the test failing on the machine's state.

use std::process::Command;

/// `"1.85"` or `"1.85.0"` as (major, minor, patch).
fn version(text: &str) -> (u32, u32, u32) {
    let mut parts = text.split('.').map(|p| {
        p.parse::<u32>()
            .unwrap_or_else(|_| panic!("rust-version {text:?} is not a version"))
    });
    let major = parts.next().expect("a major version");
    let minor = parts.next().unwrap_or(0);
    let patch = parts.next().unwrap_or(0);
    (major, minor, patch)
}

/// The platform cargo builds for on this machine (`host:` of `cargo -vV`).
fn host_triple() -> String {
    let output = Command::new(env!("CARGO"))
        .arg("-vV")
        .output()
        .expect("cargo runs");
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    text.lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("cargo -vV names the host")
        .trim()
        .to_string()
}

#[test]
fn no_dependency_needs_a_newer_rust_than_ours() {
    let host = host_triple();
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked"])
        .args(["--filter-platform", &host])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let packages = metadata["packages"].as_array().expect("a package list");
    let ours = packages
        .iter()
        .find(|p| p["name"] == "throng")
        .and_then(|p| p["rust_version"].as_str())
        .expect("Cargo.toml states a rust-version");
    let ours = version(ours);
    assert!(
        packages.len() > 20,
        "the lock file's crates are listed ({})",
        packages.len()
    );
    let newer: Vec<String> = packages
        .iter()
        .filter_map(|p| {
            let needs = p["rust_version"].as_str()?;
            (version(needs) > ours)
                .then(|| format!("{} {} needs Rust {needs}", p["name"], p["version"]))
        })
        .collect();
    assert!(
        newer.is_empty(),
        "crates that need a newer Rust than rust-version {ours:?}: {newer:?}"
    );
}

#[test]
fn versions_compare_by_number() {
    assert!(version("1.9") < version("1.10"));
    assert!(version("1.88") < version("1.88.1"));
    assert_eq!(version("1.88"), version("1.88.0"));
}
