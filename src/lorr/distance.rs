//! Distance tables of the League of Robot Runners planner: per errand cell, one breadth-first
//! search over the map's free cells gives every free cell's distance in moves to it (`u16`,
//! indexed by free cell), shared read-only by the planner of every robot heading there.
//!
//! Under the rotate action model a robot also spends steps turning: [`DistanceTables::actions`]
//! derives the steps from a (cell, heading) cheaply from the cell's distance (the distance
//! plus the quarter turns to face a neighbour one closer), so that one table of `u16` per goal
//! serves the four headings.
//!
//! The searches run over a flat list of each free cell's incoming steps with their costs, in a
//! workspace kept per rayon thread, and write into tables recycled from evicted ones: no
//! allocation per table once warm (`docs/performance.md`: tables per second).
//!
//! Memory is bounded: a table is kept while some robot heads for its goal (a reference
//! count), and unreferenced tables stay in a least-recently-used cache under a byte budget.
//! The tables a step misses are computed on the rayon pool in the order of their goals' cell
//! ids and inserted in that order, so that the same goals give the same tables on any thread
//! count; each thread takes the next goal as it finishes one, and a deadline stops the taking,
//! leaving the rest for later steps.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::grid::{CellId, Grid, NO_CELL};
use crate::sim::Heading;

/// The free-cell number of a blocked cell, and of a missing neighbour.
const NOT_FREE: u32 = u32::MAX;

/// No table: the slot of a goal without an entry.
const NO_TABLE: u32 = u32::MAX;

/// The distance of a cell that cannot reach the goal.
pub const UNREACHABLE: u16 = u16::MAX;

/// The map's free cells, numbered, with their four neighbours (in [`Heading`] order).
#[derive(Debug, Clone)]
pub struct FreeCells {
    /// Per cell of the map: its free-cell number, or [`NOT_FREE`] for a blocked cell.
    index: Vec<u32>,
    /// Per free cell: the free-cell numbers of its neighbours east, south, west and north
    /// ([`NOT_FREE`] where there is none).
    neighbours: Vec<[u32; 4]>,
    /// Per free cell: the cost of entering it moving each way (all 1 without lanes).
    enter: Vec<[u8; 4]>,
    /// The largest entry of `enter`.
    max_cost: u8,
    /// Per free cell `c`: its incoming steps are `steps[first_step[c]..first_step[c + 1]]`.
    first_step: Vec<u32>,
    /// The steps into each free cell, from each free neighbour, with their costs.
    steps: Vec<Step>,
    width: u32,
}

/// A step into a free cell from its neighbour `from`, costing `cost`.
#[derive(Debug, Clone, Copy)]
struct Step {
    from: u32,
    cost: u32,
}

/// The scratch memory of one search, kept per thread.
#[derive(Debug, Default)]
struct Workspace {
    /// The breadth-first queue.
    queue: Vec<u32>,
    /// Dijkstra's ring of buckets by cost.
    buckets: Vec<Vec<u32>>,
}

thread_local! {
    static WORKSPACE: RefCell<Workspace> = RefCell::new(Workspace::default());
}

impl FreeCells {
    /// The free cells of a 4-connected `grid`, every step costing 1.
    pub fn new(grid: &Grid) -> FreeCells {
        FreeCells::with_costs(grid, None)
    }

