//! Files other tools read: `throng mapf --out` (the plan text of LaCAM's result files, which
//! mapf-visualizer replays) and `throng lorr --out` (the League of Robot Runners 2024 output
//! JSON, which PlanViz replays), each checked against the grammar those readers parse, written
//! here in our own words, and against the run it describes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Runs `throng` with `args` and returns its standard output; it must succeed.
fn throng(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .output()
        .expect("throng runs");
    assert!(
        out.status.success(),
        "throng {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// `(x,y),(x,y),...,` (a comma after every pair, as LaCAM writes it) as coordinates.
fn pairs(text: &str) -> Vec<(u32, u32)> {
    assert!(
        text.ends_with("),"),
        "a comma after the last pair: {text:?}"
    );
    text[..text.len() - 2]
        .split("),")
        .map(|p| {
            let inner = p
                .strip_prefix('(')
                .unwrap_or_else(|| panic!("{p:?} opens with ("));
            let (x, y) = inner
                .split_once(',')
                .unwrap_or_else(|| panic!("{p:?} is (x,y)"));
            (x.parse().expect("x"), y.parse().expect("y"))
        })
        .collect()
}

/// mapf-visualizer reads the lines `t:(x,y),...,` after `solution=`: one per timestep from 0,
/// each with every agent's cell (x the column, y the row from the top), and the header keys
/// of LaCAM's result files before it.
#[test]
fn mapf_plan_text_is_what_mapf_visualizer_reads() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.txt");
    let map = repo("sims/maps/mapf/random-32-32-10.map");
    let scen = repo("sims/maps/mapf/random-32-32-10-random-1.scen");
    let agents = 40;
    throng(&[
        "mapf",
        map.to_str().unwrap(),
        scen.to_str().unwrap(),
        "--agents",
        &agents.to_string(),
        "--out",
        plan.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&plan).unwrap();
    let grid_text = std::fs::read_to_string(&map).unwrap();
    let rows: Vec<&str> = grid_text.lines().skip(4).collect();
    let walkable = |(x, y): (u32, u32)| {
        rows.get(y as usize)
            .and_then(|r| r.as_bytes().get(x as usize))
            .is_some_and(|&c| c == b'.')
    };
    let (header, solution) = text.split_once("solution=\n").expect("a solution= line");
    let mut keys = std::collections::HashMap::new();
    for line in header.lines() {
        let (k, v) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("header line {line:?} is key=value"));
        keys.insert(k, v);
    }
    for k in [
        "agents",
        "map_file",
        "solver",
        "solved",
        "soc",
        "soc_lb",
        "makespan",
        "makespan_lb",
        "comp_time",
        "starts",
        "goals",
    ] {
        assert!(keys.contains_key(k), "header key {k}");
    }
    assert_eq!(keys["agents"], agents.to_string());
    assert_eq!(keys["solved"], "1");
    let starts = pairs(keys["starts"]);
    let goals = pairs(keys["goals"]);
    assert_eq!((starts.len(), goals.len()), (agents, agents));
    let mut configs = Vec::new();
    for (t, line) in solution.lines().enumerate() {
        let (step, cells) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("line {line:?} is t:cells"));
        assert_eq!(step.parse::<usize>().unwrap(), t, "timesteps count from 0");
        let config = pairs(cells);
        assert_eq!(config.len(), agents, "every agent on every line");
        assert!(
            config.iter().all(|&c| walkable(c)),
            "cells on the map, walkable"
        );
        configs.push(config);
    }
    assert_eq!(configs.first(), Some(&starts));
    assert_eq!(configs.last(), Some(&goals));
    assert_eq!(
        keys["makespan"].parse::<usize>().unwrap(),
        configs.len() - 1
    );
    // Consecutive lines are moves of at most one cell (4-connected), so the replay is a plan.
    for w in configs.windows(2) {
        for (a, b) in w[0].iter().zip(&w[1]) {
            assert!(a.0.abs_diff(b.0) + a.1.abs_diff(b.1) <= 1, "{a:?} -> {b:?}");
        }
    }
}

/// A comma-separated list whose every piece matches `piece` (an empty list is the empty
/// string).
fn every_piece(text: &str, piece: impl Fn(&str) -> bool) -> bool {
    text.is_empty() || text.split(',').all(piece)
}

