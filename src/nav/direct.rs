//! When navigation points are not worth it: the choice to answer every query by JPS+.
//!
//! The points earn their place by making long trips cheap where an optimal search has to
//! expand many cells (random obstacles, rooms and doors). On maps of wide open areas JPS+
//! crosses the whole map in a few dozen jump points and is faster than routing through the
//! points, stitching and straightening, while giving optimal paths.
//!
//! The graph decides once, when it is built or loaded, from work that does not depend on the
//! machine (so the same map always gets the same answer, and a simulation stays deterministic):
//! JPS (the same jump points as JPS+, without building the table) on a fixed sample of long
//! trips, each under a node budget, and direct answers when the jump points expanded and
//! pushed average at most [`DIRECT_WORK`].
//!
//! The same module decides which optimal search answers the trips the points leave to a
//! direct search (within neighbouring clusters; `auto`'s short trips): JPS+ (the grid's jump
//! table, built with the graph) or online JPS, chosen from the map alone when the graph is
//! built, loaded or repaired, and recorded in the graph ([`NavGraph::uses_jump_table`]): a
//! table some other planner built earlier on the same grid does not change it. Both beat A* on
//! short trips of every Moving AI map measured. The table pays except where straight jumps keep
//! being cut short by forced neighbours (scattered obstacles: there JPS+ only adds the table's
//! cache misses), so it is chosen unless more than [`MAX_FORCED_SHARE`] of the map's straight
//! moves enter a jump point (straight jumps shorter than about 10 cells on average;
//! `Grid::forced_share`), and always where every query is answered directly. The measurements
//! behind both thresholds: `docs/performance.md`.

use crate::grid::{CellId, Grid, Neighborhood};
use crate::search::{QueryError, SearchOptions, SearchOutcome, SearchWorkspace};

/// Jump points expanded plus pushed per long trip, on average, up to which JPS+ answers every
/// query: about where the two cost the same (see the module docs).
pub(crate) const DIRECT_WORK: u64 = 300;

/// Long trips sampled.
const SAMPLES: u64 = 32;

/// Share of straight moves entering a jump point above which the grid's jump table is not
/// built for the graph's direct searches (see the module docs).
pub(crate) const MAX_FORCED_SHARE: f64 = 0.1;

/// How a navigation graph searches directly, decided from the map alone (never from what an
/// earlier call left on the grid, such as a jump table built for another planner).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct DirectSearches {
    /// Every query is answered by a direct search ([`prefers_direct_search`]).
    pub(crate) all: bool,
    /// Direct searches are JPS+ (the grid's jump table), not online JPS.
    pub(crate) jump_table: bool,
}

/// Decides how `grid`'s navigation graph searches directly (see [`DirectSearches`] and the
/// module docs), and builds the grid's jump table now where the choice is JPS+, so that no
/// query pays for it.
pub(crate) fn prepare_direct_searches(grid: &Grid) -> DirectSearches {
    if grid.is_weighted() || grid.neighborhood() != Neighborhood::Eight {
        return DirectSearches::default(); // searched by A* whatever the choice
    }
    let all = prefers_direct_search(grid);
    let jump_table = all || grid.forced_share() <= MAX_FORCED_SHARE;
    if jump_table {
        grid.prepare_jump_table();
    }
    DirectSearches { all, jump_table }
}

/// The direct search of a navigation graph (and of `auto`'s short trips): JPS+ when the graph
/// chose the jump table ([`DirectSearches::jump_table`]), online JPS otherwise; both answer
/// with A* on weighted and 4-connected grids.
pub(crate) fn search_directly(
    ws: &mut SearchWorkspace,
    jump_table: bool,
    grid: &Grid,
    start: CellId,
    goal: CellId,
    options: &SearchOptions,
) -> Result<SearchOutcome, QueryError> {
    if jump_table {
        ws.find_path_jps_plus(grid, start, goal, options)
    } else {
        ws.find_path_jps(grid, start, goal, options)
    }
}

