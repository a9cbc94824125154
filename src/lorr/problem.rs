//! League of Robot Runners 2024 problem files: the problem JSON and the map, agents and tasks
//! files it names (paths relative to the JSON).
//!
//! - Problem JSON: `mapFile`, `agentFile`, `taskFile`, `teamSize`, `numTasksReveal` (a pool of
//!   `numTasksReveal x teamSize` tasks is revealed at any time). Other keys are ignored.
//! - `.map`: Moving AI format, 4-connected here (`@` and `T` blocked, `.`, `E`, `S` free).
//! - `.agents`: a count line, then one start cell a line as a linear index `row * width + col`.
//! - `.tasks`: a count line, then one task a line: the comma-separated linear cells of its
//!   errands, visited in order.
//!
//! Lines starting with `#` are comments. Every error names the file and, where it is about
//! one line, the line.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, ParseError, Result};
use crate::grid::{CellId, Grid, Neighborhood};
use crate::input::{Input, read_text};
use crate::movingai::{MapOptions, parse_map};
use crate::plural::Counted;

/// Most errands one task may have.
pub const MAX_ERRANDS: usize = 1024;

/// A loaded problem.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The problem's name: its file name without `.json`.
    pub name: String,
    /// The map, 4-connected.
    pub grid: Grid,
    /// Agent `a` starts on `starts[a]` (distinct cells), facing east.
    pub starts: Vec<CellId>,
    /// The task list: task `i`'s errands in order. Task ids past the end wrap around (the
    /// competition's rule: task id `k` is line `k mod tasks.len()`).
    pub tasks: Vec<Vec<CellId>>,
    /// How many tasks are revealed at any time.
    pub reveal: usize,
}

/// The files a problem JSON names, in the order they are read.
#[derive(Clone, Copy)]
enum Part {
    Map,
    Agents,
    Tasks,
}

/// The problem JSON's keys.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProblemJson {
    map_file: String,
    agent_file: String,
    task_file: String,
    team_size: u64,
    num_tasks_reveal: f64,
}

