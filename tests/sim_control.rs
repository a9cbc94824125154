//! Agents driven from outside (`Simulation::set_controlled`, `step_with_actions`): random
//! actions in dense crowds under every conflict mode, checked after every tick by an
//! independent replay of the rules (no two agents in a cell, no swaps, no diagonal crossings,
//! illegal moves refused, each outcome consistent with where the agent ends), plus the cases
//! one by one and determinism across thread counts.

mod common;

use std::collections::HashMap;

use common::{TestRng, distinct_cells};
use throng::grid::procgen::MapGenerator;
use throng::grid::{CellChange, Direction};
use throng::grid::{CellId, Grid, Neighborhood};
use throng::sim::{
    ActionModel, ActionOutcome, AgentAction, AgentId, AgentState, ConflictMode, SimConfig,
    Simulation, TickReport,
};

fn config(conflicts: ConflictMode) -> SimConfig {
    SimConfig {
        conflicts,
        ..SimConfig::default()
    }
}

/// A dense crowd: `n` agents with goals, every other one controlled.
fn crowd(grid: Grid, config: SimConfig, n: usize, seed: u64) -> (Simulation, Vec<AgentId>) {
    let starts = distinct_cells(&grid, n, seed);
    let goals = distinct_cells(&grid, n, seed ^ 0x5A5A);
    let mut sim = Simulation::new(grid, config).unwrap();
    let ids = starts
        .iter()
        .zip(&goals)
        .enumerate()
        .map(|(i, (&s, &g))| {
            if i % 2 == 0 {
                sim.add_controlled_agent(s, Some(g))
            } else {
                sim.add_agent(s, Some(g))
            }
            .expect("free walkable start")
        })
        .collect();
    (sim, ids)
}

/// Random actions: most controlled agents get a move in any of the eight directions (legal or
/// not) or a wait; a few uncontrolled agents get one too (overriding their routes).
fn random_actions(sim: &Simulation, rng: &mut TestRng) -> Vec<(AgentId, AgentAction)> {
    let mut actions = Vec::new();
    for (id, agent) in sim.agents().iter() {
        let odds = if agent.is_controlled() { 90 } else { 10 };
        if rng.below(100) >= odds {
            continue;
        }
        let k = rng.below(9) as usize;
        let action = if k == 8 {
            AgentAction::Wait
        } else {
            AgentAction::Move(Direction::ALL[k])
        };
        actions.push((id, action));
    }
    actions
}

/// The cell `dir` leads to from `cell` when the move is legal, by the grid's rules read
/// independently: inside, walkable, in the neighbourhood, no corner cut.
fn legal(grid: &Grid, cell: CellId, dir: Direction) -> Option<CellId> {
    let (x, y) = grid.coords(cell);
    let (dx, dy) = dir.delta();
    if dir.is_diagonal() && grid.neighborhood() == Neighborhood::Four {
        return None;
    }
    let at = |x: i64, y: i64| {
        (x >= 0 && y >= 0)
            .then(|| grid.cell(x as u32, y as u32))
            .flatten()
            .filter(|&c| grid.is_walkable(c))
    };
    let (x, y) = (i64::from(x), i64::from(y));
    let to = at(x + i64::from(dx), y + i64::from(dy))?;
    if dir.is_diagonal()
        && (at(x + i64::from(dx), y).is_none() || at(x, y + i64::from(dy)).is_none())
    {
        return None;
    }
    Some(to)
}

