//! Invariants of the crowd simulation, checked after every tick: agents stand on walkable cells,
//! with conflicts on no two agents share a cell or swap cells, every move is one legal step,
//! arrived agents are on their goal. Plus the behaviours built on them: one-shot runs finish,
//! the wait-then-replan rule unjams a corridor, the plan cap serves requests oldest first, and
//! map changes make agents replan instead of walking into walls.

mod common;

use std::collections::HashMap;

use common::distinct_cells;
use throng::grid::CellChange;
use throng::grid::procgen::MapGenerator;
use throng::grid::{CellId, Grid, Neighborhood};
use throng::planner::PlannerKind;
use throng::sim::{
    ActionModel, AgentId, AgentState, Command, ConflictMode, Heading, SimConfig, Simulation,
    TickReport,
};

/// A simulation with `n` agents on distinct starts and distinct goals drawn from `seed`.
fn crowd(grid: Grid, config: SimConfig, n: usize, seed: u64) -> (Simulation, Vec<AgentId>) {
    let starts = distinct_cells(&grid, n, seed);
    let goals = distinct_cells(&grid, n, seed ^ 0xA5A5);
    let mut sim = Simulation::new(grid, config).unwrap();
    let ids = starts
        .iter()
        .zip(&goals)
        .map(|(&s, &g)| sim.add_agent(s, Some(g)).expect("free walkable start"))
        .collect();
    (sim, ids)
}

fn positions(sim: &Simulation) -> HashMap<AgentId, CellId> {
    sim.agents()
        .iter()
        .map(|(id, a)| (id, a.position()))
        .collect()
}

/// Plays one tick and checks every invariant against the positions before it.
fn checked_step(sim: &mut Simulation) -> TickReport {
    let before = positions(sim);
    let report = sim.step();
    check_tick(sim, &before, &report);
    report
}

fn check_tick(sim: &Simulation, before: &HashMap<AgentId, CellId>, report: &TickReport) {
    let grid = sim.grid();
    let avoid = sim.config().conflicts.separates();
    let tick = report.tick;
    let after = positions(sim);
    let mut occupant_before: HashMap<CellId, AgentId> = HashMap::new();
    for (&id, &cell) in before {
        if after.contains_key(&id) {
            occupant_before.insert(cell, id);
        }
    }
    let mut seen: HashMap<CellId, AgentId> = HashMap::new();
    let mut moved = 0;
    for (id, agent) in sim.agents().iter() {
        let pos = agent.position();
        assert!(
            grid.is_walkable(pos),
            "tick {tick}: {id:?} on blocked cell {:?}",
            grid.coords(pos)
        );
        if agent.state() == AgentState::Arrived {
            assert_eq!(
                Some(pos),
                agent.goal(),
                "tick {tick}: {id:?} arrived off goal"
            );
        }
        if avoid {
            if let Some(other) = seen.insert(pos, id) {
                panic!(
                    "tick {tick}: {id:?} and {other:?} share cell {:?}",
                    grid.coords(pos)
                );
            }
            assert_eq!(
                sim.occupancy().agent_at(pos),
                Some(id.index()),
                "tick {tick}: occupancy out of date for {id:?}"
            );
        }
        let Some(&was) = before.get(&id) else {
            continue; // added this tick
        };
        if was == pos {
            continue;
        }
        moved += 1;
        if let Err(e) = grid.path_cost(&[was, pos]) {
            panic!("tick {tick}: {id:?} made an illegal move: {e}");
        }
        if avoid {
            // Whoever stood on the cell this agent entered must not have entered this agent's
            // old cell: that would be a swap.
            if let Some(&other) = occupant_before.get(&pos) {
                assert_ne!(
                    after.get(&other),
                    Some(&was),
                    "tick {tick}: {id:?} and {other:?} swapped cells"
                );
            }
        }
    }
    assert_eq!(report.moved, moved, "tick {tick}: report.moved");
    if avoid {
        // With conflicts on, no two agents cross a 2 x 2 block diagonally either: the whole
        // step, judged by the independent validator.
        let (from, to): (Vec<CellId>, Vec<CellId>) = before
            .iter()
            .filter_map(|(id, &was)| after.get(id).map(|&now| (was, now)))
            .unzip();
        if let Err(e) = throng::mapf::check_step(grid, &from, &to) {
            panic!("tick {tick}: {e}");
        }
    }
    assert_eq!(report.agents as usize, sim.agents().len());
    // The flat positions array mirrors the agents.
    assert!(
        sim.agents().positions_agree(),
        "tick {tick}: positions array"
    );
    for (id, agent) in sim.agents().iter() {
        assert_eq!(sim.slot_positions()[id.index() as usize], agent.position());
    }
}

/// The settings of the `avoid` conflict mode (waits and replans around agents), which the
/// tests of that mode's rules use.
fn avoid() -> SimConfig {
    SimConfig {
        conflicts: ConflictMode::Avoid,
        ..SimConfig::default()
    }
}

