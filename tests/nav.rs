//! Navigation points: every path legal and continuous, lengths close to optimal on the shipped
//! Moving AI maps, save/load round trip and refusals, repair after map changes equal to a fresh
//! build, and a build that does not depend on the number of threads.

mod common;

use common::{TestRng, random_grid, reference_cost, shipped};
use throng::grid::CellChange;
use throng::grid::{CellId, Grid, Neighborhood};
use throng::movingai::{ScenFile, load_map};
use throng::nav::{NavFileError, NavGraph, NavOptions, NavWorkspace};
use throng::search::SearchOutcome;

const SCENS: [&str; 4] = [
    "random512-10-0.map.scen",
    "8room_000.map.scen",
    "den520d.map.scen",
    "arena.map.scen",
];

/// Checks one answer: right ends, legal, reported cost equal to the path's. Returns the cost.
fn check(grid: &Grid, path: &[CellId], start: CellId, goal: CellId, outcome: SearchOutcome) -> f64 {
    assert_eq!(path.first(), Some(&start));
    assert_eq!(path.last(), Some(&goal));
    let mut seen = std::collections::HashSet::new();
    for &c in path {
        assert!(
            seen.insert(c),
            "{:?} visited twice on the way {:?} -> {:?}",
            grid.coords(c),
            grid.coords(start),
            grid.coords(goal)
        );
    }
    let cost = grid.path_cost(path).unwrap_or_else(|e| {
        panic!(
            "illegal path {:?} -> {:?}: {e}",
            grid.coords(start),
            grid.coords(goal)
        )
    });
    let reported = outcome.cost().expect("found");
    assert!((cost - reported).abs() <= 1e-9 * cost.max(1.0));
    cost
}

/// Every query of every shipped scenario file gets a legal, continuous path, and the lengths
/// meet the targets: mean length / optimal at most 1.02, max at most 1.10.
#[test]
fn shipped_scenarios_get_legal_near_optimal_paths() {
    for name in SCENS {
        let scen = ScenFile::load(shipped(name)).unwrap();
        let grid = load_map(scen.map_path().unwrap()).unwrap();
        let nav = NavGraph::build(&grid, &NavOptions::default()).unwrap();
        let mut ws = NavWorkspace::new();
        let (mut sum, mut max, mut n) = (0.0f64, 0.0f64, 0usize);
        for (q, (s, g)) in scen.queries.iter().zip(scen.resolve(&grid).unwrap()) {
            let outcome = nav.find_path(&grid, &mut ws, s, g).unwrap();
            let cost = check(&grid, ws.path(), s, g, outcome);
            assert!(
                cost >= q.optimal * (1.0 - 1e-6),
                "{name}:{}: shorter than optimal",
                q.line
            );
            if q.optimal > 0.0 {
                sum += cost / q.optimal;
                max = max.max(cost / q.optimal);
                n += 1;
            }
        }
        let mean = sum / n as f64;
        assert!(mean <= 1.02, "{name}: mean length ratio {mean}");
        assert!(max <= 1.10, "{name}: max length ratio {max}");
    }
}

/// Random maps of every kind (weighted, 4-connected, many cluster sizes): legal paths, and
/// exactly the reachable queries found.
#[test]
fn random_maps_get_legal_paths() {
    let mut rng = TestRng::new(7);
    for round in 0..24 {
        let weighted = round % 3 == 1;
        let neighborhood = if round % 4 == 3 {
            Neighborhood::Four
        } else {
            Neighborhood::Eight
        };
        let (w, h) = (20 + rng.below(60) as u32, 20 + rng.below(60) as u32);
        let density = 0.1 + 0.25 * rng.unit();
        let grid = random_grid(&mut rng, w, h, density, weighted, neighborhood);
        let size = 4 + rng.below(9) as u32;
        let nav = NavGraph::build(&grid, &NavOptions { cluster_size: size }).unwrap();
        let mut ws = NavWorkspace::new();
        let walkable: Vec<CellId> = (0..grid.len() as CellId)
            .filter(|&c| grid.is_walkable(c))
            .collect();
        for _ in 0..40 {
            let s = walkable[rng.below(walkable.len() as u64) as usize];
            let g = walkable[rng.below(walkable.len() as u64) as usize];
            let outcome = nav.find_path(&grid, &mut ws, s, g).unwrap();
            match reference_cost(&grid, s, g) {
                Some(optimal) => {
                    let cost = check(&grid, ws.path(), s, g, outcome);
                    assert!(cost >= optimal - 1e-9);
                }
                None => {
                    assert_eq!(outcome, SearchOutcome::Unreachable);
                    assert!(ws.path().is_empty());
                }
            }
        }
    }
}

