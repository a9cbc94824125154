//! Speed across the boundary: what the C ABI and the C# binding add to the engine's work, on the
//! default scenario (`sims/default.toml`: 10,000 agents on the 512 x 512 `random512-10-0`).
//!
//! # What is measured
//!
//! - **One step.** Two simulations of the scenario, one stepped by [`Simulation::step`] (the
//!   engine in Rust) and one by `throng_sim_step` (the C ABI, called in-process as a C program
//!   calls it), tick by tick, taking turns to go first, their state hashes checked equal after
//!   every tick. Each side's time is that of its call; the C side is also compared with the
//!   engine's own time of the same tick (`ThrongTickEvents::wall_ms`). Then the C# program
//!   (`bindings/csharp/bench/Boundary.cs`, under Mono) steps the scenario itself and compares
//!   the time of each `Simulation.Step()` call with the engine's time of the same tick, read
//!   from the events: a ratio within one process, tick by tick.
//! - **A game's frame reads.** After each timed ABI tick, the tick's events (every kind, about
//!   10,000 moves among them) read with `throng_sim_read_events` into a buffer kept from tick to
//!   tick, and every agent's cell with `throng_sim_read_agents`: their time against the
//!   engine's own time of the tick.
//! - **Reading 10,000 positions.** `throng_sim_read_agents` (cells only, and ids, cells and
//!   states) into arrays kept from read to read, from Rust; `Simulation.ReadCells` and
//!   `ReadAgents` from C#. Median of many reads.
//! - **Batch planning.** The 10,000 trips of the scenario's agents (start to goal) planned in
//!   one batch with planner `auto` and the map's navigation points (saved, then loaded by each
//!   side): in Rust (a [`Planner`] made for the batch, as `throng_plan_batch` makes one, on
//!   rayon's pool, the answers flattened into arrays as the ABI hands them out), through
//!   `throng_plan_batch` from Rust (Rust and C take turns to go first), and from C#
//!   (`BatchPlanner.PlanInto`, arrays kept from call to call) in a Mono process started once
//!   per round. Rounds alternate Rust and C#; the sums of the costs are checked equal. Medians.
//!
//! Targets (issue 28): a step at most 2% over the engine's tick, 10,000 positions read in at
//! most 50 µs, a batch from C# within 5% of the same batch from Rust. The C# parts need `mcs`
//! and `mono` (skipped with a message without them).
//!
//! ```text
//! cargo bench -p throng-capi --bench boundary      # 200 timed ticks, 5 rounds of 3 batches (about 1.5 min, after the build)
//! cargo test -p throng-capi --bench boundary       # a short pass of everything (checks, no figures)
//! ```

use std::ffi::CString;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr::null_mut;
use std::time::Instant;

use rayon::prelude::*;
use throng::grid::CellId;
use throng::nav::{NavGraph, NavOptions};
use throng::planner::{Planner, PlannerKind};
use throng::scenario::Scenario;
use throng_capi::grid::{throng_grid_free, throng_grid_load};
use throng_capi::nav::{throng_nav_free, throng_nav_load};
use throng_capi::plan::throng_plan_batch;
use throng_capi::sim::{throng_sim_free, throng_sim_from_scenario, throng_sim_step};
use throng_capi::sim_agents::throng_sim_read_agents;
use throng_capi::sim_reads::{THRONG_EVENTS_ALL, ThrongEvent, throng_sim_read_events};
use throng_capi::{ThrongGrid, ThrongNav, ThrongSim, ThrongStatus, ThrongTickEvents};

const SCENARIO: &str = "sims/default.toml";
const MAP: &str = "sims/maps/random512-10-0.map";

