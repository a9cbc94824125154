//! Action models: what one agent may do in one tick.
//!
//! - [`ActionModel::Free`]: step to any neighbouring cell the grid's neighbourhood allows, or
//!   stay. The default.
//! - [`ActionModel::Rotate`]: the robot model of the League of Robot Runners (`MAPF_T`). Each
//!   agent faces one of four [`Heading`]s; per tick it moves **F**orward one cell, turns 90
//!   degrees clockwise (**R**) or counter-clockwise (**C**), or **W**aits. Going round a corner
//!   therefore costs a tick more than in the free model, and an agent can only make room for
//!   another by moving to the cell it faces.
//!
//! # The rotation model's step rules
//! Under `Rotate` the PIBT movement phase ranks cells as in the free model, plus the turns to
//! face each ([`Heading::quarter_turns`]), then [`ForwardOnly`] turns PIBT's joint step into
//! forward moves and turns: an agent sent to the cell it faces moves there; one sent elsewhere
//! stays and turns toward that cell (the decision of which way to turn is
//! [`Heading::turn_toward`]), and is *committed* to it: next tick it is offered only that
//! cell and its own, ahead of the others ([`commitment_holds`]), until it has moved there. An
//! agent that stays turns toward the next cell of its route. The planners still plan on
//! cells: a route's corners are paid for when they are met, which is why routes are not
//! replaced by a search over (cell, heading) states; rotation-aware guidance belongs to the
//! driver that knows the errands (see `crate::lorr`).

use serde::{Deserialize, Serialize};

use crate::grid::NO_CELL;
use crate::grid::{CellId, Direction, Grid, Neighborhood};
use crate::mapf::NO_AGENT;

/// What one agent may do in one tick (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionModel {
    /// Any move of the grid's neighbourhood, or stay. The default.
    #[default]
    Free,
    /// Forward, turn clockwise, turn counter-clockwise or wait, with a heading per agent.
    /// Needs [`crate::sim::ConflictMode::Pibt`], and a 4-connected grid for agents that follow
    /// their own routes (see [`ActionModel::unsupported_on`]).
    Rotate,
}

impl ActionModel {
    /// Every model, in the order of their names.
    pub const ALL: [ActionModel; 2] = [ActionModel::Free, ActionModel::Rotate];

    /// The name used in scenario files and on the command line (`free`, `rotate`).
    pub fn name(self) -> &'static str {
        match self {
            ActionModel::Free => "free",
            ActionModel::Rotate => "rotate",
        }
    }

    /// Why the model cannot play on a grid of `neighborhood` moves, or `None` when it can.
    ///
    /// [`ActionModel::Rotate`] needs a 4-connected grid. Its agents step only straight ahead,
    /// while the planners route over the grid's own moves: on an 8-connected grid most routes
    /// step diagonally, and an agent whose next route cell is diagonal can neither face it
    /// ([`Heading::toward`] has no heading for it) nor step onto it, so it stays, turns nowhere
    /// and asks for the same cell next tick, for ever (measured: 0 of the 1,200 agents of
    /// `sims/crowd-rooms.toml` and 2 of the 10,000 of the default scenario arrived; agents
    /// driven from outside get no moves under `rotate`, only waits). A simulation is refused
    /// this combination ([`crate::sim::SimConfig::check`]).
    ///
    /// ```
    /// use throng::grid::Neighborhood;
    /// use throng::sim::ActionModel;
    ///
    /// assert!(ActionModel::Rotate.unsupported_on(Neighborhood::Eight).is_some());
    /// assert!(ActionModel::Rotate.unsupported_on(Neighborhood::Four).is_none());
    /// assert!(ActionModel::Free.unsupported_on(Neighborhood::Eight).is_none());
    /// ```
    pub fn unsupported_on(self, neighborhood: Neighborhood) -> Option<String> {
        (self == ActionModel::Rotate && neighborhood == Neighborhood::Eight).then(|| {
            "\"rotate\" moves only straight ahead and needs map.neighbourhood = 4: on this \
             8-connected map an agent whose route steps diagonally can neither face nor take \
             that step, and never moves"
                .to_string()
        })
    }
}

