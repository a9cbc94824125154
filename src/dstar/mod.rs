//! D* Lite per agent: incremental replanning as the agent moves and the map changes.
//!
//! [`DStarLite`] is the optimized D* Lite of Koenig and Likhachev ("D* Lite", AAAI 2002,
//! figure 4: the key modifier `k_m` instead of reordering the queue when the start moves) on
//! the grid's own movement rules: octile or 4-connected moves, no corner cutting, entering a
//! cell costs the base step times that cell's cost multiplier.
//!
//! The search runs backward, from the goal toward the agent, so the agent's own moves only
//! change the heuristic (absorbed by `k_m`), and a map change only disturbs the vertices whose
//! outgoing moves it changes: a cell's moves depend on its 8 neighbours (corner rule), so a
//! change of cell `c` is handled by recomputing `rhs` of the 3 x 3 block around `c`. The next
//! [`DStarLite::plan`] then resumes the search from the queue it left, expanding only what the
//! change made inconsistent.
//!
//! # Memory
//!
//! The state is sparse: an open-addressing hash table from cell id to a 24-byte slot (`g`,
//! `rhs`, queue position) for each cell the search touched, plus the queue (20 bytes per queued
//! cell, padded to 24) and the path. Nothing is sized by the map, so thousands of agents fit.
//! [`DStarLite::memory_bytes`] reports the bytes held; with [`DStarLite::set_max_bytes`], a
//! resumed search whose state grows past the budget starts over from scratch (counted in
//! [`DStarStats::budget_resets`]), and a fresh search that exceeds it gives up with
//! [`SearchOutcome::BudgetExhausted`] and releases its memory.
//!
//! # Costs
//!
//! Costs are `u64` keys as in the A* (`src/search/cost.rs`): fixed point on uniform grids
//! (straight step `2^31`, diagonal `round(sqrt(2) * 2^31)`), so keys compare exactly and the
//! path found has exactly the optimal cost A* finds; `f64` bit patterns on weighted grids. The
//! heuristic is octile (Manhattan when 4-connected) times the cheapest cell cost seen when the
//! search started; a change that makes terrain cheaper than that, or turns a uniform grid into
//! a weighted one, makes the agent start over (counted in [`DStarStats::restarts`]).
//!
//! # When it pays
//!
//! A repair beats a new A* search when the change is near the agent, which is where an agent
//! sees changes (several times faster on obstacles, rooms and mazes, with far fewer
//! expansions). It loses when the change is near the goal, where the search tree is rooted,
//! and on open maps, where A* runs straight at the goal; a first plan costs more than an A*
//! query (hash probes instead of flat arrays, ties broken toward the goal side). Memory is
//! about 35 to 45 bytes per touched cell and does not grow with the map; thousands of agents
//! with long trips need the budget ([`DStarLite::set_max_bytes`]). Figures (`cargo bench
//! --bench dstar`): `docs/performance.md`.
//!
//! ```
//! use throng::dstar::DStarLite;
//! use throng::grid::{CellChange, Grid};
//!
//! let mut grid = Grid::from_ascii(
//!     "......\n\
//!      ......\n\
//!      ......",
//! )?;
//! let (start, goal) = (grid.cell(0, 1).unwrap(), grid.cell(5, 1).unwrap());
//! let mut agent = DStarLite::new(goal);
//! assert_eq!(agent.plan(&grid, start)?.cost(), Some(5.0));
//! // A wall appears across the middle row; the agent is told which cells changed.
//! let wall = grid.cell(2, 1).unwrap();
//! grid.apply(&[CellChange::SetWalkable { cell: wall, walkable: false }])?;
//! agent.notify_changes(&grid, &[wall]);
//! let outcome = agent.plan(&grid, start)?;
//! assert_eq!(grid.path_cost(agent.path())?, outcome.cost().unwrap());
//! // No corner cutting past the wall: two diagonals and three straight steps.
//! assert!((outcome.cost().unwrap() - (3.0 + 2.0 * 2f64.sqrt())).abs() < 1e-9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod queue;
mod snapshot;
mod table;

use serde::{Deserialize, Serialize};

use crate::grid::{CellChange, CellId, Direction, Grid, NO_CELL, Neighborhood};
use crate::search::{QueryError, SearchOutcome, validate_endpoints};
use queue::{Key, Queue};
use table::{INF, NOT_QUEUED, SlotTable};

