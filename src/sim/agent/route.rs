//! How one move changes an agent's route and trip: stepping along the route, rejoining it
//! after a move off it (pushed by PIBT, or sent by an action), a controlled agent's walk, and
//! arriving at the goal. Every movement mode moves agents through [`Agent::take_move`], and
//! every arrival, including those the planning phase finds, goes through [`Agent::arrive`].
//!
//! # Arrival: one rule for its time
//! Time `t` is the moment tick `t` begins, so tick `t` is played from time `t` to `t + 1`.
//! An agent's [`arrived_at`](Agent::arrived_at) is the time from which it stands on its
//! goal: `t + 1` for an agent that steps onto it during tick `t` ([`ArrivalKind::Stepped`]),
//! `t` for one that already stands on it when tick `t` is played ([`ArrivalKind::Standing`]:
//! given the cell it stands on as its goal, or planned from its goal). A trip's cost, `arrived_at` minus
//! the time the goal was given, is then the ticks played to reach it (0 for a goal given where
//! the agent stands, the MAPF convention).
//!
//! # Arrival: one rule for what counts
//! A goal counts once per trip ([`crate::sim::TickReport::goals_reached`], and a lifelong run's
//! next goal): an agent moved off a goal it had reached (pushed by PIBT, or by an action) that
//! comes to stand on it again, by a step or found there by a plan, arrives again (its
//! `arrived_at` is the new time) but does not count it again. The agent keeps whether its
//! trip's goal was counted, so no sequence of pushes, replans and arrivals counts it twice.
//!
//! # Pushed off the route
//! An agent pushed onto a cell off its route does not replan. Its route is spliced: the new
//! cell is written just before the best route cell it is one move from (the cells skipped are
//! dropped), so the route again starts where the agent stands and leads back. The spliced
//! cells ahead are counted as the agent's drift; pushed further away, the splice grows, and
//! coming back consumes it. Only when the drift passes [`SimConfig::drift_replan`] cells (an
//! agent driven back a long way, whose old route may no longer be the best way) does it ask
//! for a new plan, from where it stands, as [`PlanReason::Drifted`].
//!
//! [`SimConfig::drift_replan`]: crate::sim::SimConfig::drift_replan
//! [`PlanReason::Drifted`]: crate::sim::PlanReason::Drifted

use super::{Agent, AgentState, Cells};
use crate::grid::{CellId, Direction, Grid, MoveSet};
use crate::sim::events::{ArrivalKind, PlanReason};
use crate::sim::move_context::MoveContext;

/// Fixed-point unit of route costs: one straight step on a cell of cost 1.
pub(crate) const UNIT: f64 = 65536.0;

/// Route cells past the spliced ones that candidate ranking (and the splice) looks at: a
/// neighbour of the agent's cell is at most two moves from the route cell three ahead.
pub(crate) const RANK_WINDOW: usize = 4;

/// Route cells the swap test's corridor walks look at (cells farther on get a straight-line
/// estimate), and how far ahead a move onto the route looks for its cell.
pub(crate) const WALK_WINDOW: usize = 48;

/// What one move did to an agent's trip: `Some(counted)` when it came to stand on its goal
/// (`counted`: whether that is a new goal reached, see [`Agent::arrive`]), `None` otherwise.
pub(crate) type Arrived = Option<bool>;

/// How the movement phase chose an agent's move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Chosen {
    /// The next cell of its own route (conflict modes `off` and `avoid`).
    Route,
    /// A cell chosen for it: by PIBT, by LaCAM's plan for a stuck crowd, or by an action.
    Sent,
}

/// Whether the agent follows a route: it has one (moving, waiting, or arrived on a route of
/// one cell) and stands on its first cell.
#[inline]
pub(super) fn on_route(agent: &Agent) -> bool {
    matches!(
        agent.state,
        AgentState::Moving | AgentState::Waiting | AgentState::Arrived
    ) && agent.route.first() == Some(agent.position)
}

