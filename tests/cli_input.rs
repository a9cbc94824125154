//! `throng` on mistaken command lines: numbers out of range (negative ones included) and
//! other usage errors in one line, `gen` refusing the flags of another kind of map and leaving
//! no file behind when it fails, no length ratio claimed for unanswered queries, and help that
//! fits a terminal.

mod common;

use common::cli::{assert_one_line_error, stderr, throng};
use common::shipped;

/// Every numeric flag of every subcommand, given a negative number, says in one line which flag
/// and its real lower bound; none is taken for an unknown flag. Every check comes before any
/// file is read, so the files named need not exist.
#[test]
fn negative_numbers_are_range_errors_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--ticks", "-1"], "--ticks -1: must be at least 1"),
        (
            &["run", "--threads", "-1"],
            "--threads -1: must be at least 0",
        ),
        (&["run", "--seed", "-1"], "--seed -1: must be at least 0"),
        (
            &["run", "--render", "x.gif", "--render-every", "-1"],
            "--render-every -1: must be at least 1",
        ),
        (
            &["run", "--render-size", "-1"],
            "--render-size -1: must be at least 16",
        ),
        (
            &["scen", "x.scen", "--budget", "-1"],
            "--budget -1: must be at least 1",
        ),
        (
            &["scen", "x.scen", "--cluster", "-1"],
            "--cluster -1: must be at least 4",
        ),
        (
            &["mapf", "m", "s", "--agents", "-1"],
            "--agents -1: must be at least 1",
        ),
        (
            &["mapf", "m", "s", "--agents", "1", "--time-limit", "-1"],
            "--time-limit -1: must be a positive number of seconds",
        ),
        (
            &["mapf", "m", "s", "--agents", "1", "--seed", "-1"],
            "--seed -1: must be at least 0",
        ),
        (
            &["lorr", "p", "--steps", "-1"],
            "--steps -1: must be at least 1",
        ),
        (
            &["lorr", "p", "--seed", "-1"],
            "--seed -1: must be at least 0",
        ),
        (
            &["nav", "m", "-o", "x", "--cluster", "-1"],
            "--cluster -1: must be at least 4",
        ),
        (
            &["gen", "random", "-o", "x", "--width", "-1"],
            "--width -1: must be at least 1",
        ),
        (
            &["gen", "random", "-o", "x", "--height", "-1"],
            "--height -1: must be at least 1",
        ),
        (
            &["gen", "random", "-o", "x", "--seed", "-1"],
            "--seed -1: must be at least 0",
        ),
        (
            &["gen", "random", "-o", "x", "--density", "-0.5"],
            "--density -0.5: must be a number from 0 to below 1",
        ),
        (
            &["gen", "rooms", "-o", "x", "--room", "-1"],
            "--room -1: must be at least 1",
        ),
        (
            &["gen", "rooms", "-o", "x", "--door", "-1"],
            "--door -1: must be at least 1",
        ),
        (
            &["gen", "maze", "-o", "x", "--corridor", "-1"],
            "--corridor -1: must be at least 1",
        ),
        (
            &["gen", "maze", "-o", "x", "--queries", "-1"],
            "--queries -1: must be at least 0",
        ),
        (
            &["view", "t", "--port", "-1"],
            "--port -1: must be at least 0",
        ),
    ];
    for (args, want) in cases {
        assert_one_line_error(&throng(args), want);
    }
}

/// The bound given is the one the command needs: a navigation cluster is at least 4 cells,
/// whether 0 or 2 is asked for; a port at most 65535; a step count at most a million.
#[test]
fn range_errors_give_the_real_bound() {
    let scen = shipped("arena.map.scen").display().to_string();
    let map = shipped("arena.map").display().to_string();
    for n in ["0", "2"] {
        let o = throng(&["scen", &scen, "--planner", "nav", "--cluster", n]);
        assert_one_line_error(&o, &format!("--cluster {n}: must be at least 4"));
        let o = throng(&["nav", &map, "-o", "x.nav", "--cluster", n]);
        assert_one_line_error(&o, &format!("--cluster {n}: must be at least 4"));
    }
    assert_one_line_error(
        &throng(&["view", "t", "--port", "65536"]),
        "--port 65536: must be at most 65535",
    );
    assert_one_line_error(
        &throng(&["lorr", "p", "--steps", "1000001"]),
        "--steps 1000001: must be at most 1000000",
    );
    assert_one_line_error(
        &throng(&["run", "--ticks", "many"]),
        "--ticks many: must be a whole number",
    );
}

