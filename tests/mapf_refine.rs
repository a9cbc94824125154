//! Plan refinement by large neighbourhood search (`mapf::refine`): refined plans pass the
//! independent validator and cost strictly less than LaCAM's first solutions, in 4- and
//! 8-connected worlds, with an iteration budget (so the tests do not depend on the machine's
//! speed); the same seed gives the same plan; a plan that is not valid is refused.

mod common;

use common::cli::throng;
use throng::error::Error;
use throng::grid::{CellId, Grid, Neighborhood};
use throng::mapf::check_step;
use throng::mapf::lacam::{LacamOptions, LacamOutcome, PIBT_RUNS, SCATTER_MARGIN, solve};
use throng::mapf::refine::{RefineOptions, refine};

/// LaCAM's first solution, as `throng mapf` makes it.
fn first_solution(grid: &Grid, starts: &[CellId], goals: &[CellId]) -> Vec<Vec<CellId>> {
    let options = LacamOptions {
        scatter: Some(SCATTER_MARGIN),
        pibt_runs: PIBT_RUNS,
        ..LacamOptions::default()
    };
    match solve(grid, starts, goals, &options).unwrap().0 {
        LacamOutcome::Solved(plan) => plan,
        other => panic!("{other:?}"),
    }
}

/// Checks a plan independently of the solvers: starts first, goals last, every step valid.
fn check_plan(grid: &Grid, plan: &[Vec<CellId>], starts: &[CellId], goals: &[CellId]) {
    assert_eq!(plan.first().map(Vec::as_slice), Some(starts));
    assert_eq!(plan.last().map(Vec::as_slice), Some(goals));
    for (t, pair) in plan.windows(2).enumerate() {
        if let Err(e) = check_step(grid, &pair[0], &pair[1]) {
            panic!("step {t}: {e}");
        }
    }
}

/// Sum of costs: per agent, the timestep from which it stays on its goal.
fn sum_of_costs(plan: &[Vec<CellId>], goals: &[CellId]) -> u64 {
    (0..goals.len())
        .map(|a| {
            plan.iter()
                .rposition(|c| c[a] != goals[a])
                .map_or(0, |t| t as u64 + 1)
        })
        .sum()
}

#[test]
fn refined_plans_are_valid_and_cheaper_in_both_neighbourhoods() {
    let cases = [
        (
            "mapf/random-32-32-10.map",
            "mapf/random-32-32-10-random-1.scen",
            150,
            Neighborhood::Four,
        ),
        (
            "mapf/random-32-32-10.map",
            "mapf/random-32-32-10-random-1.scen",
            150,
            Neighborhood::Eight,
        ),
        (
            "mapf/maze-32-32-2.map",
            "mapf/maze-32-32-2-random-5.scen",
            50,
            Neighborhood::Four,
        ),
    ];
    for (map, scen, agents, neighbourhood) in cases {
        let (grid, starts, goals) = common::mapf_instance(map, scen, agents, neighbourhood);
        let first = first_solution(&grid, &starts, &goals);
        let options = RefineOptions {
            iterations: Some(300),
            seed: 7,
            ..RefineOptions::default()
        };
        let (refined, stats) = refine(&grid, &first, &goals, &options).unwrap();
        check_plan(&grid, &refined, &starts, &goals);
        let (before, after) = (sum_of_costs(&first, &goals), sum_of_costs(&refined, &goals));
        assert_eq!((stats.initial_soc, stats.soc), (before, after), "{map}");
        assert!(
            after < before,
            "{map} {neighbourhood:?}: refined {after} vs first {before}"
        );
        assert_eq!(stats.iterations, 300);
        assert!(stats.improvements > 0 && stats.improvements <= stats.iterations);
        // The same seed, the same plan; another seed is allowed to differ.
        let (again, again_stats) = refine(&grid, &first, &goals, &options).unwrap();
        assert_eq!(again, refined, "{map} {neighbourhood:?}: not deterministic");
        assert_eq!(again_stats.soc, stats.soc);
    }
}

