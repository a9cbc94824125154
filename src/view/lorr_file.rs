//! Reading a League of Robot Runners output JSON (`throng lorr --out` writes it, PlanViz
//! replays it): `actionModel` (`MAPF_T`: `F`orward, clockwise `R`, counter-clockwise `C`,
//! `W`ait; `MAPF`: `U`, `D`, `L`, `R`, `W`), `start` (`[row, column, heading]` per robot),
//! `actualPaths` (per robot its actions joined by commas), and for the goals shown, `tasks`
//! (`[id, revealed at, [row, column, ...]]`), `actualSchedule` (per robot `t:task,...`, the
//! start kit's convention: the task holds from timestep `t`, so it is the robot's goal from the
//! state at `t - 1` on, and task `-1` is none) and `events` (`[t, robot, task, errands done]`,
//! the errand reached with the robot's `t`-th move). Other keys are skipped.
//!
//! The file does not name its map: [`LorrOutput::replay`] plays the actions on a map given
//! apart, checking every robot's start and every move (on the map, onto a free cell), and
//! that the task events happen where the errands are. Errors name the file and the line of
//! the value at fault.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;

use super::json_lines::element_line;
use super::replay::{ReplayStreams, ReplayWriter};
use crate::error::{Error, ParseError, Result};
use crate::grid::{CellId, Grid, Neighborhood};
use crate::input::{Input, read_text};
use crate::lorr::LorrAction;
use crate::sim::{ActionModel, Heading};
use crate::trace::TraceMap;

/// The keys read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OutputJson {
    action_model: String,
    team_size: u64,
    start: Vec<(u64, u64, String)>,
    actual_paths: Vec<String>,
    #[serde(default)]
    events: Vec<(u64, u64, u64, u64)>,
    #[serde(default)]
    tasks: Vec<(u64, u64, Vec<u64>)>,
    #[serde(default)]
    actual_schedule: Vec<String>,
}

/// A LoRR output as read, before its map is known.
#[derive(Debug, Clone)]
pub struct LorrOutput {
    /// The file, as named in errors.
    pub file: String,
    text: String,
    /// `MAPF_T` ([`ActionModel::Rotate`]) or `MAPF` ([`ActionModel::Free`]).
    pub model: ActionModel,
    /// Each robot's `(row, column)` and heading at step 0.
    pub starts: Vec<(u64, u64, Heading)>,
    /// Each robot's actions, one letter a step.
    paths: Vec<String>,
    /// Steps played (actions per robot).
    pub steps: usize,
    /// Errands (`(row, column)`) by task id.
    tasks: HashMap<u64, (Vec<(u64, u64)>, usize)>,
    /// Per robot: `(timestep, task)` each time its task changed (`None`: no task), the task
    /// holding from that timestep.
    schedule: Vec<Vec<(u64, Option<u64>)>>,
    /// `(step, robot, task, errands done)`.
    events: Vec<(u64, u64, u64, u64)>,
}

impl LorrOutput {
    /// Reads and parses an output file.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be read, [`Error::Parse`] as [`parse`](Self::parse).
    pub fn load(path: &Path) -> Result<LorrOutput> {
        let text = read_text(path, Input::LorrOutput)?;
        Ok(LorrOutput::parse(text, &path.display().to_string())?)
    }

