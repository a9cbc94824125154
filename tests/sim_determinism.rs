//! The same scenario and seed give the identical run whatever the number of threads: every
//! scenario below is played serially (`SimConfig::parallel = false`) and on rayon pools of 1, 2
//! and 4 threads, and every tick's report (timings aside), every tick's agent positions and the
//! final crowd must be identical. Covers conflicts on and off, lifelong goals, a plan cap, a
//! node budget, and commands (agents added and removed, goals changed, walls built) mid-run.

mod common;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use common::{TestRng, distinct_cells, shipped};
use throng::grid::CellChange;
use throng::grid::procgen::MapGenerator;
use throng::grid::{CellId, Grid};
use throng::movingai::load_map;
use throng::sim::{AgentId, AgentState, Command, ConflictMode, SimConfig, Simulation, TickReport};

/// A scenario: a map, settings, a crowd and a script of commands by tick.
struct Scenario {
    grid: Grid,
    config: SimConfig,
    agents: usize,
    placement_seed: u64,
    ticks: u64,
    /// Queue mid-run commands (add, remove, set goal, map change) from tick 10 on.
    scripted: bool,
}

/// Everything observable about a run, timings aside.
#[derive(Debug, PartialEq)]
struct Trace {
    reports: Vec<TickReport>,
    /// A hash of every agent's id and position after each tick, computed here rather than by
    /// the library.
    positions: Vec<u64>,
    last: Vec<(AgentId, CellId, Option<CellId>, AgentState, u32, u64)>,
}

#[derive(Debug, Clone, Copy)]
enum Mode {
    Serial,
    Pool(usize),
}

impl Scenario {
    fn build(&self, config: SimConfig) -> (Simulation, Vec<AgentId>) {
        let starts = distinct_cells(&self.grid, self.agents, self.placement_seed);
        let goals = distinct_cells(&self.grid, self.agents, self.placement_seed ^ 0xD1CE);
        let mut sim = Simulation::new(self.grid.clone(), config).unwrap();
        let ids = starts
            .iter()
            .zip(&goals)
            .map(|(&s, &g)| sim.add_agent(s, Some(g)).unwrap())
            .collect();
        (sim, ids)
    }

    /// Commands for tick `tick`, derived only from the simulation's state (so every mode
    /// queues the same ones).
    fn script(&self, sim: &mut Simulation, ids: &[AgentId], tick: u64) {
        if !self.scripted {
            return;
        }
        let mut rng = TestRng::new(tick * 7919 + self.placement_seed);
        let grid = sim.grid().clone();
        let random_free_cell = |rng: &mut TestRng, sim: &Simulation| loop {
            let c = rng.below(grid.len() as u64) as CellId;
            if grid.is_walkable(c) && sim.occupancy().agent_at(c).is_none() {
                break c;
            }
        };
        match tick {
            10 => {
                // Ten more agents, some on cells that may be taken (rejected, deterministically).
                for _ in 0..10 {
                    let start = random_free_cell(&mut rng, sim);
                    let goal = random_free_cell(&mut rng, sim);
                    sim.queue(Command::AddAgent {
                        start,
                        goal: Some(goal),
                    });
                }
                sim.queue(Command::AddAgent {
                    start: sim.agent(ids[0]).unwrap().position(),
                    goal: None,
                });
            }
            20 => {
                for &id in ids.iter().step_by(9) {
                    sim.queue(Command::RemoveAgent(id));
                }
            }
            30 => {
                for &id in ids.iter().skip(1).step_by(5) {
                    let goal = random_free_cell(&mut rng, sim);
                    sim.queue(Command::SetGoal { agent: id, goal });
                }
            }
            40 => {
                // Wall off a few free cells on agents' paths.
                let mut changes = Vec::new();
                for (_, agent) in sim.agents().iter().take(60) {
                    if let Some(cell) = agent.remaining_path().nth(3)
                        && sim.occupancy().agent_at(cell).is_none()
                        && Some(cell) != agent.goal()
                    {
                        changes.push(CellChange::SetWalkable {
                            cell,
                            walkable: false,
                        });
                    }
                }
                sim.queue(Command::ChangeMap(changes));
            }
            _ => {}
        }
    }

