//! A tick's events ([`throng::sim::TickEvents`]) say everything the tick changed: the moves
//! replay the crowd's positions exactly, the arrivals are the goals reached the metrics count,
//! the plans are the report's, and the calls made between ticks come with the next tick.

use std::collections::HashMap;

use throng::grid::{CellChange, Direction};
use throng::grid::{CellId, Grid, NO_CELL};
use throng::scenario::Scenario;
use throng::sim::{
    ActionOutcome, AgentAction, AgentId, AgentState, ArrivalKind, ConflictMode, Event, EventKind,
    SimConfig, Simulation,
};

/// Plays `ticks` ticks of a shipped scenario (with its scheduled map changes), checking after
/// each that the events account for the tick; returns the goals reached the events counted.
fn replay_shipped(file: &str, agents: usize, ticks: u64) -> (Simulation, u64) {
    let path = format!("{}/sims/{file}", env!("CARGO_MANIFEST_DIR"));
    let mut scenario = Scenario::load(&path).unwrap();
    scenario.agents = agents;
    let mut sim = scenario.build().unwrap();
    let mut schedule = scenario.schedule(sim.grid()).unwrap();
    let mut positions = sim.slot_positions().to_vec();
    let walkable_now = |sim: &Simulation| -> Vec<bool> {
        (0..sim.grid().len() as CellId)
            .map(|c| sim.grid().is_walkable(c))
            .collect()
    };
    let mut walkable = walkable_now(&sim);
    let mut goals_reached = 0u64;
    let mut map_changes = 0;
    // (plans, plans for a new goal, moves, swaps) counted from the events.
    let mut counted = (0u64, 0u64, 0u64, 0u64);
    for _ in 0..ticks {
        schedule.queue_due(&mut sim);
        let report = sim.step();
        let events = sim.last_events();
        assert_eq!(events.tick(), report.tick);
        // Moves replay the positions: each from where the agent stood, at most one a tick.
        let mut moved = HashMap::new();
        for m in events.moves() {
            let slot = m.agent.index() as usize;
            assert_eq!(positions[slot], m.from, "tick {}: {m:?}", report.tick);
            assert!(moved.insert(m.agent, ()).is_none(), "one move an agent");
            assert!(sim.grid().is_walkable(m.to));
            positions[slot] = m.to;
        }
        assert_eq!(positions, sim.slot_positions(), "tick {}", report.tick);
        // Map edits replay the map.
        for change in events.cell_changes() {
            if let CellChange::SetWalkable { cell, walkable: w } = *change {
                walkable[cell as usize] = w;
                map_changes += 1;
            }
        }
        if !events.cell_changes().is_empty() {
            assert_eq!(walkable, walkable_now(&sim));
        }
        // Arrivals: agents now on the goal they arrived at (or given a new one, lifelong).
        for a in events.arrivals() {
            let agent = sim.agent(a.agent).unwrap();
            assert_eq!(agent.position(), a.cell);
            let regoaled = events.goal_changes().iter().any(|g| g.agent == a.agent);
            assert!(regoaled || agent.goal() == Some(a.cell));
            assert!(regoaled || agent.state() == AgentState::Arrived);
        }
        // The flat list holds the typed lists, each event naming what they name.
        assert_eq!(events.len(), events.all().count());
        let of = |kind: EventKind| events.all().filter(|e| e.kind() == kind).count();
        assert_eq!(of(EventKind::Moved), events.moves().len());
        assert_eq!(of(EventKind::Arrived), events.arrivals().len());
        assert_eq!(of(EventKind::CellChanged), events.cell_changes().len());
        assert_eq!(
            of(EventKind::PathFound) + of(EventKind::NoPath) + of(EventKind::Blocked),
            events.plans().len()
        );
        assert_eq!(
            of(EventKind::PathFound),
            events.plans().iter().filter(|p| p.found).count()
        );
        for e in events.all() {
            match e {
                Event::Moved(m) => assert_eq!(e.cell(), Some(m.to)),
                Event::Planned(p) if p.found => {
                    assert_eq!(e.cell(), Some(p.goal));
                    let agent = sim.agent(p.agent).unwrap();
                    let regoaled = events.goal_changes().iter().any(|g| g.agent == p.agent);
                    assert!(regoaled || agent.goal() == Some(p.goal), "{p:?}");
                }
                Event::Planned(p) if p.reason == throng::sim::PlanReason::Blocked => {
                    assert_eq!(e.cell(), Some(p.start));
                }
                _ => {}
            }
            assert!(e.agent().is_some() || e.kind() == EventKind::CellChanged);
        }
        assert_eq!(events.goals_reached(), report.goals_reached);
        goals_reached += u64::from(events.goals_reached());
        // Plans are the report's.
        assert_eq!(events.plans().len() as u32, report.plans);
        let failed = events.plans().iter().filter(|p| !p.found).count();
        assert_eq!(failed as u32, report.plans_failed);
        assert_eq!(events.moves().len() as u32, report.moved);
        counted.0 += events.plans().len() as u64;
        counted.1 += events
            .plans()
            .iter()
            .filter(|p| p.reason == throng::sim::PlanReason::NewGoal)
            .count() as u64;
        counted.2 += events.moves().len() as u64;
        counted.3 += u64::from(events.swaps());
    }
    // The summary's counts are the events' (no count derived from another).
    let summary = sim.summary();
    assert_eq!(
        (
            summary.plans,
            summary.plans_new_goal,
            summary.moves,
            summary.swaps
        ),
        counted
    );
    assert_eq!(
        summary.plans,
        summary.plans_new_goal
            + summary.replans_blocked
            + summary.replans_drifted
            + summary.replans_map_changed
    );
    if file == "doors.toml" {
        assert!(map_changes > 0, "the doors moved");
    }
    (sim, goals_reached)
}