/// Plays one tick with `actions` and checks every rule against the state before it.
fn checked_step(
    sim: &mut Simulation,
    actions: &[(AgentId, AgentAction)],
) -> (TickReport, Vec<ActionOutcome>) {
    let before: HashMap<AgentId, (CellId, bool)> = sim
        .agents()
        .iter()
        .map(|(id, a)| (id, (a.position(), a.is_controlled())))
        .collect();
    let (report, outcomes) = sim.step_with_actions(actions).expect("valid actions");
    let grid = sim.grid();
    let tick = report.tick;
    let separates = sim.config().conflicts.separates();
    assert_eq!(outcomes.len(), actions.len());
    assert!(
        sim.agents().positions_agree(),
        "tick {tick}: positions mirror"
    );
    let mut told: HashMap<AgentId, AgentAction> = HashMap::new();
    for (&(id, action), &outcome) in actions.iter().zip(&outcomes) {
        told.insert(id, action);
        let (was, _) = before[&id];
        let now = sim.agent(id).expect("live").position();
        assert_eq!(sim.slot_positions()[id.index() as usize], now);
        match (action, outcome) {
            (AgentAction::Wait, ActionOutcome::Waited) => {
                assert_eq!(now, was, "tick {tick}: {id:?} waited")
            }
            (AgentAction::Wait, o) => panic!("tick {tick}: {id:?} asked to wait got {o:?}"),
            (AgentAction::Move(dir), o) => match (legal(grid, was, dir), o) {
                (None, ActionOutcome::Illegal) => {
                    assert_eq!(now, was, "tick {tick}: illegal move made")
                }
                (None, o) => panic!(
                    "tick {tick}: {id:?} illegal {dir:?} from {:?} got {o:?}",
                    grid.coords(was)
                ),
                (Some(to), ActionOutcome::Moved) => {
                    assert_eq!(now, to, "tick {tick}: {id:?} moved elsewhere")
                }
                (Some(_), ActionOutcome::Blocked) => {
                    assert!(separates, "tick {tick}: blocked with conflicts off");
                    assert_eq!(now, was, "tick {tick}: {id:?} blocked but moved");
                }
                (Some(_), o) => panic!("tick {tick}: {id:?} legal {dir:?} got {o:?}"),
            },
        }
    }
    let mut from = Vec::new();
    let mut to = Vec::new();
    let mut moved = 0;
    for (id, agent) in sim.agents().iter() {
        let now = agent.position();
        assert!(grid.is_walkable(now), "tick {tick}: {id:?} in a wall");
        let Some(&(was, controlled)) = before.get(&id) else {
            continue;
        };
        if was != now {
            moved += 1;
            grid.path_cost(&[was, now])
                .unwrap_or_else(|e| panic!("tick {tick}: {id:?} made an illegal move: {e}"));
        }
        if controlled {
            assert!(agent.is_controlled());
            if !told.contains_key(&id) {
                assert_eq!(
                    was, now,
                    "tick {tick}: controlled {id:?} moved without an action"
                );
            }
            assert!(
                !matches!(agent.state(), AgentState::Planning | AgentState::NoPath),
                "tick {tick}: controlled {id:?} is {:?}",
                agent.state()
            );
            assert!(
                agent.remaining_path().len() == 0,
                "controlled agents follow no route"
            );
            assert_eq!(agent.dstar_bytes(), 0);
        }
        if agent.state() == AgentState::Arrived {
            assert_eq!(
                Some(now),
                agent.goal(),
                "tick {tick}: {id:?} arrived off goal"
            );
        }
        from.push(was);
        to.push(now);
    }
    assert_eq!(report.moved, moved, "tick {tick}: report.moved");
    if separates {
        // The whole step by the independent validator: one agent per cell, no swaps, no
        // diagonal crossings, every move legal.
        throng::mapf::check_step(grid, &from, &to).unwrap_or_else(|e| panic!("tick {tick}: {e}"));
    }
    (report, outcomes)
}

fn dense_run(conflicts: ConflictMode, neighbourhood: Neighborhood, lifelong: bool) {
    let grid = MapGenerator::Random {
        width: 32,
        height: 32,
        density: 0.15,
    }
    .generate(3)
    .unwrap()
    .with_neighborhood(neighbourhood);
    let cfg = SimConfig {
        lifelong,
        ..config(conflicts)
    };
    let (mut sim, _) = crowd(grid, cfg, 400, 11);
    let mut rng = TestRng::new(conflicts as u64 * 7 + lifelong as u64);
    let mut counts = HashMap::new();
    for _ in 0..120 {
        let actions = random_actions(&sim, &mut rng);
        let (_, outcomes) = checked_step(&mut sim, &actions);
        for o in outcomes {
            *counts.entry(o).or_insert(0u32) += 1;
        }
    }
    // Every kind of outcome happened (blocked only where agents keep apart).
    for o in [
        ActionOutcome::Moved,
        ActionOutcome::Waited,
        ActionOutcome::Illegal,
    ] {
        assert!(
            counts.get(&o).copied().unwrap_or(0) > 50,
            "{conflicts}: {o:?} {counts:?}"
        );
    }
    let blocked = counts.get(&ActionOutcome::Blocked).copied().unwrap_or(0);
    if conflicts.separates() {
        assert!(blocked > 50, "{conflicts}: blocked {counts:?}");
    } else {
        assert_eq!(blocked, 0);
    }
}

