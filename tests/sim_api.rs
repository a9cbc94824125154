//! The simulation's public API: agent handles, errors, queued commands, serializable reports,
//! and the channel runner ([`SimulationHandle`]).

use std::time::{Duration, Instant};

use throng::error::Error;
use throng::grid::CellChange;
use throng::grid::procgen::MapGenerator;
use throng::grid::{CellId, Grid};
use throng::search::QueryError;
use throng::sim::{
    AgentId, AgentState, Command, ConflictMode, Metrics, RunSummary, RunnerConfig, RunnerStopped,
    SimConfig, Simulation, SimulationHandle, TickReport, WhenFull,
};

const WAIT: Duration = Duration::from_secs(20);

fn open_grid(width: usize, height: usize) -> Grid {
    Grid::from_ascii(&vec![".".repeat(width); height].join("\n")).unwrap()
}

/// An 8 x 4 grid with a wall cell at (3, 1).
fn small_sim(config: SimConfig) -> Simulation {
    let grid = Grid::from_ascii(
        "........\n\
         ...#....\n\
         ........\n\
         ........",
    )
    .unwrap();
    Simulation::new(grid, config).unwrap()
}

fn cell(sim: &Simulation, x: u32, y: u32) -> CellId {
    sim.grid().cell(x, y).unwrap()
}

#[test]
fn removed_agents_handle_resolves_to_nothing_and_never_aliases() {
    let mut sim = small_sim(SimConfig::default());
    let a = sim.add_agent(cell(&sim, 0, 0), None).unwrap();
    let b = sim.add_agent(cell(&sim, 1, 0), None).unwrap();
    sim.remove_agent(a).unwrap();
    assert!(sim.agent(a).is_none());
    assert_eq!(sim.agents().len(), 1);

    // The freed slot is reused by the next agent, under a new generation.
    let c = sim.add_agent(cell(&sim, 2, 0), None).unwrap();
    assert_eq!(c.index(), a.index());
    assert_ne!(c, a);
    assert!(sim.agent(a).is_none(), "the stale handle must not reach c");
    assert_eq!(sim.agent(c).unwrap().position(), cell(&sim, 2, 0));
    assert_eq!(sim.agent(b).unwrap().position(), cell(&sim, 1, 0));

    // Every use of the stale handle is an error naming it.
    assert!(matches!(sim.remove_agent(a), Err(Error::UnknownAgent(id)) if id == a));
    let goal = cell(&sim, 7, 3);
    assert!(matches!(sim.set_goal(a, goal), Err(Error::UnknownAgent(id)) if id == a));
    assert!(sim.agent(c).unwrap().goal().is_none(), "c untouched");

    // The removed agent's cell is free again.
    sim.add_agent(cell(&sim, 0, 0), None).unwrap();
}

#[test]
fn many_removals_never_alias() {
    let mut sim = Simulation::new(open_grid(16, 16), SimConfig::default()).unwrap();
    let mut removed: Vec<AgentId> = Vec::new();
    let mut live: Vec<AgentId> = Vec::new();
    for round in 0..50u32 {
        let free = (0..256).find(|&c| sim.occupancy().agent_at(c).is_none());
        live.push(sim.add_agent(free.unwrap(), None).unwrap());
        if round % 2 == 1 {
            let id = live.remove((round as usize * 7) % live.len());
            sim.remove_agent(id).unwrap();
            removed.push(id);
        }
    }
    for id in &removed {
        assert!(sim.agent(*id).is_none());
        assert!(!live.contains(id));
    }
    for id in &live {
        assert!(sim.agent(*id).is_some());
    }
    let ids: Vec<AgentId> = sim.agents().iter().map(|(id, _)| id).collect();
    assert_eq!(ids.len(), live.len());
}

