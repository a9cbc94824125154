//! The simulation bundle: grid, agents, stages and metrics behind one `step()`.

mod lifelong_goals;
mod summary;
mod tick;

use super::action_model::Heading;
use super::agent::{Agent, AgentId, AgentSet};
use super::command::Command;
use super::config::SimConfig;
use super::control::{ActionOutcome, AgentAction};
use super::events::TickEvents;
use super::metrics::{Metrics, TickReport};
use super::movement::MovementStage;
use super::occupancy::Occupancy;
use super::planning::PlanningStage;
use super::stuck::StuckResolution;

use crate::error::{Error, Result};
use crate::grid::{CellChange, CellId, Grid};
use crate::nav::{NavGraph, NavOptions};
use crate::planner::PlannerKind;

/// A crowd on a shared grid. Each [`step`](Self::step) plays one tick:
///
/// 1. apply queued [`Command`]s (add/remove agents, set goals, map changes);
/// 2. collect the agents that need a plan (new goal, blocked path, waited too long);
/// 3. plan them in parallel on the current rayon pool, each worker with its own workspace,
///    at most [`SimConfig::max_plans_per_tick`] per tick, oldest request first;
/// 4. move every agent with a path one cell, resolving conflicts deterministically;
///    a crowd found stuck follows a LaCAM plan instead, one joint step per tick
///    (see [`SimConfig::resolve_stuck`]);
/// 5. record metrics and return a [`TickReport`].
///
/// What the tick did (plans, moves, arrivals, goals given, ...) is then in
/// [`last_events`](Self::last_events).
///
/// The same grid, agents, config and seed give the same run whatever the number of threads.
///
/// Agents can also be driven from outside, move by move ([`set_controlled`](Self::set_controlled),
/// [`step_with_actions`](Self::step_with_actions)): see [`AgentAction`](crate::sim::AgentAction).
///
/// ```
/// use throng::grid::Grid;
/// use throng::sim::{AgentState, SimConfig, Simulation};
///
/// let grid = Grid::from_ascii(
///     "........\n\
///      .######.\n\
///      ........",
/// )?;
/// let mut sim = Simulation::new(grid, SimConfig::default())?;
/// let start = sim.grid().cell(0, 0).unwrap();
/// let goal = sim.grid().cell(7, 2).unwrap();
/// let id = sim.add_agent(start, Some(goal))?;
/// while sim.agent(id).unwrap().state() != AgentState::Arrived {
///     let report = sim.step();
///     assert!(report.tick < 100);
/// }
/// assert_eq!(sim.agent(id).unwrap().position(), goal);
/// let summary = sim.summary();
/// assert_eq!(summary.arrived, 1);
/// # Ok::<(), throng::error::Error>(())
/// ```
#[derive(Debug)]
pub struct Simulation {
    pub(super) grid: Grid,
    pub(super) agents: AgentSet,
    pub(super) config: SimConfig,
    pub(super) tick: u64,
    pub(super) commands: Vec<Command>,
    pub(super) occupancy: Occupancy,
    pub(super) planning: PlanningStage,
    pub(super) movement: MovementStage,
    pub(super) metrics: Metrics,
    /// Walkable cells of each connected component, for seeded lifelong goals.
    pub(super) component_cells: Vec<Vec<CellId>>,
    /// Navigation points of the grid, for the `nav` and `auto` planners (built in `new`,
    /// repaired by `change_map`).
    pub(super) nav: Option<NavGraph>,
    /// Slots of controlled agents given the cell they stand on as goal: they arrive when the
    /// next tick is played.
    pub(super) settle: Vec<u32>,
    /// What the last tick did, with the calls made before it (see [`TickEvents`]).
    pub(super) events: TickEvents,
    /// The calls made since the last tick (agents added and removed, goals, map changes):
    /// the start of the next tick's events.
    pub(super) calls: TickEvents,
    /// Per slot, whether an action names the agent (duplicate check; all false between calls).
    pub(super) named: Vec<bool>,
    /// Detection and resolution of a stuck crowd (see `sim::stuck`).
    pub(super) stuck: StuckResolution,
    /// Scratch: the slots of agents left without a path (lifelong runs give them new goals).
    pub(super) retry: Vec<u32>,
}

