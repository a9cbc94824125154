//! The result files `throng view` replays besides traces: MAPF plans (`throng mapf --out`, in
//! lacam3's format) and League of Robot Runners outputs (`throng lorr --out`), each read and
//! then played on a map.
//!
//! The first input byte picks the reader (even: a plan, odd: a LoRR output); the rest is the
//! file's text and a Moving AI map's text, separated by a NUL byte (text files hold none). A
//! file that does not read, or does not play on the map, must be an error naming the file,
//! never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use throng::movingai::{MapOptions, parse_map};
use throng::view::{LorrOutput, PlanFile};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let (file, map) = text.split_once('\0').unwrap_or((text, ""));
    let grid = parse_map(map, "fuzz.map", &MapOptions::default()).ok();
    if mode % 2 == 0 {
        match PlanFile::parse(file, "fuzz.txt") {
            Ok(plan) => {
                if let Some(grid) = grid
                    && let Err(e) = plan.on_grid(&grid, "map fuzz.map")
                {
                    assert!(e.to_string().starts_with("fuzz.txt"), "{e}");
                }
            }
            Err(e) => assert!(e.to_string().starts_with("fuzz.txt"), "{e}"),
        }
    } else {
        match LorrOutput::parse(file.to_string(), "fuzz.json") {
            Ok(out) => {
                if let Some(grid) = grid
                    && let Err(e) = out.replay(&grid, "map fuzz.map", None)
                {
                    assert!(e.to_string().starts_with("fuzz.json"), "{e}");
                }
            }
            Err(e) => assert!(e.to_string().starts_with("fuzz.json"), "{e}"),
        }
    }
});
