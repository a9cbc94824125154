//! The large neighbourhood search of the `window` planner, on every thread of the run: in
//! rounds of [`ROUND`] groups of robots, each group re-planned against the same reservation table
//! (the round's snapshot) on any thread, then merged in group order (after the design of WPPL's
//! parallel LNS; no code of it used).
//!
//! A round: up to [`ROUND`] groups with no robot in two, each a late robot (its path costs more than
//! its distance table's estimate from where it stands), chosen from the run's seed, the step
//! and the round, and the robots in the way of its members' ideal paths (breadth first, up to
//! [`GROUP`]). Each group is searched again one robot after another in a shuffled order by
//! space-time A* ([`WindowSearch`]) against the table as the group sees it ([`Occupancy`]: its
//! own robots out, its new paths in), writing nothing shared. Then, in group order, a group's
//! new paths replace its old ones when they cost less in all and meet none of the paths in
//! the table by then (those of the groups accepted before it in the round included).
//!
//! The groups of a round, their order and their searches depend on the snapshot only, so the
//! actions are the same on any thread count; threads only share the work, each taking the next
//! group of the round as it finishes one (an atomic counter over the round's groups, which
//! they only read; `docs/performance.md` for the cores it keeps busy). Each thread keeps its
//! own search memory, overlay and found paths ([`Workspace`]), reused from round to round: no
//! lock, and the merge reads each group's paths from the workspace that found them.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::reservation::{Occupancy, ReservationTable, State};
use super::search::{Query, WindowSearch, path_cost};
use crate::grid::Grid;
use crate::grid::NO_CELL;
use crate::hash::splitmix64;
use crate::lorr::planner::pibt::{PibtPlanner, RESTLESS_AFTER};
use crate::mapf::NO_AGENT;
use crate::sim::Heading;

/// Most robots searched again together.
pub(crate) const GROUP: usize = 8;

/// Groups searched against one snapshot of the table, a round (fewer where the late robots
/// run out). An attempt (of the attempt budget, [`super::WindowConfig::iterations`]) is
/// one group: 500 attempts are 32 rounds. A round is the work handed to the threads at once:
/// smaller rounds left the pool's second thread too little to pick up before the first had
/// done it all (`docs/performance.md`).
pub(crate) const ROUND: usize = 16;

/// Most threads a search uses (each keeps its own search memory, 13 bytes per (step, cell,
/// heading) of the window).
const MAX_THREADS: usize = 8;

/// Tries at a late robot not yet in a group of the round before a round makes fewer groups.
const SEED_TRIES: usize = 8;

/// Most states one space-time search expands.
const MAX_EXPANDED: usize = 4_000;

/// One thread's working memory.
#[derive(Debug, Default)]
struct Workspace {
    search: WindowSearch,
    /// Per (step, cell) as the table: the robot of the group being searched placed
    /// there, or [`NO_AGENT`].
    overlay: Vec<u32>,
    /// Overlay slots written by the group being searched (cleared after it).
    written: Vec<usize>,
    found: Vec<State>,
    /// The new paths of the groups of the round it searched that cost less, one after another:
    /// `h + 1` states per robot in the group's order.
    paths: Vec<State>,
    /// Per group of the round it searched whose new paths cost less: the group and where its
    /// paths begin in `paths`.
    better: Vec<(usize, usize)>,
}

/// A group of a round, read by the thread that searches it.
#[derive(Debug, Default)]
struct Group {
    /// Its robots, in the order they are searched.
    robots: Vec<u32>,
    /// Its mark in [`Lns::marks`].
    mark: u64,
    /// The cost of its robots' paths in the table.
    old: u64,
}

/// What a step's search did.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LnsFigures {
    /// Groups searched.
    pub attempts: u64,
    /// Groups whose new paths were kept.
    pub improvements: u64,
}

/// The search's memory, kept between steps.
#[derive(Debug, Default)]
pub(crate) struct Lns {
    workspaces: Vec<Workspace>,
    /// The round's groups (each searched by the thread that claims it).
    groups: Vec<Group>,
    /// Per group of the round: the workspace holding its new paths and where they begin,
    /// when they cost less.
    found: Vec<Option<(usize, usize)>>,
    /// Per robot: the mark of the group it is in (a round's marks are `round * ROUND + group`;
    /// older marks mean none).
    marks: Vec<u64>,
    round: u64,
    /// The late robots.
    late: Vec<u32>,
}

/// What the search may see of the planner.
pub(crate) struct LnsInput<'a> {
    /// The map.
    pub grid: &'a Grid,
    /// The distance tables and the robots' goals.
    pub pibt: &'a PibtPlanner,
    /// Per robot: steps it has not moved.
    pub stuck: &'a [u32],
}