#[test]
fn the_events_of_a_shipped_one_shot_run_replay_it() {
    let (sim, reached) = replay_shipped("doors.toml", 120, 200);
    let summary = sim.summary();
    assert_eq!(reached, summary.goals_reached);
    assert!(summary.goals_reached > 0 && summary.moves > 0);
}

#[test]
fn the_events_of_a_shipped_lifelong_run_replay_it() {
    let (sim, reached) = replay_shipped("lifelong.toml", 300, 150);
    let summary = sim.summary();
    assert_eq!(reached, summary.goals_reached);
    assert!(summary.goals_reached > 20, "{}", summary.goals_reached);
}

/// Calls made between ticks (agents added and removed, goals given, map edits) are in the
/// next tick's events, with that tick's own; a tick replaces the events of the last.
#[test]
fn calls_between_ticks_come_with_the_next_tick() {
    let grid = Grid::from_ascii("........\n........\n........").unwrap();
    let mut sim = Simulation::new(grid, SimConfig::default()).unwrap();
    assert!(sim.last_events().moves().is_empty());
    let a = sim.add_agent(0, Some(7)).unwrap();
    let b = sim.add_agent(16, None).unwrap();
    sim.step();
    let events = sim.last_events();
    assert_eq!(events.added(), &[a, b]);
    assert_eq!(events.plans().len(), 1);
    assert_eq!(events.plans()[0].agent, a);
    assert_eq!(events.moves().len(), 1);
    sim.set_goal(b, 18).unwrap();
    sim.remove_agent(a).unwrap();
    let wall = CellChange::SetWalkable {
        cell: 12,
        walkable: false,
    };
    sim.change_map(&[wall]).unwrap();
    // Not yet: the last tick's events stay as they were.
    assert_eq!(sim.last_events().added(), &[a, b]);
    sim.step();
    let events = sim.last_events();
    assert!(events.added().is_empty());
    assert_eq!(events.removed(), &[a]);
    assert_eq!(events.goal_changes().len(), 1);
    assert_eq!(
        (
            events.goal_changes()[0].agent,
            events.goal_changes()[0].goal
        ),
        (b, Some(18))
    );
    assert_eq!(events.cell_changes(), &[wall]);
    assert_eq!(events.moves().len(), 1);
    sim.step();
    let events = sim.last_events();
    assert_eq!(events.arrivals().len(), 1);
    let arrival = events.arrivals()[0];
    assert_eq!((arrival.agent, arrival.cell), (b, 18));
    assert_eq!(
        (arrival.kind, arrival.counted),
        (ArrivalKind::Stepped, true)
    );
    assert_eq!(sim.agent(b).unwrap().arrived_at(), Some(events.tick() + 1));
}

/// Actions' outcomes are in the events; a controlled agent given the cell it stands on
/// arrives there standing, and one that steps back onto a goal it had left arrives again
/// without counting it.
#[test]
fn controlled_agents_arrivals_and_outcomes() {
    let grid = Grid::from_ascii("....\n....").unwrap();
    let config = SimConfig {
        conflicts: ConflictMode::Avoid,
        ..SimConfig::default()
    };
    let mut sim = Simulation::new(grid, config).unwrap();
    let a = sim.add_controlled_agent(0, Some(1)).unwrap();
    let b = sim.add_controlled_agent(3, Some(3)).unwrap();
    let step = |sim: &mut Simulation, actions: &[(AgentId, AgentAction)]| {
        let (report, outcomes) = sim.step_with_actions(actions).unwrap();
        let events = sim.last_events();
        let listed: Vec<ActionOutcome> = events.outcomes().iter().map(|&(_, o)| o).collect();
        assert_eq!(listed, outcomes);
        assert_eq!(events.goals_reached(), report.goals_reached);
        events.clone()
    };
    let events = step(&mut sim, &[(a, AgentAction::Move(Direction::East))]);
    assert_eq!(events.outcomes(), &[(a, ActionOutcome::Moved)]);
    let mut kinds: Vec<_> = events
        .arrivals()
        .iter()
        .map(|x| (x.agent, x.kind, x.counted))
        .collect();
    kinds.sort_by_key(|x| x.0.index());
    assert_eq!(
        kinds,
        [
            (a, ArrivalKind::Stepped, true),
            (b, ArrivalKind::Standing, true)
        ]
    );
    let events = step(&mut sim, &[(a, AgentAction::Move(Direction::West))]);
    assert!(events.arrivals().is_empty());
    assert_eq!(events.moves()[0].agent, a);
    let events = step(&mut sim, &[(a, AgentAction::Move(Direction::East))]);
    let arrival = events.arrivals()[0];
    assert_eq!(
        (arrival.agent, arrival.counted),
        (a, false),
        "back, not new"
    );
    assert_eq!(sim.agent(a).unwrap().goals_reached(), 1);
    let events = step(&mut sim, &[(a, AgentAction::Move(Direction::North))]);
    assert_eq!(events.outcomes(), &[(a, ActionOutcome::Illegal)]);
    assert!(events.moves().is_empty());
    assert_eq!(sim.slot_positions()[a.index() as usize], 1);
    assert_ne!(sim.slot_positions()[b.index() as usize], NO_CELL);
    let _: CellId = 0;
}

