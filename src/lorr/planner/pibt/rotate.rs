//! PIBT with rotations: one step of actions (`F`, `R`, `C`, `W`) for robots that turn, valid
//! by construction.
//!
//! Three passes, after the idea of the League of Robot Runners start kit's default planner:
//! 1. PIBT on cells (Okumura et al., priority inheritance with backtracking): robots bound for
//!    a cell from an earlier step (committed) hold it first; the others in priority order each
//!    take the best free cell of their ranked candidates (their cell and its neighbours),
//!    pushing a lower-priority robot out of the cell they take; no two robots take one cell
//!    and no robot takes the cell of one bound for its own (no swaps).
//! 2. A robot whose cell is ahead moves forward (`F`); one whose cell is beside or behind it
//!    turns toward it (and stays); one that stays may turn toward its first choice.
//! 3. Consistency: a robot moving onto a cell whose robot does not leave it waits instead,
//!    and so on back along the chain (a cycle of robots moving in step all move).
//!
//! The PIBT recursion runs on an explicit stack (chains of thousands of robots on a worker
//! thread's stack). Everything is flat vectors by cell or robot, allocated once.

use crate::grid::NO_CELL;
use crate::grid::{CellId, Grid};
use crate::lorr::action::LorrAction;
use crate::mapf::NO_AGENT;
use crate::sim::Heading;

/// A robot's cells for the next step, best first: its own cell (stay) and its free neighbours,
/// ranked once before the pass (unlike [`crate::mapf::Candidates`], which PIBT on cells may
/// rank lazily or keep fixed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RankedCells {
    cells: [CellId; 5],
    len: u8,
}

impl RankedCells {
    /// RankedCells from `(key, cell)` pairs, ranked by key (ties in the given order).
    pub(crate) fn ranked(mut pairs: impl AsMut<[(u64, CellId)]>) -> RankedCells {
        let pairs = pairs.as_mut();
        pairs.sort_by_key(|&(k, _)| k);
        let mut c = RankedCells::default();
        for &(_, cell) in pairs.iter().take(5) {
            c.cells[c.len as usize] = cell;
            c.len += 1;
        }
        c
    }

    /// The cells, best first.
    pub(crate) fn cells(&self) -> &[CellId] {
        &self.cells[..self.len as usize]
    }
}

/// Where the robots stand at a step, and the cells they are bound for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Robots<'a> {
    /// Per robot: its cell.
    pub positions: &'a [CellId],
    /// Per robot: its heading.
    pub headings: &'a [Heading],
    /// Per robot: the neighbour it keeps from earlier steps, or `NO_CELL` (empty: none).
    pub committed: &'a [CellId],
}

/// One frame of the PIBT recursion.
#[derive(Debug, Clone, Copy)]
struct Frame {
    agent: u32,
    /// The cell of the robot that pushed this one (it may not move there: a swap).
    forbidden: CellId,
    /// The next candidate to try.
    next: u8,
}

/// The planner's working memory, reused step after step.
#[derive(Debug, Default)]
pub(crate) struct RotatePibt {
    /// Per cell: the robot on it now.
    occupant: Vec<u32>,
    /// Per cell: the robot that takes it next step.
    reserved: Vec<u32>,
    /// Per robot: the cell it takes next step (`u32::MAX`: not planned yet).
    next: Vec<CellId>,
    stack: Vec<Frame>,
    /// Per robot: 0 unknown, 1 on the chain being followed, 2 moves, 3 stays.
    chain_state: Vec<u8>,
    chain: Vec<u32>,
    /// Whether a robot that stays turns toward its first choice.
    turn_while_waiting: bool,
}

impl RotatePibt {
    /// A planner with no memory yet. With `turn_while_waiting`, a robot that stays turns
    /// toward its first choice when it does not face it.
    pub(crate) fn new(turn_while_waiting: bool) -> RotatePibt {
        RotatePibt {
            turn_while_waiting,
            ..RotatePibt::default()
        }
    }

