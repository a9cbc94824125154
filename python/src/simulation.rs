//! `throng.Simulation`: a crowd built from a scenario file or from arrays, played tick by tick,
//! with agents driven from Python (`step(actions=...)`).
//!
//! Agent ids are Python ints, `generation << 32 | index` (the Rust `AgentId::to_bits`): stable
//! for an agent's life, never reused for another agent. Every per-agent array (`ids()`,
//! `positions()`, `goals()`, `states()`, `controlled()`, the actions and their outcomes) lists
//! the live agents in the same order, slot order.

use std::sync::Arc;

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use throng_core::grid::CellChange;
use throng_core::grid::{CellId, NO_CELL};
use throng_core::report::RunJson;
use throng_core::scenario::{ChangeSchedule, Scenario};
use throng_core::sim::{ActionOutcome, AgentAction, AgentId, SimConfig, SnapshotError, TickReport};

use crate::grid::Grid;
use crate::tick_dicts::{events_dict, report_dict};
use crate::{
    MAX_THREADS, cells, cells_checked, pool, py_to_json, to_dict, to_py, whole, whole_opt,
};

/// `throng.STATES`: the name of each state code of `Simulation.states()`.
pub(crate) const STATES: (&str, &str, &str, &str, &str, &str) = (
    "idle", "planning", "moving", "waiting", "arrived", "no_path",
);

/// The names of the event kinds, by code (`throng.EVENT_KINDS[code]`; code 0 is unused).
pub(crate) const EVENT_KINDS: [&str; 10] = [
    "",
    "added",
    "removed",
    "goal_set",
    "path_found",
    "no_path",
    "blocked",
    "moved",
    "arrived",
    "cell_changed",
];

/// `throng.ACTIONS`: the name of each action code of `Simulation.step(actions=...)`.
pub(crate) const ACTIONS: (&str, &str, &str, &str, &str, &str, &str, &str, &str) = (
    "wait",
    "up",
    "down",
    "left",
    "right",
    "up_left",
    "up_right",
    "down_left",
    "down_right",
);

/// `throng.OUTCOMES`: the name of each code of a step's `action_outcomes` (-1: no action).
pub(crate) const OUTCOMES: (&str, &str, &str, &str) = ("moved", "waited", "illegal", "blocked");

/// Where the simulation came from (for `summary()` and `run()`'s default length).
enum Source {
    Scenario(Box<Scenario>),
    Arrays,
}

/// The keyword arguments of `Simulation(grid, starts, goals, **options)`: the simulation's
/// own (`seed`, `threads`, `conflicts`, `planner`, `lifelong`, `controlled`, with their
/// defaults), the rest keys of a scenario file's `[sim]` table.
struct Options {
    threads: usize,
    controlled: bool,
    config: SimConfig,
}