#[test]
fn random_actions_in_a_dense_crowd_keep_the_rules_in_every_mode() {
    for conflicts in ConflictMode::ALL {
        for neighbourhood in [Neighborhood::Eight, Neighborhood::Four] {
            dense_run(conflicts, neighbourhood, false);
        }
        dense_run(conflicts, Neighborhood::Eight, true);
    }
}

/// Hashes of each tick of a crowd driven by seeded random actions, on a pool of `threads`.
fn driven_run(conflicts: ConflictMode, threads: usize) -> Vec<u64> {
    let grid = MapGenerator::Random {
        width: 80,
        height: 80,
        density: 0.1,
    }
    .generate(5)
    .unwrap();
    // Over 2,048 agents: PIBT ranks candidates in parallel.
    let (mut sim, _) = crowd(grid, config(conflicts), 2600, 2);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut rng = TestRng::new(99);
    pool.install(|| {
        (0..30)
            .map(|_| {
                let actions = random_actions(&sim, &mut rng);
                let (report, outcomes) = sim.step_with_actions(&actions).unwrap();
                let codes: u64 = outcomes
                    .iter()
                    .fold(0, |h, o| h.wrapping_mul(31).wrapping_add(o.code() as u64));
                report.state_hash ^ codes.rotate_left(17)
            })
            .collect()
    })
}

#[test]
fn the_same_actions_give_the_same_run_on_one_and_two_threads() {
    for conflicts in ConflictMode::ALL {
        assert_eq!(
            driven_run(conflicts, 1),
            driven_run(conflicts, 2),
            "{conflicts}"
        );
    }
}

fn open(text: &str) -> Grid {
    Grid::from_ascii(text).unwrap()
}

fn at(sim: &Simulation, x: u32, y: u32) -> CellId {
    sim.grid().cell(x, y).unwrap()
}

fn xy(sim: &Simulation, id: AgentId) -> (u32, u32) {
    sim.grid().coords(sim.agent(id).unwrap().position())
}

#[test]
fn a_controlled_agent_walks_a_route_to_its_goal_and_is_never_planned_for() {
    use Direction::*;
    for conflicts in ConflictMode::ALL {
        let mut sim = Simulation::new(open("....\n.##.\n...."), config(conflicts)).unwrap();
        let (s, g) = (at(&sim, 0, 0), at(&sim, 3, 2));
        let id = sim.add_controlled_agent(s, Some(g)).unwrap();
        assert_eq!(sim.agent(id).unwrap().state(), AgentState::Moving);
        for (i, dir) in [East, East, East, South, South].into_iter().enumerate() {
            let (report, outcomes) = checked_step(&mut sim, &[(id, AgentAction::Move(dir))]);
            assert_eq!(outcomes, [ActionOutcome::Moved], "{conflicts} step {i}");
            assert_eq!(report.plans, 0, "never planned for");
            let last = i == 4;
            assert_eq!(report.goals_reached, u32::from(last));
            assert_eq!(report.at_goal, u32::from(last));
        }
        let agent = sim.agent(id).unwrap();
        assert_eq!((agent.state(), agent.position()), (AgentState::Arrived, g));
        assert_eq!((agent.goals_reached(), agent.arrived_at()), (1, Some(5)));
        assert_eq!(sim.summary().sum_of_costs, 5);
        // Off its goal and back: not a second goal reached.
        checked_step(&mut sim, &[(id, AgentAction::Move(North))]);
        assert_eq!(sim.agent(id).unwrap().state(), AgentState::Moving);
        sim.step();
        assert_eq!(sim.agent(id).unwrap().state(), AgentState::Waiting);
        let (report, _) = checked_step(&mut sim, &[(id, AgentAction::Move(South))]);
        assert_eq!((report.goals_reached, report.at_goal), (0, 1));
        assert_eq!(sim.agent(id).unwrap().goals_reached(), 1);
    }
}

