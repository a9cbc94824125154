//! The eight moves of a grid cell and their costs.
//!
//! Moves are numbered so that a cell's legal moves fit in one byte ([`MoveSet`]): bits 0-3 are
//! the orthogonal moves, bits 4-7 the diagonal ones. The search walks the set bits of that byte
//! instead of testing bounds, walls and corners for every neighbour.

use std::f64::consts::SQRT_2;

/// One of the eight moves from a cell. `x` grows to the east, `y` to the south (row order of
/// Moving AI maps: `(0, 0)` is the top-left cell).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Direction {
    /// `y - 1`
    North = 0,
    /// `x + 1`
    East = 1,
    /// `y + 1`
    South = 2,
    /// `x - 1`
    West = 3,
    /// `x + 1, y - 1`
    NorthEast = 4,
    /// `x + 1, y + 1`
    SouthEast = 5,
    /// `x - 1, y + 1`
    SouthWest = 6,
    /// `x - 1, y - 1`
    NorthWest = 7,
}

impl Direction {
    /// All eight moves, orthogonal first, in bit order.
    pub const ALL: [Direction; 8] = [
        Direction::North,
        Direction::East,
        Direction::South,
        Direction::West,
        Direction::NorthEast,
        Direction::SouthEast,
        Direction::SouthWest,
        Direction::NorthWest,
    ];

    /// Column change of each move, indexed by bit.
    pub const DX: [i32; 8] = [0, 1, 0, -1, 1, 1, -1, -1];
    /// Row change of each move, indexed by bit.
    pub const DY: [i32; 8] = [-1, 0, 1, 0, -1, 1, 1, -1];
    /// Base cost of each move, indexed by bit: 1 straight, sqrt(2) diagonal.
    pub const BASE_COST: [f64; 8] = [1.0, 1.0, 1.0, 1.0, SQRT_2, SQRT_2, SQRT_2, SQRT_2];

    /// The move's bit index (0..8).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// `(dx, dy)` of the move.
    #[inline]
    pub fn delta(self) -> (i32, i32) {
        (Self::DX[self as usize], Self::DY[self as usize])
    }

    /// Whether the move is diagonal.
    #[inline]
    pub fn is_diagonal(self) -> bool {
        (self as u8) >= 4
    }

    /// The move whose delta is `(dx, dy)`, if it is one of the eight.
    pub fn from_delta(dx: i32, dy: i32) -> Option<Direction> {
        Direction::ALL.into_iter().find(|d| d.delta() == (dx, dy))
    }

    /// For a diagonal move, the two orthogonal moves it passes between (both cells must be
    /// walkable: no corner cutting). `None` for an orthogonal move.
    pub fn sides(self) -> Option<(Direction, Direction)> {
        use Direction::*;
        match self {
            NorthEast => Some((North, East)),
            SouthEast => Some((South, East)),
            SouthWest => Some((South, West)),
            NorthWest => Some((North, West)),
            _ => None,
        }
    }
}

/// The legal moves out of one cell, one bit per [`Direction`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MoveSet(pub u8);

impl MoveSet {
    /// No legal move.
    pub const EMPTY: MoveSet = MoveSet(0);

    /// Whether `dir` is legal.
    #[inline]
    pub fn contains(self, dir: Direction) -> bool {
        self.0 & (1 << dir as u8) != 0
    }

    /// Number of legal moves.
    #[inline]
    pub fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether there is no legal move.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Iterates over the legal moves in bit order.
    pub fn iter(self) -> impl Iterator<Item = Direction> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            Some(Direction::ALL[i as usize])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_are_distinct_and_unit() {
        for (i, d) in Direction::ALL.into_iter().enumerate() {
            assert_eq!(d.index(), i);
            let (dx, dy) = d.delta();
            assert!(dx.abs() <= 1 && dy.abs() <= 1 && (dx, dy) != (0, 0));
            assert_eq!(d.is_diagonal(), dx != 0 && dy != 0);
            assert_eq!(Direction::from_delta(dx, dy), Some(d));
            if let Some((a, b)) = d.sides() {
                assert_eq!(
                    (a.delta().0 + b.delta().0, a.delta().1 + b.delta().1),
                    (dx, dy)
                );
            }
        }
    }

    #[test]
    fn move_set_iterates_set_bits() {
        let set = MoveSet(0b1001_0101);
        let dirs: Vec<_> = set.iter().collect();
        assert_eq!(
            dirs,
            vec![
                Direction::North,
                Direction::South,
                Direction::NorthEast,
                Direction::NorthWest
            ]
        );
        assert_eq!(set.len(), 4);
        assert!(set.contains(Direction::NorthWest));
        assert!(!set.contains(Direction::East));
    }
}
