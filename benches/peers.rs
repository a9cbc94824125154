//! Peer comparison: throng's planners against other Rust grid path-finding crates on the same
//! Moving AI queries, plus a multi-threaded batch. One command prints every table:
//!
//! ```text
//! cargo bench --bench peers               # full run (about a minute on 2 cores, once built)
//! cargo bench --bench peers -- --quick    # one timed round per planner (about 30 s)
//! cargo test --bench peers                # correctness pass only, nothing timed
//! ```
//!
//! # Planners
//!
//! - **throng astar**: [`SearchWorkspace::find_path`], one workspace per map, reused.
//! - **throng jps**: [`SearchWorkspace::find_path_jps`], same workspace.
//! - **throng jps+**: [`SearchWorkspace::find_path_jps_plus`], same workspace; the grid's jump
//!   table is built once per map ([`Grid::prepare_jump_table`], its time reported apart).
//! - **throng nav**: [`NavGraph::find_path`] with a [`NavWorkspace`] (navigation points,
//!   HPA*-like; cluster size [`NavOptions::DEFAULT_CLUSTER_SIZE`]); its build time is reported
//!   apart, and its paths are near-optimal, not optimal.
//! - **pathfinding astar**: `pathfinding::directed::astar::astar` over `(x, y)` nodes with
//!   fixed-point `u64` costs and the same movement rules as throng (8-connected, no corner
//!   cutting, diagonal `sqrt(2)`), as in `benches/astar.rs`. Every ratio column is relative to it.
//! - **grid_pathfinding jps**: `grid_pathfinding::PathingGrid::get_path_single_goal` (JPS with
//!   improved pruning, connected components precomputed). Its rules differ: diagonal moves may
//!   cut corners (a diagonal needs only its destination free), and costs are integers 70
//!   (straight) and 99 (diagonal, ratio 1.41429).
//! - **hierarchical_pathfinding**: `hierarchical_pathfinding::PathCache::find_path` (HPA*,
//!   chunk size [`HPA_CHUNK`], default config otherwise: cached paths, A* fallback on short
//!   trips), resolved to a full cell path. Its rules differ: the cost of a move is the cost of
//!   the tile, so a diagonal costs the same as a straight step (Chebyshev metric), and the
//!   stock `MooreNeighborhood` cuts corners. It is run twice: with `MooreNeighborhood` (stock)
//!   and with a neighbourhood written here that forbids corner cutting (`hpa nocut`), the
//!   closest to throng's rules its API allows. Its build time is reported apart.
//!
//! # Correctness before timing
//!
//! Every planner answers every query once before anything is timed. Each returned path is
//! judged by throng's [`Grid::path_cost`] (continuity, walkability, no corner cutting) and its
//! cost compared with the scenario file's optimal length: **optimal** (within [`SCEN_TOLERANCE`]
//! relative), **longer**, **illegal** (the path breaks throng's rules, or has the wrong
//! endpoints), **missing** (no path returned). throng astar, throng jps, throng jps+ and
//! pathfinding astar must be optimal on every query and throng nav legal, or the bench panics; the peers with
//! other rules are counted, not judged.
//!
//! A second table lists, for the planners with illegal paths, the first rule each broke and the
//! length of every returned path with the corner rule ignored (straight 1, diagonal sqrt 2)
//! divided by the optimum: below 1 where cutting corners made a path shorter than throng's
//! optimum.
//!
//! # Timing
//!
//! Per map, rounds alternate between the planners (each round: every planner answers the whole
//! query set once, in turn); the figure is the mean over [`ROUNDS`] rounds ([`QUICK_ROUNDS`]
//! with `--quick`), after the correctness pass as warm-up. All in one process, on the same
//! query subset: every `k`-th scenario line, `k = max(1, lines / TARGET_QUERIES)`.
//!
//! # Batch
//!
//! [`BATCH_QUERIES`] random queries (seeded; start and goal in the largest connected component
//! of `random512-10-0`) answered by throng jps on rayon pools of 1, 2, ...,
//! `available_parallelism()` threads, one workspace per thread; best of [`BATCH_ROUNDS`] runs.

mod common;

