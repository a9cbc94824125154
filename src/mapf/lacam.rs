//! LaCAM: a complete search over joint configurations (Okumura, "LaCAM: Search-Based Algorithm
//! for Quick Multi-Agent Pathfinding", AAAI 2023), our implementation.
//!
//! Each high-level node is a configuration (every agent's cell). Its successors are made by
//! [`Pibt`] one step at a time, under constraints ("agent `i` goes to cell `v`") that a
//! low-level search adds lazily, agent by agent in the node's priority order, one branch per
//! cell agent `i` may take. A node is revisited until every combination of constraints has been
//! tried, so the search eventually enumerates every reachable configuration: it finds a
//! solution whenever one exists, and reports "no solution" only after exhausting them. In
//! practice PIBT's first proposal almost always works, so most nodes are expanded once.
//!
//! Options from lacam3 that lower the cost of first solutions: the agents scattered over
//! near-shortest paths that PIBT follows ([`LacamOptions::scatter`], [`super::Scatter`]) and
//! the best of several PIBT runs per successor ([`LacamOptions::pibt_runs`]).
//!
//! Depth-first (the most recent node is expanded first) and, as in LaCAM*, a configuration met
//! again puts its node back on top rather than being skipped. By default the first solution
//! is returned.
//!
//! # Anytime (LaCAM*)
//! With [`LacamOptions::anytime`] the search goes on after the first solution, as LaCAM*
//! (Okumura, IJCAI 2023) does: every node keeps its cost from the start (`g`: per step, the
//! agents not standing on their goal before and after it) and the configurations it was seen
//! to lead to; when a known configuration is met again by a cheaper way, the cheaper way is
//! passed on to everything reachable from it (a Dijkstra over those edges), the goal's
//! included; nodes that cannot beat the best plan (`g` + the sum of the agents' distances to
//! their goals at least its cost) are dropped. The best plan is returned at the time limit, and
//! if the search runs out of nodes first, no plan of this cost model is cheaper.
//!
//! `throng mapf --anytime` does not use it: refining the first solution by large neighbourhood
//! search ([`super::refine`]) lowers the sum of costs far more in the same time.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::distances::GoalDistances;
use super::pibt::{Candidates, MAX_CANDIDATES, Pibt, rank_candidates};
use super::scatter::Scatter;
use super::validate::check_step;
use crate::error::{Error, Result};
use crate::grid::{CellId, Grid};

/// One meeting of a known configuration in this many puts the start node back on top of the
/// search instead of the known node (lacam3's `random-insert-prob1`, 0.001).
const RESTART_ODDS: u64 = 1000;

/// After the first solution, one iteration in this many puts the start node back on top.
const RESTART_ODDS_ANYTIME: u64 = 100;

/// Limits of a [`solve`] call.
#[derive(Debug, Clone, Copy, Default)]
pub struct LacamOptions {
    /// Give up after this long (default: no limit).
    pub time_limit: Option<Duration>,
    /// Give up after this many high-level nodes (default: no limit).
    pub node_limit: Option<usize>,
    /// Seed of the tie-breaks and of the order in which constraints are tried.
    pub seed: u64,
    /// Keep improving the sum of costs after the first solution until the time or node
    /// limit, or until no cheaper plan can exist (see the module docs). Default: `false`,
    /// return the first solution. Without a limit an anytime search runs until it has proved
    /// its plan the cheapest, which on a large instance is a very long time.
    pub anytime: bool,
    /// Scatter the agents over near-shortest paths before the search and let PIBT follow them
    /// (see [`super::Scatter`]): `Some(margin)`, each path at most `margin` moves longer than
    /// the shortest. Default `None`: PIBT follows the shortest ways. `throng mapf` uses
    /// [`SCATTER_MARGIN`]; on the MAPF benchmark it lowers the sum of costs of first solutions
    /// by 7% on average (14% on the open map at 300 agents).
    pub scatter: Option<u32>,
    /// PIBT runs (different tie-breaks) per successor, keeping the best: a configuration not met
    /// before, then the nearest the goals by the sum of the agents' distances (lacam3's
    /// Monte-Carlo configuration generation). Default 0, taken as 1; `throng mapf` uses
    /// [`PIBT_RUNS`].
    pub pibt_runs: usize,
}