impl Options {
    fn read(py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Options> {
        let mut config = SimConfig {
            seed: 0,
            lifelong: false,
            conflicts: "pibt".parse().map_err(to_py)?,
            planner: "jps".parse().map_err(to_py)?,
            ..SimConfig::default()
        };
        let (mut threads, mut controlled) = (1, false);
        let mut rest = Vec::new();
        for (key, value) in options.into_iter().flat_map(|o| o.iter()) {
            let key: String = key.extract()?;
            let wrong =
                |e: PyErr| PyTypeError::new_err(format!("argument '{key}': {}", e.value(py)));
            match key.as_str() {
                "seed" => config.seed = whole(&value, "seed", u64::MAX)?,
                "threads" => threads = whole(&value, "threads", MAX_THREADS)? as usize,
                "conflicts" => {
                    let name: String = value.extract().map_err(wrong)?;
                    config.conflicts = name.parse().map_err(to_py)?;
                }
                "planner" => {
                    let name: String = value.extract().map_err(wrong)?;
                    config.planner = name.parse().map_err(to_py)?;
                }
                "lifelong" => config.lifelong = value.extract().map_err(wrong)?,
                "controlled" => controlled = value.extract().map_err(wrong)?,
                _ => rest.push((key, value)),
            }
        }
        // One thread: plan on the calling thread (unless `parallel` says otherwise); the same
        // plans.
        config.parallel = threads != 1;
        for (key, value) in rest {
            let value = py_to_json(py, &key, &value)?;
            config.set(&key, value).map_err(to_py)?;
        }
        Ok(Options {
            threads,
            controlled,
            config,
        })
    }
}

/// A crowd on a grid, played tick by tick on its own pool of worker threads: built from a
/// scenario file (`Simulation.from_scenario`) or from a grid and arrays of starts and goals.
///
/// `Simulation(grid, starts, goals=None, *, seed=0, threads=1, conflicts="pibt",
/// planner="jps", lifelong=False, controlled=False, **config)`: `starts` and `goals` are
/// integer arrays of shape (k, 2), x then y (`goals=None`: agents without goals, idle until
/// given one); `conflicts` is "pibt", "avoid" or "off"; `planner` "astar", "jps", "jps+",
/// "nav", "auto" or "dstar"; `lifelong` gives arrived agents new goals; `controlled=True` makes every
/// agent driven from Python (see `step`). `config` takes the other keys of a scenario file's
/// `[sim]` table (`max_plans_per_tick`, `node_budget`, `replan_after_waits`, `avoid_radius`,
/// `detours`, `drift_replan`, `parallel`, `dstar_max_bytes`, `action_model`,
/// `swap_needs_room`, `resolve_stuck`). The grid's `neighbourhood` (4 or 8) sets the moves. Raises ValueError
/// naming the row, key or value at fault.
#[pyclass(module = "throng")]
pub(crate) struct Simulation {
    source: Source,
    pub(crate) sim: throng_core::sim::Simulation,
    schedule: ChangeSchedule,
    pool: rayon::ThreadPool,
    /// One thread and `parallel = false`: ticks run on the calling thread, not handed to the
    /// pool's thread (saves the hand-over, about 10 µs a call; the same run either way).
    direct: bool,
    setup_s: f64,
    /// The current grid as handed to Python, made on demand and dropped when the map changes.
    grid: Option<Arc<throng_core::grid::Grid>>,
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(
        signature = (grid, starts, goals = None, **options),
        text_signature = "(grid, starts, goals=None, *, seed=0, threads=1, conflicts='pibt', \
                          planner='jps', lifelong=False, controlled=False, **config)"
    )]
    fn new(
        py: Python<'_>,
        grid: &Grid,
        starts: &Bound<'_, PyAny>,
        goals: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Simulation> {
        let t0 = std::time::Instant::now();
        let options = Options::read(py, options)?;
        let (threads, controlled, cfg) = (options.threads, options.controlled, options.config);
        let g = grid.grid.clone();
        let starts = cells(py, &g, "starts", starts)?;
        let goals = match goals.filter(|g| !g.is_none()) {
            None => vec![None; starts.len()],
            Some(goals) => {
                let goals = cells(py, &g, "goals", goals)?;
                if goals.len() != starts.len() {
                    return Err(PyValueError::new_err(format!(
                        "starts has {} rows but goals has {}",
                        starts.len(),
                        goals.len()
                    )));
                }
                goals.into_iter().map(Some).collect()
            }
        };
        let sim = py.detach(|| {
            let mut sim =
                throng_core::sim::Simulation::new((*g).clone(), cfg).map_err(|e| e.to_string())?;
            for (row, (&start, &goal)) in starts.iter().zip(&goals).enumerate() {
                let added = if controlled {
                    sim.add_controlled_agent(start, goal)
                } else {
                    sim.add_agent(start, goal)
                };
                added.map_err(|e| format!("starts row {row}: {e}"))?;
            }
            Ok::<_, String>(sim)
        });
        let sim = sim.map_err(PyValueError::new_err)?;
        let pool = pool(threads)?;
        Ok(Simulation {
            source: Source::Arrays,
            direct: direct(&pool, &sim),
            sim,
            schedule: ChangeSchedule::new(Vec::new()),
            pool,
            setup_s: t0.elapsed().as_secs_f64(),
            grid: Some(g),
        })
    }

    /// Builds the scenario in the file `path`; `seed` and `threads` override the file's (threads
    /// 0 means all cores), and so does any other keyword: `agents`, `ticks`, `neighbourhood` or
    /// a key of the file's `[sim]` table (`conflicts="avoid"`, `node_budget=None`, ...), with
    /// the file's checks (`throng run --set` does the same). Raises OSError or ValueError with
    /// the Rust message (an unknown key or a bad value names the key).
    #[staticmethod]
    #[pyo3(signature = (path, seed = None, threads = None, **overrides))]
    fn from_scenario(
        py: Python<'_>,
        path: std::path::PathBuf,
        seed: Option<&Bound<'_, PyAny>>,
        threads: Option<&Bound<'_, PyAny>>,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Simulation> {
        let seed = whole_opt(seed, "seed", u64::MAX)?;
        let threads = whole_opt(threads, "threads", MAX_THREADS)?.map(|t| t as usize);
        let mut scenario = Scenario::load(&path).map_err(to_py)?;
        let mut parallel_set = false;
        if let Some(overrides) = overrides {
            for (key, value) in overrides.iter() {
                let key: String = key.extract()?;
                let value = py_to_json(py, &format!("override {key}"), &value)?;
                scenario.set(&key, value).map_err(to_py)?;
                parallel_set |= matches!(key.as_str(), "parallel" | "sim.parallel");
            }
        }
        if let Some(seed) = seed {
            scenario.seed = seed;
        }
        if let Some(threads) = threads {
            scenario.threads = threads;
        }
        if scenario.threads == 1 && !parallel_set {
            // Plan on the calling thread: the same plans (see `SimConfig::parallel`).
            scenario.sim.parallel = false;
        }
        let t0 = std::time::Instant::now();
        let (sim, schedule) = py
            .detach(|| {
                let sim = scenario.build()?;
                let schedule = scenario.schedule(sim.grid())?;
                Ok((sim, schedule))
            })
            .map_err(to_py)?;
        let setup_s = t0.elapsed().as_secs_f64();
        let pool = pool(scenario.threads)?;
        Ok(Simulation {
            source: Source::Scenario(Box::new(scenario)),
            direct: direct(&pool, &sim),
            sim,
            schedule,
            pool,
            setup_s,
            grid: None,
        })
    }

    /// Plays one tick (with the scripted map changes due) and returns its report as a dict:
    /// the fields of the Rust `TickReport` (`tick`, `moved`, `waiting`, `goals_reached`,
    /// `at_goal`, `plans`, `state_hash`, times in ms, ...; `added` as agent ids), and
    /// `arrivals`: an int64 array of the ids of the agents that came to stand on their goal
    /// this tick, from the tick's events (each arrival, a step back onto a goal an agent had
    /// left included; `goals_reached` counts the new goals only).
    ///
    /// `actions` moves chosen agents this tick: None, a dict `{id: code}`, or an int array of
    /// shape (n,) aligned with `ids()` where -1 means no action for that agent. Codes
    /// (`throng.ACTIONS`): 0 wait, 1 up (y - 1), 2 down (y + 1), 3 left (x - 1), 4 right
    /// (x + 1), 5 up-left, 6 up-right, 7 down-left, 8 down-right. A controlled agent stays
    /// unless given a move; an action given to any other agent replaces its route's step for
    /// this tick (it then rejoins its route, or replans when it has been moved far off it).
    /// Moves follow the engine's rules in every conflict mode: inside the grid, onto a passable
    /// cell, a move of the grid's neighbourhood, no corner cutting; with conflicts "pibt" or
    /// "avoid", never two agents in a cell, no swaps, no diagonal crossings (with "off" agents
    /// pass through each other by design). An illegal or losing move becomes a wait.
    ///
    /// With `actions` (even empty), the dict also has `"action_outcomes"`: an int8 array aligned
    /// with `ids()` as they were before the tick: -1 no action given, 0 moved, 1 waited as
    /// asked, 2 illegal, 3 blocked (`throng.OUTCOMES`). Raises ValueError naming the entry for a
    /// bad code, shape, dtype or agent id (nothing is played then).
    #[pyo3(signature = (actions = None))]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Some(actions) = actions.filter(|a| !a.is_none()) else {
            let report = py.detach(|| {
                self.schedule.queue_due(&mut self.sim);
                self.on_pool(|sim| sim.step())
            });
            self.map_may_have_changed();
            let dict = report_dict(py, &report)?;
            self.put_arrivals(py, &dict)?;
            return Ok(dict.into_any());
        };
        let order = self.live_ids();
        let given = self.parse_actions(py, actions, &order)?;
        let list: Vec<(AgentId, AgentAction)> = given.iter().map(|&(_, id, a)| (id, a)).collect();
        let (report, outcomes) = self.play_actions(py, &list)?;
        let mut codes = vec![-1i8; order.len()];
        for (&(k, _, _), outcome) in given.iter().zip(&outcomes) {
            codes[k] = outcome.code();
        }
        let dict = report_dict(py, &report)?;
        self.put_arrivals(py, &dict)?;
        dict.set_item(intern!(py, "action_outcomes"), codes.into_pyarray(py))?;
        Ok(dict.into_any())
    }

    /// Plays up to `ticks` ticks (default: the scenario's `ticks`; required for a simulation
    /// built from arrays; a one-shot run stops early once every agent is at its goal or has no
    /// path and no map change is left, or is proved unsolvable, as `throng run` does) and
    /// returns `summary()`.
    /// Controlled agents stay put (use `step(actions=...)` to move them).
    #[pyo3(signature = (ticks = None))]
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        ticks: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ticks = whole_opt(ticks, "ticks", u64::MAX)?;
        let ticks = match (ticks, &self.source) {
            (Some(t), _) => t,
            (None, Source::Scenario(s)) => s.ticks,
            (None, Source::Arrays) => {
                return Err(PyValueError::new_err(
                    "run() of a simulation built from arrays needs ticks",
                ));
            }
        };
        let lifelong = self.sim.config().lifelong;
        py.detach(|| {
            for _ in 0..ticks {
                self.schedule.queue_due(&mut self.sim);
                let report = self.on_pool(|sim| sim.step());
                if !lifelong
                    && self.schedule.is_finished()
                    && (report.at_goal + report.no_path == report.agents || report.unsolvable)
                {
                    break;
                }
            }
        });
        self.map_may_have_changed();
        self.summary(py)
    }

    /// The run so far as a dict with the keys of `throng run --json` (a simulation built from
    /// arrays is named "python", its map "grid W x H").
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let summary = self.pool.install(|| self.sim.summary());
        match &self.source {
            Source::Scenario(scenario) => to_dict(py, &scenario.run_json(&summary, self.setup_s)),
            Source::Arrays => {
                let config = self.sim.config();
                let grid = self.sim.grid();
                to_dict(
                    py,
                    &RunJson::new(
                        "python",
                        "",
                        format!("grid {} x {}", grid.width(), grid.height()),
                        config,
                        &summary,
                        self.setup_s,
                    ),
                )
            }
        }
    }

    /// The hash of every agent's slot, position and state, as in `throng run`'s
    /// `final_state_hash`.
    fn state_hash(&self) -> u64 {
        self.sim.state_hash()
    }

    /// The whole state as bytes: `restore` or `from_snapshot` of them plays on exactly as this
    /// simulation would (same state hash and events every tick). Read by this version only.
    fn snapshot<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.sim.snapshot())
    }

    /// Replaces the whole state with `snapshot` (a rollback), whose map must have this map's
    /// size and moves; a scenario's scripted map changes carry on from the restored tick.
    /// Raises ValueError for damaged, foreign or other-version bytes; nothing changes then.
    fn restore(&mut self, snapshot: &[u8]) -> PyResult<()> {
        let mut schedule = match &self.source {
            Source::Scenario(s) => s.schedule(&s.load_grid().map_err(to_py)?).map_err(to_py)?,
            Source::Arrays => ChangeSchedule::new(Vec::new()),
        };
        let snap = |e: SnapshotError| PyValueError::new_err(e.to_string());
        self.sim.restore(snapshot).map_err(snap)?;
        schedule.skip_to(self.sim.tick());
        (self.schedule, self.grid) = (schedule, None);
        Ok(())
    }

    /// A simulation from `snapshot` (bytes of `snapshot()`) on `threads` threads (1 by
    /// default; the same run on any count), without a scenario's scripted map changes.
    #[staticmethod]
    #[pyo3(signature = (snapshot, threads = None))]
    fn from_snapshot(snapshot: &[u8], threads: Option<&Bound<'_, PyAny>>) -> PyResult<Simulation> {
        let threads = whole_opt(threads, "threads", MAX_THREADS)?.map_or(1, |t| t as usize);
        let sim = throng_core::sim::Simulation::from_snapshot(snapshot)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let pool = pool(threads)?;
        let (direct, schedule) = (direct(&pool, &sim), ChangeSchedule::new(Vec::new()));
        let (source, setup_s, grid) = (Source::Arrays, 0.0, None);
        Ok(Simulation {
            source,
            direct,
            sim,
            schedule,
            pool,
            setup_s,
            grid,
        })
    }

    /// The ticks played.
    #[getter]
    fn tick(&self) -> u64 {
        self.sim.tick()
    }

    /// The number of live agents.
    fn __len__(&self) -> usize {
        self.sim.agents().len()
    }

    /// The current grid (a new `Grid` after each change of the map).
    #[getter]
    fn grid(&mut self) -> Grid {
        let grid = self
            .grid
            .get_or_insert_with(|| Arc::new(self.sim.grid().clone()))
            .clone();
        Grid { grid }
    }

    /// The live agents' ids, an int64 array of shape (n,) in agent order (slot order): each
    /// `generation << 32 | index`, stable for the agent's life.
    fn ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let ids: Vec<i64> = self
            .sim
            .agents()
            .iter()
            .map(|(id, _)| id.to_bits() as i64)
            .collect();
        ids.into_pyarray(py)
    }

    /// The agents' positions, an int32 array of shape (n, 2) of x, y in agent order, read in
    /// one pass over the engine's flat array of positions.
    fn positions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i32>> {
        let width = self.sim.grid().width();
        let slots = self.sim.slot_positions();
        let mut xy = Vec::with_capacity(2 * self.sim.agents().len());
        for &cell in slots {
            if cell != NO_CELL {
                xy.push((cell % width) as i32);
                xy.push((cell / width) as i32);
            }
        }
        let n = xy.len() / 2;
        Array2::from_shape_vec((n, 2), xy)
            .expect("two numbers per agent")
            .into_pyarray(py)
    }

    /// The agents' goals, an int32 array of shape (n, 2) of x, y (-1, -1 for an agent without
    /// a goal), in agent order.
    fn goals<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i32>> {
        let grid = self.sim.grid();
        let agents = self.sim.agents();
        let mut xy = Array2::<i32>::from_elem((agents.len(), 2), -1);
        for (i, (_, agent)) in agents.iter().enumerate() {
            if let Some(c) = agent.goal() {
                let (x, y) = grid.coords(c);
                xy[(i, 0)] = x as i32;
                xy[(i, 1)] = y as i32;
            }
        }
        xy.into_pyarray(py)
    }

    /// The agents' states, a uint8 array of shape (n,) in agent order: 0 idle (no goal),
    /// 1 planning, 2 moving, 3 waiting, 4 arrived, 5 no_path (`throng.STATES`). A controlled
    /// agent with a goal is moving, or waiting after a tick it did not move, until it arrives.
    fn states<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        let states: Vec<u8> = self
            .sim
            .agents()
            .iter()
            .map(|(_, a)| a.state().code())
            .collect();
        states.into_pyarray(py)
    }

    /// Each agent's next cell on its route, an int32 array of shape (n, 2) of x, y in agent
    /// order; (-1, -1) when it has none (idle, planning, arrived, without a path, controlled).
    fn next_cells<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i32>> {
        let grid = self.sim.grid();
        let agents = self.sim.agents();
        let mut xy = Array2::<i32>::from_elem((agents.len(), 2), -1);
        for (i, (_, agent)) in agents.iter().enumerate() {
            if let Some(c) = agent.remaining_path().next() {
                let (x, y) = grid.coords(c);
                (xy[(i, 0)], xy[(i, 1)]) = (x as i32, y as i32);
            }
        }
        xy.into_pyarray(py)
    }

    /// The cells ahead on an agent's route, an int32 array of shape (k, 2) of x, y, next cell
    /// first and its goal last (k = 0 when it is not on its way). Raises ValueError for an id
    /// that names no live agent.
    fn route<'py>(
        &self,
        py: Python<'py>,
        id: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyArray2<i32>>> {
        let id = self.agent_id(id, "id")?;
        let grid = self.sim.grid();
        let route = self.sim.agent(id).expect("checked").remaining_path();
        let len = route.len();
        let xy = route.flat_map(|c| {
            let (x, y) = grid.coords(c);
            [x as i32, y as i32]
        });
        Ok(Array2::from_shape_vec((len, 2), xy.collect())
            .expect("two numbers per cell")
            .into_pyarray(py))
    }

    /// The last tick's events, and the calls made before it (agents added and removed, goals,
    /// map edits), as a dict of arrays of one length, grouped by kind (added, removed, goals,
    /// map edits, plans, moves, arrivals): `agent` (int64 id, -1 for a map edit), `kind`
    /// (uint8, named by `throng.EVENT_KINDS`), `x` and `y` (int32, the cell the kind names, -1
    /// for none: see docs/python.md) and `detail` (uint8: a plan's reason, 1 for an arrival
    /// that counts, a map edit's walkable flag). The same list as the C ABI's
    /// `throng_sim_read_events`.
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        events_dict(py, &self.sim)
    }

    /// Whether each agent is driven from Python, a bool array of shape (n,) in agent order.
    fn controlled<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let flags: Vec<bool> = self
            .sim
            .agents()
            .iter()
            .map(|(_, a)| a.is_controlled())
            .collect();
        flags.into_pyarray(py)
    }

    /// Adds an agent now at `start` ((x, y)), with an optional goal, driven from Python when
    /// `controlled`; returns its id. Raises ValueError for a cell outside the grid or blocked,
    /// or a start another agent stands on (conflicts "pibt" and "avoid").
    #[pyo3(signature = (start, goal = None, controlled = false))]
    fn add_agent(
        &mut self,
        start: &Bound<'_, PyAny>,
        goal: Option<&Bound<'_, PyAny>>,
        controlled: bool,
    ) -> PyResult<i64> {
        let start = self.cell(start, "start")?;
        let goal = match goal.filter(|g| !g.is_none()) {
            Some(g) => Some(self.cell(g, "goal")?),
            None => None,
        };
        let id = if controlled {
            self.sim.add_controlled_agent(start, goal)
        } else {
            self.sim.add_agent(start, goal)
        }
        .map_err(to_py)?;
        Ok(id.to_bits() as i64)
    }

    /// Removes an agent now. Raises ValueError for an id that names no live agent.
    fn remove_agent(&mut self, id: &Bound<'_, PyAny>) -> PyResult<()> {
        let id = self.agent_id(id, "id")?;
        self.sim.remove_agent(id).map_err(to_py)
    }

    /// Gives an agent a new goal ((x, y)) now; it plans in the next tick (a controlled agent
    /// does not plan: it is on its way). `None` clears its goal: it drops its route and stands,
    /// idle, until given one. Raises ValueError for a stale id or a goal outside the grid or
    /// blocked.
    fn set_goal(&mut self, id: &Bound<'_, PyAny>, goal: &Bound<'_, PyAny>) -> PyResult<()> {
        let id = self.agent_id(id, "id")?;
        if goal.is_none() {
            return self.sim.clear_goal(id).map_err(to_py);
        }
        let goal = self.cell(goal, "goal")?;
        self.sim.set_goal(id, goal).map_err(to_py)
    }

    /// Sets an agent's priority class in conflicts (0, the default, to 255), now: where
    /// agents contend for a cell a higher class goes first (see docs/python.md).
    fn set_priority(&mut self, id: &Bound<'_, PyAny>, priority: u8) -> PyResult<()> {
        let id = self.agent_id(id, "id")?;
        self.sim.set_priority(id, priority).map_err(to_py)
    }

    /// Sets an agent's own planner by name (`plan()`'s names), or the simulation's with None;
    /// an agent on its way plans again with it. ValueError for an unknown name.
    fn set_planner(&mut self, id: &Bound<'_, PyAny>, planner: Option<&str>) -> PyResult<()> {
        let id = self.agent_id(id, "id")?;
        let planner = planner
            .map(str::parse::<throng_core::planner::PlannerKind>)
            .transpose()
            .map_err(to_py)?;
        self.sim.set_planner(id, planner).map_err(to_py)
    }

    /// Makes the agents `ids` (an int or an iterable of ints) driven from Python (`flag`
    /// True) or planned by the engine again (False), now. A controlled agent never plans and
    /// stays unless `step(actions=...)` moves it; released, an agent with a goal plans from
    /// where it stands. Raises ValueError (changing nothing) if an id names no live agent.
    fn set_controlled(&mut self, ids: &Bound<'_, PyAny>, flag: bool) -> PyResult<()> {
        let ids: Vec<AgentId> = if ids.extract::<i64>().is_ok() {
            vec![self.agent_id(ids, "ids")?]
        } else {
            let items = ids.try_iter().map_err(|_| {
                PyValueError::new_err("ids must be an agent id (int) or an iterable of ids")
            })?;
            let mut out = Vec::new();
            for (k, item) in items.enumerate() {
                out.push(self.agent_id(&item?, &format!("ids[{k}]"))?);
            }
            out
        };
        for id in ids {
            self.sim.set_controlled(id, flag).map_err(to_py)?;
        }
        Ok(())
    }

    /// Opens or blocks cells now: `cells` an int array of shape (k, 2) (x, y), `passable` a
    /// bool array of shape (k,). Agents whose route crosses a newly blocked cell replan
    /// (controlled agents have no route). A cell an agent stands on cannot be blocked: the
    /// engine refuses such a change whole (ValueError naming the cell and agent, nothing
    /// changed), as it refuses cells outside the grid.
    fn change_map(
        &mut self,
        py: Python<'_>,
        cells: &Bound<'_, PyAny>,
        passable: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let targets = cells_checked(py, self.sim.grid(), "cells", cells, false)?;
        let np = py.import("numpy")?;
        let arr = np.call_method1("asarray", (passable,))?;
        let bad = || {
            PyValueError::new_err(format!(
                "passable must be a bool array of shape ({},)",
                targets.len()
            ))
        };
        let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
        if kind != "b" {
            return Err(bad());
        }
        let arr: PyReadonlyArray1<'_, bool> = arr.extract().map_err(|_| bad())?;
        if arr.len() != targets.len() {
            return Err(bad());
        }
        let changes: Vec<CellChange> = targets
            .iter()
            .zip(arr.as_array().iter())
            .map(|(&cell, &walkable)| CellChange::SetWalkable { cell, walkable })
            .collect();
        self.sim.change_map(&changes).map_err(to_py)?;
        self.grid = None;
        Ok(())
    }

    fn __repr__(&self) -> String {
        let grid = self.sim.grid();
        format!(
            "Simulation(agents={}, tick={}, grid={} x {}, conflicts={})",
            self.sim.agents().len(),
            self.sim.tick(),
            grid.width(),
            grid.height(),
            self.sim.config().conflicts
        )
    }
}