#[test]
fn illegal_moves_are_refused_and_leave_the_agent_where_it_was() {
    use Direction::*;
    for conflicts in ConflictMode::ALL {
        // (1, 1) has a wall east, the grid's edge is near, and a diagonal past the wall's
        // corner cuts it.
        let mut sim = Simulation::new(open("...\n.#.\n..."), config(conflicts)).unwrap();
        let id = sim.add_controlled_agent(at(&sim, 0, 0), None).unwrap();
        // Outside the grid, then (south-east) into the wall.
        for dir in [North, West, NorthWest, SouthWest, NorthEast, SouthEast] {
            let (_, outcomes) = checked_step(&mut sim, &[(id, AgentAction::Move(dir))]);
            assert_eq!(outcomes, [ActionOutcome::Illegal], "{conflicts} {dir:?}");
            assert_eq!(xy(&sim, id), (0, 0));
        }
        let (_, outcomes) = checked_step(&mut sim, &[(id, AgentAction::Move(East))]);
        assert_eq!(outcomes, [ActionOutcome::Moved]);
        // From (1, 0), south-east would cut the wall's corner.
        let (_, outcomes) = checked_step(&mut sim, &[(id, AgentAction::Move(SouthEast))]);
        assert_eq!(outcomes, [ActionOutcome::Illegal]);
        assert_eq!(xy(&sim, id), (1, 0));
        let (_, outcomes) = checked_step(&mut sim, &[(id, AgentAction::Move(South))]);
        assert_eq!(outcomes, [ActionOutcome::Illegal], "into the wall");
        // Diagonals are not moves of a 4-connected grid.
        let mut sim = Simulation::new(
            open("...\n...").with_neighborhood(Neighborhood::Four),
            config(conflicts),
        )
        .unwrap();
        let id = sim.add_controlled_agent(at(&sim, 0, 0), None).unwrap();
        let (_, outcomes) = checked_step(&mut sim, &[(id, AgentAction::Move(SouthEast))]);
        assert_eq!(outcomes, [ActionOutcome::Illegal]);
        let (_, outcomes) = checked_step(&mut sim, &[(id, AgentAction::Move(South))]);
        assert_eq!(outcomes, [ActionOutcome::Moved]);
    }
}

#[test]
fn two_agents_into_one_cell_swaps_and_crossings_are_refused() {
    use Direction::*;
    for conflicts in [ConflictMode::Avoid, ConflictMode::Pibt] {
        // One cell, two takers: one moves, one is blocked.
        let mut sim = Simulation::new(open("..."), config(conflicts)).unwrap();
        let a = sim.add_controlled_agent(at(&sim, 0, 0), None).unwrap();
        let b = sim.add_controlled_agent(at(&sim, 2, 0), None).unwrap();
        let (_, outcomes) = checked_step(
            &mut sim,
            &[(a, AgentAction::Move(East)), (b, AgentAction::Move(West))],
        );
        let mut sorted = outcomes.clone();
        sorted.sort_by_key(|o| o.code());
        assert_eq!(
            sorted,
            [ActionOutcome::Moved, ActionOutcome::Blocked],
            "{conflicts}"
        );
        // A swap: both stay.
        let mut sim = Simulation::new(open(".."), config(conflicts)).unwrap();
        let a = sim.add_controlled_agent(at(&sim, 0, 0), None).unwrap();
        let b = sim.add_controlled_agent(at(&sim, 1, 0), None).unwrap();
        let (_, outcomes) = checked_step(
            &mut sim,
            &[(a, AgentAction::Move(East)), (b, AgentAction::Move(West))],
        );
        assert_eq!(outcomes, [ActionOutcome::Blocked; 2], "{conflicts} swap");
        // A rotation of four in a 2 x 2 block is a swap too in `avoid` (a cycle waits); PIBT
        // lets a chain follow its head but no cycle closes without a free cell either.
        // Crossing diagonals: one goes, the other is blocked.
        let mut sim = Simulation::new(open("..\n.."), config(conflicts)).unwrap();
        let a = sim.add_controlled_agent(at(&sim, 0, 0), None).unwrap();
        let b = sim.add_controlled_agent(at(&sim, 1, 0), None).unwrap();
        let (_, outcomes) = checked_step(
            &mut sim,
            &[
                (a, AgentAction::Move(SouthEast)),
                (b, AgentAction::Move(SouthWest)),
            ],
        );
        let mut sorted = outcomes.clone();
        sorted.sort_by_key(|o| o.code());
        assert_eq!(
            sorted,
            [ActionOutcome::Moved, ActionOutcome::Blocked],
            "{conflicts} cross"
        );
        // Into the cell of an agent that stays (a controlled one given nothing): blocked.
        let mut sim = Simulation::new(open("..."), config(conflicts)).unwrap();
        let a = sim.add_controlled_agent(at(&sim, 0, 0), None).unwrap();
        sim.add_controlled_agent(at(&sim, 1, 0), None).unwrap();
        let (_, outcomes) = checked_step(&mut sim, &[(a, AgentAction::Move(East))]);
        assert_eq!(outcomes, [ActionOutcome::Blocked], "{conflicts}");
        // Following an agent that leaves: both move (a chain).
        let mut sim = Simulation::new(open("..."), config(conflicts)).unwrap();
        let a = sim.add_controlled_agent(at(&sim, 0, 0), None).unwrap();
        let b = sim.add_controlled_agent(at(&sim, 1, 0), None).unwrap();
        let (_, outcomes) = checked_step(
            &mut sim,
            &[(a, AgentAction::Move(East)), (b, AgentAction::Move(East))],
        );
        assert_eq!(outcomes, [ActionOutcome::Moved; 2], "{conflicts} chain");
    }
    // Conflicts off: agents pass through each other by design.
    let mut sim = Simulation::new(open(".."), config(ConflictMode::Off)).unwrap();
    let a = sim.add_controlled_agent(at(&sim, 0, 0), None).unwrap();
    let b = sim.add_controlled_agent(at(&sim, 1, 0), None).unwrap();
    let (_, outcomes) = checked_step(
        &mut sim,
        &[(a, AgentAction::Move(East)), (b, AgentAction::Move(West))],
    );
    assert_eq!(outcomes, [ActionOutcome::Moved; 2]);
    assert_eq!((xy(&sim, a), xy(&sim, b)), ((1, 0), (0, 0)));
}

