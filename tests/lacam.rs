//! LaCAM (complete one-shot MAPF): plans that the independent validator accepts and that end on
//! the goals, instances PIBT alone does not finish, proven-unsolvable instances, and clear
//! errors for bad instances.

mod common;

use common::{check_mapf_plan, plan_sum_of_costs};

use throng::error::Error;
use throng::grid::{CellId, Grid, Neighborhood};
use throng::mapf::Scatter;
use throng::mapf::lacam::{LacamOptions, LacamOutcome, PIBT_RUNS, SCATTER_MARGIN, solve};
use throng::mapf::{GoalDistances, Pibt, rank_candidates};
use throng::movingai::{ScenFile, load_map};

fn maze_instance(agents: usize) -> (Grid, Vec<CellId>, Vec<CellId>) {
    common::mapf_instance(
        "mapf/maze-32-32-2.map",
        "mapf/maze-32-32-2-random-5.scen",
        agents,
        Neighborhood::Four,
    )
}

/// Plain PIBT with exact distances and growing priorities, as the simulation runs it: whether
/// every agent is at its goal after `steps`.
fn pibt_alone_finishes(grid: &Grid, starts: &[CellId], goals: &[CellId], steps: u64) -> bool {
    let dist = GoalDistances::new(grid, goals);
    let n = starts.len();
    let mut pibt = Pibt::new(grid.len());
    let mut at = starts.to_vec();
    let mut urgency = vec![0u64; n];
    for step in 0..steps {
        if at == goals {
            return true;
        }
        let candidates: Vec<_> = (0..n as u32)
            .map(|a| rank_candidates(grid, &dist, a, at[a as usize], step))
            .collect();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_key(|&a| (std::cmp::Reverse(urgency[a as usize]), a));
        at = pibt
            .step(grid, &at, &candidates, &order, &dist, step)
            .to_vec();
        for a in 0..n {
            urgency[a] = if at[a] == goals[a] { 0 } else { urgency[a] + 1 };
        }
    }
    at == goals
}

#[test]
fn lacam_solves_a_maze_instance_pibt_alone_does_not() {
    // maze-32-32-2, random-5, 100 agents, 4-connected: the simulation's PIBT leaves two agents
    // circling (they must reorder inside a dead end); LaCAM (its PIBT swaps without first
    // asking for room to back off, and its search moves past steps that go nowhere) finds a
    // plan.
    let (grid, starts, goals) = maze_instance(100);
    assert!(
        !pibt_alone_finishes(&grid, &starts, &goals, 2000),
        "PIBT alone finished: the instance no longer shows why LaCAM is needed"
    );
    let (outcome, stats) = solve(&grid, &starts, &goals, &LacamOptions::default()).unwrap();
    let LacamOutcome::Solved(plan) = outcome else {
        panic!("unsolved: {outcome:?}")
    };
    check_mapf_plan(&grid, &plan, &starts, &goals);
    assert!(stats.nodes >= plan.len());
}

#[test]
fn lacam_branches_where_no_pibt_step_leads_on() {
    // Three agents reverse their order in a dead-end corridor with one bay: the first
    // successors PIBT proposes revisit known configurations, so constraints must be added.
    let grid = Grid::from_ascii(".....\n.#.##")
        .unwrap()
        .with_neighborhood(Neighborhood::Four);
    let c = |x, y| grid.cell(x, y).unwrap();
    let starts = [c(2, 0), c(3, 0), c(4, 0)];
    let goals = [c(4, 0), c(3, 0), c(2, 0)];
    let (outcome, stats) = solve(&grid, &starts, &goals, &LacamOptions::default()).unwrap();
    let LacamOutcome::Solved(plan) = outcome else {
        panic!("solvable: {outcome:?}")
    };
    check_mapf_plan(&grid, &plan, &starts, &goals);
    assert!(
        stats.generated > plan.len(),
        "the search had to branch: {stats:?}"
    );
}

