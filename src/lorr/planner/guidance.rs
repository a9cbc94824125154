//! Congestion guidance for the distance tables of the `pibt` and `window` planners: every
//! [`GuidanceConfig::every`] steps, a step into a crowded part of the map (the robots in the
//! square around a cell over its free cells) is made dearer in the tables computed from then
//! on, so that robots bound for new errands route around crowds instead of joining them.
//!
//! Why: in large teams on open maps (3,000 robots on the 256 x 256 city) robots whose
//! shortest ways cross at a narrow pass jam it solid, hundreds at a time, while the passes
//! beside it stay empty; each robot's table is static, so more keep coming. The tables held
//! keep the costs they were computed with; the tables of new errands (most of them within a
//! trip's length) see the crowds of their time. After the traffic-flow guidance of the 2024
//! start kit's default planner and WPPL's guidance (no code of either used); figures in
//! `docs/performance.md`.

use crate::grid::{CellId, Grid};
use crate::lorr::distance::DistanceTables;

/// The congestion guidance's settings ([`GuidanceChoice::On`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GuidanceConfig {
    /// Steps between two updates of the step costs.
    pub every: u32,
    /// Half the side of the square a cell's crowd is counted in (2: 5 x 5 cells).
    pub radius: u32,
    /// The share of the square's free cells held by robots from which a step costs more.
    pub floor: f32,
    /// What a step into a full square costs on top of its lane cost (in between: in
    /// proportion above `floor`).
    pub extra: u8,
    /// Tables of the robots' errands computed with older costs that the `pibt` planner
    /// computes again a step without a time limit (with one: as many as the step's spare time
    /// allows, beside its PIBT pass).
    pub refresh: u32,
}

impl Default for GuidanceConfig {
    fn default() -> Self {
        GuidanceConfig {
            every: 10,
            radius: 2,
            floor: 0.3,
            extra: 6,
            refresh: 20,
        }
    }
}

/// Whether a run's distance tables are guided around crowds
/// ([`crate::lorr::LorrConfig::guidance`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum GuidanceChoice {
    /// Guided with the default settings where [`GuidanceConfig::automatic`] says so for the
    /// run's team and map, chosen when the run starts (the report's `guidance` says which).
    /// The default.
    #[default]
    Auto,
    /// Not guided.
    Off,
    /// Guided with these settings.
    On(GuidanceConfig),
}

impl From<Option<GuidanceConfig>> for GuidanceChoice {
    /// [`GuidanceChoice::On`] with the settings given, [`GuidanceChoice::Off`] without.
    fn from(config: Option<GuidanceConfig>) -> Self {
        config.map_or(GuidanceChoice::Off, GuidanceChoice::On)
    }
}

/// The fewest robots for which [`GuidanceConfig::automatic`] guides the tables: 3,000 robots
/// on the 256 x 256 city finish 1.4x the tasks with it (`docs/performance.md`); smaller
/// teams play the `window` planner, whose search settles crowds within its window.
pub const GUIDANCE_MIN_AGENTS: usize = 2_000;

/// The share of a square's free cells held by robots from which a step into it costs more
/// ([`GuidanceConfig::floor`]) on a map whose tasks all visit a few busy errand cells
/// ([`GuidanceConfig::busy_floor`]). In one-cell aisles a square is a third full with the
/// aisles' ordinary traffic; counted from half full, the queues that build towards the busy
/// cells are routed around and the traffic is not (`docs/performance.md`).
pub const GUIDANCE_BUSY_FLOOR: f32 = 0.5;

/// The densest floor (robots over free cells) on which [`GuidanceConfig::automatic`] guides
/// the tables: on a floor fuller than this everything is a crowd, and its costs only stretch
/// every table alike.
pub const GUIDANCE_MAX_DENSITY: f64 = 0.4;

/// The largest share of a map's free cells in one-cell corridors ([`corridor_share`]) on
/// which [`GuidanceConfig::automatic`] guides the tables with the default settings. They pay
/// on open ground, where a crowd has ways around it (the city: 0.6% of its cells in
/// corridors), and cost tasks on warehouse floors of one-cell aisles (63%: 92,366 tasks
/// against 93,937 with 5,000 robots on `warehouse_large`), where squares a third full are the
/// aisles' ordinary traffic; there [`GuidanceConfig::busy_floor`] applies.
pub const GUIDANCE_MAX_CORRIDORS: f64 = 0.1;

