//! Jump Point Search (D. Harabor and A. Grastien, "Online Graph Pruning for Pathfinding on Grid
//! Maps", AAAI 2011, with the block-based scans and intercardinal pruning of their "Improving
//! Jump Point Search", ICAPS 2014) for uniform-cost 8-connected grids without corner cutting.
//!
//! JPS is A* over a sparse set of cells, the *jump points*: expanding one scans ("jumps") in a
//! few directions and generates only the cells where a scan must stop because an optimal path
//! may turn there. Everything else is A*'s: exact fixed-point `g`, the radix-heap open list,
//! the octile heuristic, the LIFO tie-break, the same outcomes and the same optimal paths.
//!
//! # The rules, for no corner cutting
//!
//! A diagonal move is legal only when *both* orthogonal cells beside it are walkable (as in
//! the Moving AI benchmarks and [`Grid::moves`](crate::grid::Grid::moves)), which moves the forced
//! neighbours of the original paper (the rules of the authors' SoCS 2012 "JPS+" paper, derived
//! here from scratch). With `p` the cell the search came from and `n` the cell it moved to, a
//! neighbour `m` of `n` is pruned when a path from `p` to `m` avoiding `n` is no longer than
//! `p, n, m`, ties going to the path that moves diagonally first.
//!
//! - **Straight move**, say east: north-west and west of `n` are reached from `p` directly;
//!   north (by the diagonal `p` to north of `n`) and north-east (`p`, north of `n`,
//!   north-east: the same cost as through `n`, diagonal first) are reached around `n` exactly
//!   when the cell north of `p` is walkable. So north and north-east of `n` are **forced** when
//!   north of `n` is walkable and north of `p` is blocked, and the same to the south: in
//!   [`MoveSet`] terms, the side bits of `moves[n] & !moves[p]`.
//! - **Diagonal move**, say north-east: west and south of `n` are walkable (or the move would
//!   be illegal), so every other neighbour is reached around `n` as cheaply: **no forced
//!   neighbours**, only north, east and north-east remain.
//!
//! A straight jump stops at the first cell with a forced neighbour (nothing at a wall); a
//! diagonal jump stops at the first cell from which the straight jump along either of its two
//! components finds a jump point (nothing when the next diagonal move is illegal). The start's
//! successors are all its legal moves. Every cell of an optimal diagonal-first path is either
//! skipped by a jump or a jump point where the path turns (the paper's optimality argument);
//! `tests/jps_reference.rs` checks the results against a reference Dijkstra.
//!
//! # Block scans, diagonals on the spot, the goal in sight
//!
//! - A straight scan reads the walkable cells packed one bit per cell (`grid/bits.rs`, a
//!   row-major copy and a transposed one) and the grid's precomputed *stop planes*, so it
//!   decides 56 cells per 64-bit load.
//! - A diagonal jump point is expanded on the spot rather than pushed: its walk already ran
//!   both component scans, so it pushes the straight jump points they found (with itself as
//!   their origin) and walks on. It stops where plain JPS would not have pushed it (closed, or
//!   reached as cheaply before), so the search generates the same jump points, only sooner.
//! - Before scanning, an expansion checks whether the goal lies on a diagonal-first octile
//!   path along a direction the pruning keeps; if so the goal is pushed alone (no successor can
//!   beat it), and the scans never look for it.
//!
//! # Bookkeeping
//!
//! A generated jump point records `g`, the direction of the jump that reached it and the cell
//! it came from in one 16-byte record (the workspace's `JumpNode`: JPS touches few cells, far
//! apart, so one cache line per cell). The path is rebuilt by following the origins back from
//! the goal and stepping along each jump. The origins read then are the right ones: an
//! expanded jump point's record no longer changes, and a cell recorded on the spot is recorded
//! again (more cheaply) only for jump points off the final path, as every prefix of an optimal
//! path is optimal. The node budget
//! ([`SearchOptions::node_budget`]) and [`SearchStats::expanded`] count jump points taken off
//! the open list, [`SearchStats::pushed`] those put on it. Weighted and 4-connected grids are
//! answered by A*. The measurements of each step, and what was tried and dropped:
//! `docs/performance.md`.
//!
//! [`SearchStats::expanded`]: super::SearchStats::expanded
//! [`SearchStats::pushed`]: super::SearchStats::pushed

