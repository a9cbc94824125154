//! Playing a League of Robot Runners problem on the [`Simulation`]: the task board gives each
//! agent its next errand as its goal, the simulation plans and moves (PIBT, with the rotate
//! or free action model), and every step's actions are kept for the output file.

use std::time::Instant;

use super::output;
use super::problem::Problem;
use super::tasks::TaskBoard;
use super::validate::{PlanError, free_letter, replay};
use crate::error::Result;
use crate::grid::{CellId, Direction, Grid};
use crate::planner::PlannerKind;
use crate::search::TurningSearch;
use crate::sim::{Action, ActionModel, AgentId, ConflictMode, Heading, SimConfig, Simulation};

/// Settings of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LorrConfig {
    /// The action model. Default: [`ActionModel::Rotate`], the competition's.
    pub action_model: ActionModel,
    /// Seed of the simulation's tie-breaks. Default: 0.
    pub seed: u64,
    /// Plan on the rayon pool. Default: `true` (same run either way).
    pub parallel: bool,
    /// Rotate model: what a step onto a cell costs more, in
    /// [`crate::search::turning::ACTION_COST`]ths of a step, for each other agent whose
    /// route crosses it the other way, so that routes keep to lanes. Default: 16, one step
    /// (tasks finished at other values: `docs/performance.md`).
    pub flow_weight: u32,
    /// Rotate model: what a step onto a cell where an agent stands costs more (same units).
    /// Without it robots route into jams, which then grow and hold the tasks finished down.
    /// Default: 16, one step.
    pub occupied_weight: u32,
    /// Rotate model: a robot that has not moved for this many steps is routed again (0:
    /// never). Default: 1 (the most tasks on RANDOM-01 and RANDOM-02 of 0, 1 and 2:
    /// `docs/performance.md`).
    pub reroute_after: u32,
}

impl Default for LorrConfig {
    fn default() -> Self {
        LorrConfig {
            action_model: ActionModel::Rotate,
            seed: 0,
            parallel: true,
            flow_weight: 16,
            occupied_weight: 16,
            reroute_after: 1,
        }
    }
}

/// Figures of a run so far.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LorrReport {
    /// Tasks finished.
    pub tasks_finished: u64,
    /// Steps played.
    pub steps: u64,
    /// Agents.
    pub agents: usize,
    /// Mean time of a step (assignment, planning and movement), milliseconds.
    pub mean_step_ms: f64,
    /// Longest step, milliseconds.
    pub max_step_ms: f64,
    /// Errands done (a task's errands count one each).
    pub errands_done: u64,
    /// Agent moves (`F`) over the run.
    pub moves: u64,
}

/// A problem being played.
#[derive(Debug)]
pub struct LorrRun {
    config: LorrConfig,
    sim: Simulation,
    ids: Vec<AgentId>,
    starts: Vec<CellId>,
    board: TaskBoard,
    /// One string of action letters per step, a letter per agent.
    actions: Vec<String>,
    step_ms: Vec<f64>,
    positions: Vec<CellId>,
    headings: Vec<Heading>,
    changed: Vec<u32>,
    moves: u64,
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

impl LorrRun {
    /// A run of `problem` at step 0, tasks revealed, none assigned yet.
    ///
    /// # Errors
    /// The simulation's, should a start be refused (not for a loaded [`Problem`]).
    pub fn new(problem: &Problem, config: LorrConfig) -> Result<LorrRun> {
        let sim_config = SimConfig {
            planner: PlannerKind::AStar,
            conflicts: ConflictMode::Pibt,
            action_model: config.action_model,
            // Goals come one after the other, as in a lifelong run (free moves: RANDOM-01 /
            // RANDOM-02 717 / 767 tasks with the check, 682 / 760 without).
            swap_needs_room: Some(true),
            seed: config.seed,
            parallel: config.parallel,
            ..SimConfig::default()
        };
        let mut sim = Simulation::new(problem.grid.clone(), sim_config);
        let ids = problem
            .starts
            .iter()
            .map(|&s| sim.add_agent(s, None))
            .collect::<Result<Vec<_>>>()?;
        let board = TaskBoard::new(
            &problem.grid,
            problem.tasks.clone(),
            problem.starts.len(),
            problem.reveal,
        );
        Ok(LorrRun {
            config,
            sim,
            ids,
            starts: problem.starts.clone(),
            board,
            actions: Vec::new(),
            step_ms: Vec::new(),
            positions: problem.starts.clone(),
            headings: vec![Heading::East; problem.starts.len()],
            changed: Vec::new(),
            moves: 0,
            search: TurningSearch::new(),
            flow: vec![0; problem.grid.len() * 4],
            route_states: vec![Vec::new(); problem.starts.len()],
            route_done: vec![0; problem.starts.len()],
            stalled: vec![0; problem.starts.len()],
        })
    }