/// A cleared goal: the agent drops its route and stands idle (no plan, no new lifelong goal)
/// until given a goal again, and the events say so with the cells of agents added and removed.
#[test]
fn a_cleared_goal_leaves_the_agent_idle_until_given_another() {
    for lifelong in [false, true] {
        let grid = Grid::from_ascii("..........\n..........").unwrap();
        let config = SimConfig {
            lifelong,
            ..SimConfig::default()
        };
        let mut sim = Simulation::new(grid, config).unwrap();
        let a = sim.add_agent(0, Some(9)).unwrap();
        let b = sim.add_agent(10, Some(19)).unwrap();
        sim.step();
        let added: Vec<_> = sim
            .last_events()
            .all()
            .filter(|e| e.kind() == EventKind::Added)
            .map(|e| (e.agent(), e.cell()))
            .collect();
        assert_eq!(added, [(Some(a), Some(0)), (Some(b), Some(10))]);
        assert!(sim.agent(a).unwrap().remaining_path().len() > 0);
        sim.clear_goal(a).unwrap();
        sim.clear_goal(a).unwrap(); // already none: nothing more
        for _ in 0..12 {
            sim.step();
        }
        let agent = sim.agent(a).unwrap();
        assert_eq!(
            (agent.goal(), agent.state(), agent.position()),
            (None, AgentState::Idle, 1)
        );
        assert_eq!(agent.remaining_path().len(), 0);
        assert!(sim.agent(b).unwrap().goals_reached() >= 1, "b went on");
        let reached = sim.agent(a).unwrap().goals_reached();
        sim.set_goal(a, 5).unwrap();
        for _ in 0..6 {
            sim.step();
        }
        assert_eq!(sim.agent(a).unwrap().goals_reached(), reached + 1);
        assert!(lifelong || sim.agent(a).unwrap().position() == 5);
        let at = sim.agent(b).unwrap().position();
        sim.remove_agent(b).unwrap();
        sim.step();
        let removed: Vec<_> = sim
            .last_events()
            .all()
            .filter(|e| e.kind() == EventKind::Removed)
            .map(|e| (e.agent(), e.cell()))
            .collect();
        assert_eq!(removed, [(Some(b), Some(at))]);
    }
    let grid = Grid::from_ascii("...").unwrap();
    let mut sim = Simulation::new(grid, SimConfig::default()).unwrap();
    let a = sim.add_agent(0, Some(2)).unwrap();
    sim.clear_goal(a).unwrap();
    sim.step();
    let changes = sim.last_events().goal_changes();
    assert_eq!((changes.len(), changes[0].goal), (1, None));
    assert!(sim.last_events().plans().is_empty());
    sim.remove_agent(a).unwrap();
    assert!(sim.clear_goal(a).is_err());
}

/// A cost edit on an agent's route ahead makes it plan again (reason: map changed) round the
/// dear cell; an edit off its route leaves it be; the edit is an event of the next tick.
#[test]
fn a_cost_edit_on_the_route_ahead_sends_the_agent_round() {
    let grid = Grid::from_ascii("........\n........").unwrap();
    let mut sim = Simulation::new(grid.clone(), SimConfig::default()).unwrap();
    let id = sim.add_agent(8, Some(15)).unwrap();
    sim.step();
    let off_route = CellChange::SetCost { cell: 3, cost: 9.0 };
    sim.change_map(&[off_route]).unwrap();
    sim.step();
    assert!(
        sim.last_events().plans().is_empty(),
        "an edit off the route"
    );
    assert_eq!(sim.last_events().cell_changes(), &[off_route]);
    let mud = CellChange::SetCost {
        cell: 13,
        cost: 50.0,
    };
    sim.change_map(&[mud]).unwrap();
    sim.step();
    let plans = sim.last_events().plans();
    assert_eq!(plans.len(), 1);
    assert_eq!(plans[0].reason, throng::sim::PlanReason::MapChanged);
    assert!(!sim.agent(id).unwrap().remaining_path().any(|c| c == 13));
    let kinds: Vec<_> = sim
        .last_events()
        .all()
        .map(|e| (e.kind(), e.detail()))
        .collect();
    assert!(kinds.contains(&(EventKind::CellChanged, 2)));
    while sim.agent(id).unwrap().state() != AgentState::Arrived {
        assert!(sim.tick() < 30);
        sim.step();
    }
}