#[test]
fn pibt_never_pushes_a_controlled_agent() {
    // A corridor with a pocket: a planned agent heads west through a controlled one that is
    // given nothing. PIBT would push an idle agent into the pocket; a controlled one stays.
    let mut sim = Simulation::new(open("......\n##.###"), config(ConflictMode::Pibt)).unwrap();
    let c = sim.add_controlled_agent(at(&sim, 2, 0), None).unwrap();
    let p = sim.add_agent(at(&sim, 5, 0), Some(at(&sim, 0, 0))).unwrap();
    for _ in 0..10 {
        checked_step(&mut sim, &[]);
        assert_eq!(xy(&sim, c), (2, 0), "never pushed");
    }
    assert_eq!(xy(&sim, p), (3, 0), "the planned agent waits behind it");
    assert_eq!(sim.agent(p).unwrap().state(), AgentState::Waiting);
    // Told to go west, it leads the way (its cell first, then staying: never elsewhere).
    let (_, outcomes) = checked_step(&mut sim, &[(c, AgentAction::Move(Direction::West))]);
    assert_eq!(outcomes, [ActionOutcome::Moved]);
    assert_eq!((xy(&sim, c), xy(&sim, p)), ((1, 0), (2, 0)), "followed");
    // Back into the pocket (blocked while the planned agent stands above it), then out of the
    // way: the planned agent passes.
    let (_, outcomes) = checked_step(&mut sim, &[(c, AgentAction::Move(Direction::SouthEast))]);
    assert_eq!(
        outcomes,
        [ActionOutcome::Illegal],
        "cuts the corner at (1, 1)"
    );
    let (_, outcomes) = checked_step(&mut sim, &[(c, AgentAction::Move(Direction::East))]);
    assert_eq!(
        outcomes,
        [ActionOutcome::Blocked],
        "the planned agent holds (2, 0)"
    );
    assert_eq!(xy(&sim, c), (1, 0));
    // Released without a goal, PIBT pushes it aside like any idle agent.
    sim.set_controlled(c, false).unwrap();
    assert_eq!(sim.agent(c).unwrap().state(), AgentState::Idle);
    for _ in 0..10 {
        checked_step(&mut sim, &[]);
    }
    assert_eq!(
        sim.agent(p).unwrap().state(),
        AgentState::Arrived,
        "pushed it aside"
    );
}

