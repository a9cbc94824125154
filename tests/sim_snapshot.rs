//! Snapshots (`Simulation::snapshot`, `from_snapshot`, `restore`): a simulation saved and
//! restored at every tick of the shipped scenarios plays the same run as one never saved
//! (same state hash and events every tick, the recorded final hash), with D* Lite agents and
//! opening doors, a stuck crowd's LaCAM plan in flight, commands queued, a rollback, and
//! another thread count after the restore; and every truncation or flipped byte of a
//! snapshot is refused with an error, leaving the simulation as it was.

use std::path::Path;

use throng::grid::{Direction, Grid, Neighborhood};
use throng::planner::PlannerKind;
use throng::scenario::Scenario;
use throng::sim::{
    AgentAction, Command, RunSummary, SimConfig, Simulation, SnapshotError, TickEvents,
};

/// What a tick's events say, without the plans' wall times.
fn events_key(e: &TickEvents) -> String {
    let plans: Vec<_> = e
        .plans()
        .iter()
        .map(|p| {
            (
                p.agent, p.start, p.goal, p.reason, p.found, p.repaired, p.expanded,
            )
        })
        .collect();
    format!(
        "{} {plans:?} {} {:?} {} {} {:?} {:?} {:?} {:?} {:?} {:?}",
        e.tick(),
        e.deferred(),
        e.moves(),
        e.waiting(),
        e.swaps(),
        e.arrivals(),
        e.goal_changes(),
        e.outcomes(),
        e.cell_changes(),
        e.added(),
        e.removed(),
    )
}

/// A run summary's counts (not its wall times).
fn counts(s: &RunSummary) -> RunSummary {
    RunSummary {
        threads: 0,
        plans_per_sec: 0.0,
        moves_per_sec: 0.0,
        ticks_per_sec: 0.0,
        first_tick_ms: 0.0,
        steady_ticks_per_sec: 0.0,
        wall_s: 0.0,
        planning_s: 0.0,
        plan_us_p50: 0.0,
        plan_us_p90: 0.0,
        plan_us_p99: 0.0,
        plan_us_max: 0.0,
        tick_ms_p50: 0.0,
        tick_ms_p90: 0.0,
        tick_ms_p99: 0.0,
        tick_ms_max: 0.0,
        repair_us_p50: 0.0,
        repair_us_p99: 0.0,
        replan_us_p50: 0.0,
        replan_us_p99: 0.0,
        move_ms_p50: 0.0,
        move_ms_p99: 0.0,
        // Times per agent, and memory that depends on how buffers were reused (a restored
        // simulation's planners start with fresh ones): measures, not state.
        phase_ns: throng::sim::PhaseNanos {
            agent_ticks: s.phase_ns.agent_ticks,
            ..Default::default()
        },
        route_bytes_per_agent: 0.0,
        ..s.clone()
    }
}

/// Checks that `copy`, just restored from `original`'s snapshot, is `original` in every
/// readable respect: agents field by field (their `Debug`, D* Lite searches included), the
/// last events, the summary to the bit (histograms included), the tick and the grid.
fn assert_same(original: &Simulation, copy: &Simulation, when: &str) {
    assert_eq!(original.tick(), copy.tick(), "{when}");
    assert_eq!(
        format!("{:?}", original.agents()),
        format!("{:?}", copy.agents()),
        "{when}: agents"
    );
    assert_eq!(
        format!("{:?}", original.last_events()),
        format!("{:?}", copy.last_events()),
        "{when}: events"
    );
    assert_eq!(original.summary(), copy.summary(), "{when}: summary");
    assert_eq!(original.config(), copy.config(), "{when}");
    let (a, b) = (original.grid(), copy.grid());
    assert_eq!(
        (a.width(), a.height(), a.wall_edits()),
        (b.width(), b.height(), b.wall_edits())
    );
    for c in 0..a.len() as u32 {
        assert_eq!(
            (a.is_walkable(c), a.cost(c)),
            (b.is_walkable(c), b.cost(c)),
            "{when}"
        );
    }
    assert_eq!(original.snapshot(), copy.snapshot(), "{when}: snapshots");
}