/// The PIBT runs per successor `throng mapf` uses (lacam3's default `pibt-num`): on the MAPF
/// benchmark sample of `docs/benchmarks.md`, 10 runs made first solutions 4% cheaper than one
/// and the search about twice as long.
pub const PIBT_RUNS: usize = 10;

/// The scatter margin `throng mapf` uses, lacam3's default: on den520d at 1,000 agents it made
/// first solutions 4% cheaper than 3 (since the scatter's paths are simple; before, 3 gave the
/// same sums of costs as 10 on the MAPF benchmark in a third of the time).
pub const SCATTER_MARGIN: u32 = 10;

/// What [`solve`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LacamOutcome {
    /// A plan: the configuration at each timestep, from the starts (first) to the goals
    /// (last). Every step passed [`check_step`].
    Solved(Vec<Vec<CellId>>),
    /// Every reachable configuration was tried: the instance has no solution.
    NoSolution,
    /// The time or node limit came first.
    Unfinished,
}

/// Interval of [`LacamStats::checkpoints`], milliseconds (lacam3's `checkpoints-duration`).
pub const CHECKPOINT_MS: f64 = 5000.0;

/// Counters of a [`solve`] call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LacamStats {
    /// High-level nodes made (distinct configurations met).
    pub nodes: usize,
    /// Configurations PIBT was asked for.
    pub generated: usize,
    /// Wall time, milliseconds.
    pub time_ms: f64,
    /// When the first solution was found, milliseconds (`None`: none was).
    pub first_solution_ms: Option<f64>,
    /// When the plan returned was found, milliseconds (the first solution unless an anytime
    /// search improved it).
    pub solution_ms: Option<f64>,
    /// Times an anytime search found a cheaper plan than its best.
    pub improvements: usize,
    /// Iterations of the search loop (lacam3's `search_iteration`).
    pub iterations: usize,
    /// Constraint sets made: the low-level nodes (lacam3's `num_low_level_node`).
    pub low_level_nodes: usize,
    /// The cost of the first solution found: per step, the agents not resting on their goal
    /// (its sum of loss; lacam3's `cost_initial_solution`). `None`: none was found.
    pub first_solution_cost: Option<u64>,
    /// The best solution's cost at 0 ms and every [`CHECKPOINT_MS`] after it while the search
    /// ran (`None`: no solution yet), as lacam3 records its `checkpoints`.
    pub checkpoints: Vec<Option<u64>>,
}

impl LacamStats {
    /// Adds the checkpoints due by `elapsed_ms`, each with the cost `best`.
    fn checkpoint(&mut self, elapsed_ms: f64, best: Option<u64>) {
        while elapsed_ms >= self.checkpoints.len() as f64 * CHECKPOINT_MS {
            self.checkpoints.push(best);
        }
    }
}

/// A high-level node.
struct Node {
    config: Vec<CellId>,
    parent: Option<u32>,
    priorities: Vec<f64>,
    order: Vec<u32>,
    /// Constraint sets still to try, breadth first.
    pending: VecDeque<Constraint>,
    /// Anytime search: cost from the start along the best way known.
    g: u64,
    /// Anytime search: the sum of the agents' distances to their goals.
    h: u64,
    /// Anytime search: the configurations seen to follow this one.
    next: Vec<u32>,
}

/// A low-level node: the first `len` agents of the node's order are bound to cells.
#[derive(Clone)]
struct Constraint {
    who: Vec<u32>,
    to: Vec<CellId>,
}