/// Whether ticks can run on the calling thread (see [`Simulation::direct`]).
fn direct(pool: &rayon::ThreadPool, sim: &throng_core::sim::Simulation) -> bool {
    pool.current_num_threads() == 1 && !sim.config().parallel
}

impl Simulation {
    /// The engine's simulation (read-only: for `env_step`'s observations).
    pub(crate) fn core(&self) -> &throng_core::sim::Simulation {
        &self.sim
    }

    /// Plays one tick with `actions` (and the scripted map changes due), without the GIL:
    /// the report and each action's outcome, in the order given.
    pub(crate) fn play_actions(
        &mut self,
        py: Python<'_>,
        actions: &[(AgentId, AgentAction)],
    ) -> PyResult<(TickReport, Vec<ActionOutcome>)> {
        let played = py
            .detach(|| {
                self.schedule.queue_due(&mut self.sim);
                self.on_pool(|sim| sim.step_with_actions(actions))
            })
            .map_err(to_py)?;
        self.map_may_have_changed();
        Ok(played)
    }

    /// Runs `f` on the simulation inside its pool (or on this thread when that is the same).
    fn on_pool<R: Send>(
        &mut self,
        f: impl FnOnce(&mut throng_core::sim::Simulation) -> R + Send,
    ) -> R {
        let sim = &mut self.sim;
        if self.direct {
            f(sim)
        } else {
            self.pool.install(|| f(sim))
        }
    }

