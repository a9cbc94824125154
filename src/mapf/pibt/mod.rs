//! PIBT: Priority Inheritance with Backtracking (Okumura et al., IJCAI 2019, AIJ 2022).
//!
//! One call of [`Pibt::step`] gives every agent its next cell, collision-free. Agents choose in
//! priority order; each takes its best candidate cell (ranked by a [`Guidance`]: how far the
//! goal is from each cell) that nobody has reserved. When that cell holds an agent that has not
//! chosen yet, the lower agent is made to choose first, with the higher agent's priority
//! (inheritance), and may not take the higher agent's cell (no swaps); if it finds no cell at
//! all, the higher agent tries its next candidate (backtracking). An agent whose candidates all
//! fail stays. The agent with the highest priority therefore always gets its best cell when
//! every pair of neighbouring cells lies on a cycle, which is why priorities that grow while an
//! agent is away from its goal bring every agent to its goal in lifelong runs.
//!
//! Our additions to the paper's rules, each needed by the grids here:
//! - 8-connected moves: a diagonal move is refused when the agent standing on one of the other
//!   two cells of the 2 x 2 block has chosen to move onto the fourth (the two would cross).
//!   Whoever decides last checks against the other's choice, so the check is symmetric even when
//!   an earlier choice is withdrawn by backtracking.
//! - Swaps ([`Pibt::set_swap`], on by default), after the "swap" of LaCAM*'s PIBT (Okumura,
//!   "Engineering LaCAM*", AAMAS 2024): plain PIBT cannot pass two agents heading opposite ways
//!   through a corridor, or get an agent out of a dead end another agent wants to enter. When
//!   the corridor walk says such a swap is needed and possible, the agent reverses its
//!   candidate order (it backs away into the open) and pulls the other agent after it, so that
//!   the pair reaches a junction where they can pass.
//! - An agent pushed off its goal tries the cells off its pusher's way first ([`Pibt::set_yield`],
//!   on by default): where its pusher goes next (cells nearer the pusher's goal than the cell it
//!   takes) rank last. Otherwise it flees down the pusher's route, and in one-shot runs two
//!   agents whose goals lie on each other's way evict each other for ever. Only agents at their
//!   goal step aside so: for travellers it cost the 8-connected crowds 5% to 15% in sum of
//!   costs.
//! - Candidates fixed from outside ([`Candidates::fixed`], for agents driven by a caller): an
//!   agent with them tries exactly those cells, in that order, takes part in no swap and never
//!   steps aside, so it ends on one of them.
//! - The recursion is an explicit stack: a chain of thousands of agents in a corridor cannot
//!   overflow the thread's stack.
//!
//! Cost: every agent is decided once; the candidates of each are ranked once, before the
//! sequential part (callers rank them in parallel); a step is O(agents x moves) plus the
//! corridor walks of the swap test, which stop at the first cell with a way around.

use crate::grid::{CellId, Direction, Grid, NO_CELL};

mod part;
mod swap;

pub use part::{Claim, Part};

/// "No agent" in per-cell and per-agent tables.
pub const NO_AGENT: u32 = u32::MAX;

/// The most candidates an agent has: eight moves and staying.
pub const MAX_CANDIDATES: usize = 9;

/// What PIBT needs to know of the agents' goals.
pub trait Guidance: Sync {
    /// Estimated cost from `cell` to the agent's goal, in any fixed unit: lower is better.
    /// Only values of the same agent are compared. Called for the agent's cell and its
    /// neighbours (ranking) and for cells along corridors near it (swap test).
    fn cost_to_go(&self, agent: u32, cell: CellId) -> i64;

    /// Whether `cell` is the agent's goal.
    fn is_goal(&self, agent: u32, cell: CellId) -> bool;

    /// Whether an agent may end the step on `cell` (every cell by default). A caller that
    /// decides a part of the map apart (a region) says no for cells outside it: they are
    /// dropped from the candidates ranked on demand (candidates given ranked are the caller's
    /// to filter).
    fn allows(&self, _cell: CellId) -> bool {
        true
    }

    /// Whether every cell within one move of `cell`, and `cell`, is one [`allows`]
    /// (`Guidance::allows`): one test for all of an agent's candidates, which then need no
    /// test each. No by default (each is tested); an implementation that says yes must allow
    /// each of those cells. PIBT asks it for the cell an agent stands on and then keeps every
    /// candidate of that agent untested, so an implementation that says yes must be used with
    /// candidates within one move of the agent's cell (those [`rank_candidates`] makes).
    ///
    /// [`allows`]: Guidance::allows
    fn allows_around(&self, _cell: CellId) -> bool {
        false
    }