    /// One step of actions: robot `a` stands on `positions[a]` facing `headings[a]` (of
    /// `robots`) and ranks
    /// its next cells `candidates[a]`; robots are planned in the order of `order` (every robot
    /// once, highest priority first), except those bound for a neighbour `committed[a]` (not
    /// `NO_CELL`; `committed` empty: none), which keep it. Writes one action per robot to
    /// `out`.
    pub(crate) fn plan(
        &mut self,
        grid: &Grid,
        robots: Robots,
        candidates: &[RankedCells],
        order: &[u32],
        out: &mut Vec<LorrAction>,
    ) {
        let Robots {
            positions,
            headings,
            committed,
        } = robots;
        let n = positions.len();
        if self.occupant.len() != grid.len() {
            self.occupant = vec![NO_AGENT; grid.len()];
            self.reserved = vec![NO_AGENT; grid.len()];
        }
        self.next.clear();
        self.next.resize(n, NO_CELL);
        for (a, &p) in positions.iter().enumerate() {
            self.occupant[p as usize] = a as u32;
        }
        for (a, &c) in committed.iter().enumerate() {
            if c != NO_CELL && self.reserved[c as usize] == NO_AGENT {
                self.reserved[c as usize] = a as u32;
                self.next[a] = c;
            }
        }
        for &a in order {
            if self.next[a as usize] == NO_CELL {
                self.push(a, positions, candidates);
            }
        }
        self.actions(grid, positions, headings, candidates, out);
        for (a, &p) in positions.iter().enumerate() {
            self.occupant[p as usize] = NO_AGENT;
            self.reserved[self.next[a] as usize] = NO_AGENT;
        }
    }

    /// Robot `a`'s cell for the next step, as the last [`RotatePibt::plan`] chose it.
    pub(crate) fn next_cell(&self, a: usize) -> CellId {
        self.next[a]
    }

    /// PIBT from robot `root`: it and the robots it pushes get their next cells.
    fn push(&mut self, root: u32, positions: &[CellId], candidates: &[RankedCells]) {
        self.stack.clear();
        self.stack.push(Frame {
            agent: root,
            forbidden: NO_CELL,
            next: 0,
        });
        // The answer of the frame just popped: whether its robot found a cell.
        let mut answer: Option<bool> = None;
        while let Some(top) = self.stack.last().copied() {
            let a = top.agent as usize;
            if answer.take() == Some(true) {
                // The pushed robot left the cell this one took.
                self.stack.pop();
                answer = Some(true);
                continue;
            }
            // (After a `false`, the pushed robot stays on that cell, its reservation now: this
            // one tries its next candidate.)
            let cells = candidates[a].cells();
            let mut i = top.next as usize;
            let mut pushed = false;
            let mut done = false;
            while i < cells.len() {
                let c = cells[i];
                i += 1;
                if self.reserved[c as usize] != NO_AGENT || c == top.forbidden {
                    continue;
                }
                // No swap with a robot already bound for this one's cell.
                let o = self.occupant[c as usize];
                if o != NO_AGENT && o as usize != a && self.next[o as usize] == positions[a] {
                    continue;
                }
                self.reserved[c as usize] = a as u32;
                self.next[a] = c;
                let b = self.occupant[c as usize];
                if b != NO_AGENT && b as usize != a && self.next[b as usize] == NO_CELL {
                    self.stack.last_mut().expect("a frame").next = i as u8;
                    self.stack.push(Frame {
                        agent: b,
                        forbidden: positions[a],
                        next: 0,
                    });
                    pushed = true;
                } else {
                    done = true;
                }
                break;
            }
            if pushed {
                continue;
            }
            self.stack.pop();
            if done {
                answer = Some(true);
            } else {
                // Nowhere to go: it stays, whoever had reserved its cell.
                let p = positions[a];
                self.next[a] = p;
                self.reserved[p as usize] = a as u32;
                answer = Some(false);
            }
        }
    }

