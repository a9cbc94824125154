//! Reading a MAPF plan in the text format of LaCAM's result files (`throng mapf --out` writes
//! it): `key=value` lines (`agents`, `map_file`, `starts`, `goals`, ... ; others are skipped),
//! then `solution=` and one line per timestep, `t:(x,y),(x,y),...,`.
//!
//! [`PlanFile::parse`] checks the text (every line is a key or a timestep, timesteps count from
//! 0, every timestep has every agent); [`PlanFile::on_grid`] checks it against its map (cells on
//! the map and walkable, every move a wait or a step to a neighbouring cell that does not cut a
//! corner) and gives the cells. Errors name the file and the line.

use std::path::{Path, PathBuf};

use crate::error::{Error, ParseError, Result};
use crate::grid::{CellId, Direction, Grid, Neighborhood};
use crate::input::{Input, read_text};

/// A plan as read, before its map is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFile {
    /// The file, as named in errors.
    pub file: String,
    /// The `map_file=` value and its line, if the file has one.
    pub map_file: Option<(String, usize)>,
    /// Agents.
    pub agents: usize,
    /// Each timestep's `(x, y)` of every agent, from timestep 0.
    pub configs: Vec<Vec<(u32, u32)>>,
    /// The line of each timestep.
    pub lines: Vec<usize>,
    /// The `goals=` cells and their line, if the file has them.
    pub goals: Option<(Vec<(u32, u32)>, usize)>,
}

/// A plan on its map: cells by timestep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridPlan {
    /// Each timestep's cell of every agent.
    pub configs: Vec<Vec<CellId>>,
    /// Each agent's goal, when the file gives them.
    pub goals: Option<Vec<CellId>>,
    /// [`Neighborhood::Eight`] when some move is diagonal, else [`Neighborhood::Four`].
    pub neighborhood: Neighborhood,
}

/// The most agents a plan file may hold.
const MAX_AGENTS: usize = 1 << 24;

impl PlanFile {
    /// Reads and parses a plan file.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be read, [`Error::Parse`] (file and line) as
    /// [`parse`](Self::parse).
    pub fn load(path: &Path) -> Result<PlanFile> {
        let text = read_text(path, Input::MapfPlan)?;
        Ok(PlanFile::parse(&text, &path.display().to_string())?)
    }

