//! The shared, read-only grid every search reads.
//!
//! A [`Grid`] is `width x height` cells in flat storage, addressed by a [`CellId`]
//! (`y * width + x`). Each cell is walkable or blocked and may carry a cost multiplier
//! (weighted terrain). Everything a search needs per cell is precomputed when the grid is built
//! or edited: the legal moves out of it ([`MoveSet`], which encodes bounds, walls and the
//! no-corner-cutting rule in one byte), its connected component (so an unreachable goal is
//! answered without a search), and the walkable cells packed as bits, row by row and column by
//! column, with the stop bits of Jump Point Search's scans (`bits.rs`).
//!
//! Searches borrow the grid immutably (`&Grid` is `Sync`), so any number of threads can plan on
//! it at once. Edits take `&mut Grid` and therefore happen between searches.
//!
//! ```
//! use throng::grid::{Grid, Neighborhood};
//!
//! let grid = Grid::from_ascii(
//!     "....\n\
//!      .##.\n\
//!      ....",
//! )?;
//! assert_eq!((grid.width(), grid.height()), (4, 3));
//! let a = grid.cell(0, 0).unwrap();
//! let b = grid.cell(3, 2).unwrap();
//! assert!(grid.connected(a, b));
//! assert_eq!(grid.neighborhood(), Neighborhood::Eight);
//! # Ok::<(), throng::error::Error>(())
//! ```

mod bits;
mod components;
mod direction;
mod jump_table;
mod path;
pub mod procgen;

use serde::{Deserialize, Serialize};

pub(crate) use bits::{BitRows, WalkBits};
pub use components::Components;
pub use direction::{Direction, MoveSet};
pub(crate) use jump_table::{COMPONENTS, JumpTable, SIDES_OF_STRAIGHT};
pub use path::PathError;

use crate::error::{Error, Result};
use crate::search::QueryError;

/// Index of a cell in a [`Grid`]: `y * width + x`.
pub type CellId = u32;

/// "No cell" in per-agent and per-cell tables: an absent agent's position, a move not chosen
/// yet, no goal. Never a cell of a grid ([`MAX_CELLS`] is far below it).
pub const NO_CELL: CellId = CellId::MAX;

/// The largest number of cells a grid may have: 2^28, e.g. 16384 x 16384. A grid that size
/// takes about 1.7 GiB and each search workspace 3 GiB more, so larger inputs are refused with
/// an error rather than allowed to exhaust memory.
pub const MAX_CELLS: u64 = 1 << 28;

/// Which moves are allowed between cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Neighborhood {
    /// Up, down, left, right; each step costs 1 (times the entered cell's cost).
    #[serde(alias = "4")]
    Four,
    /// The four straight moves plus the four diagonals, costing sqrt(2); a diagonal is only
    /// legal when both orthogonal cells beside it are walkable (no corner cutting, the Moving AI
    /// rule). The default.
    #[default]
    #[serde(alias = "8")]
    Eight,
}

impl std::str::FromStr for Neighborhood {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "4" | "four" => Ok(Neighborhood::Four),
            "8" | "eight" => Ok(Neighborhood::Eight),
            _ => Err(Error::Invalid(format!(
                "unknown neighbourhood {s:?} (expected 4 or 8)"
            ))),
        }
    }
}

/// One edit of a grid, applied by [`Grid::apply`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum CellChange {
    /// Makes the cell walkable (`true`) or blocked (`false`).
    SetWalkable {
        /// The cell.
        cell: CellId,
        /// Its new state.
        walkable: bool,
    },
    /// Sets the cell's cost multiplier (finite, > 0).
    SetCost {
        /// The cell.
        cell: CellId,
        /// Its new cost multiplier.
        cost: f32,
    },
}

