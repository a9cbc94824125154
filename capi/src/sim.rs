//! Simulation handles: made from a grid and settings or from a scenario file, stepped tick by
//! tick (planning on the engine's threads), with each tick's events, the run's summary as JSON
//! and a state hash. Agents are added, driven and read in `sim_agents.rs`.

use std::ffi::c_char;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};
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
    inner: Mutex<Inner>,
}

/// The simulation, or the step it is away in.
pub(crate) struct Inner {
    /// The simulation; `None` while a step begun by `throng_sim_step_begin` has it.
    pub(crate) state: Option<SimState>,
    /// While a step is in flight: the agents as they were when it began (what reads return
    /// then) and where the step sends the simulation back.
    pub(crate) flight: Option<crate::sim_frame::Flight>,
    /// A step begun by `throng_sim_step_begin` panicked: the simulation is gone.
    pub(crate) broken: bool,
}

/// The simulation of a handle, locked for one call (see [`ThrongSim::lock`]).
pub(crate) struct SimGuard<'a>(MutexGuard<'a, Inner>);

impl std::ops::Deref for SimGuard<'_> {
    type Target = SimState;
    fn deref(&self) -> &SimState {
        self.0.state.as_ref().expect("checked by ThrongSim::lock")
    }
}

impl std::ops::DerefMut for SimGuard<'_> {
    fn deref_mut(&mut self) -> &mut SimState {
        self.0.state.as_mut().expect("checked by ThrongSim::lock")
    }
}

impl Handle for ThrongSim {
    const NAME: &'static str = "simulation";
    const MAGIC: u64 = 0x7468_726f_6e67_534d; // "throngSM"
    fn magic(&self) -> &AtomicU64 {
        &self.magic
    }
}

/// A simulation's scenario: the file, its scripted map changes still to come, and the
/// schedule as it was made (a restored snapshot's schedule is made from it).
pub(crate) struct ScenarioRun {
    pub(crate) scenario: Scenario,
    pub(crate) schedule: ChangeSchedule,
    pub(crate) initial: ChangeSchedule,
}

/// What a simulation handle holds.
pub(crate) struct SimState {
    pub(crate) sim: Simulation,
    /// The scenario it was made from, with its scripted map changes still to come.
    pub(crate) scenario: Option<Box<ScenarioRun>>,
    /// Seconds spent making it (loading the map, placing the agents).
    pub(crate) setup_s: f64,
    /// Its own threads (the `threads` key of its settings), else the engine's pool.
    pub(crate) pool: Option<Arc<rayon::ThreadPool>>,
}