/// Plays `file` twice in step, as `Scenario::play` does: one simulation never saved, the other
/// saved after each tick's commands are queued and replaced by its restored copy (from the
/// bytes alone on even ticks, restored in place on odd ones; every `deep`-th tick compared
/// field by field). Both must agree every tick and end on `final_hash`.
fn round_trip_every_tick(file: &str, deep: u64, final_hash: &str, ticks_played: u64) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenario = Scenario::load(root.join(file)).unwrap();
    let mut plain = scenario.build().unwrap();
    let mut saved = scenario.build().unwrap();
    let mut plain_changes = scenario.schedule(plain.grid()).unwrap();
    let mut saved_changes = scenario.schedule(saved.grid()).unwrap();
    let mut bytes = Vec::new();
    let lifelong = scenario.sim_config().lifelong;
    for tick in 0..scenario.ticks {
        plain_changes.queue_due(&mut plain);
        saved_changes.queue_due(&mut saved);
        saved.snapshot_into(&mut bytes);
        if tick % 2 == 0 {
            let copy = Simulation::from_snapshot(&bytes).unwrap();
            if tick % deep == 0 {
                assert_same(&saved, &copy, &format!("{file} tick {tick}"));
            }
            saved = copy;
        } else {
            saved.restore(&bytes).unwrap();
        }
        let a = plain.step();
        let b = saved.step();
        assert_eq!(a.state_hash, b.state_hash, "{file} tick {tick}");
        assert_eq!(
            events_key(plain.last_events()),
            events_key(saved.last_events()),
            "{file} tick {tick}"
        );
        if !lifelong
            && plain_changes.is_finished()
            && (a.at_goal + a.no_path == a.agents || a.unsolvable)
        {
            break;
        }
    }
    assert_eq!(counts(&plain.summary()), counts(&saved.summary()), "{file}");
    let summary = saved.summary();
    assert_eq!(
        format!("{:016x}", summary.final_state_hash),
        final_hash,
        "{file}"
    );
    assert_eq!(summary.ticks, ticks_played, "{file}");
}

#[test]
fn crowd_rooms_round_trips_at_every_tick() {
    round_trip_every_tick("sims/crowd-rooms.toml", 1, "00ccbef84e5f05ee", 347);
}

#[test]
fn lifelong_round_trips_at_every_tick() {
    round_trip_every_tick("sims/lifelong.toml", 50, "296337f008da2a7a", 1000);
}

#[test]
fn doors_with_dstar_agents_round_trip_at_every_tick() {
    // Planner `dstar` (every agent keeps a D* Lite search), doors opening and closing as
    // queued map changes.
    round_trip_every_tick("sims/doors.toml", 80, "66fd1970ac08c462", 561);
}

/// A corridor with six one-cell bays, where PIBT alone leaves six agents circling (see
/// `tests/stuck.rs`).
const BAYS: &str = "#.#.#.#\n.......\n#.#.#.#";

#[test]
fn a_stuck_crowds_plan_in_flight_round_trips() {
    let mut sim = Simulation::new(Grid::from_ascii(BAYS).unwrap(), SimConfig::default()).unwrap();
    let open: Vec<u32> = (0..sim.grid().len() as u32)
        .filter(|&c| sim.grid().is_walkable(c))
        .collect();
    for i in 0..6 {
        sim.add_agent(open[i], Some(open[(i + 2) % 6])).unwrap();
    }
    let mut plain = Simulation::from_snapshot(&sim.snapshot()).unwrap();
    let mut resolving_ticks = 0;
    for tick in 0..400 {
        let copy = Simulation::from_snapshot(&sim.snapshot()).unwrap();
        assert_same(&sim, &copy, &format!("bays tick {tick}"));
        sim = copy;
        let (a, b) = (plain.step(), sim.step());
        assert_eq!((a.state_hash, a.resolving), (b.state_hash, b.resolving));
        assert_eq!(
            events_key(plain.last_events()),
            events_key(sim.last_events())
        );
        resolving_ticks += u64::from(b.resolving);
        if b.at_goal == b.agents {
            break;
        }
    }
    assert!(
        resolving_ticks >= 2,
        "the plan was followed over several ticks"
    );
    assert!(sim.summary().all_arrived);
    assert_eq!(counts(&plain.summary()), counts(&sim.summary()));
}

