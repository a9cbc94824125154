//! The optimal planners against each other on small grids that change between queries.
//!
//! A grid of at most 24 x 24 cells (walkable bits from the input), then a stream of operations:
//! queries answered by A*, online JPS and JPS+ (with and without a node budget), and cell
//! toggles through `Grid::apply`, which repairs the JPS+ jump table in place. Every found path
//! must be legal, run from start to goal and cost what its planner reported; A* and both JPS
//! must agree on the outcome and the cost; JPS and JPS+ on the very path and statistics; and
//! JPS+ on the edited grid (repaired table) must answer as JPS+ on a grid built fresh from the
//! same cells (new table).
#![no_main]

use libfuzzer_sys::fuzz_target;
use throng::grid::CellChange;
use throng::grid::{CellId, Grid, Neighborhood};
use throng::search::{SearchOptions, SearchOutcome, SearchWorkspace};

fuzz_target!(|data: &[u8]| {
    let [a, b, rest @ ..] = data else {
        return;
    };
    let (w, h) = (u32::from(a % 24) + 1, u32::from(b % 24) + 1);
    let n = (w * h) as usize;
    let neighborhood = if a & 0x80 == 0 {
        Neighborhood::Eight
    } else {
        Neighborhood::Four
    };
    let bits_len = n.div_ceil(8).min(rest.len());
    let (bits, ops) = rest.split_at(bits_len);
    // Missing bits are walkable; about one cell in eight blocked where the input says so.
    let walkable: Vec<bool> = (0..n)
        .map(|i| {
            bits.get(i / 8)
                .is_none_or(|byte| byte >> (i % 8) & 1 == 0 || i % 3 != 0)
        })
        .collect();
    let mut grid = Grid::from_walkable(w, h, walkable)
        .expect("a valid size")
        .with_neighborhood(neighborhood);
    let mut ws = SearchWorkspace::new();
    let mut fresh_ws = SearchWorkspace::new();
    let cell = |x: u8, y: u8| -> CellId { ((usize::from(x) << 8 | usize::from(y)) % n) as CellId };

    for op in ops.chunks_exact(3) {
        let (kind, p, q) = (op[0] % 4, op[1], op[2]);
        if kind == 3 {
            let c = cell(p, q);
            let walkable = !grid.is_walkable(c);
            grid.apply(&[CellChange::SetWalkable { cell: c, walkable }])
                .expect("a cell of the grid");
            continue;
        }
        let (start, goal) = (cell(p, 0), cell(q, p));
        let options = if kind == 2 {
            SearchOptions::with_budget(u64::from(q % 4))
        } else {
            SearchOptions::default()
        };

        let jps = ws.find_path_jps(&grid, start, goal, &options);
        let (jps_path, jps_stats) = (ws.path().to_vec(), ws.stats());
        let plus = ws.find_path_jps_plus(&grid, start, goal, &options);
        assert_eq!(jps, plus, "JPS and JPS+ outcomes");
        assert_eq!(jps_stats, ws.stats(), "JPS and JPS+ statistics");
        if let Ok(SearchOutcome::Found { cost }) = plus {
            assert_eq!(jps_path, ws.path(), "JPS and JPS+ paths");
            let path = ws.path();
            assert_eq!((path.first(), path.last()), (Some(&start), Some(&goal)));
            let legal = grid.path_cost(path).expect("a legal path");
            assert!(
                (legal - cost).abs() <= 1e-9 * legal.max(1.0),
                "{legal} vs {cost}"
            );
        }

        // The repaired table answers as a table built from scratch.
        let fresh = Grid::from_walkable(
            w,
            h,
            (0..n).map(|c| grid.is_walkable(c as CellId)).collect(),
        )
        .expect("a valid size")
        .with_neighborhood(neighborhood);
        let again = fresh_ws.find_path_jps_plus(&fresh, start, goal, &options);
        assert_eq!(plus, again, "repaired and fresh tables");
        if again.is_ok_and(|o| o.is_found()) {
            assert_eq!(ws.path(), fresh_ws.path(), "repaired and fresh tables");
        }

        if kind != 2 {
            let astar = ws.find_path(&grid, start, goal);
            match (astar, plus) {
                (Ok(SearchOutcome::Found { cost: x }), Ok(SearchOutcome::Found { cost: y })) => {
                    assert!((x - y).abs() <= 1e-9 * x.max(1.0), "A* {x}, JPS {y}")
                }
                (x, y) => assert_eq!(x.is_ok(), y.is_ok(), "A* {x:?}, JPS {y:?}"),
            }
            assert_eq!(
                astar.is_ok_and(|o| o.is_found()),
                plus.is_ok_and(|o| o.is_found()),
                "A* {astar:?}, JPS {plus:?}"
            );
        }
    }
});