use super::astar::FastDiv;
use super::cost::{CostModel, DIAGONAL, FixedCost, SCALE};
use super::workspace::NO_PARENT;
use super::{QueryError, SearchOptions, SearchOutcome, SearchWorkspace};
use crate::grid::{
    BitRows, COMPONENTS, CellId, Direction, Grid, MoveSet, Neighborhood, SIDES_OF_STRAIGHT,
};

/// The diagonal between two orthogonal directions (indexed by their bits), `0` when they are
/// not perpendicular.
const fn diagonal_between(a: usize, b: usize) -> usize {
    match (a, b) {
        (0, 1) | (1, 0) => 4,
        (2, 1) | (1, 2) => 5,
        (2, 3) | (3, 2) => 6,
        (0, 3) | (3, 0) => 7,
        _ => 0,
    }
}

/// `FORCED[d][sides]`: for a straight arrival direction `d` and the set of side directions
/// that are forced (a subset of `SIDES_OF_STRAIGHT[d]`, as bits), the successor directions
/// the forced sides add: each side and the diagonal between it and `d`.
const FORCED: [[u8; 16]; 4] = {
    let mut table = [[0u8; 16]; 4];
    let mut d = 0;
    while d < 4 {
        let mut sides = 0;
        while sides < 16 {
            let mut out = 0u8;
            let mut s = 0;
            while s < 4 {
                if sides & (1 << s) != 0 && SIDES_OF_STRAIGHT[d] & (1 << s) != 0 {
                    out |= (1 << s) | (1 << diagonal_between(d, s));
                }
                s += 1;
            }
            table[d][sides] = out;
            sides += 1;
        }
        d += 1;
    }
    table
};

/// Natural successor directions after a diagonal move: itself and its two components.
const NATURAL_DIAGONAL: [u8; 8] = [
    0,
    0,
    0,
    0,
    (1 << 4) | (1 << 0) | (1 << 1),
    (1 << 5) | (1 << 2) | (1 << 1),
    (1 << 6) | (1 << 2) | (1 << 3),
    (1 << 7) | (1 << 0) | (1 << 3),
];

/// The second word of a cell's [`JumpNode`](super::workspace::JumpNode): its stamp, the
/// direction of the jump that reached it and the cell that jump came from.
#[inline(always)]
fn node_meta(stamp: u16, arrival: u8, origin: usize) -> u64 {
    u64::from(stamp) | u64::from(arrival) << 16 | (origin as u64) << 32
}

/// The stamp of a cell's [`JumpNode`](super::workspace::JumpNode).
#[inline(always)]
fn stamp_of(node: &[u64; 2]) -> u16 {
    node[1] as u16
}

/// Cost of one step in each direction.
const STEP_COST: [f64; 8] = Direction::BASE_COST;

/// The successor directions of a cell whose legal moves are `here`, reached by a move in
/// direction `arrival` from a cell whose legal moves are `before` (see the module docs).
#[inline(always)]
fn successors(arrival: u8, here: u8, before: u8) -> u8 {
    let d = usize::from(arrival);
    let wanted = if d < 4 {
        let forced = here & !before & SIDES_OF_STRAIGHT[d];
        (1 << d) | FORCED[d][usize::from(forced)]
    } else {
        NATURAL_DIAGONAL[d]
    };
    wanted & here
}

