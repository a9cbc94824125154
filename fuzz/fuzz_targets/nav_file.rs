//! Navigation files: loaded for a fixed 32 x 32 map; a file that loads must answer queries
//! with legal paths.
//!
//! The first input byte picks how the rest is used: even, as a whole file (magic, version and
//! map checks); odd, as the body after a correct header for the map, with a correct checksum
//! appended, so that mutations reach the cluster and landmark decoding instead of stopping at
//! the checksum.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use throng::Grid;
use throng::movingai::{MapOptions, parse_map};
use throng::nav::{FORMAT_VERSION, NavGraph, NavWorkspace, file_checksum, map_hash};
use throng::search::SearchOutcome;

const MAP: &str = include_str!("../../sims/maps/mapf/random-32-32-10.map");

fn grid() -> &'static Grid {
    static GRID: OnceLock<Grid> = OnceLock::new();
    GRID.get_or_init(|| parse_map(MAP, "random-32-32-10.map", &MapOptions::default()).unwrap())
}

fn header(grid: &Grid) -> Vec<u8> {
    let mut out = b"THRONGNV".to_vec();
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&grid.width().to_le_bytes());
    out.extend_from_slice(&grid.height().to_le_bytes());
    out.push(8);
    out.extend_from_slice(&map_hash(grid).to_le_bytes());
    out
}

fuzz_target!(|data: &[u8]| {
    let grid = grid();
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let file = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        let mut file = header(grid);
        file.extend_from_slice(rest);
        let sum = file_checksum(&file);
        file.extend_from_slice(&sum.to_le_bytes());
        file
    };
    let Ok(nav) = NavGraph::from_bytes(&file, grid, Path::new("fuzz.nav")) else {
        return;
    };
    // The header helper above still describes the format.
    assert_eq!(&nav.to_bytes()[..29], &header(grid)[..], "nav_file_header_is_current");
    let walkable: Vec<u32> = (0..grid.len() as u32).filter(|&c| grid.is_walkable(c)).collect();
    let mut ws = NavWorkspace::new();
    for i in 0..8 {
        let start = walkable[i * 97 % walkable.len()];
        let goal = walkable[(i * 389 + walkable.len() / 2) % walkable.len()];
        if let Ok(SearchOutcome::Found { .. }) = nav.find_path(grid, &mut ws, start, goal) {
            let path = ws.path();
            assert_eq!((path.first(), path.last()), (Some(&start), Some(&goal)));
            assert!(grid.path_cost(path).is_ok(), "illegal path from a loaded file");
        }
    }
});
