//! Completeness of one-shot PIBT runs (`sim::stuck`): crowds that PIBT alone leaves circling
//! in one-cell aisles end with every agent arrived (4- and 8-connected, goals given at the start
//! or later), an unsolvable one ends with its status, and every joint step of the run, those
//! of LaCAM's plans included, passes the independent validator and is in the tick's events;
//! lifelong crowds that PIBT alone locks up keep reaching goals.

use std::path::{Path, PathBuf};

use throng::grid::{CellId, Grid, Neighborhood};
use throng::mapf::Instance;
use throng::mapf::check_step;
use throng::movingai::ScenFile;
use throng::sim::{AgentId, EndStatus, STUCK_WINDOW, SimConfig, Simulation, TickReport};

/// A corridor with six one-cell bays: the aisles of a warehouse in small.
const BAYS: &str = "#.#.#.#\n.......\n#.#.#.#";

/// Plays up to `ticks` ticks, checking every joint step with the independent validator and
/// against the tick's move events, and stops once every agent is at its goal or the run is
/// proved unsolvable.
fn play_checked(sim: &mut Simulation, ticks: u64) -> Vec<TickReport> {
    let mut reports = Vec::new();
    for _ in 0..ticks {
        let before = sim.slot_positions().to_vec();
        let report = sim.step();
        let after = sim.slot_positions().to_vec();
        if let Err(e) = check_step(sim.grid(), &before, &after) {
            panic!("tick {}: {e}", report.tick);
        }
        let moved = before.iter().zip(&after).filter(|(b, a)| b != a).count();
        assert_eq!(
            sim.last_events().moves().len(),
            moved,
            "tick {}",
            report.tick
        );
        for m in sim.last_events().moves() {
            let slot = m.agent.index() as usize;
            assert_eq!((before[slot], after[slot]), (m.from, m.to));
        }
        let done = report.at_goal == report.agents || report.unsolvable;
        reports.push(report);
        if done {
            break;
        }
    }
    reports
}

fn sim_with(text: &str, neighbourhood: Neighborhood, resolve: Option<bool>) -> Simulation {
    let grid = Grid::from_ascii(text)
        .unwrap()
        .with_neighborhood(neighbourhood);
    let config = SimConfig {
        resolve_stuck: resolve,
        ..SimConfig::default()
    };
    Simulation::new(grid, config).unwrap()
}

/// Six agents in [`BAYS`], each going two walkable cells on in reading order (round the
/// end): PIBT alone leaves them all circling.
fn bays_instance(sim: &Simulation) -> (Vec<CellId>, Vec<CellId>) {
    let grid = sim.grid();
    let open: Vec<CellId> = (0..grid.len() as CellId)
        .filter(|&c| grid.is_walkable(c))
        .collect();
    let starts = open[..6].to_vec();
    let goals = (0..6).map(|i| open[(i + 2) % 6]).collect();
    (starts, goals)
}

fn add(sim: &mut Simulation, starts: &[CellId], goals: &[CellId]) -> Vec<AgentId> {
    starts
        .iter()
        .zip(goals)
        .map(|(&s, &g)| sim.add_agent(s, Some(g)).unwrap())
        .collect()
}

#[test]
fn pibt_alone_circles_in_the_bays_and_the_resolution_brings_every_agent_home() {
    for neighbourhood in [Neighborhood::Four, Neighborhood::Eight] {
        // The premise: PIBT alone never gets them there.
        let mut alone = sim_with(BAYS, neighbourhood, Some(false));
        let (starts, goals) = bays_instance(&alone);
        add(&mut alone, &starts, &goals);
        let reports = play_checked(&mut alone, 3000);
        assert_eq!(reports.len(), 3000, "{neighbourhood:?}");
        assert!(reports.last().unwrap().at_goal < 6, "{neighbourhood:?}");
        let s = alone.summary();
        assert_eq!(
            (s.end_status, s.resolve_triggers),
            (EndStatus::TickLimit, 0)
        );

        // With the resolution (the default): every agent arrives, on its own goal.
        let mut sim = sim_with(BAYS, neighbourhood, None);
        let ids = add(&mut sim, &starts, &goals);
        let reports = play_checked(&mut sim, 3000);
        let last = reports.last().unwrap();
        assert_eq!(last.at_goal, 6, "{neighbourhood:?}");
        assert!(
            reports.len() < 2 * STUCK_WINDOW as usize,
            "{}",
            reports.len()
        );
        for (id, &goal) in ids.iter().zip(&goals) {
            assert_eq!(sim.agent(*id).unwrap().position(), goal);
        }
        let resolving = reports.iter().filter(|r| r.resolving).count() as u64;
        let s = sim.summary();
        assert_eq!(s.end_status, EndStatus::AllArrived);
        assert!(s.all_arrived);
        assert_eq!(s.resolve_triggers, 1);
        assert_eq!(s.resolve_agents, 6);
        assert_eq!(s.resolve_ticks, resolving);
        assert!(resolving > 0);
        // Trips are counted as in any run: the sum of costs covers every agent.
        assert!(s.sum_of_costs >= 6 && s.makespan <= reports.len() as u64);
    }
}