#[test]
fn invalid_queries_are_errors() {
    let grid = Grid::from_ascii("....\n.#..\n....").unwrap();
    let nav = NavGraph::build(&grid, &NavOptions { cluster_size: 4 }).unwrap();
    let mut ws = NavWorkspace::new();
    assert!(nav.find_path(&grid, &mut ws, 0, 5).is_err());
    assert!(nav.find_path(&grid, &mut ws, 99, 0).is_err());
    assert!(NavGraph::build(&grid, &NavOptions { cluster_size: 3 }).is_err());
}

fn answers(grid: &Grid, nav: &NavGraph, queries: &[(CellId, CellId)]) -> Vec<Vec<CellId>> {
    let mut ws = NavWorkspace::new();
    queries
        .iter()
        .map(|&(s, g)| {
            nav.find_path(grid, &mut ws, s, g).unwrap();
            ws.path().to_vec()
        })
        .collect()
}

#[test]
fn save_and_load_round_trip_and_refusals() {
    let scen = ScenFile::load(shipped("den520d.map.scen")).unwrap();
    let grid = load_map(scen.map_path().unwrap()).unwrap();
    let queries = scen.resolve(&grid).unwrap();
    let nav = NavGraph::build(&grid, &NavOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("den520d.nav");
    nav.save(&file).unwrap();
    let loaded = NavGraph::load(&file, &grid).unwrap();
    assert_eq!(loaded, nav);
    assert_eq!(
        answers(&grid, &loaded, &queries),
        answers(&grid, &nav, &queries)
    );

    // Another map: same size, one wall more.
    let mut other = grid.clone();
    let cell = (0..grid.len() as CellId)
        .find(|&c| grid.is_walkable(c))
        .unwrap();
    other
        .apply(&[CellChange::SetWalkable {
            cell,
            walkable: false,
        }])
        .unwrap();
    let err = NavGraph::load(&file, &other).unwrap_err();
    assert!(matches!(err, NavFileError::WrongMap { .. }), "{err}");
    assert!(err.to_string().contains("another map"), "{err}");
    // Another size.
    let small = Grid::new(10, 10).unwrap();
    assert!(matches!(
        NavGraph::load(&file, &small),
        Err(NavFileError::WrongMap { .. })
    ));

    // Another format version (a little-endian u32 after the 8-byte magic).
    let mut bytes = std::fs::read(&file).unwrap();
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    bytes[8..12].copy_from_slice(&(version + 1).to_le_bytes());
    let err = NavGraph::from_bytes(&bytes, &grid, &file).unwrap_err();
    assert!(
        matches!(err, NavFileError::Version { found, .. } if found == version + 1),
        "{err}"
    );
    assert!(err.to_string().contains("version"), "{err}");

    // Not a navigation file, damaged, truncated, missing.
    let err = NavGraph::from_bytes(b"version 1\n", &grid, &file).unwrap_err();
    assert!(matches!(err, NavFileError::NotNavFile { .. }));
    let mut bytes = nav.to_bytes();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    assert!(matches!(
        NavGraph::from_bytes(&bytes, &grid, &file),
        Err(NavFileError::Corrupt { .. })
    ));
    let bytes = nav.to_bytes();
    for cut in [10, 30, bytes.len() - 3] {
        assert!(NavGraph::from_bytes(&bytes[..cut], &grid, &file).is_err());
    }
    let missing = NavGraph::load(dir.path().join("missing.nav"), &grid).unwrap_err();
    assert!(matches!(missing, NavFileError::Io { .. }));
    // Through the crate's error type.
    let err: throng::error::Error = missing.into();
    assert!(err.to_string().contains("missing.nav"));
}

/// After walls appear and disappear, the repaired graph equals a fresh build, and its answers
/// are legal on the new map.
#[test]
fn repair_after_map_changes_equals_rebuild() {
    let scen = ScenFile::load(shipped("den520d.map.scen")).unwrap();
    let mut grid = load_map(scen.map_path().unwrap()).unwrap();
    let queries = scen.resolve(&grid).unwrap();
    let options = NavOptions::default();
    let mut nav = NavGraph::build(&grid, &options).unwrap();
    let mut rng = TestRng::new(3);
    for round in 0..6 {
        // A wall segment and a few scattered cells, some opened, some closed.
        let mut changes = Vec::new();
        let (x0, y0) = (
            rng.below(u64::from(grid.width() - 40)) as u32,
            rng.below(u64::from(grid.height())) as u32,
        );
        for x in x0..x0 + 30 {
            let cell = grid.cell(x, y0).unwrap();
            changes.push(CellChange::SetWalkable {
                cell,
                walkable: round % 2 == 1,
            });
        }
        for _ in 0..20 {
            let cell = rng.below(grid.len() as u64) as CellId;
            changes.push(CellChange::SetWalkable {
                cell,
                walkable: rng.below(2) == 0,
            });
        }
        // Keep the scenario's endpoints walkable so every query stays valid.
        changes.retain(|c| match c {
            CellChange::SetWalkable { cell, .. } => {
                !queries.iter().any(|&(s, g)| s == *cell || g == *cell)
            }
            CellChange::SetCost { .. } => true,
        });
        grid.apply(&changes).unwrap();
        assert!(!nav.matches(&grid));
        let cells: Vec<CellId> = changes
            .iter()
            .map(|c| match *c {
                CellChange::SetWalkable { cell, .. } | CellChange::SetCost { cell, .. } => cell,
            })
            .collect();
        let rebuilt = nav.apply_changes(&grid, &cells).unwrap();
        assert!(rebuilt > 0 && rebuilt < nav.cluster_count());
        assert!(nav.matches(&grid));
        let fresh = NavGraph::build(&grid, &options).unwrap();
        assert!(
            nav == fresh,
            "round {round}: repaired graph differs from a fresh build"
        );
        let mut ws = NavWorkspace::new();
        for &(s, g) in queries.iter().step_by(7) {
            let outcome = nav.find_path(&grid, &mut ws, s, g).unwrap();
            if grid.connected(s, g) {
                check(&grid, ws.path(), s, g, outcome);
            } else {
                assert_eq!(outcome, SearchOutcome::Unreachable);
            }
        }
    }
}

/// Edits that turn an open map into scattered obstacles, and back, change whether the graph
/// answers every query directly, as a fresh build of the edited map decides.
#[test]
fn changes_revisit_the_direct_search_decision() {
    let mut grid = Grid::new(200, 200).unwrap();
    let options = NavOptions::default();
    let mut nav = NavGraph::build(&grid, &options).unwrap();
    assert!(nav.searches_directly(), "an open map is searched directly");
    let mut rng = 7u64;
    let cells: Vec<CellId> = (0..grid.len() as CellId)
        .filter(|_| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng.is_multiple_of(10)
        })
        .collect();
    for walkable in [false, true] {
        let edits: Vec<CellChange> = cells
            .iter()
            .map(|&cell| CellChange::SetWalkable { cell, walkable })
            .collect();
        grid.apply(&edits).unwrap();
        nav.apply_changes(&grid, &cells).unwrap();
        assert_eq!(nav.searches_directly(), walkable, "walls {}", !walkable);
        let fresh = NavGraph::build(&grid, &options).unwrap();
        assert!(
            nav == fresh,
            "walls {}: repaired graph differs from a fresh build",
            !walkable
        );
        let mut ws = NavWorkspace::new();
        let (s, g) = (grid.cell(1, 1).unwrap(), grid.cell(198, 190).unwrap());
        if grid.connected(s, g) {
            let outcome = nav.find_path(&grid, &mut ws, s, g).unwrap();
            check(&grid, ws.path(), s, g, outcome);
        }
    }
}