impl CellChange {
    /// Changes making every cell of the rectangle `x0..=x1` by `y0..=y1` (both corners
    /// included) walkable or blocked, row by row, for [`Grid::apply`] or
    /// [`crate::sim::Simulation::change_map`].
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::grid::CellChange;
    ///
    /// let mut grid = Grid::new(8, 4)?;
    /// let wall = CellChange::rect(&grid, 3, 0, 3, 2, false)?;
    /// assert_eq!(wall.len(), 3);
    /// grid.apply(&wall)?;
    /// assert!(!grid.is_walkable(grid.cell(3, 2).unwrap()));
    /// assert!(grid.is_walkable(grid.cell(3, 3).unwrap()));
    /// assert!(CellChange::rect(&grid, 0, 0, 8, 0, false).is_err()); // x = 8 is outside
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] when `x0 > x1` or `y0 > y1`, or the rectangle is not inside the grid.
    pub fn rect(
        grid: &Grid,
        x0: u32,
        y0: u32,
        x1: u32,
        y1: u32,
        walkable: bool,
    ) -> Result<Vec<CellChange>> {
        if x0 > x1 || y0 > y1 {
            return Err(Error::Invalid(format!(
                "[{x0}, {y0}, {x1}, {y1}] must be [x0, y0, x1, y1] with x0 <= x1 and y0 <= y1"
            )));
        }
        if x1 >= grid.width() || y1 >= grid.height() {
            return Err(Error::Invalid(format!(
                "[{x0}, {y0}, {x1}, {y1}] is outside the {} x {} map",
                grid.width(),
                grid.height()
            )));
        }
        Ok((y0..=y1)
            .flat_map(|y| (x0..=x1).map(move |x| (x, y)))
            .map(|(x, y)| CellChange::SetWalkable {
                cell: grid.cell(x, y).expect("inside"),
                walkable,
            })
            .collect())
    }
}

/// A 2D grid of walkable or blocked cells, with optional per-cell costs. See the
/// [module docs](self).
#[derive(Clone)]
pub struct Grid {
    width: u32,
    height: u32,
    neighborhood: Neighborhood,
    walkable: Vec<bool>,
    /// Per-cell cost multiplier; `None` when every cell costs 1 (the common, faster case).
    costs: Option<Vec<f32>>,
    /// Smallest cost multiplier of any walkable cell (1 when uniform); scales the heuristic so
    /// it stays admissible on cheap terrain.
    min_cost: f64,
    moves: Vec<MoveSet>,
    /// The walkable flags as bits, row-major and transposed, for the block scans of Jump Point
    /// Search; kept in step with `walkable` by `rebuild` and `apply`.
    bits: WalkBits,
    /// The jump table of JPS+ (`jump_table.rs`, 16 bytes a cell), built on first use and
    /// repaired by `apply`.
    jumps: std::sync::OnceLock<JumpTable>,
    components: Components,
    /// Calls of [`Grid::apply`] that changed a cell's walkability.
    wall_edits: u64,
}

impl std::fmt::Debug for Grid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grid")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("neighborhood", &self.neighborhood)
            .field("walkable", &self.walkable_count())
            .field("weighted", &self.costs.is_some())
            .field("components", &self.components.count())
            .finish()
    }
}

impl Grid {
    /// A grid of `width x height` walkable cells.
    ///
    /// # Errors
    /// [`Error::InvalidGrid`] when a side is 0 or the grid has more than [`MAX_CELLS`] cells.
    pub fn new(width: u32, height: u32) -> Result<Grid> {
        let n = checked_cell_count(width, height)?;
        Self::from_walkable(width, height, vec![true; n])
    }

    /// A grid from one walkable flag per cell, row by row.
    ///
    /// # Errors
    /// [`Error::InvalidGrid`] when the size is invalid or `walkable` has the wrong length.
    pub fn from_walkable(width: u32, height: u32, walkable: Vec<bool>) -> Result<Grid> {
        let n = checked_cell_count(width, height)?;
        if walkable.len() != n {
            return Err(Error::InvalidGrid(format!(
                "{width} x {height} grid needs {n} cells, got {}",
                walkable.len()
            )));
        }
        let bits = WalkBits::new(width, height, &walkable);
        let mut grid = Grid {
            width,
            height,
            neighborhood: Neighborhood::Eight,
            walkable,
            costs: None,
            min_cost: 1.0,
            moves: Vec::new(),
            bits,
            jumps: std::sync::OnceLock::new(),
            components: Components::default(),
            wall_edits: 0,
        };
        grid.rebuild();
        Ok(grid)
    }