#[test]
fn lacam_passes_agents_through_the_maze_at_300() {
    // random-5 at 200 and 300 agents: unsolved within 10 s while PIBT's swaps needed a free
    // cell to back off into; about 10 ms each without that check. A node limit, not a time
    // limit, bounds the search so that the test cannot depend on the machine.
    for agents in [200, 300] {
        let (grid, starts, goals) = maze_instance(agents);
        let options = LacamOptions {
            node_limit: Some(200_000),
            ..LacamOptions::default()
        };
        let (outcome, _) = solve(&grid, &starts, &goals, &options).unwrap();
        let LacamOutcome::Solved(plan) = outcome else {
            panic!("{agents} agents: {outcome:?}")
        };
        check_mapf_plan(&grid, &plan, &starts, &goals);
    }
}

#[test]
fn lacam_solves_the_shipped_random_map_at_400_agents_in_both_neighbourhoods() {
    let scen = ScenFile::load(common::shipped("mapf/random-32-32-10-random-1.scen")).unwrap();
    for neighbourhood in [Neighborhood::Four, Neighborhood::Eight] {
        let grid = load_map(common::shipped("mapf/random-32-32-10.map"))
            .unwrap()
            .with_neighborhood(neighbourhood);
        let pairs: Vec<_> = scen.resolve(&grid).unwrap().into_iter().take(400).collect();
        let starts: Vec<CellId> = pairs.iter().map(|p| p.0).collect();
        let goals: Vec<CellId> = pairs.iter().map(|p| p.1).collect();
        let (outcome, _) = solve(&grid, &starts, &goals, &LacamOptions::default()).unwrap();
        let LacamOutcome::Solved(plan) = outcome else {
            panic!("{neighbourhood:?}: {outcome:?}")
        };
        check_mapf_plan(&grid, &plan, &starts, &goals);
        // No agent can arrive before its own distance: the makespan is at least the largest.
        let dist = GoalDistances::new(&grid, &goals);
        let longest = (0..400u32)
            .map(|a| dist.get(a, starts[a as usize]))
            .max()
            .unwrap();
        assert!(plan.len() as u32 > longest);
    }
}

#[test]
fn lacam_proves_an_impossible_swap_unsolvable() {
    // Two agents in a corridor with no room to pass: every configuration is tried, then "no
    // solution". With one bay the same swap is solvable.
    let grid = Grid::from_ascii("....")
        .unwrap()
        .with_neighborhood(Neighborhood::Four);
    let c = |x| grid.cell(x, 0).unwrap();
    let (outcome, stats) = solve(
        &grid,
        &[c(1), c(2)],
        &[c(2), c(1)],
        &LacamOptions::default(),
    )
    .unwrap();
    assert_eq!(outcome, LacamOutcome::NoSolution);
    assert!(
        stats.nodes <= 12,
        "4 cells, 2 agents: at most 12 configurations"
    );

    let bay = Grid::from_ascii("....\n.#.#")
        .unwrap()
        .with_neighborhood(Neighborhood::Four);
    let b = |x| bay.cell(x, 0).unwrap();
    let (outcome, _) = solve(&bay, &[b(1), b(2)], &[b(2), b(1)], &LacamOptions::default()).unwrap();
    let LacamOutcome::Solved(plan) = outcome else {
        panic!("solvable with the bay: {outcome:?}")
    };
    check_mapf_plan(&bay, &plan, &[b(1), b(2)], &[b(2), b(1)]);
}

#[test]
fn lacam_stops_at_its_node_limit() {
    let (grid, starts, goals) = maze_instance(100);
    let options = LacamOptions {
        node_limit: Some(5),
        ..LacamOptions::default()
    };
    let (outcome, stats) = solve(&grid, &starts, &goals, &options).unwrap();
    assert_eq!(outcome, LacamOutcome::Unfinished);
    assert_eq!(stats.nodes, 5);
}

