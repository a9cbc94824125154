//! A* against a plain reference Dijkstra on many random maps (weighted and not, 4- and
//! 8-connected), on procedural maps, and on samples of the Moving AI scenarios: same cost,
//! legal paths, same reachability, and the node budget behaving exactly as documented.

mod common;

use common::{TestRng, random_grid, reference_cost, same_cost, shipped};
use throng::grid::procgen::MapGenerator;
use throng::grid::{CellId, Grid, Neighborhood};
use throng::movingai::{ScenFile, load_map};
use throng::search::{QueryError, SearchOptions, SearchOutcome, SearchWorkspace};

/// Checks one query against the reference; returns whether a path was found.
fn check_query(grid: &Grid, ws: &mut SearchWorkspace, start: CellId, goal: CellId) -> bool {
    let result = ws.find_path(grid, start, goal);
    if !grid.is_walkable(start) {
        assert!(
            matches!(result, Err(QueryError::StartBlocked { .. })),
            "{result:?}"
        );
        return false;
    }
    if !grid.is_walkable(goal) {
        assert!(
            matches!(result, Err(QueryError::GoalBlocked { .. })),
            "{result:?}"
        );
        return false;
    }
    let outcome = result.expect("valid query");
    match (reference_cost(grid, start, goal), outcome) {
        (None, SearchOutcome::Unreachable) => {
            assert!(ws.path().is_empty());
            false
        }
        (Some(want), SearchOutcome::Found { cost }) => {
            assert!(
                same_cost(want, cost),
                "{start}->{goal}: A* cost {cost}, reference {want} on {grid:?}"
            );
            let path = ws.path();
            assert_eq!(path.first(), Some(&start));
            assert_eq!(path.last(), Some(&goal));
            let legal = grid
                .path_cost(path)
                .unwrap_or_else(|e| panic!("{start}->{goal}: illegal path: {e}"));
            assert!(
                same_cost(legal, cost),
                "path costs {legal}, reported {cost}"
            );
            true
        }
        (want, got) => panic!("{start}->{goal}: reference {want:?}, A* {got:?} on {grid:?}"),
    }
}

#[test]
fn random_maps_match_reference_dijkstra() {
    let mut rng = TestRng::new(2026);
    let mut ws = SearchWorkspace::new();
    let (mut found, mut unreachable) = (0, 0);
    for map in 0..240 {
        // Sizes from 1 (single rows and columns) to 40.
        let width = 1 + rng.below(40) as u32;
        let height = 1 + rng.below(40) as u32;
        let density = [0.0, 0.1, 0.25, 0.4][map % 4];
        let weighted = map % 3 == 0;
        let neighborhood = if map % 2 == 0 {
            Neighborhood::Eight
        } else {
            Neighborhood::Four
        };
        let grid = random_grid(&mut rng, width, height, density, weighted, neighborhood);
        for _ in 0..25 {
            let start = rng.below(grid.len() as u64) as CellId;
            let goal = rng.below(grid.len() as u64) as CellId;
            if check_query(&grid, &mut ws, start, goal) {
                found += 1;
            } else if grid.is_walkable(start) && grid.is_walkable(goal) {
                unreachable += 1;
            }
        }
    }
    // The mix must really exercise both outcomes.
    assert!(found > 2500, "{found} found");
    assert!(unreachable > 100, "{unreachable} unreachable");
}

#[test]
fn procedural_maps_match_reference_dijkstra() {
    let mut rng = TestRng::new(7);
    let mut ws = SearchWorkspace::new();
    let generators = [
        MapGenerator::Maze {
            width: 61,
            height: 41,
            corridor: 1,
        },
        MapGenerator::Maze {
            width: 64,
            height: 64,
            corridor: 3,
        },
        MapGenerator::Rooms {
            width: 70,
            height: 50,
            room: 9,
            door: 2,
        },
        MapGenerator::Random {
            width: 80,
            height: 60,
            density: 0.3,
        },
    ];
    for (i, generator) in generators.iter().enumerate() {
        let grid = generator.generate(i as u64).unwrap();
        for _ in 0..40 {
            let start = rng.below(grid.len() as u64) as CellId;
            let goal = rng.below(grid.len() as u64) as CellId;
            check_query(&grid, &mut ws, start, goal);
        }
    }
}

/// The Moving AI optimal lengths, the reference and A* all agree: this pins our movement rules
/// to the benchmark's (a wrong corner rule would show up here even if A* matched Dijkstra).
#[test]
fn movingai_samples_match_reference_and_scen_lengths() {
    let mut ws = SearchWorkspace::new();
    for name in [
        "arena.map.scen",
        "den520d.map.scen",
        "random512-10-0.map.scen",
        "8room_000.map.scen",
        "mapf/random-32-32-10-random-1.scen",
    ] {
        let scen = ScenFile::load(shipped(name)).unwrap();
        let grid = load_map(scen.map_path().unwrap()).unwrap();
        let cells = scen.resolve(&grid).unwrap();
        let step = (cells.len() / 12).max(1);
        for (query, &(start, goal)) in scen.queries.iter().zip(&cells).step_by(step) {
            let want = reference_cost(&grid, start, goal).expect("scen queries are reachable");
            assert!(
                (want - query.optimal).abs() <= 1e-6 * want.max(1.0),
                "{name}:{}: reference {want}, file {}",
                query.line,
                query.optimal
            );
            assert!(check_query(&grid, &mut ws, start, goal) || start == goal);
        }
    }
}