#[test]
fn a_plan_at_its_lower_bound_is_returned_as_it_is() {
    // Two agents on separate rows: each already on a shortest path; refinement stops at once.
    let grid = Grid::from_ascii("....\n....").unwrap();
    let c = |x, y| grid.cell(x, y).unwrap();
    let plan = vec![
        vec![c(0, 0), c(0, 1)],
        vec![c(1, 0), c(1, 1)],
        vec![c(2, 0), c(2, 1)],
    ];
    let goals = [c(2, 0), c(2, 1)];
    let options = RefineOptions {
        iterations: Some(50),
        ..RefineOptions::default()
    };
    let (refined, stats) = refine(&grid, &plan, &goals, &options).unwrap();
    assert_eq!(refined, plan);
    assert_eq!((stats.iterations, stats.soc), (0, 4));
}

#[test]
fn plans_that_are_not_valid_are_refused() {
    let grid = Grid::from_ascii("....\n....").unwrap();
    let c = |x, y| grid.cell(x, y).unwrap();
    let goals = [c(1, 0), c(0, 0)];
    let options = RefineOptions {
        iterations: Some(5),
        ..RefineOptions::default()
    };
    for (plan, want) in [
        (vec![], "empty"),
        // A swap.
        (
            vec![vec![c(0, 0), c(1, 0)], vec![c(1, 0), c(0, 0)]],
            "swapped",
        ),
        // Not on the goals at the end.
        (vec![vec![c(0, 0), c(1, 0)]], "does not end on its goal"),
        // One agent too few.
        (vec![vec![c(1, 0)]], "holds 1 agents"),
    ] {
        match refine(&grid, &plan, &goals, &options) {
            Err(Error::Invalid(msg)) => assert!(msg.contains(want), "{msg}"),
            other => panic!("{plan:?}: {other:?}"),
        }
    }
}

#[test]
fn a_plan_of_one_timestep_is_checked_too() {
    // No step to check: the one configuration must still be free cells, one agent each.
    let grid = Grid::from_ascii("..#\n...").unwrap();
    let c = |x, y| grid.cell(x, y).unwrap();
    let options = RefineOptions {
        iterations: Some(5),
        ..RefineOptions::default()
    };
    for (cells, want) in [
        (vec![c(0, 0), c(0, 0)], "two agents"),
        (vec![c(2, 0), c(0, 0)], "blocked"),
    ] {
        match refine(&grid, std::slice::from_ref(&cells), &cells, &options) {
            Err(Error::Invalid(msg)) => assert!(msg.contains(want), "{msg}"),
            other => panic!("{cells:?}: {other:?}"),
        }
    }
    let cells = vec![c(0, 0), c(1, 1)];
    let (plan, _) = refine(&grid, std::slice::from_ref(&cells), &cells, &options).unwrap();
    assert_eq!(plan, vec![cells]);
}

#[test]
fn a_plan_too_long_for_the_tables_is_refused_with_the_memory_it_needs() {
    // One agent across a 2,048 x 2,048 map: 2,112 timesteps x 4 M cells of tables, far past
    // the 2 GiB allowed.
    let grid = Grid::from_ascii(&vec![".".repeat(2048); 2048].join("\n")).unwrap();
    let plan: Vec<Vec<CellId>> = (0..2048).map(|x| vec![grid.cell(x, 0).unwrap()]).collect();
    let goals = [grid.cell(2047, 0).unwrap()];
    match refine(&grid, &plan, &goals, &RefineOptions::default()) {
        Err(Error::Invalid(msg)) => assert!(msg.contains("MiB of tables"), "{msg}"),
        other => panic!("{:?}", other.map(|(_, stats)| stats)),
    }
}

#[test]
fn mapf_anytime_refines_the_first_solution() {
    let map = common::shipped("mapf/random-32-32-10.map");
    let scen = common::shipped("mapf/random-32-32-10-random-1.scen");
    let args = |anytime: bool| {
        let mut v = vec![
            "mapf".to_string(),
            map.display().to_string(),
            scen.display().to_string(),
            "--agents".into(),
            "150".into(),
            "--json".into(),
        ];
        if anytime {
            // An iteration budget, not the time limit, ends the refinement: the same plan on
            // a loaded machine.
            v.extend([
                "--anytime".into(),
                "--refine-iterations".into(),
                "300".into(),
            ]);
        }
        v
    };
    let run = |anytime: bool| -> serde_json::Value {
        let a = args(anytime);
        let o = throng(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let (first, refined) = (run(false), run(true));
    assert_eq!(first["refine_iterations"], 0);
    assert_eq!(refined["refine_iterations"], 300);
    assert!(refined["soc"].as_u64() < first["soc"].as_u64(), "{refined}");
    assert!(refined["soc"].as_u64() >= refined["soc_lb"].as_u64());
}