    /// The free cells of a 4-connected `grid` where entering cell `c` moving the way of
    /// heading `h` costs `costs[c][h.index()]` (at least 1; `None`: every step 1), as
    /// [`super::lanes::crisscross`] gives.
    pub fn with_costs(grid: &Grid, costs: Option<&[[u8; 4]]>) -> FreeCells {
        let mut index = vec![NOT_FREE; grid.len()];
        let mut count = 0u32;
        for (cell, slot) in index.iter_mut().enumerate() {
            if grid.is_walkable(cell as CellId) {
                *slot = count;
                count += 1;
            }
        }
        let mut neighbours = Vec::with_capacity(count as usize);
        for cell in 0..grid.len() as CellId {
            if index[cell as usize] == NOT_FREE {
                continue;
            }
            neighbours.push(Heading::ALL.map(|h| {
                h.ahead(grid, cell)
                    .map_or(NOT_FREE, |next| index[next as usize])
            }));
        }
        let enter: Vec<[u8; 4]> = match costs {
            Some(costs) => (0..grid.len())
                .filter(|&c| index[c] != NOT_FREE)
                .map(|c| costs[c].map(|x| x.max(1)))
                .collect(),
            None => vec![[1; 4]; neighbours.len()],
        };
        let max_cost = enter.iter().flatten().copied().max().unwrap_or(1);
        let mut first_step = Vec::with_capacity(neighbours.len() + 1);
        let mut steps = Vec::with_capacity(neighbours.len() * 4);
        for (at, around) in neighbours.iter().enumerate() {
            first_step.push(steps.len() as u32);
            for h in Heading::ALL {
                let from = around[h.index()];
                if from != NOT_FREE {
                    // A robot on `from` reaches `at` moving the opposite way of `h`.
                    let back = h.clockwise().clockwise();
                    let cost = u32::from(enter[at][back.index()]);
                    steps.push(Step { from, cost });
                }
            }
        }
        first_step.push(steps.len() as u32);
        FreeCells {
            index,
            neighbours,
            enter,
            max_cost,
            first_step,
            steps,
            width: grid.width(),
        }
    }

