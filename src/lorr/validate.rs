//! An independent check of a League of Robot Runners plan: the actions of every agent, step by
//! step, replayed from the starts. Written apart from the simulation so that it can judge it.
//!
//! Rotate model (`MAPF_T`): `F` moves one cell the way the agent faces (onto a free cell of
//! the map), `R` / `C` turn it clockwise / counter-clockwise, `W` waits. Free model (`MAPF`):
//! PlanViz's letters as PlanViz replays them: `U` moves one row down (south, row + 1), `D` one
//! row up (north), `L` / `R` one column left / right, `W` waits. After every step no two agents
//! share a cell and no two swapped cells ([`crate::mapf::check_step`]).
//!
//! [`replay_schedule`] replays the tasks alongside: the schedule (each change of an agent's
//! task) under the 2024 start kit's rules as this checker reads them (a task goes to one agent
//! at a time; a task whose first errand its agent reached, "opened", stays with that agent
//! until finished, so an agent with an opened task keeps it; only revealed, unfinished tasks
//! are given), and the errands done from the replayed positions. Both feed the whole plan to
//! [`super::PlanChecker`], which a run feeds step by step.

use super::checker::PlanChecker;
use crate::grid::{CellId, Grid};
use crate::sim::{ActionModel, Heading};

/// Why a plan is not valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// An action letter that is not one of the model's.
    #[error("step {step}: agent {agent}: unknown action {letter:?} for the {model} model")]
    UnknownAction {
        /// The step (0-based).
        step: usize,
        /// The agent.
        agent: usize,
        /// The letter.
        letter: char,
        /// The model.
        model: ActionModel,
    },
    /// A move off the map or onto a blocked cell.
    #[error("step {step}: agent {agent} moves from cell {from} off the map or into a wall")]
    Blocked {
        /// The step (0-based).
        step: usize,
        /// The agent.
        agent: usize,
        /// Its cell.
        from: CellId,
    },
    /// Two agents in one cell, or swapping cells.
    #[error("step {step}: {conflict}")]
    Conflict {
        /// The step (0-based).
        step: usize,
        /// The conflict, from [`crate::mapf::check_step`].
        conflict: crate::mapf::StepConflict,
    },
    /// The plan's shape does not match the agents.
    #[error("{0}")]
    Shape(String),
    /// A change of task the rules do not allow, or tasks done that differ from the run's.
    #[error("step {step}: agent {agent}: {reason}")]
    Schedule {
        /// The step (0-based) of the schedule entry.
        step: u64,
        /// The agent.
        agent: u32,
        /// What is wrong.
        reason: String,
    },
}

/// Replays `steps` (one string of action letters per step, a letter per agent) from `starts`
/// (all facing east under the rotate model) and returns where the agents end, with their
/// headings.
///
/// ```
/// use throng::grid::Grid;
/// use throng::lorr::replay;
/// use throng::sim::{ActionModel, Heading};
///
/// let grid = Grid::from_ascii("...\n...")?;
/// // Agent 0 moves east then turns south; agent 1 waits then follows into the cell 0 left.
/// let (end, _) = replay(&grid, &[1, 0], ActionModel::Rotate, &["FW", "RF"])?;
/// assert_eq!(end, vec![2, 1]);
/// assert!(replay(&grid, &[0, 1], ActionModel::Rotate, &["FW"]).is_err()); // into agent 1
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// The first [`PlanError`].
pub fn replay(
    grid: &Grid,
    starts: &[CellId],
    model: ActionModel,
    steps: &[&str],
) -> Result<(Vec<CellId>, Vec<Heading>), PlanError> {
    let replay = replay_schedule(grid, starts, model, steps, &[], 0, &[])?;
    Ok((replay.cells, replay.headings))
}

/// What [`replay_schedule`] gives: the tasks a plan finished and every errand done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleReplay {
    /// Tasks finished.
    pub finished: u64,
    /// Every errand done, in order: (step count after the move, agent, task, errands of the
    /// task done), as [`super::TaskEvent`] lists them.
    pub events: Vec<(u64, u32, u32, u32)>,
    /// Where the agents end.
    pub cells: Vec<CellId>,
    /// Their headings at the end.
    pub headings: Vec<Heading>,
}

