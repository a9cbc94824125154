//! The per-thread search memory.

use super::SearchStats;
use super::heap::{LevelHeap, OpenList};
use crate::grid::{CellId, Grid};

/// One cell's state in a Jump Point Search: `[g, meta]`, the cost from the start (a cost key)
/// and, packed in one word, the stamp (bits 0-15, as `stamp`), the direction of the jump that
/// reached it (bits 16-23, [`NO_PARENT`] for the start) and the cell that jump came from
/// (bits 32-63). A search that touches few, scattered cells, as JPS does, then reads and writes
/// one cache line per cell instead of one in each of four arrays (A*, which touches many
/// neighbouring cells, keeps the separate arrays: fewer instructions per cell).
pub(crate) type JumpNode = [u64; 2];

/// Parent marker of the start cell.
pub(crate) const NO_PARENT: u8 = u8::MAX;

/// Reusable memory for grid searches: one per thread, built once, reused for every query.
///
/// The workspace holds flat arrays indexed by cell id (a 16-bit stamp, the cost from the start
/// and the direction of the move from the parent: 11 bytes per cell, the stamps alone 2 bytes
/// so that the array the inner loop tests most stays in cache; Jump Point Search keeps its own
/// 16-byte record per cell instead) plus the open lists and a path buffer.
/// Instead of clearing the arrays before each query it bumps a generation number: a cell whose
/// stamp is not the current generation's counts as unseen. A query therefore costs nothing to
/// start, and once the buffers have grown to the largest query seen it performs no heap
/// allocation at all.
///
/// A workspace is not tied to one grid; it grows to the largest grid it has searched. It is
/// `Send` but deliberately not shared: give each thread its own (rayon's `map_init`, a
/// thread-local, or a field of a per-worker struct).
///
/// ```
/// use throng::grid::Grid;
/// use throng::search::{SearchOutcome, SearchWorkspace};
///
/// let grid = Grid::from_ascii(
///     ".....\n\
///      .###.\n\
///      .....",
/// )?;
/// let mut ws = SearchWorkspace::new();
/// let start = grid.cell(0, 1).unwrap();
/// let goal = grid.cell(4, 1).unwrap();
/// let outcome = ws.find_path(&grid, start, goal)?;
/// assert!(matches!(outcome, SearchOutcome::Found { .. }));
/// assert_eq!(ws.path().first(), Some(&start));
/// assert_eq!(ws.path().last(), Some(&goal));
/// // No corner cutting: the diagonals past the wall are not allowed, so 6 straight steps.
/// assert_eq!(outcome.cost(), Some(6.0));
/// assert_eq!(ws.path().len(), 7);
/// # Ok::<(), throng::error::Error>(())
/// ```
#[derive(Debug)]
pub struct SearchWorkspace {
    /// Per cell: `generation` when open, `generation + 1` when closed, anything else unseen.
    pub(crate) stamp: Vec<u16>,
    /// Per cell: cost from the start (a cost key, see `cost.rs`), valid when stamped.
    pub(crate) g: Vec<u64>,
    /// Per cell: the direction of the move that reached it ([`NO_PARENT`] for the start).
    pub(crate) parent: Vec<u8>,
    /// Per cell, Jump Point Search's state in place of `stamp`, `g` and `parent` (see
    /// [`JumpNode`]). Untouched by A*, so its pages are never mapped there (see
    /// [`ensure_cells`](Self::ensure_cells)).
    pub(crate) jump_nodes: Vec<JumpNode>,
    pub(crate) open: OpenList,
    /// The open list of A* on uniform-cost grids (see [`LevelHeap`]).
    pub(crate) levels: LevelHeap,
    pub(crate) path: Vec<CellId>,
    /// Jump Point Search's path as jumps (jump point, direction of the jump), goal first.
    pub(crate) runs: Vec<(CellId, u8)>,
    pub(crate) generation: u16,
    pub(crate) stats: SearchStats,
}

impl Default for SearchWorkspace {
    fn default() -> Self {
        Self::new()
    }
}

impl SearchWorkspace {
    /// An empty workspace; it sizes itself on the first query.
    pub fn new() -> Self {
        SearchWorkspace {
            stamp: Vec::new(),
            g: Vec::new(),
            parent: Vec::new(),
            jump_nodes: Vec::new(),
            open: OpenList::default(),
            levels: LevelHeap::default(),
            path: Vec::new(),
            runs: Vec::new(),
            generation: 0,
            stats: SearchStats::default(),
        }
    }

    /// Writes every page of the per-cell arrays, so that no later query pays for mapping them.
    ///
    /// The arrays are allocated zeroed and the operating system maps their pages only when a
    /// search first touches them: memory is spent only on the cells searches reach, but each
    /// first touch costs a page fault, about a microsecond. A program that wants steady query
    /// times from the first query on (a game loop, a benchmark) calls this once after
    /// [`for_grid`](Self::for_grid), for the whole 27 bytes a cell.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::search::SearchWorkspace;
    ///
    /// let grid = Grid::new(256, 256)?;
    /// let mut ws = SearchWorkspace::for_grid(&grid);
    /// ws.prefault();
    /// assert!(ws.memory_bytes() >= 27 * 256 * 256);
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    pub fn prefault(&mut self) {
        // Zeros keep every cell unseen: no live generation is 0.
        self.stamp.fill(0);
        self.g.fill(0);
        self.parent.fill(0);
        self.jump_nodes.fill([0; 2]);
    }