impl std::fmt::Display for ActionModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ActionModel {
    type Err = crate::error::Error;

    /// ```
    /// use throng::sim::ActionModel;
    /// assert_eq!("rotate".parse::<ActionModel>()?, ActionModel::Rotate);
    /// assert!("fly".parse::<ActionModel>().is_err());
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ActionModel::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                crate::error::Error::Invalid(format!(
                    "unknown action model {s:?} (expected free or rotate)"
                ))
            })
    }
}

/// The way an agent faces under [`ActionModel::Rotate`]. The numbering (0 east, 1 south,
/// 2 west, 3 north: clockwise on a map drawn with row 0 at the top) is the League of Robot
/// Runners'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[repr(u8)]
pub enum Heading {
    /// Toward higher columns. Where agents start unless told otherwise.
    #[default]
    East = 0,
    /// Toward higher rows.
    South = 1,
    /// Toward lower columns.
    West = 2,
    /// Toward lower rows.
    North = 3,
}

/// One agent's action in one tick under [`ActionModel::Rotate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Move one cell the way the agent faces.
    Forward,
    /// Turn 90 degrees clockwise.
    Clockwise,
    /// Turn 90 degrees counter-clockwise.
    CounterClockwise,
    /// Stay, facing the same way.
    Wait,
}

impl Action {
    /// The competition's letter for the action: `F`, `R`, `C` or `W`.
    pub fn letter(self) -> char {
        match self {
            Action::Forward => 'F',
            Action::Clockwise => 'R',
            Action::CounterClockwise => 'C',
            Action::Wait => 'W',
        }
    }

    /// The action of a letter (`F`, `R`, `C`, `W`).
    pub fn from_letter(letter: char) -> Option<Action> {
        Some(match letter {
            'F' => Action::Forward,
            'R' => Action::Clockwise,
            'C' => Action::CounterClockwise,
            'W' => Action::Wait,
            _ => return None,
        })
    }
}

impl Heading {
    /// The four headings by number.
    pub const ALL: [Heading; 4] = [Heading::East, Heading::South, Heading::West, Heading::North];

    /// The heading's number (0 east, 1 south, 2 west, 3 north).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The heading of a number taken modulo 4.
    #[inline]
    pub fn from_index(i: usize) -> Heading {
        Heading::ALL[i % 4]
    }

    /// The heading after a clockwise turn.
    #[inline]
    pub fn clockwise(self) -> Heading {
        Heading::from_index(self.index() + 1)
    }

    /// The heading after a counter-clockwise turn.
    #[inline]
    pub fn counter_clockwise(self) -> Heading {
        Heading::from_index(self.index() + 3)
    }

    /// The grid move straight ahead.
    #[inline]
    pub fn direction(self) -> Direction {
        match self {
            Heading::East => Direction::East,
            Heading::South => Direction::South,
            Heading::West => Direction::West,
            Heading::North => Direction::North,
        }
    }

    /// The heading of a straight grid move (`None` for a diagonal).
    pub fn of_direction(dir: Direction) -> Option<Heading> {
        Heading::ALL.into_iter().find(|h| h.direction() == dir)
    }

    /// The cell straight ahead of `cell`, when it is on the map and walkable.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::sim::Heading;
    ///
    /// let grid = Grid::from_ascii("..\n.@")?;
    /// let corner = grid.cell(0, 0).unwrap();
    /// assert_eq!(Heading::East.ahead(&grid, corner), grid.cell(1, 0));
    /// assert_eq!(Heading::North.ahead(&grid, corner), None); // off the map
    /// assert_eq!(Heading::South.ahead(&grid, grid.cell(1, 0).unwrap()), None); // a wall
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    #[inline]
    pub fn ahead(self, grid: &Grid, cell: CellId) -> Option<CellId> {
        let dir = self.direction();
        grid.moves(cell).contains(dir).then(|| grid.step(cell, dir))
    }

