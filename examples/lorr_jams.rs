//! Where the robots of a LoRR run jam: plays a problem with the `pibt` planner (no time limit)
//! and every `--every K` steps prints the tasks finished, the share of robots that moved in
//! the last K steps, and the robots that have not moved for `--still S` steps, counted by the
//! kind of cell they stand on (one-cell aisle across or along, open ground, errand cell) and
//! by whether they have a task; then the robots holding tasks and the share of their steps
//! with a move, and the mean Manhattan length and age of the tasks finished in the window and
//! of those not started yet (and the lengths' sum, the errand distance the window finished:
//! throughput in cells, whatever the mix of short and long tasks); `--picture FILE.ppm` writes the map at the end (walls black,
//! robots still for S steps red, moving robots green, robots without a task blue), and
//! `--text X0,Y0,X1,Y1` prints that part of it at the end as text (`#` wall, `.` free, a
//! robot by the way it faces: `>` `v` `<` `^` with a task, `e` `s` `w` `n` without);
//! `--lane-cost C` sets `PibtConfig::lane_cost`, `--corridor-rules on|off`
//! `PibtConfig::corridor_rules`; `--guidance on|off` the congestion guidance
//! (default: the run's choice), `--guidance-floor F` its `GuidanceConfig::floor`; `--seed N`
//! places the `--agents` team and seeds the run (default 0). Each window
//! also counts the holders by tenth of the map's width, where they stand and where they head.
//!
//! ```sh
//! cargo run --release --example lorr_jams -- PROBLEM.json --agents 10000 --steps 1000
//! ```

use std::io::Write;