    /// Parses the text of an output file; `file` names it in errors.
    ///
    /// # Errors
    /// [`ParseError`] (file and line) for JSON that does not parse or lacks a key read, an
    /// unknown action model or heading, a robot count that disagrees between `teamSize`,
    /// `start` and `actualPaths`, a path whose actions are not single letters or whose length
    /// differs from the others, a task listed twice or with an odd number of coordinates, and
    /// a schedule entry that is not `step:task`.
    pub fn parse(text: String, file: &str) -> Result<LorrOutput, ParseError> {
        let json: OutputJson = serde_json::from_str(&text).map_err(|e| {
            let msg = e.to_string();
            let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
            ParseError::at(file, e.line().max(1), msg)
        })?;
        let at = |key: &str, i: usize, msg: String| {
            ParseError::at(
                file,
                element_line(&text, key, i),
                format!("{key}[{i}]: {msg}"),
            )
        };
        let model = match json.action_model.as_str() {
            "MAPF_T" => ActionModel::Rotate,
            "MAPF" => ActionModel::Free,
            other => {
                return Err(ParseError::at(
                    file,
                    key_line(&text, "actionModel"),
                    format!("actionModel {other:?}: expected \"MAPF_T\" or \"MAPF\""),
                ));
            }
        };
        let robots = json.start.len();
        if json.team_size != robots as u64 || json.actual_paths.len() != robots {
            return Err(ParseError::at(
                file,
                key_line(&text, "teamSize"),
                format!(
                    "teamSize {}, but {robots} starts and {} actualPaths",
                    json.team_size,
                    json.actual_paths.len()
                ),
            ));
        }
        let mut starts = Vec::with_capacity(robots);
        for (a, (row, col, h)) in json.start.into_iter().enumerate() {
            let heading = match h.as_str() {
                "E" => Heading::East,
                "S" => Heading::South,
                "W" => Heading::West,
                "N" => Heading::North,
                _ => {
                    return Err(at(
                        "start",
                        a,
                        format!("heading {h:?}: expected E, S, W or N"),
                    ));
                }
            };
            starts.push((row, col, heading));
        }
        let mut steps = None;
        for (a, path) in json.actual_paths.iter().enumerate() {
            let b = path.as_bytes();
            let letters = if b.is_empty() { 0 } else { b.len().div_ceil(2) };
            let bad = b
                .iter()
                .enumerate()
                .position(|(i, &c)| (i % 2 == 1) != (c == b','))
                .or((b.last() == Some(&b',')).then_some(b.len() - 1));
            if let Some(i) = bad {
                return Err(at(
                    "actualPaths",
                    a,
                    format!("character {i}: expected one action letter, a comma, a letter, ..."),
                ));
            }
            match steps {
                None => steps = Some(letters),
                Some(s) if s != letters => {
                    return Err(at(
                        "actualPaths",
                        a,
                        format!("{letters} actions, robot 0 has {s}"),
                    ));
                }
                Some(_) => {}
            }
        }
        let mut tasks = HashMap::with_capacity(json.tasks.len());
        for (i, (id, _, cells)) in json.tasks.into_iter().enumerate() {
            if cells.is_empty() || cells.len() % 2 != 0 {
                return Err(at(
                    "tasks",
                    i,
                    format!(
                        "task {id}: {} numbers, expected row, column pairs",
                        cells.len()
                    ),
                ));
            }
            let errands = cells.chunks(2).map(|p| (p[0], p[1])).collect();
            if tasks.insert(id, (errands, i)).is_some() {
                return Err(at("tasks", i, format!("task {id} is listed twice")));
            }
        }
        let mut schedule = Vec::with_capacity(robots);
        for (a, s) in json.actual_schedule.iter().enumerate() {
            let mut entries = Vec::new();
            for piece in s.split(',').filter(|p| !p.trim().is_empty()) {
                let entry = piece.split_once(':').and_then(|(st, t)| {
                    let task = match t.trim() {
                        "-1" => None,
                        t => Some(t.parse().ok()?),
                    };
                    Some((st.trim().parse().ok()?, task))
                });
                let Some(entry) = entry else {
                    return Err(at(
                        "actualSchedule",
                        a,
                        format!("{piece:?} is not step:task"),
                    ));
                };
                entries.push(entry);
            }
            schedule.push(entries);
        }
        if !schedule.is_empty() && schedule.len() != robots {
            return Err(ParseError::at(
                file,
                key_line(&text, "actualSchedule"),
                format!("{} schedules for {robots} robots", schedule.len()),
            ));
        }
        Ok(LorrOutput {
            file: file.to_string(),
            model,
            starts,
            paths: json.actual_paths,
            steps: steps.unwrap_or(0),
            tasks,
            schedule,
            events: json.events,
            text,
        })
    }

    /// Robot `a`'s action at step `t`.
    fn action(&self, a: usize, t: usize) -> u8 {
        self.paths[a].as_bytes()[2 * t]
    }

