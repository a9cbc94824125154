//! Task bookkeeping of a League of Robot Runners run: which tasks are revealed, who does which,
//! how far each has got, and the events the competition's output lists.
//!
//! The rules are the competition's: `reveal` tasks are revealed at any time (task id `k` is
//! line `k mod tasks` of the tasks file); an agent does one task at a time; a task's next
//! errand is done when its agent stands on it at the end of a step (one errand per step at
//! most); the task is finished with its last errand, and a new one is revealed in its place.
//! A task whose first errand was reached ("opened") stays with its agent; until then it may
//! go to another agent (the 2024 start kit's rule).
//!
//! Assignment ([`TaskAssignment::Reassign`], the default): an agent without a task takes the
//! task nearest it among the free ones and those another agent heads for but is farther from
//! (that agent then looks for a task the same way, up to [`MAX_HOPS`] agents in a chain); and
//! each step a few agents heading for an unopened task ([`RECONSIDERED_PER_STEP`]) look the
//! same way for a nearer one. "Nearest" is the planner's distance table of the task's first
//! errand where it holds one (steps with turns, lane costs included), Manhattan distance where
//! not: no table is computed for the assignment. Among tasks an agent also counts a share of
//! each task's own length ([`LENGTH_WEIGHT`]), so that short tasks go first. [`TaskAssignment::Nearest`] is the first-come
//! rule alone: nearest free task by Manhattan distance, kept until done.
//!
//! On a crowded floor not every robot holds a task ([`active_cap`]): past about a third of
//! the free cells, robots heading for errands block each other more than they add, and idle
//! robots (which keep still unless pushed) make room. There, a task freed goes to the idle
//! robot nearest a free task, not to the first idle robot by id. On a map whose tasks all
//! visit a few busy errand cells ([`busy_errands`]) the cap is lower still
//! ([`BUSY_MAP_SHARE_OF_FREE`]), and the `pibt` planner parks the idle robots away from those
//! cells (`super::parking`). A run may lower the cap further ([`TaskBoard::limit_holders`]:
//! the `pibt` planner's corridor rules, `crate::lorr::CORRIDOR_MAP_SHARE_OF_FREE`), below
//! [`ACTIVE_SHARE_OF_TEAM`] of the team.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use super::distance::DistanceTables;
use super::parking::busy_errands;
use super::task_index::TaskIndex;
use crate::grid::{CellId, Grid, NO_CELL};
use crate::mapf::NO_AGENT;
use crate::sim::Heading;

/// "No task": the task of an agent without one, in [`TaskBoard::assignments`] and the
/// output file's schedule (written there as -1).
pub const NO_TASK: u32 = u32::MAX;

/// How [`TaskBoard::assign`] gives tasks to agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskAssignment {
    /// An agent without a task takes the free task whose first errand is nearest by Manhattan
    /// distance and keeps it until done (the first rule, kept for comparison).
    Nearest,
    /// Tasks not opened yet go to the agent nearest them by the planner's distance tables,
    /// taken over from a farther agent when one is nearer (see the module docs).
    #[default]
    Reassign,
}

impl std::str::FromStr for TaskAssignment {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "nearest" => Ok(TaskAssignment::Nearest),
            "reassign" => Ok(TaskAssignment::Reassign),
            other => Err(format!(
                "unknown task assignment {other:?}: expected reassign or nearest"
            )),
        }
    }
}

impl std::fmt::Display for TaskAssignment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TaskAssignment::Nearest => "nearest",
            TaskAssignment::Reassign => "reassign",
        })
    }
}

/// Most agents in one chain of take-overs (an agent whose task is taken looks for another,
/// which may be taken from a third, ...).
pub const MAX_HOPS: usize = 8;

/// Agents heading for an unopened task that look for a nearer one at each step (in turn, by
/// id), besides the agents left without a task.
pub const RECONSIDERED_PER_STEP: usize = 16;

/// How much nearer (in steps) an agent must be to take a task over from the agent heading for
/// it, or to give its own up for another.
pub const TAKEOVER_MARGIN: u32 = 1;

/// A step with more agents without a task than this (the first step of a large team) places
/// them without take-overs: looking at every task already given for each of them made the
/// first step of a large team take longer than the step's limit (`docs/performance.md`).
pub const MAX_TAKEOVER_PLACEMENTS: usize = 1024;

/// Under [`TaskAssignment::Reassign`] an agent choosing among tasks counts a task's approach
/// plus its own length (the Manhattan length of its legs from errand to errand) divided by
/// this. Short tasks go first, and the longest wait (a pool of 1.5 tasks per agent leaves room
/// for that). An eighth finished the most tasks of the weights tried (`docs/performance.md`).
pub const LENGTH_WEIGHT: u32 = 8;

