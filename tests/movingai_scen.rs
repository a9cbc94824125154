//! Every query of every shipped Moving AI scenario file is solved optimally with a legal path.

mod common;

use common::shipped;
use throng::movingai::{ScenFile, load_map};
use throng::scen_run::{ScenRunOptions, run_scen};

#[test]
fn all_shipped_scenarios_are_solved_optimally() {
    let mut total = 0;
    for name in [
        "arena.map.scen",
        "den520d.map.scen",
        "random512-10-0.map.scen",
        "8room_000.map.scen",
        "mapf/random-32-32-10-random-1.scen",
    ] {
        let scen = ScenFile::load(shipped(name)).unwrap();
        let grid = load_map(scen.map_path().unwrap()).unwrap();
        let report = run_scen(&grid, &scen, &ScenRunOptions::default()).unwrap();
        assert_eq!(report.queries, scen.queries.len());
        assert!(report.all_optimal(), "{name}: {:#?}", report.failures);
        assert_eq!(report.illegal + report.mismatched + report.unreachable, 0);
        assert!((report.max_len_ratio - 1.0).abs() < 1e-6);
        total += report.queries;
    }
    assert_eq!(total, 130 + 870 + 1780 + 2140 + 461);
}