    /// A workspace already sized for `grid`, so the first query does not allocate the per-cell
    /// arrays.
    pub fn for_grid(grid: &Grid) -> Self {
        let mut ws = Self::new();
        ws.ensure_cells(grid.len());
        ws
    }

    /// The path of the last query that found one: cells from start to goal, both included.
    /// Empty after a query that found none.
    #[inline]
    pub fn path(&self) -> &[CellId] {
        &self.path
    }

    /// Counters of the last query.
    #[inline]
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// Bytes of memory held (capacity of all buffers).
    pub fn memory_bytes(&self) -> usize {
        self.stamp.capacity() * 2
            + self.g.capacity() * 8
            + self.parent.capacity()
            + self.jump_nodes.capacity() * std::mem::size_of::<JumpNode>()
            + self.open.capacity_bytes()
            + self.levels.capacity_bytes()
            + self.path.capacity() * std::mem::size_of::<CellId>()
            + self.runs.capacity() * std::mem::size_of::<(CellId, u8)>()
    }

    /// Grows the per-cell arrays to `cells`. They are allocated zeroed rather than written:
    /// a large zeroed allocation comes straight from the operating system as pages that are
    /// mapped only when first touched, so a workspace sized for a 16-million-cell map costs
    /// memory (and page-fault time) only for the cells its searches reach, not 27 bytes for
    /// every cell of the map on every thread. Nothing is kept from the smaller arrays: a zero
    /// stamp is never a live generation (generations start at 2), so every cell reads unseen,
    /// and `g` and `parent` are only read on stamped cells.
    pub(crate) fn ensure_cells(&mut self, cells: usize) {
        if self.stamp.len() < cells {
            self.stamp = Vec::new();
            self.g = Vec::new();
            self.parent = Vec::new();
            self.jump_nodes = Vec::new();
            self.stamp = vec![0; cells];
            self.g = vec![0; cells];
            self.parent = vec![0; cells];
            self.jump_nodes = vec![[0; 2]; cells];
        }
    }

    /// Sizes the arrays for `grid`, moves to a fresh generation and clears the open list.
    pub(crate) fn begin(&mut self, grid: &Grid) {
        self.ensure_cells(grid.len());
        // Generations advance by 2: `generation` = open, `generation + 1` = closed.
        if self.generation >= u16::MAX - 3 {
            // Every ~32,000 queries: really clear, so that old stamps cannot alias. A fresh
            // zeroed array rather than a fill, so that the pages no search touched stay
            // unmapped (see `ensure_cells`).
            let cells = self.stamp.len();
            self.stamp = Vec::new();
            self.stamp = vec![0; cells];
            self.jump_nodes = Vec::new();
            self.jump_nodes = vec![[0; 2]; cells];
            self.generation = 0;
        }
        self.generation += 2;
        self.open.clear();
    }

    /// The preamble of every query: clears the counters and the path (also for a query that is
    /// then rejected, so that a caller recording them never sees the previous query's), checks
    /// the endpoints and moves to a fresh generation. `Ok(false)` when start and goal lie in
    /// different components: unreachable, answered without a search.
    pub(crate) fn start_query(
        &mut self,
        grid: &Grid,
        start: CellId,
        goal: CellId,
    ) -> Result<bool, super::QueryError> {
        self.stats = SearchStats::default();
        self.path.clear();
        super::astar::validate_endpoints(grid, start, goal)?;
        self.begin(grid);
        Ok(grid.connected(start, goal))
    }

    /// Marks `start` open with cost 0 and no parent (the caller pushes it on its open list).
    pub(crate) fn mark_start(&mut self, start: CellId) {
        self.stamp[start as usize] = self.generation;
        self.g[start as usize] = 0;
        self.parent[start as usize] = NO_PARENT;
        self.stats.pushed = 1;
    }

    /// Writes the path ending at `goal` into the path buffer by following parent moves, and
    /// returns its cost, summed in `f64` from start to goal exactly as [`Grid::path_cost`] does.
    pub(crate) fn reconstruct(&mut self, grid: &Grid, goal: CellId) -> f64 {
        let offsets = grid.move_offsets();
        self.path.clear();
        let mut c = goal;
        loop {
            self.path.push(c);
            let d = self.parent[c as usize];
            if d == NO_PARENT {
                break;
            }
            c = (i64::from(c) - offsets[usize::from(d)]) as CellId;
        }
        self.path.reverse();
        grid.legal_path_cost(self.path.iter().copied())
    }

    #[cfg(test)]
    pub(crate) fn set_generation_for_test(&mut self, generation: u16) {
        self.generation = generation;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::SearchOutcome;

    /// Stamps from before a generation wrap must not make old cells look seen or closed.
    #[test]
    fn generation_wrap_forgets_old_stamps() {
        let grid = Grid::from_ascii("....\n.##.\n....").unwrap();
        let mut ws = SearchWorkspace::for_grid(&grid);
        let (a, b) = (grid.cell(0, 1).unwrap(), grid.cell(3, 1).unwrap());
        let expected = ws.find_path(&grid, a, b).unwrap();
        for start in [u16::MAX - 9, u16::MAX - 5, u16::MAX - 4, u16::MAX - 3] {
            ws.set_generation_for_test(start);
            for _ in 0..6 {
                assert_eq!(ws.find_path(&grid, a, b).unwrap(), expected);
                assert_eq!(ws.find_path(&grid, b, a).unwrap(), expected);
                assert!(ws.generation < u16::MAX - 1);
            }
        }
        assert_eq!(expected, SearchOutcome::Found { cost: 5.0 });
    }
}
