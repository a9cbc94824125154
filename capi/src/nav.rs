//! Navigation-graph handles: the navigation points of a grid (what the `nav` and `auto`
//! planners plan through), built from a grid, saved to a file and loaded back.

use std::ffi::c_char;
use std::sync::atomic::AtomicU64;

use throng::nav::{NavGraph, NavOptions};

use crate::grid::ThrongGrid;
use crate::handle::{self, Handle};
use crate::ptr;
use crate::status::{Failure, ThrongStatus, guard};

/// A navigation graph (opaque), made for one grid. Made by `throng_nav_build` or
/// `throng_nav_load`, freed by `throng_nav_free`.
pub struct ThrongNav {
    magic: AtomicU64,
    /// Never changed after it is made: read by any number of threads at once.
    pub(crate) nav: NavGraph,
}

impl Handle for ThrongNav {
    const NAME: &'static str = "navigation graph";
    const MAGIC: u64 = 0x7468_726f_6e67_4e56; // "throngNV"
    fn magic(&self) -> &AtomicU64 {
        &self.magic
    }
}

fn publish(nav: NavGraph, out: *mut *mut ThrongNav) -> Result<(), Failure> {
    let handle = handle::into_raw(ThrongNav {
        magic: AtomicU64::new(0),
        nav,
    });
    ptr::write(out, handle, "out")
}

/// Builds the navigation points of `grid` (default options; on the engine's threads). A big
/// map takes seconds: build once and save (`throng_nav_save`), or use `throng nav` offline.
/// On success `*out` is a new handle; free it with `throng_nav_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_nav_build(
    grid: *const ThrongGrid,
    out: *mut *mut ThrongNav,
) -> ThrongStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        let grid = handle::get(grid)?.read()?;
        let nav = NavGraph::build(&grid, &NavOptions::default())?;
        publish(nav, out)
    })
}

/// Saves the navigation graph to the file `path` (UTF-8), the format of `throng nav`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_nav_save(
    nav: *const ThrongNav,
    path: *const c_char,
) -> ThrongStatus {
    guard(|| {
        let nav = handle::get(nav)?;
        let path = ptr::text(path, "path")?;
        nav.nav.save(path)?;
        Ok(())
    })
}

/// Loads navigation points saved by `throng_nav_save` or `throng nav` for `grid`: a file made
/// for another map (or another version) is refused with `THRONG_STATUS_PARSE`. On success
/// `*out` is a new handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_nav_load(
    path: *const c_char,
    grid: *const ThrongGrid,
    out: *mut *mut ThrongNav,
) -> ThrongStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        let path = ptr::text(path, "path")?;
        let grid = handle::get(grid)?.read()?;
        let nav = NavGraph::load(path, &grid)?;
        publish(nav, out)
    })
}

/// Frees a navigation-graph handle. NULL does nothing. Simulations made with it keep their
/// own copy.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_nav_free(nav: *mut ThrongNav) -> ThrongStatus {
    guard(|| handle::free(nav))
}