#[test]
fn an_action_overrides_a_route_for_one_tick_then_the_agent_rejoins_it() {
    for conflicts in ConflictMode::ALL {
        let mut sim = Simulation::new(
            open(&vec!["..........".to_string(); 5].join("\n")),
            config(conflicts),
        )
        .unwrap();
        let (s, g) = (at(&sim, 0, 2), at(&sim, 9, 2));
        let id = sim.add_agent(s, Some(g)).unwrap();
        checked_step(&mut sim, &[]);
        assert_eq!(xy(&sim, id), (1, 2));
        // Sent the other way twice, then left alone: it comes back and arrives.
        for _ in 0..2 {
            let (_, outcomes) =
                checked_step(&mut sim, &[(id, AgentAction::Move(Direction::North))]);
            assert_eq!(outcomes, [ActionOutcome::Moved]);
        }
        assert_eq!(xy(&sim, id), (1, 0));
        assert!(!sim.agent(id).unwrap().is_controlled());
        // A wait holds it one tick.
        let (report, outcomes) = checked_step(&mut sim, &[(id, AgentAction::Wait)]);
        assert_eq!(outcomes, [ActionOutcome::Waited]);
        assert_eq!((report.moved, xy(&sim, id)), (0, (1, 0)));
        let mut ticks = 0;
        while sim.agent(id).unwrap().state() != AgentState::Arrived {
            checked_step(&mut sim, &[]);
            ticks += 1;
            assert!(ticks < 20, "{conflicts}: never came back");
        }
        assert_eq!(sim.agent(id).unwrap().goals_reached(), 1);
        // Pushed off its goal by an action and left alone: it goes back, one goal still.
        checked_step(&mut sim, &[(id, AgentAction::Move(Direction::West))]);
        for _ in 0..3 {
            checked_step(&mut sim, &[]);
        }
        let agent = sim.agent(id).unwrap();
        assert_eq!(
            (agent.state(), agent.position()),
            (AgentState::Arrived, g),
            "{conflicts}"
        );
        assert_eq!(agent.goals_reached(), 1);
    }
}

#[test]
fn controlled_agents_in_lifelong_runs_get_new_goals_and_goals_on_their_cell_count() {
    let grid = open(&vec!["........".to_string(); 8].join("\n"));
    let mut sim = Simulation::new(
        grid,
        SimConfig {
            lifelong: true,
            ..SimConfig::default()
        },
    )
    .unwrap();
    let start = at(&sim, 3, 3);
    // A goal on its own cell: arrives when the tick is played.
    let id = sim.add_controlled_agent(start, Some(start)).unwrap();
    let (report, _) = checked_step(&mut sim, &[]);
    assert_eq!(report.goals_reached, 1);
    let goal = sim.agent(id).unwrap().goal().unwrap();
    assert_ne!(goal, start, "a new goal");
    assert_eq!(sim.agent(id).unwrap().state(), AgentState::Moving);
    // Walk to it greedily.
    let mut reached = 1;
    for _ in 0..200 {
        let agent = sim.agent(id).unwrap();
        let ((x, y), (gx, gy)) = (
            sim.grid().coords(agent.position()),
            sim.grid().coords(agent.goal().unwrap()),
        );
        let dir = Direction::from_delta(
            (gx as i32 - x as i32).signum(),
            (gy as i32 - y as i32).signum(),
        )
        .unwrap();
        let (report, outcomes) = checked_step(&mut sim, &[(id, AgentAction::Move(dir))]);
        assert_eq!(outcomes, [ActionOutcome::Moved]);
        assert_eq!(report.plans, 0);
        reached += report.goals_reached;
    }
    assert!(reached > 20, "{reached} goals");
    assert_eq!(sim.agent(id).unwrap().goals_reached(), reached);
}