fn run_checked(sim: &mut Simulation, ticks: u64) -> Vec<TickReport> {
    (0..ticks).map(|_| checked_step(sim)).collect()
}

#[test]
fn invariants_hold_on_a_dense_random_map_with_conflicts() {
    // 64 x 64, 25% blocked, 600 agents: a dense crowd, lots of waits, chains and replans.
    let grid = MapGenerator::Random {
        width: 64,
        height: 64,
        density: 0.25,
    }
    .generate(3)
    .unwrap();
    for conflicts in [ConflictMode::Avoid, ConflictMode::Pibt] {
        let config = SimConfig {
            lifelong: true,
            seed: 11,
            conflicts,
            ..SimConfig::default()
        };
        let (mut sim, _) = crowd(grid.clone(), config, 600, 1);
        let reports = run_checked(&mut sim, 200);
        let waits: u64 = reports.iter().map(|r| u64::from(r.waiting)).sum();
        let goals: u64 = reports.iter().map(|r| u64::from(r.goals_reached)).sum();
        assert!(
            waits > 100,
            "{conflicts:?}: the crowd should be dense enough to wait: {waits}"
        );
        assert!(
            goals > 100,
            "{conflicts:?}: lifelong agents keep reaching goals: {goals}"
        );
    }
}

#[test]
fn robots_that_turn_only_move_the_way_they_face() {
    // The rotate action model: each tick an agent moves one cell the way it faces (heading
    // kept), or stays and turns a quarter at most. A dense lifelong crowd, 4-connected, with
    // the tick invariants (and the independent validator) on top; and the crowd must not jam.
    let grid = MapGenerator::Random {
        width: 48,
        height: 48,
        density: 0.2,
    }
    .generate(5)
    .unwrap()
    .with_neighborhood(Neighborhood::Four);
    let config = SimConfig {
        lifelong: true,
        seed: 3,
        action_model: ActionModel::Rotate,
        ..SimConfig::default()
    };
    let (mut sim, ids) = crowd(grid.clone(), config, 400, 2);
    let mut headings: HashMap<AgentId, Heading> =
        ids.iter().map(|&id| (id, Heading::East)).collect();
    let (mut goals, mut turns, mut moves) = (0u64, 0u64, 0u64);
    for _ in 0..300 {
        let before = positions(&sim);
        let report = checked_step(&mut sim);
        goals += u64::from(report.goals_reached);
        for &id in &ids {
            let a = sim.agent(id).unwrap();
            let (from, to, was) = (before[&id], a.position(), headings[&id]);
            if from != to {
                assert_eq!(was.ahead(&grid, from), Some(to), "moved off its heading");
                assert_eq!(a.heading(), was, "turned while moving");
                moves += 1;
            } else if a.heading() != was {
                assert!(
                    a.heading() == was.clockwise() || a.heading() == was.counter_clockwise(),
                    "more than a quarter turn in a tick"
                );
                turns += 1;
            }
            headings.insert(id, a.heading());
        }
    }
    assert!(
        turns > 1000 && moves > turns,
        "turns {turns}, moves {moves}"
    );
    assert!(goals > 300, "lifelong robots keep reaching goals: {goals}");
}

#[test]
fn invariants_hold_in_rooms_and_mazes() {
    let maps = [
        MapGenerator::Rooms {
            width: 80,
            height: 80,
            room: 9,
            door: 2,
        },
        MapGenerator::Maze {
            width: 61,
            height: 61,
            corridor: 2,
        },
    ];
    for (i, map) in maps.iter().enumerate() {
        for neighbourhood in [Neighborhood::Eight, Neighborhood::Four] {
            let grid = map
                .generate(i as u64 + 5)
                .unwrap()
                .with_neighborhood(neighbourhood);
            for (lifelong, conflicts) in [
                (false, ConflictMode::Avoid),
                (true, ConflictMode::Avoid),
                (false, ConflictMode::Pibt),
                (true, ConflictMode::Pibt),
            ] {
                let config = SimConfig {
                    lifelong,
                    seed: 3,
                    max_plans_per_tick: Some(25),
                    conflicts,
                    ..SimConfig::default()
                };
                let (mut sim, _) = crowd(grid.clone(), config, 200, 7 + i as u64);
                run_checked(&mut sim, 150);
            }
        }
    }
}

#[test]
fn invariants_hold_with_conflicts_off_and_agents_share_cells() {
    let grid = MapGenerator::Random {
        width: 40,
        height: 40,
        density: 0.2,
    }
    .generate(9)
    .unwrap();
    let config = SimConfig {
        conflicts: ConflictMode::Off,
        lifelong: true,
        ..SimConfig::default()
    };
    let (mut sim, _) = crowd(grid, config, 400, 2);
    let mut shared = false;
    for _ in 0..100 {
        let report = checked_step(&mut sim);
        assert_eq!(report.waiting, 0, "nobody waits when conflicts are off");
        let mut cells: Vec<CellId> = sim.agents().iter().map(|(_, a)| a.position()).collect();
        let n = cells.len();
        cells.sort_unstable();
        cells.dedup();
        shared |= cells.len() < n;
    }
    assert!(
        shared,
        "400 agents on 1,300 cells should share a cell at some point"
    );
}

