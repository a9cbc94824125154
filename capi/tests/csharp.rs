//! The C# binding (`bindings/csharp/`) compiled with Mono's C# compiler (`mcs`) and run with the
//! Mono runtime against the shared library cargo built for these tests:
//! - `src/*.cs` into `Throng.dll` as C# 6 (what Unity and .NET Framework 4.x compile), warnings
//!   as errors, public items documented (`-doc` warns on a missing comment);
//! - `tests/ThrongTests.cs`: every error path raising its exception type with the engine's
//!   message, batch plans optimal against a shipped `.scen` file, a shipped scenario's final
//!   state hash, a crowd read into arrays kept from tick to tick;
//! - `tests/Minimal.cs`: the example of `docs/embedding.md` and the README, which must show it verbatim;
//! - `unity/CrowdBehaviour.cs` against `tests/UnityEngineStub.cs` (a stub of the few Unity types
//!   it uses): compiled only, so that a change of the binding that breaks the Unity example
//!   fails here.
//!
//! `mcs` and `mono` are required where `CI` is set (`.ci/run` installs them); elsewhere, without
//! them, the tests are skipped, shown and counted as skipped by the harness of
//! `tests/common/harness.rs` (this file sets `harness = false`).

#[path = "common/deadline.rs"]
mod deadline;
#[path = "../../tests/common/harness.rs"]
mod harness;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The final state hash of `sims/mapf-random-32-32-10.toml`, as `tests/golden.rs` records it.
const MAPF_SCENARIO_HASH: &str = "a855b7fd1554b150";

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn binding() -> PathBuf {
    root().join("bindings/csharp")
}

/// Whether `mcs` and `mono` run; where they do not, `CI` makes that a failure, and elsewhere the
/// test is skipped.
fn mono_available() -> bool {
    let runs = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if runs("mcs") && runs("mono") {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!("mcs and mono are required in CI (apt-get install mono-mcs mono-devel)");
    }
    harness::skip(
        "mcs or mono not found: the C# binding is not tested (apt-get install mono-mcs mono-devel)",
    );
    false
}

/// A scratch folder of this test binary.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("capi-csharp")
        .join(name);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// The folder of the shared library built for these tests (`target/<profile>/deps`, beside this
/// test's binary).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let deps = exe.parent().expect("the deps folder").to_path_buf();
    let lib = deps.join(format!(
        "{}throng_capi{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    assert!(lib.exists(), "{} was not built", lib.display());
    deps
}

/// The `.cs` files of `bindings/csharp/<folder>`, sorted.
fn sources(folder: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(binding().join(folder))
        .expect("the binding's folder")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "cs"))
        .collect();
    files.sort();
    files
}

/// Runs `mcs` with `args` and the `files`; fails with its messages.
fn mcs(args: &[&str], files: &[PathBuf]) {
    let built = Command::new("mcs")
        .args(["-warnaserror+", "-nologo"])
        .args(args)
        .args(files)
        .output()
        .expect("mcs runs");
    assert!(
        built.status.success(),
        "mcs {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
}

/// Builds `Throng.dll` into `out` and returns its path.
fn library(out: &Path) -> PathBuf {
    let dll = out.join("Throng.dll");
    let doc = out.join("Throng.xml");
    mcs(
        &[
            "-langversion:6",
            "-target:library",
            &format!("-doc:{}", doc.display()),
            &format!("-out:{}", dll.display()),
        ],
        &sources("src"),
    );
    dll
}

/// Builds `bindings/csharp/tests/<name>.cs` against `dll` (in `out`, where the runtime looks for
/// the assemblies a program references) into `out` and returns the program.
fn program(name: &str, dll: &Path, out: &Path) -> PathBuf {
    let exe = out.join(format!("{name}.exe"));
    mcs(
        &[
            &format!("-r:{}", dll.display()),
            &format!("-out:{}", exe.display()),
        ],
        &[binding().join(format!("tests/{name}.cs"))],
    );
    exe
}

/// Runs `exe` with mono, the native library found through the loader's search path; fails on a
/// nonzero exit and returns the standard output.
fn run(exe: &Path, args: &[&dyn AsRef<std::ffi::OsStr>]) -> String {
    let deps = library_dir();
    let var = if cfg!(target_os = "macos") {
        "DYLD_LIBRARY_PATH"
    } else if cfg!(windows) {
        "PATH"
    } else {
        "LD_LIBRARY_PATH"
    };
    let mut paths = vec![deps];
    if let Some(old) = std::env::var_os(var) {
        paths.extend(std::env::split_paths(&old));
    }
    let mut command = Command::new("mono");
    command
        .arg("--debug")
        .arg(exe)
        .env(var, std::env::join_paths(paths).expect("a search path"));
    for arg in args {
        command.arg(arg);
    }
    let what = exe.display().to_string();
    // The C# tests take seconds; a step that never gets ready must not hold CI.
    let ran = deadline::run_within(&mut command, 600, &what);
    assert!(
        ran.status.success(),
        "{what} failed ({}):\n{}\n{}",
        ran.status,
        ran.stdout,
        ran.stderr
    );
    ran.stdout
}

fn the_csharp_tests_pass_under_mono() {
    if !mono_available() {
        return;
    }
    let out = scratch("tests");
    let dll = library(&out);
    let exe = program("ThrongTests", &dll, &out);
    let stdout = run(&exe, &[&root(), &MAPF_SCENARIO_HASH, &out]);
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

fn the_documented_csharp_example_runs_as_shown() {
    let source =
        std::fs::read_to_string(binding().join("tests/Minimal.cs")).expect("tests/Minimal.cs");
    for page in ["docs/embedding.md", "README.md"] {
        let text = std::fs::read_to_string(root().join(page)).expect("the page");
        assert!(
            text.contains(&source),
            "{page} must show bindings/csharp/tests/Minimal.cs verbatim"
        );
    }
    if !mono_available() {
        return;
    }
    let out = scratch("minimal");
    let exe = program("Minimal", &library(&out), &out);
    let stdout = run(&exe, &[]);
    assert_eq!(
        stdout,
        "agent 0 at (7, 2)\nagent 1 at (7, 0)\nall arrived after 9 ticks\n"
    );
}

fn the_unity_example_compiles_against_the_binding() {
    if !mono_available() {
        return;
    }
    let out = scratch("unity");
    let dll = library(&out);
    mcs(
        &[
            "-langversion:6",
            "-target:library",
            &format!("-r:{}", dll.display()),
            &format!("-out:{}", out.join("CrowdBehaviour.dll").display()),
        ],
        &[
            binding().join("tests/UnityEngineStub.cs"),
            binding().join("unity/CrowdBehaviour.cs"),
        ],
    );
}

fn main() -> std::process::ExitCode {
    harness::run(&[
        (
            "the_csharp_tests_pass_under_mono",
            the_csharp_tests_pass_under_mono,
        ),
        (
            "the_documented_csharp_example_runs_as_shown",
            the_documented_csharp_example_runs_as_shown,
        ),
        (
            "the_unity_example_compiles_against_the_binding",
            the_unity_example_compiles_against_the_binding,
        ),
    ])
}
