//! Running the `throng` binary from a test, and the checks every CLI test makes of its result:
//! one line on stderr, exit status 2, nothing on stdout, for every mistake.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `throng` with `args`, from the current folder.
pub fn throng(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .output()
        .expect("run throng")
}

/// Bytes of an output stream as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A run's stderr as text.
pub fn stderr(o: &Output) -> String {
    text(&o.stderr)
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A JSON file, parsed.
pub fn json_file(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs `throng` and returns its stdout: it must succeed and print nothing on stderr (which is
/// not a terminal here: no progress bar, nothing at all).
pub fn ok(args: &[&str]) -> String {
    let o = throng(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    text(&o.stdout)
}

/// An error run: status 2, exactly one line on stderr (`throng: error: ...`) containing every
/// `want`, no panic, nothing on stdout (no work reported).
pub fn assert_error(o: &Output, want: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err:?}");
    assert!(err.starts_with("throng: error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for w in want {
        assert!(err.contains(w), "{err:?} does not contain {w:?}");
    }
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
}

/// [`assert_error`] with one wanted piece.
pub fn assert_one_line_error(o: &Output, want: &str) {
    assert_error(o, &[want]);
}