#[test]
fn one_shot_run_on_an_open_map_arrives_and_summary_matches_agents() {
    let grid = MapGenerator::Random {
        width: 96,
        height: 96,
        density: 0.1,
    }
    .generate(4)
    .unwrap();
    let (mut sim, ids) = crowd(grid, SimConfig::default(), 300, 5);
    let mut reports = Vec::new();
    for _ in 0..600 {
        let report = checked_step(&mut sim);
        let done = report.at_goal as usize == ids.len();
        reports.push(report);
        if done {
            break;
        }
    }
    let summary = sim.summary();
    let arrived: Vec<_> = ids
        .iter()
        .map(|&id| sim.agent(id).unwrap())
        .filter(|a| a.state() == AgentState::Arrived)
        .collect();
    assert!(
        arrived.len() * 100 >= ids.len() * 95,
        "only {} of {} agents arrived",
        arrived.len(),
        ids.len()
    );
    assert_eq!(summary.arrived as usize, arrived.len());
    assert_eq!(summary.ticks, reports.len() as u64);
    // Every agent was added before tick 0 with its goal, so its trip lasted until the end of
    // the tick it arrived in.
    let trips: Vec<u64> = arrived.iter().map(|a| a.arrived_at().unwrap()).collect();
    assert_eq!(summary.sum_of_costs, trips.iter().sum::<u64>());
    assert_eq!(summary.makespan, *trips.iter().max().unwrap());
    assert!(summary.makespan <= summary.ticks);
    let moves: u64 = ids.iter().map(|&id| sim.agent(id).unwrap().moves()).sum();
    assert_eq!(summary.moves, moves);
    assert_eq!(
        summary.moves,
        reports.iter().map(|r| u64::from(r.moved)).sum::<u64>()
    );
    assert_eq!(summary.goals_reached, arrived.len() as u64);
    assert_eq!(
        summary.plans,
        reports.iter().map(|r| u64::from(r.plans)).sum::<u64>()
    );
    assert_eq!(summary.final_state_hash, sim.state_hash());
    for a in &arrived {
        assert_eq!(a.goals_reached(), 1);
        // A trip is at least as many ticks as cells moved (one cell per tick at most).
        assert!(a.arrived_at().unwrap() >= a.moves());
    }
}

/// A corridor three cells wide and 20 long between two open 9 x 9 rooms; `n` agents start in
/// each room, nearest the corridor first, and head for the mirror cell in the other room.
fn corridor_sim(config: SimConfig, n: u32) -> (Simulation, Vec<AgentId>) {
    let room = ".".repeat(9);
    let rows: Vec<String> = (0..9)
        .map(|y| {
            let middle = if (3..6).contains(&y) { "." } else { "#" };
            format!("{room}{}{room}", middle.repeat(20))
        })
        .collect();
    let grid = Grid::from_ascii(&rows.join("\n")).unwrap();
    let width = grid.width();
    let mut sim = Simulation::new(grid, config).unwrap();
    let mut ids = Vec::new();
    for k in 0..n {
        let (x, y) = (8 - k / 9, k % 9);
        let left = sim.grid().cell(x, y).unwrap();
        let right = sim.grid().cell(width - 1 - x, y).unwrap();
        ids.push(sim.add_agent(left, Some(right)).unwrap());
        ids.push(sim.add_agent(right, Some(left)).unwrap());
    }
    (sim, ids)
}

#[test]
fn crowded_corridor_makes_progress_thanks_to_wait_then_replan() {
    // Four agents each way meet head-on in a corridor three cells wide. Their shortest paths
    // collide; after `replan_after_waits` ticks the blocked ones plan around the others.
    let (mut sim, ids) = corridor_sim(avoid(), 4);
    let mut plans = 0;
    let mut waits = 0;
    while (sim.summary().arrived as usize) < ids.len() && sim.tick() < 150 {
        let report = checked_step(&mut sim);
        plans += report.plans;
        waits += report.waiting;
    }
    assert_eq!(
        sim.summary().arrived as usize,
        ids.len(),
        "all agents cross (in {} ticks)",
        sim.tick()
    );
    assert!(waits > 0, "the two groups met");
    assert!(
        plans > ids.len() as u32,
        "blocked agents replanned around the others ({plans} plans)"
    );

    // Without the replan rule the same crowd jams: the leaders wait for each other forever.
    let never = SimConfig {
        replan_after_waits: u32::MAX,
        ..avoid()
    };
    let (mut jammed, _) = corridor_sim(never, 4);
    let reports = run_checked(&mut jammed, 150);
    assert_eq!(jammed.summary().arrived, 0);
    assert_eq!(reports.last().unwrap().moved, 0, "jammed for good");
}

