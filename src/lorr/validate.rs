//! An independent check of a League of Robot Runners plan: the actions of every agent, step by
//! step, replayed from the starts. Written apart from the simulation so that it can judge it.
//!
//! Rotate model (`MAPF_T`): `F` moves one cell the way the agent faces (onto a free cell of
//! the map), `R` / `C` turn it clockwise / counter-clockwise, `W` waits. Free model (`MAPF`):
//! PlanViz's letters as PlanViz replays them: `U` moves one row down (south, row + 1), `D` one
//! row up (north), `L` / `R` one column left / right, `W` waits. After every step no two agents
//! share a cell and no two swapped cells ([`crate::mapf::check_step`]).

use crate::grid::{CellId, Direction, Grid};
use crate::mapf::check_step;
use crate::sim::{ActionModel, Heading};

/// Why a plan is not valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// An action letter that is not one of the model's.
    #[error("step {step}: agent {agent}: unknown action {letter:?} for the {model} model")]
    UnknownAction {
        /// The step (0-based).
        step: usize,
        /// The agent.
        agent: usize,
        /// The letter.
        letter: char,
        /// The model.
        model: ActionModel,
    },
    /// A move off the map or onto a blocked cell.
    #[error("step {step}: agent {agent} moves from cell {from} off the map or into a wall")]
    Blocked {
        /// The step (0-based).
        step: usize,
        /// The agent.
        agent: usize,
        /// Its cell.
        from: CellId,
    },
    /// Two agents in one cell, or swapping cells.
    #[error("step {step}: {conflict}")]
    Conflict {
        /// The step (0-based).
        step: usize,
        /// The conflict, from [`crate::mapf::check_step`].
        conflict: crate::mapf::StepConflict,
    },
    /// The plan's shape does not match the agents.
    #[error("{0}")]
    Shape(String),
}

/// Replays `steps` (one string of action letters per step, a letter per agent) from `starts`
/// (all facing east under the rotate model) and returns where the agents end, with their
/// headings.
///
/// ```
/// use throng::grid::Grid;
/// use throng::lorr::replay;
/// use throng::sim::{ActionModel, Heading};
///
/// let grid = Grid::from_ascii("...\n...")?;
/// // Agent 0 moves east then turns south; agent 1 waits then follows into the cell 0 left.
/// let (end, _) = replay(&grid, &[1, 0], ActionModel::Rotate, &["FW", "RF"])?;
/// assert_eq!(end, vec![2, 1]);
/// assert!(replay(&grid, &[0, 1], ActionModel::Rotate, &["FW"]).is_err()); // into agent 1
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// The first [`PlanError`].
pub fn replay(
    grid: &Grid,
    starts: &[CellId],
    model: ActionModel,
    steps: &[&str],
) -> Result<(Vec<CellId>, Vec<Heading>), PlanError> {
    let mut cells = starts.to_vec();
    let mut headings = vec![Heading::East; starts.len()];
    check_step(grid, &cells, &cells)
        .map_err(|conflict| PlanError::Conflict { step: 0, conflict })?;
    let mut next = cells.clone();
    for (step, letters) in steps.iter().enumerate() {
        if letters.chars().count() != starts.len() {
            return Err(PlanError::Shape(format!(
                "step {step}: {} actions for {} agents",
                letters.chars().count(),
                starts.len()
            )));
        }
        for (agent, letter) in letters.chars().enumerate() {
            let from = cells[agent];
            let unknown = PlanError::UnknownAction {
                step,
                agent,
                letter,
                model,
            };
            let Some(dir) = action_move(model, letter, &mut headings[agent]) else {
                return Err(unknown);
            };
            next[agent] = match dir {
                None => from,
                Some(dir) => {
                    // The move's target by coordinates, checked against the map's bounds and
                    // walls here rather than through the grid's move tables.
                    let (x, y) = grid.coords(from);
                    let (dx, dy) = dir.delta();
                    let (tx, ty) = (i64::from(x) + i64::from(dx), i64::from(y) + i64::from(dy));
                    if !grid.is_walkable_xy(tx, ty) {
                        return Err(PlanError::Blocked { step, agent, from });
                    }
                    grid.cell(tx as u32, ty as u32)
                        .expect("walkable cells are on the map")
                }
            };
        }
        check_step(grid, &cells, &next)
            .map_err(|conflict| PlanError::Conflict { step, conflict })?;
        std::mem::swap(&mut cells, &mut next);
    }
    Ok((cells, headings))
}