/// A query crossing a new wall sees it right after the repair.
#[test]
fn queries_after_a_change_see_the_new_map() {
    let mut grid = Grid::new(64, 64).unwrap();
    let options = NavOptions { cluster_size: 8 };
    let mut nav = NavGraph::build(&grid, &options).unwrap();
    let (s, g) = (grid.cell(2, 32).unwrap(), grid.cell(61, 32).unwrap());
    let mut ws = NavWorkspace::new();
    let before = nav.find_path(&grid, &mut ws, s, g).unwrap().cost().unwrap();
    assert!((before - 59.0).abs() < 1e-9);
    // A wall across the map at x = 30 with one gap at the top.
    let wall: Vec<CellChange> = (1..64)
        .map(|y| CellChange::SetWalkable {
            cell: grid.cell(30, y).unwrap(),
            walkable: false,
        })
        .collect();
    grid.apply(&wall).unwrap();
    let cells: Vec<CellId> = (1..64).map(|y| grid.cell(30, y).unwrap()).collect();
    nav.apply_changes(&grid, &cells).unwrap();
    let outcome = nav.find_path(&grid, &mut ws, s, g).unwrap();
    let cost = check(&grid, ws.path(), s, g, outcome);
    assert!(ws.path().contains(&grid.cell(30, 0).unwrap()));
    assert!(cost > before + 25.0, "{cost}");
}

