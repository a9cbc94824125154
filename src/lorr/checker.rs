//! The independent check of a League of Robot Runners plan, fed one step at a time: the moves
//! replayed from the starts under the action model, and the tasks under the start kit's
//! schedule rules ([`super::validate`]'s module docs). [`super::replay`] and
//! [`super::replay_schedule`] feed it a whole plan; a run ([`super::LorrRun`]) feeds it each
//! step as it is played, so that the check of a long run does not wait for its end (a run on
//! the pool checks a step on one thread while it assigns and plans the next on the other).
//!
//! It keeps its own copies of the map, the starts and the tasks' errands, reads nothing of the
//! planner's or the task board's state, and reads the plan as the output file's letters with a
//! decoder of its own ([`decode`]), apart from the run's typed actions
//! ([`super::LorrAction`]): a letter the run writes wrong is a plan the check refuses.

use super::tasks::NO_TASK;
use super::validate::{PlanError, ScheduleReplay};
use crate::grid::{CellId, Grid};
use crate::mapf::{NO_AGENT, check_step};
use crate::sim::{ActionModel, Heading};

/// A plan checked so far: the agents' cells and headings after the steps given, and the tasks.
#[derive(Debug, Clone)]
pub struct PlanChecker {
    grid: Grid,
    model: ActionModel,
    /// Task `k`'s errands: line `k mod lines.len()`.
    lines: Vec<Vec<CellId>>,
    cells: Vec<CellId>,
    next: Vec<CellId>,
    /// Per agent: its heading by the competition's numbers (0 east, 1 south, 2 west, 3
    /// north).
    headings: Vec<u8>,
    /// Steps replayed.
    steps: usize,
    /// Per agent: its task.
    task_of: Vec<u32>,
    /// Per task: its agent, errands done, whether finished.
    holder: Vec<u32>,
    done: Vec<u32>,
    finished_at: Vec<bool>,
    revealed: u64,
    finished: u64,
    events: Vec<(u64, u32, u32, u32)>,
    /// Schedule entries read.
    entries_read: usize,
    changes: Vec<(u32, u32)>,
    /// The first error found; every later call returns it.
    error: Option<PlanError>,
}

impl PlanChecker {
    /// A check of a plan for agents at `starts` (all facing east under the rotate model) on
    /// `grid`, with task `k` being line `k mod lines` of `lines` and `reveal` tasks revealed at
    /// the start (one more each time one is finished). Starts that share a cell or lie off the
    /// free cells make every later call fail.
    pub fn new(
        grid: &Grid,
        starts: &[CellId],
        model: ActionModel,
        lines: &[Vec<CellId>],
        reveal: usize,
    ) -> PlanChecker {
        let error = check_step(grid, starts, starts)
            .err()
            .map(|conflict| PlanError::Conflict { step: 0, conflict });
        PlanChecker {
            grid: grid.clone(),
            model,
            lines: lines.to_vec(),
            cells: starts.to_vec(),
            next: starts.to_vec(),
            headings: vec![0; starts.len()],
            steps: 0,
            task_of: vec![NO_TASK; starts.len()],
            holder: Vec::new(),
            done: Vec::new(),
            finished_at: Vec::new(),
            revealed: reveal as u64,
            finished: 0,
            events: Vec::new(),
            entries_read: 0,
            changes: Vec::new(),
            error,
        }
    }

    /// Steps replayed so far.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The first error found so far, if any (every later step returns it).
    pub fn error(&self) -> Option<&PlanError> {
        self.error.as_ref()
    }

    /// Schedule entries read so far: the next call takes the schedule from this index on.
    pub fn entries_read(&self) -> usize {
        self.entries_read
    }

