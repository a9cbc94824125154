//! The planning phase: collect the agents that need a plan, plan them in parallel, apply.
//!
//! Each plan is a [`Planner`] query (the agent's planner, else the config's, with the
//! simulation's navigation graph), except replans around other agents and the repairs of a
//! `dstar` agent's own search, which only a simulation makes. Each rayon worker uses its own
//! [`PlanWorkspace`], kept in a per-stage thread-local ([`ThreadLocal`]): the workspaces
//! survive from tick to tick, so planning does not allocate once warm. The jobs are sorted most
//! expensive first (estimated by the distance searched across) and handed out one at a time to
//! whichever worker frees up (list scheduling), through a lock-free bounded channel of borrows
//! (its buffer is the one allocation of a tick that plans): each job is borrowed by the one
//! worker that runs it, no lock; they go back to queue order to be applied. Replans around
//! other agents first try a short detour back onto the agent's path ([`SimConfig::detours`]).
//! A plan depends only on the grid, the agent's start and goal and the occupancy snapshot
//! taken before the phase, never on which thread ran it, so any number of threads gives the
//! same plans.
//!
//! Memory: a worker's per-cell arrays (11 bytes a cell) are allocated zeroed, which the
//! operating system maps page by page as searches first touch them, so a worker costs memory
//! only for the part of the map its searches reach, and the first tick pays page faults for
//! those cells only, not for the whole map. There is deliberately no warm-up that would touch
//! every page ahead of time: it would cost every worker the whole map (figures on a 4096 x 4096
//! map: `docs/performance.md`).

use std::cell::RefCell;
use std::cmp::Reverse;
use std::time::Instant;

use thread_local::ThreadLocal;

use super::agent::{AgentSet, RouteCode};
use super::config::SimConfig;
use super::events::{ArrivalKind, PlanMade, PlanReason, TickEvents};
use super::occupancy::Occupancy;
use crate::dstar::DStarLite;
use crate::error::Result;
use crate::grid::{CellId, Grid};
use crate::nav::NavGraph;
use crate::planner::{PlanWorkspace, Planner, PlannerKind};
use crate::search::{QueryError, SearchOptions, SearchOutcome, SearchWorkspace};

/// One plan to make. Jobs (and their path buffers) are kept between ticks and reused.
#[derive(Debug, Default)]
struct PlanJob {
    /// The job's place in the queue (oldest request first): the order results are applied in.
    rank: u32,
    /// The estimated cost that orders the jobs for the workers (see [`estimated_cost`]).
    cost: u32,
    slot: u32,
    start: CellId,
    goal: CellId,
    reason: Option<PlanReason>,
    /// The planner of this plan: the agent's own, else the config's.
    planner: PlannerKind,
    /// Receives the new path, coded as the agent keeps it (the worker codes it as soon as it
    /// is found, so that a tick of many plans holds them compact); the agent takes it on
    /// success.
    path: RouteCode,
    /// For a replan around other agents: the agent's current path from where it stands,
    /// decoded for the parallel section (a detour rejoins it).
    route: Vec<CellId>,
    /// Where a detour would rejoin `route` (an index in it), when one is tried; found
    /// once, before the parallel section (it also ranks the job).
    detour_exit: Option<usize>,
    /// Whether the new path is a detour.
    detoured: bool,
    outcome: Option<Result<SearchOutcome, QueryError>>,
    expanded: u64,
    nanos: u64,
    /// Whether the plan resumed an earlier D* Lite search (a repair).
    repaired: bool,
    /// The agent's D* Lite state, moved out of the agent for the parallel section and back
    /// after (planner `dstar`, plans other than replans around agents).
    dstar: Option<Box<DStarLite>>,
}