/// Solves the one-shot MAPF instance: agent `a` from `starts[a]` to `goals[a]` on `grid` (its
/// neighbourhood decides the moves), one move or wait per timestep, no two agents in one
/// cell, no swaps, no diagonal crossings.
///
/// ```
/// use throng::grid::{Grid, Neighborhood};
/// use throng::mapf::lacam::{LacamOptions, LacamOutcome, solve};
///
/// // Three agents must reverse their order in a dead-end corridor with one bay.
/// let grid = Grid::from_ascii(".....\n.#.##")?.with_neighborhood(Neighborhood::Four);
/// let c = |x, y| grid.cell(x, y).unwrap();
/// let starts = [c(2, 0), c(3, 0), c(4, 0)];
/// let goals = [c(4, 0), c(3, 0), c(2, 0)];
/// let (outcome, _) = solve(&grid, &starts, &goals, &LacamOptions::default())?;
/// let LacamOutcome::Solved(plan) = outcome else { panic!("solvable") };
/// assert_eq!(plan.last().unwrap(), &goals.to_vec());
/// # Ok::<(), throng::error::Error>(())
/// ```
///
/// # Errors
/// [`Error::Invalid`] when the lists differ in length, a start or goal is outside the grid or
/// blocked, two agents share a start or a goal, or a goal cannot be reached from its start.
pub fn solve(
    grid: &Grid,
    starts: &[CellId],
    goals: &[CellId],
    options: &LacamOptions,
) -> Result<(LacamOutcome, LacamStats)> {
    let t0 = Instant::now();
    check_instance(grid, starts, goals)?;
    let dist = GoalDistances::new(grid, goals);
    for (a, &s) in starts.iter().enumerate() {
        if dist.get(a as u32, s) == GoalDistances::UNREACHABLE {
            let ((sx, sy), (gx, gy)) = (grid.coords(s), grid.coords(goals[a]));
            return Err(Error::Invalid(format!(
                "agent {a}: goal ({gx}, {gy}) cannot be reached from start ({sx}, {sy})"
            )));
        }
    }
    let n = starts.len();
    let mut stats = LacamStats::default();
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let scatter = options.scatter.map(|margin| {
        let deadline = options.time_limit.map(|l| t0 + l / 2);
        Scatter::new(grid, starts, &dist, margin, deadline)
    });
    let mut successors = Successors::new(grid, &dist, scatter.as_ref(), n);
    let mut nodes: Vec<Node> = Vec::new();
    let mut explored: HashMap<Vec<CellId>, u32> = HashMap::new();
    let mut open: Vec<u32> = Vec::new();

    // The start: priorities break ties by distance (farther first), as LaCAM does.
    let priorities: Vec<f64> = (0..n)
        .map(|a| f64::from(dist.get(a as u32, starts[a])) / (n as f64 * 16.0 + 1.0).max(1e4))
        .collect();
    let mut root = new_node(starts.to_vec(), None, priorities);
    root.h = distance_sum(&dist, &root.config);
    explored.insert(root.config.clone(), 0);
    nodes.push(root);
    open.push(0);
    stats.nodes = 1;
    stats.low_level_nodes = 1;
    stats.checkpoint(0.0, None);

    // Anytime search: the goal's node, once found.
    let mut best: Option<u32> = None;
    let solved = |nodes: &[Node], best: Option<u32>, fallback: LacamOutcome| match best {
        Some(goal) => LacamOutcome::Solved(backtrack(nodes, goal)),
        None => fallback,
    };
    let ms = |t0: Instant| t0.elapsed().as_secs_f64() * 1e3;
    let outcome = loop {
        stats.iterations += 1;
        let best_cost = best.map(|goal| nodes[goal as usize].g);
        stats.checkpoint(ms(t0), best_cost);
        let Some(&top) = open.last() else {
            break solved(&nodes, best, LacamOutcome::NoSolution);
        };
        if nodes[top as usize].config == goals {
            if !options.anytime {
                stats.first_solution_ms = Some(ms(t0));
                stats.solution_ms = stats.first_solution_ms;
                let plan = backtrack(&nodes, top);
                stats.first_solution_cost = Some(
                    plan.windows(2)
                        .map(|w| step_cost(&w[0], &w[1], goals))
                        .sum(),
                );
                break LacamOutcome::Solved(plan);
            }
            open.pop(); // the goal is never expanded
            continue;
        }
        if let Some(goal) = best {
            let node = &nodes[top as usize];
            if node.g + node.h >= nodes[goal as usize].g {
                open.pop(); // cannot lead to a cheaper plan
                continue;
            }
            // Now and then start again from the start, so that the search does not spend the
            // rest of its time deep in one branch (lacam3's `random-insert-prob2`).
            if rng.random_range(0..RESTART_ODDS_ANYTIME) == 0 {
                open.push(0);
                continue;
            }
        }
        if options.time_limit.is_some_and(|l| t0.elapsed() >= l)
            || options.node_limit.is_some_and(|l| stats.nodes >= l)
        {
            break solved(&nodes, best, LacamOutcome::Unfinished);
        }
        let Some(constraint) = nodes[top as usize].pending.pop_front() else {
            open.pop(); // every constraint set tried
            continue;
        };

        // Branch on the next agent of the order: one child per cell it may take.
        let node = &mut nodes[top as usize];
        let depth = constraint.who.len();
        if depth < n {
            let agent = node.order[depth];
            let at = node.config[agent as usize];
            let mut cells = [0 as CellId; MAX_CANDIDATES];
            let mut len = 0;
            cells[len] = at;
            len += 1;
            let offsets = grid.move_offsets();
            for dir in grid.moves(at).iter() {
                cells[len] = (i64::from(at) + offsets[dir.index()]) as CellId;
                len += 1;
            }
            for k in (1..len).rev() {
                cells.swap(k, rng.random_range(0..=k));
            }
            for &cell in &cells[..len] {
                let mut child = constraint.clone();
                child.who.push(agent);
                child.to.push(cell);
                node.pending.push_back(child);
            }
            stats.low_level_nodes += len;
        }

        // A successor under the constraint.
        stats.generated += 1;
        // Several PIBT runs with different tie-breaks: the successor kept is one not met before
        // if any, then the one nearest the goals (sum of distances).
        let mut chosen: Option<(bool, u64, Vec<CellId>)> = None;
        for _ in 0..options.pibt_runs.max(1) {
            let salt = rng.next_u64();
            let Some(next) = successors.generate(&nodes[top as usize], &constraint, salt) else {
                continue;
            };
            let key = (explored.contains_key(&next), distance_sum(&dist, &next));
            if chosen.as_ref().is_none_or(|c| key < (c.0, c.1)) {
                chosen = Some((key.0, key.1, next));
            }
        }
        let Some((_, _, next)) = chosen else {
            continue;
        };
        if let Some(&known) = explored.get(&next) {
            if options.anytime {
                nodes[top as usize].next.push(known);
                if rewire(&mut nodes, goals, top, best) {
                    stats.improvements += 1;
                    stats.solution_ms = Some(t0.elapsed().as_secs_f64() * 1e3);
                }
            }
            // Met again: back on top (LaCAM*), so the search goes on from there; now and then
            // the start instead (as lacam3 does), so that a depth-first search that took a bad
            // turn deep down tries another way from the beginning.
            open.push(if rng.random_range(0..RESTART_ODDS) == 0 {
                0
            } else {
                known
            });
            continue;
        }
        let parent = &nodes[top as usize];
        let priorities = parent
            .priorities
            .iter()
            .enumerate()
            .map(|(a, &p)| {
                if next[a] != goals[a] {
                    p + 1.0
                } else {
                    p - p.floor()
                }
            })
            .collect();
        let id = nodes.len() as u32;
        let mut child = new_node(next.clone(), Some(top), priorities);
        if options.anytime {
            child.g = nodes[top as usize].g + step_cost(&nodes[top as usize].config, &next, goals);
            child.h = distance_sum(&dist, &next);
            nodes[top as usize].next.push(id);
            if next == goals {
                let now = Some(t0.elapsed().as_secs_f64() * 1e3);
                match best {
                    None => {
                        stats.first_solution_ms = now;
                        stats.first_solution_cost = Some(child.g);
                    }
                    Some(goal) if child.g < nodes[goal as usize].g => stats.improvements += 1,
                    Some(_) => {}
                }
                if best.is_none_or(|goal| child.g < nodes[goal as usize].g) {
                    best = Some(id);
                    stats.solution_ms = now;
                }
            }
        }
        explored.insert(next, id);
        nodes.push(child);
        open.push(id);
        stats.nodes += 1;
        stats.low_level_nodes += 1;
    };
    stats.time_ms = ms(t0);
    let final_cost = match (&outcome, best) {
        (_, Some(goal)) => Some(nodes[goal as usize].g),
        (LacamOutcome::Solved(_), None) => stats.first_solution_cost,
        _ => None,
    };
    stats.checkpoint(stats.time_ms, final_cost);
    if let LacamOutcome::Solved(plan) = &outcome {
        for (t, pair) in plan.windows(2).enumerate() {
            check_step(grid, &pair[0], &pair[1]).map_err(|e| {
                Error::Invalid(format!(
                    "internal error: step {t} of the plan is invalid: {e}"
                ))
            })?;
        }
    }
    Ok((outcome, stats))
}