/// The agent's route from its cell, with its drift, when it follows one ([`on_route`]).
pub(super) fn ahead(agent: &Agent) -> Option<(Cells<'_>, u32)> {
    on_route(agent).then(|| (agent.route.cells(), agent.drift))
}

impl Agent {
    /// Marks the agent arrived at its goal in `tick` (state arrived, [`Agent::arrived_at`] by
    /// the rule of the module docs) and returns whether that counts as a goal reached; the
    /// caller records the arrival.
    ///
    /// A goal counts once per trip: an agent that comes to stand on a goal it had reached again
    /// (moved off it and back, stepping onto it or found there by a plan) does not count it
    /// again.
    pub(crate) fn arrive(&mut self, tick: u64, how: ArrivalKind) -> bool {
        self.state = AgentState::Arrived;
        self.arrived_at = Some(match how {
            ArrivalKind::Stepped => tick + 1,
            ArrivalKind::Standing => tick,
        });
        if std::mem::replace(&mut self.goal_counted, true) {
            return false; // back on a goal it had reached: not a new goal
        }
        self.goals_reached += 1;
        true
    }

    /// Marks the agent, which had arrived, as moved off its goal: its trip is not over (coming
    /// back is not a new goal reached: [`Agent::arrive`] counts a trip's goal once).
    fn leave_goal(&mut self) {
        self.arrived_at = None;
    }

    /// Moves the agent onto `to`, a neighbouring cell the movement phase found free for it
    /// (`chosen` says how it was chosen), and returns its arrival, if it made one: a controlled
    /// agent walks there; otherwise the move is a step along its route, or one it rejoins its
    /// route from (see the module docs), asking for a new plan when it has drifted too far.
    /// The caller updates the occupancy and [`super::AgentSet::positions`].
    pub(crate) fn take_move(&mut self, ctx: &MoveContext, to: CellId, chosen: Chosen) -> Arrived {
        if self.controlled {
            return self.walk(to, ctx.tick);
        }
        match chosen {
            Chosen::Route => self.step_along(ctx.tick),
            Chosen::Sent => self.rejoin(ctx, to),
        }
    }

    /// [`take_move`](Self::take_move) of a move sent onto `to`, the route's second cell as the
    /// slot's window shows it: the same change as [`rejoin`](Self::rejoin) (which would find
    /// `to` at index 1), without reading the route's codes. `None`, nothing changed, where that
    /// does not apply (a controlled agent, a move onto the goal, a step that is not one move).
    #[inline]
    pub(super) fn step_to_second(&mut self, ctx: &MoveContext, to: CellId) -> Option<Arrived> {
        if self.controlled || self.goal == Some(to) || !self.route.advance_step(to) {
            return None;
        }
        self.position = to;
        self.moves += 1;
        self.waited = 0;
        self.drift = self.drift.saturating_sub(1);
        let arrived = if self.route.len() == 1 {
            Some(self.arrive(ctx.tick, ArrivalKind::Stepped))
        } else {
            self.state = AgentState::Moving;
            None
        };
        if self.drift > ctx.config.drift_replan {
            self.ask_plan(PlanReason::Drifted, ctx.tick);
        }
        Some(arrived)
    }

    /// Moves the agent one cell along its route during `tick`.
    fn step_along(&mut self, tick: u64) -> Arrived {
        self.position = self.route.second().expect("a route step has a next cell");
        self.route.advance(1);
        self.moves += 1;
        self.waited = 0;
        self.blocked_failures = 0;
        if self.route.len() == 1 {
            // At the end of the tick; back on a goal it was moved off (by an action) is not a
            // new goal.
            Some(self.arrive(tick, ArrivalKind::Stepped))
        } else {
            self.state = AgentState::Moving;
            None
        }
    }