    /// Plays the actions on `grid` (`map` names it in errors: `map FILE`, `map of PROBLEM`)
    /// and writes the replay: every
    /// robot's cell, heading (rotate model) and errand at every step. `problem_starts`, when
    /// the map came from the problem file, are the cells the robots must start on.
    ///
    /// # Errors
    /// [`ParseError`] at the line of the value at fault: a start off the map, on a blocked
    /// cell or not the problem's, an action the model does not have, a move off the map or
    /// into a wall, an errand off the map or blocked, a schedule or event naming an unknown
    /// task or robot, out of step order, or an event where the robot is not on the errand.
    pub fn replay(
        &self,
        grid: &Grid,
        map: &str,
        problem_starts: Option<&[CellId]>,
    ) -> Result<ReplayStreams, ParseError> {
        let file = self.file.as_str();
        let at = |key: &str, i: usize, msg: String| {
            ParseError::at(
                file,
                element_line(&self.text, key, i),
                format!("{key}[{i}]: {msg}"),
            )
        };
        let (w, h) = (grid.width(), grid.height());
        let free = |row: u64, col: u64| -> std::result::Result<CellId, String> {
            let c = (col < u64::from(w) && row < u64::from(h))
                .then(|| grid.cell(col as u32, row as u32))
                .flatten()
                .ok_or_else(|| {
                    format!("(row {row}, column {col}) is outside the {w} x {h} {map}")
                })?;
            if grid.is_walkable(c) {
                Ok(c)
            } else {
                Err(format!(
                    "(row {row}, column {col}) is a blocked cell of the {map}"
                ))
            }
        };
        let robots = self.starts.len();
        let mut cells = Vec::with_capacity(robots);
        let mut headings = Vec::with_capacity(robots);
        for (a, &(row, col, heading)) in self.starts.iter().enumerate() {
            let c = free(row, col).map_err(|m| at("start", a, format!("robot {a}'s start {m}")))?;
            if let Some(want) = problem_starts.and_then(|s| s.get(a))
                && *want != c
            {
                let (x, y) = grid.coords(*want);
                return Err(at(
                    "start",
                    a,
                    format!(
                        "robot {a} starts at (row {row}, column {col}), the problem's at \
                         (row {y}, column {x}): the output of another problem?"
                    ),
                ));
            }
            cells.push(c);
            headings.push(heading);
        }
        if let Some(s) = problem_starts
            && s.len() != robots
        {
            return Err(ParseError::at(
                file,
                key_line(&self.text, "teamSize"),
                format!("{robots} robots, the problem has {}", s.len()),
            ));
        }
        let mut errands: HashMap<u64, Vec<CellId>> = HashMap::with_capacity(self.tasks.len());
        for (&id, (list, i)) in &self.tasks {
            let list = list
                .iter()
                .map(|&(r, c)| free(r, c))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|m| at("tasks", *i, format!("task {id}: errand {m}")))?;
            errands.insert(id, list);
        }
        // Every task a schedule names must be listed.
        for (a, entries) in self.schedule.iter().enumerate() {
            let mut last = 0;
            for &(step, task) in entries {
                if let Some(task) = task
                    && !errands.contains_key(&task)
                {
                    return Err(at(
                        "actualSchedule",
                        a,
                        format!("task {task} is not in tasks"),
                    ));
                }
                if step < last || step > self.steps as u64 {
                    return Err(at(
                        "actualSchedule",
                        a,
                        format!("step {step} out of order or past the {} steps", self.steps),
                    ));
                }
                last = step;
            }
        }
        let rotate = self.model == ActionModel::Rotate;
        let map = TraceMap {
            width: w,
            height: h,
            neighborhood: Neighborhood::Four,
            walkable: (0..grid.len() as CellId)
                .map(|c| grid.is_walkable(c))
                .collect(),
        };
        let mut goals = Goals {
            task: vec![None; robots],
            done: vec![0; robots],
            next_schedule: vec![0; robots],
            next_event: 0,
            goal: vec![None; robots],
        };
        goals.advance(self, &errands, &cells, 0, &at)?;
        let mut writer =
            ReplayWriter::new(&map, &cells, &goals.goal, rotate.then_some(&headings[..]));
        for t in 0..self.steps {
            for a in 0..robots {
                let letter = self.action(a, t);
                let dir = match LorrAction::from_letter(self.model, char::from(letter)) {
                    Some(action) => {
                        headings[a] = action.after(headings[a]);
                        action.moves(headings[a])
                    }
                    None => {
                        return Err(at(
                            "actualPaths",
                            a,
                            format!(
                                "step {t}: {:?} is not an action of the {} model",
                                char::from(letter),
                                if rotate { "MAPF_T" } else { "MAPF" }
                            ),
                        ));
                    }
                };
                if let Some(d) = dir {
                    let (x, y) = grid.coords(cells[a]);
                    let (dx, dy) = d.delta();
                    let (tx, ty) = (i64::from(x) + i64::from(dx), i64::from(y) + i64::from(dy));
                    if !grid.is_walkable_xy(tx, ty) {
                        return Err(at(
                            "actualPaths",
                            a,
                            format!(
                                "step {t}: {} moves robot {a} from (row {y}, column {x}) off the \
                                 map or into a wall",
                                char::from(letter)
                            ),
                        ));
                    }
                    cells[a] = ty as CellId * w + tx as CellId;
                }
            }
            goals.advance(self, &errands, &cells, t as u64 + 1, &at)?;
            writer.tick(&cells, &goals.goal, rotate.then_some(&headings[..]));
        }
        if let Some(i) = (goals.next_event < self.events.len()).then_some(goals.next_event) {
            return Err(at(
                "events",
                i,
                format!("step {} is past the {} steps", self.events[i].0, self.steps),
            ));
        }
        Ok(writer.finish())
    }
}

