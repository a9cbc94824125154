//! Whole simulation ticks on the default scenario: 10,000 agents on `random512-10-0`.
//!
//! # What is measured
//!
//! The scenario is `sims/default.toml` (random starts and goals, conflicts on) loaded through
//! [`Scenario::load`], with every agent on one planner (no planner mix) and the per-tick plan
//! cap lifted (`max_plans_per_tick = None`), so that all 10,000 first trips are planned in
//! tick 0: the worst tick a game or service meets when a crowd appears at once. (The file has
//! no cap now; it is lifted here in case it gains one.)
//!
//! - `first_tick_all_plan/<planner>/<n>_threads`: [`Simulation::step`] of tick 0, planner
//!   `auto`, `astar` and `jps`. Loading the map, building the navigation points (`auto`) and
//!   placing the agents happen before the clock starts, and the simulation is dropped after it
//!   stops (`iter_custom`, one fresh simulation per iteration).
//! - `steady_tick/auto/<conflicts>/<n>_threads`: single ticks of a running simulation (planner
//!   `auto`, no cap), from tick [`WARM_TICKS`] on, with conflict mode `Pibt` (the default: all
//!   agents' steps decided together, pushing instead of waiting) and `Avoid` (agents wait and
//!   replan around the ones that block them). After the group, the movement (coordination)
//!   phase of those ticks as the simulation timed it: mean, p50 and p99 milliseconds. The same simulation continues from one iteration to the
//!   next; after [`STEADY_WINDOW`] timed ticks (or once every agent is done) it is rebuilt and
//!   warmed again outside the timing, so every sample comes from the same stretch of the run
//!   rather than from an emptying map.
//!
//! `<n>` is the size of the default rayon pool (all cores) and 1 (a local one-thread pool
//! entered with `install`); with one core only the first is run.
//!
//! After the criterion runs (`cargo bench` only, not `--test`), a table of tick 0 per planner
//! on both pools, best and median of [`INTERLEAVED_ROUNDS`] rounds in which the pools take
//! turns, with the speed-up of the default pool over one thread.
//!
//! # Correctness before timing
//!
//! Before anything is timed each planner plays tick 0 once and is checked: 10,000 plans, none
//! failed or deferred, every agent moving, waiting or at its goal along a legal path
//! ([`throng::grid::Grid::path_cost`]) that starts at its start and ends at its goal; `astar` and
//! `jps` paths cost the same for every agent (both optimal), `auto` paths at least as much.
//! The steady setup is checked to leave no agent without a path after its warm-up ticks. A
//! failed check panics.
//!
//! ```text
//! cargo bench --bench tick               # 10 samples per first tick (about 6 minutes)
//! cargo bench --bench tick -- --quick    # 2 to 3 first ticks per benchmark (about 2.5 minutes)
//! cargo test --bench tick                # the checks and one pass of each benchmark
//! ```

mod common;

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use common::RunMode;
use criterion::{Criterion, SamplingMode};
use rayon::ThreadPool;
use throng::grid::CellId;
use throng::planner::PlannerKind;
use throng::scenario::Scenario;
use throng::sim::{AgentState, ConflictMode, Simulation, TickReport};

/// The scenario every benchmark plays.
const SCENARIO: &str = "sims/default.toml";
/// Ticks played before the steady ticks are timed: tick 0 plans every trip, and the first
/// ticks after it replan the agents that collided at once.
const WARM_TICKS: u64 = 20;
/// Steady ticks timed on one simulation before it is rebuilt.
const STEADY_WINDOW: u64 = 200;
/// Rounds of the interleaved first-tick table printed after the criterion runs.
const INTERLEAVED_ROUNDS: usize = 3;
/// Planners of the first-tick benchmarks.
const PLANNERS: [PlannerKind; 3] = [PlannerKind::Auto, PlannerKind::AStar, PlannerKind::Jps];

/// The default scenario with every agent on `planner` and no plan cap.
fn scenario(planner: PlannerKind) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO);
    let mut scenario =
        Scenario::load(&path).unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()));
    scenario.sim.planner = planner;
    scenario.sim.max_plans_per_tick = None;
    scenario.planner_mix.clear();
    assert!(
        scenario.changes.is_empty() && scenario.doors.is_none(),
        "{SCENARIO}: the benchmark plays no map change"
    );
    scenario
}

