//! Connected components of the walkable cells.
//!
//! With no corner cutting, a diagonal move is only legal when both orthogonal cells beside it
//! are walkable, so it never connects cells that straight moves do not: the components are the
//! same for the 4- and the 8-neighbourhood, and are labelled with straight moves only.

use super::{CellId, Grid};

/// Component label of every cell (`NONE` for a blocked cell).
#[derive(Debug, Clone, Default)]
pub struct Components {
    labels: Vec<u32>,
    count: u32,
}

impl Components {
    /// Label of blocked cells.
    pub const NONE: u32 = u32::MAX;

    /// Labels the walkable cells of `grid` by flood fill, in cell order (deterministic).
    pub(crate) fn label(grid: &Grid) -> Components {
        let walkable = grid.walkable_table();
        let (w, h) = (grid.width() as usize, grid.height() as usize);
        let mut labels = vec![Self::NONE; walkable.len()];
        let mut count = 0u32;
        let mut stack: Vec<u32> = Vec::new();
        for seed in 0..walkable.len() {
            if !walkable[seed] || labels[seed] != Self::NONE {
                continue;
            }
            labels[seed] = count;
            stack.push(seed as u32);
            while let Some(c) = stack.pop() {
                let c = c as usize;
                let (x, y) = (c % w, c / w);
                let mut visit = |n: usize| {
                    if walkable[n] && labels[n] == Self::NONE {
                        labels[n] = count;
                        stack.push(n as u32);
                    }
                };
                if x > 0 {
                    visit(c - 1);
                }
                if x + 1 < w {
                    visit(c + 1);
                }
                if y > 0 {
                    visit(c - w);
                }
                if y + 1 < h {
                    visit(c + w);
                }
            }
            count += 1;
        }
        Components { labels, count }
    }

    /// Number of components.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Component of `cell`, or `None` for a blocked cell or an id outside the grid.
    #[inline]
    pub fn of(&self, cell: CellId) -> Option<u32> {
        match self.labels.get(cell as usize) {
            Some(&l) if l != Self::NONE => Some(l),
            _ => None,
        }
    }

    /// Whether `a` and `b` are walkable and in the same component.
    #[inline]
    pub fn connected(&self, a: CellId, b: CellId) -> bool {
        match (self.of(a), self.of(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// Size of each component, indexed by label.
    pub fn sizes(&self) -> Vec<usize> {
        let mut sizes = vec![0usize; self.count as usize];
        for &l in &self.labels {
            if l != Self::NONE {
                sizes[l as usize] += 1;
            }
        }
        sizes
    }

    /// Label of the largest component (the first one on ties), if any cell is walkable.
    pub fn largest(&self) -> Option<u32> {
        let sizes = self.sizes();
        (0..self.count).max_by_key(|&l| (sizes[l as usize], std::cmp::Reverse(l)))
    }
}

#[cfg(test)]
mod tests {
    use crate::grid::Grid;

    #[test]
    fn diagonal_gap_does_not_connect() {
        // The two halves touch only at a corner, which no legal move crosses.
        let g = Grid::from_ascii(
            ".#\n\
             #.",
        )
        .unwrap();
        assert_eq!(g.components().count(), 2);
        assert!(!g.connected(0, 3));
        assert!(g.moves(0).is_empty());
    }

    #[test]
    fn labels_and_sizes() {
        let g = Grid::from_ascii(
            "..#..\n\
             ..#..\n\
             ###.#\n\
             ...#.",
        )
        .unwrap();
        let c = g.components();
        assert_eq!(c.count(), 4);
        assert_eq!(c.sizes(), vec![4, 5, 3, 1]);
        assert_eq!(c.largest(), Some(1));
        assert_eq!(c.of(2), None);
        assert!(g.connected(g.cell(3, 0).unwrap(), g.cell(3, 2).unwrap()));
        assert!(!g.connected(g.cell(0, 0).unwrap(), g.cell(0, 3).unwrap()));
    }
}