    /// Sets the cost of entering each cell moving each way, as [`FreeCells::with_costs`] (per
    /// cell of the map, at least 1), in place: no allocation.
    pub fn set_costs(&mut self, costs: &[[u8; 4]]) {
        let mut max_cost = 1;
        let free = self
            .index
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n != NOT_FREE);
        for (cell, &n) in free {
            let e = costs[cell].map(|x| x.max(1));
            max_cost = e.iter().copied().fold(max_cost, u8::max);
            self.enter[n as usize] = e;
        }
        self.max_cost = max_cost;
        for at in 0..self.neighbours.len() {
            let mut k = self.first_step[at] as usize;
            for h in Heading::ALL {
                if self.neighbours[at][h.index()] != NOT_FREE {
                    let back = h.clockwise().clockwise();
                    self.steps[k].cost = u32::from(self.enter[at][back.index()]);
                    k += 1;
                }
            }
        }
    }

    /// How many free cells the map has.
    pub fn len(&self) -> usize {
        self.neighbours.len()
    }

    /// Whether the map has no free cell.
    pub fn is_empty(&self) -> bool {
        self.neighbours.is_empty()
    }

    /// The free-cell number of `cell`, `None` for a blocked cell.
    #[inline]
    pub fn number(&self, cell: CellId) -> Option<u32> {
        let n = *self.index.get(cell as usize)?;
        (n != NOT_FREE).then_some(n)
    }

    /// Every free cell's cost to `goal` (a free cell): its distance in moves without step
    /// costs (a breadth-first search), [`UNREACHABLE`] where it cannot get there (costs past
    /// 65,534 read as unreachable).
    pub fn distances_to(&self, goal: CellId) -> Box<[u16]> {
        let mut dist = vec![UNREACHABLE; self.len()].into_boxed_slice();
        self.fill_distances(goal, &mut dist);
        dist
    }

    /// [`FreeCells::distances_to`] written into `dist` (one entry per free cell), with this
    /// thread's workspace.
    pub fn fill_distances(&self, goal: CellId, dist: &mut [u16]) {
        assert_eq!(dist.len(), self.len(), "one entry per free cell");
        dist.fill(UNREACHABLE);
        let Some(start) = self.number(goal) else {
            return;
        };
        WORKSPACE.with(|w| {
            let work = &mut *w.borrow_mut();
            if self.max_cost > 1 {
                self.costs_from(start, dist, work);
            } else {
                self.moves_from(start, dist, &mut work.queue);
            }
        });
    }

    /// The incoming steps of free cell `at`.
    #[inline]
    fn steps_into(&self, at: usize) -> &[Step] {
        &self.steps[self.first_step[at] as usize..self.first_step[at + 1] as usize]
    }

    /// Breadth-first search from free cell `start` (every step costing 1).
    fn moves_from(&self, start: u32, dist: &mut [u16], queue: &mut Vec<u32>) {
        queue.clear();
        dist[start as usize] = 0;
        queue.push(start);
        let mut head = 0;
        while head < queue.len() {
            let at = queue[head] as usize;
            head += 1;
            let next = dist[at] + 1;
            if next == UNREACHABLE {
                continue;
            }
            for &n in &self.neighbours[at] {
                if n != NOT_FREE && dist[n as usize] == UNREACHABLE {
                    dist[n as usize] = next;
                    queue.push(n);
                }
            }
        }
    }

    /// Dijkstra's search from free cell `start` over the step costs, with a ring of buckets
    /// (the costs are small integers; a bucket is never filled while it is emptied, as every
    /// cost is at least 1 and less than the ring).
    fn costs_from(&self, start: u32, dist: &mut [u16], work: &mut Workspace) {
        let ring = (usize::from(self.max_cost) + 1).next_power_of_two();
        let mask = ring - 1;
        work.buckets.resize_with(ring, Vec::new);
        for b in &mut work.buckets {
            b.clear();
        }
        dist[start as usize] = 0;
        work.buckets[0].push(start);
        let mut pending = 1usize;
        let mut d = 0u32;
        while pending > 0 {
            let slot = d as usize & mask;
            let mut bucket = std::mem::take(&mut work.buckets[slot]);
            pending -= bucket.len();
            for &at in &bucket {
                let at = at as usize;
                if u32::from(dist[at]) != d {
                    continue;
                }
                for s in self.steps_into(at) {
                    let next = d + s.cost;
                    // Past 65,534 the comparison fails against UNREACHABLE too.
                    let old = &mut dist[s.from as usize];
                    if next < u32::from(*old) {
                        *old = next as u16;
                        work.buckets[next as usize & mask].push(s.from);
                        pending += 1;
                    }
                }
            }
            bucket.clear();
            work.buckets[slot] = bucket;
            d += 1;
        }
    }

    /// Computes the tables of `batch`'s goals (on the rayon pool when `parallel`) until
    /// `deadline`, writing over its spare tables (shared out among the threads) before new ones.
    ///
    /// Each thread takes the next goal in order until the deadline, with no wait between
    /// tables: a goal is taken only before the deadline and a goal taken is computed, so the
    /// goals computed are always the first ones.
    fn compute(&self, batch: &mut TableBatch, deadline: Option<Instant>, parallel: bool) {
        let goals = &batch.goals;
        let workers = if parallel {
            rayon::current_num_threads().clamp(1, goals.len().max(1))
        } else {
            1
        };
        // Each worker starts with its share of the spare tables.
        let mut shares: Vec<Vec<Distances>> = (0..workers).map(|_| Vec::new()).collect();
        for (i, table) in batch.spare.drain(..).enumerate() {
            shares[i % workers].push(table);
        }
        let next = AtomicUsize::new(0);
        let work = |mut spare: Vec<Distances>| {
            let mut out: Vec<Computed> = Vec::new();
            while deadline.is_none_or(|d| Instant::now() < d) {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= goals.len() {
                    break;
                }
                let mut table = spare
                    .pop()
                    .unwrap_or_else(|| vec![UNREACHABLE; self.len()].into_boxed_slice());
                self.fill_distances(goals[i], &mut table);
                out.push((i, table));
            }
            (out, spare)
        };
        let results: Vec<(Vec<Computed>, Vec<Distances>)> = if workers > 1 {
            shares.into_par_iter().map(work).collect()
        } else {
            shares.into_iter().map(work).collect()
        };
        batch.computed.clear();
        for (out, spare) in results {
            batch.computed.extend(out);
            batch.spare.extend(spare);
        }
        // In the goals' order, whichever thread computed them.
        batch.computed.sort_unstable_by_key(|&(i, _)| i);
        debug_assert!(batch.computed.iter().enumerate().all(|(k, &(i, _))| k == i));
    }

    /// Manhattan distance between two cells: the fallback of a robot whose table is not
    /// computed yet.
    #[inline]
    pub fn manhattan(&self, a: CellId, b: CellId) -> u32 {
        let (ax, ay) = (a % self.width, a / self.width);
        let (bx, by) = (b % self.width, b / self.width);
        ax.abs_diff(bx) + ay.abs_diff(by)
    }
}

