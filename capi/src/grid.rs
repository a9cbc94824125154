//! Grid handles: a map loaded from a Moving AI file or made from an array of cells, whose cells
//! can be opened and blocked.

use std::ffi::c_char;
use std::sync::atomic::AtomicU64;
use std::sync::{RwLock, RwLockReadGuard};

use throng::grid::{CellChange, Neighborhood};
use throng::grid::{CellId, Grid};

use crate::handle::{self, Handle};
use crate::ptr;
use crate::status::{Failure, ThrongStatus, guard};

/// A grid (opaque). Made by `throng_grid_load` or `throng_grid_from_cells`, freed by
/// `throng_grid_free`.
pub struct ThrongGrid {
    magic: AtomicU64,
    grid: RwLock<Grid>,
}

impl Handle for ThrongGrid {
    const NAME: &'static str = "grid";
    const MAGIC: u64 = 0x7468_726f_6e67_4752; // "throngGR"
    fn magic(&self) -> &AtomicU64 {
        &self.magic
    }
}

impl ThrongGrid {
    /// The grid, read-locked.
    pub(crate) fn read(&self) -> Result<RwLockReadGuard<'_, Grid>, Failure> {
        self.grid.read().map_err(|_| handle::poisoned::<Self>())
    }
}

fn neighborhood(neighbours: u32) -> Result<Neighborhood, Failure> {
    match neighbours {
        4 => Ok(Neighborhood::Four),
        8 => Ok(Neighborhood::Eight),
        n => Err(Failure::invalid(format!(
            "neighbours is {n}: 4 (straight moves) or 8 (straight and diagonal)"
        ))),
    }
}

/// The cell at column `x`, row `y` of `grid`, or [`ThrongStatus::OutOfRange`].
pub(crate) fn cell_at(grid: &Grid, x: u32, y: u32) -> Result<CellId, Failure> {
    grid.cell(x, y).ok_or_else(|| {
        Failure::new(
            ThrongStatus::OutOfRange,
            format!(
                "({x}, {y}) is outside the {} x {} grid",
                grid.width(),
                grid.height()
            ),
        )
    })
}

fn publish(grid: Grid, out: *mut *mut ThrongGrid) -> Result<(), Failure> {
    ptr::check_out(out, "out")?;
    let handle = handle::into_raw(ThrongGrid {
        magic: AtomicU64::new(0),
        grid: RwLock::new(grid),
    });
    ptr::write(out, handle, "out")
}

/// Loads a Moving AI `.map` file (`path`, UTF-8). `neighbours` is 8 (straight and diagonal
/// moves, no corner cutting: the Moving AI rule) or 4 (straight moves only). On success `*out`
/// is a new grid handle; free it with `throng_grid_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_grid_load(
    path: *const c_char,
    neighbours: u32,
    out: *mut *mut ThrongGrid,
) -> ThrongStatus {
    guard(|| {
        let path = ptr::text(path, "path")?;
        let neighborhood = neighborhood(neighbours)?;
        let grid = throng::movingai::load_map(path)?.with_neighborhood(neighborhood);
        publish(grid, out)
    })
}

/// Makes a grid of `width` x `height` cells from `cells`, `cell_count` (= width * height)
/// bytes row by row (cell `y * width + x`): 0 is a blocked cell, anything else walkable.
/// `neighbours` is 8 or 4 as for `throng_grid_load`. On success `*out` is a new grid handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_grid_from_cells(
    width: u32,
    height: u32,
    cells: *const u8,
    cell_count: usize,
    neighbours: u32,
    out: *mut *mut ThrongGrid,
) -> ThrongStatus {
    guard(|| {
        let want = u64::from(width) * u64::from(height);
        if cell_count as u64 != want {
            return Err(Failure::invalid(format!(
                "cell_count is {cell_count}, a {width} x {height} grid has {want} cells"
            )));
        }
        let cells = ptr::slice(cells, cell_count, "cells")?;
        let neighborhood = neighborhood(neighbours)?;
        let walkable = cells.iter().map(|&c| c != 0).collect();
        let grid = Grid::from_walkable(width, height, walkable)?.with_neighborhood(neighborhood);
        publish(grid, out)
    })
}

/// Frees a grid handle. NULL does nothing. Simulations and navigation graphs made from the
/// grid keep their own copy and stay usable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_grid_free(grid: *mut ThrongGrid) -> ThrongStatus {
    guard(|| handle::free(grid))
}

/// Writes the grid's width (columns) and height (rows); either pointer may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_grid_size(
    grid: *const ThrongGrid,
    width: *mut u32,
    height: *mut u32,
) -> ThrongStatus {
    guard(|| {
        let grid = handle::get(grid)?.read()?;
        ptr::write_optional(width, grid.width(), "width")?;
        ptr::write_optional(height, grid.height(), "height")
    })
}

/// Makes the cell at column `x`, row `y` walkable (`walkable` not 0) or blocked (0).
/// Navigation graphs and simulations already made from the grid do not see the change (a
/// simulation's own map is changed with `throng_sim_set_walkable`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_grid_set_walkable(
    grid: *mut ThrongGrid,
    x: u32,
    y: u32,
    walkable: u8,
) -> ThrongStatus {
    guard(|| {
        edit(grid, x, y, |cell| CellChange::SetWalkable {
            cell,
            walkable: walkable != 0,
        })
    })
}

/// Applies the change `change` makes for the cell at column `x`, row `y` of the grid handle.
fn edit(
    grid: *mut ThrongGrid,
    x: u32,
    y: u32,
    change: impl FnOnce(CellId) -> CellChange,
) -> Result<(), Failure> {
    let handle = handle::get_mut(grid)?;
    let mut grid = handle
        .grid
        .write()
        .map_err(|_| handle::poisoned::<ThrongGrid>())?;
    let cell = cell_at(&grid, x, y)?;
    grid.apply(&[change(cell)])?;
    Ok(())
}

/// Sets the terrain cost of the cell at column `x`, row `y`: entering it costs the base step
/// (1, or the square root of 2 diagonally) times `cost`, a finite number above 0 (mud 3, a road
/// 0.5; 1 on a grid made without costs). Planners then prefer cheaper ground. Navigation
/// graphs and simulations already made from the grid do not see the change (a simulation's own
/// map is changed with `throng_sim_set_cost`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_grid_set_cost(
    grid: *mut ThrongGrid,
    x: u32,
    y: u32,
    cost: f32,
) -> ThrongStatus {
    guard(|| edit(grid, x, y, |cell| CellChange::SetCost { cell, cost }))
}

/// Writes the terrain cost of the cell at column `x`, row `y` to `*cost` (1 on a grid without
/// costs).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_grid_cost(
    grid: *const ThrongGrid,
    x: u32,
    y: u32,
    cost: *mut f32,
) -> ThrongStatus {
    guard(|| {
        let grid = handle::get(grid)?.read()?;
        let cell = cell_at(&grid, x, y)?;
        ptr::write(cost, grid.cost(cell), "cost")
    })
}

/// Writes 1 to `*walkable` when the cell at column `x`, row `y` is walkable, 0 when blocked.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_grid_is_walkable(
    grid: *const ThrongGrid,
    x: u32,
    y: u32,
    walkable: *mut u8,
) -> ThrongStatus {
    guard(|| {
        let grid = handle::get(grid)?.read()?;
        let cell = cell_at(&grid, x, y)?;
        ptr::write(walkable, u8::from(grid.is_walkable(cell)), "walkable")
    })
}
