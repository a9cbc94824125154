//! Scattering: one near-shortest path per agent, chosen so that the agents' paths meet as
//! little as possible, for PIBT to follow (the "space utilisation optimisation" of Okumura,
//! "Engineering LaCAM*: Towards Real-Time, Large-Scale, and Near-Optimal Multi-Agent
//! Pathfinding", AAMAS 2024; our implementation).
//!
//! PIBT alone sends every agent down a shortest way, so on open maps whole crowds pile into the
//! same cells and wait for each other. Before the search, each agent in turn gets a path at most
//! `margin` moves longer than its shortest one that crosses the fewest other agents' paths at the
//! same timestep (and the fewest goals of agents already arrived), by an A* over (cell, time);
//! a second round re-plans every agent against all the others. LaCAM's PIBT then tries, before
//! its ranked cells, the cell that follows the agent's cell on its path.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use super::distances::GoalDistances;
use crate::grid::{CellId, Direction, Grid, Neighborhood};

/// What meeting another path costs, in moves: a cell it holds at the same timestep, a move it
/// makes the other way at the same timestep (a swap), or the goal of an agent already there.
/// Measured on the MAPF benchmark: 2 and 4 gave no lower sums of costs than 1.
const MEETING_COST: u32 = 1;

/// Rounds of planning: the first plans each agent against those before it, the next ones
/// against all the others.
const ROUNDS: usize = 2;

/// No timestep (a cell no path ends on).
const NEVER: u32 = u32::MAX;

/// The most memory the search's tables may take (bytes). They cover every (timestep, cell)
/// pair of the window, about 19 bytes a pair on a 4-connected map and 27 on an 8-connected
/// one: on a large map with long paths (a 256 x 256 map with 600-step paths: 750 MB) no paths
/// are made, and LaCAM runs as it does without scattering.
const MAX_TABLE_BYTES: usize = 512 << 20;

/// The near-shortest path of every agent (see the module docs).
#[derive(Debug, Clone)]
pub struct Scatter {
    /// Per agent, sorted by cell: each cell of its path and the cell that follows it.
    steps: Vec<(CellId, CellId)>,
    /// Agent `a`'s entries are `steps[first[a]..first[a + 1]]`.
    first: Vec<u32>,
}

impl Scatter {
    /// Paths from `starts` to the goals of `dist`, each at most `margin` moves longer than the
    /// shortest. Stops early (keeping the paths made so far, the rest shortest) at `deadline`.
    pub fn new(
        grid: &Grid,
        starts: &[CellId],
        dist: &GoalDistances,
        margin: u32,
        deadline: Option<Instant>,
    ) -> Scatter {
        let n = starts.len();
        // Every path ends by the longest shortest path plus the margin: the tables' window.
        let window = starts
            .iter()
            .enumerate()
            .map(|(a, &s)| dist.get(a as u32, s))
            .filter(|&d| d != GoalDistances::UNREACHABLE)
            .max()
            .unwrap_or(0) as usize
            + margin as usize
            + 1;
        let table_bytes = window
            .saturating_mul(grid.len())
            .saturating_mul(STATE_BYTES + 2 * moves_per_cell(grid));
        if table_bytes > MAX_TABLE_BYTES {
            return Scatter {
                steps: Vec::new(),
                first: vec![0; n + 1],
            };
        }
        let mut planner = Planner::new(grid, dist, margin, window);
        let mut paths: Vec<Vec<CellId>> = vec![Vec::new(); n];
        'rounds: for _ in 0..ROUNDS {
            for a in 0..n {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    break 'rounds;
                }
                planner.remove(&paths[a]);
                paths[a] = planner.path(a as u32, starts[a]);
                planner.add(&paths[a]);
            }
        }
        // A path may come back to a cell (to let another pass): the agent follows it from its
        // last visit, so that following the path never goes round a loop.
        let mut seen = vec![false; grid.len()];
        let mut steps = Vec::new();
        let mut first = Vec::with_capacity(n + 1);
        for path in &paths {
            first.push(steps.len() as u32);
            let from = steps.len();
            for w in path.windows(2).rev() {
                if !seen[w[0] as usize] {
                    seen[w[0] as usize] = true;
                    steps.push((w[0], w[1]));
                }
            }
            for &(c, _) in &steps[from..] {
                seen[c as usize] = false;
            }
            steps[from..].sort_unstable_by_key(|&(c, _)| c);
        }
        first.push(steps.len() as u32);
        Scatter { steps, first }
    }

    /// Whether there are no paths to follow: the search's tables would have passed 512 MiB (a
    /// large map with long paths), or every agent starts on its goal. Then
    /// [`Scatter::next_cell`] is always `None`.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The cell after `at` on agent `agent`'s path (`None` off its path or at its end).
    #[inline]
    pub fn next_cell(&self, agent: u32, at: CellId) -> Option<CellId> {
        let a = agent as usize;
        let steps = &self.steps[self.first[a] as usize..self.first[a + 1] as usize];
        steps
            .binary_search_by_key(&at, |&(c, _)| c)
            .ok()
            .map(|k| steps[k].1)
    }
}

