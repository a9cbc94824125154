//! Moving AI `.scen` text: parsed, then its queries resolved against a small map (sizes and
//! endpoints checked, never a panic).
#![no_main]

use libfuzzer_sys::fuzz_target;
use throng::grid::Grid;
use throng::movingai::parse_scen;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_scen(text, "fuzz.scen") {
        Ok(scen) => {
            let grid = Grid::new(49, 49).expect("49 x 49");
            if let Ok(cells) = scen.resolve(&grid) {
                assert_eq!(cells.len(), scen.queries.len());
                assert!(
                    cells
                        .iter()
                        .all(|&(s, g)| (s as usize) < grid.len() && (g as usize) < grid.len())
                );
            }
            let _ = scen.map_path();
        }
        Err(e) => assert!(e.to_string().starts_with("fuzz.scen"), "{e}"),
    }
});
