//! Jump Point Search against the plain reference Dijkstra: random maps of every shape from 1 x 1
//! to 60 x 60 and every obstacle density up to 0.45, maps wider than a block of the bit scans
//! (up to 300 cells, edited between queries), mazes and rooms, the Moving AI samples;
//! full legal cell-by-cell paths whose cost is the reported one; the node budget counting
//! expanded jump points; the same errors as A*; A*'s answers on weighted and 4-connected grids.

mod common;

use common::{TestRng, random_grid, reference_cost, same_cost, shipped};
use throng::grid::procgen::MapGenerator;
use throng::grid::{CellId, Grid, Neighborhood};
use throng::movingai::within_tolerance;
use throng::movingai::{ScenFile, load_map};
use throng::search::{QueryError, SearchOptions, SearchOutcome, SearchWorkspace};

/// JPS, checked against JPS+ on the same query: the same outcome, path and counters (the two
/// differ only in where a jump's length comes from, a scan or the grid's jump table), except
/// on maps with runs longer than a table entry holds.
fn jps(ws: &mut SearchWorkspace, grid: &Grid, start: CellId, goal: CellId) -> SearchOutcome {
    let options = SearchOptions::default();
    let plus = ws
        .find_path_jps_plus(grid, start, goal, &options)
        .expect("valid query");
    let (plus_path, plus_stats) = (ws.path().to_vec(), ws.stats());
    let outcome = ws
        .find_path_jps(grid, start, goal, &options)
        .expect("valid query");
    let (s, g) = (grid.coords(start), grid.coords(goal));
    if grid.width().max(grid.height()) <= 32_767 {
        assert_eq!(plus, outcome, "{s:?}->{g:?}: JPS+ and JPS differ");
        assert_eq!(
            plus_path,
            ws.path(),
            "{s:?}->{g:?}: JPS+ and JPS paths differ"
        );
        assert_eq!(
            plus_stats,
            ws.stats(),
            "{s:?}->{g:?}: JPS+ and JPS counters differ"
        );
    } else {
        // Longer runs are cut by extra stops in the table: JPS+ may push a few more jump
        // points and break a tie otherwise, for the same optimal cost along a legal path.
        assert_eq!(
            plus.cost(),
            outcome.cost(),
            "{s:?}->{g:?}: JPS+ and JPS costs differ"
        );
        if let Some(cost) = plus.cost() {
            assert_eq!(grid.path_cost(&plus_path).unwrap(), cost, "{s:?}->{g:?}");
        }
    }
    outcome
}

/// Checks one valid query against the reference; returns whether a path was found.
fn check_query(grid: &Grid, ws: &mut SearchWorkspace, start: CellId, goal: CellId) -> bool {
    let outcome = jps(ws, grid, start, goal);
    match (reference_cost(grid, start, goal), outcome) {
        (None, SearchOutcome::Unreachable) => {
            assert!(ws.path().is_empty());
            false
        }
        (Some(want), SearchOutcome::Found { cost }) => {
            let (s, g) = (grid.coords(start), grid.coords(goal));
            assert!(
                same_cost(want, cost),
                "{s:?}->{g:?}: JPS cost {cost}, reference {want} on {grid:?}\n{}",
                render(grid, ws.path())
            );
            let path = ws.path();
            assert_eq!(path.first(), Some(&start));
            assert_eq!(path.last(), Some(&goal));
            let legal = grid
                .path_cost(path)
                .unwrap_or_else(|e| panic!("{s:?}->{g:?}: illegal path: {e}"));
            // The reported cost is the sum along the returned path, as A* reports it.
            assert_eq!(legal, cost, "{s:?}->{g:?}");
            true
        }
        (want, got) => panic!("{start}->{goal}: reference {want:?}, JPS {got:?} on {grid:?}"),
    }
}

