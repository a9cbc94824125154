//! JPS+: Jump Point Search with the jumps read from a table built ahead of time.
//!
//! The search is online JPS's ([`jps.rs`](super::jps)): the same pruning rules, diagonal jump
//! points expanded on the spot, the goal in sight, the same open list, bookkeeping and path
//! reconstruction, hence the same jump points and the same optimal paths. Only where a jump
//! ends comes from elsewhere: the grid's jump table (`grid/jump_table.rs`, 16 bytes a cell,
//! built on first use and repaired when the map changes) holds, for every cell and move, the
//! distance to the next stop or to the wall. A straight jump is one read; a diagonal walk is
//! one read per diagonal jump point on the way instead of a step and two scans per cell.
//!
//! The goal in sight needs wall distances, which the table gives too: each part of the octile
//! path (diagonal, then straight) is legal when a walk along the table's entries in that
//! direction, from stop to stop, reaches its end before a wall.
//!
//! The table pays on maps with open areas and corridors; among scattered obstacles, where
//! every jump is a few cells long either way, it only adds cache misses (the navigation graph
//! builds it only where it pays: `nav/direct.rs`). Measurements, and what was tried and
//! dropped: `docs/performance.md`.

use super::jps::{DIAGONAL_TOWARDS, Jumps};
use super::{QueryError, SearchOptions, SearchOutcome, SearchWorkspace};
use crate::grid::{COMPONENTS, CellId, Grid, JumpTable, Neighborhood};

/// Jumps read from a [`JumpTable`].
struct TableJumps<'a> {
    table: &'a JumpTable,
    offsets: [isize; 8],
}

impl Jumps for TableJumps<'_> {
    #[inline(always)]
    fn straight(&self, c: usize, _x: usize, _y: usize, d: usize) -> usize {
        self.table.entries(c)[d].max(0) as usize
    }

    #[inline(always)]
    fn diagonal(&self, c: usize, _x: usize, _y: usize, d: usize) -> Option<(usize, usize, usize)> {
        let e = self.table.entries(c)[d];
        if e <= 0 {
            return None;
        }
        let t = c.wrapping_add_signed(self.offsets[d] * e as isize);
        let (v, h) = COMPONENTS[d];
        let at = self.table.entries(t);
        Some((e as usize, at[h].max(0) as usize, at[v].max(0) as usize))
    }

    #[inline(always)]
    fn goal_in_sight(&self, c: usize, _x: usize, _y: usize, dx: isize, dy: isize) -> Option<usize> {
        let (ax, ay) = (dx.unsigned_abs(), dy.unsigned_abs());
        let mut t = c;
        let diagonal = ax.min(ay);
        if diagonal > 0 {
            let d = DIAGONAL_TOWARDS[usize::from(dx > 0)][usize::from(dy > 0)];
            t = self.reach(t, d, diagonal)?;
        }
        let straight = ax.abs_diff(ay);
        if straight > 0 {
            let d = match (ax > ay, dx > 0, dy > 0) {
                (true, true, _) => 1,
                (true, false, _) => 3,
                (false, _, true) => 2,
                (false, _, false) => 0,
            };
            self.reach(t, d, straight)?;
        }
        Some(t)
    }
}

impl TableJumps<'_> {
    /// The cell `n` moves in direction `d` from `c` when all of them are legal. Walks from stop
    /// to stop: every cell up to a stop is reached by legal moves, and a non-positive entry
    /// counts the legal moves left before a wall.
    #[inline(always)]
    fn reach(&self, mut c: usize, d: usize, mut n: usize) -> Option<usize> {
        let off = self.offsets[d];
        loop {
            let e = self.table.entries(c)[d];
            let reach = e.unsigned_abs() as usize;
            if reach >= n {
                return Some(c.wrapping_add_signed(off * n as isize));
            }
            if e <= 0 {
                return None;
            }
            c = c.wrapping_add_signed(off * reach as isize);
            n -= reach;
        }
    }
}

impl SearchWorkspace {
    /// Optimal path from `start` to `goal` by JPS+: Jump Point Search with the jumps read from
    /// the grid's jump table instead of scanned (see [`Grid::prepare_jump_table`]). Same
    /// validation, outcomes, path and cost as [`find_path_jps`](Self::find_path_jps), and the
    /// same jump points; faster on maps where the scans are long, for 16 bytes a cell.
    ///
    /// The table is built on the grid's first JPS+ query (about as long as a few hundred
    /// queries on a 512 x 512 map) unless [`Grid::prepare_jump_table`] built it before, and
    /// [`Grid::apply`] keeps it up to date. On weighted grids ([`Grid::is_weighted`]) and
    /// 4-connected grids this answers with A*, as `find_path_jps` does.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::search::{SearchOptions, SearchWorkspace};
    ///
    /// let grid = Grid::from_ascii(
    ///     "......\n\
    ///      .####.\n\
    ///      ......",
    /// )?;
    /// grid.prepare_jump_table();
    /// let mut ws = SearchWorkspace::new();
    /// let (start, goal) = (grid.cell(0, 1).unwrap(), grid.cell(5, 1).unwrap());
    /// let outcome = ws.find_path_jps_plus(&grid, start, goal, &SearchOptions::default())?;
    /// assert_eq!(outcome.cost(), Some(7.0));
    /// assert_eq!(ws.path().len(), 8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`QueryError`] when a cell is outside the grid or blocked.
    pub fn find_path_jps_plus(
        &mut self,
        grid: &Grid,
        start: CellId,
        goal: CellId,
        options: &SearchOptions,
    ) -> Result<SearchOutcome, QueryError> {
        if grid.is_weighted() || grid.neighborhood() == Neighborhood::Four {
            return self.find_path_with(grid, start, goal, options);
        }
        if !self.start_query(grid, start, goal)? {
            return Ok(SearchOutcome::Unreachable);
        }
        let jumps = TableJumps {
            table: grid.jump_table(),
            offsets: grid.move_offsets().map(|o| o as isize),
        };
        Ok(self.run_jumps(grid, &jumps, start, goal, options))
    }
}