#[test]
fn add_agent_rejects_bad_cells() {
    let mut sim = small_sim(SimConfig::default());
    let wall = cell(&sim, 3, 1);
    let free = cell(&sim, 0, 0);
    assert!(matches!(
        sim.add_agent(wall, None),
        Err(Error::InvalidQuery(QueryError::StartBlocked { x: 3, y: 1 }))
    ));
    assert!(matches!(
        sim.add_agent(free, Some(wall)),
        Err(Error::InvalidQuery(QueryError::GoalBlocked { x: 3, y: 1 }))
    ));
    assert!(matches!(
        sim.add_agent(1_000, None),
        Err(Error::InvalidQuery(QueryError::CellOutOfBounds {
            cell: 1_000,
            cells: 32
        }))
    ));
    assert!(matches!(
        sim.add_agent(free, Some(99)),
        Err(Error::InvalidQuery(QueryError::CellOutOfBounds {
            cell: 99,
            ..
        }))
    ));
    let a = sim.add_agent(free, None).unwrap();
    match sim.add_agent(free, None) {
        Err(Error::CellOccupied { x: 0, y: 0, agent }) => assert_eq!(agent, a),
        other => panic!("expected CellOccupied, got {other:?}"),
    }
    let message = sim.add_agent(free, None).unwrap_err().to_string();
    assert!(
        message.contains("(0, 0)") && message.contains("occupied"),
        "{message}"
    );
    assert_eq!(sim.agents().len(), 1, "failed adds add nothing");
    // Goals are checked too, and a bad goal on set_goal leaves the agent as it was.
    assert!(matches!(
        sim.set_goal(a, wall),
        Err(Error::InvalidQuery(QueryError::GoalBlocked { .. }))
    ));
    assert_eq!(sim.agent(a).unwrap().state(), AgentState::Idle);
}

#[test]
fn with_conflicts_off_agents_may_share_a_cell() {
    let mut sim = small_sim(SimConfig {
        conflicts: ConflictMode::Off,
        ..SimConfig::default()
    });
    let c = cell(&sim, 0, 0);
    let a = sim.add_agent(c, None).unwrap();
    let b = sim.add_agent(c, None).unwrap();
    assert_ne!(a, b);
    assert_eq!(sim.agents().len(), 2);
}

#[test]
fn queued_commands_apply_at_the_next_step_in_order() {
    let mut sim = small_sim(SimConfig::default());
    let a = sim.add_agent(cell(&sim, 0, 0), None).unwrap();
    let gone = sim.add_agent(cell(&sim, 0, 3), None).unwrap();
    sim.remove_agent(gone).unwrap();

    sim.queue(Command::AddAgent {
        start: cell(&sim, 1, 0),
        goal: Some(cell(&sim, 7, 0)),
    });
    sim.queue(Command::AddAgent {
        start: cell(&sim, 0, 0), // occupied by a
        goal: None,
    });
    sim.queue(Command::AddAgent {
        start: cell(&sim, 3, 1), // a wall
        goal: None,
    });
    sim.queue(Command::SetGoal {
        agent: a,
        goal: cell(&sim, 7, 3),
    });
    sim.queue(Command::SetGoal {
        agent: gone,
        goal: cell(&sim, 7, 3),
    });
    sim.queue(Command::AddAgent {
        start: cell(&sim, 0, 3), // gone's cell, free again
        goal: None,
    });
    // Nothing happens before the step.
    assert_eq!(sim.agents().len(), 1);
    assert_eq!(sim.agent(a).unwrap().goal(), None);

    let report = sim.step();
    assert_eq!(report.tick, 0);
    assert_eq!(report.added.len(), 2, "{report:?}");
    assert_eq!(report.rejected.len(), 3, "{:?}", report.rejected);
    assert!(report.rejected[0].contains("occupied"));
    assert!(report.rejected[1].contains("blocked"));
    assert!(report.rejected[2].contains("does not exist"));
    let (first, second) = (report.added[0], report.added[1]);
    assert_eq!(sim.agent(second).unwrap().position(), cell(&sim, 0, 3));
    assert_eq!(sim.agent(first).unwrap().goal(), Some(cell(&sim, 7, 0)));
    assert_eq!(sim.agent(a).unwrap().goal(), Some(cell(&sim, 7, 3)));
    // Goals set by commands are planned in the same tick and agents take their first step.
    assert_eq!(report.plans, 2);
    assert_eq!(report.moved, 2);
    assert_eq!(report.agents, 3);

    // The queue is empty afterwards.
    let report = sim.step();
    assert!(report.added.is_empty() && report.rejected.is_empty());

    // Removal and map changes by command.
    sim.queue(Command::RemoveAgent(second));
    sim.queue(Command::RemoveAgent(second));
    sim.queue(Command::ChangeMap(vec![CellChange::SetWalkable {
        cell: 10_000,
        walkable: false,
    }]));
    let report = sim.step();
    assert!(sim.agent(second).is_none());
    assert_eq!(report.rejected.len(), 2, "{:?}", report.rejected);
    assert_eq!(report.agents, 2);
}

