//! `throng run --map FILE.map` and `--generate SPEC`: a map played with the built-in default
//! scenario's settings and agents at random; and `--paths FILE`, every agent's cell at every
//! tick as CSV or JSON Lines, checked for legal moves against the map and the summary.

mod common;

use common::cli::{json_file as json, ok, s, text, throng};

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use tempfile::TempDir;
use throng::grid::Grid;

/// A folder holding `rooms.map`, 48 x 48 cells of 7 x 7 rooms written by `throng gen` (one
/// connected area).
fn rooms() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("rooms.map");
    ok(&[
        "gen",
        "rooms",
        "--width",
        "48",
        "--height",
        "48",
        "--room",
        "7",
        "--door",
        "2",
        "--seed",
        "4",
        "--queries",
        "0",
        "--out",
        map.to_str().unwrap(),
    ]);
    (dir, map)
}

/// One agent's record of a `.jsonl` paths file.
struct Track {
    goal: (u32, u32),
    arrived_at: Option<u64>,
    cells: Vec<(u32, u32)>,
}

fn read_jsonl(path: &Path) -> Vec<Track> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["agent"], i as u64, "agents in order");
            let axis = |k: &str| -> Vec<u32> {
                v[k].as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_u64().unwrap() as u32)
                    .collect()
            };
            let (x, y) = (axis("x"), axis("y"));
            assert_eq!(x.len(), y.len());
            Track {
                goal: (
                    v["goal_x"].as_u64().unwrap() as u32,
                    v["goal_y"].as_u64().unwrap() as u32,
                ),
                arrived_at: v["arrived_at"].as_u64(),
                cells: x.into_iter().zip(y).collect(),
            }
        })
        .collect()
}

/// The cells of a `.csv` paths file, by agent then tick; checks its header and row order.
fn read_csv(path: &Path) -> Vec<Vec<(u32, u32)>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("agent,tick,x,y"));
    let mut by_agent: Vec<Vec<(u32, u32)>> = Vec::new();
    let mut last = (0u64, 0usize);
    for (i, row) in lines.enumerate() {
        let f: Vec<u64> = row.split(',').map(|c| c.parse().unwrap()).collect();
        assert_eq!(f.len(), 4, "{row}");
        let (agent, tick) = (f[0] as usize, f[1]);
        if i > 0 {
            assert!(
                (tick, agent) > (last.0, last.1),
                "rows in tick order: {row}"
            );
        }
        last = (tick, agent);
        if by_agent.len() <= agent {
            by_agent.resize(agent + 1, Vec::new());
        }
        assert_eq!(by_agent[agent].len() as u64, tick, "{row}");
        by_agent[agent].push((f[2] as u32, f[3] as u32));
    }
    by_agent
}

/// Every move is to the same cell or a neighbour (8-connected), on a walkable cell, and no
/// two agents share a cell at any tick.
fn assert_legal(grid: &Grid, tracks: &[Vec<(u32, u32)>]) {
    let ticks = tracks[0].len();
    assert!(
        tracks.iter().all(|t| t.len() == ticks),
        "every agent every tick"
    );
    for (a, t) in tracks.iter().enumerate() {
        for (i, &(x, y)) in t.iter().enumerate() {
            let cell = grid.cell(x, y).expect("on the map");
            assert!(
                grid.is_walkable(cell),
                "agent {a} tick {i} on a wall ({x}, {y})"
            );
            if i > 0 {
                let (px, py) = t[i - 1];
                assert!(
                    px.abs_diff(x) <= 1 && py.abs_diff(y) <= 1,
                    "agent {a} jumps from ({px}, {py}) to ({x}, {y}) at tick {i}"
                );
            }
        }
    }
    for i in 0..ticks {
        let mut seen = HashSet::new();
        for (a, t) in tracks.iter().enumerate() {
            assert!(seen.insert(t[i]), "tick {i}: agent {a} shares {:?}", t[i]);
        }
    }
}

