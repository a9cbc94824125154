//! Per-tick reports and the run summary.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::AgentId;
use super::events::{PlanReason, TickEvents};

/// What one tick did. Returned by [`crate::sim::Simulation::step`]; plain data.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TickReport {
    /// The tick number (first tick is 0).
    pub tick: u64,
    /// Wall time of the whole tick, milliseconds.
    pub wall_ms: f64,
    /// Wall time applying queued commands, milliseconds.
    pub commands_ms: f64,
    /// Wall time of the planning phase, milliseconds.
    pub planning_ms: f64,
    /// Wall time of the movement phase, milliseconds.
    pub movement_ms: f64,
    /// Where the tick's time went, phase by phase (movement's parts and the tick's tail).
    #[serde(default)]
    pub phases: PhaseTimes,
    /// Plans made.
    pub plans: u32,
    /// Plans that found no path.
    pub plans_failed: u32,
    /// Plan requests left for later ticks by the per-tick cap.
    pub plans_deferred: u32,
    /// Nodes expanded by all plans.
    pub nodes_expanded: u64,
    /// Plans this tick for agents around others that blocked them (conflict mode `avoid`).
    #[serde(default)]
    pub replans_blocked: u32,
    /// Plans this tick for agents pushed far off their route (conflict mode `pibt`).
    #[serde(default)]
    pub replans_drifted: u32,
    /// Plans this tick because the map changed under an agent's path.
    #[serde(default)]
    pub replans_map_changed: u32,
    /// Pairs PIBT swapped through a corridor this tick (conflict mode `pibt`).
    #[serde(default)]
    pub swaps: u32,
    /// Agents that took a step.
    pub moved: u32,
    /// Agents that wanted to step but waited for another agent.
    pub waiting: u32,
    /// Agents that reached a goal this tick.
    pub goals_reached: u32,
    /// Live agents after the tick.
    pub agents: u32,
    /// Agents standing at their goal (state arrived) after the tick.
    pub at_goal: u32,
    /// Agents with no path after the tick.
    pub no_path: u32,
    /// Whether the tick's moves were a step of a LaCAM plan resolving a stuck crowd (see
    /// [`crate::sim::SimConfig::resolve_stuck`]).
    #[serde(default)]
    pub resolving: bool,
    /// Whether LaCAM has proved that not every agent can reach its goal: nothing more will
    /// change, the run is over.
    #[serde(default)]
    pub unsolvable: bool,
    /// Hash of every agent's position and state after the tick (see
    /// [`crate::sim::Simulation::state_hash`]).
    pub state_hash: u64,
    /// Ids of agents added by commands this tick, in command order.
    pub added: Vec<AgentId>,
    /// Commands rejected this tick, with the reason.
    pub rejected: Vec<String>,
}

/// Wall time of a tick's phases, milliseconds: the parts of the movement phase and the
/// tick's tail, as measured by the phases themselves. Planning and commands are
/// [`TickReport::planning_ms`] and [`TickReport::commands_ms`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseTimes {
    /// Movement: the agents put in priority order (conflict mode `pibt`) or claim order.
    pub ordering_ms: f64,
    /// Movement: each agent's candidate cells ranked (on the pool above 2,048 agents).
    pub ranking_ms: f64,
    /// Movement: who goes where decided (PIBT's pass, or the claims of `off` and `avoid`;
    /// for `off` and `avoid` the moves are applied as they are decided, so this holds both).
    pub deciding_ms: f64,
    /// Movement: the decided moves and stays applied to routes, occupancy and events.
    pub applying_ms: f64,
    /// Movement: a step of LaCAM's plan for a stuck crowd, when one was followed.
    pub resolving_ms: f64,
    /// After the moves: lifelong goals given and the watch for a stuck crowd.
    pub after_moves_ms: f64,
    /// The report: the crowd counted and hashed.
    pub closing_ms: f64,
}