/// The planning phase: plans every agent with a pending request in parallel, each rayon worker
/// with its own workspace kept in a per-stage thread-local (no contended lock, no
/// allocation once warm), expensive plans first. Plans depend only on the grid, the agent and
/// the occupancy snapshot, never on the thread, so any thread count gives the same plans.
///
/// Owned by a [`crate::sim::Simulation`], which runs it once a tick.
#[derive(Default)]
pub(crate) struct PlanningStage {
    /// One workspace per worker, made on first use: every planner's queries and the replans
    /// around agents share it, so that a worker holds one set of per-cell arrays, not one per
    /// planner.
    workspaces: ThreadLocal<RefCell<PlanWorkspace>>,
    /// The tick's jobs (first `count`), with their buffers kept for later ticks.
    jobs: Vec<PlanJob>,
    queue: Vec<(u64, u32)>,
}

impl std::fmt::Debug for PlanningStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanningStage")
            .field("jobs", &self.jobs.len())
            .finish_non_exhaustive()
    }
}

impl PlanningStage {
    /// A stage with no workspace yet (each worker makes its own on first use).
    pub fn new() -> Self {
        Self::default()
    }

    /// Plans every agent with a pending request (oldest request first, at most
    /// `config.max_plans_per_tick`), then applies the results to the agents, in the tick of
    /// `events` (the tick being played). `nav` is the navigation graph of `grid` (kept
    /// matching it by the caller), which the `nav` and `auto` planners plan through.
    ///
    /// Appends to `events` what it did: each plan made (in queue order), the requests deferred
    /// by the cap, and the arrivals of the agents a plan finds standing on their goal (a plan
    /// of one cell: [`ArrivalKind::Standing`]).
    ///
    /// # Errors
    /// [`crate::error::Error::Invalid`] when an agent to plan uses `nav` or `auto` and `nav` is `None`
    /// (the rule of [`Planner`]: no silent fallback); no agent is changed then.
    pub fn run(
        &mut self,
        grid: &Grid,
        agents: &mut AgentSet,
        occupancy: &Occupancy,
        config: &SimConfig,
        nav: Option<&NavGraph>,
        events: &mut TickEvents,
    ) -> Result<()> {
        self.queue.clear();
        for (id, agent) in agents.iter() {
            if let Some(since) = agent.plan_requested_at() {
                Planner::with_graph(agent.planner().unwrap_or(config.planner), nav)?;
                self.queue.push((since, id.index()));
            }
        }
        self.queue.sort_unstable();
        let cap = config.max_plans_per_tick.unwrap_or(usize::MAX);
        let count = self.queue.len().min(cap);
        events.deferred += (self.queue.len() - count) as u32;

        if self.jobs.len() < count {
            self.jobs.resize_with(count, PlanJob::default);
        }
        for (rank, (job, &(_, slot))) in self.jobs.iter_mut().zip(&self.queue[..count]).enumerate()
        {
            job.rank = rank as u32;
            let mut agent = agents.at_mut(slot).expect("queued agents are live");
            job.slot = slot;
            job.start = agent.position();
            job.goal = agent.goal().unwrap_or(job.start);
            job.reason = agent.take_plan_request();
            job.outcome = None;
            job.repaired = false;
            job.planner = agent.planner().unwrap_or(config.planner);
            job.dstar = None;
            job.route.clear();
            job.detour_exit = None;
            job.detoured = false;
            if job.reason == Some(PlanReason::Blocked) {
                agent.copy_route(&mut job.route);
                if config.detours && !agent.detoured() {
                    let nearby = Nearby::new(grid, occupancy, slot, job.start, config.avoid_radius);
                    job.detour_exit = detour_exit(job, nearby);
                }
            }
            if job.planner == PlannerKind::DStar && job.reason != Some(PlanReason::Blocked) {
                let mut dstar = agent
                    .take_dstar()
                    .unwrap_or_else(|| Box::new(DStarLite::new(job.goal)));
                dstar.set_max_bytes(config.dstar_max_bytes);
                dstar.set_goal(job.goal);
                job.dstar = Some(dstar);
            }
        }

        let jobs = &mut self.jobs[..count];
        let options = SearchOptions {
            node_budget: config.node_budget,
        };
        let workspaces = &self.workspaces;
        let plan = |job: &mut PlanJob| {
            let mut ws = workspaces.get_or(RefCell::default).borrow_mut();
            let planner = Planner::with_graph(job.planner, nav)
                .expect("checked when the jobs were queued")
                .with_options(options);
            run_job(job, grid, &planner, &mut ws, occupancy, config);
        };
        if config.parallel {
            // Longest first, one job at a time to whichever worker is free (close to list
            // scheduling): a tick's planning ends with its slowest plan, so the long ones must
            // not start last.
            for job in jobs.iter_mut() {
                job.cost = estimated_cost(job, grid);
            }
            jobs.sort_unstable_by_key(|job| (Reverse(job.cost), job.rank));
            // A lock-free bounded channel, filled dearest first, from which every worker takes
            // the next job as it frees up; each job is borrowed by the one worker that took it.
            let (give, take) = crossbeam_channel::bounded(jobs.len());
            for job in jobs.iter_mut() {
                give.send(job).expect("the channel holds every job");
            }
            drop(give);
            rayon::broadcast(|_| {
                while let Ok(job) = take.recv() {
                    plan(job);
                }
            });
            drop(take);
            jobs.sort_unstable_by_key(|job| job.rank);
        } else {
            jobs.iter_mut().for_each(plan);
        }

        for job in jobs.iter_mut() {
            let id = agents.id_at(job.slot).expect("planned agents are live");
            let found = matches!(job.outcome, Some(Ok(SearchOutcome::Found { .. })));
            events.plan(PlanMade {
                agent: id,
                start: job.start,
                goal: job.goal,
                reason: job.reason.unwrap_or(PlanReason::NewGoal),
                found,
                repaired: job.repaired,
                expanded: job.expanded,
                nanos: job.nanos,
            });
            let mut agent = agents.at_mut(job.slot).expect("planned agents are live");
            if let Some(dstar) = job.dstar.take() {
                agent.put_dstar(dstar);
            }
            match job.outcome.take() {
                Some(Ok(SearchOutcome::Found { .. })) => {
                    // A path of one cell: planned from its goal, it stands there.
                    let tick = events.tick();
                    if let Some(counted) = agent.adopt_path(&mut job.path, job.detoured, tick) {
                        events.arrive(id, agent.position(), ArrivalKind::Standing, counted);
                    }
                }
                // Boxed in by agents: keep the old path and keep waiting for them to move,
                // twice as long before the next try.
                _ if job.reason == Some(PlanReason::Blocked) => agent.blocked_plan_failed(),
                _ => agent.no_path(),
            }
        }
        Ok(())
    }
}

