//! `throng run`: the summary table, `--json` and `--csv` files, the overrides, the thread
//! comparison, and one-line errors for bad scenario files.

mod common;

use common::cli::{assert_error, json_file as json, ok, text, throng};
use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

/// A temporary folder holding `small.toml`: 50 agents on a generated 64 x 64 map, 50 ticks,
/// lifelong (so every run plays all its ticks).
fn small_scenario() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.toml");
    std::fs::write(
        &path,
        "name = \"small\"\n\
         description = \"50 agents on a 64 x 64 map\"\n\
         seed = 3\n\
         ticks = 50\n\
         agents = 50\n\
         [map]\n\
         generator = { kind = \"random\", width = 64, height = 64, density = 0.1 }\n\
         [sim]\n\
         lifelong = true\n\
         max_plans_per_tick = 20\n",
    )
    .unwrap();
    (dir, path)
}

/// Runs the scenario with `extra` flags and returns its JSON summary.
fn summary(scenario: &Path, extra: &[&str]) -> serde_json::Value {
    let out = scenario.with_extension(format!("{}.json", extra.join("_").replace('-', "")));
    let mut args = vec!["run", scenario.to_str().unwrap(), "--quiet", "--json"];
    args.push(out.to_str().unwrap());
    args.extend_from_slice(extra);
    assert_eq!(ok(&args), "", "--quiet prints nothing");
    json(&out)
}

#[test]
fn run_prints_a_summary_table() {
    let (_dir, path) = small_scenario();
    let out = ok(&["run", path.to_str().unwrap(), "--threads", "2"]);
    for want in [
        "scenario     small: 50 agents on a 64 x 64 map",
        "50 agents, 2 threads, seed 3",
        "ticks        50 in",
        "ticks/s",
        "plans/s",
        "tick ms      p50",
        "plan us      p50",
        "p99",
        "moves/s",
        "movement ms  p50",
        "plans for    new goal",
        "per tick (lifelong throughput)",
        "state hash   ",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    // One-shot figures mean nothing in a lifelong run.
    for unwanted in ["arrived", "makespan", "sum of costs"] {
        assert!(!out.contains(unwanted), "{unwanted:?} in:\n{out}");
    }
}

#[test]
fn json_and_csv_files() {
    let (dir, path) = small_scenario();
    let (j, c) = (dir.path().join("s.json"), dir.path().join("s.csv"));
    let out = ok(&[
        "run",
        path.to_str().unwrap(),
        "--json",
        j.to_str().unwrap(),
        "--csv",
        c.to_str().unwrap(),
    ]);
    assert!(out.contains("plans/s"));
    let v = json(&j);
    assert!(v.is_object());
    for field in [
        "scenario",
        "map",
        "seed",
        "ticks",
        "agents",
        "threads",
        "plans",
        "plans_per_sec",
        "ticks_per_sec",
        "moves_per_sec",
        "plan_us_p50",
        "plan_us_p90",
        "plan_us_p99",
        "plan_us_max",
        "tick_ms_p50",
        "tick_ms_p90",
        "tick_ms_p99",
        "tick_ms_max",
        "arrived",
        "goals_reached",
        "goals_per_tick",
        "sum_of_costs",
        "makespan",
        "final_state_hash",
        "final_state_hash_hex",
    ] {
        assert!(v.get(field).is_some(), "missing {field} in {v}");
    }
    assert_eq!(v["scenario"], "small");
    assert_eq!(v["ticks"], 50);
    assert_eq!(v["agents"], 50);
    assert!(v["plans"].as_u64().unwrap() >= 50);
    assert!(v["goals_reached"].as_u64().unwrap() > 0);
    let (p50, p99) = (
        v["plan_us_p50"].as_f64().unwrap(),
        v["plan_us_p99"].as_f64().unwrap(),
    );
    assert!(p50 > 0.0 && p50 <= p99, "{p50} {p99}");
    assert_eq!(
        v["final_state_hash_hex"].as_str().unwrap(),
        format!("{:016x}", v["final_state_hash"].as_u64().unwrap())
    );
    assert!(out.contains(v["final_state_hash_hex"].as_str().unwrap()));

    let csv = std::fs::read_to_string(&c).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + 50, "header and one row per tick");
    let header: Vec<&str> = lines[0].split(',').collect();
    for col in [
        "tick",
        "wall_ms",
        "planning_ms",
        "plans",
        "moved",
        "at_goal",
        "state_hash",
    ] {
        assert!(header.contains(&col), "missing column {col}");
    }
    for (i, row) in lines[1..].iter().enumerate() {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells.len(), header.len(), "row {i}: {row}");
        assert_eq!(cells[0], i.to_string());
    }
    // The last row's state is the summary's final state.
    let last: Vec<&str> = lines[50].split(',').collect();
    let col = header.iter().position(|&h| h == "state_hash").unwrap();
    assert_eq!(last[col], v["final_state_hash_hex"].as_str().unwrap());
}