use common::*;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use grid_pathfinding::PathingGrid;
use grid_util::grid::ValueGrid;
use grid_util::point::Point;
use hierarchical_pathfinding::neighbors::{MooreNeighborhood, Neighborhood};
use hierarchical_pathfinding::{PathCache, PathCacheConfig};
use rayon::prelude::*;
use thread_local::ThreadLocal;
use throng::grid::{CellId, Grid};
use throng::movingai::within_tolerance;
use throng::nav::{NavGraph, NavOptions, NavWorkspace};
use throng::search::{QueryError, SearchOptions, SearchOutcome, SearchWorkspace};

/// Timed rounds per map in a full run.
const ROUNDS: usize = 5;

/// Timed rounds per map with `--quick`.
const QUICK_ROUNDS: usize = 1;

/// Chunk size of `hierarchical_pathfinding`'s `PathCache`: throng nav's cluster size. Of 8 (the
/// crate's default), 16 and 32, 32 was the fastest on the three 512-cell maps (8 and 16 only
/// won on the 49 x 49 `arena`).
const HPA_CHUNK: usize = 32;

/// Queries in the batch section.
const BATCH_QUERIES: usize = 10_000;

/// Runs of the batch per thread count (the best is kept).
const BATCH_ROUNDS: usize = 5;

/// Map of the batch section.
const BATCH_MAP: &str = "random512-10-0";

/// Seed of the batch queries.
const BATCH_SEED: u64 = 0x7468_726f_6e67;

/// The planners compared, in table order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Planner {
    ThrongAstar,
    ThrongJps,
    ThrongJpsPlus,
    ThrongNav,
    Pathfinding,
    GridPathfinding,
    Hpa,
    HpaNoCut,
}

impl Planner {
    const ALL: [Planner; 8] = [
        Planner::ThrongAstar,
        Planner::ThrongJps,
        Planner::ThrongJpsPlus,
        Planner::ThrongNav,
        Planner::Pathfinding,
        Planner::GridPathfinding,
        Planner::Hpa,
        Planner::HpaNoCut,
    ];

    fn name(self) -> &'static str {
        match self {
            Planner::ThrongAstar => "throng astar",
            Planner::ThrongJps => "throng jps",
            Planner::ThrongJpsPlus => "throng jps+",
            Planner::ThrongNav => "throng nav",
            Planner::Pathfinding => "pathfinding astar",
            Planner::GridPathfinding => "grid_pathfinding jps",
            Planner::Hpa => "hierarchical_pathfinding",
            Planner::HpaNoCut => "hierarchical_pathfinding nocut",
        }
    }

    /// Movement rules, as they differ from throng's.
    fn rules(self) -> &'static str {
        match self {
            Planner::ThrongAstar
            | Planner::ThrongJps
            | Planner::ThrongJpsPlus
            | Planner::Pathfinding => "same",
            Planner::ThrongNav => "same, near-optimal",
            Planner::GridPathfinding => "cuts corners, diag 99/70",
            Planner::Hpa => "cuts corners, diag = 1, near-optimal",
            Planner::HpaNoCut => "diag = 1, near-optimal",
        }
    }
}

/// `hierarchical_pathfinding` neighbourhood with throng's corner rule: 8-connected, a diagonal
/// only when both orthogonal cells beside it are walkable. Diagonals still cost one tile.
#[derive(Clone, Debug)]
struct NoCornerCut {
    width: usize,
    height: usize,
    walkable: Arc<Vec<bool>>,
}

impl NoCornerCut {
    fn open(&self, x: i64, y: i64) -> bool {
        x >= 0
            && y >= 0
            && (x as usize) < self.width
            && (y as usize) < self.height
            && self.walkable[y as usize * self.width + x as usize]
    }
}

impl Neighborhood for NoCornerCut {
    fn get_all_neighbors(&self, (x, y): (usize, usize), target: &mut Vec<(usize, usize)>) {
        let (x, y) = (x as i64, y as i64);
        for &(dx, dy) in &MOVES {
            let (nx, ny) = (x + dx, y + dy);
            if nx < 0 || ny < 0 || nx >= self.width as i64 || ny >= self.height as i64 {
                continue;
            }
            if dx != 0 && dy != 0 && !(self.open(x + dx, y) && self.open(x, y + dy)) {
                continue;
            }
            target.push((nx as usize, ny as usize));
        }
    }

    fn heuristic(&self, a: (usize, usize), b: (usize, usize)) -> usize {
        a.0.abs_diff(b.0).max(a.1.abs_diff(b.1))
    }
}