/// How much of each measurement a run makes.
struct Sizes {
    /// Ticks played before timing (tick 0 plans all 10,000 trips).
    warm: usize,
    /// Ticks timed.
    ticks: usize,
    /// Reads of every agent timed.
    reads: usize,
    /// Batches per side per round.
    batches: usize,
    /// Rounds of batches, Rust and C# taking turns.
    rounds: usize,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

fn ok(status: ThrongStatus, what: &str) {
    assert_eq!(status, ThrongStatus::Ok, "{what} failed");
}

fn c_path(path: &Path) -> CString {
    CString::new(path.to_str().expect("a UTF-8 path")).expect("no NUL in a path")
}

/// `key value` lines of the C# program.
fn value(output: &str, key: &str) -> f64 {
    output
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {key} in:\n{output}"))
        .parse()
        .expect("a number")
}

/// One step: the engine in Rust against the C ABI, tick by tick. Returns the ABI simulation,
/// warmed and stepped, for the reads.
fn steps(sizes: &Sizes) -> *mut ThrongSim {
    let path = root().join(SCENARIO);
    let scenario = Scenario::load(&path).expect("the default scenario");
    let mut direct = scenario.build().expect("the simulation");
    let mut abi: *mut ThrongSim = null_mut();
    // SAFETY: a NUL-terminated path and a place for the handle; no tick count wanted.
    ok(
        unsafe { throng_sim_from_scenario(c_path(&path).as_ptr(), &mut abi, null_mut()) },
        "throng_sim_from_scenario",
    );
    let mut events = ThrongTickEvents::default();
    let step_abi = |events: &mut ThrongTickEvents| {
        // SAFETY: a live handle and a place for the events.
        ok(unsafe { throng_sim_step(abi, events) }, "throng_sim_step");
    };
    for _ in 0..sizes.warm {
        let report = direct.step();
        step_abi(&mut events);
        assert_eq!(report.state_hash, events.state_hash, "the same crowd");
    }
    let (mut rust, mut c, mut inner) = (Vec::new(), Vec::new(), Vec::new());
    let mut frame = Vec::new();
    let mut event_reads = Vec::new();
    let mut event_buffer = vec![
        ThrongEvent {
            agent: 0,
            cell: 0,
            kind: 0,
            detail: 0,
            reserved: 0
        };
        1 << 16
    ];
    let mut cells = vec![0u32; 10_000];
    let mut events_read = 0usize;
    for t in 0..sizes.ticks {
        let mut rust_step = || {
            let start = Instant::now();
            let report = black_box(direct.step());
            rust.push(ms(start));
            report.state_hash
        };
        let hash = if t % 2 == 0 {
            let hash = rust_step();
            let start = Instant::now();
            step_abi(&mut events);
            c.push(ms(start));
            hash
        } else {
            let start = Instant::now();
            step_abi(&mut events);
            c.push(ms(start));
            rust_step()
        };
        inner.push(events.wall_ms);
        assert_eq!(hash, events.state_hash, "tick {t}: the same crowd");
        // What a game reads after each tick: the events and every agent's cell.
        let start = Instant::now();
        let (mut n, mut live) = (0usize, 0usize);
        // SAFETY: a live handle, a buffer of its length and a place for the count.
        ok(
            unsafe {
                throng_sim_read_events(
                    abi,
                    THRONG_EVENTS_ALL,
                    event_buffer.as_mut_ptr(),
                    event_buffer.len(),
                    &mut n,
                )
            },
            "throng_sim_read_events",
        );
        event_reads.push(ms(start));
        // SAFETY: a live handle and an array of 10,000 cells, as the capacity says.
        ok(
            unsafe {
                throng_sim_read_agents(
                    abi,
                    null_mut(),
                    cells.as_mut_ptr(),
                    null_mut(),
                    10_000,
                    &mut live,
                )
            },
            "throng_sim_read_agents",
        );
        frame.push(ms(start));
        events_read += n;
    }
    let frame: f64 = frame.iter().sum();
    let event_reads: f64 = event_reads.iter().sum();
    let (rust, c, inner): (f64, f64, f64) = (rust.iter().sum(), c.iter().sum(), inner.iter().sum());
    println!(
        "step, {} ticks of 10,000 agents: Rust Simulation::step {rust:.1} ms, C throng_sim_step {c:.1} ms \
         ({:+.2}% over Rust; {:+.2}% over the engine's own time of the same ticks, {inner:.1} ms)",
        sizes.ticks,
        (c / rust - 1.0) * 100.0,
        (c / inner - 1.0) * 100.0
    );
    println!(
        "frame reads after each tick (the tick's events, {:.0} a tick on average, and every agent's \
         cell): {frame:.2} ms over {} ticks (the events {event_reads:.2} ms), {:.2}% of the engine's \
         own time of those ticks",
        events_read as f64 / sizes.ticks as f64,
        sizes.ticks,
        frame / inner * 100.0
    );
    abi
}

/// Reading every agent through the C ABI.
fn reads(abi: *mut ThrongSim, sizes: &Sizes) {
    let mut ids = vec![0u64; 10_000];
    let mut cells = vec![0u32; 10_000];
    let mut states = vec![0u8; 10_000];
    let mut count = 0usize;
    let (mut only_cells, mut all) = (Vec::new(), Vec::new());
    for _ in 0..sizes.reads {
        let start = Instant::now();
        // SAFETY: a live handle and arrays of 10,000 elements, as the capacity says.
        ok(
            unsafe {
                throng_sim_read_agents(
                    abi,
                    null_mut(),
                    cells.as_mut_ptr(),
                    null_mut(),
                    10_000,
                    &mut count,
                )
            },
            "throng_sim_read_agents",
        );
        only_cells.push(start.elapsed().as_secs_f64() * 1e6);
        let start = Instant::now();
        // SAFETY: as above.
        ok(
            unsafe {
                throng_sim_read_agents(
                    abi,
                    ids.as_mut_ptr(),
                    cells.as_mut_ptr(),
                    states.as_mut_ptr(),
                    10_000,
                    &mut count,
                )
            },
            "throng_sim_read_agents",
        );
        all.push(start.elapsed().as_secs_f64() * 1e6);
    }
    assert_eq!(count, 10_000);
    println!(
        "read {count} agents from C (median of {}): cells {:.1} us, ids + cells + states {:.1} us",
        sizes.reads,
        median(&mut only_cells),
        median(&mut all)
    );
}

/// The C# program and the folder of the native library, or `None` without mcs and mono.
fn csharp(out: &Path) -> Option<(PathBuf, PathBuf)> {
    let runs = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !(runs("mcs") && runs("mono")) {
        println!(
            "mcs or mono not found: the C# side is not measured (apt-get install mono-mcs mono-devel)"
        );
        return None;
    }
    let exe = std::env::current_exe().expect("the bench's path");
    let deps = exe.parent().expect("the deps folder").to_path_buf();
    let binding = root().join("bindings/csharp");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(binding.join("src"))
        .expect("bindings/csharp/src")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "cs"))
        .collect();
    sources.sort();
    let dll = out.join("Throng.dll");
    let program = out.join("Boundary.exe");
    for (args, files) in [
        (
            vec![
                "-target:library".to_string(),
                format!("-out:{}", dll.display()),
            ],
            sources,
        ),
        (
            vec![
                format!("-r:{}", dll.display()),
                format!("-out:{}", program.display()),
            ],
            vec![binding.join("bench/Boundary.cs")],
        ),
    ] {
        let built = Command::new("mcs")
            .args(["-optimize+", "-nologo"])
            .args(args)
            .args(files)
            .output()
            .expect("mcs runs");
        assert!(
            built.status.success(),
            "mcs failed:\n{}",
            String::from_utf8_lossy(&built.stdout)
        );
    }
    Some((program, deps))
}