/// Where the jumps of a search come from: scans of the grid (online JPS, [`Scanner`]) or the
/// jump table of JPS+ (`jps_plus.rs`). The search loop is the same for both; each method is
/// inlined with a constant direction.
pub(super) trait Jumps {
    /// Straight jump from cell `c` at `(x, y)` in direction `d` (0..4): the number of steps to
    /// the jump point, or 0 when the jump runs into a wall first. The goal is not looked for
    /// (see [`goal_in_sight`](Self::goal_in_sight)).
    fn straight(&self, c: usize, x: usize, y: usize, d: usize) -> usize;

    /// Walks from cell `c` at `(x, y)` along diagonal `d` (4..8) to the next cell where it
    /// stops: `(steps, h, v)` with the straight jumps from there along `d`'s horizontal and
    /// vertical components (as [`straight`](Self::straight) gives them). Both are 0 only at a
    /// cut in a long run (the walk goes on from there). `None` when the walk reaches a wall
    /// first.
    fn diagonal(&self, c: usize, x: usize, y: usize, d: usize) -> Option<(usize, usize, usize)>;

    /// Whether the goal, `dx` columns and `dy` rows from cell `c` at `(x, y)` (not both 0), is
    /// reached from `c` by `min(|dx|, |dy|)` diagonal moves followed by straight moves, all
    /// legal: an octile-shortest path, so nothing through `c` can beat it. Returns the cell
    /// where the path turns from diagonal to straight (`c` or the goal when it does not turn).
    fn goal_in_sight(&self, c: usize, x: usize, y: usize, dx: isize, dy: isize) -> Option<usize>;
}

/// The scans of one query of online JPS: the move table (for diagonal steps) and the walkable
/// bits in both orientations (for straight scans).
struct Scanner<'a> {
    moves: &'a [MoveSet],
    rows: &'a BitRows,
    cols: &'a BitRows,
    offsets: [isize; 8],
}

impl Jumps for Scanner<'_> {
    /// East and west scan the row-major bits, north and south the transposed ones.
    #[inline(always)]
    fn straight(&self, _c: usize, x: usize, y: usize, d: usize) -> usize {
        match d {
            0 => self.cols.jump_backward(x, y),
            1 => self.rows.jump_forward(y, x),
            2 => self.cols.jump_forward(x, y),
            _ => self.rows.jump_backward(y, x),
        }
    }

    #[inline(always)]
    fn diagonal(&self, c: usize, x: usize, y: usize, d: usize) -> Option<(usize, usize, usize)> {
        let (v, h) = COMPONENTS[d];
        let (ddx, ddy) = (Direction::DX[d] as isize, Direction::DY[d] as isize);
        let (mut t, mut tx, mut ty, mut steps) = (c, x, y, 0);
        loop {
            if self.moves[t].0 & (1 << d) == 0 {
                return None;
            }
            t = t.wrapping_add_signed(self.offsets[d]);
            tx = tx.wrapping_add_signed(ddx);
            ty = ty.wrapping_add_signed(ddy);
            steps += 1;
            let sh = self.straight(t, tx, ty, h);
            let sv = self.straight(t, tx, ty, v);
            if sh | sv != 0 {
                return Some((steps, sh, sv));
            }
        }
    }

    #[inline(always)]
    fn goal_in_sight(&self, c: usize, x: usize, y: usize, dx: isize, dy: isize) -> Option<usize> {
        let (ax, ay) = (dx.unsigned_abs(), dy.unsigned_abs());
        let diagonal = ax.min(ay);
        let (mut t, mut tx, mut ty) = (c, x, y);
        if diagonal > 0 {
            let d = DIAGONAL_TOWARDS[usize::from(dx > 0)][usize::from(dy > 0)];
            let bit = 1u8 << d;
            let off = self.offsets[d];
            for _ in 0..diagonal {
                if self.moves[t].0 & bit == 0 {
                    return None;
                }
                t = t.wrapping_add_signed(off);
            }
            tx = tx.wrapping_add_signed(dx.signum() * diagonal as isize);
            ty = ty.wrapping_add_signed(dy.signum() * diagonal as isize);
        }
        let open = if ax > ay {
            if dx > 0 {
                self.rows.open_forward(ty, tx, ax - ay)
            } else {
                self.rows.open_backward(ty, tx, ax - ay)
            }
        } else if ay > ax {
            if dy > 0 {
                self.cols.open_forward(tx, ty, ay - ax)
            } else {
                self.cols.open_backward(tx, ty, ay - ax)
            }
        } else {
            true
        };
        open.then_some(t)
    }
}