    fn play(&self, mode: Mode) -> Trace {
        let config = SimConfig {
            parallel: matches!(mode, Mode::Pool(_)),
            ..self.config
        };
        let run = || {
            let (mut sim, ids) = self.build(config);
            let mut reports = Vec::new();
            let mut positions = Vec::new();
            for tick in 0..self.ticks {
                self.script(&mut sim, &ids, tick);
                let report = sim.step();
                assert_eq!(report.state_hash, sim.state_hash());
                reports.push(report.without_times());
                let mut h = DefaultHasher::new();
                for (id, agent) in sim.agents().iter() {
                    (id, agent.position()).hash(&mut h);
                }
                positions.push(h.finish());
            }
            let last = sim
                .agents()
                .iter()
                .map(|(id, a)| {
                    (
                        id,
                        a.position(),
                        a.goal(),
                        a.state(),
                        a.goals_reached(),
                        a.moves(),
                    )
                })
                .collect();
            Trace {
                reports,
                positions,
                last,
            }
        };
        match mode {
            Mode::Serial => run(),
            Mode::Pool(threads) => rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(run),
        }
    }

    /// Plays every mode and checks they agree; returns the serial trace.
    fn check(&self, label: &str) -> Trace {
        let serial = self.play(Mode::Serial);
        for mode in [Mode::Pool(1), Mode::Pool(2), Mode::Pool(4)] {
            let other = self.play(mode);
            for (t, (a, b)) in serial.reports.iter().zip(&other.reports).enumerate() {
                assert_eq!(
                    a, b,
                    "{label}: tick {t} differs between serial and {mode:?}"
                );
            }
            assert_eq!(
                serial.positions, other.positions,
                "{label}: positions, {mode:?}"
            );
            assert_eq!(serial, other, "{label}: {mode:?}");
        }
        // The run did something: agents moved and planned.
        let moves: u64 = serial.reports.iter().map(|r| u64::from(r.moved)).sum();
        let plans: u64 = serial.reports.iter().map(|r| u64::from(r.plans)).sum();
        assert!(
            moves > 0 && plans > 0,
            "{label}: an idle run proves nothing"
        );
        let distinct: std::collections::HashSet<_> =
            serial.reports.iter().map(|r| r.state_hash).collect();
        assert!(
            distinct.len() as u64 > self.ticks / 2,
            "{label}: the state hash should change from tick to tick"
        );
        serial
    }
}

#[test]
fn den520d_conflicts_on_one_shot_with_commands() {
    let scenario = Scenario {
        grid: load_map(shipped("den520d.map")).unwrap(),
        config: SimConfig::default(),
        agents: 300,
        placement_seed: 1,
        ticks: 120,
        scripted: true,
    };
    let trace = scenario.check("den520d");
    let last = trace.reports.last().unwrap();
    assert!(
        trace.reports.iter().any(|r| r.waiting > 0),
        "conflicts arose"
    );
    assert!(last.at_goal > 0);
    assert!(
        trace.reports[10].added.len() == 10 && trace.reports[10].rejected.len() == 1,
        "ten added, one rejected (occupied): {:?}",
        trace.reports[10].rejected
    );
}

#[test]
fn random512_conflicts_off_lifelong() {
    let scenario = Scenario {
        grid: load_map(shipped("random512-10-0.map")).unwrap(),
        config: SimConfig {
            conflicts: ConflictMode::Off,
            lifelong: true,
            seed: 42,
            ..SimConfig::default()
        },
        agents: 300,
        placement_seed: 2,
        ticks: 100,
        scripted: false,
    };
    let trace = scenario.check("random512");
    assert!(trace.reports.iter().all(|r| r.waiting == 0));
}