/// Runs the C# program with `args` and returns what it prints.
fn mono(program: &Path, deps: &Path, args: &[&dyn AsRef<std::ffi::OsStr>]) -> String {
    let mut command = Command::new("mono");
    command.arg(program).env("LD_LIBRARY_PATH", deps);
    for arg in args {
        command.arg(arg);
    }
    let ran = command.output().expect("mono runs");
    assert!(
        ran.status.success(),
        "{} failed:\n{}",
        program.display(),
        String::from_utf8_lossy(&ran.stderr)
    );
    String::from_utf8_lossy(&ran.stdout).into_owned()
}

/// The batch of the scenario's trips: Rust, the C ABI and C#, in turns.
fn batches(sizes: &Sizes, out: &Path, csharp: Option<&(PathBuf, PathBuf)>) {
    let scenario = Scenario::load(root().join(SCENARIO)).expect("the default scenario");
    let sim = scenario.build().expect("the simulation");
    let (starts, goals): (Vec<CellId>, Vec<CellId>) = sim
        .agents()
        .iter()
        .map(|(_, a)| (a.position(), a.goal().expect("a goal")))
        .unzip();
    let grid = sim.grid().clone();
    drop(sim);
    let nav_path = out.join("random512.nav");
    NavGraph::build(&grid, &NavOptions::default())
        .expect("navigation points")
        .save(&nav_path)
        .expect("the navigation file");
    // Loaded, as the C ABI and C# load it: a graph read from a file is laid out in memory
    // otherwise than one just built, and answers at another speed.
    let nav = NavGraph::load(&nav_path, &grid).expect("the navigation file");
    let queries = out.join("queries.txt");
    let text: String = starts
        .iter()
        .zip(&goals)
        .map(|(s, g)| format!("{s} {g}\n"))
        .collect();
    std::fs::write(&queries, text).expect("the queries");
    let n = starts.len();

    // Rust: the engine's planner (made for the batch, as throng_plan_batch makes it) on rayon's
    // pool, the answers flattened into arrays.
    let (mut costs, mut lengths, mut paths) = (vec![0.0; n], vec![0u32; n], Vec::new());
    let mut rust_batch = || {
        let planner = Planner::new(&grid, PlannerKind::Auto, Some(&nav)).expect("a planner");
        let answers: Vec<(f64, Vec<CellId>)> = starts
            .par_iter()
            .zip(goals.par_iter())
            .map_init(
                || planner.workspace(&grid),
                |ws, (&s, &g)| {
                    let plan = planner.plan(&grid, ws, s, g).expect("a query on the map");
                    (plan.cost().unwrap_or(-1.0), plan.path.to_vec())
                },
            )
            .collect();
        paths.clear();
        for (i, (cost, path)) in answers.iter().enumerate() {
            costs[i] = *cost;
            lengths[i] = path.len() as u32;
            paths.extend_from_slice(path);
        }
        costs.iter().sum::<f64>()
    };

    // The C ABI, from Rust.
    let (mut grid_h, mut nav_h): (*mut ThrongGrid, *mut ThrongNav) = (null_mut(), null_mut());
    let map = c_path(&root().join(MAP));
    // SAFETY: NUL-terminated paths and places for the handles.
    unsafe {
        ok(
            throng_grid_load(map.as_ptr(), 8, &mut grid_h),
            "throng_grid_load",
        );
        ok(
            throng_nav_load(c_path(&nav_path).as_ptr(), grid_h, &mut nav_h),
            "throng_nav_load",
        );
    }
    let (mut c_costs, mut c_lengths) = (vec![0.0; n], vec![0u32; n]);
    let mut c_paths = vec![0u32; 0];
    let mut c_batch = |paths: &mut Vec<u32>| {
        let mut needed = 0usize;
        // SAFETY: live handles, arrays of `n` queries and answers, `paths` of its length.
        let status = unsafe {
            throng_plan_batch(
                grid_h,
                nav_h,
                c"auto".as_ptr(),
                starts.as_ptr(),
                goals.as_ptr(),
                n,
                c_costs.as_mut_ptr(),
                c_lengths.as_mut_ptr(),
                paths.as_mut_ptr(),
                paths.len(),
                &mut needed,
            )
        };
        (status, needed, c_costs.iter().sum::<f64>())
    };
    let (first, needed, _) = c_batch(&mut c_paths);
    assert!(matches!(
        first,
        ThrongStatus::Ok | ThrongStatus::BufferTooSmall
    ));
    c_paths.resize(needed, 0);
    let (status, _, c_sum) = c_batch(&mut c_paths);
    ok(status, "throng_plan_batch");
    let want = rust_batch();
    assert!(
        (want - c_sum).abs() < 1e-6 * want,
        "C plans what Rust plans"
    );

    let (mut rust_ms, mut c_ms, mut cs_ms) = (Vec::new(), Vec::new(), Vec::new());
    for _round in 0..sizes.rounds {
        for b in 0..sizes.batches {
            // Rust and C take turns to go first.
            for side in [b % 2, 1 - b % 2] {
                let start = Instant::now();
                if side == 0 {
                    black_box(rust_batch());
                    rust_ms.push(ms(start));
                } else {
                    ok(c_batch(&mut c_paths).0, "throng_plan_batch");
                    c_ms.push(ms(start));
                }
            }
        }
        if let Some((program, deps)) = csharp {
            let printed = mono(
                program,
                deps,
                &[
                    &"plan",
                    &root().join(MAP),
                    &nav_path,
                    &queries,
                    &sizes.batches.to_string(),
                ],
            );
            let sum = value(&printed, "plan_cost_sum");
            assert!((want - sum).abs() < 1e-6 * want, "C# plans what Rust plans");
            cs_ms.extend(
                printed
                    .lines()
                    .filter_map(|l| l.strip_prefix("plan_ms "))
                    .map(|v| v.parse::<f64>().expect("a number")),
            );
        }
    }
    let (rust, c) = (median(&mut rust_ms), median(&mut c_ms));
    print!(
        "batch of {n} trips (auto, navigation points), median of {}: Rust {rust:.1} ms, C {c:.1} ms ({:+.2}%)",
        rust_ms.len(),
        (c / rust - 1.0) * 100.0
    );
    if !cs_ms.is_empty() {
        let cs = median(&mut cs_ms);
        print!(", C# {cs:.1} ms ({:+.2}%)", (cs / rust - 1.0) * 100.0);
    }
    println!();
    // SAFETY: live handles, freed once.
    unsafe {
        ok(throng_nav_free(nav_h), "throng_nav_free");
        ok(throng_grid_free(grid_h), "throng_grid_free");
    }
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --bench boundary` does not: a short pass.
    let full = std::env::args().any(|a| a == "--bench");
    let sizes = if full {
        Sizes {
            warm: 10,
            ticks: 200,
            reads: 2000,
            batches: 3,
            rounds: 5,
        }
    } else {
        Sizes {
            warm: 1,
            ticks: 2,
            reads: 3,
            batches: 1,
            rounds: 1,
        }
    };
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("boundary");
    std::fs::create_dir_all(&out).expect("a scratch folder");
    let csharp = csharp(&out);

    let abi = steps(&sizes);
    reads(abi, &sizes);
    // SAFETY: a live handle, freed once.
    ok(unsafe { throng_sim_free(abi) }, "throng_sim_free");

    if let Some((program, deps)) = &csharp {
        let printed = mono(
            program,
            deps,
            &[
                &"step",
                &root().join(SCENARIO),
                &sizes.warm.to_string(),
                &sizes.ticks.to_string(),
                &sizes.reads.to_string(),
            ],
        );
        assert_eq!(value(&printed, "agents"), 10_000.0);
        let (outer, inner) = (
            value(&printed, "step_outer_ms_total"),
            value(&printed, "step_inner_ms_total"),
        );
        println!(
            "step from C#, {} ticks: Simulation.Step() {outer:.1} ms, the engine's time of the same ticks \
             {inner:.1} ms ({:+.2}%; median overhead per call {:.1} us)",
            sizes.ticks,
            (outer / inner - 1.0) * 100.0,
            value(&printed, "step_overhead_us_median")
        );
        println!(
            "read 10,000 agents from C# (median of {}): ReadCells {:.1} us, ReadAgents (ids, cells, states) {:.1} us",
            sizes.reads,
            value(&printed, "read_cells_us_median"),
            value(&printed, "read_agents_us_median")
        );
    }
    batches(&sizes, &out, csharp.as_ref());
}
