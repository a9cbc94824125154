//! C programs built with the system C compiler (`cc`, or `$CC`) against the shared library cargo
//! built for these tests, and run under valgrind (no leak, no invalid read or write):
//! - `tests/c/throng_test.c`: errors, batch plans against a shipped `.scen` file, a shipped
//!   scenario's final state hash, and a few hundred ticks of a crowd with agents added and
//!   removed and walls changed;
//! - `tests/c/minimal.c`: the example of `docs/embedding.md` and the README, which must show it verbatim.
//!
//! Valgrind is required where `CI` is set; elsewhere, without it, the programs run bare.

#[path = "common/deadline.rs"]
mod deadline;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The final state hash of `sims/mapf-random-32-32-10.toml`, as `tests/golden.rs` records it.
const MAPF_SCENARIO_HASH: &str = "a855b7fd1554b150";

fn capi() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch folder of this test binary.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("capi-c")
        .join(name);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// Compiles `tests/c/<name>.c` into `out`, linked to the shared library.
fn compile(name: &str, out: &Path) -> PathBuf {
    // This test's binary is in target/<profile>/deps, beside the library built for it.
    let exe = std::env::current_exe().expect("the test's path");
    let deps = exe.parent().expect("the deps folder");
    let lib = deps.join(format!(
        "{}throng_capi{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    assert!(lib.exists(), "{} was not built", lib.display());
    let program = out.join(name);
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = Command::new(&cc)
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Wpedantic",
            "-Werror",
            "-O1",
            "-g",
            "-pthread",
        ])
        .arg("-I")
        .arg(capi().join("include"))
        .arg(capi().join(format!("tests/c/{name}.c")))
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", deps.display()))
        .args(["-lm", "-o"])
        .arg(&program)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc}: {e}"));
    assert!(
        built.status.success(),
        "{cc} failed on {name}.c:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    program
}

/// How long a C program may run: the C test takes about 4 s under valgrind on 2 cores.
const DEADLINE_S: u64 = 900;

/// Runs `program` with `args` under valgrind (bare where there is none and `CI` is unset) and
/// returns its standard output; fails on a nonzero exit or any valgrind error.
fn run(program: &Path, args: &[&dyn AsRef<std::ffi::OsStr>]) -> String {
    let valgrind = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !valgrind && std::env::var_os("CI").is_some() {
        panic!("valgrind is required in CI (apt-get install valgrind)");
    }
    let mut command = if valgrind {
        let mut c = Command::new("valgrind");
        c.args([
            "--error-exitcode=1",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,possible",
            "--quiet",
            // Threads take turns fairly: the C test polls a step running on another thread.
            "--fair-sched=yes",
        ])
        .arg(format!(
            "--suppressions={}",
            capi().join("tests/c/valgrind.supp").display()
        ))
        .arg(program);
        c
    } else {
        eprintln!("valgrind not found: {} runs without it", program.display());
        Command::new(program)
    };
    for arg in args {
        command.arg(arg);
    }
    let what = program.display().to_string();
    let ran = deadline::run_within(&mut command, DEADLINE_S, &what);
    assert!(
        ran.status.success(),
        "{what} failed ({}):\n{}\n{}",
        ran.status,
        ran.stdout,
        ran.stderr
    );
    ran.stdout
}

#[test]
fn the_c_test_passes_under_valgrind() {
    let out = scratch("test");
    let program = compile("throng_test", &out);
    let root = capi().parent().expect("capi/ is in the repository");
    let stdout = run(&program, &[&root, &MAPF_SCENARIO_HASH, &out]);
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

#[test]
fn the_documented_c_example_runs_as_shown() {
    let source = std::fs::read_to_string(capi().join("tests/c/minimal.c")).expect("minimal.c");
    for page in ["../docs/embedding.md", "../README.md"] {
        let text = std::fs::read_to_string(capi().join(page)).expect("the page");
        assert!(
            text.contains(&source),
            "{page} must show capi/tests/c/minimal.c verbatim"
        );
    }
    let program = compile("minimal", &scratch("minimal"));
    let stdout = run(&program, &[]);
    assert!(
        stdout.contains("agent 0 at (7, 2)\nagent 1 at (7, 0)\nall arrived after "),
        "{stdout}"
    );
}