/// One computed table.
#[derive(Debug)]
struct Table {
    goal: CellId,
    distances: Box<[u16]>,
    /// Robots heading for `goal` now.
    refs: u32,
    /// The last step at which it was referenced.
    used_at: u64,
    /// The step costs it was computed with ([`DistanceTables::set_costs`] counts them).
    costs: u32,
}

/// Distance tables by goal cell, reference-counted, with a least-recently-used cache of the
/// unreferenced ones.
#[derive(Debug)]
pub struct DistanceTables {
    free: FreeCells,
    /// Per cell: the slot of its goal's entry in `tables`, or [`NO_TABLE`].
    slot_of: Vec<u32>,
    tables: Vec<Table>,
    /// Slots of `tables` with no entry (their goal was evicted).
    spare: Vec<u32>,
    /// Goals referenced whose table is still to be computed (sorted before use).
    missing: Vec<CellId>,
    /// Bytes the unreferenced tables may hold.
    cache_bytes: usize,
    /// Tables computed so far.
    computed: u64,
    /// Most bytes the tables held at once.
    peak_bytes: usize,
    /// Tables of evicted goals, to be written over (at most [`RECYCLED`]).
    recycled: Vec<Box<[u16]>>,
    /// Step costs set so far ([`DistanceTables::set_costs`]): the costs tables are computed with.
    costs: u32,
}

/// One table's distances, by free cell.
type Distances = Box<[u16]>;

/// A table computed by [`FreeCells::compute`]: the index of its goal, the table.
type Computed = (usize, Distances);

/// Tables computed apart from [`DistanceTables`] ([`DistanceTables::compute_ahead`]) while the
/// planner reads them, kept afterwards ([`DistanceTables::keep`]).
#[derive(Debug)]
pub struct TableBatch {
    /// The goals to compute, in order.
    goals: Vec<CellId>,
    /// The first goals' tables: (index in `goals`, table).
    computed: Vec<Computed>,
    /// Tables to write over.
    spare: Vec<Distances>,
}

/// How many evicted tables are kept to be written over.
const RECYCLED: usize = 64;

impl DistanceTables {
    /// Tables over `grid`'s free cells (step costs as [`FreeCells::with_costs`]);
    /// unreferenced tables are kept up to `cache_bytes`.
    pub fn new(grid: &Grid, costs: Option<&[[u8; 4]]>, cache_bytes: usize) -> DistanceTables {
        DistanceTables {
            free: FreeCells::with_costs(grid, costs),
            slot_of: vec![NO_TABLE; grid.len()],
            tables: Vec::new(),
            spare: Vec::new(),
            missing: Vec::new(),
            cache_bytes,
            computed: 0,
            peak_bytes: 0,
            recycled: Vec::new(),
            costs: 0,
        }
    }

    /// The free cells the tables are indexed by.
    pub fn free_cells(&self) -> &FreeCells {
        &self.free
    }

    /// Sets the step costs of the tables computed from now on ([`FreeCells::set_costs`]); the
    /// tables held keep the costs they were computed with.
    pub fn set_costs(&mut self, costs: &[[u8; 4]]) {
        self.free.set_costs(costs);
        self.costs += 1;
    }

    /// Into `out`: the goals robots head for whose tables were computed with step costs set
    /// before the last, the oldest costs first (then by goal).
    pub fn stale(&self, out: &mut Vec<CellId>) {
        out.clear();
        let stale = |t: &&Table| t.refs > 0 && !t.distances.is_empty() && t.costs < self.costs;
        out.extend(self.tables.iter().filter(stale).map(|t| t.goal));
        let tables = &self.tables;
        let slot_of = &self.slot_of;
        out.sort_unstable_by_key(|&g| (tables[slot_of[g as usize] as usize].costs, g));
    }

    /// Computes into `batch`, until `deadline`, the tables of `goals` (held ones: [`Self::stale`])
    /// again with the step costs set last, in the order given; [`DistanceTables::keep`] then
    /// puts them in place of the old ones.
    pub fn compute_again(
        &self,
        batch: &mut TableBatch,
        goals: &[CellId],
        deadline: Option<Instant>,
        parallel: bool,
    ) {
        batch.goals.clear();
        batch.goals.extend_from_slice(goals);
        self.free.compute(batch, deadline, parallel);
    }

