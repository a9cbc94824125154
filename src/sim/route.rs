//! How one move changes an agent's route and trip: stepping along the route, rejoining it
//! after a move off it (pushed by PIBT, or sent by an action), and arriving at the goal.
//! Every movement mode moves agents through these functions, and every arrival, including
//! those the planning phase finds, goes through [`arrive`].
//!
//! # Arrival: one rule for its time
//! Time `t` is the moment tick `t` begins, so tick `t` is played from time `t` to `t + 1`.
//! An agent's [`arrived_at`](super::Agent::arrived_at) is the time from which it stands on its
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
//! [`SimConfig::drift_replan`]: super::SimConfig::drift_replan

use super::agent::{Agent, AgentState};
use super::events::{ArrivalKind, PlanReason};
use super::move_context::MoveContext;
use crate::grid::{CellId, Direction, Grid};

/// Fixed-point unit of route costs: one straight step on a cell of cost 1.
pub(super) const UNIT: f64 = 65536.0;

/// Route cells past the spliced ones that candidate ranking (and the splice) looks at: a
/// neighbour of the agent's cell is at most two moves from the route cell three ahead.
pub(super) const RANK_WINDOW: usize = 4;

/// Route cells the swap test's corridor walks look at (cells farther on get a straight-line
/// estimate), and how far ahead a move onto the route looks for its cell.
pub(super) const WALK_WINDOW: usize = 48;

/// What one move did to an agent's trip: `Some(counted)` when it came to stand on its goal
/// (`counted`: whether that is a new goal reached, see [`arrive`]), `None` otherwise.
pub(crate) type Arrived = Option<bool>;

/// Marks `agent` arrived at its goal in `tick` (state arrived, [`Agent::arrived_at`] by the
/// rule of the module docs) and returns whether that counts as a goal reached; the caller
/// records the arrival.
///
/// A goal counts once per trip: an agent that comes to stand on a goal it had reached again
/// (moved off it and back, stepping onto it or found there by a plan) does not count it again.
pub(crate) fn arrive(agent: &mut Agent, tick: u64, how: ArrivalKind) -> bool {
    agent.state = AgentState::Arrived;
    agent.arrived_at = Some(match how {
        ArrivalKind::Stepped => tick + 1,
        ArrivalKind::Standing => tick,
    });
    if std::mem::replace(&mut agent.goal_counted, true) {
        return false; // back on a goal it had reached: not a new goal
    }
    agent.goals_reached += 1;
    true
}

/// Marks `agent`, which had arrived, as moved off its goal: its trip is not over (coming back
/// is not a new goal reached: [`arrive`] counts a trip's goal once).
pub(super) fn leave_goal(agent: &mut Agent) {
    agent.arrived_at = None;
}

/// Whether the agent follows a route: it has one (moving, waiting, or arrived on a route of
/// one cell) and stands on its cursor's cell.
#[inline]
pub(super) fn on_route(agent: &Agent) -> bool {
    matches!(
        agent.state,
        AgentState::Moving | AgentState::Waiting | AgentState::Arrived
    ) && agent.path.get(agent.cursor) == Some(&agent.position)
}

/// The agent's route from its cell, with its drift, when it follows one ([`on_route`]).
pub(super) fn ahead(agent: &Agent) -> Option<(&[CellId], u32)> {
    matches!(
        agent.state,
        AgentState::Moving | AgentState::Waiting | AgentState::Arrived
    )
    .then(|| agent.path.get(agent.cursor..))
    .flatten()
    .filter(|rest| rest.first() == Some(&agent.position))
    .map(|rest| (rest, agent.drift))
}

/// Moves `agent` one cell along its route (the caller found the cell free) during `tick`, and
/// returns its arrival, if it made one. The caller updates the occupancy and
/// [`super::AgentSet::positions`].
pub(super) fn step_along(agent: &mut Agent, tick: u64) -> Arrived {
    agent.position = agent.path[agent.cursor + 1];
    agent.cursor += 1;
    agent.moves += 1;
    agent.waited = 0;
    agent.blocked_failures = 0;
    if agent.cursor + 1 == agent.path.len() {
        // At the end of the tick; back on a goal it was moved off (by an action) is not a new
        // goal.
        Some(arrive(agent, tick, ArrivalKind::Stepped))
    } else {
        agent.state = AgentState::Moving;
        None
    }
}

/// Moves `agent` onto `to`, a neighbouring cell PIBT or an action sent it to, keeps its route
/// leading from where it stands (see the module docs), asks for a new plan when it has drifted
/// too far, and returns its arrival, if it made one. The caller updates the occupancy and
/// [`super::AgentSet::positions`].
pub(super) fn rejoin(ctx: &MoveContext, agent: &mut Agent, to: CellId) -> Arrived {
    let arrived = splice(ctx.grid, agent, to, ctx.tick);
    if agent.drift > ctx.config.drift_replan && agent.plan_request.is_none() {
        agent.plan_request = Some((PlanReason::Drifted, ctx.tick));
    }
    arrived
}