impl Simulation {
    /// A simulation with no agent. With the `nav` or `auto` planner it builds the grid's
    /// navigation graph now (default options), which those planners plan through.
    ///
    /// # Errors
    /// [`Error::Invalid`] for settings that cannot play on `grid` ([`SimConfig::check`]).
    pub fn new(grid: Grid, config: SimConfig) -> Result<Simulation> {
        Self::assemble(grid, config, None)
    }

    /// A simulation with no agent whose `nav` and `auto` planners plan through `nav`: navigation
    /// points the caller built with its own options or loaded from a file
    /// ([`NavGraph::load`]), made for this grid. The simulation keeps them and repairs them on
    /// map changes, as the graph [`new`](Self::new) builds.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::planner::PlannerKind;
    /// use throng::nav::{NavGraph, NavOptions};
    /// use throng::sim::{SimConfig, Simulation};
    ///
    /// let grid = Grid::from_ascii("........\n.######.\n........")?;
    /// let nav = NavGraph::build(&grid, &NavOptions::default())?;
    /// let config = SimConfig { planner: PlannerKind::Nav, ..SimConfig::default() };
    /// let mut sim = Simulation::with_nav_graph(grid.clone(), config.clone(), nav)?;
    /// sim.add_agent(0, Some(23))?;
    /// let other = Grid::from_ascii("........\n........\n........")?;
    /// let stale = NavGraph::build(&other, &NavOptions::default())?;
    /// assert!(Simulation::with_nav_graph(grid, config, stale).is_err());
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] when `nav` was made for another grid (size, movement rule or
    /// walkable cells differ), and as [`new`](Self::new).
    pub fn with_nav_graph(grid: Grid, config: SimConfig, nav: NavGraph) -> Result<Simulation> {
        if !nav.matches(&grid) {
            return Err(Error::Invalid(
                "the navigation graph was made for another grid (size, movement rule or \
                 walkable cells differ)"
                    .into(),
            ));
        }
        Self::assemble(grid, config, Some(nav))
    }

    /// [`new`](Self::new) with the navigation graph given, or built when the planner needs one.
    fn assemble(grid: Grid, config: SimConfig, nav: Option<NavGraph>) -> Result<Simulation> {
        config.check(grid.neighborhood())?;
        let occupancy = Occupancy::new(grid.len());
        // `nav` and `auto` plan through a navigation graph (the rule of `Planner`); an agent
        // added later with one of them gets it then (`insert_agent`).
        let nav = nav.or_else(|| {
            config.planner.uses_nav().then(|| {
                NavGraph::build(&grid, &NavOptions::default())
                    .expect("the default navigation options are valid")
            })
        });
        let mut sim = Simulation {
            grid,
            agents: AgentSet::new(),
            config,
            tick: 0,
            commands: Vec::new(),
            occupancy,
            planning: PlanningStage::new(),
            movement: MovementStage::new(),
            metrics: Metrics::default(),
            component_cells: Vec::new(),
            nav,
            settle: Vec::new(),
            events: TickEvents::new(0),
            calls: TickEvents::new(0),
            named: Vec::new(),
            stuck: StuckResolution::default(),
            retry: Vec::new(),
        };
        sim.index_components();
        Ok(sim)
    }

    /// The grid (read-only; change it with [`Command::ChangeMap`] or
    /// [`change_map`](Self::change_map)).
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The settings.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// All agents.
    pub fn agents(&self) -> &AgentSet {
        &self.agents
    }

    /// One agent, or `None` for a removed agent's id.
    pub fn agent(&self, id: AgentId) -> Option<&Agent> {
        self.agents.get(id)
    }

    /// Every slot's cell in one contiguous array, indexed by [`AgentId::index`]
    /// ([`crate::grid::NO_CELL`] for a free slot): the live agents' positions in slot order
    /// without a walk over the agent records (see [`AgentSet::positions`]).
    ///
    /// ```
    /// use throng::grid::{Grid, NO_CELL};
    /// use throng::sim::{SimConfig, Simulation};
    ///
    /// let mut sim = Simulation::new(Grid::from_ascii("....")?, SimConfig::default())?;
    /// let a = sim.add_agent(0, Some(3))?;
    /// let b = sim.add_agent(2, None)?;
    /// sim.remove_agent(b)?;
    /// assert_eq!(sim.slot_positions(), &[0, NO_CELL]);
    /// sim.step();
    /// assert_eq!(sim.slot_positions()[a.index() as usize], 1);
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    #[inline]
    pub fn slot_positions(&self) -> &[CellId] {
        self.agents.positions()
    }

    /// The next tick to be played (ticks played so far).
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// What the last tick played did, with the calls made between it and the tick before
    /// (agents added and removed, goals given, map changes): see [`TickEvents`]. Empty before
    /// the first tick. Read it after each tick to follow every change without scanning the
    /// crowd.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::sim::{SimConfig, Simulation};
    ///
    /// let mut sim = Simulation::new(Grid::from_ascii("...")?, SimConfig::default())?;
    /// let id = sim.add_agent(0, Some(2))?;
    /// sim.step(); // plans, then steps onto cell 1
    /// let events = sim.last_events();
    /// assert_eq!(events.added(), &[id]);
    /// assert_eq!(events.plans().len(), 1);
    /// assert_eq!((events.moves()[0].from, events.moves()[0].to), (0, 1));
    /// sim.step();
    /// assert_eq!(sim.last_events().arrivals()[0].agent, id);
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    pub fn last_events(&self) -> &TickEvents {
        &self.events
    }

    /// Whether calls made since the last tick changed agents or the map (they will be in the
    /// next tick's events, not in [`last_events`](Self::last_events)). Read by the trace
    /// recorder, so only built with it.
    #[cfg(feature = "trace")]
    pub(crate) fn calls_pending(&self) -> bool {
        self.calls.has_agent_or_map_events()
    }

    /// Which agent is on each cell (maintained when conflicts are on).
    pub fn occupancy(&self) -> &Occupancy {
        &self.occupancy
    }

    /// Queues a command for the start of the next tick.
    pub fn queue(&mut self, command: Command) {
        self.commands.push(command);
    }

    /// Adds an agent at `start` now, with an optional goal.
    ///
    /// # Errors
    /// [`Error::InvalidQuery`] when `start` or `goal` is outside the grid or blocked;
    /// [`Error::CellOccupied`] when conflicts are on and another agent stands on `start`.
    pub fn add_agent(&mut self, start: CellId, goal: Option<CellId>) -> Result<AgentId> {
        self.insert_agent(start, goal, None, false)
    }

    /// [`add_agent`](Self::add_agent) for an agent driven from outside from the start (see
    /// [`set_controlled`](Self::set_controlled)).
    ///
    /// # Errors
    /// As [`add_agent`](Self::add_agent).
    pub fn add_controlled_agent(&mut self, start: CellId, goal: Option<CellId>) -> Result<AgentId> {
        self.insert_agent(start, goal, None, true)
    }

    /// Makes an agent driven from outside (`true`) or planned by the engine again (`false`),
    /// now. A controlled agent is never planned for (its pending plan request, route and D*
    /// Lite state are dropped) and never follows a route: each tick it stays unless
    /// [`step_with_actions`](Self::step_with_actions) moves it (see [`AgentAction`](crate::sim::AgentAction)).
    /// Released, an agent with a goal it has not reached asks for a plan from where it
    /// stands (counted as a plan for a new goal; its trip still counts from when the goal was
    /// given); one on its goal stays there, arrived.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::grid::Direction;
    /// use throng::sim::{ActionOutcome, AgentAction, AgentState, SimConfig, Simulation};
    ///
    /// let mut sim = Simulation::new(Grid::from_ascii("....\n.#..")?, SimConfig::default())?;
    /// let id = sim.add_agent(0, Some(3))?;
    /// sim.set_controlled(id, true)?;
    /// sim.step(); // no action: it stays
    /// assert_eq!(sim.agent(id).unwrap().position(), 0);
    /// assert_eq!(sim.agent(id).unwrap().state(), AgentState::Waiting);
    /// let (_, outcomes) = sim.step_with_actions(&[(id, AgentAction::Move(Direction::South))])?;
    /// assert_eq!(outcomes, [ActionOutcome::Moved]);
    /// let (_, outcomes) = sim.step_with_actions(&[(id, AgentAction::Move(Direction::East))])?;
    /// assert_eq!(outcomes, [ActionOutcome::Illegal]); // into the wall
    /// sim.set_controlled(id, false)?; // planned again: off to its goal
    /// while sim.agent(id).unwrap().state() != AgentState::Arrived {
    ///     assert!(sim.step().tick < 20);
    /// }
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::UnknownAgent`] for a stale id.
    pub fn set_controlled(&mut self, id: AgentId, controlled: bool) -> Result<()> {
        let tick = self.tick;
        let mut agent = self.agents.get_mut(id).ok_or(Error::UnknownAgent(id))?;
        if agent.set_controlled(controlled, tick) {
            self.settle.push(id.index());
        }
        Ok(())
    }

    /// [`add_agent`](Self::add_agent) for an agent that plans with `planner` rather than
    /// [`SimConfig::planner`] (see [`Agent::planner`]). The `nav` and `auto` planners need the
    /// grid's navigation graph: when the simulation has none yet (its default planner does not
    /// use one), it is built now, once, and kept up to date by later map changes.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::planner::PlannerKind;
    /// use throng::sim::{SimConfig, Simulation};
    ///
    /// let grid = Grid::from_ascii(&vec![".".repeat(40); 20].join("\n"))?;
    /// let mut sim = Simulation::new(grid, SimConfig::default())?;
    /// let (a, b) = (sim.grid().cell(0, 0).unwrap(), sim.grid().cell(39, 19).unwrap());
    /// let id = sim.add_agent_with_planner(a, Some(b), PlannerKind::Nav)?;
    /// assert_eq!(sim.agent(id).unwrap().planner(), Some(PlannerKind::Nav));
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`add_agent`](Self::add_agent), and the navigation graph's build errors.
    pub fn add_agent_with_planner(
        &mut self,
        start: CellId,
        goal: Option<CellId>,
        planner: PlannerKind,
    ) -> Result<AgentId> {
        self.insert_agent(start, goal, Some(planner), false)
    }

    fn insert_agent(
        &mut self,
        start: CellId,
        goal: Option<CellId>,
        planner: Option<PlannerKind>,
        controlled: bool,
    ) -> Result<AgentId> {
        self.check_cell(start, "start")?;
        if let Some(goal) = goal {
            self.check_cell(goal, "goal")?;
        }
        if self.config.conflicts.separates()
            && let Some(slot) = self.occupancy.agent_at(start)
        {
            let (x, y) = self.grid.coords(start);
            return Err(Error::CellOccupied {
                x,
                y,
                agent: self.agents.id_at(slot).expect("occupant is live"),
            });
        }
        if planner.is_some_and(PlannerKind::uses_nav) && self.nav.is_none() {
            self.nav = Some(NavGraph::build(&self.grid, &NavOptions::default())?);
        }
        let mut agent = Agent::new(start, self.tick, planner, controlled);
        if let Some(goal) = goal {
            agent.set_goal(goal, self.tick);
        }
        let id = self.agents.insert(agent);
        self.calls.agent_added(id, start);
        if self.config.conflicts.separates() {
            self.occupancy.set(start, id.index());
        }
        if controlled && goal == Some(start) {
            self.settle.push(id.index());
        }
        Ok(id)
    }

    /// Removes an agent now.
    ///
    /// # Errors
    /// [`Error::UnknownAgent`] when the id is stale.
    pub fn remove_agent(&mut self, id: AgentId) -> Result<()> {
        let agent = self.agents.remove(id).ok_or(Error::UnknownAgent(id))?;
        self.calls.agent_removed(id, agent.position());
        if self.config.conflicts.separates() {
            self.occupancy.clear(agent.position());
        }
        Ok(())
    }

    /// Gives an agent a new goal now; it is planned in the next tick.
    ///
    /// # Errors
    /// [`Error::UnknownAgent`] for a stale id, [`Error::InvalidQuery`] for a goal outside the
    /// grid or blocked.
    pub fn set_goal(&mut self, id: AgentId, goal: CellId) -> Result<()> {
        self.check_cell(goal, "goal")?;
        let tick = self.tick;
        let mut agent = self.agents.get_mut(id).ok_or(Error::UnknownAgent(id))?;
        agent.set_goal(goal, tick);
        if agent.is_controlled() && agent.position() == goal {
            self.settle.push(id.index());
        }
        self.calls.goal(id, goal);
        Ok(())
    }

    /// Sets an agent's priority class in conflicts, now: where agents contend for cells, those
    /// of a higher class go first, whatever the others' waiting (VIPs through a crowd, an
    /// ambulance). 0, every agent's default, leaves the order to the conflict mode's own rule.
    /// In `pibt` the class comes before PIBT's priority (the time since the agent last stood
    /// on its goal), so agents of a lower class can wait as long as higher ones keep coming;
    /// in `avoid` agents claim their cells class by class, highest first (slot order within a
    /// class); `off` has no conflicts.
    ///
    /// # Errors
    /// [`Error::UnknownAgent`] for a stale id.
    pub fn set_priority(&mut self, id: AgentId, priority: u8) -> Result<()> {
        let mut agent = self.agents.get_mut(id).ok_or(Error::UnknownAgent(id))?;
        agent.set_priority(priority);
        Ok(())
    }

    /// Sets an agent's own planner (`None`: the simulation's, [`SimConfig::planner`]), now. An
    /// agent on its way plans again with it at the next tick; one that waits for a goal plans
    /// with it when given one. A navigation-graph planner builds the graph on first use.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::planner::PlannerKind;
    /// use throng::sim::{SimConfig, Simulation};
    ///
    /// let mut sim = Simulation::new(Grid::from_ascii("......")?, SimConfig::default())?;
    /// let id = sim.add_agent(0, Some(5))?;
    /// sim.set_planner(id, Some(PlannerKind::AStar))?;
    /// assert_eq!(sim.agent(id).unwrap().planner(), Some(PlannerKind::AStar));
    /// sim.step();
    /// assert_eq!(sim.last_events().plans().len(), 1);
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::UnknownAgent`] for a stale id; the navigation graph's build errors.
    pub fn set_planner(&mut self, id: AgentId, planner: Option<PlannerKind>) -> Result<()> {
        if self.agents.get(id).is_none() {
            return Err(Error::UnknownAgent(id));
        }
        if planner.is_some_and(PlannerKind::uses_nav) && self.nav.is_none() {
            self.nav = Some(NavGraph::build(&self.grid, &NavOptions::default())?);
        }
        let tick = self.tick;
        let mut agent = self.agents.get_mut(id).expect("checked above");
        agent.set_planner(planner, tick);
        Ok(())
    }

    /// Leaves an agent without a goal now: it drops its route and stands (state idle) until
    /// given a goal again, still making way for others where the conflict mode pushes agents.
    /// An agent without a goal stays so.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::sim::{AgentState, SimConfig, Simulation};
    ///
    /// let mut sim = Simulation::new(Grid::from_ascii("....")?, SimConfig::default())?;
    /// let id = sim.add_agent(0, Some(3))?;
    /// sim.step();
    /// sim.clear_goal(id)?;
    /// sim.step();
    /// let agent = sim.agent(id).unwrap();
    /// assert_eq!((agent.goal(), agent.state(), agent.position()), (None, AgentState::Idle, 1));
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::UnknownAgent`] for a stale id.
    pub fn clear_goal(&mut self, id: AgentId) -> Result<()> {
        let mut agent = self.agents.get_mut(id).ok_or(Error::UnknownAgent(id))?;
        if agent.goal().is_some() {
            agent.clear_goal();
            self.calls.goal_cleared(id);
        }
        Ok(())
    }

    /// Gives an agent a route of its own now: `route` starts on the agent's cell and each cell
    /// is one legal move from the previous; its last cell becomes the agent's goal, and no
    /// planner is asked (unless the agent is later pushed far off it: see
    /// [`SimConfig::drift_replan`]). For callers with planners of their own, such as the
    /// turning search of [`crate::lorr`].
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::sim::{SimConfig, Simulation};
    ///
    /// let grid = Grid::from_ascii("...\n...")?;
    /// let mut sim = Simulation::new(grid, SimConfig::default())?;
    /// let id = sim.add_agent(0, None)?;
    /// sim.set_route(id, &[0, 3, 4])?; // down, then right
    /// sim.step();
    /// sim.step();
    /// assert_eq!(sim.agent(id).unwrap().position(), 4);
    /// assert!(sim.set_route(id, &[0, 1]).is_err()); // does not start where the agent is
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::UnknownAgent`] for a stale id, [`Error::Invalid`] for a route that is empty,
    /// does not start on the agent's cell, or makes an illegal move, and for a controlled agent
    /// (it follows no route: see [`set_controlled`](Self::set_controlled)).
    pub fn set_route(&mut self, id: AgentId, route: &[CellId]) -> Result<()> {
        let tick = self.tick;
        let agent = self.agents.get(id).ok_or(Error::UnknownAgent(id))?;
        if agent.is_controlled() {
            return Err(Error::Invalid(format!(
                "agent {} is controlled from outside: it follows no route",
                id.to_bits()
            )));
        }
        let position = agent.position();
        if route.first() != Some(&position) {
            return Err(Error::Invalid(format!(
                "a route must start on the agent's cell {position}"
            )));
        }
        self.grid
            .path_cost(route)
            .map_err(|e| Error::Invalid(format!("illegal route: {e}")))?;
        let width = self.grid.width();
        let mut agent = self.agents.get_mut(id).ok_or(Error::UnknownAgent(id))?;
        agent.set_route(route, width, tick);
        self.calls.goal(id, *route.last().expect("not empty"));
        Ok(())
    }

    /// Turns an agent to face `heading` now (action model `rotate`; agents start facing east).
    ///
    /// # Errors
    /// [`Error::UnknownAgent`] for a stale id.
    pub fn set_heading(&mut self, id: AgentId, heading: Heading) -> Result<()> {
        let mut agent = self.agents.get_mut(id).ok_or(Error::UnknownAgent(id))?;
        agent.set_heading(heading);
        Ok(())
    }

    /// Edits the map now (between ticks). Agents whose remaining path crosses a cell that is
    /// no longer walkable, or a cell whose cost changed, stop and ask for a new plan. A cell an agent stands on cannot be
    /// blocked (the agent would stand in a wall): such a batch is refused whole, as scenario
    /// schedules avoid by leaving those cells out ([`crate::scenario::ChangeSchedule`]).
    ///
    /// # Errors
    /// As [`Grid::apply`], and [`Error::CellOccupied`] when a change blocks a cell an agent
    /// stands on; on error nothing changes.
    pub fn change_map(&mut self, changes: &[CellChange]) -> Result<()> {
        let blocked: std::collections::HashSet<CellId> = changes
            .iter()
            .filter_map(|c| match *c {
                CellChange::SetWalkable {
                    cell,
                    walkable: false,
                } => Some(cell),
                _ => None,
            })
            .collect();
        if !blocked.is_empty()
            && let Some((id, agent)) = self
                .agents
                .iter()
                .find(|(_, a)| blocked.contains(&a.position()))
        {
            let (x, y) = self.grid.coords(agent.position());
            return Err(Error::CellOccupied { x, y, agent: id });
        }
        self.grid.apply(changes)?;
        self.calls.cells.extend_from_slice(changes);
        if let Some(nav) = &mut self.nav {
            let cells: Vec<CellId> = changes
                .iter()
                .map(|c| match *c {
                    CellChange::SetWalkable { cell, .. } | CellChange::SetCost { cell, .. } => cell,
                })
                .collect();
            nav.apply_changes(&self.grid, &cells)?;
        }
        self.index_components();
        let tick = self.tick;
        let opened = changes
            .iter()
            .any(|c| matches!(c, CellChange::SetWalkable { walkable: true, .. }));
        let costed: std::collections::HashSet<CellId> = changes
            .iter()
            .filter_map(|c| match *c {
                CellChange::SetCost { cell, .. } => Some(cell),
                CellChange::SetWalkable { .. } => None,
            })
            .collect();
        let mut scratch = Vec::new();
        for (_, mut agent) in self.agents.iter_mut() {
            if let Some(dstar) = agent.dstar_mut() {
                dstar.notify_cell_changes(&self.grid, changes);
            }
            agent.map_changed(&self.grid, opened, &costed, tick, &mut scratch);
        }
        Ok(())
    }

    /// Plays one tick and returns its report.
    pub fn step(&mut self) -> TickReport {
        self.play(&[], &mut Vec::new())
    }

    /// Plays one tick in which the agents named in `actions` do as told (see
    /// [`AgentAction`](crate::sim::AgentAction) for the rules), and returns its report with the outcome of each
    /// action, in the order given. Controlled agents not named stay; other agents not named
    /// follow their routes as in [`step`](Self::step), which this is with no action.
    ///
    /// Actions are applied in the movement phase, after the tick's queued commands and plans:
    /// a move is judged legal on the map as it is then, and an agent that a command queued for
    /// the same tick removed gets [`ActionOutcome::Illegal`].
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::grid::Direction::{East, West};
    /// use throng::sim::{ActionOutcome, AgentAction, SimConfig, Simulation};
    ///
    /// let mut sim = Simulation::new(Grid::from_ascii("...")?, SimConfig::default())?;
    /// let a = sim.add_controlled_agent(0, None)?;
    /// let b = sim.add_controlled_agent(2, None)?;
    /// // Both want the middle cell: one gets it, the other is blocked.
    /// let (report, outcomes) = sim.step_with_actions(&[
    ///     (a, AgentAction::Move(East)),
    ///     (b, AgentAction::Move(West)),
    /// ])?;
    /// assert_eq!(report.moved, 1);
    /// assert!(outcomes.contains(&ActionOutcome::Moved) && outcomes.contains(&ActionOutcome::Blocked));
    /// assert!(sim.step_with_actions(&[(a, AgentAction::Wait), (a, AgentAction::Wait)]).is_err());
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// Before anything is played: [`Error::UnknownAgent`] for a stale id, [`Error::Invalid`]
    /// for an agent named twice, and for a move under the action model `rotate` with conflicts
    /// `pibt` (robots that turn have no step in a direction: see [`AgentAction`](crate::sim::AgentAction)).
    pub fn step_with_actions(
        &mut self,
        actions: &[(AgentId, AgentAction)],
    ) -> Result<(TickReport, Vec<ActionOutcome>)> {
        self.check_actions(actions)?;
        let mut outcomes = Vec::with_capacity(actions.len());
        let report = self.play(actions, &mut outcomes);
        Ok((report, outcomes))
    }

    fn check_actions(&mut self, actions: &[(AgentId, AgentAction)]) -> Result<()> {
        let rotate = self.config.action_model == super::ActionModel::Rotate
            && self.config.conflicts == super::ConflictMode::Pibt;
        if rotate
            && let Some((id, _)) = actions
                .iter()
                .find(|(_, a)| matches!(a, AgentAction::Move(_)))
        {
            return Err(Error::Invalid(format!(
                "agent {}: moves in a direction are not actions of the action model rotate \
                 (robots move forward and turn); only waits can be given",
                id.to_bits()
            )));
        }
        self.named.clear();
        self.named.resize(self.agents.slot_count(), false);
        let mut result = Ok(());
        for &(id, _) in actions {
            if self.agents.get(id).is_none() {
                result = Err(Error::UnknownAgent(id));
                break;
            }
            if std::mem::replace(&mut self.named[id.index() as usize], true) {
                result = Err(Error::Invalid(format!(
                    "agent {} is given more than one action",
                    id.to_bits()
                )));
                break;
            }
        }
        self.named.clear();
        result
    }

    fn check_cell(&self, cell: CellId, what: &str) -> Result<()> {
        if !self.grid.contains(cell) {
            return Err(crate::search::QueryError::CellOutOfBounds {
                cell,
                cells: self.grid.len(),
            }
            .into());
        }
        if !self.grid.is_walkable(cell) {
            let (x, y) = self.grid.coords(cell);
            return Err(if what == "start" {
                crate::search::QueryError::StartBlocked { x, y }
            } else {
                crate::search::QueryError::GoalBlocked { x, y }
            }
            .into());
        }
        Ok(())
    }
}