    /// Whether `cell` may be some agent's goal (yes by default). An implementation that knows
    /// the goals says no for a cell that is nobody's: the swap test then does not look through
    /// the neighbours for one whose goal it is (an agent's worth of lookups in a large crowd).
    fn may_be_goal(&self, _cell: CellId) -> bool {
        true
    }

    /// [`cost_to_go`](Self::cost_to_go) of several cells at once (an implementation can share
    /// work between them). Fills `out[k]` for `cells[k]`.
    fn costs_to_go(&self, agent: u32, cells: &[CellId], out: &mut [i64]) {
        for (o, &c) in out.iter_mut().zip(cells) {
            *o = self.cost_to_go(agent, c);
        }
    }
}

/// An agent's cells to try this step, best first: its legal moves and its own cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidates {
    cells: [CellId; MAX_CANDIDATES],
    len: u8,
    /// Not ranked yet: the agent's own cell ranks first, the rest is ranked only if the agent
    /// is pushed (see [`Candidates::stay_first`]).
    lazy: bool,
    /// Fixed from outside: tried as given, never reordered (see [`Candidates::fixed`]).
    fixed: bool,
}

impl Default for Candidates {
    fn default() -> Self {
        Candidates {
            cells: [NO_CELL; MAX_CANDIDATES],
            len: 0,
            lazy: false,
            fixed: false,
        }
    }
}

impl Candidates {
    /// For an agent whose own cell ranks first (at its goal, or with nowhere to go): it stays
    /// unless pushed, and [`Pibt::step`] ranks its cells (with [`rank_candidates`] and the
    /// step's salt) only if it is. Most of a settled crowd is never pushed, so this saves the
    /// ranking of most of it; the steps are the same as with the ranking made up front, as
    /// long as the guidance does rank the agent's own cell first.
    pub fn stay_first() -> Candidates {
        Candidates {
            lazy: true,
            ..Candidates::default()
        }
    }

    /// The cells, best first.
    pub fn as_slice(&self) -> &[CellId] {
        &self.cells[..self.len as usize]
    }

    /// Candidates chosen from outside (a controlled agent's move, then its own cell): tried
    /// exactly as given, never reordered by the swap rule or by stepping aside, and the agent is
    /// never taken as a swap partner, so it ends on one of these cells. An agent that must
    /// stay whatever happens has only its own cell.
    pub fn fixed(cells: &[CellId]) -> Candidates {
        Candidates {
            fixed: true,
            ..Candidates::from_cells(cells)
        }
    }

    /// Whether the candidates were made by [`Candidates::stay_first`] (not ranked yet).
    pub fn is_stay_first(&self) -> bool {
        self.lazy
    }

    /// Whether the candidates were made by [`Candidates::fixed`].
    pub fn is_fixed(&self) -> bool {
        self.fixed
    }

    /// Keeps only the cells `keep` accepts, in their order (a lazy list stays lazy: its cells
    /// are ranked, and filtered through [`Guidance::allows`], when the agent is pushed).
    pub fn retain(&mut self, keep: impl Fn(CellId) -> bool) {
        let mut n = 0;
        for k in 0..self.len as usize {
            let cell = self.cells[k];
            if keep(cell) {
                self.cells[n] = cell;
                n += 1;
            }
        }
        self.cells[n..].fill(NO_CELL);
        self.len = n as u8;
    }

    /// Candidates from an explicit list (at most [`MAX_CANDIDATES`]; more are dropped).
    pub fn from_cells(cells: &[CellId]) -> Candidates {
        let mut c = Candidates::default();
        for (slot, &cell) in c.cells.iter_mut().zip(cells) {
            *slot = cell;
            c.len += 1;
        }
        c
    }
}