#[test]
fn seed_ticks_and_threads_override_the_file() {
    let (_dir, path) = small_scenario();
    let a = summary(&path, &[]);
    let again = summary(&path, &["--threads", "1"]);
    let b = summary(&path, &["--seed", "4"]);
    let b_again = summary(&path, &["--seed", "4", "--threads", "2"]);
    assert_eq!(a["seed"], 3);
    assert_eq!(b["seed"], 4);
    assert_eq!(
        a["final_state_hash"], again["final_state_hash"],
        "same seed, same run"
    );
    assert_ne!(
        a["final_state_hash"], b["final_state_hash"],
        "--seed changes the run"
    );
    assert_eq!(
        b["final_state_hash"], b_again["final_state_hash"],
        "1 or 2 threads, same run"
    );
    assert_eq!(again["threads"], 1);
    assert_eq!(b_again["threads"], 2);
    let short = summary(&path, &["--ticks", "7"]);
    assert_eq!(short["ticks"], 7);
}

#[test]
fn set_overrides_any_setting_with_the_file_checks() {
    let (dir, path) = small_scenario();
    let base = summary(&path, &[]);
    let set = summary(
        &path,
        &[
            "--set",
            "agents=20",
            "--set",
            "sim.conflicts=avoid",
            "--set",
            "max_plans_per_tick=null",
        ],
    );
    assert_eq!(
        (set["agents"].as_u64(), set["conflicts"].as_str()),
        (Some(20), Some("avoid"))
    );
    assert_eq!(set["max_plans_per_tick"], serde_json::Value::Null);
    assert_eq!(base["max_plans_per_tick"], 20);
    // The same settings written into the file give the same run.
    let edited = dir.path().join("edited.toml");
    let edited_text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("agents = 50", "agents = 20")
        .replace("max_plans_per_tick = 20\n", "conflicts = \"avoid\"\n");
    std::fs::write(&edited, edited_text).unwrap();
    assert_eq!(
        summary(&edited, &[])["final_state_hash"],
        set["final_state_hash"]
    );
    for (arg, message) in [
        ("colour=red", "--set colour=red: unknown key"),
        ("agents=0", "--set agents=0: must be at least 1"),
        ("ticks=-3", "--set ticks=-3: must be a whole number"),
        ("ticks=abc", "--set ticks=abc: must be a whole number"),
        ("lifelong=maybe", "--set lifelong=maybe: invalid type"),
        (
            "node_budget=0",
            "--set node_budget=0: must be at least 1 (leave it out for no limit)",
        ),
        ("noequals", "--set noequals: expected KEY=VALUE"),
        ("=3", "--set =3: expected KEY=VALUE"),
        (
            "sim.seed=3",
            "--set sim.seed=3: the run's seed is `seed`, not a [sim] key",
        ),
    ] {
        let o = throng(&["run", path.to_str().unwrap(), "-q", "--set", arg]);
        assert_eq!(o.status.code(), Some(2), "{arg}");
        let err = text(&o.stderr);
        assert!(
            err.contains(message) && err.lines().count() == 1,
            "{arg}: {err}"
        );
    }
}

/// The file's description tells the file's settings: after `--set` the summary says so.
#[test]
fn the_description_is_the_files_before_the_overrides() {
    let out = ok(&[
        "run",
        "sims/lifelong.toml",
        "--set",
        "agents=40",
        "--ticks",
        "2",
    ]);
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("scenario     lifelong: 2,000 agents")
            && first.ends_with("(the file's description, before --set agents=40)"),
        "{first}"
    );
    let out = ok(&[
        "run",
        "sims/lifelong.toml",
        "--ticks",
        "1",
        "--set",
        "threads=1",
    ]);
    assert!(out.contains("before --set threads=1)"), "{out}");
}