/// Fixed-point units per straight step on uniform grids (as in the A*).
const SCALE: u64 = 1 << 31;
/// `round(sqrt(2) * SCALE)`.
const DIAGONAL: u64 = 3_037_000_500;
const STEP: [u64; 8] = [
    SCALE, SCALE, SCALE, SCALE, DIAGONAL, DIAGONAL, DIAGONAL, DIAGONAL,
];

/// Factor applied to the heuristic on weighted grids (`f64` costs). Where the octile bound is
/// exact (a straight run over the cheapest terrain) the key of a vertex on the shortest path
/// ties the start's key, and one rounding of `g + h + k_m` could put it above and stop the
/// search with that vertex still inconsistent. Shrinking `h` by a relative 1e-9 (far above the
/// rounding noise, far below any real cost difference) turns those ties into strict
/// inequalities; a scaled consistent heuristic stays consistent.
const H_SHRINK: f64 = 1.0 - 1e-9;

/// Counters of a [`DStarLite`] agent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DStarStats {
    /// Vertices expanded by the last [`DStarLite::plan`] (taken off the queue and made
    /// consistent, or raised to infinity).
    pub expanded: u64,
    /// Vertices whose `rhs` was recomputed or lowered by the last plan and by the change
    /// notifications since the plan before it.
    pub updates: u64,
    /// Vertices touched so far (slots held).
    pub touched: u64,
    /// Expansions over the agent's lifetime.
    pub total_expanded: u64,
    /// Plans over the agent's lifetime.
    pub plans: u64,
    /// Times the state grew past the memory budget and the search started over.
    pub budget_resets: u64,
    /// Times the search started over for another reason (new goal, another grid, cheaper
    /// terrain than the heuristic assumed).
    pub restarts: u64,
}

/// Why a search stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The state grew past the memory budget.
    OverBudget,
}

/// The D* Lite state of one agent. See the [module docs](self). Cloning copies the whole
/// search state (the benchmark replays one repair many times from a clone).
#[derive(Debug, Clone)]
pub struct DStarLite {
    goal: CellId,
    /// `s_last`: the start of the current search (where the agent was at the last plan).
    start: CellId,
    /// The key modifier: sum of the heuristic between successive starts.
    km: u64,
    /// Whether the search has been initialised (goal queued) for the current grid.
    initialized: bool,
    /// Cost model chosen at initialisation: `f64` bit patterns when true, fixed point when not.
    weighted: bool,
    /// Heuristic scale (cheapest cell cost when the search started).
    h_scale: f64,
    neighborhood: Neighborhood,
    width: u32,
    height: u32,
    offsets: [i64; 8],
    table: SlotTable,
    queue: Queue,
    path: Vec<CellId>,
    max_bytes: Option<usize>,
    pending_updates: u64,
    stats: DStarStats,
}

impl DStarLite {
    /// An agent heading for `goal`, with no memory budget. Nothing is searched until
    /// [`plan`](Self::plan).
    pub fn new(goal: CellId) -> Self {
        DStarLite {
            goal,
            start: goal,
            km: 0,
            initialized: false,
            weighted: false,
            h_scale: 1.0,
            neighborhood: Neighborhood::Eight,
            width: 0,
            height: 0,
            offsets: [0; 8],
            table: SlotTable::default(),
            queue: Queue::default(),
            path: Vec::new(),
            max_bytes: None,
            pending_updates: 0,
            stats: DStarStats::default(),
        }
    }

    /// An agent heading for `goal` whose state may hold at most `max_bytes`.
    pub fn with_max_bytes(goal: CellId, max_bytes: usize) -> Self {
        let mut agent = Self::new(goal);
        agent.max_bytes = Some(max_bytes);
        agent
    }

    /// Sets (or removes, with `None`) the memory budget; see the [module docs](self).
    pub fn set_max_bytes(&mut self, max_bytes: Option<usize>) {
        self.max_bytes = max_bytes;
    }

    /// The goal.
    pub fn goal(&self) -> CellId {
        self.goal
    }

    /// Heads for another goal: the search starts over at the next plan.
    pub fn set_goal(&mut self, goal: CellId) {
        if goal != self.goal {
            self.goal = goal;
            if self.initialized {
                self.stats.restarts += 1;
            }
            self.reset(false);
        }
    }