/// Ranks the cells agent `agent` standing on `at` may take this step: its own cell and each
/// legal move, by the guidance's cost to go, ties broken by a hash of `salt`, the agent and the
/// cell (deterministic, but different from step to step so that symmetric agents do not repeat
/// the same dance). Pure: safe to call for many agents in parallel.
pub fn rank_candidates(
    grid: &Grid,
    guide: &impl Guidance,
    agent: u32,
    at: CellId,
    salt: u64,
) -> Candidates {
    let mut cells = [NO_CELL; MAX_CANDIDATES];
    cells[0] = at;
    let mut len = 1;
    let offsets = grid.move_offsets();
    for dir in grid.moves(at).iter() {
        cells[len] = (i64::from(at) + offsets[dir.index()]) as CellId;
        len += 1;
    }
    let mut costs = [0i64; MAX_CANDIDATES];
    guide.costs_to_go(agent, &cells[..len], &mut costs[..len]);
    let mut keys = [(0i64, 0u32, NO_CELL); MAX_CANDIDATES];
    for ((key, &cost), &cell) in keys.iter_mut().zip(&costs).zip(&cells).take(len) {
        *key = (cost, tie_break(salt, agent, cell), cell);
    }
    keys[..len].sort_unstable();
    let mut out = Candidates {
        cells: [NO_CELL; MAX_CANDIDATES],
        len: len as u8,
        lazy: false,
        fixed: false,
    };
    for (slot, key) in out.cells.iter_mut().zip(&keys[..len]) {
        *slot = key.2;
    }
    out
}

/// A well-mixed 32-bit hash of a step's salt, an agent and a cell.
#[inline]
fn tie_break(salt: u64, agent: u32, cell: CellId) -> u32 {
    crate::hash::mix64(salt ^ (u64::from(agent) << 32 | u64::from(cell))) as u32
}

/// Where a pass reads each agent's ranked cells: a list per agent, or a crowd's lists read
/// through a part's numbering ([`part::PartRanked`]).
trait Ranked {
    /// Whether a part's cells must be kept to those [`Guidance::allows`].
    const KEEP_TO_GUIDE: bool;

    /// Agent `agent`'s candidates.
    fn get(&self, agent: u32) -> &Candidates;
}

impl Ranked for [Candidates] {
    const KEEP_TO_GUIDE: bool = false;

    #[inline]
    fn get(&self, agent: u32) -> &Candidates {
        &self[agent as usize]
    }
}

/// One bit per cell.
#[derive(Debug, Clone, Default)]
pub(crate) struct CellBits(Vec<u64>);

impl CellBits {
    pub(crate) fn new(cells: usize) -> CellBits {
        CellBits(vec![0; cells.div_ceil(64)])
    }

    /// Every bit of `cells` cells cleared, the buffer kept.
    pub(crate) fn reset(&mut self, cells: usize) {
        self.0.clear();
        self.0.resize(cells.div_ceil(64), 0);
    }

    #[inline]
    pub(crate) fn get(&self, cell: CellId) -> bool {
        self.0[cell as usize / 64] >> (cell % 64) & 1 == 1
    }

    #[inline]
    pub(crate) fn set(&mut self, cell: CellId) {
        self.0[cell as usize / 64] |= 1 << (cell % 64);
    }

    #[inline]
    fn clear(&mut self, cell: CellId) {
        self.0[cell as usize / 64] &= !(1 << (cell % 64));
    }
}

/// One agent's decision in progress (a frame of PIBT's recursion).
#[derive(Debug, Clone, Copy)]
struct Frame {
    agent: u32,
    candidates: Candidates,
    /// Index of the candidate being tried.
    k: u8,
    /// The agent to pull into this agent's cell if its first candidate succeeds (swap).
    swap_with: u32,
}