    /// Sets `arrivals` of a step's dict: the ids of the agents the last tick's events say
    /// arrived at their goal.
    fn put_arrivals(&self, py: Python<'_>, dict: &Bound<'_, PyDict>) -> PyResult<()> {
        let ids: Vec<i64> = self
            .sim
            .last_events()
            .arrivals()
            .iter()
            .map(|a| a.agent.to_bits() as i64)
            .collect();
        dict.set_item(intern!(py, "arrivals"), ids.into_pyarray(py))
    }

    /// Scripted map changes may have been applied: forget the grid handed out.
    fn map_may_have_changed(&mut self) {
        if !self.schedule.entries().is_empty() {
            self.grid = None;
        }
    }

    /// The live agents' ids in slot order (the order of every per-agent array).
    fn live_ids(&self) -> Vec<AgentId> {
        let agents = self.sim.agents();
        let mut ids = Vec::with_capacity(agents.len());
        for (slot, &cell) in self.sim.slot_positions().iter().enumerate() {
            if cell != NO_CELL {
                ids.push(agents.id_at(slot as u32).expect("a live slot"));
            }
        }
        ids
    }

    /// The agent a Python id names; ValueError naming `what` when it names no live agent.
    pub(crate) fn agent_id(&self, obj: &Bound<'_, PyAny>, what: &str) -> PyResult<AgentId> {
        let bits: i64 = obj.extract().map_err(|_| {
            PyValueError::new_err(format!("{what}: an agent id is an int, not {obj}"))
        })?;
        let id = AgentId::from_bits(bits as u64);
        if self.sim.agent(id).is_none() {
            return Err(PyValueError::new_err(format!(
                "{what}: agent id {bits} does not name a live agent (removed?)"
            )));
        }
        Ok(id)
    }

    /// A cell from an (x, y) pair of ints, inside the grid (passability is the engine's to
    /// check).
    fn cell(&self, obj: &Bound<'_, PyAny>, what: &str) -> PyResult<CellId> {
        let bad = || PyValueError::new_err(format!("{what} must be (x, y): two ints, not {obj}"));
        let items: Vec<i64> = obj
            .try_iter()
            .map_err(|_| bad())?
            .map(|item| item.and_then(|v| v.extract::<i64>()))
            .collect::<PyResult<_>>()
            .map_err(|_| bad())?;
        let [x, y] = items[..] else {
            return Err(bad());
        };
        let grid = self.sim.grid();
        if x < 0 || y < 0 || x >= i64::from(grid.width()) || y >= i64::from(grid.height()) {
            return Err(PyValueError::new_err(format!(
                "{what} ({x}, {y}) is outside the {} x {} grid",
                grid.width(),
                grid.height()
            )));
        }
        Ok(grid.cell(x as u32, y as u32).expect("checked"))
    }
}
