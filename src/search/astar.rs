//! A* on the grid with the octile heuristic.

use super::cost::{CostModel, FixedCost, FloatCost};
use super::heap::{LevelHeap, OpenList, OpenQueue};
use super::workspace::NO_PARENT;
use super::{QueryError, SearchOptions, SearchOutcome, SearchWorkspace};
use crate::grid::{CellId, Direction, Grid, Neighborhood};

/// One search's question: from where to where, how many expansions at most, and which cells
/// to treat as blocked besides the walls.
struct Query<'a, F> {
    start: CellId,
    goal: CellId,
    budget: u64,
    avoid: &'a F,
}

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
        if !self.start_query(grid, start, goal)? {
            return Ok(SearchOutcome::Unreachable);
        }
        let budget = options.node_budget.unwrap_or(u64::MAX);
        let neighborhood = grid.neighborhood();
        let query = Query {
            start,
            goal,
            budget,
            avoid: &avoid,
        };
        let found = match (grid.cost_table(), neighborhood) {
            (None, Neighborhood::Eight) => self.astar(grid, &query, FixedCost::<true>, levels),
            (None, Neighborhood::Four) => self.astar(grid, &query, FixedCost::<false>, levels),
            (Some(costs), _) => self.astar(
                grid,
                &query,
                FloatCost {
                    neighborhood,
                    costs,
                    h_scale: grid.min_cost(),
                },
                radix,
            ),
        };
        Ok(match found {
            Ok(()) => SearchOutcome::Found {
                cost: self.reconstruct(grid, goal),
            },
            Err(outcome) => outcome,
        })
    }

    /// The search loop, monomorphised per cost model so the uniform case never loads a cost.
    /// `Ok(())` when the goal was reached (the parents lead back to the start).
    fn astar<F: Fn(CellId) -> bool, C: CostModel, Q: OpenQueue>(
        &mut self,
        grid: &Grid,
        query: &Query<'_, F>,
        model: C,
        pick: for<'a> fn(&'a mut OpenList, &'a mut LevelHeap) -> &'a mut Q,
    ) -> Result<(), SearchOutcome> {
        let &Query {
            start,
            goal,
            budget,
            avoid,
        } = query;
        let width = grid.width();
        let moves = grid.move_table();
        let (gx, gy) = grid.coords(goal);
        let offsets = grid.move_offsets();

        let div = FastDiv::new(width);
        let (sx, sy) = grid.coords(start);
        self.mark_start(start);
        self.levels.clear();
        let open = pick(&mut self.open, &mut self.levels);
        open.push(model.heuristic(sx.abs_diff(gx), sy.abs_diff(gy)), start);
        let open_stamp = self.generation;
        let closed_stamp = open_stamp + 1;
        let stamp = &mut self.stamp[..grid.len()];
        let g_of = &mut self.g[..grid.len()];
        let parent = &mut self.parent[..grid.len()];
        let open = pick(&mut self.open, &mut self.levels);
        let stats = &mut self.stats;

        while let Some((_, cell)) = open.pop() {
            if stamp[cell as usize] == closed_stamp {
                continue; // a stale entry of a cell reached again more cheaply
            }
            if cell == goal {
                return Ok(());
            }
            if stats.expanded >= budget {
                return Err(SearchOutcome::BudgetExhausted);
            }
            stats.expanded += 1;
            stamp[cell as usize] = closed_stamp;
            let g = g_of[cell as usize];
            let cy = div.divide(cell);
            let cx = cell - cy * width;
            let mut bits = moves[cell as usize].0;
            if C::METRIC {
                // Moves onto cells the parent reached directly: never an improvement.
                let arrival = usize::from(parent[cell as usize]);
                if arrival != usize::from(NO_PARENT) {
                    let from = (i64::from(cell) - offsets[arrival & 7]) as usize;
                    bits &= !SHARED[arrival & 7][usize::from(moves[from].0)];
                }
            }
            while bits != 0 {
                let d = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let next = (i64::from(cell) + offsets[d]) as CellId;
                let s = stamp[next as usize];
                if s == closed_stamp {
                    continue;
                }
                let ng = model.add(g, model.step(d, next));
                let seen = s == open_stamp;
                if seen {
                    if ng >= g_of[next as usize] {
                        continue;
                    }
                } else if avoid(next) && next != goal {
                    continue;
                }
                stamp[next as usize] = open_stamp;
                g_of[next as usize] = ng;
                parent[next as usize] = d as u8;
                let nx = cx.wrapping_add_signed(Direction::DX[d]);
                let ny = cy.wrapping_add_signed(Direction::DY[d]);
                let f = model.add(ng, model.heuristic(nx.abs_diff(gx), ny.abs_diff(gy)));
                open.push(f, next);
                stats.pushed += u64::from(!seen);
            }
        }
        Err(SearchOutcome::Unreachable)
    }
}