use throng::lorr::{GuidanceChoice, GuidanceConfig, LorrConfig, LorrPlanner, LorrRun, Problem};

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut path, mut agents, mut steps, mut every, mut still) =
        (None, None, 1000u64, 100u64, 20u64);
    let mut picture = None;
    let mut lane_cost = None;
    let mut corridor_rules = None;
    let mut text: Option<Vec<u32>> = None;
    let mut guidance: Option<String> = None;
    let mut guidance_floor: Option<f32> = None;
    let mut seed = 0u64;
    let number = |s: Option<String>| s.and_then(|s| s.parse::<u64>().ok());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--agents" => agents = number(args.next()).map(|n| n as usize),
            "--steps" => steps = number(args.next()).unwrap_or(steps),
            "--every" => every = number(args.next()).unwrap_or(every).max(1),
            "--still" => still = number(args.next()).unwrap_or(still),
            "--picture" => picture = args.next(),
            "--text" => match args.next().map(|v| {
                v.split(',')
                    .map(|x| x.parse::<u32>())
                    .collect::<Result<Vec<u32>, _>>()
            }) {
                Some(Ok(r)) if r.len() == 4 && r[0] < r[2] && r[1] < r[3] => text = Some(r),
                _ => {
                    eprintln!("--text: X0,Y0,X1,Y1 (columns X0 to X1 - 1, rows Y0 to Y1 - 1)");
                    std::process::exit(2)
                }
            },
            "--seed" => match number(args.next()) {
                Some(n) => seed = n,
                None => {
                    eprintln!("--seed: a whole number");
                    std::process::exit(2)
                }
            },
            "--lane-cost" => lane_cost = number(args.next()).map(|n| n as u8),
            "--corridor-rules" => match args.next().as_deref() {
                Some("on") => corridor_rules = Some(true),
                Some("off") => corridor_rules = Some(false),
                _ => {
                    eprintln!("--corridor-rules: on or off");
                    std::process::exit(2);
                }
            },
            "--guidance" => guidance = args.next(),
            "--guidance-floor" => match args.next().map(|f| f.parse::<f32>()) {
                Some(Ok(f)) if (0.0..1.0).contains(&f) => guidance_floor = Some(f),
                _ => {
                    eprintln!("--guidance-floor: a share from 0 to under 1");
                    std::process::exit(2)
                }
            },
            _ => path = Some(a),
        }
    }
    let Some(path) = path else {
        eprintln!(
            "usage: lorr_jams PROBLEM.json [--agents N] [--steps N] [--every K] [--still S] \
             [--picture FILE.ppm] [--text X0,Y0,X1,Y1] [--lane-cost C] [--corridor-rules on|off] [--guidance on|off] [--guidance-floor F] \
             [--seed N]"
        );
        std::process::exit(2);
    };
    let mut problem = Problem::load(&path).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    if let Some(n) = agents {
        problem = problem.with_agents(n, seed).unwrap_or_else(|e| {
            eprintln!("--agents {n}: {e}");
            std::process::exit(2)
        });
    }
    let grid = problem.grid.clone();
    let errand: Vec<bool> = {
        let mut e = vec![false; grid.len()];
        for line in &problem.tasks {
            for &c in line {
                e[c as usize] = true;
            }
        }
        e
    };
    let free = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && x < i64::from(grid.width())
            && y < i64::from(grid.height())
            && grid.is_walkable(grid.cell(x as u32, y as u32).expect("on the map"))
    };
    // 0 open, 1 one-cell row (walls north and south), 2 one-cell column, 3 errand cell.
    let kind: Vec<u8> = (0..grid.len() as u32)
        .map(|c| {
            let (x, y) = grid.coords(c);
            let (x, y) = (i64::from(x), i64::from(y));
            if errand[c as usize] {
                3
            } else if !free(x, y - 1) && !free(x, y + 1) {
                1
            } else if !free(x - 1, y) && !free(x + 1, y) {
                2
            } else {
                0
            }
        })
        .collect();
    let names = ["open", "row aisle", "column aisle", "errand cell"];
    let mut config = LorrConfig {
        planner: LorrPlanner::Pibt,
        seed,
        ..LorrConfig::default()
    };
    if guidance_floor.is_some() && guidance.as_deref() != Some("on") {
        eprintln!("--guidance-floor applies with --guidance on only");
        std::process::exit(2)
    }
    match guidance.as_deref() {
        None => {}
        Some("on") => {
            let mut g = GuidanceConfig::for_map(problem.has_busy_errands());
            if let Some(f) = guidance_floor {
                g.floor = f;
            }
            config.guidance = GuidanceChoice::On(g)
        }
        Some("off") => config.guidance = GuidanceChoice::Off,
        Some(other) => {
            eprintln!("--guidance {other}: on or off");
            std::process::exit(2)
        }
    }
    config.pibt.corridor_rules = corridor_rules;
    if let Some(c) = lane_cost {
        config.pibt.lane_cost = Some(c);
    }
    let mut run = LorrRun::new(&problem, config).expect("a pibt run");
    let n = problem.starts.len();
    let mut since = vec![0u64; n];
    let mut last_moves = 0;
    let mut last_tasks = 0;
    let (mut holder_steps, mut holder_moves) = (0u64, 0u64);
    for t in 1..=steps {
        let before = run.positions().to_vec();
        let holding: Vec<bool> = (0..n as u32)
            .map(|a| run.board().target(a).is_some())
            .collect();
        run.step();
        for (a, (&p, &q)) in before.iter().zip(run.positions()).enumerate() {
            since[a] = if p == q { since[a] + 1 } else { 0 };
            if holding[a] {
                holder_steps += 1;
                holder_moves += u64::from(p != q);
            }
        }
        if t % every == 0 || t == steps {
            let r = run.report();
            let mut counts = [[0usize; 2]; 4];
            for (a, &p) in run.positions().iter().enumerate() {
                if since[a] >= still {
                    let idle = usize::from(run.board().target(a as u32).is_none());
                    counts[kind[p as usize] as usize][idle] += 1;
                }
            }
            let per: Vec<String> = names
                .iter()
                .zip(counts)
                .map(|(name, [busy, idle])| format!("{name} {busy}+{idle}"))
                .collect();
            println!(
                "step {t}: tasks {} (+{}), moved {:.0}% of robot-steps, still >= {still}: {} \
                 (task+none: {})",
                r.tasks_finished,
                r.tasks_finished - last_tasks,
                100.0 * (r.moves - last_moves) as f64 / (n as f64 * every as f64),
                since.iter().filter(|&&s| s >= still).count(),
                per.join(", ")
            );
            // Tasks finished in the window, and those not yet started: mean length
            // (Manhattan, errand to errand) and age (steps since revealed).
            let board = run.board();
            let length = |line: u32| -> u64 {
                board.lines()[line as usize]
                    .windows(2)
                    .map(|w| {
                        let ((x0, y0), (x1, y1)) = (grid.coords(w[0]), grid.coords(w[1]));
                        u64::from(x0.abs_diff(x1) + y0.abs_diff(y1))
                    })
                    .sum()
            };
            let (mut done, mut open) = ([0u64; 3], [0u64; 3]);
            for task in board.tasks() {
                let (sum, end) = match task.finished_at {
                    Some(f) if f + every > t => (&mut done, f),
                    None if task.done == 0 => (&mut open, t),
                    _ => continue,
                };
                sum[0] += 1;
                sum[1] += length(task.line);
                sum[2] += end - task.revealed_at;
            }
            let mean = |s: [u64; 3], i: usize| s[i] as f64 / s[0].max(1) as f64;
            println!(
                "    holders {:.0} moving {:.0}%; finished: length {:.0} (errand distance {}), \
                 age {:.0}; not started: {} tasks, length {:.0}, age {:.0}",
                holder_steps as f64 / every as f64,
                100.0 * holder_moves as f64 / holder_steps.max(1) as f64,
                mean(done, 1),
                done[1],
                mean(done, 2),
                open[0],
                mean(open, 1),
                mean(open, 2)
            );
            // Where the holders stand and where they head, by tenths of the map's width.
            let (mut at_x, mut to_x) = ([0usize; 10], [0usize; 10]);
            let tenth = |c: u32| (grid.coords(c).0 as usize * 10 / grid.width() as usize).min(9);
            for (a, &p) in run.positions().iter().enumerate() {
                if let Some(target) = run.board().target(a as u32) {
                    at_x[tenth(p)] += 1;
                    to_x[tenth(target)] += 1;
                }
            }
            println!("    holders by tenth of the width: at {at_x:?}, heading for {to_x:?}");
            last_moves = r.moves;
            last_tasks = r.tasks_finished;
            (holder_steps, holder_moves) = (0, 0);
        }
    }
    if let Some(r) = text {
        let mut at = std::collections::HashMap::new();
        for (a, &p) in run.positions().iter().enumerate() {
            at.insert(p, (a, run.headings()[a]));
        }
        for y in r[1]..r[3] {
            let mut line = String::new();
            for x in r[0]..r[2] {
                let Some(c) = grid.cell(x, y) else { continue };
                line.push(if !grid.is_walkable(c) {
                    '#'
                } else {
                    match at.get(&c) {
                        None => '.',
                        Some(&(a, h)) if run.board().target(a as u32).is_none() => {
                            ['e', 's', 'w', 'n'][h.index()]
                        }
                        Some(&(_, h)) => ['>', 'v', '<', '^'][h.index()],
                    }
                });
            }
            println!("{line}");
        }
    }
    if let Some(file) = picture {
        let (w, h) = (grid.width() as usize, grid.height() as usize);
        let mut rgb = vec![0u8; w * h * 3];
        for c in 0..grid.len() {
            let px = if grid.is_walkable(c as u32) {
                if errand[c] {
                    [200, 200, 200]
                } else {
                    [255, 255, 255]
                }
            } else {
                [0, 0, 0]
            };
            rgb[c * 3..c * 3 + 3].copy_from_slice(&px);
        }
        for (a, &p) in run.positions().iter().enumerate() {
            let px = if run.board().target(a as u32).is_none() {
                [0, 0, 255]
            } else if since[a] >= still {
                [255, 0, 0]
            } else {
                [0, 170, 0]
            };
            rgb[p as usize * 3..p as usize * 3 + 3].copy_from_slice(&px);
        }
        let mut f = std::fs::File::create(&file).expect("the picture file");
        write!(f, "P6\n{w} {h}\n255\n").expect("written");
        f.write_all(&rgb).expect("written");
    }
}