/// Every planner's prepared state for one map.
struct Prepared {
    workspace: SearchWorkspace,
    nav: NavGraph,
    nav_ws: NavWorkspace,
    nav_build: Duration,
    jump_table_build: Duration,
    gp: PathingGrid,
    gp_build: Duration,
    hpa: PathCache<MooreNeighborhood>,
    hpa_build: Duration,
    hpa_nocut: PathCache<NoCornerCut>,
    hpa_nocut_build: Duration,
}

/// Tile cost for `hierarchical_pathfinding`: 1 for walkable, -1 (solid) for blocked.
fn hpa_cost(grid: &Grid) -> impl Fn((usize, usize)) -> isize + Sync + '_ {
    move |(x, y)| {
        if grid.is_walkable_xy(x as i64, y as i64) {
            1
        } else {
            -1
        }
    }
}

impl Prepared {
    fn new(grid: &Grid) -> Prepared {
        let (w, h) = (grid.width() as usize, grid.height() as usize);

        // The jump table's build timed on a copy without one (the navigation points below
        // build it on maps where they answer every query by JPS+).
        let fresh = grid.clone();
        let t0 = Instant::now();
        fresh.prepare_jump_table();
        let jump_table_build = t0.elapsed();
        drop(fresh);

        let t0 = Instant::now();
        let nav = NavGraph::build(grid, &NavOptions::default()).expect("nav build");
        let nav_build = t0.elapsed();
        grid.prepare_jump_table();

        let t0 = Instant::now();
        let mut gp = PathingGrid::new(w, h, false);
        for y in 0..h {
            for x in 0..w {
                if !grid.is_walkable_xy(x as i64, y as i64) {
                    gp.set(x as i32, y as i32, true);
                }
            }
        }
        gp.generate_components();
        let gp_build = t0.elapsed();

        let config = PathCacheConfig::with_chunk_size(HPA_CHUNK);
        let t0 = Instant::now();
        let hpa = PathCache::new((w, h), hpa_cost(grid), MooreNeighborhood::new(w, h), config);
        let hpa_build = t0.elapsed();

        let walkable: Vec<bool> = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| grid.is_walkable_xy(x as i64, y as i64))
            .collect();
        let nocut = NoCornerCut {
            width: w,
            height: h,
            walkable: Arc::new(walkable),
        };
        let t0 = Instant::now();
        let hpa_nocut = PathCache::new((w, h), hpa_cost(grid), nocut, config);
        let hpa_nocut_build = t0.elapsed();