/// The share of `grid`'s free cells in a one-cell corridor (blocked on both sides, north and
/// south or east and west); 0 without free cells.
///
/// ```
/// use throng::grid::Grid;
/// use throng::lorr::corridor_share;
///
/// // A room of 3 x 3 cells and a corridor of three leaving it: 3 of 12 in the corridor.
/// let grid = Grid::from_ascii("...@@@\n......\n...@@@").unwrap();
/// assert_eq!(corridor_share(&grid), 0.25);
/// ```
pub fn corridor_share(grid: &Grid) -> f64 {
    let (w, h) = (i64::from(grid.width()), i64::from(grid.height()));
    let free = |x: i64, y: i64| {
        (0..w).contains(&x) && (0..h).contains(&y) && grid.is_walkable((y * w + x) as CellId)
    };
    let (mut cells, mut narrow) = (0u64, 0u64);
    for y in 0..h {
        for x in 0..w {
            if free(x, y) {
                cells += 1;
                let across = !free(x, y - 1) && !free(x, y + 1);
                let along = !free(x - 1, y) && !free(x + 1, y);
                narrow += u64::from(across || along);
            }
        }
    }
    if cells == 0 {
        0.0
    } else {
        narrow as f64 / cells as f64
    }
}

/// Trips sampled by [`ways_around`].
const WAYS_AROUND_TRIPS: u64 = 64;

/// Half the side of the square [`ways_around`] blocks at a trip's middle (8: 17 x 17 cells, a
/// crowd wider than the corridors of a game map and narrower than a city's blocks).
pub const WAYS_AROUND_RADIUS: u32 = 8;

/// The smallest share of trips with a way around ([`ways_around`]) of a map of open ground:
/// there [`GuidanceConfig::automatic`] guides the tables, elsewhere (rooms joined by
/// corridors) it does not and the `pibt` planner's lanes cost more
/// ([`crate::lorr::PibtConfig::lane_cost_for`]). The test round's maps: the 256 x 256 city
/// 0.97, the random and warehouse maps 1, brc202d 0.34, where guidance cost tasks at every
/// team size (`docs/performance.md`).
pub const MIN_WAYS_AROUND: f64 = 0.75;

