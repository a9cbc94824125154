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
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

use super::distances::{GoalDistances, UNREACHABLE};
use crate::grid::{CellId, Grid};

/// What meeting another path costs, in moves: a cell it holds at the same timestep, a move it
/// makes the other way at the same timestep (a swap), or the goal of an agent already there.
/// Measured on the MAPF benchmark: 2 and 4 gave no lower sums of costs than 1.
const MEETING_COST: u32 = 1;

/// Rounds of planning: the first plans each agent against those before it, the next ones
/// against all the others.
const ROUNDS: usize = 2;

/// The near-shortest path of every agent (see the module docs).
#[derive(Debug, Clone)]
pub struct Scatter {
    /// Per agent: the cell that follows each cell of its path.
    next: Vec<HashMap<CellId, CellId, CellHash>>,
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
        let cells = grid.len() as u64;
        let mut planner = Planner {
            grid,
            dist,
            cells,
            margin,
            usage: HashMap::default(),
            moves: HashMap::default(),
            arrival: HashMap::default(),
            best: HashMap::default(),
            heap: BinaryHeap::new(),
        };
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
        let next = paths
            .iter()
            .map(|path| {
                // A path may come back to a cell (to let another pass): the agent follows it
                // from its last visit, so that following the path never goes round a loop.
                let mut map = HashMap::default();
                for w in path.windows(2) {
                    map.insert(w[0], w[1]);
                }
                map
            })
            .collect();
        Scatter { next }
    }

    /// The cell after `at` on agent `agent`'s path (`None` off its path or at its end).
    #[inline]
    pub fn next_cell(&self, agent: u32, at: CellId) -> Option<CellId> {
        self.next[agent as usize].get(&at).copied()
    }
}

/// The search's tables, kept from agent to agent.
struct Planner<'a> {
    grid: &'a Grid,
    dist: &'a GoalDistances,
    cells: u64,
    margin: u32,
    /// Paths on each (time x cells + cell).
    usage: HashMap<u64, u16, CellHash>,
    /// Paths on each move (time x cells + from) x cells + to.
    moves: HashMap<u64, u16, CellHash>,
    /// The timestep each path reaches its end cell (a goal: goals are distinct).
    arrival: HashMap<CellId, u32, CellHash>,
    /// Per state of the current search: cost and the state it was reached from.
    best: HashMap<u64, (u32, u64), CellHash>,
    heap: BinaryHeap<Reverse<(u32, u32, u64)>>,
}

impl Planner<'_> {
    fn add(&mut self, path: &[CellId]) {
        for (t, &c) in path.iter().enumerate() {
            *self
                .usage
                .entry(t as u64 * self.cells + u64::from(c))
                .or_insert(0) += 1;
        }
        for (t, w) in path.windows(2).enumerate() {
            let key = self.move_key(t as u32, w[0], w[1]);
            *self.moves.entry(key).or_insert(0) += 1;
        }
        if let Some(&end) = path.last() {
            self.arrival.insert(end, path.len() as u32 - 1);
        }
    }

    fn remove(&mut self, path: &[CellId]) {
        for (t, &c) in path.iter().enumerate() {
            if let Some(u) = self.usage.get_mut(&(t as u64 * self.cells + u64::from(c))) {
                *u -= 1;
            }
        }
        for (t, w) in path.windows(2).enumerate() {
            let key = self.move_key(t as u32, w[0], w[1]);
            if let Some(u) = self.moves.get_mut(&key) {
                *u -= 1;
            }
        }
        if let Some(end) = path.last() {
            self.arrival.remove(end);
        }
    }

    /// The key of the move `from -> to` made at timestep `t -> t + 1`.
    fn move_key(&self, t: u32, from: CellId, to: CellId) -> u64 {
        (u64::from(t) * self.cells + u64::from(from)) * self.cells + u64::from(to)
    }

    /// What entering `cell` at timestep `t` from `from` costs beyond the move: the other paths
    /// on `cell` at `t`, those moving `cell -> from` at `t - 1 -> t`, and an arrived goal.
    fn meetings(&self, from: CellId, cell: CellId, t: u32) -> u32 {
        let swaps = self
            .moves
            .get(&self.move_key(t - 1, cell, from))
            .copied()
            .unwrap_or(0);
        let on_path = self
            .usage
            .get(&(u64::from(t) * self.cells + u64::from(cell)))
            .copied()
            .unwrap_or(0);
        let on_goal = self.arrival.get(&cell).is_some_and(|&at| t >= at);
        (u32::from(on_path) + u32::from(on_goal) + u32::from(swaps)) * MEETING_COST
    }

    /// The cheapest path of `agent` from `start` within the margin (a shortest one when the
    /// search finds none, which cannot happen: a shortest path is within it).
    fn path(&mut self, agent: u32, start: CellId) -> Vec<CellId> {
        let goal = self.dist.goal(agent);
        let shortest = self.dist.get(agent, start);
        if shortest == UNREACHABLE {
            return vec![start];
        }
        let limit = shortest + self.margin;
        self.best.clear();
        self.heap.clear();
        let state = |t: u32, c: CellId| u64::from(t) * self.cells + u64::from(c);
        let root = state(0, start);
        self.best.insert(root, (0, u64::MAX));
        self.heap.push(Reverse((shortest, shortest, root)));
        let offsets = self.grid.move_offsets();
        let mut end = None;
        while let Some(Reverse((_, _, s))) = self.heap.pop() {
            let (t, c) = ((s / self.cells) as u32, (s % self.cells) as CellId);
            let g = self.best[&s].0;
            if c == goal {
                end = Some(s);
                break;
            }
            for dir in self.grid.moves(c).iter() {
                let to = (i64::from(c) + offsets[dir.index()]) as CellId;
                let h = self.dist.get(agent, to);
                if h == UNREACHABLE || t + 1 + h > limit {
                    continue;
                }
                let cost = g + 1 + self.meetings(c, to, t + 1);
                let next = state(t + 1, to);
                if self.best.get(&next).is_none_or(|&(old, _)| cost < old) {
                    self.best.insert(next, (cost, s));
                    self.heap.push(Reverse((cost + h, h, next)));
                }
            }
        }
        let mut path = Vec::new();
        let mut at = end.unwrap_or(root);
        loop {
            path.push((at % self.cells) as CellId);
            let parent = self.best[&at].1;
            if parent == u64::MAX {
                break;
            }
            at = parent;
        }
        path.reverse();
        path
    }
}

/// A fast hash for integer keys (cells and states).
type CellHash = BuildHasherDefault<IntHasher>;

/// A 64-bit mix of the key (no protection against chosen keys, none needed for cells).
#[derive(Default)]
struct IntHasher(u64);

impl Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, x: u64) {
        let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        self.0 = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        self.0 ^= self.0 >> 31;
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }
}