/// A small simulation with a bit of everything: costs, a D* Lite agent, a navigation-graph
/// agent, a controlled agent, a queued command, a goal cleared, a few ticks played.
fn small() -> Simulation {
    let grid = Grid::from_ascii("..........\n.###..###.\n..........\n....##....")
        .unwrap()
        .with_neighborhood(Neighborhood::Four);
    let mut costs = vec![1.0f32; grid.len()];
    costs[4] = 3.0;
    let grid = grid.with_costs(costs).unwrap();
    let mut sim = Simulation::new(grid, SimConfig::default()).unwrap();
    let a = sim
        .add_agent_with_planner(0, Some(29), PlannerKind::DStar)
        .unwrap();
    sim.add_agent_with_planner(20, Some(9), PlannerKind::Nav)
        .unwrap();
    let c = sim.add_controlled_agent(39, Some(30)).unwrap();
    let d = sim.add_agent(21, Some(38)).unwrap();
    sim.set_priority(d, 2).unwrap();
    sim.step();
    sim.step_with_actions(&[(c, AgentAction::Move(Direction::West))])
        .unwrap();
    sim.clear_goal(d).unwrap();
    sim.set_goal(a, 27).unwrap();
    sim.queue(Command::AddAgent {
        start: 33,
        goal: Some(2),
    });
    sim
}

#[test]
fn a_small_simulation_round_trips_and_plays_on_the_same() {
    let sim = small();
    let bytes = sim.snapshot();
    let mut copy = Simulation::from_snapshot(&bytes).unwrap();
    assert_same(&sim, &copy, "small");
    let mut sim = sim;
    for _ in 0..30 {
        assert_eq!(sim.step().state_hash, copy.step().state_hash);
        assert_eq!(
            events_key(sim.last_events()),
            events_key(copy.last_events())
        );
    }
    assert_eq!(counts(&sim.summary()), counts(&copy.summary()));
}

#[test]
fn every_truncation_and_flipped_byte_is_refused_and_changes_nothing() {
    let sim = small();
    let bytes = sim.snapshot();
    let mut target = small();
    target.step();
    let before = target.snapshot();
    for len in 0..bytes.len() {
        assert!(
            Simulation::from_snapshot(&bytes[..len]).is_err(),
            "{len} bytes"
        );
    }
    assert!(target.restore(&bytes[..bytes.len() - 1]).is_err());
    let mut damaged = bytes.clone();
    for i in 0..bytes.len() {
        for bit in [0x01u8, 0x80] {
            damaged[i] ^= bit;
            assert!(
                Simulation::from_snapshot(&damaged).is_err(),
                "byte {i} ^ {bit:#x}"
            );
            assert!(target.restore(&damaged).is_err(), "byte {i} ^ {bit:#x}");
            damaged[i] ^= bit;
        }
    }
    assert_eq!(target.snapshot(), before, "failed restores changed nothing");
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Simulation::from_snapshot(&longer).is_err());
    assert!(matches!(
        Simulation::from_snapshot(b"not a snapshot at all"),
        Err(SnapshotError::NotSnapshot)
    ));
    let mut version = bytes.clone();
    version[8] ^= 0x40;
    assert!(matches!(
        Simulation::from_snapshot(&version),
        Err(SnapshotError::Version { .. })
    ));
    assert!(matches!(
        Simulation::from_snapshot(&bytes[..bytes.len() - 3]),
        Err(SnapshotError::Truncated)
    ));
    let mut flipped = bytes.clone();
    let last = flipped.len() - 20;
    flipped[last] ^= 1;
    assert_eq!(
        Simulation::from_snapshot(&flipped).err(),
        Some(SnapshotError::Checksum)
    );
}