/// Each robot's task and errand as the steps go by.
struct Goals {
    task: Vec<Option<u64>>,
    done: Vec<u64>,
    next_schedule: Vec<usize>,
    next_event: usize,
    goal: Vec<Option<CellId>>,
}

impl Goals {
    /// Applies the events of step `step` (errands done by the moves that ended it), then the
    /// tasks given at it, and sets every robot's goal: its task's next errand.
    fn advance(
        &mut self,
        out: &LorrOutput,
        errands: &HashMap<u64, Vec<CellId>>,
        cells: &[CellId],
        step: u64,
        at: &impl Fn(&str, usize, String) -> ParseError,
    ) -> Result<(), ParseError> {
        while let Some(&(s, robot, task, done)) = out.events.get(self.next_event) {
            let i = self.next_event;
            if s < step {
                return Err(at("events", i, format!("step {s} is out of order")));
            }
            if s > step {
                break;
            }
            self.next_event += 1;
            let a = usize::try_from(robot).unwrap_or(usize::MAX);
            if a >= cells.len() {
                return Err(at("events", i, format!("robot {robot} does not exist")));
            }
            if self.task[a] != Some(task) {
                return Err(at(
                    "events",
                    i,
                    format!("robot {robot} does an errand of task {task}, which it was not given"),
                ));
            }
            let list = &errands[&task];
            if done != self.done[a] + 1 || done as usize > list.len() {
                return Err(at(
                    "events",
                    i,
                    format!(
                        "errand {done} of task {task} done after {} of its {}",
                        self.done[a],
                        list.len()
                    ),
                ));
            }
            if cells[a] != list[done as usize - 1] {
                return Err(at(
                    "events",
                    i,
                    format!("robot {robot} is not on errand {done} of task {task} at step {step}"),
                ));
            }
            self.done[a] = done;
            if done as usize == list.len() {
                self.task[a] = None;
            }
        }
        // A task that holds from timestep `step + 1` was given while planning the move from the
        // state at `step`: it is the goal shown from `step` on.
        for (a, entries) in out.schedule.iter().enumerate() {
            while let Some(&(s, task)) = entries.get(self.next_schedule[a]) {
                if s > step + 1 {
                    break;
                }
                self.next_schedule[a] += 1;
                self.task[a] = task;
                self.done[a] = 0;
            }
        }
        for (a, goal) in self.goal.iter_mut().enumerate() {
            *goal = self.task[a].and_then(|t| errands[&t].get(self.done[a] as usize).copied());
        }
        Ok(())
    }
}

/// The line of top-level `key` (the first line naming it), or 1.
fn key_line(text: &str, key: &str) -> usize {
    text.find(&format!("\"{key}\""))
        .map_or(1, |o| super::json_lines::line_at(text, o))
}

