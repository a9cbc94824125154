//! A* on the grid with the octile heuristic.

use super::heap::HeapEntry;
use super::workspace::{NO_CELL, Node};
use super::{QueryError, SearchOptions, SearchOutcome, SearchWorkspace};
use crate::grid::{CellId, Direction, Grid, distance};

impl SearchWorkspace {
    /// Optimal path from `start` to `goal` by A*, with no node budget.
    ///
    /// On [`SearchOutcome::Found`] the path is in [`path`](Self::path).
    ///
    /// # Errors
    /// [`QueryError`] when a cell is outside the grid or blocked.
    pub fn find_path(
        &mut self,
        grid: &Grid,
        start: CellId,
        goal: CellId,
    ) -> Result<SearchOutcome, QueryError> {
        self.find_path_with(grid, start, goal, &SearchOptions::default())
    }

    /// Optimal path from `start` to `goal` by A*, with options (node budget).
    ///
    /// # Errors
    /// [`QueryError`] when a cell is outside the grid or blocked.
    pub fn find_path_with(
        &mut self,
        grid: &Grid,
        start: CellId,
        goal: CellId,
        options: &SearchOptions,
    ) -> Result<SearchOutcome, QueryError> {
        self.find_path_avoiding(grid, start, goal, options, |_| false)
    }

    /// A* that also treats every cell for which `avoid` returns true as blocked (other agents,
    /// reserved cells). The start cell is never avoided. The result is optimal on the grid with
    /// those cells removed; a diagonal past an avoided cell is still allowed, since avoided
    /// cells are obstacles that move, not walls.
    ///
    /// # Errors
    /// [`QueryError`] when a cell is outside the grid or blocked.
    pub fn find_path_avoiding<F: Fn(CellId) -> bool>(
        &mut self,
        grid: &Grid,
        start: CellId,
        goal: CellId,
        options: &SearchOptions,
        avoid: F,
    ) -> Result<SearchOutcome, QueryError> {
        validate_endpoints(grid, start, goal)?;
        self.begin(grid);
        if !grid.connected(start, goal) {
            return Ok(SearchOutcome::Unreachable);
        }
        let budget = options.node_budget.unwrap_or(u64::MAX);
        Ok(if grid.is_weighted() {
            self.astar::<true, F>(grid, start, goal, budget, avoid)
        } else {
            self.astar::<false, F>(grid, start, goal, budget, avoid)
        })
    }

    /// The search loop, specialised for weighted and uniform grids so the uniform case never
    /// loads a cost.
    fn astar<const WEIGHTED: bool, F: Fn(CellId) -> bool>(
        &mut self,
        grid: &Grid,
        start: CellId,
        goal: CellId,
        budget: u64,
        avoid: F,
    ) -> SearchOutcome {
        let width = grid.width() as i64;
        let moves = grid.move_table();
        let costs = grid.cost_table().unwrap_or(&[]);
        let neighborhood = grid.neighborhood();
        let h_scale = grid.min_cost();
        let (gx, gy) = grid.coords(goal);
        let (gx, gy) = (i64::from(gx), i64::from(gy));
        let offsets: [i64; 8] = std::array::from_fn(|d| {
            i64::from(Direction::DY[d]) * width + i64::from(Direction::DX[d])
        });
        let heuristic = |x: i64, y: i64| {
            distance(
                neighborhood,
                (x - gx).unsigned_abs() as f64,
                (y - gy).unsigned_abs() as f64,
            ) * h_scale
        };

        let open = self.generation;
        let closed = open + 1;
        let nodes = &mut self.nodes;
        let heap = &mut self.heap;
        let stats = &mut self.stats;

        let (sx, sy) = grid.coords(start);
        nodes[start as usize] = Node {
            g: 0.0,
            parent: NO_CELL,
            stamp: open,
        };
        heap.push(HeapEntry {
            f: heuristic(i64::from(sx), i64::from(sy)),
            g: 0.0,
            cell: start,
        });
        stats.pushed = 1;

        while let Some(HeapEntry { g, cell, .. }) = heap.pop() {
            if cell == goal {
                self.reconstruct(goal);
                return SearchOutcome::Found { cost: g };
            }
            if stats.expanded >= budget {
                return SearchOutcome::BudgetExhausted;
            }
            stats.expanded += 1;
            nodes[cell as usize].stamp = closed;
            let cx = i64::from(cell) % width;
            let cy = i64::from(cell) / width;
            let mut bits = moves[cell as usize].0;
            while bits != 0 {
                let d = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let next = (i64::from(cell) + offsets[d]) as CellId;
                let step = if WEIGHTED {
                    Direction::BASE_COST[d] * f64::from(costs[next as usize])
                } else {
                    Direction::BASE_COST[d]
                };
                let ng = g + step;
                let node = &mut nodes[next as usize];
                if node.stamp == open {
                    if ng < node.g {
                        let h = heuristic(
                            cx + i64::from(Direction::DX[d]),
                            cy + i64::from(Direction::DY[d]),
                        );
                        node.g = ng;
                        node.parent = cell;
                        heap.decrease(next, ng + h, ng);
                    }
                } else if node.stamp != closed {
                    if avoid(next) && next != goal {
                        continue;
                    }
                    *node = Node {
                        g: ng,
                        parent: cell,
                        stamp: open,
                    };
                    let h = heuristic(
                        cx + i64::from(Direction::DX[d]),
                        cy + i64::from(Direction::DY[d]),
                    );
                    heap.push(HeapEntry {
                        f: ng + h,
                        g: ng,
                        cell: next,
                    });
                    stats.pushed += 1;
                }
            }
        }
        SearchOutcome::Unreachable
    }
}

/// Checks that both endpoints are inside the grid and walkable.
pub(crate) fn validate_endpoints(
    grid: &Grid,
    start: CellId,
    goal: CellId,
) -> Result<(), QueryError> {
    for cell in [start, goal] {
        if !grid.contains(cell) {
            return Err(QueryError::CellOutOfBounds {
                cell,
                cells: grid.len(),
            });
        }
    }
    if !grid.is_walkable(start) {
        let (x, y) = grid.coords(start);
        return Err(QueryError::StartBlocked { x, y });
    }
    if !grid.is_walkable(goal) {
        let (x, y) = grid.coords(goal);
        return Err(QueryError::GoalBlocked { x, y });
    }
    Ok(())
}
