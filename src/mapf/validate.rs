//! An independent judge of one joint step of many agents.
//!
//! It shares no code with the solvers: moves are checked by [`Grid::path_cost`] (the grid's own
//! movement rules) and conflicts with hash maps by cell, so a bug in a solver's bookkeeping
//! cannot hide itself here.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::grid::NO_CELL;
use crate::grid::{CellId, Grid};

/// Why a joint step is not allowed. Agents are indices into the `from`/`to` slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StepConflict {
    /// `from` and `to` have different lengths.
    #[error("{from} agents before the step, {to} after")]
    LengthMismatch {
        /// Length of `from`.
        from: usize,
        /// Length of `to`.
        to: usize,
    },
    /// An agent appeared or vanished (one side is [`NO_CELL`], the other not).
    #[error("agent {agent} appeared or vanished")]
    Presence {
        /// The agent.
        agent: usize,
    },
    /// A move that breaks the grid's rules (blocked cell, not a neighbour, corner cut).
    #[error("agent {agent} moved illegally from cell {from} to cell {to}")]
    IllegalMove {
        /// The agent.
        agent: usize,
        /// Its cell before.
        from: CellId,
        /// Its cell after.
        to: CellId,
    },
    /// Two agents in one cell, before or after the step.
    #[error("agents {a} and {b} both on cell {cell}")]
    Vertex {
        /// One agent.
        a: usize,
        /// The other.
        b: usize,
        /// The cell.
        cell: CellId,
    },
    /// Two agents swapped cells.
    #[error("agents {a} and {b} swapped cells")]
    Swap {
        /// One agent.
        a: usize,
        /// The other.
        b: usize,
    },
    /// Two agents crossed the same 2 x 2 block diagonally.
    #[error("agents {a} and {b} crossed diagonally")]
    Crossing {
        /// One agent.
        a: usize,
        /// The other.
        b: usize,
    },
}

/// Checks that agents standing on `from[a]` may all move to `to[a]` in one step: every move is
/// a wait or one legal move of the grid (no blocked cell, no corner cut), no two agents share a
/// cell before or after, no two swap cells, and no two cross the same 2 x 2 block diagonally.
/// An agent may follow another into the cell it leaves. Entries equal to [`NO_CELL`] (on both
/// sides) are absent agents.
///
/// ```
/// use throng::grid::Grid;
/// use throng::mapf::{StepConflict, check_step};
///
/// let grid = Grid::from_ascii("....\n....")?;
/// let c = |x, y| grid.cell(x, y).unwrap();
/// // A line moving east, each agent into the cell the one ahead leaves: fine.
/// assert!(check_step(&grid, &[c(0, 0), c(1, 0)], &[c(1, 0), c(2, 0)]).is_ok());
/// // Two agents swapping.
/// assert!(matches!(
///     check_step(&grid, &[c(0, 0), c(1, 0)], &[c(1, 0), c(0, 0)]),
///     Err(StepConflict::Swap { .. })
/// ));
/// // Two agents crossing the 2 x 2 block diagonally.
/// assert!(matches!(
///     check_step(&grid, &[c(0, 0), c(1, 0)], &[c(1, 1), c(0, 1)]),
///     Err(StepConflict::Crossing { .. })
/// ));
/// # Ok::<(), throng::error::Error>(())
/// ```
///
/// # Errors
/// The first [`StepConflict`] found.
pub fn check_step(grid: &Grid, from: &[CellId], to: &[CellId]) -> Result<(), StepConflict> {
    if from.len() != to.len() {
        return Err(StepConflict::LengthMismatch {
            from: from.len(),
            to: to.len(),
        });
    }
    let mut before = CellMap::with_capacity_and_hasher(from.len(), Default::default());
    let mut after = CellMap::with_capacity_and_hasher(to.len(), Default::default());
    for (agent, (&f, &t)) in from.iter().zip(to).enumerate() {
        if (f == NO_CELL) != (t == NO_CELL) {
            return Err(StepConflict::Presence { agent });
        }
        if f == NO_CELL {
            continue;
        }
        let legal = if f == t {
            grid.contains(f) && grid.is_walkable(f)
        } else {
            grid.contains(f) && grid.contains(t) && grid.path_cost(&[f, t]).is_ok()
        };
        if !legal {
            return Err(StepConflict::IllegalMove {
                agent,
                from: f,
                to: t,
            });
        }
        if let Some(&a) = before.get(&f) {
            return Err(StepConflict::Vertex {
                a,
                b: agent,
                cell: f,
            });
        }
        before.insert(f, agent);
        if let Some(&a) = after.get(&t) {
            return Err(StepConflict::Vertex {
                a,
                b: agent,
                cell: t,
            });
        }
        after.insert(t, agent);
    }
    for (a, (&f, &t)) in from.iter().zip(to).enumerate() {
        if f == NO_CELL || f == t {
            continue;
        }
        if let Some(&b) = before.get(&t)
            && b != a
            && to[b] == f
        {
            return Err(StepConflict::Swap { a, b });
        }
        let ((fx, fy), (tx, ty)) = (grid.coords(f), grid.coords(t));
        if fx != tx && fy != ty {
            // The block's other diagonal runs between (tx, fy) and (fx, ty).
            let (c1, c2) = (ty * grid.width() + fx, fy * grid.width() + tx);
            for (p, q) in [(c1, c2), (c2, c1)] {
                if let Some(&b) = before.get(&p)
                    && to[b] == q
                {
                    return Err(StepConflict::Crossing { a, b });
                }
            }
        }
    }
    Ok(())
}