#[test]
fn a_permanently_blocked_agent_backs_off_its_replans() {
    // A one-cell corridor: agent P parks on its goal in the middle, agent B behind it wants to
    // reach the far end. No route exists around P, so every replan of B fails; each failure
    // doubles B's wait (3, 6, 12, 24, 48, 96, then 96 ticks), instead of a whole-map search
    // every 3 ticks (which would be about 100 failed plans in 300 ticks).
    let grid = Grid::from_ascii("##########\n..........\n##########").unwrap();
    let c = |x| grid.cell(x, 1).unwrap();
    let (p_cell, b_start, b_goal) = (c(5), c(1), c(9));
    let mut sim = Simulation::new(grid.clone(), avoid()).unwrap();
    let parked = sim.add_agent(p_cell, Some(p_cell)).unwrap();
    let blocked = sim.add_agent(b_start, Some(b_goal)).unwrap();
    let reports = run_checked(&mut sim, 300);
    let failed: u32 = reports.iter().map(|r| r.plans_failed).sum();
    assert_eq!(sim.agent(parked).unwrap().position(), p_cell);
    assert_eq!(
        sim.agent(blocked).unwrap().position(),
        c(4),
        "stuck behind the parked agent"
    );
    assert!(
        (3..=8).contains(&failed),
        "{failed} failed replans in 300 ticks"
    );
}

#[test]
fn head_on_pair_in_a_wide_corridor_pass_each_other() {
    let grid = Grid::from_ascii(
        "..........\n\
         ..........",
    )
    .unwrap();
    let config = SimConfig {
        replan_after_waits: 2,
        ..SimConfig::default()
    };
    let mut sim = Simulation::new(grid, config).unwrap();
    let (a0, b0) = (
        sim.grid().cell(0, 0).unwrap(),
        sim.grid().cell(9, 0).unwrap(),
    );
    let a = sim.add_agent(a0, Some(b0)).unwrap();
    let b = sim.add_agent(b0, Some(a0)).unwrap();
    for _ in 0..40 {
        checked_step(&mut sim);
    }
    assert_eq!(sim.agent(a).unwrap().position(), b0);
    assert_eq!(sim.agent(b).unwrap().position(), a0);
}

#[test]
fn plan_cap_limits_plans_per_tick() {
    let grid = MapGenerator::Random {
        width: 64,
        height: 64,
        density: 0.15,
    }
    .generate(8)
    .unwrap();
    let cap = 7;
    let config = SimConfig {
        max_plans_per_tick: Some(cap),
        lifelong: true,
        seed: 1,
        ..SimConfig::default()
    };
    let n = 120;
    let (mut sim, ids) = crowd(grid, config, n, 3);
    // How many ticks in a row each agent has been waiting for a plan.
    let mut starving = vec![0usize; n];
    let mut deferred_seen = false;
    for _ in 0..300 {
        let report = checked_step(&mut sim);
        assert!(
            report.plans as usize <= cap,
            "tick {}: {} plans",
            report.tick,
            report.plans
        );
        deferred_seen |= report.plans_deferred > 0;
        for (i, &id) in ids.iter().enumerate() {
            if sim.agent(id).unwrap().state() == AgentState::Planning {
                starving[i] += 1;
                // Oldest first: at most `n` requests can be ahead of this one, served `cap` a
                // tick, so no request waits longer than that.
                assert!(
                    starving[i] <= n.div_ceil(cap) + 1,
                    "tick {}: agent {i} starved for {} ticks",
                    report.tick,
                    starving[i]
                );
            } else {
                starving[i] = 0;
            }
        }
    }
    assert!(deferred_seen, "the cap should defer plans at the start");
    assert!(sim.summary().goals_reached > 0);
}

#[test]
fn plan_cap_serves_the_oldest_requests_first() {
    let grid = Grid::from_ascii(&vec!["................"; 16].join("\n")).unwrap();
    let config = SimConfig {
        max_plans_per_tick: Some(2),
        ..SimConfig::default()
    };
    let mut sim = Simulation::new(grid, config).unwrap();
    let ids: Vec<AgentId> = (0..8)
        .map(|i| sim.add_agent(sim.grid().cell(i, 0).unwrap(), None).unwrap())
        .collect();
    let goal = |sim: &Simulation, i: u32| sim.grid().cell(i, 15).unwrap();
    let state = |sim: &Simulation, i: usize| sim.agent(ids[i]).unwrap().state();

    // Requests made before tick 0 by the last three agents.
    for (i, &id) in ids.iter().enumerate().skip(5) {
        sim.set_goal(id, goal(&sim, i as u32)).unwrap();
    }
    let r = sim.step();
    assert_eq!((r.plans, r.plans_deferred), (2, 1));
    // Equal age: slot order.
    assert_ne!(state(&sim, 5), AgentState::Planning);
    assert_ne!(state(&sim, 6), AgentState::Planning);
    assert_eq!(state(&sim, 7), AgentState::Planning);

    // Newer requests from lower slots do not overtake agent 7.
    for (i, &agent) in ids.iter().enumerate().take(2) {
        let goal = goal(&sim, i as u32);
        sim.queue(Command::SetGoal { agent, goal });
    }
    let r = sim.step();
    assert_eq!((r.plans, r.plans_deferred), (2, 1));
    assert_ne!(
        state(&sim, 7),
        AgentState::Planning,
        "oldest request served"
    );
    assert_ne!(state(&sim, 0), AgentState::Planning);
    assert_eq!(state(&sim, 1), AgentState::Planning);
    let r = sim.step();
    assert_eq!((r.plans, r.plans_deferred), (1, 0));
    assert_ne!(state(&sim, 1), AgentState::Planning);
}