#[test]
fn a_map_file_runs_with_its_agents_at_random_distinct_starts_and_goals() {
    let (dir, map) = rooms();
    let (j, p) = (dir.path().join("s.json"), dir.path().join("p.jsonl"));
    let out = ok(&[
        "run",
        "--map",
        s(&map),
        "--agents",
        "60",
        "--json",
        s(&j),
        "--paths",
        s(&p),
    ]);
    // The table and the JSON say which map was played and with what.
    assert!(
        out.contains("scenario     rooms: agents placed at random"),
        "{out}"
    );
    assert!(out.contains("setup        60 agents,"), "{out}");
    assert!(out.contains(&format!("map          {}", s(&map))), "{out}");
    assert!(
        out.contains("planner auto, conflicts pibt, action model free"),
        "{out}"
    );
    let v = json(&j);
    assert_eq!(v["map"], s(&map));
    assert_eq!(v["scenario_file"], format!("--map {}", s(&map)));
    assert_eq!(
        (v["agents"].as_u64(), v["seed"].as_u64()),
        (Some(60), Some(1))
    );
    assert_eq!(v["planner"], "auto", "sims/default.toml's settings");
    let tracks = read_jsonl(&p);
    assert_eq!(tracks.len(), 60);
    let starts: HashSet<_> = tracks.iter().map(|t| t.cells[0]).collect();
    let goals: HashSet<_> = tracks.iter().map(|t| t.goal).collect();
    assert_eq!((starts.len(), goals.len()), (60, 60), "distinct");
    assert!(tracks.iter().all(|t| t.cells[0] != t.goal));
    // --set and --ticks apply as to a scenario file.
    let j2 = dir.path().join("s2.json");
    ok(&[
        "run",
        "--map",
        s(&map),
        "--agents",
        "30",
        "--set",
        "conflicts=avoid",
        "--ticks",
        "9",
        "-q",
        "--json",
        s(&j2),
    ]);
    let v = json(&j2);
    assert_eq!(
        (
            v["conflicts"].as_str(),
            v["ticks"].as_u64(),
            v["agents"].as_u64()
        ),
        (Some("avoid"), Some(9), Some(30))
    );
}

#[test]
fn placement_and_run_are_the_same_on_any_thread_count() {
    let (dir, map) = rooms();
    let run = |threads: &str| {
        let p = dir.path().join(format!("p{threads}.csv"));
        let j = dir.path().join(format!("s{threads}.json"));
        ok(&[
            "run",
            "--map",
            s(&map),
            "--agents",
            "80",
            "--seed",
            "9",
            "--threads",
            threads,
            "-q",
            "--json",
            s(&j),
            "--paths",
            s(&p),
        ]);
        (
            json(&j)["final_state_hash"].clone(),
            std::fs::read(&p).unwrap(),
        )
    };
    let (one, two) = (run("1"), run("2"));
    assert_eq!(one.0, two.0);
    assert!(one.1 == two.1, "the same paths, starts included");
    let other = dir.path().join("other.json");
    ok(&[
        "run",
        "--map",
        s(&map),
        "--agents",
        "80",
        "--seed",
        "10",
        "-q",
        "--json",
        s(&other),
    ]);
    assert_ne!(
        json(&other)["final_state_hash"],
        one.0,
        "--seed places anew"
    );
}

#[test]
fn a_generated_map_is_the_map_gen_writes_for_the_seed() {
    let dir = tempfile::tempdir().unwrap();
    let written = dir.path().join("r.map");
    ok(&[
        "gen",
        "random",
        "--width",
        "40",
        "--height",
        "30",
        "--density",
        "0.15",
        "--seed",
        "5",
        "--queries",
        "0",
        "--out",
        s(&written),
    ]);
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    let out = ok(&[
        "run",
        "--generate",
        "random:40x30:0.15",
        "--seed",
        "5",
        "--agents",
        "40",
        "--json",
        s(&a),
    ]);
    assert!(
        out.contains("map          generated random (density 0.15) 40 x 30, seed 5"),
        "{out}"
    );
    ok(&[
        "run",
        "--map",
        s(&written),
        "--seed",
        "5",
        "--agents",
        "40",
        "-q",
        "--json",
        s(&b),
    ]);
    let (a, b) = (json(&a), json(&b));
    assert_eq!(a["map"], "generated random (density 0.15) 40 x 30, seed 5");
    assert_eq!(
        a["final_state_hash"], b["final_state_hash"],
        "same map, same run"
    );
    // Parts left out take gen's defaults; every kind runs.
    for spec in ["maze:33x33", "rooms:40x40:9:2"] {
        let o = ok(&["run", "--generate", spec, "--agents", "20", "--ticks", "5"]);
        assert!(o.contains("20 agents"), "{o}");
    }
}

/// An error run: status 2, one line on stderr, containing `want`, nothing on stdout.
fn assert_error(args: &[&str], want: &str) {
    let o = throng(args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err:?}");
    assert!(err.starts_with("throng: error: "), "{err}");
    assert!(err.contains(want), "{args:?}: {err:?} lacks {want:?}");
    assert!(o.stdout.is_empty(), "{args:?}");
}