#[test]
fn restore_refuses_another_maps_size_and_takes_another_maps_walls() {
    let sim = small();
    let mut other = Simulation::new(Grid::new(10, 5).unwrap(), SimConfig::default()).unwrap();
    let before = other.snapshot();
    let err = other.restore(&sim.snapshot()).unwrap_err();
    assert!(matches!(err, SnapshotError::OtherMap { .. }), "{err}");
    assert!(err.to_string().contains("10 x 4"), "{err}");
    assert_eq!(other.snapshot(), before);
    // The same size and moves, other walls (a door shut since): the snapshot's map comes back.
    let grid = Grid::new(10, 4)
        .unwrap()
        .with_neighborhood(Neighborhood::Four);
    let mut same_size = Simulation::new(grid, SimConfig::default()).unwrap();
    same_size.restore(&sim.snapshot()).unwrap();
    assert_same(&sim, &same_size, "same size");
}

#[test]
fn rollback_replays_the_same_ticks() {
    let mut sim = small();
    for _ in 0..3 {
        sim.step();
    }
    let saved = sim.snapshot();
    let first: Vec<_> = (0..20).map(|_| sim.step().state_hash).collect();
    let events = events_key(sim.last_events());
    sim.restore(&saved).unwrap();
    let again: Vec<_> = (0..20).map(|_| sim.step().state_hash).collect();
    assert_eq!(first, again);
    assert_eq!(events, events_key(sim.last_events()));
}

#[test]
fn another_thread_count_after_restore_plays_the_same_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenario = Scenario::load(root.join("sims/crowd-rooms.toml")).unwrap();
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let (four, one) = (pool(4), pool(1));
    let mut sim = scenario.build().unwrap();
    let bytes = four.install(|| {
        for _ in 0..40 {
            sim.step();
        }
        sim.snapshot()
    });
    let finish = |sim: &mut Simulation| {
        while sim.tick() < 360 {
            sim.step();
        }
        sim.state_hash()
    };
    let mut restored = Simulation::from_snapshot(&bytes).unwrap();
    let on_one = one.install(|| finish(&mut restored));
    let on_four = four.install(|| finish(&mut sim));
    assert_eq!(on_one, on_four);
    assert_eq!(format!("{on_one:016x}"), "00ccbef84e5f05ee");
}

#[test]
fn a_large_crowd_restored_between_two_draws_of_its_tie_breaks_plays_on_alike() {
    // 5,000 agents (PIBT's tie-breaks follow the map from 4,096 on, drawn from the cells
    // stood on every 256 ticks), lifelong so that the run outlasts two draws. Saved at tick
    // 300 and restored (the ties of tick 256 must come back, not be drawn from tick 300's
    // cells), then played to tick 530 alongside the run never saved.
    let text = "agents = 5000\nticks = 600\nseed = 3\n\
                [map]\ngenerator = { kind = \"random\", width = 128, height = 128, density = 0.1 }\n\
                [sim]\nconflicts = \"pibt\"\nlifelong = true\n";
    let scenario = Scenario::parse(text, "large.toml", Path::new(".")).unwrap();
    let mut plain = scenario.build().unwrap();
    while plain.tick() < 300 {
        plain.step();
    }
    let bytes = plain.snapshot();
    let mut restored = Simulation::from_snapshot(&bytes).unwrap();
    while plain.tick() < 530 {
        let a = plain.step();
        let b = restored.step();
        assert_eq!(a.state_hash, b.state_hash, "tick {}", plain.tick());
    }
}
