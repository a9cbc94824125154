//! Simulation snapshots (`Simulation::from_snapshot`): any input is refused with an error or
//! read into a simulation whose own snapshot reads back to the same bytes.
//!
//! The first input byte picks how the rest is used: even, as a whole snapshot (magic, versions,
//! lengths, checksum); odd, as the payload after a correct envelope, with the map hash of its
//! grid part and the checksum computed as the format states (`src/sim/snapshot/format.rs`), so
//! that mutations reach the decoding of the parts instead of stopping at the checksum.
#![no_main]

use libfuzzer_sys::fuzz_target;
use throng::sim::Simulation;

/// The envelope's first bytes (magic, format version, crate version) from a real snapshot.
fn lead() -> &'static [u8] {
    static LEAD: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    LEAD.get_or_init(|| {
        let grid = throng::grid::Grid::new(2, 2).unwrap();
        let sim = Simulation::new(grid, Default::default()).unwrap();
        let bytes = sim.snapshot();
        let n = 12 + 1 + usize::from(bytes[12]);
        bytes[..n].to_vec()
    })
}

/// Bytes of the grid part at the start of `payload`, as the layout gives them.
fn grid_part(payload: &[u8]) -> usize {
    let word = |at: usize| -> u64 {
        payload
            .get(at..at + 4)
            .map_or(0, |b| u64::from(u32::from_le_bytes(b.try_into().unwrap())))
    };
    let cells = (word(0) * word(4)) as usize;
    let flag_at = 9usize.saturating_add(cells.div_ceil(8));
    let costs = match payload.get(flag_at) {
        Some(1) => cells.saturating_mul(4),
        _ => 0,
    };
    flag_at
        .saturating_add(1)
        .saturating_add(costs)
        .saturating_add(8)
        .min(payload.len())
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        let mut bytes = lead().to_vec();
        let map_hash = xxhash_rust::xxh3::xxh3_64(&rest[..grid_part(rest)]);
        bytes.extend_from_slice(&map_hash.to_le_bytes());
        bytes.extend_from_slice(&(rest.len() as u64).to_le_bytes());
        bytes.extend_from_slice(rest);
        let sum = xxhash_rust::xxh3::xxh3_64(&bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        bytes
    };
    let Ok(sim) = Simulation::from_snapshot(&bytes) else {
        return;
    };
    // What was read writes itself back in a form that reads back to the same bytes.
    let again = sim.snapshot();
    let copy = Simulation::from_snapshot(&again).expect("a simulation's own snapshot reads");
    assert_eq!(copy.snapshot(), again, "snapshot_round_trip");
});
