//! Simulation handles: made from a grid and settings or from a scenario file, stepped tick by
//! tick (planning on the engine's threads), with each tick's events, the run's summary as JSON
//! and a state hash. Agents are added, driven and read in `sim_agents.rs`.

use std::ffi::c_char;
use std::sync::atomic::AtomicU64;
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use throng::report::RunJson;
use throng::scenario::{ChangeSchedule, Scenario};
use throng::sim::{SimConfig, Simulation, TickReport};

use crate::grid::ThrongGrid;
use crate::handle::{self, Handle};
use crate::nav::ThrongNav;
use crate::ptr;
use crate::status::{Failure, ThrongStatus, guard};

/// A simulation (opaque): a crowd on its own copy of a grid. Made by `throng_sim_new` or
/// `throng_sim_from_scenario`, freed by `throng_sim_free`.
pub struct ThrongSim {
    magic: AtomicU64,
    state: Mutex<SimState>,
}

impl Handle for ThrongSim {
    const NAME: &'static str = "simulation";
    const MAGIC: u64 = 0x7468_726f_6e67_534d; // "throngSM"
    fn magic(&self) -> &AtomicU64 {
        &self.magic
    }
}

/// What a simulation handle holds.
pub(crate) struct SimState {
    pub(crate) sim: Simulation,
    /// The scenario it was made from, with its scripted map changes still to come.
    scenario: Option<Box<(Scenario, ChangeSchedule)>>,
    /// Seconds spent making it (loading the map, placing the agents).
    setup_s: f64,
}

impl ThrongSim {
    /// The simulation, locked for the call.
    pub(crate) fn lock(&self) -> Result<MutexGuard<'_, SimState>, Failure> {
        self.state.lock().map_err(|_| handle::poisoned::<Self>())
    }
}

/// The events of one tick, as counts (written by `throng_sim_step` and
/// `throng_sim_step_with_actions`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ThrongTickEvents {
    /// The tick played (the first is 0).
    pub tick: u64,
    /// `throng_sim_state_hash` after the tick.
    pub state_hash: u64,
    /// Plans made.
    pub plans: u32,
    /// Plans that found no path.
    pub plans_failed: u32,
    /// Plan requests left for later ticks by the cap on plans per tick.
    pub plans_deferred: u32,
    /// Agents that took a step.
    pub moved: u32,
    /// Agents that wanted to step but waited for another agent.
    pub waiting: u32,
    /// Agents that reached their goal.
    pub goals_reached: u32,
    /// Live agents after the tick.
    pub agents: u32,
    /// Agents standing at their goal after the tick.
    pub at_goal: u32,
    /// Agents with no path to their goal after the tick.
    pub no_path: u32,
    /// Scripted map changes refused this tick (a scenario's change that could not apply).
    pub rejected: u32,
    /// 1 when the run has nothing left to do: a one-shot run (not lifelong) whose agents are
    /// all at their goal or without a path, with no scripted map change to come. `throng run`
    /// stops there.
    pub finished: u32,
    /// Reserved (0).
    pub reserved: u32,
    /// Wall time of the tick, milliseconds.
    pub wall_ms: f64,
}

impl SimState {
    /// Plays one tick (queuing the scenario's due map changes first), with `play`.
    pub(crate) fn play(
        &mut self,
        play: impl FnOnce(&mut Simulation) -> Result<TickReport, Failure>,
    ) -> Result<ThrongTickEvents, Failure> {
        if let Some(run) = &mut self.scenario {
            run.1.queue_due(&mut self.sim);
        }
        let report = play(&mut self.sim)?;
        let scripted_done = self.scenario.as_ref().is_none_or(|run| run.1.is_finished());
        let finished = !self.sim.config().lifelong
            && scripted_done
            && report.at_goal + report.no_path == report.agents;
        Ok(ThrongTickEvents {
            tick: report.tick,
            state_hash: report.state_hash,
            plans: report.plans,
            plans_failed: report.plans_failed,
            plans_deferred: report.plans_deferred,
            moved: report.moved,
            waiting: report.waiting,
            goals_reached: report.goals_reached,
            agents: report.agents,
            at_goal: report.at_goal,
            no_path: report.no_path,
            rejected: report.rejected.len() as u32,
            finished: u32::from(finished),
            reserved: 0,
            wall_ms: report.wall_ms,
        })
    }
}

fn publish(state: SimState, out: *mut *mut ThrongSim) -> Result<(), Failure> {
    let handle = handle::into_raw(ThrongSim {
        magic: AtomicU64::new(0),
        state: Mutex::new(state),
    });
    ptr::write(out, handle, "out")
}

/// The settings in `json`: a JSON object of the keys of a scenario file's `[sim]` table
/// (`{"planner": "jps", "conflicts": "pibt", "seed": 7}`), the rest default.
fn config_from_json(json: &str) -> Result<SimConfig, Failure> {
    let value: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| Failure::invalid(format!("config_json is not JSON: {e}")))?;
    let serde_json::Value::Object(fields) = value else {
        return Err(Failure::invalid("config_json is not a JSON object"));
    };
    let mut config = SimConfig::default();
    for (key, value) in fields {
        config
            .set(&key, value)
            .map_err(|e| Failure::from(e).context("config_json"))?;
    }
    Ok(config)
}

