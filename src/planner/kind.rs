//! The planner choice ([`PlannerKind`]): the names users pick, and what each promises.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// A planner a user can pick (`--planner NAME` on the command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PlannerKind {
    /// A* with the octile heuristic on the full grid: optimal paths. The default.
    #[default]
    #[serde(rename = "astar")]
    AStar,
    /// Jump Point Search ([`SearchWorkspace::find_path_jps`]): the same optimal paths as A*,
    /// far fewer expansions, on uniform-cost 8-connected grids without corner cutting. Weighted
    /// and 4-connected grids are answered by A*.
    ///
    /// [`SearchWorkspace::find_path_jps`]: crate::search::SearchWorkspace::find_path_jps
    #[serde(rename = "jps")]
    Jps,
    /// JPS+ ([`SearchWorkspace::find_path_jps_plus`]): Jump Point Search with the jumps read
    /// from a table the grid builds on first use (16 bytes a cell) and repairs when the map
    /// changes. The same optimal paths and jump points as [`PlannerKind::Jps`], faster on open
    /// maps. Weighted and 4-connected grids are answered by A*.
    ///
    /// [`SearchWorkspace::find_path_jps_plus`]: crate::search::SearchWorkspace::find_path_jps_plus
    #[serde(rename = "jps+")]
    JpsPlus,
    /// Navigation points ([`NavGraph`]): routes between points on cluster borders computed
    /// ahead of time and stitched, then straightened. Legal, close to optimal (not always
    /// optimal), and much faster than A* on long trips; trips within one or two neighbouring
    /// clusters are searched directly.
    ///
    /// [`NavGraph`]: crate::nav::NavGraph
    #[serde(rename = "nav")]
    Nav,
    /// Short trips (octile distance below [`PlannerKind::AUTO_SHORT_TRIP`]) by the fastest
    /// optimal search the map allows, as the navigation graph chose it: JPS+ (the grid's jump
    /// table) except on maps of scattered obstacles, where straight jumps keep stopping and
    /// online JPS is faster (see [`NavGraph::uses_jump_table`]), A* on weighted and
    /// 4-connected grids; navigation points for long ones.
    ///
    /// [`NavGraph::uses_jump_table`]: crate::nav::NavGraph::uses_jump_table
    #[serde(rename = "auto")]
    Auto,
    /// D* Lite ([`DStarLite`]): optimal paths like A*. In a simulation each agent keeps its
    /// search between plans and repairs it when the map changes (replans around other agents
    /// use A*); elsewhere each query is planned from scratch.
    ///
    /// [`DStarLite`]: crate::dstar::DStarLite
    #[serde(rename = "dstar")]
    DStar,
}

impl PlannerKind {
    /// Every planner, in the order the help text lists them.
    pub const ALL: [PlannerKind; 6] = [
        PlannerKind::AStar,
        PlannerKind::Jps,
        PlannerKind::JpsPlus,
        PlannerKind::Nav,
        PlannerKind::Auto,
        PlannerKind::DStar,
    ];

    /// Octile distance below which [`PlannerKind::Auto`] searches directly rather than through
    /// navigation points.
    pub const AUTO_SHORT_TRIP: f64 = 64.0;

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            PlannerKind::AStar => "astar",
            PlannerKind::Jps => "jps",
            PlannerKind::JpsPlus => "jps+",
            PlannerKind::Nav => "nav",
            PlannerKind::Auto => "auto",
            PlannerKind::DStar => "dstar",
        }
    }

    /// Whether the planner promises optimal paths (so a longer path is an error, not a trade).
    pub fn is_optimal(self) -> bool {
        match self {
            PlannerKind::AStar | PlannerKind::Jps | PlannerKind::JpsPlus | PlannerKind::DStar => {
                true
            }
            PlannerKind::Nav | PlannerKind::Auto => false,
        }
    }

    /// Whether this planner answers the query `start -> goal` with navigation points: always for
    /// [`PlannerKind::Nav`], for trips of octile length at least
    /// [`AUTO_SHORT_TRIP`](Self::AUTO_SHORT_TRIP) for [`PlannerKind::Auto`], never for the others.
    pub fn plans_by_nav(
        self,
        grid: &crate::grid::Grid,
        start: crate::grid::CellId,
        goal: crate::grid::CellId,
    ) -> bool {
        match self {
            PlannerKind::Nav => true,
            PlannerKind::Auto => {
                grid.contains(start)
                    && grid.contains(goal)
                    && grid.heuristic(start, goal) >= Self::AUTO_SHORT_TRIP * grid.min_cost()
            }
            PlannerKind::AStar | PlannerKind::Jps | PlannerKind::JpsPlus | PlannerKind::DStar => {
                false
            }
        }
    }

    /// Whether the planner needs a prepared [`NavGraph`](crate::nav::NavGraph).
    pub fn uses_nav(self) -> bool {
        matches!(self, PlannerKind::Nav | PlannerKind::Auto)
    }
}

impl fmt::Display for PlannerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PlannerKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        PlannerKind::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = PlannerKind::ALL.iter().map(|p| p.name()).collect();
                Error::Invalid(format!(
                    "unknown planner {s:?} (expected one of: {})",
                    names.join(", ")
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in PlannerKind::ALL {
            assert_eq!(p.name().parse::<PlannerKind>().unwrap(), p);
        }
        assert!(
            "dijkstra"
                .parse::<PlannerKind>()
                .unwrap_err()
                .to_string()
                .contains("astar, jps")
        );
        assert_eq!("jps".parse::<PlannerKind>().unwrap(), PlannerKind::Jps);
        assert_eq!(PlannerKind::Jps.to_string(), "jps");
        assert_eq!("jps+".parse::<PlannerKind>().unwrap(), PlannerKind::JpsPlus);
        assert!(PlannerKind::JpsPlus.is_optimal() && !PlannerKind::JpsPlus.uses_nav());
        assert_eq!("nav".parse::<PlannerKind>().unwrap(), PlannerKind::Nav);
        assert_eq!("auto".parse::<PlannerKind>().unwrap(), PlannerKind::Auto);
        assert_eq!("dstar".parse::<PlannerKind>().unwrap(), PlannerKind::DStar);
        assert!(PlannerKind::DStar.is_optimal() && !PlannerKind::DStar.uses_nav());
        assert!(!PlannerKind::Nav.is_optimal() && PlannerKind::Auto.uses_nav());
        assert!(PlannerKind::Jps.is_optimal() && !PlannerKind::AStar.uses_nav());
    }

    #[test]
    fn serde_names_are_the_command_line_names() {
        for p in PlannerKind::ALL {
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{}\"", p.name()));
            assert_eq!(serde_json::from_str::<PlannerKind>(&json).unwrap(), p);
        }
    }
}