/// When the cap binds, the idle agents looked at a step for the tasks freed
/// ([`TaskBoard::assign`]).
pub(crate) const IDLE_CANDIDATES: usize = 512;

/// Under [`TaskAssignment::Reassign`], robots hold tasks up to this share of the map's free
/// cells (or [`ACTIVE_SHARE_OF_TEAM`] of the team, whichever is more; [`active_cap`]).
pub(crate) const ACTIVE_SHARE_OF_FREE: f64 = 0.33;

/// Under [`TaskAssignment::Reassign`], at least this share of the team may hold tasks
/// ([`active_cap`], unless a run lowers the cap: [`TaskBoard::limit_holders`]): with most of
/// a team idle, the idle robots stand in the way.
pub(crate) const ACTIVE_SHARE_OF_TEAM: f64 = 0.6;

/// Under [`TaskAssignment::Reassign`], on a map whose tasks all visit a few busy errand cells
/// ([`busy_errands`]), robots hold tasks up to this share of the free cells at most: the robots
/// queueing for those cells fill the floor around them and the queue moves ever slower
/// (`docs/performance.md`).
pub(crate) const BUSY_MAP_SHARE_OF_FREE: f64 = 0.13;

/// How many of `agents` robots on a map of `free_cells` free cells hold tasks at once under
/// [`TaskAssignment::Reassign`]: all of them up to [`ACTIVE_SHARE_OF_FREE`] of the free cells,
/// then the larger of that share and [`ACTIVE_SHARE_OF_TEAM`] of the team. On the 32 x 32
/// random map (819 free cells, 500 steps, the `pibt` planner) 400 robots finished 1,550 tasks
/// with it (and robots keeping their cells from the first step), 1,229 before; 700 robots
/// 1,211 and 879 (`docs/performance.md`). With `busy_errands` (the map has busy errand
/// cells), at most [`BUSY_MAP_SHARE_OF_FREE`] of the free cells.
pub(crate) fn active_cap(agents: usize, free_cells: usize, busy_errands: bool) -> usize {
    let by_floor = (ACTIVE_SHARE_OF_FREE * free_cells as f64).ceil() as usize;
    let by_team = (ACTIVE_SHARE_OF_TEAM * agents as f64).ceil() as usize;
    let cap = agents.min(by_floor.max(by_team));
    if busy_errands {
        cap.min((BUSY_MAP_SHARE_OF_FREE * free_cells as f64).ceil() as usize)
    } else {
        cap
    }
}

/// Where the agents stand when tasks are assigned, and how far they are from errands.
pub struct AssignInput<'a> {
    /// Per agent: its cell.
    pub positions: &'a [CellId],
    /// Per agent: its heading.
    pub headings: &'a [Heading],
    /// The planner's distance tables, if it keeps any (`None`: Manhattan distances).
    pub tables: Option<&'a DistanceTables>,
}

/// One revealed task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevealedTask {
    /// The task's id (in reveal order).
    pub id: u32,
    /// The step at which it was revealed.
    pub revealed_at: u64,
    /// Index of its line in the tasks file.
    pub line: u32,
    /// Its agent, or [`NO_AGENT`].
    pub agent: u32,
    /// Errands done so far.
    pub done: u32,
    /// The step at which its last errand was done.
    pub finished_at: Option<u64>,
}

/// A task event, as the competition's output lists it: at `step`, `agent` did errand
/// `done - 1` of `task` (`done` errands of it are now done).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskEvent {
    /// The step count after the move.
    pub step: u64,
    /// The agent.
    pub agent: u32,
    /// The task id.
    pub task: u32,
    /// Errands of the task done, this one included.
    pub done: u32,
}

