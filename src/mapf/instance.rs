//! One-shot MAPF instances (a map and the first `k` lines of a `.scen` file) and their plans:
//! the field's measures (sum of costs, sum of loss, makespan and their lower bounds) and the
//! plan file of lacam3's result format, which mapf-visualizer replays.

use std::io::{self, Write};
use std::path::Path;

use super::distances::GoalDistances;
use super::lacam::LacamStats;
use crate::error::{Error, ParseError, Result};
use crate::grid::{CellId, Grid, Neighborhood};
use crate::movingai::{ScenFile, load_map};

/// Agents' starts and goals on a grid.
#[derive(Debug, Clone)]
pub struct Instance {
    /// The map, with the instance's neighbourhood.
    pub grid: Grid,
    /// Agent `a` starts on `starts[a]`...
    pub starts: Vec<CellId>,
    /// ... and must end on `goals[a]`.
    pub goals: Vec<CellId>,
}

impl Instance {
    /// The first `agents` lines of the MAPF `.scen` file `scen` on the map `map`, moves by
    /// `neighbourhood` (the benchmark's is [`Neighborhood::Four`]).
    ///
    /// # Errors
    /// The map's and the scenario file's errors (file and line, a `.scen` for a map of another
    /// size included: [`ScenFile::check_map`]), and those of [`Instance::from_scen`].
    pub fn load(
        map: &Path,
        scen: &Path,
        agents: usize,
        neighbourhood: Neighborhood,
    ) -> Result<Instance> {
        let grid = load_map(map)?.with_neighborhood(neighbourhood);
        let file = ScenFile::load(scen)?;
        file.check_map(Some(map), &grid)?;
        Self::from_scen(grid, &file, agents)
    }

    /// The first `agents` lines of `scen` on `grid` (the caller has loaded both, and may have
    /// checked them against each other with [`ScenFile::check_map`]).
    ///
    /// # Errors
    /// [`Error::Invalid`] when the file has fewer than `agents` lines or `agents` is 0;
    /// [`Error::Parse`] naming the file and line of a start or goal outside the map or on a
    /// blocked cell (a sign of a `.scen` made for another map).
    pub fn from_scen(grid: Grid, scen: &ScenFile, agents: usize) -> Result<Instance> {
        if agents == 0 {
            return Err(Error::Invalid("an instance needs at least 1 agent".into()));
        }
        if scen.queries.len() < agents {
            return Err(Error::Invalid(format!(
                "{}: {agents} agents asked for, the file has {} lines",
                scen.path.display(),
                scen.queries.len()
            )));
        }
        let pairs = scen.resolve(&grid)?;
        for (q, &(s, g)) in scen.queries.iter().zip(&pairs).take(agents) {
            for (what, cell, (x, y)) in [("start", s, q.start), ("goal", g, q.goal)] {
                if !grid.is_walkable(cell) {
                    return Err(ParseError::at(
                        scen.path.display().to_string(),
                        q.line,
                        format!("{what} ({x}, {y}) is blocked on the map"),
                    )
                    .into());
                }
            }
        }
        let (starts, goals) = pairs.into_iter().take(agents).unzip();
        Ok(Instance {
            grid,
            starts,
            goals,
        })
    }
}

/// The field's measures of a plan (a configuration per timestep, starts first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanCosts {
    /// Sum over agents of the timestep from which it stays on its goal.
    pub soc: u64,
    /// Sum over agents of the steps it is not resting on its goal (off it before or after
    /// the step): the sum of costs less the waits on the goal before leaving it again.
    pub sum_of_loss: u64,
    /// Sum over agents of the moves from its start to its goal alone on the map.
    pub soc_lb: u64,
    /// Timesteps of the plan.
    pub makespan: u64,
    /// The largest of those distances.
    pub makespan_lb: u64,
}

/// Measures `plan` for `instance` (`distances` are the instance's goal distances).
pub fn plan_costs(
    instance: &Instance,
    distances: &GoalDistances,
    plan: &[Vec<CellId>],
) -> PlanCosts {
    let mut costs = PlanCosts {
        soc: 0,
        sum_of_loss: 0,
        soc_lb: 0,
        makespan: plan.len().saturating_sub(1) as u64,
        makespan_lb: 0,
    };
    for (a, (&start, &goal)) in instance.starts.iter().zip(&instance.goals).enumerate() {
        let mut t = plan.len().saturating_sub(1);
        while t > 0 && plan[t - 1][a] == goal {
            t -= 1;
        }
        costs.soc += t as u64;
        costs.sum_of_loss += plan
            .windows(2)
            .filter(|w| w[0][a] != goal || w[1][a] != goal)
            .count() as u64;
        let d = distances.get(a as u32, start);
        if d != GoalDistances::UNREACHABLE {
            costs.soc_lb += u64::from(d);
            costs.makespan_lb = costs.makespan_lb.max(u64::from(d));
        }
    }
    costs
}

