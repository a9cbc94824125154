//! Navigation files: loaded for a fixed 32 x 32 map; a file that loads must answer queries
//! with legal paths.
//!
//! The first input byte picks how the rest is used: even, as a whole file (magic, version and
//! map checks); odd, as the body after a correct header for the map, with a correct checksum
//! appended, so that mutations reach the cluster and landmark decoding instead of stopping at
//! the checksum. The header is taken from a file saved for the map and the checksum computed as
//! the format states (XXH3-64 of everything before it, `src/nav/file.rs`): only the public API
//! is used.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use throng::grid::Grid;
use throng::movingai::{MapOptions, parse_map};
use throng::nav::{NavGraph, NavOptions, NavWorkspace};
use throng::search::SearchOutcome;

const MAP: &str = include_str!("../../sims/maps/mapf/random-32-32-10.map");

fn grid() -> &'static Grid {
    static GRID: OnceLock<Grid> = OnceLock::new();
    GRID.get_or_init(|| parse_map(MAP, "random-32-32-10.map", &MapOptions::default()).unwrap())
}

/// Bytes of the header: magic, format version, width, height, movement rule, map hash.
const HEADER_LEN: usize = 29;

/// The header of a navigation file for `grid`, from a graph built for it and saved.
fn header(grid: &Grid) -> &'static [u8] {
    static HEADER: OnceLock<Vec<u8>> = OnceLock::new();
    HEADER.get_or_init(|| {
        let nav = NavGraph::build(grid, &NavOptions::default()).expect("the map builds");
        let bytes = nav.to_bytes();
        assert_eq!(&bytes[..8], b"THRONGNV");
        bytes[..HEADER_LEN].to_vec()
    })
}

fuzz_target!(|data: &[u8]| {
    let grid = grid();
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let file = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        let mut file = header(grid).to_vec();
        file.extend_from_slice(rest);
        let sum = xxhash_rust::xxh3::xxh3_64(&file);
        file.extend_from_slice(&sum.to_le_bytes());
        file
    };
    let Ok(nav) = NavGraph::from_bytes(&file, grid, Path::new("fuzz.nav")) else {
        return;
    };
    // A graph that loads was saved for this map: its header is the one above.
    assert_eq!(
        &nav.to_bytes()[..HEADER_LEN],
        header(grid),
        "nav_file_header_is_current"
    );
    let walkable: Vec<u32> = (0..grid.len() as u32)
        .filter(|&c| grid.is_walkable(c))
        .collect();
    let mut ws = NavWorkspace::new();
    for i in 0..8 {
        let start = walkable[i * 97 % walkable.len()];
        let goal = walkable[(i * 389 + walkable.len() / 2) % walkable.len()];
        if let Ok(SearchOutcome::Found { .. }) = nav.find_path(grid, &mut ws, start, goal) {
            let path = ws.path();
            assert_eq!((path.first(), path.last()), (Some(&start), Some(&goal)));
            assert!(
                grid.path_cost(path).is_ok(),
                "illegal path from a loaded file"
            );
        }
    }
});