#[test]
fn agent_given_its_own_cell_as_goal_arrives_at_once() {
    let mut sim = small_sim(SimConfig::default());
    let here = cell(&sim, 5, 2);
    let id = sim.add_agent(here, Some(here)).unwrap();
    let report = sim.step();
    let agent = sim.agent(id).unwrap();
    assert_eq!(agent.state(), AgentState::Arrived);
    assert_eq!(agent.position(), here);
    assert_eq!(agent.arrived_at(), Some(0));
    assert_eq!(agent.goals_reached(), 1);
    assert_eq!(report.goals_reached, 1);
    assert_eq!(report.at_goal, 1);
    let summary = sim.summary();
    assert_eq!(summary.arrived, 1);
    assert_eq!(summary.goals_reached, 1);
    assert_eq!(
        summary.sum_of_costs, 0,
        "MAPF: starting on the goal costs nothing"
    );
}

#[test]
fn one_step_trip_arrives_at_time_one_and_costs_one() {
    let mut sim = small_sim(SimConfig::default());
    let (a, b) = (cell(&sim, 5, 2), cell(&sim, 6, 2));
    let id = sim.add_agent(a, Some(b)).unwrap();
    sim.step(); // tick 0: plan and take the step
    assert_eq!(sim.agent(id).unwrap().position(), b);
    assert_eq!(sim.agent(id).unwrap().arrived_at(), Some(1));
    let summary = sim.summary();
    assert_eq!((summary.sum_of_costs, summary.makespan), (1, 1));
}

#[test]
fn lifelong_agent_given_its_own_cell_as_goal_gets_a_new_one() {
    let mut sim = small_sim(SimConfig {
        lifelong: true,
        ..SimConfig::default()
    });
    let here = cell(&sim, 5, 2);
    let id = sim.add_agent(here, None).unwrap();
    sim.set_goal(id, here).unwrap();
    for _ in 0..40 {
        sim.step();
    }
    let agent = sim.agent(id).unwrap();
    assert!(agent.goals_reached() > 2, "stuck: {agent:?}");
    assert_ne!(agent.goal(), Some(here));
}