    /// One more robot heads for `goal` at `step`.
    pub fn acquire(&mut self, goal: CellId, step: u64) {
        let slot = self.slot_of[goal as usize];
        if slot != NO_TABLE {
            let t = &mut self.tables[slot as usize];
            t.refs += 1;
            t.used_at = step;
            if t.distances.is_empty() {
                // Released before its table was computed (and dropped from `missing`).
                self.missing.push(goal);
            }
            return;
        }
        self.entry(goal, 1, step);
        self.missing.push(goal);
    }

    /// A new entry for `goal` (which has none), with `refs` robots heading there, used at
    /// `step`, no table yet. Returns its slot.
    fn entry(&mut self, goal: CellId, refs: u32, step: u64) -> u32 {
        let table = Table {
            goal,
            distances: Box::new([]),
            refs,
            used_at: step,
            costs: 0,
        };
        let slot = match self.spare.pop() {
            Some(s) => {
                self.tables[s as usize] = table;
                s
            }
            None => {
                self.tables.push(table);
                (self.tables.len() - 1) as u32
            }
        };
        self.slot_of[goal as usize] = slot;
        slot
    }

    /// One robot fewer heads for `goal` (acquired before) at `step`.
    pub fn release(&mut self, goal: CellId, step: u64) {
        let slot = self.slot_of[goal as usize];
        debug_assert_ne!(slot, NO_TABLE, "released a goal never acquired");
        if let Some(t) = self.tables.get_mut(slot as usize) {
            t.refs = t.refs.saturating_sub(1);
            t.used_at = step;
        }
    }

    /// The table of `goal`, once computed.
    #[inline]
    pub fn get(&self, goal: CellId) -> Option<&[u16]> {
        let slot = *self.slot_of.get(goal as usize)?;
        let t = self.tables.get(slot as usize)?;
        (!t.distances.is_empty()).then_some(&t.distances[..])
    }

    /// Goals referenced whose table is not computed yet.
    pub fn pending(&self) -> usize {
        self.missing.len()
    }

    /// Tables computed so far.
    pub fn computed(&self) -> u64 {
        self.computed
    }

    /// Most bytes the tables held at once.
    pub fn peak_bytes(&self) -> usize {
        self.peak_bytes
    }

    /// Computes the referenced tables still missing, in the order of their goals' cell ids, on
    /// the rayon pool (`parallel`) or on this thread, until `deadline` (none: all of them).
    /// Then drops unreferenced tables, least recently used first, past the cache's budget.
    /// Returns how many tables were computed.
    pub fn fill(&mut self, deadline: Option<Instant>, parallel: bool) -> usize {
        self.missing.sort_unstable();
        self.missing.dedup();
        // Goals released before their table was computed are computed only if still wanted.
        let (slot_of, tables) = (&self.slot_of, &self.tables);
        self.missing.retain(|&g| {
            let slot = slot_of[g as usize];
            slot != NO_TABLE
                && tables[slot as usize].refs > 0
                && tables[slot as usize].distances.is_empty()
        });
        let missing = std::mem::take(&mut self.missing);
        let done = self.compute(&missing, 0, deadline, parallel);
        self.missing = missing;
        self.missing.drain(..done);
        self.evict();
        done
    }

    /// Computes ahead, until `deadline`, the tables of `goals` (cells robots will head for
    /// soon) that are not held yet, in the order given; they stay unreferenced (in the cache,
    /// as used at `step`) until acquired. Then evicts as [`DistanceTables::fill`]. Returns how
    /// many tables were computed. ([`DistanceTables::batch`], [`DistanceTables::compute_ahead`]
    /// and [`DistanceTables::keep`] in one.)
    pub fn prefetch(
        &mut self,
        goals: &[CellId],
        step: u64,
        deadline: Instant,
        parallel: bool,
    ) -> usize {
        let mut batch = self.batch();
        self.compute_ahead(&mut batch, goals, Some(deadline), parallel);
        self.keep(batch, step)
    }

