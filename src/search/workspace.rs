//! The per-thread search memory.

use super::SearchStats;
use super::heap::IndexedHeap;
use crate::grid::{CellId, Grid};

/// Marks "no parent" (the start cell).
pub(crate) const NO_CELL: CellId = CellId::MAX;

/// Search state of one cell. Valid only when `stamp` belongs to the current query.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Node {
    pub g: f64,
    pub parent: CellId,
    pub stamp: u32,
}

/// Reusable memory for grid searches: one per thread, built once, reused for every query.
///
/// The workspace holds flat arrays indexed by cell id (cost from the start, parent, and the
/// position in the open list) plus the open list and a path buffer. Instead of clearing the
/// arrays before each query it bumps a generation number: a cell whose stamp is older than the
/// current generation counts as unseen. A query therefore costs nothing to start, and once the
/// buffers have grown to the largest query seen it performs no heap allocation at all.
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
/// # Ok::<(), throng::Error>(())
/// ```
#[derive(Debug)]
pub struct SearchWorkspace {
    pub(crate) nodes: Vec<Node>,
    pub(crate) heap: IndexedHeap,
    pub(crate) path: Vec<CellId>,
    /// Stamp of cells seen (open) in the current query; `generation + 1` marks closed cells.
    pub(crate) generation: u32,
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
            nodes: Vec::new(),
            heap: IndexedHeap::default(),
            path: Vec::new(),
            generation: 0,
            stats: SearchStats::default(),
        }
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
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.heap.capacity() * 24
            + self.nodes.len() * 4
            + self.path.capacity() * std::mem::size_of::<CellId>()
    }

    pub(crate) fn ensure_cells(&mut self, cells: usize) {
        if self.nodes.len() < cells {
            self.nodes.resize(cells, Node::default());
        }
        self.heap.ensure_cells(cells);
    }

    /// Starts a query: sizes the arrays for `grid`, moves to a fresh generation, clears the open
    /// list, the path and the counters.
    pub(crate) fn begin(&mut self, grid: &Grid) {
        self.ensure_cells(grid.len());
        // Generations advance by 2: `generation` = open/seen, `generation + 1` = closed.
        if self.generation >= u32::MAX - 3 {
            // Once every ~2 billion queries: really clear, so old stamps cannot alias.
            for n in &mut self.nodes {
                n.stamp = 0;
            }
            self.generation = 0;
        }
        self.generation += 2;
        self.heap.clear();
        self.path.clear();
        self.stats = SearchStats::default();
    }

    /// Writes the path ending at `goal` into the path buffer by following parents.
    pub(crate) fn reconstruct(&mut self, goal: CellId) {
        self.path.clear();
        let mut c = goal;
        while c != NO_CELL {
            self.path.push(c);
            c = self.nodes[c as usize].parent;
        }
        self.path.reverse();
    }

    #[cfg(test)]
    pub(crate) fn set_generation_for_test(&mut self, generation: u32) {
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
        for start in [u32::MAX - 9, u32::MAX - 5, u32::MAX - 4, u32::MAX - 3] {
            ws.set_generation_for_test(start);
            for _ in 0..6 {
                assert_eq!(ws.find_path(&grid, a, b).unwrap(), expected);
                assert_eq!(ws.find_path(&grid, b, a).unwrap(), expected);
                assert!(ws.generation < u32::MAX - 1);
            }
        }
        assert_eq!(expected, SearchOutcome::Found { cost: 5.0 });
    }
}