/// Revealed tasks and who does them.
#[derive(Debug, Clone)]
pub struct TaskBoard {
    lines: Vec<Vec<CellId>>,
    /// Every task revealed so far, by id.
    tasks: Vec<RevealedTask>,
    /// Revealed tasks not opened yet (free ones and those an agent heads for), by the block
    /// of their first errand.
    unopened: TaskIndex,
    /// Revealed tasks nobody does.
    free: usize,
    /// How tasks are given.
    mode: TaskAssignment,
    /// Most agents holding a task at once ([`active_cap`]; the team under
    /// [`TaskAssignment::Nearest`]).
    cap: usize,
    /// Idle agents by the cost of their best free task, least first (scratch of
    /// [`TaskBoard::assign`] when `cap` binds).
    idle: BinaryHeap<Reverse<(u32, u32)>>,
    /// Per task line: the Manhattan length of its legs from errand to errand.
    line_length: Vec<u32>,
    /// The busy errand cells of the map ([`busy_errands`]), in cell order.
    busy: Vec<CellId>,
    /// The first agent [`TaskBoard::assign`] looks at among the idle ones when the cap binds.
    idle_cursor: usize,
    /// The idle agents looked at in a step (scratch of [`TaskBoard::assign`]).
    idle_candidates: Vec<u32>,
    /// Their best task's cost, if any (scratch of [`TaskBoard::assign`]).
    idle_costs: Vec<Option<Reverse<(u32, u32)>>>,
    /// The next agent to reconsider its unopened task.
    cursor: usize,
    /// Unopened tasks taken from their agent, or given up for a nearer one.
    reassignments: u64,
    width: u32,
    /// Per agent: its task id, or [`NO_TASK`].
    agent_task: Vec<u32>,
    /// Per agent: the errand it heads for (of its task), or [`NO_CELL`]; kept with `agent_task`
    /// so that a step reads every agent's target from one array.
    agent_target: Vec<CellId>,
    reveal: usize,
    open: usize,
    finished: u64,
    events: Vec<TaskEvent>,
    /// Every change of an agent's task: (step, agent, task or [`NO_TASK`]).
    assignments: Vec<(u64, u32, u32)>,
    /// Per agent: the task of its last entry in `assignments` (`None`: no entry yet).
    scheduled: Vec<Option<u32>>,
}

impl TaskBoard {
    /// A board for `agents` agents over the task lines `lines` (errand cells of `grid`),
    /// revealing `reveal` tasks at step 0, giving them out by `mode`.
    pub fn new(
        grid: &Grid,
        lines: Vec<Vec<CellId>>,
        agents: usize,
        reveal: usize,
        mode: TaskAssignment,
    ) -> TaskBoard {
        let w = grid.width();
        let line_length = lines
            .iter()
            .map(|l| {
                l.windows(2)
                    .map(|p| (p[0] % w).abs_diff(p[1] % w) + (p[0] / w).abs_diff(p[1] / w))
                    .sum()
            })
            .collect();
        let busy = busy_errands(grid, &lines);
        let mut board = TaskBoard {
            line_length,
            lines,
            tasks: Vec::new(),
            unopened: TaskIndex::new(grid.width(), grid.height()),
            free: 0,
            mode,
            cap: match mode {
                TaskAssignment::Reassign => {
                    active_cap(agents, grid.walkable_count(), !busy.is_empty())
                }
                TaskAssignment::Nearest => agents,
            },
            idle: BinaryHeap::new(),
            busy,
            idle_cursor: 0,
            idle_candidates: Vec::new(),
            idle_costs: Vec::new(),
            cursor: 0,
            reassignments: 0,
            width: grid.width(),
            agent_task: vec![NO_TASK; agents],
            agent_target: vec![NO_CELL; agents],
            reveal,
            open: 0,
            finished: 0,
            events: Vec::new(),
            assignments: Vec::new(),
            scheduled: vec![None; agents],
        };
        board.reveal_up_to(0);
        board
    }

    fn reveal_up_to(&mut self, step: u64) {
        while self.open < self.reveal {
            let id = self.tasks.len() as u32;
            self.tasks.push(RevealedTask {
                id,
                revealed_at: step,
                line: (id as usize % self.lines.len()) as u32,
                agent: NO_AGENT,
                done: 0,
                finished_at: None,
            });
            let first = self.lines[id as usize % self.lines.len()][0];
            self.unopened.insert(id, first, self.extra(id));
            self.free += 1;
            self.open += 1;
        }
    }