/// The map with the path drawn on it, for failure messages.
fn render(grid: &Grid, path: &[CellId]) -> String {
    let mut out = String::new();
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            let c = grid.cell(x, y).unwrap();
            out.push(if path.first() == Some(&c) {
                'S'
            } else if path.last() == Some(&c) {
                'G'
            } else if path.contains(&c) {
                '*'
            } else if grid.is_walkable(c) {
                '.'
            } else {
                '#'
            });
        }
        out.push('\n');
    }
    out
}

#[test]
fn random_maps_match_reference_dijkstra() {
    let mut rng = TestRng::new(2011);
    let mut ws = SearchWorkspace::new();
    let (mut found, mut unreachable) = (0, 0);
    const DENSITIES: [f64; 8] = [0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.38, 0.45];
    for map in 0..480 {
        // Every fifth map is a single row or column; the rest from 1 x 1 to 60 x 60.
        let (width, height) = match map % 10 {
            0 => (1, 1 + rng.below(60) as u32),
            5 => (1 + rng.below(60) as u32, 1),
            _ => (1 + rng.below(60) as u32, 1 + rng.below(60) as u32),
        };
        let density = DENSITIES[map % DENSITIES.len()];
        let grid = random_grid(&mut rng, width, height, density, false, Neighborhood::Eight);
        for _ in 0..20 {
            let start = rng.below(grid.len() as u64) as CellId;
            let goal = rng.below(grid.len() as u64) as CellId;
            if !grid.is_walkable(start) || !grid.is_walkable(goal) {
                continue;
            }
            if check_query(&grid, &mut ws, start, goal) {
                found += 1;
            } else {
                unreachable += 1;
            }
        }
    }
    assert!(found > 5000, "{found} found");
    assert!(unreachable > 300, "{unreachable} unreachable");
}

/// Maps wider and taller than one block of the bit scans (56 cells per load, 64-bit words):
/// scans that cross loads, start or stop next to a word boundary, and run along the padding
/// at the edges; single rows and columns up to 300 cells; open rooms with long diagonals.
#[test]
fn maps_wider_than_a_scan_block_match_reference_dijkstra() {
    let mut rng = TestRng::new(2014);
    let mut ws = SearchWorkspace::new();
    let mut found = 0;
    const DENSITIES: [f64; 6] = [0.0, 0.02, 0.08, 0.15, 0.25, 0.35];
    for map in 0..72 {
        let (width, height) = match map % 12 {
            0 => (1, 57 + rng.below(244) as u32),
            6 => (57 + rng.below(244) as u32, 1),
            _ => (50 + rng.below(151) as u32, 2 + rng.below(80) as u32),
        };
        let density = DENSITIES[map % DENSITIES.len()];
        let grid = random_grid(&mut rng, width, height, density, false, Neighborhood::Eight);
        for _ in 0..25 {
            let start = rng.below(grid.len() as u64) as CellId;
            let goal = rng.below(grid.len() as u64) as CellId;
            if grid.is_walkable(start) && grid.is_walkable(goal) {
                found += usize::from(check_query(&grid, &mut ws, start, goal));
            }
        }
    }
    assert!(found > 900, "{found} found");
}