fn is_uint(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// PlanViz (2024 format) reads: `actionModel`, `teamSize`, `makespan`, `start` (per agent
/// `[row, column, heading]`), `actualPaths` and `plannerPaths` (per agent, one action letter
/// per step, comma-separated), `errors` (lists of 4 or 5), `tasks` (`[id, release step,
/// [row, column, ...]]`), `actualSchedule` (per agent, `step:task` pieces, comma-separated,
/// each read as two integers) and `events` (`[step, agent, task, next errand]`).
#[test]
fn lorr_output_json_is_what_planviz_reads() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let problem = repo("sims/lorr/random.domain/RANDOM-01.json");
    let steps = 60;
    throng(&[
        "lorr",
        problem.to_str().unwrap(),
        "--steps",
        &steps.to_string(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).expect("valid JSON");
    assert!(matches!(
        json["actionModel"].as_str(),
        Some("MAPF_T" | "MAPF")
    ));
    assert!(matches!(json["AllValid"].as_str(), Some("Yes" | "No")));
    let team = json["teamSize"].as_u64().expect("teamSize") as usize;
    assert_eq!(json["makespan"].as_u64(), Some(steps));
    for key in ["numTaskFinished", "sumOfCost"] {
        assert!(json[key].is_u64(), "{key}");
    }
    let start = json["start"].as_array().expect("start");
    assert_eq!(start.len(), team);
    for s in start {
        let s = s.as_array().expect("[row, column, heading]");
        assert_eq!(s.len(), 3);
        assert!(s[0].is_u64() && s[1].is_u64());
        assert!(matches!(s[2].as_str(), Some("E" | "S" | "W" | "N")));
    }
    for key in ["actualPaths", "plannerPaths"] {
        let paths = json[key].as_array().expect(key);
        assert_eq!(paths.len(), team, "{key}");
        for p in paths {
            let p = p.as_str().expect("a string per agent");
            assert!(
                every_piece(p, |a| matches!(a, "F" | "R" | "C" | "W")),
                "{key}: {p:?}"
            );
            assert_eq!(
                p.split(',').count(),
                steps as usize,
                "{key}: one action a step"
            );
        }
    }
    let times = json["plannerTimes"].as_array().expect("plannerTimes");
    assert!(times.iter().all(|t| t.as_f64().is_some_and(|t| t >= 0.0)));
    for e in json["errors"].as_array().expect("errors") {
        let n = e.as_array().expect("a list").len();
        assert!(n == 4 || n == 5);
    }
    let tasks = json["tasks"].as_array().expect("tasks");
    assert!(!tasks.is_empty());
    let mut task_ids = std::collections::HashSet::new();
    for t in tasks {
        let t = t.as_array().expect("[id, release, locations]");
        assert_eq!(t.len(), 3);
        task_ids.insert(t[0].as_u64().expect("id"));
        assert!(t[1].is_u64());
        let locations = t[2].as_array().expect("locations");
        assert!(
            !locations.is_empty() && locations.len() % 2 == 0,
            "row, column pairs"
        );
        assert!(locations.iter().all(serde_json::Value::is_u64));
    }
    let mut assigned = 0;
    for key in ["actualSchedule", "plannerSchedule"] {
        let schedules = json[key].as_array().expect(key);
        assert_eq!(schedules.len(), team, "{key}");
        for s in schedules {
            let s = s.as_str().expect("a string per agent");
            assert!(
                every_piece(s, |piece| piece
                    .split_once(':')
                    .is_some_and(|(a, b)| is_uint(a) && is_uint(b))),
                "{key}: {s:?} is step:task pieces, comma-separated"
            );
            for piece in s.split(',').filter(|p| !p.is_empty()) {
                let task: u64 = piece.split_once(':').unwrap().1.parse().unwrap();
                assert!(task_ids.contains(&task), "{key}: task {task} is listed");
                assigned += 1;
            }
        }
    }
    assert!(assigned > 0, "tasks were assigned");
    let events = json["events"].as_array().expect("events");
    assert!(!events.is_empty(), "errands were done in {steps} steps");
    for e in events {
        let e = e.as_array().expect("[step, agent, task, next errand]");
        assert_eq!(e.len(), 4);
        assert!(e.iter().all(serde_json::Value::is_u64));
        assert!(e[0].as_u64().unwrap() <= steps);
        assert!((e[1].as_u64().unwrap() as usize) < team);
        assert!(task_ids.contains(&e[2].as_u64().unwrap()));
        assert!(e[3].as_u64().unwrap() >= 1, "errands count from 1");
    }
}