impl Lns {
    /// Searches `reserved` (every path in its table, costs in `costs`) in rounds while `more`
    /// says so (called with the attempts made; it may look at a clock), from the random
    /// sequence `rng`, on `threads` threads of the pool.
    pub(crate) fn run(
        &mut self,
        input: &LnsInput,
        reserved: &mut ReservationTable,
        costs: &mut [u32],
        rng: &mut u64,
        threads: usize,
        mut more: impl FnMut(u64) -> Option<usize>,
    ) -> LnsFigures {
        let n = costs.len();
        let h = reserved.steps();
        let threads = threads.clamp(1, MAX_THREADS);
        let slots = (h + 1) * reserved.cells();
        if self.workspaces.len() != threads
            || self
                .workspaces
                .first()
                .is_some_and(|w| w.overlay.len() != slots)
        {
            self.workspaces = (0..threads)
                .map(|_| Workspace {
                    overlay: vec![NO_AGENT; slots],
                    found: vec![
                        State {
                            cell: 0,
                            heading: Heading::East,
                        };
                        h + 1
                    ],
                    ..Workspace::default()
                })
                .collect();
        }
        if self.groups.len() != ROUND {
            self.groups = (0..ROUND).map(|_| Group::default()).collect();
        }
        if self.marks.len() != n {
            self.marks = vec![0; n];
            self.round = 0;
        }
        let mut figures = LnsFigures::default();
        while let Some(wanted) = more(figures.attempts) {
            self.find_late(input, reserved, costs);
            if self.late.is_empty() {
                break;
            }
            self.round += 1;
            let formed = self.form_groups(input, reserved, costs, rng, wanted.min(ROUND));
            if formed == 0 {
                break;
            }
            figures.attempts += formed as u64;
            let groups = &self.groups[..formed];
            let snapshot = &*reserved;
            let marks = &self.marks;
            // Each thread takes the next group as it finishes one (the searches' lengths vary
            // widely), with its own workspace; the outcome of a group does not depend on which.
            let next = AtomicUsize::new(0);
            let work = |workspace: &mut Workspace| {
                workspace.paths.clear();
                workspace.better.clear();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(group) = groups.get(i) else {
                        break;
                    };
                    let start = workspace.paths.len();
                    if search_group(input, snapshot, marks, group, workspace) {
                        workspace.better.push((i, start));
                    } else {
                        workspace.paths.truncate(start);
                    }
                }
            };
            if threads == 1 {
                work(&mut self.workspaces[0]);
            } else {
                self.workspaces.par_iter_mut().for_each(work);
            }
            // In group order, whichever thread searched each group.
            self.found.clear();
            self.found.resize(formed, None);
            for (w, workspace) in self.workspaces.iter().enumerate() {
                for &(g, start) in &workspace.better {
                    self.found[g] = Some((w, start));
                }
            }
            for (group, found) in self.groups[..formed].iter().zip(&self.found) {
                let Some((w, start)) = *found else {
                    continue;
                };
                let paths = &self.workspaces[w].paths[start..][..group.robots.len() * (h + 1)];
                if merge(input, reserved, costs, &group.robots, paths) {
                    figures.improvements += 1;
                }
            }
        }
        figures
    }

    /// The late robots of `reserved` into `self.late`: with a table, not stuck for long, their
    /// path dearer than their table's estimate.
    fn find_late(&mut self, input: &LnsInput, reserved: &ReservationTable, costs: &[u32]) {
        self.late.clear();
        let tables = input.pibt.tables();
        for (a, (&cost, &stuck)) in costs.iter().zip(input.stuck).enumerate() {
            let Some(table) = table_of(input.pibt, a) else {
                continue;
            };
            let s = reserved.path(a)[0];
            if cost > tables.actions(table, s.cell, s.heading) && stuck < RESTLESS_AFTER {
                self.late.push(a as u32);
            }
        }
    }

    /// Forms up to `wanted` groups of the round with no robot in two, each shuffled from
    /// `rng`; how many.
    fn form_groups(
        &mut self,
        input: &LnsInput,
        reserved: &ReservationTable,
        costs: &[u32],
        rng: &mut u64,
        wanted: usize,
    ) -> usize {
        let mut formed = 0;
        for g in 0..wanted {
            let mark = self.round * ROUND as u64 + g as u64;
            let mut seed = None;
            for _ in 0..SEED_TRIES {
                let a = self.late[(splitmix64(rng) % self.late.len() as u64) as usize];
                if self.marks[a as usize] < self.round * ROUND as u64 {
                    seed = Some(a);
                    break;
                }
            }
            let Some(seed) = seed else {
                break;
            };
            let mut group = std::mem::take(&mut self.groups[g]);
            self.gather(input, reserved, seed as usize, mark, &mut group.robots);
            for i in (1..group.robots.len()).rev() {
                let j = (splitmix64(rng) % (i as u64 + 1)) as usize;
                group.robots.swap(i, j);
            }
            group.mark = mark;
            group.old = group
                .robots
                .iter()
                .map(|&a| u64::from(costs[a as usize]))
                .sum();
            self.groups[g] = group;
            formed += 1;
        }
        formed
    }

    /// The robots of a group into `robots`, marked `mark`: `seed`, then the robots in the way
    /// of each member's ideal path (its cheapest ignoring the others) that are in no group of
    /// the round yet, breadth first, up to [`GROUP`].
    fn gather(
        &mut self,
        input: &LnsInput,
        reserved: &ReservationTable,
        seed: usize,
        mark: u64,
        robots: &mut Vec<u32>,
    ) {
        let first_of_round = self.round * ROUND as u64;
        robots.clear();
        robots.push(seed as u32);
        self.marks[seed] = mark;
        let h = reserved.steps();
        let tables = input.pibt.tables();
        let mut i = 0;
        while i < robots.len() && robots.len() < GROUP {
            let a = robots[i] as usize;
            i += 1;
            let goal = input.pibt.goal(a);
            let Some(table) = table_of(input.pibt, a) else {
                continue;
            };
            let mut s = reserved.path(a)[0];
            for t in 0..h {
                if s.cell == goal {
                    break;
                }
                // The cheapest next state by its action and the estimate after it; a move
                // first among equals.
                let mut best = (u32::MAX, s);
                if let Some(ahead) = s.heading.ahead(input.grid, s.cell) {
                    let next = State {
                        cell: ahead,
                        heading: s.heading,
                    };
                    best = (
                        tables.enter_cost(ahead, s.heading)
                            + tables.actions(table, ahead, s.heading),
                        next,
                    );
                }
                for heading in [s.heading.clockwise(), s.heading.counter_clockwise()] {
                    let k = 1 + tables.actions(table, s.cell, heading);
                    if k < best.0 {
                        best = (
                            k,
                            State {
                                cell: s.cell,
                                heading,
                            },
                        );
                    }
                }
                let next = best.1;
                for b in [
                    reserved.holder(t + 1, next.cell),
                    reserved.holder(t, next.cell),
                ] {
                    if b != NO_AGENT
                        && self.marks[b as usize] < first_of_round
                        && input.stuck[b as usize] < RESTLESS_AFTER
                        && robots.len() < GROUP
                        && table_of(input.pibt, b as usize).is_some()
                    {
                        self.marks[b as usize] = mark;
                        robots.push(b);
                    }
                }
                s = next;
            }
        }
    }
}

