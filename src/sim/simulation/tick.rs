//! One tick, as named phases: the queued commands, the tick's events opened, planning,
//! movement (with the actions chosen from outside), the goals that follow arrivals and the
//! watch for a stuck crowd, then the report and the metrics, counted from the tick's events.

use std::time::Instant;

use super::Simulation;
use crate::hash::mix64;
use crate::sim::agent::AgentState;
use crate::sim::command::Command;
use crate::sim::control::{ActionOutcome, AgentAction};
use crate::sim::events::{ArrivalKind, PlanReason};
use crate::sim::metrics::{PhaseTimes, TickReport};
use crate::sim::move_context::MoveContext;
use crate::sim::movement::Clock;
use crate::sim::{AgentId, stuck};

/// Ticks between the calls that hand the allocator's free pages back to the system for a large
/// crowd ([`crate::sim::agent::AgentSet::give_back_memory`]): replans free route buffers
/// steadily, a few hundred a tick at a million agents.
const GIVE_BACK_MEMORY_EVERY: u64 = 256;

/// The crowd after a tick, from one pass over the agents.
pub(super) struct Crowd {
    /// Agents standing on their goal (state arrived).
    pub(super) at_goal: u32,
    /// Agents with no path.
    pub(super) no_path: u32,
    /// [`Simulation::state_hash`].
    pub(super) hash: u64,
}

impl Simulation {
    /// Plays one tick with `actions` and returns its report, the actions' outcomes in
    /// `outcomes` (in the order given).
    pub(super) fn play(
        &mut self,
        actions: &[(AgentId, AgentAction)],
        outcomes: &mut Vec<ActionOutcome>,
    ) -> TickReport {
        let t0 = Instant::now();
        let mut report = TickReport {
            tick: self.tick,
            ..TickReport::default()
        };
        self.apply_commands(&mut report);
        self.open_events(!actions.is_empty());
        let t1 = Instant::now();
        self.plan();
        let t2 = Instant::now();
        report.resolving = self.move_agents(actions, &mut report.phases);
        outcomes.clear();
        outcomes.extend(self.events.outcomes.iter().map(|&(_, o)| o));
        let clock = Clock::start();
        self.after_moves();
        report.phases.after_moves_ms = clock.ms();
        let t3 = Instant::now();
        self.close_tick(&mut report, [t0, t1, t2, t3]);
        report
    }

    /// Phase 1: the queued commands, in order (rejected ones are listed in the report).
    fn apply_commands(&mut self, report: &mut TickReport) {
        for command in std::mem::take(&mut self.commands) {
            let result = match command {
                Command::AddAgent { start, goal } => {
                    self.add_agent(start, goal).map(|id| report.added.push(id))
                }
                Command::RemoveAgent(id) => self.remove_agent(id),
                Command::SetGoal { agent, goal } => self.set_goal(agent, goal),
                Command::ChangeMap(changes) => self.change_map(&changes),
            };
            if let Err(e) = result {
                report.rejected.push(e.to_string());
            }
        }
    }

    /// Phase 2: the tick's events start with the calls made since the last tick (commands
    /// included); a stuck crowd's plan is dropped when they, or `acted` (actions given), changed
    /// the crowd it was made for.
    fn open_events(&mut self, acted: bool) {
        let events = &mut self.events;
        events.clear(self.tick);
        events.absorb_calls(&self.calls);
        self.calls.clear(self.tick + 1);
        if events.has_agent_or_map_events() || !events.goals.is_empty() || acted {
            self.stuck.drop_plan(self.tick);
        }
    }

    /// Phase 3: planning (agents planned from their goal arrive there), then the controlled
    /// agents given the cell they stand on as goal arrive.
    fn plan(&mut self) {
        let events = &mut self.events;
        self.planning
            .run(
                &self.grid,
                &mut self.agents,
                &self.occupancy,
                &self.config,
                self.nav.as_ref(),
                events,
            )
            .expect("the simulation has the navigation graph its planners need");
        for slot in self.settle.drain(..) {
            let Some(id) = self.agents.id_at(slot) else {
                continue; // removed since
            };
            let mut agent = self.agents.at_mut(slot).expect("live");
            if let Some(counted) = agent.settle(self.tick) {
                events.arrive(id, agent.position(), ArrivalKind::Standing, counted);
            }
        }
    }

