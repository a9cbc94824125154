//! The competition's output JSON, which PlanViz replays: `actionModel`, `AllValid`,
//! `teamSize`, `start`, `numTaskFinished`, `sumOfCost`, `makespan`, `actualPaths`,
//! `plannerPaths`, `plannerTimes`, `errors`, `events`, `tasks`, `actualSchedule` and
//! `plannerSchedule` (format: the start kit's `Input_Output_Format.md`, v2.1).
//!
//! Written as a stream (a WAREHOUSE run is 10,000 agents x 5,000 steps of actions). Under the
//! free action model `actionModel` is `"MAPF"` and moves are `U`, `D`, `L`, `R` (PlanViz
//! replays only `MAPF_T`).

use std::io::{self, Write};

use super::tasks::{NONE, TaskBoard};
use crate::grid::{CellId, Grid};
use crate::sim::ActionModel;

/// Writes the output JSON of a run: `actions` has one string per step (a letter per agent),
/// `step_ms` the time of each step.
pub(crate) fn write(
    out: &mut impl Write,
    grid: &Grid,
    model: ActionModel,
    starts: &[CellId],
    actions: &[String],
    step_ms: &[f64],
    board: &TaskBoard,
) -> io::Result<()> {
    let agents = starts.len();
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
    writeln!(out, "  \"AllValid\": \"Yes\",")?;
    writeln!(out, "  \"teamSize\": {agents},")?;
    write!(out, "  \"start\": [")?;
    for (a, &s) in starts.iter().enumerate() {
        let (r, c) = rc(s);
        let sep = if a + 1 < agents { "," } else { "" };
        write!(out, "[{r},{c},\"E\"]{sep}")?;
    }
    writeln!(out, "],")?;
    writeln!(out, "  \"numTaskFinished\": {},", board.finished())?;
    let cost = actions
        .iter()
        .map(|s| s.bytes().filter(|&b| b != b'W').count())
        .sum::<usize>();
    writeln!(out, "  \"sumOfCost\": {cost},")?;
    writeln!(out, "  \"makespan\": {},", actions.len())?;
    for key in ["actualPaths", "plannerPaths"] {
        writeln!(out, "  \"{key}\": [")?;
        let mut path = Vec::with_capacity(actions.len() * 2);
        for a in 0..agents {
            path.clear();
            for (t, step) in actions.iter().enumerate() {
                if t > 0 {
                    path.push(b',');
                }
                path.push(step.as_bytes()[a]);
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
    writeln!(out, "  ],")?;
    // Each agent's schedule: "step:task" each time it was given a task, comma-separated with
    // no comma at the end (PlanViz reads each piece as two integers; a trailing comma made
    // its loader fail on the empty piece).
    let mut schedule = vec![String::new(); agents];
    for &(step, agent, task) in board.assignments() {
        if agent != NONE {
            let s = &mut schedule[agent as usize];
            if !s.is_empty() {
                s.push(',');
            }
            s.push_str(&format!("{step}:{task}"));
        }
    }
    for (k, key) in ["actualSchedule", "plannerSchedule"].iter().enumerate() {
        writeln!(out, "  \"{key}\": [")?;
        for (a, s) in schedule.iter().enumerate() {
            let sep = if a + 1 < agents { "," } else { "" };
            writeln!(out, "    \"{s}\"{sep}")?;
        }
        let sep = if k == 0 { "," } else { "" };
        writeln!(out, "  ]{sep}")?;
    }
    writeln!(out, "}}")?;
    Ok(())
}