#[test]
fn reports_and_summaries_serialize_to_json() {
    let mut sim = small_sim(SimConfig::default());
    sim.queue(Command::AddAgent {
        start: cell(&sim, 0, 0),
        goal: Some(cell(&sim, 7, 3)),
    });
    sim.queue(Command::AddAgent {
        start: cell(&sim, 3, 1),
        goal: None,
    });
    let mut reports = vec![sim.step()];
    while sim.summary().arrived == 0 {
        reports.push(sim.step());
    }
    let first = &reports[0];
    let json = serde_json::to_string(first).unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    for field in [
        "tick",
        "wall_ms",
        "planning_ms",
        "plans",
        "moved",
        "waiting",
        "goals_reached",
        "state_hash",
        "added",
        "rejected",
    ] {
        assert!(
            value.get(field).is_some(),
            "TickReport JSON lacks {field}: {json}"
        );
    }
    assert_eq!(value["added"].as_array().unwrap().len(), 1);
    assert_eq!(value["rejected"].as_array().unwrap().len(), 1);
    // Timings are floats, which JSON round-trips only to the last digit or so.
    let back: TickReport = serde_json::from_str(&json).unwrap();
    assert_eq!(back.without_times(), first.without_times());
    assert!((back.wall_ms - first.wall_ms).abs() <= 1e-9 * first.wall_ms.max(1.0));

    let summary = sim.summary();
    let json = serde_json::to_string_pretty(&summary).unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    for field in [
        "ticks",
        "agents",
        "plans",
        "plans_per_sec",
        "plan_us_p99",
        "tick_ms_p50",
        "arrived",
        "sum_of_costs",
        "makespan",
        "final_state_hash",
    ] {
        assert!(
            value.get(field).is_some(),
            "RunSummary JSON lacks {field}: {json}"
        );
    }
    assert_eq!(value["arrived"], 1);
    let back: RunSummary = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (
            back.ticks,
            back.plans,
            back.moves,
            back.arrived,
            back.sum_of_costs
        ),
        (
            summary.ticks,
            summary.plans,
            summary.moves,
            summary.arrived,
            summary.sum_of_costs
        )
    );
    assert_eq!(back.makespan, summary.makespan);
    assert_eq!(back.final_state_hash, summary.final_state_hash);

    // Commands and agent states are data too (scenario files, network protocols).
    let command = Command::SetGoal {
        agent: first.added[0],
        goal: 5,
    };
    let json = serde_json::to_string(&command).unwrap();
    assert_eq!(serde_json::from_str::<Command>(&json).unwrap(), command);
    assert_eq!(
        serde_json::to_string(&AgentState::NoPath).unwrap(),
        "\"no_path\""
    );
}

// ----------------------------------------------------------------------------------------
// The channel runner.

/// Two rows of agents crossing an open 32 x 32 field.
fn field_sim(config: SimConfig) -> Simulation {
    Simulation::new(open_grid(32, 32), config).unwrap()
}

fn crossing_commands(sim: &Simulation, n: u32) -> Vec<Command> {
    (0..n)
        .map(|i| Command::AddAgent {
            start: sim.grid().cell(0, i).unwrap(),
            goal: Some(sim.grid().cell(31, (i * 5) % 32).unwrap()),
        })
        .collect()
}

#[test]
fn runner_applies_commands_and_reports_every_tick_in_order() {
    let sim = field_sim(SimConfig::default());
    let commands = crossing_commands(&sim, 20);
    let config = RunnerConfig {
        when_full: WhenFull::Wait,
        report_capacity: 4,
        ..RunnerConfig::default()
    };
    let handle = SimulationHandle::spawn(sim, config).unwrap();
    for command in commands {
        handle.send(command).unwrap();
    }
    handle.step(60).unwrap();
    // With `Wait`, the runner waits for the consumer: one report per tick, in order, even
    // though the channel holds only 4.
    let reports: Vec<TickReport> = (0..60)
        .map(|_| handle.reports().recv_timeout(WAIT).unwrap())
        .collect();
    assert!(reports.iter().map(|r| r.tick).eq(0..60));
    assert_eq!(reports[0].added.len(), 20);
    assert!(reports[1..].iter().all(|r| r.added.is_empty()));
    assert_eq!(handle.coalesced_reports(), 0);
    assert_eq!(handle.ticks_played(), 60);
    let ids = reports[0].added.clone();

    let sim = handle.stop();
    assert_eq!(sim.tick(), 60);
    assert_eq!(sim.agents().len(), 20);
    for id in ids {
        let agent = sim.agent(id).unwrap();
        assert_eq!(agent.state(), AgentState::Arrived, "{id:?}");
    }
    assert_eq!(sim.summary().ticks, 60);
}