/// Bytes a (timestep, cell) pair takes in the tables besides the moves (two bytes a
/// direction): `usage`, `stamp`, `cost` and `via`.
const STATE_BYTES: usize = 2 + 4 + 4 + 1;

/// Moves out of a cell in the `moves` table: 4 or 8, by the grid's neighbourhood.
fn moves_per_cell(grid: &Grid) -> usize {
    match grid.neighborhood() {
        Neighborhood::Four => 4,
        Neighborhood::Eight => 8,
    }
}

/// The search's tables over (timestep within the window) x cell, made once and kept from agent
/// to agent.
struct Planner<'a> {
    grid: &'a Grid,
    dist: &'a GoalDistances,
    cells: usize,
    margin: u32,
    /// Moves per cell in the `moves` table (4 or 8).
    dirs: usize,
    /// Paths on each (time x cells + cell).
    usage: Vec<u16>,
    /// Paths making each move: ((time x cells + from) x dirs + direction).
    moves: Vec<u16>,
    /// Per cell: the timestep a path reaches it as its end (a goal: goals are distinct).
    arrival: Vec<u32>,
    /// Per state (time x cells + cell) of the current search: the search that reached it
    /// (`stamp`), its cost and the move that reached it.
    stamp: Vec<u32>,
    cost: Vec<u32>,
    via: Vec<u8>,
    search: u32,
    heap: BinaryHeap<Reverse<(u32, u32, u64)>>,
}

