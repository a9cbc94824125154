//! After warm-up, a query performs zero heap allocations: counted by a global allocator that
//! tallies every allocation made on the current thread.

#![expect(
    unsafe_code,
    reason = "a counting GlobalAlloc must implement an unsafe trait"
)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use common::shipped;
use throng::grid::procgen::MapGenerator;
use throng::grid::{CellId, Grid};
use throng::movingai::{ScenFile, load_map};
use throng::search::{SearchOptions, SearchWorkspace};

struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the allocator also runs while thread-locals are being torn down.
    let _ = ALLOCATIONS.try_with(|a| a.set(a.get() + 1));
}

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Runs every query once; returns the allocations made and how many paths were found.
fn run_all(grid: &Grid, ws: &mut SearchWorkspace, queries: &[(CellId, CellId)]) -> (u64, usize) {
    let before = allocations();
    let mut found = 0;
    for &(start, goal) in queries {
        if ws.find_path(grid, start, goal).is_ok_and(|o| o.is_found()) {
            found += 1;
        }
        // Failure outcomes must not allocate either.
        let _ = ws.find_path_with(grid, start, goal, &SearchOptions::with_budget(3));
    }
    (allocations() - before, found)
}

#[test]
fn the_counter_sees_allocations() {
    // Guards the test below: a counter that never counts would make it pass vacuously.
    let before = allocations();
    let v: Vec<u64> = std::hint::black_box(Vec::with_capacity(10));
    drop(v);
    assert_eq!(allocations() - before, 1);
    let before = allocations();
    let grid = Grid::new(8, 8).unwrap();
    let mut ws = SearchWorkspace::new();
    ws.find_path(&grid, 0, 63).unwrap();
    assert!(
        allocations() - before > 0,
        "a cold workspace has to size itself"
    );
}

#[test]
fn warm_queries_do_not_allocate() {
    for name in ["den520d.map.scen", "8room_000.map.scen"] {
        let scen = ScenFile::load(shipped(name)).unwrap();
        let grid = load_map(scen.map_path().unwrap()).unwrap();
        let queries: Vec<_> = scen
            .resolve(&grid)
            .unwrap()
            .into_iter()
            .step_by(4)
            .collect();
        let mut ws = SearchWorkspace::new();
        let (warmup, found) = run_all(&grid, &mut ws, &queries);
        assert!(warmup > 0 && found == queries.len());
        let (warm, found) = run_all(&grid, &mut ws, &queries);
        assert_eq!(
            warm,
            0,
            "{name}: {warm} allocations in {} warm queries",
            queries.len()
        );
        assert_eq!(found, queries.len());
    }
}

/// The same with Jump Point Search, online and with the jump table (JPS+): both reuse the
/// workspace's arrays and open list, and their path reconstruction writes into the same path
/// buffer. (The first JPS+ query builds the grid's table: that allocation is the warm-up's.)
#[test]
fn warm_jps_queries_do_not_allocate() {
    for name in [
        "den520d.map.scen",
        "8room_000.map.scen",
        "random512-10-0.map.scen",
    ] {
        let scen = ScenFile::load(shipped(name)).unwrap();
        let grid = load_map(scen.map_path().unwrap()).unwrap();
        let queries: Vec<_> = scen
            .resolve(&grid)
            .unwrap()
            .into_iter()
            .step_by(4)
            .collect();
        for plus in [false, true] {
            let search = |ws: &mut SearchWorkspace, start, goal, options: &SearchOptions| {
                if plus {
                    ws.find_path_jps_plus(&grid, start, goal, options)
                } else {
                    ws.find_path_jps(&grid, start, goal, options)
                }
            };
            let run = |ws: &mut SearchWorkspace| {
                let before = allocations();
                let mut found = 0;
                for &(start, goal) in &queries {
                    let outcome = search(ws, start, goal, &SearchOptions::default());
                    if outcome.is_ok_and(|o| o.is_found()) {
                        found += 1;
                    }
                    let _ = search(ws, start, goal, &SearchOptions::with_budget(3));
                }
                (allocations() - before, found)
            };
            let label = if plus { "JPS+" } else { "JPS" };
            let mut ws = SearchWorkspace::new();
            let (warmup, found) = run(&mut ws);
            assert!(warmup > 0 && found == queries.len());
            let (warm, found) = run(&mut ws);
            assert_eq!(
                warm,
                0,
                "{name}: {warm} allocations in {} warm {label} queries",
                queries.len()
            );
            assert_eq!(found, queries.len());
            // A workspace warmed by A* is warm for JPS too, and the other way round.
            let mut ws = SearchWorkspace::new();
            run_all(&grid, &mut ws, &queries);
            run(&mut ws);
            assert_eq!(run(&mut ws).0, 0, "{name}: {label} after A*");
            assert_eq!(
                run_all(&grid, &mut ws, &queries).0,
                0,
                "{name}: A* after {label}"
            );
        }
    }
}

#[test]
fn unreachable_and_invalid_queries_do_not_allocate() {
    let grid = MapGenerator::Rooms {
        width: 40,
        height: 40,
        room: 6,
        door: 1,
    }
    .generate(1)
    .unwrap();
    let blocked = (0..grid.len() as CellId)
        .find(|&c| !grid.is_walkable(c))
        .unwrap();
    let mut ws = SearchWorkspace::for_grid(&grid);
    ws.find_path(&grid, 0, grid.len() as CellId - 1).unwrap();
    let before = allocations();
    let opts = SearchOptions::default();
    for _ in 0..100 {
        assert!(ws.find_path(&grid, 0, blocked).is_err());
        assert!(ws.find_path(&grid, 0, u32::MAX - 5).is_err());
        assert!(ws.find_path_jps(&grid, 0, blocked, &opts).is_err());
        assert!(ws.find_path_jps(&grid, u32::MAX - 5, 0, &opts).is_err());
    }
    assert_eq!(allocations() - before, 0);
}

/// Navigation-point queries reuse their workspace too: no allocation once warm, for long
/// trips (confined Dijkstras, search over the points, stitching, straightening) and short
/// ones (direct search) alike.
#[test]
fn warm_nav_queries_do_not_allocate() {
    use throng::nav::{NavGraph, NavOptions, NavWorkspace};
    for name in ["den520d.map.scen", "random512-10-0.map.scen"] {
        let scen = ScenFile::load(shipped(name)).unwrap();
        let grid = load_map(scen.map_path().unwrap()).unwrap();
        let nav = NavGraph::build(&grid, &NavOptions::default()).unwrap();
        let queries: Vec<_> = scen
            .resolve(&grid)
            .unwrap()
            .into_iter()
            .step_by(3)
            .collect();
        let run = |ws: &mut NavWorkspace| {
            let before = allocations();
            let mut found = 0;
            for &(start, goal) in &queries {
                if nav
                    .find_path(&grid, ws, start, goal)
                    .is_ok_and(|o| o.is_found())
                {
                    found += 1;
                }
            }
            (allocations() - before, found)
        };
        let mut ws = NavWorkspace::new();
        let (warmup, found) = run(&mut ws);
        assert!(warmup > 0 && found == queries.len());
        let (warm, found) = run(&mut ws);
        assert_eq!(warm, 0, "{name}: {warm} allocations in warm nav queries");
        assert_eq!(found, queries.len());
    }
}