#[test]
fn runner_coalesces_reports_for_a_slow_consumer_without_losing_anything() {
    let sim = field_sim(SimConfig::default());
    let commands = crossing_commands(&sim, 20);
    let config = RunnerConfig {
        report_capacity: 3,
        ..RunnerConfig::default()
    };
    let handle = SimulationHandle::spawn(sim, config).unwrap();
    for command in commands.into_iter().take(10) {
        handle.send(command).unwrap();
    }
    handle.step(30).unwrap();
    handle
        .send(crossing_commands(&field_sim(SimConfig::default()), 20)[15].clone())
        .unwrap();
    handle.step(30).unwrap();
    // Nobody reads while the 60 ticks are played.
    wait_for_ticks(&handle, 60);
    // The last report may still be on its way to the channel; the done answer comes after it.
    let done = handle.with(|sim| sim.tick()).unwrap();
    assert_eq!(done.recv_timeout(WAIT).unwrap(), 60);
    let mut reports: Vec<TickReport> = handle.drain_reports().collect();
    // The backlog goes out once there is room.
    while reports.last().map(|r| r.tick) != Some(59) {
        reports.push(handle.reports().recv_timeout(WAIT).unwrap());
    }
    assert!(reports.len() < 60, "{} reports for 60 ticks", reports.len());
    assert!(handle.coalesced_reports() > 0);
    assert_eq!(
        reports.len() as u64 + handle.coalesced_reports(),
        60,
        "every tick is in exactly one report"
    );
    assert!(reports.windows(2).all(|w| w[0].tick < w[1].tick));
    let added: usize = reports.iter().map(|r| r.added.len()).sum();
    assert_eq!(added, 11, "no added id lost");
    let moved: u64 = reports.iter().map(|r| u64::from(r.moved)).sum();
    let plans: u64 = reports.iter().map(|r| u64::from(r.plans)).sum();
    let sim = handle.stop();
    let summary = sim.summary();
    assert_eq!(moved, summary.moves, "counters are summed, not dropped");
    assert_eq!(plans, summary.plans);
    assert_eq!(reports.last().unwrap().state_hash, sim.state_hash());
}

/// Round trips through the runner's inbox (each message served between two ticks) while the
/// simulation is expected to stay at `tick`: a runner that ticks when it should not has had
/// as many chances as round trips, with no clock involved.
fn assert_no_tick(handle: &SimulationHandle, tick: u64) {
    for trip in 0..100 {
        let now = handle
            .with(|sim| sim.tick())
            .unwrap()
            .recv_timeout(WAIT)
            .unwrap();
        assert_eq!(now, tick, "ticked by round trip {trip}");
        assert_eq!(handle.ticks_played(), tick);
    }
}

/// Waits until the runner has played `ticks` ticks (at most [`WAIT`]).
fn wait_for_ticks(handle: &SimulationHandle, ticks: u64) {
    let t0 = Instant::now();
    while handle.ticks_played() < ticks {
        assert!(
            t0.elapsed() < WAIT,
            "{} ticks of {ticks}",
            handle.ticks_played()
        );
        std::thread::yield_now();
    }
}

#[test]
fn runner_runs_freely_pauses_and_resumes() {
    let sim = field_sim(SimConfig::default());
    let commands = crossing_commands(&sim, 8);
    // As fast as possible when running: a runner that ran while paused would tick between any
    // two messages.
    let config = RunnerConfig {
        tick_interval: None,
        ..RunnerConfig::default()
    };
    let handle = SimulationHandle::spawn(sim, config).unwrap();
    for command in commands {
        handle.send(command).unwrap();
    }
    // Paused by default: nothing happens.
    assert_no_tick(&handle, 0);
    assert!(handle.try_recv_report().is_none());

    handle.run().unwrap();
    wait_for_ticks(&handle, 10);
    handle.pause().unwrap();
    let paused_at = handle
        .with(|sim| sim.tick())
        .unwrap()
        .recv_timeout(WAIT)
        .unwrap();
    assert_no_tick(&handle, paused_at);
    assert!(paused_at >= 10);

    // A step while paused plays exactly that many ticks, and what follows it sees them.
    handle.step(5).unwrap();
    let after_step = handle
        .with(|sim| sim.tick())
        .unwrap()
        .recv_timeout(WAIT)
        .unwrap();
    assert_eq!(after_step, paused_at + 5);

    // Ticks 1 ms apart, then resume.
    handle
        .set_tick_interval(Some(Duration::from_millis(1)))
        .unwrap();
    handle.run().unwrap();
    wait_for_ticks(&handle, after_step + 50);
    let sim = handle.stop();
    assert!(sim.tick() >= after_step + 50);
    assert_eq!(sim.summary().ticks, sim.tick());
}

