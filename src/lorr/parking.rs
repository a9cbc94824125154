//! Where robots without a task wait in a League of Robot Runners run: away from the busy
//! errand cells. On maps whose tasks all visit a few cells (the `E` cells along the edges of
//! `sortation_large` and the pockets of `warehouse_large`), a robot left without a task stands
//! where it did its last errand, on or beside one of those cells, and the robots queueing for
//! them must go round it. [`Parking`] holds, per cell, how far it lies inside the ring of
//! [`PARK_DISTANCE`] steps around the busy cells; the `pibt` planner's idle robots walk down
//! that cost until they are out of the ring (`docs/performance.md`).

use std::collections::VecDeque;

use crate::grid::{CellId, Grid};
use crate::sim::Heading;

/// An errand cell is busy when the task lines visit it at least this many times as often as
/// the mean errand cell.
pub(crate) const BUSY_FACTOR: u64 = 4;

/// Idle robots keep at least this many steps (4-connected moves) from a busy errand cell.
pub(crate) const PARK_DISTANCE: u32 = 10;

/// Per cell: how many steps short of [`PARK_DISTANCE`] it lies from the nearest busy errand
/// cell (0: far enough).
#[derive(Debug, Clone)]
pub(crate) struct Parking {
    cost: Vec<u8>,
}

impl Parking {
    /// The parking costs of `grid` around the busy errand cells `busy` ([`busy_errands`]);
    /// `None` when there are none (errands spread evenly: idle robots may wait anywhere).
    pub(crate) fn new(grid: &Grid, busy: &[CellId]) -> Option<Parking> {
        if busy.is_empty() {
            return None;
        }
        let mut distance = vec![u32::MAX; grid.len()];
        let mut queue = VecDeque::new();
        for &c in busy {
            distance[c as usize] = 0;
            queue.push_back(c);
        }
        while let Some(c) = queue.pop_front() {
            let d = distance[c as usize];
            if d + 1 >= PARK_DISTANCE {
                continue;
            }
            for n in Heading::ALL.into_iter().filter_map(|h| h.ahead(grid, c)) {
                if distance[n as usize] == u32::MAX {
                    distance[n as usize] = d + 1;
                    queue.push_back(n);
                }
            }
        }
        let cost = distance
            .iter()
            .map(|&d| PARK_DISTANCE.saturating_sub(d) as u8)
            .collect();
        Some(Parking { cost })
    }

    /// How many steps short of the parking distance `cell` lies (0: an idle robot may wait
    /// there).
    pub(crate) fn cost(&self, cell: CellId) -> u32 {
        u32::from(self.cost[cell as usize])
    }
}

/// The errand cells of `grid` that the task lines `lines` visit at least [`BUSY_FACTOR`] times
/// as often as the mean errand cell, in cell order: the `E` cells of the warehouse maps
/// (620 of 29,552 errand cells on `sortation_large`, 352 of 24,353 on `warehouse_large`),
/// none where errands spread evenly (the random, city and game maps).
pub(crate) fn busy_errands(grid: &Grid, lines: &[Vec<CellId>]) -> Vec<CellId> {
    let mut visits = vec![0u64; grid.len()];
    for line in lines {
        for &c in line {
            if let Some(v) = visits.get_mut(c as usize) {
                *v += 1;
            }
        }
    }
    let (errands, total) = visits
        .iter()
        .filter(|&&v| v > 0)
        .fold((0u64, 0u64), |(n, s), &v| (n + 1, s + v));
    (0..grid.len() as CellId)
        // visits >= BUSY_FACTOR x total / errands, in integers.
        .filter(|&c| {
            let v = visits[c as usize];
            v > 0 && v * errands >= BUSY_FACTOR * total
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_robots_keep_their_distance_from_the_busy_errand_cells_only() {
        // A 30 x 3 corridor: every task ends at cell 0, its first errands spread along it.
        let grid = Grid::new(30, 3).unwrap();
        let lines: Vec<Vec<CellId>> = (1..90).map(|c| vec![c, 0]).collect();
        assert_eq!(busy_errands(&grid, &lines), vec![0]);
        let parking = Parking::new(&grid, &busy_errands(&grid, &lines)).unwrap();
        assert_eq!(parking.cost(0), PARK_DISTANCE);
        assert_eq!(parking.cost(1), PARK_DISTANCE - 1);
        assert_eq!(parking.cost(30 + 2), PARK_DISTANCE - 3);
        assert_eq!(parking.cost(PARK_DISTANCE), 0);
        assert_eq!(parking.cost(89), 0);
        // Errands visited evenly: nowhere in particular.
        let even: Vec<Vec<CellId>> = (0..90).map(|c| vec![c, (c + 45) % 90]).collect();
        assert!(busy_errands(&grid, &even).is_empty());
        assert!(Parking::new(&grid, &[]).is_none());
    }
}
