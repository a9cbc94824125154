//! Checking that a path obeys the grid's movement rules, independently of the search.

use super::{CellId, Direction, Grid, Neighborhood};

/// Why a path is not legal on a grid. `index` is the position in the path of the offending
/// cell (or of the second cell of the offending step).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The path has no cell.
    #[error("the path is empty")]
    Empty,
    /// A cell id outside the grid.
    #[error("cell #{index} ({cell}) is outside the grid")]
    OutOfBounds {
        /// Position in the path.
        index: usize,
        /// The id.
        cell: CellId,
    },
    /// A blocked cell.
    #[error("cell #{index} at ({x}, {y}) is blocked")]
    Blocked {
        /// Position in the path.
        index: usize,
        /// Column.
        x: u32,
        /// Row.
        y: u32,
    },
    /// Two consecutive cells that are not neighbours (or a diagonal step on a 4-connected
    /// grid, or a cell repeated).
    #[error("step #{index} from ({}, {}) to ({}, {}) is not a move between neighbours", from.0, from.1, to.0, to.1)]
    NotAdjacent {
        /// Position in the path of the step's second cell.
        index: usize,
        /// First cell of the step.
        from: (u32, u32),
        /// Second cell of the step.
        to: (u32, u32),
    },
    /// A diagonal step past a blocked orthogonal cell.
    #[error("step #{index} from ({}, {}) to ({}, {}) cuts a blocked corner", from.0, from.1, to.0, to.1)]
    CornerCut {
        /// Position in the path of the step's second cell.
        index: usize,
        /// First cell of the step.
        from: (u32, u32),
        /// Second cell of the step.
        to: (u32, u32),
    },
}

impl Grid {
    /// Checks that `path` is legal (inside the grid, walkable cells, each step a move between
    /// neighbours, no corner cut) and returns its cost. The check reads only walkability and
    /// costs, not the precomputed moves, so it is an independent judge of any planner.
    ///
    /// ```
    /// use throng::grid::{Grid, PathError};
    ///
    /// let grid = Grid::from_ascii("..\n#.")?;
    /// assert!((grid.path_cost(&[0, 1, 3])? - 2.0).abs() < 1e-12);
    /// assert!(matches!(grid.path_cost(&[0, 3]), Err(PathError::CornerCut { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`PathError`] for the first rule broken.
    pub fn path_cost(&self, path: &[CellId]) -> Result<f64, PathError> {
        let first = *path.first().ok_or(PathError::Empty)?;
        self.check_cell(0, first)?;
        let mut cost = 0.0;
        for (i, pair) in path.windows(2).enumerate() {
            let index = i + 1;
            let (a, b) = (pair[0], pair[1]);
            self.check_cell(index, b)?;
            let (ax, ay) = self.coords(a);
            let (bx, by) = self.coords(b);
            let dx = i64::from(bx) - i64::from(ax);
            let dy = i64::from(by) - i64::from(ay);
            let dir = i32::try_from(dx)
                .ok()
                .zip(i32::try_from(dy).ok())
                .and_then(|(dx, dy)| Direction::from_delta(dx, dy))
                .filter(|d| !d.is_diagonal() || self.neighborhood() == Neighborhood::Eight)
                .ok_or(PathError::NotAdjacent {
                    index,
                    from: (ax, ay),
                    to: (bx, by),
                })?;
            if dir.is_diagonal()
                && !(self.is_walkable_xy(i64::from(ax) + dx, i64::from(ay))
                    && self.is_walkable_xy(i64::from(ax), i64::from(ay) + dy))
            {
                return Err(PathError::CornerCut {
                    index,
                    from: (ax, ay),
                    to: (bx, by),
                });
            }
            cost += self.step_cost(dir, b);
        }
        Ok(cost)
    }

    /// Cost of a path already known to be legal (a planner's own answer), summed from its first
    /// cell exactly as [`Grid::path_cost`] does, so every planner reports the same number for
    /// the same path. No checks.
    pub(crate) fn legal_path_cost(&self, cells: impl IntoIterator<Item = CellId>) -> f64 {
        let mut cost = 0.0;
        let mut prev: Option<(u32, u32)> = None;
        for c in cells {
            let (x, y) = self.coords(c);
            if let Some((px, py)) = prev {
                let base = if px != x && py != y {
                    std::f64::consts::SQRT_2
                } else {
                    1.0
                };
                cost += base * f64::from(self.cost(c));
            }
            prev = Some((x, y));
        }
        cost
    }

    fn check_cell(&self, index: usize, cell: CellId) -> Result<(), PathError> {
        if !self.contains(cell) {
            return Err(PathError::OutOfBounds { index, cell });
        }
        if !self.is_walkable(cell) {
            let (x, y) = self.coords(cell);
            return Err(PathError::Blocked { index, x, y });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_is_enforced() {
        let g = Grid::from_ascii(
            "...\n\
             .#.\n\
             ...",
        )
        .unwrap();
        let c = |x, y| g.cell(x, y).unwrap();
        assert_eq!(g.path_cost(&[]), Err(PathError::Empty));
        assert!(matches!(
            g.path_cost(&[c(0, 0), 99]),
            Err(PathError::OutOfBounds { index: 1, .. })
        ));
        assert!(matches!(
            g.path_cost(&[c(0, 1), c(1, 1)]),
            Err(PathError::Blocked { index: 1, .. })
        ));
        assert!(matches!(
            g.path_cost(&[c(0, 0), c(2, 0)]),
            Err(PathError::NotAdjacent { .. })
        ));
        assert!(matches!(
            g.path_cost(&[c(0, 0), c(0, 0)]),
            Err(PathError::NotAdjacent { .. })
        ));
        // Row wrap: cell 2 (2,0) -> cell 3 (0,1) differ by 1 in id but are not neighbours.
        assert!(matches!(
            g.path_cost(&[2, 3]),
            Err(PathError::NotAdjacent { .. })
        ));
        assert!(matches!(
            g.path_cost(&[c(0, 0), c(1, 0), c(2, 1)]),
            Err(PathError::CornerCut { index: 2, .. })
        ));
        let ok = g.path_cost(&[c(0, 0), c(1, 0), c(2, 0), c(2, 1)]).unwrap();
        assert!((ok - 3.0).abs() < 1e-12);
        let four = g.clone().with_neighborhood(Neighborhood::Four);
        let open = Grid::new(2, 2)
            .unwrap()
            .with_neighborhood(Neighborhood::Four);
        assert!(matches!(
            open.path_cost(&[0, 3]),
            Err(PathError::NotAdjacent { .. })
        ));
        assert!(four.path_cost(&[c(0, 0)]).unwrap() == 0.0);
    }
}
