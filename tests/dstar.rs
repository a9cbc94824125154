//! D* Lite against the reference Dijkstra and A*: after many rounds of random map changes near
//! the agent's path, with the agent moving along it, every path must be legal and as cheap as
//! a fresh search on the current map.

mod common;

use common::{TestRng, random_grid, reference_cost, same_cost, shipped};
use throng::dstar::DStarLite;
use throng::grid::CellChange;
use throng::grid::{CellId, Grid, Neighborhood};
use throng::movingai::load_map;
use throng::search::{QueryError, SearchOutcome, SearchWorkspace};

/// Plans from `start` and checks the answer against the reference and a fresh A*.
fn check(grid: &Grid, agent: &mut DStarLite, ws: &mut SearchWorkspace, start: CellId, what: &str) {
    let goal = agent.goal();
    let outcome = agent.plan(grid, start).expect("valid query");
    let reference = reference_cost(grid, start, goal);
    let astar = ws.find_path(grid, start, goal).expect("valid query");
    assert_eq!(astar.cost().is_some(), reference.is_some(), "{what}");
    match (outcome, reference) {
        (SearchOutcome::Found { cost }, Some(best)) => {
            let path = agent.path();
            assert_eq!(path.first(), Some(&start), "{what}");
            assert_eq!(path.last(), Some(&goal), "{what}");
            let legal = grid
                .path_cost(path)
                .unwrap_or_else(|e| panic!("{what}: illegal path: {e}"));
            assert!(
                same_cost(legal, cost),
                "{what}: path costs {legal}, reported {cost}"
            );
            assert!(
                same_cost(cost, best),
                "{what}: D* Lite {cost}, reference {best}"
            );
            assert!(same_cost(cost, astar.cost().unwrap()), "{what}: A* differs");
        }
        (SearchOutcome::Unreachable, None) => assert!(agent.path().is_empty(), "{what}"),
        (got, want) => panic!("{what}: D* Lite {got:?}, reference {want:?}"),
    }
}

fn random_walkable(rng: &mut TestRng, grid: &Grid) -> CellId {
    loop {
        let c = rng.below(grid.len() as u64) as CellId;
        if grid.is_walkable(c) {
            return c;
        }
    }
}

/// Random changes in the 5 x 5 block around `centre`, never blocking `keep`.
fn changes_near(
    rng: &mut TestRng,
    grid: &Grid,
    centre: CellId,
    keep: &[CellId],
    weighted: bool,
) -> Vec<CellChange> {
    let (cx, cy) = grid.coords(centre);
    let mut out = Vec::new();
    for _ in 0..1 + rng.below(4) {
        let x = i64::from(cx) + rng.below(5) as i64 - 2;
        let y = i64::from(cy) + rng.below(5) as i64 - 2;
        let Some(cell) = u32::try_from(x)
            .ok()
            .zip(u32::try_from(y).ok())
            .and_then(|(x, y)| grid.cell(x, y))
        else {
            continue;
        };
        if weighted && rng.below(3) == 0 {
            const COSTS: [f32; 4] = [0.5, 1.0, 2.0, 7.25];
            let cost = COSTS[rng.below(4) as usize];
            out.push(CellChange::SetCost { cell, cost });
        } else {
            let walkable = !grid.is_walkable(cell);
            if !walkable && keep.contains(&cell) {
                continue;
            }
            out.push(CellChange::SetWalkable { cell, walkable });
        }
    }
    out
}

/// One random map: many rounds of changes near the path ahead, the agent moving between them.
fn random_run(seed: u64, neighborhood: Neighborhood, weighted: bool) {
    let mut rng = TestRng::new(seed);
    let (w, h) = (2 + rng.below(40) as u32, 2 + rng.below(40) as u32);
    let density = 0.05 + 0.25 * rng.unit();
    let mut grid = random_grid(&mut rng, w, h, density, weighted, neighborhood);
    if grid.walkable_count() < 2 {
        return;
    }
    let mut ws = SearchWorkspace::for_grid(&grid);
    let mut start = random_walkable(&mut rng, &grid);
    let goal = random_walkable(&mut rng, &grid);
    let mut agent = DStarLite::new(goal);
    let what = |round: usize| {
        format!("seed {seed} {w}x{h} {neighborhood:?} weighted {weighted} round {round}")
    };
    check(&grid, &mut agent, &mut ws, start, &what(0));
    for round in 1..=40 {
        // Changes near a cell of the current path ahead (or anywhere when there is none).
        let path = agent.path().to_vec();
        let centre = if path.len() > 1 {
            path[1 + rng.below(path.len() as u64 - 1) as usize]
        } else {
            rng.below(grid.len() as u64) as CellId
        };
        let changes = changes_near(&mut rng, &grid, centre, &[start, goal], weighted);
        grid.apply(&changes).unwrap();
        let cells: Vec<CellId> = changes
            .iter()
            .map(|c| match *c {
                CellChange::SetWalkable { cell, .. } | CellChange::SetCost { cell, .. } => cell,
            })
            .collect();
        agent.notify_changes(&grid, &cells);
        check(&grid, &mut agent, &mut ws, start, &what(round));
        // Move a few steps along the new path (sometimes off it: a random neighbour).
        let path = agent.path().to_vec();
        if path.len() > 1 && rng.below(4) != 0 {
            let steps = 1 + rng.below(3) as usize;
            start = path[steps.min(path.len() - 1)];
        } else if rng.below(8) == 0 {
            start = random_walkable(&mut rng, &grid);
        }
        check(&grid, &mut agent, &mut ws, start, &what(round));
    }
}