/// Runs longer than a jump table entry holds (32,767 cells): JPS+ cuts them with extra stops,
/// JPS scans them whole; both must find the optimal paths end to end, also after edits (the
/// table is repaired along the long lines).
#[test]
fn runs_longer_than_a_table_entry() {
    use throng::grid::CellChange;
    let mut rng = TestRng::new(32_768);
    for (width, height) in [(40_000, 3), (3, 40_000), (33_000, 5)] {
        let mut grid = random_grid(&mut rng, width, height, 0.0, false, Neighborhood::Eight);
        let mut ws = SearchWorkspace::new();
        let far = |x: u32, y: u32| grid_cell(width, x, y);
        let mut found = 0;
        for round in 0..6 {
            let queries = [
                (far(0, 0), far(width - 1, height - 1)),
                (far(width - 1, height / 2), far(0, height / 2)),
                (
                    rng.below(u64::from(width) * u64::from(height)) as CellId,
                    far(width / 2, height - 1),
                ),
            ];
            for (start, goal) in queries {
                if grid.is_walkable(start) && grid.is_walkable(goal) {
                    found += usize::from(check_query(&grid, &mut ws, start, goal));
                }
            }
            // Walls on and off at random, then the next round searches the edited map.
            let changes: Vec<_> = (0..3 + round)
                .map(|_| CellChange::SetWalkable {
                    cell: rng.below(grid.len() as u64) as CellId,
                    walkable: rng.below(3) == 0,
                })
                .collect();
            grid.apply(&changes).unwrap();
        }
        assert!(found >= 6, "{width} x {height}: {found} found");
    }
    // A wall in the third column far down: the goal is not in sight from the start, and the
    // jump point beside the wall is 35,000 cells down the second column, past a cut in the
    // table (JPS+ pushes the cut cell on the way).
    let mut walls = vec![true; 3 * 40_000];
    walls[3 * 35_000 + 2] = false;
    walls[3 + 1] = false;
    let grid = Grid::from_walkable(3, 40_000, walls).unwrap();
    let mut ws = SearchWorkspace::new();
    for (start, goal) in [
        (0, 3 * 39_999 + 2),
        (2, 3 * 39_999 + 2),
        (3 * 39_999 + 1, 0),
    ] {
        assert!(check_query(&grid, &mut ws, start, goal));
    }
}

fn grid_cell(width: u32, x: u32, y: u32) -> CellId {
    y * width + x
}

/// Walls appearing and disappearing on a map wider than a scan block, between queries: the
/// bits and stop bits the scans read follow every edit.
#[test]
fn edits_on_wide_maps_are_searched_as_edited() {
    use throng::grid::CellChange;
    let mut rng = TestRng::new(57);
    let mut grid = random_grid(&mut rng, 130, 70, 0.1, false, Neighborhood::Eight);
    let mut ws = SearchWorkspace::new();
    for _ in 0..40 {
        let changes: Vec<_> = (0..60)
            .map(|_| CellChange::SetWalkable {
                cell: rng.below(grid.len() as u64) as CellId,
                walkable: rng.below(3) != 0,
            })
            .collect();
        grid.apply(&changes).unwrap();
        for _ in 0..8 {
            let start = rng.below(grid.len() as u64) as CellId;
            let goal = rng.below(grid.len() as u64) as CellId;
            if grid.is_walkable(start) && grid.is_walkable(goal) {
                check_query(&grid, &mut ws, start, goal);
            }
        }
    }
}

/// Small dense maps, every pair of cells: the corners where forced-neighbour rules go wrong
/// (pillars next to the start, goals beside walls, dead ends) all show up.
#[test]
fn small_maps_all_pairs() {
    let mut rng = TestRng::new(12);
    let mut ws = SearchWorkspace::new();
    let mut found = 0;
    for map in 0..60 {
        let (width, height) = (2 + rng.below(7) as u32, 2 + rng.below(7) as u32);
        let density = [0.15, 0.25, 0.35][map % 3];
        let grid = random_grid(&mut rng, width, height, density, false, Neighborhood::Eight);
        for start in 0..grid.len() as CellId {
            for goal in 0..grid.len() as CellId {
                if grid.is_walkable(start) && grid.is_walkable(goal) {
                    found += usize::from(check_query(&grid, &mut ws, start, goal));
                }
            }
        }
    }
    assert!(found > 20_000, "{found}");
}

#[test]
fn procedural_maps_match_reference_dijkstra() {
    let mut rng = TestRng::new(8);
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
        MapGenerator::Rooms {
            width: 64,
            height: 64,
            room: 5,
            door: 1,
        },
        MapGenerator::Random {
            width: 80,
            height: 60,
            density: 0.3,
        },
    ];
    let mut found = 0;
    for (i, generator) in generators.iter().enumerate() {
        for seed in 0..3 {
            let grid = generator.generate(10 * i as u64 + seed).unwrap();
            for _ in 0..40 {
                let start = rng.below(grid.len() as u64) as CellId;
                let goal = rng.below(grid.len() as u64) as CellId;
                if grid.is_walkable(start) && grid.is_walkable(goal) {
                    found += usize::from(check_query(&grid, &mut ws, start, goal));
                }
            }
        }
    }
    assert!(found > 200, "{found}");
}

