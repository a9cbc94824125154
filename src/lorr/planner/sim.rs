//! The `sim` planner of a League of Robot Runners run: the general [`Simulation`] plans and
//! moves (PIBT, the rotate or free action model); under the rotate model each robot whose
//! errand changed, or that did not move, is routed again by a turning A* ([`TurningSearch`])
//! with lane (flow) costs. Slow at thousands of robots (a route search per stalled robot per
//! step); kept for the free model and as the reference the golden task counts record.

use super::{StepInput, StepPlanner};
use crate::error::Result;
use crate::grid::{CellId, Grid};
use crate::lorr::action::LorrAction;
use crate::planner::PlannerKind;
use crate::search::TurningSearch;
use crate::sim::{ActionModel, AgentId, ConflictMode, Heading, SimConfig, Simulation};

/// The `sim` planner's settings ([`crate::lorr::LorrConfig::sim`]), all for the rotate model
/// (the tasks finished at other values: `docs/performance.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimPlannerConfig {
    /// What a step onto a cell costs more, in [`crate::search::ACTION_COST`]ths of a step,
    /// for each other robot whose route crosses it the other way, so that routes keep to
    /// lanes. Default: 16, one step.
    pub flow_weight: u32,
    /// What a step onto a cell where a robot stands costs more (same units): without it robots
    /// route into jams, which then grow and hold the tasks finished down. Default: 16, one
    /// step.
    pub occupied_weight: u32,
    /// A robot that has not moved for this many steps is routed again (0: never). Default: 1.
    pub reroute_after: u32,
}

impl Default for SimPlannerConfig {
    fn default() -> Self {
        SimPlannerConfig {
            flow_weight: 16,
            occupied_weight: 16,
            reroute_after: 1,
        }
    }
}

/// The simulation-based planner.
#[derive(Debug)]
pub(crate) struct SimPlanner {
    config: SimPlannerConfig,
    model: ActionModel,
    sim: Simulation,
    ids: Vec<AgentId>,
    search: TurningSearch,
    /// Per (cell, heading): how many agents' routes step onto the cell facing that way.
    flow: Vec<u16>,
    /// Per agent: the (cell, heading) states of its route, counted in `flow`.
    route_states: Vec<Vec<u32>>,
    /// Per agent: the states of `route_states` already passed (no longer counted).
    route_done: Vec<usize>,
    /// Per agent: steps since it last moved.
    stalled: Vec<u32>,
}

impl SimPlanner {
    /// The planner for robots starting on `starts` of `grid` under `model`, tie-breaks seeded
    /// by `seed`, on the rayon pool when `parallel`.
    pub(crate) fn new(
        grid: &Grid,
        starts: &[CellId],
        model: ActionModel,
        seed: u64,
        parallel: bool,
        config: SimPlannerConfig,
    ) -> Result<SimPlanner> {
        let sim_config = SimConfig {
            planner: PlannerKind::AStar,
            conflicts: ConflictMode::Pibt,
            action_model: model,
            // Goals come one after the other, as in a lifelong run (more tasks finished under
            // the free model with the check: `docs/performance.md`).
            swap_needs_room: Some(true),
            seed,
            parallel,
            ..SimConfig::default()
        };
        let mut sim = Simulation::new(grid.clone(), sim_config)?;
        let ids = starts
            .iter()
            .map(|&s| sim.add_agent(s, None))
            .collect::<Result<Vec<_>>>()?;
        Ok(SimPlanner {
            config,
            model,
            sim,
            ids,
            search: TurningSearch::new(),
            flow: vec![0; grid.len() * 4],
            route_states: vec![Vec::new(); starts.len()],
            route_done: vec![0; starts.len()],
            stalled: vec![0; starts.len()],
        })
    }