/// What one action letter of an output file does under `model`: the direction the robot moves
/// (`Some(None)`: it stays), its heading turned in place for the rotate model's `R` and `C`;
/// `None` for a letter the model does not have. The replay here and `throng view` read the
/// letters through this one table.
pub fn action_move(
    model: ActionModel,
    letter: char,
    heading: &mut Heading,
) -> Option<Option<Direction>> {
    Some(match (model, letter) {
        (_, 'W') => None,
        (ActionModel::Rotate, 'F') => Some(heading.direction()),
        (ActionModel::Rotate, 'R') => {
            *heading = heading.clockwise();
            None
        }
        (ActionModel::Rotate, 'C') => {
            *heading = heading.counter_clockwise();
            None
        }
        (ActionModel::Free, letter) => Some(
            [
                Direction::North,
                Direction::South,
                Direction::West,
                Direction::East,
            ]
            .into_iter()
            .find(|&d| free_letter(d) == Some(letter))?,
        ),
        _ => return None,
    })
}

/// The free model's letter for a straight move, PlanViz's: `U` south (row + 1), `D` north,
/// `L` west, `R` east.
pub fn free_letter(dir: Direction) -> Option<char> {
    match dir {
        Direction::South => Some('U'),
        Direction::North => Some('D'),
        Direction::West => Some('L'),
        Direction::East => Some('R'),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotate_plans_are_judged_step_by_step() {
        let grid = Grid::from_ascii("...\n.@.").unwrap();
        // Facing east from (0,0): F to (1,0); R faces south: F would enter the wall.
        assert!(replay(&grid, &[0], ActionModel::Rotate, &["F", "R"]).is_ok());
        assert_eq!(
            replay(&grid, &[0], ActionModel::Rotate, &["F", "R", "F"]),
            Err(PlanError::Blocked {
                step: 2,
                agent: 0,
                from: 1
            })
        );
        // Off the map: facing east from (2,0).
        assert!(matches!(
            replay(&grid, &[2], ActionModel::Rotate, &["F"]),
            Err(PlanError::Blocked { .. })
        ));
        // C then F from (0,0) faces north, off the map.
        assert!(replay(&grid, &[0], ActionModel::Rotate, &["C", "F"]).is_err());
        // A swap: 0 east, 1 (turned west twice) east to west.
        let swap = replay(&grid, &[0, 1], ActionModel::Rotate, &["WR", "WR", "FF"]);
        assert!(
            matches!(swap, Err(PlanError::Conflict { step: 2, .. })),
            "{swap:?}"
        );
        // Following into a cell being left is fine.
        assert!(replay(&grid, &[0, 1], ActionModel::Rotate, &["FF"]).is_ok());
        assert!(matches!(
            replay(&grid, &[0], ActionModel::Rotate, &["U"]),
            Err(PlanError::UnknownAction { .. })
        ));
        assert!(matches!(
            replay(&grid, &[0], ActionModel::Rotate, &["FF"]),
            Err(PlanError::Shape(_))
        ));
    }

    #[test]
    fn free_plans_use_planviz_letters() {
        let grid = Grid::from_ascii("...\n...").unwrap();
        // PlanViz replays `U` as a step to the next row (row + 1), `D` to the row before.
        let (end, _) = replay(&grid, &[0], ActionModel::Free, &["U"]).unwrap();
        assert_eq!(end, vec![grid.cell(0, 1).unwrap()]);
        assert!(replay(&grid, &[0], ActionModel::Free, &["D"]).is_err());
        let (end, _) = replay(&grid, &[0], ActionModel::Free, &["R", "U", "L", "D", "W"]).unwrap();
        assert_eq!(end, vec![0]);
        assert!(replay(&grid, &[0], ActionModel::Free, &["F"]).is_err());
        assert!(replay(&grid, &[0], ActionModel::Free, &["L"]).is_err());
    }
}