/// Makes one plan: the agent's own D* Lite search, a replan around other agents, or else the
/// planner's answer.
fn run_job(
    job: &mut PlanJob,
    grid: &Grid,
    planner: &Planner<'_>,
    ws: &mut PlanWorkspace,
    occupancy: &Occupancy,
    config: &SimConfig,
) {
    if let Some(dstar) = job.dstar.as_deref_mut() {
        let resumable = dstar.has_search();
        let before = dstar.stats();
        let t0 = Instant::now();
        let outcome = dstar.plan(grid, job.start);
        job.nanos = t0.elapsed().as_nanos() as u64;
        let after = dstar.stats();
        // A repair resumed the earlier search: it had one and did not start over.
        job.repaired = resumable
            && outcome.is_ok()
            && after.restarts == before.restarts
            && after.budget_resets == before.budget_resets;
        job.expanded = dstar.stats().expanded;
        job.path.clear();
        if matches!(outcome, Ok(SearchOutcome::Found { .. })) {
            job.path.set(dstar.path(), grid.width());
        }
        job.outcome = Some(outcome);
        return;
    }
    let t0 = Instant::now();
    if job.reason == Some(PlanReason::Blocked) {
        // Every planner replans around agents with A*: JPS cannot route around them, the
        // navigation points do not know them, and moving agents are not map changes for D*.
        let ws = ws.search_workspace();
        let options = planner.options();
        let nearby = Nearby::new(grid, occupancy, job.slot, job.start, config.avoid_radius);
        let outcome = match detour(job, grid, ws, nearby, &options) {
            Some(outcome) => {
                job.detoured = true;
                Ok(outcome)
            }
            None => {
                let outcome = ws.find_path_avoiding(grid, job.start, job.goal, &options, |cell| {
                    nearby.avoids(cell)
                });
                job.path.clear();
                if matches!(outcome, Ok(SearchOutcome::Found { .. })) {
                    job.path.set(ws.path(), grid.width());
                }
                outcome
            }
        };
        job.nanos = t0.elapsed().as_nanos() as u64;
        job.expanded = ws.stats().expanded;
        job.outcome = Some(outcome);
        return;
    }
    let outcome = planner.plan(grid, ws, job.start, job.goal);
    job.nanos = t0.elapsed().as_nanos() as u64;
    job.path.clear();
    job.outcome = Some(match outcome {
        Ok(plan) => {
            job.expanded = plan.stats.expanded;
            job.path.set(plan.path, grid.width());
            Ok(plan.outcome)
        }
        Err(e) => {
            job.expanded = 0; // a rejected query expands nothing
            Err(e)
        }
    });
}

