//! Refinement of a valid MAPF plan by large neighbourhood search (after MAPF-LNS: Li, Chen,
//! Harabor, Stuckey and Koenig, "Anytime Multi-Agent Path Finding via Large Neighborhood
//! Search", IJCAI 2021; our implementation).
//!
//! LaCAM's first plans are far from the shortest (on crowded maps several times the lower
//! bound), and LaCAM* lowers them only slowly. Here each iteration picks a few agents (a
//! neighbourhood, [`NEIGHBOURHOOD`] by default), takes their paths off a space-time reservation
//! table of all the paths, and plans them again one by one, in a random order, each by safe
//! interval path planning (SIPP) that avoids every other path (no shared cell, no swap, no
//! diagonal crossing: the rules of [`super::check_step`]) and whose arrival keeps the sum of costs
//! of the neighbourhood within its old sum. The new paths are kept when they cost no more, the
//! old ones put back otherwise, so the plan stays valid and its sum of costs never rises.
//!
//! Neighbourhoods come from three heuristics, chosen at random with weights that follow the
//! improvements each one made (adaptive LNS): the agents in the way of the agent most delayed
//! over its lower bound (those that visit its goal after it could rest there, then those found
//! by random walks in space-time along its shorter ways), the
//! agents that pass an intersection of the map and its neighbouring intersections, and agents
//! drawn at random. Everything random comes from the seed: with an iteration budget
//! ([`RefineOptions::iterations`]) the refined plan depends on nothing else.
//!
//! Memory: the reservation table holds (makespan + 64) x cells entries of 4.5 bytes: 6 MB for
//! room-64-64-8 (4,096 cells) with a makespan of 250, 167 MB for a 256 x 256 map with a
//! makespan of 500; a plan that would need more than 2 GiB is refused with an error that says
//! so. The searches' states are kept by key (`state_table`), as many as a search reaches.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod neighbourhood;
mod state_table;

use self::neighbourhood::HEURISTICS;
use self::state_table::{State, StateTable};
use super::distances::GoalDistances;
use super::pibt::NO_AGENT;
use super::validate::check_step;
use crate::error::{Error, Result};
use crate::grid::{CellId, Grid};

/// Agents per neighbourhood by default. MAPF-LNS uses 8; on the MAPF benchmark sample of
/// `docs/benchmarks.md` (5 s runs) 3 or 4 gave the lowest sums of costs, 8 up to 9% higher, 16
/// and 32 far higher (most of their re-plannings fail), and choosing among 2, 4, 8 and 16 by the
/// gain per search state (adaptive sizes) 1% to 3% higher than 4.
pub const NEIGHBOURHOOD: usize = 4;

/// The work `throng mapf` spends polishing LaCAM's first solution by default: states expanded
/// ([`RefineOptions::expansions`]) per unit of the plan's sum of costs; the work grows with the
/// plan, as the searches' do. With 15, on the large instances of `docs/benchmarks.md` (32 x 32
/// to 256 x 256, 400 to 1,000 agents) every polished plan costs at most lacam3's first
/// solution and comes within its time; with 10, two of the twelve cost 1.0004 of lacam3's, with
/// 20 two took 1.1 times its time.
pub const POLISH_EXPANSIONS_PER_COST: u64 = 15;

/// Timesteps the reservation table holds beyond the plan's makespan, so that a re-planned path
/// may end later than the latest path so far.
const SLACK: usize = 64;

/// The most memory the tables may take (bytes): a plan that would need more is refused with an
/// error that says how much, rather than exhausting the machine.
const MAX_TABLE_BYTES: usize = 2 << 30;

/// How fast a heuristic's weight follows its last improvement (adaptive LNS's reaction factor).
const REACTION: f64 = 0.1;

/// No timestep.
const NEVER: u32 = u32::MAX;

/// No parent state (the search's root).
const NO_STATE: u64 = u64::MAX;