/// `DIAGONAL_TOWARDS[east][south]`: the diagonal move towards a cell east (or west) and south
/// (or north).
pub(super) const DIAGONAL_TOWARDS: [[usize; 2]; 2] = [[7, 6], [4, 5]];

/// `TOWARDS[sign(dx) + 1][sign(dy) + 1]`: the move whose octant holds a cell `dx`, `dy` away
/// (straight when one of them is 0, else diagonal); `usize::MAX` for the cell itself.
const TOWARDS: [[usize; 3]; 3] = [[7, 3, 6], [0, usize::MAX, 2], [4, 1, 5]];

impl SearchWorkspace {
    /// Optimal path from `start` to `goal` by Jump Point Search (see the
    /// [search module docs](crate::search#jump-point-search)): same validation, outcomes, path and cost
    /// as [`find_path_with`](Self::find_path_with), usually with far fewer expansions and much
    /// less time on uniform-cost maps.
    ///
    /// The node budget counts jump points taken off the open list and expanded. On weighted
    /// grids ([`Grid::is_weighted`]) and 4-connected grids this answers with A*.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::search::{SearchOptions, SearchWorkspace};
    ///
    /// let grid = Grid::from_ascii(
    ///     "......\n\
    ///      .####.\n\
    ///      ......",
    /// )?;
    /// let mut ws = SearchWorkspace::new();
    /// let (start, goal) = (grid.cell(0, 1).unwrap(), grid.cell(5, 1).unwrap());
    /// let outcome = ws.find_path_jps(&grid, start, goal, &SearchOptions::default())?;
    /// assert_eq!(outcome.cost(), Some(7.0));
    /// // The full path, every cell, as A* gives it.
    /// assert_eq!(ws.path().len(), 8);
    /// assert_eq!(grid.path_cost(ws.path())?, 7.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`QueryError`] when a cell is outside the grid or blocked.
    pub fn find_path_jps(
        &mut self,
        grid: &Grid,
        start: CellId,
        goal: CellId,
        options: &SearchOptions,
    ) -> Result<SearchOutcome, QueryError> {
        if grid.is_weighted() || grid.neighborhood() == Neighborhood::Four {
            return self.find_path_with(grid, start, goal, options);
        }
        if !self.start_query(grid, start, goal)? {
            return Ok(SearchOutcome::Unreachable);
        }
        let bits = grid.walk_bits();
        let scanner = Scanner {
            moves: grid.move_table(),
            rows: &bits.rows,
            cols: &bits.cols,
            offsets: grid.move_offsets().map(|o| o as isize),
        };
        Ok(self.run_jumps(grid, &scanner, start, goal, options))
    }

    /// The search with jumps from `jumps` after the query was validated and opened: the outcome
    /// with the path in place.
    pub(super) fn run_jumps<J: Jumps>(
        &mut self,
        grid: &Grid,
        jumps: &J,
        start: CellId,
        goal: CellId,
        options: &SearchOptions,
    ) -> SearchOutcome {
        let budget = options.node_budget.unwrap_or(u64::MAX);
        match self.jps(grid, jumps, start, goal, budget) {
            Ok(()) => SearchOutcome::Found {
                cost: self.reconstruct_jumps(grid, goal),
            },
            Err(outcome) => outcome,
        }
    }