        Prepared {
            workspace: SearchWorkspace::for_grid(grid),
            nav,
            nav_ws: NavWorkspace::new(),
            nav_build,
            jump_table_build,
            gp,
            gp_build,
            hpa,
            hpa_build,
            hpa_nocut,
            hpa_nocut_build,
        }
    }

    /// One of throng's optimal searches (A*, JPS, JPS+) on the shared workspace.
    fn throng_search(
        &mut self,
        planner: Planner,
        grid: &Grid,
        start: CellId,
        goal: CellId,
    ) -> Result<SearchOutcome, QueryError> {
        let options = SearchOptions::default();
        match planner {
            Planner::ThrongAstar => self.workspace.find_path_with(grid, start, goal, &options),
            Planner::ThrongJps => self.workspace.find_path_jps(grid, start, goal, &options),
            Planner::ThrongJpsPlus => self
                .workspace
                .find_path_jps_plus(grid, start, goal, &options),
            _ => unreachable!("{} is not one of throng's optimal searches", planner.name()),
        }
    }

    /// Answers one query and returns the path's cell count (0 when none), for timing.
    fn timed(&mut self, planner: Planner, grid: &Grid, start: CellId, goal: CellId) -> usize {
        let (sx, sy) = grid.coords(start);
        let (gx, gy) = grid.coords(goal);
        match planner {
            Planner::ThrongAstar | Planner::ThrongJps | Planner::ThrongJpsPlus => {
                let outcome = self.throng_search(planner, grid, start, goal);
                black_box(outcome.ok());
                self.workspace.path().len()
            }
            Planner::ThrongNav => {
                let outcome = self.nav.find_path(grid, &mut self.nav_ws, start, goal);
                black_box(outcome.ok());
                self.nav_ws.path().len()
            }
            Planner::Pathfinding => peer_astar(grid, start, goal).map_or(0, |(p, c)| {
                black_box(c);
                black_box(p).len()
            }),
            Planner::GridPathfinding => self
                .gp
                .get_path_single_goal(
                    Point::new(sx as i32, sy as i32),
                    Point::new(gx as i32, gy as i32),
                    false,
                )
                .map_or(0, |p| black_box(p).len()),
            Planner::Hpa => self
                .hpa
                .find_path(
                    (sx as usize, sy as usize),
                    (gx as usize, gy as usize),
                    hpa_cost(grid),
                )
                .map_or(0, |p| black_box(p.resolve(hpa_cost(grid))).len()),
            Planner::HpaNoCut => self
                .hpa_nocut
                .find_path(
                    (sx as usize, sy as usize),
                    (gx as usize, gy as usize),
                    hpa_cost(grid),
                )
                .map_or(0, |p| black_box(p.resolve(hpa_cost(grid))).len()),
        }
    }

    /// Answers one query and returns the path as cells, start to goal (consecutive repeats
    /// removed), or `None` when the planner found none.
    fn answer(
        &mut self,
        planner: Planner,
        grid: &Grid,
        start: CellId,
        goal: CellId,
    ) -> Option<Vec<CellId>> {
        let (sx, sy) = grid.coords(start);
        let (gx, gy) = grid.coords(goal);
        let cell = |x: i64, y: i64| -> CellId {
            // Out-of-grid points become an impossible id, which path_cost rejects.
            if x < 0 || y < 0 || x >= i64::from(grid.width()) || y >= i64::from(grid.height()) {
                CellId::MAX
            } else {
                grid.cell(x as u32, y as u32).expect("inside the grid")
            }
        };
        let mut path: Vec<CellId> = match planner {
            Planner::ThrongAstar | Planner::ThrongJps | Planner::ThrongJpsPlus => {
                let outcome = self.throng_search(planner, grid, start, goal).ok()?;
                outcome.is_found().then(|| self.workspace.path().to_vec())?
            }
            Planner::ThrongNav => {
                let outcome = self
                    .nav
                    .find_path(grid, &mut self.nav_ws, start, goal)
                    .ok()?;
                outcome.is_found().then(|| self.nav_ws.path().to_vec())?
            }
            Planner::Pathfinding => {
                let (p, c) = peer_astar(grid, start, goal)?;
                let cells: Vec<CellId> = p.iter().map(|&(x, y)| cell(x.into(), y.into())).collect();
                // The fixed-point cost must agree with the cells it returned.
                let judged = grid.path_cost(&cells).ok()?;
                assert!(
                    within_tolerance(c as f64 / STRAIGHT as f64, judged, PEER_TOLERANCE),
                    "pathfinding's reported cost disagrees with its path"
                );
                cells
            }
            Planner::GridPathfinding => self
                .gp
                .get_path_single_goal(
                    Point::new(sx as i32, sy as i32),
                    Point::new(gx as i32, gy as i32),
                    false,
                )?
                .iter()
                .map(|p| cell(p.x.into(), p.y.into()))
                .collect(),
            Planner::Hpa | Planner::HpaNoCut => {
                let found = if planner == Planner::Hpa {
                    self.hpa
                        .find_path(
                            (sx as usize, sy as usize),
                            (gx as usize, gy as usize),
                            hpa_cost(grid),
                        )?
                        .resolve(hpa_cost(grid))
                } else {
                    self.hpa_nocut
                        .find_path(
                            (sx as usize, sy as usize),
                            (gx as usize, gy as usize),
                            hpa_cost(grid),
                        )?
                        .resolve(hpa_cost(grid))
                };
                // The resolved path leaves out the start.
                std::iter::once(start)
                    .chain(found.iter().map(|&(x, y)| cell(x as i64, y as i64)))
                    .collect()
            }
        };
        path.dedup();
        Some(path)
    }
}

/// How each planner's answers compare with the scenario file's optima.
#[derive(Debug, Default, Clone)]
struct Verdicts {
    optimal: usize,
    longer: usize,
    illegal: usize,
    missing: usize,
    /// Sum and maximum of cost / optimum over legal paths.
    ratio_sum: f64,
    ratio_max: f64,
    /// Illegal paths by the first rule they break ([`throng::grid::PathError`] variant).
    reasons: BTreeMap<String, usize>,
    /// Over every returned path made of single steps: sum, count and minimum of its length
    /// with the corner rule ignored (straight 1, diagonal sqrt 2) ÷ optimum.
    loose_sum: f64,
    loose_count: usize,
    loose_min: f64,
}