impl PhaseTimes {
    /// Each phase's field name, in the order of [`values`](Self::values).
    pub const NAMES: [&'static str; 7] = [
        "ordering_ms",
        "ranking_ms",
        "deciding_ms",
        "applying_ms",
        "resolving_ms",
        "after_moves_ms",
        "closing_ms",
    ];

    /// Each phase's time, in the order of [`NAMES`](Self::NAMES).
    pub fn values(&self) -> [f64; 7] {
        [
            self.ordering_ms,
            self.ranking_ms,
            self.deciding_ms,
            self.applying_ms,
            self.resolving_ms,
            self.after_moves_ms,
            self.closing_ms,
        ]
    }

    /// The times of [`values`](Self::values) back into their fields.
    pub fn from_values(v: [f64; 7]) -> PhaseTimes {
        let [
            ordering_ms,
            ranking_ms,
            deciding_ms,
            applying_ms,
            resolving_ms,
            after_moves_ms,
            closing_ms,
        ] = v;
        PhaseTimes {
            ordering_ms,
            ranking_ms,
            deciding_ms,
            applying_ms,
            resolving_ms,
            after_moves_ms,
            closing_ms,
        }
    }

    /// The sum of every phase.
    pub fn total_ms(&self) -> f64 {
        self.values().iter().sum()
    }

    fn add(&mut self, other: &PhaseTimes) {
        let mut v = self.values();
        for (a, b) in v.iter_mut().zip(other.values()) {
            *a += b;
        }
        *self = PhaseTimes::from_values(v);
    }
}

/// The time a steady tick spends per agent in each phase, nanoseconds: the phases summed over
/// the ticks after the first, over the agents of those ticks ([`RunSummary::phase_ns`]). The
/// first tick is left out: it plans every agent's first trip.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseNanos {
    /// Commands applied.
    pub commands: f64,
    /// Planning (plans made on the pool).
    pub planning: f64,
    /// Movement: priority or claim order.
    pub ordering: f64,
    /// Movement: candidates ranked.
    pub ranking: f64,
    /// Movement: moves decided.
    pub deciding: f64,
    /// Movement: moves applied.
    pub applying: f64,
    /// Movement: a step of LaCAM's plan.
    pub resolving: f64,
    /// Lifelong goals and the stuck watch.
    pub after_moves: f64,
    /// The report: the crowd counted and hashed.
    pub closing: f64,
    /// Agent-ticks these are averaged over (agents summed over the ticks after the first).
    pub agent_ticks: u64,
}

impl TickReport {
    /// The report with every time zeroed (the wall times and [`TickReport::phases`]): what
    /// two runs of the same seed agree on, on any machine and any number of threads.
    pub fn without_times(&self) -> TickReport {
        TickReport {
            wall_ms: 0.0,
            commands_ms: 0.0,
            planning_ms: 0.0,
            movement_ms: 0.0,
            phases: PhaseTimes::default(),
            ..self.clone()
        }
    }

    /// Fills the counts of the tick's plans, moves and arrivals from its events.
    pub(crate) fn count(&mut self, events: &TickEvents) {
        for plan in events.plans() {
            self.plans += 1;
            self.plans_failed += u32::from(!plan.found);
            self.nodes_expanded += plan.expanded;
            match plan.reason {
                PlanReason::NewGoal => {}
                PlanReason::Blocked => self.replans_blocked += 1,
                PlanReason::Drifted => self.replans_drifted += 1,
                PlanReason::MapChanged => self.replans_map_changed += 1,
            }
        }
        self.plans_deferred = events.deferred();
        self.moved = events.moves().len() as u32;
        self.waiting = events.waiting();
        self.swaps = events.swaps();
        self.goals_reached = events.goals_reached();
    }
}

