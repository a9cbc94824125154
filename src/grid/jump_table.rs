//! The jump table of JPS+: for every cell and each of the eight moves, how far a jump from that
//! cell goes before it must stop.
//!
//! Online Jump Point Search ([`SearchWorkspace::find_path_jps`]) spends its time scanning lines
//! for the next jump point, and those scans depend only on the map. JPS+ (S. Rabin, "JPS+: An
//! Extreme A* Speed Optimization for Static Uniform Cost Grids", Game AI Pro 2, 2015; Harabor
//! and Grastien, ICAPS 2014) answers them ahead of time, so that a jump is one table read
//! ([`SearchWorkspace::find_path_jps_plus`]).
//!
//! # What an entry means
//!
//! Entry `e` of cell `c` in direction `d`:
//!
//! - `e > 0`: the jump stops `e` steps away. Straight (`d` in 0..4): at the first cell with a
//!   forced neighbour when entered moving `d` (the rule of `search/jps.rs`, where the online
//!   scans stop). Diagonal: at the first cell whose straight entries along either of `d`'s two
//!   components are positive, where online JPS expands a diagonal jump point.
//! - `e <= 0`: no stop before a wall: `-e` legal moves in direction `d`, then an illegal one
//!   (blocked, a cut corner, or the edge of the map).
//!
//! The wall distances, and the fact that every cell before a stop is walkable, let the search
//! test in a few reads whether the goal lies on a jump's line. Entries are `i16` (a cell's eight
//! share one cache line); a run longer than [`MAX_RUN`] is cut by an extra stop, a cell treated
//! as a jump point although nothing is forced there, which only continues the same way, so
//! paths stay optimal.
//!
//! # Keeping in step with the grid
//!
//! The [`Grid`](super::Grid) builds its table on first use and repairs it in
//! [`Grid::apply`](super::Grid::apply): the straight entries of the rows and columns through
//! and beside each changed cell are recomputed, then every cell whose straight entries or legal
//! moves changed seeds a walk back along the four diagonals through it, recomputing diagonal
//! entries until one comes out unchanged. `edits_match_a_fresh_build` checks the result against
//! a fresh build after random edits.
//!
//! [`SearchWorkspace::find_path_jps`]: crate::search::SearchWorkspace::find_path_jps
//! [`SearchWorkspace::find_path_jps_plus`]: crate::search::SearchWorkspace::find_path_jps_plus

use super::{Direction, MoveSet};

/// The longest run a table entry holds; longer ones are cut by an extra stop.
pub(crate) const MAX_RUN: i16 = i16::MAX;

/// Bits of the orthogonal directions beside each straight direction (the sides on which a
/// straight move can find forced neighbours).
pub(crate) const SIDES_OF_STRAIGHT: [u8; 4] = [
    (1 << 1) | (1 << 3), // north: east, west
    (1 << 0) | (1 << 2), // east: north, south
    (1 << 1) | (1 << 3), // south: east, west
    (1 << 0) | (1 << 2), // west: north, south
];

/// The two orthogonal components (vertical, horizontal) of each diagonal direction (4..8).
pub(crate) const COMPONENTS: [(usize, usize); 8] = [
    (0, 0),
    (0, 0),
    (0, 0),
    (0, 0),
    (0, 1), // north-east: north, east
    (2, 1), // south-east: south, east
    (2, 3), // south-west: south, west
    (0, 3), // north-west: north, west
];

/// Whether a cell whose legal moves are `here`, entered by a straight move `d` from a cell
/// whose legal moves are `before`, has a forced neighbour (see `search/jps.rs`).
#[inline(always)]
pub(crate) fn is_forced(d: usize, here: u8, before: u8) -> bool {
    here & !before & SIDES_OF_STRAIGHT[d] != 0
}

/// Of the legal straight moves of a grid (`moves`, `width` cells a row), the share that enter a
/// cell with a forced neighbour: the cells where straight jumps stop, so about one over the
/// mean length of a straight jump. High on maps of scattered obstacles (0.17 on
/// `random512-10-0`), low on open or structured ones (0.005 to 0.05 on the other Moving AI maps
/// of docs/benchmarks.md). One pass over the moves; no table needed.
pub(crate) fn forced_share(moves: &[MoveSet], width: usize) -> f64 {
    let (mut forced, mut all) = (0u64, 0u64);
    for (c, m) in moves.iter().enumerate() {
        for d in 0..4 {
            if m.0 & (1 << d) == 0 {
                continue;
            }
            let next = c
                .wrapping_add_signed(Direction::DY[d] as isize * width as isize)
                .wrapping_add_signed(Direction::DX[d] as isize);
            all += 1;
            forced += u64::from(is_forced(d, moves[next].0, m.0));
        }
    }
    if all == 0 {
        0.0
    } else {
        forced as f64 / all as f64
    }
}

