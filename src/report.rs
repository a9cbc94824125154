//! The JSON summary of a run: what was run (scenario, map, seed, settings) and the simulation's
//! [`RunSummary`], as `throng run --json` prints it and Python's `Simulation.summary()` returns
//! it.
//!
//! It lives outside [`sim`](crate::sim) and [`scenario`](crate::scenario) because it is a way
//! of presenting a run, not part of playing one: the simulation produces its [`RunSummary`]
//! and knows nothing of files or reports; a scenario names what was run
//! ([`Scenario::run_json`](crate::scenario::Scenario::run_json)); a simulation built without a
//! scenario (Python's arrays) names itself through [`RunJson::new`].

use serde::Serialize;

use crate::planner::PlannerKind;
use crate::sim::{ActionModel, ConflictMode, RunSummary, SimConfig};

/// The summary object of `throng run --json`: the run's [`RunSummary`] fields, flattened, with
/// what was run.
#[derive(Debug, Clone, Serialize)]
pub struct RunJson<'a> {
    /// The scenario's name.
    pub scenario: &'a str,
    /// The file it was read from.
    pub scenario_file: &'a str,
    /// What the map is ([`Scenario::map_label`](crate::scenario::Scenario::map_label)).
    pub map: String,
    /// The seed played.
    pub seed: u64,
    /// The default planner.
    pub planner: PlannerKind,
    /// The conflict mode.
    pub conflicts: ConflictMode,
    /// What an agent may do per tick (`free` or `rotate`).
    pub action_model: ActionModel,
    /// Whether agents get new goals on arrival.
    pub lifelong: bool,
    /// The cap on plans per tick, if any.
    pub max_plans_per_tick: Option<usize>,
    /// Whose trips `sum_of_costs` and `makespan` add up
    /// ([`RunSummary::sum_of_costs_covers`]).
    pub sum_of_costs_covers: &'static str,
    /// The run's summary.
    #[serde(flatten)]
    pub summary: &'a RunSummary,
    /// `final_state_hash` as 16 hex digits.
    pub final_state_hash_hex: String,
    /// Seconds spent loading the map and placing the agents.
    pub setup_s: f64,
    /// Cores the process kept busy after the first tick (processor time over wall time), when
    /// measured ([`RunJson::with_process`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady_cores: Option<f64>,
    /// The process's peak resident memory, MiB, when measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_memory_mib: Option<f64>,
}

impl<'a> RunJson<'a> {
    /// The summary of a run named `scenario` (read from `scenario_file`, empty when none) on
    /// the map described by `map`, played with `config` (its seed included): `summary` with
    /// those settings, the final state hash in hex, and `setup_s`, the seconds spent loading
    /// the map and placing the agents.
    pub fn new(
        scenario: &'a str,
        scenario_file: &'a str,
        map: String,
        config: &SimConfig,
        summary: &'a RunSummary,
        setup_s: f64,
    ) -> RunJson<'a> {
        RunJson {
            scenario,
            scenario_file,
            map,
            seed: config.seed,
            planner: config.planner,
            conflicts: config.conflicts,
            action_model: config.action_model,
            lifelong: config.lifelong,
            max_plans_per_tick: config.max_plans_per_tick,
            sum_of_costs_covers: summary.sum_of_costs_covers(),
            summary,
            final_state_hash_hex: format!("{:016x}", summary.final_state_hash),
            setup_s,
            steady_cores: None,
            peak_memory_mib: None,
        }
    }

    /// With what the process used: the cores it kept busy after the first tick and its peak
    /// resident memory (see [`crate::process_stats`]); a run played alone in its process.
    pub fn with_process(mut self, steady_cores: Option<f64>, peak_memory_mib: Option<f64>) -> Self {
        self.steady_cores = steady_cores;
        self.peak_memory_mib = peak_memory_mib;
        self
    }
}