#[test]
fn runner_serves_the_caller_while_waiting_for_a_consumer() {
    // `Wait` with a full channel: the simulation stops ticking, but messages are still
    // served, so the caller never waits on it.
    let sim = field_sim(SimConfig::default());
    let config = RunnerConfig {
        report_capacity: 2,
        when_full: WhenFull::Wait,
        start_running: true,
        ..RunnerConfig::default()
    };
    let handle = SimulationHandle::spawn(sim, config).unwrap();
    // Two reports in the channel and a third one waiting for room.
    wait_for_ticks(&handle, 3);
    assert_no_tick(&handle, 3); // no tick while the report waits
    assert_eq!(handle.reports().len(), 2);
    let start: CellId = 3 * 32 + 3; // (3, 3)
    let added = handle
        .with(move |sim| sim.add_agent(start, None).map_err(|e| e.to_string()))
        .unwrap()
        .recv_timeout(WAIT)
        .unwrap()
        .unwrap();
    assert_eq!(handle.ticks_played(), 3, "still waiting for room");
    // Reading makes room: ticking resumes.
    let first = handle.reports().recv_timeout(WAIT).unwrap();
    assert_eq!(first.tick, 0);
    wait_for_ticks(&handle, 4);
    let sim = handle.stop();
    assert!(sim.agent(added).is_some());
}

#[test]
fn stop_hands_back_unapplied_commands() {
    let sim = field_sim(SimConfig::default());
    let commands = crossing_commands(&sim, 3);
    let handle = SimulationHandle::spawn(sim, RunnerConfig::default()).unwrap();
    for command in commands {
        handle.send(command).unwrap();
    }
    let mut sim = handle.stop();
    assert_eq!(sim.tick(), 0);
    assert_eq!(sim.agents().len(), 0);
    let report = sim.step();
    assert_eq!(report.added.len(), 3, "queued commands survive the stop");
}

#[test]
fn messages_after_a_step_wait_for_its_ticks_and_survive_a_stop() {
    // `Wait` with room for one report and nobody reading: the runner plays tick 0 (sent),
    // tick 1 (waiting for room), then stalls with 998 ticks of the step still to play.
    let sim = field_sim(SimConfig::default());
    let command = crossing_commands(&sim, 1).remove(0);
    let config = RunnerConfig {
        report_capacity: 1,
        when_full: WhenFull::Wait,
        ..RunnerConfig::default()
    };
    let handle = SimulationHandle::spawn(sim, config).unwrap();
    handle.step(1000).unwrap();
    handle.send(command).unwrap();
    let answer = handle.with(|sim| sim.tick()).unwrap();
    wait_for_ticks(&handle, 2);
    // Room for one more report: the runner plays tick 2 and stalls again. Had it answered
    // messages before the step's ticks, it would have by now (it serves messages first).
    assert_eq!(handle.reports().recv_timeout(WAIT).unwrap().tick, 0);
    wait_for_ticks(&handle, 3);
    assert!(answer.try_recv().is_err(), "held behind the step's ticks");
    let mut sim = handle.stop();
    assert_eq!(sim.tick(), 3);
    // The closure ran at the stop, the command is queued for the next tick.
    assert_eq!(answer.recv_timeout(WAIT).unwrap(), 3);
    assert_eq!(sim.agents().len(), 0);
    assert_eq!(sim.step().added.len(), 1);
}

