//! Recorded results of every shipped problem, so that a change meant to keep behaviour (a
//! refactor of the simulation core, a faster data structure) is shown to keep it: every
//! shipped scenario's final state hash, the shipped League of Robot Runners problems' task
//! counts under each action model, and the plans `throng mapf` returns for shipped MAPF
//! instances. A change that is meant to alter behaviour updates these values and says why in
//! its commit.
//!
//! The values were recorded with `throng run FILE --json -`, `throng lorr PROBLEM --json
//! --action-model M` and `throng mapf ... --out PLAN` (the plan's lines after its `solution=`
//! line hashed with FNV-1a). The same seed gives the same run on any number of threads, so the
//! values hold on any machine.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `throng` from the repository root; panics with its stderr when it fails.
fn throng(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_throng"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("run throng");
    assert!(
        out.status.success(),
        "throng {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// 64-bit FNV-1a of `bytes`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[test]
fn fnv1a_is_the_reference_function() {
    assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
}

/// What a scenario's run is recorded as: (file, ticks to play or `None` for the file's own,
/// final state hash, ticks played, agents arrived, sum of costs).
type Recorded = (&'static str, Option<u64>, &'static str, u64, u64, u64);

/// Every scenario file in `sims/`. Re-recorded 2026-11-29 when random and crowd placements
/// began numbering the agents in the Morton order of their starts, and crowds of 4,096 agents
/// or more began breaking PIBT's ties by the Morton order of their cells, drawn every 256
/// ticks (`sim/pibt_movement.rs`; the old values,
/// hash / ticks / arrived / sum of costs: crowd-100k 610bca6289fe308d / 60 / 968 / 42,251,
/// crowd-rooms 3eb62b8518da3838 / 360 / 1,200 / 298,689, default 61d58179ab05374a / 685 /
/// 10,000 / 2,828,170, doors a4e16a25cb0b2cae / 561 / 300 / 54,053, lifelong ced3d70f7b82a27a;
/// seeds 1-4 mean sums of costs before / after: default 2,825,138 / 2,839,072, crowd-rooms
/// 301,922 / 298,316, doors 53,760 / 53,657). crowd-100k re-recorded the same day when it
/// began deciding moves in regions of 256 (`sim/regions.rs`; before: e0f50b12c1c31610 / 60 /
/// 985 / 42,914; the whole run's sum of costs 81,986,203 -> 83,166,375, makespan 2,021 ->
/// 1,998). Every hash re-recorded when the state hash became a sum over the agents (computed
/// on the pool; sums of costs, ticks and arrivals unchanged; the old hashes, in the order
/// below: dd2f79c829cc0ac8, e748f9c4028e5540, 17f8fbfbdb2d7606, 94efd73d9a89f192,
/// 89bf281ab61deda6, 9b71eedae6bc5974).
const SCENARIOS: [Recorded; 6] = [
    // 100,000 agents: the first 60 ticks (the first tick plans every agent).
    (
        "sims/crowd-100k.toml",
        Some(60),
        "4650ecc2e81e8f3d",
        60,
        989,
        43071,
    ),
    (
        "sims/crowd-rooms.toml",
        None,
        "00ccbef84e5f05ee",
        347,
        1200,
        294519,
    ),
    (
        "sims/default.toml",
        None,
        "55de575d93ed6379",
        692,
        10000,
        2840702,
    ),
    ("sims/doors.toml", None, "66fd1970ac08c462", 561, 300, 55054),
    ("sims/lifelong.toml", None, "296337f008da2a7a", 1000, 0, 0),
    (
        "sims/mapf-random-32-32-10.toml",
        None,
        "a855b7fd1554b150",
        58,
        100,
        3270,
    ),
];

#[test]
fn every_shipped_scenario_is_recorded() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("sims"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| format!("sims/{}", p.file_name().unwrap().to_string_lossy()))
        // A million agents need about 10 GB: parsed only (tests/scenario_files.rs).
        .filter(|f| f != "sims/crowd-1m.toml")
        .collect();
    files.sort();
    let recorded: Vec<&str> = SCENARIOS.iter().map(|s| s.0).collect();
    assert_eq!(files, recorded, "add the new scenario's recorded values");
}

#[test]
fn shipped_scenarios_end_in_their_recorded_states() {
    let mut wrong = Vec::new();
    for (file, ticks, hash, played, arrived, soc) in SCENARIOS {
        let ticks = ticks.map(|t| t.to_string());
        let mut args = vec!["run", file, "--quiet", "--json", "-"];
        if let Some(t) = &ticks {
            args.extend(["--ticks", t]);
        }
        let v = json(&throng(&args));
        let got = (
            v["final_state_hash_hex"].as_str().unwrap_or("").to_string(),
            v["ticks"].as_u64().unwrap(),
            v["arrived"].as_u64().unwrap(),
            v["sum_of_costs"].as_u64().unwrap(),
        );
        if got != (hash.to_string(), played, arrived, soc) {
            wrong.push(format!(
                "{file}: got {got:?}, recorded {:?}",
                (hash, played, arrived, soc)
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn shipped_lorr_problems_finish_their_recorded_tasks() {
    // (problem, planner, action model, tasks finished, errands done, moves) over the problem's
    // 600 steps. The sim planner's values predate the pibt planner (and changed only with the
    // task assignment, below); the pibt planner's are its own (no time limit, so the same on
    // any machine). They changed with the crisscross lanes of its distance tables (2026-11-25, `PibtConfig::lane_cost`
    // 2): 505 -> 554 and 569 -> 669 tasks; and when robots that would move got planned
    // before robots that would turn (2026-11-25): 554 -> 557 and 669 -> 703; and when a robot
    // became restless after 30 steps without a move instead of 20 (2026-11-26: 10,000 robots
    // on warehouse_large lose less to random moves; means of seeds 0-5 557 / 692 against 558 /
    // 686): 557 -> 557 and 703 -> 693. The pibt and window planners' counts changed with the
    // task assignment (2026-11-26, `TaskAssignment::Reassign`: unopened tasks go to the robot
    // nearest them by the distance tables, short tasks first; means of seeds 0-5 with the
    // window planner 613 / 1,060 -> 633 / 1,118): pibt 557 -> 582 and 693 -> 795, window
    // 613 -> 635 and 1,081 -> 1,116; the sim planner's too (it has no distance tables, so the
    // board measures by Manhattan distance for it): rotate 581 -> 569 and 905 -> 927, free
    // 724 -> 733 and 931 -> 994 (`--assignment nearest` still gives the old values).
    let cases = [
        ("RANDOM-01", "sim", "rotate", 569, 2060, 38527),
        ("RANDOM-01", "sim", "free", 733, 2636, 55853),
        ("RANDOM-02", "sim", "rotate", 927, 3375, 67788),
        ("RANDOM-02", "sim", "free", 994, 3613, 97178),
        ("RANDOM-01", "pibt", "rotate", 582, 2117, 39611),
        ("RANDOM-02", "pibt", "rotate", 795, 2966, 59814),
        // The window planner (2026-11-26: 15 steps, 500 search attempts a step, lanes 2; its
        // PIBT rollout's robots restless after 30 steps without a move, as the pibt planner's):
        // 613 and 1,081 tasks; then its search in rounds of up to 16 groups on all threads and
        // lanes chosen by the map, none on this 32 x 32 map (2026-11-26; means of seeds 0-5 613
        // / 1,060 -> 657 / 1,109): 613 -> 656 and 1,081 -> 1,109; with the task assignment that
        // reassigns unopened tasks and lets short ones go first (2026-11-26): 683 and 1,183.
        ("RANDOM-01", "window", "rotate", 683, 2451, 43736),
        ("RANDOM-02", "window", "rotate", 1183, 4296, 79498),
    ];
    let mut wrong = Vec::new();
    for (problem, planner, model, tasks, errands, moves) in cases {
        let path = format!("sims/lorr/random.domain/{problem}.json");
        let v = json(&throng(&[
            "lorr",
            &path,
            "--planner",
            planner,
            "--action-model",
            model,
            "--step-ms",
            "0",
            "--json",
        ]));
        let got = (
            v["tasks_finished"].as_u64().unwrap(),
            v["errands_done"].as_u64().unwrap(),
            v["moves"].as_u64().unwrap(),
        );
        if got != (tasks, errands, moves) {
            wrong.push(format!(
                "{problem} {planner} {model}: got {got:?}, recorded {:?}",
                (tasks, errands, moves)
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn shipped_mapf_instances_get_their_recorded_plans() {
    // (map, scen, agents, neighbourhood, then LaCAM's first solution (`--no-polish`) and the
    // plan `throng mapf` returns by default, polished by a refinement with a budget of work:
    // each as sum of costs, makespan, FNV-1a of the solution lines).
    // LaCAM's were re-recorded when `throng mapf` began to scatter the agents over
    // near-shortest paths (mapf::scatter): every sum of costs dropped (3,128 -> 2,607,
    // 3,169 -> 2,966, 3,679 -> 3,513), makespans the same or lower (56 -> 53); and again when
    // it kept the best of 10 PIBT runs per successor (lacam::PIBT_RUNS): 2,601, 2,894, 3,470.
    // The polished plans were recorded when the polish became the default (2026-11-26).
    // Both re-recorded (2026-11-28) when the scatter's paths became simple (an A* over cells,
    // meetings first, margin 10, rounds while the meetings fall) and the polish began its
    // neighbourhoods with the agents visiting the seed's goal, bounded its searches by the
    // goal's last visit and took 15 states per unit of cost: LaCAM's 2,601 -> 2,402, 2,894 ->
    // 2,763, 3,470 -> 3,173; polished 2,413 -> 2,361, 2,831 -> 2,608, 3,238 -> 3,075
    // (makespans 54 -> 53, 32 -> 33, 124 -> 130).
    let cases = [
        (
            "random-32-32-10",
            "random-32-32-10-random-1",
            "100",
            "4",
            (2402, 53, 0x1830_c45f_4a91_4d90_u64),
            (2361, 53, 0xb409_c981_7547_546b_u64),
        ),
        (
            "random-32-32-10",
            "random-32-32-10-random-1",
            "150",
            "8",
            (2763, 32, 0xa98e_c34b_3690_11b6),
            (2608, 33, 0x99a6_855e_b8ff_c2ec),
        ),
        (
            "maze-32-32-2",
            "maze-32-32-2-random-5",
            "50",
            "4",
            (3173, 130, 0xd294_d81e_d098_75e9),
            (3075, 130, 0xef8f_d0a3_2c78_3bd8),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut wrong = Vec::new();
    let runs = cases
        .iter()
        .flat_map(|&(map, scen, agents, nb, lacam, polished)| {
            [
                (map, scen, agents, nb, true, lacam),
                (map, scen, agents, nb, false, polished),
            ]
        });
    for (map, scen, agents, nb, raw, (soc, makespan, plan_hash)) in runs {
        let plan = dir.path().join(format!("{map}-{agents}-{nb}-{raw}.txt"));
        let map_path = format!("sims/maps/mapf/{map}.map");
        let scen_path = format!("sims/maps/mapf/{scen}.scen");
        let mut args = vec![
            "mapf",
            &map_path,
            &scen_path,
            "--agents",
            agents,
            "--neighbourhood",
            nb,
            "--json",
            "--out",
            plan.to_str().unwrap(),
        ];
        if raw {
            args.push("--no-polish");
        }
        let v = json(&throng(&args));
        let text = std::fs::read_to_string(Path::new(&plan)).unwrap();
        let solution = text
            .split_once("\nsolution=")
            .map(|(_, s)| s)
            .expect("a solution= line");
        let got = (
            v["status"].as_str().unwrap_or("").to_string(),
            v["soc"].as_u64().unwrap(),
            v["makespan"].as_u64().unwrap(),
            fnv1a(solution.as_bytes()),
        );
        if got != ("solved".to_string(), soc, makespan, plan_hash) {
            wrong.push(format!(
                "{map} {agents} agents, {nb}-connected, {}: got {got:?} (hash {:#x}), recorded {:?}",
                if raw { "--no-polish" } else { "polished" },
                got.3,
                (soc, makespan, plan_hash)
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}
