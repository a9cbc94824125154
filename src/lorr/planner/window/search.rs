//! Space-time A* of the `window` planner: one robot's cheapest path over (cell, heading,
//! step) up to the window's end, against the paths of the others in a window's reservation table
//! (as the robot's group sees it, an [`Occupancy`])
//! (no shared cell at a step, no swap), with the rotate model's actions: forward, a quarter
//! turn either way, wait.
//!
//! The cost of a path (the window planner's objective, summed over robots) is what its actions
//! cost in the robot's distance table (a wait or a turn 1, a step its cost there: 1, or more
//! against a lane), up to the step from which it stays on its errand cell to the window's end;
//! a path that does not end there adds the table's estimate from its last state
//! ([`DistanceTables::actions`]). That estimate is also the search's heuristic, so a state at
//! the window's end, or on the errand with the cell free to the end, is a goal whose cost is
//! its key. Without lanes the estimate never exceeds the true cost and the first goal taken
//! from the queue is the cheapest; with lane costs above 1 the estimate (the table's value plus
//! the turns to face its cheapest neighbour) can exceed it by a step, so a path found may cost
//! a little more than the cheapest (it is valid all the same, and kept only if it lowers the
//! window's total).
//!
//! Flat vectors by (step, cell, heading), stamped by search so nothing is cleared between
//! searches; a bound on the states expanded keeps a search short in crowds.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::reservation::{Occupancy, State};
use crate::grid::{CellId, Grid};
use crate::lorr::distance::{DistanceTables, UNREACHABLE};
use crate::mapf::NO_AGENT;
use crate::sim::Heading;

/// What robot `a`'s path costs (see the module docs) heading for `goal` with `table` (its
/// distance table; `None`: no errand, cost 0).
pub(crate) fn path_cost(
    tables: &DistanceTables,
    table: Option<&[u16]>,
    goal: CellId,
    path: &[State],
) -> u32 {
    let Some(table) = table else {
        return 0;
    };
    let h = path.len() - 1;
    // The first step from which the robot stays on its errand.
    let mut rest = h + 1;
    for t in (0..=h).rev() {
        if path[t].cell != goal {
            break;
        }
        rest = t;
    }
    let mut g = 0;
    for t in 0..h {
        if t == rest {
            return g;
        }
        g += action_cost(tables, path[t], path[t + 1]);
    }
    if rest <= h {
        g
    } else {
        g + tables.actions(table, path[h].cell, path[h].heading)
    }
}

/// What going from `from` to `to` (one action) costs.
#[inline]
fn action_cost(tables: &DistanceTables, from: State, to: State) -> u32 {
    if from.cell != to.cell {
        tables.enter_cost(to.cell, to.heading)
    } else {
        1
    }
}

/// One robot's search: where it starts, its errand, and how far to look.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Query<'a> {
    /// The distance table of its errand.
    pub table: &'a [u16],
    /// Its state at step 0.
    pub start: State,
    /// Its errand's cell.
    pub goal: CellId,
    /// Most states expanded.
    pub max_expanded: usize,
}

/// The search's working memory, reused.
#[derive(Debug, Default)]
pub(crate) struct WindowSearch {
    /// Per node: the search that last touched it.
    stamp: Vec<u32>,
    /// Per node: the cheapest cost found to it.
    g: Vec<u32>,
    /// Per node: the node it was reached from.
    parent: Vec<u32>,
    /// Per node: whether it was expanded.
    closed: Vec<bool>,
    open: BinaryHeap<Reverse<(u32, u32, u32)>>,
    search: u32,
    cells: usize,
    /// States expanded by the searches so far.
    pub expanded: u64,
}

impl WindowSearch {
    /// Node of (step, cell, heading).
    #[inline]
    fn node(&self, t: usize, cell: CellId, heading: Heading) -> usize {
        ((t * self.cells) + cell as usize) * 4 + heading.index()
    }

