//! The space-time reservation table of the `window` planner: every robot's path, its (cell,
//! heading) at each step of a window of `h` steps ahead (step 0: where it stands now), and
//! which robot holds each cell at each step, so that a robot's path can be taken out and
//! searched again against the others (`super::search`).
//!
//! The paths in the table are valid together by construction when every path was checked
//! against the table as it went in: no two robots on one cell at one step (vertex), no two robots
//! trading cells between two steps (swap); a robot may enter a cell its robot leaves in the
//! same step (as the competition allows). Flat vectors by robot and step, and by step and cell.
//!
//! The neighbourhood search re-plans several groups of robots against one table at once
//! (`super::lns`): each group sees the table through an [`Occupancy`], its own robots
//! taken out and its new paths laid over, without writing to the shared table.

use crate::grid::{CellId, Grid};
use crate::lorr::action::LorrAction;
use crate::mapf::NO_AGENT;
use crate::sim::Heading;

/// A robot's state at one step of the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct State {
    /// Its cell.
    pub cell: CellId,
    /// Its heading.
    pub heading: Heading,
}

impl State {
    /// The action from `self` to `next` (a state one action away).
    pub(crate) fn action_to(self, next: State) -> LorrAction {
        if next.cell != self.cell {
            LorrAction::Forward
        } else if next.heading == self.heading.clockwise() {
            LorrAction::Clockwise
        } else if next.heading == self.heading.counter_clockwise() {
            LorrAction::CounterClockwise
        } else {
            LorrAction::Wait
        }
    }
}

/// Every robot's states over the window (its path), and who holds which cell when.
#[derive(Debug, Default)]
pub(crate) struct ReservationTable {
    /// Steps in the window (states 0..=h per robot).
    h: usize,
    cells: usize,
    /// Per robot `a` and step `t`: `states[a * (h + 1) + t]`.
    states: Vec<State>,
    /// Per step `t` and cell `c`: `holder[t * cells + c]`, the robot there or [`NO_AGENT`].
    holder: Vec<u32>,
}

impl ReservationTable {
    /// An empty table for `agents` robots on `grid`, `h` steps ahead.
    pub(crate) fn new(grid: &Grid, agents: usize, h: usize) -> ReservationTable {
        ReservationTable {
            h,
            cells: grid.len(),
            states: vec![
                State {
                    cell: 0,
                    heading: Heading::East
                };
                agents * (h + 1)
            ],
            holder: vec![NO_AGENT; (h + 1) * grid.len()],
        }
    }

    /// Steps in the window.
    pub(crate) fn steps(&self) -> usize {
        self.h
    }

    /// Robot `a`'s states, steps 0..=h.
    pub(crate) fn path(&self, a: usize) -> &[State] {
        &self.states[a * (self.h + 1)..(a + 1) * (self.h + 1)]
    }

    /// Robot `a`'s states to overwrite (take it out of the table first).
    pub(crate) fn path_mut(&mut self, a: usize) -> &mut [State] {
        &mut self.states[a * (self.h + 1)..(a + 1) * (self.h + 1)]
    }

    /// The robot holding `cell` at step `t`, or [`NO_AGENT`].
    #[inline]
    pub(crate) fn holder(&self, t: usize, cell: CellId) -> u32 {
        self.holder[t * self.cells + cell as usize]
    }

    /// Cells of the map (the table's stride per step).
    pub(crate) fn cells(&self) -> usize {
        self.cells
    }

    /// Index of (step `t`, `cell`) in a table laid out as the table's (per step, per cell).
    #[inline]
    pub(crate) fn slot(&self, t: usize, cell: CellId) -> usize {
        t * self.cells + cell as usize
    }

    /// Whether robot `a`'s states `path` (steps 0..=h) meet none of the paths in the table:
    /// no cell held at a step, no swap (take its own path out first).
    pub(crate) fn admits(&self, path: &[State]) -> bool {
        (0..self.h).all(|t| self.may_step(t, path[t].cell, path[t + 1].cell))
            && self.holder(0, path[0].cell) == NO_AGENT
    }