#[test]
fn runner_on_its_own_pool_matches_direct_stepping() {
    let grid = MapGenerator::Rooms {
        width: 64,
        height: 64,
        room: 7,
        door: 2,
    }
    .generate(2)
    .unwrap();
    let config = SimConfig {
        lifelong: true,
        seed: 4,
        ..SimConfig::default()
    };
    let commands: Vec<Command> = (0..64u32)
        .filter(|&c| grid.is_walkable(c * 61 % 4096))
        .map(|c| Command::AddAgent {
            start: c * 61 % 4096,
            goal: None,
        })
        .collect();
    let mut direct = Simulation::new(grid.clone(), config).unwrap();
    for command in &commands {
        direct.queue(command.clone());
    }
    let first = direct.step();
    let goals: Vec<Command> = first
        .added
        .iter()
        .enumerate()
        .map(|(i, &agent)| Command::SetGoal {
            agent,
            goal: (0..4096)
                .map(|k| (i as u32 * 97 + 1500 + k) % 4096)
                .find(|&c| grid.is_walkable(c))
                .unwrap(),
        })
        .collect();
    for command in &goals {
        direct.queue(command.clone());
    }
    let expected: Vec<u64> = std::iter::once(first.state_hash)
        .chain((1..80).map(|_| direct.step().state_hash))
        .collect();

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let handle = SimulationHandle::spawn(
        Simulation::new(grid, config).unwrap(),
        RunnerConfig {
            pool: Some(pool.into()),
            when_full: WhenFull::Wait,
            ..RunnerConfig::default()
        },
    )
    .unwrap();
    for command in commands {
        handle.send(command).unwrap();
    }
    handle.step(1).unwrap();
    for command in goals {
        handle.send(command).unwrap();
    }
    handle.step(79).unwrap();
    let got: Vec<u64> = (0..80)
        .map(|_| handle.reports().recv_timeout(WAIT).unwrap().state_hash)
        .collect();
    assert_eq!(got, expected);
    let sim = handle.stop();
    assert_eq!(sim.state_hash(), direct.state_hash());
}

#[test]
fn a_panic_on_the_simulation_thread_reaches_the_caller() {
    let handle =
        SimulationHandle::spawn(field_sim(SimConfig::default()), RunnerConfig::default()).unwrap();
    let answer = handle.with(|_| -> u32 { panic!("boom") }).unwrap();
    assert!(answer.recv_timeout(WAIT).is_err(), "no answer from a panic");
    let t0 = Instant::now();
    while handle.step(1).is_ok() {
        assert!(t0.elapsed() < WAIT);
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        handle.send(Command::RemoveAgent(fake_id())),
        Err(RunnerStopped)
    );
    let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle.stop()));
    let panic = stopped.unwrap_err();
    assert_eq!(panic.downcast_ref::<&str>(), Some(&"boom"));
}

/// Some agent id (ids cannot be made by hand; take one from a throwaway simulation).
fn fake_id() -> AgentId {
    let mut sim = field_sim(SimConfig::default());
    sim.add_agent(0, None).unwrap()
}

// ----------------------------------------------------------------------------------------
// First tick and steady rate.

/// The first tick is reported apart (it plans every agent's first trip) and the steady rate
/// counts only the ticks after it: fed known tick times, the summary gives them exactly.
#[test]
fn summary_separates_the_first_tick_from_the_steady_rate() {
    let mut metrics = Metrics::default();
    let empty = metrics.summary(std::iter::empty(), 1);
    assert_eq!(
        (empty.first_tick_ms, empty.steady_ticks_per_sec),
        (0.0, 0.0)
    );
    let tick = |tick: u64, wall_ms: f64| TickReport {
        tick,
        wall_ms,
        ..TickReport::default()
    };
    metrics.record_tick(&tick(0, 750.0));
    let one = metrics.summary(std::iter::empty(), 1);
    assert_eq!(one.first_tick_ms, 750.0);
    assert_eq!(one.steady_ticks_per_sec, 0.0, "no tick after the first");
    // Ticks 2..=9 take 4 ms each: 250 ticks/s after the first, whatever the first took.
    for t in 1..9 {
        metrics.record_tick(&tick(t, 4.0));
    }
    let s = metrics.summary(std::iter::empty(), 1);
    assert_eq!(s.first_tick_ms, 750.0);
    assert!((s.steady_ticks_per_sec - 250.0).abs() < 1e-6, "{s:?}");
    assert!((s.ticks_per_sec - 9.0 / 0.782).abs() < 1e-6, "{s:?}");

    // A real run: the first tick's time is the first report's, the rate is over the rest.
    let mut sim = field_sim(SimConfig::default());
    for command in crossing_commands(&sim, 8) {
        sim.queue(command);
    }
    let mut reports = Vec::new();
    while reports.len() < 3 || sim.summary().arrived < 8 {
        reports.push(sim.step());
        assert!(reports.len() < 500, "the crowd never arrived");
    }
    let summary = sim.summary();
    assert_eq!(reports[0].plans, 8, "every agent plans in the first tick");
    assert_eq!(summary.first_tick_ms, reports[0].wall_ms);
    let rest_s: f64 = reports[1..].iter().map(|r| r.wall_ms / 1e3).sum();
    let expected = (reports.len() - 1) as f64 / rest_s;
    assert!(
        (summary.steady_ticks_per_sec - expected).abs() <= 1e-6 * expected,
        "{} vs {expected}",
        summary.steady_ticks_per_sec
    );
    let value = serde_json::to_value(&summary).unwrap();
    assert_eq!(value["first_tick_ms"].as_f64(), Some(summary.first_tick_ms));
    assert!(value["steady_ticks_per_sec"].as_f64().unwrap() > 0.0);
}