/// Blocks a vertical wall at column `x` (rows `y0..y1`) on a free map, except cells where an
/// agent stands, and returns the changes.
fn wall_changes(sim: &Simulation, x: u32, y0: u32, y1: u32) -> Vec<CellChange> {
    (y0..y1)
        .map(|y| sim.grid().cell(x, y).unwrap())
        .filter(|&c| sim.occupancy().agent_at(c).is_none())
        .map(|cell| CellChange::SetWalkable {
            cell,
            walkable: false,
        })
        .collect()
}

fn map_change_run(cap: Option<usize>, through_command: bool) {
    map_change_run_with(cap, through_command, PlannerKind::AStar);
}

fn map_change_run_with(
    cap: Option<usize>,
    through_command: bool,
    planner: PlannerKind,
) -> throng::sim::RunSummary {
    // An open 60 x 40 field; agents cross it left to right.
    let grid = Grid::from_ascii(&vec![".".repeat(60); 40].join("\n")).unwrap();
    let config = SimConfig {
        max_plans_per_tick: cap,
        planner,
        ..SimConfig::default()
    };
    let mut sim = Simulation::new(grid, config).unwrap();
    let mut ids = Vec::new();
    for y in 0..40 {
        let start = sim.grid().cell(2, y).unwrap();
        let goal = sim.grid().cell(57, (y * 7) % 40).unwrap();
        ids.push(sim.add_agent(start, Some(goal)).unwrap());
    }
    // Long enough for every agent to have its first plan, even 3 plans a tick.
    run_checked(&mut sim, 15);

    // A wall across the field at x = 30 with a gap at rows 18..22.
    let mut changes = wall_changes(&sim, 30, 0, 18);
    changes.extend(wall_changes(&sim, 30, 22, 40));
    let blocked: Vec<CellId> = changes
        .iter()
        .map(|c| match *c {
            CellChange::SetWalkable { cell, .. } => cell,
            CellChange::SetCost { cell, .. } => cell,
        })
        .collect();
    let affected: Vec<AgentId> = ids
        .iter()
        .copied()
        .filter(|&id| {
            let a = sim.agent(id).unwrap();
            a.remaining_path().any(|c| blocked.contains(&c))
        })
        .collect();
    assert!(affected.len() > 20, "the wall should cut most paths");

    let report = if through_command {
        sim.queue(Command::ChangeMap(changes));
        checked_step(&mut sim)
    } else {
        sim.change_map(&changes).unwrap();
        checked_step(&mut sim)
    };
    assert!(report.rejected.is_empty(), "{:?}", report.rejected);
    for &cell in &blocked {
        assert!(!sim.grid().is_walkable(cell));
    }
    match cap {
        None => assert!(report.plans as usize >= affected.len()),
        Some(k) => assert!(report.plans as usize <= k),
    }

    // Every affected agent has a new plan once the cap let enough plans through.
    let replanned_by = affected.len().div_ceil(cap.unwrap_or(usize::MAX)) as u64;
    let change_tick = report.tick;
    for _ in 0..300 {
        if sim.tick() > change_tick + replanned_by {
            for &id in &ids {
                let a = sim.agent(id).unwrap();
                assert!(
                    a.remaining_path().all(|c| sim.grid().is_walkable(c)),
                    "tick {}: {id:?} still plans through the wall",
                    sim.tick()
                );
            }
        }
        if sim.summary().arrived as usize == ids.len() {
            break;
        }
        checked_step(&mut sim);
    }
    // Everyone got through the gap.
    assert_eq!(sim.summary().arrived as usize, ids.len());
    for &id in &ids {
        let a = sim.agent(id).unwrap();
        assert_eq!(Some(a.position()), a.goal());
    }
    sim.summary()
}

#[test]
fn map_change_makes_affected_agents_replan() {
    map_change_run(None, false);
}

#[test]
fn map_change_makes_dstar_agents_repair_their_plans() {
    // D* Lite agents are told of the change and resume their own searches.
    map_change_run_with(None, true, PlannerKind::DStar);
    map_change_run_with(Some(3), false, PlannerKind::DStar);
}