/// JPS and A* share one workspace (stamps, costs, open list): interleaving them changes no
/// answer, and JPS expands far fewer nodes on an open map.
#[test]
fn interleaved_with_astar_on_one_workspace() {
    let scen = ScenFile::load(shipped("arena.map.scen")).unwrap();
    let grid = load_map(scen.map_path().unwrap()).unwrap();
    let cells = scen.resolve(&grid).unwrap();
    let mut ws = SearchWorkspace::new();
    let (mut astar_expanded, mut jps_expanded) = (0, 0);
    for (query, &(start, goal)) in scen.queries.iter().zip(&cells) {
        let a = ws.find_path(&grid, start, goal).unwrap();
        astar_expanded += ws.stats().expanded;
        let j = jps(&mut ws, &grid, start, goal);
        jps_expanded += ws.stats().expanded;
        assert!(same_cost(a.cost().unwrap(), j.cost().unwrap()));
        assert!(within_tolerance(
            j.cost().unwrap(),
            query.optimal,
            scen.tolerance
        ));
        assert_eq!(grid.path_cost(ws.path()).unwrap(), j.cost().unwrap());
    }
    assert!(
        jps_expanded * 5 < astar_expanded,
        "JPS {jps_expanded}, A* {astar_expanded}"
    );
}

/// The Moving AI lengths, the reference and JPS agree on samples of every shipped file (every
/// query of every file is checked in `movingai_scen.rs`).
#[test]
fn movingai_samples_match_reference_and_scen_lengths() {
    let mut ws = SearchWorkspace::new();
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
        let cells = scen.resolve(&grid).unwrap();
        let step = (cells.len() / 12).max(1);
        for (query, &(start, goal)) in scen.queries.iter().zip(&cells).step_by(step) {
            let want = reference_cost(&grid, start, goal).expect("scen queries are reachable");
            assert!(
                within_tolerance(want, query.optimal, scen.tolerance),
                "{name}: {want} vs {}",
                query.optimal
            );
            assert!(check_query(&grid, &mut ws, start, goal) || start == goal);
        }
    }
}