    /// Passes 2 and 3: the actions that carry out the cells PIBT chose.
    fn actions(
        &mut self,
        grid: &Grid,
        positions: &[CellId],
        headings: &[Heading],
        candidates: &[RankedCells],
        out: &mut Vec<LorrAction>,
    ) {
        out.clear();
        for (a, (&p, &h)) in positions.iter().zip(headings).enumerate() {
            let c = self.next[a];
            let toward = if c != p {
                Some(c)
            } else if self.turn_while_waiting {
                candidates[a].cells().first().copied().filter(|&f| f != p)
            } else {
                None
            };
            let action = match toward.and_then(|t| Heading::toward(grid, p, t)) {
                Some(want) if want == h && c != p => LorrAction::Forward,
                Some(want) => h.turn_toward(want).into(),
                None => LorrAction::Wait,
            };
            out.push(action);
        }
        // A robot moves only if the robot on its next cell leaves it (or the cell is empty).
        self.chain_state.clear();
        self.chain_state.resize(positions.len(), 0);
        for a in 0..positions.len() {
            if out[a] != LorrAction::Forward || self.chain_state[a] != 0 {
                continue;
            }
            self.chain.clear();
            let mut x = a as u32;
            let moves = loop {
                match self.chain_state[x as usize] {
                    1 => break true, // A cycle moving in step.
                    2 => break true,
                    3 => break false,
                    _ => {}
                }
                if out[x as usize] != LorrAction::Forward {
                    break false;
                }
                self.chain_state[x as usize] = 1;
                self.chain.push(x);
                let b = self.occupant[self.next[x as usize] as usize];
                if b == NO_AGENT {
                    break true;
                }
                x = b;
            };
            for &y in &self.chain {
                self.chain_state[y as usize] = if moves { 2 } else { 3 };
                if !moves {
                    out[y as usize] = LorrAction::Wait;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Neighborhood;

    use Heading::{East, North, West};

    /// One step on the map drawn by `map`: per robot, its cell, its heading and the cells it
    /// wants, best first; robots planned in their order.
    fn plan(map: &str, robots: &[(CellId, Heading, &[CellId])]) -> Vec<LorrAction> {
        plan_bound(map, robots, &[])
    }

    /// [`plan`] with robot `a` bound for `committed[a]` (`NO_CELL`: none).
    fn plan_bound(
        map: &str,
        robots: &[(CellId, Heading, &[CellId])],
        committed: &[CellId],
    ) -> Vec<LorrAction> {
        let grid = Grid::from_ascii(map)
            .unwrap()
            .with_neighborhood(Neighborhood::Four);
        let positions: Vec<CellId> = robots.iter().map(|r| r.0).collect();
        let headings: Vec<Heading> = robots.iter().map(|r| r.1).collect();
        let candidates: Vec<RankedCells> = robots
            .iter()
            .map(|r| {
                let mut pairs: Vec<(u64, CellId)> =
                    r.2.iter()
                        .enumerate()
                        .map(|(i, &c)| (i as u64, c))
                        .collect();
                RankedCells::ranked(&mut pairs[..])
            })
            .collect();
        let order: Vec<u32> = (0..robots.len() as u32).collect();
        let mut out = Vec::new();
        RotatePibt::new(false).plan(
            &grid,
            Robots {
                positions: &positions,
                headings: &headings,
                committed,
            },
            &candidates,
            &order,
            &mut out,
        );
        out
    }

    #[test]
    fn a_robot_facing_its_cell_moves_and_others_turn_or_wait() {
        // Robot 0 at (0,0) facing east wants (1,0); robot 1 at (3,0) facing east wants (3,1)
        // (south: it turns clockwise).
        let out = plan("....\n....", &[(0, East, &[1, 0]), (3, East, &[7, 3])]);
        assert_eq!(out, vec![LorrAction::Forward, LorrAction::Clockwise]);
    }

    #[test]
    fn a_robot_behind_one_that_turns_waits() {
        // Robot 0 at 0 wants 1, where robot 1 stands; robot 1 wants 2 but faces west: it
        // turns, so robot 0 cannot enter its cell.
        let out = plan("....", &[(0, East, &[1, 0]), (1, West, &[2, 1])]);
        assert_eq!(out, vec![LorrAction::Wait, LorrAction::Clockwise]);
        // Facing east, robot 1 moves on and robot 0 follows.
        let out = plan("....", &[(0, East, &[1, 0]), (1, East, &[2, 1])]);
        assert_eq!(out, vec![LorrAction::Forward, LorrAction::Forward]);
    }

    #[test]
    fn robots_never_swap() {
        let out = plan("..", &[(0, East, &[1, 0]), (1, West, &[0, 1])]);
        assert!(out.contains(&LorrAction::Wait), "{out:?}");
    }

    #[test]
    fn a_robot_bound_for_a_cell_keeps_it_from_robots_planned_before_it() {
        // Robot 0 (planned first) wants cell 1; robot 1, at 2 facing north, is bound for it:
        // it turns toward it and robot 0 waits.
        let robots: &[(CellId, Heading, &[CellId])] = &[(0, East, &[1, 0]), (2, North, &[1, 2])];
        assert_eq!(
            plan_bound("....", robots, &[NO_CELL, 1]),
            vec![LorrAction::Wait, LorrAction::CounterClockwise]
        );
        // Unbound, robot 0 takes it.
        assert_eq!(plan("....", robots)[0], LorrAction::Forward);
    }

    #[test]
    fn no_robot_takes_the_cell_of_one_bound_for_its_own() {
        // Robot 1 at 1 is bound for cell 0, where robot 0 stands wanting cell 1: a swap.
        let robots: &[(CellId, Heading, &[CellId])] = &[(0, East, &[1, 0]), (1, North, &[0, 1])];
        assert_eq!(
            plan_bound("...", robots, &[NO_CELL, 0]),
            vec![LorrAction::Wait, LorrAction::CounterClockwise]
        );
    }
}