/// Writes a plan in the text format of lacam3's result files, which mapf-visualizer replays:
/// `key=value` header lines, the keys and their order lacam3's (`agents`, `map_file`
/// (`map_file` as given: lacam3 writes the map's file name alone, `throng mapf` the path as the
/// user gave it, so that `throng view PLAN` finds the map from where the plan was made, or
/// next to the plan by its name), `solver`, `solved`, `soc`, `soc_lb`, `makespan`,
/// `makespan_lb`, `sum_of_loss`, `sum_of_loss_lb`, `comp_time` (ms), `seed`, `checkpoints`
/// (-1 before a solution, a comma after each), `comp_time_initial_solution`,
/// `cost_initial_solution` (-1 without one), `search_iteration`, `num_high_level_node`,
/// `num_low_level_node`, `starts`, `goals`), then `solution=` and one line per timestep
/// `t:(x,y),(x,y),...,` (x the column, a comma after every pair). mapf-visualizer reads only
/// the lines with `:(`, the solution's.
///
/// ```
/// use throng::grid::Grid;
/// use throng::mapf::{Instance, PlanCosts, write_plan};
/// use throng::mapf::lacam::LacamStats;
///
/// let grid = Grid::from_ascii("...")?;
/// let c = |x| grid.cell(x, 0).unwrap();
/// let instance = Instance { grid: grid.clone(), starts: vec![c(0)], goals: vec![c(1)] };
/// let plan = vec![vec![c(0)], vec![c(1)]];
/// let costs = PlanCosts { soc: 1, sum_of_loss: 1, soc_lb: 1, makespan: 1, makespan_lb: 1 };
/// let mut out = Vec::new();
/// write_plan(&mut out, &instance, "x.map", &plan, &costs, &LacamStats::default(), 0)?;
/// let text = String::from_utf8(out).unwrap();
/// assert!(text.starts_with("agents=1\nmap_file=x.map\n"));
/// assert!(text.ends_with("solution=\n0:(0,0),\n1:(1,0),\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// The writer's.
pub fn write_plan(
    out: &mut impl Write,
    instance: &Instance,
    map_file: &str,
    plan: &[Vec<CellId>],
    costs: &PlanCosts,
    stats: &LacamStats,
    seed: u64,
) -> io::Result<()> {
    let grid = &instance.grid;
    let cells = |out: &mut dyn Write, config: &[CellId]| -> io::Result<()> {
        for &c in config {
            let (x, y) = grid.coords(c);
            write!(out, "({x},{y}),")?;
        }
        Ok(())
    };
    // lacam3 writes -1 for a value it does not have.
    let or_minus_one = |v: Option<u64>| v.map_or(-1, |v| v as i64);
    writeln!(out, "agents={}", instance.starts.len())?;
    writeln!(out, "map_file={map_file}")?;
    writeln!(out, "solver=throng-lacam")?;
    writeln!(out, "solved={}", u8::from(!plan.is_empty()))?;
    writeln!(out, "soc={}", costs.soc)?;
    writeln!(out, "soc_lb={}", costs.soc_lb)?;
    writeln!(out, "makespan={}", costs.makespan)?;
    writeln!(out, "makespan_lb={}", costs.makespan_lb)?;
    writeln!(out, "sum_of_loss={}", costs.sum_of_loss)?;
    writeln!(out, "sum_of_loss_lb={}", costs.soc_lb)?;
    writeln!(out, "comp_time={:.0}", stats.time_ms)?;
    writeln!(out, "seed={seed}")?;
    write!(out, "checkpoints=")?;
    for &c in &stats.checkpoints {
        write!(out, "{},", or_minus_one(c))?;
    }
    writeln!(out)?;
    match stats.first_solution_ms {
        Some(ms) => writeln!(out, "comp_time_initial_solution={ms:.0}")?,
        None => writeln!(out, "comp_time_initial_solution=-1")?,
    }
    writeln!(
        out,
        "cost_initial_solution={}",
        or_minus_one(stats.first_solution_cost)
    )?;
    writeln!(out, "search_iteration={}", stats.iterations)?;
    writeln!(out, "num_high_level_node={}", stats.nodes)?;
    writeln!(out, "num_low_level_node={}", stats.low_level_nodes)?;
    write!(out, "starts=")?;
    cells(out, &instance.starts)?;
    writeln!(out)?;
    write!(out, "goals=")?;
    cells(out, &instance.goals)?;
    writeln!(out)?;
    writeln!(out, "solution=")?;
    for (t, config) in plan.iter().enumerate() {
        write!(out, "{t}:")?;
        cells(out, config)?;
        writeln!(out)?;
    }
    Ok(())
}