    /// Whether a search is under way, so that the next [`plan`](Self::plan) resumes it
    /// (unless it has to start over) rather than starting from scratch.
    pub fn has_search(&self) -> bool {
        self.initialized
    }

    /// Counters; see [`DStarStats`].
    pub fn stats(&self) -> DStarStats {
        let mut stats = self.stats;
        stats.touched = self.table.len() as u64;
        stats
    }

    /// The path of the last plan that found one, from the start given to it to the goal (both
    /// included). Empty when the last plan found none.
    pub fn path(&self) -> &[CellId] {
        &self.path
    }

    /// Bytes held by this agent's state (the struct and the capacity of its buffers).
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.table.memory_bytes()
            + self.queue.memory_bytes()
            + self.path.capacity() * std::mem::size_of::<CellId>()
    }

    /// Forgets the search, keeping the goal and the budget. The next plan starts from scratch.
    pub fn clear(&mut self) {
        self.reset(true);
    }

    fn reset(&mut self, release: bool) {
        self.table.clear(release);
        self.queue.clear(release);
        if release {
            self.path = Vec::new();
        } else {
            self.path.clear();
        }
        self.km = 0;
        self.initialized = false;
    }

    /// Tells the agent that `cells` changed on `grid` (walkability or cost; `grid` is the map
    /// after the change). Only the vertices whose moves the change affects are updated; the
    /// search resumes at the next [`plan`](Self::plan). Cells outside the grid are ignored.
    /// Every change made since the last plan must be notified before the next one.
    pub fn notify_changes(&mut self, grid: &Grid, cells: &[CellId]) {
        if !self.initialized {
            return;
        }
        if !self.fits(grid) {
            self.stats.restarts += 1;
            self.reset(false);
            return;
        }
        for &cell in cells {
            if !grid.contains(cell) {
                continue;
            }
            let (x, y) = grid.coords(cell);
            for ny in y.saturating_sub(1)..=(y + 1).min(self.height - 1) {
                for nx in x.saturating_sub(1)..=(x + 1).min(self.width - 1) {
                    let u = ny * self.width + nx;
                    if u == self.goal {
                        continue;
                    }
                    let rhs = self.lookahead(grid, u);
                    let slot = match self.table.find(u) {
                        Some(s) => s,
                        None if rhs == INF => continue, // untouched and still unreachable
                        None => self.table.find_or_insert(u),
                    };
                    self.table.slots[slot as usize].rhs = rhs;
                    self.pending_updates += 1;
                    self.update_vertex(slot);
                }
            }
        }
    }

    /// [`notify_changes`](Self::notify_changes) for the cells of a batch of [`CellChange`]s
    /// (already applied to `grid`).
    pub fn notify_cell_changes(&mut self, grid: &Grid, changes: &[CellChange]) {
        for change in changes {
            let cell = match *change {
                CellChange::SetWalkable { cell, .. } | CellChange::SetCost { cell, .. } => cell,
            };
            self.notify_changes(grid, &[cell]);
        }
    }

    /// Plans (or replans, resuming the previous search) from `start`, the agent's current
    /// cell, to the goal on `grid`. On [`SearchOutcome::Found`] the path is in
    /// [`path`](Self::path); it is optimal, as A*'s.
    ///
    /// # Errors
    /// [`QueryError`] when `start` or the goal is outside the grid or blocked.
    pub fn plan(&mut self, grid: &Grid, start: CellId) -> Result<SearchOutcome, QueryError> {
        self.stats.expanded = 0;
        self.stats.updates = std::mem::take(&mut self.pending_updates);
        self.stats.plans += 1;
        self.path.clear();
        validate_endpoints(grid, start, self.goal)?;
        if self.initialized && !self.fits(grid) {
            self.stats.restarts += 1;
            self.reset(false);
        }
        let mut fresh = !self.initialized;
        if fresh {
            self.initialize(grid, start);
        } else if start != self.start {
            self.km = self.add(self.km, self.heuristic(self.start, start));
            self.start = start;
        }
        if !grid.connected(start, self.goal) {
            return Ok(SearchOutcome::Unreachable);
        }
        loop {
            match self.compute(grid) {
                Ok(()) => {}
                Err(Stop::OverBudget) if fresh => {
                    self.reset(true);
                    return Ok(SearchOutcome::BudgetExhausted);
                }
                Err(Stop::OverBudget) => {
                    self.stats.budget_resets += 1;
                    self.reset(true);
                    self.initialize(grid, start);
                    fresh = true;
                    continue;
                }
            }
            if self.extract(grid) {
                return Ok(SearchOutcome::Found {
                    cost: grid.legal_path_cost(self.path.iter().copied()),
                });
            }
            // Not expected (the theory says the greedy descent of `g` is a shortest path);
            // kept as a guard so that a wrong state can never return a wrong path.
            debug_assert!(false, "D* Lite path extraction failed");
            if fresh {
                self.path.clear();
                return Ok(SearchOutcome::Unreachable);
            }
            self.stats.restarts += 1;
            self.reset(false);
            self.initialize(grid, start);
            fresh = true;
        }
    }

    /// Whether the state still matches `grid` (size, movement rule, cost model, heuristic).
    fn fits(&self, grid: &Grid) -> bool {
        grid.width() == self.width
            && grid.height() == self.height
            && grid.neighborhood() == self.neighborhood
            && grid.is_weighted() == self.weighted
            && (!self.weighted || grid.min_cost() >= self.h_scale)
    }

    fn initialize(&mut self, grid: &Grid, start: CellId) {
        self.table.clear(false);
        self.queue.clear(false);
        self.width = grid.width();
        self.height = grid.height();
        self.neighborhood = grid.neighborhood();
        self.weighted = grid.is_weighted();
        self.h_scale = grid.min_cost();
        self.offsets = grid.move_offsets();
        self.start = start;
        self.km = 0;
        self.initialized = true;
        let goal = self.table.find_or_insert(self.goal);
        self.table.slots[goal as usize].rhs = 0;
        let key = self.key(goal);
        self.queue.insert(&mut self.table.slots, goal, key);
    }

    /// `a + b` in the cost model; infinity absorbs.
    #[inline(always)]
    fn add(&self, a: u64, b: u64) -> u64 {
        if a == INF || b == INF {
            INF
        } else if self.weighted {
            (f64::from_bits(a) + f64::from_bits(b)).to_bits()
        } else {
            a.saturating_add(b)
        }
    }

    /// Cost of the move in direction `d` into `to`.
    #[inline(always)]
    fn step(&self, grid: &Grid, d: usize, to: CellId) -> u64 {
        if self.weighted {
            (Direction::BASE_COST[d] * f64::from(grid.cost(to))).to_bits()
        } else {
            STEP[d]
        }
    }

    /// Octile (Manhattan) lower bound between two cells, in the cost model.
    #[inline]
    fn heuristic(&self, a: CellId, b: CellId) -> u64 {
        let (w, a, b) = (self.width, a, b);
        let (dx, dy) = ((a % w).abs_diff(b % w), (a / w).abs_diff(b / w));
        let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
        if self.weighted {
            let d = match self.neighborhood {
                Neighborhood::Eight => {
                    f64::from(hi - lo) + std::f64::consts::SQRT_2 * f64::from(lo)
                }
                Neighborhood::Four => f64::from(hi + lo),
            };
            (d * self.h_scale * H_SHRINK).to_bits()
        } else {
            match self.neighborhood {
                Neighborhood::Eight => u64::from(hi - lo) * SCALE + u64::from(lo) * DIAGONAL,
                Neighborhood::Four => u64::from(hi + lo) * SCALE,
            }
        }
    }

    #[inline]
    fn g_of(&self, cell: CellId) -> u64 {
        self.table
            .find(cell)
            .map_or(INF, |s| self.table.slots[s as usize].g)
    }

    /// `min` over the moves out of `u` of the move's cost plus `g` of the cell reached.
    fn lookahead(&self, grid: &Grid, u: CellId) -> u64 {
        self.best_move(grid, u).0
    }

    /// The cheapest move out of `u` (move cost plus `g` of the cell reached; the first in move
    /// order among equals) and that cost; `(INF, NO_CELL)` when every cell reached is at infinity.
    fn best_move(&self, grid: &Grid, u: CellId) -> (u64, CellId) {
        let (mut best, mut best_next) = (INF, NO_CELL);
        let mut bits = grid.moves(u).0;
        while bits != 0 {
            let d = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let next = (i64::from(u) + self.offsets[d]) as CellId;
            let v = self.add(self.step(grid, d, next), self.g_of(next));
            if v < best {
                best = v;
                best_next = next;
            }
        }
        (best, best_next)
    }

    fn key(&self, slot: u32) -> Key {
        let s = self.table.slots[slot as usize];
        let m = s.g.min(s.rhs);
        if m == INF {
            return (INF, INF);
        }
        (
            self.add(self.add(m, self.heuristic(self.start, s.cell)), self.km),
            m,
        )
    }

    fn update_vertex(&mut self, slot: u32) {
        let s = self.table.slots[slot as usize];
        if s.g != s.rhs {
            let key = self.key(slot);
            if s.pos == NOT_QUEUED {
                self.queue.insert(&mut self.table.slots, slot, key);
            } else {
                self.queue.update(&mut self.table.slots, slot, key);
            }
        } else if s.pos != NOT_QUEUED {
            self.queue.remove(&mut self.table.slots, slot);
        }
    }

    fn over_budget(&self) -> bool {
        self.max_bytes.is_some_and(|max| self.memory_bytes() > max)
    }

    /// ComputeShortestPath of the optimized D* Lite.
    fn compute(&mut self, grid: &Grid) -> Result<(), Stop> {
        loop {
            let (start_g, start_rhs) = match self.table.find(self.start) {
                Some(s) => {
                    let s = self.table.slots[s as usize];
                    (s.g, s.rhs)
                }
                None => (INF, INF),
            };
            let Some((top_key, u)) = self.queue.top() else {
                return Ok(());
            };
            let m = start_g.min(start_rhs);
            let start_key = if m == INF {
                (INF, INF)
            } else {
                (self.add(m, self.km), m)
            };
            if top_key >= start_key && start_g == start_rhs {
                return Ok(());
            }
            let new_key = self.key(u);
            if top_key < new_key {
                self.queue.update(&mut self.table.slots, u, new_key);
                continue;
            }
            self.stats.expanded += 1;
            self.stats.total_expanded += 1;
            let slot = self.table.slots[u as usize];
            let cell = slot.cell;
            let mut bits = grid.moves(cell).0;
            if slot.g > slot.rhs {
                // Overconsistent: settle g and lower the lookahead of the predecessors.
                let g = slot.rhs;
                self.table.slots[u as usize].g = g;
                self.queue.remove(&mut self.table.slots, u);
                while bits != 0 {
                    let d = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let pred = (i64::from(cell) + self.offsets[d]) as CellId;
                    if pred == self.goal {
                        continue;
                    }
                    // The move pred -> cell is the opposite direction, same base cost.
                    let via = self.add(self.step(grid, d, cell), g);
                    let p = self.table.find_or_insert(pred);
                    if via < self.table.slots[p as usize].rhs {
                        self.table.slots[p as usize].rhs = via;
                        self.stats.updates += 1;
                        self.update_vertex(p);
                    }
                }
            } else {
                // Underconsistent: raise g to infinity; predecessors that went through it look
                // again.
                let g_old = slot.g;
                self.table.slots[u as usize].g = INF;
                self.update_vertex(u);
                while bits != 0 {
                    let d = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let pred = (i64::from(cell) + self.offsets[d]) as CellId;
                    if pred == self.goal {
                        continue;
                    }
                    let Some(p) = self.table.find(pred) else {
                        continue; // rhs infinite: did not go through `cell`
                    };
                    if self.table.slots[p as usize].rhs == self.add(self.step(grid, d, cell), g_old)
                    {
                        let rhs = self.lookahead(grid, pred);
                        self.table.slots[p as usize].rhs = rhs;
                        self.stats.updates += 1;
                        self.update_vertex(p);
                    }
                }
            }
            if self.over_budget() {
                return Err(Stop::OverBudget);
            }
        }
    }

    /// Follows the cheapest move (cost plus `g` of the cell reached) from the start to the
    /// goal into the path buffer. False when it gets stuck or loops.
    fn extract(&mut self, grid: &Grid) -> bool {
        let mut path = std::mem::take(&mut self.path);
        path.clear();
        let mut s = self.start;
        path.push(s);
        let limit = self.table.len() + 1;
        let mut ok = true;
        while s != self.goal {
            if path.len() > limit {
                ok = false;
                break;
            }
            let (_, next) = self.best_move(grid, s);
            if next == NO_CELL {
                ok = false;
                break;
            }
            s = next;
            path.push(s);
        }
        if !ok {
            path.clear();
        }
        self.path = path;
        ok
    }
}