    /// Replays the next step: first the errands the agents stand on after the step before, then
    /// the `schedule` entries ((step, agent, task or [`u32::MAX`] for none), in step order;
    /// `schedule` begins at the first entry not read yet, [`PlanChecker::entries_read`]) of this
    /// step, then the moves of `letters` (a letter per agent).
    ///
    /// # Errors
    /// The first [`PlanError`] of the plan so far.
    pub fn step(&mut self, letters: &str, schedule: &[(u64, u32, u32)]) -> Result<(), PlanError> {
        if self.error.is_none()
            && let Err(e) = self.before_step(schedule).and_then(|_| self.apply(letters))
        {
            self.error = Some(e);
        }
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Replays the steps of `steps` (every step of the plan so far, from the first) that it
    /// has not replayed yet, as [`PlanChecker::step`], `schedule` being the schedule from entry
    /// `first_entry` on (it must hold the entries from [`PlanChecker::entries_read`]).
    ///
    /// # Errors
    /// The first [`PlanError`] of the plan so far.
    pub fn catch_up(
        &mut self,
        steps: &[impl AsRef<str>],
        schedule: &[(u64, u32, u32)],
        first_entry: usize,
    ) -> Result<(), PlanError> {
        for letters in steps.get(self.steps..).unwrap_or_default() {
            let read = self.entries_read - first_entry;
            self.step(letters.as_ref(), &schedule[read..])?;
        }
        Ok(())
    }

    /// Ends the check after the steps given: the errands of the last move, then the rest of
    /// `schedule` (from the first entry not read yet), which may only be of the step after the
    /// last.
    ///
    /// # Errors
    /// The first [`PlanError`] of the plan, or [`PlanError::Schedule`] for an entry after the
    /// last step.
    pub fn finish(mut self, schedule: &[(u64, u32, u32)]) -> Result<ScheduleReplay, PlanError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let read = self.before_step(schedule)?;
        if let Some(&(s, agent, _)) = schedule.get(read) {
            return Err(PlanError::Schedule {
                step: s,
                agent,
                reason: format!("a schedule entry after the last step ({})", self.steps),
            });
        }
        Ok(ScheduleReplay {
            finished: self.finished,
            events: self.events,
            cells: self.cells,
            headings: self
                .headings
                .iter()
                .map(|&h| Heading::ALL[h as usize])
                .collect(),
        })
    }

    /// Before the moves of step `self.steps`: the errands done by the move that led here (none
    /// before the first step), then this step's entries at the front of `schedule`: every
    /// agent's old task let go, then the new ones taken. Returns the entries read.
    fn before_step(&mut self, schedule: &[(u64, u32, u32)]) -> Result<usize, PlanError> {
        let step = self.steps as u64;
        if step > 0 {
            self.errands_done(step);
        }
        let agents = self.cells.len();
        self.changes.clear();
        let mut read = 0;
        while let Some(&(s, agent, task)) = schedule.get(read) {
            if s > step {
                break;
            }
            let refuse = |reason: String| PlanError::Schedule {
                step: s,
                agent,
                reason,
            };
            if s < step {
                return Err(refuse("a schedule entry out of step order".into()));
            }
            if agent as usize >= agents {
                return Err(refuse(format!("no such agent ({agents} agents)")));
            }
            if task != NO_TASK && u64::from(task) >= self.revealed {
                return Err(refuse(format!(
                    "task {task} is not revealed ({} tasks revealed so far)",
                    self.revealed
                )));
            }
            self.changes.push((agent, task));
            read += 1;
        }
        self.entries_read += read;
        for &(agent, task) in &self.changes {
            let old = self.task_of[agent as usize];
            if old == NO_TASK || old == task {
                continue;
            }
            if self.done[old as usize] > 0 {
                return Err(PlanError::Schedule {
                    step,
                    agent,
                    reason: format!("task {old} is opened (its first errand reached): it stays"),
                });
            }
            self.holder[old as usize] = NO_AGENT;
            self.task_of[agent as usize] = NO_TASK;
        }
        for &(agent, task) in &self.changes {
            if task == NO_TASK || self.task_of[agent as usize] == task {
                continue;
            }
            let t = task as usize;
            if self.holder.len() <= t {
                self.holder.resize(t + 1, NO_AGENT);
                self.done.resize(t + 1, 0);
                self.finished_at.resize(t + 1, false);
            }
            let refuse = |reason: String| PlanError::Schedule {
                step,
                agent,
                reason,
            };
            if self.finished_at[t] {
                return Err(refuse(format!("task {task} is finished")));
            }
            if self.holder[t] != NO_AGENT {
                return Err(refuse(format!(
                    "task {task} is agent {}'s at the same time",
                    self.holder[t]
                )));
            }
            self.holder[t] = agent;
            self.task_of[agent as usize] = task;
        }
        Ok(read)
    }

