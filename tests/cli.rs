//! The `throng` binary: JSON output, exit codes, and one-line errors naming file and line for
//! malformed input.

mod common;

use std::path::Path;
use std::process::Command;

use common::cli::{assert_one_line_error, stderr, throng};
use common::shipped;

/// `--warm-up` answers every query once before the timed pass; the judged pass is the same.
#[test]
fn scen_warm_up_judges_the_same_answers() {
    let path = shipped("arena.map.scen");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "scen",
            path.to_str().unwrap(),
            "--json",
            "--planner",
            "jps+",
        ];
        args.extend_from_slice(extra);
        let o = throng(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let (cold, warm) = (run(&[]), run(&["--warm-up"]));
    for field in ["queries", "optimal", "mean_expanded", "mean_len_ratio"] {
        assert_eq!(cold[field], warm[field], "{field}: {cold} vs {warm}");
    }
    assert_eq!(warm["optimal"], 130);
    // The table is built (and timed) before the warm-up, not by its first query.
    for report in [&cold, &warm] {
        assert!(report["jump_table_ms"].as_f64().is_some(), "{report}");
        assert_eq!(report["jump_table_bytes"], 16 * 49 * 49, "{report}");
    }
}

#[test]
fn scen_json_has_the_documented_fields() {
    let path = shipped("arena.map.scen");
    let o = throng(&["scen", path.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "one object per file");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    for field in [
        "queries",
        "optimal",
        "mismatched",
        "illegal",
        "unreachable",
        "mean_us",
        "p50_us",
        "p99_us",
        "mean_expanded",
    ] {
        assert!(v.get(field).is_some(), "missing {field} in {v}");
    }
    assert_eq!(v["queries"], 130);
    assert_eq!(v["optimal"], 130);
    assert_eq!(v["illegal"], 0);
    let (p50, p99) = (v["p50_us"].as_f64().unwrap(), v["p99_us"].as_f64().unwrap());
    assert!(p50 > 0.0 && p50 <= p99, "p50 {p50} p99 {p99}");
}

#[test]
fn a_wrong_optimal_length_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(shipped("arena.map"), dir.path().join("arena.map")).unwrap();
    let text = std::fs::read_to_string(shipped("arena.map.scen")).unwrap();
    // Make line 3 claim a length that is too short.
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut fields: Vec<&str> = lines[2].split('\t').collect();
    fields[8] = "1.00000000";
    lines[2] = fields.join("\t");
    let scen = dir.path().join("arena.map.scen");
    std::fs::write(&scen, lines.join("\n")).unwrap();
    let o = throng(&["scen", scen.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["mismatched"], 1);
    assert_eq!(v["optimal"], 129);
    assert_eq!(v["failures"][0]["line"], 3);
}

#[test]
fn the_map_is_found_beside_the_scen_file_or_given() {
    let dir = tempfile::tempdir().unwrap();
    let scen = dir.path().join("q.map.scen");
    // The map column is a path that does not exist; only the file name is used.
    std::fs::write(
        &scen,
        "version 1\n0\tsome/dir/tiny.map\t3\t2\t0\t0\t2\t1\t2.41421356\n",
    )
    .unwrap();
    let o = throng(&["scen", scen.to_str().unwrap()]);
    assert_one_line_error(&o, "tiny.map");
    std::fs::write(
        dir.path().join("tiny.map"),
        "type octile\nheight 2\nwidth 3\nmap\n...\n...",
    )
    .unwrap();
    let o = throng(&["scen", scen.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let other = dir.path().join("other.map");
    std::fs::write(&other, "type octile\nheight 2\nwidth 3\nmap\n.@.\n...\n").unwrap();
    // With --map the wall of other.map is used: no corner cutting makes the path 3, not the
    // 2.414 the file claims, so the run reports a mismatch (and exit status 1).
    let o = throng(&[
        "scen",
        scen.to_str().unwrap(),
        "--map",
        other.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["mismatched"], 1);
    assert!(v["map"].as_str().unwrap().ends_with("other.map"));
}

#[test]
fn malformed_files_give_one_line_errors_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let good_map = "type octile\nheight 2\nwidth 3\nmap\n...\n...\n";
    let p = |p: &Path| p.to_str().unwrap().to_string();

    // A bad terrain letter on line 6 of the map.
    write("bad.map", "type octile\nheight 2\nwidth 3\nmap\n...\n.x.\n");
    let scen = write(
        "bad.map.scen",
        "version 1\n0\tbad.map\t3\t2\t0\t0\t2\t1\t2.41421356\n",
    );
    assert_one_line_error(
        &throng(&["scen", &p(&scen)]),
        "bad.map:6: unknown terrain character 'x'",
    );

    // A short line in the scenario file.
    write("ok.map", good_map);
    let scen = write(
        "short.map.scen",
        "version 1\n0\tok.map\t3\t2\t0\t0\t2\t1\t2.4\n0\tok.map\t3\t2\t0\n",
    );
    assert_one_line_error(
        &throng(&["scen", &p(&scen)]),
        "short.map.scen:3: expected 9 fields",
    );

    // A query outside the map.
    let scen = write(
        "out.map.scen",
        "version 1\n0\tok.map\t3\t2\t0\t0\t5\t1\t2.4\n",
    );
    assert_one_line_error(
        &throng(&["scen", &p(&scen)]),
        "out.map.scen:2: goal (5, 1) is outside the map",
    );

    // A query for a map of another size.
    let scen = write(
        "size.map.scen",
        "version 1\n0\tok.map\t4\t2\t0\t0\t2\t1\t2.4\n",
    );
    assert_one_line_error(
        &throng(&["scen", &p(&scen)]),
        "size.map.scen:2: query is for a 4 x 2 map",
    );

    // A missing file.
    let missing = dir.path().join("nope.map.scen");
    assert_one_line_error(&throng(&["scen", &p(&missing)]), "nope.map.scen");

    // A truncated map.
    write("cut.map", "type octile\nheight 3\nwidth 3\nmap\n...\n");
    let scen = write(
        "cut.map.scen",
        "version 1\n0\tcut.map\t3\t3\t0\t0\t2\t0\t2\n",
    );
    assert_one_line_error(
        &throng(&["scen", &p(&scen)]),
        "cut.map:5: file ends after 1 rows",
    );
}

#[test]
fn unknown_planner_is_rejected() {
    let o = throng(&["scen", "x.scen", "--planner", "bogus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown planner \"bogus\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn closed_stdout_is_not_an_error() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["scen", shipped("arena.map.scen").to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // like `| head -0`
    let o = child.wait_with_output().unwrap();
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn generated_maps_and_scenarios_run_optimally() {
    let dir = tempfile::tempdir().unwrap();
    for kind in ["random", "rooms", "maze"] {
        let map = dir.path().join(format!("{kind}.map"));
        let o = throng(&[
            "gen",
            kind,
            "--out",
            map.to_str().unwrap(),
            "--width",
            "96",
            "--height",
            "64",
            "--queries",
            "40",
            "--seed",
            "3",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let scen = dir.path().join(format!("{kind}.map.scen"));
        let o = throng(&["scen", scen.to_str().unwrap(), "--json"]);
        assert!(o.status.success(), "{kind}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["optimal"], 40);
    }
    let o = throng(&[
        "gen",
        "rooms",
        "--out",
        "/nonexistent-dir/x.map",
        "--width",
        "20",
        "--height",
        "20",
    ]);
    assert_one_line_error(&o, "/nonexistent-dir/x.map");
    let o = throng(&["gen", "random", "--out", "x.map", "--density", "2"]);
    assert_one_line_error(&o, "--density 2: must be a number from 0 to below 1");
}

/// `--planner nav` reports the length ratios and the graph's build time and memory, and exits
/// 0 although some paths are longer than optimal: only illegal or missing paths fail it.
/// (random512: a map where the points beat a direct search; on den520d the graph answers
/// every query by JPS+, optimal.)
#[test]
fn scen_nav_reports_ratios_and_passes_on_legal_paths() {
    let path = shipped("random512-10-0.map.scen");
    let o = throng(&["scen", path.to_str().unwrap(), "--json", "--planner", "nav"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["planner"], "nav");
    assert_eq!(v["illegal"], 0);
    assert_eq!(v["correct"], v["queries"]);
    assert!(v["mismatched"].as_u64().unwrap() > 0, "{v}");
    let mean = v["mean_len_ratio"].as_f64().unwrap();
    let max = v["max_len_ratio"].as_f64().unwrap();
    assert!(
        (1.0..=1.02).contains(&mean) && (mean..=1.10).contains(&max),
        "{v}"
    );
    assert!(v["nav_build_ms"].as_f64().unwrap() > 0.0);
    assert!(v["nav_memory_bytes"].as_u64().unwrap() > 0);
    assert_eq!(v["nav_direct"], false, "{v}");
    // Straight jumps keep stopping on random obstacles: no jump table (online JPS is faster).
    assert!(v.get("jump_table_bytes").is_none(), "{v}");
    // On den520d every query is a direct JPS+ search: optimal, and said so.
    let den = shipped("den520d.map.scen");
    let o = throng(&["scen", den.to_str().unwrap(), "--json", "--planner", "nav"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["optimal"], v["queries"], "{v}");
    assert_eq!(v["nav_direct"], true, "{v}");
    assert_eq!(v["jump_table_bytes"], 16 * 256 * 257, "{v}");
    // The table has the graph line; `auto` runs too.
    let o = throng(&["scen", path.to_str().unwrap(), "--planner", "auto"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("nav graph"));
}

#[test]
fn navigation_points_prepared_offline_are_loaded_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let nav = dir.path().join("arena.nav");
    let p = |p: &Path| p.to_str().unwrap().to_string();
    let o = throng(&[
        "nav",
        &p(&shipped("arena.map")),
        "--out",
        &p(&nav),
        "--cluster",
        "8",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("points"));
    let scen = p(&shipped("arena.map.scen"));
    let o = throng(&[
        "scen",
        &scen,
        "--planner",
        "nav",
        "--nav-file",
        &p(&nav),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["illegal"], 0);
    assert!(v["nav_load_ms"].as_f64().is_some() && v.get("nav_build_ms").is_none());
    // A file prepared for another map is refused, on one line.
    let other = p(&shipped("den520d.map.scen"));
    let o = throng(&["scen", &other, "--planner", "nav", "--nav-file", &p(&nav)]);
    assert_one_line_error(&o, "prepared for another map");
    // Not a navigation file at all.
    let o = throng(&["scen", &scen, "--planner", "nav", "--nav-file", &scen]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains("panicked"));
}

#[test]
fn mapf_solves_a_benchmark_instance_and_writes_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.txt");
    let map = shipped("mapf/maze-32-32-2.map").display().to_string();
    let scen = shipped("mapf/maze-32-32-2-random-5.scen")
        .display()
        .to_string();
    let o = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["mapf", &map, &scen, "--agents", "100", "--json", "--out"])
        .arg(&plan)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["solved"], true);
    assert_eq!(v["agents"], 100);
    assert_eq!(
        v["refinement"], "polish",
        "LaCAM's plan polished by default"
    );
    assert!(v["soc"].as_u64() <= v["lacam_soc"].as_u64(), "{v}");
    assert!(v["first_solution_ms"].as_f64().unwrap() <= v["search_ms"].as_f64().unwrap());
    let (soc, lb) = (v["soc"].as_u64().unwrap(), v["soc_lb"].as_u64().unwrap());
    assert!(soc >= lb && lb > 0, "soc {soc}, lower bound {lb}");
    assert!(v["makespan"].as_u64().unwrap() >= v["makespan_lb"].as_u64().unwrap());
    // The plan file: header, then one line per timestep with a pair per agent.
    let text = std::fs::read_to_string(&plan).unwrap();
    assert!(text.starts_with("agents=100\n"));
    assert!(text.contains(&format!("\nsoc={soc}\n")));
    let steps: Vec<&str> = text.split("solution=\n").nth(1).unwrap().lines().collect();
    assert_eq!(steps.len() as u64, v["makespan"].as_u64().unwrap() + 1);
    for (t, line) in steps.iter().enumerate() {
        assert!(line.starts_with(&format!("{t}:(")), "{line}");
        assert_eq!(line.matches("),").count(), 100);
    }
    // More agents than the file has lines: one-line error, status 2.
    let o = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["mapf", &map, &scen, "--agents", "5000"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("5000 agents asked for"));
}

#[test]
fn mapf_reports_an_unsolved_instance_with_status_1() {
    // An impossible swap in a corridor: proven unsolvable.
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("corridor.map");
    std::fs::write(&map, "type octile\nheight 1\nwidth 4\nmap\n....\n").unwrap();
    let scen = dir.path().join("corridor.scen");
    std::fs::write(
        &scen,
        "version 1\n0\tcorridor.map\t4\t1\t1\t0\t2\t0\t1\n0\tcorridor.map\t4\t1\t2\t0\t1\t0\t1\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["mapf", map.to_str().unwrap(), scen.to_str().unwrap()])
        .args(["--agents", "2", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["solved"], false);
    assert_eq!(v["status"], "no_solution");
}

fn lorr_problem(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sims/lorr/random.domain")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn lorr_plays_a_competition_problem_and_writes_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let problem = lorr_problem("RANDOM-01.json");
    let o = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["lorr", &problem, "--steps", "80", "--json", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for field in [
        "tasks_finished",
        "steps",
        "agents",
        "mean_step_ms",
        "max_step_ms",
    ] {
        assert!(v.get(field).is_some(), "missing {field}");
    }
    assert_eq!(
        (v["steps"].as_u64(), v["agents"].as_u64()),
        (Some(80), Some(100))
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(written["numTaskFinished"], v["tasks_finished"]);
    assert_eq!(written["actionModel"], "MAPF_T");
    // The free model writes "MAPF" and compass letters.
    let o = throng(&["lorr", &problem, "--steps", "5", "--action-model", "free"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("action model   free"));
}

#[test]
fn lorr_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    // Not a competition problem (by name) and no --steps.
    let renamed = dir.path().join("mine.json");
    let text = std::fs::read_to_string(lorr_problem("RANDOM-01.json")).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sims/lorr/random.domain");
    let text = text
        .replace("maps/", &format!("{}/maps/", root.display()))
        .replace("agents/", &format!("{}/agents/", root.display()))
        .replace("tasks/", &format!("{}/tasks/", root.display()));
    std::fs::write(&renamed, text).unwrap();
    let o = throng(&["lorr", renamed.to_str().unwrap()]);
    assert_one_line_error(&o, "give --steps N");
    let o = throng(&["lorr", renamed.to_str().unwrap(), "--steps", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A malformed problem file names its line.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\n\"mapFile\": 3\n}").unwrap();
    let o = throng(&["lorr", bad.to_str().unwrap()]);
    assert_one_line_error(&o, "bad.json:2:");
    let o = throng(&["lorr", &lorr_problem("RANDOM-01.json"), "--steps", "0"]);
    assert_one_line_error(&o, "--steps 0");
    let o = throng(&[
        "lorr",
        &lorr_problem("RANDOM-01.json"),
        "--out",
        "/nonexistent/x.json",
    ]);
    assert_one_line_error(&o, "/nonexistent/x.json");
}

#[test]
fn scen_refuses_navigation_flags_its_planner_would_ignore() {
    let scen = shipped("arena.map.scen").display().to_string();
    let o = throng(&[
        "scen",
        &scen,
        "--planner",
        "astar",
        "--nav-file",
        "/etc/hostname",
    ]);
    assert_one_line_error(
        &o,
        "--nav-file is read only by --planner nav or auto, not astar",
    );
    let o = throng(&["scen", &scen, "--cluster", "8"]);
    assert_one_line_error(&o, "--cluster is used only by --planner nav or auto");
    let o = throng(&["scen", &scen, "--planner", "nav", "--cluster", "0"]);
    assert_one_line_error(&o, "--cluster 0: must be at least 4");
    let o = throng(&[
        "scen",
        &scen,
        "--planner",
        "nav",
        "--cluster",
        "8",
        "--nav-file",
        "x.nav",
    ]);
    assert_one_line_error(&o, "give one");
    // A cluster larger than the map: no points, every query searched directly, still optimal.
    let o = throng(&[
        "scen",
        &scen,
        "--planner",
        "nav",
        "--cluster",
        "4294967295",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["optimal"], v["queries"]);
}