fn build(scenario: &Scenario) -> Simulation {
    scenario
        .build()
        .unwrap_or_else(|e| panic!("cannot build {}: {e}", scenario.file()))
}

/// One tick, on `pool` when given, else on the current (default) pool.
fn step(sim: &mut Simulation, pool: Option<&ThreadPool>) -> TickReport {
    match pool {
        Some(pool) => pool.install(|| sim.step()),
        None => sim.step(),
    }
}

/// Plays tick 0 of `planner` and checks it (see the module docs); returns the cost of every
/// agent's whole first path, in agent order.
fn check_first_tick(planner: PlannerKind) -> Vec<f64> {
    // Conflict mode `avoid`: an agent either steps along its path or waits, so its first path
    // can be read back after the tick (PIBT may push an agent off its path in tick 0).
    let mut checked = scenario(planner);
    checked.sim.conflicts = ConflictMode::Avoid;
    let mut sim = build(&checked);
    let agents = sim.agents().len();
    let starts: Vec<CellId> = sim.agents().iter().map(|(_, a)| a.position()).collect();
    let report = sim.step();
    eprintln!(
        "{planner}: tick 0 planned {} trips in {:.0} ms ({:.0} ms planning) on {} threads",
        report.plans,
        report.wall_ms,
        report.planning_ms,
        rayon::current_num_threads()
    );
    assert_eq!(agents, 10_000, "{SCENARIO}: expected 10,000 agents");
    assert_eq!(
        report.plans as usize, agents,
        "{planner}: not every agent planned"
    );
    assert_eq!(
        (report.plans_failed, report.plans_deferred, report.no_path),
        (0, 0, 0),
        "{planner}: failed, deferred or missing plans in tick 0"
    );
    let grid = sim.grid();
    let mut costs = Vec::with_capacity(agents);
    for ((id, agent), &start) in sim.agents().iter().zip(&starts) {
        let goal = agent.goal().expect("every agent has a goal");
        // One tick moves an agent at most one cell along its path.
        let mut path = vec![start];
        if agent.position() != start {
            path.push(agent.position());
        }
        match agent.state() {
            AgentState::Arrived => assert_eq!(agent.position(), goal, "{planner}: {id:?}"),
            AgentState::Moving | AgentState::Waiting => {
                path.extend(agent.remaining_path());
                assert_eq!(
                    path.last(),
                    Some(&goal),
                    "{planner}: {id:?} path misses goal"
                );
            }
            state => panic!("{planner}: {id:?} is {state:?} after tick 0"),
        }
        let cost = grid
            .path_cost(&path)
            .unwrap_or_else(|e| panic!("{planner}: {id:?} has an illegal path: {e}"));
        costs.push(cost);
    }
    costs
}

/// Checks every planner's first tick and compares their path costs agent by agent.
fn check() {
    let costs: Vec<Vec<f64>> = PLANNERS.iter().map(|&p| check_first_tick(p)).collect();
    let [auto, astar, jps] = [&costs[0], &costs[1], &costs[2]];
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.max(1.0);
    for (i, (&a, &j)) in astar.iter().zip(jps).enumerate() {
        assert!(close(a, j), "agent {i}: astar cost {a}, jps {j}");
    }
    for (i, (&n, &a)) in auto.iter().zip(astar).enumerate() {
        assert!(
            n >= a - 1e-9 * a.max(1.0),
            "agent {i}: auto {n} beats optimal {a}"
        );
    }
    let sum = |c: &[f64]| c.iter().sum::<f64>();
    eprintln!(
        "checked tick 0 of {SCENARIO} (10,000 agents, no plan cap): every plan legal; astar = \
         jps on every agent; auto sum of path costs {:.4}x the optimum",
        sum(auto) / sum(astar)
    );
    let mut sim = build(&scenario(PlannerKind::Auto));
    for _ in 0..WARM_TICKS {
        sim.step();
    }
    let moving = sim
        .agents()
        .iter()
        .filter(|(_, a)| matches!(a.state(), AgentState::Moving | AgentState::Waiting))
        .count();
    assert!(
        sim.agents()
            .iter()
            .all(|(_, a)| a.state() != AgentState::NoPath),
        "an agent lost its path in the warm-up ticks"
    );
    eprintln!("checked the steady setup: after {WARM_TICKS} ticks {moving} agents on their way");
}

/// A simulation of the steady benchmark and the ticks left in its timed window.
struct Running {
    sim: Simulation,
    left: u64,
}