/// PIBT's tables, sized to a grid and reused step after step (no allocation once warm).
///
/// ```
/// use throng::grid::Grid;
/// use throng::mapf::{Guidance, Pibt, check_step, rank_candidates};
///
/// /// Each agent heads for a goal cell; the cost to go is the straight-line step count.
/// struct Goals<'a>(&'a Grid, Vec<u32>);
/// impl Guidance for Goals<'_> {
///     fn cost_to_go(&self, agent: u32, cell: u32) -> i64 {
///         let ((x, y), (gx, gy)) = (self.0.coords(cell), self.0.coords(self.1[agent as usize]));
///         i64::from(x.abs_diff(gx) + y.abs_diff(gy))
///     }
///     fn is_goal(&self, agent: u32, cell: u32) -> bool {
///         self.1[agent as usize] == cell
///     }
/// }
///
/// // Two agents in a corridor with a side pocket, heading past each other.
/// let grid = Grid::from_ascii(".....\n.#.##")?.with_neighborhood(throng::grid::Neighborhood::Four);
/// let c = |x, y| grid.cell(x, y).unwrap();
/// let guide = Goals(&grid, vec![c(4, 0), c(0, 0)]);
/// let mut positions = vec![c(0, 0), c(4, 0)];
/// let mut pibt = Pibt::new(grid.len());
/// for step in 0..20u64 {
///     let candidates: Vec<_> = (0..2)
///         .map(|a| rank_candidates(&grid, &guide, a, positions[a as usize], step))
///         .collect();
///     let order = [0, 1]; // agent 0 first
///     let next = pibt.step(&grid, &positions, &candidates, &order, &guide, step).to_vec();
///     check_step(&grid, &positions, &next).expect("a legal joint step");
///     positions = next;
/// }
/// assert_eq!(positions, vec![c(4, 0), c(0, 0)]);
/// # Ok::<(), throng::error::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Pibt {
    /// Agent standing on each cell during a step.
    occupied_now: Vec<u32>,
    /// Cells reserved for the end of the step, a bit each (only ever tested: one bit keeps
    /// the table in the cache where a 32-bit agent per cell would not, and it is tested for
    /// every candidate tried).
    occupied_next: CellBits,
    /// Each agent's chosen cell ([`NO_CELL`] while undecided).
    next: Vec<CellId>,
    frames: Vec<Frame>,
    swap: bool,
    /// Tie-break salt of the step being decided (for candidates ranked on demand).
    salt: u64,
    /// Whether pushed agents step aside off their pusher's way (see [`Pibt::set_yield`]).
    yield_way: bool,
    /// Whether a swap needs a free cell to back off into (see [`Pibt::set_swap_needs_room`]).
    swap_needs_room: bool,
    /// Swaps made in the last step.
    swaps: u32,
    /// [`Pibt::step_part`]: cells an agent decided later wants first, a bit each (sized on
    /// first use), and the claims themselves, by cell.
    claimed: CellBits,
    claims: Vec<Claim>,
    /// Cells of the grid the tables are for (`occupied_now` is empty until first needed when
    /// made by [`Pibt::for_lent_occupancy`]).
    cells: usize,
}

impl Pibt {
    /// Tables for a grid of `cells` cells.
    pub fn new(cells: usize) -> Pibt {
        Pibt {
            occupied_now: vec![NO_AGENT; cells],
            ..Pibt::for_lent_occupancy(cells)
        }
    }

    /// Tables for a grid of `cells` cells whose caller lends its own table of which agent
    /// stands on each cell for every step ([`Pibt::step_occupied`]): the tables' own (4 bytes
    /// a cell, 64 MiB on a 4096 x 4096 map) is made only if a step needs it
    /// ([`Pibt::step`], [`Pibt::step_part`]).
    pub fn for_lent_occupancy(cells: usize) -> Pibt {
        Pibt {
            occupied_now: Vec::new(),
            occupied_next: CellBits::new(cells),
            next: Vec::new(),
            frames: Vec::new(),
            swap: true,
            salt: 0,
            yield_way: true,
            swap_needs_room: true,
            swaps: 0,
            claimed: CellBits(Vec::new()),
            claims: Vec::new(),
            cells,
        }
    }

    /// Cells of the grid the tables were made for.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// Makes the table of which agent stands on each cell if it is not made yet
    /// ([`Pibt::for_lent_occupancy`]).
    fn own_occupancy(&mut self) {
        if self.occupied_now.len() != self.cells {
            self.occupied_now = vec![NO_AGENT; self.cells];
        }
    }

    /// Turns the swap rule on or off (on by default; see the module docs).
    pub fn set_swap(&mut self, on: bool) {
        self.swap = on;
    }

    /// Whether a swap is made only when the agent has a free cell to back off into now (on by
    /// default). Without the check, on 8-connected lifelong crowds, an agent that could not
    /// back off stopped pushing forward and pairs faced each other for good (one agent reached
    /// 2 goals in 1,000 steps of `tests/pibt.rs`'s lifelong run). LaCAM turns it off: its
    /// search tries other successors when a step goes nowhere, and with the check PIBT could
    /// not pass agents through the two-wide corridors of `maze-32-32-2` (8 of 271 benchmark
    /// instances at 200 to 300 agents unsolved in 10 s; all 8 solved in about 10 ms without).
    pub fn set_swap_needs_room(&mut self, on: bool) {
        self.swap_needs_room = on;
    }