#[test]
fn random_maps_uniform_eight() {
    for seed in 0..120 {
        random_run(seed, Neighborhood::Eight, false);
    }
}

#[test]
fn random_maps_weighted_eight() {
    for seed in 1000..1100 {
        random_run(seed, Neighborhood::Eight, true);
    }
}

#[test]
fn random_maps_four() {
    for seed in 2000..2060 {
        random_run(seed, Neighborhood::Four, seed % 2 == 0);
    }
}

/// A Moving AI map: a long trip, walls dropped on the path ahead of the agent, the agent
/// walking, then walls opened again.
#[test]
fn den520d_changes_along_the_way() {
    let mut grid = load_map(shipped("den520d.map")).unwrap();
    let mut ws = SearchWorkspace::for_grid(&grid);
    let mut rng = TestRng::new(7);
    let (mut start, goal) = loop {
        let (a, b) = (
            random_walkable(&mut rng, &grid),
            random_walkable(&mut rng, &grid),
        );
        if grid.connected(a, b) && reference_cost(&grid, a, b).is_some_and(|c| c > 150.0) {
            break (a, b);
        }
    };
    let mut agent = DStarLite::new(goal);
    check(&grid, &mut agent, &mut ws, start, "den520d first plan");
    let first = agent.stats().expanded;
    let mut blocked = Vec::new();
    let mut repair_expanded = 0;
    for round in 0..30 {
        let path = agent.path().to_vec();
        if path.len() < 12 {
            break;
        }
        // Block a 3-cell wall across the path 5 to 10 steps ahead.
        let at = path[5 + rng.below(6) as usize];
        let (x, y) = grid.coords(at);
        let mut changes = Vec::new();
        for (dx, dy) in [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)] {
            if let Some(c) = grid.cell(x.wrapping_add_signed(dx), y.wrapping_add_signed(dy))
                && c != goal
                && c != start
                && grid.is_walkable(c)
                && rng.below(2) == 0
            {
                changes.push(CellChange::SetWalkable {
                    cell: c,
                    walkable: false,
                });
                blocked.push(c);
            }
        }
        if round % 5 == 4 {
            // Open some old walls again.
            for _ in 0..3 {
                if let Some(c) = blocked.pop() {
                    changes.push(CellChange::SetWalkable {
                        cell: c,
                        walkable: true,
                    });
                }
            }
        }
        grid.apply(&changes).unwrap();
        agent.notify_cell_changes(&grid, &changes);
        check(
            &grid,
            &mut agent,
            &mut ws,
            start,
            &format!("den520d round {round}"),
        );
        repair_expanded += agent.stats().expanded;
        let path = agent.path();
        if path.len() > 4 {
            start = path[3];
        }
    }
    // Repairs near the agent are much cheaper than the first search.
    assert!(
        repair_expanded < 30 * first,
        "{repair_expanded} vs first {first}"
    );
}

#[test]
fn a_closed_wall_makes_the_goal_unreachable_until_it_opens() {
    let mut grid = Grid::new(12, 7).unwrap();
    let (start, goal) = (grid.cell(1, 3).unwrap(), grid.cell(10, 3).unwrap());
    let mut ws = SearchWorkspace::for_grid(&grid);
    let mut agent = DStarLite::new(goal);
    check(&grid, &mut agent, &mut ws, start, "open");
    let wall: Vec<CellChange> = (0..7)
        .map(|y| CellChange::SetWalkable {
            cell: grid.cell(6, y).unwrap(),
            walkable: false,
        })
        .collect();
    grid.apply(&wall).unwrap();
    agent.notify_cell_changes(&grid, &wall);
    assert_eq!(
        agent.plan(&grid, start).unwrap(),
        SearchOutcome::Unreachable
    );
    assert!(agent.path().is_empty());
    // Moving while cut off keeps the state usable.
    let start = grid.cell(2, 2).unwrap();
    assert_eq!(
        agent.plan(&grid, start).unwrap(),
        SearchOutcome::Unreachable
    );
    let door = [CellChange::SetWalkable {
        cell: grid.cell(6, 0).unwrap(),
        walkable: true,
    }];
    grid.apply(&door).unwrap();
    agent.notify_cell_changes(&grid, &door);
    check(&grid, &mut agent, &mut ws, start, "door open");
    assert!(agent.path().contains(&grid.cell(6, 0).unwrap()));
    // A blocked goal or start is an error, and the agent recovers when it opens.
    let block_goal = [CellChange::SetWalkable {
        cell: goal,
        walkable: false,
    }];
    grid.apply(&block_goal).unwrap();
    agent.notify_cell_changes(&grid, &block_goal);
    assert!(matches!(
        agent.plan(&grid, start),
        Err(QueryError::GoalBlocked { .. })
    ));
    let open_goal = [CellChange::SetWalkable {
        cell: goal,
        walkable: true,
    }];
    grid.apply(&open_goal).unwrap();
    agent.notify_cell_changes(&grid, &open_goal);
    check(&grid, &mut agent, &mut ws, start, "goal open again");
}