impl Verdicts {
    fn legal(&self) -> usize {
        self.optimal + self.longer
    }

    fn mean_ratio(&self) -> f64 {
        if self.legal() == 0 {
            f64::NAN
        } else {
            self.ratio_sum / self.legal() as f64
        }
    }
}

/// Length of a path of single 8-connected steps with the corner rule ignored (straight 1,
/// diagonal sqrt 2); `None` when a step is not between neighbouring cells.
fn loose_length(grid: &Grid, path: &[CellId]) -> Option<f64> {
    let mut len = 0.0;
    for pair in path.windows(2) {
        if !grid.contains(pair[0]) || !grid.contains(pair[1]) {
            return None;
        }
        let (ax, ay) = grid.coords(pair[0]);
        let (bx, by) = grid.coords(pair[1]);
        len += match (ax.abs_diff(bx), ay.abs_diff(by)) {
            (0, 1) | (1, 0) => 1.0,
            (1, 1) => std::f64::consts::SQRT_2,
            _ => return None,
        };
    }
    Some(len)
}

/// Answers every query once with `planner`, judges each path, and panics where throng's own
/// planners or `pathfinding` (same rules) are wrong.
fn verify(case: &MapCase, prepared: &mut Prepared, planner: Planner) -> Verdicts {
    let grid = &case.grid;
    let mut v = Verdicts::default();
    for (i, &(start, goal)) in case.queries.iter().enumerate() {
        let optimal = case.optimal[i];
        let what = || {
            format!(
                "{} on {} (scenario line {}, {:?} -> {:?}, optimal {optimal:.8})",
                planner.name(),
                case.name,
                case.lines[i],
                grid.coords(start),
                grid.coords(goal)
            )
        };
        let must_be_optimal = matches!(
            planner,
            Planner::ThrongAstar
                | Planner::ThrongJps
                | Planner::ThrongJpsPlus
                | Planner::Pathfinding
        );
        let must_be_legal = must_be_optimal || planner == Planner::ThrongNav;
        let Some(path) = prepared.answer(planner, grid, start, goal) else {
            assert!(!must_be_legal, "no path from {}", what());
            v.missing += 1;
            continue;
        };
        let ends_ok = path.first() == Some(&start) && path.last() == Some(&goal);
        if let Some(len) = loose_length(grid, &path).filter(|_| ends_ok && optimal > 0.0) {
            let ratio = len / optimal;
            v.loose_sum += ratio;
            v.loose_min = if v.loose_count == 0 {
                ratio
            } else {
                v.loose_min.min(ratio)
            };
            v.loose_count += 1;
        }
        match grid.path_cost(&path) {
            Ok(cost) if ends_ok => {
                let ratio = if optimal > 0.0 { cost / optimal } else { 1.0 };
                v.ratio_sum += ratio;
                v.ratio_max = v.ratio_max.max(ratio);
                if within_tolerance(cost, optimal, SCEN_TOLERANCE) {
                    v.optimal += 1;
                } else {
                    assert!(
                        !must_be_optimal,
                        "cost {cost:.8} is not optimal for {}",
                        what()
                    );
                    v.longer += 1;
                }
            }
            result => {
                assert!(
                    !must_be_legal,
                    "illegal path ({result:?}, endpoints ok: {ends_ok}) from {}",
                    what()
                );
                v.illegal += 1;
                let reason = match result {
                    Ok(_) => "WrongEndpoints".to_string(),
                    Err(e) => format!("{e:?}")
                        .split([' ', '{', '('])
                        .next()
                        .unwrap_or_default()
                        .to_string(),
                };
                *v.reasons.entry(reason).or_default() += 1;
            }
        }
    }
    v
}