    /// Gives tasks to agents at step `step` by the board's [`TaskAssignment`]: every agent
    /// without a task gets one while there are tasks to give (agents in id order; on a
    /// crowded floor, up to `active_cap` holders, the idle agents nearest a free task
    /// first), and under
    /// [`TaskAssignment::Reassign`] unopened tasks may change agents (module docs). Puts the
    /// agents whose task changed in `out`, sorted.
    ///
    /// Records in [`TaskBoard::assignments`] every agent whose task changed since its last
    /// entry, as the start kit's schedule does: at the first call every agent (with [`NO_TASK`]
    /// for one left without a task), later an agent given a new task, or left without one
    /// (after finishing its last, or when its task went to another agent).
    ///
    /// Ranking tasks by distance plus their whole length was tried and dropped (fewer tasks
    /// finished on RANDOM-01 and 02); an eighth of the length gains (`tasks::LENGTH_WEIGHT`).
    pub fn assign(&mut self, step: u64, input: &AssignInput, out: &mut Vec<u32>) {
        out.clear();
        let agents = self.agent_task.len().min(input.positions.len());
        let without = self.agent_task[..agents]
            .iter()
            .filter(|&&t| t == NO_TASK)
            .count();
        let take_overs = without <= MAX_TAKEOVER_PLACEMENTS;
        if self.cap < agents {
            self.place_nearest(agents - without, input, take_overs, out);
        } else {
            for agent in 0..agents {
                if self.agent_task[agent] == NO_TASK {
                    self.place(agent, input, take_overs, out);
                }
            }
        }
        if self.mode == TaskAssignment::Reassign && agents > 0 {
            for _ in 0..RECONSIDERED_PER_STEP.min(agents) {
                let agent = self.cursor % agents;
                self.cursor = (self.cursor + 1) % agents;
                self.reconsider(agent, input, out);
            }
        }
        out.sort_unstable();
        out.dedup();
        for (agent, &task) in self.agent_task.iter().enumerate() {
            if self.scheduled[agent] != Some(task) {
                self.scheduled[agent] = Some(task);
                self.assignments.push((step, agent as u32, task));
            }
        }
    }

    /// The steps from `agent` to `errand`: its table's estimate where `input` has the table,
    /// Manhattan distance where not.
    fn approach(&self, input: &AssignInput, agent: usize, errand: CellId) -> u32 {
        let at = input.positions[agent];
        if let Some((tables, table)) = input.tables.and_then(|t| Some((t, t.get(errand)?))) {
            return tables.actions(table, at, input.headings[agent]);
        }
        let w = self.width;
        (at % w).abs_diff(errand % w) + (at / w).abs_diff(errand / w)
    }

    /// The best task for `agent` other than `except`: the least cost (approach plus the
    /// length share of [`LENGTH_WEIGHT`]) among the free tasks and, when `take_over`, the
    /// unopened ones whose agent is farther from their first errand by at least
    /// [`TAKEOVER_MARGIN`]; (task, cost).
    fn best_for(
        &self,
        agent: usize,
        except: u32,
        take_over: bool,
        input: &AssignInput,
    ) -> Option<(u32, u32)> {
        let manhattan_only = self.mode == TaskAssignment::Nearest;
        let w = self.width;
        let at = input.positions[agent];
        let (task, _, cost) = self.unopened.best(at, |task, first| {
            if task == except {
                return None;
            }
            let holder = self.tasks[task as usize].agent;
            if holder != NO_AGENT && !take_over {
                return None;
            }
            let d = if manhattan_only {
                (at % w).abs_diff(first % w) + (at / w).abs_diff(first / w)
            } else {
                self.approach(input, agent, first)
            };
            if holder != NO_AGENT
                && d.saturating_add(TAKEOVER_MARGIN) > self.approach(input, holder as usize, first)
            {
                return None;
            }
            Some(d + self.extra(task))
        })?;
        Some((task, cost))
    }

    /// What task `task`'s own length adds to the cost of taking it: [`LENGTH_WEIGHT`] of
    /// the Manhattan length of its legs from errand to errand.
    fn extra(&self, task: u32) -> u32 {
        if self.mode == TaskAssignment::Nearest {
            return 0;
        }
        self.line_length[self.tasks[task as usize].line as usize] / LENGTH_WEIGHT
    }

    /// Gives `agent` (without a task) the best task for it, then the agent it was taken from,
    /// if any, and so on up to [`MAX_HOPS`] agents (with `take_overs`; else free tasks only).
    fn place(&mut self, agent: usize, input: &AssignInput, take_overs: bool, out: &mut Vec<u32>) {
        let mut agent = agent;
        for hop in 0..MAX_HOPS {
            let take_over =
                take_overs && self.mode == TaskAssignment::Reassign && hop + 1 < MAX_HOPS;
            if self.free == 0 && !take_over {
                return;
            }
            let Some((task, _)) = self.best_for(agent, NO_TASK, take_over, input) else {
                return;
            };
            out.push(agent as u32);
            let holder = self.give(task, agent);
            if holder == NO_AGENT {
                return;
            }
            out.push(holder);
            agent = holder as usize;
        }
    }