/// A hash map by cell id: the keys are small integers, so a multiplicative hash spreads them
/// well at a fraction of the cost of the default hasher (a long run checks every step).
type CellMap = HashMap<CellId, usize, BuildHasherDefault<CellHasher>>;

/// The hasher of [`CellMap`]: the key times an odd 64-bit constant, the product's high half
/// folded into its low half (the map takes its bucket from the low bits, which a product alone
/// fills from the key's low bits only).
#[derive(Debug, Default, Clone, Copy)]
struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ u64::from(n)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judges_each_rule() {
        let grid = Grid::from_ascii("...\n.#.\n...").unwrap();
        let c = |x, y| grid.cell(x, y).unwrap();
        assert_eq!(check_step(&grid, &[c(0, 0)], &[c(0, 0)]), Ok(()));
        // Onto the wall, two cells at once, and a corner cut past the wall.
        for to in [c(1, 1), c(2, 0), c(1, 1)] {
            assert!(matches!(
                check_step(&grid, &[c(0, 0)], &[to]),
                Err(StepConflict::IllegalMove { .. })
            ));
        }
        assert!(matches!(
            check_step(&grid, &[c(1, 0)], &[c(0, 1)]),
            Err(StepConflict::IllegalMove { .. })
        ));
        assert!(matches!(
            check_step(&grid, &[c(0, 0), c(2, 0)], &[c(1, 0), c(1, 0)]),
            Err(StepConflict::Vertex { .. })
        ));
        assert!(matches!(
            check_step(&grid, &[c(0, 0), c(0, 0)], &[c(0, 0), c(1, 0)]),
            Err(StepConflict::Vertex { .. })
        ));
        // A rotation of three is allowed (each follows the next), vanishing is not.
        let open = Grid::from_ascii("..\n..").unwrap();
        let o = |x, y| open.cell(x, y).unwrap();
        assert_eq!(
            check_step(
                &open,
                &[o(0, 0), o(1, 0), o(1, 1)],
                &[o(1, 0), o(1, 1), o(0, 1)]
            ),
            Ok(())
        );
        assert_eq!(
            check_step(&open, &[o(0, 0), NO_CELL], &[o(0, 0), o(1, 1)]),
            Err(StepConflict::Presence { agent: 1 })
        );
        // Crossing the other way round.
        assert!(matches!(
            check_step(&open, &[o(1, 1), o(0, 1)], &[o(0, 0), o(1, 0)]),
            Err(StepConflict::Crossing { .. })
        ));
    }
}
