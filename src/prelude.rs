//! The types most programs use, in one import: `use throng::prelude::*;`. An embedder's
//! program (a game stepping a crowd, a service answering path queries) needs little else.
//!
//! The prelude is the one documented convenience glob, and the only second path to any item:
//! everything here is re-exported from its one canonical path (`Grid` is
//! [`throng::grid::Grid`](crate::grid::Grid)), which the documentation and the rest of the
//! crate use.
//!
//! ```
//! use throng::prelude::*;
//!
//! let grid = Grid::from_ascii("......\n.####.\n......")?;
//! let nav = NavGraph::build(&grid, &NavOptions::default())?;
//! let config = SimConfig { planner: PlannerKind::Auto, ..SimConfig::default() };
//! let mut sim = Simulation::with_nav_graph(grid, config, nav)?;
//! let id: AgentId = sim.add_agent(0, Some(17))?;
//! while sim.agent(id).unwrap().state() != AgentState::Arrived {
//!     let report: TickReport = sim.step();
//!     assert!(report.tick < 20);
//! }
//! # Ok::<(), Error>(())
//! ```

pub use crate::error::{Error, Result};
pub use crate::grid::{CellChange, CellId, Direction, Grid, Neighborhood};
pub use crate::movingai::{ScenFile, load_map};
pub use crate::nav::{NavGraph, NavOptions};
pub use crate::planner::{Plan, PlanWorkspace, Planner, PlannerKind};
pub use crate::search::{SearchOutcome, SearchWorkspace};
pub use crate::sim::{
    ActionOutcome, AgentAction, AgentId, AgentState, ConflictMode, RunSummary, SimConfig,
    Simulation, TickReport,
};