    /// Plays one step: free agents get tasks, every agent heads for its next errand, the
    /// simulation plans and moves, errands reached are recorded.
    pub fn step(&mut self) {
        let t0 = Instant::now();
        let step = self.actions.len() as u64;
        self.board.assign(step, &self.positions, &mut self.changed);
        self.retarget();
        self.sim.step();
        let grid = self.sim.grid();
        let mut letters = String::with_capacity(self.ids.len());
        for (a, &id) in self.ids.iter().enumerate() {
            let agent = self.sim.agent(id).expect("agents are never removed");
            let (from, to) = (self.positions[a], agent.position());
            let letter = if from != to {
                self.moves += 1;
                match self.config.action_model {
                    ActionModel::Rotate => Action::Forward.letter(),
                    ActionModel::Free => move_letter(grid, from, to),
                }
            } else {
                match self.headings[a].turn_toward(agent.heading()) {
                    Action::Wait => 'W',
                    turn => turn.letter(),
                }
            };
            letters.push(letter);
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
            self.positions[a] = to;
            self.headings[a] = agent.heading();
            self.stalled[a] = if from != to { 0 } else { self.stalled[a] + 1 };
        }
        self.actions.push(letters);
        let step = self.actions.len() as u64;
        self.board.arrive(step, &self.positions, &mut self.changed);
        let k = self.config.reroute_after;
        if k > 0 && self.config.action_model == ActionModel::Rotate {
            // Robots that did not move are routed again (around the robots that stand where
            // they are now). The list of agents whose errand changed is short and sorted.
            let reached = self.changed.len();
            for (a, stalled) in self.stalled.iter_mut().enumerate() {
                if *stalled >= k && self.changed[..reached].binary_search(&(a as u32)).is_err() {
                    *stalled = 0;
                    self.changed.push(a as u32);
                }
            }
        }
        self.retarget();
        self.step_ms.push(t0.elapsed().as_secs_f64() * 1e3);
    }

    /// Sends each agent in `changed` to its next errand: under the rotate model along the
    /// route with the fewest steps plus turns ([`TurningSearch`]), under the free model by the
    /// simulation's planner.
    fn retarget(&mut self) {
        for &a in &self.changed {
            let Some(cell) = self.board.target(a) else {
                continue;
            };
            let id = self.ids[a as usize];
            let result = match self.config.action_model {
                ActionModel::Rotate => {
                    let (at, heading) = (self.positions[a as usize], self.headings[a as usize]);
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

    /// Plays `steps` steps.
    pub fn play(&mut self, steps: u64) {
        for _ in 0..steps {
            self.step();
        }
    }

    /// The figures so far.
    pub fn report(&self) -> LorrReport {
        let steps = self.step_ms.len();
        LorrReport {
            tasks_finished: self.board.finished(),
            steps: steps as u64,
            agents: self.ids.len(),
            mean_step_ms: self.step_ms.iter().sum::<f64>() / steps.max(1) as f64,
            max_step_ms: self.step_ms.iter().copied().fold(0.0, f64::max),
            errands_done: self.board.events().len() as u64,
            moves: self.moves,
        }
    }

    /// Replays the actions so far with the independent checker ([`replay`]) and checks that
    /// they end where the simulation's agents stand.
    ///
    /// # Errors
    /// The checker's first [`PlanError`], or [`PlanError::Shape`] when the ends differ.
    pub fn validate(&self) -> std::result::Result<(), PlanError> {
        let steps: Vec<&str> = self.actions.iter().map(String::as_str).collect();
        let (end, headings) = replay(
            self.sim.grid(),
            &self.starts,
            self.config.action_model,
            &steps,
        )?;
        if end != self.positions
            || (self.config.action_model == ActionModel::Rotate && headings != self.headings)
        {
            return Err(PlanError::Shape(
                "the replayed plan ends elsewhere than the simulation's agents".into(),
            ));
        }
        Ok(())
    }

    /// The actions so far: one string per step, a letter per agent.
    pub fn actions(&self) -> &[String] {
        &self.actions
    }

    /// The task board.
    pub fn board(&self) -> &TaskBoard {
        &self.board
    }

    /// The simulation underneath.
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }

    /// Writes the competition's output JSON (`actionModel`, `teamSize`, `start`, `actualPaths`,
    /// `plannerTimes`, `events`, `tasks`, ...), which PlanViz replays.
    ///
    /// # Errors
    /// The writer's.
    pub fn write_output(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        output::write(
            out,
            self.sim.grid(),
            self.config.action_model,
            &self.starts,
            &self.actions,
            &self.step_ms,
            &self.board,
        )
    }
}

/// The free model's letter for the move `from -> to`.
fn move_letter(grid: &Grid, from: CellId, to: CellId) -> char {
    let (fx, fy) = grid.coords(from);
    let (tx, ty) = grid.coords(to);
    let d = Direction::from_delta(tx as i32 - fx as i32, ty as i32 - fy as i32);
    d.and_then(free_letter).unwrap_or('?')
}
