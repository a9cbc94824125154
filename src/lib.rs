//! # throng
//!
//! Parallel crowd pathfinding on a shared 2D grid.
//!
//! - [`grid`]: the shared, read-only [`Grid`] (walkable/blocked cells, optional costs,
//!   8-connected without corner cutting or 4-connected), its connected components and
//!   procedural maps.
//! - [`movingai`]: the Moving AI `.map` and `.map.scen` formats.
//! - [`search`]: the per-thread [`SearchWorkspace`] and its A*.
//! - [`dstar`]: per-agent D* Lite ([`dstar::DStarLite`]): incremental replanning as the agent
//!   moves and the map changes, with memory sized by the cells searched.
//! - [`nav`]: navigation points ([`nav::NavGraph`]): routes prepared ahead of time and
//!   stitched for long trips.
//! - [`planner`]: one interface to every planner ([`Planner`]: the [`PlannerKind`] chosen and
//!   the navigation graph it needs, answering `plan(start, goal)` with a path, cost and
//!   counters).
//! - [`mapf`]: multi-agent solvers: [`mapf::Pibt`] (one collision-free step of every agent)
//!   and an independent checker of joint steps ([`mapf::check_step`]).
//! - [`lorr`]: League of Robot Runners problems (lifelong tasks, robots that turn) played on
//!   the simulation.
//! - [`scenario`]: scenario files (`sims/*.toml`): a whole simulation run described in TOML,
//!   read, checked and built into a [`sim::Simulation`], with its scripted map changes.
//! - [`report`]: the JSON summary of a run (`throng run --json`).
//! - [`trace`]: binary traces of simulation runs (`throng run --trace`), written as the run
//!   plays and read back to replay it (`throng view`).
//! - [`view`]: the page and local web server of `throng view`, replaying a trace in the
//!   browser.
//! - [`scen_run`]: running a whole Moving AI scenario file and checking every answer.
//! - [`file_kind`]: what kind of file a path holds, from its first bytes.
//! - [`prelude`]: the types most programs use, in one import.
//!
//! ## Features
//!
//! The engine (every module above but four) needs no feature: `default-features = false`
//! builds it with only the crates it uses, for a program that embeds throng (see
//! `docs/embedding.md`). The default, `cli`, turns on all of these and the command line's own
//! crates:
//! - `scenario`: [`scenario`] (scenario files, TOML);
//! - `trace`: [`trace`] (binary traces, DEFLATE);
//! - `render`: [`render`] (GIF and PNG pictures);
//! - `view`: [`view`] (the viewer's page and server; turns on `trace`).
//!
//! ```
//! use throng::{Grid, SearchWorkspace};
//!
//! let grid = Grid::from_ascii(
//!     "......\n\
//!      .####.\n\
//!      ......",
//! )?;
//! let mut workspace = SearchWorkspace::for_grid(&grid);
//! let (start, goal) = (grid.cell(0, 1).unwrap(), grid.cell(5, 1).unwrap());
//! let outcome = workspace.find_path(&grid, start, goal)?;
//! let cost = outcome.cost().expect("a path exists");
//! // Whatever the planner returned, the grid itself can judge it.
//! assert_eq!(grid.path_cost(workspace.path())?, cost);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod dstar;
pub mod error;
pub mod file_kind;
pub mod grid;
pub mod lorr;
pub mod mapf;
pub mod movingai;
pub mod nav;
pub mod planner;
pub mod prelude;
#[cfg(feature = "render")]
pub mod render;
pub mod report;
pub mod scen_run;
#[cfg(feature = "scenario")]
pub mod scenario;
pub mod search;
pub mod sim;
#[cfg(feature = "trace")]
pub mod trace;
#[cfg(feature = "view")]
pub mod view;

pub use error::{Error, ParseError, Result};
pub use grid::{CellId, Grid, Neighborhood};
pub use planner::{Plan, PlanWorkspace, Planner, PlannerKind};
pub use search::{QueryError, SearchOptions, SearchOutcome, SearchStats, SearchWorkspace};

/// The README's examples, compiled and run as doctests so the README stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The examples of `docs/library.md`, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
pub struct LibraryDocDoctests;

/// The Rust examples of `docs/embedding.md`, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/embedding.md")]
pub struct EmbeddingDocDoctests;

/// The examples of `docs/algorithms.md`, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/algorithms.md")]
pub struct AlgorithmsDocDoctests;