    /// A grid from text: one line per row, `.` (or any of `.GS`) walkable, `#` `@` `O` `T` `W`
    /// blocked. Leading and trailing whitespace of each line is ignored, and so are empty lines,
    /// which makes it handy for tests and examples.
    ///
    /// # Errors
    /// [`Error::InvalidGrid`] for rows of different lengths or an unknown character.
    pub fn from_ascii(text: &str) -> Result<Grid> {
        let rows: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let height = rows.len() as u32;
        let width = rows.first().map_or(0, |r| r.chars().count()) as u32;
        let mut walkable = Vec::with_capacity(width as usize * height as usize);
        for (y, row) in rows.iter().enumerate() {
            if row.chars().count() != width as usize {
                return Err(Error::InvalidGrid(format!(
                    "row {y} has {} cells, expected {width}",
                    row.chars().count()
                )));
            }
            for c in row.chars() {
                walkable.push(match c {
                    '.' | 'G' | 'S' => true,
                    '#' | '@' | 'O' | 'T' | 'W' => false,
                    _ => {
                        return Err(Error::InvalidGrid(format!(
                            "row {y}: unknown cell character {c:?}"
                        )));
                    }
                });
            }
        }
        Self::from_walkable(width, height, walkable)
    }

    /// The same grid with another movement rule.
    pub fn with_neighborhood(mut self, neighborhood: Neighborhood) -> Grid {
        if neighborhood != self.neighborhood {
            self.neighborhood = neighborhood;
            self.rebuild_moves();
        }
        self
    }

    /// The same grid with a cost multiplier per cell (row by row). Entering a cell costs the
    /// base step (1 or sqrt(2)) times the cell's multiplier.
    ///
    /// # Errors
    /// [`Error::InvalidGrid`] when `costs` has the wrong length or a cost is not finite and > 0.
    pub fn with_costs(mut self, costs: Vec<f32>) -> Result<Grid> {
        if costs.len() != self.walkable.len() {
            return Err(Error::InvalidGrid(format!(
                "grid has {} cells, got {} costs",
                self.walkable.len(),
                costs.len()
            )));
        }
        if let Some((i, c)) = costs.iter().enumerate().find(|(_, c)| !valid_cost(**c)) {
            let (x, y) = self.coords(i as CellId);
            return Err(Error::InvalidGrid(format!(
                "cost {c} at ({x}, {y}) is not a finite number > 0"
            )));
        }
        self.costs = Some(costs);
        self.update_min_cost();
        Ok(self)
    }

    /// Number of columns.
    #[inline]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Number of rows.
    #[inline]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Number of cells (`width * height`); cell ids are `0..len()`.
    #[inline]
    pub fn len(&self) -> usize {
        self.walkable.len()
    }