/// Mean microseconds per query of each planner over `rounds` alternating rounds.
fn time_case(case: &MapCase, prepared: &mut Prepared, rounds: usize) -> Vec<f64> {
    let mut total = vec![Duration::ZERO; Planner::ALL.len()];
    for _ in 0..rounds {
        for (k, &planner) in Planner::ALL.iter().enumerate() {
            let t0 = Instant::now();
            let mut cells = 0;
            for &(start, goal) in &case.queries {
                cells += prepared.timed(planner, black_box(&case.grid), start, goal);
            }
            total[k] += t0.elapsed();
            black_box(cells);
        }
    }
    total
        .iter()
        .map(|d| d.as_secs_f64() * 1e6 / (rounds * case.queries.len()) as f64)
        .collect()
}

/// Small deterministic generator (SplitMix64) for the batch queries.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// [`BATCH_QUERIES`] seeded queries with both ends in the largest component of `grid`.
fn batch_queries(grid: &Grid) -> Vec<(CellId, CellId)> {
    let largest = grid
        .components()
        .largest()
        .expect("the map has walkable cells");
    let cells: Vec<CellId> = (0..grid.len() as CellId)
        .filter(|&c| grid.is_walkable(c) && grid.components().of(c) == Some(largest))
        .collect();
    let mut rng = SplitMix(BATCH_SEED);
    let mut pick = || cells[(rng.next() % cells.len() as u64) as usize];
    (0..BATCH_QUERIES).map(|_| (pick(), pick())).collect()
}