/// Limits of a [`refine`] call. The search stops at the first limit reached, or when every
/// agent's path is as short as it can be (the sum of costs is the lower bound). With neither
/// limit set, it runs until then, which on a crowded instance may be never.
#[derive(Debug, Clone, Copy)]
pub struct RefineOptions {
    /// Stop after this many neighbourhoods (deterministic for a seed).
    pub iterations: Option<usize>,
    /// Stop after the neighbourhood during which the searches' expanded states (see
    /// [`RefineStats::expanded`]) reach this many: a budget of work, the same on any machine.
    pub expansions: Option<u64>,
    /// Stop after this long.
    pub time_limit: Option<Duration>,
    /// Seed of the neighbourhoods and of the order their agents are planned in.
    pub seed: u64,
    /// Agents per neighbourhood (at least 1; default [`NEIGHBOURHOOD`]).
    pub neighbourhood: usize,
}

impl Default for RefineOptions {
    fn default() -> Self {
        RefineOptions {
            iterations: None,
            expansions: None,
            time_limit: None,
            seed: 0,
            neighbourhood: NEIGHBOURHOOD,
        }
    }
}

/// Counters of a [`refine`] call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RefineStats {
    /// Neighbourhoods tried.
    pub iterations: usize,
    /// Neighbourhoods whose new paths cost less than the old ones.
    pub improvements: usize,
    /// Neighbourhoods whose agents could not all be planned within their old sum of costs.
    pub failures: usize,
    /// The sum of costs of the plan given.
    pub initial_soc: u64,
    /// The sum of costs of the plan returned.
    pub soc: u64,
    /// States the path searches expanded: the work done, the same on any machine.
    pub expanded: u64,
    /// Wall time, milliseconds.
    pub time_ms: f64,
    /// When the plan returned was found, milliseconds (0 when no neighbourhood improved it).
    pub solution_ms: f64,
}

/// An open search state: its bound on the arrival at the goal (see `Refiner::plan_path`), the
/// nearer the goal first (for states whose bound is the arrival plus the distance: the later
/// arrivals first), the cell, the last timestep of its free run and its arrival.
type Open = (u32, Reverse<u32>, CellId, u32, u32);

