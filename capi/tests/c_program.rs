//! The C test (`tests/c/throng_test.c`) built with the system C compiler (`cc`, or `$CC`)
//! against the shared library cargo built for this test, and run under valgrind (no leak, no
//! invalid read or write): errors, batch plans against a shipped `.scen` file, a shipped
//! scenario's final state hash, and a few hundred ticks of a crowd with agents added and
//! removed and walls changed. Valgrind is required where `CI` is set; elsewhere, without it,
//! the program runs bare.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The final state hash of `sims/mapf-random-32-32-10.toml`, as `tests/golden.rs` records it.
const MAPF_SCENARIO_HASH: &str = "9b71eedae6bc5974";

fn has_valgrind() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_c_test_passes_under_valgrind() {
    let capi = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = capi.parent().expect("capi/ is in the repository");
    // This test's binary is in target/<profile>/deps, beside the library built for it.
    let exe = std::env::current_exe().expect("the test's path");
    let deps = exe.parent().expect("the deps folder");
    let lib = deps.join(format!(
        "{}throng_capi{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    assert!(lib.exists(), "{} was not built", lib.display());
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("capi-c-test");
    std::fs::create_dir_all(&out).expect("a scratch folder");
    let program = out.join("throng_test");
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
        ])
        .arg("-I")
        .arg(capi.join("include"))
        .arg(capi.join("tests/c/throng_test.c"))
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", deps.display()))
        .args(["-lm", "-o"])
        .arg(&program)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc}: {e}"));
    assert!(
        built.status.success(),
        "{cc} failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );

    let valgrind = has_valgrind();
    if !valgrind && std::env::var_os("CI").is_some() {
        panic!("valgrind is required in CI (apt-get install valgrind)");
    }
    let mut run = if valgrind {
        let mut c = Command::new("valgrind");
        c.args([
            "--error-exitcode=1",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,possible",
            "--quiet",
        ])
        .arg(format!(
            "--suppressions={}",
            capi.join("tests/c/valgrind.supp").display()
        ))
        .arg(&program);
        c
    } else {
        eprintln!("valgrind not found: the C test runs without it");
        Command::new(&program)
    };
    let ran = run
        .arg(root)
        .arg(MAPF_SCENARIO_HASH)
        .arg(&out)
        .output()
        .expect("the C test runs");
    let stdout = String::from_utf8_lossy(&ran.stdout);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(
        ran.status.success(),
        "the C test failed ({}):\n{stdout}\n{stderr}",
        ran.status
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
