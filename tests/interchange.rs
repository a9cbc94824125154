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
    // PlanViz's run.py picks its 2024 parser by this key; without it, it takes the 2023 one,
    // which fails on the events.
    assert_eq!(json["version"].as_str(), Some("2024 LoRR"));
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
                    .is_some_and(|(a, b)| is_uint(a) && (is_uint(b) || b == "-1"))),
                "{key}: {s:?} is step:task pieces, comma-separated"
            );
            for piece in s.split(',').filter(|p| !p.is_empty()) {
                let task: i64 = piece.split_once(':').unwrap().1.parse().unwrap();
                if task >= 0 {
                    assert!(
                        task_ids.contains(&(task as u64)),
                        "{key}: task {task} is listed"
                    );
                    assigned += 1;
                }
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

/// A JSON value's type: `int`, `float`, `str`, `bool`, `null`, `{}`; `[T]` for a list whose
/// items are all of type `T`, `(T, U, ...)` for a list of items of several types, `[]` for an
/// empty list.
fn json_type(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Number(n) if n.is_u64() || n.is_i64() => "int".into(),
        Value::Number(_) => "float".into(),
        Value::String(_) => "str".into(),
        Value::Object(_) => "{}".into(),
        Value::Array(items) => {
            let types: Vec<String> = items.iter().map(json_type).collect();
            match types.first() {
                None => "[]".into(),
                Some(t) if types.iter().all(|u| u == t) => format!("[{t}]"),
                Some(_) => format!("({})", types.join(",")),
            }
        }
    }
}

/// The map's rows (after the 4 header lines of a Moving AI map).
fn map_rows(map: &Path) -> Vec<Vec<u8>> {
    std::fs::read_to_string(map)
        .unwrap()
        .lines()
        .skip(4)
        .map(|l| l.as_bytes().to_vec())
        .collect()
}