/// Clap's other usage errors are one line too, keeping their tip.
#[test]
fn usage_errors_are_one_line() {
    assert_one_line_error(
        &throng(&["run", "--tick", "5"]),
        "unexpected argument '--tick' found (a similar argument exists: '--ticks')",
    );
    let o = throng(&["mapf"]);
    assert_one_line_error(&o, "--agents <N>");
    assert!(stderr(&o).contains("<MAP>") && stderr(&o).contains("<SCEN>"));
    assert_one_line_error(
        &throng(&["gen", "hills", "-o", "x"]),
        "invalid value 'hills' for '<KIND>' [possible values: random, rooms, maze]",
    );
    // A negative number given to an option that takes a word is that option's bad value, not an
    // unknown flag with a tip to write `-- -4`.
    assert_one_line_error(
        &throng(&["mapf", "m", "s", "--agents", "1", "--neighbourhood", "-4"]),
        "--neighbourhood -4: unknown neighbourhood",
    );
    assert_one_line_error(
        &throng(&["run", "--compare-conflicts", "-1"]),
        "--compare-conflicts -1: unknown conflict mode",
    );
    // Help is still help: status 0, on stdout.
    let o = throng(&["run", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Usage: throng run"));
}

/// `gen` refuses a flag that does not shape the kind of map asked for, naming flag and kind,
/// and writes nothing.
#[test]
fn gen_refuses_flags_of_another_kind_of_map() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.map");
    let o = out.to_str().unwrap();
    let cases: &[(&str, &str, &str)] = &[
        ("maze", "--room", "5"),
        ("maze", "--door", "1"),
        ("maze", "--density", "0.9"),
        ("random", "--corridor", "7"),
        ("random", "--room", "7"),
        ("rooms", "--density", "0.5"),
        ("rooms", "--corridor", "3"),
    ];
    for &(kind, flag, value) in cases {
        let args = [
            "gen", kind, "-o", o, "--width", "16", "--height", "16", flag, value,
        ];
        let applies = match flag {
            "--density" => "random",
            "--corridor" => "maze",
            _ => "rooms",
        };
        assert_one_line_error(
            &throng(&args),
            &format!("{flag} applies to {applies} maps only, not {kind} maps"),
        );
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    }
    // The flags of the kind asked for are taken, and change the map.
    let text = |args: &[&str]| {
        let mut all = vec![
            "gen",
            "-o",
            o,
            "--width",
            "24",
            "--height",
            "24",
            "--queries",
            "0",
            "--force",
        ];
        all.extend_from_slice(args);
        let r = throng(&all);
        assert!(r.status.success(), "{args:?}: {}", stderr(&r));
        std::fs::read_to_string(&out).unwrap()
    };
    assert_ne!(text(&["maze"]), text(&["maze", "--corridor", "1"]));
    assert_ne!(
        text(&["rooms"]),
        text(&["rooms", "--room", "5", "--door", "1"])
    );
    assert_ne!(text(&["random"]), text(&["random", "--density", "0.5"]));
    assert_one_line_error(
        &throng(&["gen", "rooms", "-o", o, "--room", "3", "--door", "4"]),
        "--door 4: must be at most the room size (3)",
    );
}

/// A `gen` that fails leaves neither the map nor its `.scen` behind: a density of 1 is refused
/// before anything is made, a map with no walkable cell (so no query) fails before anything is
/// written, and a `.scen` path that cannot be written stops the run before the map is written.
#[test]
fn a_failed_gen_leaves_no_file_behind() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.map");
    let scen = dir.path().join("r.map.scen");
    let o = out.to_str().unwrap();
    let nothing_written = || {
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    };
    let args = ["gen", "random", "-o", o, "--width", "8", "--height", "8"];
    assert_one_line_error(
        &throng(&[&args[..], &["--density", "1.0"]].concat()),
        "--density 1.0: must be a number from 0 to below 1",
    );
    nothing_written();
    // 2 x 2 cells blocked with probability 0.9999 each: no walkable cell, so no query.
    assert_one_line_error(
        &throng(&[
            "gen",
            "random",
            "-o",
            o,
            "--width",
            "2",
            "--height",
            "2",
            "--density",
            "0.9999",
        ]),
        "no walkable cell",
    );
    nothing_written();
    // The .scen path is a folder: refused before the map is written.
    std::fs::create_dir(&scen).unwrap();
    assert_one_line_error(&throng(&args), "r.map.scen: is a directory");
    assert!(
        !out.exists(),
        "the map was written although its .scen could not be"
    );
    // With no queries asked for, the .scen path is not needed.
    let r = throng(&[&args[..], &["--queries", "0"]].concat());
    assert!(r.status.success(), "{}", stderr(&r));
    assert!(out.is_file());
}