    /// Moves the controlled agent onto `to` during `tick`, keeping its state (arrived on its
    /// goal, moving otherwise, idle without a goal).
    fn walk(&mut self, to: CellId, tick: u64) -> Arrived {
        self.position = to;
        self.moves += 1;
        self.waited = 0;
        match self.goal {
            Some(goal) if goal == to => Some(self.arrive(tick, ArrivalKind::Stepped)),
            Some(_) => {
                if self.state == AgentState::Arrived {
                    // Left the goal it had reached: on its way back, not to a new goal.
                    self.leave_goal();
                }
                self.state = AgentState::Moving;
                None
            }
            None => None,
        }
    }

    /// Moves the agent onto `to`, a neighbouring cell PIBT, LaCAM or an action sent it to,
    /// keeps its route leading from where it stands (see the module docs), and asks for a new
    /// plan when it has drifted too far.
    fn rejoin(&mut self, ctx: &MoveContext, to: CellId) -> Arrived {
        let arrived = self.splice(ctx.grid, to, ctx.tick);
        if self.drift > ctx.config.drift_replan {
            self.ask_plan(PlanReason::Drifted, ctx.tick);
        }
        arrived
    }

    /// [`rejoin`](Self::rejoin) less the plan request.
    fn splice(&mut self, grid: &Grid, to: CellId, tick: u64) -> Arrived {
        let followed = on_route(self);
        self.position = to;
        self.moves += 1;
        self.waited = 0;
        if !followed {
            return None; // pushed while it has no route (no goal, or waiting for a plan)
        }
        if self.goal == Some(to) {
            // Pushed onto its goal from off the stretch of route it looks at (a spliced route
            // can lead back a long way round): the trip is over.
            self.route.set(&[to], grid.width());
            self.drift = 0;
            return Some(self.arrive(tick, ArrivalKind::Stepped));
        }
        // Indices below count from the agent's place on its route (the route's first cell).
        // The cell itself is looked for farther on than the splice below looks: a route
        // spliced several times can come back past the agent (a detour round a block to a cell
        // next to it), and splicing `to` in before such a loop would leave the agent on a route
        // through its own cell again, which then ranks staying put as progress (RANDOM-01 of
        // the League of Robot Runners froze whole after 1,200 steps that way).
        let far = self.drift as usize + WALK_WINDOW - 1;
        if let Some(j) = self.route.find(to, far) {
            self.drift = self.drift.saturating_sub(j as u32);
            self.route.advance(j);
        } else {
            // Off the route: splice `to` in before the best route cell it is one move from
            // (the cells before that one are dropped).
            let guide = MoveCosts::new(grid);
            let mut best = (i64::MAX, 0);
            let mut progress = 0i64;
            let mut prev = None;
            let window = self.drift as usize + RANK_WINDOW;
            for (j, cell) in self.route.cells().take(window).enumerate() {
                if let Some(prev) = prev {
                    progress += guide.cost(prev, cell).unwrap_or(i64::MAX / 4);
                }
                prev = Some(cell);
                if let Some(c) = guide.cost(to, cell) {
                    let value = c - progress;
                    if value < best.0 {
                        best = (value, j);
                    }
                }
            }
            let j = best.1;
            let spliced_left = (self.drift as usize).saturating_sub(j) as u32;
            self.route.advance(j);
            self.route.push_front(to, grid.width());
            self.drift = 1 + spliced_left;
            if self.state == AgentState::Arrived {
                // Pushed off its goal (one-shot runs): it goes back, and its trip is not over.
                self.leave_goal();
            }
            self.state = AgentState::Moving;
            return None;
        }
        if self.route.len() == 1 {
            Some(self.arrive(tick, ArrivalKind::Stepped))
        } else {
            self.state = AgentState::Moving;
            None
        }
    }
}