#[test]
fn combinations_that_cannot_apply_are_one_line_errors() {
    let (dir, map) = rooms();
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("sims/crowd-rooms.toml");
    let paths = dir.path().join("p.csv");
    for (args, want) in [
        (
            vec!["run", s(&scenario), "--map", s(&map)],
            "plays a map without a scenario file",
        ),
        (
            vec!["run", s(&scenario), "--generate", "maze"],
            "--generate maze: plays a map without a scenario file",
        ),
        (
            vec!["run", "--agents", "5"],
            "--agents 5: only with --map or --generate",
        ),
        (
            vec!["run", "--map", s(&map), "--generate", "maze"],
            "give one",
        ),
        (
            vec![
                "run",
                "--map",
                s(&map),
                "--agents",
                "5",
                "--set",
                "agents=7",
            ],
            "--agents 5 and --set agents=7 both give the number of agents",
        ),
        (
            vec![
                "run",
                "--map",
                s(&map),
                "--agents",
                "5000",
                "--paths",
                s(&paths),
            ],
            "agents: 5000 agents do not fit: the largest connected area of the map has",
        ),
        (
            vec!["run", "--generate", "spiral:9x9"],
            "unknown map kind \"spiral\"",
        ),
        (vec!["run", "--generate", "random:9"], "expected WxH"),
        (
            vec!["run", "--generate", "random:9x9:2"],
            "density must be from 0 to below 1",
        ),
        (
            vec!["run", "--map", "no-such.map"],
            "--map no-such.map: no such file",
        ),
        (
            vec!["run", "--paths", "p.txt"],
            "--paths p.txt: expected a .csv file",
        ),
    ] {
        assert_error(&args, want);
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "nothing written beside the map"
    );
}

#[test]
fn paths_files_are_legal_and_end_where_the_summary_says() {
    let (dir, map) = rooms();
    let grid = throng::movingai::load_map(&map).unwrap();
    let (c, l, j) = (
        dir.path().join("p.csv"),
        dir.path().join("p.jsonl"),
        dir.path().join("s.json"),
    );
    // Cut short: some agents arrive, some do not.
    let out = ok(&[
        "run",
        "--map",
        s(&map),
        "--agents",
        "200",
        "--ticks",
        "25",
        "--paths",
        s(&c),
        "--json",
        s(&j),
    ]);
    assert!(out.contains("paths        200 agents x 26 ticks"), "{out}");
    ok(&[
        "run",
        "--map",
        s(&map),
        "--agents",
        "200",
        "--ticks",
        "25",
        "--paths",
        s(&l),
        "-q",
    ]);
    let v = json(&j);
    let tracks = read_jsonl(&l);
    let rows = read_csv(&c);
    assert_eq!(tracks.len(), 200);
    assert!(
        tracks.iter().zip(&rows).all(|(t, r)| &t.cells == r),
        "the CSV and JSONL files hold the same cells"
    );
    assert_eq!(rows[0].len() as u64, v["ticks"].as_u64().unwrap() + 1);
    assert_legal(&grid, &rows);
    // The agents at their goal at the end are the summary's arrivals, and the ticks since
    // each reached it for good add up to its sum of costs.
    let (mut arrived, mut soc, mut makespan) = (0u64, 0u64, 0u64);
    for t in &tracks {
        let last = *t.cells.last().unwrap();
        if last == t.goal {
            let since = t
                .cells
                .iter()
                .rposition(|&c| c != t.goal)
                .map_or(0, |i| i + 1) as u64;
            assert_eq!(t.arrived_at, Some(since));
            arrived += 1;
            soc += since;
            makespan = makespan.max(since);
        } else {
            assert_eq!(t.arrived_at, None);
        }
    }
    assert!(arrived > 0 && arrived < 200, "cut short: {arrived} arrived");
    assert_eq!(v["arrived"], arrived);
    assert_eq!(v["sum_of_costs"], soc);
    assert_eq!(v["makespan"], makespan);
    assert_eq!(v["sum_of_costs_covers"], "arrived_agents");
}

#[test]
fn a_failed_run_leaves_no_paths_file_and_keeps_an_old_one() {
    let (dir, map) = rooms();
    let p = dir.path().join("keep.csv");
    std::fs::write(&p, "old\n").unwrap();
    let o = throng(&[
        "run",
        "--map",
        s(&map),
        "--agents",
        "100000",
        "--paths",
        s(&p),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "old\n");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
}
