//! A step that overlaps the caller's frame: `throng_sim_step_begin` hands the simulation to a
//! worker of its pool and returns at once; the game renders the tick before (read from a copy
//! of the agents taken at the start, so that reads never wait for the step); and
//! `throng_sim_step_finish` waits for the step and takes its events.
//!
//! While a step is in flight the handle holds no simulation: the reads listed at
//! `throng_sim_step_begin` answer from the copy, every other call on the handle gives
//! `THRONG_STATUS_BUSY`, and nothing can change the crowd under the step.

use std::panic::{AssertUnwindSafe, catch_unwind};

use std::sync::{Arc, Condvar, Mutex, PoisonError};

use crate::handle;
use crate::ptr;
use crate::sim::{SimState, ThrongSim, ThrongTickEvents};
use crate::status::{Failure, ThrongStatus, guard};

/// What a step in flight sends back: the simulation, and the tick's events or why it failed.
type Landing = (SimState, Result<ThrongTickEvents, Failure>);

/// Where a step in flight puts what it sends back (a lock and a condition variable, not a
/// channel: waiting on it makes no per-thread handle in the caller's thread).
#[derive(Default)]
struct Mailbox {
    landing: Mutex<Option<Landing>>,
    landed: Condvar,
}

impl Mailbox {
    fn put(&self, landing: Landing) {
        *self.landing.lock().unwrap_or_else(PoisonError::into_inner) = Some(landing);
        self.landed.notify_all();
    }

    fn has_landed(&self) -> bool {
        self.landing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    fn wait(&self) -> Landing {
        let mut slot = self.landing.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(landing) = slot.take() {
                return landing;
            }
            slot = self
                .landed
                .wait(slot)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A step in flight, and the agents as they stood when it began.
pub(crate) struct Flight {
    /// Where the step sends the simulation back; taken by the one call waiting for it.
    done: Option<Arc<Mailbox>>,
    /// Per live agent, in `throng_sim_read_agents` order: id, cell, state code.
    pub(crate) ids: Vec<u64>,
    pub(crate) cells: Vec<u32>,
    pub(crate) states: Vec<u8>,
    /// The tick count and state hash when the step began.
    pub(crate) tick: u64,
    pub(crate) hash: u64,
}

/// The failure of a call made while a step is in flight.
pub(crate) fn busy() -> Failure {
    Failure::new(
        ThrongStatus::Busy,
        "a step is in flight (throng_sim_step_begin): call throng_sim_step_finish first",
    )
}

/// Starts a tick on a worker of the simulation's pool (its own, or the engine's) and returns at
/// once. Until `throng_sim_step_finish` the handle answers only these calls: `throng_sim_read_agents`,
/// `throng_sim_agent_count`, `throng_sim_tick` and `throng_sim_state_hash` (the agents, tick
/// and hash as they were when the step began, so a render thread can read them while the step
/// runs), `throng_sim_step_ready` and `throng_sim_step_finish`; every other call gives
/// `THRONG_STATUS_BUSY`, as does a second begin. `throng_sim_free` may be called: it waits for
/// nothing and the step's result is dropped. The tick played is the one `throng_sim_step` would
/// play: the same run.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_step_begin(sim: *mut ThrongSim) -> ThrongStatus {
    guard(|| {
        let handle = handle::get_mut(sim)?;
        let mut inner = handle.lock_inner()?;
        if inner.flight.is_some() {
            return Err(busy());
        }
        let mut state = inner.state.take().ok_or_else(busy)?;
        let agents = state.sim.agents();
        let mut flight = Flight {
            done: None,
            ids: Vec::with_capacity(agents.len()),
            cells: Vec::with_capacity(agents.len()),
            states: Vec::with_capacity(agents.len()),
            tick: state.sim.tick(),
            hash: state.sim.state_hash(),
        };
        for (id, agent) in agents.iter() {
            flight.ids.push(id.to_bits());
            flight.cells.push(agent.position());
            flight.states.push(agent.state().code());
        }
        let mailbox = Arc::new(Mailbox::default());
        flight.done = Some(Arc::clone(&mailbox));
        let pool = state.pool.clone();
        let step = move || {
            let result = catch_unwind(AssertUnwindSafe(|| state.play(|sim| Ok(sim.step()))))
                .unwrap_or_else(|_| {
                    Err(Failure::new(
                        ThrongStatus::Panic,
                        "throng panicked in a step begun by throng_sim_step_begin (a bug, \
                         please report it)",
                    ))
                });
            // The handle may have been freed meanwhile: then the simulation is dropped with
            // the last reference to the mailbox, here.
            mailbox.put((state, result));
        };
        match pool {
            Some(pool) => pool.spawn(step),
            None => rayon::spawn(step),
        }
        inner.flight = Some(flight);
        Ok(())
    })
}

/// Writes 1 to `*ready` when the step begun by `throng_sim_step_begin` is done (so that
/// `throng_sim_step_finish` will not wait), 0 while it runs; 1 as well when no step is in
/// flight.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_step_ready(
    sim: *const ThrongSim,
    ready: *mut u8,
) -> ThrongStatus {
    guard(|| {
        ptr::check_out(ready, "ready")?;
        let inner = handle::get(sim)?.lock_inner()?;
        let done = match &inner.flight {
            // Taken: another call is waiting for it.
            Some(flight) => flight.done.as_ref().is_some_and(|m| m.has_landed()),
            None => true,
        };
        ptr::write(ready, u8::from(done), "ready")
    })
}

/// Waits for the step begun by `throng_sim_step_begin` and writes its events to `*events` (may
/// be NULL), as `throng_sim_step` would have; the handle then answers every call again. No step
/// in flight gives `THRONG_STATUS_INVALID_ARGUMENT`; a second thread finishing the same step
/// gives `THRONG_STATUS_BUSY`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_step_finish(
    sim: *mut ThrongSim,
    events: *mut ThrongTickEvents,
) -> ThrongStatus {
    guard(|| {
        ptr::check_out_optional(events, "events")?;
        let handle = handle::get_mut(sim)?;
        let mailbox = {
            let mut inner = handle.lock_inner()?;
            let flight = inner.flight.as_mut().ok_or_else(|| {
                Failure::invalid("no step in flight: throng_sim_step_begin first")
            })?;
            flight.done.take().ok_or_else(busy)?
        };
        // Wait without the handle's lock: reads of the copy go on meanwhile.
        let (state, result) = mailbox.wait();
        let mut inner = handle.lock_inner()?;
        inner.flight = None;
        let panicked = matches!(&result, Err(f) if f.status == ThrongStatus::Panic);
        if !panicked {
            inner.state = Some(state);
        }
        // After a panic the handle keeps no simulation: every later call is refused.
        inner.broken |= panicked;
        drop(inner);
        ptr::write_optional(events, result?, "events")
    })
}
