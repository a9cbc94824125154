//! Every query of every shipped Moving AI scenario file is solved optimally with a legal path,
//! by every optimal planner.

mod common;

use common::shipped;
use throng::PlannerKind;
use throng::movingai::{ScenFile, load_map};
use throng::scen_run::{ScenRunOptions, run_scen};

/// Runs every shipped scenario with `planner`; returns the mean expansions per file.
fn solve_all_optimally(planner: PlannerKind) -> Vec<f64> {
    let mut total = 0;
    let mut expanded = Vec::new();
    for name in [
        "arena.map.scen",
        "den520d.map.scen",
        "random512-10-0.map.scen",
        "8room_000.map.scen",
        "AR0011SR.map.scen",
        "Berlin_1_256.map.scen",
        "mapf/random-32-32-10-random-1.scen",
    ] {
        let scen = ScenFile::load(shipped(name)).unwrap();
        let grid = load_map(scen.map_path().unwrap()).unwrap();
        let options = ScenRunOptions {
            planner,
            ..ScenRunOptions::default()
        };
        let report = run_scen(&grid, &scen, &options).unwrap();
        assert_eq!(report.planner, planner.name());
        assert_eq!(report.queries, scen.queries.len());
        assert!(
            report.all_optimal(),
            "{planner} {name}: {:#?}",
            report.failures
        );
        assert_eq!(report.illegal + report.mismatched + report.unreachable, 0);
        assert!(
            (report.max_len_ratio.unwrap() - 1.0).abs() <= scen.tolerance,
            "{name}"
        );
        total += report.queries;
        expanded.push(report.mean_expanded);
    }
    assert_eq!(total, 130 + 870 + 1780 + 2140 + 1280 + 910 + 461);
    expanded
}

#[test]
fn all_shipped_scenarios_are_solved_optimally() {
    solve_all_optimally(PlannerKind::AStar);
}

#[test]
fn all_shipped_scenarios_are_solved_optimally_by_jps() {
    let jps = solve_all_optimally(PlannerKind::Jps);
    // JPS's expansions are jump points: far fewer than A*'s cells on every map.
    let astar = solve_all_optimally(PlannerKind::AStar);
    for (j, a) in jps.iter().zip(&astar) {
        assert!(j * 2.0 < *a, "JPS {j} vs A* {a} expansions per query");
    }
}

#[test]
fn shipped_scenarios_are_solved_optimally_by_dstar() {
    // D* Lite first plans cost more than A*: a subset keeps the test quick (the CLI checks the
    // rest: `throng scen --planner dstar`).
    for name in [
        "arena.map.scen",
        "den520d.map.scen",
        "mapf/random-32-32-10-random-1.scen",
    ] {
        let scen = ScenFile::load(shipped(name)).unwrap();
        let grid = load_map(scen.map_path().unwrap()).unwrap();
        let options = ScenRunOptions {
            planner: PlannerKind::DStar,
            ..ScenRunOptions::default()
        };
        let report = run_scen(&grid, &scen, &options).unwrap();
        assert_eq!(report.planner, "dstar");
        assert_eq!(report.queries, scen.queries.len());
        assert!(report.all_optimal(), "dstar {name}: {:#?}", report.failures);
        assert!(report.mean_expanded > 0.0);
    }
}