/// How a run stands at its end ([`RunSummary::end_status`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndStatus {
    /// One-shot: every agent is at its goal.
    AllArrived,
    /// One-shot: not every agent can reach its goal: LaCAM proved it, two agents share a goal,
    /// or an agent's goal cannot be reached at all (agents with no path).
    Unsolvable,
    /// One-shot: agents are still on their way (the ticks played ended first).
    #[default]
    TickLimit,
    /// Lifelong: agents get new goals for as long as the run is played.
    Lifelong,
}

impl EndStatus {
    /// The name in the JSON summary (`all_arrived`, `unsolvable`, `tick_limit`, `lifelong`).
    pub fn name(self) -> &'static str {
        match self {
            EndStatus::AllArrived => "all_arrived",
            EndStatus::Unsolvable => "unsolvable",
            EndStatus::TickLimit => "tick_limit",
            EndStatus::Lifelong => "lifelong",
        }
    }
}

/// Totals and percentiles of a whole run. Plain data; serialized as the JSON summary of
/// `throng run`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Ticks played.
    pub ticks: u64,
    /// Live agents at the end.
    pub agents: u32,
    /// Worker threads of the pool the run used.
    pub threads: usize,
    /// Plans made.
    pub plans: u64,
    /// Plans that found no path.
    pub plans_failed: u64,
    /// Nodes expanded by all plans.
    pub nodes_expanded: u64,
    /// Plans per second of planning-phase wall time (planning throughput of the pool).
    pub plans_per_sec: f64,
    /// Agent steps per second of run wall time.
    pub moves_per_sec: f64,
    /// Ticks per second of run wall time.
    pub ticks_per_sec: f64,
    /// Where a steady tick's time goes per agent (see [`PhaseNanos`]).
    #[serde(default)]
    pub phase_ns: PhaseNanos,
    /// Bytes the agents' routes hold at the end (the capacity of their buffers of 4-bit step
    /// codes, and the agent set's flat array of decoded route windows), divided by the live
    /// agents (0 with none).
    #[serde(default)]
    pub route_bytes_per_agent: f64,
    /// Wall time of the first tick of the run, milliseconds (0 before any tick). Reported
    /// apart because every agent's first trip is planned in it (up to the plan cap), so it can
    /// be hundreds of times longer than a later tick.
    #[serde(default)]
    pub first_tick_ms: f64,
    /// Ticks per second over the ticks after the first: `(ticks - 1) / (wall_s - first tick)`,
    /// the rate a running simulation keeps once its first plans are made (0 with fewer than
    /// two ticks).
    #[serde(default)]
    pub steady_ticks_per_sec: f64,
    /// Run wall time (sum of tick times), seconds.
    pub wall_s: f64,
    /// Planning-phase wall time, seconds.
    pub planning_s: f64,
    /// Per-plan latency percentiles, microseconds.
    pub plan_us_p50: f64,
    /// 90th percentile.
    pub plan_us_p90: f64,
    /// 99th percentile.
    pub plan_us_p99: f64,
    /// Slowest plan.
    pub plan_us_max: f64,
    /// Tick time percentiles, milliseconds.
    pub tick_ms_p50: f64,
    /// 90th percentile.
    pub tick_ms_p90: f64,
    /// 99th percentile.
    pub tick_ms_p99: f64,
    /// Slowest tick.
    pub tick_ms_max: f64,
    /// Agent steps taken.
    pub moves: u64,
    /// Agents at their goal at the end.
    pub arrived: u32,
    /// Goals reached over the run (more than `arrived` in lifelong mode).
    pub goals_reached: u64,
    /// Goals reached per tick (lifelong throughput).
    pub goals_per_tick: f64,
    /// Sum over agents at their goal of the ticks their trip took (MAPF sum of costs).
    pub sum_of_costs: u64,
    /// Longest such trip, ticks (MAPF makespan).
    pub makespan: u64,
    /// [`crate::sim::Simulation::state_hash`] after the last tick.
    pub final_state_hash: u64,
    /// Median bytes held by the D* Lite state of the agents that have one (planner `dstar`),
    /// at the end; 0 when none has.
    #[serde(default)]
    pub dstar_bytes_p50: u64,
    /// Largest such state, bytes; 0 when none.
    #[serde(default)]
    pub dstar_bytes_max: u64,
    /// Plans that repaired (resumed) a D* Lite search, summed over the agents at the end: their
    /// plans minus their starts from scratch (first plans, new goals, restarts, budget resets).
    #[serde(default)]
    pub dstar_repairs: u64,
    /// D* Lite searches started over (new goal, cheaper terrain, over the byte budget), summed
    /// over the agents at the end.
    #[serde(default)]
    pub dstar_restarts: u64,
    /// Repairs: D* Lite plans that resumed an earlier search.
    #[serde(default)]
    pub repairs: u64,
    /// Repair latency percentiles, microseconds (0 without repairs).
    #[serde(default)]
    pub repair_us_p50: f64,
    /// 99th percentile.
    #[serde(default)]
    pub repair_us_p99: f64,
    /// Replans: plans made because the map changed under the agent's path or because other
    /// agents blocked it, that were not repairs.
    #[serde(default)]
    pub replans: u64,
    /// Replan latency percentiles, microseconds (0 without replans).
    #[serde(default)]
    pub replan_us_p50: f64,
    /// 99th percentile.
    #[serde(default)]
    pub replan_us_p99: f64,
    /// Plans for a new (or first) goal.
    #[serde(default)]
    pub plans_new_goal: u64,
    /// Replans because the map changed under an agent's path.
    #[serde(default)]
    pub replans_map_changed: u64,
    /// Replans around other agents after waiting behind them (conflict mode `avoid`).
    #[serde(default)]
    pub replans_blocked: u64,
    /// Replans after being pushed far off the route (conflict mode `pibt`).
    #[serde(default)]
    pub replans_drifted: u64,
    /// Pairs PIBT swapped through corridors (conflict mode `pibt`).
    #[serde(default)]
    pub swaps: u64,
    /// Whether every agent is at its goal at the end (one-shot runs: the MAPF success
    /// criterion; `false` with no agent).
    #[serde(default)]
    pub all_arrived: bool,
    /// Fraction of the agents at their goal at the end (0 with no agent).
    #[serde(default)]
    pub arrived_fraction: f64,
    /// Times a stuck crowd was handed to LaCAM (see
    /// [`crate::sim::SimConfig::resolve_stuck`]).
    #[serde(default)]
    pub resolve_triggers: u64,
    /// Ticks played following LaCAM's plans.
    #[serde(default)]
    pub resolve_ticks: u64,
    /// Agents handed to LaCAM, summed over the triggers.
    #[serde(default)]
    pub resolve_agents: u64,
    /// How the run stands at its end.
    #[serde(default)]
    pub end_status: EndStatus,
    /// Movement (coordination) phase time per tick, milliseconds: median.
    #[serde(default)]
    pub move_ms_p50: f64,
    /// 99th percentile.
    #[serde(default)]
    pub move_ms_p99: f64,
}

