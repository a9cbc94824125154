//! One planner interface: a [`Planner`] answers `start -> goal` for any [`PlannerKind`].
//!
//! A `Planner` is the planner choice with what it plans with, fixed when it is made: the
//! grid's navigation graph for `nav` and `auto`, and the search it runs on the grid itself
//! (A*, JPS, JPS+ or D* Lite; for `auto`'s short trips JPS+ or JPS as the graph chose,
//! [`NavGraph::uses_jump_table`]), never what some earlier call happened to leave on the grid.
//! It holds a reference and a few words and copies freely. Its per-thread memory is a
//! [`PlanWorkspace`], which it hands out ([`Planner::workspace`]) and each thread keeps (a
//! thread-local, rayon's `map_init`, a field): queries take no lock and, once the workspace is
//! warm, allocate nothing (`dstar`, which starts each query from scratch, excepted).
//!
//! **One rule for the navigation graph:** `nav` and `auto` always plan through one. Making a
//! planner of either kind without one is an error ([`Planner::new`]), so whoever offers them
//! builds (or loads) the graph first: `throng scen`, the simulation (when it is made and when an
//! agent with such a planner joins) and Python's `plan()` build it with the default options.
//! No planner falls back silently to another search.
//!
//! The simulation adds on top of [`Planner::plan`] what only it has: replans around other
//! agents (A* with the agents nearby as obstacles, detours) and each `dstar` agent's search kept
//! between its plans (`sim/planning.rs`).

mod kind;

pub use kind::PlannerKind;

use crate::dstar::DStarLite;
use crate::error::{Error, Result};
use crate::grid::{CellId, Grid};
use crate::nav::{NavGraph, NavWorkspace};
use crate::search::{QueryError, SearchOptions, SearchOutcome, SearchStats, SearchWorkspace};

/// The search a planner runs on the grid (for `nav` and `auto`: on the trips the navigation
/// points leave to a direct search).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GridSearch {
    AStar,
    Jps,
    JpsPlus,
    /// D* Lite from scratch.
    DStar,
}

/// A planner ready to answer queries: the [`PlannerKind`], the navigation graph it routes
/// through (`nav` and `auto`) and the search options (node budget), fixed when it is made (see
/// the [module docs](self) for the rule on the graph).
///
/// ```
/// use throng::nav::{NavGraph, NavOptions};
/// use throng::planner::Planner;
/// use throng::grid::Grid;
/// use throng::planner::PlannerKind;
///
/// let grid = Grid::from_ascii("......\n.####.\n......")?;
/// let (start, goal) = (grid.cell(0, 1).unwrap(), grid.cell(5, 1).unwrap());
/// let nav = NavGraph::build(&grid, &NavOptions::default())?;
/// for kind in PlannerKind::ALL {
///     let planner = Planner::new(&grid, kind, Some(&nav))?;
///     let mut ws = planner.workspace(&grid);
///     let plan = planner.plan(&grid, &mut ws, start, goal)?;
///     assert_eq!(plan.cost(), Some(7.0), "{kind}");
///     assert_eq!((plan.path.first(), plan.path.last()), (Some(&start), Some(&goal)));
/// }
/// // `nav` and `auto` plan through a navigation graph: none given is an error.
/// assert!(Planner::new(&grid, PlannerKind::Nav, None).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Planner<'a> {
    kind: PlannerKind,
    /// The graph of `nav` and `auto` (always there for them); `None` for the others.
    nav: Option<&'a NavGraph>,
    search: GridSearch,
    options: SearchOptions,
}

impl<'a> Planner<'a> {
    /// The planner `kind` for `grid`, with `nav`, the grid's navigation graph: required by
    /// `nav` and `auto` (build it with [`NavGraph::build`] or load it), ignored by the others.
    /// `jps+` builds the grid's jump table now ([`Grid::prepare_jump_table`]), so that no query
    /// pays for it (the grid keeps it; `nav` and `auto` find it built with the graph where it
    /// chose it). Default options:
    /// no node budget ([`with_options`](Self::with_options)).
    ///
    /// # Errors
    /// [`Error::Invalid`] when `kind` is `nav` or `auto` and `nav` is `None`, or the graph
    /// was made for another map ([`NavGraph::matches`]).
    pub fn new(grid: &Grid, kind: PlannerKind, nav: Option<&'a NavGraph>) -> Result<Self> {
        if kind.uses_nav()
            && let Some(graph) = nav
            && !graph.matches(grid)
        {
            return Err(Error::Invalid(
                "the navigation graph was made for another map".into(),
            ));
        }
        let planner = Self::with_graph(kind, nav)?;
        if kind == PlannerKind::JpsPlus {
            grid.prepare_jump_table();
        }
        Ok(planner)
    }