/// Refines `plan` (a configuration per timestep, the starts first, `goals` last, every step
/// valid) for `grid`'s moves and returns a plan of no higher sum of costs, every step checked by
/// [`check_step`].
///
/// ```
/// use throng::grid::{Grid, Neighborhood};
/// use throng::mapf::refine::{RefineOptions, refine};
///
/// // Agent 0 makes a detour round the wall that agent 1 no longer blocks.
/// let grid = Grid::from_ascii("...\n...")?.with_neighborhood(Neighborhood::Four);
/// let c = |x, y| grid.cell(x, y).unwrap();
/// let plan = vec![
///     vec![c(0, 0), c(2, 1)],
///     vec![c(0, 1), c(2, 1)],
///     vec![c(1, 1), c(2, 1)],
///     vec![c(1, 0), c(2, 1)],
///     vec![c(2, 0), c(2, 1)],
/// ];
/// let options = RefineOptions { iterations: Some(10), ..RefineOptions::default() };
/// let (better, stats) = refine(&grid, &plan, &[c(2, 0), c(2, 1)], &options)?;
/// assert_eq!((stats.initial_soc, stats.soc), (4, 2));
/// assert_eq!(better.len(), 3);
/// # Ok::<(), throng::error::Error>(())
/// ```
///
/// # Errors
/// [`Error::Invalid`] when `plan` is empty, its agents are not those of `goals`, it does not
/// end on `goals`, or one of its steps is not valid.
pub fn refine(
    grid: &Grid,
    plan: &[Vec<CellId>],
    goals: &[CellId],
    options: &RefineOptions,
) -> Result<(Vec<Vec<CellId>>, RefineStats)> {
    let t0 = Instant::now();
    check_plan(grid, plan, goals)?;
    let window = plan.len() + SLACK;
    // The reservation table: an agent id and a bit per cell and timestep.
    let bytes = window.saturating_mul(grid.len()).saturating_mul(4) / 8 * 9;
    if bytes > MAX_TABLE_BYTES {
        return Err(Error::Invalid(format!(
            "refining this plan needs {} MiB of tables ({} timesteps x {} cells), more than {} MiB",
            bytes >> 20,
            window + 1,
            grid.len(),
            MAX_TABLE_BYTES >> 20
        )));
    }
    let dist = GoalDistances::new(grid, goals);
    let mut refiner = Refiner::new(grid, &dist, plan, options.seed);
    let mut stats = RefineStats {
        initial_soc: refiner.soc(),
        ..RefineStats::default()
    };
    let size = options.neighbourhood.max(1);
    let mut weights = [1.0f64; HEURISTICS.len()];
    let mut members = Vec::with_capacity(size);
    loop {
        if options.iterations.is_some_and(|n| stats.iterations >= n)
            || options.expansions.is_some_and(|n| refiner.expanded >= n)
            || options.time_limit.is_some_and(|l| t0.elapsed() >= l)
            || refiner.soc() == refiner.lower_bound
        {
            break;
        }
        stats.iterations += 1;
        let total: f64 = weights.iter().sum();
        let mut pick = refiner.rng.random_range(0.0..total);
        let mut k = 0;
        while k + 1 < HEURISTICS.len() && pick >= weights[k] {
            pick -= weights[k];
            k += 1;
        }
        refiner.neighbourhood(HEURISTICS[k], size, &mut members);
        if members.is_empty() {
            continue;
        }
        let before = refiner.soc();
        if !refiner.replan(&members) {
            stats.failures += 1;
        }
        let gain = (before - refiner.soc()) as f64;
        weights[k] = (REACTION * gain + (1.0 - REACTION) * weights[k]).max(1e-3);
        if gain > 0.0 {
            stats.improvements += 1;
            stats.solution_ms = t0.elapsed().as_secs_f64() * 1e3;
        }
    }
    let refined = refiner.plan();
    for (t, pair) in refined.windows(2).enumerate() {
        check_step(grid, &pair[0], &pair[1]).map_err(|e| {
            Error::Invalid(format!(
                "internal error: step {t} of the refined plan is invalid: {e}"
            ))
        })?;
    }
    stats.soc = refiner.soc();
    stats.expanded = refiner.expanded;
    stats.time_ms = t0.elapsed().as_secs_f64() * 1e3;
    Ok((refined, stats))
}

/// The plan given to [`refine`]: starts first, goals last, every step valid.
fn check_plan(grid: &Grid, plan: &[Vec<CellId>], goals: &[CellId]) -> Result<()> {
    let (Some(first), Some(last)) = (plan.first(), plan.last()) else {
        return Err(Error::Invalid("the plan to refine is empty".into()));
    };
    if let Some(t) = plan.iter().position(|c| c.len() != goals.len()) {
        return Err(Error::Invalid(format!(
            "timestep {t} of the plan holds {} agents, the instance {}",
            plan[t].len(),
            goals.len()
        )));
    }
    if let Some(a) = (0..goals.len()).find(|&a| last[a] != goals[a]) {
        return Err(Error::Invalid(format!(
            "agent {a} of the plan to refine does not end on its goal"
        )));
    }
    if let Some(a) = first.iter().position(|&c| !grid.contains(c)) {
        return Err(Error::Invalid(format!(
            "agent {a} of the plan to refine starts outside the grid"
        )));
    }
    // The steps below check every configuration after the first; a plan of one timestep has
    // none, so the first is checked here: free cells, one agent each.
    if let Some(a) = first.iter().position(|&c| !grid.is_walkable(c)) {
        return Err(Error::Invalid(format!(
            "agent {a} of the plan to refine starts on a blocked cell"
        )));
    }
    let mut sorted = first.clone();
    sorted.sort_unstable();
    if let Some(pair) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::Invalid(format!(
            "two agents of the plan to refine start on cell {}",
            pair[0]
        )));
    }
    for (t, pair) in plan.windows(2).enumerate() {
        check_step(grid, &pair[0], &pair[1])
            .map_err(|e| Error::Invalid(format!("step {t} of the plan to refine: {e}")))?;
    }
    Ok(())
}