    /// An empty batch of tables to compute apart from these ([`DistanceTables::compute_ahead`]),
    /// given the tables kept to be written over.
    pub fn batch(&mut self) -> TableBatch {
        TableBatch {
            goals: Vec::new(),
            computed: Vec::new(),
            spare: std::mem::take(&mut self.recycled),
        }
    }

    /// Computes into `batch`, until `deadline`, the tables of `goals` not held yet, in the
    /// order given. It reads the tables only, so it may run while the planner reads them;
    /// [`DistanceTables::keep`] then keeps what it computed.
    pub fn compute_ahead(
        &self,
        batch: &mut TableBatch,
        goals: &[CellId],
        deadline: Option<Instant>,
        parallel: bool,
    ) {
        batch.goals.clear();
        batch
            .goals
            .extend(goals.iter().copied().filter(|&g| self.lacks(g)));
        self.free.compute(batch, deadline, parallel);
    }

    /// Whether `goal` is a free cell without a table or an entry waiting for one (what
    /// [`DistanceTables::compute_ahead`] computes).
    pub fn lacks(&self, goal: CellId) -> bool {
        self.slot_of.get(goal as usize) == Some(&NO_TABLE) && self.free.number(goal).is_some()
    }

    /// Keeps the tables `batch` computed (a goal without an entry gets an unreferenced one used
    /// at `step`) and the spare tables, then evicts as [`DistanceTables::fill`]. Returns how
    /// many tables it kept.
    pub fn keep(&mut self, batch: TableBatch, step: u64) -> usize {
        let done = self.insert(batch, step);
        self.evict();
        done
    }

    /// Computes the tables of `goals` (on the rayon pool when `parallel`) until `deadline`
    /// and keeps them as [`DistanceTables::keep`] without evicting. Returns how many of the
    /// first goals were computed.
    fn compute(
        &mut self,
        goals: &[CellId],
        step: u64,
        deadline: Option<Instant>,
        parallel: bool,
    ) -> usize {
        let mut batch = self.batch();
        batch.goals.extend_from_slice(goals);
        self.free.compute(&mut batch, deadline, parallel);
        self.insert(batch, step)
    }

    /// The tables of `batch` placed under their goals, its spare tables kept to be written
    /// over; the number placed.
    fn insert(&mut self, batch: TableBatch, step: u64) -> usize {
        let TableBatch {
            goals,
            computed,
            spare,
        } = batch;
        self.recycled.extend(spare);
        let done = computed.len();
        for (i, table) in computed {
            let goal = goals[i];
            let mut slot = self.slot_of[goal as usize];
            if slot == NO_TABLE {
                slot = self.entry(goal, 0, step);
            }
            let t = &mut self.tables[slot as usize];
            t.costs = self.costs;
            let old = std::mem::replace(&mut t.distances, table);
            if self.recycled.len() < RECYCLED && !old.is_empty() {
                self.recycled.push(old);
            }
        }
        self.computed += done as u64;
        done
    }

    /// Bytes of one table.
    fn table_bytes(&self) -> usize {
        self.free.len() * std::mem::size_of::<u16>()
    }

    /// Drops unreferenced tables, least recently used first (then by goal), until they hold at
    /// most the cache's budget.
    fn evict(&mut self) {
        let bytes = self.table_bytes().max(1);
        let held = self
            .tables
            .iter()
            .filter(|t| !t.distances.is_empty())
            .count();
        self.peak_bytes = self.peak_bytes.max(held * bytes);
        let mut idle: Vec<(u64, CellId, u32)> = self
            .tables
            .iter()
            .enumerate()
            .filter(|(_, t)| t.refs == 0 && t.goal != NO_CELL)
            .map(|(s, t)| (t.used_at, t.goal, s as u32))
            .collect();
        let keep = self.cache_bytes / bytes;
        if idle.len() <= keep {
            return;
        }
        // The oldest first: the least (last use, goal), distinct keys, so the same set on any
        // order of `tables`.
        let excess = idle.len() - keep;
        idle.select_nth_unstable(excess - 1);
        for &(_, goal, slot) in &idle[..excess] {
            self.slot_of[goal as usize] = NO_TABLE;
            let old = std::mem::replace(
                &mut self.tables[slot as usize],
                Table {
                    goal: NO_CELL,
                    distances: Box::new([]),
                    refs: 0,
                    used_at: 0,
                    costs: 0,
                },
            );
            if self.recycled.len() < RECYCLED && !old.distances.is_empty() {
                self.recycled.push(old.distances);
            }
            self.spare.push(slot);
        }
    }