/// Makes a simulation with no agent on a copy of `grid` (the grid handle stays the caller's).
///
/// `config_json` (may be NULL for the defaults) is a JSON object of settings, the keys of a
/// scenario file's `[sim]` table plus `seed`: `{"planner": "jps", "conflicts": "pibt",
/// "lifelong": false, "max_plans_per_tick": 2000, "seed": 7}` (see docs/scenarios.md).
/// `nav` (may be NULL) is the grid's navigation graph, copied, for the `nav` and `auto`
/// planners: without it those planners build one here. On success `*out` is a new handle; free
/// it with `throng_sim_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_new(
    grid: *const ThrongGrid,
    nav: *const ThrongNav,
    config_json: *const c_char,
    out: *mut *mut ThrongSim,
) -> ThrongStatus {
    guard(|| {
        let started = Instant::now();
        ptr::check_out(out, "out")?;
        let grid = handle::get(grid)?.read()?.clone();
        let nav = if nav.is_null() {
            None
        } else {
            Some(handle::get(nav)?.nav.clone())
        };
        let config = if config_json.is_null() {
            SimConfig::default()
        } else {
            config_from_json(ptr::text(config_json, "config_json")?)?
        };
        // The simulation's own check, made first to name the parameter at fault.
        config
            .check(grid.neighborhood())
            .map_err(|e| Failure::invalid(format!("config_json: {e}")))?;
        let sim = match nav {
            Some(nav) => Simulation::with_nav_graph(grid, config, nav)?,
            None => Simulation::new(grid, config)?,
        };
        let state = SimState {
            sim,
            scenario: None,
            setup_s: started.elapsed().as_secs_f64(),
        };
        publish(state, out)
    })
}

/// Makes the simulation of a scenario file (`path`, UTF-8; the files of `sims/`): its map, its
/// settings and its agents placed, and its scripted map changes, which each step applies when
/// they come due. `*ticks` (may be NULL) is the number of ticks the scenario plays at most.
/// Stepping it `ticks` times, or until a step reports `finished`, is what `throng run` does,
/// and ends in the same state hash. The scenario's `threads` is not used: the simulation plans
/// on the engine's threads (`throng_set_threads`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_from_scenario(
    path: *const c_char,
    out: *mut *mut ThrongSim,
    ticks: *mut u64,
) -> ThrongStatus {
    guard(|| {
        let started = Instant::now();
        ptr::check_out(out, "out")?;
        let path = ptr::text(path, "path")?;
        let scenario = Scenario::load(path)?;
        let sim = scenario.build()?;
        let schedule = scenario.schedule(sim.grid())?;
        ptr::write_optional(ticks, scenario.ticks, "ticks")?;
        let state = SimState {
            sim,
            scenario: Some(Box::new((scenario, schedule))),
            setup_s: started.elapsed().as_secs_f64(),
        };
        publish(state, out)
    })
}

/// Frees a simulation handle. NULL does nothing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_free(sim: *mut ThrongSim) -> ThrongStatus {
    guard(|| handle::free(sim))
}

/// Plays one tick: the agents plan (in parallel on the engine's threads) and move. Writes the
/// tick's events to `*events` (may be NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_step(
    sim: *mut ThrongSim,
    events: *mut ThrongTickEvents,
) -> ThrongStatus {
    guard(|| {
        ptr::check_out_optional(events, "events")?;
        let mut state = handle::get_mut(sim)?.lock()?;
        let tick = state.play(|sim| Ok(sim.step()))?;
        ptr::write_optional(events, tick, "events")
    })
}

/// Writes the number of ticks played.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_tick(sim: *const ThrongSim, tick: *mut u64) -> ThrongStatus {
    guard(|| {
        let state = handle::get(sim)?.lock()?;
        ptr::write(tick, state.sim.tick(), "tick")
    })
}

/// Writes a hash of every live agent's id, cell and state: equal hashes mean equal crowds. The
/// same as `final_state_hash` in `throng run --json` after the same ticks.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_state_hash(
    sim: *const ThrongSim,
    hash: *mut u64,
) -> ThrongStatus {
    guard(|| {
        let state = handle::get(sim)?.lock()?;
        ptr::write(hash, state.sim.state_hash(), "hash")
    })
}

/// Writes the summary of the run so far as JSON (the object `throng run --json` prints: ticks,
/// plans, latency percentiles, arrivals, sum of costs, final state hash, ...) into `buffer`
/// (`capacity` bytes, NUL-terminated), and its length with the NUL into `*needed` (may be
/// NULL). A NULL or too small buffer gives `THRONG_STATUS_BUFFER_TOO_SMALL` after `*needed` is
/// written: call again with a buffer that size.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_summary_json(
    sim: *const ThrongSim,
    buffer: *mut c_char,
    capacity: usize,
    needed: *mut usize,
) -> ThrongStatus {
    guard(|| {
        let state = handle::get(sim)?.lock()?;
        let summary = state.sim.summary();
        let json = match &state.scenario {
            Some(run) => serde_json::to_string(&run.0.run_json(&summary, state.setup_s)),
            None => {
                let grid = state.sim.grid();
                let map = format!("{} x {} grid", grid.width(), grid.height());
                let config = *state.sim.config();
                serde_json::to_string(&RunJson::new(
                    "embedded",
                    "",
                    map,
                    &config,
                    &summary,
                    state.setup_s,
                ))
            }
        }
        .map_err(|e| Failure::invalid(format!("the summary cannot be written as JSON: {e}")))?;
        ptr::write_text(&json, buffer, capacity, needed)
    })
}