    /// Empties the table.
    pub(crate) fn clear_table(&mut self) {
        self.holder.fill(NO_AGENT);
    }

    /// Puts robot `a`'s path into the table.
    pub(crate) fn reserve(&mut self, a: usize) {
        let h = self.h;
        for t in 0..=h {
            let c = self.states[a * (h + 1) + t].cell as usize;
            self.holder[t * self.cells + c] = a as u32;
        }
    }

    /// Takes robot `a`'s path out of the table.
    pub(crate) fn unreserve(&mut self, a: usize) {
        let h = self.h;
        for t in 0..=h {
            let c = self.states[a * (h + 1) + t].cell as usize;
            let slot = &mut self.holder[t * self.cells + c];
            if *slot == a as u32 {
                *slot = NO_AGENT;
            }
        }
    }

    /// Whether a robot may go from `from` at step `t` to `to` at step `t + 1` against the
    /// table: `to` free at `t + 1`, and no robot coming the other way.
    #[inline]
    pub(crate) fn may_step(&self, t: usize, from: CellId, to: CellId) -> bool {
        step_allowed(|t, c| self.holder(t, c), t, from, to)
    }

    /// Moves the window one step on: each robot's states from step 1 become its states from
    /// step 0, and it waits at the end. The table must be rebuilt.
    pub(crate) fn shift(&mut self) {
        let h = self.h;
        for path in self.states.chunks_exact_mut(h + 1) {
            path.copy_within(1.., 0);
            path[h] = path[h - 1];
        }
    }
}

/// The table as one group of robots being searched again sees it: the group's robots
/// (those whose `marks` entry is `mine`) taken out, the new paths it has placed so far (in
/// `overlay`, laid out as the table) in.
#[derive(Clone, Copy)]
pub(crate) struct Occupancy<'a> {
    /// The table.
    pub reserved: &'a ReservationTable,
    /// Per (step, cell) as the table: the group's robot placed there, or [`NO_AGENT`].
    pub overlay: &'a [u32],
    /// Per robot: the mark of the group it belongs to this round.
    pub marks: &'a [u64],
    /// The mark of this group.
    pub mine: u64,
}

impl Occupancy<'_> {
    /// Steps in the window.
    pub(crate) fn steps(&self) -> usize {
        self.reserved.h
    }

    /// The robot holding `cell` at step `t` as the group sees it, or [`NO_AGENT`].
    #[inline]
    pub(crate) fn holder(&self, t: usize, cell: CellId) -> u32 {
        let slot = self.reserved.slot(t, cell);
        let placed = self.overlay[slot];
        if placed != NO_AGENT {
            return placed;
        }
        let b = self.reserved.holder[slot];
        if b != NO_AGENT && self.marks[b as usize] == self.mine {
            NO_AGENT
        } else {
            b
        }
    }

    /// [`ReservationTable::may_step`] as the group sees the table.
    #[inline]
    pub(crate) fn may_step(&self, t: usize, from: CellId, to: CellId) -> bool {
        step_allowed(|t, c| self.holder(t, c), t, from, to)
    }
}