/// Searches `group` again against `reserved` as it sees it: its robots one after another, each
/// against the others' paths and the group's new ones, appending the new paths to the
/// workspace's `paths`; whether all its robots got new paths that cost less in all.
fn search_group(
    input: &LnsInput,
    reserved: &ReservationTable,
    marks: &[u64],
    group: &Group,
    workspace: &mut Workspace,
) -> bool {
    let h = reserved.steps();
    let start = workspace.paths.len();
    let mut total = 0u64;
    for &a in &group.robots {
        let a = a as usize;
        let Some(table) = table_of(input.pibt, a) else {
            break;
        };
        let occupancy = Occupancy {
            reserved,
            overlay: &workspace.overlay,
            marks,
            mine: group.mark,
        };
        let found = workspace.search.search(
            input.grid,
            &occupancy,
            input.pibt.tables(),
            Query {
                table,
                start: reserved.path(a)[0],
                goal: input.pibt.goal(a),
                max_expanded: MAX_EXPANDED,
            },
            &mut workspace.found,
        );
        let Some(cost) = found else {
            break;
        };
        total += u64::from(cost);
        if total >= group.old {
            break;
        }
        for (t, s) in workspace.found.iter().enumerate() {
            let slot = reserved.slot(t, s.cell);
            workspace.overlay[slot] = a as u32;
            workspace.written.push(slot);
        }
        workspace.paths.extend_from_slice(&workspace.found);
    }
    for &slot in &workspace.written {
        workspace.overlay[slot] = NO_AGENT;
    }
    workspace.written.clear();
    workspace.paths.len() - start == group.robots.len() * (h + 1) && total < group.old
}

/// Puts the new `paths` of a group's `robots` (`h + 1` states each, in their order) into
/// `reserved` in place of their old ones when they meet none of the paths there; whether it
/// did.
fn merge(
    input: &LnsInput,
    reserved: &mut ReservationTable,
    costs: &mut [u32],
    robots: &[u32],
    paths: &[State],
) -> bool {
    let h = reserved.steps();
    for &a in robots {
        reserved.unreserve(a as usize);
    }
    let fits = paths.chunks_exact(h + 1).all(|path| reserved.admits(path));
    if fits {
        for (&a, path) in robots.iter().zip(paths.chunks_exact(h + 1)) {
            reserved.path_mut(a as usize).copy_from_slice(path);
        }
    }
    for &a in robots {
        let a = a as usize;
        reserved.reserve(a);
        if fits {
            costs[a] = path_cost(
                input.pibt.tables(),
                table_of(input.pibt, a),
                input.pibt.goal(a),
                reserved.path(a),
            );
        }
    }
    fits
}

/// Robot `a`'s distance table in `pibt`, when it has an errand and its table is ready.
pub(crate) fn table_of(pibt: &PibtPlanner, a: usize) -> Option<&[u16]> {
    let goal = pibt.goal(a);
    (goal != NO_CELL).then(|| pibt.tables().get(goal)).flatten()
}