    /// The heading from `from` to the neighbouring cell `to`, when `to` is one straight step
    /// away (walls are not checked).
    pub fn toward(grid: &Grid, from: CellId, to: CellId) -> Option<Heading> {
        let (fx, fy) = grid.coords(from);
        let (tx, ty) = grid.coords(to);
        let dx = i64::from(tx) - i64::from(fx);
        let dy = i64::from(ty) - i64::from(fy);
        Direction::from_delta(dx.clamp(-2, 2) as i32, dy.clamp(-2, 2) as i32)
            .and_then(Heading::of_direction)
    }

    /// The action that brings an agent facing `self` closer to facing `want`: the shorter
    /// turn, clockwise for a half turn, [`Action::Wait`] when it already faces it.
    pub fn turn_toward(self, want: Heading) -> Action {
        match (want.index() + 4 - self.index()) % 4 {
            0 => Action::Wait,
            3 => Action::CounterClockwise,
            _ => Action::Clockwise,
        }
    }

    /// The heading after `action` (a move keeps it).
    pub fn after(self, action: Action) -> Heading {
        match action {
            Action::Clockwise => self.clockwise(),
            Action::CounterClockwise => self.counter_clockwise(),
            Action::Forward | Action::Wait => self,
        }
    }
}

impl Heading {
    /// Quarter turns from facing `self` to facing `want`: 0, 1 or 2.
    #[inline]
    pub(crate) fn quarter_turns(self, want: Heading) -> u32 {
        match (want.index() + 4 - self.index()) % 4 {
            0 => 0,
            2 => 2,
            _ => 1,
        }
    }
}

/// Whether an agent on `at` committed to the cell `committed` (sent there by PIBT while it
/// did not face it: see the module docs) still is: the cell is a straight step away and not
/// its own.
#[inline]
pub(crate) fn commitment_holds(grid: &Grid, at: CellId, committed: CellId) -> bool {
    committed != at && Heading::toward(grid, at, committed).is_some()
}

/// Action model `rotate`: turns PIBT's joint step into forward moves and turns (see the module
/// docs). Scratch memory reused every tick.
#[derive(Debug, Default)]
pub(crate) struct ForwardOnly {
    /// Per slot, the cell PIBT sent the agent to this tick.
    intent: Vec<CellId>,
    /// Per slot, the heading an agent that stays turns toward.
    turns: Vec<Option<Heading>>,
    /// Per cell, the agent sent onto it ([`NO_AGENT`] for none; all clear between ticks).
    entering: Vec<u32>,
    /// Agents that stay, whose cells are not free to enter.
    work: Vec<u32>,
}

impl ForwardOnly {
    /// Rewrites PIBT's step `next` (per slot, from `positions`; [`NO_CELL`] for a free slot)
    /// into forward moves: an agent sent to the cell it faces moves there; one sent elsewhere
    /// stays and turns toward that cell (so it can go next tick if PIBT still wants it there);
    /// one sent nowhere turns toward its route's next cell. An agent whose target is the cell
    /// of an agent that stays must stay too, and so on back along the chain: the cells entered
    /// are all left in the same tick, so no two agents meet. `agent` gives a live slot's
    /// heading and its route's next cell.
    pub(crate) fn apply(
        &mut self,
        grid: &Grid,
        positions: &[CellId],
        next: &mut [CellId],
        agent: impl Fn(u32) -> Option<(Heading, Option<CellId>)>,
    ) {
        self.intent.clear();
        self.intent.extend_from_slice(next);
        self.turns.clear();
        self.turns.resize(positions.len(), None);
        if self.entering.len() != grid.len() {
            self.entering.clear();
            self.entering.resize(grid.len(), NO_AGENT);
        }
        let (entering, work, turns) = (&mut self.entering, &mut self.work, &mut self.turns);
        work.clear();
        for (slot, (&from, to)) in positions.iter().zip(next.iter_mut()).enumerate() {
            if from == NO_CELL {
                continue;
            }
            let Some((heading, route_next)) = agent(slot as u32) else {
                continue;
            };
            if *to == from {
                turns[slot] = route_next.and_then(|n| Heading::toward(grid, from, n));
                work.push(slot as u32);
            } else if heading.ahead(grid, from) == Some(*to) {
                entering[*to as usize] = slot as u32;
            } else {
                turns[slot] = Heading::toward(grid, from, *to);
                *to = from;
                work.push(slot as u32);
            }
        }
        // Agents that stay hold their cells: whoever meant to enter one stays too.
        while let Some(stayer) = work.pop() {
            let cell = positions[stayer as usize];
            let behind = std::mem::replace(&mut entering[cell as usize], NO_AGENT);
            if behind != NO_AGENT && next[behind as usize] == cell {
                next[behind as usize] = positions[behind as usize];
                work.push(behind);
            }
        }
        // Clear the table for the next tick.
        for (slot, &to) in next.iter().enumerate() {
            if to != NO_CELL && to != positions[slot] {
                entering[to as usize] = NO_AGENT;
            }
        }
    }