/// The step rule of both views of the table, given who holds a cell at a step: `to` free at
/// `t + 1`, and no robot coming from `to` into `from` (a swap).
#[inline]
fn step_allowed(holder: impl Fn(usize, CellId) -> u32, t: usize, from: CellId, to: CellId) -> bool {
    if holder(t + 1, to) != NO_AGENT {
        return false;
    }
    if from == to {
        return true;
    }
    let b = holder(t, to);
    b == NO_AGENT || holder(t + 1, from) != b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Neighborhood;

    fn state(cell: CellId, heading: Heading) -> State {
        State { cell, heading }
    }

    #[test]
    fn a_swap_and_a_shared_cell_are_refused_and_following_is_allowed() {
        let grid = Grid::from_ascii("....")
            .unwrap()
            .with_neighborhood(Neighborhood::Four);
        let mut reserved = ReservationTable::new(&grid, 2, 2);
        // Robot 0: 1 -> 2 -> 3 east.
        let p = reserved.path_mut(0);
        p[0] = state(1, Heading::East);
        p[1] = state(2, Heading::East);
        p[2] = state(3, Heading::East);
        reserved.reserve(0);
        // Robot 1 behind it following: 0 -> 1 -> 2.
        assert!(reserved.may_step(0, 0, 1) && reserved.may_step(1, 1, 2));
        // Coming the other way from 2 at step 0 to 1 at step 1: robot 0 goes 1 -> 2, a swap.
        assert!(!reserved.may_step(0, 2, 1));
        // Onto cell 3 at step 2: held.
        assert!(!reserved.may_step(1, 2, 3));
        reserved.unreserve(0);
        assert!(reserved.may_step(1, 2, 3));
        assert_eq!(
            state(1, Heading::East).action_to(state(1, Heading::South)),
            LorrAction::Clockwise
        );
        assert_eq!(
            state(1, Heading::East).action_to(state(2, Heading::East)),
            LorrAction::Forward
        );
    }

    #[test]
    fn a_group_sees_its_robots_out_and_its_new_paths_in_and_merging_refuses_a_meeting() {
        let grid = Grid::from_ascii("....")
            .unwrap()
            .with_neighborhood(Neighborhood::Four);
        let mut reserved = ReservationTable::new(&grid, 2, 1);
        // Robot 0 waits on cell 0, robot 1 waits on cell 3.
        reserved
            .path_mut(0)
            .copy_from_slice(&[state(0, Heading::East), state(0, Heading::East)]);
        reserved
            .path_mut(1)
            .copy_from_slice(&[state(3, Heading::West), state(3, Heading::West)]);
        reserved.reserve(0);
        reserved.reserve(1);
        let mut overlay = vec![NO_AGENT; 2 * grid.len()];
        // Robot 0 in group 5, robot 1 in another: the group sees cell 0 free, cell 3 held.
        let marks = [5, 6];
        let group = Occupancy {
            reserved: &reserved,
            overlay: &overlay,
            marks: &marks,
            mine: 5,
        };
        assert_eq!(group.holder(1, 0), NO_AGENT);
        assert_eq!(group.holder(1, 3), 1);
        assert!(group.may_step(0, 1, 0) && !group.may_step(0, 2, 3));
        // A path the group placed on cell 1 at step 1 holds it for the group, not the table.
        overlay[reserved.slot(1, 1)] = 0;
        let group = Occupancy {
            reserved: &reserved,
            overlay: &overlay,
            marks: &marks,
            mine: 5,
        };
        assert_eq!(group.holder(1, 1), 0);
        assert_eq!(reserved.holder(1, 1), NO_AGENT);
        // Merging: robot 1 moving onto cell 2 fits; onto cell 0 at step 1 it would not.
        reserved.unreserve(1);
        assert!(reserved.admits(&[state(3, Heading::West), state(2, Heading::West)]));
        reserved
            .path_mut(1)
            .copy_from_slice(&[state(1, Heading::West), state(1, Heading::West)]);
        assert!(!reserved.admits(&[state(1, Heading::West), state(0, Heading::West)]));
    }

    #[test]
    fn shifting_drops_the_first_step_and_waits_at_the_end() {
        let grid = Grid::from_ascii("....")
            .unwrap()
            .with_neighborhood(Neighborhood::Four);
        let mut reserved = ReservationTable::new(&grid, 1, 2);
        let p = reserved.path_mut(0);
        p[0] = state(0, Heading::East);
        p[1] = state(1, Heading::East);
        p[2] = state(2, Heading::East);
        reserved.shift();
        assert_eq!(
            reserved.path(0),
            &[
                state(1, Heading::East),
                state(2, Heading::East),
                state(2, Heading::East)
            ]
        );
    }
}