    /// Gives tasks to idle agents while fewer than the cap hold one (`holders` now), each
    /// time to the idle agent whose best free task costs least. An agent's cost only grows as
    /// tasks are taken, so a cost read earlier is a lower bound: the least is read again
    /// before it is trusted.
    fn place_nearest(
        &mut self,
        mut holders: usize,
        input: &AssignInput,
        take_overs: bool,
        out: &mut Vec<u32>,
    ) {
        if holders >= self.cap || self.free == 0 {
            return;
        }
        let mut idle = std::mem::take(&mut self.idle);
        idle.clear();
        // At most IDLE_CANDIDATES idle agents a step are looked at, in turn from where the
        // last step stopped (looking at every one, 6,000 idle robots on sortation_large, took
        // longer than the step), their best tasks on the rayon pool (each reads the board only).
        let agents = self.agent_task.len().min(input.positions.len());
        let mut candidates = std::mem::take(&mut self.idle_candidates);
        candidates.clear();
        for k in 0..agents {
            let agent = (self.idle_cursor + k) % agents;
            if self.agent_task[agent] != NO_TASK {
                continue;
            }
            if candidates.len() == IDLE_CANDIDATES {
                self.idle_cursor = agent;
                break;
            }
            candidates.push(agent as u32);
        }
        let mut costs = std::mem::take(&mut self.idle_costs);
        candidates
            .par_iter()
            .with_min_len(32)
            .map(|&agent| {
                self.best_for(agent as usize, NO_TASK, false, input)
                    .map(|(_, cost)| Reverse((cost, agent)))
            })
            .collect_into_vec(&mut costs);
        idle.extend(costs.iter().flatten());
        self.idle_candidates = candidates;
        self.idle_costs = costs;
        while holders < self.cap && self.free > 0 {
            let Some(Reverse((cost, agent))) = idle.pop() else {
                break;
            };
            let Some((_, now)) = self.best_for(agent as usize, NO_TASK, false, input) else {
                continue;
            };
            if now > cost && idle.peek().is_some_and(|r| r.0.0 < now) {
                idle.push(Reverse((now, agent)));
                continue;
            }
            self.place(agent as usize, input, take_overs, out);
            holders += 1;
        }
        self.idle = idle;
    }

    /// Moves `agent` (heading for an unopened task) to a task nearer by at least
    /// [`TAKEOVER_MARGIN`], if there is one; its old task becomes free.
    fn reconsider(&mut self, agent: usize, input: &AssignInput, out: &mut Vec<u32>) {
        let task = self.agent_task[agent];
        if task == NO_TASK || self.tasks[task as usize].done > 0 {
            return;
        }
        let first = self.lines[self.tasks[task as usize].line as usize][0];
        let now = self.approach(input, agent, first) + self.extra(task);
        let Some((better, cost)) = self.best_for(agent, task, true, input) else {
            return;
        };
        if cost.saturating_add(TAKEOVER_MARGIN) > now {
            return;
        }
        self.tasks[task as usize].agent = NO_TASK;
        self.set_task(agent, NO_TASK);
        self.free += 1;
        self.reassignments += 1;
        out.push(agent as u32);
        let holder = self.give(better, agent);
        if holder != NO_AGENT {
            out.push(holder);
            self.place(holder as usize, input, true, out);
        }
    }

    /// Gives unopened task `task` to `agent` (without a task); returns the agent it was taken
    /// from (left without a task), or [`NO_AGENT`] when it was free.
    fn give(&mut self, task: u32, agent: usize) -> u32 {
        let holder = self.tasks[task as usize].agent;
        self.tasks[task as usize].agent = agent as u32;
        self.set_task(agent, task);
        if holder == NO_AGENT {
            self.free -= 1;
        } else {
            self.set_task(holder as usize, NO_TASK);
            self.reassignments += 1;
        }
        holder
    }

    /// The errand agent `agent` is heading for, if it has a task.
    pub fn target(&self, agent: u32) -> Option<CellId> {
        self.agent_target
            .get(agent as usize)
            .copied()
            .filter(|&c| c != NO_CELL)
    }

    /// The errand agent `agent` heads for after its current one, if its task has one more.
    pub fn next_target(&self, agent: u32) -> Option<CellId> {
        let task = *self.agent_task.get(agent as usize)?;
        let t = self.tasks.get(task as usize)?;
        self.lines[t.line as usize]
            .get(t.done as usize + 1)
            .copied()
    }

