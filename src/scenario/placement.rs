//! Placing the agents of a scenario: the start and goal of every agent on the scenario's map,
//! drawn from the seed (`random`, `crowds`) or read from a `.scen` file (`scen`), following the
//! placement rules of the [module docs](super). Placement is where a scenario meets its map,
//! so the "does not fit" errors (too many agents, a crowd too dense, a `.scen` line on a
//! blocked cell) are found here and point at the key or `.scen` line responsible.
//! Random and crowd placements number the agents in the order of their starts along the map
//! (Morton order, [`Grid::morton`](crate::grid::Grid::morton)): neighbours on the map are
//! neighbours in memory.

use std::path::{Path, PathBuf};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::Scenario;
#[cfg(doc)]
use crate::error::Error;
use crate::error::{ParseError, Result};
use crate::grid::{CellId, Grid};
use crate::movingai::{OtherMapName, ScenFile};
use crate::plural::Counted;

/// How starts and goals are placed. See the [placement rules](super).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Placement {
    /// Uniformly at random in the largest component.
    Random,
    /// Clustered crowds crossing the map to the opposite side.
    Crowds {
        /// Number of crowds (1 to 16).
        groups: u32,
        /// Fraction of a crowd's area holding an agent (0 < density <= 1).
        density: f64,
    },
    /// From a Moving AI / MAPF `.scen` file: agent `k` gets line `k`'s start and goal.
    Scen {
        /// The file (resolved against the scenario file's folder).
        file: PathBuf,
    },
}

impl Scenario {
    /// The start and goal of every agent on `grid` (the scenario's map), in agent order,
    /// following the placement rules of the [module docs](super).
    ///
    /// # Errors
    /// [`Error::Parse`] naming the `agents` key when the agents do not fit on the map, or the
    /// `.scen` file's line when one of its starts or goals is not usable.
    pub fn place(&self, grid: &Grid) -> Result<Vec<(CellId, CellId)>> {
        let config = self.sim_config();
        let distinct_starts = config.conflicts.separates();
        let distinct_goals = distinct_starts && !config.lifelong;
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let n = self.agents;
        if let Placement::Scen { file } = &self.placement {
            return self.place_from_scen(grid, file, distinct_starts);
        }
        let component = largest_component(grid);
        if component.is_empty() {
            return Err(self.origin.error("map", "the map has no walkable cell"));
        }
        if n > component.len() * Self::MAX_AGENTS_PER_CELL {
            return Err(self.origin.error(
                "agents",
                format!(
                    "{n} agents do not fit: the largest connected area of the map has {}, and \
                     even with conflicts off at most {} agents may share one",
                    Counted(component.len() as u64, "free cell"),
                    Self::MAX_AGENTS_PER_CELL
                ),
            ));
        }
        if (distinct_starts || distinct_goals) && n > component.len() {
            return Err(self.origin.error(
                "agents",
                format!(
                    "{n} agents do not fit: the largest connected area of the map has {} (with \
                     conflicts on every agent needs its own cell)",
                    Counted(component.len() as u64, "free cell")
                ),
            ));
        }
        // An agent stays on its goal for good in a one-shot run with conflicts on; on a cut
        // cell (the mouth of a dead end, a one-cell-wide passage) it would wall other agents
        // off from their goals for ever. Such cells hold no goal (a "well-formed" instance).
        let cut = if distinct_goals {
            cut_cells(grid, component[0])
        } else {
            Vec::new()
        };
        let goal_cells: Vec<CellId> = if distinct_goals {
            component
                .iter()
                .copied()
                .filter(|&c| !cut[c as usize])
                .collect()
        } else {
            component.clone()
        };
        if distinct_goals && n > goal_cells.len() {
            return Err(self.origin.error(
                "agents",
                format!(
                    "{n} agents do not fit: the largest connected area of the map has {} that can \
                     hold a goal (in a one-shot run with conflicts on, every agent needs its own \
                     goal, off the cells that would cut the area in two)",
                    Counted(goal_cells.len() as u64, "cell")
                ),
            ));
        }
        let mut pairs = match self.placement {
            Placement::Random => {
                let starts = sample(&component, n, distinct_starts, &mut rng);
                let goals = sample(&goal_cells, n, distinct_goals, &mut rng);
                starts.into_iter().zip(goals).collect()
            }
            Placement::Crowds { groups, density } => self.place_crowds(
                grid,
                &component,
                (groups, density),
                Distinct {
                    starts: distinct_starts,
                    goals: distinct_goals,
                    cut,
                },
                &mut rng,
            )?,
            Placement::Scen { .. } => unreachable!("handled above"),
        };
        avoid_own_start(&mut pairs, distinct_goals, &component, &mut rng);
        // Agents in the order of their starts along the map (Morton order): agents that stand
        // near each other get neighbouring slots, so that the movement phase, sweeping the map,
        // reads neighbouring records (`docs/performance.md`).
        pairs.sort_by_key(|&(start, _)| grid.morton(start));
        Ok(pairs)
    }

