//! Every query of every shipped Moving AI scenario file is solved optimally with a legal path,
//! by every optimal planner, judged by `throng scen` (which checks each path on the grid and
//! compares its cost with the file's optimal length).

mod common;

use common::cli::ok;
use common::shipped;
use serde_json::Value;
use throng::movingai::ScenFile;

/// The shipped files every optimal planner solves.
const ALL: [&str; 7] = [
    "arena.map.scen",
    "den520d.map.scen",
    "random512-10-0.map.scen",
    "8room_000.map.scen",
    "AR0011SR.map.scen",
    "Berlin_1_256.map.scen",
    "mapf/random-32-32-10-random-1.scen",
];

/// Runs `throng scen --json --planner PLANNER` on `names`, checks that every query of each file
/// was answered optimally, and returns the mean expansions per file.
fn solve_optimally(planner: &str, names: &[&str]) -> Vec<f64> {
    let files: Vec<String> = names
        .iter()
        .map(|n| shipped(n).to_str().unwrap().to_string())
        .collect();
    let mut args = vec!["scen", "--json", "--planner", planner];
    args.extend(files.iter().map(String::as_str));
    let out = ok(&args);
    let reports: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reports.len(), names.len(), "{out}");
    let mut expanded = Vec::new();
    for (name, report) in names.iter().zip(&reports) {
        let scen = ScenFile::load(shipped(name)).unwrap();
        assert_eq!(report["planner"], planner);
        assert_eq!(report["queries"], scen.queries.len(), "{name}");
        assert_eq!(
            report["optimal"], report["queries"],
            "{planner} {name}: {report}"
        );
        for count in ["illegal", "mismatched", "unreachable", "invalid", "failed"] {
            assert_eq!(report[count], 0, "{planner} {name}: {count}");
        }
        let ratio = report["max_len_ratio"].as_f64().unwrap();
        assert!((ratio - 1.0).abs() <= scen.tolerance, "{name}: {ratio}");
        expanded.push(report["mean_expanded"].as_f64().unwrap());
    }
    expanded
}

#[test]
fn all_shipped_scenarios_are_solved_optimally() {
    let total: usize = ALL
        .iter()
        .map(|n| ScenFile::load(shipped(n)).unwrap().queries.len())
        .sum();
    assert_eq!(total, 130 + 870 + 1780 + 2140 + 1280 + 910 + 461);
    solve_optimally("astar", &ALL);
}

#[test]
fn all_shipped_scenarios_are_solved_optimally_by_jps() {
    let jps = solve_optimally("jps", &ALL);
    // JPS's expansions are jump points: far fewer than A*'s cells on every map.
    let astar = solve_optimally("astar", &ALL);
    for (j, a) in jps.iter().zip(&astar) {
        assert!(j * 2.0 < *a, "JPS {j} vs A* {a} expansions per query");
    }
}

#[test]
fn shipped_scenarios_are_solved_optimally_by_dstar() {
    // D* Lite first plans cost more than A*: a subset keeps the test quick (`throng scen
    // --planner dstar` with no file checks the rest).
    let expanded = solve_optimally(
        "dstar",
        &[
            "arena.map.scen",
            "den520d.map.scen",
            "mapf/random-32-32-10-random-1.scen",
        ],
    );
    assert!(expanded.iter().all(|&e| e > 0.0));
}
