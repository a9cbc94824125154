//! When navigation points are not worth it: the choice to answer every query by JPS+.
//!
//! The points earn their place by making long trips cheap where an optimal search has to
//! expand many cells (random obstacles, rooms and doors). On maps of wide open areas JPS+
//! crosses the whole map in a few dozen jump points and is faster than routing through the
//! points, stitching and straightening, while giving optimal paths. Measured on the longest
//! quarter of the Moving AI queries (mean µs per query, one run, steady state): `AR0011SR`
//! 102 jump points expanded or pushed per query, JPS+ 5.7 µs against 24.5 µs through the
//! points; `den520d` 226, 14.1 µs against 16.8; `Berlin_1_256` 419, 20.3 against 19.0;
//! `AcrosstheCape` 1,421, 88 against 51; `random512-10-0` 12,716, 1,017 against 72.
//!
//! The graph decides once, when it is built or loaded, from work that does not depend on the
//! machine (so the same map always gets the same answer, and a simulation stays deterministic):
//! JPS (the same jump points as JPS+, without building the table) on a fixed sample of long
//! trips, each under a node budget, and direct answers when the jump points expanded and
//! pushed average at most [`DIRECT_WORK`]. Only then is the grid's jump table built.

use crate::grid::{CellId, Grid, Neighborhood};
use crate::search::{SearchOptions, SearchOutcome, SearchWorkspace};

/// Jump points expanded plus pushed per long trip, on average, up to which JPS+ answers every
/// query: about where the two cost the same (see the module docs).
pub(crate) const DIRECT_WORK: u64 = 300;

/// Long trips sampled.
const SAMPLES: u64 = 32;

/// Whether every query on `grid` is best answered by a direct JPS+ search; builds the grid's
/// jump table when it is.
pub(crate) fn prefers_direct_search(grid: &Grid) -> bool {
    if grid.is_weighted() || grid.neighborhood() != Neighborhood::Eight {
        return false;
    }
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
    let direct = work <= trips * DIRECT_WORK;
    if direct {
        grid.prepare_jump_table();
    }
    direct
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_maps_search_directly_noisy_ones_do_not() {
        // An open room: every long trip is a jump or two, and the table gets built.
        let open = Grid::new(200, 200).unwrap();
        assert!(prefers_direct_search(&open));
        assert!(open.has_jump_table());
        // Scattered single obstacles: forced neighbours everywhere, thousands of jump points.
        let mut rng = 7u64;
        let walkable = (0..200 * 200)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                !rng.is_multiple_of(10)
            })
            .collect();
        let noisy = Grid::from_walkable(200, 200, walkable).unwrap();
        assert!(!prefers_direct_search(&noisy));
        assert!(
            !noisy.has_jump_table(),
            "no table for a map that does not use it"
        );
        // Weighted and 4-connected grids are searched by A*: never direct.
        let weighted = Grid::new(50, 50)
            .unwrap()
            .with_costs(vec![2.0; 2500])
            .unwrap();
        assert!(!prefers_direct_search(&weighted));
        let four = Grid::new(50, 50)
            .unwrap()
            .with_neighborhood(Neighborhood::Four);
        assert!(!prefers_direct_search(&four));
    }
}