impl Problem {
    /// Loads a problem JSON and its files.
    ///
    /// # Errors
    /// [`Error::Io`] for a file that cannot be read, [`Error::Parse`] (file and line) for a
    /// malformed one, a start or errand outside the map or on a blocked cell, two agents on
    /// one cell, a team larger than the agents file or than the map's free cells, and a
    /// reveal pool that is not a positive number of tasks.
    pub fn load(path: impl AsRef<Path>) -> Result<Problem> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let text = read_text(path, Input::LorrProblem)?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = path.parent().unwrap_or(Path::new("."));
        // Each file is read only when it is needed, so that the first problem found is the one
        // reported, as before the texts could be given in memory.
        Self::assemble(&text, &file, name, dir, |part, p| {
            let kind = match part {
                Part::Map => Input::Map,
                Part::Agents => Input::LorrAgents,
                Part::Tasks => Input::LorrTasks,
            };
            read_text(p, kind).map(Cow::Owned)
        })
    }

    /// A problem from the texts of its four files, held in memory: the problem JSON, the map,
    /// the agents file and the tasks file (the file names inside the JSON are not read, only
    /// used to label errors). `file_label` names the JSON in errors, as its path would: the
    /// other files are labelled with their names from the JSON joined to its folder, and the
    /// problem's name is its file name without `.json`. Every check of [`load`](Self::load)
    /// applies, with the same messages.
    ///
    /// ```
    /// use throng::lorr::Problem;
    ///
    /// let json = r#"{"mapFile": "m.map", "agentFile": "a.agents", "taskFile": "t.tasks",
    ///               "teamSize": 2, "numTasksReveal": 1}"#;
    /// let map = "type octile\nheight 2\nwidth 3\nmap\n...\n.@.\n";
    /// let problem = Problem::from_texts(json, map, "2\n0\n5\n", "1\n2,3\n", "p/TINY.json")?;
    /// assert_eq!((problem.name.as_str(), problem.starts.len()), ("TINY", 2));
    /// let err = Problem::from_texts(json, map, "2\n0\n4\n", "1\n2\n", "p/TINY.json").unwrap_err();
    /// assert_eq!(err.to_string(), "p/a.agents:3: cell 4 (row 1, column 1) is blocked");
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`load`](Self::load), without the I/O errors.
    pub fn from_texts(
        json: &str,
        map: &str,
        agents: &str,
        tasks: &str,
        file_label: &str,
    ) -> Result<Problem> {
        let path = Path::new(file_label);
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = path.parent().unwrap_or(Path::new("."));
        Self::assemble(json, file_label, name, dir, |part, _| {
            Ok(Cow::Borrowed(match part {
                Part::Map => map,
                Part::Agents => agents,
                Part::Tasks => tasks,
            }))
        })
    }

    /// Parses and checks a problem: `text` is the JSON (labelled `file`), `dir` the folder its
    /// file names are relative to, and `read` gives the text of each named file when needed.
    fn assemble<'a>(
        text: &str,
        file: &str,
        name: String,
        dir: &Path,
        mut read: impl FnMut(Part, &Path) -> Result<Cow<'a, str>>,
    ) -> Result<Problem> {
        // Another kind of file (a map, an agents file, an empty file) is named as not a
        // problem, rather than by the JSON parser's first complaint.
        let body = text.trim_start_matches('\u{feff}').trim_start();
        if !body.starts_with('{') {
            return Err(ParseError::at(
                file,
                1,
                "not a League of Robot Runners problem: expected a JSON object naming mapFile, \
                 agentFile, taskFile, teamSize and numTasksReveal",
            )
            .into());
        }
        let json: ProblemJson = serde_json::from_str(text).map_err(|e| {
            let msg = e.to_string();
            // serde_json appends " at line L column C": the line goes in front instead.
            let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
            ParseError::at(file, e.line().max(1), msg)
        })?;
        let named = |p: &str| -> PathBuf { dir.join(p) };

        let map_path = named(&json.map_file);
        let map_text = read(Part::Map, &map_path)?;
        let options = MapOptions {
            neighborhood: Neighborhood::Four,
            ..MapOptions::default()
        };
        let grid = parse_map(&map_text, &map_path.display().to_string(), &options)?;

        let team = usize::try_from(json.team_size).unwrap_or(usize::MAX);
        if team == 0 {
            return Err(ParseError::whole(file, "teamSize is 0: a problem needs agents").into());
        }
        if team > grid.walkable_count() {
            return Err(ParseError::whole(
                file,
                format!(
                    "teamSize {team} is more than the map's {}",
                    Counted(grid.walkable_count() as u64, "free cell")
                ),
            )
            .into());
        }
        if !(json.num_tasks_reveal.is_finite() && json.num_tasks_reveal > 0.0) {
            return Err(ParseError::whole(
                file,
                format!(
                    "numTasksReveal must be a positive number, not {}",
                    json.num_tasks_reveal
                ),
            )
            .into());
        }
        let reveal = (json.num_tasks_reveal * team as f64).floor();
        if reveal < 1.0 || reveal > 64.0 * team as f64 {
            return Err(ParseError::whole(
                file,
                format!(
                    "numTasksReveal {} x teamSize {team} reveals {reveal} tasks (must be 1 to \
                     64 per agent)",
                    json.num_tasks_reveal
                ),
            )
            .into());
        }

        let agents_path = named(&json.agent_file);
        let starts = parse_agents(
            &read(Part::Agents, &agents_path)?,
            &agents_path.display().to_string(),
            &grid,
            team,
        )?;
        let tasks_path = named(&json.task_file);
        let tasks = parse_tasks(
            &read(Part::Tasks, &tasks_path)?,
            &tasks_path.display().to_string(),
            &grid,
        )?;
        Ok(Problem {
            name,
            grid,
            starts,
            tasks,
            reveal: reveal as usize,
        })
    }

    /// The same problem with `agents` robots placed on distinct free cells of the map, chosen
    /// from `seed` (a shuffle of the cells, ChaCha8): a team of any size on the problem's map
    /// and tasks without an agents file (10,000 robots on `warehouse_large`, say). Robots stand
    /// only where every errand can be reached ([`Problem::reachable_area`]), so that any
    /// planner, the start kit's included, finds a way to each task. The reveal pool scales with
    /// the team (the JSON's `numTasksReveal` per robot).
    ///
    /// # Errors
    /// [`Error::Invalid`] (one line) for 0 robots, more robots than that area's cells, or
    /// errands that no one cell reaches all of.
    pub fn with_agents(mut self, agents: usize, seed: u64) -> Result<Problem> {
        use rand::{RngExt, SeedableRng};
        let area = self.reachable_area().ok_or_else(|| {
            Error::Invalid(format!(
                "the errands of {} lie in parts of the map that do not connect: no cell \
                 reaches them all",
                self.name
            ))
        })?;
        let walkable = self.grid.walkable_count();
        if agents == 0 || agents > area.len() {
            let apart = if area.len() < walkable {
                format!(
                    " ({} more lie apart from the errands)",
                    walkable - area.len()
                )
            } else {
                String::new()
            };
            return Err(Error::Invalid(format!(
                "the map of {} has {} that reach every errand{apart}: 1 to {} robots fit, not \
                 {agents}",
                self.name,
                Counted(area.len() as u64, "free cell"),
                area.len()
            )));
        }
        let mut cells = area;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        // A partial Fisher-Yates shuffle: the first `agents` cells.
        for i in 0..agents {
            let j = rng.random_range(i..cells.len());
            cells.swap(i, j);
        }
        cells.truncate(agents);
        let per_robot = self.reveal as f64 / self.starts.len() as f64;
        self.reveal = ((per_robot * agents as f64).floor() as usize).max(1);
        self.starts = cells;
        Ok(self)
    }

    /// The free cells from which every errand of every task can be reached, in cell order: the
    /// connected area (4-neighbourhood: robots turn in place) that holds all the errands, or
    /// the largest area when there is no errand. `None` when the errands lie in areas that do
    /// not connect.
    pub fn reachable_area(&self) -> Option<Vec<CellId>> {
        let components = self.grid.components();
        let mut errands = self.tasks.iter().flatten();
        let area = match errands.next() {
            Some(&first) => components.of(first)?,
            None => components.largest()?,
        };
        if errands.any(|&e| components.of(e) != Some(area)) {
            return None;
        }
        Some(
            (0..self.grid.len() as CellId)
                .filter(|&c| components.of(c) == Some(area))
                .collect(),
        )
    }

    /// Whether every task visits one of a few busy errand cells (errand cells visited at least
    /// four times as often as the mean one: the stations of the warehouse maps), where the
    /// task board holds fewer robots on errands and idle robots park away from those cells.
    ///
    /// ```
    /// use throng::lorr::Problem;
    ///
    /// let problem = Problem::load("sims/lorr/random.domain/RANDOM-01.json")?;
    /// assert!(!problem.has_busy_errands());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn has_busy_errands(&self) -> bool {
        !super::parking::busy_errands(&self.grid, &self.tasks).is_empty()
    }

    /// Writes the agents file of this problem (`.agents`: a count line, then each robot's start
    /// cell a line), so that a team made by [`Problem::with_agents`] can be played by other
    /// programs (the start kit's planner).
    ///
    /// # Errors
    /// The writer's.
    pub fn write_agents(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        writeln!(out, "{}", self.starts.len())?;
        for &c in &self.starts {
            writeln!(out, "{c}")?;
        }
        Ok(())
    }

    /// The problem JSON naming `map_file`, `agent_file` and `task_file` (paths relative to
    /// the JSON), with this problem's team size and reveal pool (`numTasksReveal` written so
    /// that it reads back as [`Problem::reveal`] tasks).
    pub fn json(&self, map_file: &str, agent_file: &str, task_file: &str) -> String {
        let team = self.starts.len();
        // The reveal pool is floor(numTasksReveal x teamSize): the plain ratio where it reads
        // back exactly, else half a task more.
        let exact = self.reveal as f64 / team as f64;
        let per_robot = if (exact * team as f64).floor() as usize == self.reveal {
            exact
        } else {
            (self.reveal as f64 + 0.5) / team as f64
        };
        let json = serde_json::json!({
            "mapFile": map_file,
            "agentFile": agent_file,
            "teamSize": team,
            "taskFile": task_file,
            "numTasksReveal": per_robot,
            "version": "2024 LoRR",
        });
        serde_json::to_string_pretty(&json).expect("a JSON value") + "\n"
    }

    /// The step count the competition played this problem for, when it is one of the 2024
    /// main-round problems (known by name): RANDOM-01 to 05 600 to 2,000 steps, CITY 3,000,
    /// GAME, SORTATION and WAREHOUSE 5,000.
    pub fn competition_steps(&self) -> Option<u64> {
        Some(match self.name.as_str() {
            "RANDOM-01" | "RANDOM-02" | "RANDOM-03" => 600,
            "RANDOM-04" => 800,
            "RANDOM-05" => 2000,
            "CITY-01" | "CITY-02" => 3000,
            "GAME" | "SORTATION" | "WAREHOUSE" => 5000,
            _ => return None,
        })
    }
}

