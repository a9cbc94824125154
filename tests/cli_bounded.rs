//! Every command given an input that is not a regular file (`/dev/zero`, `/dev/urandom`, a
//! FIFO, a folder) or a file larger than its kind may be: refused in one line, at once, with
//! memory bounded (the binary runs under `ulimit -v`), and "no such file" said one way (with
//! the absolute path looked for, for a file a scenario names).
#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::cli::{assert_error, s};

/// Virtual memory the binary may use, in KiB: far less than reading `/dev/zero` whole would.
const MEMORY_KIB: u32 = 1 << 20;

/// Runs `throng` under the memory limit, killed if it is still running after 20 s (a FIFO
/// opened for reading would wait for a writer).
fn bounded(args: &[&str]) -> Output {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run throng");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        // A hang guard only (a FIFO read would block for ever): refusals come at once, and
        // the guard is far above what a loaded machine takes.
        if start.elapsed() > Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("{args:?} still running after 120 s: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Each command with `input` where it reads a file, and what the command line needs besides.
fn every_command(input: &str, map: &str, scen: &str) -> Vec<Vec<String>> {
    let v = |args: &[&str]| args.iter().map(ToString::to_string).collect();
    vec![
        v(&["run", input]),
        v(&["run", "--map", input, "--agents", "3"]),
        v(&["scen", input, "--map", map]),
        v(&["scen", scen, "--map", input]),
        v(&[
            "scen",
            scen,
            "--map",
            map,
            "--planner",
            "nav",
            "--nav-file",
            input,
        ]),
        v(&["mapf", input, scen, "--agents", "2"]),
        v(&["mapf", map, input, "--agents", "2"]),
        v(&["lorr", input]),
        v(&["nav", input, "--out", "unused.nav"]),
        v(&["view", input, "--no-open"]),
        v(&["view", "PLAN.txt", "--map", input, "--no-open"]),
    ]
}

fn small_files(dir: &Path) -> (String, String) {
    let map = dir.join("m.map");
    std::fs::write(&map, "type octile\nheight 2\nwidth 3\nmap\n...\n...\n").unwrap();
    let scen = dir.join("m.map.scen");
    std::fs::write(&scen, "version 1\n0\tm.map\t3\t2\t0\t0\t2\t1\t2.41421356\n").unwrap();
    (s(&map).to_string(), s(&scen).to_string())
}

#[test]
fn devices_fifos_and_folders_are_refused_in_one_line_with_memory_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let (map, scen) = small_files(dir.path());
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let mut inputs = vec![
        (
            "/dev/zero",
            "is a device or special file, not a regular file",
        ),
        (
            "/dev/urandom",
            "is a device or special file, not a regular file",
        ),
        (s(dir.path()), "is a directory, not a regular file"),
    ];
    if made.is_ok_and(|st| st.success()) {
        inputs.push((s(&fifo), "is a pipe or socket, not a regular file"));
    }
    for (input, want) in inputs {
        for args in every_command(input, &map, &scen) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = bounded(&args);
            let line = format!("{input}: {want}");
            if args.contains(&"PLAN.txt") {
                // The plan is checked before its map.
                assert_error(&o, &["PLAN.txt: no such file"]);
            } else {
                assert_error(&o, &[&line]);
            }
        }
    }
    assert!(!Path::new("unused.nav").exists());
}

#[test]
fn files_larger_than_their_kind_may_be_are_refused_by_size() {
    let dir = tempfile::tempdir().unwrap();
    let (map, scen) = small_files(dir.path());
    // Sparse files: as large as they say, nothing on disk, and nothing read.
    let sparse = |name: &str, len: u64| {
        let p = dir.path().join(name);
        std::fs::File::create(&p).unwrap().set_len(len).unwrap();
        s(&p).to_string()
    };
    let paths_csv = sparse("paths.csv", 17 << 20);
    let o = bounded(&["run", &paths_csv]);
    assert_error(
        &o,
        &[&format!(
            "{paths_csv}: larger than the 4 MiB a simulation scenario (TOML) may be"
        )],
    );
    let big_map = sparse("big.map", 300 << 20);
    let o = bounded(&["run", "--map", &big_map, "--agents", "3"]);
    assert_error(
        &o,
        &["big.map: larger than the 272 MiB a Moving AI map may be"],
    );
    let o = bounded(&["mapf", &big_map, &scen, "--agents", "2"]);
    assert_error(
        &o,
        &["big.map: larger than the 272 MiB a Moving AI map may be"],
    );
    let big_problem = sparse("big.json", 5 << 20);
    let o = bounded(&["lorr", &big_problem]);
    assert_error(
        &o,
        &["big.json: larger than the 4 MiB a League of Robot Runners problem may be"],
    );
    let o = bounded(&["scen", &map, "--map", &map]);
    assert_error(&o, &["is a Moving AI map, not a Moving AI .scen file"]);
}

#[test]
fn a_missing_file_is_no_such_file_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let (map, scen) = small_files(dir.path());
    let nope = dir.path().join("nope.file");
    let nope = s(&nope);
    for args in every_command(nope, &map, &scen) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = bounded(&args);
        let err = common::cli::stderr(&o);
        assert!(!err.contains("os error"), "{args:?}: {err}");
        if args.contains(&"PLAN.txt") {
            assert_error(&o, &["PLAN.txt: no such file"]);
        } else {
            assert_error(&o, &[&format!("{nope}: no such file")]);
        }
    }
}

/// A scenario's missing map, run from the scenario's own folder: the path looked for is
/// absolute, not the bare relative name again.
#[test]
fn the_path_looked_for_is_absolute() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "agents = 2\nticks = 5\n[map]\nfile = \"maps/gone.map\"\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["run", "s.toml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let looked = std::fs::canonicalize(dir.path())
        .unwrap()
        .join("maps/gone.map");
    let plain = dir.path().join("maps/gone.map");
    let err = common::cli::stderr(&o);
    assert!(
        err.contains(&format!("(looked for {})", looked.display()))
            || err.contains(&format!("(looked for {})", plain.display())),
        "{err}"
    );
    assert_error(
        &o,
        &["s.toml:4: map.file: maps/gone.map: no such file (looked for /"],
    );
}

/// A `run --json` summary given to `lorr` is named for what it is, not by the problem
/// reader's first missing key.
#[test]
fn a_run_summary_is_named_for_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.json");
    std::fs::write(
        &summary,
        "{\n  \"scenario\": \"default\",\n  \"scenario_file\": \"sims/default.toml (built in)\",\n  \"ticks\": 3\n}\n",
    )
    .unwrap();
    let o = bounded(&["lorr", s(&summary)]);
    assert_error(
        &o,
        &[
            "summary.json is a run summary (throng run --json), not a League of Robot Runners problem",
        ],
    );
    assert!(!common::cli::stderr(&o).contains("mapFile"));
}
