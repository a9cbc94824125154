//! Exact step counts to each agent's goal: one breadth-first search over the grid's legal moves
//! per distinct goal, shared by the agents that have that goal.
//!
//! A MAPF step is one move (straight or diagonal) or a wait, so the distance that matters is the
//! number of moves, not the octile length. Tables cost 4 bytes per cell per distinct goal: they
//! suit one-shot MAPF instances (hundreds to a few thousand agents on maps of up to some 10^5
//! cells), not 10,000 agents on a 512 x 512 map (the simulation follows routes there).

use std::collections::{HashMap, VecDeque};

use super::pibt::Guidance;
use crate::grid::{CellId, Grid};

/// Step counts from every cell to each agent's goal.
///
/// ```
/// use throng::grid::Grid;
/// use throng::mapf::GoalDistances;
///
/// let grid = Grid::from_ascii("...\n.#.\n...")?.with_neighborhood(throng::grid::Neighborhood::Four);
/// let goal = grid.cell(2, 2).unwrap();
/// let d = GoalDistances::new(&grid, &[goal]);
/// assert_eq!(d.get(0, grid.cell(0, 0).unwrap()), 4);
/// assert_eq!(d.get(0, goal), 0);
/// # Ok::<(), throng::error::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct GoalDistances {
    goals: Vec<CellId>,
    /// Index into `tables` per agent.
    table_of: Vec<u32>,
    tables: Vec<Vec<u32>>,
}

impl GoalDistances {
    /// The distance of a cell from which the goal cannot be reached.
    pub const UNREACHABLE: u32 = u32::MAX;

    /// The tables of `goals[a]` for every agent `a` (one search per distinct goal).
    pub fn new(grid: &Grid, goals: &[CellId]) -> GoalDistances {
        let mut index: HashMap<CellId, u32> = HashMap::new();
        let mut tables = Vec::new();
        let mut table_of = Vec::with_capacity(goals.len());
        for &goal in goals {
            let t = *index.entry(goal).or_insert_with(|| {
                tables.push(bfs(grid, goal));
                (tables.len() - 1) as u32
            });
            table_of.push(t);
        }
        GoalDistances {
            goals: goals.to_vec(),
            table_of,
            tables,
        }
    }

    /// Moves from `cell` to agent `agent`'s goal ([`GoalDistances::UNREACHABLE`] when there is
    /// no way).
    #[inline]
    pub fn get(&self, agent: u32, cell: CellId) -> u32 {
        self.tables[self.table_of[agent as usize] as usize][cell as usize]
    }

    /// Agent `agent`'s goal.
    #[inline]
    pub fn goal(&self, agent: u32) -> CellId {
        self.goals[agent as usize]
    }

    /// Number of agents.
    pub fn agents(&self) -> usize {
        self.goals.len()
    }
}

impl Guidance for GoalDistances {
    fn cost_to_go(&self, agent: u32, cell: CellId) -> i64 {
        i64::from(self.get(agent, cell))
    }

    fn is_goal(&self, agent: u32, cell: CellId) -> bool {
        self.goal(agent) == cell
    }
}

/// Breadth-first step counts from `goal` (moves are symmetric on a grid, so these are also the
/// counts to it).
fn bfs(grid: &Grid, goal: CellId) -> Vec<u32> {
    let mut dist = vec![GoalDistances::UNREACHABLE; grid.len()];
    if !grid.contains(goal) || !grid.is_walkable(goal) {
        return dist;
    }
    let offsets = grid.move_offsets();
    let mut queue = VecDeque::from([goal]);
    dist[goal as usize] = 0;
    while let Some(c) = queue.pop_front() {
        let next = dist[c as usize] + 1;
        for dir in grid.moves(c).iter() {
            let n = (i64::from(c) + offsets[dir.index()]) as CellId;
            if dist[n as usize] == GoalDistances::UNREACHABLE {
                dist[n as usize] = next;
                queue.push_back(n);
            }
        }
    }
    dist
}