/// The error for a LoRR output viewed without its map.
pub(crate) fn map_needed(file: &Path) -> Error {
    Error::Invalid(format!(
        "{} is a LoRR output, which does not name its map: add --problem PROBLEM.json (the \
         problem it played) or --map MAP",
        file.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{"actionModel": "MAPF_T", "teamSize": 2,
"start": [[0,0,"E"],[1,2,"W"]],
"actualPaths": [
  "F,R,W",
  "W,W,F"
],
"events": [[1,0,0,1]],
"tasks": [[0,0,[0,1,1,1]]],
"actualSchedule": ["0:0", ""]}"#;

    fn replay(text: &str) -> Result<ReplayStreams, String> {
        let grid = Grid::from_ascii("...\n...").unwrap();
        LorrOutput::parse(text.to_string(), "o.json")
            .and_then(|o| o.replay(&grid, "map m.map", None))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_small_output_plays() {
        let ReplayStreams {
            trace,
            headings,
            ticks,
        } = replay(OK).unwrap();
        assert_eq!(ticks, 3);
        let mut r = crate::trace::TraceReader::new(&trace[..]).unwrap();
        let mut ends = Vec::new();
        while r.next_tick().unwrap().is_some() {
            ends.push(
                r.live()
                    .iter()
                    .map(|a| (a.cell, a.goal))
                    .collect::<Vec<_>>(),
            );
        }
        // Robot 0: F to (0,1) doing errand 1 (goal then errand 2 at (1,1)), turns south,
        // waits. Robot 1 waits twice then moves west to (1,1).
        assert_eq!(ends[0], vec![(1, Some(4)), (5, None)]);
        assert_eq!(ends[2], vec![(1, Some(4)), (4, None)]);
        // Headings: E and W at the start; robot 0 turns to south at step 2.
        assert_eq!(headings.unwrap(), vec![0, 2, 0, 1, 0, 1, 0]);
    }

    #[test]
    fn damaged_outputs_name_the_line() {
        let err = |from: &str, to: &str| {
            assert!(OK.contains(from), "{from}");
            replay(&OK.replace(from, to)).unwrap_err()
        };
        assert_eq!(
            err("\"W,W,F\"", "\"F,F,F\""),
            "o.json:5: actualPaths[1]: step 2: F moves robot 1 from (row 1, column 0) off the \
             map or into a wall"
        );
        assert_eq!(
            err("\"W,W,F\"", "\"W,W\""),
            "o.json:5: actualPaths[1]: 2 actions, robot 0 has 3"
        );
        assert_eq!(
            err("\"F,R,W\"", "\"F,U,W\""),
            "o.json:4: actualPaths[0]: step 1: 'U' is not an action of the MAPF_T model"
        );
        assert_eq!(
            err("\"F,R,W\"", "\"FR,W\""),
            "o.json:4: actualPaths[0]: character 1: expected one action letter, a comma, a \
             letter, ..."
        );
        assert_eq!(
            err("[1,2,\"W\"]", "[1,3,\"W\"]"),
            "o.json:2: start[1]: robot 1's start (row 1, column 3) is outside the 3 x 2 map m.map"
        );
        assert_eq!(
            err("[0,1,1,1]", "[0,2,1,1]"),
            "o.json:7: events[0]: robot 0 is not on errand 1 of task 0 at step 1"
        );
        assert_eq!(
            err("[1,0,0,1]", "[1,1,0,1]"),
            "o.json:7: events[0]: robot 1 does an errand of task 0, which it was not given"
        );
        assert_eq!(
            err("\"teamSize\": 2", "\"teamSize\": 3"),
            "o.json:1: teamSize 3, but 2 starts and 2 actualPaths"
        );
        assert_eq!(
            err("\"0:0\"", "\"0:7\""),
            "o.json:9: actualSchedule[0]: task 7 is not in tasks"
        );
        assert_eq!(
            err("\"actualPaths\"", "\"paths\""),
            "o.json:9: missing field `actualPaths`"
        );
        assert_eq!(
            err("MAPF_T", "MAPF_X"),
            "o.json:1: actionModel \"MAPF_X\": expected \"MAPF_T\" or \"MAPF\""
        );
    }
}