impl RunSummary {
    /// Whose trips [`sum_of_costs`](Self::sum_of_costs) and [`makespan`](Self::makespan) add
    /// up: `"all_agents"` when every agent is at its goal at the end; otherwise
    /// `"arrived_agents"`, only those at their goal at the end (a run cut short by its tick
    /// limit, agents with no path, lifelong runs): the others' trips are not counted, so the
    /// sum is then not the MAPF sum of costs of the instance.
    pub fn sum_of_costs_covers(&self) -> &'static str {
        if self.all_arrived {
            "all_agents"
        } else {
            "arrived_agents"
        }
    }
}

/// Accumulates what ticks did (from their events) and their times and crowds (from their
/// reports) into a [`RunSummary`].
#[derive(Debug, Clone)]
pub struct Metrics {
    pub(super) plan_ns: Histogram<u64>,
    pub(super) repair_ns: Histogram<u64>,
    pub(super) replan_ns: Histogram<u64>,
    pub(super) tick_ns: Histogram<u64>,
    pub(super) move_ns: Histogram<u64>,
    /// The phases, commands and planning summed over the ticks after the first.
    pub(super) steady_phases: PhaseTimes,
    pub(super) steady_commands_ms: f64,
    pub(super) steady_planning_ms: f64,
    pub(super) summary: RunSummary,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            plan_ns: Histogram::new(3).expect("valid precision"),
            repair_ns: Histogram::new(3).expect("valid precision"),
            replan_ns: Histogram::new(3).expect("valid precision"),
            tick_ns: Histogram::new(3).expect("valid precision"),
            move_ns: Histogram::new(3).expect("valid precision"),
            steady_phases: PhaseTimes::default(),
            steady_commands_ms: 0.0,
            steady_planning_ms: 0.0,
            summary: RunSummary::default(),
        }
    }
}