/// The move to each of the eight cells around a cell, by row (north to south) and column.
const DIRECTIONS: [[Option<Direction>; 3]; 3] = {
    use Direction::*;
    [
        [Some(NorthWest), Some(North), Some(NorthEast)],
        [Some(West), None, Some(East)],
        [Some(SouthWest), Some(South), Some(SouthEast)],
    ]
};

/// Costs of single legal moves, in fixed-point units ([`UNIT`]).
#[derive(Clone, Copy)]
pub(crate) struct MoveCosts<'a> {
    pub(crate) grid: &'a Grid,
    offsets: [i64; 8],
    /// On a grid without cell costs, each direction's cost (what the weighted sum gives with
    /// every cost 1), looked up instead of computed in floating point.
    unweighted: Option<[i64; 8]>,
    /// The step table of a grid without cell costs at least 3 wide.
    plain: Option<PlainSteps>,
}

impl<'a> MoveCosts<'a> {
    pub(crate) fn new(grid: &'a Grid) -> Self {
        let unweighted = (!grid.is_weighted())
            .then(|| std::array::from_fn(|d| (Direction::BASE_COST[d] * UNIT) as i64));
        MoveCosts {
            grid,
            offsets: grid.move_offsets(),
            unweighted,
            plain: unweighted.and_then(|costs| PlainSteps::new(costs, grid.width())),
        }
    }

    /// The step table for grids without cell costs at least 3 wide ([`PlainSteps`]); `None`
    /// for other grids.
    #[inline]
    pub(crate) fn plain(&self) -> Option<&PlainSteps> {
        self.plain.as_ref()
    }
    /// The cost of the legal move `a -> b`, or `None` when `b` is not one legal move from `a`.
    #[inline]
    pub(crate) fn cost(&self, a: CellId, b: CellId) -> Option<i64> {
        let delta = i64::from(b) - i64::from(a);
        if let Some(plain) = &self.plain {
            return plain.step(delta, self.grid.moves(a));
        }
        let width = i64::from(self.grid.width());
        let dir = if width >= 3 {
            // Row of `b` relative to `a` from the size of the jump (unambiguous when the grid
            // is at least 3 wide), then the column.
            let (dy, dx) = if delta < -1 {
                (0, delta + width)
            } else if delta > 1 {
                (2, delta - width)
            } else {
                (1, delta)
            };
            if !(-1..=1).contains(&dx) {
                return None;
            }
            DIRECTIONS[dy][(dx + 1) as usize]?
        } else {
            self.grid
                .moves(a)
                .iter()
                .find(|d| self.offsets[d.index()] == delta)?
        };
        if !self.grid.moves(a).contains(dir) {
            return None;
        }
        Some(match &self.unweighted {
            Some(costs) => costs[dir.index()],
            None => (self.grid.step_cost(dir, b) * UNIT) as i64,
        })
    }
}

/// The costs of one-move steps on a grid without cell costs at least 3 wide, found from a
/// difference of cell ids and the legal moves of the cell stepped from, read once by the
/// caller for many steps ([`MoveCosts::plain`]): the ranking's inner loop, which tries every
/// candidate cell against every route cell in its window.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlainSteps {
    width: i64,
    /// By row (north to south) and column of the step: its direction's bit and cost (bit 0
    /// for no step).
    steps: [(u8, i64); 9],
}

impl PlainSteps {
    /// The table for direction costs `costs` on a grid `width` wide; `None` below 3 wide,
    /// where a difference of cell ids does not tell the row.
    fn new(costs: [i64; 8], width: u32) -> Option<PlainSteps> {
        if width < 3 {
            return None;
        }
        let mut steps = [(0u8, 0i64); 9];
        for (row, dirs) in DIRECTIONS.iter().enumerate() {
            for (col, dir) in dirs.iter().enumerate() {
                if let Some(d) = dir {
                    steps[row * 3 + col] = (1 << d.index(), costs[d.index()]);
                }
            }
        }
        Some(PlainSteps {
            width: i64::from(width),
            steps,
        })
    }