#[test]
fn summary_splits_repair_and_replan_latencies() {
    // A wall closing on the agents' paths: D* Lite agents repair, A* agents replan.
    let dstar = map_change_run_with(None, false, PlannerKind::DStar);
    assert!(dstar.repairs > 0, "{dstar:?}");
    assert!(dstar.repair_us_p50 > 0.0 && dstar.repair_us_p50 <= dstar.repair_us_p99);
    assert!(dstar.repairs <= dstar.dstar_repairs);
    let astar = map_change_run_with(None, false, PlannerKind::AStar);
    assert!(astar.replans > 0, "{astar:?}");
    assert!(astar.replan_us_p50 > 0.0 && astar.replan_us_p50 <= astar.replan_us_p99);
    assert_eq!(
        (astar.repairs, astar.repair_us_p50, astar.repair_us_p99),
        (0, 0.0, 0.0)
    );
    assert!(astar.replans + astar.repairs <= astar.plans);
}

#[test]
fn map_change_through_a_command_makes_affected_agents_replan() {
    map_change_run(None, true);
}

#[test]
fn map_change_with_a_plan_cap_never_walks_into_the_wall() {
    // With a cap, some affected agents wait several ticks for their new plan; they must not
    // keep following the old path into the new wall meanwhile.
    map_change_run(Some(3), true);
}

#[test]
fn reopened_map_lets_agents_with_no_path_try_again() {
    // Two rooms joined by a door; the door is closed, then opened.
    let grid = Grid::from_ascii(
        "....#....\n\
         ....#....\n\
         .........",
    )
    .unwrap();
    let mut sim = Simulation::new(grid, SimConfig::default()).unwrap();
    let door = sim.grid().cell(4, 2).unwrap();
    sim.change_map(&[CellChange::SetWalkable {
        cell: door,
        walkable: false,
    }])
    .unwrap();
    let start = sim.grid().cell(0, 0).unwrap();
    let goal = sim.grid().cell(8, 0).unwrap();
    let id = sim.add_agent(start, Some(goal)).unwrap();
    checked_step(&mut sim);
    assert_eq!(sim.agent(id).unwrap().state(), AgentState::NoPath);
    sim.change_map(&[CellChange::SetWalkable {
        cell: door,
        walkable: true,
    }])
    .unwrap();
    // Opening the door is enough: the agent tries again by itself.
    assert_eq!(sim.agent(id).unwrap().state(), AgentState::Planning);
    for _ in 0..20 {
        checked_step(&mut sim);
    }
    assert_eq!(sim.agent(id).unwrap().position(), goal);
    // Closing a door elsewhere does not make agents without a path replan in vain.
    let other = sim.add_agent(start, Some(goal)).unwrap();
    sim.change_map(&[CellChange::SetWalkable {
        cell: door,
        walkable: false,
    }])
    .unwrap();
    checked_step(&mut sim);
    assert_eq!(sim.agent(other).unwrap().state(), AgentState::NoPath);
    let wall = sim.grid().cell(0, 2).unwrap();
    sim.change_map(&[CellChange::SetWalkable {
        cell: wall,
        walkable: false,
    }])
    .unwrap();
    assert_eq!(sim.agent(other).unwrap().state(), AgentState::NoPath);
}

#[test]
fn agent_waiting_for_a_deferred_replan_does_not_step_into_a_new_wall() {
    // Agent `a` walks right along row 1; `b` has an older plan request when the cell just
    // ahead of `a` is blocked, so with one plan a tick `a`'s replan waits a tick.
    let grid = Grid::from_ascii(
        "..........\n\
         ..........\n\
         ..........",
    )
    .unwrap();
    let config = SimConfig {
        max_plans_per_tick: Some(1),
        ..SimConfig::default()
    };
    let mut sim = Simulation::new(grid, config).unwrap();
    let cell = |sim: &Simulation, x, y| sim.grid().cell(x, y).unwrap();
    let a = sim
        .add_agent(cell(&sim, 0, 1), Some(cell(&sim, 9, 1)))
        .unwrap();
    let b = sim
        .add_agent(cell(&sim, 0, 2), Some(cell(&sim, 5, 2)))
        .unwrap();
    let r = checked_step(&mut sim);
    assert_eq!((r.plans, r.plans_deferred), (1, 1));
    assert_eq!(sim.agent(a).unwrap().position(), cell(&sim, 1, 1));
    assert_eq!(sim.agent(b).unwrap().state(), AgentState::Planning);
    let wall = cell(&sim, 2, 1);
    assert_eq!(sim.agent(a).unwrap().remaining_path().next(), Some(wall));
    sim.queue(Command::ChangeMap(vec![CellChange::SetWalkable {
        cell: wall,
        walkable: false,
    }]));
    let r = checked_step(&mut sim);
    assert_eq!((r.plans, r.plans_deferred), (1, 1), "b first, a deferred");
    assert_ne!(sim.agent(a).unwrap().position(), wall);
    for _ in 0..20 {
        checked_step(&mut sim);
    }
    assert_eq!(sim.agent(a).unwrap().position(), cell(&sim, 9, 1));
    assert_eq!(sim.agent(b).unwrap().position(), cell(&sim, 5, 2));
}