#[test]
fn goals_given_after_some_ticks_are_resolved_too() {
    for neighbourhood in [Neighborhood::Four, Neighborhood::Eight] {
        let mut sim = sim_with(BAYS, neighbourhood, None);
        let (starts, goals) = bays_instance(&sim);
        let ids: Vec<AgentId> = starts
            .iter()
            .map(|&s| sim.add_agent(s, None).unwrap())
            .collect();
        // Without goals nothing is unfinished: no resolution however long.
        let reports = play_checked(&mut sim, STUCK_WINDOW + 10);
        assert_eq!(reports.len() as u64, STUCK_WINDOW + 10);
        assert_eq!(sim.summary().resolve_triggers, 0);
        // Half the goals now, the rest a little later.
        for (id, &goal) in ids.iter().zip(&goals).take(3) {
            sim.set_goal(*id, goal).unwrap();
        }
        play_checked(&mut sim, 5);
        for (id, &goal) in ids.iter().zip(&goals).skip(3) {
            sim.set_goal(*id, goal).unwrap();
        }
        let reports = play_checked(&mut sim, 3000);
        assert_eq!(reports.last().unwrap().at_goal, 6, "{neighbourhood:?}");
        for (id, &goal) in ids.iter().zip(&goals) {
            assert_eq!(sim.agent(*id).unwrap().position(), goal);
        }
        let s = sim.summary();
        assert_eq!(s.end_status, EndStatus::AllArrived);
        assert!(s.resolve_triggers >= 1);
    }
}

#[test]
fn a_goal_given_during_the_resolution_drops_its_plan_and_is_reached() {
    let mut sim = sim_with(BAYS, Neighborhood::Four, None);
    let (starts, goals) = bays_instance(&sim);
    let ids = add(&mut sim, &starts, &goals);
    let reports = play_checked(&mut sim, 3000);
    let first = reports.iter().position(|r| r.resolving).unwrap();
    // Replay to the middle of the plan, then change one goal: the plan is for another crowd.
    let mut sim = sim_with(BAYS, Neighborhood::Four, None);
    add(&mut sim, &starts, &goals);
    play_checked(&mut sim, first as u64 + 2);
    assert!(sim.summary().resolve_ticks > 0);
    let free = sim.grid().cell(6, 1).unwrap();
    sim.set_goal(ids[0], free).unwrap();
    let report = sim.step();
    assert!(!report.resolving, "the plan was dropped");
    let mut all = goals.clone();
    all[0] = free;
    let reports = play_checked(&mut sim, 3000);
    assert_eq!(reports.last().unwrap().at_goal, 6);
    for (id, &goal) in ids.iter().zip(&all) {
        assert_eq!(sim.agent(*id).unwrap().position(), goal);
    }
}

#[test]
fn two_agents_that_must_pass_in_a_dead_end_corridor_end_unsolvable() {
    for neighbourhood in [Neighborhood::Four, Neighborhood::Eight] {
        let mut sim = sim_with("#####\n.....\n#####", neighbourhood, None);
        let c = |x| sim.grid().cell(x, 1).unwrap();
        let (a, b) = (c(1), c(2));
        add(&mut sim, &[a, b], &[b, a]);
        let reports = play_checked(&mut sim, 3000);
        let last = reports.last().unwrap();
        assert!(last.unsolvable, "{neighbourhood:?}");
        assert!(
            reports.len() as u64 <= STUCK_WINDOW + 20,
            "{}",
            reports.len()
        );
        let s = sim.summary();
        assert_eq!(s.end_status, EndStatus::Unsolvable);
        assert_eq!(s.resolve_triggers, 1);
        assert!(!s.all_arrived);
    }
}

/// Goals reached in each block of `block` ticks over `blocks` blocks, every joint step checked.
fn goals_per_block(sim: &mut Simulation, blocks: usize, block: u64) -> Vec<u64> {
    (0..blocks)
        .map(|_| {
            play_checked_lifelong(sim, block)
                .iter()
                .map(|r| u64::from(r.goals_reached))
                .sum()
        })
        .collect()
}

/// [`play_checked`] for lifelong runs, which never end by arrival.
fn play_checked_lifelong(sim: &mut Simulation, ticks: u64) -> Vec<TickReport> {
    let mut reports = Vec::new();
    for _ in 0..ticks {
        let before = sim.slot_positions().to_vec();
        let report = sim.step();
        if let Err(e) = check_step(sim.grid(), &before, sim.slot_positions()) {
            panic!("tick {}: {e}", report.tick);
        }
        reports.push(report);
    }
    reports
}