impl ThrongSim {
    /// The simulation, locked for the call; `THRONG_STATUS_BUSY` while a step is in flight.
    pub(crate) fn lock(&self) -> Result<SimGuard<'_>, Failure> {
        let inner = self.lock_inner()?;
        if inner.state.is_none() {
            return Err(crate::sim_frame::busy());
        }
        Ok(SimGuard(inner))
    }

    /// The handle's state, a step in flight included.
    pub(crate) fn lock_inner(&self) -> Result<MutexGuard<'_, Inner>, Failure> {
        let inner = self.inner.lock().map_err(|_| handle::poisoned::<Self>())?;
        if inner.broken {
            return Err(handle::poisoned::<Self>());
        }
        Ok(inner)
    }

    /// A read that is legal while a step is in flight: `now` of the simulation, or `before` of
    /// the copy taken when the step began.
    pub(crate) fn read<R>(
        &self,
        now: impl FnOnce(&SimState) -> Result<R, Failure>,
        before: impl FnOnce(&crate::sim_frame::Flight) -> Result<R, Failure>,
    ) -> Result<R, Failure> {
        let inner = self.lock_inner()?;
        match (&inner.state, &inner.flight) {
            (Some(state), _) => now(state),
            (None, Some(flight)) => before(flight),
            (None, None) => Err(crate::sim_frame::busy()),
        }
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
        play: impl FnOnce(&mut Simulation) -> Result<TickReport, Failure> + Send,
    ) -> Result<ThrongTickEvents, Failure> {
        if let Some(run) = &mut self.scenario {
            run.schedule.queue_due(&mut self.sim);
        }
        let report = match self.pool.take() {
            Some(pool) => {
                let report = pool.install(|| play(&mut self.sim));
                self.pool = Some(pool);
                report?
            }
            None => play(&mut self.sim)?,
        };
        let scripted_done = self
            .scenario
            .as_ref()
            .is_none_or(|run| run.schedule.is_finished());
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

pub(crate) fn publish(state: SimState, out: *mut *mut ThrongSim) -> Result<(), Failure> {
    let handle = handle::into_raw(ThrongSim {
        magic: AtomicU64::new(0),
        inner: Mutex::new(Inner {
            state: Some(state),
            flight: None,
            broken: false,
        }),
    });
    ptr::write(out, handle, "out")
}

/// Most threads of a simulation's own pool.
const MAX_THREADS: u64 = 1024;

/// The settings in `json`: a JSON object of the keys of a scenario file's `[sim]` table
/// (`{"planner": "jps", "conflicts": "pibt", "seed": 7}`), the rest default; and the
/// simulation's own thread count (`"threads"`, 1 to 1024), if given.
fn config_from_json(json: &str) -> Result<(SimConfig, Option<usize>), Failure> {
    let value: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| Failure::invalid(format!("config_json is not JSON: {e}")))?;
    let serde_json::Value::Object(fields) = value else {
        return Err(Failure::invalid("config_json is not a JSON object"));
    };
    let mut config = SimConfig::default();
    let mut threads = None;
    for (key, value) in fields {
        if key == "threads" {
            let n = value.as_u64().filter(|n| (1..=MAX_THREADS).contains(n));
            let n = n.ok_or_else(|| {
                Failure::invalid(format!(
                    "config_json: threads: {value} is not a whole number from 1 to {MAX_THREADS}"
                ))
            })?;
            threads = Some(n as usize);
            continue;
        }
        config
            .set(&key, value)
            .map_err(|e| Failure::from(e).context("config_json"))?;
    }
    Ok((config, threads))
}

/// A pool of `threads` threads for one simulation.
fn own_pool(threads: Option<usize>) -> Result<Option<Arc<rayon::ThreadPool>>, Failure> {
    threads
        .map(|n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("throng-sim-{i}"))
                .build()
                .map(Arc::new)
                .map_err(|e| Failure::invalid(format!("config_json: threads: {e}")))
        })
        .transpose()
}

/// Makes a simulation with no agent on a copy of `grid` (the grid handle stays the caller's).
///
/// `config_json` (may be NULL for the defaults) is a JSON object of settings, the keys of a
/// scenario file's `[sim]` table plus `seed`: `{"planner": "jps", "conflicts": "pibt",
/// "lifelong": false, "max_plans_per_tick": 2000, "seed": 7}` (see docs/scenarios.md), and
/// `"threads"` (1 to 1024): the simulation's own pool of that many threads, which its steps plan
/// on instead of the engine's (`throng_set_threads`); the same run on any count.
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
        let (config, threads) = if config_json.is_null() {
            (SimConfig::default(), None)
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
            pool: own_pool(threads)?,
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
            scenario: Some(Box::new(ScenarioRun {
                scenario,
                initial: schedule.clone(),
                schedule,
            })),
            setup_s: started.elapsed().as_secs_f64(),
            pool: None,
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
        let now = handle::get(sim)?.read(|s| Ok(s.sim.tick()), |f| Ok(f.tick))?;
        ptr::write(tick, now, "tick")
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
        let now = handle::get(sim)?.read(|s| Ok(s.sim.state_hash()), |f| Ok(f.hash))?;
        ptr::write(hash, now, "hash")
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
            Some(run) => serde_json::to_string(&run.scenario.run_json(&summary, state.setup_s)),
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