    /// Always false: a grid has at least one cell.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.walkable.is_empty()
    }

    /// The movement rule.
    #[inline]
    pub fn neighborhood(&self) -> Neighborhood {
        self.neighborhood
    }

    /// The cell at column `x`, row `y`, or `None` outside the grid.
    #[inline]
    pub fn cell(&self, x: u32, y: u32) -> Option<CellId> {
        (x < self.width && y < self.height).then(|| y * self.width + x)
    }

    /// The cell at `(x, y)`, or an error saying the coordinates are outside the grid.
    ///
    /// # Errors
    /// [`QueryError::OutOfBounds`].
    pub fn cell_checked(&self, x: u32, y: u32) -> Result<CellId, QueryError> {
        self.cell(x, y).ok_or(QueryError::OutOfBounds {
            x: i64::from(x),
            y: i64::from(y),
            width: self.width,
            height: self.height,
        })
    }

    /// Column and row of `cell`.
    #[inline]
    pub fn coords(&self, cell: CellId) -> (u32, u32) {
        (cell % self.width, cell / self.width)
    }

    /// The Morton (Z-order) code of `cell`: its column's and row's bits interleaved, so that
    /// cells close on the map are mostly close in code order. Agents stored in this order
    /// read neighbouring records when they sweep the map (`sim`'s spatial slot order).
    ///
    /// ```
    /// use throng::grid::Grid;
    ///
    /// let grid = Grid::new(4, 4).unwrap();
    /// let codes: Vec<u64> = (0..4).map(|c| grid.morton(c)).collect();
    /// assert_eq!(codes, vec![0, 1, 4, 5]); // row 0: x = 0, 1, 2, 3
    /// assert_eq!(grid.morton(grid.cell(0, 1).unwrap()), 2);
    /// ```
    #[inline]
    pub fn morton(&self, cell: CellId) -> u64 {
        fn spread(v: u32) -> u64 {
            let mut v = u64::from(v);
            v = (v | v << 16) & 0x0000_ffff_0000_ffff;
            v = (v | v << 8) & 0x00ff_00ff_00ff_00ff;
            v = (v | v << 4) & 0x0f0f_0f0f_0f0f_0f0f;
            v = (v | v << 2) & 0x3333_3333_3333_3333;
            (v | v << 1) & 0x5555_5555_5555_5555
        }
        let (x, y) = self.coords(cell);
        spread(x) | spread(y) << 1
    }

    /// Whether `cell` is an id of this grid.
    #[inline]
    pub fn contains(&self, cell: CellId) -> bool {
        (cell as usize) < self.walkable.len()
    }

    /// Whether `cell` is walkable (false outside the grid).
    #[inline]
    pub fn is_walkable(&self, cell: CellId) -> bool {
        self.walkable.get(cell as usize).copied().unwrap_or(false)
    }

    /// Whether `(x, y)` is inside the grid and walkable.
    #[inline]
    pub fn is_walkable_xy(&self, x: i64, y: i64) -> bool {
        x >= 0
            && y >= 0
            && x < i64::from(self.width)
            && y < i64::from(self.height)
            && self.walkable[(y as u64 * u64::from(self.width) + x as u64) as usize]
    }

    /// Number of walkable cells.
    pub fn walkable_count(&self) -> usize {
        self.walkable.iter().filter(|w| **w).count()
    }

    /// The cost multiplier of `cell` (1 on unweighted grids).
    #[inline]
    pub fn cost(&self, cell: CellId) -> f32 {
        match &self.costs {
            Some(c) => c[cell as usize],
            None => 1.0,
        }
    }

    /// Whether the grid carries per-cell costs.
    #[inline]
    pub fn is_weighted(&self) -> bool {
        self.costs.is_some()
    }

    /// The smallest cost multiplier of a walkable cell (1 on unweighted grids).
    #[inline]
    pub fn min_cost(&self) -> f64 {
        self.min_cost
    }

    /// The legal moves out of `cell`: inside the grid, onto a walkable cell, and for diagonals
    /// with both side cells walkable. Empty for a blocked cell.
    #[inline]
    pub fn moves(&self, cell: CellId) -> MoveSet {
        self.moves[cell as usize]
    }

    /// The cell reached from `cell` by `dir` (the caller checks the move is legal).
    #[inline]
    pub fn step(&self, cell: CellId, dir: Direction) -> CellId {
        let (dx, dy) = dir.delta();
        (i64::from(cell) + i64::from(dy) * i64::from(self.width) + i64::from(dx)) as CellId
    }

    /// How a cell id changes with each move (indexed by [`Direction`] bit): the searches add
    /// these to step between cells without coordinates.
    #[inline]
    pub fn move_offsets(&self) -> [i64; 8] {
        let width = i64::from(self.width);
        std::array::from_fn(|d| i64::from(Direction::DY[d]) * width + i64::from(Direction::DX[d]))
    }

    /// Cost of moving by `dir` into `to`: base step times `to`'s cost multiplier.
    #[inline]
    pub fn step_cost(&self, dir: Direction, to: CellId) -> f64 {
        Direction::BASE_COST[dir.index()] * f64::from(self.cost(to))
    }

    /// Lower bound on the cost from `a` to `b`: octile distance (Manhattan when 4-connected)
    /// times the smallest cost multiplier. Admissible and consistent.
    #[inline]
    pub fn heuristic(&self, a: CellId, b: CellId) -> f64 {
        let (ax, ay) = self.coords(a);
        let (bx, by) = self.coords(b);
        let dx = f64::from(ax.abs_diff(bx));
        let dy = f64::from(ay.abs_diff(by));
        distance(self.neighborhood, dx, dy) * self.min_cost
    }

    /// Connected components of the walkable cells.
    #[inline]
    pub fn components(&self) -> &Components {
        &self.components
    }

    /// Whether a path exists between `a` and `b` (both walkable and in one component).
    #[inline]
    pub fn connected(&self, a: CellId, b: CellId) -> bool {
        self.components.connected(a, b)
    }

    /// Applies edits, then brings moves and components up to date once for the whole batch.
    /// Edits are checked first: on error nothing is changed.
    ///
    /// # Errors
    /// [`Error::InvalidQuery`] for a cell outside the grid, [`Error::InvalidGrid`] for a bad
    /// cost.
    pub fn apply(&mut self, changes: &[CellChange]) -> Result<()> {
        for change in changes {
            let cell = match *change {
                CellChange::SetWalkable { cell, .. } => cell,
                CellChange::SetCost { cell, cost } => {
                    if !valid_cost(cost) {
                        return Err(Error::InvalidGrid(format!(
                            "cost {cost} is not a finite number > 0"
                        )));
                    }
                    cell
                }
            };
            if !self.contains(cell) {
                return Err(QueryError::CellOutOfBounds {
                    cell,
                    cells: self.len(),
                }
                .into());
            }
        }
        let mut walls_changed = false;
        let mut flipped = Vec::new();
        for change in changes {
            match *change {
                CellChange::SetWalkable { cell, walkable } => {
                    if self.walkable[cell as usize] != walkable {
                        self.walkable[cell as usize] = walkable;
                        self.refresh_moves_around(cell);
                        let (x, y) = self.coords(cell);
                        self.bits.set(x as usize, y as usize, walkable);
                        walls_changed = true;
                        if self.jumps.get().is_some() {
                            flipped.push((x as usize, y as usize));
                        }
                    }
                }
                CellChange::SetCost { cell, cost } => {
                    let n = self.walkable.len();
                    self.costs.get_or_insert_with(|| vec![1.0; n])[cell as usize] = cost;
                }
            }
        }
        if let Some(table) = self.jumps.get_mut() {
            table.repair(&self.moves, &flipped);
        }
        if walls_changed {
            self.wall_edits += 1;
            self.components = Components::label(self);
        }
        self.update_min_cost();
        Ok(())
    }

    /// How many [`apply`](Self::apply) calls changed some cell's walkability so far: an
    /// observer that saw the same count last time knows that no wall moved since, without
    /// comparing every cell (the trace recorder does this after each tick).
    #[inline]
    pub fn wall_edits(&self) -> u64 {
        self.wall_edits
    }

    /// Sets the count of [`wall_edits`](Self::wall_edits) (a simulation restored from a
    /// snapshot carries on from the count it was saved with).
    pub(crate) fn set_wall_edits(&mut self, edits: u64) {
        self.wall_edits = edits;
    }

    /// Raw per-cell move sets, for the search's inner loop.
    #[inline]
    pub(crate) fn move_table(&self) -> &[MoveSet] {
        &self.moves
    }

    /// Raw per-cell costs, for the search's inner loop.
    #[inline]
    pub(crate) fn cost_table(&self) -> Option<&[f32]> {
        self.costs.as_deref()
    }

    /// The walkable flags as bits (row-major and transposed), for the block scans of JPS.
    #[inline]
    pub(crate) fn walk_bits(&self) -> &WalkBits {
        &self.bits
    }

    /// The jump table of JPS+, built now if this is its first use (see `jump_table.rs`).
    #[inline]
    pub(crate) fn jump_table(&self) -> &JumpTable {
        self.jumps.get_or_init(|| {
            JumpTable::build(&self.moves, self.width as usize, self.height as usize)
        })
    }

    /// Builds the jump table of JPS+ ([`SearchWorkspace::find_path_jps_plus`]) now rather
    /// than in the first query that needs it, and returns the bytes it takes (16 per cell).
    /// Once built, the grid keeps it and repairs it in [`apply`](Self::apply).
    ///
    /// [`SearchWorkspace::find_path_jps_plus`]: crate::search::SearchWorkspace::find_path_jps_plus
    pub fn prepare_jump_table(&self) -> usize {
        self.jump_table().memory_bytes()
    }

    /// Of the legal straight moves, the share that enter a cell with a forced neighbour (see
    /// `jump_table.rs`): about one over the mean length of a straight jump.
    pub(crate) fn forced_share(&self) -> f64 {
        jump_table::forced_share(&self.moves, self.width as usize)
    }

    /// Whether the jump table of JPS+ has been built (and is kept up to date by
    /// [`apply`](Self::apply)).
    pub fn has_jump_table(&self) -> bool {
        self.jumps.get().is_some()
    }

    #[inline]
    pub(crate) fn walkable_table(&self) -> &[bool] {
        &self.walkable
    }

    fn rebuild(&mut self) {
        self.rebuild_moves();
        self.components = Components::label(self);
        self.update_min_cost();
    }

    fn rebuild_moves(&mut self) {
        // The jump table is a function of the moves: built anew when next needed.
        self.jumps = std::sync::OnceLock::new();
        let n = self.walkable.len();
        let mut moves = Vec::with_capacity(n);
        for cell in 0..n as CellId {
            moves.push(self.compute_moves(cell));
        }
        self.moves = moves;
    }

    fn refresh_moves_around(&mut self, cell: CellId) {
        let (x, y) = self.coords(cell);
        for ny in y.saturating_sub(1)..=(y + 1).min(self.height - 1) {
            for nx in x.saturating_sub(1)..=(x + 1).min(self.width - 1) {
                let c = ny * self.width + nx;
                self.moves[c as usize] = self.compute_moves(c);
            }
        }
    }

    fn compute_moves(&self, cell: CellId) -> MoveSet {
        if !self.walkable[cell as usize] {
            return MoveSet::EMPTY;
        }
        let (x, y) = self.coords(cell);
        let (x, y) = (i64::from(x), i64::from(y));
        let open = |d: Direction| {
            let (dx, dy) = d.delta();
            self.is_walkable_xy(x + i64::from(dx), y + i64::from(dy))
        };
        let mut bits = 0u8;
        for d in &Direction::ALL[..4] {
            if open(*d) {
                bits |= 1 << d.index();
            }
        }
        if self.neighborhood == Neighborhood::Eight {
            for d in &Direction::ALL[4..] {
                let (a, b) = d.sides().expect("diagonal");
                if bits & (1 << a.index()) != 0 && bits & (1 << b.index()) != 0 && open(*d) {
                    bits |= 1 << d.index();
                }
            }
        }
        MoveSet(bits)
    }

    fn update_min_cost(&mut self) {
        self.min_cost = match &self.costs {
            None => 1.0,
            Some(costs) => costs
                .iter()
                .zip(&self.walkable)
                .filter(|(_, w)| **w)
                .map(|(c, _)| f64::from(*c))
                .fold(f64::INFINITY, f64::min),
        };
        if !self.min_cost.is_finite() {
            // No walkable cell: any positive scale keeps the heuristic admissible.
            self.min_cost = 1.0;
        }
    }
}

