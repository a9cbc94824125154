//! The MAPF benchmark table of docs/benchmarks.md: `throng::mapf::lacam::solve` on every scenario file
//! of a benchmark directory (`maps/` and `scens/`, as in the Moving AI MAPF suite), at the
//! agent counts given per map, one instance at a time.
//!
//! ```text
//! cargo run --release --example mapf_bench -- DIR [--time-limit 10] [--only MAP] \
//!     [--counts empty-32-32=100,200 ...]
//! ```
//!
//! Prints one Markdown row per map and count: instances solved, time to the first solution
//! (median and max of the solved), and the sum of costs over its lower bound (mean); then the
//! instances not solved.

use std::path::{Path, PathBuf};
use std::time::Duration;

use throng::grid::Neighborhood;
use throng::mapf::GoalDistances;
use throng::mapf::lacam::{LacamOptions, LacamOutcome, PIBT_RUNS, SCATTER_MARGIN, solve};
use throng::mapf::{Instance, plan_costs};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .ok_or("usage: mapf_bench DIR [--time-limit S]")?,
    );
    let mut limit = 10.0;
    let mut only: Option<String> = None;
    let mut counts: Vec<(String, Vec<usize>)> = vec![
        ("empty-32-32".into(), vec![100, 200, 300, 400, 500]),
        ("maze-32-32-2".into(), vec![50, 100, 150, 200, 250, 300]),
        ("room-64-64-8".into(), vec![100, 200, 400, 600, 800, 1000]),
    ];
    while let Some(flag) = args.next() {
        let value = args.next().ok_or("a flag needs a value")?;
        match flag.as_str() {
            "--time-limit" => limit = value.parse()?,
            "--only" => only = Some(value),
            "--counts" => {
                let (map, list) = value.split_once('=').ok_or("--counts MAP=N,N")?;
                let list = list.split(',').map(str::parse).collect::<Result<_, _>>()?;
                counts.retain(|(m, _)| m != map);
                counts.push((map.to_string(), list));
            }
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    println!("| map | agents | solved | first solution: median / max | SoC / lower bound |");
    println!("|---|---|---|---|---|");
    let mut failures = Vec::new();
    for (map, list) in &counts {
        if only.as_ref().is_some_and(|o| o != map) {
            continue;
        }
        let scens = scen_files(&dir, map)?;
        for &agents in list {
            let mut times = Vec::new();
            let mut ratios = Vec::new();
            let mut tried = 0;
            for scen in &scens {
                let map_path = dir.join("maps").join(format!("{map}.map"));
                let instance = match Instance::load(&map_path, scen, agents, Neighborhood::Four) {
                    Ok(i) => i,
                    Err(_) => continue, // fewer lines than agents (even-k files)
                };
                tried += 1;
                let options = LacamOptions {
                    time_limit: Some(Duration::from_secs_f64(limit)),
                    scatter: Some(SCATTER_MARGIN),
                    pibt_runs: PIBT_RUNS,
                    ..LacamOptions::default()
                };
                let (outcome, stats) =
                    solve(&instance.grid, &instance.starts, &instance.goals, &options)?;
                match outcome {
                    LacamOutcome::Solved(plan) => {
                        let d = GoalDistances::new(&instance.grid, &instance.goals);
                        let c = plan_costs(&instance, &d, &plan);
                        times.push(stats.time_ms);
                        ratios.push(c.soc as f64 / c.soc_lb.max(1) as f64);
                    }
                    _ => failures.push(format!(
                        "{} at {agents}",
                        scen.file_name().unwrap_or_default().to_string_lossy()
                    )),
                }
            }
            if tried == 0 {
                continue;
            }
            times.sort_by(f64::total_cmp);
            let median = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
            let max = times.last().copied().unwrap_or(f64::NAN);
            let ratio = ratios.iter().sum::<f64>() / ratios.len().max(1) as f64;
            println!(
                "| {map} | {agents} | {}/{tried} | {median:.1} / {max:.1} ms | {ratio:.3} |",
                times.len()
            );
        }
    }
    if !failures.is_empty() {
        println!("\nnot solved within {limit} s: {}", failures.join(", "));
    }
    Ok(())
}

/// The scenario files of `map` in `dir/scens`, random-1..25 then even-1..25.
fn scen_files(dir: &Path, map: &str) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<(u8, u32, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(dir.join("scens"))? {
        let path = entry?.path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let Some(rest) = name
            .strip_prefix(map)
            .and_then(|r| r.strip_prefix('-'))
            .and_then(|r| r.strip_suffix(".scen"))
        else {
            continue;
        };
        let Some((kind, k)) = rest.rsplit_once('-') else {
            continue;
        };
        let Ok(k) = k.parse() else { continue };
        files.push((u8::from(kind == "even"), k, path));
    }
    files.sort();
    Ok(files.into_iter().map(|(_, _, p)| p).collect())
}