/// `scen --budget 1` answers no query of two steps or more: the report claims no length
/// ratio, in text or JSON, and counts every query over budget (a failure: status 1).
#[test]
fn no_length_ratio_is_claimed_for_queries_not_answered() {
    // arena's queries but its one shorter than two steps (answered within one expansion).
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(shipped("arena.map"), dir.path().join("arena.map")).unwrap();
    let all = std::fs::read_to_string(shipped("arena.map.scen")).unwrap();
    let kept: Vec<&str> = all
        .lines()
        .filter(|l| {
            l.split('\t')
                .nth(8)
                .is_none_or(|len| len.parse::<f64>().unwrap() >= 2.0)
        })
        .collect();
    assert_eq!(kept.len(), 130, "the header and 129 queries");
    let scen = dir.path().join("arena.map.scen");
    std::fs::write(&scen, kept.join("\n") + "\n").unwrap();
    let scen = scen.display().to_string();
    let o = throng(&["scen", &scen, "--budget", "1", "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["budget_exhausted"], 129);
    assert_eq!(v["optimal"], 0);
    assert!(v["mean_len_ratio"].is_null(), "{}", v["mean_len_ratio"]);
    assert!(v["max_len_ratio"].is_null(), "{}", v["max_len_ratio"]);
    let o = throng(&["scen", &scen, "--budget", "1"]);
    let text = String::from_utf8_lossy(&o.stdout);
    let length = text.lines().find(|l| l.starts_with("length")).unwrap();
    assert!(!length.contains("1.0000"), "{length}");
    assert!(length.contains("no ratio"), "{length}");
    // 129 failures: 20 listed, and the rest counted rather than dropped.
    assert_eq!(v["failed"], 129);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("  line ")).count(),
        20
    );
    assert!(text.contains("... and 109 more failing queries"), "{text}");
    // A budget of 0 would answer nothing, and is refused as `node_budget = 0` is.
    assert_one_line_error(
        &throng(&["scen", &scen, "--budget", "0"]),
        "--budget 0: must be at least 1",
    );
    let o = throng(&["scen", &scen, "--budget", "200", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let stopped = v["budget_exhausted"].as_u64().unwrap();
    assert!(stopped > 0 && stopped < 129, "{v}");
    assert!((v["max_len_ratio"].as_f64().unwrap() - 1.0).abs() < 1e-6);
    let o = throng(&["scen", &scen, "--budget", "200"]);
    let text = String::from_utf8_lossy(&o.stdout);
    let answered = 129 - stopped;
    assert!(
        text.contains(&format!("over the {answered} queries answered")),
        "{text}"
    );
}

/// `throng --help` and every subcommand's `-h` and `--help` fit 80 columns (paragraphs are
/// wrapped, not one line each), and the top-level list gives one short line per subcommand.
#[test]
fn help_fits_80_columns() {
    let commands = ["run", "scen", "mapf", "lorr", "nav", "gen", "view"];
    for args in std::iter::once(vec!["--help"]).chain(
        commands
            .iter()
            .flat_map(|c| [vec![*c, "-h"], vec![*c, "--help"]]),
    ) {
        let o = throng(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        let text = String::from_utf8(o.stdout).unwrap();
        for line in text.lines() {
            assert!(
                line.chars().count() <= 80,
                "{args:?}: {} columns: {line}",
                line.chars().count()
            );
        }
    }
    let top = String::from_utf8(throng(&["--help"]).stdout).unwrap();
    for c in commands {
        let line = top
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{c} ")))
            .unwrap_or_else(|| panic!("{c} missing from {top}"));
        assert!(line.len() < 80, "{line}");
    }
    // What gen's help says matches what it accepts: each kind's own flags.
    let gen_help = String::from_utf8(throng(&["gen", "--help"]).stdout).unwrap();
    for said in ["random maps only", "rooms maps only", "maze maps only"] {
        assert!(gen_help.contains(said), "{said}: {gen_help}");
    }
}
