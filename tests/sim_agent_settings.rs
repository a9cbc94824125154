//! Settings of one agent from code: its priority class in conflicts, its own planner.

use throng::error::Error;
use throng::grid::Grid;
use throng::planner::PlannerKind;
use throng::sim::{AgentState, ConflictMode, SimConfig, Simulation};

/// A crossing: agent `a` comes from the west, agent `b` from the north, both one step from the
/// centre cell, which each needs next. The one of the higher class takes it, in both conflict
/// modes that separate agents, whichever it is; without classes, each mode's own rule decides.
#[test]
fn the_higher_class_takes_the_contended_cell() {
    let grid = Grid::from_ascii("#.#\n...\n#.#").unwrap();
    let centre = grid.cell(1, 1).unwrap();
    for conflicts in [ConflictMode::Pibt, ConflictMode::Avoid] {
        let mut winners = Vec::new();
        for favoured in [None, Some(0), Some(1)] {
            let config = SimConfig {
                conflicts,
                ..SimConfig::default()
            };
            let mut sim = Simulation::new(grid.clone(), config).unwrap();
            let a = sim
                .add_agent(grid.cell(0, 1).unwrap(), grid.cell(2, 1))
                .unwrap();
            let b = sim
                .add_agent(grid.cell(1, 0).unwrap(), grid.cell(1, 2))
                .unwrap();
            if let Some(k) = favoured {
                sim.set_priority([a, b][k], 3).unwrap();
                assert_eq!(sim.agent([a, b][k]).unwrap().priority(), 3);
            }
            sim.step();
            let on_centre: Vec<_> = [a, b]
                .iter()
                .map(|&id| sim.agent(id).unwrap().position() == centre)
                .collect();
            assert_eq!(
                on_centre.iter().filter(|&&x| x).count(),
                1,
                "{conflicts:?}: one agent on the centre"
            );
            let winner = on_centre.iter().position(|&x| x).unwrap();
            if let Some(k) = favoured {
                assert_eq!(winner, k, "{conflicts:?}: the favoured agent goes first");
            }
            winners.push(winner);
            // Both arrive in the end.
            for _ in 0..6 {
                sim.step();
            }
            for id in [a, b] {
                assert_eq!(sim.agent(id).unwrap().state(), AgentState::Arrived);
            }
        }
        // The classes changed who went first in one of the two favoured runs at least.
        assert_ne!(winners[1], winners[2]);
    }
    let mut sim = Simulation::new(grid, SimConfig::default()).unwrap();
    let a = sim.add_agent(3, None).unwrap();
    sim.remove_agent(a).unwrap();
    assert!(matches!(
        sim.set_priority(a, 1),
        Err(Error::UnknownAgent(_))
    ));
}

/// An agent's own planner: set on the way, it plans again with it (the same cost on an open
/// map); back to the simulation's with `None`; a navigation planner builds its graph.
#[test]
fn an_agent_plans_with_its_own_planner_from_code() {
    let grid = Grid::from_ascii(&vec![".".repeat(30); 12].join("\n")).unwrap();
    let mut sim = Simulation::new(grid.clone(), SimConfig::default()).unwrap();
    let (start, goal) = (grid.cell(0, 0).unwrap(), grid.cell(29, 11).unwrap());
    let id = sim.add_agent(start, Some(goal)).unwrap();
    sim.step();
    assert_eq!(sim.last_events().plans().len(), 1);
    for planner in [Some(PlannerKind::Nav), Some(PlannerKind::DStar), None] {
        sim.set_planner(id, planner).unwrap();
        assert_eq!(sim.agent(id).unwrap().planner(), planner);
        sim.step();
        let plans = sim.last_events().plans();
        assert_eq!(plans.len(), 1, "{planner:?}: planned again");
        assert!(plans[0].found && plans[0].goal == goal);
    }
    // The same planner again: nothing to do.
    sim.set_planner(id, None).unwrap();
    sim.step();
    assert!(sim.last_events().plans().is_empty());
    while sim.agent(id).unwrap().state() != AgentState::Arrived {
        assert!(sim.tick() < 100);
        sim.step();
    }
    // An agent without a goal plans with its planner when given one.
    let idle = sim.add_agent(start, None).unwrap();
    sim.set_planner(idle, Some(PlannerKind::AStar)).unwrap();
    sim.step();
    assert!(sim.last_events().plans().is_empty());
    sim.set_goal(idle, goal).unwrap();
    sim.step();
    assert_eq!(sim.last_events().plans().len(), 1);
    sim.remove_agent(idle).unwrap();
    assert!(matches!(
        sim.set_planner(idle, None),
        Err(Error::UnknownAgent(_))
    ));
}