    /// [`new`](Self::new) without the checks that read the whole grid (whether the graph
    /// matches it) and without building the jump table ahead (the first `jps+` query builds
    /// it): for a caller that keeps its graph matching its grid, as a simulation does.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `kind` is `nav` or `auto` and `nav` is `None`.
    pub(crate) fn with_graph(kind: PlannerKind, nav: Option<&'a NavGraph>) -> Result<Self> {
        let nav = if kind.uses_nav() {
            Some(nav.ok_or_else(|| {
                Error::Invalid(format!(
                    "planner {kind} plans through a navigation graph, and none was given \
                     (build one with NavGraph::build)"
                ))
            })?)
        } else {
            None
        };
        let search = match kind {
            PlannerKind::AStar => GridSearch::AStar,
            PlannerKind::Jps => GridSearch::Jps,
            PlannerKind::JpsPlus => GridSearch::JpsPlus,
            PlannerKind::DStar => GridSearch::DStar,
            PlannerKind::Nav | PlannerKind::Auto => {
                if nav.is_some_and(NavGraph::uses_jump_table) {
                    GridSearch::JpsPlus
                } else {
                    GridSearch::Jps
                }
            }
        };
        Ok(Planner {
            kind,
            nav,
            search,
            options: SearchOptions::default(),
        })
    }

    /// The same planner with `options` (the node budget applies to every grid search and to
    /// the navigation graph's direct searches; `dstar` plans without one).
    pub fn with_options(mut self, options: SearchOptions) -> Self {
        self.options = options;
        self
    }

    /// The planner's kind.
    pub fn kind(&self) -> PlannerKind {
        self.kind
    }

    /// The navigation graph it routes through (`nav` and `auto`; `None` for the others).
    pub fn nav(&self) -> Option<&'a NavGraph> {
        self.nav
    }

    /// The search options of every query.
    pub fn options(&self) -> SearchOptions {
        self.options
    }

    /// Whether its grid searches read the grid's jump table (JPS+): `jps+`, and `nav` and
    /// `auto` where the graph chose it ([`NavGraph::uses_jump_table`]). On weighted and
    /// 4-connected grids every search is A* whatever this says.
    pub fn uses_jump_table(&self) -> bool {
        self.search == GridSearch::JpsPlus
    }

    /// Whether the query `start -> goal` goes to the navigation graph (see
    /// [`PlannerKind::plans_by_nav`]) rather than to a search on the grid.
    pub fn plans_by_nav(&self, grid: &Grid, start: CellId, goal: CellId) -> bool {
        self.nav.is_some() && self.kind.plans_by_nav(grid, start, goal)
    }

    /// A workspace for this planner's queries on `grid` (or any grid: it grows), sized so that
    /// the first query does not allocate the per-cell arrays. Keep one per thread.
    pub fn workspace(&self, grid: &Grid) -> PlanWorkspace {
        PlanWorkspace::for_grid(grid)
    }

    /// Plans `start -> goal` on `grid` (the grid the planner was made for, as it is now) with
    /// the thread's workspace `ws`. `dstar` searches from scratch, without a node budget.
    ///
    /// # Errors
    /// [`QueryError`] when `start` or `goal` is outside the grid or blocked.
    pub fn plan<'w>(
        &self,
        grid: &Grid,
        ws: &'w mut PlanWorkspace,
        start: CellId,
        goal: CellId,
    ) -> std::result::Result<Plan<'w>, QueryError> {
        let options = &self.options;
        if let Some(nav) = self.nav
            && self.kind.plans_by_nav(grid, start, goal)
        {
            let outcome = nav.find_path_with(grid, &mut ws.nav, start, goal, options)?;
            let nav_ws: &'w NavWorkspace = &ws.nav;
            return Ok(Plan::new(outcome, nav_ws.path(), nav_ws.stats()));
        }
        if self.search == GridSearch::DStar {
            let dstar = ws
                .dstar
                .get_or_insert_with(|| Box::new(DStarLite::new(goal)));
            dstar.set_goal(goal);
            dstar.clear();
            let outcome = dstar.plan(grid, start)?;
            let dstar: &'w DStarLite = dstar;
            let stats = SearchStats {
                expanded: dstar.stats().expanded,
                pushed: 0,
            };
            return Ok(Plan::new(outcome, dstar.path(), stats));
        }
        let search: &'w mut SearchWorkspace = ws.nav.search_workspace();
        let outcome = match self.search {
            GridSearch::AStar => search.find_path_with(grid, start, goal, options),
            GridSearch::Jps => search.find_path_jps(grid, start, goal, options),
            GridSearch::JpsPlus => search.find_path_jps_plus(grid, start, goal, options),
            GridSearch::DStar => unreachable!("answered above"),
        }?;
        let search: &'w SearchWorkspace = search;
        Ok(Plan::new(outcome, search.path(), search.stats()))
    }
}

