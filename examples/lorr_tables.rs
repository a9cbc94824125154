//! Distance tables per second of the `pibt` LoRR planner: the tables of `--goals N` errand
//! cells (every k-th free cell) on a problem's map, with the crisscross lanes (a step against
//! one costing 2, the default) or without (`--plain`), on this thread and on the rayon pool.
//!
//! ```sh
//! cargo run --release --example lorr_tables -- PROBLEM.json [--goals 2000] [--plain]
//! ```

use std::time::Instant;

use throng::lorr::Problem;
use throng::lorr::distance::DistanceTables;
use throng::lorr::lanes::crisscross;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut path = None;
    let mut goals = 2000usize;
    let mut lanes = true;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--goals" => goals = args.next().and_then(|s| s.parse().ok()).unwrap_or(goals),
            "--plain" => lanes = false,
            _ => path = Some(a),
        }
    }
    let Some(path) = path else {
        eprintln!("usage: lorr_tables PROBLEM.json [--goals N] [--plain]");
        std::process::exit(2);
    };
    let problem = match Problem::load(&path) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let grid = &problem.grid;
    let costs = lanes.then(|| crisscross(grid, 2));
    let cells: Vec<u32> = (0..grid.len() as u32)
        .filter(|&c| grid.is_walkable(c))
        .collect();
    let step = (cells.len() / goals.max(1)).max(1);
    let chosen: Vec<u32> = cells.iter().step_by(step).take(goals).copied().collect();
    for parallel in [false, true] {
        let mut tables = DistanceTables::new(grid, costs.as_deref(), 0);
        for &g in &chosen {
            tables.acquire(g, 0);
        }
        let t0 = Instant::now();
        let n = tables.fill(None, parallel);
        let s = t0.elapsed().as_secs_f64();
        // A checksum of the tables, so that two builds can be compared.
        let sum: u64 = chosen
            .iter()
            .map(|&g| {
                tables
                    .get(g)
                    .map_or(0, |t| t.iter().map(|&d| u64::from(d)).sum())
            })
            .sum();
        println!(
            "{} free cells, lanes {lanes}, {}: {n} tables in {:.3} s = {:.0} tables/s (checksum {sum})",
            cells.len(),
            if parallel { "rayon pool" } else { "one thread" },
            s,
            n as f64 / s
        );
    }
}