/// Plays `sims/doors.toml` (cut to `ticks` ticks) with `planner` on a pool of `threads`,
/// checking every invariant each tick; returns the final state hash and the cells changed.
fn play_doors(planner: PlannerKind, threads: usize, ticks: u64) -> (u64, usize) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sims/doors.toml");
    let mut scenario = throng::scenario::Scenario::load(path).unwrap();
    scenario.sim.planner = planner;
    scenario.ticks = ticks;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut sim = scenario.build().unwrap();
        let mut schedule = scenario.schedule(sim.grid()).unwrap();
        let mut changed = 0;
        for _ in 0..ticks {
            changed += schedule.queue_due(&mut sim);
            let report = checked_step(&mut sim);
            assert!(report.rejected.is_empty(), "{:?}", report.rejected);
        }
        (sim.state_hash(), changed)
    })
}

#[test]
fn doors_scenario_keeps_agents_off_shut_doors_and_is_deterministic() {
    for planner in [PlannerKind::DStar, PlannerKind::AStar] {
        let (one, changed) = play_doors(planner, 1, 300);
        assert!(changed > 0, "doors changed");
        let (two, _) = play_doors(planner, 2, 300);
        assert_eq!(one, two, "{planner}: 1 and 2 threads end in the same state");
    }
}

#[test]
fn scenario_play_runs_the_schedule() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sims/doors.toml");
    let mut scenario = throng::scenario::Scenario::load(path).unwrap();
    scenario.ticks = 100;
    let mut plans = 0;
    let sim = scenario.play(|_, r| plans += r.plans).unwrap();
    assert_eq!(sim.tick(), 100);
    assert!(plans > 0);
    assert!(sim.agents().iter().any(|(_, a)| a.dstar_bytes() > 0));
    let summary = sim.summary();
    assert!(summary.dstar_bytes_p50 > 0 && summary.dstar_bytes_max >= summary.dstar_bytes_p50);
    let max = sim.agents().iter().map(|(_, a)| a.dstar_bytes()).max();
    assert_eq!(Some(summary.dstar_bytes_max as usize), max);

    scenario.sim.planner = PlannerKind::AStar;
    let summary = scenario.play(|_, _| {}).unwrap().summary();
    assert_eq!(
        (
            summary.dstar_bytes_max,
            summary.dstar_repairs,
            summary.dstar_restarts
        ),
        (0, 0, 0)
    );
}

/// Plays `sims/doors.toml` with half of the agents on D* Lite and the rest on A*, on a pool of
/// `threads`; returns the final state hash and how many agents use D* Lite.
fn play_mixed_doors(threads: usize, ticks: u64) -> (u64, usize) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sims/doors.toml");
    let mut scenario = throng::scenario::Scenario::load(path).unwrap();
    scenario.sim.planner = PlannerKind::AStar;
    scenario.planner_mix = vec![(PlannerKind::DStar, 0.5)];
    scenario.ticks = ticks;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut sim = scenario.build().unwrap();
        let mut schedule = scenario.schedule(sim.grid()).unwrap();
        for _ in 0..ticks {
            schedule.queue_due(&mut sim);
            let report = checked_step(&mut sim);
            assert!(report.rejected.is_empty(), "{:?}", report.rejected);
        }
        // Only the D* Lite agents keep a D* Lite search.
        for (_, a) in sim.agents().iter() {
            if a.planner() != Some(PlannerKind::DStar) {
                assert_eq!(a.dstar_bytes(), 0);
            }
        }
        assert!(sim.summary().repairs > 0);
        let dstar = sim
            .agents()
            .iter()
            .filter(|(_, a)| a.planner() == Some(PlannerKind::DStar))
            .count();
        (sim.state_hash(), dstar)
    })
}

#[test]
fn mixed_planners_are_deterministic_across_thread_counts() {
    let (one, dstar) = play_mixed_doors(1, 200);
    assert_eq!(dstar, 150, "half of the 300 agents");
    let (two, _) = play_mixed_doors(2, 200);
    assert_eq!(one, two, "1 and 2 threads end in the same state");
}

#[test]
fn an_agent_with_its_own_nav_planner_gets_the_graph_built() {
    // The default planner (A*) has no navigation graph; a `nav` agent makes the sim build one.
    let grid = Grid::from_ascii(&vec![".".repeat(120); 30].join("\n")).unwrap();
    let mut sim = Simulation::new(grid, SimConfig::default()).unwrap();
    let cell = |sim: &Simulation, x, y| sim.grid().cell(x, y).unwrap();
    let (a0, a1) = (cell(&sim, 0, 0), cell(&sim, 119, 29));
    let (b0, b1) = (cell(&sim, 0, 29), cell(&sim, 119, 0));
    let a = sim
        .add_agent_with_planner(a0, Some(a1), PlannerKind::Nav)
        .unwrap();
    let b = sim.add_agent(b0, Some(b1)).unwrap();
    assert_eq!(sim.agent(a).unwrap().planner(), Some(PlannerKind::Nav));
    assert_eq!(sim.agent(b).unwrap().planner(), None);
    run_checked(&mut sim, 300);
    assert_eq!(sim.agent(a).unwrap().position(), a1);
    assert_eq!(sim.agent(b).unwrap().position(), b1);
}