    /// The errands the agents stand on after the move that ended at `step`.
    fn errands_done(&mut self, step: u64) {
        let lines = self.lines.len().max(1);
        for (agent, &at) in self.cells.iter().enumerate() {
            let task = self.task_of[agent];
            if task == NO_TASK {
                continue;
            }
            let list = &self.lines[task as usize % lines];
            let t = task as usize;
            if list.get(self.done[t] as usize) != Some(&at) {
                continue;
            }
            self.done[t] += 1;
            self.events.push((step, agent as u32, task, self.done[t]));
            if self.done[t] as usize == list.len() {
                self.finished_at[t] = true;
                self.holder[t] = NO_AGENT;
                self.task_of[agent] = NO_TASK;
                self.finished += 1;
                self.revealed += 1;
            }
        }
    }

    /// The moves of step `self.steps`, checked, then the step counted.
    fn apply(&mut self, letters: &str) -> Result<(), PlanError> {
        let (step, model, grid) = (self.steps, self.model, &self.grid);
        let agents = self.cells.len();
        if letters.chars().count() != agents {
            return Err(PlanError::Shape(format!(
                "step {step}: {} actions for {agents} agents",
                letters.chars().count(),
            )));
        }
        for (agent, letter) in letters.chars().enumerate() {
            let from = self.cells[agent];
            let heading = &mut self.headings[agent];
            let Some((turned, (dx, dy))) = decode(model, letter, *heading) else {
                return Err(PlanError::UnknownAction {
                    step,
                    agent,
                    letter,
                    model,
                });
            };
            *heading = turned;
            self.next[agent] = if (dx, dy) == (0, 0) {
                from
            } else {
                // The move's target by coordinates, checked against the map's bounds and
                // walls here rather than through the grid's move tables.
                let (x, y) = grid.coords(from);
                let (tx, ty) = (i64::from(x) + dx, i64::from(y) + dy);
                if !grid.is_walkable_xy(tx, ty) {
                    return Err(PlanError::Blocked { step, agent, from });
                }
                grid.cell(tx as u32, ty as u32)
                    .expect("walkable cells are on the map")
            };
        }
        check_step(grid, &self.cells, &self.next)
            .map_err(|conflict| PlanError::Conflict { step, conflict })?;
        std::mem::swap(&mut self.cells, &mut self.next);
        self.steps += 1;
        Ok(())
    }
}