    /// Steps (moves and quarter turns) from `cell` facing `heading` to the goal of `table`,
    /// estimated from the cell's cost: the cost plus the turns to face a neighbour on a
    /// cheapest way (none on the goal). [`UNREACHABLE`] (as `u32`) where the goal cannot be
    /// reached.
    #[inline]
    pub fn actions(&self, table: &[u16], cell: CellId, heading: Heading) -> u32 {
        let Some(n) = self.free.number(cell) else {
            return u32::from(UNREACHABLE);
        };
        let d = table[n as usize];
        if d == 0 || d == UNREACHABLE {
            return u32::from(d);
        }
        // The turns to face a neighbour on a cheapest way: one whose cost plus the step's is
        // `d`, the least of them (the least even where the table is of older step costs,
        // [`DistanceTables::set_costs`]).
        let (mut best, mut turns) = (u32::MAX, 2);
        for h in Heading::ALL {
            let next = self.free.neighbours[n as usize][h.index()];
            if next == NOT_FREE {
                continue;
            }
            let via = u32::from(table[next as usize])
                + u32::from(self.free.enter[next as usize][h.index()]);
            let t = heading.quarter_turns(h);
            if via < best || (via == best && t < turns) {
                (best, turns) = (via, t);
            }
        }
        u32::from(d) + turns
    }

    /// What a step onto the free cell `cell` moving the way of `heading` costs in the tables
    /// (1, or the lane cost against a lane); 1 for a blocked cell.
    #[inline]
    pub fn enter_cost(&self, cell: CellId, heading: Heading) -> u32 {
        self.free.number(cell).map_or(1, |n| {
            u32::from(self.free.enter[n as usize][heading.index()])
        })
    }