#[test]
fn rooms_lifelong_with_plan_cap_and_commands() {
    let grid = MapGenerator::Rooms {
        width: 128,
        height: 128,
        room: 12,
        door: 2,
    }
    .generate(17)
    .unwrap();
    let scenario = Scenario {
        grid,
        config: SimConfig {
            lifelong: true,
            max_plans_per_tick: Some(20),
            seed: 5,
            ..SimConfig::default()
        },
        agents: 400,
        placement_seed: 3,
        ticks: 150,
        scripted: true,
    };
    let trace = scenario.check("rooms");
    assert!(
        trace.reports.iter().any(|r| r.plans_deferred > 0),
        "cap used"
    );
    assert!(trace.reports.iter().all(|r| r.plans <= 20));
    assert!(trace.reports.iter().map(|r| r.goals_reached).sum::<u32>() > 0);
}

#[test]
fn dense_crowd_with_node_budget_lifelong() {
    // 800 agents on about 3,000 cells: long chains, cycles, waits and blocked replans; a small
    // node budget makes some plans fail.
    let grid = MapGenerator::Random {
        width: 64,
        height: 64,
        density: 0.25,
    }
    .generate(23)
    .unwrap();
    let scenario = Scenario {
        grid,
        config: SimConfig {
            lifelong: true,
            node_budget: Some(400),
            replan_after_waits: 2,
            seed: 9,
            ..SimConfig::default()
        },
        agents: 800,
        placement_seed: 4,
        ticks: 150,
        scripted: true,
    };
    let trace = scenario.check("dense");
    assert!(trace.reports.iter().any(|r| r.plans_failed > 0));
    assert!(trace.reports.iter().map(|r| r.waiting).sum::<u32>() > 1000);
}

#[test]
fn another_seed_gives_another_lifelong_run() {
    let grid = MapGenerator::Random {
        width: 48,
        height: 48,
        density: 0.15,
    }
    .generate(1)
    .unwrap();
    let run = |seed: u64| {
        let scenario = Scenario {
            grid: grid.clone(),
            config: SimConfig {
                lifelong: true,
                seed,
                ..SimConfig::default()
            },
            agents: 100,
            placement_seed: 6,
            ticks: 120,
            scripted: false,
        };
        scenario.play(Mode::Pool(2))
    };
    let a = run(1);
    let b = run(2);
    assert_eq!(a, run(1), "same seed, same run");
    // Same start and goals: the first trips are the same, the lifelong goals that follow are
    // not.
    assert_eq!(a.reports[0].state_hash, b.reports[0].state_hash);
    assert_ne!(
        a.reports.last().unwrap().state_hash,
        b.reports.last().unwrap().state_hash
    );
    let differing = a
        .reports
        .iter()
        .zip(&b.reports)
        .filter(|(x, y)| x.state_hash != y.state_hash)
        .count();
    assert!(differing > 60, "only {differing} ticks differ");
}

#[test]
fn region_by_region_movement_is_the_same_on_any_thread_count() {
    // `SimConfig::regions`: regions go to the pool, so 1, 2 and 4 threads split them
    // differently; a dense lifelong crowd with commands mid-run.
    let grid = MapGenerator::Random {
        width: 96,
        height: 96,
        density: 0.2,
    }
    .generate(31)
    .unwrap();
    let scenario = Scenario {
        grid,
        config: SimConfig {
            lifelong: true,
            regions: 24,
            seed: 3,
            ..SimConfig::default()
        },
        agents: 2500,
        placement_seed: 8,
        ticks: 120,
        scripted: true,
    };
    let trace = scenario.check("regions");
    assert!(trace.reports.iter().map(|r| r.goals_reached).sum::<u32>() > 100);
}

#[test]
fn a_crowd_above_the_pool_thresholds_is_the_same_on_any_thread_count() {
    // 5,000 agents: more than the 4,096 slots from which the windows, the apply pass (the
    // occupancy beside the events) and the state hash (a sum) go to the pool.
    let grid = MapGenerator::Random {
        width: 128,
        height: 128,
        density: 0.1,
    }
    .generate(5)
    .unwrap();
    let scenario = Scenario {
        grid,
        config: SimConfig {
            regions: 64,
            seed: 9,
            ..SimConfig::default()
        },
        agents: 5000,
        placement_seed: 4,
        ticks: 60,
        scripted: false,
    };
    let trace = scenario.check("5,000 agents");
    assert!(trace.reports.last().unwrap().at_goal > 100);
}