    /// The search loop. `Ok(())` when the goal was reached.
    fn jps<J: Jumps>(
        &mut self,
        grid: &Grid,
        jumps: &J,
        start: CellId,
        goal: CellId,
        budget: u64,
    ) -> Result<(), SearchOutcome> {
        let width = grid.width();
        let model = FixedCost::<true>;
        let offsets = grid.move_offsets().map(|o| o as isize);
        let moves = grid.move_table();
        let (gx, gy) = grid.coords(goal);
        let div = FastDiv::new(width);
        let (sx, sy) = grid.coords(start);
        let open_stamp = self.generation;
        let closed_stamp = open_stamp + 1;
        let nodes = &mut self.jump_nodes[..grid.len()];
        nodes[start as usize] = [0, node_meta(open_stamp, NO_PARENT, start as usize)];
        self.stats.pushed = 1;
        self.open
            .push(model.heuristic(sx.abs_diff(gx), sy.abs_diff(gy)), start);
        let open = &mut self.open;
        let stats = &mut self.stats;
        let (gxu, gyu) = (gx as usize, gy as usize);

        while let Some((_, cell)) = open.pop() {
            let c = cell as usize;
            if stamp_of(&nodes[c]) == closed_stamp {
                continue; // a stale entry of a jump point reached again more cheaply
            }
            if cell == goal {
                return Ok(());
            }
            if stats.expanded >= budget {
                return Err(SearchOutcome::BudgetExhausted);
            }
            stats.expanded += 1;
            let [g, meta] = nodes[c];
            nodes[c][1] = meta & !0xFFFF | u64::from(closed_stamp);
            let cy = div.divide(cell);
            let cx = (cell - cy * width) as usize;
            let cy = cy as usize;
            let here = moves[c].0;
            let arrival = (meta >> 16) as u8;
            let dirs = if arrival == NO_PARENT {
                here
            } else {
                let before = c.wrapping_add_signed(-offsets[usize::from(arrival)]);
                successors(arrival, here, moves[before].0)
            };
            // Generates jump point `next` at `(nx, ny)` with cost `ng`, reached in direction
            // `d` from `from`, unless it is closed or already open at least as cheaply.
            macro_rules! push {
                ($next:expr, $ng:expr, $d:expr, $from:expr, $nx:expr, $ny:expr) => {{
                    let next: usize = $next;
                    let ng: u64 = $ng;
                    let [old_g, meta] = nodes[next];
                    let s = meta as u16;
                    let seen = s == open_stamp;
                    if s != closed_stamp && !(seen && ng >= old_g) {
                        nodes[next] = [ng, node_meta(open_stamp, $d as u8, $from)];
                        let (nx, ny): (usize, usize) = ($nx, $ny);
                        let h = model.heuristic(nx.abs_diff(gxu) as u32, ny.abs_diff(gyu) as u32);
                        open.push(ng + h, next as CellId);
                        stats.pushed += u64::from(!seen);
                    }
                }};
            }
            // The goal in sight along a direction the pruning keeps: push it alone (nothing
            // through this cell can reach it more cheaply), and none of the scans need to look
            // for it (any scan that would pass over it runs along that direction's octant).
            let (dxg, dyg) = (gxu as isize - cx as isize, gyu as isize - cy as isize);
            let towards = TOWARDS[(dxg.signum() + 1) as usize][(dyg.signum() + 1) as usize];
            if dirs >> towards & 1 != 0
                && let Some(t) = jumps.goal_in_sight(c, cx, cy, dxg, dyg)
            {
                let diagonal = dxg.unsigned_abs().min(dyg.unsigned_abs()) as u64;
                let straight = dxg.unsigned_abs().abs_diff(dyg.unsigned_abs()) as u64;
                let mut tg = g + diagonal * DIAGONAL;
                let mut from = c;
                if diagonal > 0 && straight > 0 {
                    from = t;
                    // The path turns at `t`: record it there (as a diagonal jump point) for
                    // the reconstruction, or go on from its record when that is no dearer.
                    let s = stamp_of(&nodes[t]);
                    if (s == open_stamp || s == closed_stamp) && nodes[t][0] <= tg {
                        tg = nodes[t][0];
                    } else {
                        let d = DIAGONAL_TOWARDS[usize::from(dxg > 0)][usize::from(dyg > 0)];
                        nodes[t] = [tg, node_meta(open_stamp, d as u8, c)];
                    }
                }
                let last = match (straight > 0, dxg.unsigned_abs() > dyg.unsigned_abs()) {
                    (false, _) => towards,
                    (true, true) => TOWARDS[(dxg.signum() + 1) as usize][1],
                    (true, false) => TOWARDS[1][(dyg.signum() + 1) as usize],
                };
                push!(goal as usize, tg + straight * SCALE, last, from, gxu, gyu);
                continue;
            }
            // One block per direction, so that each scan is inlined with constant bits and
            // offsets (no indirect jump to pick the scan).
            macro_rules! straight {
                ($d:literal) => {
                    if dirs & (1 << $d) != 0 {
                        let steps = jumps.straight(c, cx, cy, $d);
                        if steps != 0 {
                            let k = steps as isize;
                            push!(
                                c.wrapping_add_signed(offsets[$d] * k),
                                g + steps as u64 * SCALE,
                                $d,
                                c,
                                cx.wrapping_add_signed(Direction::DX[$d] as isize * k),
                                cy.wrapping_add_signed(Direction::DY[$d] as isize * k)
                            );
                        }
                    }
                };
            }
            macro_rules! diagonal {
                ($d:literal) => {
                    if dirs & (1 << $d) != 0 {
                        let off = offsets[$d];
                        let (ddx, ddy) = (Direction::DX[$d] as isize, Direction::DY[$d] as isize);
                        let (v, h) = COMPONENTS[$d];
                        let (mut t, mut tx, mut ty, mut tg) = (c, cx, cy, g);
                        let mut from = c;
                        while let Some((k, sh, sv)) = jumps.diagonal(t, tx, ty, $d) {
                            t = t.wrapping_add_signed(off * k as isize);
                            tx = tx.wrapping_add_signed(ddx * k as isize);
                            ty = ty.wrapping_add_signed(ddy * k as isize);
                            tg += k as u64 * DIAGONAL;
                            // Both 0 only at a cut in a long run (JPS+): walk on.
                            if sh | sv != 0 {
                                let [old_g, meta] = nodes[t];
                                let s = meta as u16;
                                if s == closed_stamp || (s == open_stamp && old_g <= tg) {
                                    break;
                                }
                                nodes[t] = [tg, node_meta(open_stamp, $d, from)];
                                from = t;
                                if sh != 0 {
                                    let k = sh as isize;
                                    push!(
                                        t.wrapping_add_signed(offsets[h] * k),
                                        tg + sh as u64 * SCALE,
                                        h,
                                        t,
                                        tx.wrapping_add_signed(Direction::DX[h] as isize * k),
                                        ty
                                    );
                                }
                                if sv != 0 {
                                    let k = sv as isize;
                                    push!(
                                        t.wrapping_add_signed(offsets[v] * k),
                                        tg + sv as u64 * SCALE,
                                        v,
                                        t,
                                        tx,
                                        ty.wrapping_add_signed(Direction::DY[v] as isize * k)
                                    );
                                }
                            }
                        }
                    }
                };
            }
            straight!(0);
            straight!(1);
            straight!(2);
            straight!(3);
            diagonal!(4);
            diagonal!(5);
            diagonal!(6);
            diagonal!(7);
        }
        Err(SearchOutcome::Unreachable)
    }