    /// Records where the agents stand after the move that ended at `step`: errands done,
    /// tasks finished (and as many revealed). Puts the agents whose target changed in `out`.
    pub fn arrive(&mut self, step: u64, positions: &[CellId], out: &mut Vec<u32>) {
        out.clear();
        // A scan of two flat arrays; the few agents on their errand are then recorded.
        out.extend(
            positions
                .iter()
                .zip(&self.agent_target)
                .enumerate()
                .filter(|&(_, (&at, &target))| at == target)
                .map(|(agent, _)| agent as u32),
        );
        for &agent in out.iter() {
            let agent = agent as usize;
            let task = self.agent_task[agent];
            let t = &mut self.tasks[task as usize];
            let errands = &self.lines[t.line as usize];
            t.done += 1;
            if t.done == 1 {
                self.unopened.remove(task, errands[0]);
            }
            self.events.push(TaskEvent {
                step,
                agent: agent as u32,
                task,
                done: t.done,
            });
            if t.done as usize == errands.len() {
                t.finished_at = Some(step);
                self.open -= 1;
                self.finished += 1;
                self.set_task(agent, NO_TASK);
            } else {
                self.agent_target[agent] = errands[t.done as usize];
            }
        }
        self.reveal_up_to(step);
    }

    /// Sets `agent`'s task (or none) and the errand it heads for.
    fn set_task(&mut self, agent: usize, task: u32) {
        self.agent_task[agent] = task;
        self.agent_target[agent] = match self.tasks.get(task as usize) {
            Some(t) => self.lines[t.line as usize]
                .get(t.done as usize)
                .copied()
                .unwrap_or(NO_CELL),
            None => NO_CELL,
        };
    }

    /// Tasks finished so far.
    pub fn finished(&self) -> u64 {
        self.finished
    }

    /// At most `most` agents (at least one) hold tasks at once from now on under
    /// [`TaskAssignment::Reassign`], where that is lower than the board's own cap (which
    /// follows the floor); nothing under [`TaskAssignment::Nearest`], where every agent holds a
    /// task. [`TaskBoard::holders_cap`] says what applies.
    pub fn limit_holders(&mut self, most: usize) {
        if self.mode == TaskAssignment::Reassign {
            self.cap = self.cap.min(most.max(1));
        }
    }

    /// The most agents that hold tasks at once: the team under [`TaskAssignment::Nearest`];
    /// under [`TaskAssignment::Reassign`] the board's cap for the floor, or the lower one of
    /// [`TaskBoard::limit_holders`].
    pub fn holders_cap(&self) -> usize {
        self.cap
    }

    /// The map's busy errand cells, in cell order: those the task lines visit at least 4 times
    /// as often as the mean errand cell (where idle robots should not wait).
    pub(crate) fn busy_errands(&self) -> &[CellId] {
        &self.busy
    }

    /// Every task revealed so far, by id.
    pub fn tasks(&self) -> &[RevealedTask] {
        &self.tasks
    }

    /// The errands of a revealed task.
    pub fn errands(&self, task: &RevealedTask) -> &[CellId] {
        &self.lines[task.line as usize]
    }

    /// Every event so far, in order.
    pub fn events(&self) -> &[TaskEvent] {
        &self.events
    }

    /// Every change of an agent's task, in order: (step of [`TaskBoard::assign`], agent, task
    /// id or [`NO_TASK`] when it was left without one).
    pub fn assignments(&self) -> &[(u64, u32, u32)] {
        &self.assignments
    }

    /// Agent `agent`'s task id, or [`NO_TASK`].
    pub fn task_of(&self, agent: u32) -> u32 {
        self.agent_task
            .get(agent as usize)
            .copied()
            .unwrap_or(NO_TASK)
    }

    /// The task lines (errand cells of each), task `k` being line `k mod lines`.
    pub fn lines(&self) -> &[Vec<CellId>] {
        &self.lines
    }

    /// Tasks revealed at a time.
    pub fn reveal(&self) -> usize {
        self.reveal
    }

    /// Times an unopened task was taken from its agent, or given up for a nearer one.
    pub fn reassignments(&self) -> u64 {
        self.reassignments
    }

    /// Revealed tasks nobody does.
    pub fn free_count(&self) -> usize {
        self.free
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Agents at `positions`, facing east, Manhattan distances.
    fn at(positions: &[CellId]) -> AssignInput<'_> {
        AssignInput {
            positions,
            headings: &[Heading::East; 8][..positions.len()],
            tables: None,
        }
    }