#[test]
fn set_controlled_drops_plans_and_releasing_plans_again() {
    let mut sim = Simulation::new(
        open(&vec!["......".to_string(); 3].join("\n")),
        config(ConflictMode::Pibt),
    )
    .unwrap();
    let (s, g) = (at(&sim, 0, 0), at(&sim, 5, 2));
    let id = sim.add_agent(s, Some(g)).unwrap();
    sim.set_controlled(id, true).unwrap();
    let (report, _) = checked_step(&mut sim, &[]);
    assert_eq!((report.plans, report.moved), (0, 0));
    assert_eq!(sim.agent(id).unwrap().state(), AgentState::Waiting);
    // The map changes under it: no replan.
    sim.change_map(&[CellChange::SetWalkable {
        cell: at(&sim, 3, 1),
        walkable: false,
    }])
    .unwrap();
    let (report, _) = checked_step(&mut sim, &[]);
    assert_eq!(report.plans, 0);
    // A new goal: no plan either.
    sim.set_goal(id, at(&sim, 5, 0)).unwrap();
    let (report, _) = checked_step(&mut sim, &[]);
    assert_eq!(report.plans, 0);
    assert!(sim.set_route(id, &[s, at(&sim, 1, 0)]).is_err());
    sim.set_controlled(id, false).unwrap();
    assert_eq!(sim.agent(id).unwrap().state(), AgentState::Planning);
    let (report, _) = checked_step(&mut sim, &[]);
    assert_eq!((report.plans, report.moved), (1, 1));
    for _ in 0..10 {
        checked_step(&mut sim, &[]);
    }
    assert_eq!(sim.agent(id).unwrap().state(), AgentState::Arrived);
    // Controlled while arrived, released again: it stays arrived where it is.
    sim.set_controlled(id, true).unwrap();
    sim.set_controlled(id, false).unwrap();
    for _ in 0..3 {
        let (report, _) = checked_step(&mut sim, &[]);
        assert_eq!((report.plans, report.at_goal), (0, 1));
    }
}

#[test]
fn bad_actions_are_errors_before_anything_is_played() {
    let mut sim = Simulation::new(open("...."), config(ConflictMode::Pibt)).unwrap();
    let a = sim.add_controlled_agent(at(&sim, 0, 0), None).unwrap();
    let b = sim.add_agent(at(&sim, 3, 0), None).unwrap();
    sim.remove_agent(b).unwrap();
    let east = AgentAction::Move(Direction::East);
    assert!(matches!(
        sim.step_with_actions(&[(b, east)]),
        Err(throng::error::Error::UnknownAgent(_))
    ));
    let err = sim
        .step_with_actions(&[(a, east), (a, AgentAction::Wait)])
        .unwrap_err();
    assert!(err.to_string().contains("more than one action"), "{err}");
    assert_eq!(sim.tick(), 0, "nothing played");
    // Robots that turn: moves are refused, waits are fine.
    let mut sim = Simulation::new(
        open("....").with_neighborhood(Neighborhood::Four),
        SimConfig {
            action_model: ActionModel::Rotate,
            ..SimConfig::default()
        },
    )
    .unwrap();
    let a = sim.add_controlled_agent(at(&sim, 0, 0), None).unwrap();
    let err = sim.step_with_actions(&[(a, east)]).unwrap_err();
    assert!(err.to_string().contains("rotate"), "{err}");
    assert!(sim.step_with_actions(&[(a, AgentAction::Wait)]).is_ok());
}

/// A move that loses leaves the agent as it was, in every conflict mode: one standing on its
/// goal stays arrived (it did not move), one without a goal stays idle.
#[test]
fn a_blocked_move_changes_no_state() {
    for conflicts in [ConflictMode::Avoid, ConflictMode::Pibt] {
        let mut sim = Simulation::new(open("..."), config(conflicts)).unwrap();
        let home = sim.add_agent(at(&sim, 0, 0), Some(at(&sim, 0, 0))).unwrap();
        let idle = sim.add_agent(at(&sim, 2, 0), None).unwrap();
        let wall = sim.add_controlled_agent(at(&sim, 1, 0), None).unwrap();
        sim.step();
        assert_eq!(sim.agent(home).unwrap().state(), AgentState::Arrived);
        let east = AgentAction::Move(Direction::East);
        let west = AgentAction::Move(Direction::West);
        let (report, outcomes) = sim
            .step_with_actions(&[(home, east), (idle, west), (wall, AgentAction::Wait)])
            .unwrap();
        assert_eq!(
            outcomes,
            [
                ActionOutcome::Blocked,
                ActionOutcome::Blocked,
                ActionOutcome::Waited
            ],
            "{conflicts}"
        );
        assert_eq!(sim.agent(home).unwrap().state(), AgentState::Arrived);
        assert_eq!(sim.agent(idle).unwrap().state(), AgentState::Idle);
        assert_eq!((report.at_goal, report.waiting), (1, 0), "{conflicts}");
    }
}