/// The share of trips across `grid` that have a way around a crowd at their middle: for
/// 64 trips between free cells (drawn by a fixed hash, at least four times
/// the blocked square's side long), whether a way remains, at most twice as long, once the
/// square of [`WAYS_AROUND_RADIUS`] around a shortest way's middle cell is blocked. About 1 on
/// open ground and street grids, low on a map of rooms joined by single corridors, where a
/// crowd in a corridor has no way around it. 1 when no trip can be drawn. Some 50 ms on a
/// 481 x 530 map.
///
/// ```
/// use throng::grid::Grid;
/// use throng::lorr::ways_around;
///
/// let open = Grid::from_ascii(&vec![".".repeat(120); 120].join("\n")).unwrap();
/// assert_eq!(ways_around(&open), 1.0);
/// // Two open rooms joined by one corridor three cells wide: trips that cross it have no way
/// // around.
/// let mut rows = vec![".".repeat(60) + &"@".repeat(40) + &".".repeat(60); 60];
/// for row in &mut rows[28..31] {
///     *row = ".".repeat(160);
/// }
/// assert!(ways_around(&Grid::from_ascii(&rows.join("\n")).unwrap()) < 0.75);
/// ```
pub fn ways_around(grid: &Grid) -> f64 {
    let radius = WAYS_AROUND_RADIUS;
    use crate::sim::Heading;
    use std::collections::VecDeque;
    let free: Vec<CellId> = (0..grid.len() as CellId)
        .filter(|&c| grid.is_walkable(c))
        .collect();
    if free.is_empty() {
        return 1.0;
    }
    let mut distance = vec![u32::MAX; grid.len()];
    let mut queue = VecDeque::new();
    let mut blocked = vec![false; grid.len()];
    let mut bfs = |from: CellId, blocked: &[bool], distance: &mut [u32]| {
        distance.fill(u32::MAX);
        distance[from as usize] = 0;
        queue.clear();
        queue.push_back(from);
        while let Some(c) = queue.pop_front() {
            let d = distance[c as usize];
            for n in Heading::ALL.into_iter().filter_map(|h| h.ahead(grid, c)) {
                if distance[n as usize] == u32::MAX && !blocked[n as usize] {
                    distance[n as usize] = d + 1;
                    queue.push_back(n);
                }
            }
        }
    };
    let shortest = 4 * (2 * radius + 1);
    let (mut trips, mut around) = (0u32, 0u32);
    for i in 0..WAYS_AROUND_TRIPS {
        let hash = crate::hash::splitmix64_first(i ^ 0x7761_7973);
        let from = free[(hash % free.len() as u64) as usize];
        bfs(from, &blocked, &mut distance);
        // The trip's far end: the first cell at least `shortest` steps away in free-cell
        // order from a second hashed start.
        let start = (crate::hash::splitmix64_first(hash) % free.len() as u64) as usize;
        let Some(to) = (0..free.len())
            .map(|k| free[(start + k) % free.len()])
            .find(|&c| distance[c as usize] != u32::MAX && distance[c as usize] >= shortest)
        else {
            continue;
        };
        let length = distance[to as usize];
        // Walk back to the middle of a shortest way.
        let mut middle = to;
        while distance[middle as usize] > length / 2 {
            middle = Heading::ALL
                .into_iter()
                .filter_map(|h| h.ahead(grid, middle))
                .find(|&n| distance[n as usize] == distance[middle as usize] - 1)
                .expect("a shortest way leads back");
        }
        // The square around it, clipped to the map, blocked for the second search.
        let (mx, my) = grid.coords(middle);
        let (x0, y0) = (mx.saturating_sub(radius), my.saturating_sub(radius));
        let x1 = (mx + radius).min(grid.width() - 1);
        let y1 = (my + radius).min(grid.height() - 1);
        let mark = |blocked: &mut [bool], value: bool| {
            for y in y0..=y1 {
                let row = (y * grid.width()) as usize;
                blocked[row + x0 as usize..=row + x1 as usize].fill(value);
            }
        };
        mark(&mut blocked, true);
        bfs(from, &blocked, &mut distance);
        trips += 1;
        around += u32::from(distance[to as usize] <= 2 * length);
        mark(&mut blocked, false);
    }
    if trips == 0 {
        1.0
    } else {
        f64::from(around) / f64::from(trips)
    }
}

impl GuidanceConfig {
    /// The guidance for a team of `agents` robots on `grid` when none is named: on a map of
    /// open ground (at most [`GUIDANCE_MAX_CORRIDORS`] of its free cells in one-cell
    /// corridors, and ways around a crowd on at least [`MIN_WAYS_AROUND`] of its
    /// trips, [`ways_around`]), the default one for at least [`GUIDANCE_MIN_AGENTS`] robots on a floor at
    /// most [`GUIDANCE_MAX_DENSITY`] full; on a map whose tasks all visit a few busy errand
    /// cells (`busy_errands`: the warehouses' stations), [`GuidanceConfig::busy_floor`] for at
    /// least [`GUIDANCE_MIN_AGENTS`] robots, however full; else none.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::lorr::GuidanceConfig;
    ///
    /// let open = Grid::from_ascii(&vec![".".repeat(100); 100].join("\n")).unwrap();
    /// assert_eq!(GuidanceConfig::automatic(&open, 3_000, false), Some(GuidanceConfig::default()));
    /// assert_eq!(GuidanceConfig::automatic(&open, 1_000, false), None);
    /// assert_eq!(GuidanceConfig::automatic(&open, 5_000, false), None);
    /// assert_eq!(GuidanceConfig::automatic(&open, 5_000, true), Some(GuidanceConfig::busy_floor()));
    /// ```
    pub fn automatic(grid: &Grid, agents: usize, busy_errands: bool) -> Option<GuidanceConfig> {
        GuidanceConfig::automatic_with(grid, agents, busy_errands, || ways_around(grid))
    }

    /// [`GuidanceConfig::automatic`], with the map's [`ways_around`] from `ways_around` (asked
    /// only when needed).
    pub(crate) fn automatic_with(
        grid: &Grid,
        agents: usize,
        busy_errands: bool,
        ways_around: impl FnOnce() -> f64,
    ) -> Option<GuidanceConfig> {
        if agents < GUIDANCE_MIN_AGENTS {
            return None;
        }
        if busy_errands {
            return Some(GuidanceConfig::for_map(true));
        }
        let sparse = agents as f64 <= GUIDANCE_MAX_DENSITY * grid.walkable_count() as f64;
        (sparse
            && corridor_share(grid) <= GUIDANCE_MAX_CORRIDORS
            && ways_around() >= MIN_WAYS_AROUND)
            .then(GuidanceConfig::default)
    }