    /// The heading the agent in `slot` turns toward, having stayed in the last
    /// [`apply`](Self::apply) (`None`: it keeps its heading).
    #[inline]
    pub(crate) fn turn(&self, slot: u32) -> Option<Heading> {
        self.turns.get(slot as usize).copied().flatten()
    }

    /// The cell the agent in `slot` stays committed to after the last [`apply`](Self::apply),
    /// given where it was (`from`) and is (`to`): the cell PIBT sent it to, when it did not
    /// get there.
    #[inline]
    pub(crate) fn commitment(&self, slot: u32, from: CellId, to: CellId) -> Option<CellId> {
        let intent = self.intent[slot as usize];
        (from == to && intent != from).then_some(intent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_go_round_clockwise_from_east() {
        assert_eq!(Heading::East.clockwise(), Heading::South);
        assert_eq!(Heading::North.clockwise(), Heading::East);
        assert_eq!(Heading::East.counter_clockwise(), Heading::North);
        for h in Heading::ALL {
            assert_eq!(h.clockwise().counter_clockwise(), h);
            assert_eq!(h.turn_toward(h), Action::Wait);
            assert_eq!(h.turn_toward(h.clockwise()), Action::Clockwise);
            assert_eq!(
                h.turn_toward(h.counter_clockwise()),
                Action::CounterClockwise
            );
            assert_eq!(h.turn_toward(h.clockwise().clockwise()), Action::Clockwise);
            for a in [
                Action::Forward,
                Action::Clockwise,
                Action::CounterClockwise,
                Action::Wait,
            ] {
                assert_eq!(Action::from_letter(a.letter()), Some(a));
            }
        }
    }

    #[test]
    fn headings_point_at_their_neighbours() {
        let grid = Grid::from_ascii("...\n...\n...").unwrap();
        let centre = grid.cell(1, 1).unwrap();
        assert_eq!(
            Heading::toward(&grid, centre, grid.cell(2, 1).unwrap()),
            Some(Heading::East)
        );
        assert_eq!(
            Heading::toward(&grid, centre, grid.cell(1, 2).unwrap()),
            Some(Heading::South)
        );
        assert_eq!(
            Heading::toward(&grid, centre, grid.cell(0, 1).unwrap()),
            Some(Heading::West)
        );
        assert_eq!(
            Heading::toward(&grid, centre, grid.cell(1, 0).unwrap()),
            Some(Heading::North)
        );
        assert_eq!(
            Heading::toward(&grid, centre, grid.cell(2, 2).unwrap()),
            None
        );
        assert_eq!(
            Heading::toward(&grid, grid.cell(0, 1).unwrap(), grid.cell(2, 1).unwrap()),
            None
        );
        for h in Heading::ALL {
            let ahead = h.ahead(&grid, centre).unwrap();
            assert_eq!(Heading::toward(&grid, centre, ahead), Some(h));
        }
    }
}