    /// For a `scen` placement on a map file: the first line of the `.scen` file that names
    /// another map than `map.file`, of the same size (see [`OtherMapName`]). The scenario names
    /// both files, so it may be meant: `throng run` prints it as a warning. Loads the map and
    /// the `.scen` file; `None` at once for other placements and generated maps.
    ///
    /// # Errors
    /// The map's and the `.scen` file's errors, a `.scen` made for a map of another size
    /// included ([`ScenFile::check_map`]).
    pub fn scen_map_mismatch(&self) -> Result<Option<OtherMapName>> {
        let (Placement::Scen { file }, Some(map)) = (&self.placement, self.map_file()) else {
            return Ok(None);
        };
        let scen = ScenFile::load(file)?;
        scen.check_map(Some(map), &self.load_grid()?)
    }

    fn place_from_scen(
        &self,
        grid: &Grid,
        file: &Path,
        distinct_starts: bool,
    ) -> Result<Vec<(CellId, CellId)>> {
        let scen = ScenFile::load(file)?;
        scen.check_map(self.map_file(), grid)?;
        if scen.queries.len() < self.agents {
            return Err(self.origin.error(
                "agents",
                format!(
                    "{} agents but {} has only {} lines",
                    self.agents,
                    file.display(),
                    scen.queries.len()
                ),
            ));
        }
        let pairs = scen.resolve(grid)?;
        let label = file.display().to_string();
        let mut taken = vec![false; if distinct_starts { grid.len() } else { 0 }];
        for (q, &(s, g)) in scen.queries.iter().zip(&pairs).take(self.agents) {
            for (what, cell, (x, y)) in [("start", s, q.start), ("goal", g, q.goal)] {
                if !grid.is_walkable(cell) {
                    return Err(ParseError::at(
                        &label,
                        q.line,
                        format!("{what} ({x}, {y}) is blocked"),
                    )
                    .into());
                }
            }
            if !grid.connected(s, g) {
                let ((sx, sy), (gx, gy)) = (q.start, q.goal);
                return Err(ParseError::at(
                    &label,
                    q.line,
                    format!("goal ({gx}, {gy}) cannot be reached from start ({sx}, {sy})"),
                )
                .into());
            }
            if distinct_starts {
                if taken[s as usize] {
                    let (x, y) = q.start;
                    return Err(ParseError::at(
                        &label,
                        q.line,
                        format!(
                            "start ({x}, {y}) is already another agent's start (conflicts are on)"
                        ),
                    )
                    .into());
                }
                taken[s as usize] = true;
            }
        }
        Ok(pairs.into_iter().take(self.agents).collect())
    }