/// The jump table of a grid: eight signed distances per cell (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JumpTable {
    entries: Vec<[i16; 8]>,
    width: usize,
    height: usize,
    /// The longest run an entry may hold ([`MAX_RUN`]; smaller in tests, to exercise the cuts).
    max_run: i16,
}

impl JumpTable {
    /// The table of a grid whose legal moves are `moves` (`width x height`, row by row).
    pub(crate) fn build(moves: &[MoveSet], width: usize, height: usize) -> Self {
        Self::build_with_max_run(moves, width, height, MAX_RUN)
    }

    pub(crate) fn build_with_max_run(
        moves: &[MoveSet],
        width: usize,
        height: usize,
        max_run: i16,
    ) -> Self {
        debug_assert_eq!(moves.len(), width * height);
        let mut table = JumpTable {
            entries: vec![[0; 8]; moves.len()],
            width,
            height,
            max_run: max_run.max(1),
        };
        for y in 0..height {
            table.straight_row(moves, y);
        }
        // Every other entry reads the entry of the next cell in its direction, one row up or
        // down: whole rows (sequential in memory), in the order that computes that row first.
        for d in [0, 2, 4, 5, 6, 7] {
            for k in 0..height {
                let y = if Direction::DY[d] < 0 {
                    k
                } else {
                    height - 1 - k
                };
                for c in y * width..(y + 1) * width {
                    table.entries[c][d] = if d < 4 {
                        table.straight_entry(moves, c, d)
                    } else {
                        table.diagonal_entry(moves, c, d)
                    };
                }
            }
        }
        table
    }

    /// The eight entries of cell `c`.
    #[inline(always)]
    pub(crate) fn entries(&self, c: usize) -> &[i16; 8] {
        &self.entries[c]
    }

