//! The competition's output JSON, which PlanViz replays: every key the 2024 start kit (v2.1.2)
//! writes, in its order and with its conventions, plus `AllValid` and `sumOfCost` (older
//! kits' keys, which PlanViz ignores).
//!
//! Conventions (the start kit's `BaseSystem::saveResults` and `TaskManager`): `version` is
//! `"2024 LoRR"` (PlanViz picks its parser by it); timestep `t` is the state after `t` moves,
//! so an event at `t` is an errand reached by the `t`-th move, an assignment made when
//! planning move `t` is scheduled at `t` (the first ones at 1), tasks revealed at the start
//! have release time 0 and the others the timestep of the finish that revealed them;
//! `plannerTimes` has one entry (seconds) per step. Written as a stream (a WAREHOUSE run is
//! 10,000 agents x 5,000 steps of actions). Under the free action model `actionModel` is
//! `"MAPF"` and moves are PlanViz's `U` (row + 1), `D` (row - 1), `L`, `R`.

use std::io::{self, Write};

use super::action::LorrAction;
use super::tasks::{NO_TASK, TaskBoard};
use crate::grid::{CellId, Grid};
use crate::sim::ActionModel;

/// The format version the start kit writes, which selects PlanViz's 2024 parser.
pub(crate) const VERSION: &str = "2024 LoRR";

/// Writes the output JSON of a run: `actions` has every step's actions (an action per agent,
/// step after step), `step_ms` the time of each step.
pub(crate) fn write(
    out: &mut impl Write,
    grid: &Grid,
    model: ActionModel,
    starts: &[CellId],
    actions: &[LorrAction],
    step_ms: &[f64],
    board: &TaskBoard,
) -> io::Result<()> {
    let agents = starts.len();
    let steps = step_ms.len();
    let rc = |cell: CellId| {
        let (x, y) = grid.coords(cell);
        (y, x)
    };
    let model_name = match model {
        ActionModel::Rotate => "MAPF_T",
        ActionModel::Free => "MAPF",
    };
    writeln!(out, "{{")?;
    writeln!(out, "  \"actionModel\": \"{model_name}\",")?;
    writeln!(out, "  \"version\": \"{VERSION}\",")?;
    // The plan passed the independent replay before it is written.
    writeln!(out, "  \"AllValid\": \"Yes\",")?;
    writeln!(out, "  \"teamSize\": {agents},")?;
    writeln!(out, "  \"numTaskFinished\": {},", board.finished())?;
    let cost = actions.iter().filter(|&&a| a != LorrAction::Wait).count();
    writeln!(out, "  \"sumOfCost\": {cost},")?;
    writeln!(out, "  \"makespan\": {steps},")?;
    // A valid plan, no schedule refused, no step over a time limit (throng has none).
    writeln!(out, "  \"numPlannerErrors\": 0,")?;
    writeln!(out, "  \"numScheduleErrors\": 0,")?;
    writeln!(out, "  \"numEntryTimeouts\": 0,")?;
    write!(out, "  \"start\": [")?;
    for (a, &s) in starts.iter().enumerate() {
        let (r, c) = rc(s);
        let sep = if a + 1 < agents { "," } else { "" };
        write!(out, "[{r},{c},\"E\"]{sep}")?;
    }
    writeln!(out, "],")?;
    for key in ["actualPaths", "plannerPaths"] {
        writeln!(out, "  \"{key}\": [")?;
        let mut path = Vec::with_capacity(steps * 2);
        for a in 0..agents {
            path.clear();
            for t in 0..steps {
                if t > 0 {
                    path.push(b',');
                }
                // The letters are ASCII.
                path.push(actions[t * agents + a].letter() as u8);
            }
            out.write_all(b"    \"")?;
            out.write_all(&path)?;
            let sep = if a + 1 < agents { "," } else { "" };
            writeln!(out, "\"{sep}")?;
        }
        writeln!(out, "  ],")?;
    }
    write!(out, "  \"plannerTimes\": [")?;
    for (t, ms) in step_ms.iter().enumerate() {
        let sep = if t + 1 < step_ms.len() { "," } else { "" };
        write!(out, "{:.6}{sep}", ms / 1e3)?;
    }
    writeln!(out, "],")?;
    writeln!(out, "  \"errors\": [],")?;
    // Each agent's schedule: "timestep:task" each time its task changed (-1: none), comma-
    // separated with no comma at the end (PlanViz reads each piece as two integers). The
    // board numbers an assignment by the step that planned it (from 0); the kit by the
    // timestep at which it holds, the end of that step's move (from 1).
    let mut schedule = vec![String::new(); agents];
    for &(step, agent, task) in board.assignments() {
        let s = &mut schedule[agent as usize];
        if !s.is_empty() {
            s.push(',');
        }
        let task = if task == NO_TASK { -1 } else { i64::from(task) };
        s.push_str(&format!("{}:{task}", step + 1));
    }
    for key in ["actualSchedule", "plannerSchedule"] {
        writeln!(out, "  \"{key}\": [")?;
        for (a, s) in schedule.iter().enumerate() {
            let sep = if a + 1 < agents { "," } else { "" };
            writeln!(out, "    \"{s}\"{sep}")?;
        }
        writeln!(out, "  ],")?;
    }
    writeln!(out, "  \"scheduleErrors\": [],")?;
    write!(out, "  \"events\": [")?;
    let events = board.events();
    for (i, e) in events.iter().enumerate() {
        let sep = if i + 1 < events.len() { "," } else { "" };
        write!(out, "[{},{},{},{}]{sep}", e.step, e.agent, e.task, e.done)?;
    }
    writeln!(out, "],")?;
    writeln!(out, "  \"tasks\": [")?;
    let tasks = board.tasks();
    for (i, t) in tasks.iter().enumerate() {
        write!(out, "    [{},{},[", t.id, t.revealed_at)?;
        let errands = board.errands(t);
        for (j, &e) in errands.iter().enumerate() {
            let (r, c) = rc(e);
            let sep = if j + 1 < errands.len() { "," } else { "" };
            write!(out, "{r},{c}{sep}")?;
        }
        let sep = if i + 1 < tasks.len() { "," } else { "" };
        writeln!(out, "]]{sep}")?;
    }
    writeln!(out, "  ]")?;
    writeln!(out, "}}")?;
    Ok(())
}