fn new_node(config: Vec<CellId>, parent: Option<u32>, priorities: Vec<f64>) -> Node {
    let mut order: Vec<u32> = (0..config.len() as u32).collect();
    order.sort_by(|&a, &b| {
        priorities[b as usize]
            .total_cmp(&priorities[a as usize])
            .then(a.cmp(&b))
    });
    let mut pending = VecDeque::new();
    pending.push_back(Constraint {
        who: Vec::new(),
        to: Vec::new(),
    });
    Node {
        config,
        parent,
        priorities,
        order,
        pending,
        g: 0,
        h: 0,
        next: Vec::new(),
    }
}

/// The cost of the step `from -> to`: the agents not on their goal before or after it (an
/// agent that waits on its goal costs nothing, as in the sum of costs).
fn step_cost(from: &[CellId], to: &[CellId], goals: &[CellId]) -> u64 {
    from.iter()
        .zip(to)
        .zip(goals)
        .filter(|((f, t), g)| f != g || t != g)
        .count() as u64
}

/// The sum of the agents' distances to their goals: no plan from `config` costs less.
fn distance_sum(dist: &GoalDistances, config: &[CellId]) -> u64 {
    config
        .iter()
        .enumerate()
        .map(|(a, &c)| u64::from(dist.get(a as u32, c)))
        .sum()
}

