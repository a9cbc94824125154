//! # throng
//!
//! Parallel crowd pathfinding on a shared 2D grid.
//!
//! Each public item has one path, in the module of its concept (`throng::grid::Grid`,
//! `throng::mapf::Instance`, `throng::sim::Simulation`); a module's own files are private and
//! their items are re-exported by it. The one second path is [`prelude`], a glob of the types
//! most programs use (`use throng::prelude::*;`).
//!
//! - [`grid`]: the shared, read-only [`Grid`](grid::Grid) (walkable/blocked cells, optional
//!   costs, 8-connected without corner cutting or 4-connected), its connected components and
//!   procedural maps.
//! - [`error`]: the crate's [`Error`](error::Error), and the [`ParseError`](error::ParseError)
//!   of a file naming where it went wrong.
//! - [`movingai`]: the Moving AI `.map` and `.map.scen` formats.
//! - [`search`]: the per-thread [`SearchWorkspace`](search::SearchWorkspace) and its A*.
//! - [`dstar`]: per-agent D* Lite ([`dstar::DStarLite`]): incremental replanning as the agent
//!   moves and the map changes, with memory sized by the cells searched.
//! - [`nav`]: navigation points ([`nav::NavGraph`]): routes prepared ahead of time and
//!   stitched for long trips.
//! - [`planner`]: one interface to every planner ([`Planner`](planner::Planner): the
//!   [`PlannerKind`](planner::PlannerKind) chosen and the navigation graph it needs, answering
//!   `plan(start, goal)` with a path, cost and counters).
//! - [`sim`]: the simulation: agents on a shared grid, planned in parallel and moved tick by
//!   tick ([`sim::Simulation`]).
//! - [`mapf`]: multi-agent solvers: [`mapf::Pibt`] (one collision-free step of every agent),
//!   LaCAM ([`mapf::lacam`]) and an independent checker of joint steps ([`mapf::check_step`]).
//! - [`lorr`]: League of Robot Runners problems (lifelong tasks, robots that turn) played on
//!   the simulation.
//! - [`scenario`]: scenario files (`sims/*.toml`): a whole simulation run described in TOML,
//!   read, checked and built into a [`sim::Simulation`], with its scripted map changes.
//! - [`report`]: the JSON summary of a run (`throng run --json`).
//! - [`trace`]: binary traces of simulation runs (`throng run --trace`), written as the run
//!   plays and read back to replay it (`throng view`).
//! - [`render`]: pictures of a run (GIF, PNG heat maps and plots).
//! - [`view`]: the page and local web server of `throng view`, replaying a trace in the
//!   browser.
//! - [`prelude`]: the types most programs use, in one import.
//! - [`cli`]: what the `throng` binary needs of the library's internals (feature `cli`): not
//!   for embedders.
//!
//! ## Features
//!
//! The engine (every module above but five) needs no feature: `default-features = false`
//! builds it with only the crates it uses, for a program that embeds throng (see
//! `docs/embedding.md`). The default, `cli`, turns on all of these and the command line's own
//! crates:
//! - `scenario`: [`scenario`] (scenario files, TOML);
//! - `trace`: [`trace`] (binary traces, DEFLATE);
//! - `render`: [`render`] (GIF and PNG pictures);
//! - `view`: [`view`] (the viewer's page and server; turns on `trace`);
//! - `cli`: [`cli`] as well, the internals the binary shares with the library.
//!
//! What only the command line uses lives in the binary (`src/cmd/`: running a whole Moving AI
//! scenario file and judging every answer, for instance). What the binary shares with the
//! library (the kind of a file, told from its first bytes, which the library's scenario and
//! replay readers use as well) is private to the library and reached by the binary through
//! [`cli`], which exists only with the `cli` feature and whose items are no part of the API
//! an embedder may rely on.
//!
//! ```
//! use throng::grid::Grid;
//! use throng::search::SearchWorkspace;
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

#[cfg(feature = "cli")]
pub mod cli;
pub mod dstar;
pub mod error;
// Used by `input` (every reader), and by the binary through `cli`.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
mod file_kind;
pub mod grid;
mod hash;
mod input;
pub mod lorr;
pub mod mapf;
pub mod movingai;
pub mod nav;
pub mod planner;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
mod plural;
mod prefetch;
pub mod prelude;
pub mod process_stats;
#[cfg(feature = "render")]
pub mod render;
pub mod report;
#[cfg(feature = "scenario")]
pub mod scenario;
pub mod search;
pub mod sim;
#[cfg(feature = "trace")]
pub mod trace;
#[cfg(feature = "view")]
pub mod view;

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