/// `SHARED[a][m]`: the moves from a cell `c`, reached from its parent `p` by move `a`, that lead
/// back to `p` or onto a cell `p` reaches by one of its legal moves `m`. With metric step costs
/// (`CostModel::METRIC`) such a move never improves the cell it leads to: when `p` was expanded
/// that cell was closed, avoided, or given `g <= g(p) + step(p, n) <= g(c) + step(c, n)`. So
/// skipping them changes nothing in the search (same pushes, same expansions, same parents); it
/// only saves the test. This is not pruning: every neighbour that plain A* could improve is
/// still examined.
static SHARED: [[u8; 256]; 8] = shared_moves();

const fn shared_moves() -> [[u8; 256]; 8] {
    let mut table = [[0u8; 256]; 8];
    let mut a = 0;
    while a < 8 {
        let (ax, ay) = (Direction::DX[a], Direction::DY[a]);
        let mut m = 0;
        while m < 256 {
            let mut mask = 0u8;
            let mut d = 0;
            while d < 8 {
                // The cell c + d, relative to p.
                let (x, y) = (ax + Direction::DX[d], ay + Direction::DY[d]);
                if x == 0 && y == 0 {
                    mask |= 1 << d; // the parent itself (closed)
                } else {
                    let mut e = 0;
                    while e < 8 {
                        if m & (1 << e) != 0 && Direction::DX[e] == x && Direction::DY[e] == y {
                            mask |= 1 << d;
                        }
                        e += 1;
                    }
                }
                d += 1;
            }
            table[a][m] = mask;
            m += 1;
        }
        a += 1;
    }
    table
}

/// The open list of uniform-cost searches.
fn levels<'a>(_: &'a mut OpenList, levels: &'a mut LevelHeap) -> &'a mut LevelHeap {
    levels
}

/// The open list of weighted searches.
fn radix<'a>(open: &'a mut OpenList, _: &'a mut LevelHeap) -> &'a mut OpenList {
    open
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

/// Division of a `u32` by a fixed divisor with one multiplication instead of a `div`
/// instruction (exact for every `u32`; D. Lemire, O. Kaser, N. Kurz, "Faster Remainder by
/// Direct Computation", 2019). The search divides every expanded cell id by the grid width.
/// Powers of two (including 1, whose multiplier would not fit in 64 bits) shift instead.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FastDiv {
    /// 0 for a power of two.
    multiplier: u64,
    shift: u32,
}

impl FastDiv {
    pub(crate) fn new(divisor: u32) -> Self {
        debug_assert!(divisor > 0);
        if divisor.is_power_of_two() {
            FastDiv {
                multiplier: 0,
                shift: divisor.trailing_zeros(),
            }
        } else {
            FastDiv {
                multiplier: u64::MAX / u64::from(divisor) + 1,
                shift: 0,
            }
        }
    }

    #[inline(always)]
    pub(crate) fn divide(self, n: u32) -> u32 {
        if self.multiplier == 0 {
            n >> self.shift
        } else {
            ((u128::from(self.multiplier) * u128::from(n)) >> 64) as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FastDiv;

    #[test]
    fn fast_division_is_exact() {
        let mut x: u64 = 12345;
        for divisor in [
            1u32,
            2,
            3,
            7,
            49,
            256,
            257,
            512,
            4095,
            4096,
            65_537,
            u32::MAX - 1,
            u32::MAX,
        ] {
            let div = FastDiv::new(divisor);
            for n in [
                0u32,
                1,
                divisor - 1,
                divisor,
                divisor.wrapping_add(1),
                u32::MAX,
                u32::MAX - 1,
            ] {
                assert_eq!(div.divide(n), n / divisor, "{n} / {divisor}");
            }
            for _ in 0..10_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let n = x as u32;
                assert_eq!(div.divide(n), n / divisor, "{n} / {divisor}");
            }
        }
    }
}