/// Non-comment, non-blank lines with their 1-based numbers.
fn content_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

/// The count line of an agents or tasks file.
fn count_line<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    file: &str,
    what: &str,
) -> Result<(usize, usize), ParseError> {
    let (n, line) = lines
        .next()
        .ok_or_else(|| ParseError::whole(file, format!("empty: expected the number of {what}")))?;
    let count = line.parse::<usize>().map_err(|_| {
        ParseError::at(
            file,
            n,
            format!("expected the number of {what}, found {line:?}"),
        )
    })?;
    Ok((n, count))
}

/// A linear cell index of the map, free.
fn parse_cell(word: &str, file: &str, line: usize, grid: &Grid) -> Result<CellId, ParseError> {
    let word = word.trim();
    let cell = word.parse::<u64>().map_err(|_| {
        ParseError::at(
            file,
            line,
            format!("{word:?} is not a cell (expected row * width + column)"),
        )
    })?;
    if cell >= grid.len() as u64 {
        return Err(ParseError::at(
            file,
            line,
            format!(
                "cell {cell} is outside the {} x {} map ({} cells)",
                grid.width(),
                grid.height(),
                grid.len()
            ),
        ));
    }
    let cell = cell as CellId;
    if !grid.is_walkable(cell) {
        let (x, y) = grid.coords(cell);
        return Err(ParseError::at(
            file,
            line,
            format!("cell {cell} (row {y}, column {x}) is blocked"),
        ));
    }
    Ok(cell)
}