    #[test]
    fn a_crowded_floor_gives_tasks_to_the_idle_agents_nearest_them() {
        assert_eq!(active_cap(200, 819, false), 200);
        assert_eq!(active_cap(400, 819, false), 271);
        assert_eq!(active_cap(800, 819, false), 480);
        assert_eq!(active_cap(10_000, 38_586, false), 10_000);
        // warehouse_large's busy errand cells: from 5,017 robots on.
        assert_eq!(active_cap(5_000, 38_586, true), 5_000);
        assert_eq!(active_cap(10_000, 38_586, true), 5_017);
        // Five agents on eight free cells: three hold tasks, those nearest the free tasks
        // (agents 4 and 3 on their errands, agent 2 three cells from cell 5), not agents 0-2.
        let grid = Grid::from_ascii("........").unwrap();
        let lines = vec![vec![7], vec![6], vec![5]];
        let mut board = TaskBoard::new(&grid, lines.clone(), 5, 3, TaskAssignment::Reassign);
        let mut changed = Vec::new();
        board.assign(0, &at(&[0, 1, 2, 6, 7]), &mut changed);
        let holders: Vec<u32> = (0..5).filter(|&a| board.target(a).is_some()).collect();
        assert_eq!(holders, vec![2, 3, 4]);
        // Without the cap (the first-come rule), agents 0-2 take them by id.
        let mut nearest = TaskBoard::new(&grid, lines, 5, 3, TaskAssignment::Nearest);
        nearest.assign(0, &at(&[0, 1, 2, 6, 7]), &mut changed);
        let holders: Vec<u32> = (0..5).filter(|&a| nearest.target(a).is_some()).collect();
        assert_eq!(holders, vec![0, 1, 2]);
    }

    #[test]
    fn a_lowered_cap_binds_under_reassignment_only() {
        let grid = Grid::from_ascii("........").unwrap();
        let lines = vec![vec![7], vec![6], vec![5], vec![4]];
        let holders = |board: &TaskBoard| (0..5).filter(|&a| board.target(a).is_some()).count();
        let mut changed = Vec::new();
        // Five agents on eight cells, four tasks: the floor's cap lets three go out; a cap of
        // two, two.
        let mut board = TaskBoard::new(&grid, lines.clone(), 5, 4, TaskAssignment::Reassign);
        assert_eq!(board.holders_cap(), 3);
        board.limit_holders(2);
        assert_eq!(board.holders_cap(), 2);
        board.assign(0, &at(&[0, 1, 2, 3, 6]), &mut changed);
        assert_eq!(holders(&board), 2);
        // A higher limit does not raise the cap, and none is below one.
        board.limit_holders(4);
        assert_eq!(board.holders_cap(), 2);
        board.limit_holders(0);
        assert_eq!(board.holders_cap(), 1);
        // Under the first-come rule every agent may hold a task: the limit does not apply.
        let mut nearest = TaskBoard::new(&grid, lines, 5, 4, TaskAssignment::Nearest);
        nearest.limit_holders(2);
        assert_eq!(nearest.holders_cap(), 5);
        nearest.assign(0, &at(&[0, 1, 2, 3, 6]), &mut changed);
        assert_eq!(holders(&nearest), 4);
    }

    #[test]
    fn tasks_are_revealed_assigned_done_and_replaced() {
        let grid = Grid::from_ascii("....\n....").unwrap();
        // Lines: 0 -> [7], 1 -> [1, 2], 2 -> [4]
        let mut board = TaskBoard::new(
            &grid,
            vec![vec![7], vec![1, 2], vec![4]],
            2,
            2,
            TaskAssignment::Nearest,
        );
        assert_eq!(board.tasks().len(), 2);
        let mut changed = Vec::new();
        // Agent 0 at cell 0 (nearest: task 1's first errand, cell 1); agent 1 gets task 0.
        board.assign(0, &at(&[0, 6]), &mut changed);
        assert_eq!(changed, vec![0, 1]);
        assert_eq!(board.target(0), Some(1));
        assert_eq!(board.target(1), Some(7));
        // Agent 0 reaches cell 1: errand 1 of 2; nothing finished, nothing revealed.
        board.arrive(1, &[1, 6], &mut changed);
        assert_eq!(changed, vec![0]);
        assert_eq!(board.target(0), Some(2));
        assert_eq!(board.finished(), 0);
        assert_eq!(board.tasks().len(), 2);
        // Both finish at step 2: two new tasks revealed (ids 2 and 3, lines 2 and 0).
        board.arrive(2, &[2, 7], &mut changed);
        assert_eq!(board.finished(), 2);
        assert_eq!(board.target(0), None);
        assert_eq!(board.tasks().len(), 4);
        assert_eq!(
            board.tasks()[3].line,
            0,
            "task ids wrap around the task lines"
        );
        assert_eq!(board.tasks()[3].revealed_at, 2);
        let events: Vec<_> = board
            .events()
            .iter()
            .map(|e| (e.step, e.agent, e.task, e.done))
            .collect();
        assert_eq!(events, vec![(1, 0, 1, 1), (2, 0, 1, 2), (2, 1, 0, 1)]);
        assert_eq!(board.tasks()[1].finished_at, Some(2));
    }