    /// The cheapest path of the robot of `query` over the window against the table as
    /// `occupancy` shows it (the robot's own path taken out), its costs read from `tables`,
    /// written into `out` (`h + 1` states); its cost, or `None` when none is found within
    /// `query.max_expanded` states.
    pub(crate) fn search(
        &mut self,
        grid: &Grid,
        occupancy: &Occupancy,
        tables: &DistanceTables,
        query: Query,
        out: &mut [State],
    ) -> Option<u32> {
        let Query {
            table,
            start,
            goal,
            max_expanded,
        } = query;
        let h = occupancy.steps();
        let size = (h + 1) * grid.len() * 4;
        if self.stamp.len() != size {
            self.cells = grid.len();
            self.stamp = vec![0; size];
            self.g = vec![0; size];
            self.parent = vec![0; size];
            self.closed = vec![false; size];
            self.search = 0;
        }
        self.search = self.search.wrapping_add(1);
        if self.search == 0 {
            self.stamp.fill(0);
            self.search = 1;
        }
        let search = self.search;
        self.open.clear();
        let estimate = |s: State| tables.actions(table, s.cell, s.heading);
        let e0 = estimate(start);
        if e0 >= u32::from(UNREACHABLE) || occupancy.holder(0, start.cell) != NO_AGENT {
            return None;
        }
        let n0 = self.node(0, start.cell, start.heading);
        self.stamp[n0] = search;
        self.g[n0] = 0;
        self.parent[n0] = u32::MAX;
        self.closed[n0] = false;
        self.open.push(Reverse((e0, e0, n0 as u32)));
        let mut expanded = 0;
        while let Some(Reverse((f, e, n))) = self.open.pop() {
            let n = n as usize;
            if self.closed[n] {
                continue;
            }
            self.closed[n] = true;
            let heading = Heading::from_index(n % 4);
            let cell = ((n / 4) % self.cells) as CellId;
            let t = n / 4 / self.cells;
            let g = self.g[n];
            let rests = cell == goal
                && (t + 1..=h).all(|s| occupancy.holder(s, goal) == NO_AGENT)
                && e == 0;
            if t == h || rests {
                self.write_path(n, t, h, out);
                self.expanded += expanded as u64;
                return Some(f.min(g + e));
            }
            expanded += 1;
            if expanded > max_expanded {
                break;
            }
            let mut next = [(State { cell, heading }, 1u32); 4];
            next[1].0.heading = heading.clockwise();
            next[2].0.heading = heading.counter_clockwise();
            let mut len = 3;
            if let Some(ahead) = heading.ahead(grid, cell) {
                next[3] = (
                    State {
                        cell: ahead,
                        heading,
                    },
                    tables.enter_cost(ahead, heading),
                );
                len = 4;
            }
            for &(s, cost) in &next[..len] {
                if !occupancy.may_step(t, cell, s.cell) {
                    continue;
                }
                let e = estimate(s);
                if e >= u32::from(UNREACHABLE) {
                    continue;
                }
                let m = self.node(t + 1, s.cell, s.heading);
                let ng = g + cost;
                if self.stamp[m] == search && (self.closed[m] || self.g[m] <= ng) {
                    continue;
                }
                self.stamp[m] = search;
                self.closed[m] = false;
                self.g[m] = ng;
                self.parent[m] = n as u32;
                self.open.push(Reverse((ng + e, e, m as u32)));
            }
        }
        self.expanded += expanded as u64;
        None
    }

    /// Writes the path ending at node `end` (step `t`) into `out`, waiting there to step `h`.
    fn write_path(&self, end: usize, t: usize, h: usize, out: &mut [State]) {
        let state = |n: usize| State {
            cell: ((n / 4) % self.cells) as CellId,
            heading: Heading::from_index(n % 4),
        };
        let last = state(end);
        for s in &mut out[t..=h] {
            *s = last;
        }
        let mut n = end;
        for s in (0..t).rev() {
            n = self.parent[n] as usize;
            out[s] = state(n);
        }
    }
}