    fn place_crowds(
        &self,
        grid: &Grid,
        component: &[CellId],
        (groups, density): (u32, f64),
        distinct: Distinct,
        rng: &mut ChaCha8Rng,
    ) -> Result<Vec<(CellId, CellId)>> {
        let Distinct {
            starts: distinct_starts,
            goals: distinct_goals,
            cut,
        } = distinct;
        let n = self.agents;
        let g = groups as usize;
        let (w, h) = (f64::from(grid.width()), f64::from(grid.height()));
        let (cx, cy) = ((w - 1.0) / 2.0, (h - 1.0) / 2.0);
        // Crowds stand at 80% of the way from the centre to the edge, on an ellipse.
        let (rx, ry) = (0.8 * cx, 0.8 * cy);
        let label = grid.components().of(component[0]);
        let mut start_taken = vec![false; grid.len()];
        // Cut cells never hold a goal (see `place`): mark them taken from the start.
        let mut goal_taken = if cut.is_empty() {
            vec![false; grid.len()]
        } else {
            cut
        };
        let mut per_group: Vec<(Vec<CellId>, Vec<CellId>)> = Vec::with_capacity(g);
        for k in 0..g {
            let size = n / g + usize::from(k < n % g);
            let angle = std::f64::consts::PI + std::f64::consts::TAU * k as f64 / g as f64;
            let (dx, dy) = (rx * angle.cos(), ry * angle.sin());
            let from = nearest(grid, component, cx + dx, cy + dy);
            let to = nearest(grid, component, cx - dx, cy - dy);
            let needed = (size as f64 / density).ceil();
            if needed > component.len() as f64 {
                return Err(self.origin.error(
                    "placement.density",
                    format!(
                        "a crowd of {size} agents at density {density} spreads over {needed} cells; \
                         the map's largest area has {}",
                        component.len()
                    ),
                ));
            }
            let area = (needed as usize).max(size);
            let cluster =
                |origin: CellId, taken: &mut Vec<bool>, distinct: bool, rng: &mut ChaCha8Rng| {
                    let cells = gather(
                        grid,
                        origin,
                        label,
                        area,
                        if distinct { Some(&*taken) } else { None },
                    );
                    if cells.len() < size {
                        return Err(self.origin.error(
                            "agents",
                            format!(
                                "crowd {} of {} does not fit around ({}, {}): only {} left there",
                                k + 1,
                                Counted(size as u64, "agent"),
                                grid.coords(origin).0,
                                grid.coords(origin).1,
                                Counted(cells.len() as u64, "free cell")
                            ),
                        ));
                    }
                    let chosen = sample(&cells, size, true, rng);
                    if distinct {
                        for &c in &chosen {
                            taken[c as usize] = true;
                        }
                    }
                    Ok(chosen)
                };
            let starts = cluster(from, &mut start_taken, distinct_starts, rng)?;
            let goals = cluster(to, &mut goal_taken, distinct_goals, rng)?;
            per_group.push((starts, goals));
        }
        // Interleave the groups so that no crowd always has priority in conflicts.
        Ok((0..n)
            .map(|i| {
                let (starts, goals) = &per_group[i % g];
                (starts[i / g], goals[i / g])
            })
            .collect())
    }
}

/// Which cells placement must keep apart.
struct Distinct {
    /// Every agent starts on its own cell.
    starts: bool,
    /// Every agent has its own goal.
    goals: bool,
    /// Cells that hold no goal (cut cells), or empty.
    cut: Vec<bool>,
}