    /// Parses the text of a plan file; `file` names it in errors.
    ///
    /// ```
    /// use throng::view::PlanFile;
    ///
    /// let text = "agents=2\nmap_file=tiny.map\nsolution=\n0:(0,0),(2,0),\n1:(1,0),(2,0),\n";
    /// let plan = PlanFile::parse(text, "p.txt")?;
    /// assert_eq!(plan.configs, vec![vec![(0, 0), (2, 0)], vec![(1, 0), (2, 0)]]);
    /// let err = PlanFile::parse("agents=2\nsolution=\n0:(0,0),\n", "p.txt").unwrap_err();
    /// assert_eq!(err.to_string(), "p.txt:3: 1 agents on timestep 0, agents=2 says 2");
    /// # Ok::<(), throng::error::ParseError>(())
    /// ```
    ///
    /// # Errors
    /// [`ParseError`] for a line that is neither `key=value` nor a timestep, a bad number or
    /// `(x,y)` pair, timesteps out of order, a timestep without every agent, an `agents=` that
    /// disagrees, no `solution=` line or no timestep after it.
    pub fn parse(text: &str, file: &str) -> Result<PlanFile, ParseError> {
        let err = |line: usize, msg: String| ParseError::at(file, line, msg);
        let mut agents: Option<(usize, usize)> = None;
        let mut map_file = None;
        let mut goals = None;
        let mut starts = None;
        let mut solved_zero = None;
        let mut in_solution = false;
        let mut configs: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut lines = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            if in_solution {
                let (t, cells) = line.split_once(':').ok_or_else(|| {
                    err(
                        n,
                        format!("expected a timestep t:(x,y),..., found {line:?}"),
                    )
                })?;
                let t: usize = t
                    .trim()
                    .parse()
                    .map_err(|_| err(n, format!("timestep {t:?} is not a number")))?;
                if t != configs.len() {
                    return Err(err(
                        n,
                        format!("timestep {t} where timestep {} was expected", configs.len()),
                    ));
                }
                let config = pairs(cells).map_err(|m| err(n, format!("timestep {t}: {m}")))?;
                let want = agents.map_or(configs.first().map(Vec::len), |(a, _)| Some(a));
                if let Some(want) = want.filter(|&w| w != config.len()) {
                    let by = if agents.is_some() {
                        format!("agents={want} says {want}")
                    } else {
                        format!("timestep 0 has {want}")
                    };
                    return Err(err(
                        n,
                        format!("{} agents on timestep {t}, {by}", config.len()),
                    ));
                }
                configs.push(config);
                lines.push(n);
                continue;
            }
            let (key, value) = line.split_once('=').ok_or_else(|| {
                err(
                    n,
                    format!("expected key=value or solution=, found {line:?}"),
                )
            })?;
            let value = value.trim();
            match key.trim() {
                "solution" => in_solution = true,
                "agents" => {
                    let a: usize = value
                        .parse()
                        .ok()
                        .filter(|&a| (1..=MAX_AGENTS).contains(&a))
                        .ok_or_else(|| {
                            err(n, format!("agents={value}: expected 1 to {MAX_AGENTS}"))
                        })?;
                    agents = Some((a, n));
                }
                "map_file" => map_file = Some((value.to_string(), n)),
                "goals" => {
                    goals = Some((pairs(value).map_err(|m| err(n, format!("goals: {m}")))?, n))
                }
                "starts" => {
                    starts = Some((pairs(value).map_err(|m| err(n, format!("starts: {m}")))?, n))
                }
                "solved" if value == "0" => solved_zero = Some(n),
                _ => {}
            }
        }
        if !in_solution {
            return Err(ParseError::whole(
                file,
                "no solution= line: not a plan of LaCAM's result format",
            ));
        }
        if configs.is_empty() {
            return Err(match solved_zero {
                Some(n) => err(
                    n,
                    "solved=0 and no timesteps: the solver found no plan".into(),
                ),
                None => ParseError::whole(file, "no timestep after solution="),
            });
        }
        let count = configs[0].len();
        for (what, list) in [("starts", &starts), ("goals", &goals)] {
            if let Some((cells, n)) = list
                && cells.len() != count
            {
                return Err(err(
                    *n,
                    format!("{what}= has {} cells for {count} agents", cells.len()),
                ));
            }
        }
        if let Some((cells, n)) = &starts
            && let Some(a) = (0..count).find(|&a| cells[a] != configs[0][a])
        {
            let ((sx, sy), (x, y)) = (cells[a], configs[0][a]);
            return Err(err(
                *n,
                format!("starts= has agent {a} at ({sx},{sy}), timestep 0 at ({x},{y})"),
            ));
        }
        Ok(PlanFile {
            file: file.to_string(),
            map_file,
            agents: count,
            configs,
            lines,
            goals,
        })
    }

    /// Where the map named by `map_file=` is: the path as written (relative to the current
    /// folder, as `throng mapf` writes it), else relative to the plan's folder, else the file
    /// name alone in the plan's folder (LaCAM writes the name). `None` when the file names no
    /// map or none of these exists.
    pub fn find_map(&self, plan_path: &Path) -> Option<PathBuf> {
        let (name, _) = self.map_file.as_ref()?;
        let written = Path::new(name);
        let dir = plan_path.parent().unwrap_or(Path::new(""));
        let mut candidates = vec![written.to_path_buf(), dir.join(written)];
        if let Some(base) = written.file_name() {
            candidates.push(dir.join(base));
        }
        candidates.into_iter().find(|p| p.is_file())
    }

    /// Checks the plan against `grid` (`map` names it in errors) and gives its cells: every
    /// cell on the map and walkable, every move a wait or one step to a neighbouring cell, a
    /// diagonal step only where both cells beside it are walkable.
    ///
    /// # Errors
    /// [`ParseError`] at the timestep's line (or the `goals=` line).
    pub fn on_grid(&self, grid: &Grid, map: &str) -> Result<GridPlan, ParseError> {
        let grid = grid.clone().with_neighborhood(Neighborhood::Eight);
        let (w, h) = (grid.width(), grid.height());
        let cell = |(x, y): (u32, u32), a: usize, n: usize| -> Result<CellId, ParseError> {
            let c = grid.cell(x, y).ok_or_else(|| {
                ParseError::at(
                    &self.file,
                    n,
                    format!("agent {a} at ({x},{y}) is outside the {w} x {h} map {map}"),
                )
            })?;
            if !grid.is_walkable(c) {
                return Err(ParseError::at(
                    &self.file,
                    n,
                    format!("agent {a} at ({x},{y}) is on a blocked cell of {map}"),
                ));
            }
            Ok(c)
        };
        let mut configs: Vec<Vec<CellId>> = Vec::with_capacity(self.configs.len());
        let mut diagonal = false;
        for (t, (config, &n)) in self.configs.iter().zip(&self.lines).enumerate() {
            let cells = config
                .iter()
                .enumerate()
                .map(|(a, &xy)| cell(xy, a, n))
                .collect::<Result<Vec<_>, _>>()?;
            if let Some(before) = configs.last() {
                for (a, (&from, &to)) in before.iter().zip(&cells).enumerate() {
                    if from == to {
                        continue;
                    }
                    let ((fx, fy), (tx, ty)) = (grid.coords(from), grid.coords(to));
                    let dir = Direction::from_delta(tx as i32 - fx as i32, ty as i32 - fy as i32);
                    match dir {
                        Some(d) if grid.moves(from).contains(d) => diagonal |= d.is_diagonal(),
                        Some(_) => {
                            return Err(ParseError::at(
                                &self.file,
                                n,
                                format!(
                                    "agent {a} moves from ({fx},{fy}) to ({tx},{ty}) at \
                                     timestep {t}, cutting a blocked corner"
                                ),
                            ));
                        }
                        None => {
                            return Err(ParseError::at(
                                &self.file,
                                n,
                                format!(
                                    "agent {a} moves from ({fx},{fy}) to ({tx},{ty}) at \
                                     timestep {t}: not a neighbouring cell"
                                ),
                            ));
                        }
                    }
                }
            }
            configs.push(cells);
        }
        let goals = match &self.goals {
            Some((goals, n)) => Some(
                goals
                    .iter()
                    .enumerate()
                    .map(|(a, &xy)| cell(xy, a, *n))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| ParseError {
                        message: format!("goals: {}", e.message),
                        ..e
                    })?,
            ),
            None => None,
        };
        Ok(GridPlan {
            configs,
            goals,
            neighborhood: if diagonal {
                Neighborhood::Eight
            } else {
                Neighborhood::Four
            },
        })
    }
}

