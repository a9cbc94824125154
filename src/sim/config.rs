//! Simulation settings: plain data with documented defaults.

use serde::{Deserialize, Serialize};

use super::action_model::ActionModel;
use crate::error::{Error, Result};
use crate::grid::Neighborhood;
use crate::planner::PlannerKind;

/// How agents treat each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConflictMode {
    /// At most one agent per cell, no two agents swapping cells and no two crossing a 2 x 2
    /// block diagonally in one tick; conflicts are resolved in slot order, a blocked agent
    /// waits and, after
    /// [`SimConfig::replan_after_waits`] ticks, replans around the agents near it.
    Avoid,
    /// Agents pass through each other: pure planning and movement throughput.
    Off,
    /// Cooperative movement by PIBT (priority inheritance with backtracking, see
    /// [`crate::mapf::Pibt`]): every tick all agents choose their next cell together, in
    /// priority order, pushing lower agents out of the way instead of waiting for them. One
    /// agent per cell, no swaps, no diagonal crossings; the planners still give each agent its
    /// route, and blocked agents never replan around others. The default.
    #[default]
    Pibt,
}

/// Settings of a [`crate::sim::Simulation`]. Every field has a default (see each field).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimConfig {
    /// Planner used for every plan. Default: [`PlannerKind::AStar`].
    pub planner: PlannerKind,
    /// Agent-agent conflicts. Default: [`ConflictMode::Pibt`].
    pub conflicts: ConflictMode,
    /// Lifelong mode: an agent that arrives gets a new goal (seeded), so throughput can be
    /// measured over many ticks. Default: `false` (one-shot: arrived agents stay).
    pub lifelong: bool,
    /// At most this many plans per tick; the rest wait for the next tick, oldest request
    /// first. Default: `None` (no cap).
    pub max_plans_per_tick: Option<usize>,
    /// After this many consecutive ticks waiting, an agent replans treating nearby agents as
    /// obstacles. When such a plan fails (the agent is boxed in), the wait before the next try
    /// doubles, up to 32 times this value, until the agent moves again: a permanently blocked
    /// agent does not search the whole map every few ticks. Default: 3.
    pub replan_after_waits: u32,
    /// Radius (in cells, Chebyshev distance) within which other agents are obstacles for such a
    /// replan. Default: 4.
    pub avoid_radius: u32,
    /// Whether such a replan first tries a detour: a short path around the agents within
    /// `avoid_radius` back onto the agent's current path, `2 * avoid_radius` cells after the path
    /// leaves that radius, instead of a whole new path to the goal. Only where the stretch to
    /// rejoin holds no agent (a longer jam gets a whole new path), and never twice in a row
    /// (after a detour the next replan searches the whole way). Detours are legal paths but not
    /// the shortest way around the others. Default: `true`.
    pub detours: bool,
    /// Conflict mode `pibt`: an agent pushed off its route more than this many cells (counted
    /// along the way back) asks for a new plan from where it stands. Default: 8.
    pub drift_replan: u32,
    /// Node budget of each plan. Default: `None` (no limit).
    pub node_budget: Option<u64>,
    /// Plan on the current rayon pool (`true`) or on the calling thread only (`false`). Both
    /// give identical results. Default: `true`.
    pub parallel: bool,
    /// Seed of everything random in the run (lifelong goals). Default: 0.
    pub seed: u64,
    /// Memory budget of each agent's D* Lite state (planner `dstar`), bytes: a repair whose
    /// state grows past it starts over, a first search past it fails (see
    /// [`crate::dstar::DStarLite::set_max_bytes`]). Default: `None` (no limit).
    pub dstar_max_bytes: Option<usize>,
    /// What an agent may do per tick: any neighbouring move ([`ActionModel::Free`]) or the
    /// robot model of forward moves and quarter turns ([`ActionModel::Rotate`], conflict mode
    /// `pibt` only; other modes ignore it). Default: `Free`.
    pub action_model: ActionModel,
    /// Conflict mode `pibt`: whether PIBT swaps two agents in a corridor only when the one that
    /// backs off has a free cell to back off into (see `mapf::Pibt::set_swap_needs_room`).
    /// `None` (the default) decides by the run: off for one-shot runs with free moves on a
    /// 4-connected grid, where the check kept pairs from passing in mazes (maze-32-32-2
    /// random-1..5: 4, 3, 1 of 5 arrive at 100, 200, 300 agents with it, 5, 4, 5 without); on
    /// otherwise: in lifelong and 8-connected crowds pairs faced each other for good without
    /// it. Runs whose goals are set from outside, like the League of Robot Runners driver,
    /// are lifelong in all but name and say `Some(true)`.
    pub swap_needs_room: Option<bool>,
    /// Whether a crowd that stops making progress (agents left circling, as PIBT can in
    /// one-cell aisles) is handed to LaCAM from where it stands and follows its plan, and a
    /// one-shot run LaCAM proves unsolvable ends (see `sim::stuck`; lifelong runs watch each
    /// agent). `None` (the default): on where it applies, runs with conflicts `pibt` and
    /// action model `free`; `Some(false)`: off; `Some(true)`: on, and refused where it cannot
    /// apply (other conflict modes, action model `rotate`).
    pub resolve_stuck: Option<bool>,
    /// Conflict mode `pibt`: the side, in cells, of the square regions the movement phase
    /// decides apart, in four phases of regions a region apart, those of a phase on the pool
    /// (see `sim::regions`); 0 (the default) decides the whole crowd in one PIBT pass on one
    /// thread. A region's pass moves agents within the region and a margin around it; the
    /// regions shift by half a side every other tick. The same run on any number of threads;
    /// not the same run as with 0. At least 8 when set.
    pub regions: u32,
}