/// One step along each heading by the competition's numbers (0 east, 1 south, 2 west, 3
/// north), in map coordinates (column, row; row 0 at the top).
const AHEAD: [(i64, i64); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

/// The checker's own reading of `letter` under `model` for an agent with `heading` (by the
/// competition's numbers): its heading after the action and its step (column, row; (0, 0)
/// when it stays), `None` for a letter the model does not have. Rotate model (`MAPF_T`): `F`
/// one cell the way it faces, `R` / `C` a quarter turn clockwise / counter-clockwise, `W`
/// wait. Free model (`MAPF`), as PlanViz replays it: `U` row + 1, `D` row - 1, `L` / `R` one
/// column left / right, `W` wait.
fn decode(model: ActionModel, letter: char, heading: u8) -> Option<(u8, (i64, i64))> {
    Some(match (model, letter) {
        (_, 'W') => (heading, (0, 0)),
        (ActionModel::Rotate, 'F') => (heading, AHEAD[heading as usize]),
        (ActionModel::Rotate, 'R') => ((heading + 1) % 4, (0, 0)),
        (ActionModel::Rotate, 'C') => ((heading + 3) % 4, (0, 0)),
        (ActionModel::Free, 'U') => (heading, (0, 1)),
        (ActionModel::Free, 'D') => (heading, (0, -1)),
        (ActionModel::Free, 'L') => (heading, (-1, 0)),
        (ActionModel::Free, 'R') => (heading, (1, 0)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lorr::replay_schedule;

    #[test]
    fn step_by_step_is_the_whole_replay() {
        let grid = Grid::from_ascii("....\n....").unwrap();
        // Task 0: errands 1 then 2; task 1: errand 3; task 2 (revealed later): 1 then 2.
        let lines = vec![vec![1, 2], vec![3]];
        let starts = [0, 2];
        let steps = ["RR", "RW", "WW", "LW"];
        let schedule = [(0, 0, 0), (0, 1, 1), (2, 1, 2), (3, 0, NO_TASK)];
        let whole = replay_schedule(
            &grid,
            &starts,
            ActionModel::Free,
            &steps,
            &lines,
            2,
            &schedule,
        )
        .unwrap();
        let mut checker = PlanChecker::new(&grid, &starts, ActionModel::Free, &lines, 2);
        for (k, letters) in steps.iter().enumerate() {
            // As a run feeds it: only the entries recorded so far (up to this step).
            let known: Vec<_> = schedule
                .iter()
                .copied()
                .filter(|e| e.0 <= k as u64)
                .collect();
            let read = checker.entries_read();
            checker.step(letters, &known[read..]).unwrap();
            assert_eq!(checker.steps(), k + 1);
        }
        assert_eq!(checker.entries_read(), schedule.len());
        assert_eq!(checker.finish(&[]).unwrap(), whole);
        assert_eq!(whole.finished, 2);
    }

    #[test]
    fn the_checkers_letters_mean_what_the_runs_actions_do() {
        // Two readings written apart agree on every letter of both models, from every heading.
        let grid = Grid::from_ascii("...\n...\n...").unwrap();
        let centre = grid.cell(1, 1).unwrap();
        for model in ActionModel::ALL {
            for letter in ['F', 'R', 'C', 'W', 'U', 'D', 'L', 'X'] {
                for (h, &heading) in Heading::ALL.iter().enumerate() {
                    let ours = decode(model, letter, h as u8);
                    let runs = crate::lorr::LorrAction::from_letter(model, letter);
                    assert_eq!(ours.is_some(), runs.is_some(), "{model} {letter}");
                    let (Some((turned, (dx, dy))), Some(action)) = (ours, runs) else {
                        continue;
                    };
                    assert_eq!(Heading::ALL[turned as usize], action.after(heading));
                    let (x, y) = grid.coords(centre);
                    let ours = grid.cell((i64::from(x) + dx) as u32, (i64::from(y) + dy) as u32);
                    let runs = action
                        .moves(action.after(heading))
                        .map(|d| grid.step(centre, d));
                    assert_eq!(
                        ours,
                        Some(runs.unwrap_or(centre)),
                        "{model} {letter} {heading:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_first_error_stays() {
        let grid = Grid::from_ascii("...").unwrap();
        let mut checker = PlanChecker::new(&grid, &[0, 2], ActionModel::Free, &[], 0);
        checker.step("RW", &[]).unwrap();
        // Agent 0 onto agent 1's cell.
        let err = checker.step("RW", &[]).unwrap_err();
        assert!(matches!(err, PlanError::Conflict { step: 1, .. }), "{err}");
        // A valid step after it does not clear it, nor does the end.
        assert_eq!(checker.step("WW", &[]), Err(err.clone()));
        assert_eq!(checker.steps(), 1);
        assert_eq!(checker.finish(&[]), Err(err));
        // Starts on one cell fail at once; an entry past the last step fails at the end.
        let mut twice = PlanChecker::new(&grid, &[1, 1], ActionModel::Free, &[], 0);
        assert!(twice.step("WW", &[]).is_err());
        let lines = vec![vec![1]];
        let mut late = PlanChecker::new(&grid, &[0], ActionModel::Free, &lines, 1);
        late.step("W", &[]).unwrap();
        let err = late.finish(&[(2, 0, 0)]).unwrap_err();
        assert!(err.to_string().contains("after the last step"), "{err}");
    }
}
