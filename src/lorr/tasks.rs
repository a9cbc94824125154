//! Task bookkeeping of a League of Robot Runners run: which tasks are revealed, who does which,
//! how far each has got, and the events the competition's output lists.
//!
//! The rules are the competition's: `reveal` tasks are revealed at any time (task id `k` is
//! line `k mod tasks` of the tasks file); an agent does one task at a time; a task's next
//! errand is done when its agent stands on it at the end of a step (one errand per step at
//! most); the task is finished with its last errand, and a new one is revealed in its place.
//! A task whose first errand was reached ("opened") stays with its agent.

use super::task_index::TaskIndex;
use crate::grid::{CellId, Grid};

/// No task / no agent.
pub const NONE: u32 = u32::MAX;

/// One revealed task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevealedTask {
    /// The task's id (in reveal order).
    pub id: u32,
    /// The step at which it was revealed.
    pub revealed_at: u64,
    /// Index of its line in the tasks file.
    pub line: u32,
    /// Its agent, or [`NONE`].
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
    /// Revealed tasks nobody does, by the block of their first errand.
    free_tasks: TaskIndex,
    /// Per agent: its task id, or [`NONE`].
    agent_task: Vec<u32>,
    reveal: usize,
    open: usize,
    finished: u64,
    events: Vec<TaskEvent>,
    /// Every change of an agent's task: (step, agent, task or [`NONE`]).
    assignments: Vec<(u64, u32, u32)>,
    /// Per agent: the task of its last entry in `assignments` (`None`: no entry yet).
    scheduled: Vec<Option<u32>>,
}

impl TaskBoard {
    /// A board for `agents` agents over the task lines `lines` (errand cells of `grid`),
    /// revealing `reveal` tasks at step 0.
    pub fn new(grid: &Grid, lines: Vec<Vec<CellId>>, agents: usize, reveal: usize) -> TaskBoard {
        let mut board = TaskBoard {
            lines,
            tasks: Vec::new(),
            free_tasks: TaskIndex::new(grid.width(), grid.height()),
            agent_task: vec![NONE; agents],
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
                agent: NONE,
                done: 0,
                finished_at: None,
            });
            let first = self.lines[id as usize % self.lines.len()][0];
            self.free_tasks.insert(id, first);
            self.open += 1;
        }
    }

    /// Gives every agent without a task the free task whose first errand is nearest
    /// (Manhattan distance; ties to the oldest task, so that none waits for ever), agents in id
    /// order, at step `step`; `positions[a]` is agent `a`'s cell. Puts the agents given a task
    /// in `out`.
    ///
    /// Records in [`TaskBoard::assignments`] every agent whose task changed since its last
    /// entry, as the start kit's schedule does: at the first call every agent (with [`NONE`]
    /// for one left without a task), later an agent given a new task, or left without one
    /// after finishing its last.
    ///
    /// Tried and dropped: ranking tasks by distance plus their own length (short tasks first,
    /// since throughput counts tasks): fewer tasks finished on RANDOM-01 and 02 (see the
    /// benchmarks in docs/benchmarks.md).
    pub fn assign(&mut self, step: u64, positions: &[CellId], out: &mut Vec<u32>) {
        out.clear();
        for (agent, &at) in positions.iter().enumerate().take(self.agent_task.len()) {
            if self.agent_task[agent] != NONE {
                continue;
            }
            let Some(task) = self.free_tasks.take_nearest(at) else {
                break;
            };
            self.tasks[task as usize].agent = agent as u32;
            self.agent_task[agent] = task;
            out.push(agent as u32);
        }
        for (agent, &task) in self.agent_task.iter().enumerate() {
            if self.scheduled[agent] != Some(task) {
                self.scheduled[agent] = Some(task);
                self.assignments.push((step, agent as u32, task));
            }
        }
    }

    /// The errand agent `agent` is heading for, if it has a task.
    pub fn target(&self, agent: u32) -> Option<CellId> {
        let task = *self.agent_task.get(agent as usize)?;
        let t = self.tasks.get(task as usize)?;
        self.lines[t.line as usize].get(t.done as usize).copied()
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
        for (agent, &at) in positions.iter().enumerate().take(self.agent_task.len()) {
            let task = self.agent_task[agent];
            if task == NONE {
                continue;
            }
            let t = &mut self.tasks[task as usize];
            let errands = &self.lines[t.line as usize];
            if at != errands[t.done as usize] {
                continue;
            }
            t.done += 1;
            self.events.push(TaskEvent {
                step,
                agent: agent as u32,
                task,
                done: t.done,
            });
            if t.done as usize == errands.len() {
                t.finished_at = Some(step);
                self.agent_task[agent] = NONE;
                self.open -= 1;
                self.finished += 1;
            }
            out.push(agent as u32);
        }
        self.reveal_up_to(step);
    }

    /// Tasks finished so far.
    pub fn finished(&self) -> u64 {
        self.finished
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
    /// id or [`NONE`] when it was left without one).
    pub fn assignments(&self) -> &[(u64, u32, u32)] {
        &self.assignments
    }

    /// Agent `agent`'s task id, or [`NONE`].
    pub fn task_of(&self, agent: u32) -> u32 {
        self.agent_task.get(agent as usize).copied().unwrap_or(NONE)
    }

    /// Revealed tasks nobody does.
    pub fn free_count(&self) -> usize {
        self.free_tasks.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_are_revealed_assigned_done_and_replaced() {
        let grid = Grid::from_ascii("....\n....").unwrap();
        // Lines: 0 -> [7], 1 -> [1, 2], 2 -> [4]
        let mut board = TaskBoard::new(&grid, vec![vec![7], vec![1, 2], vec![4]], 2, 2);
        assert_eq!(board.tasks().len(), 2);
        let mut changed = Vec::new();
        // Agent 0 at cell 0 (nearest: task 1's first errand, cell 1); agent 1 gets task 0.
        board.assign(0, &[0, 6], &mut changed);
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
        let mut board = TaskBoard::new(&grid, vec![vec![1], vec![2]], 3, 2);
        let mut changed = Vec::new();
        board.assign(0, &[0, 3, 2], &mut changed);
        assert_eq!(board.assignments(), &[(0, 0, 0), (0, 1, 1), (0, 2, NONE)]);
        // Agent 0 finishes task 0; task 2 is revealed and agent 0 takes it: one entry, none
        // for the agents whose task did not change.
        board.arrive(1, &[1, 3, 2], &mut changed);
        board.assign(1, &[1, 3, 2], &mut changed);
        assert_eq!(board.assignments()[3..], [(1, 0, 2)]);
        board.assign(2, &[1, 3, 2], &mut changed);
        assert_eq!(
            board.assignments().len(),
            4,
            "no entry while nothing changes"
        );
    }

    #[test]
    fn one_errand_per_step() {
        let grid = Grid::from_ascii("....").unwrap();
        let mut board = TaskBoard::new(&grid, vec![vec![1, 1]], 1, 1);
        let mut changed = Vec::new();
        board.assign(0, &[1], &mut changed);
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