    /// The distance of `cell` in `table` (moves only), [`UNREACHABLE`] for a blocked cell.
    #[inline]
    pub fn distance(&self, table: &[u16], cell: CellId) -> u16 {
        self.free
            .number(cell)
            .map_or(UNREACHABLE, |n| table[n as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Neighborhood;

    fn grid() -> Grid {
        Grid::from_ascii(".....\n.@@@.\n.@...\n...@.")
            .unwrap()
            .with_neighborhood(Neighborhood::Four)
    }

    #[test]
    fn actions_add_the_turns_to_face_a_closer_neighbour() {
        let g = grid();
        let mut tables = DistanceTables::new(&g, None, 0);
        let goal = g.cell(4, 3).unwrap();
        tables.acquire(goal, 0);
        assert_eq!(tables.fill(None, false), 1);
        let t = tables.get(goal).unwrap().to_vec();
        let above = g.cell(4, 2).unwrap();
        assert_eq!(tables.distance(&t, above), 1);
        // Facing south (toward the goal): one move; east or west: a turn more; north: two.
        assert_eq!(tables.actions(&t, above, Heading::South), 1);
        assert_eq!(tables.actions(&t, above, Heading::East), 2);
        assert_eq!(tables.actions(&t, above, Heading::North), 3);
        assert_eq!(tables.actions(&t, goal, Heading::North), 0);
    }

    #[test]
    fn step_costs_give_the_cheapest_ways() {
        // Lanes on the test map: every table equals a brute-force relaxation of the costs.
        let g = grid();
        let costs = crate::lorr::lanes::crisscross(&g, 3);
        let free = FreeCells::with_costs(&g, Some(&costs));
        let cells: Vec<CellId> = (0..g.len() as CellId)
            .filter(|&c| g.is_walkable(c))
            .collect();
        for &goal in &cells {
            let table = free.distances_to(goal);
            let mut want = vec![u32::MAX; g.len()];
            want[goal as usize] = 0;
            for _ in 0..cells.len() {
                for &c in &cells {
                    for h in Heading::ALL {
                        if let Some(n) = h.ahead(&g, c)
                            && want[n as usize] != u32::MAX
                        {
                            let via = want[n as usize] + u32::from(costs[n as usize][h.index()]);
                            want[c as usize] = want[c as usize].min(via);
                        }
                    }
                }
            }
            for &c in &cells {
                let got = table[free.number(c).unwrap() as usize];
                assert_eq!(u32::from(got), want[c as usize], "goal {goal}, cell {c}");
            }
        }
    }

    #[test]
    fn unreferenced_tables_are_evicted_past_the_budget_oldest_first() {
        let g = grid();
        let bytes = FreeCells::new(&g).len() * 2;
        let mut tables = DistanceTables::new(&g, None, bytes);
        let (a, b) = (g.cell(0, 0).unwrap(), g.cell(4, 0).unwrap());
        tables.acquire(a, 0);
        tables.acquire(b, 0);
        tables.fill(None, false);
        tables.release(a, 1);
        tables.release(b, 2);
        tables.fill(None, false);
        // One unreferenced table fits the budget: the older (a) goes.
        assert!(tables.get(a).is_none());
        assert!(tables.get(b).is_some());
        // Wanted again: computed again.
        tables.acquire(a, 3);
        assert_eq!(tables.pending(), 1);
        tables.fill(None, false);
        assert!(tables.get(a).is_some());
    }

    #[test]
    fn prefetched_tables_wait_unreferenced_and_serve_a_later_acquire() {
        let g = grid();
        let mut tables = DistanceTables::new(&g, None, usize::MAX);
        let (a, b) = (g.cell(0, 0).unwrap(), g.cell(4, 3).unwrap());
        let far = Instant::now() + std::time::Duration::from_secs(60);
        assert_eq!(tables.prefetch(&[a, b], 0, far, true), 2);
        assert_eq!(tables.pending(), 0);
        assert_eq!(
            tables.get(a).unwrap(),
            &FreeCells::new(&g).distances_to(a)[..]
        );
        // Held already: acquiring computes nothing, prefetching again neither.
        tables.acquire(a, 1);
        assert_eq!(tables.pending(), 0);
        assert_eq!(tables.prefetch(&[a, b], 1, far, false), 0);
    }

    #[test]
    fn a_goal_released_before_its_table_and_acquired_again_gets_it() {
        let g = grid();
        let mut tables = DistanceTables::new(&g, None, usize::MAX);
        let a = g.cell(0, 0).unwrap();
        tables.acquire(a, 0);
        tables.release(a, 0);
        assert_eq!(tables.fill(None, false), 0);
        tables.acquire(a, 1);
        assert_eq!(tables.fill(None, false), 1);
        assert!(tables.get(a).is_some());
    }

    #[test]
    fn a_passed_deadline_computes_nothing_and_keeps_the_goals() {
        let g = grid();
        let mut tables = DistanceTables::new(&g, None, 0);
        tables.acquire(g.cell(0, 0).unwrap(), 0);
        assert_eq!(tables.fill(Some(Instant::now()), false), 0);
        assert_eq!(tables.pending(), 1);
        assert_eq!(tables.fill(None, true), 1);
    }

    #[test]
    fn tables_of_older_costs_are_stale_until_computed_again() {
        let g = grid();
        let (goal, far) = (g.cell(0, 0).unwrap(), g.cell(4, 3).unwrap());
        let mut tables = DistanceTables::new(&g, None, 0);
        tables.acquire(goal, 0);
        tables.fill(None, false);
        let mut stale = Vec::new();
        tables.stale(&mut stale);
        assert!(stale.is_empty());
        // Every step costs 3 from now on: the held table keeps its distances until computed
        // again.
        tables.set_costs(&vec![[3; 4]; g.len()]);
        assert_eq!(tables.enter_cost(far, Heading::East), 3);
        tables.stale(&mut stale);
        assert_eq!(stale, [goal]);
        let before = tables.distance(tables.get(goal).unwrap(), far);
        let mut batch = tables.batch();
        tables.compute_again(&mut batch, &stale, None, false);
        assert_eq!(tables.keep(batch, 1), 1);
        assert_eq!(tables.distance(tables.get(goal).unwrap(), far), 3 * before);
        tables.stale(&mut stale);
        assert!(stale.is_empty());
    }
}