/// The cut cells (articulation points) of the component holding `root`: the walkable cells
/// whose blocking splits the component, found by an iterative Tarjan depth-first search over
/// straight moves. (A diagonal can sometimes still get past such a cell, so this marks a few
/// cells too many, never too few.)
fn cut_cells(grid: &Grid, root: CellId) -> Vec<bool> {
    const UNSEEN: u32 = u32::MAX;
    let (w, h) = (grid.width(), grid.height());
    let mut cut = vec![false; grid.len()];
    let mut disc = vec![UNSEEN; grid.len()];
    let mut low = vec![0u32; grid.len()];
    let neighbour = |cell: CellId, k: u8| -> Option<CellId> {
        let (x, y) = grid.coords(cell);
        let next = match k {
            0 if x > 0 => cell - 1,
            1 if x + 1 < w => cell + 1,
            2 if y > 0 => cell - w,
            3 if y + 1 < h => cell + w,
            _ => return None,
        };
        grid.is_walkable(next).then_some(next)
    };
    // (cell, parent, next neighbour to look at)
    let mut stack: Vec<(CellId, CellId, u8)> = vec![(root, root, 0)];
    let mut time = 0u32;
    disc[root as usize] = time;
    low[root as usize] = time;
    let mut root_children = 0;
    while let Some(top) = stack.last_mut() {
        let (v, parent, k) = *top;
        if k < 4 {
            top.2 += 1;
            let Some(u) = neighbour(v, k) else { continue };
            if disc[u as usize] == UNSEEN {
                time += 1;
                disc[u as usize] = time;
                low[u as usize] = time;
                if v == root {
                    root_children += 1;
                }
                stack.push((u, v, 0));
            } else if u != parent {
                low[v as usize] = low[v as usize].min(disc[u as usize]);
            }
        } else {
            stack.pop();
            if let Some(&(p, _, _)) = stack.last() {
                low[p as usize] = low[p as usize].min(low[v as usize]);
                if p != root && low[v as usize] >= disc[p as usize] {
                    cut[p as usize] = true;
                }
            }
        }
    }
    cut[root as usize] = root_children > 1;
    cut
}

/// The cells of the largest connected component, in cell order (ties: the lowest label).
fn largest_component(grid: &Grid) -> Vec<CellId> {
    let components = grid.components();
    let mut sizes = vec![0usize; components.count() as usize];
    for cell in 0..grid.len() as CellId {
        if let Some(c) = components.of(cell) {
            sizes[c as usize] += 1;
        }
    }
    let Some(best) = (0..sizes.len()).max_by_key(|&c| (sizes[c], std::cmp::Reverse(c))) else {
        return Vec::new();
    };
    (0..grid.len() as CellId)
        .filter(|&cell| components.of(cell) == Some(best as u32))
        .collect()
}

/// `n` cells of `from`: distinct (a partial Fisher-Yates shuffle; needs `n <= from.len()`) or
/// drawn with replacement.
fn sample(from: &[CellId], n: usize, distinct: bool, rng: &mut ChaCha8Rng) -> Vec<CellId> {
    if !distinct {
        return (0..n)
            .map(|_| from[rng.random_range(0..from.len())])
            .collect();
    }
    let mut pool = from.to_vec();
    for i in 0..n {
        let j = rng.random_range(i..pool.len());
        pool.swap(i, j);
    }
    pool.truncate(n);
    pool
}

/// Makes sure no agent's goal is its own start (when the map has room for that): swaps the
/// goal with the next agent's when goals are distinct (which keeps them distinct), redraws it
/// otherwise.
fn avoid_own_start(
    pairs: &mut [(CellId, CellId)],
    distinct_goals: bool,
    component: &[CellId],
    rng: &mut ChaCha8Rng,
) {
    let n = pairs.len();
    if component.len() < 2 {
        return;
    }
    for i in 0..n {
        if pairs[i].0 != pairs[i].1 {
            continue;
        }
        if distinct_goals {
            if n >= 2 {
                let j = (i + 1) % n;
                let (a, b) = (pairs[i].1, pairs[j].1);
                pairs[i].1 = b;
                pairs[j].1 = a;
            }
        } else {
            while pairs[i].1 == pairs[i].0 {
                pairs[i].1 = component[rng.random_range(0..component.len())];
            }
        }
    }
}

/// The cell of `component` nearest to the point `(x, y)` (ties: the lowest cell id).
fn nearest(grid: &Grid, component: &[CellId], x: f64, y: f64) -> CellId {
    let mut best = (f64::INFINITY, component[0]);
    for &cell in component {
        let (cx, cy) = grid.coords(cell);
        let d = (f64::from(cx) - x).powi(2) + (f64::from(cy) - y).powi(2);
        if d < best.0 {
            best = (d, cell);
        }
    }
    best.1
}

