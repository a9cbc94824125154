//! Snapshots of a simulation handle: its whole state to bytes (a save game, a lockstep
//! rollback point, a replay's start) and back, in place or as a new handle. A simulation
//! restored plays on exactly as the one saved would: the same state hash every later tick.
//!
//! The bytes are those of `Simulation::snapshot` (layout and promises in docs/embedding.md,
//! "Snapshots"): read by the same library version only, refused whole with
//! `THRONG_STATUS_PARSE` when damaged, truncated or of another version, and nothing changed.

use std::time::Instant;

use throng::sim::Simulation;

use crate::handle;
use crate::ptr;
use crate::sim::{SimState, ThrongSim, publish};
use crate::status::{Failure, ThrongStatus, guard};

/// Writes the simulation's whole state into `buffer` (`capacity` bytes) and its size in bytes
/// into `*needed` (may be NULL). A NULL or too small buffer gives
/// `THRONG_STATUS_BUFFER_TOO_SMALL` after `*needed` is written: call again with a buffer that
/// size (the size stays the same until the simulation changes). `THRONG_STATUS_BUSY` while a
/// step is in flight. A snapshot holds the map, the settings, every agent with its route and
/// search state, the queued changes, the last tick's events and the metrics (a few dozen bytes
/// per agent plus routes, the map as bits, the navigation graph when there is one); not the
/// simulation's own thread count, nor a scenario's scripted changes (a handle made from a
/// scenario file keeps them across `throng_sim_restore`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_snapshot(
    sim: *const ThrongSim,
    buffer: *mut u8,
    capacity: usize,
    needed: *mut usize,
) -> ThrongStatus {
    guard(|| {
        let state = handle::get(sim)?.lock()?;
        let bytes = state.sim.snapshot();
        drop(state);
        ptr::write_optional(needed, bytes.len(), "needed")?;
        if buffer.is_null() || capacity < bytes.len() {
            return Err(Failure::new(
                ThrongStatus::BufferTooSmall,
                format!(
                    "the snapshot needs {} bytes, the buffer has {capacity}",
                    bytes.len()
                ),
            ));
        }
        let out = ptr::slice_out(buffer, bytes.len(), "buffer")?;
        for (slot, &byte) in out.iter_mut().zip(&bytes) {
            slot.write(byte);
        }
        Ok(())
    })
}

/// Replaces the simulation's whole state with the snapshot in `bytes` (`len` bytes, written by
/// `throng_sim_snapshot`): a rollback, the handle stays the caller's. The snapshot's map must
/// have this simulation's size and movement rule (its walls may differ: doors shut or opened
/// since are restored as they were), else `THRONG_STATUS_INVALID_ARGUMENT`;
/// `THRONG_STATUS_PARSE` for bytes that are not a snapshot of this library version, truncated
/// or damaged; `THRONG_STATUS_BUSY` while a step is in flight. On error nothing changes. A
/// handle made from a scenario file carries on with the scenario's scripted map changes from
/// the restored tick.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_restore(
    sim: *mut ThrongSim,
    bytes: *const u8,
    len: usize,
) -> ThrongStatus {
    guard(|| {
        let bytes = ptr::slice(bytes, len, "bytes")?;
        if bytes.is_empty() {
            return Err(Failure::new(
                ThrongStatus::Parse,
                "an empty snapshot (len 0)",
            ));
        }
        let mut state = handle::get_mut(sim)?.lock()?;
        state.sim.restore(bytes)?;
        let tick = state.sim.tick();
        if let Some(run) = &mut state.scenario {
            run.schedule = run.initial.clone();
            run.schedule.skip_to(tick);
        }
        Ok(())
    })
}

/// Makes a simulation from the snapshot in `bytes` (`len` bytes, written by
/// `throng_sim_snapshot`): the same state, planning on the engine's threads
/// (`throng_set_threads`; the same run on any count), without a scenario's scripted map
/// changes. `THRONG_STATUS_PARSE` for bytes that are not a snapshot of this library version,
/// truncated or damaged. On success `*out` is a new handle; free it with `throng_sim_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_from_snapshot(
    bytes: *const u8,
    len: usize,
    out: *mut *mut ThrongSim,
) -> ThrongStatus {
    guard(|| {
        let started = Instant::now();
        ptr::check_out(out, "out")?;
        let bytes = ptr::slice(bytes, len, "bytes")?;
        if bytes.is_empty() {
            return Err(Failure::new(
                ThrongStatus::Parse,
                "an empty snapshot (len 0)",
            ));
        }
        let sim = Simulation::from_snapshot(bytes)?;
        let state = SimState {
            sim,
            scenario: None,
            setup_s: started.elapsed().as_secs_f64(),
            pool: None,
        };
        publish(state, out)
    })
}