fn warm(scenario: &Scenario, pool: Option<&ThreadPool>) -> Running {
    let mut sim = build(scenario);
    for _ in 0..WARM_TICKS {
        step(&mut sim, pool);
    }
    Running {
        sim,
        left: STEADY_WINDOW,
    }
}

fn main() {
    let mode = RunMode::from_args();
    if mode != RunMode::List {
        check();
    }
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let all = rayon::current_num_threads();
    let mut pools: Vec<(usize, Option<&ThreadPool>)> = vec![(all, None)];
    if all > 1 {
        pools.push((1, Some(&one)));
    }

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("first_tick_all_plan");
    // One iteration takes 0.1 to 1.5 s: one per sample, few samples.
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10))
        .sampling_mode(SamplingMode::Flat);
    for &(threads, pool) in &pools {
        for planner in PLANNERS {
            let scenario = scenario(planner);
            group.bench_function(format!("{planner}/{threads}_threads"), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let mut sim = build(&scenario);
                        let t0 = Instant::now();
                        black_box(step(&mut sim, pool));
                        total += t0.elapsed();
                    }
                    total
                });
            });
        }
    }
    group.finish();

    let mut group = criterion.benchmark_group("steady_tick");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    let mut coordination = Vec::new();
    for conflicts in [ConflictMode::Pibt, ConflictMode::Avoid] {
        let mut scenario = scenario(PlannerKind::Auto);
        scenario.sim.conflicts = conflicts;
        for &(threads, pool) in &pools {
            let mut running: Option<Running> = None;
            let mut movement = Vec::new();
            group.bench_function(format!("auto/{conflicts:?}/{threads}_threads"), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let run = match &mut running {
                            Some(run) if run.left > 0 => run,
                            slot => slot.insert(warm(&scenario, pool)),
                        };
                        let t0 = Instant::now();
                        let report = step(&mut run.sim, pool);
                        total += t0.elapsed();
                        movement.push(report.movement_ms);
                        run.left -= 1;
                        if report.at_goal + report.no_path == report.agents {
                            run.left = 0;
                        }
                    }
                    total
                });
            });
            coordination.push((conflicts, threads, movement));
        }
    }
    group.finish();
    // The movement (coordination) phase of those ticks, as the simulation timed it.
    for (conflicts, threads, mut ms) in coordination {
        if ms.is_empty() {
            continue;
        }
        ms.sort_by(f64::total_cmp);
        let mean = ms.iter().sum::<f64>() / ms.len() as f64;
        println!(
            "movement phase {conflicts:?} {threads} thread(s): mean {mean:.3} ms, p50 {:.3}, p99 {:.3} over {} steady ticks",
            ms[ms.len() / 2],
            ms[(ms.len() * 99 / 100).min(ms.len() - 1)],
            ms.len()
        );
    }
    criterion.final_summary();

    if mode == RunMode::Bench && pools.len() > 1 {
        print_interleaved(&pools);
    }
}

/// Best and median tick 0 of every planner on every pool, the pools taking turns round after
/// round: on a shared machine a burst of other work then hits every pool alike, which
/// criterion's one-benchmark-after-another order does not give, so the thread speed-up is
/// read from here.
fn print_interleaved(pools: &[(usize, Option<&ThreadPool>)]) {
    println!();
    println!(
        "tick 0, every agent plans: best and median of {INTERLEAVED_ROUNDS} rounds, pools interleaved"
    );
    println!("| planner | threads | best ms | median ms | speed-up (best) |");
    println!("|---|---:|---:|---:|---:|");
    for planner in PLANNERS {
        let scenario = scenario(planner);
        let mut ms = vec![Vec::new(); pools.len()];
        for _ in 0..INTERLEAVED_ROUNDS {
            for (times, &(_, pool)) in ms.iter_mut().zip(pools) {
                let mut sim = build(&scenario);
                let t0 = Instant::now();
                black_box(step(&mut sim, pool));
                times.push(t0.elapsed().as_secs_f64() * 1e3);
            }
        }
        for times in &mut ms {
            times.sort_by(f64::total_cmp);
        }
        let one = ms[pools.len() - 1][0];
        for (times, &(threads, _)) in ms.iter().zip(pools) {
            println!(
                "| {planner} | {threads} | {:.0} | {:.0} | {:.2}x |",
                times[0],
                times[times.len() / 2],
                one / times[0]
            );
        }
    }
}