    /// Whether a swap needs a free cell to back off into (see
    /// [`set_swap_needs_room`](Self::set_swap_needs_room)).
    pub fn swap_needs_room(&self) -> bool {
        self.swap_needs_room
    }

    /// Turns on or off (on by default) the rule that an agent pushed by another tries the cells
    /// off its pusher's way first (see the module docs).
    pub fn set_yield(&mut self, on: bool) {
        self.yield_way = on;
    }

    /// Swaps made in the last step.
    pub fn swaps(&self) -> u32 {
        self.swaps
    }

    /// Decides every agent's next cell. `positions[a]` is agent `a`'s cell ([`NO_CELL`] for no
    /// agent; no two agents on one cell), `candidates[a]` its ranked cells (from
    /// [`rank_candidates`], or [`Candidates::stay_first`]), `order` the agents by decreasing
    /// priority (each present agent once), `salt` the tie-break salt the candidates were ranked
    /// with (used for those ranked on demand). Returns the next cell of each agent ([`NO_CELL`] for absent ones). The tables
    /// must have been made for `grid` (same cell count).
    ///
    /// # Panics
    /// When the slices disagree in length or an agent stands outside the tables: a caller's
    /// bug, not bad input.
    pub fn step(
        &mut self,
        grid: &Grid,
        positions: &[CellId],
        candidates: &[Candidates],
        order: &[u32],
        guide: &impl Guidance,
        salt: u64,
    ) -> &[CellId] {
        self.decide_step(grid, positions, candidates, order, guide, salt, false)
    }

    /// [`Pibt::step`] with the caller's table of which agent stands on each cell
    /// (`occupied[cell]`: the agent in `positions` on that cell, [`NO_AGENT`] where none), lent
    /// for the step and given back unchanged: the step then neither fills nor clears its own,
    /// two writes per agent into a table as large as the grid.
    ///
    /// # Panics
    /// As [`Pibt::step`], and when `occupied` is not one entry per cell.
    #[allow(clippy::too_many_arguments)]
    pub fn step_occupied(
        &mut self,
        occupied: &mut Vec<u32>,
        grid: &Grid,
        positions: &[CellId],
        candidates: &[Candidates],
        order: &[u32],
        guide: &impl Guidance,
        salt: u64,
    ) -> &[CellId] {
        assert_eq!(occupied.len(), grid.len(), "one entry per cell");
        debug_assert!(
            positions
                .iter()
                .enumerate()
                .all(|(a, &c)| c == NO_CELL || occupied[c as usize] == a as u32),
            "the table agrees with the positions"
        );
        std::mem::swap(&mut self.occupied_now, occupied);
        self.decide_step(grid, positions, candidates, order, guide, salt, true);
        std::mem::swap(&mut self.occupied_now, occupied);
        &self.next
    }

    /// [`Pibt::step`]; `lent`: `occupied_now` is the caller's, already filled.
    #[allow(clippy::too_many_arguments)]
    fn decide_step(
        &mut self,
        grid: &Grid,
        positions: &[CellId],
        candidates: &[Candidates],
        order: &[u32],
        guide: &impl Guidance,
        salt: u64,
        lent: bool,
    ) -> &[CellId] {
        if !lent {
            self.own_occupancy();
        }
        assert_eq!(positions.len(), candidates.len());
        assert_eq!(
            self.occupied_now.len(),
            grid.len(),
            "tables of another grid"
        );
        self.swaps = 0;
        self.salt = salt;
        self.next.clear();
        self.next.resize(positions.len(), NO_CELL);
        if !lent {
            for (agent, &cell) in positions.iter().enumerate() {
                if cell != NO_CELL {
                    debug_assert_eq!(self.occupied_now[cell as usize], NO_AGENT, "shared cell");
                    self.occupied_now[cell as usize] = agent as u32;
                }
            }
        }
        for &agent in order {
            if self.next[agent as usize] != NO_CELL {
                continue; // decided when another agent pushed it
            }
            let at = positions[agent as usize];
            if candidates[agent as usize].lazy && !self.occupied_next.get(at) {
                // Its own cell ranks first and nobody is pushing it: it stays.
                self.occupied_next.set(at);
                self.next[agent as usize] = at;
                continue;
            }
            self.decide(grid, positions, candidates, guide, agent, &[]);
        }
        for (agent, &cell) in positions.iter().enumerate() {
            if cell != NO_CELL {
                if !lent {
                    self.occupied_now[cell as usize] = NO_AGENT;
                }
                let next = self.next[agent];
                debug_assert_ne!(next, NO_CELL, "agent {agent} missing from the order");
                if next != NO_CELL {
                    self.occupied_next.clear(next);
                } else {
                    self.next[agent] = cell;
                }
            }
        }
        &self.next
    }