/// Octile (or Manhattan) distance for a displacement of `dx` columns and `dy` rows.
#[inline]
pub fn distance(neighborhood: Neighborhood, dx: f64, dy: f64) -> f64 {
    match neighborhood {
        Neighborhood::Eight => {
            let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
            (hi - lo) + std::f64::consts::SQRT_2 * lo
        }
        Neighborhood::Four => dx + dy,
    }
}

fn valid_cost(c: f32) -> bool {
    c.is_finite() && c > 0.0
}

/// The number of cells of a `width x height` grid, or the error saying why there can be no such
/// grid (a zero side, or more than the cell limit).
pub(crate) fn checked_cell_count(width: u32, height: u32) -> Result<usize> {
    let n = u64::from(width) * u64::from(height);
    if n == 0 {
        return Err(Error::InvalidGrid(format!(
            "size {width} x {height}: both sides must be at least 1"
        )));
    }
    if n > MAX_CELLS {
        return Err(Error::InvalidGrid(format!(
            "size {width} x {height} has {n} cells, more than the {MAX_CELLS} supported"
        )));
    }
    usize::try_from(n).map_err(|_| Error::InvalidGrid("grid too large for this platform".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corner_cutting_is_forbidden() {
        let g = Grid::from_ascii(
            "..\n\
             #.",
        )
        .unwrap();
        let top_left = g.cell(0, 0).unwrap();
        // (0,0) -> (1,1) passes (0,1) which is blocked.
        assert!(!g.moves(top_left).contains(Direction::SouthEast));
        assert!(g.moves(top_left).contains(Direction::East));
        assert!(!g.moves(top_left).contains(Direction::South));
        let open = Grid::new(2, 2).unwrap();
        assert!(open.moves(0).contains(Direction::SouthEast));
        assert_eq!(open.moves(0).len(), 3);
    }

    #[test]
    fn four_neighborhood_has_no_diagonals() {
        let g = Grid::new(3, 3)
            .unwrap()
            .with_neighborhood(Neighborhood::Four);
        let centre = g.cell(1, 1).unwrap();
        assert_eq!(g.moves(centre).len(), 4);
        assert!(g.moves(centre).iter().all(|d| !d.is_diagonal()));
        assert_eq!(g.heuristic(0, 8), 4.0);
    }

    #[test]
    fn bad_sizes_and_costs_are_errors() {
        assert!(Grid::new(0, 5).is_err());
        assert!(Grid::new(1 << 16, 1 << 16).is_err());
        assert!(Grid::from_walkable(2, 2, vec![true; 3]).is_err());
        let g = Grid::new(2, 2).unwrap();
        assert!(g.clone().with_costs(vec![1.0, 0.0, 1.0, 1.0]).is_err());
        assert!(g.clone().with_costs(vec![1.0, f32::NAN, 1.0, 1.0]).is_err());
        assert!(g.with_costs(vec![1.0; 3]).is_err());
        assert!(Grid::from_ascii("..\n.").is_err());
        assert!(Grid::from_ascii(".x").is_err());
    }

    #[test]
    fn apply_updates_moves_and_components() {
        let mut g = Grid::from_ascii(
            "...\n\
             ...\n\
             ...",
        )
        .unwrap();
        let (a, b) = (g.cell(0, 1).unwrap(), g.cell(2, 1).unwrap());
        assert!(g.connected(a, b));
        let wall: Vec<_> = (0..3)
            .map(|y| CellChange::SetWalkable {
                cell: g.cell(1, y).unwrap(),
                walkable: false,
            })
            .collect();
        g.apply(&wall).unwrap();
        assert!(!g.connected(a, b));
        assert!(!g.moves(a).contains(Direction::East));
        g.apply(&[CellChange::SetWalkable {
            cell: g.cell(1, 0).unwrap(),
            walkable: true,
        }])
        .unwrap();
        assert!(g.connected(a, b));
        // A bad edit anywhere in the batch changes nothing.
        let before = g.moves(a);
        assert!(
            g.apply(&[
                CellChange::SetWalkable {
                    cell: a,
                    walkable: false
                },
                CellChange::SetCost {
                    cell: 99,
                    cost: 1.0
                }
            ])
            .is_err()
        );
        assert_eq!(g.moves(a), before);
        g.apply(&[CellChange::SetCost { cell: a, cost: 0.5 }])
            .unwrap();
        assert_eq!(g.min_cost(), 0.5);
        assert!(g.is_weighted());
    }

    #[test]
    fn octile_distance() {
        let g = Grid::new(10, 10).unwrap();
        let h = g.heuristic(g.cell(0, 0).unwrap(), g.cell(3, 7).unwrap());
        assert!((h - (4.0 + 3.0 * std::f64::consts::SQRT_2)).abs() < 1e-12);
    }
}