/// The first `team` starts of an agents file.
fn parse_agents(text: &str, file: &str, grid: &Grid, team: usize) -> Result<Vec<CellId>> {
    let mut lines = content_lines(text);
    let (n, count) = count_line(&mut lines, file, "agents")?;
    if count < team {
        return Err(ParseError::at(
            file,
            n,
            format!("the file has {count} agents, the problem's teamSize is {team}"),
        )
        .into());
    }
    let mut taken = vec![u32::MAX; grid.len()];
    let mut starts = Vec::with_capacity(team);
    for (line, text) in lines.by_ref().take(team) {
        let cell = parse_cell(text, file, line, grid)?;
        let first = &mut taken[cell as usize];
        if *first != u32::MAX {
            return Err(ParseError::at(
                file,
                line,
                format!("cell {cell} is already agent {first}'s start"),
            )
            .into());
        }
        *first = starts.len() as u32;
        starts.push(cell);
    }
    if starts.len() < team {
        return Err(ParseError::whole(
            file,
            format!(
                "the file ends after {} agents, the problem's teamSize is {team}",
                starts.len()
            ),
        )
        .into());
    }
    Ok(starts)
}

/// Every task of a tasks file.
fn parse_tasks(text: &str, file: &str, grid: &Grid) -> Result<Vec<Vec<CellId>>> {
    let mut lines = content_lines(text);
    let (n, count) = count_line(&mut lines, file, "tasks")?;
    if count == 0 {
        return Err(ParseError::at(file, n, "0 tasks: a problem needs at least one").into());
    }
    // Sized by what the file holds, not by what its count line claims.
    let mut tasks = Vec::with_capacity(count.min(text.len() / 2));
    for (line, text) in lines.by_ref().take(count) {
        let errands = text
            .split(',')
            .filter(|w| !w.trim().is_empty())
            .map(|w| parse_cell(w, file, line, grid))
            .collect::<Result<Vec<_>, _>>()?;
        if errands.is_empty() {
            return Err(ParseError::at(file, line, "a task needs at least one errand").into());
        }
        if errands.len() > MAX_ERRANDS {
            return Err(ParseError::at(
                file,
                line,
                format!(
                    "{} errands in one task (at most {MAX_ERRANDS})",
                    errands.len()
                ),
            )
            .into());
        }
        tasks.push(errands);
    }
    if tasks.len() < count {
        return Err(Error::Parse(ParseError::whole(
            file,
            format!(
                "the file ends after {} tasks, its count line says {count}",
                tasks.len()
            ),
        )));
    }
    Ok(tasks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Grid {
        Grid::from_ascii("...\n.@.\n...")
            .unwrap()
            .with_neighborhood(Neighborhood::Four)
    }

    /// A 5 x 3 map whose right column is walled off from the rest.
    fn walled(tasks: Vec<Vec<CellId>>) -> Problem {
        let grid = Grid::from_ascii("...@.\n...@.\n...@.")
            .unwrap()
            .with_neighborhood(Neighborhood::Four);
        Problem {
            name: "walled".into(),
            grid,
            starts: vec![0],
            tasks,
            reveal: 1,
        }
    }

    #[test]
    fn generated_teams_stand_only_where_every_errand_is_reached() {
        // Errands on the left: nine cells reach them; the right column's three never get a
        // robot, whatever the seed.
        let left = walled(vec![vec![0, 12], vec![6]]);
        assert_eq!(
            left.reachable_area().unwrap(),
            vec![0, 1, 2, 5, 6, 7, 10, 11, 12]
        );
        for seed in 0..20 {
            let team = left.clone().with_agents(9, seed).unwrap();
            assert!(
                team.starts.iter().all(|&c| c % 5 < 3),
                "seed {seed}: {:?}",
                team.starts
            );
        }
        let err = left.clone().with_agents(10, 0).unwrap_err().to_string();
        assert_eq!(
            err,
            "the map of walled has 9 free cells that reach every errand (3 more lie apart from \
             the errands): 1 to 9 robots fit, not 10"
        );
        // Errands on the right: the robots go there.
        let right = walled(vec![vec![4, 14]]);
        assert_eq!(right.clone().with_agents(3, 1).unwrap().starts.len(), 3);
        assert!(right.with_agents(4, 1).is_err());
        // Errands on both sides: no cell reaches them all.
        let apart = walled(vec![vec![0], vec![4]]);
        assert_eq!(apart.reachable_area(), None);
        let err = apart.with_agents(1, 0).unwrap_err().to_string();
        assert!(err.contains("do not connect"), "{err}");
    }

    #[test]
    fn agents_files_are_checked_line_by_line() {
        let g = grid();
        assert_eq!(
            parse_agents("# c\n2\n0\n8\n", "a", &g, 2).unwrap(),
            vec![0, 8]
        );
        let err = |text: &str, team| {
            parse_agents(text, "a.agents", &g, team)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("2\n0\n4\n", 2),
            "a.agents:3: cell 4 (row 1, column 1) is blocked"
        );
        assert_eq!(
            err("2\n0\n9\n", 2),
            "a.agents:3: cell 9 is outside the 3 x 3 map (9 cells)"
        );
        assert_eq!(
            err("2\n0\n0\n", 2),
            "a.agents:3: cell 0 is already agent 0's start"
        );
        assert_eq!(
            err("2\n0\nx\n", 2),
            "a.agents:3: \"x\" is not a cell (expected row * width + column)"
        );
        assert_eq!(
            err("1\n0\n", 2),
            "a.agents:1: the file has 1 agents, the problem's teamSize is 2"
        );
        assert_eq!(
            err("3\n0\n", 2),
            "a.agents: the file ends after 1 agents, the problem's teamSize is 2"
        );
        assert_eq!(err("", 2), "a.agents: empty: expected the number of agents");
        assert_eq!(
            err("two\n", 2),
            "a.agents:1: expected the number of agents, found \"two\""
        );
    }

    #[test]
    fn tasks_files_are_checked_line_by_line() {
        let g = grid();
        assert_eq!(
            parse_tasks("2\n0,8\n2\n", "t", &g).unwrap(),
            vec![vec![0, 8], vec![2]]
        );
        let err = |text: &str| parse_tasks(text, "t.tasks", &g).unwrap_err().to_string();
        assert_eq!(
            err("2\n0,4\n2\n"),
            "t.tasks:2: cell 4 (row 1, column 1) is blocked"
        );
        assert_eq!(
            err("2\n0,8\n,\n"),
            "t.tasks:3: a task needs at least one errand"
        );
        assert_eq!(
            err("3\n0\n1\n"),
            "t.tasks: the file ends after 2 tasks, its count line says 3"
        );
        assert_eq!(
            err("0\n"),
            "t.tasks:1: 0 tasks: a problem needs at least one"
        );
        assert_eq!(
            err("1\n0,-3\n"),
            "t.tasks:2: \"-3\" is not a cell (expected row * width + column)"
        );
    }
}
