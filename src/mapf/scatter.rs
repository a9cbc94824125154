//! Scattering: one near-shortest path per agent, chosen so that the agents' paths meet as
//! little as possible, for PIBT to follow (the "space utilisation optimisation" of Okumura,
//! "Engineering LaCAM*: Towards Real-Time, Large-Scale, and Near-Optimal Multi-Agent
//! Pathfinding", AAMAS 2024; our implementation).
//!
//! PIBT alone sends every agent down a shortest way, so on open maps whole crowds pile into the
//! same cells and wait for each other. Before the search, each agent in turn gets a path at most
//! `margin` moves longer than its shortest one that meets the fewest other agents' paths at the
//! same timestep (and the fewest goals of agents already arrived), the shortest of those, by an
//! A* over cells that never waits nor comes back to a cell; further rounds re-plan every agent
//! against all the others while the meetings fall. LaCAM's PIBT then tries, before its ranked
//! cells, the cell that follows the agent's cell on its path.
//!
//! The paths are simple so that PIBT, which follows them cell by cell and not on time, keeps to
//! them: an earlier A* over (cell, time) met fewer paths on paper by stepping back and forth,
//! and on den520d at 1,000 agents its agents left their paths 30,000 times and pushed 202
//! agents off their goals, costing 12% over the lower bound against lacam3's 2%.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use super::distances::GoalDistances;
use crate::grid::{CellId, Direction, Grid, Neighborhood};

/// What meeting another path costs, in moves: a cell it holds at the same timestep, a move it
/// makes the other way at the same timestep (a swap), or the goal of an agent already there.
/// More than any margin, so that a path takes any detour within the margin that meets fewer
/// (lacam3's order): on den520d at 1,000 agents, 1 gave first solutions 8% dearer.
const MEETING_COST: u32 = 100;

/// The most rounds of planning: the first plans each agent against those before it, the next
/// ones against all the others, until a round meets no fewer paths than the one before.
const MAX_ROUNDS: usize = 16;

/// No timestep (a cell no path ends on).
const NEVER: u32 = u32::MAX;

/// The most memory the paths' tables may take (bytes). They cover every (timestep, cell)
/// pair of the window, 10 bytes a pair on a 4-connected map and 18 on an 8-connected one
/// (den520d, 256 x 257, with 412-step paths: 271 MB); on a larger map with long paths (512 x
/// 512 with 1,000-step paths: 2.6 GB) no paths are made, and LaCAM runs as it does without
/// scattering. A search's own states take `margin + 1` slots per cell, a few MB.
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
            .saturating_mul(2 + 2 * moves_per_cell(grid));
        if table_bytes > MAX_TABLE_BYTES {
            return Scatter {
                steps: Vec::new(),
                first: vec![0; n + 1],
            };
        }
        let mut planner = Planner::new(grid, dist, margin, window);
        let mut paths: Vec<Vec<CellId>> = vec![Vec::new(); n];
        // Round after round while the meetings fall; the paths of the round with the fewest.
        let mut best: Option<(u64, Vec<Vec<CellId>>)> = None;
        'rounds: for _ in 0..MAX_ROUNDS {
            for a in 0..n {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    break 'rounds;
                }
                planner.remove(&paths[a]);
                paths[a] = planner.path(a as u32, starts[a]);
                planner.add(&paths[a]);
            }
            let meetings = planner.total_meetings(&paths);
            match &best {
                Some((m, _)) if meetings >= *m => break,
                _ => best = Some((meetings, paths.clone())),
            }
            if meetings == 0 {
                break;
            }
        }
        // The best complete round (one cut short by the deadline is kept only when it is the
        // first: the agents it did not reach have no path).
        if let Some((_, kept)) = best {
            paths = kept;
        }
        // Each path's steps by cell. The paths are simple; were one to come back to a cell, the
        // agent would follow it from its last visit, never round a loop.
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

/// Moves out of a cell in the `moves` table: 4 or 8, by the grid's neighbourhood.
fn moves_per_cell(grid: &Grid) -> usize {
    match grid.neighborhood() {
        Neighborhood::Four => 4,
        Neighborhood::Eight => 8,
    }
}

/// An open search state: cost + distance to the goal, the distance, the cell, the moves that
/// reached it, its cost and the direction of the last move ([`NO_MOVE`] at the start).
type Open = (u32, u32, CellId, u32, u32, u8);

/// The paths' tables over (timestep within the window) x cell and the search's over cells,
/// made once and kept from agent to agent.
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

    /// Per cell: the search that closed it (`stamp`) and the move that reached it then.
    stamp: Vec<u32>,
    via: Vec<u8>,
    search: u32,
    heap: BinaryHeap<Reverse<Open>>,
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

            stamp: vec![0; cells],
            via: vec![0; cells],
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
        u32::from(on_path) + u32::from(on_goal) + u32::from(swaps)
    }

    /// The meetings of every path with the others (each meeting counted from both sides).
    fn total_meetings(&self, paths: &[Vec<CellId>]) -> u64 {
        let mut total = 0;
        for path in paths {
            for (t, w) in path.windows(2).enumerate() {
                let d = self.direction(w[0], w[1]);
                // Its own presence on the next cell counts once: not a meeting.
                total += u64::from(self.meetings(d, w[1], t + 1).saturating_sub(1));
            }
        }
        total
    }

    /// The cheapest path of `agent` from `start` within the margin (a shortest one when the
    /// search finds none, which cannot happen: a shortest path is within it). The search is
    /// over cells, each closed the first time it is taken from the queue, its timestep the
    /// moves that reached it: the path never waits and never comes back to a cell, so that PIBT,
    /// which follows it cell by cell and not on time, keeps to it when it runs early or late.
    fn path(&mut self, agent: u32, start: CellId) -> Vec<CellId> {
        let goal = self.dist.goal(agent);
        let shortest = self.dist.get(agent, start);
        if shortest == GoalDistances::UNREACHABLE {
            return vec![start];
        }
        let limit = shortest + self.margin;
        self.search += 1;
        self.heap.clear();
        // (cost + distance, distance, cell, moves, cost, the move that reached it)
        self.heap
            .push(Reverse((shortest, shortest, start, 0, 0, NO_MOVE)));
        let offsets = self.grid.move_offsets();
        while let Some(Reverse((_, _, c, t, g, dir))) = self.heap.pop() {
            if self.stamp[c as usize] == self.search {
                continue;
            }
            self.stamp[c as usize] = self.search;
            self.via[c as usize] = dir;
            if c == goal {
                break;
            }
            for d in self.grid.moves(c).iter() {
                let to = (i64::from(c) + offsets[d.index()]) as CellId;
                let h = self.dist.get(agent, to);
                if h == GoalDistances::UNREACHABLE
                    || t + 1 + h > limit
                    || self.stamp[to as usize] == self.search
                {
                    continue;
                }
                let cost = g + 1 + MEETING_COST * self.meetings(d.index(), to, t as usize + 1);
                self.heap
                    .push(Reverse((cost + h, h, to, t + 1, cost, d.index() as u8)));
            }
        }
        let mut path = vec![goal];
        let mut at = goal;
        while at != start {
            let dir = self.via[at as usize] as usize;
            at = (i64::from(at) - offsets[dir]) as CellId;
            path.push(at);
        }
        path.reverse();
        path
    }
}

/// No move (the search's start).
const NO_MOVE: u8 = u8::MAX;

/// The direction opposite to direction `dir` (by [`Direction`] index).
#[inline]
fn opposite(dir: usize) -> usize {
    if dir < 4 {
        (dir + 2) % 4
    } else {
        4 + (dir - 2) % 4
    }
}
