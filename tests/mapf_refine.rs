//! Plan refinement by large neighbourhood search (`mapf::refine`): refined plans pass the
//! independent validator and cost strictly less than LaCAM's first solutions, in 4- and
//! 8-connected worlds, with an iteration budget (so the tests do not depend on the machine's
//! speed); the same seed gives the same plan; a plan that is not valid is refused.

mod common;

use common::cli::throng;
use common::{check_mapf_plan, plan_sum_of_costs};
use throng::error::Error;
use throng::grid::{CellId, Grid, Neighborhood};
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
        check_mapf_plan(&grid, &refined, &starts, &goals);
        let (before, after) = (
            plan_sum_of_costs(&first, &goals),
            plan_sum_of_costs(&refined, &goals),
        );
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
fn mapf_polishes_the_first_solution_and_anytime_refines_it_further() {
    let map = common::shipped("mapf/random-32-32-10.map");
    let scen = common::shipped("mapf/random-32-32-10-random-1.scen");
    let run = |extra: &[&str]| -> serde_json::Value {
        let (map, scen) = (map.display().to_string(), scen.display().to_string());
        let mut args = vec!["mapf", &map, &scen, "--agents", "150", "--json"];
        args.extend(extra);
        let o = throng(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let soc = |v: &serde_json::Value| v["soc"].as_u64().unwrap();
    // LaCAM's plan as it is.
    let raw = run(&["--no-polish"]);
    assert_eq!(raw["refinement"], "none");
    assert_eq!(raw["refine_iterations"], 0);
    assert_eq!(soc(&raw), raw["lacam_soc"].as_u64().unwrap());
    // By default it is polished within a budget of work: the same plan each time, cheaper.
    let polished = run(&[]);
    assert_eq!(polished["refinement"], "polish");
    assert_eq!(
        polished["lacam_soc"], raw["lacam_soc"],
        "the same LaCAM plan underneath"
    );
    assert!(soc(&polished) < soc(&raw), "{polished}");
    assert!(polished["refine_iterations"].as_u64().unwrap() > 0);
    assert_eq!(
        run(&[])["soc"],
        polished["soc"],
        "the polish depends on no clock"
    );
    // An anytime search with an iteration budget, not the time limit, so that the plan is the
    // same on a loaded machine; with 3,000 neighbourhoods it goes further than the polish.
    let anytime = run(&["--anytime", "--refine-iterations", "3000"]);
    assert_eq!(anytime["refinement"], "anytime");
    assert_eq!(anytime["refine_iterations"], 3000);
    assert!(
        soc(&anytime) < soc(&polished),
        "{anytime} against {polished}"
    );
    assert!(soc(&anytime) >= anytime["soc_lb"].as_u64().unwrap());
    // --no-polish says it cannot go with --anytime.
    let (map, scen) = (map.display().to_string(), scen.display().to_string());
    let o = throng(&[
        "mapf",
        &map,
        &scen,
        "--agents",
        "5",
        "--anytime",
        "--no-polish",
    ]);
    common::cli::assert_one_line_error(&o, "--no-polish");
}

#[test]
fn an_expansion_budget_stops_the_refinement_the_same_way_on_any_machine() {
    let grid = Grid::from_ascii(&vec![".".repeat(12); 12].join("\n"))
        .unwrap()
        .with_neighborhood(Neighborhood::Four);
    let n = 40;
    let starts: Vec<CellId> = (0..n).map(|k| grid.cell(k % 12, k / 12).unwrap()).collect();
    let goals: Vec<CellId> = (0..n)
        .map(|k| grid.cell(11 - k % 12, 11 - k / 12).unwrap())
        .collect();
    let plan = first_solution(&grid, &starts, &goals);
    let refined = |expansions| {
        let options = RefineOptions {
            expansions: Some(expansions),
            ..RefineOptions::default()
        };
        refine(&grid, &plan, &goals, &options).unwrap()
    };
    let (small, small_stats) = refined(2_000);
    let (again, _) = refined(2_000);
    assert_eq!(small, again, "the same plan for the same budget");
    check_mapf_plan(&grid, &small, &starts, &goals);
    // It stops in the neighbourhood that reaches the budget, not before.
    assert!(small_stats.expanded >= 2_000, "{small_stats:?}");
    let (large, large_stats) = refined(200_000);
    check_mapf_plan(&grid, &large, &starts, &goals);
    assert!(large_stats.iterations > small_stats.iterations);
    assert!(large_stats.soc <= small_stats.soc && small_stats.soc <= small_stats.initial_soc);
    assert_eq!(plan_sum_of_costs(&large, &goals), large_stats.soc);
}