    /// Writes the full cell-by-cell path ending at `goal` into the path buffer and returns its
    /// cost (summed as A* sums it): the chain of jump points from the goal back to the start
    /// through their origins, then every cell of each jump, stepping forward.
    fn reconstruct_jumps(&mut self, grid: &Grid, goal: CellId) -> f64 {
        let offsets = grid.move_offsets().map(|o| o as isize);
        self.path.clear();
        self.runs.clear();
        let mut c = goal;
        loop {
            let meta = self.jump_nodes[c as usize][1];
            let d = (meta >> 16) as u8;
            if d == NO_PARENT {
                break;
            }
            self.runs.push((c, d));
            c = (meta >> 32) as CellId;
        }
        // The cost summed step by step from the start, as `Grid::path_cost` sums it (every
        // cell costs 1 on the grids JPS searches), so that both give the same number.
        let mut cost = 0.0;
        self.path.push(c);
        let mut at = c as usize;
        for &(to, d) in self.runs.iter().rev() {
            let (off, step) = (offsets[usize::from(d)], STEP_COST[usize::from(d)]);
            while at != to as usize {
                at = at.wrapping_add_signed(off);
                self.path.push(at as CellId);
                cost += step;
            }
        }
        cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forced_table_adds_side_and_diagonal() {
        // Arriving east with north forced: east, north, north-east.
        assert_eq!(successors(1, 0xFF, !1), (1 << 1) | 1 | (1 << 4));
        // Arriving north with both sides forced: north, east, west, north-east, north-west.
        assert_eq!(
            successors(0, 0xFF, !0b1010),
            1 | (1 << 1) | (1 << 3) | (1 << 4) | (1 << 7)
        );
        // Nothing forced: only the natural direction; illegal moves are dropped.
        assert_eq!(successors(2, 0xFF, 0xFF), 1 << 2);
        assert_eq!(successors(2, !(1 << 2), 0xFF), 0);
        // Diagonal: itself and its components.
        assert_eq!(successors(6, 0xFF, 0), (1 << 6) | (1 << 2) | (1 << 3));
    }

    /// The reconstruction trusts stamps: old stamps from before a generation wrap must not
    /// make a cell look like a jump origin.
    #[test]
    fn generation_wrap_keeps_paths_right() {
        let grid = Grid::from_ascii(
            "........\n\
             .##.###.\n\
             .#....#.\n\
             ...##...",
        )
        .unwrap();
        let mut ws = SearchWorkspace::for_grid(&grid);
        let opts = SearchOptions::default();
        let (a, b) = (grid.cell(0, 3).unwrap(), grid.cell(4, 2).unwrap());
        let expected = ws.find_path_jps(&grid, a, b, &opts).unwrap();
        let path = ws.path().to_vec();
        for start in [u16::MAX - 9, u16::MAX - 5, u16::MAX - 4, u16::MAX - 3] {
            ws.set_generation_for_test(start);
            for _ in 0..6 {
                ws.find_path(&grid, b, a).unwrap();
                assert_eq!(ws.find_path_jps(&grid, a, b, &opts).unwrap(), expected);
                assert_eq!(ws.path(), path);
            }
        }
        assert_eq!(grid.path_cost(&path).unwrap(), expected.cost().unwrap());
    }

    /// In an open room the goal is in sight from the start: one expansion, and the path
    /// turns at the cell recorded for it, (5, 5).
    #[test]
    fn open_room_goal_in_sight_from_the_start() {
        let grid = Grid::new(30, 20).unwrap();
        let mut ws = SearchWorkspace::new();
        let (start, goal) = (grid.cell(0, 0).unwrap(), grid.cell(29, 5).unwrap());
        let outcome = ws
            .find_path_jps(&grid, start, goal, &SearchOptions::default())
            .unwrap();
        let want = 24.0 + 5.0 * std::f64::consts::SQRT_2;
        assert!((outcome.cost().unwrap() - want).abs() < 1e-9);
        assert_eq!(ws.path().len(), 30);
        assert_eq!(ws.stats().expanded, 1);
        assert_eq!(ws.stats().pushed, 2);
        assert_eq!(ws.path()[5], grid.cell(5, 5).unwrap());
    }
}
