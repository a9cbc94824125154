//! Moving AI benchmark formats: `.map` grids and `.map.scen` scenario files.
//!
//! See N. R. Sturtevant, "Benchmarks for Grid-Based Pathfinding", IEEE TCIAIG 4(2), 2012, and
//! `sims/maps/README.md` for the maps shipped with throng.

mod map;
mod scen;

pub use map::{MapOptions, load_map, load_map_with, parse_map, write_map, write_map_to};
pub use scen::{
    OtherMapName, ScenFile, ScenQuery, TOLERANCE_PRECISE, TOLERANCE_ROUNDED, parse_scen,
    within_tolerance,
};