/// An error found when the scenario is built, about a value an override set, names the
/// override rather than the file's line that the override replaced.
#[test]
fn errors_about_an_overridden_value_name_the_flag() {
    let scenario = "sims/mapf-random-32-32-10.toml";
    let o = throng(&["run", scenario, "--set", "agents=1000"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.starts_with("throng: error: --set agents=1000: 1000 agents but ")
            && err.contains("has only 461 lines"),
        "{err}"
    );
    assert!(!err.contains(".toml:"), "{err}");
    // Without the override, the file's own line is named.
    let edited = tempfile::tempdir().unwrap();
    let copy = edited.path().join("m.toml");
    let text_of = std::fs::read_to_string(scenario)
        .unwrap()
        .replace("agents = 100", "agents = 1000");
    let text_of = text_of.replace("../sims/", "").replace(
        "file = \"maps/",
        &format!("file = \"{}/sims/maps/", env!("CARGO_MANIFEST_DIR")),
    );
    std::fs::write(&copy, text_of).unwrap();
    let o = throng(&["run", copy.to_str().unwrap()]);
    let err = text(&o.stderr);
    assert!(err.contains("m.toml:14: agents: 1000 agents but "), "{err}");
}

#[test]
fn compare_threads_reports_the_speedup() {
    let (dir, path) = small_scenario();
    let j = dir.path().join("cmp.json");
    let out = ok(&[
        "run",
        path.to_str().unwrap(),
        "--compare-threads",
        "--threads",
        "2",
        "--json",
        j.to_str().unwrap(),
    ]);
    assert!(out.contains("speed-up     planning"), "{out}");
    assert!(out.contains("same state   yes"), "{out}");
    assert!(out.contains("50 agents, 1 thread, seed 3"), "{out}");
    assert!(out.contains("50 agents, 2 threads, seed 3"), "{out}");
    assert!(out.contains("by batch"), "{out}");
    let v = json(&j);
    assert_eq!(v["threads"], 2);
    assert_eq!(v["compare"]["baseline_threads"], 1);
    assert_eq!(v["compare"]["hash_match"], true);
    assert!(v["compare"]["planning_speedup"].as_f64().unwrap() > 0.0);
    let batches = v["compare"]["by_batch"].as_array().unwrap();
    let plans: u64 = batches.iter().map(|b| b["plans"].as_u64().unwrap()).sum();
    assert_eq!(
        plans,
        v["plans"].as_u64().unwrap(),
        "every plan is in one batch range"
    );
    let o = throng(&[
        "run",
        path.to_str().unwrap(),
        "--compare-threads",
        "--threads",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--compare-threads"));
}

#[test]
fn one_shot_runs_stop_when_every_agent_is_done() {
    let (dir, _) = small_scenario();
    let path = dir.path().join("oneshot.toml");
    std::fs::write(
        &path,
        "agents = 10\nticks = 1000\n[map]\ngenerator = { kind = \"random\", width = 32, height = 32, density = 0.0 }\n",
    )
    .unwrap();
    let v = summary(&path, &[]);
    assert_eq!(v["arrived"], 10);
    assert!(v["ticks"].as_u64().unwrap() < 100, "{}", v["ticks"]);
    assert_eq!(v["scenario"], "oneshot");
}

#[test]
fn default_scenario_is_found_without_an_argument() {
    // One tick of the default scenario (10,000 agents on 512 x 512; at most 1,000 plans).
    let o = throng(&["run", "--ticks", "1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("scenario     default"), "{out}");
    assert!(out.contains("10000 agents"), "{out}");
    assert!(out.contains("random512-10-0.map"), "{out}");
}

#[test]
fn an_installed_binary_runs_the_default_scenario_from_any_directory() {
    // As after `cargo install` or moving the clone: the binary alone, somewhere else, started
    // from a third directory. The default scenario and its map are inside it.
    let bin_dir = tempfile::tempdir().unwrap();
    let bin = bin_dir.path().join("throng");
    std::fs::copy(env!("CARGO_BIN_EXE_throng"), &bin).unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let json_path = cwd.path().join("out.json");
    let run = || {
        Command::new(&bin)
            .current_dir(cwd.path())
            .args(["run", "--ticks", "3", "--quiet", "--json", "out.json"])
            .output()
    };
    // Another test thread forking while the copy was open can leave it briefly busy (ETXTBSY).
    let mut o = run();
    for _ in 0..20 {
        match &o {
            Err(e) if e.raw_os_error() == Some(26) => {
                std::thread::sleep(std::time::Duration::from_millis(50));
                o = run();
            }
            _ => break,
        }
    }
    let o = o.expect("run the copied binary");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty(), "--quiet prints nothing");
    let v = json(&json_path);
    assert_eq!(v["scenario"], "default", "{v}");
    assert_eq!(v["agents"], 10000, "{v}");
    assert_eq!(v["ticks"], 3, "{v}");
    assert!(
        v["map"]
            .as_str()
            .unwrap()
            .contains("random512-10-0.map (in memory)"),
        "{v}"
    );
}

#[test]
fn bad_scenarios_are_one_line_errors() {
    let (dir, path) = small_scenario();
    let good = std::fs::read_to_string(&path).unwrap();
    let bad = dir.path().join("bad.toml");
    let file = bad.to_str().unwrap();

    std::fs::write(&bad, good.replace("agents = 50", "agentz = 50")).unwrap();
    assert_error(&throng(&["run", file]), &[&format!("{file}:5:"), "agentz"]);

    std::fs::write(
        &bad,
        good.replace("lifelong = true", "conflicts = \"maybe\""),
    )
    .unwrap();
    assert_error(
        &throng(&["run", file]),
        &[&format!("{file}:9:"), "sim.conflicts", "maybe"],
    );

    std::fs::write(&bad, good.replace("agents = 50", "agents = 5000")).unwrap();
    assert_error(
        &throng(&["run", file]),
        &[&format!("{file}:5:"), "agents", "do not fit"],
    );

    assert_error(
        &throng(&["run", path.to_str().unwrap(), "--ticks", "0"]),
        &["--ticks"],
    );
    let missing = dir.path().join("missing.toml");
    assert_error(
        &throng(&["run", missing.to_str().unwrap()]),
        &["missing.toml"],
    );
    let unwritable = dir.path().join("no/such/dir/out.json");
    assert_error(
        &throng(&[
            "run",
            path.to_str().unwrap(),
            "--quiet",
            "--json",
            unwritable.to_str().unwrap(),
        ]),
        &["out.json"],
    );
}

#[test]
fn compare_conflicts_plays_both_modes_on_the_shipped_mapf_scenario() {
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("sims/mapf-random-32-32-10.toml");
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("c.json");
    let out = ok(&[
        "run",
        scenario.to_str().unwrap(),
        "--compare-conflicts",
        "avoid",
        "--json",
        j.to_str().unwrap(),
    ]);
    assert!(out.contains("conflicts pibt"), "{out}");
    assert!(out.contains("conflicts avoid"), "{out}");
    assert!(out.contains("pibt / avoid  plans"), "{out}");
    let v = json(&j);
    assert_eq!(v["conflicts"], "pibt");
    assert_eq!(
        v["all_arrived"], true,
        "PIBT solves the shipped MAPF scenario"
    );
    let c = &v["compare_conflicts"];
    assert_eq!(c["conflicts"], "avoid");
    let (ours, theirs) = (
        v["plans"].as_f64().unwrap(),
        c["summary"]["plans"].as_f64().unwrap(),
    );
    assert_eq!(ours, 100.0, "one plan per agent, no replan");
    assert!((c["plans_ratio"].as_f64().unwrap() - ours / theirs).abs() < 1e-9);
    // A bad mode is a one-line usage error.
    let o = throng(&["run", "--compare-conflicts", "maybe"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("unknown conflict mode"));
}

#[test]
fn absurd_thread_counts_are_refused_at_once() {
    let (_dir, path) = small_scenario();
    let o = throng(&["run", path.to_str().unwrap(), "--threads", "10000"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("--threads 10000: must be at most 256"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // Refused before the run: no tick played, no summary written.
    assert!(o.stdout.is_empty(), "no run: {}", text(&o.stdout));
}

#[test]
fn unwritable_output_paths_are_refused_before_the_run() {
    let (dir, path) = small_scenario();
    for (flag, target) in [
        ("--json", dir.path().to_path_buf()),
        ("--csv", dir.path().join("no/such/folder/x.csv")),
    ] {
        let o = throng(&[
            "run",
            path.to_str().unwrap(),
            flag,
            target.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2));
        let err = text(&o.stderr);
        assert!(err.contains(flag), "{err}");
        assert!(o.stdout.is_empty(), "no run: {}", text(&o.stdout));
    }
}

#[test]
fn render_size_without_a_picture_is_refused() {
    let (dir, path) = small_scenario();
    let o = throng(&["run", path.to_str().unwrap(), "--render-size", "100"]);
    assert_error(&o, &["--render-size 100", "--render", "--heatmap"]);
    // With a picture it applies: the map is drawn at most W wide; the heatmap adds its colour
    // bar on the right (the help says so).
    let (png, heat) = (dir.path().join("r.png"), dir.path().join("h.png"));
    ok(&[
        "run",
        path.to_str().unwrap(),
        "--render-size",
        "100",
        "--render",
        png.to_str().unwrap(),
        "--heatmap",
        heat.to_str().unwrap(),
    ]);
    let width = |file: &Path| {
        let bytes = std::fs::read(file).unwrap();
        u32::from_be_bytes(bytes[16..20].try_into().unwrap())
    };
    // 64 cells wide: 1 pixel per cell fits 100 pixels.
    assert_eq!(width(&png), 64);
    let bar = width(&heat) - 64;
    assert!(
        (48..=40 + 8 * 7).contains(&bar) && bar % 8 == 0,
        "colour bar {bar} px: 40 plus 8 per digit"
    );
}

#[test]
fn json_and_csv_dash_write_to_stdout_and_the_table_to_stderr() {
    let (dir, path) = small_scenario();
    let run = |flag: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_throng"))
            .current_dir(dir.path())
            .args(["run", path.to_str().unwrap(), flag, "-", "--ticks", "5"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        (text(&o.stdout), text(&o.stderr))
    };
    let (out, err) = run("--json");
    let v: serde_json::Value = serde_json::from_str(&out).expect("stdout is the JSON alone");
    assert_eq!(v["ticks"], 5);
    assert!(err.contains("state hash   "), "the table on stderr: {err}");
    let (out, err) = run("--csv");
    assert!(out.starts_with("tick,wall_ms,"), "{out}");
    assert_eq!(
        out.lines().count(),
        6,
        "header and 5 rows, nothing else: {out}"
    );
    assert!(err.contains("plans/s"), "{err}");
    assert!(!dir.path().join("-").exists(), "no file named -");
    let o = throng(&["run", path.to_str().unwrap(), "--json", "-", "--csv", "-"]);
    assert_error(&o, &["--json - and --csv -"]);
    // Binary and picture outputs have no standard-output form: `-` is refused, not a file.
    for (flag, name) in [
        ("--trace", "-"),
        ("--paths", "-"),
        ("--render", "-"),
        ("--heatmap", "-"),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_throng"))
            .current_dir(dir.path())
            .args(["run", path.to_str().unwrap(), flag, name, "--ticks", "2"])
            .output()
            .unwrap();
        assert_error(&o, &[&format!("{flag} -")]);
        assert!(!dir.path().join("-").exists(), "{flag}: no file named -");
    }
}

#[test]
fn a_run_cut_short_says_its_sum_of_costs_covers_the_arrived_agents_only() {
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("sims/mapf-random-32-32-10.toml");
    let dir = tempfile::tempdir().unwrap();
    let (short, full) = (dir.path().join("short.json"), dir.path().join("full.json"));
    let s = scenario.to_str().unwrap();
    let out = ok(&["run", s, "--ticks", "20", "--json", short.to_str().unwrap()]);
    let v = json(&short);
    let missing = 100 - v["arrived"].as_u64().unwrap();
    assert!(missing > 0, "cut short");
    assert!(
        out.contains(&format!(
            "(arrived agents only: {missing} not at their goal)"
        )),
        "{out}"
    );
    assert_eq!(v["sum_of_costs_covers"], "arrived_agents");
    assert!(
        out.contains("--ticks N plays longer"),
        "the tick limit is named: {out}"
    );
    let out = ok(&["run", s, "--json", full.to_str().unwrap()]);
    assert!(!out.contains("arrived agents only"), "{out}");
    assert!(!out.contains("plays longer"), "{out}");
    let v = json(&full);
    assert_eq!(v["all_arrived"], true);
    assert_eq!(v["sum_of_costs_covers"], "all_agents");
}

#[test]
fn rotate_on_an_eight_connected_map_is_refused_naming_the_key() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rooms = root.join("sims/crowd-rooms.toml");
    let rooms = rooms.to_str().unwrap();
    // It used to run, every agent frozen: 0 of 1,200 arrived. The value came from the flag,
    // which the error names.
    let o = throng(&["run", rooms, "--set", "action_model=rotate"]);
    assert_error(
        &o,
        &["--set action_model=rotate: ", "map.neighbourhood = 4"],
    );
    // Also written in a file: at its line.
    let (dir, path) = small_scenario();
    let bad = dir.path().join("rotate.toml");
    let text_of = std::fs::read_to_string(&path)
        .unwrap()
        .replace("lifelong = true", "action_model = \"rotate\"");
    std::fs::write(&bad, text_of).unwrap();
    assert_error(
        &throng(&["run", bad.to_str().unwrap()]),
        &[&format!("{}:9: sim.action_model", bad.display())],
    );
    // On a 4-connected map (in either order of the overrides) robots run and arrive, and
    // the setup line says which model played.
    let mapf = root.join("sims/mapf-random-32-32-10.toml");
    let j = dir.path().join("r.json");
    let out = ok(&[
        "run",
        mapf.to_str().unwrap(),
        "--set",
        "action_model=rotate",
        "--json",
        j.to_str().unwrap(),
    ]);
    assert!(out.contains("conflicts pibt, action model rotate"), "{out}");
    assert_eq!(json(&j)["action_model"], "rotate");
    assert_eq!(json(&j)["all_arrived"], true);
    let out = ok(&[
        "run",
        rooms,
        "--set",
        "action_model=rotate",
        "--set",
        "neighbourhood=4",
        "--ticks",
        "300",
    ]);
    assert!(!out.contains("arrived      0 of"), "{out}");
}

#[test]
fn a_run_that_cannot_start_leaves_no_csv_file() {
    let (dir, path) = small_scenario();
    let csv = dir.path().join("series.csv");
    let o = throng(&[
        "run",
        path.to_str().unwrap(),
        "--set",
        "agents=5000",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert_error(&o, &["do not fit"]);
    assert!(!csv.exists(), "a header-only file was left");
}

/// A scenario file in `dir` playing the first `agents` lines of `scen` on `map`, one-shot with
/// conflicts `pibt`, for at most 3,000 ticks.
fn scen_scenario(dir: &Path, map: &Path, scen: &Path, agents: usize, nb: u32) -> PathBuf {
    let path = dir.join(format!("scen-{agents}-{nb}.toml"));
    std::fs::write(
        &path,
        format!(
            "name = \"scen\"\nseed = 1\nticks = 3000\nagents = {agents}\n\
             [map]\nfile = {map:?}\nneighbourhood = {nb}\n\
             [placement]\nkind = \"scen\"\nfile = {scen:?}\n\
             [sim]\nconflicts = \"pibt\"\n"
        ),
    )
    .unwrap();
    path
}

#[test]
fn a_crowd_pibt_leaves_circling_is_resolved_and_says_so() {
    // maze-32-32-2 random-5, 8-connected: PIBT alone leaves agents circling in dead ends.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sims/maps/mapf");
    let dir = tempfile::tempdir().unwrap();
    let path = scen_scenario(
        dir.path(),
        &root.join("maze-32-32-2.map"),
        &root.join("maze-32-32-2-random-5.scen"),
        333,
        8,
    );
    let alone = summary(&path, &["--set", "sim.resolve_stuck=false"]);
    assert_eq!(alone["end_status"], "tick_limit");
    assert_eq!(alone["ticks"], 3000);
    assert!(
        alone["arrived"].as_u64().unwrap() < 333,
        "{}",
        alone["arrived"]
    );
    assert_eq!(alone["resolve_triggers"], 0);
    let json = dir.path().join("resolved.json");
    let s = path.to_str().unwrap();
    let out = ok(&["run", s, "--json", json.to_str().unwrap()]);
    let v = common::cli::json_file(&json);
    assert_eq!(v["end_status"], "all_arrived");
    assert_eq!(v["arrived"], 333);
    assert!(v["ticks"].as_u64().unwrap() < 3000);
    let triggers = v["resolve_triggers"].as_u64().unwrap();
    assert!(triggers >= 1);
    assert!(v["resolve_ticks"].as_u64().unwrap() >= 1);
    assert!(v["resolve_agents"].as_u64().unwrap() >= 333);
    assert!(
        out.contains("end status   all_arrived; stuck crowd handed to LaCAM"),
        "{out}"
    );
    // Refused where it cannot apply, naming the key.
    let o = throng(&[
        "run",
        s,
        "--set",
        "sim.conflicts=avoid",
        "--set",
        "sim.resolve_stuck=true",
    ]);
    assert_error(&o, &["sim.resolve_stuck", "conflicts = \"avoid\""]);
}

#[test]
fn a_lifelong_crowd_pibt_locks_up_is_resolved_and_says_so() {
    // Six agents in a corridor with one-cell bays, lifelong: PIBT alone locks them up.
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("bays.map");
    std::fs::write(
        &map,
        "type octile\nheight 3\nwidth 7\nmap\n@.@.@.@\n.......\n@.@.@.@\n",
    )
    .unwrap();
    let scen = dir.path().join("bays.scen");
    let lines: String = [
        (1, 0, 5, 0),
        (3, 0, 0, 1),
        (5, 0, 1, 1),
        (0, 1, 2, 1),
        (1, 1, 1, 0),
        (2, 1, 3, 0),
    ]
    .iter()
    .map(|(x, y, gx, gy)| format!("0\tbays.map\t7\t3\t{x}\t{y}\t{gx}\t{gy}\t1\n"))
    .collect();
    std::fs::write(&scen, format!("version 1\n{lines}")).unwrap();
    let path = scen_scenario(dir.path(), &map, &scen, 6, 4);
    let s = path.to_str().unwrap();
    let lifelong = ["--set", "sim.lifelong=true"];
    let alone = summary(
        &path,
        &[&lifelong[..], &["--set", "sim.resolve_stuck=false"]].concat(),
    );
    let json = dir.path().join("lifelong.json");
    let out = ok(&[
        &["run", s, "--json", json.to_str().unwrap()][..],
        &lifelong[..],
    ]
    .concat());
    let v = common::cli::json_file(&json);
    assert_eq!(v["end_status"], "lifelong");
    assert!(v["resolve_triggers"].as_u64().unwrap() >= 1, "{v}");
    assert!(
        v["goals_reached"].as_u64() > alone["goals_reached"].as_u64(),
        "{} against {} without the resolution",
        v["goals_reached"],
        alone["goals_reached"]
    );
    assert!(
        out.contains("resolution   stuck crowd handed to LaCAM"),
        "{out}"
    );
}

#[test]
fn an_unsolvable_one_shot_run_ends_with_its_status() {
    // Two agents that must pass each other in a corridor one cell wide.
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("corridor.map");
    std::fs::write(&map, "type octile\nheight 1\nwidth 5\nmap\n.....\n").unwrap();
    let scen = dir.path().join("corridor.scen");
    std::fs::write(
        &scen,
        "version 1\n0\tcorridor.map\t5\t1\t1\t0\t2\t0\t1\n0\tcorridor.map\t5\t1\t2\t0\t1\t0\t1\n",
    )
    .unwrap();
    let path = scen_scenario(dir.path(), &map, &scen, 2, 4);
    let json = dir.path().join("u.json");
    let out = ok(&[
        "run",
        path.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let v = common::cli::json_file(&json);
    assert_eq!(v["end_status"], "unsolvable");
    assert!(v["ticks"].as_u64().unwrap() < 3000, "not the tick limit");
    assert!(
        out.contains("(unsolvable: not every agent can reach its goal)"),
        "{out}"
    );
    assert!(out.contains("end status   unsolvable"), "{out}");
}