#[test]
fn node_budget_counts_expanded_jump_points() {
    let mut rng = TestRng::new(99);
    let mut ws = SearchWorkspace::new();
    let mut checked = 0;
    for _ in 0..60 {
        let grid = random_grid(&mut rng, 40, 40, 0.2, false, Neighborhood::Eight);
        let start = rng.below(1600) as CellId;
        let goal = rng.below(1600) as CellId;
        let Ok(SearchOutcome::Found { cost }) =
            ws.find_path_jps(&grid, start, goal, &SearchOptions::default())
        else {
            continue;
        };
        let expanded = ws.stats().expanded;
        let path = ws.path().to_vec();
        // Exactly the expansions it needed: the same answer.
        let exact = ws.find_path_jps(&grid, start, goal, &SearchOptions::with_budget(expanded));
        assert_eq!(exact, Ok(SearchOutcome::Found { cost }));
        assert_eq!(ws.path(), path);
        assert_eq!(ws.stats().expanded, expanded);
        if expanded > 0 {
            let short = ws.find_path_jps(
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
    assert!(checked > 30, "{checked}");
    // A zero budget still answers a query whose start is its goal.
    let grid = Grid::new(5, 5).unwrap();
    assert_eq!(
        ws.find_path_jps(&grid, 7, 7, &SearchOptions::with_budget(0)),
        Ok(SearchOutcome::Found { cost: 0.0 })
    );
    assert_eq!(ws.path(), &[7]);
}

#[test]
fn invalid_and_unreachable_queries() {
    let grid = Grid::from_ascii(
        "..#..\n\
         ..#..\n\
         ..#..",
    )
    .unwrap();
    let mut ws = SearchWorkspace::new();
    let opts = SearchOptions::default();
    assert_eq!(
        ws.find_path_jps(&grid, 0, 15, &opts),
        Err(QueryError::CellOutOfBounds {
            cell: 15,
            cells: 15
        })
    );
    assert_eq!(
        ws.find_path_jps(&grid, u32::MAX, 0, &opts),
        Err(QueryError::CellOutOfBounds {
            cell: u32::MAX,
            cells: 15
        })
    );
    assert_eq!(
        ws.find_path_jps(&grid, 2, 0, &opts),
        Err(QueryError::StartBlocked { x: 2, y: 0 })
    );
    assert_eq!(
        ws.find_path_jps(&grid, 0, 7, &opts),
        Err(QueryError::GoalBlocked { x: 2, y: 1 })
    );
    // Across the wall: answered from the components, without expanding anything.
    assert_eq!(
        ws.find_path_jps(&grid, 0, 14, &opts),
        Ok(SearchOutcome::Unreachable)
    );
    assert_eq!(ws.stats().expanded, 0);
    assert!(ws.path().is_empty());
    assert_eq!(
        ws.find_path_jps(&grid, 5, 5, &opts),
        Ok(SearchOutcome::Found { cost: 0.0 })
    );
    assert_eq!(ws.path(), &[5]);
}

/// On weighted and 4-connected grids JPS's pruning is not valid; `find_path_jps` answers with
/// A*: same outcome, same path, same counters.
#[test]
fn weighted_and_four_connected_grids_fall_back_to_astar() {
    let mut rng = TestRng::new(5);
    let mut ws = SearchWorkspace::new();
    let mut found = 0;
    for map in 0..60 {
        let weighted = map % 2 == 0;
        let neighborhood = if map % 3 == 0 || !weighted {
            Neighborhood::Four
        } else {
            Neighborhood::Eight
        };
        let (w, h) = (1 + rng.below(30) as u32, 1 + rng.below(30) as u32);
        let grid = random_grid(&mut rng, w, h, 0.2, weighted, neighborhood);
        for _ in 0..15 {
            let start = rng.below(grid.len() as u64) as CellId;
            let goal = rng.below(grid.len() as u64) as CellId;
            let budget = SearchOptions::with_budget(rng.below(40));
            for opts in [SearchOptions::default(), budget] {
                let a = ws.find_path_with(&grid, start, goal, &opts);
                let (a_path, a_stats) = (ws.path().to_vec(), ws.stats());
                let j = ws.find_path_jps(&grid, start, goal, &opts);
                assert_eq!(a, j);
                assert_eq!(ws.path(), a_path);
                assert_eq!(ws.stats(), a_stats);
            }
            if grid.is_walkable(start) && grid.is_walkable(goal) {
                found += usize::from(check_query(&grid, &mut ws, start, goal));
            }
        }
    }
    assert!(found > 200, "{found}");
}

/// Edits between queries (walls appearing and disappearing) are seen by the next query.
#[test]
fn edited_grid_is_searched_as_edited() {
    use throng::grid::CellChange;
    let mut rng = TestRng::new(31);
    let mut grid = random_grid(&mut rng, 48, 32, 0.15, false, Neighborhood::Eight);
    let mut ws = SearchWorkspace::new();
    for _ in 0..40 {
        let changes: Vec<_> = (0..30)
            .map(|_| CellChange::SetWalkable {
                cell: rng.below(grid.len() as u64) as CellId,
                walkable: rng.below(3) != 0,
            })
            .collect();
        grid.apply(&changes).unwrap();
        for _ in 0..10 {
            let start = rng.below(grid.len() as u64) as CellId;
            let goal = rng.below(grid.len() as u64) as CellId;
            if grid.is_walkable(start) && grid.is_walkable(goal) {
                check_query(&grid, &mut ws, start, goal);
            }
        }
    }
}