impl Metrics {
    /// Records what a tick did from its events, the one source of the run's counts: its plans
    /// (by reason, failed, nodes expanded) and their latencies (every plan; the repairs, D*
    /// Lite plans that resumed an earlier search; the replans, plans for a map change or
    /// around blocking agents that were not repairs), the moves, PIBT's swaps and the goals
    /// reached.
    pub fn record_events(&mut self, events: &TickEvents) {
        let s = &mut self.summary;
        for plan in events.plans() {
            s.plans += 1;
            s.plans_failed += u64::from(!plan.found);
            s.nodes_expanded += plan.expanded;
            match plan.reason {
                PlanReason::NewGoal => s.plans_new_goal += 1,
                PlanReason::Blocked => s.replans_blocked += 1,
                PlanReason::Drifted => s.replans_drifted += 1,
                PlanReason::MapChanged => s.replans_map_changed += 1,
            }
            let ns = plan.nanos.max(1);
            let record = |h: &mut Histogram<u64>| {
                h.record(ns)
                    .expect("auto-resizing histogram accepts any value")
            };
            record(&mut self.plan_ns);
            if plan.repaired {
                record(&mut self.repair_ns);
            } else if matches!(plan.reason, PlanReason::MapChanged | PlanReason::Blocked) {
                record(&mut self.replan_ns);
            }
        }
        s.moves += events.moves().len() as u64;
        s.swaps += u64::from(events.swaps());
        s.goals_reached += u64::from(events.goals_reached());
    }

    /// Records a finished tick's times and the crowd as it stands after it, from its report
    /// (what the tick did is counted from its events: [`record_events`](Self::record_events)).
    pub fn record_tick(&mut self, report: &TickReport) {
        let s = &mut self.summary;
        self.tick_ns
            .record(((report.wall_ms * 1e6) as u64).max(1))
            .expect("auto-resizing histogram accepts any value");
        self.move_ns
            .record(((report.movement_ms * 1e6) as u64).max(1))
            .expect("auto-resizing histogram accepts any value");
        if s.ticks == 0 {
            s.first_tick_ms = report.wall_ms;
        } else {
            self.steady_phases.add(&report.phases);
            self.steady_commands_ms += report.commands_ms;
            self.steady_planning_ms += report.planning_ms;
            s.phase_ns.agent_ticks += u64::from(report.agents);
        }
        s.ticks += 1;
        s.agents = report.agents;
        s.wall_s += report.wall_ms / 1e3;
        s.planning_s += report.planning_ms / 1e3;
        s.arrived = report.at_goal;
        s.all_arrived = report.agents > 0 && report.at_goal == report.agents;
        s.arrived_fraction = if report.agents > 0 {
            f64::from(report.at_goal) / f64::from(report.agents)
        } else {
            0.0
        };
        s.final_state_hash = report.state_hash;
    }

