//! Multi-agent path finding: the solvers that decide how many agents move together.
//!
//! - `pibt`: Priority Inheritance with Backtracking, one collision-free step of every agent at
//!   a time, O(agents x moves) per step. The simulation's `pibt` conflict mode is built on it.
//! - [`lacam`]: LaCAM, a complete search over joint configurations whose successors PIBT
//!   proposes: one-shot MAPF instances, solved whenever they can be.
//! - `instance`: MAPF benchmark instances (a map and a `.scen` file), the field's measures of
//!   a plan and LaCAM's plan file.
//! - [`refine`]: large neighbourhood search that shortens a valid plan's paths a few agents at a
//!   time (`throng mapf --anytime`).
//! - `scatter`: near-shortest paths that keep the agents apart, for LaCAM's PIBT to follow.
//! - `distances`: exact step counts to each agent's goal (LaCAM's guidance).
//! - `validate`: an independent check of a joint step (legal moves, no two agents in one cell,
//!   no swaps, no diagonal crossings), written apart from the solvers so that it can judge them.

mod distances;
mod instance;
pub mod lacam;
mod pibt;
pub mod refine;
mod scatter;
mod validate;

pub use distances::GoalDistances;
pub use instance::{Instance, PlanCosts, plan_costs, write_plan};
pub(crate) use pibt::CellBits;
pub use pibt::{
    Candidates, Claim, Guidance, MAX_CANDIDATES, NO_AGENT, Part, Pibt, rank_candidates,
};
pub use scatter::Scatter;
pub use validate::{StepConflict, check_step};
