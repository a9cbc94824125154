//! Straightening a stitched path: greedy string pulling with lines that obey the grid's rules.
//!
//! A line from `a` to `b` is drawn with the 8-connected Bresenham walk, which takes exactly
//! `max(|dx|, |dy|)` steps of which `min(|dx|, |dy|)` are diagonal: its cost is the octile
//! distance, the least any path between the two cells can cost on a uniform grid. The line is
//! usable when each of its steps is a legal move (walkable cells, no corner cut, read from the
//! grid's move table). So replacing a stretch of the path by a usable line never makes it
//! longer, and the result stays legal and continuous by construction.
//!
//! From an anchor the farthest path cell reachable by a usable line is searched by galloping
//! (2, 4, 8, ... cells ahead) and then bisecting between the last success and the first
//! failure. Visibility along a path is not monotone, so this may stop short of the true
//! farthest cell; it only costs length, never legality, and keeps the number of line checks
//! logarithmic per anchor.

use crate::grid::{CellId, Direction, Grid};

/// Whether the line from `a` to `b` is made of legal moves; when `out` is given, pushes its
/// cells after `a` (up to and including `b`).
#[inline]
fn line(grid: &Grid, a: CellId, b: CellId, mut out: Option<&mut Vec<CellId>>) -> bool {
    let width = grid.width();
    let moves = grid.move_table();
    let (x0, y0) = (i64::from(a % width), i64::from(a / width));
    let (x1, y1) = (i64::from(b % width), i64::from(b / width));
    let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
    let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
    let mut err = dx + dy;
    let (mut x, mut y) = (x0, y0);
    let mut cell = a;
    while (x, y) != (x1, y1) {
        let e2 = 2 * err;
        let (mut mx, mut my) = (0, 0);
        if e2 >= dy {
            err += dy;
            mx = sx;
        }
        if e2 <= dx {
            err += dx;
            my = sy;
        }
        let d = direction_index(mx, my);
        if moves[cell as usize].0 & (1 << d) == 0 {
            return false;
        }
        x += mx;
        y += my;
        cell = (y * i64::from(width) + x) as CellId;
        if let Some(out) = out.as_deref_mut() {
            out.push(cell);
        }
    }
    true
}

#[inline(always)]
fn direction_index(dx: i64, dy: i64) -> usize {
    // Indexed by (dy + 1) * 3 + (dx + 1); the centre is never used.
    const TABLE: [u8; 9] = [7, 0, 4, 3, 255, 1, 6, 2, 5];
    let d = TABLE[((dy + 1) * 3 + (dx + 1)) as usize] as usize;
    debug_assert_eq!(Direction::ALL[d].delta(), (dx as i32, dy as i32));
    d
}

/// Replaces `out` by a straightened version of `raw` (a legal path on a uniform 8-connected
/// grid): same ends, legal, continuous, never longer. Returns the number of line checks.
pub(crate) fn string_pull(grid: &Grid, raw: &[CellId], out: &mut Vec<CellId>) -> u64 {
    out.clear();
    let Some(&first) = raw.first() else {
        return 0;
    };
    out.push(first);
    let n = raw.len();
    let mut checks = 0u64;
    let mut a = 0usize;
    while a + 1 < n {
        let anchor = raw[a];
        let mut good = a + 1;
        let mut step = 2usize;
        let mut bad = n;
        loop {
            let probe = a + step;
            if probe >= n {
                // Try the very end before bisecting.
                if good != n - 1 {
                    checks += 1;
                    if line(grid, anchor, raw[n - 1], None) {
                        good = n - 1;
                    } else {
                        bad = n - 1;
                    }
                }
                break;
            }
            checks += 1;
            if line(grid, anchor, raw[probe], None) {
                good = probe;
                step *= 2;
            } else {
                bad = probe;
                break;
            }
        }
        while bad > good + 1 {
            let mid = good + (bad - good) / 2;
            checks += 1;
            if line(grid, anchor, raw[mid], None) {
                good = mid;
            } else {
                bad = mid;
            }
        }
        if good == a + 1 {
            if raw[good] != anchor {
                out.push(raw[good]);
            }
        } else {
            let ok = line(grid, anchor, raw[good], Some(out));
            debug_assert!(ok);
        }
        a = good;
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_cost_the_octile_distance_and_respect_corners() {
        let grid = Grid::new(20, 20).unwrap();
        let a = grid.cell(1, 2).unwrap();
        for (x, y) in [(15, 7), (1, 19), (0, 0), (19, 3), (9, 9), (1, 2)] {
            let b = grid.cell(x, y).unwrap();
            let mut out = vec![a];
            assert!(line(&grid, a, b, Some(&mut out)));
            assert_eq!(*out.last().unwrap(), b);
            let cost = grid.path_cost(&out).unwrap();
            assert!((cost - grid.heuristic(a, b)).abs() < 1e-9);
        }
        // A diagonal line past a blocked corner is refused.
        let walled = Grid::from_ascii("..\n#.").unwrap();
        assert!(!line(&walled, 0, 3, None));
        assert!(line(&walled, 0, 1, None));
    }

    #[test]
    fn pulling_straightens_a_detour() {
        let grid = Grid::new(10, 10).unwrap();
        let c = |x, y| grid.cell(x, y).unwrap();
        // An L-shaped path along two sides of the square.
        let mut raw: Vec<CellId> = (0..10).map(|x| c(x, 0)).collect();
        raw.extend((1..10).map(|y| c(9, y)));
        let mut out = Vec::new();
        string_pull(&grid, &raw, &mut out);
        assert_eq!((out[0], *out.last().unwrap()), (c(0, 0), c(9, 9)));
        let cost = grid.path_cost(&out).unwrap();
        assert!((cost - 9.0 * std::f64::consts::SQRT_2).abs() < 1e-9);
    }
}