/// The paths, their reservation table and the search's tables.
struct Refiner<'a> {
    grid: &'a Grid,
    dist: &'a GoalDistances,
    cells: usize,
    /// Per agent: its cell at each timestep until it rests on its goal (its cost: the length
    /// less one).
    paths: Vec<Vec<CellId>>,
    /// The sum of the agents' distances to their goals: no plan costs less.
    lower_bound: u64,
    /// The sum of the paths' costs.
    cost: u64,
    /// Timesteps in the tables.
    window: usize,
    /// The agent on each (cell x window + time), up to its arrival on its goal: a cell's
    /// timesteps side by side, for the searches' scans along them.
    occupant: Vec<u32>,
    /// The same table as bits, a cell's timesteps in [`Refiner::words`] words side by side: a
    /// free run's end is found a word at a time.
    busy: Vec<u64>,
    /// Words of `busy` per cell.
    words: usize,
    /// Per cell: the agent whose goal it is ([`NO_AGENT`] for none).
    goal_owner: Vec<u32>,
    /// Per cell: when that agent rests on it from ([`NEVER`] while its path is off the table).
    rests_from: Vec<u32>,
    /// The current search's states, by key (the last timestep of a free run x cells + cell;
    /// the runs that reach the search's cap for their cell in the last row).
    states: StateTable,
    /// States expanded by every search so far.
    expanded: u64,
    heap: BinaryHeap<Reverse<Open>>,
    rng: ChaCha8Rng,
    /// Agents already the seeds of a blocking neighbourhood (cleared when all delayed ones were).
    tabu: Vec<bool>,
    /// Scratch: agents already in the neighbourhood being made; the cells a search visited.
    chosen: Vec<bool>,
    seen_cell: Vec<bool>,
    /// The old paths of the neighbourhood being re-planned.
    saved: Vec<Vec<CellId>>,
    /// Path buffers to reuse, so that re-planning allocates nothing once warm.
    spare: Vec<Vec<CellId>>,
    /// Scratch of the intersection heuristic's breadth-first search: its queue and the cells
    /// it marked.
    queue: VecDeque<CellId>,
    touched: Vec<CellId>,
}

impl<'a> Refiner<'a> {
    fn new(grid: &'a Grid, dist: &'a GoalDistances, plan: &[Vec<CellId>], seed: u64) -> Self {
        let n = dist.agents();
        let cells = grid.len();
        let paths: Vec<Vec<CellId>> = (0..n)
            .map(|a| {
                let goal = dist.goal(a as u32);
                let mut end = plan.len() - 1;
                while end > 0 && plan[end - 1][a] == goal {
                    end -= 1;
                }
                plan[..=end].iter().map(|c| c[a]).collect()
            })
            .collect();
        let lower_bound = paths
            .iter()
            .enumerate()
            .map(|(a, p)| u64::from(dist.get(a as u32, p[0])))
            .sum();
        let window = plan.len() + SLACK;
        let mut goal_owner = vec![NO_AGENT; cells];
        for a in 0..n {
            goal_owner[dist.goal(a as u32) as usize] = a as u32;
        }
        let mut refiner = Refiner {
            grid,
            dist,
            cells,
            cost: 0,
            paths: Vec::new(),
            lower_bound,
            window,
            occupant: vec![NO_AGENT; window * cells],
            busy: vec![0; window.div_ceil(64) * cells],
            words: window.div_ceil(64),
            goal_owner,
            rests_from: vec![NEVER; cells],
            states: StateTable::new(),
            expanded: 0,
            heap: BinaryHeap::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            tabu: vec![false; n],
            chosen: vec![false; n],
            seen_cell: vec![false; cells],
            saved: Vec::new(),
            spare: Vec::new(),
            queue: VecDeque::new(),
            touched: Vec::new(),
        };
        for (a, path) in paths.into_iter().enumerate() {
            refiner.paths.push(path);
            refiner.reserve(a as u32);
        }
        refiner
    }