    /// The guidance of a map whose tasks all visit a few busy errand cells (warehouse floors):
    /// the default one, counting a square as crowded from [`GUIDANCE_BUSY_FLOOR`] of its free
    /// cells held instead of 30%.
    pub fn busy_floor() -> GuidanceConfig {
        GuidanceConfig {
            floor: GUIDANCE_BUSY_FLOOR,
            ..GuidanceConfig::default()
        }
    }

    /// The guidance `--guidance on` plays on a map: [`GuidanceConfig::busy_floor`] where the
    /// tasks all visit a few busy errand cells, else the default one.
    pub fn for_map(busy_errands: bool) -> GuidanceConfig {
        if busy_errands {
            GuidanceConfig::busy_floor()
        } else {
            GuidanceConfig::default()
        }
    }
}

/// The guidance's state: the base step costs (lanes) and scratch, all allocated once.
#[derive(Debug)]
pub(crate) struct Guidance {
    config: GuidanceConfig,
    width: usize,
    height: usize,
    /// Per cell: the cost of entering it each way without crowds (lanes, or 1).
    base: Vec<[u8; 4]>,
    /// The costs handed to the tables.
    costs: Vec<[u8; 4]>,
    /// Summed-area table of the free cells, `(width + 1) * (height + 1)`.
    free_sums: Vec<u32>,
    /// Summed-area table of the robots, as `free_sums`.
    robot_sums: Vec<u32>,
    /// Per cell: whether a robot stands there (scratch).
    occupied: Vec<bool>,
}

impl Guidance {
    /// The guidance of `grid` under `config`, the base costs `base` (per cell; none: 1).
    pub(crate) fn new(grid: &Grid, base: Option<&[[u8; 4]]>, config: GuidanceConfig) -> Guidance {
        let (width, height) = (grid.width() as usize, grid.height() as usize);
        let base = base.map_or_else(|| vec![[1; 4]; grid.len()], <[_]>::to_vec);
        let mut free = vec![false; grid.len()];
        for (c, f) in free.iter_mut().enumerate() {
            *f = grid.is_walkable(c as CellId);
        }
        let mut free_sums = vec![0; (width + 1) * (height + 1)];
        sums(&free, width, height, &mut free_sums);
        Guidance {
            config,
            width,
            height,
            costs: base.clone(),
            base,
            free_sums,
            robot_sums: vec![0; (width + 1) * (height + 1)],
            occupied: vec![false; grid.len()],
        }
    }

    /// Tables computed again a step without a time limit ([`GuidanceConfig::refresh`]).
    pub(crate) fn refresh(&self) -> usize {
        self.config.refresh as usize
    }

    /// At every [`GuidanceConfig::every`]th step, the step costs of `tables` set from the
    /// robots at `positions`.
    pub(crate) fn update(&mut self, step: u64, positions: &[CellId], tables: &mut DistanceTables) {
        if !step.is_multiple_of(u64::from(self.config.every.max(1))) {
            return;
        }
        self.occupied.fill(false);
        for &p in positions {
            self.occupied[p as usize] = true;
        }
        sums(
            &self.occupied,
            self.width,
            self.height,
            &mut self.robot_sums,
        );
        let (w, r) = (self.width, self.config.radius as usize);
        let floor = self.config.floor.clamp(0.0, 0.99);
        let extra = f32::from(self.config.extra);
        for y in 0..self.height {
            let (y0, y1) = (y.saturating_sub(r), (y + r + 1).min(self.height));
            for x in 0..w {
                let (x0, x1) = (x.saturating_sub(r), (x + r + 1).min(w));
                let area = |s: &[u32]| {
                    s[y1 * (w + 1) + x1] + s[y0 * (w + 1) + x0]
                        - s[y0 * (w + 1) + x1]
                        - s[y1 * (w + 1) + x0]
                };
                let free = area(&self.free_sums).max(1);
                let share = area(&self.robot_sums) as f32 / free as f32;
                let add = (extra * (share - floor) / (1.0 - floor)).round().max(0.0) as u8;
                let c = y * w + x;
                self.costs[c] = self.base[c].map(|b| b.saturating_add(add));
            }
        }
        tables.set_costs(&self.costs);
    }
}