    /// Sends each agent in `changed` to its next errand: under the rotate model along the
    /// route with the fewest steps plus turns ([`TurningSearch`]), under the free model by the
    /// simulation's planner.
    fn route(&mut self, input: &StepInput, changed: &[u32]) {
        for &a in changed {
            let Some(cell) = input.board.target(a) else {
                continue;
            };
            let id = self.ids[a as usize];
            let result = match self.model {
                ActionModel::Rotate => {
                    let (at, heading) = (input.positions[a as usize], input.headings[a as usize]);
                    let grid = self.sim.grid();
                    // Take the agent's old route off the flow before routing it again.
                    let done = std::mem::take(&mut self.route_done[a as usize]);
                    for &s in &self.route_states[a as usize][done..] {
                        self.flow[s as usize] -= 1;
                    }
                    self.route_states[a as usize].clear();
                    let flow = &self.flow;
                    let weight = self.config.flow_weight;
                    let occupancy = self.sim.occupancy();
                    let ow = self.config.occupied_weight;
                    let route = self
                        .search
                        .find_route_with(grid, at, heading, cell, |c, h| {
                            // Agents whose routes cross `c` the other way, and an agent on `c`
                            // now (a route through a jam is a slow route).
                            let against = c as usize * 4 + h.clockwise().clockwise().index();
                            let occupied = occupancy.agent_at(c).is_some();
                            weight * u32::from(flow[against]) + if occupied { ow } else { 0 }
                        });
                    match route {
                        Some(route) => {
                            let states = &mut self.route_states[a as usize];
                            for w in route.windows(2) {
                                if let Some(h) = Heading::toward(grid, w[0], w[1]) {
                                    states.push(w[1] * 4 + h.index() as u32);
                                }
                            }
                            for &s in states.iter() {
                                self.flow[s as usize] = self.flow[s as usize].saturating_add(1);
                            }
                            self.sim.set_route(id, route)
                        }
                        None => self.sim.set_goal(id, cell),
                    }
                }
                ActionModel::Free => self.sim.set_goal(id, cell),
            };
            result.expect("errands are free cells of the map");
        }
    }
}

impl StepPlanner for SimPlanner {
    fn retarget(&mut self, input: &StepInput, changed: &[u32]) {
        self.route(input, changed);
    }

    fn plan(&mut self, input: &StepInput, actions: &mut Vec<LorrAction>) {
        self.sim.step();
        let grid = self.sim.grid();
        actions.clear();
        for (a, &id) in self.ids.iter().enumerate() {
            let agent = self.sim.agent(id).expect("agents are never removed");
            let (from, to) = (input.positions[a], agent.position());
            actions.push(if from != to {
                match self.model {
                    ActionModel::Rotate => LorrAction::Forward,
                    ActionModel::Free => LorrAction::Move(
                        Heading::toward(grid, from, to)
                            .expect("the simulation moves straight under the LoRR models"),
                    ),
                }
            } else {
                input.headings[a].turn_toward(agent.heading()).into()
            });
            if from != to {
                // The stretch of its route an agent has passed no longer counts in the flow.
                let (states, done) = (&self.route_states[a], &mut self.route_done[a]);
                if let Some(k) = states[*done..].iter().take(4).position(|&s| s / 4 == to) {
                    for &s in &states[*done..*done + k + 1] {
                        self.flow[s as usize] -= 1;
                    }
                    *done += k + 1;
                }
            }
            self.stalled[a] = if from != to { 0 } else { self.stalled[a] + 1 };
        }
    }

    fn moved(&mut self, input: &StepInput, changed: &mut Vec<u32>) {
        let k = self.config.reroute_after;
        if k > 0 && self.model == ActionModel::Rotate {
            // Robots that did not move are routed again (around the robots that stand where
            // they are now). The list of agents whose errand changed is short and sorted.
            let reached = changed.len();
            for (a, stalled) in self.stalled.iter_mut().enumerate() {
                if *stalled >= k && changed[..reached].binary_search(&(a as u32)).is_err() {
                    *stalled = 0;
                    changed.push(a as u32);
                }
            }
        }
        self.route(input, changed);
    }

    fn simulation(&self) -> Option<&Simulation> {
        Some(&self.sim)
    }

    fn agrees(&self, positions: &[CellId], headings: &[Heading]) -> bool {
        self.ids.iter().enumerate().all(|(a, &id)| {
            self.sim.agent(id).is_some_and(|agent| {
                agent.position() == positions[a]
                    && (self.model == ActionModel::Free || agent.heading() == headings[a])
            })
        })
    }
}
