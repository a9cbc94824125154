//! A* for robots that turn ([`crate::sim::ActionModel::Rotate`]): states are (cell, heading),
//! a step forward and a quarter turn each cost 1, and the route returned is the cells visited.
//!
//! A cell-only shortest path on a 4-connected grid is usually one of very many of the same
//! length, and the one a plain A* returns often zig-zags: a robot then pays a turn at every
//! corner (on RANDOM-01 of the League of Robot Runners, 0.49 turns per move with plain A*
//! routes). Searching over headings finds the route with the fewest steps *and* turns.
//!
//! The heuristic is the Manhattan distance plus the turns any route must make (none when the
//! goal is straight ahead, one when it lies off to one side or on a diagonal the agent faces
//! toward, two when it is behind or on a diagonal the agent faces away from): admissible and
//! consistent, so the route is optimal in steps plus turns.

use super::OpenList;
use crate::grid::{CellId, Grid};
use crate::sim::Heading;

/// The cost of one action (a step forward or a quarter turn) in the search's units: extra
/// costs are given in these.
pub const ACTION_COST: u32 = 16;

/// Scratch memory of the turning A*, reused between searches (4 states per cell).
#[derive(Debug, Default)]
pub struct TurningSearch {
    g: Vec<u32>,
    parent: Vec<u32>,
    stamp: Vec<u32>,
    generation: u32,
    /// Per state: the stamp of the search that expanded it.
    closed: Vec<u32>,
    /// Keyed by `f`; states, not cells, despite the list's name for them.
    open: OpenList,
    path: Vec<CellId>,
    expanded: u64,
}

impl TurningSearch {
    /// An empty workspace (sized on first use).
    pub fn new() -> TurningSearch {
        TurningSearch::default()
    }

    /// States expanded by the last search.
    pub fn expanded(&self) -> u64 {
        self.expanded
    }

    /// The route from `start` (facing `heading`) to `goal` with the fewest steps plus turns:
    /// the cells visited, `start` first and `goal` last. `None` when `goal` cannot be reached
    /// (or either cell is off the map or blocked).
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::search::TurningSearch;
    /// use throng::sim::Heading;
    ///
    /// let grid = Grid::from_ascii("....\n....\n....")?;
    /// let mut search = TurningSearch::new();
    /// let (start, goal) = (grid.cell(0, 0).unwrap(), grid.cell(3, 2).unwrap());
    /// let route = search.find_route(&grid, start, Heading::East, goal).unwrap();
    /// // Facing east: all the way east first, then one turn and south (no zig-zag).
    /// let cells: Vec<_> = route.iter().map(|&c| grid.coords(c)).collect();
    /// assert_eq!(cells, vec![(0, 0), (1, 0), (2, 0), (3, 0), (3, 1), (3, 2)]);
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    pub fn find_route(
        &mut self,
        grid: &Grid,
        start: CellId,
        heading: Heading,
        goal: CellId,
    ) -> Option<&[CellId]> {
        self.find_route_with(grid, start, heading, goal, |_, _| 0)
    }

    /// [`find_route`](Self::find_route) where stepping onto `cell` facing `heading` costs
    /// `extra(cell, heading)` more, in [`ACTION_COST`]ths of a step (for instance to keep off
    /// the way other agents go the other way). The route is the cheapest under those costs.
    pub fn find_route_with(
        &mut self,
        grid: &Grid,
        start: CellId,
        heading: Heading,
        goal: CellId,
        extra: impl Fn(CellId, Heading) -> u32,
    ) -> Option<&[CellId]> {
        self.expanded = 0;
        if !grid.contains(start)
            || !grid.contains(goal)
            || !grid.is_walkable(start)
            || !grid.is_walkable(goal)
        {
            return None;
        }
        let states = grid.len() * 4;
        if self.g.len() != states {
            // Zeroed allocations: pages are mapped only where searches reach (see
            // `SearchWorkspace`).
            self.g = Vec::new();
            self.parent = Vec::new();
            self.stamp = Vec::new();
            self.closed = Vec::new();
            self.g = vec![0; states];
            self.parent = vec![0; states];
            self.stamp = vec![0; states];
            self.closed = vec![0; states];
            self.generation = 0;
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp = Vec::new();
            self.closed = Vec::new();
            self.stamp = vec![0; states];
            self.closed = vec![0; states];
            self.generation = 1;
        }
        let width = grid.width();
        let (gx, gy) = (goal % width, goal / width);
        let h = |cell: CellId, heading: Heading| -> u32 {
            let (x, y) = (cell % width, cell / width);
            (x.abs_diff(gx) + y.abs_diff(gy) + turns_needed(heading, x, y, gx, gy)) * ACTION_COST
        };
        let stamp = self.generation;
        let s0 = start * 4 + heading.index() as u32;
        self.open.clear();
        self.g[s0 as usize] = 0;
        self.parent[s0 as usize] = s0;
        self.stamp[s0 as usize] = stamp;
        self.open.push(u64::from(h(start, heading)), s0);
        let mut found = None;
        while let Some((_, s)) = self.open.pop() {
            if self.closed[s as usize] == stamp {
                continue; // a stale entry of a state already expanded
            }
            self.closed[s as usize] = stamp;
            let g = self.g[s as usize];
            let cell = s / 4;
            if cell == goal {
                found = Some(s);
                break;
            }
            self.expanded += 1;
            let facing = Heading::from_index((s % 4) as usize);
            let relax = |this: &mut Self, t: u32, cell: CellId, heading: Heading, cost: u32| {
                let ng = g + cost;
                let ti = t as usize;
                if this.stamp[ti] != stamp || ng < this.g[ti] {
                    this.stamp[ti] = stamp;
                    this.g[ti] = ng;
                    this.parent[ti] = s;
                    // The list pops the latest among equal f: a search that heads straight on.
                    this.open.push(u64::from(ng + h(cell, heading)), t);
                }
            };
            if let Some(ahead) = facing.ahead(grid, cell) {
                let cost = ACTION_COST.saturating_add(extra(ahead, facing));
                relax(self, ahead * 4 + facing.index() as u32, ahead, facing, cost);
            }
            for turned in [facing.clockwise(), facing.counter_clockwise()] {
                relax(
                    self,
                    cell * 4 + turned.index() as u32,
                    cell,
                    turned,
                    ACTION_COST,
                );
            }
        }
        let end = found?;
        self.path.clear();
        let mut s = end;
        loop {
            let cell = s / 4;
            if self.path.last() != Some(&cell) {
                self.path.push(cell);
            }
            let p = self.parent[s as usize];
            if p == s {
                break;
            }
            s = p;
        }
        self.path.reverse();
        Some(&self.path)
    }
}

