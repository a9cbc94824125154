//! Exact path-cost arithmetic for the search loop.
//!
//! The search keeps costs as `u64` so that comparisons are one integer compare and equal costs
//! are really equal. Floating-point costs break ties at random: two routes of the same octile
//! length summed in different orders differ in the last bit, so "prefer the deeper of two equal
//! `f`" rarely triggers and A* expands many more nodes.
//!
//! - [`FixedCost`] (uniform grids): costs in fixed point, [`SCALE`] units per straight step, a
//!   diagonal `round(sqrt(2) * SCALE)`. The rounding error is below 2e-10 per step, far below
//!   the smallest difference between two distinct octile lengths of paths that fit a grid, and
//!   no path on a grid of at most 2^32 cells can overflow.
//! - [`FloatCost`] (weighted grids): `f64` costs stored as their bit patterns, which order like
//!   the numbers themselves because costs are never negative.
//!
//! Either way the cost reported to the user is recomputed in `f64` along the returned path, so
//! it is the same number [`crate::grid::Grid::path_cost`] gives.

use std::f64::consts::SQRT_2;

use crate::grid::{Direction, Neighborhood};

/// Fixed-point units per straight step on uniform grids.
pub(crate) const SCALE: u64 = 1 << 31;
pub(crate) const DIAGONAL: u64 = 3_037_000_500; // round(sqrt(2) * 2^31)

/// Cost arithmetic of one search. All values are `u64` "keys" that order like the costs.
pub(crate) trait CostModel {
    /// Whether every step costs its octile length (no per-cell costs), so that going around
    /// through a neighbour never beats a direct move: `step(p, n) <= step(p, c) + step(c, n)`.
    const METRIC: bool;
    /// Cost of a move in direction `d` into `next`.
    fn step(&self, d: usize, next: u32) -> u64;
    /// `a + b`.
    fn add(&self, a: u64, b: u64) -> u64;
    /// Heuristic for a displacement of `dx` columns and `dy` rows.
    fn heuristic(&self, dx: u32, dy: u32) -> u64;
}

/// Fixed-point costs for grids without per-cell costs; `EIGHT`: 8-connected (octile
/// heuristic), else 4-connected (Manhattan). A type parameter, so the search loop is compiled
/// once per neighbourhood and never tests it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FixedCost<const EIGHT: bool>;

impl<const EIGHT: bool> CostModel for FixedCost<EIGHT> {
    const METRIC: bool = true;
    #[inline(always)]
    fn step(&self, d: usize, _next: u32) -> u64 {
        const STEP: [u64; 8] = [
            SCALE, SCALE, SCALE, SCALE, DIAGONAL, DIAGONAL, DIAGONAL, DIAGONAL,
        ];
        STEP[d & 7]
    }
    #[inline(always)]
    fn add(&self, a: u64, b: u64) -> u64 {
        a + b
    }
    #[inline(always)]
    fn heuristic(&self, dx: u32, dy: u32) -> u64 {
        let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
        if EIGHT {
            u64::from(hi - lo) * SCALE + u64::from(lo) * DIAGONAL
        } else {
            u64::from(hi + lo) * SCALE
        }
    }
}

/// `f64` costs (as bit patterns) for grids with per-cell costs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FloatCost<'a> {
    pub neighborhood: Neighborhood,
    pub costs: &'a [f32],
    pub h_scale: f64,
}

impl CostModel for FloatCost<'_> {
    const METRIC: bool = false;
    #[inline(always)]
    fn step(&self, d: usize, next: u32) -> u64 {
        (Direction::BASE_COST[d] * f64::from(self.costs[next as usize])).to_bits()
    }
    #[inline(always)]
    fn add(&self, a: u64, b: u64) -> u64 {
        (f64::from_bits(a) + f64::from_bits(b)).to_bits()
    }
    #[inline(always)]
    fn heuristic(&self, dx: u32, dy: u32) -> u64 {
        let (dx, dy) = (f64::from(dx), f64::from(dy));
        let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
        let d = match self.neighborhood {
            Neighborhood::Eight => (hi - lo) + SQRT_2 * lo,
            Neighborhood::Four => hi + lo,
        };
        (d * self.h_scale).to_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagonal_constant_is_rounded_sqrt2() {
        let exact = SQRT_2 * SCALE as f64;
        assert!((DIAGONAL as f64 - exact).abs() <= 0.5 + 1e-6);
        // No overflow: a path through every cell of the largest grid, all diagonal.
        assert!(u64::from(u32::MAX).checked_mul(DIAGONAL).is_some());
    }

    #[test]
    fn float_bits_order_like_numbers() {
        let values = [0.0f64, 1e-300, 0.5, 1.0, 1.0 + f64::EPSILON, 2.0, 1e300];
        for w in values.windows(2) {
            assert!(w[0].to_bits() < w[1].to_bits());
        }
    }

    #[test]
    fn heuristics_match_octile() {
        let fixed = FixedCost::<true>;
        let h = fixed.heuristic(3, 7) as f64 / SCALE as f64;
        assert!((h - (4.0 + 3.0 * SQRT_2)).abs() < 1e-9);
        let four = FixedCost::<false>;
        assert_eq!(four.heuristic(3, 7), 10 * SCALE);
    }
}