    fn soc(&self) -> u64 {
        self.cost
    }

    /// The plan: every agent's cell at each timestep to the last arrival.
    fn plan(&self) -> Vec<Vec<CellId>> {
        let makespan = self.paths.iter().map(Vec::len).max().unwrap_or(1);
        (0..makespan)
            .map(|t| self.paths.iter().map(|p| p[t.min(p.len() - 1)]).collect())
            .collect()
    }

    /// Puts agent `a`'s path on the table.
    fn reserve(&mut self, a: u32) {
        let path = &self.paths[a as usize];
        for (t, &c) in path.iter().enumerate() {
            self.occupant[c as usize * self.window + t] = a;
            self.busy[c as usize * self.words + t / 64] |= 1 << (t % 64);
        }
        let end = path.len() - 1;
        self.rests_from[path[end] as usize] = end as u32;
        self.cost += end as u64;
    }

    /// Takes agent `a`'s path off the table.
    fn release(&mut self, a: u32) {
        let path = &self.paths[a as usize];
        for (t, &c) in path.iter().enumerate() {
            self.occupant[c as usize * self.window + t] = NO_AGENT;
            self.busy[c as usize * self.words + t / 64] &= !(1 << (t % 64));
        }
        let end = path.len() - 1;
        self.rests_from[path[end] as usize] = NEVER;
        self.cost -= end as u64;
    }

    /// The agent on `cell` at timestep `t` (< the window), [`NO_AGENT`] for none.
    #[inline]
    fn at(&self, t: usize, cell: CellId) -> u32 {
        let o = self.occupant[cell as usize * self.window + t];
        if o != NO_AGENT || self.rests_from[cell as usize] > t as u32 {
            o
        } else {
            self.goal_owner[cell as usize]
        }
    }

    /// The first timestep from `t` on at which `cell` is taken (by a path or by its goal's
    /// agent resting there), or the window's length when there is none.
    #[inline]
    fn next_taken(&self, cell: CellId, t: u32) -> u32 {
        let rest = self.rests_from[cell as usize].max(t);
        let limit = if self.goal_owner[cell as usize] != NO_AGENT {
            rest.min(self.window as u32)
        } else {
            self.window as u32
        };
        let row = &self.busy[cell as usize * self.words..][..self.words];
        let mut w = t as usize / 64;
        let mut bits = row.get(w).map_or(0, |&b| b & (u64::MAX << (t % 64)));
        loop {
            if bits != 0 {
                return (w as u32 * 64 + bits.trailing_zeros()).min(limit);
            }
            w += 1;
            if w >= self.words || w as u32 * 64 >= limit {
                return limit;
            }
            bits = row[w];
        }
    }

    /// The first timestep from `t` on at which `cell` is free, or the window's length when
    /// there is none.
    #[inline]
    fn next_free(&self, cell: CellId, t: u32) -> u32 {
        let window = self.window as u32;
        if self.goal_owner[cell as usize] != NO_AGENT && self.rests_from[cell as usize] <= t {
            return window; // its agent rests there for good
        }
        let row = &self.busy[cell as usize * self.words..][..self.words];
        let mut w = t as usize / 64;
        let mut free = row.get(w).map_or(0, |&b| !b & (u64::MAX << (t % 64)));
        loop {
            if free != 0 {
                let s = w as u32 * 64 + free.trailing_zeros();
                // Free of paths from `s`; taken again from the resting agent's arrival on.
                return if s >= window
                    || (self.goal_owner[cell as usize] != NO_AGENT
                        && self.rests_from[cell as usize] <= s)
                {
                    window
                } else {
                    s
                };
            }
            w += 1;
            if w >= self.words {
                return window;
            }
            free = !row[w];
        }
    }