/// Whether every query on `grid` (uniform and 8-connected) is best answered by a direct JPS+
/// search.
fn prefers_direct_search(grid: &Grid) -> bool {
    let (w, h) = (u64::from(grid.width()), u64::from(grid.height()));
    // Long trips: at least a quarter of the way round the map apart.
    let far = (w + h) / 4;
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let mut ws = SearchWorkspace::new();
    let (mut work, mut trips) = (0u64, 0u64);
    let budget = SAMPLES * DIRECT_WORK;
    for _ in 0..SAMPLES * 64 {
        if trips == SAMPLES {
            break;
        }
        let a = next(grid.len() as u64) as CellId;
        let b = next(grid.len() as u64) as CellId;
        let ((ax, ay), (bx, by)) = (grid.coords(a), grid.coords(b));
        if u64::from(ax.abs_diff(bx)) + u64::from(ay.abs_diff(by)) < far
            || !grid.is_walkable(a)
            || !grid.is_walkable(b)
            || !grid.connected(a, b)
        {
            continue;
        }
        // The budget left bounds the whole sample: a map where JPS+ is slow stops early.
        let options = SearchOptions::with_budget(budget.saturating_sub(work));
        let outcome = ws.find_path_jps(grid, a, b, &options);
        let stats = ws.stats();
        work += stats.expanded + stats.pushed;
        trips += 1;
        if !matches!(outcome, Ok(SearchOutcome::Found { .. })) || work > budget {
            return false;
        }
    }
    if trips < SAMPLES / 2 {
        return false; // too few long trips to judge (small or broken-up maps)
    }
    work <= trips * DIRECT_WORK
}

/// A 200 x 200 grid with about one cell in ten blocked, scattered: forced neighbours
/// everywhere, the map where online JPS beats JPS+ (for tests here and of the planner).
#[cfg(test)]
pub(crate) fn scattered_grid() -> Grid {
    let mut rng = 7u64;
    let walkable = (0..200 * 200)
        .map(|_| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            !rng.is_multiple_of(10)
        })
        .collect();
    Grid::from_walkable(200, 200, walkable).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_maps_search_directly_noisy_ones_do_not() {
        // An open room: every long trip is a jump or two, and the table gets built.
        let open = Grid::new(200, 200).unwrap();
        let choice = prepare_direct_searches(&open);
        assert!(choice.all && choice.jump_table);
        assert!(open.has_jump_table());
        // Scattered single obstacles: forced neighbours everywhere, thousands of jump points.
        let noisy = scattered_grid();
        assert_eq!(prepare_direct_searches(&noisy), DirectSearches::default());
        assert!(
            noisy.forced_share() > MAX_FORCED_SHARE,
            "straight jumps are cut short everywhere"
        );
        assert!(
            !noisy.has_jump_table(),
            "no table where straight jumps keep stopping: online JPS is faster"
        );
        // A table some other planner built earlier does not change the choice.
        noisy.prepare_jump_table();
        assert_eq!(prepare_direct_searches(&noisy), DirectSearches::default());
        // Rooms joined by doors (the shipped Moving AI `8room_000`): not direct (many jump
        // points per long trip), but the table pays for the trips searched directly.
        let rooms = crate::movingai::load_map(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/sims/maps/8room_000.map"
        ))
        .unwrap();
        let choice = prepare_direct_searches(&rooms);
        assert!(!choice.all && choice.jump_table);
        assert!(rooms.has_jump_table());
        // Weighted and 4-connected grids are searched by A*: never direct.
        let weighted = Grid::new(50, 50)
            .unwrap()
            .with_costs(vec![2.0; 2500])
            .unwrap();
        assert_eq!(
            prepare_direct_searches(&weighted),
            DirectSearches::default()
        );
        assert!(!weighted.has_jump_table());
        let four = Grid::new(50, 50)
            .unwrap()
            .with_neighborhood(Neighborhood::Four);
        assert_eq!(prepare_direct_searches(&four), DirectSearches::default());
        assert!(!four.has_jump_table());
    }
}