/// Where a detour would rejoin the agent's path: the index in the rest of the path (from the
/// agent's cell) `2 * radius` cells after the path leaves the box. `None` when no detour is
/// worth trying (see [`detour`]).
fn detour_exit(job: &PlanJob, nearby: Nearby<'_>) -> Option<usize> {
    let rest = &job.route;
    if rest.first() != Some(&job.start) {
        return None; // not on its path (never happens for a waiting agent)
    }
    // Rejoining some way past the box leaves the detour room to choose its way back (what it
    // costs against whole-way replans: `docs/performance.md`).
    let leave = rest.iter().position(|&cell| !nearby.contains(cell))?;
    let exit = (leave + 2 * nearby.radius as usize).min(rest.len() - 1);
    if rest[leave..=exit].iter().any(|&cell| nearby.occupied(cell)) {
        return None; // the jam goes on past the box: look for another way
    }
    Some(exit)
}

/// Nodes a detour search may expand per cell of the box around the agent that other agents
/// are avoided in: room to go around a group of agents, not to search the map.
const DETOUR_NODES_PER_BOX_CELL: u64 = 16;

/// Cells an A* of about the cost of a plan through the navigation points searches across
/// (measured on the default scenario: `docs/performance.md`).
const NAV_PLAN_CELLS: u32 = 160;

/// Whether the job is a trip through the navigation points: a plan of the `nav` or `auto`
/// planner that is not a replan around other agents (the graph is there for them: checked
/// when the jobs are queued).
fn plans_by_nav(job: &PlanJob, grid: &Grid) -> bool {
    job.reason != Some(PlanReason::Blocked) && job.planner.plans_by_nav(grid, job.start, job.goal)
}

/// A rough cost of a job, to start the expensive ones first: the distance searched across.
fn estimated_cost(job: &PlanJob, grid: &Grid) -> u32 {
    if let Some(exit) = job.detour_exit {
        return exit as u32;
    }
    if plans_by_nav(job, grid) {
        return NAV_PLAN_CELLS;
    }
    let ((sx, sy), (gx, gy)) = (grid.coords(job.start), grid.coords(job.goal));
    sx.abs_diff(gx).max(sy.abs_diff(gy))
}

/// The other agents a replan around them treats as obstacles: those within a radius of the
/// planning agent.
#[derive(Clone, Copy)]
struct Nearby<'a> {
    grid: &'a Grid,
    occupancy: &'a Occupancy,
    me: u32,
    x: u32,
    y: u32,
    radius: u32,
}

impl<'a> Nearby<'a> {
    fn new(grid: &'a Grid, occupancy: &'a Occupancy, me: u32, at: CellId, radius: u32) -> Self {
        let (x, y) = grid.coords(at);
        Nearby {
            grid,
            occupancy,
            me,
            x,
            y,
            radius,
        }
    }

    /// Whether `cell` is within the radius (Chebyshev distance).
    fn contains(&self, cell: CellId) -> bool {
        let (x, y) = self.grid.coords(cell);
        x.abs_diff(self.x) <= self.radius && y.abs_diff(self.y) <= self.radius
    }