    /// Agent `a`'s cell at timestep `t` (its goal after its path).
    #[inline]
    fn cell_of(&self, a: u32, t: usize) -> CellId {
        let path = &self.paths[a as usize];
        path[t.min(path.len() - 1)]
    }

    /// Whether an agent on the table moving `from -> to` at `t -> t + 1` would swap with another
    /// or cross another's move diagonally (the cell `to` itself is checked apart).
    fn blocked_move(&self, t: usize, from: CellId, to: CellId) -> bool {
        let b = self.at(t, to);
        if b != NO_AGENT && self.cell_of(b, t + 1) == from {
            return true;
        }
        let ((fx, fy), (tx, ty)) = (self.grid.coords(from), self.grid.coords(to));
        if fx != tx && fy != ty {
            // The block's other diagonal runs between (fx, ty) and (tx, fy).
            let w = self.grid.width();
            let (p, q) = (ty * w + fx, fy * w + tx);
            for (u, v) in [(p, q), (q, p)] {
                let b = self.at(t, u);
                if b != NO_AGENT && self.cell_of(b, t + 1) == v {
                    return true;
                }
            }
        }
        false
    }

    /// A shortest path of agent `a` that avoids every path on the table and arrives by `budget`
    /// (the agent then rests on its goal for good), into `path`; `false` when there is none
    /// within the budget and the table's window. Safe interval path planning (Phillips and Likhachev, ICRA
    /// 2011): a state is a cell and one of its runs of timesteps free of other agents, reached
    /// at its earliest time; waiting inside a run costs no search.
    fn plan_path(&mut self, a: u32, start: CellId, budget: u64, path: &mut Vec<CellId>) -> bool {
        let goal = self.dist.goal(a);
        let cells = self.cells;
        // The agent may rest on its goal only after every other visit of it.
        let row = &self.busy[goal as usize * self.words..][..self.words];
        let free_after = row
            .iter()
            .rposition(|&b| b != 0)
            .map_or(0, |w| w as u32 * 64 + 64 - row[w].leading_zeros());
        let budget = budget.min(self.window as u64 - 1) as u32;
        let h0 = self.dist.get(a, start);
        if h0 == GoalDistances::UNREACHABLE || h0 > budget || free_after > budget {
            return false;
        }
        self.states.clear();
        self.heap.clear();
        // A run is known by its last timestep, capped where the agent could no longer arrive
        // in time from the cell (`budget - h`): one run per cell reaches past the cap.
        let root_end = self.run_end(start, 0, budget - h0);
        let root = self.state_key(start, root_end, budget - h0);
        self.states.set(
            root as u64,
            State {
                arrive: 0,
                parent: NO_STATE,
            },
        );
        // No arrival at the goal before `free_after`: the bound of a state is the later of its
        // arrival plus its distance and that. Where other agents visit the goal long after the
        // agent could reach it, the plain bound would have the search sweep the whole map in
        // space-time (on den520d at 1,000 agents, 90% of the polish's work); with this one it
        // heads for the goal and waits near it.
        let bound = |arrival: u32, h: u32| (arrival + h).max(free_after);
        let f0 = bound(0, h0);
        self.heap
            .push(Reverse((f0, Reverse(f0 - h0), start, root_end, 0)));
        let offsets = self.grid.move_offsets();
        let mut found = None;
        while let Some(Reverse((_, _, c, end, g))) = self.heap.pop() {
            let key = self.state_key(c, end, budget - self.dist.get(a, c));
            if self.states.get(key as u64).is_some_and(|s| g > s.arrive) {
                continue;
            }
            self.expanded += 1;
            if c == goal && g >= free_after {
                found = Some(key);
                break;
            }
            for dir in self.grid.moves(c).iter() {
                let n = (i64::from(c) + offsets[dir.index()]) as CellId;
                let h = self.dist.get(a, n);
                if h == GoalDistances::UNREACHABLE || g + 1 + h > budget {
                    continue;
                }
                let cap = budget - h;
                // Arrivals from g + 1 to one step after the run on `c` ends, run by run of `n`.
                let latest = cap.min(end + 1);
                let mut t = self.next_free(n, g + 1);
                while t <= latest {
                    // The run of `n` from `t`, and its first arrival by a move allowed then.
                    let run_end = (self.next_taken(n, t + 1) - 1).min(cap);
                    let first = (t..=run_end.min(latest))
                        .find(|&s| !self.blocked_move(s as usize - 1, c, n));
                    if let Some(arrival) = first {
                        let k = self.state_key(n, run_end, cap);
                        if self.states.get(k as u64).is_none_or(|s| arrival < s.arrive) {
                            let state = State {
                                arrive: arrival,
                                parent: key as u64,
                            };
                            self.states.set(k as u64, state);
                            let f = bound(arrival, h);
                            self.heap
                                .push(Reverse((f, Reverse(f - h), n, run_end, arrival)));
                        }
                    }
                    t = self.next_free(n, run_end + 1);
                }
            }
        }
        // Back from the goal: each state's cell from its arrival until the next state's.
        let Some(mut key) = found else {
            return false;
        };
        let state = |k: usize| self.states.get(k as u64).expect("reached by this search");
        path.clear();
        path.resize(state(key).arrive as usize + 1, goal);
        let mut until = state(key).arrive as usize;
        while state(key).parent != NO_STATE {
            let prev = state(key).parent as usize;
            let from = state(prev).arrive as usize;
            let cell = (prev % cells) as CellId;
            path[from..until].fill(cell);
            until = from;
            key = prev;
        }
        true
    }