#[test]
fn node_budget_is_exact() {
    let mut rng = TestRng::new(99);
    let mut ws = SearchWorkspace::new();
    let mut checked = 0;
    for _ in 0..40 {
        let grid = random_grid(&mut rng, 30, 30, 0.2, false, Neighborhood::Eight);
        let start = rng.below(900) as CellId;
        let goal = rng.below(900) as CellId;
        let Ok(SearchOutcome::Found { cost }) = ws.find_path(&grid, start, goal) else {
            continue;
        };
        let expanded = ws.stats().expanded;
        // Exactly the expansions it needed: same answer.
        let exact = ws.find_path_with(&grid, start, goal, &SearchOptions::with_budget(expanded));
        assert_eq!(exact, Ok(SearchOutcome::Found { cost }));
        if expanded > 0 {
            let short = ws.find_path_with(
                &grid,
                start,
                goal,
                &SearchOptions::with_budget(expanded - 1),
            );
            assert_eq!(short, Ok(SearchOutcome::BudgetExhausted));
            assert_eq!(ws.stats().expanded, expanded - 1);
            assert!(ws.path().is_empty());
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked}");
}

#[test]
fn unreachable_goal_is_answered_without_search() {
    // Two halves split by a wall: components answer before any expansion.
    let grid = Grid::from_ascii(
        "....#....\n\
         ....#....\n\
         ....#....",
    )
    .unwrap();
    let mut ws = SearchWorkspace::new();
    let outcome = ws
        .find_path(&grid, grid.cell(0, 0).unwrap(), grid.cell(8, 2).unwrap())
        .unwrap();
    assert_eq!(outcome, SearchOutcome::Unreachable);
    assert_eq!(ws.stats().expanded, 0);
}

#[test]
fn invalid_queries_are_typed_errors() {
    let grid = Grid::from_ascii("..#\n...").unwrap();
    let mut ws = SearchWorkspace::new();
    // A rejected query leaves no counters or path of the query before it.
    assert!(ws.find_path(&grid, 0, 5).unwrap().is_found());
    assert!(ws.stats().expanded > 0 && !ws.path().is_empty());
    assert!(ws.find_path(&grid, 0, 2).is_err());
    assert_eq!(ws.stats().expanded, 0);
    assert!(ws.path().is_empty());
    assert!(ws.find_path(&grid, 0, 5).unwrap().is_found());
    assert!(
        ws.find_path_jps(&grid, 0, 2, &throng::search::SearchOptions::default())
            .is_err()
    );
    assert_eq!((ws.stats().expanded, ws.path().len()), (0, 0));
    assert!(matches!(
        ws.find_path(&grid, 0, 6),
        Err(QueryError::CellOutOfBounds { cell: 6, .. })
    ));
    assert!(matches!(
        ws.find_path(&grid, 2, 0),
        Err(QueryError::StartBlocked { x: 2, y: 0 })
    ));
    assert!(matches!(
        ws.find_path(&grid, 0, 2),
        Err(QueryError::GoalBlocked { x: 2, y: 0 })
    ));
    assert_eq!(
        ws.find_path(&grid, 4, 4),
        Ok(SearchOutcome::Found { cost: 0.0 })
    );
    assert_eq!(ws.path(), &[4]);
    assert!(matches!(
        grid.cell_checked(3, 0),
        Err(QueryError::OutOfBounds { x: 3, y: 0, .. })
    ));
}

/// Costs below 1 must scale the heuristic down, or A* would return a longer path; this map makes
/// the cheap detour the optimal route.
#[test]
fn cheap_terrain_keeps_paths_optimal() {
    let grid = Grid::from_ascii(
        ".......\n\
         .......\n\
         .......",
    )
    .unwrap();
    let mut costs = vec![3.0f32; grid.len()];
    for x in 0..7 {
        costs[grid.cell(x, 2).unwrap() as usize] = 0.25; // a road along the bottom row
    }
    let grid = grid.with_costs(costs).unwrap();
    let mut ws = SearchWorkspace::new();
    let (start, goal) = (grid.cell(0, 0).unwrap(), grid.cell(6, 0).unwrap());
    let outcome = ws.find_path(&grid, start, goal).unwrap();
    let want = reference_cost(&grid, start, goal).unwrap();
    assert!(same_cost(outcome.cost().unwrap(), want));
    assert!(
        want < 6.0 * 3.0,
        "the road is cheaper than the straight line"
    );
    assert!(
        ws.path().iter().any(|&c| grid.coords(c).1 == 2),
        "the path uses the road"
    );
}

/// Large maps load and search: 4096 x 4096 (16.7 M cells).
#[test]
fn maps_of_4096_squared_search() {
    let grid = MapGenerator::Random {
        width: 4096,
        height: 4096,
        density: 0.2,
    }
    .generate(5)
    .unwrap();
    let mut ws = SearchWorkspace::for_grid(&grid);
    let largest = grid.components().largest().unwrap();
    let pick = |from: Box<dyn Iterator<Item = CellId>>| {
        from.into_iter()
            .find(|&c| grid.components().of(c) == Some(largest))
            .unwrap()
    };
    let start = pick(Box::new(0..grid.len() as CellId));
    let goal = pick(Box::new((0..grid.len() as CellId).rev()));
    let outcome = ws.find_path(&grid, start, goal).unwrap();
    let cost = outcome.cost().expect("same component");
    assert!(cost >= grid.heuristic(start, goal));
    assert!(same_cost(grid.path_cost(ws.path()).unwrap(), cost));
}