/// The summed-area table of `cells` (`width` x `height`, row by row) into `out`
/// (`(width + 1) * (height + 1)`: `out[y * (width + 1) + x]` counts the cells above and left).
fn sums(cells: &[bool], width: usize, height: usize, out: &mut [u32]) {
    out[..=width].fill(0);
    for y in 0..height {
        let mut row = 0;
        out[(y + 1) * (width + 1)] = 0;
        for x in 0..width {
            row += u32::from(cells[y * width + x]);
            out[(y + 1) * (width + 1) + x + 1] = out[y * (width + 1) + x + 1] + row;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(width: usize, height: usize) -> Grid {
        let row = ".".repeat(width);
        Grid::from_ascii(&vec![row.as_str(); height].join("\n")).unwrap()
    }

    #[test]
    fn summed_areas_count_the_cells_above_and_left() {
        let cells = [true, false, true, true, true, false];
        let mut out = vec![0; 4 * 3];
        sums(&cells, 3, 2, &mut out);
        // Row 1: 1, 1, 2; row 2 adds 1, 2, 2.
        assert_eq!(&out[4..8], &[0, 1, 1, 2]);
        assert_eq!(&out[8..12], &[0, 2, 3, 4]);
    }

    #[test]
    fn steps_into_a_crowd_cost_more_and_elsewhere_the_lanes() {
        let grid = open(20, 10);
        let lanes = crate::lorr::lanes::crisscross(&grid, 2);
        let mut guidance = Guidance::new(&grid, Some(&lanes), GuidanceConfig::default());
        let mut tables = DistanceTables::new(&grid, Some(&lanes), 1 << 20);
        // A full 5 x 5 square around (3, 4); nobody near (15, 4).
        let crowd: Vec<CellId> = (2..7)
            .flat_map(|y| (1..6).map(move |x| y * 20 + x))
            .collect();
        guidance.update(0, &crowd, &mut tables);
        let (inside, outside) = (grid.cell(3, 4).unwrap(), grid.cell(15, 4).unwrap());
        let extra = u32::from(GuidanceConfig::default().extra);
        for h in crate::sim::Heading::ALL {
            let lane = u32::from(lanes[inside as usize][h.index()]);
            assert_eq!(tables.enter_cost(inside, h), lane + extra);
            assert_eq!(
                tables.enter_cost(outside, h),
                u32::from(lanes[outside as usize][h.index()])
            );
        }
        // Only every `every`th step updates: the crowd gone at step 1 leaves the costs.
        guidance.update(1, &[], &mut tables);
        assert!(tables.enter_cost(inside, crate::sim::Heading::East) > extra);
        guidance.update(10, &[], &mut tables);
        assert!(tables.enter_cost(inside, crate::sim::Heading::East) <= 2);
    }

    #[test]
    fn the_automatic_choice_is_large_sparse_teams_on_open_ground() {
        let grid = open(100, 100);
        assert!(GuidanceConfig::automatic(&grid, GUIDANCE_MIN_AGENTS, false).is_some());
        assert!(GuidanceConfig::automatic(&grid, GUIDANCE_MIN_AGENTS - 1, false).is_none());
        assert!(GuidanceConfig::automatic(&grid, 4_001, false).is_none());
        // Aisles: every other row blocked, all free cells in corridors.
        let rows: Vec<String> = (0..200)
            .map(|y| {
                if y % 2 == 0 {
                    ".".repeat(100)
                } else {
                    "@".repeat(100)
                }
            })
            .collect();
        let aisles = Grid::from_ascii(&rows.join("\n")).unwrap();
        assert_eq!(corridor_share(&aisles), 1.0);
        assert!(GuidanceConfig::automatic(&aisles, GUIDANCE_MIN_AGENTS, false).is_none());
        // A map of busy errand cells is guided, with the busy floor's settings, at any density.
        assert_eq!(
            GuidanceConfig::automatic(&aisles, 9_000, true),
            Some(GuidanceConfig::busy_floor())
        );
        assert!(GuidanceConfig::automatic(&aisles, GUIDANCE_MIN_AGENTS - 1, true).is_none());
    }
}