/// Passes on a cheaper way to `from`'s successors: every node whose cost from the start drops
/// takes its new parent, and so on (Dijkstra over the edges seen). Returns whether the goal's
/// node `best` got cheaper. Costs are positive on every edge out of a configuration that is not
/// the goal (at least one agent is off its goal), so parents never form a cycle.
fn rewire(nodes: &mut [Node], goals: &[CellId], from: u32, best: Option<u32>) -> bool {
    let mut improved = false;
    let mut queue = VecDeque::from([from]);
    while let Some(u) = queue.pop_front() {
        for k in 0..nodes[u as usize].next.len() {
            let v = nodes[u as usize].next[k];
            let g = nodes[u as usize].g
                + step_cost(&nodes[u as usize].config, &nodes[v as usize].config, goals);
            if g < nodes[v as usize].g {
                nodes[v as usize].g = g;
                nodes[v as usize].parent = Some(u);
                improved |= Some(v) == best;
                queue.push_back(v);
            }
        }
    }
    improved
}

/// What makes a node's successors: PIBT toward the goals (along the scatter's paths where there
/// are some), with its buffers kept from one successor to the next.
struct Successors<'a> {
    grid: &'a Grid,
    dist: &'a GoalDistances,
    scatter: Option<&'a Scatter>,
    pibt: Pibt,
    /// Per agent: the cells PIBT tries, best first.
    candidates: Vec<Candidates>,
    /// The agents in the order PIBT decides them.
    order: Vec<u32>,
    /// Per agent: whether the constraint binds it.
    bound: Vec<bool>,
}