/// A planner's answer to one query ([`Planner::plan`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan<'w> {
    /// Found (with the cost), unreachable, or stopped by the node budget.
    pub outcome: SearchOutcome,
    /// The path, start to goal, both included, when found; empty otherwise. It lives in the
    /// workspace until its next query.
    pub path: &'w [CellId],
    /// Counters of the query: cells (or, through the navigation graph, points) expanded and
    /// pushed (`dstar`: vertices expanded, nothing counted as pushed).
    pub stats: SearchStats,
}

impl<'w> Plan<'w> {
    fn new(outcome: SearchOutcome, path: &'w [CellId], stats: SearchStats) -> Self {
        let path = if outcome.is_found() { path } else { &[] };
        Plan {
            outcome,
            path,
            stats,
        }
    }

    /// The path's cost, when one was found.
    pub fn cost(&self) -> Option<f64> {
        self.outcome.cost()
    }
}

/// The memory of a thread's queries for any [`Planner`]: a navigation workspace, whose grid
/// search workspace serves every grid search (one set of per-cell arrays a thread, whatever
/// the planner), and a D* Lite search for `dstar`, made on its first query. Not shared between
/// threads: keep one per thread.
#[derive(Debug, Default)]
pub struct PlanWorkspace {
    nav: NavWorkspace,
    dstar: Option<Box<DStarLite>>,
}

impl PlanWorkspace {
    /// An empty workspace; it sizes itself on the first query.
    pub fn new() -> Self {
        Self::default()
    }

    /// A workspace whose grid search arrays are sized for `grid` (allocated zeroed, mapped by
    /// the operating system as searches first touch them; see [`SearchWorkspace::prefault`]).
    pub fn for_grid(grid: &Grid) -> Self {
        let mut ws = Self::new();
        *ws.nav.search_workspace() = SearchWorkspace::for_grid(grid);
        ws
    }

    /// Sizes the grid search arrays for `grid` and maps every page of them, so that no query
    /// pays a page fault on its first touch (see [`SearchWorkspace::prefault`]).
    pub fn prefault(&mut self, grid: &Grid) {
        self.nav.prefault(grid);
    }

    /// The grid search workspace inside (for searches a [`Planner`] does not make, such as
    /// the simulation's replans around other agents).
    pub fn search_workspace(&mut self) -> &mut SearchWorkspace {
        self.nav.search_workspace()
    }