/// The fewest quarter turns before an agent facing `heading` on `(x, y)` can have moved to
/// `(gx, gy)`.
fn turns_needed(heading: Heading, x: u32, y: u32, gx: u32, gy: u32) -> u32 {
    let east = gx > x;
    let west = gx < x;
    let south = gy > y;
    let north = gy < y;
    let needed = [east, south, west, north];
    let count = needed.iter().filter(|&&n| n).count() as u32;
    if count == 0 {
        return 0;
    }
    let i = heading.index();
    let faces = needed[i];
    let behind = needed[(i + 2) % 4];
    match (count, faces, behind) {
        (1, true, _) => 0,
        (1, false, true) => 2,
        (1, false, false) => 1,
        (_, true, _) => 1,
        (_, false, true) => 2,
        // Two directions needed, neither ahead nor behind: impossible (they would be the two
        // sides, which are opposite).
        (_, false, false) => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Neighborhood;

    /// Steps plus turns of a route followed from `heading`.
    fn actions(grid: &Grid, route: &[CellId], mut heading: Heading) -> u32 {
        let mut n = 0;
        for w in route.windows(2) {
            let want = Heading::toward(grid, w[0], w[1]).expect("straight steps");
            while heading != want {
                heading = if heading.clockwise() == want || heading.clockwise().clockwise() == want
                {
                    heading.clockwise()
                } else {
                    heading.counter_clockwise()
                };
                n += 1;
            }
            n += 1;
        }
        n
    }

    #[test]
    fn routes_are_optimal_in_steps_plus_turns() {
        // Against a brute-force Dijkstra over (cell, heading) on a map with walls.
        let grid = Grid::from_ascii("......\n.@@.@.\n...@..\n.@....\n...@@.")
            .unwrap()
            .with_neighborhood(Neighborhood::Four);
        let mut search = TurningSearch::new();
        for start in 0..grid.len() as CellId {
            for goal in 0..grid.len() as CellId {
                if !grid.is_walkable(start) || !grid.is_walkable(goal) {
                    continue;
                }
                for heading in Heading::ALL {
                    let best = dijkstra(&grid, start, heading, goal);
                    let route = search
                        .find_route(&grid, start, heading, goal)
                        .map(<[_]>::to_vec);
                    match (best, route) {
                        (None, None) => {}
                        (Some(b), Some(r)) => {
                            assert_eq!(r[0], start);
                            assert_eq!(*r.last().unwrap(), goal);
                            grid.path_cost(&r).expect("a legal route");
                            assert_eq!(
                                actions(&grid, &r, heading),
                                b,
                                "{start} -> {goal} {heading:?}"
                            );
                        }
                        (b, r) => panic!("{start} -> {goal}: {b:?} vs {r:?}"),
                    }
                }
            }
        }
    }

    fn dijkstra(grid: &Grid, start: CellId, heading: Heading, goal: CellId) -> Option<u32> {
        let mut dist = vec![u32::MAX; grid.len() * 4];
        let mut queue = std::collections::VecDeque::new();
        let s = start as usize * 4 + heading.index();
        dist[s] = 0;
        queue.push_back(s);
        while let Some(s) = queue.pop_front() {
            let (cell, h) = ((s / 4) as CellId, Heading::from_index(s % 4));
            if cell == goal {
                return Some(dist[s]);
            }
            let mut next = vec![
                cell as usize * 4 + h.clockwise().index(),
                cell as usize * 4 + h.counter_clockwise().index(),
            ];
            if let Some(a) = h.ahead(grid, cell) {
                next.push(a as usize * 4 + h.index());
            }
            for t in next {
                if dist[t] == u32::MAX {
                    dist[t] = dist[s] + 1;
                    queue.push_back(t);
                }
            }
        }
        None
    }

    #[test]
    fn unreachable_and_blocked_goals_give_none() {
        let grid = Grid::from_ascii("..@..")
            .unwrap()
            .with_neighborhood(Neighborhood::Four);
        let mut search = TurningSearch::new();
        assert!(search.find_route(&grid, 0, Heading::East, 4).is_none());
        assert!(search.find_route(&grid, 0, Heading::East, 2).is_none());
        assert_eq!(
            search.find_route(&grid, 1, Heading::West, 1),
            Some(&[1][..])
        );
    }
}
