//! Agents driven from outside: the moves a caller (a learned policy, a game's player) chooses
//! for some agents each tick, under the engine's movement rules.
//!
//! The rules are in the docs of [`AgentAction`], where embedders read them.

use serde::{Deserialize, Serialize};

use crate::grid::{CellId, Direction, Grid};

/// What a caller asks one agent to do this tick.
///
/// An agent is *controlled* when [`Simulation::set_controlled`] (or
/// [`Simulation::add_controlled_agent`]) says so: it is never planned for (no plan requests, no
/// replans, no D* Lite state) and never follows a route; each tick it stays unless
/// [`Simulation::step_with_actions`] gives it an [`AgentAction`]. Any agent, controlled or not,
/// may be given an action for a tick: for an agent that follows a route, the action replaces
/// its route's step for that tick, and afterwards it rejoins its route as an agent pushed off
/// it by PIBT does (its cell is spliced into the route before the best route cell one move
/// away, see `sim/agent/route.rs`; pushed too far, more than [`SimConfig::drift_replan`] cells, it
/// asks for a new plan from where it stands), whatever the conflict mode.
///
/// # The rules a chosen move must follow
/// A move is *legal* when [`Grid::moves`] of the agent's cell contains its direction: it stays
/// inside the grid, ends on a walkable cell, is one of the grid's neighbourhood (4 or 8
/// directions) and cuts no corner (both cells beside a diagonal are walkable). An illegal move
/// is refused: the agent stays ([`ActionOutcome::Illegal`]). A legal move then goes through the
/// tick's conflict resolution with every other agent:
/// - `off`: agents pass through each other by design; a legal move is always made.
/// - `avoid`: the chosen cell is the agent's next cell in the claim resolution (in slot order,
///   chains first): it moves when the cell is free after the agents ahead have moved, and not
///   diagonally across an agent that crossed the same 2 x 2 block the other way; otherwise it
///   stays ([`ActionOutcome::Blocked`]).
/// - `pibt`: the agent's only candidates are its chosen cell, then staying; it is never pushed
///   anywhere else, never swapped through a corridor, and never steps aside. Agents of higher
///   priority may take the cell first, or an agent may already stand there and be unable to
///   leave: then it stays ([`ActionOutcome::Blocked`]). A controlled agent with no move this
///   tick has only its own cell: other agents go round it.
///
/// In every mode but `off`: never two agents in one cell, no two agents swapping cells, no two
/// crossing one 2 x 2 block diagonally.
///
/// # States and goals
/// A controlled agent without a goal is idle. With a goal it is `moving` until a tick in which
/// it does not move (then `waiting`), and `arrived` once it steps onto its goal (or when the
/// goal it is given is the cell it stands on: it arrives when the next tick is played): that
/// counts in [`TickReport::goals_reached`] and [`TickReport::at_goal`] as for any agent, and in
/// a lifelong run it gets its next goal the same way. A controlled agent that leaves its goal
/// in a one-shot run is on its way again, and coming back is not a new goal reached.
///
/// # Action model `rotate`
/// Robots that turn (the League of Robot Runners model) move only forward, one cell, and turn
/// a quarter per tick: a step in a direction is not one of their actions. Under
/// [`ActionModel::Rotate`] with conflicts `pibt`, [`Simulation::step_with_actions`] therefore
/// refuses moves with an error; waits are accepted, and controlled agents stay put.
///
/// [`Simulation::set_controlled`]: crate::sim::Simulation::set_controlled
/// [`Simulation::add_controlled_agent`]: crate::sim::Simulation::add_controlled_agent
/// [`Simulation::step_with_actions`]: crate::sim::Simulation::step_with_actions
/// [`SimConfig::drift_replan`]: crate::sim::SimConfig::drift_replan
/// [`Grid::moves`]: crate::grid::Grid::moves
/// [`TickReport::goals_reached`]: crate::sim::TickReport::goals_reached
/// [`TickReport::at_goal`]: crate::sim::TickReport::at_goal
/// [`ActionModel::Rotate`]: crate::sim::ActionModel::Rotate
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentAction {
    /// Stay on the cell.
    Wait,
    /// Step one cell that way (see [`AgentAction`] for the rules).
    Move(Direction),
}

/// What became of an [`AgentAction`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionOutcome {
    /// The agent stepped where it was sent.
    Moved,
    /// The agent waited, as asked.
    Waited,
    /// The move broke a rule of the grid (outside it, onto a blocked cell, a diagonal on a
    /// 4-connected grid, a cut corner): the agent stayed.
    Illegal,
    /// The move was legal but lost to other agents (the cell taken or held, a swap, a diagonal
    /// crossing): the agent stayed.
    Blocked,
}

impl ActionOutcome {
    /// A small stable number per outcome (0 moved, 1 waited, 2 illegal, 3 blocked), as the
    /// Python bindings report it.
    pub fn code(self) -> i8 {
        match self {
            ActionOutcome::Moved => 0,
            ActionOutcome::Waited => 1,
            ActionOutcome::Illegal => 2,
            ActionOutcome::Blocked => 3,
        }
    }
}

/// The cell an agent standing on `at` reaches by `dir`, when the move is legal.
pub(crate) fn legal_target(grid: &Grid, at: CellId, dir: Direction) -> Option<CellId> {
    grid.moves(at).contains(dir).then(|| grid.step(at, dir))
}