    /// Bytes of memory held.
    pub fn memory_bytes(&self) -> usize {
        self.nav.memory_bytes() + self.dstar.as_ref().map_or(0, |d| d.memory_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nav::NavOptions;

    /// A small map with rooms, so that long trips go through the navigation points.
    fn rooms() -> Grid {
        crate::grid::procgen::MapGenerator::Rooms {
            width: 96,
            height: 96,
            room: 8,
            door: 2,
        }
        .generate(3)
        .unwrap()
    }

    /// Every planner answers with a legal path of the cost it reports; the optimal ones with
    /// A*'s cost.
    #[test]
    fn every_planner_answers_legally() {
        let grid = rooms();
        let nav = NavGraph::build(&grid, &NavOptions::default()).unwrap();
        let walkable: Vec<CellId> = (0..grid.len() as CellId)
            .filter(|&c| grid.is_walkable(c))
            .collect();
        let astar = Planner::new(&grid, PlannerKind::AStar, None).unwrap();
        let mut reference = astar.workspace(&grid);
        let mut ws = PlanWorkspace::new();
        for kind in PlannerKind::ALL {
            let planner = Planner::new(&grid, kind, Some(&nav)).unwrap();
            assert_eq!(planner.kind(), kind);
            assert_eq!(planner.nav().is_some(), kind.uses_nav());
            for i in 0..40 {
                let start = walkable[(i * 7919) % walkable.len()];
                let goal = walkable[(i * 104_729 + 13) % walkable.len()];
                let best = astar
                    .plan(&grid, &mut reference, start, goal)
                    .unwrap()
                    .outcome;
                let plan = planner.plan(&grid, &mut ws, start, goal).unwrap();
                assert_eq!(plan.outcome.is_found(), best.is_found(), "{kind}");
                let Some(cost) = plan.cost() else {
                    assert!(plan.path.is_empty());
                    continue;
                };
                assert_eq!(grid.path_cost(plan.path).unwrap(), cost, "{kind}");
                assert_eq!(
                    (plan.path[0], plan.path[plan.path.len() - 1]),
                    (start, goal)
                );
                if kind.is_optimal() {
                    assert!((cost - best.cost().unwrap()).abs() < 1e-9, "{kind}");
                } else {
                    assert!(cost >= best.cost().unwrap() - 1e-9, "{kind}");
                }
            }
        }
    }

    /// `nav` and `auto` without a graph, or with another map's, are errors; the others ignore
    /// the graph.
    #[test]
    fn the_navigation_graph_rule() {
        let grid = rooms();
        let other = Grid::new(96, 96).unwrap();
        let nav = NavGraph::build(&other, &NavOptions::default()).unwrap();
        for kind in [PlannerKind::Nav, PlannerKind::Auto] {
            let missing = Planner::new(&grid, kind, None).unwrap_err().to_string();
            assert!(missing.contains("navigation graph"), "{missing}");
            let wrong = Planner::new(&grid, kind, Some(&nav))
                .unwrap_err()
                .to_string();
            assert!(wrong.contains("another map"), "{wrong}");
        }
        for kind in [PlannerKind::AStar, PlannerKind::Jps, PlannerKind::DStar] {
            let planner = Planner::new(&grid, kind, Some(&nav)).unwrap();
            assert!(planner.nav().is_none() && !planner.uses_jump_table());
        }
    }

    /// The jump table is chosen when the planner is made: `jps+` builds it; `auto` follows the
    /// graph's choice, whatever another planner built on the grid before.
    #[test]
    fn the_jump_table_is_chosen_at_construction() {
        let grid = rooms();
        assert!(!grid.has_jump_table());
        let jps_plus = Planner::new(&grid, PlannerKind::JpsPlus, None).unwrap();
        assert!(jps_plus.uses_jump_table() && grid.has_jump_table());
        assert!(
            !Planner::new(&grid, PlannerKind::Jps, None)
                .unwrap()
                .uses_jump_table()
        );
        // Scattered obstacles: the graph keeps online JPS although the grid has a table now.
        let noisy = crate::nav::direct::scattered_grid();
        noisy.prepare_jump_table();
        let nav = NavGraph::build(&noisy, &NavOptions::default()).unwrap();
        assert!(!nav.uses_jump_table());
        let auto = Planner::new(&noisy, PlannerKind::Auto, Some(&nav)).unwrap();
        assert!(!auto.uses_jump_table());
        let open = Grid::new(120, 120).unwrap();
        let nav = NavGraph::build(&open, &NavOptions::default()).unwrap();
        let auto = Planner::new(&open, PlannerKind::Auto, Some(&nav)).unwrap();
        assert!(nav.uses_jump_table() && auto.uses_jump_table());
    }

    /// The node budget reaches the searches; `dstar` plans without one.
    #[test]
    fn options_carry_the_budget() {
        let grid = rooms();
        let walkable: Vec<CellId> = (0..grid.len() as CellId)
            .filter(|&c| grid.is_walkable(c))
            .collect();
        let (start, goal) = (walkable[0], walkable[walkable.len() - 1]);
        let mut ws = PlanWorkspace::for_grid(&grid);
        let tight = SearchOptions::with_budget(5);
        let astar = Planner::new(&grid, PlannerKind::AStar, None)
            .unwrap()
            .with_options(tight);
        assert_eq!(astar.options(), tight);
        let plan = astar.plan(&grid, &mut ws, start, goal).unwrap();
        assert_eq!(plan.outcome, SearchOutcome::BudgetExhausted);
        assert!(plan.path.is_empty());
        let dstar = Planner::new(&grid, PlannerKind::DStar, None)
            .unwrap()
            .with_options(tight);
        assert!(
            dstar
                .plan(&grid, &mut ws, start, goal)
                .unwrap()
                .outcome
                .is_found()
        );
    }
}