    /// The summary so far. `trips` gives the duration (ticks) of every agent now at its goal;
    /// `threads` the pool size.
    pub fn summary(&self, trips: impl Iterator<Item = u64>, threads: usize) -> RunSummary {
        let mut s = self.summary.clone();
        s.threads = threads;
        let per_sec = |n: f64, secs: f64| if secs > 0.0 { n / secs } else { 0.0 };
        s.plans_per_sec = per_sec(s.plans as f64, s.planning_s);
        s.moves_per_sec = per_sec(s.moves as f64, s.wall_s);
        s.ticks_per_sec = per_sec(s.ticks as f64, s.wall_s);
        // `max(0.0)`: `wall_s` is a float sum, and with one long tick it can round below it.
        s.steady_ticks_per_sec = per_sec(
            s.ticks.saturating_sub(1) as f64,
            (s.wall_s - s.first_tick_ms / 1e3).max(0.0),
        );
        s.goals_per_tick = if s.ticks > 0 {
            s.goals_reached as f64 / s.ticks as f64
        } else {
            0.0
        };
        let us = |h: &Histogram<u64>, q: f64| {
            if h.is_empty() {
                0.0
            } else {
                h.value_at_quantile(q) as f64 / 1e3
            }
        };
        s.plan_us_p50 = us(&self.plan_ns, 0.5);
        s.plan_us_p90 = us(&self.plan_ns, 0.9);
        s.plan_us_p99 = us(&self.plan_ns, 0.99);
        s.plan_us_max = if self.plan_ns.is_empty() {
            0.0
        } else {
            self.plan_ns.max() as f64 / 1e3
        };
        s.repairs = self.repair_ns.len();
        s.repair_us_p50 = us(&self.repair_ns, 0.5);
        s.repair_us_p99 = us(&self.repair_ns, 0.99);
        s.replans = self.replan_ns.len();
        s.replan_us_p50 = us(&self.replan_ns, 0.5);
        s.replan_us_p99 = us(&self.replan_ns, 0.99);
        let per_agent = |ms: f64| {
            if s.phase_ns.agent_ticks > 0 {
                ms * 1e6 / s.phase_ns.agent_ticks as f64
            } else {
                0.0
            }
        };
        let p = &self.steady_phases;
        s.phase_ns = PhaseNanos {
            commands: per_agent(self.steady_commands_ms),
            planning: per_agent(self.steady_planning_ms),
            ordering: per_agent(p.ordering_ms),
            ranking: per_agent(p.ranking_ms),
            deciding: per_agent(p.deciding_ms),
            applying: per_agent(p.applying_ms),
            resolving: per_agent(p.resolving_ms),
            after_moves: per_agent(p.after_moves_ms),
            closing: per_agent(p.closing_ms),
            agent_ticks: s.phase_ns.agent_ticks,
        };
        s.move_ms_p50 = us(&self.move_ns, 0.5) / 1e3;
        s.move_ms_p99 = us(&self.move_ns, 0.99) / 1e3;
        s.tick_ms_p50 = us(&self.tick_ns, 0.5) / 1e3;
        s.tick_ms_p90 = us(&self.tick_ns, 0.9) / 1e3;
        s.tick_ms_p99 = us(&self.tick_ns, 0.99) / 1e3;
        s.tick_ms_max = if self.tick_ns.is_empty() {
            0.0
        } else {
            self.tick_ns.max() as f64 / 1e6
        };
        let (mut soc, mut makespan) = (0u64, 0u64);
        for t in trips {
            soc += t;
            makespan = makespan.max(t);
        }
        s.sum_of_costs = soc;
        s.makespan = makespan;
        s
    }
}

/// FNV-1a, 64 bits: a hash that is the same on every platform and Rust version (unlike
/// `DefaultHasher`), so state hashes can be compared across machines and releases.
#[derive(Debug, Clone, Copy)]
pub struct StableHasher(u64);

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl StableHasher {
    /// Feeds a `u64` (little-endian bytes).
    #[inline]
    pub fn write_u64(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// The hash so far.
    #[inline]
    pub fn finish(&self) -> u64 {
        self.0
    }
}