/// Checks the timestep conventions of a League of Robot Runners output file (the start kit's:
/// timestep `t` is the state after `t` moves) against a replay of its own actions, the way
/// PlanViz replays them (`MAPF_T`: `F` ahead, `R` clockwise, `C` counter-clockwise; `MAPF`:
/// `U` row + 1, `D` row - 1, `L`, `R`). Panics with `name` and what is wrong.
fn check_lorr_conventions(name: &str, json: &serde_json::Value, rows: &[Vec<u8>]) {
    let steps = json["makespan"].as_u64().unwrap() as usize;
    let team = json["teamSize"].as_u64().unwrap() as usize;
    let times = json["plannerTimes"].as_array().unwrap();
    assert_eq!(times.len(), steps, "{name}: one plannerTimes entry a step");
    let model = json["actionModel"].as_str().unwrap();
    // Every agent's cell after each number of moves.
    let mut cells: Vec<Vec<(i64, i64)>> = Vec::new();
    for a in 0..team {
        let start = json["start"][a].as_array().unwrap();
        let (mut r, mut c) = (start[0].as_i64().unwrap(), start[1].as_i64().unwrap());
        // E, N, W, S as PlanViz numbers them; R turns clockwise (E to S).
        let mut h = ["E", "N", "W", "S"]
            .iter()
            .position(|&d| Some(d) == start[2].as_str())
            .unwrap();
        let path = json["actualPaths"][a].as_str().unwrap();
        let mut at = vec![(r, c)];
        for action in path.split(',') {
            match (model, action) {
                (_, "W") => {}
                ("MAPF_T", "F") => {
                    let (dr, dc) = [(0, 1), (-1, 0), (0, -1), (1, 0)][h];
                    (r, c) = (r + dr, c + dc);
                }
                ("MAPF_T", "R") => h = (h + 3) % 4,
                ("MAPF_T", "C") => h = (h + 1) % 4,
                ("MAPF", "U") => r += 1,
                ("MAPF", "D") => r -= 1,
                ("MAPF", "L") => c -= 1,
                ("MAPF", "R") => c += 1,
                _ => panic!("{name}: agent {a}: action {action:?} under {model}"),
            }
            let free = usize::try_from(r).ok().zip(usize::try_from(c).ok());
            assert!(
                free.and_then(|(r, c)| rows.get(r)?.get(c))
                    .is_some_and(|&b| b != b'@' && b != b'T'),
                "{name}: agent {a} replayed onto ({r}, {c}), not a free cell"
            );
            at.push((r, c));
        }
        assert_eq!(at.len(), steps + 1, "{name}: agent {a}: one action a step");
        cells.push(at);
    }
    let tasks = json["tasks"].as_array().unwrap();
    let errands = |k: usize| -> Vec<(i64, i64)> {
        let locs = tasks[k][2].as_array().unwrap();
        locs.chunks(2)
            .map(|p| (p[0].as_i64().unwrap(), p[1].as_i64().unwrap()))
            .collect()
    };
    for (k, t) in tasks.iter().enumerate() {
        assert_eq!(t[0].as_u64(), Some(k as u64), "{name}: tasks listed by id");
    }
    // Schedules: "t:task" pieces, the first of every agent at timestep 1 (the first step's
    // planning), each at most at the last timestep, for a task revealed before it.
    let mut schedule: Vec<Vec<(usize, i64)>> = Vec::new();
    for (a, s) in json["actualSchedule"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let pieces: Vec<(usize, i64)> = s
            .as_str()
            .unwrap()
            .split(',')
            .map(|p| {
                let (t, k) = p.split_once(':').unwrap();
                (t.parse().unwrap(), k.parse().unwrap())
            })
            .collect();
        assert_eq!(
            pieces[0].0, 1,
            "{name}: agent {a}'s schedule starts at timestep 1"
        );
        for &(t, k) in &pieces {
            assert!(
                (1..=steps).contains(&t),
                "{name}: agent {a}: schedule at {t}"
            );
            if k >= 0 {
                let release = tasks[k as usize][1].as_u64().unwrap() as usize;
                assert!(
                    release < t,
                    "{name}: task {k} scheduled at {t}, revealed at {release}"
                );
            }
        }
        schedule.push(pieces);
    }
    // Events [t, agent, task, errands done]: the agent stands on that errand after t moves,
    // and holds the task since a timestep up to t.
    let mut finished_at: Vec<usize> = Vec::new();
    for e in json["events"].as_array().unwrap() {
        let e: Vec<usize> = e
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        let [t, a, k, done] = e[..] else {
            panic!("{name}: event {e:?}")
        };
        assert!((1..=steps).contains(&t), "{name}: event at {t}");
        let errands = errands(k);
        assert!((1..=errands.len()).contains(&done), "{name}: event {e:?}");
        assert_eq!(
            cells[a][t],
            errands[done - 1],
            "{name}: event {e:?}: the agent's cell after {t} moves is the errand's"
        );
        let held = schedule[a]
            .iter()
            .rev()
            .find(|&&(from, _)| from <= t)
            .map(|&(_, task)| task);
        assert_eq!(
            held,
            Some(k as i64),
            "{name}: event {e:?}: the agent's task then"
        );
        if done == errands.len() {
            finished_at.push(t);
        }
    }
    assert_eq!(
        json["numTaskFinished"].as_u64(),
        Some(finished_at.len() as u64),
        "{name}"
    );
    // A task is revealed at 0, or at the timestep of a finish, one for each.
    let mut revealed_later: Vec<usize> = tasks
        .iter()
        .map(|t| t[1].as_u64().unwrap() as usize)
        .filter(|&t| t > 0)
        .collect();
    revealed_later.sort_unstable();
    finished_at.sort_unstable();
    assert_eq!(
        revealed_later, finished_at,
        "{name}: tasks revealed at the timesteps tasks were finished"
    );
}