#[test]
fn start_on_goal_and_tiny_grids() {
    let grid = Grid::new(1, 1).unwrap();
    let mut agent = DStarLite::new(0);
    assert_eq!(
        agent.plan(&grid, 0).unwrap(),
        SearchOutcome::Found { cost: 0.0 }
    );
    assert_eq!(agent.path(), &[0]);
    let grid = Grid::new(3, 1).unwrap();
    let mut agent = DStarLite::new(2);
    assert_eq!(agent.plan(&grid, 0).unwrap().cost(), Some(2.0));
    assert_eq!(agent.plan(&grid, 2).unwrap().cost(), Some(0.0));
    assert!(matches!(
        agent.plan(&grid, 7),
        Err(QueryError::CellOutOfBounds { .. })
    ));
}

/// The state is sized by what the search touched, not by the map.
#[test]
fn memory_follows_touched_cells_not_the_map() {
    let grid = Grid::new(1024, 1024).unwrap();
    let (start, goal) = (grid.cell(500, 500).unwrap(), grid.cell(530, 510).unwrap());
    let mut agent = DStarLite::new(goal);
    assert!(agent.plan(&grid, start).unwrap().is_found());
    let bytes = agent.memory_bytes();
    let touched = agent.stats().touched as usize;
    assert!(
        bytes < grid.len() * 16 / 500,
        "{bytes} bytes on a {} cell map",
        grid.len()
    );
    assert!(
        bytes < 200 + touched * 120,
        "{bytes} bytes for {touched} touched cells"
    );
    agent.clear();
    assert!(agent.memory_bytes() <= std::mem::size_of::<DStarLite>());
}

/// A fresh search over its budget gives up and releases its memory; a resumed search whose
/// state grows past the budget starts over and still finds the optimal path.
#[test]
fn budget_exhaustion_and_reset() {
    let mut grid = Grid::new(800, 200).unwrap();
    let mut ws = SearchWorkspace::for_grid(&grid);
    let (start, goal) = (grid.cell(10, 100).unwrap(), grid.cell(790, 100).unwrap());

    let mut tiny = DStarLite::with_max_bytes(goal, 4096);
    assert_eq!(
        tiny.plan(&grid, start).unwrap(),
        SearchOutcome::BudgetExhausted
    );
    assert!(tiny.memory_bytes() <= std::mem::size_of::<DStarLite>());

    // Two agents make the same trip; the budget of one is set below what the other ends with.
    let mut agent = DStarLite::new(goal);
    let mut twin = DStarLite::new(goal);
    check(&grid, &mut agent, &mut ws, start, "first");
    check(&grid, &mut twin, &mut ws, start, "first (twin)");
    let near = grid.cell(WALK_TO, 100).unwrap();
    check(&grid, &mut agent, &mut ws, near, "walked");
    check(&grid, &mut twin, &mut ws, near, "walked (twin)");
    // A wall across the way: the repair adds many cells to a state that still holds the whole
    // first search, while a fresh search from where the agent stands fits the budget.
    let wall: Vec<CellChange> = (WALL_FROM..200 - WALL_FROM)
        .map(|y| CellChange::SetWalkable {
            cell: grid.cell(WALL_X, y).unwrap(),
            walkable: false,
        })
        .collect();
    grid.apply(&wall).unwrap();
    agent.notify_cell_changes(&grid, &wall);
    twin.notify_cell_changes(&grid, &wall);
    check(&grid, &mut twin, &mut ws, near, "after wall (twin)");
    let mut fresh = DStarLite::new(goal);
    check(&grid, &mut fresh, &mut ws, near, "after wall (fresh)");
    // The state the resumed search ends with is much bigger than a fresh search's.
    assert!(twin.memory_bytes() > 3 * fresh.memory_bytes() / 2);
    let budget = (twin.memory_bytes() + fresh.memory_bytes()) / 2;
    agent.set_max_bytes(Some(budget));
    check(&grid, &mut agent, &mut ws, near, "after wall");
    assert_eq!(agent.stats().budget_resets, 1);
    assert!(agent.memory_bytes() <= budget);
}

const WALK_TO: u32 = 750;
const WALL_X: u32 = 770;
const WALL_FROM: u32 = 60;