/// Replays a plan's tasks: the moves as [`replay`], and at each step first the `schedule`
/// entries of that step ((step, agent, task or [`u32::MAX`] for none), in step order, as
/// [`super::TaskBoard::assignments`] lists them), checked against the rules of the module
/// docs, then the errands the agents stand on after the move. Task `k` is line `k mod
/// lines` of `lines`; `reveal` tasks are revealed at the start and one more each time one is
/// finished.
///
/// # Errors
/// The moves' first [`PlanError`], or [`PlanError::Schedule`] for an entry the rules refuse.
pub fn replay_schedule(
    grid: &Grid,
    starts: &[CellId],
    model: ActionModel,
    steps: &[&str],
    lines: &[Vec<CellId>],
    reveal: usize,
    schedule: &[(u64, u32, u32)],
) -> Result<ScheduleReplay, PlanError> {
    let mut checker = PlanChecker::new(grid, starts, model, lines, reveal);
    checker.catch_up(steps, schedule, 0)?;
    let read = checker.entries_read();
    checker.finish(&schedule[read..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotate_plans_are_judged_step_by_step() {
        let grid = Grid::from_ascii("...\n.@.").unwrap();
        // Facing east from (0,0): F to (1,0); R faces south: F would enter the wall.
        assert!(replay(&grid, &[0], ActionModel::Rotate, &["F", "R"]).is_ok());
        assert_eq!(
            replay(&grid, &[0], ActionModel::Rotate, &["F", "R", "F"]),
            Err(PlanError::Blocked {
                step: 2,
                agent: 0,
                from: 1
            })
        );
        // Off the map: facing east from (2,0).
        assert!(matches!(
            replay(&grid, &[2], ActionModel::Rotate, &["F"]),
            Err(PlanError::Blocked { .. })
        ));
        // C then F from (0,0) faces north, off the map.
        assert!(replay(&grid, &[0], ActionModel::Rotate, &["C", "F"]).is_err());
        // A swap: 0 east, 1 (turned west twice) east to west.
        let swap = replay(&grid, &[0, 1], ActionModel::Rotate, &["WR", "WR", "FF"]);
        assert!(
            matches!(swap, Err(PlanError::Conflict { step: 2, .. })),
            "{swap:?}"
        );
        // Following into a cell being left is fine.
        assert!(replay(&grid, &[0, 1], ActionModel::Rotate, &["FF"]).is_ok());
        assert!(matches!(
            replay(&grid, &[0], ActionModel::Rotate, &["U"]),
            Err(PlanError::UnknownAction { .. })
        ));
        assert!(matches!(
            replay(&grid, &[0], ActionModel::Rotate, &["FF"]),
            Err(PlanError::Shape(_))
        ));
    }

    #[test]
    fn schedules_follow_the_start_kits_rules() {
        use crate::lorr::NO_TASK;
        let grid = Grid::from_ascii("....").unwrap();
        // Task 0: errands 1 then 2; task 1: errand 3; task 2 (revealed when one finishes): 1, 2.
        let lines = vec![vec![1, 2], vec![3]];
        let (starts, model) = ([0, 2], ActionModel::Free);
        let play = |steps: &[&str], schedule: &[(u64, u32, u32)]| {
            replay_schedule(&grid, &starts, model, steps, &lines, 2, schedule)
        };
        // Agent 0 opens task 0 at step 1 and finishes it at step 2; agent 1 does task 1.
        let ok = play(&["RR", "RW"], &[(0, 0, 0), (0, 1, 1)]).unwrap();
        assert_eq!(ok.finished, 2);
        assert_eq!(ok.events, vec![(1, 0, 0, 1), (1, 1, 1, 1), (2, 0, 0, 2)]);
        // Two agents swapping unopened tasks in one step is fine; then agent 1 opens task 0.
        let swap = [(0, 0, 0), (0, 1, 1), (1, 0, 1), (1, 1, 0)];
        let ok = play(&["WW", "WL"], &swap).unwrap();
        assert_eq!(ok.events, vec![(2, 1, 0, 1)]);
        // Refused: an opened task handed on, one task for two agents, a task not revealed, a
        // finished one, entries out of order.
        let refused = |steps: &[&str], schedule: &[(u64, u32, u32)], what: &str| {
            let err = play(steps, schedule).unwrap_err();
            assert!(err.to_string().contains(what), "{err}");
        };
        refused(
            &["RW", "WW"],
            &[(0, 0, 0), (1, 0, NO_TASK), (1, 1, 0)],
            "is opened",
        );
        refused(&["WW"], &[(0, 0, 0), (0, 1, 0)], "at the same time");
        refused(&["WW"], &[(0, 0, 2)], "not revealed");
        refused(
            &["RR", "WW"],
            &[(0, 1, 1), (1, 1, NO_TASK), (1, 0, 1)],
            "is finished",
        );
        refused(&["WW", "WW"], &[(1, 0, 0), (0, 1, 1)], "out of step order");
        refused(&["WW"], &[(0, 2, 0)], "no such agent");
    }

    #[test]
    fn free_plans_use_planviz_letters() {
        let grid = Grid::from_ascii("...\n...").unwrap();
        // PlanViz replays `U` as a step to the next row (row + 1), `D` to the row before.
        let (end, _) = replay(&grid, &[0], ActionModel::Free, &["U"]).unwrap();
        assert_eq!(end, vec![grid.cell(0, 1).unwrap()]);
        assert!(replay(&grid, &[0], ActionModel::Free, &["D"]).is_err());
        let (end, _) = replay(&grid, &[0], ActionModel::Free, &["R", "U", "L", "D", "W"]).unwrap();
        assert_eq!(end, vec![0]);
        assert!(replay(&grid, &[0], ActionModel::Free, &["F"]).is_err());
        assert!(replay(&grid, &[0], ActionModel::Free, &["L"]).is_err());
    }
}