impl<'a> Planner<'a> {
    fn new(grid: &'a Grid, dist: &'a GoalDistances, margin: u32, window: usize) -> Planner<'a> {
        let cells = grid.len();
        let dirs = moves_per_cell(grid);
        let states = window * cells;
        Planner {
            grid,
            dist,
            cells,
            margin,
            dirs,
            usage: vec![0; states],
            moves: vec![0; states * dirs],
            arrival: vec![NEVER; cells],
            stamp: vec![0; states],
            cost: vec![0; states],
            via: vec![0; states],
            search: 0,
            heap: BinaryHeap::new(),
        }
    }

    /// The direction of the move `from -> to` (neighbours).
    fn direction(&self, from: CellId, to: CellId) -> usize {
        let ((fx, fy), (tx, ty)) = (self.grid.coords(from), self.grid.coords(to));
        Direction::from_delta(tx as i32 - fx as i32, ty as i32 - fy as i32)
            .expect("a path moves between neighbours")
            .index()
    }

    /// The index of the move in direction `dir` from `from` at timestep `t -> t + 1`.
    #[inline]
    fn move_index(&self, t: usize, from: CellId, dir: usize) -> usize {
        (t * self.cells + from as usize) * self.dirs + dir
    }

    fn add(&mut self, path: &[CellId]) {
        self.count(path, true);
    }

    fn remove(&mut self, path: &[CellId]) {
        self.count(path, false);
    }

    /// Adds `path` to the tables, or takes it off.
    fn count(&mut self, path: &[CellId], add: bool) {
        let bump = |u: &mut u16| *u = if add { *u + 1 } else { *u - 1 };
        for (t, &c) in path.iter().enumerate() {
            bump(&mut self.usage[t * self.cells + c as usize]);
        }
        for (t, w) in path.windows(2).enumerate() {
            let k = self.move_index(t, w[0], self.direction(w[0], w[1]));
            bump(&mut self.moves[k]);
        }
        if let Some(&end) = path.last() {
            self.arrival[end as usize] = if add { path.len() as u32 - 1 } else { NEVER };
        }
    }

    /// What entering `cell` by the move `dir` at timestep `t` costs beyond the move: the other
    /// paths on `cell` at `t`, those moving the other way (`cell` back to where the move came
    /// from) at `t - 1 -> t`, and an arrived goal.
    #[inline]
    fn meetings(&self, dir: usize, cell: CellId, t: usize) -> u32 {
        let swaps = self.moves[self.move_index(t - 1, cell, opposite(dir))];
        let on_path = self.usage[t * self.cells + cell as usize];
        let on_goal = self.arrival[cell as usize] <= t as u32;
        (u32::from(on_path) + u32::from(on_goal) + u32::from(swaps)) * MEETING_COST
    }

    /// The cheapest path of `agent` from `start` within the margin (a shortest one when the
    /// search finds none, which cannot happen: a shortest path is within it).
    fn path(&mut self, agent: u32, start: CellId) -> Vec<CellId> {
        let goal = self.dist.goal(agent);
        let shortest = self.dist.get(agent, start);
        if shortest == GoalDistances::UNREACHABLE {
            return vec![start];
        }
        let limit = shortest + self.margin;
        self.search += 1;
        self.heap.clear();
        let cells = self.cells as u64;
        let root = u64::from(start);
        self.stamp[root as usize] = self.search;
        self.cost[root as usize] = 0;
        self.heap.push(Reverse((shortest, shortest, root)));
        let offsets = self.grid.move_offsets();
        let mut end = root;
        while let Some(Reverse((_, _, s))) = self.heap.pop() {
            let (t, c) = ((s / cells) as u32, (s % cells) as CellId);
            let g = self.cost[s as usize];
            if c == goal {
                end = s;
                break;
            }
            for dir in self.grid.moves(c).iter() {
                let to = (i64::from(c) + offsets[dir.index()]) as CellId;
                let h = self.dist.get(agent, to);
                if h == GoalDistances::UNREACHABLE || t + 1 + h > limit {
                    continue;
                }
                let cost = g + 1 + self.meetings(dir.index(), to, t as usize + 1);
                let next = (s / cells + 1) * cells + u64::from(to);
                let k = next as usize;
                if self.stamp[k] != self.search || cost < self.cost[k] {
                    self.stamp[k] = self.search;
                    self.cost[k] = cost;
                    self.via[k] = dir.index() as u8;
                    self.heap.push(Reverse((cost + h, h, next)));
                }
            }
        }
        let mut path = Vec::new();
        let (mut t, mut at) = ((end / cells) as usize, (end % cells) as CellId);
        loop {
            path.push(at);
            if t == 0 {
                break;
            }
            let dir = self.via[t * self.cells + at as usize] as usize;
            at = (i64::from(at) - offsets[dir]) as CellId;
            t -= 1;
        }
        path.reverse();
        path
    }
}

/// The direction opposite to direction `dir` (by [`Direction`] index).
#[inline]
fn opposite(dir: usize) -> usize {
    if dir < 4 {
        (dir + 2) % 4
    } else {
        4 + (dir - 2) % 4
    }
}