/// Answers every batch query with throng jps on `pool`, one workspace per pool thread (kept in
/// `workspaces` across runs); returns the elapsed time and the sum of the costs (to check
/// every pool computed the same answers).
fn run_batch(
    pool: &rayon::ThreadPool,
    workspaces: &ThreadLocal<RefCell<SearchWorkspace>>,
    grid: &Grid,
    queries: &[(CellId, CellId)],
) -> (Duration, f64) {
    pool.install(|| {
        let t0 = Instant::now();
        let sum: f64 = queries
            .par_iter()
            .map(|&(start, goal)| {
                let mut ws = workspaces
                    .get_or(|| RefCell::new(SearchWorkspace::for_grid(grid)))
                    .borrow_mut();
                ws.find_path_jps(grid, start, goal, &SearchOptions::default())
                    .expect("valid query")
                    .cost()
                    .expect("same component")
            })
            .sum();
        (t0.elapsed(), sum)
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    if has("--list") {
        println!("peers: bench");
        return;
    }
    // `cargo bench` passes --bench; `cargo test --bench peers` does not: correctness only.
    let timing = has("--bench");
    let quick = has("--quick");
    let rounds = if quick { QUICK_ROUNDS } else { ROUNDS };

    let cases: Vec<MapCase> = MAPS.iter().map(|&name| load_case(name)).collect();
    let mut results = Vec::new();
    let mut builds = Vec::new();
    for case in &cases {
        eprintln!("{}: preparing", case.name);
        let mut prepared = Prepared::new(&case.grid);
        builds.push((
            case.name,
            prepared.nav_build,
            prepared.jump_table_build,
            prepared.gp_build,
            prepared.hpa_build,
            prepared.hpa_nocut_build,
        ));
        let verdicts: Vec<Verdicts> = Planner::ALL
            .iter()
            .map(|&p| verify(case, &mut prepared, p))
            .collect();
        eprintln!(
            "{}: verified {} of {} scenario queries with every planner",
            case.name,
            case.queries.len(),
            case.total_in_file
        );
        let times = if timing {
            eprintln!("{}: timing {rounds} round(s)", case.name);
            time_case(case, &mut prepared, rounds)
        } else {
            Vec::new()
        };
        results.push((case, verdicts, times));
    }

    if !timing {
        for (case, verdicts, _) in &results {
            for (planner, v) in Planner::ALL.iter().zip(verdicts) {
                eprintln!(
                    "{:<16} {:<32} optimal {:>4} longer {:>4} illegal {:>4} missing {:>4}",
                    case.name,
                    planner.name(),
                    v.optimal,
                    v.longer,
                    v.illegal,
                    v.missing
                );
            }
        }
        eprintln!("correctness only (run `cargo bench --bench peers` for the tables)");
        return;
    }

    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    println!();
    println!(
        "{threads} threads available; load average at the end of the per-query timing: {}",
        std::fs::read_to_string("/proc/loadavg")
            .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|_| "unknown".to_string())
    );
    println!();
    println!(
        "## Per query: mean µs over {rounds} alternating round(s), same query subset for every \
         planner"
    );
    println!();
    println!(
        "Ratio = pathfinding astar µs / planner µs (above 1: faster than `pathfinding`). \
         Optimal/longer/illegal/missing: each returned path judged by throng's rules \
         (8-connected, no corner cutting, diagonal sqrt 2) against the scenario optimum; \
         len/opt: mean and max cost ÷ optimum over legal paths."
    );
    println!();
    println!(
        "| map | planner | rules vs throng | µs/query | ratio | optimal | longer | illegal | \
         missing | len/opt mean / max |"
    );
    println!("|---|---|---|---:|---:|---:|---:|---:|---:|---|");
    let peer_index = Planner::ALL
        .iter()
        .position(|&p| p == Planner::Pathfinding)
        .expect("pathfinding is compared");
    for (case, verdicts, times) in &results {
        for (k, (planner, v)) in Planner::ALL.iter().zip(verdicts).enumerate() {
            println!(
                "| `{}` ({} q) | {} | {} | {:.1} | {:.2}x | {} | {} | {} | {} | {:.4} / {:.4} |",
                case.name,
                case.queries.len(),
                planner.name(),
                planner.rules(),
                times[k],
                times[peer_index] / times[k],
                v.optimal,
                v.longer,
                v.illegal,
                v.missing,
                v.mean_ratio(),
                v.ratio_max
            );
        }
    }

    println!();
    println!(
        "## Rule differences: illegal paths by the first throng rule broken; every returned path's \
         length with the corner rule ignored (straight 1, diagonal sqrt 2) ÷ optimum"
    );
    println!();
    println!("| map | planner | illegal: rule broken | len/opt, corners ignored: mean / min |");
    println!("|---|---|---|---|");
    for (case, verdicts, _) in &results {
        for (planner, v) in Planner::ALL.iter().zip(verdicts) {
            if v.illegal == 0 {
                continue;
            }
            let reasons: Vec<String> = v.reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
            println!(
                "| `{}` | {} | {} | {:.4} / {:.4} |",
                case.name,
                planner.name(),
                reasons.join(", "),
                v.loose_sum / v.loose_count.max(1) as f64,
                v.loose_min
            );
        }
    }

    println!();
    println!(
        "## Preprocessing (ms, once per map, not in the per-query times; throng nav and \
         hierarchical_pathfinding build on a rayon pool of {threads} threads)"
    );
    println!();
    println!(
        "| map | throng nav (cluster {}) | throng jps+ table | grid_pathfinding | \
         hierarchical_pathfinding (chunk {HPA_CHUNK}) | hierarchical_pathfinding nocut |",
        NavOptions::DEFAULT_CLUSTER_SIZE
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, nav, table, gp, hpa, nocut) in &builds {
        println!(
            "| `{name}` | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
            ms(*nav),
            ms(*table),
            ms(*gp),
            ms(*hpa),
            ms(*nocut)
        );
    }

    let grid = &cases
        .iter()
        .find(|c| c.name == BATCH_MAP)
        .expect("batch map loaded")
        .grid;
    let queries = batch_queries(grid);
    let mut reference = None;
    let mut base = None;
    println!();
    println!(
        "## Batch: {BATCH_QUERIES} random queries (seed {BATCH_SEED:#x}, largest component of \
         `{BATCH_MAP}`), throng jps, one workspace per thread, best of {BATCH_ROUNDS}"
    );
    println!();
    println!("| threads | total ms | queries/s | speed-up |");
    println!("|---:|---:|---:|---:|");
    for n in 1..=threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .expect("rayon pool");
        let workspaces = ThreadLocal::new();
        // One warm-up run sizes each thread's workspace, then the timed runs.
        let mut best = Duration::MAX;
        for round in 0..=BATCH_ROUNDS {
            let (elapsed, sum) = run_batch(&pool, &workspaces, grid, &queries);
            if round > 0 {
                best = best.min(elapsed);
            }
            let expected = *reference.get_or_insert(sum);
            assert!(
                within_tolerance(sum, expected, 1e-9),
                "batch on {n} threads: cost sum {sum} differs from {expected}"
            );
        }
        let base = *base.get_or_insert(best);
        println!(
            "| {n} | {:.1} | {:.0} | {:.2}x |",
            ms(best),
            BATCH_QUERIES as f64 / best.as_secs_f64(),
            base.as_secs_f64() / best.as_secs_f64()
        );
    }
}