impl SimConfig {
    /// Sets one field by its name in scenario files' `[sim]` table (`conflicts`,
    /// `max_plans_per_tick`, ...), from a JSON value (`null` clears an optional one), with the
    /// checks of scenario files. How the Python bindings read `Simulation(..., **config)`.
    ///
    /// ```
    /// use throng::sim::{ConflictMode, SimConfig};
    /// use serde_json::json;
    ///
    /// let mut config = SimConfig::default();
    /// config.set("conflicts", json!("avoid"))?;
    /// config.set("max_plans_per_tick", json!(100))?;
    /// assert_eq!((config.conflicts, config.max_plans_per_tick), (ConflictMode::Avoid, Some(100)));
    /// assert!(config.set("colour", json!(1)).unwrap_err().to_string().contains("colour"));
    /// assert!(config.set("node_budget", json!(0)).is_err()); // as in a scenario file
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`crate::error::Error::Invalid`] naming the key for an unknown key, a value of the wrong type
    /// or one a scenario file may not hold; on error nothing changes.
    pub fn set(&mut self, key: &str, value: serde_json::Value) -> Result<()> {
        let bad = |message: String| Error::Invalid(format!("{key}: {message}"));
        let mut fields = serde_json::to_value(*self)
            .map_err(|e| bad(format!("cannot represent the settings: {e}")))?;
        let table = fields.as_object_mut().expect("SimConfig is a struct");
        match table.get_mut(key) {
            Some(slot) => *slot = value,
            None => {
                let known: Vec<&str> = table.keys().map(String::as_str).collect();
                return Err(bad(format!("unknown key (known: {})", known.join(", "))));
            }
        }
        let config: SimConfig = serde_json::from_value(fields).map_err(|e| bad(e.to_string()))?;
        if let Some((problem_key, message)) = config.problem() {
            // Name the key at fault when it is not the one set (`lifelong` refused because
            // `resolve_stuck` is true).
            return Err(match problem_key.strip_prefix("sim.") {
                Some(k) if k != key => bad(format!("{k}: {message}")),
                _ => bad(message),
            });
        }
        *self = config;
        Ok(())
    }

    /// Checks the settings for a grid of `neighborhood` moves: the one check of a configuration,
    /// which [`crate::sim::Simulation::new`] makes (and so every caller that builds a simulation:
    /// scenario files, the C ABI, the Python package).
    ///
    /// ```
    /// use throng::grid::Neighborhood;
    /// use throng::sim::{ActionModel, SimConfig};
    ///
    /// let rotate = SimConfig { action_model: ActionModel::Rotate, ..SimConfig::default() };
    /// assert!(rotate.check(Neighborhood::Four).is_ok());
    /// let err = rotate.check(Neighborhood::Eight).unwrap_err();
    /// assert!(err.to_string().starts_with("action_model: \"rotate\" moves only straight ahead"));
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first setting at fault (as a `[sim]` key of scenario files)
    /// and why: a cap, budget or memory limit of 0, the action model `rotate` with conflicts
    /// other than `pibt` or on an 8-connected grid ([`ActionModel::unsupported_on`]),
    /// `resolve_stuck = true` where it cannot apply.
    pub fn check(&self, neighborhood: Neighborhood) -> Result<()> {
        match self.problem_on(neighborhood) {
            Some((key, message)) => Err(Error::Invalid(format!(
                "{}: {message}",
                key.strip_prefix("sim.").unwrap_or(key)
            ))),
            None => Ok(()),
        }
    }

    /// [`problem`](Self::problem), then the settings that depend on the grid's `neighborhood`
    /// (the action model).
    pub(crate) fn problem_on(&self, neighborhood: Neighborhood) -> Option<(&'static str, String)> {
        self.problem().or_else(|| {
            self.action_model
                .unsupported_on(neighborhood)
                .map(|why| ("sim.action_model", why))
        })
    }

    /// The first setting a scenario file may not hold whatever its map, as its key
    /// (`sim.node_budget`) and what is wrong, or `None`. Scenario files and overrides
    /// ([`crate::scenario::Scenario::set`]) check with it key by key; [`check`](Self::check)
    /// adds the map's neighbourhood.
    pub(crate) fn problem(&self) -> Option<(&'static str, String)> {
        if self.max_plans_per_tick == Some(0) {
            return Some((
                "sim.max_plans_per_tick",
                "must be at least 1 (leave it out for no cap)".into(),
            ));
        }
        if self.node_budget == Some(0) {
            return Some((
                "sim.node_budget",
                "must be at least 1 (leave it out for no limit)".into(),
            ));
        }
        if self.dstar_max_bytes == Some(0) {
            // A budget of 0 bytes fails every D* Lite search before it starts.
            return Some((
                "sim.dstar_max_bytes",
                "must be at least 1 (leave it out for no limit)".into(),
            ));
        }
        if self.action_model == ActionModel::Rotate && self.conflicts != ConflictMode::Pibt {
            // Only the PIBT movement phase knows headings; the others would move agents
            // sideways and call it rotating.
            return Some((
                "sim.action_model",
                format!(
                    "\"rotate\" needs conflicts = \"pibt\", not {:?}",
                    self.conflicts.name()
                ),
            ));
        }
        if self.regions > 0 && self.regions < 8 {
            return Some(("sim.regions", "must be 0 (off) or at least 8 cells".into()));
        }
        if self.regions > 0 && self.conflicts != ConflictMode::Pibt {
            return Some((
                "sim.regions",
                format!(
                    "applies to conflicts = \"pibt\" only, not {:?}; leave it out",
                    self.conflicts.name()
                ),
            ));
        }
        if self.resolve_stuck == Some(true) {
            let why = if self.conflicts != ConflictMode::Pibt {
                Some(format!(
                    "conflicts = {:?} (only \"pibt\")",
                    self.conflicts.name()
                ))
            } else if self.action_model == ActionModel::Rotate {
                Some("action model \"rotate\" (LaCAM's plans are free moves)".to_string())
            } else {
                None
            };
            if let Some(why) = why {
                return Some((
                    "sim.resolve_stuck",
                    format!("true cannot apply to {why}; leave it out or set it to false"),
                ));
            }
        }
        None
    }
}