impl<'a> Successors<'a> {
    fn new(
        grid: &'a Grid,
        dist: &'a GoalDistances,
        scatter: Option<&'a Scatter>,
        agents: usize,
    ) -> Self {
        let mut pibt = Pibt::new(grid.len());
        // A successor that goes nowhere is just one the search moves past (see the setter).
        pibt.set_swap_needs_room(false);
        Successors {
            grid,
            dist,
            scatter,
            pibt,
            candidates: vec![Candidates::default(); agents],
            order: Vec::with_capacity(agents),
            bound: vec![false; agents],
        }
    }

    /// The next configuration from `node` with the constrained agents bound to their cells
    /// (PIBT for the others), or `None` when PIBT cannot honour the constraints.
    fn generate(&mut self, node: &Node, constraint: &Constraint, salt: u64) -> Option<Vec<CellId>> {
        let (grid, dist, scatter) = (self.grid, self.dist, self.scatter);
        let Successors {
            pibt,
            candidates,
            order,
            bound,
            ..
        } = self;
        bound.fill(false);
        order.clear();
        for (&agent, &cell) in constraint.who.iter().zip(&constraint.to) {
            bound[agent as usize] = true;
            candidates[agent as usize] = Candidates::from_cells(&[cell]);
            order.push(agent);
        }
        for &agent in &node.order {
            if !bound[agent as usize] {
                let at = node.config[agent as usize];
                let mut ranked = rank_candidates(grid, dist, agent, at, salt);
                if let Some(to) = scatter.and_then(|s| s.next_cell(agent, at)) {
                    ranked = follow_first(&ranked, to);
                }
                candidates[agent as usize] = ranked;
                order.push(agent);
            }
        }
        let next = pibt.step(grid, &node.config, candidates, order, dist, salt);
        constraint
            .who
            .iter()
            .zip(&constraint.to)
            .all(|(&a, &cell)| next[a as usize] == cell)
            .then(|| next.to_vec())
    }
}

/// `ranked` with `to` moved to the front (unchanged when `to` is not among them).
fn follow_first(ranked: &Candidates, to: CellId) -> Candidates {
    let cells = ranked.as_slice();
    let Some(k) = cells.iter().position(|&c| c == to) else {
        return *ranked;
    };
    let mut out = [0 as CellId; MAX_CANDIDATES];
    out[0] = to;
    out[1..=k].copy_from_slice(&cells[..k]);
    out[k + 1..cells.len()].copy_from_slice(&cells[k + 1..]);
    Candidates::from_cells(&out[..cells.len()])
}

/// The configurations from the root to `end`.
fn backtrack(nodes: &[Node], end: u32) -> Vec<Vec<CellId>> {
    let mut plan = Vec::new();
    let mut at = Some(end);
    while let Some(id) = at {
        plan.push(nodes[id as usize].config.clone());
        at = nodes[id as usize].parent;
    }
    plan.reverse();
    plan
}

fn check_instance(grid: &Grid, starts: &[CellId], goals: &[CellId]) -> Result<()> {
    if starts.len() != goals.len() {
        return Err(Error::Invalid(format!(
            "{} starts but {} goals",
            starts.len(),
            goals.len()
        )));
    }
    for (what, cells) in [("start", starts), ("goal", goals)] {
        let mut seen: HashMap<CellId, usize> = HashMap::with_capacity(cells.len());
        for (a, &c) in cells.iter().enumerate() {
            if !grid.contains(c) {
                return Err(Error::Invalid(format!(
                    "agent {a}: {what} cell {c} is outside the {} x {} grid",
                    grid.width(),
                    grid.height()
                )));
            }
            let (x, y) = grid.coords(c);
            if !grid.is_walkable(c) {
                return Err(Error::Invalid(format!(
                    "agent {a}: {what} ({x}, {y}) is blocked"
                )));
            }
            if let Some(b) = seen.insert(c, a) {
                return Err(Error::Invalid(format!(
                    "agents {b} and {a} share the {what} ({x}, {y})"
                )));
            }
        }
    }
    Ok(())
}
