//! Every output file of the CLI is checked before the work (a temporary file is made in its
//! folder then), written whole or not at all, never an input nor another output, and removed
//! unfinished on Ctrl-C, an older file of that name kept; `gen` replaces an existing map only
//! with `--force`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::cli::{assert_error as assert_refused, assert_one_line_error, s, text, throng};
use common::shipped;

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A small LoRR problem (the four files) in `dir`; returns the problem JSON.
fn lorr_problem(dir: &Path) -> PathBuf {
    let json = dir.join("tiny.json");
    std::fs::write(
        &json,
        r#"{"mapFile": "tiny.map", "agentFile": "tiny.agents", "taskFile": "tiny.tasks",
            "teamSize": 2, "numTasksReveal": 1}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("tiny.map"),
        "type octile\nheight 2\nwidth 3\nmap\n...\n.@.\n",
    )
    .unwrap();
    std::fs::write(dir.join("tiny.agents"), "2\n0\n5\n").unwrap();
    std::fs::write(dir.join("tiny.tasks"), "2\n2,3\n0,5\n").unwrap();
    json
}

/// Whether the tests run as root, who may write in a read-only folder.
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// For each subcommand and output flag, an output path that cannot be written, with the
/// command's other files in `dir`: (arguments, flag named in the error).
fn every_output(dir: &Path, bad: &dyn Fn(&str) -> String) -> Vec<(Vec<String>, &'static str)> {
    let map = s(&shipped("mapf/maze-32-32-2.map")).to_string();
    let scen = s(&shipped("mapf/maze-32-32-2-random-5.scen")).to_string();
    let problem = s(&lorr_problem(dir)).to_string();
    let v = |a: &[&str]| a.iter().map(ToString::to_string).collect::<Vec<_>>();
    let run = |flag: &'static str, ext: &str| {
        let mut a = v(&["run", "--generate", "random:32x32", "--agents", "20"]);
        a.extend([flag.to_string(), bad(ext)]);
        (a, flag)
    };
    vec![
        run("--json", "o.json"),
        run("--csv", "o.csv"),
        run("--paths", "p.csv"),
        run("--trace", "t.trace"),
        run("--render", "r.gif"),
        run("--render", "r.png"),
        run("--heatmap", "h.png"),
        (
            v(&[
                "mapf",
                &map,
                &scen,
                "--agents",
                "5",
                "--out",
                &bad("plan.txt"),
            ]),
            "--out",
        ),
        (
            v(&["lorr", &problem, "--steps", "5", "--out", &bad("o.json")]),
            "--out",
        ),
        (v(&["nav", &map, "--out", &bad("m.nav")]), "--out"),
        (
            v(&[
                "gen",
                "random",
                "--width",
                "64",
                "--height",
                "64",
                "--out",
                &bad("m.map"),
            ]),
            "--out",
        ),
    ]
}