/// A corridor 5 cells high and 200 long; agent `A` walks its middle row from the west end to
/// the east end and finds parked agents on it. Returns the nodes expanded in each tick with a
/// replan around them (every tick with a plan after `A`'s first plan), in order; runs until
/// `A` arrives.
fn blocked_in_corridor(detours: bool, parked_at: &[u32]) -> Vec<u64> {
    let row = ".".repeat(200);
    let grid = Grid::from_ascii(&vec![row; 5].join("\n")).unwrap();
    let config = SimConfig { detours, ..avoid() };
    let mut sim = Simulation::new(grid, config).unwrap();
    let c = |sim: &Simulation, x| sim.grid().cell(x, 2).unwrap();
    for &x in parked_at {
        let cell = c(&sim, x);
        sim.add_agent(cell, Some(cell)).unwrap();
    }
    let (start, goal) = (c(&sim, 0), c(&sim, 199));
    let a = sim.add_agent(start, Some(goal)).unwrap();
    let mut replans = Vec::new();
    for tick in 0..400 {
        let report = checked_step(&mut sim);
        if tick > 0 && report.plans > 0 {
            replans.push(report.nodes_expanded);
        }
        for &x in parked_at {
            assert_ne!(
                sim.agent(a).unwrap().position(),
                c(&sim, x),
                "walked onto an agent"
            );
        }
        if sim.agent(a).unwrap().state() == AgentState::Arrived {
            break;
        }
    }
    assert_eq!(sim.agent(a).unwrap().position(), goal, "A arrives");
    assert!(!replans.is_empty(), "A replanned around the parked agents");
    replans
}

#[test]
fn a_detour_around_a_few_agents_is_a_local_search() {
    // One agent parked on A's row: the replan around it goes back onto A's path a few cells
    // past it (a search of a few dozen cells), instead of searching the 190 cells to the goal.
    let with = blocked_in_corridor(true, &[20])[0];
    let without = blocked_in_corridor(false, &[20])[0];
    assert!(with < 60, "detour expanded {with} nodes");
    assert!(without > 150, "whole-way replan expanded {without} nodes");
}

#[test]
fn no_detour_into_a_jam_longer_than_the_box() {
    // A second parked agent on A's path just past the box around A (radius 4): a detour
    // would rejoin the path behind it, so the replan searches the whole way instead.
    let expanded = blocked_in_corridor(true, &[20, 28])[0];
    assert!(expanded > 150, "replan expanded {expanded} nodes");
}

#[test]
fn no_two_detours_in_a_row() {
    // Parked agents at x = 20 and x = 40: the first replan detours around the first one
    // (rejoining at x = 32, before the second), the replan at the second one searches the
    // whole way, though a detour would fit there too.
    let replans = blocked_in_corridor(true, &[20, 40]);
    assert_eq!(replans.len(), 2, "{replans:?}");
    assert!(replans[0] < 60, "first replan a detour: {replans:?}");
    assert!(replans[1] > 150, "second replan the whole way: {replans:?}");
}

#[test]
fn region_by_region_movement_keeps_the_invariants() {
    // `SimConfig::regions`: the crowd decided in 16 x 16 regions (shifted by 8 on odd ticks),
    // four phases of regions, each pass moving agents within its region and a margin around
    // it. Every tick's invariants; agents cross borders, fewer than move inside; the crowd
    // still flows: lifelong goals keep being reached, a one-shot crowd arrives.
    let grid = MapGenerator::Random {
        width: 64,
        height: 64,
        density: 0.2,
    }
    .generate(7)
    .unwrap();
    let region = |cell: CellId, tick: u64| {
        let shift = if tick % 2 == 1 { 8 } else { 0 };
        let (x, y) = grid.coords(cell);
        ((x + shift) / 16, (y + shift) / 16)
    };
    for lifelong in [true, false] {
        let config = SimConfig {
            lifelong,
            seed: 5,
            regions: 16,
            ..SimConfig::default()
        };
        let (mut sim, _) = crowd(grid.clone(), config, 500, 2);
        let (mut goals, mut inside, mut across) = (0, 0, 0);
        for _ in 0..400 {
            let before = positions(&sim);
            let report = checked_step(&mut sim);
            goals += report.goals_reached;
            for (id, &from) in &before {
                match sim.agent(*id).map(|a| a.position()) {
                    Some(to)
                        if to != from && region(from, report.tick) == region(to, report.tick) =>
                    {
                        inside += 1
                    }
                    Some(to) if to != from => across += 1,
                    _ => {}
                }
            }
            if !lifelong && report.at_goal == report.agents {
                break;
            }
        }
        assert!(
            across > 0 && across < inside,
            "{across} moves across borders, {inside} inside"
        );
        if lifelong {
            assert!(goals > 300, "lifelong goals reached: {goals}");
        } else {
            assert!(
                sim.summary().all_arrived,
                "every agent arrives region by region"
            );
        }
    }
}