/// [`rejoin`] less the plan request.
fn splice(grid: &Grid, agent: &mut Agent, to: CellId, tick: u64) -> Arrived {
    let followed = on_route(agent);
    agent.position = to;
    agent.moves += 1;
    agent.waited = 0;
    if !followed {
        return None; // pushed while it has no route (no goal, or waiting for a plan)
    }
    if agent.goal == Some(to) {
        // Pushed onto its goal from off the stretch of route it looks at (a spliced route can
        // lead back a long way round): the trip is over.
        agent.path.clear();
        agent.path.push(to);
        agent.cursor = 0;
        agent.drift = 0;
        return Some(arrive(agent, tick, ArrivalKind::Stepped));
    }
    let cursor = agent.cursor;
    let end = (cursor + agent.drift as usize + RANK_WINDOW).min(agent.path.len());
    // The cell itself is looked for farther on than the splice below looks: a route spliced
    // several times can come back past the agent (a detour round a block to a cell next to
    // it), and splicing `to` in before such a loop would leave the agent on a route through
    // its own cell again, which then ranks staying put as progress (RANDOM-01 of the League
    // of Robot Runners froze whole after 1,200 steps that way).
    let far_end = (cursor + agent.drift as usize + WALK_WINDOW).min(agent.path.len());
    if let Some(ahead) = agent.path[cursor + 1..far_end]
        .iter()
        .position(|&c| c == to)
    {
        let j = cursor + 1 + ahead;
        agent.drift = agent.drift.saturating_sub((j - cursor) as u32);
        agent.cursor = j;
    } else {
        // Off the route: splice `to` in before the best route cell it is one move from.
        let guide = MoveCosts::new(grid);
        let mut best = (i64::MAX, cursor);
        let mut progress = 0i64;
        for j in cursor..end {
            if j > cursor {
                progress += guide
                    .cost(agent.path[j - 1], agent.path[j])
                    .unwrap_or(i64::MAX / 4);
            }
            if let Some(c) = guide.cost(to, agent.path[j]) {
                let value = c - progress;
                if value < best.0 {
                    best = (value, j);
                }
            }
        }
        let j = best.1;
        let spliced_left = (cursor + agent.drift as usize).saturating_sub(j) as u32;
        if j >= 1 {
            agent.path[j - 1] = to;
            agent.cursor = j - 1;
        } else {
            agent.path.insert(0, to);
            agent.cursor = 0;
        }
        agent.drift = 1 + spliced_left;
        if agent.state == AgentState::Arrived {
            // Pushed off its goal (one-shot runs): it goes back, and its trip is not over.
            leave_goal(agent);
        }
        agent.state = AgentState::Moving;
        return None;
    }
    if agent.cursor + 1 == agent.path.len() {
        Some(arrive(agent, tick, ArrivalKind::Stepped))
    } else {
        agent.state = AgentState::Moving;
        None
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
pub(super) struct MoveCosts<'a> {
    pub(super) grid: &'a Grid,
    offsets: [i64; 8],
}

impl<'a> MoveCosts<'a> {
    pub(super) fn new(grid: &'a Grid) -> Self {
        MoveCosts {
            grid,
            offsets: grid.move_offsets(),
        }
    }

    /// The cost of the legal move `a -> b`, or `None` when `b` is not one legal move from `a`.
    #[inline]
    pub(super) fn cost(&self, a: CellId, b: CellId) -> Option<i64> {
        let delta = i64::from(b) - i64::from(a);
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
        self.grid
            .moves(a)
            .contains(dir)
            .then(|| (self.grid.step_cost(dir, b) * UNIT) as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrival_time_is_when_the_agent_stands_on_its_goal() {
        let mut stepped = Agent::new(0, 0);
        assert!(arrive(&mut stepped, 7, ArrivalKind::Stepped));
        assert_eq!(stepped.state, AgentState::Arrived);
        assert_eq!(stepped.arrived_at, Some(8), "there from the end of tick 7");
        assert_eq!(stepped.goals_reached, 1);

        let mut standing = Agent::new(0, 0);
        assert!(arrive(&mut standing, 7, ArrivalKind::Standing));
        assert_eq!(
            standing.arrived_at,
            Some(7),
            "there from the start of tick 7"
        );
        assert_eq!(standing.goals_reached, 1);
    }

    #[test]
    fn a_step_back_onto_a_goal_reached_counts_once() {
        let mut agent = Agent::new(0, 0);
        assert!(arrive(&mut agent, 3, ArrivalKind::Stepped));
        leave_goal(&mut agent);
        assert_eq!(agent.arrived_at, None);
        assert!(!arrive(&mut agent, 5, ArrivalKind::Stepped));
        assert_eq!((agent.arrived_at, agent.goals_reached), (Some(6), 1));
        // Arriving again without having left (planning finds it there) does not count either.
        assert!(!arrive(&mut agent, 6, ArrivalKind::Standing));
        assert_eq!(agent.goals_reached, 1);
        // Found standing on it by a plan, it does not count either.
        leave_goal(&mut agent);
        assert!(!arrive(&mut agent, 9, ArrivalKind::Standing));
        assert_eq!((agent.arrived_at, agent.goals_reached), (Some(9), 1));
        // A new goal counts.
        agent.set_goal(0, 10);
        assert!(arrive(&mut agent, 10, ArrivalKind::Standing));
        assert_eq!((agent.arrived_at, agent.goals_reached), (Some(10), 2));
    }
}