impl ConflictMode {
    /// Every mode, in the order of their names.
    pub const ALL: [ConflictMode; 3] = [ConflictMode::Avoid, ConflictMode::Off, ConflictMode::Pibt];

    /// Whether agents keep to one cell each (every mode but [`ConflictMode::Off`]).
    pub fn separates(self) -> bool {
        self != ConflictMode::Off
    }

    /// The name used in scenario files and on the command line (`avoid`, `off`, `pibt`).
    pub fn name(self) -> &'static str {
        match self {
            ConflictMode::Avoid => "avoid",
            ConflictMode::Off => "off",
            ConflictMode::Pibt => "pibt",
        }
    }
}

impl std::fmt::Display for ConflictMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ConflictMode {
    type Err = crate::error::Error;

    /// ```
    /// use throng::sim::ConflictMode;
    /// assert_eq!("pibt".parse::<ConflictMode>()?, ConflictMode::Pibt);
    /// assert!("maybe".parse::<ConflictMode>().is_err());
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ConflictMode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                crate::error::Error::Invalid(format!(
                    "unknown conflict mode {s:?} (expected pibt, avoid or off)"
                ))
            })
    }
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            planner: PlannerKind::AStar,
            conflicts: ConflictMode::Pibt,
            lifelong: false,
            max_plans_per_tick: None,
            replan_after_waits: 3,
            avoid_radius: 4,
            detours: true,
            drift_replan: 8,
            node_budget: None,
            parallel: true,
            seed: 0,
            dstar_max_bytes: None,
            action_model: ActionModel::Free,
            swap_needs_room: None,
            resolve_stuck: None,
            regions: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_off_or_at_least_eight_cells_and_only_for_pibt() {
        let with = |regions, conflicts| SimConfig {
            regions,
            conflicts,
            ..SimConfig::default()
        };
        assert!(with(0, ConflictMode::Avoid).problem().is_none());
        assert!(with(8, ConflictMode::Pibt).problem().is_none());
        let (key, message) = with(4, ConflictMode::Pibt).problem().unwrap();
        assert_eq!(key, "sim.regions");
        assert!(message.contains("at least 8"), "{message}");
        let (key, message) = with(64, ConflictMode::Avoid).problem().unwrap();
        assert_eq!(key, "sim.regions");
        assert!(message.contains("\"avoid\""), "{message}");
        // Scenario files, `--set` and Python set it by name.
        let mut config = SimConfig::default();
        config.set("regions", serde_json::json!(128)).unwrap();
        assert_eq!(config.regions, 128);
        assert!(config.set("regions", serde_json::json!(2)).is_err());
    }
}