/// `(x,y),(x,y),...` with or without a comma after the last pair.
fn pairs(text: &str) -> Result<Vec<(u32, u32)>, String> {
    let text = text.trim();
    let text = text.strip_suffix(',').unwrap_or(text);
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split("),")
        .enumerate()
        .map(|(i, p)| {
            let p = p.trim();
            let inner = p
                .strip_prefix('(')
                .map(|s| s.strip_suffix(')').unwrap_or(s));
            inner
                .and_then(|s| s.split_once(','))
                .and_then(|(x, y)| Some((x.trim().parse().ok()?, y.trim().parse().ok()?)))
                .ok_or_else(|| {
                    let shown = if p.ends_with(')') {
                        p.to_string()
                    } else {
                        format!("{p})")
                    };
                    format!("agent {i}: {shown:?} is not (x,y)")
                })
        })
        .collect()
}

/// The error for a plan whose map cannot be found: what the file says and the flag to add.
pub(crate) fn map_not_found(plan: &PlanFile, plan_path: &Path) -> Error {
    match &plan.map_file {
        Some((name, n)) => Error::Parse(ParseError::at(
            &plan.file,
            *n,
            format!(
                "map_file={name}: no such file here or next to {}: give --map MAP",
                plan_path.display()
            ),
        )),
        None => Error::Parse(ParseError::whole(
            &plan.file,
            "the plan names no map_file=: give --map MAP",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<PlanFile, String> {
        PlanFile::parse(text, "p").map_err(|e| e.to_string())
    }

    #[test]
    fn malformed_plans_are_refused_at_their_line() {
        let head = "agents=2\nmap_file=m.map\nsolution=\n";
        assert_eq!(
            parse(&format!("{head}0:(0,0),(1,0),\n2:(0,0),(1,0),\n")).unwrap_err(),
            "p:5: timestep 2 where timestep 1 was expected"
        );
        assert_eq!(
            parse(&format!("{head}0:(0,0),(1,x),\n")).unwrap_err(),
            "p:4: timestep 0: agent 1: \"(1,x)\" is not (x,y)"
        );
        assert_eq!(
            parse(&format!("{head}0 (0,0),(1,0),\n")).unwrap_err(),
            "p:4: expected a timestep t:(x,y),..., found \"0 (0,0),(1,0),\""
        );
        assert_eq!(
            parse("agents=2\nhello\n").unwrap_err(),
            "p:2: expected key=value or solution=, found \"hello\""
        );
        assert_eq!(
            parse("agents=2\n").unwrap_err(),
            "p: no solution= line: not a plan of LaCAM's result format"
        );
        assert_eq!(
            parse("agents=1\nsolved=0\nsolution=\n").unwrap_err(),
            "p:2: solved=0 and no timesteps: the solver found no plan"
        );
        assert_eq!(
            parse("starts=(1,1),\nsolution=\n0:(0,0),\n").unwrap_err(),
            "p:1: starts= has agent 0 at (1,1), timestep 0 at (0,0)"
        );
        // Without agents=, timestep 0 sets the count.
        assert_eq!(
            parse("solution=\n0:(0,0),\n1:(0,0),(1,1),\n").unwrap_err(),
            "p:3: 2 agents on timestep 1, timestep 0 has 1"
        );
    }

    #[test]
    fn plans_are_checked_against_their_map() {
        let grid = Grid::from_ascii("...\n.#.\n...").unwrap();
        let plan = |rows: &str| {
            PlanFile::parse(&format!("solution=\n{rows}"), "p")
                .unwrap()
                .on_grid(&grid, "m.map")
                .map_err(|e| e.to_string())
        };
        let ok = plan("0:(0,0),\n1:(1,0),\n2:(2,0),\n").unwrap();
        assert_eq!(ok.configs, vec![vec![0], vec![1], vec![2]]);
        assert_eq!(ok.neighborhood, Neighborhood::Four);
        assert_eq!(
            plan("0:(0,0),\n1:(2,0),\n").unwrap_err(),
            "p:3: agent 0 moves from (0,0) to (2,0) at timestep 1: not a neighbouring cell"
        );
        assert_eq!(
            plan("0:(1,0),\n1:(1,1),\n").unwrap_err(),
            "p:3: agent 0 at (1,1) is on a blocked cell of m.map"
        );
        assert_eq!(
            plan("0:(3,0),\n").unwrap_err(),
            "p:2: agent 0 at (3,0) is outside the 3 x 3 map m.map"
        );
        assert_eq!(
            plan("0:(0,0),\n1:(1,1),\n").unwrap_err(),
            "p:3: agent 0 at (1,1) is on a blocked cell of m.map"
        );
        // A diagonal past the wall cuts its corner; one in the open is an 8-connected plan.
        assert!(
            plan("0:(1,0),\n1:(0,1),\n")
                .unwrap_err()
                .contains("cutting a blocked corner")
        );
        let open = Grid::from_ascii("..\n..").unwrap();
        let diag = PlanFile::parse("solution=\n0:(0,0),\n1:(1,1),\n", "p")
            .unwrap()
            .on_grid(&open, "m")
            .unwrap();
        assert_eq!(diag.neighborhood, Neighborhood::Eight);
    }
}