    /// Bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<[i16; 8]>()
    }

    /// Offset of one move in direction `d`, in cells.
    #[inline(always)]
    fn offset(&self, d: usize) -> isize {
        Direction::DY[d] as isize * self.width as isize + Direction::DX[d] as isize
    }

    /// The entry of `c` for a move `d` to `t`, one step further than `t`'s entry `next` (or a
    /// stop at `t` when `stop_at_t`).
    #[inline(always)]
    fn extend(&self, stop_at_t: bool, next: i16) -> i16 {
        if stop_at_t {
            1
        } else if next > 0 {
            if next < self.max_run { next + 1 } else { 1 }
        } else if -next < self.max_run {
            next - 1
        } else {
            1
        }
    }

    /// Straight entry of `c` in direction `d` (0..4), from the entry of the next cell.
    #[inline(always)]
    fn straight_entry(&self, moves: &[MoveSet], c: usize, d: usize) -> i16 {
        if moves[c].0 & (1 << d) == 0 {
            return 0;
        }
        let t = c.wrapping_add_signed(self.offset(d));
        self.extend(is_forced(d, moves[t].0, moves[c].0), self.entries[t][d])
    }

    /// Diagonal entry of `c` in direction `d` (4..8), from the entries of the next cell.
    #[inline(always)]
    fn diagonal_entry(&self, moves: &[MoveSet], c: usize, d: usize) -> i16 {
        if moves[c].0 & (1 << d) == 0 {
            return 0;
        }
        let t = c.wrapping_add_signed(self.offset(d));
        let (v, h) = COMPONENTS[d];
        let e = &self.entries[t];
        self.extend(e[v] > 0 || e[h] > 0, e[d])
    }

    /// Recomputes the east and west entries of row `y`.
    fn straight_row(&mut self, moves: &[MoveSet], y: usize) {
        let row = y * self.width..(y + 1) * self.width;
        for c in row.clone().rev() {
            self.entries[c][1] = self.straight_entry(moves, c, 1);
        }
        for c in row {
            self.entries[c][3] = self.straight_entry(moves, c, 3);
        }
    }

    /// Recomputes the north and south entries of column `x`.
    fn straight_column(&mut self, moves: &[MoveSet], x: usize) {
        let column = (0..self.height).map(|y| y * self.width + x);
        for c in column.clone() {
            self.entries[c][0] = self.straight_entry(moves, c, 0);
        }
        for c in column.rev() {
            self.entries[c][2] = self.straight_entry(moves, c, 2);
        }
    }

    /// Brings the table up to date after the walkability of the cells `changed` (`(x, y)`)
    /// changed and `moves` was refreshed around them.
    pub(crate) fn repair(&mut self, moves: &[MoveSet], changed: &[(usize, usize)]) {
        let (w, h) = (self.width, self.height);
        let mut rows: Vec<usize> = Vec::new();
        let mut columns: Vec<usize> = Vec::new();
        // Cells whose legal moves may have changed: their diagonal entries, and those behind
        // them, are recomputed.
        let mut seeds: Vec<usize> = Vec::new();
        for &(x, y) in changed {
            for yy in y.saturating_sub(1)..=(y + 1).min(h - 1) {
                rows.push(yy);
                for xx in x.saturating_sub(1)..=(x + 1).min(w - 1) {
                    seeds.push(yy * w + xx);
                }
            }
            columns.extend(x.saturating_sub(1)..=(x + 1).min(w - 1));
        }
        rows.sort_unstable();
        rows.dedup();
        columns.sort_unstable();
        columns.dedup();
        // A forced neighbour is a test of three lines, so the changed cell's row and column and
        // those beside them are the only lines whose straight entries can change.
        for &y in &rows {
            let before: Vec<[i16; 8]> = self.entries[y * w..(y + 1) * w].to_vec();
            self.straight_row(moves, y);
            for (x, old) in before.iter().enumerate() {
                let c = y * w + x;
                if old[1] != self.entries[c][1] || old[3] != self.entries[c][3] {
                    seeds.push(c);
                }
            }
        }
        for &x in &columns {
            let before: Vec<(i16, i16)> = (0..h)
                .map(|y| (self.entries[y * w + x][0], self.entries[y * w + x][2]))
                .collect();
            self.straight_column(moves, x);
            for (y, old) in before.iter().enumerate() {
                let c = y * w + x;
                if *old != (self.entries[c][0], self.entries[c][2]) {
                    seeds.push(c);
                }
            }
        }
        seeds.sort_unstable();
        seeds.dedup();
        // A diagonal entry depends on the cell's own move and on the next cell's entries. From
        // each seed, walk back against the diagonal recomputing, until an entry comes out as it
        // was: the cells further back read only that entry and their own moves and straight
        // entries, and any of those that changed is a seed of its own.
        for d in 4..8 {
            let back = -self.offset(d);
            let (dx, dy) = (-Direction::DX[d] as isize, -Direction::DY[d] as isize);
            for &s in &seeds {
                let (mut c, mut x, mut y) = (s, (s % w) as isize, (s / w) as isize);
                loop {
                    let new = self.diagonal_entry(moves, c, d);
                    if new == self.entries[c][d] && c != s {
                        break;
                    }
                    self.entries[c][d] = new;
                    x += dx;
                    y += dy;
                    if x < 0 || y < 0 || x >= w as isize || y >= h as isize {
                        break;
                    }
                    c = c.wrapping_add_signed(back);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Grid;

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    fn random_grid(rng: &mut Rng, w: u32, h: u32, percent: u64) -> Grid {
        let walkable = (0..w * h).map(|_| rng.next() % 100 >= percent).collect();
        Grid::from_walkable(w, h, walkable).unwrap()
    }

    /// The entries by definition, one cell at a time: steps along `d` while the move is legal,
    /// stopping at a cell that stops the jump (cut every `max_run` steps of a run).
    fn by_definition(grid: &Grid, c: usize, d: usize, max_run: i16) -> i16 {
        let moves = grid.move_table();
        let off = Direction::DY[d] as isize * grid.width() as isize + Direction::DX[d] as isize;
        let stops = |p: usize, t: usize| -> bool {
            if d < 4 {
                is_forced(d, moves[t].0, moves[p].0)
            } else {
                let (v, h) = COMPONENTS[d];
                by_definition(grid, t, v, max_run) > 0 || by_definition(grid, t, h, max_run) > 0
            }
        };
        // Cuts are made back to front (the table is built that way): from a stop `steps`
        // away, every `max_run` cells back; from a wall `steps` legal moves away, first
        // `max_run` cells before the wall, then every `max_run` cells back.
        let (mut p, mut steps) = (c, 0i64);
        let stop = loop {
            if moves[p].0 & (1 << d) == 0 {
                break false;
            }
            let t = p.wrapping_add_signed(off);
            steps += 1;
            if stops(p, t) {
                break true;
            }
            p = t;
        };
        let m = i64::from(max_run);
        if stop {
            ((steps - 1) % m + 1) as i16
        } else if steps <= m {
            -steps as i16
        } else {
            ((steps - m - 1) % m + 1) as i16
        }
    }

    #[test]
    fn entries_match_the_definition() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for round in 0..60 {
            let (w, h) = (1 + rng.next() % 40, 1 + rng.next() % 30);
            let grid = random_grid(&mut rng, w as u32, h as u32, [5, 20, 35][round % 3]);
            for max_run in [MAX_RUN, 3, 1] {
                let table = JumpTable::build_with_max_run(
                    grid.move_table(),
                    w as usize,
                    h as usize,
                    max_run,
                );
                for c in 0..grid.len() {
                    for d in 0..8 {
                        assert_eq!(
                            table.entries(c)[d],
                            by_definition(&grid, c, d, max_run),
                            "{w} x {h}, cell {c}, direction {d}, max run {max_run}"
                        );
                    }
                }
            }
        }
    }

    /// The forced share counts the straight moves whose jump stops right after them: the
    /// table's straight entries equal to 1, counted from the table instead.
    #[test]
    fn forced_share_counts_jumps_stopping_after_one_step() {
        assert_eq!(Grid::new(30, 20).unwrap().forced_share(), 0.0);
        let mut rng = Rng(91);
        for percent in [0, 3, 10, 25, 50] {
            let grid = random_grid(&mut rng, 60, 40, percent);
            let table = JumpTable::build(grid.move_table(), 60, 40);
            let (mut ones, mut legal) = (0, 0);
            for (c, m) in grid.move_table().iter().enumerate() {
                for d in 0..4 {
                    if m.0 & (1 << d) != 0 {
                        legal += 1;
                        ones += usize::from(table.entries(c)[d] == 1);
                    }
                }
            }
            let want = if legal == 0 {
                0.0
            } else {
                ones as f64 / legal as f64
            };
            assert!((grid.forced_share() - want).abs() < 1e-12, "{percent}%");
            assert_eq!(grid.forced_share() > 0.0, percent > 0, "{percent}%");
        }
    }

    #[test]
    fn straight_entries_agree_with_the_block_scans() {
        let mut rng = Rng(77);
        for _ in 0..40 {
            let (w, h) = (1 + rng.next() % 150, 1 + rng.next() % 90);
            let grid = random_grid(&mut rng, w as u32, h as u32, 25);
            let table = JumpTable::build(grid.move_table(), w as usize, h as usize);
            let bits = grid.walk_bits();
            for y in 0..h as usize {
                for x in 0..w as usize {
                    let c = y * w as usize + x;
                    let scans = [
                        bits.cols.jump_backward(x, y),
                        bits.rows.jump_forward(y, x),
                        bits.cols.jump_forward(x, y),
                        bits.rows.jump_backward(y, x),
                    ];
                    if !grid.is_walkable(c as u32) {
                        continue;
                    }
                    for (d, &scan) in scans.iter().enumerate() {
                        let e = table.entries(c)[d];
                        assert_eq!(scan, e.max(0) as usize, "({x}, {y}) direction {d}");
                    }
                }
            }
        }
    }

    #[test]
    fn edits_match_a_fresh_build() {
        let mut rng = Rng(991);
        for round in 0..40 {
            let (w, h) = (1 + rng.next() % 60, 1 + rng.next() % 45);
            let mut grid = random_grid(&mut rng, w as u32, h as u32, 20);
            let max_run = [MAX_RUN, 4][round % 2];
            let mut table =
                JumpTable::build_with_max_run(grid.move_table(), w as usize, h as usize, max_run);
            for _ in 0..12 {
                let n = 1 + rng.next() % 4;
                let mut changed = Vec::new();
                let mut edits = Vec::new();
                for _ in 0..n {
                    let c = (rng.next() % grid.len() as u64) as u32;
                    let walkable = !grid.is_walkable(c);
                    edits.push(crate::grid::CellChange::SetWalkable { cell: c, walkable });
                    let (x, y) = grid.coords(c);
                    changed.push((x as usize, y as usize));
                }
                grid.apply(&edits).unwrap();
                table.repair(grid.move_table(), &changed);
                let fresh = JumpTable::build_with_max_run(
                    grid.move_table(),
                    w as usize,
                    h as usize,
                    max_run,
                );
                assert!(
                    table == fresh,
                    "{w} x {h} round {round}: repair differs from a build"
                );
            }
        }
    }
}