#[test]
fn build_does_not_depend_on_thread_count() {
    let scen = ScenFile::load(shipped("random512-10-0.map.scen")).unwrap();
    let grid = load_map(scen.map_path().unwrap()).unwrap();
    let options = NavOptions::default();
    let build = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| NavGraph::build(&grid, &options).unwrap())
    };
    let one = build(1);
    assert!(one == build(2));
    assert!(one == build(4));
    assert_eq!(one.to_bytes(), build(3).to_bytes());
}

/// A simulation with the `nav` (and `auto`) planner: every agent reaches its goal, a wall
/// added mid-run is seen by the plans made after it, and 1 and 2 threads give the same run.
#[test]
fn simulation_plans_with_navigation_points() {
    use throng::grid::procgen::MapGenerator;
    use throng::planner::PlannerKind;
    use throng::sim::{ConflictMode, SimConfig, Simulation};

    let grid = MapGenerator::Rooms {
        width: 96,
        height: 96,
        room: 10,
        door: 3,
    }
    .generate(5)
    .unwrap();
    let walkable: Vec<CellId> = (0..grid.len() as CellId)
        .filter(|&c| grid.is_walkable(c))
        .collect();
    let play = |planner, threads| {
        let config = SimConfig {
            planner,
            conflicts: ConflictMode::Off,
            ..SimConfig::default()
        };
        let mut sim = Simulation::new(grid.clone(), config).unwrap();
        let mut rng = TestRng::new(11);
        for _ in 0..60 {
            let s = walkable[rng.below(walkable.len() as u64) as usize];
            let g = walkable[rng.below(walkable.len() as u64) as usize];
            if sim.grid().connected(s, g) {
                sim.add_agent(s, Some(g)).unwrap();
            }
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            for tick in 0..600 {
                if tick == 3 {
                    // Close a door-sized stretch somewhere no agent stands.
                    let changes: Vec<CellChange> = walkable
                        .iter()
                        .copied()
                        .filter(|&c| {
                            sim.agents()
                                .iter()
                                .all(|(_, a)| a.position() != c && a.goal() != Some(c))
                        })
                        .skip(500)
                        .step_by(97)
                        .take(20)
                        .map(|cell| CellChange::SetWalkable {
                            cell,
                            walkable: false,
                        })
                        .collect();
                    sim.change_map(&changes).unwrap();
                }
                sim.step();
                for (_, a) in sim.agents().iter() {
                    assert!(sim.grid().is_walkable(a.position()));
                }
            }
        });
        (sim.summary(), sim.state_hash())
    };
    for planner in [PlannerKind::Nav, PlannerKind::Auto] {
        let (one, hash_one) = play(planner, 1);
        let (two, hash_two) = play(planner, 2);
        assert_eq!(
            hash_one, hash_two,
            "{planner}: thread count changed the run"
        );
        assert_eq!(one.arrived, two.arrived);
        assert!(one.arrived >= 55, "{planner}: {} arrived", one.arrived);
    }
}