/// `throng lorr --out` has every key of the start kit's output for the same problem
/// (RANDOM-01, 100 steps; `tests/data/README.md`), in the kit's order, with the same types,
/// the same values where the problem decides them, and the same timestep conventions, which
/// are checked on both files alike. Its two keys more, `AllValid` and `sumOfCost`, PlanViz
/// does not read.
#[test]
fn lorr_output_matches_the_start_kits_key_for_key() {
    let kit_text =
        std::fs::read_to_string(repo("tests/data/lorr/start-kit-RANDOM-01-100-steps.json"))
            .unwrap();
    let kit: serde_json::Value = serde_json::from_str(&kit_text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let problem = repo("sims/lorr/random.domain/RANDOM-01.json");
    throng(&[
        "lorr",
        problem.to_str().unwrap(),
        "--steps",
        "100",
        "--out",
        out.to_str().unwrap(),
    ]);
    let ours_text = std::fs::read_to_string(&out).unwrap();
    let ours: serde_json::Value = serde_json::from_str(&ours_text).unwrap();
    let (kit_keys, our_keys) = (kit.as_object().unwrap(), ours.as_object().unwrap());
    for (key, value) in kit_keys {
        let ours = our_keys
            .get(key)
            .unwrap_or_else(|| panic!("the kit writes {key:?}, throng does not"));
        let (a, b) = (json_type(value), json_type(ours));
        assert!(
            a == b || a == "[]" || b == "[]" && a.starts_with('['),
            "{key}: the kit's is {a}, throng's {b}"
        );
    }
    let extra: Vec<&String> = our_keys
        .keys()
        .filter(|k| !kit_keys.contains_key(*k))
        .collect();
    assert_eq!(
        extra,
        ["AllValid", "sumOfCost"],
        "keys the kit does not write"
    );
    // The kit's keys in the kit's order.
    let position = |text: &str, key: &str| text.find(&format!("\"{key}\":")).unwrap();
    let mut order: Vec<&String> = kit_keys.keys().collect();
    order.sort_by_key(|k| position(&kit_text, k));
    let mut our_order = order.clone();
    our_order.sort_by_key(|k| position(&ours_text, k));
    assert_eq!(our_order, order, "the kit's keys in its order");
    for key in [
        "actionModel",
        "version",
        "teamSize",
        "makespan",
        "start",
        "numPlannerErrors",
        "numScheduleErrors",
        "numEntryTimeouts",
        "errors",
        "scheduleErrors",
    ] {
        assert_eq!(ours[key], kit[key], "{key}");
    }
    assert_eq!(ours["version"], "2024 LoRR");
    // Task k is line k of the tasks file (mod its length) in both, the same errands; as many
    // revealed at the start.
    let (kit_tasks, our_tasks) = (
        kit["tasks"].as_array().unwrap(),
        ours["tasks"].as_array().unwrap(),
    );
    for (k, t) in kit_tasks.iter().zip(our_tasks) {
        assert_eq!(k[0], t[0]);
        assert_eq!(k[2], t[2], "task {}: the same errands", k[0]);
    }
    let at_start = |tasks: &[serde_json::Value]| tasks.iter().filter(|t| t[1] == 0).count();
    assert_eq!(at_start(kit_tasks), at_start(our_tasks));
    let rows = map_rows(&repo("sims/lorr/random.domain/maps/random-32-32-20.map"));
    check_lorr_conventions("the start kit's output", &kit, &rows);
    check_lorr_conventions("throng's output", &ours, &rows);
}

/// Under the free action model the moves are PlanViz's letters as PlanViz replays them (`U`
/// a row down, `D` a row up): replayed so, every agent stays on free cells and stands on each
/// errand at its event.
#[test]
fn lorr_free_model_output_replays_as_planviz_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let problem = repo("sims/lorr/random.domain/RANDOM-01.json");
    throng(&[
        "lorr",
        problem.to_str().unwrap(),
        "--steps",
        "60",
        "--action-model",
        "free",
        "--out",
        out.to_str().unwrap(),
    ]);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["actionModel"], "MAPF");
    let rows = map_rows(&repo("sims/lorr/random.domain/maps/random-32-32-20.map"));
    check_lorr_conventions("throng's free-model output", &json, &rows);
}

/// A lacam3 result file's header: its `key=value` lines before `solution=`, in order.
fn lacam_header(text: &str) -> Vec<(&str, &str)> {
    let (header, _) = text.split_once("solution=\n").expect("a solution= line");
    header
        .lines()
        .map(|l| {
            l.split_once('=')
                .unwrap_or_else(|| panic!("{l:?} is key=value"))
        })
        .collect()
}

/// Checks a lacam3 result file's measures against its own solution, with lacam3's
/// definitions (`metrics.cpp`): `makespan` the timesteps, `soc` per agent the timestep from
/// which it stays on its goal, `sum_of_loss` per agent the steps it is not resting on its
/// goal; the first configuration is `starts`, the last `goals`.
fn check_lacam_measures(name: &str, text: &str) {
    let header: std::collections::HashMap<&str, &str> = lacam_header(text).into_iter().collect();
    let (_, solution) = text.split_once("solution=\n").unwrap();
    let configs: Vec<Vec<(u32, u32)>> = solution
        .lines()
        .map(|l| pairs(l.split_once(':').unwrap().1))
        .collect();
    assert_eq!(configs[0], pairs(header["starts"]), "{name}: starts");
    let goals = pairs(header["goals"]);
    assert_eq!(configs.last(), Some(&goals), "{name}: goals");
    let makespan = configs.len() - 1;
    let (mut soc, mut loss) = (0, 0);
    for (a, &g) in goals.iter().enumerate() {
        let mut t = configs.len();
        while t > 0 && configs[t - 1][a] == g {
            t -= 1;
        }
        soc += t;
        loss += configs
            .windows(2)
            .filter(|w| w[0][a] != g || w[1][a] != g)
            .count();
    }
    let value = |k: &str| header[k].parse::<usize>().unwrap();
    assert_eq!(value("makespan"), makespan, "{name}: makespan");
    assert_eq!(value("soc"), soc, "{name}: soc");
    assert_eq!(value("sum_of_loss"), loss, "{name}: sum_of_loss");
    assert_eq!(
        value("sum_of_loss_lb"),
        value("soc_lb"),
        "{name}: sum_of_loss_lb"
    );
}