/// Up to `want` cells of component `label` nearest to `origin` by breadth-first search over
/// straight moves, skipping (but walking through) the cells marked in `taken`.
fn gather(
    grid: &Grid,
    origin: CellId,
    label: Option<u32>,
    want: usize,
    taken: Option<&Vec<bool>>,
) -> Vec<CellId> {
    let mut seen = vec![false; grid.len()];
    let mut queue = std::collections::VecDeque::from([origin]);
    seen[origin as usize] = true;
    let mut out = Vec::with_capacity(want);
    let (w, h) = (grid.width(), grid.height());
    while let Some(cell) = queue.pop_front() {
        if taken.is_none_or(|t| !t[cell as usize]) {
            out.push(cell);
            if out.len() == want {
                break;
            }
        }
        let (x, y) = grid.coords(cell);
        let mut visit = |nx: u32, ny: u32| {
            let next = ny * w + nx;
            if !seen[next as usize] && grid.components().of(next) == label {
                seen[next as usize] = true;
                queue.push_back(next);
            }
        };
        if x > 0 {
            visit(x - 1, y);
        }
        if x + 1 < w {
            visit(x + 1, y);
        }
        if y > 0 {
            visit(x, y - 1);
        }
        if y + 1 < h {
            visit(x, y + 1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "agents = 10\nticks = 5\n[map]\ngenerator = { kind = \"random\", width = 16, height = 16, density = 0.1 }\n";

    #[test]
    fn cut_cells_are_the_articulation_points() {
        let grid = Grid::from_ascii(
            "...#....\n\
             ...#.##.\n\
             ........\n\
             ####.###\n\
             ....#...",
        )
        .unwrap();
        let cut = cut_cells(&grid, grid.cell(0, 0).unwrap());
        let mut found: Vec<(u32, u32)> = (0..grid.len() as CellId)
            .filter(|&c| cut[c as usize])
            .map(|c| grid.coords(c))
            .collect();
        found.sort_unstable_by_key(|&(x, y)| (y, x));
        // The 3 x 3 block at the top left reaches the rest through (2, 2) and (3, 2) only;
        // (4, 2) is the only way into the dead end (4, 3). The right part is a loop: no cut.
        // (The bottom row is another component.)
        assert_eq!(found, vec![(2, 2), (3, 2), (4, 2)]);
        // A full grid has none, whatever the root.
        let open = Grid::new(5, 4).unwrap();
        assert!(cut_cells(&open, 7).iter().all(|&c| !c));
        // A corridor: every inner cell is a cut cell, the ends are not.
        let line = Grid::new(5, 1).unwrap();
        assert_eq!(cut_cells(&line, 2), vec![false, true, true, true, false]);
    }

    #[test]
    fn crowds_are_clustered_and_distinct() {
        let text = format!("{SMALL}[placement]\nkind = \"crowds\"\ngroups = 2\ndensity = 0.8\n");
        let s = Scenario::parse(&text, "t.toml", Path::new(".")).unwrap();
        let grid = s.load_grid().unwrap();
        let pairs = s.place(&grid).unwrap();
        let mut starts: Vec<_> = pairs.iter().map(|p| p.0).collect();
        starts.sort_unstable();
        starts.dedup();
        assert_eq!(starts.len(), 10);
        // Group 0 starts on the left half and heads right, group 1 the other way.
        for &(s, g) in &pairs {
            assert_eq!(grid.coords(s).0 < 8, grid.coords(g).0 >= 8);
        }
        assert_eq!(pairs.iter().filter(|p| grid.coords(p.0).0 < 8).count(), 5);
    }

    #[test]
    fn agents_are_numbered_in_the_order_of_their_starts_along_the_map() {
        for kind in [
            "kind = \"random\"",
            "kind = \"crowds\"\ngroups = 2\ndensity = 0.8",
        ] {
            let text = format!("{SMALL}[placement]\n{kind}\n");
            let s = Scenario::parse(&text, "t.toml", Path::new(".")).unwrap();
            let grid = s.load_grid().unwrap();
            let pairs = s.place(&grid).unwrap();
            let codes: Vec<u64> = pairs.iter().map(|p| grid.morton(p.0)).collect();
            assert!(codes.is_sorted(), "{kind}: {codes:?}");
        }
    }
}