    /// The cost of the step `delta` (a difference of cell ids, not 0) from a cell whose legal
    /// moves are `moves`, or `None` when it is not one legal move: [`MoveCosts::cost`] with
    /// the cell's moves read already.
    #[inline]
    pub(crate) fn step(&self, delta: i64, moves: MoveSet) -> Option<i64> {
        let (row, dx) = if delta < -1 {
            (0, delta + self.width)
        } else if delta > 1 {
            (2, delta - self.width)
        } else {
            (1, delta)
        };
        if !(-1..=1).contains(&dx) {
            return None;
        }
        let (bit, cost) = self.steps[(row * 3 + dx + 1) as usize];
        (moves.0 & bit != 0).then_some(cost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent() -> Agent {
        Agent::new(0, 0, None, false)
    }

    #[test]
    fn arrival_time_is_when_the_agent_stands_on_its_goal() {
        let mut stepped = agent();
        assert!(stepped.arrive(7, ArrivalKind::Stepped));
        assert_eq!(stepped.state, AgentState::Arrived);
        assert_eq!(stepped.arrived_at, Some(8), "there from the end of tick 7");
        assert_eq!(stepped.goals_reached, 1);

        let mut standing = agent();
        assert!(standing.arrive(7, ArrivalKind::Standing));
        assert_eq!(
            standing.arrived_at,
            Some(7),
            "there from the start of tick 7"
        );
        assert_eq!(standing.goals_reached, 1);
    }

    #[test]
    fn a_step_back_onto_a_goal_reached_counts_once() {
        let mut agent = agent();
        assert!(agent.arrive(3, ArrivalKind::Stepped));
        agent.leave_goal();
        assert_eq!(agent.arrived_at, None);
        assert!(!agent.arrive(5, ArrivalKind::Stepped));
        assert_eq!((agent.arrived_at, agent.goals_reached), (Some(6), 1));
        // Arriving again without having left (planning finds it there) does not count either.
        assert!(!agent.arrive(6, ArrivalKind::Standing));
        assert_eq!(agent.goals_reached, 1);
        // Found standing on it by a plan, it does not count either.
        agent.leave_goal();
        assert!(!agent.arrive(9, ArrivalKind::Standing));
        assert_eq!((agent.arrived_at, agent.goals_reached), (Some(9), 1));
        // A new goal counts.
        agent.set_goal(0, 10);
        assert!(agent.arrive(10, ArrivalKind::Standing));
        assert_eq!((agent.arrived_at, agent.goals_reached), (Some(10), 2));
    }

    /// Issue 39's case: pushed off its goal, held by a map-change replan, pushed back and found
    /// there by the plan: the goal still counts once.
    #[test]
    fn a_goal_pushed_off_replanned_and_pushed_back_counts_once() {
        let grid = Grid::from_ascii("....").unwrap();
        let config = crate::sim::SimConfig::default();
        let ctx = MoveContext {
            grid: &grid,
            config: &config,
            tick: 1,
            forced: &[],
        };
        let mut agent = agent();
        agent.set_route(&[0, 1], 4, 0);
        assert_eq!(agent.take_move(&ctx, 1, Chosen::Route), Some(true));
        assert_eq!(agent.take_move(&ctx, 2, Chosen::Sent), None, "pushed off");
        assert_eq!(agent.state, AgentState::Moving);
        agent.clear_route();
        agent.request_plan(PlanReason::MapChanged, 2);
        assert_eq!(agent.take_move(&ctx, 1, Chosen::Sent), None, "pushed back");
        assert_eq!(agent.take_plan_request(), Some(PlanReason::MapChanged));
        let mut path = super::super::RouteCode::from_cells(&[1], 4);
        assert_eq!(agent.adopt_path(&mut path, false, 3), Some(false));
        assert_eq!((agent.state, agent.goals_reached), (AgentState::Arrived, 1));
    }
}
