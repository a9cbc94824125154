//! Dijkstra confined to one cluster's rectangle: the search behind both the routes between the
//! navigation points of a cluster (at build time) and the connection of a query's start and
//! goal to the points of their clusters (at query time).
//!
//! The arrays are indexed by the cell's position inside the rectangle, so they are as small as
//! one cluster (1 KiB of stamps for 16 x 16) and stay in cache; like the grid search they are
//! reused with generation stamps, so a run allocates nothing once warm.

use super::graph::{TREE_NONE, TREE_ROOT};
use crate::grid::{CellId, Direction, Grid};
use crate::search::OpenList;

/// Parent marker of the source cell (the root of an exported tree).
const SOURCE: u8 = TREE_ROOT;

/// A rectangle of cells: columns `x0..x0 + w`, rows `y0..y0 + h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rect {
    pub x0: u32,
    pub y0: u32,
    pub w: u32,
    pub h: u32,
}

impl Rect {
    #[inline]
    pub fn contains(&self, x: u32, y: u32) -> bool {
        x.wrapping_sub(self.x0) < self.w && y.wrapping_sub(self.y0) < self.h
    }

    #[inline]
    pub fn local(&self, x: u32, y: u32) -> usize {
        ((y - self.y0) * self.w + (x - self.x0)) as usize
    }
}

/// Reusable memory of a confined Dijkstra. See the [module docs](self).
#[derive(Debug, Default)]
pub(crate) struct LocalSearch {
    /// Per local cell: `generation` open, `generation + 1` settled.
    stamp: Vec<u32>,
    /// Per local cell: marked `generation` when it is a target of the current run.
    target: Vec<u32>,
    g: Vec<f64>,
    parent: Vec<u8>,
    generation: u32,
    open: OpenList,
    rect: Option<Rect>,
    source: CellId,
    /// Cells settled by the last run.
    pub expanded: u64,
}

impl LocalSearch {
    /// Dijkstra from `source` over the walkable cells of `rect` (moves that leave the rectangle
    /// are ignored), stopping once every cell of `targets` is settled (or nothing is left).
    pub fn run(&mut self, grid: &Grid, rect: Rect, source: CellId, targets: &[CellId]) {
        let area = (rect.w * rect.h) as usize;
        if self.stamp.len() < area {
            self.stamp.resize(area, 0);
            self.target.resize(area, 0);
            self.g.resize(area, 0.0);
            self.parent.resize(area, SOURCE);
        }
        if self.generation >= u32::MAX - 3 {
            self.stamp.fill(0);
            self.target.fill(0);
            self.generation = 0;
        }
        self.generation += 2;
        self.rect = Some(rect);
        self.source = source;
        self.expanded = 0;
        let open_stamp = self.generation;
        let closed_stamp = open_stamp + 1;
        let mut remaining = 0usize;
        for &t in targets {
            let (x, y) = grid.coords(t);
            let l = rect.local(x, y);
            if self.target[l] != open_stamp {
                self.target[l] = open_stamp;
                remaining += 1;
            }
        }
        let width = grid.width();
        let moves = grid.move_table();
        let (sx, sy) = grid.coords(source);
        let ls = rect.local(sx, sy);
        self.stamp[ls] = open_stamp;
        self.g[ls] = 0.0;
        self.parent[ls] = SOURCE;
        self.open.clear();
        self.open.push(0, source);
        while let Some((_, cell)) = self.open.pop() {
            let (cx, cy) = (cell % width, cell / width);
            let lc = rect.local(cx, cy);
            if self.stamp[lc] == closed_stamp {
                continue;
            }
            self.stamp[lc] = closed_stamp;
            self.expanded += 1;
            if self.target[lc] == open_stamp {
                remaining -= 1;
                if remaining == 0 {
                    break;
                }
            }
            let g = self.g[lc];
            let mut bits = moves[cell as usize].0;
            while bits != 0 {
                let d = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let nx = cx.wrapping_add_signed(Direction::DX[d]);
                let ny = cy.wrapping_add_signed(Direction::DY[d]);
                if !rect.contains(nx, ny) {
                    continue;
                }
                let ln = rect.local(nx, ny);
                let s = self.stamp[ln];
                if s == closed_stamp {
                    continue;
                }
                let next = ny * width + nx;
                let ng = g + grid.step_cost(Direction::ALL[d], next);
                if s == open_stamp && ng >= self.g[ln] {
                    continue;
                }
                self.stamp[ln] = open_stamp;
                self.g[ln] = ng;
                self.parent[ln] = d as u8;
                self.open.push(ng.to_bits(), next);
            }
        }
    }

    /// Appends the last run's shortest-path tree to `out`, one byte per cell of the rectangle
    /// in local order: the direction of the step from the parent, [`TREE_ROOT`] at the
    /// source, [`TREE_NONE`] for cells the run did not settle.
    pub fn export_tree(&self, out: &mut Vec<u8>) {
        let rect = self.rect.expect("a run happened");
        let area = (rect.w * rect.h) as usize;
        let closed = self.generation + 1;
        out.extend(
            self.stamp[..area]
                .iter()
                .zip(&self.parent[..area])
                .map(|(&s, &p)| if s == closed { p } else { TREE_NONE }),
        );
    }

    /// Cost from the source to `cell` when the last run settled it.
    #[inline]
    pub fn distance(&self, grid: &Grid, cell: CellId) -> Option<f64> {
        let rect = self.rect?;
        let (x, y) = grid.coords(cell);
        if !rect.contains(x, y) {
            return None;
        }
        let l = rect.local(x, y);
        (self.stamp[l] == self.generation + 1).then(|| self.g[l])
    }

    /// Appends the cells from `cell` back to the source (both included) to `out`, following
    /// the parents of the last run. `cell` must have been settled.
    pub fn trace_back(&self, grid: &Grid, cell: CellId, out: &mut Vec<CellId>) {
        let rect = self.rect.expect("a run happened");
        let width = grid.width();
        let mut c = cell;
        loop {
            out.push(c);
            let (x, y) = (c % width, c / width);
            let d = self.parent[rect.local(x, y)];
            if d == SOURCE {
                break;
            }
            let d = usize::from(d);
            let px = x.wrapping_add_signed(-Direction::DX[d]);
            let py = y.wrapping_add_signed(-Direction::DY[d]);
            c = py * width + px;
        }
        debug_assert_eq!(c, self.source);
    }
}