#[test]
fn blocking_the_cell_under_an_agent_is_refused_whole() {
    let grid = Grid::from_ascii("......\n......").unwrap();
    let mut sim = Simulation::new(grid, SimConfig::default()).unwrap();
    let at = sim.grid().cell(2, 0).unwrap();
    let free = sim.grid().cell(4, 1).unwrap();
    let id = sim.add_agent(at, None).unwrap();
    let batch = [
        CellChange::SetWalkable {
            cell: free,
            walkable: false,
        },
        CellChange::SetWalkable {
            cell: at,
            walkable: false,
        },
    ];
    match sim.change_map(&batch) {
        Err(Error::CellOccupied { x: 2, y: 0, agent }) => assert_eq!(agent, id),
        other => panic!("expected CellOccupied, got {other:?}"),
    }
    // Nothing changed, not even the free cell of the same batch.
    assert!(sim.grid().is_walkable(at) && sim.grid().is_walkable(free));
    // Through a command: rejected with the reason, the run goes on.
    sim.queue(Command::ChangeMap(batch.to_vec()));
    let report = sim.step();
    assert_eq!(report.rejected.len(), 1, "{:?}", report.rejected);
    assert!(
        report.rejected[0].contains("occupied"),
        "{:?}",
        report.rejected
    );
    assert!(sim.grid().is_walkable(at));
}

#[test]
fn a_simulation_checks_its_settings_against_its_grid() {
    // The rotate model moves only straight ahead: refused on an 8-connected grid (where its
    // agents would never take a diagonal route step), as scenario files are.
    let rotate = SimConfig {
        action_model: throng::sim::ActionModel::Rotate,
        ..SimConfig::default()
    };
    let err = Simulation::new(open_grid(4, 4), rotate).unwrap_err();
    assert!(matches!(err, Error::Invalid(_)), "{err:?}");
    assert!(
        err.to_string().starts_with(
            "action_model: \"rotate\" moves only straight ahead and needs map.neighbourhood = 4"
        ),
        "{err}"
    );
    let four = open_grid(4, 4).with_neighborhood(throng::grid::Neighborhood::Four);
    assert!(Simulation::new(four, rotate).is_ok());
    // Settings a scenario file may not hold are refused the same way.
    for (config, key) in [
        (
            SimConfig {
                max_plans_per_tick: Some(0),
                ..SimConfig::default()
            },
            "max_plans_per_tick: must be at least 1",
        ),
        (
            SimConfig {
                conflicts: ConflictMode::Avoid,
                resolve_stuck: Some(true),
                ..SimConfig::default()
            },
            "resolve_stuck: true cannot apply",
        ),
    ] {
        let err = Simulation::new(open_grid(4, 4), config).unwrap_err();
        assert!(err.to_string().starts_with(key), "{err}");
    }
}