    /// PIBT from `root`, with an explicit stack of frames in place of recursion.
    fn decide<R: Ranked + ?Sized>(
        &mut self,
        grid: &Grid,
        positions: &[CellId],
        candidates: &R,
        guide: &impl Guidance,
        root: u32,
        ranks: &[u32],
    ) {
        // With `ranks` (a part of a step): an agent not decided yet that ranks before the
        // root is not pushed, nor pulled into a swap; its own turn comes in its part.
        let root_rank = ranks.get(root as usize).copied().unwrap_or(0);
        let before_root = |a: u32| ranks.get(a as usize).is_some_and(|&r| r < root_rank);
        self.push_frame(grid, positions, candidates, guide, root);
        // Outcome of the frame just popped, for its parent.
        let mut returned: Option<bool> = None;
        while let Some(top) = self.frames.len().checked_sub(1) {
            let Frame {
                agent,
                candidates: cands,
                ..
            } = self.frames[top];
            let from = positions[agent as usize];
            match returned.take() {
                Some(true) => {
                    // The agent on the chosen cell found a place: this agent is done.
                    self.finish(grid, positions, &before_root);
                    returned = Some(true);
                    continue;
                }
                Some(false) => self.frames[top].k += 1,
                None => {}
            }
            let mut child = None;
            let mut done = false;
            let mut k = self.frames[top].k as usize;
            while k < cands.len as usize {
                let to = cands.cells[k];
                if self.occupied_next.get(to) {
                    k += 1;
                    continue;
                }
                let there = self.occupied_now[to as usize];
                if there != NO_AGENT && there != agent && self.next[there as usize] == from {
                    k += 1; // it is moving onto this agent's cell: a swap
                    continue;
                }
                if to != from && self.crosses(grid, from, to) {
                    k += 1;
                    continue;
                }
                if there != NO_AGENT
                    && there != agent
                    && self.next[there as usize] == NO_CELL
                    && before_root(there)
                {
                    k += 1;
                    continue;
                }
                if to != from && !ranks.is_empty() && self.contested(to, root_rank) {
                    k += 1; // an agent before the root, decided later, wants it first
                    continue;
                }
                self.occupied_next.set(to);
                self.next[agent as usize] = to;
                if there != NO_AGENT && there != agent && self.next[there as usize] == NO_CELL {
                    child = Some(there);
                } else {
                    done = true;
                }
                break;
            }
            self.frames[top].k = k as u8;
            if let Some(child) = child {
                self.push_frame(grid, positions, candidates, guide, child);
            } else if done {
                self.finish(grid, positions, &before_root);
                returned = Some(true);
            } else {
                // Nowhere to go: stay (nobody reserved this cell: only a descendant of this
                // frame could have, and its success would have been this agent's).
                self.occupied_next.set(from);
                self.next[agent as usize] = from;
                self.frames.pop();
                returned = Some(false);
            }
        }
    }

    /// Pops a frame whose agent found its cell, pulling its swap partner after it.
    fn finish(&mut self, grid: &Grid, positions: &[CellId], before_root: &impl Fn(u32) -> bool) {
        let frame = self.frames.pop().expect("a frame");
        let other = frame.swap_with;
        if other == NO_AGENT || self.next[other as usize] != NO_CELL || before_root(other) {
            return;
        }
        let agent = frame.agent;
        let (from, to) = (positions[agent as usize], self.next[agent as usize]);
        let other_at = positions[other as usize];
        if frame.k != 0
            || to == from
            || self.occupied_next.get(from)
            || to == other_at
            || !adjacent(grid, other_at, from)
            || self.crosses(grid, other_at, from)
        {
            return;
        }
        self.occupied_next.set(from);
        self.next[other as usize] = from;
        self.swaps += 1;
    }