    /// Whether another agent stands on `cell`.
    fn occupied(&self, cell: CellId) -> bool {
        self.occupancy
            .agent_at(cell)
            .is_some_and(|other| other != self.me)
    }

    /// Whether the replan treats `cell` as blocked: another agent stands there, within the
    /// radius.
    fn avoids(&self, cell: CellId) -> bool {
        self.occupied(cell) && self.contains(cell)
    }
}

/// The cheap replan around other agents (see [`SimConfig::detours`]): a path that gets past the
/// agents in the box around the agent and rejoins its current path `2 * radius` cells after the
/// path leaves the box, then follows that path. Most agents are held up by a few others nearby,
/// so this costs a few dozen expansions where a new path to a goal hundreds of cells away costs
/// thousands. `None` (search the whole way to the goal instead) when the current path never
/// leaves the box, when agents stand on the stretch between leaving the box and the rejoining
/// cell (a jam longer than the box, which a detour would only queue into again), or when no
/// detour is found within the node budget.
fn detour(
    job: &mut PlanJob,
    grid: &Grid,
    ws: &mut SearchWorkspace,
    nearby: Nearby<'_>,
    options: &SearchOptions,
) -> Option<SearchOutcome> {
    let exit = job.detour_exit?;
    let rest = &job.route;
    let side = 2 * u64::from(nearby.radius) + 1;
    let mut budget = side * side * DETOUR_NODES_PER_BOX_CELL;
    if let Some(limit) = options.node_budget {
        budget = budget.min(limit);
    }
    let local = SearchOptions {
        node_budget: Some(budget),
    };
    let outcome = ws
        .find_path_avoiding(grid, job.start, rest[exit], &local, |cell| {
            nearby.avoids(cell)
        })
        .ok()?;
    if !outcome.is_found() {
        return None;
    }
    // The detour, then the rest of the route past where it rejoins (the route is not needed
    // after).
    job.route.splice(..=exit, ws.path().iter().copied());
    job.path.set(&job.route, grid.width());
    let cost = grid.legal_path_cost(job.route.iter().copied());
    Some(SearchOutcome::Found { cost })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nav::NavOptions;
    use crate::sim::agent::Agent;

    /// The rule of `Planner` in the stage: an agent planning with `nav` without a navigation
    /// graph is an error that changes no agent (no silent fallback to another search); with
    /// the graph it plans through it.
    #[test]
    fn nav_planners_need_the_graph() {
        let grid = Grid::new(100, 100).unwrap();
        let (start, goal) = (grid.cell(0, 0).unwrap(), grid.cell(99, 99).unwrap());
        let mut agents = AgentSet::new();
        let mut agent = Agent::new(start, 0, Some(PlannerKind::Nav), false);
        agent.set_goal(goal, 0);
        let id = agents.insert(agent);
        let occupancy = Occupancy::new(grid.len());
        let config = SimConfig::default();
        let mut stage = PlanningStage::new();
        let mut events = TickEvents::new(0);
        let error = stage
            .run(&grid, &mut agents, &occupancy, &config, None, &mut events)
            .unwrap_err();
        assert!(error.to_string().contains("navigation graph"), "{error}");
        let agent = agents.get(id).unwrap();
        assert!(agent.plan_requested_at().is_some() && agent.remaining_path().len() == 0);
        let nav = NavGraph::build(&grid, &NavOptions::default()).unwrap();
        assert!(events.plans().is_empty());
        stage
            .run(
                &grid,
                &mut agents,
                &occupancy,
                &config,
                Some(&nav),
                &mut events,
            )
            .unwrap();
        let plan = events.plans()[0];
        assert_eq!(events.plans().len(), 1);
        assert_eq!(
            (plan.agent, plan.reason, plan.found),
            (id, PlanReason::NewGoal, true)
        );
        let agent = agents.get(id).unwrap();
        assert_eq!(agent.state(), crate::sim::AgentState::Moving);
        assert_eq!(
            agent.ahead().and_then(|(mut route, _)| route.next()),
            Some(start)
        );
        assert_eq!(agent.remaining_path().last(), Some(goal));
    }
}