#[test]
fn lifelong_crowds_that_pibt_alone_locks_in_the_bays_keep_reaching_goals() {
    // Lifelong goals are drawn at random: without the resolution the crowd locks up within
    // a thousand ticks on every seed below; with it, goals are reached in every block.
    for neighbourhood in [Neighborhood::Four, Neighborhood::Eight] {
        for seed in 0..3 {
            let run = |resolve: Option<bool>| {
                let grid = Grid::from_ascii(BAYS)
                    .unwrap()
                    .with_neighborhood(neighbourhood);
                let config = SimConfig {
                    lifelong: true,
                    seed,
                    resolve_stuck: resolve,
                    ..SimConfig::default()
                };
                let mut sim = Simulation::new(grid, config).unwrap();
                let (starts, goals) = bays_instance(&sim);
                add(&mut sim, &starts, &goals);
                let blocks = goals_per_block(&mut sim, 4, 1000);
                (blocks, sim.summary())
            };
            let (alone, s) = run(Some(false));
            assert_eq!(
                alone[1..],
                [0, 0, 0],
                "{neighbourhood:?} seed {seed}: the premise"
            );
            assert_eq!(s.resolve_triggers, 0);
            let (resolved, s) = run(None);
            assert!(
                resolved.iter().all(|&g| g >= 10),
                "{neighbourhood:?} seed {seed}: {resolved:?} {s:?}"
            );
            assert_eq!(s.end_status, EndStatus::Lifelong);
            assert!(s.resolve_triggers > 0 && s.resolve_ticks > 0, "{s:?}");
            assert_eq!(s.resolve_agents, 6 * s.resolve_triggers);
        }
    }
}

#[test]
fn crowds_the_resolution_does_not_apply_to_are_refused_by_name() {
    let mut config = SimConfig::default();
    config
        .set("resolve_stuck", serde_json::json!(true))
        .unwrap();
    config
        .set("resolve_stuck", serde_json::json!(false))
        .unwrap();
    // Lifelong runs are watched too now.
    let mut config = SimConfig::default();
    config
        .set("resolve_stuck", serde_json::json!(true))
        .unwrap();
    config.set("lifelong", serde_json::json!(true)).unwrap();
    for (key, value) in [
        ("conflicts", serde_json::json!("avoid")),
        ("action_model", serde_json::json!("rotate")),
    ] {
        let mut config = SimConfig::default();
        config
            .set("resolve_stuck", serde_json::json!(true))
            .unwrap();
        let e = config.set(key, value).unwrap_err().to_string();
        assert!(e.contains("resolve_stuck"), "{e}");
    }
}

/// The shared MAPF benchmark: `THRONG_MAPF_BENCH`, else `shared/data/mapf-bench` beside the
/// checkout (or beside its parent folder, for a worktree).
fn benchmark_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("THRONG_MAPF_BENCH") {
        return dir.into();
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        root.join("../shared/data/mapf-bench"),
        root.join("../../shared/data/mapf-bench"),
    ]
    .into_iter()
    .find(|d| d.is_dir())
    .expect("the MAPF benchmark: set THRONG_MAPF_BENCH to its folder")
}

/// Every instance of the shared MAPF benchmark (every agent of each `.scen` file), played as a
/// one-shot simulation with conflicts `pibt`, 4- and 8-connected, for at most 3,000 ticks: every
/// agent arrives. Long (300 runs): `cargo test --release --test stuck -- --ignored --nocapture`.
#[test]
#[ignore = "long: the whole shared MAPF benchmark (THRONG_MAPF_BENCH or shared/data/mapf-bench)"]
fn every_instance_of_the_mapf_benchmark_arrives_in_a_one_shot_run() {
    let dir = benchmark_dir();
    let mut scens: Vec<PathBuf> = std::fs::read_dir(dir.join("scens"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "scen"))
        .collect();
    scens.sort();
    let mut failed = Vec::new();
    let (mut runs, mut resolved) = (0, 0);
    for neighbourhood in [Neighborhood::Four, Neighborhood::Eight] {
        for scen in &scens {
            let name = scen.file_stem().unwrap().to_str().unwrap();
            let map_name = name
                .rsplitn(3, '-')
                .nth(2)
                .expect("<map>-<random|even>-<k>.scen");
            let map = dir.join("maps").join(format!("{map_name}.map"));
            let agents = ScenFile::load(scen).unwrap().queries.len();
            let instance = Instance::load(&map, scen, agents, neighbourhood).unwrap();
            let mut sim = Simulation::new(instance.grid, SimConfig::default()).unwrap();
            add(&mut sim, &instance.starts, &instance.goals);
            for _ in 0..3000 {
                let report = sim.step();
                if report.at_goal == report.agents || report.unsolvable {
                    break;
                }
            }
            let s = sim.summary();
            runs += 1;
            resolved += usize::from(s.resolve_triggers > 0);
            println!(
                "{name} {neighbourhood:?}: {}/{} arrived in {} ticks, {:?}, {} resolutions, {} ticks following LaCAM",
                s.arrived, s.agents, s.ticks, s.end_status, s.resolve_triggers, s.resolve_ticks
            );
            if !s.all_arrived {
                failed.push(format!("{name} {neighbourhood:?}"));
            }
        }
    }
    println!(
        "{runs} runs, {resolved} resolved by LaCAM, {} failed",
        failed.len()
    );
    assert!(failed.is_empty(), "not every agent arrived: {failed:?}");
}