    fn push_frame<R: Ranked + ?Sized>(
        &mut self,
        grid: &Grid,
        positions: &[CellId],
        candidates: &R,
        guide: &impl Guidance,
        agent: u32,
    ) {
        let mut cands = *candidates.get(agent);
        let at = positions[agent as usize];
        if cands.lazy {
            cands = rank_candidates(grid, guide, agent, at, self.salt);
            if !guide.allows_around(at) {
                cands.retain(|cell| guide.allows(cell));
            }
        } else if R::KEEP_TO_GUIDE && !cands.fixed && !guide.allows_around(at) {
            cands.retain(|cell| guide.allows(cell));
        }
        let mut swap_with = NO_AGENT;
        if cands.fixed {
            // Chosen from outside: as given.
            self.frames.push(Frame {
                agent,
                candidates: cands,
                k: 0,
                swap_with,
            });
            return;
        }
        if self.swap && cands.len > 1 {
            swap_with = self.swap_partner(grid, positions, candidates, &cands, guide, agent);
            if swap_with != NO_AGENT
                && (!self.swap_needs_room || self.can_back_off(positions[agent as usize], &cands))
            {
                cands.cells[..cands.len as usize].reverse();
            } else {
                swap_with = NO_AGENT;
            }
        }
        if swap_with == NO_AGENT
            && self.yield_way
            && let Some(parent) = self.frames.last().map(|f| f.agent)
            && guide.is_goal(agent, positions[agent as usize])
        {
            step_aside(guide, parent, positions[agent as usize], &mut cands);
        }
        self.frames.push(Frame {
            agent,
            candidates: cands,
            k: 0,
            swap_with,
        });
    }

    /// Whether a cell other than `from` and the best candidate is free now (nobody on it or
    /// bound for it): a swap makes the agent back off, and one that cannot only stops pushing
    /// forward (on 8-connected grids that left pairs facing each other for good).
    fn can_back_off(&self, from: CellId, cands: &Candidates) -> bool {
        cands.as_slice()[1..].iter().any(|&c| {
            c != from && self.occupied_now[c as usize] == NO_AGENT && !self.occupied_next.get(c)
        })
    }

    /// Whether moving from `from` to the diagonal neighbour `to` crosses a decided move
    /// between the block's two other cells.
    #[inline]
    fn crosses(&self, grid: &Grid, from: CellId, to: CellId) -> bool {
        let w = grid.width();
        let (fx, fy, tx, ty) = (from % w, from / w, to % w, to / w);
        if fx == tx || fy == ty {
            return false;
        }
        let (c1, c2) = (ty * w + fx, fy * w + tx);
        let moving = |a: CellId, b: CellId| {
            let agent = self.occupied_now[a as usize];
            agent != NO_AGENT && self.next[agent as usize] == b
        };
        moving(c1, c2) || moving(c2, c1)
    }
}

/// Reorders the candidates of an agent pushed by `parent` (which is moving onto `taken`, the
/// agent's cell): cells where the parent's goal is nearer than from `taken` are where the parent
/// goes next, so they go last, keeping the order otherwise. Without this a pushed agent takes
/// the free cell ahead of its pusher, is pushed again next step, and so on down the pusher's
/// whole route; in one-shot runs two agents whose goals lie on each other's way then evict each
/// other from their goals for ever (measured: 2 of 300 agents of the MAPF benchmark's
/// random-32-32-10 never arrived).
fn step_aside(guide: &impl Guidance, parent: u32, taken: CellId, cands: &mut Candidates) {
    let len = cands.len as usize;
    let mut cells = [NO_CELL; MAX_CANDIDATES + 1];
    cells[..len].copy_from_slice(&cands.cells[..len]);
    cells[len] = taken;
    let mut costs = [0i64; MAX_CANDIDATES + 1];
    guide.costs_to_go(parent, &cells[..=len], &mut costs[..=len]);
    let limit = costs[len];
    let mut out = [NO_CELL; MAX_CANDIDATES];
    let mut n = 0;
    for pass_in_the_way in [false, true] {
        for k in 0..len {
            if (costs[k] < limit) == pass_in_the_way {
                out[n] = cells[k];
                n += 1;
            }
        }
    }
    cands.cells[..len].copy_from_slice(&out[..len]);
}

/// Whether `b` is one legal move from `a`.
fn adjacent(grid: &Grid, a: CellId, b: CellId) -> bool {
    let offsets = grid.move_offsets();
    let delta = i64::from(b) - i64::from(a);
    grid.moves(a)
        .iter()
        .any(|d: Direction| offsets[d.index()] == delta)
}
