//! Moving AI `.map` text: parsed with both movement rules; a parsed grid must be consistent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use throng::grid::Neighborhood;
use throng::movingai::{MapOptions, parse_map};

fuzz_target!(|data: &[u8]| {
    // The loaders read UTF-8 text (other bytes are an I/O-level error before parsing).
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for neighborhood in [Neighborhood::Eight, Neighborhood::Four] {
        let options = MapOptions {
            neighborhood,
            swamp_cost: 2.0,
            water_cost: Some(3.0),
        };
        match parse_map(text, "fuzz.map", &options) {
            Ok(grid) => {
                assert_eq!(grid.len(), grid.width() as usize * grid.height() as usize);
                assert!(grid.walkable_count() <= grid.len());
            }
            // Every error names the file (and, for one line, the line).
            Err(e) => assert!(e.to_string().starts_with("fuzz.map"), "{e}"),
        }
    }
});