/// `throng mapf --out` has every header key of lacam3's result file for the same instance
/// (`tests/data/README.md`), in lacam3's order, each value of the same form (an integer, a
/// name, a list of `(x,y),` or of `n,`), the instance's own values equal, and measures that
/// agree with its solution as lacam3 defines them (checked on both files alike).
/// mapf-visualizer itself reads only the solution's lines.
#[test]
fn mapf_plan_file_has_every_header_key_of_lacam3s() {
    let lacam = std::fs::read_to_string(repo(
        "tests/data/mapf/lacam3-random-32-32-10-random-1-40-agents.txt",
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.txt");
    let map = repo("sims/maps/mapf/random-32-32-10.map");
    let scen = repo("sims/maps/mapf/random-32-32-10-random-1.scen");
    for anytime in [false, true] {
        let mut args = vec![
            "mapf",
            map.to_str().unwrap(),
            scen.to_str().unwrap(),
            "--agents",
            "40",
            "--out",
            plan.to_str().unwrap(),
        ];
        if anytime {
            args.extend(["--anytime", "--time-limit", "0.2"]);
        }
        throng(&args);
        let ours = std::fs::read_to_string(&plan).unwrap();
        let (theirs_header, our_header) = (lacam_header(&lacam), lacam_header(&ours));
        let keys = |h: &[(&str, &str)]| h.iter().map(|&(k, _)| k.to_string()).collect::<Vec<_>>();
        assert_eq!(
            keys(&our_header),
            keys(&theirs_header),
            "lacam3's keys in its order"
        );
        let form = |key: &str, v: &str| -> &'static str {
            if v.parse::<i64>().is_ok() {
                "integer"
            } else if v.ends_with("),") {
                "cells"
            } else if v.ends_with(',')
                && v[..v.len() - 1]
                    .split(',')
                    .all(|n| n.parse::<i64>().is_ok())
            {
                "integers"
            } else {
                assert!(matches!(key, "map_file" | "solver"), "{key}={v}");
                "name"
            }
        };
        for (&(k, theirs), &(_, ours)) in theirs_header.iter().zip(&our_header) {
            assert_eq!(
                form(k, ours),
                form(k, theirs),
                "{k}: {ours:?} vs lacam3's {theirs:?}"
            );
        }
        let theirs: std::collections::HashMap<_, _> = theirs_header.into_iter().collect();
        let ours_map: std::collections::HashMap<_, _> = our_header.into_iter().collect();
        // lacam3 writes the map's file name; throng the map as it was given, so that `throng
        // view` finds it from where the plan was made: the same file.
        let our_map = std::path::Path::new(&ours_map["map_file"]);
        assert_eq!(
            our_map.file_name().and_then(|n| n.to_str()),
            Some(theirs["map_file"]),
            "map_file"
        );
        for k in [
            "agents",
            "soc_lb",
            "makespan_lb",
            "sum_of_loss_lb",
            "starts",
            "goals",
        ] {
            assert_eq!(ours_map[k], theirs[k], "{k}");
        }
        assert_eq!(ours_map["seed"], "0");
        // The search's counters: a first solution (its cost at least the final sum of loss),
        // a checkpoint at 0 ms before it.
        let int = |k: &str| ours_map[k].parse::<i64>().unwrap();
        assert!(int("cost_initial_solution") >= int("sum_of_loss"));
        assert!(int("comp_time_initial_solution") <= int("comp_time"));
        assert!(ours_map["checkpoints"].starts_with("-1,"));
        assert!(int("num_low_level_node") >= int("num_high_level_node"));
        assert!(int("search_iteration") >= int("num_high_level_node") - 1);
        check_lacam_measures("throng's plan", &ours);
    }
    check_lacam_measures("lacam3's result", &lacam);
}
