//! The library's public surface: every public item is reachable by exactly one path, its
//! canonical one, except through `throng::prelude` (the one documented convenience glob), and
//! no public item is hidden from the docs (`#[doc(hidden)]`): what is public is documented API.
//!
//! It reads the crate as rustdoc does: the JSON output of `cargo +nightly rustdoc` (an unstable
//! rustdoc flag, hence nightly), every feature on, hidden items included, in a target folder of
//! its own under cargo's `CARGO_TARGET_TMPDIR` (one doc build, reused by the next run). It then
//! walks the public module tree from the crate root, following re-exports (`pub use`, globs
//! included), and counts the paths that reach each item. Without a nightly toolchain it skips,
//! saying so, except under CI (`CI` set), where it fails.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The module whose re-exports are a second path on purpose.
const PRELUDE: &str = "throng::prelude";

/// Whether `cargo +nightly` runs here.
fn nightly_available() -> bool {
    Command::new("cargo")
        .args(["+nightly", "--version"])
        .env_remove("RUSTUP_TOOLCHAIN")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Builds the crate's rustdoc JSON (every feature, hidden items included) and returns its path.
fn rustdoc_json() -> PathBuf {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("public-surface");
    let output = Command::new("cargo")
        .args(["+nightly", "rustdoc", "--lib", "--locked", "--all-features"])
        .arg("--manifest-path")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .args(["--", "-Z", "unstable-options", "--output-format", "json"])
        .arg("--document-hidden-items")
        // The outer cargo's toolchain and flags are not this build's.
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTDOCFLAGS")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("cargo +nightly rustdoc runs");
    assert!(
        output.status.success(),
        "cargo +nightly rustdoc failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    target.join("doc").join("throng.json")
}

/// The public paths of the crate, walked from its root.
struct Surface<'a> {
    index: &'a serde_json::Map<String, Value>,
    /// Item id (as the JSON writes it) -> every public path that reaches it.
    paths: BTreeMap<String, Vec<String>>,
    /// Paths of items marked `#[doc(hidden)]`.
    hidden: Vec<String>,
}

impl<'a> Surface<'a> {
    fn item(&self, id: &Value) -> Option<&'a Value> {
        let key = match id {
            Value::Number(n) => n.to_string(),
            Value::String(s) => s.clone(),
            _ => return None,
        };
        self.index.get(&key)
    }

    fn is_module(item: &Value) -> bool {
        item["inner"].get("module").is_some()
    }

    fn is_hidden(item: &Value) -> bool {
        item["attrs"].as_array().is_some_and(|attrs| {
            attrs.iter().any(|a| {
                let text = a.to_string();
                text.contains("hidden") && text.contains("doc")
            })
        })
    }

    /// Records `path` for the item `id`; walks into it when it is a module not yet on the way.
    fn reach(&mut self, id: &Value, path: String, on_the_way: &HashSet<String>) {
        let key = id.to_string();
        self.paths
            .entry(key.clone())
            .or_default()
            .push(path.clone());
        if let Some(item) = self.item(id) {
            if Self::is_hidden(item) {
                self.hidden.push(path.clone());
            }
            if Self::is_module(item) && !on_the_way.contains(&key) {
                let mut deeper = on_the_way.clone();
                deeper.insert(key);
                self.walk(item, &path, &deeper);
            }
        }
    }

    /// Every public item of `module`, at `prefix::name`.
    fn walk(&mut self, module: &Value, prefix: &str, on_the_way: &HashSet<String>) {
        let children = module["inner"]["module"]["items"]
            .as_array()
            .expect("a module lists its items");
        for child in children {
            let Some(item) = self.item(child) else {
                continue;
            };
            if item["visibility"] != "public" {
                continue;
            }
            if let Some(reexport) = item["inner"].get("use") {
                let target = &reexport["id"];
                if reexport["is_glob"] == true {
                    // `pub use m::*`: m's public items, here.
                    if let Some(m) = self.item(target).filter(|m| Self::is_module(m)) {
                        if Self::is_hidden(item) {
                            self.hidden.push(format!("{prefix}::*"));
                        }
                        self.walk(m, prefix, on_the_way);
                    }
                    continue;
                }
                let name = reexport["name"].as_str().expect("a re-export has a name");
                let path = format!("{prefix}::{name}");
                if Self::is_hidden(item) {
                    self.hidden.push(path.clone());
                }
                if target.is_null() {
                    // A primitive or an item rustdoc cannot name: one path, its own.
                    self.paths.entry(path.clone()).or_default().push(path);
                    continue;
                }
                self.reach(target, path, on_the_way);
            } else if let Some(name) = item["name"].as_str() {
                self.reach(child, format!("{prefix}::{name}"), on_the_way);
            }
        }
    }
}

fn every_public_item_has_one_path_and_none_is_hidden() {
    if !nightly_available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must check the public surface: install the nightly toolchain"
        );
        common::harness::skip(
            "no nightly toolchain (`cargo +nightly` fails) to build rustdoc JSON",
        );
        return;
    }
    let json = rustdoc_json();
    let doc: Value = serde_json::from_slice(&std::fs::read(&json).expect("the JSON is written"))
        .expect("rustdoc writes JSON");
    let index = doc["index"].as_object().expect("an item index");
    let mut surface = Surface {
        index,
        paths: BTreeMap::new(),
        hidden: Vec::new(),
    };
    let root = surface.item(&doc["root"]).expect("the crate root");
    surface.walk(root, "throng", &HashSet::new());

    let all_paths: usize = surface.paths.values().map(Vec::len).sum();
    assert!(
        surface.paths.len() > 100,
        "the walk found {} items: has rustdoc's JSON format (version {}) changed?",
        surface.paths.len(),
        doc["format_version"]
    );
    let canonical = |paths: &Vec<String>| -> Vec<String> {
        paths
            .iter()
            .filter(|p| !p.starts_with(&format!("{PRELUDE}::")))
            .cloned()
            .collect()
    };
    let mut twice: Vec<String> = surface
        .paths
        .values()
        .map(canonical)
        .filter(|paths| paths.len() > 1)
        .map(|paths| paths.join(" = "))
        .collect();
    twice.sort();
    // The prelude only gathers items that have their own path elsewhere.
    let prelude_only: Vec<String> = surface
        .paths
        .values()
        .filter(|paths| canonical(paths).is_empty())
        .flat_map(|paths| paths.iter().cloned())
        .filter(|p| p != PRELUDE)
        .collect();
    eprintln!(
        "{} public items, {all_paths} paths, {} items reachable twice",
        surface.paths.len(),
        twice.len()
    );
    let mut problems = Vec::new();
    if !twice.is_empty() {
        problems.push(format!(
            "{} items reachable by two or more paths:\n  {}",
            twice.len(),
            twice.join("\n  ")
        ));
    }
    if !prelude_only.is_empty() {
        problems.push(format!(
            "items reachable only through the prelude: {prelude_only:?}"
        ));
    }
    if !surface.hidden.is_empty() {
        surface.hidden.sort();
        problems.push(format!(
            "{} public items hidden from the docs (make them private or document them): {:?}",
            surface.hidden.len(),
            surface.hidden
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn main() -> std::process::ExitCode {
    common::harness::run(&[(
        "every_public_item_has_one_path_and_none_is_hidden",
        every_public_item_has_one_path_and_none_is_hidden,
    )])
}