#[test]
fn bad_instances_are_clear_errors() {
    let grid = Grid::from_ascii("..#\n..#\n###").unwrap();
    let c = |x, y| grid.cell(x, y).unwrap();
    let message = |starts: &[CellId], goals: &[CellId]| match solve(
        &grid,
        starts,
        goals,
        &LacamOptions::default(),
    ) {
        Err(Error::Invalid(m)) => m,
        other => panic!("expected an error, got {other:?}"),
    };
    assert!(message(&[c(0, 0)], &[]).contains("1 starts but 0 goals"));
    assert!(message(&[c(0, 0), c(0, 0)], &[c(1, 0), c(1, 1)]).contains("share the start (0, 0)"));
    assert!(message(&[c(0, 0)], &[c(2, 0)]).contains("goal (2, 0) is blocked"));
    assert!(message(&[99], &[c(0, 0)]).contains("outside the 3 x 3 grid"));
    let split = Grid::from_ascii(".#.").unwrap();
    let s = |x| split.cell(x, 0).unwrap();
    match solve(&split, &[s(0)], &[s(2)], &LacamOptions::default()) {
        Err(Error::Invalid(m)) => assert!(m.contains("cannot be reached"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn anytime_lacam_improves_on_its_first_plan() {
    // random-32-32-10, 50 agents: the first solution, then the anytime search for a bounded
    // number of nodes (a node limit, so the test does not depend on the machine's speed). Its
    // plan is valid, no dearer than the first, and here strictly cheaper.
    let scen = ScenFile::load(common::shipped("mapf/random-32-32-10-random-1.scen")).unwrap();
    let grid = load_map(common::shipped("mapf/random-32-32-10.map"))
        .unwrap()
        .with_neighborhood(Neighborhood::Four);
    let pairs: Vec<_> = scen.resolve(&grid).unwrap().into_iter().take(50).collect();
    let starts: Vec<CellId> = pairs.iter().map(|p| p.0).collect();
    let goals: Vec<CellId> = pairs.iter().map(|p| p.1).collect();
    let soc = |plan: &[Vec<CellId>]| -> usize {
        // Each agent's cost: the last time it is not on its goal, plus one.
        (0..goals.len())
            .map(|a| {
                plan.iter()
                    .rposition(|c| c[a] != goals[a])
                    .map_or(0, |t| t + 1)
            })
            .sum()
    };
    // lacam3's sum of loss: per agent, the steps it is not resting on its goal.
    let loss = |plan: &[Vec<CellId>]| -> u64 {
        (0..goals.len())
            .map(|a| {
                plan.windows(2)
                    .filter(|w| w[0][a] != goals[a] || w[1][a] != goals[a])
                    .count() as u64
            })
            .sum()
    };
    let (first, first_stats) = solve(&grid, &starts, &goals, &LacamOptions::default()).unwrap();
    let LacamOutcome::Solved(first) = first else {
        panic!("{first:?}")
    };
    // The counters lacam3 logs: the first solution's cost (the plan returned here), a
    // checkpoint at 0 ms before any solution, a low-level node or more per high-level one.
    assert_eq!(first_stats.first_solution_cost, Some(loss(&first)));
    assert_eq!(first_stats.checkpoints.first(), Some(&None));
    assert!(first_stats.low_level_nodes >= first_stats.nodes);
    assert!(first_stats.iterations >= first_stats.nodes);
    let options = LacamOptions {
        anytime: true,
        node_limit: Some(60_000),
        ..LacamOptions::default()
    };
    let (better, stats) = solve(&grid, &starts, &goals, &options).unwrap();
    let LacamOutcome::Solved(better) = better else {
        panic!("{better:?}")
    };
    check_mapf_plan(&grid, &better, &starts, &goals);
    assert!(stats.improvements > 0, "{stats:?}");
    assert!(
        soc(&better) < soc(&first),
        "anytime {} vs first {}",
        soc(&better),
        soc(&first)
    );
    assert!(stats.first_solution_ms.unwrap() <= stats.solution_ms.unwrap());
    assert!(
        stats.first_solution_cost.unwrap() > loss(&better),
        "{stats:?}"
    );
}

fn random_map_instance(agents: usize) -> (Grid, Vec<CellId>, Vec<CellId>) {
    common::mapf_instance(
        "mapf/random-32-32-10.map",
        "mapf/random-32-32-10-random-1.scen",
        agents,
        Neighborhood::Four,
    )
}

/// The sum of costs of LaCAM's plan under `options`, the plan checked first.
fn checked_soc(grid: &Grid, starts: &[CellId], goals: &[CellId], options: &LacamOptions) -> u64 {
    let (outcome, _) = solve(grid, starts, goals, options).unwrap();
    let LacamOutcome::Solved(plan) = outcome else {
        panic!("{outcome:?}")
    };
    check_mapf_plan(grid, &plan, starts, goals);
    plan_sum_of_costs(&plan, goals)
}

#[test]
fn scattered_agents_get_cheaper_first_solutions() {
    for (grid, starts, goals) in [random_map_instance(300), maze_instance(150)] {
        let plain = LacamOptions::default();
        let scattered = LacamOptions {
            scatter: Some(SCATTER_MARGIN),
            ..LacamOptions::default()
        };
        let mut socs = Vec::new();
        for options in [plain, scattered] {
            socs.push(checked_soc(&grid, &starts, &goals, &options));
        }
        assert!(
            socs[1] < socs[0],
            "scattered {} vs plain {}",
            socs[1],
            socs[0]
        );
    }
}

#[test]
fn several_pibt_runs_per_successor_give_cheaper_first_solutions() {
    for (grid, starts, goals) in [random_map_instance(300), maze_instance(150)] {
        let mut socs = Vec::new();
        for runs in [1, PIBT_RUNS] {
            let options = LacamOptions {
                scatter: Some(SCATTER_MARGIN),
                pibt_runs: runs,
                ..LacamOptions::default()
            };
            socs.push(checked_soc(&grid, &starts, &goals, &options));
        }
        assert!(
            socs[1] < socs[0],
            "{PIBT_RUNS} runs {} vs one {}",
            socs[1],
            socs[0]
        );
    }
}

#[test]
fn scatter_paths_lead_to_the_goals_within_the_margin_never_twice_through_a_cell() {
    let (grid, starts, goals) = random_map_instance(300);
    let dist = GoalDistances::new(&grid, &goals);
    let scatter = Scatter::new(&grid, &starts, &dist, SCATTER_MARGIN, None);
    let mut seen = vec![usize::MAX; grid.len()];
    for (a, &start) in starts.iter().enumerate() {
        let (mut at, mut moves) = (start, 0);
        seen[at as usize] = a;
        while let Some(next) = scatter.next_cell(a as u32, at) {
            // Simple paths: PIBT follows them cell by cell, whatever the time.
            assert_ne!(seen[next as usize], a, "agent {a}: back on a cell");
            seen[next as usize] = a;
            let offsets = grid.move_offsets();
            let step = |d: throng::grid::Direction| (i64::from(at) + offsets[d.index()]) as CellId;
            assert!(
                grid.moves(at).iter().any(|d| step(d) == next),
                "agent {a}: a jump"
            );
            at = next;
            moves += 1;
            assert!(
                moves <= dist.get(a as u32, start) + SCATTER_MARGIN,
                "agent {a}"
            );
        }
        assert_eq!(at, goals[a], "agent {a}: the path ends off its goal");
    }
}

#[test]
fn scatter_on_a_map_too_large_for_its_tables_makes_no_paths() {
    // 2,048 x 2,048 open cells and paths of 4,094 moves: the (timestep, cell) tables would take
    // hundreds of gigabytes. No paths, no tables, and LaCAM still solves it.
    let grid = Grid::from_ascii(&vec![".".repeat(2048); 2048].join("\n")).unwrap();
    let (a, b) = (grid.cell(0, 0).unwrap(), grid.cell(2047, 2047).unwrap());
    let (starts, goals) = ([a, b], [b, a]);
    let dist = GoalDistances::new(&grid, &goals);
    let scatter = Scatter::new(&grid, &starts, &dist, SCATTER_MARGIN, None);
    assert!(scatter.is_empty());
    assert_eq!(scatter.next_cell(0, a), None);
    let options = LacamOptions {
        scatter: Some(SCATTER_MARGIN),
        ..LacamOptions::default()
    };
    let (outcome, _) = solve(&grid, &starts, &goals, &options).unwrap();
    let LacamOutcome::Solved(plan) = outcome else {
        panic!("not solved: {outcome:?}");
    };
    assert_eq!(plan.last().unwrap(), &goals.to_vec());
    // The small instance above still gets its paths.
    let (grid, starts, goals) = random_map_instance(50);
    let dist = GoalDistances::new(&grid, &goals);
    assert!(!Scatter::new(&grid, &starts, &dist, SCATTER_MARGIN, None).is_empty());
}