#[test]
fn an_output_path_that_cannot_be_written_is_refused_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    // A name too long for the file system: its folder exists and is not a file, so only making
    // a file there finds it (any user, root included).
    let long = |ext: &str| s(&dir.path().join(format!("{}{ext}", "n".repeat(300)))).to_string();
    for (args, flag) in every_output(dir.path(), &long) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = throng(&args);
        assert_refused(&o, &[flag, &"n".repeat(300)]);
    }
    // A name whose .scen file beside it (`gen`) is the one too long: the map is not written.
    let map = dir.path().join(format!("{}.map", "m".repeat(250)));
    let o = throng(&[
        "gen",
        "random",
        "--width",
        "64",
        "--height",
        "64",
        "--out",
        s(&map),
    ]);
    assert_refused(&o, &["--out's .scen file"]);
    assert!(!map.exists());
    // Nothing left behind but the problem files written for lorr.
    let left: Vec<String> = listing(dir.path())
        .into_iter()
        .filter(|n| !n.starts_with("tiny"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_read_only_folder_is_refused_before_the_work() {
    if is_root() {
        // Root writes in a read-only folder: nothing to test (the test above covers a folder
        // that refuses a file for every user).
        eprintln!("skipped: running as root");
        return;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let ro = dir.path().join("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        let in_ro = |name: &str| s(&ro.join(name)).to_string();
        for (args, flag) in every_output(dir.path(), &in_ro) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            assert_refused(&throng(&args), &[flag, "Permission denied"]);
        }
        let o = throng(&[
            "run",
            "--generate",
            "random:32x32",
            "--agents",
            "20",
            "--plots",
            s(&ro),
        ]);
        assert_refused(&o, &["--plots", s(&ro)]);
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn no_output_is_written_when_one_fails_its_check() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let long = d.join(format!("{}.json", "n".repeat(300)));
    let o = throng(&[
        "run",
        "--generate",
        "random:32x32",
        "--agents",
        "20",
        "--csv",
        s(&d.join("ok.csv")),
        "--paths",
        s(&d.join("p.csv")),
        "--trace",
        s(&d.join("t.trace")),
        "--plots",
        s(&d.join("plots")),
        "--json",
        s(&long),
    ]);
    assert_refused(&o, &["--json"]);
    assert_eq!(listing(d), Vec::<String>::new(), "files written or left");
}

#[test]
fn an_output_that_is_an_input_or_another_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Named as shipped: the .scen file names its map.
    let map = d.join("maze-32-32-2.map");
    let scen = d.join("maze-32-32-2-random-5.scen");
    std::fs::copy(shipped("mapf/maze-32-32-2.map"), &map).unwrap();
    std::fs::copy(shipped("mapf/maze-32-32-2-random-5.scen"), &scen).unwrap();
    let scen_text = std::fs::read(&scen).unwrap();
    let map_text = std::fs::read(&map).unwrap();
    // The same file by another name (`./`, `..`).
    let other_name = d.join("sub/../maze-32-32-2-random-5.scen");
    std::fs::create_dir(d.join("sub")).unwrap();
    let o = throng(&[
        "mapf",
        s(&map),
        s(&scen),
        "--agents",
        "5",
        "--out",
        s(&other_name),
    ]);
    assert_refused(&o, &["--out", "the .scen file", "random-5.scen"]);
    let o = throng(&["mapf", s(&map), s(&scen), "--agents", "5", "--out", s(&map)]);
    assert_refused(&o, &["--out", "the map"]);
    let o = throng(&["nav", s(&map), "--out", s(&map)]);
    assert_refused(&o, &["--out", "the map"]);
    // run: the map, the scenario file and its .scen file.
    let o = throng(&["run", "--map", s(&map), "--agents", "5", "--json", s(&map)]);
    assert_refused(&o, &["--json", "the map"]);
    let scenario = d.join("s.toml");
    std::fs::write(
        &scenario,
        "name = \"s\"\nseed = 1\nticks = 5\nagents = 5\n[map]\nfile = \"maze-32-32-2.map\"\n\
         [placement]\nkind = \"scen\"\nfile = \"maze-32-32-2-random-5.scen\"\n[sim]\n",
    )
    .unwrap();
    let scenario_text = std::fs::read(&scenario).unwrap();
    for (flag, file, what) in [
        ("--csv", &scen, "the .scen file"),
        ("--trace", &scenario, "the scenario file"),
        ("--json", &map, "the map"),
    ] {
        let o = throng(&["run", s(&scenario), flag, s(file)]);
        assert_refused(&o, &[flag, what]);
    }
    // Two outputs on one file.
    let same = d.join("same.out");
    let o = throng(&["run", s(&scenario), "--json", s(&same), "--csv", s(&same)]);
    assert_refused(&o, &["--csv", "also the --json file"]);
    assert!(!same.exists());
    // lorr: the problem and the files it names.
    let problem = lorr_problem(d);
    for input in ["tiny.json", "tiny.map", "tiny.agents", "tiny.tasks"] {
        let o = throng(&[
            "lorr",
            s(&problem),
            "--steps",
            "5",
            "--out",
            s(&d.join(input)),
        ]);
        assert_refused(&o, &["--out", input]);
    }
    assert_eq!(std::fs::read(&scen).unwrap(), scen_text);
    assert_eq!(std::fs::read(&map).unwrap(), map_text);
    assert_eq!(std::fs::read(&scenario).unwrap(), scenario_text);
    assert_eq!(
        std::fs::read_to_string(d.join("tiny.agents")).unwrap(),
        "2\n0\n5\n"
    );
}

#[test]
fn outputs_replace_older_files_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let map = shipped("mapf/maze-32-32-2.map");
    let scen = shipped("mapf/maze-32-32-2-random-5.scen");
    let plan = d.join("plan.txt");
    std::fs::write(&plan, "older").unwrap();
    let o = throng(&[
        "mapf",
        s(&map),
        s(&scen),
        "--agents",
        "5",
        "--out",
        s(&plan),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(std::fs::read_to_string(&plan).unwrap().contains("solved=1"));
    let problem = lorr_problem(d);
    let out = d.join("lorr-out.json");
    std::fs::write(&out, "older").unwrap();
    let o = throng(&["lorr", s(&problem), "--steps", "5", "--out", s(&out)]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(std::fs::read_to_string(&out).unwrap().starts_with('{'));
    let plots = d.join("plots");
    let o = throng(&[
        "run",
        "--generate",
        "random:32x32",
        "--agents",
        "20",
        "--ticks",
        "5",
        "-q",
        "--plots",
        s(&plots),
        "--render",
        s(&d.join("r.png")),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(listing(&plots).contains(&"plans.svg".to_string()));
    // No temporary file is left anywhere.
    for folder in [d, plots.as_path()] {
        let partial: Vec<String> = listing(folder)
            .into_iter()
            .filter(|n| n.ends_with(".partial"))
            .collect();
        assert!(partial.is_empty(), "{partial:?}");
    }
}

#[test]
fn ctrl_c_removes_unfinished_outputs_and_keeps_older_files() {
    if !cfg!(unix) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let older = ["r.gif", "t.trace", "x.csv"];
    for name in older {
        std::fs::write(d.join(name), format!("older {name}")).unwrap();
    }
    // A lifelong run of many ticks: far longer than the wait for its files below.
    let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args([
            "run",
            "--generate",
            "random:128x128",
            "--agents",
            "500",
            "--set",
            "lifelong=true",
            "--ticks",
            "100000000",
            "-q",
        ])
        .args(["--paths", s(&d.join("x.csv"))])
        .args(["--json", s(&d.join("o.json"))])
        .args(["--trace", s(&d.join("t.trace"))])
        .args(["--render", s(&d.join("r.gif"))])
        .args(["--heatmap", s(&d.join("h.png"))])
        .args(["--plots", s(&d.join("plots"))])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Every output reserved (its temporary file made), and the run under way: the --paths
    // file has rows.
    let started = Instant::now();
    let paths_partial = d.join(format!(".x.csv.{}.partial", child.id()));
    loop {
        let partial = listing(d)
            .iter()
            .filter(|n| n.ends_with(".partial"))
            .count();
        let rows = std::fs::metadata(&paths_partial).map_or(0, |m| m.len());
        if partial == 5 && rows > 100 {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it was interrupted"
        );
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    let mut want: Vec<String> = older.iter().map(ToString::to_string).collect();
    want.sort();
    assert_eq!(
        listing(d),
        want,
        "partial files left, or a folder made for --plots"
    );
    for name in older {
        assert_eq!(
            std::fs::read_to_string(d.join(name)).unwrap(),
            format!("older {name}"),
            "{name} was replaced"
        );
    }
}

/// `gen` replaces no existing map or `.scen` file without `--force` (a hand-written map is
/// kept), and never leaves a `.scen` of an older map beside the new one.
#[test]
fn gen_replaces_nothing_without_force_and_leaves_no_stale_scen() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("mine.map");
    let scen = dir.path().join("mine.map.scen");
    let hand = "type octile\nheight 1\nwidth 2\nmap\n..\n";
    std::fs::write(&map, hand).unwrap();
    let gen_args = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "gen",
            "maze",
            "--width",
            "9",
            "--height",
            "9",
            "--out",
            s(&map),
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        v.extend(extra.iter().map(ToString::to_string));
        v
    };
    let run = |extra: &[&str]| {
        let args = gen_args(extra);
        throng(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    assert_one_line_error(
        &run(&[]),
        &format!(
            "--out {}: the file exists; gen does not replace it (give --force to)",
            s(&map)
        ),
    );
    assert_eq!(
        std::fs::read_to_string(&map).unwrap(),
        hand,
        "kept as written"
    );
    assert!(!scen.exists());
    // --force replaces it, and writes its queries; a maze is one area, said in the singular.
    let o = run(&["--force", "--queries", "5"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains(", 1 component)"),
        "{}",
        text(&o.stdout)
    );
    assert_ne!(std::fs::read_to_string(&map).unwrap(), hand);
    assert!(scen.is_file());
    // A new map without queries would leave the old .scen beside it: refused, or removed.
    std::fs::remove_file(&map).unwrap();
    let o = run(&["--queries", "0"]);
    assert_one_line_error(
        &o,
        "mine.map.scen exists; it would be left beside a new map",
    );
    assert!(!map.exists() && scen.exists());
    let o = run(&["--queries", "0", "--force"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        map.is_file() && !scen.exists(),
        "the stale .scen is removed"
    );
}