    #[test]
    fn the_schedule_records_every_change_of_task_none_included() {
        let grid = Grid::from_ascii("....").unwrap();
        // Two tasks revealed at a time for three agents: agent 2 is left without one.
        let mut board =
            TaskBoard::new(&grid, vec![vec![1], vec![2]], 3, 2, TaskAssignment::Nearest);
        let mut changed = Vec::new();
        board.assign(0, &at(&[0, 3, 2]), &mut changed);
        assert_eq!(
            board.assignments(),
            &[(0, 0, 0), (0, 1, 1), (0, 2, NO_TASK)]
        );
        // Agent 0 finishes task 0; task 2 is revealed and agent 0 takes it: one entry, none
        // for the agents whose task did not change.
        board.arrive(1, &[1, 3, 2], &mut changed);
        board.assign(1, &at(&[1, 3, 2]), &mut changed);
        assert_eq!(board.assignments()[3..], [(1, 0, 2)]);
        board.assign(2, &at(&[1, 3, 2]), &mut changed);
        assert_eq!(
            board.assignments().len(),
            4,
            "no entry while nothing changes"
        );
    }

    #[test]
    fn an_agent_freed_next_to_an_unopened_errand_takes_its_task_over() {
        use crate::lorr::replay_schedule;
        use crate::sim::ActionModel;
        let grid = Grid::from_ascii("..........").unwrap();
        // Task 0: errands 6 then 2; task 1: errand 8; task 2 (revealed later): errand 0.
        let lines = vec![vec![6, 2], vec![8], vec![0]];
        let mut board = TaskBoard::new(&grid, lines.clone(), 2, 2, TaskAssignment::Reassign);
        let mut changed = Vec::new();
        // Agent 0 at cell 0 takes task 0 (6 away); agent 1 at 9 takes task 1, 1 away.
        board.assign(0, &at(&[0, 9]), &mut changed);
        assert_eq!(board.assignments(), &[(0, 0, 0), (0, 1, 1)]);
        // Agent 0 steps east to 1, agent 1 west onto 8: task 1 done, task 2 revealed.
        board.arrive(1, &[1, 8], &mut changed);
        assert_eq!(board.finished(), 1);
        // Agent 1 is 2 from task 0's first errand, agent 0 still 5: agent 1 takes it over and
        // agent 0 takes task 2, next to it. The schedule lists both changes.
        board.assign(1, &at(&[1, 8]), &mut changed);
        assert_eq!(changed, vec![0, 1]);
        assert_eq!(board.assignments()[2..], [(1, 0, 2), (1, 1, 0)]);
        assert_eq!(board.reassignments(), 1);
        board.arrive(2, &[0, 7], &mut changed);
        assert_eq!(board.finished(), 2);
        // The independent checker replays the moves and the schedule to the same errands.
        let replayed = replay_schedule(
            &grid,
            &[0, 9],
            ActionModel::Free,
            &["RL", "LL"],
            &lines,
            2,
            board.assignments(),
        )
        .unwrap();
        assert_eq!(replayed.finished, 2);
        let events: Vec<_> = board
            .events()
            .iter()
            .map(|e| (e.step, e.agent, e.task, e.done))
            .collect();
        assert_eq!(replayed.events, events);
        // Under the first-come rule agent 0 keeps task 0.
        let mut nearest = TaskBoard::new(&grid, lines, 2, 2, TaskAssignment::Nearest);
        nearest.assign(0, &at(&[0, 9]), &mut changed);
        nearest.arrive(1, &[1, 8], &mut changed);
        nearest.assign(1, &at(&[1, 8]), &mut changed);
        assert_eq!(nearest.assignments()[2..], [(1, 1, 2)]);
    }

    #[test]
    fn one_errand_per_step() {
        let grid = Grid::from_ascii("....").unwrap();
        let mut board = TaskBoard::new(&grid, vec![vec![1, 1]], 1, 1, TaskAssignment::Nearest);
        let mut changed = Vec::new();
        board.assign(0, &at(&[1]), &mut changed);
        board.arrive(1, &[1], &mut changed);
        assert_eq!(
            board.finished(),
            0,
            "the second errand on the same cell needs another step"
        );
        board.arrive(2, &[1], &mut changed);
        assert_eq!(board.finished(), 1);
    }
}
