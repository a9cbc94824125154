//! Scenario TOML: parsed (its map file, when it names `maps/arena.map`, held in memory), then,
//! when it is small enough, built and played for two ticks.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use throng::scenario::{MapSource, Scenario};

/// The map a fuzzed scenario may name as `maps/arena.map` (49 x 49); any other file is looked
/// for in a folder that does not exist, so no fuzz input reads the disk.
const ARENA: &str = include_str!("../../sims/maps/arena.map");

// Inputs the parser accepts may still describe runs far beyond what a fuzzer can execute
// thousands of times a second; they are skipped before `build`, on purpose. These bounds are
// the fuzzer's, not the library's (a 1000 x 1000 map or 100,000 agents are legal scenarios):
/// Most cells of a generated map built here.
const MAX_CELLS: u64 = 256 * 256;
/// Most agents placed here.
const MAX_AGENTS: usize = 5_000;
/// Most door rounds (`ticks / period`): `build` checks the whole door schedule up front.
const MAX_DOOR_ROUNDS: u64 = 10_000;
/// Scenarios up to this many agents and cells also play two ticks.
const PLAY_AGENTS: usize = 200;
const PLAY_CELLS: u64 = 64 * 64;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let scenario = match Scenario::parse_with_map(
        text,
        "fuzz.toml",
        Path::new("/nonexistent-throng-fuzz"),
        "maps/arena.map",
        ARENA,
    ) {
        Ok(s) => s,
        Err(e) => {
            // Errors name the file: a user can always tell where to look.
            assert!(e.to_string().starts_with("fuzz.toml"), "{e}");
            return;
        }
    };
    let cells = match &scenario.map {
        MapSource::Generated { generator, .. } => {
            let (w, h) = generator.size();
            u64::from(w) * u64::from(h)
        }
        _ => 49 * 49,
    };
    if cells > MAX_CELLS || scenario.agents > MAX_AGENTS {
        return;
    }
    if let Some(doors) = &scenario.doors
        && scenario.ticks / doors.period.max(1) > MAX_DOOR_ROUNDS
    {
        return;
    }
    let Ok(mut sim) = scenario.build() else {
        return;
    };
    assert_eq!(sim.agents().len(), scenario.agents);
    if scenario.agents <= PLAY_AGENTS && cells <= PLAY_CELLS {
        let mut schedule = scenario
            .schedule(sim.grid())
            .expect("build checked the schedule");
        for _ in 0..2 {
            schedule.queue_due(&mut sim);
            let report = sim.step();
            assert_eq!(report.agents as usize, scenario.agents);
        }
    }
});