    /// Phase 4: movement, a step of LaCAM's plan for a stuck crowd or else the conflict mode's,
    /// with `actions`, whose outcomes go to the events; returns whether it was LaCAM's, and
    /// the time of its parts in `phases`.
    fn move_agents(&mut self, actions: &[(AgentId, AgentAction)], phases: &mut PhaseTimes) -> bool {
        let clock = Clock::start();
        let events = &mut self.events;
        let ctx = MoveContext {
            grid: &self.grid,
            config: &self.config,
            tick: self.tick,
            forced: &[],
        };
        // Actions drop LaCAM's plan (`open_events`): it is never followed with actions.
        let resolving = self
            .stuck
            .follow(&ctx, &mut self.agents, &mut self.occupancy, events);
        if resolving {
            phases.resolving_ms = clock.ms();
        } else {
            self.movement.set_actions(&self.grid, &self.agents, actions);
            *phases = self.movement.run(
                &self.grid,
                &mut self.agents,
                &mut self.occupancy,
                &self.config,
                events,
            );
            let outcomes = self.movement.outcomes(&self.agents, actions);
            events.outcomes.extend(outcomes);
        }
        resolving
    }

    /// Phase 5: a lifelong run's next goals, then the watch for a stuck crowd; every
    /// [`GIVE_BACK_MEMORY_EVERY`] ticks, the allocator's free pages handed back.
    fn after_moves(&mut self) {
        if self.tick % GIVE_BACK_MEMORY_EVERY == GIVE_BACK_MEMORY_EVERY - 1 {
            self.agents.give_back_memory();
        }
        if self.config.lifelong {
            self.give_lifelong_goals();
        }
        if stuck::applies(&self.config) {
            self.stuck
                .observe(&self.grid, &self.agents, &self.config, &self.events);
        }
    }

    /// Phase 6: the report (counted from the tick's events, with the crowd as it stands and
    /// the phases' times `t`), the metrics, and the next tick.
    fn close_tick(&mut self, report: &mut TickReport, t: [Instant; 4]) {
        let clock = Clock::start();
        report.count(&self.events);
        report.agents = self.agents.len() as u32;
        let crowd = self.crowd();
        report.phases.closing_ms = clock.ms();
        report.at_goal = crowd.at_goal;
        report.no_path = crowd.no_path;
        report.state_hash = crowd.hash;
        report.unsolvable = self.stuck.unsolvable();
        debug_assert!(
            self.agents.positions_agree(),
            "the flat positions array mirrors the agents"
        );
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
        report.commands_ms = ms(t[0], t[1]);
        report.planning_ms = ms(t[1], t[2]);
        report.movement_ms = ms(t[2], t[3]);
        report.wall_ms = ms(t[0], Instant::now());
        self.metrics.record_events(&self.events);
        self.metrics.record_tick(report);
        self.tick += 1;
    }

    /// The crowd as it stands, in one pass over the agents (on the pool for a large crowd).
    /// The hash is a sum over the agents of a mix of each one's id, cell, heading and state:
    /// the same however the crowd is split (an FNV-1a chain in slot order was one thread's 15 ns
    /// an agent, the longest serial part of a tick at 100,000 agents).
    pub(super) fn crowd(&self) -> Crowd {
        let (at_goal, no_path, sum) = self.agents.sum_live(
            self.config.parallel,
            (0u32, 0u32, 0u64),
            |id, a| {
                let state = a.state();
                // The heading is 0 (east) for good under the free action model.
                let word = u64::from(a.position()) << 8
                    | (a.heading().index() as u64) << 4
                    | u64::from(state.code());
                (
                    u32::from(state == AgentState::Arrived),
                    u32::from(state == AgentState::NoPath),
                    mix64(mix64(id.to_bits()) ^ word),
                )
            },
            |x, y| (x.0 + y.0, x.1 + y.1, x.2.wrapping_add(y.2)),
        );
        Crowd {
            at_goal,
            no_path,
            hash: mix64(sum),
        }
    }

    /// The slots of the agents left without a path, in slot order, into `self.retry`: those
    /// whose plan failed this tick (a plan around other agents that fails keeps the path), and
    /// after a map change every one (an agent no goal could be drawn for may have room now).
    pub(super) fn collect_no_path(&mut self) {
        self.retry.clear();
        if self.events.cells.is_empty() {
            self.retry.extend(
                self.events
                    .plans()
                    .iter()
                    .filter(|p| !p.found && p.reason != PlanReason::Blocked)
                    .map(|p| p.agent.index()),
            );
        } else {
            self.retry.extend(0..self.agents.slot_count() as u32);
        }
        let agents = &self.agents;
        self.retry.retain(|&slot| {
            agents
                .at(slot)
                .is_some_and(|a| a.state() == AgentState::NoPath)
        });
        self.retry.sort_unstable();
    }
}