    /// The index in `states` of the free run of `cell` that ends at `end` (capped at `cap`):
    /// the runs that reach the cap, most of a search's states, share a row of their own, so
    /// that they lie close together in memory.
    #[inline]
    fn state_key(&self, cell: CellId, end: u32, cap: u32) -> usize {
        let row = if end >= cap {
            self.window
        } else {
            end as usize
        };
        row * self.cells + cell as usize
    }

    /// The last timestep of the free run of `cell` that holds `t`, at most `cap`.
    fn run_end(&self, cell: CellId, t: u32, cap: u32) -> u32 {
        (self.next_taken(cell, t + 1) - 1).min(cap).max(t)
    }

    /// Re-plans the agents of `members` (see the module docs). Returns `false` when one of them
    /// found no path within the budget (the old paths are back).
    fn replan(&mut self, members: &[u32]) -> bool {
        let old: u64 = members
            .iter()
            .map(|&a| self.paths[a as usize].len() as u64 - 1)
            .sum();
        let mut saved = std::mem::take(&mut self.saved);
        saved.clear();
        for &a in members {
            self.release(a);
            saved.push(std::mem::take(&mut self.paths[a as usize]));
        }
        // Each agent's lower bound, for the budget of those planned before it.
        let mut rest: u64 = members
            .iter()
            .zip(&saved)
            .map(|(&a, p)| u64::from(self.dist.get(a, p[0])))
            .sum();
        let mut spent = 0u64;
        let mut planned = 0;
        for (k, &a) in members.iter().enumerate() {
            let start = saved[k][0];
            rest -= u64::from(self.dist.get(a, start));
            let budget = old - spent - rest;
            let mut path = self.spare.pop().unwrap_or_default();
            if !self.plan_path(a, start, budget, &mut path) {
                self.spare.push(path);
                break;
            }
            spent += path.len() as u64 - 1;
            self.paths[a as usize] = path;
            self.reserve(a);
            planned += 1;
        }
        let ok = planned == members.len();
        if ok {
            self.spare.append(&mut saved);
        } else {
            // All the new paths off first: an old path may cross a new one.
            for &a in &members[..planned] {
                self.release(a);
            }
            for (k, &a) in members.iter().enumerate() {
                let new =
                    std::mem::replace(&mut self.paths[a as usize], std::mem::take(&mut saved[k]));
                self.spare.push(new);
                self.reserve(a);
            }
        }
        self.saved = saved;
        ok
    }
}
