//! Scenario files: every shipped one parses and builds; unknown keys and bad values are errors
//! naming the file, the line and the key; placement follows its rules and is seeded.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use throng::error::{Error, ParseError};
use throng::scenario::{Placement, Scenario};
use throng::sim::AgentState;

fn sims() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sims")
}

fn shipped_scenarios() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(sims())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

/// A small valid scenario, with `extra` appended (more keys or tables).
fn small(extra: &str) -> String {
    format!(
        "name = \"small\"\n\
         agents = 50\n\
         ticks = 40\n\
         [map]\n\
         generator = {{ kind = \"random\", width = 64, height = 64, density = 0.1 }}\n\
         {extra}"
    )
}

fn parse(text: &str) -> Result<Scenario, Error> {
    Scenario::parse(text, "test.toml", &sims())
}

/// The parse error of `text`, checked to be on `line` and to mention every one of `words`.
fn parse_error(text: &str, line: usize, words: &[&str]) -> ParseError {
    let err = match parse(text).and_then(|s| s.build().map(|_| s)) {
        Err(Error::Parse(e)) => e,
        Err(other) => panic!("expected a parse error, got {other}"),
        Ok(_) => panic!("expected an error for:\n{text}"),
    };
    assert_eq!(err.file, "test.toml");
    assert_eq!(err.line, Some(line), "{err}\nin:\n{text}");
    for w in words {
        assert!(err.message.contains(w), "{err:?} does not mention {w:?}");
    }
    assert!(!err.to_string().contains('\n'), "one line: {err}");
    err
}

#[test]
fn every_shipped_scenario_parses_and_builds() {
    let files = shipped_scenarios();
    let names: Vec<_> = files
        .iter()
        .map(|f| f.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    for want in ["default", "mapf-random-32-32-10", "crowd-rooms", "lifelong"] {
        assert!(names.iter().any(|n| n == want), "sims/{want}.toml missing");
    }
    for file in &files {
        let scenario = Scenario::load(file).unwrap_or_else(|e| panic!("{e}"));
        assert!(!scenario.description.is_empty(), "{}", file.display());
        // crowd-1m needs about 3 GB and minutes of planning: parsed only.
        if scenario.agents > 200_000 {
            continue;
        }
        let mut sim = scenario.build().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sim.agents().len(), scenario.agents, "{}", file.display());
        // The first tick plans every agent: seconds for crowd-100k, so the big ones only build.
        if scenario.agents <= 20_000 {
            let report = sim.step();
            assert!(report.plans > 0, "{}", file.display());
        }
    }
}

#[test]
fn default_scenario_is_the_documented_one() {
    let s = Scenario::load(sims().join("default.toml")).unwrap();
    assert_eq!(s.agents, 10_000);
    let grid = s.load_grid().unwrap();
    assert_eq!((grid.width(), grid.height()), (512, 512));
    assert_eq!(s.sim.planner, throng::planner::PlannerKind::Auto);
    assert!(
        s.sim.max_plans_per_tick.is_none(),
        "every agent plans in the first tick"
    );
    assert!(!s.sim.lifelong);
    let life = Scenario::load(sims().join("lifelong.toml")).unwrap();
    assert!(life.sim.lifelong);
    let mapf = Scenario::load(sims().join("mapf-random-32-32-10.toml")).unwrap();
    assert!(matches!(mapf.placement, Placement::Scen { .. }));
    let crowd = Scenario::load(sims().join("crowd-rooms.toml")).unwrap();
    assert!(matches!(crowd.placement, Placement::Crowds { .. }));
}

#[test]
fn scen_placement_takes_the_first_lines_of_the_file() {
    let s = Scenario::load(sims().join("mapf-random-32-32-10.toml")).unwrap();
    let grid = s.load_grid().unwrap();
    let pairs = s.place(&grid).unwrap();
    let scen =
        throng::movingai::ScenFile::load(sims().join("maps/mapf/random-32-32-10-random-1.scen"))
            .unwrap();
    assert_eq!(pairs.len(), s.agents);
    for (q, &(start, goal)) in scen.queries.iter().zip(&pairs) {
        assert_eq!(grid.coords(start), q.start);
        assert_eq!(grid.coords(goal), q.goal);
    }
}

#[test]
fn unknown_keys_are_named_with_their_line() {
    parse_error(
        "agents = 5\nticks = 5\nagentz = 3\n[map]\nfile = \"maps/arena.map\"\n",
        3,
        &["agentz"],
    );
    parse_error(
        &small("[sim]\nlifelong = true\nfoo = 1\n"),
        8,
        &["foo", "sim"],
    );
    parse_error(
        &small("[placement]\nkind = \"crowds\"\ngroupz = 3\n"),
        8,
        &["groupz"],
    );
    parse_error(
        "agents = 5\nticks = 5\n[map]\ngenerator = { kind = \"random\",\n  width = 8, height = 8, densty = 0.1 }\n",
        5,
        &["densty"],
    );
    parse_error(&small("[mapp]\nfile = \"x\"\n"), 6, &["mapp"]);
}

#[test]
fn bad_values_are_named_with_their_line() {
    parse_error(
        &small("[sim]\nconflicts = \"maybe\"\n"),
        7,
        &["sim.conflicts", "maybe"],
    );
    parse_error(&small("[sim]\nplanner = \"astra\"\n"), 7, &["sim.planner"]);
    parse_error(&small("[sim]\nlifelong = 3\n"), 7, &["sim.lifelong"]);
    parse_error(
        &small("[sim]\nmax_plans_per_tick = 0\n"),
        7,
        &["sim.max_plans_per_tick"],
    );
    parse_error(&small("[sim]\nseed = 4\n"), 7, &["sim.seed"]);
    parse_error(
        &small("").replace("agents = 50", "agents = 0"),
        2,
        &["agents"],
    );
    parse_error(
        &small("").replace("agents = 50", "agents = -3"),
        2,
        &["agents"],
    );
    parse_error(&small("").replace("ticks = 40", "ticks = 0"), 3, &["ticks"]);
    parse_error(
        &small("").replace("density = 0.1", "density = 2"),
        5,
        &["map.generator", "density"],
    );
    parse_error(
        &small("[placement]\nkind = \"crowds\"\ndensity = 2\n"),
        8,
        &["placement.density"],
    );
    parse_error(
        &small("[placement]\nkind = \"crowds\"\ngroups = 0\n"),
        8,
        &["placement.groups"],
    );
    parse_error(
        &small("[placement]\nkind = \"crowd\"\n"),
        7,
        &["placement.kind", "crowd"],
    );
    parse_error(
        &small("[placement]\nkind = \"random\"\nfile = \"maps/arena.map.scen\"\n"),
        8,
        &["placement.file", "scen"],
    );
    parse_error(
        &small("[placement]\nkind = \"scen\"\n"),
        7,
        &["placement.file"],
    );
}

#[test]
fn missing_files_and_keys_are_errors() {
    parse_error(
        "agents = 5\nticks = 5\n[map]\nfile = \"maps/nope.map\"\n",
        4,
        &["map.file", "maps/nope.map: no such file (looked for /"],
    );
    parse_error(
        "agents = 5\nticks = 5\n[map]\nfile = \"maps/arena.map\"\n[placement]\nkind = \"scen\"\nfile = \"nope.scen\"\n",
        7,
        &["placement.file", "nope.scen: no such file (looked for /"],
    );
    parse_error(
        "agents = 5\n[map]\nfile = \"maps/arena.map\"\n",
        1,
        &["ticks"],
    );
    parse_error("agents = 5\nticks = 5\n", 1, &["map"]);
    parse_error("agents = 5\nticks = 5\n[map]\n", 3, &["map", "generator"]);
    parse_error(
        "agents = 5\nticks = 5\n[map]\nfile = \"maps/arena.map\"\ngenerator = { kind = \"maze\", width = 9, height = 9, corridor = 1 }\n",
        5,
        &["map.generator", "not both"],
    );
}

#[test]
fn too_many_agents_is_a_clear_error() {
    // 8 x 8 free cells: 64 agents fit with conflicts on, 65 do not.
    let text = |agents: usize, conflicts: &str| {
        format!(
            "agents = {agents}\nticks = 5\n[map]\ngenerator = {{ kind = \"random\", width = 8, height = 8, density = 0.0 }}\n[sim]\nconflicts = \"{conflicts}\"\n"
        )
    };
    assert!(parse(&text(64, "avoid")).unwrap().build().is_ok());
    let err = parse_error(&text(65, "avoid"), 1, &["agents", "65", "64 free cells"]);
    assert!(err.to_string().starts_with("test.toml:1: agents:"), "{err}");
    // With conflicts off agents may share cells.
    assert_eq!(
        parse(&text(500, "off"))
            .unwrap()
            .build()
            .unwrap()
            .agents()
            .len(),
        500
    );
    // Taking more agents than a .scen file has lines.
    parse_error(
        "agents = 500\nticks = 5\n[map]\nfile = \"maps/mapf/random-32-32-10.map\"\n[placement]\nkind = \"scen\"\nfile = \"maps/mapf/random-32-32-10-random-1.scen\"\n",
        1,
        &["agents", "461"],
    );
}

#[test]
fn load_names_the_file_and_defaults_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("my-run.toml");
    let text = small("").replace("name = \"small\"\n", "").replace(
        "generator = { kind = \"random\", width = 64, height = 64, density = 0.1 }",
        &format!(
            "file = {:?}",
            sims().join("maps/arena.map").display().to_string()
        ),
    );
    std::fs::write(&path, text + "bogus = 1\n").unwrap();
    let err = Scenario::load(&path).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}:5:", path.display())), "{err}");
    assert!(err.contains("bogus"), "{err}");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("bogus = 1\n", "");
    std::fs::write(&path, text).unwrap();
    let s = Scenario::load(&path).unwrap();
    assert_eq!(s.name, "my-run");
    assert_eq!(s.file(), path.display().to_string());
    // Relative map paths are relative to the scenario file, not the working directory.
    let rel = dir.path().join("rel.toml");
    std::fs::copy(sims().join("maps/arena.map"), dir.path().join("a.map")).unwrap();
    std::fs::write(&rel, "agents = 5\nticks = 5\n[map]\nfile = \"a.map\"\n").unwrap();
    assert_eq!(
        Scenario::load(&rel)
            .unwrap()
            .build()
            .unwrap()
            .agents()
            .len(),
        5
    );
    assert!(matches!(
        Scenario::load(Path::new("/definitely/not/here.toml")),
        Err(Error::Io { .. })
    ));
}

fn check_rules(s: &Scenario) -> Vec<(u32, u32)> {
    let grid = s.load_grid().unwrap();
    let pairs = s.place(&grid).unwrap();
    assert_eq!(pairs.len(), s.agents);
    let starts: HashSet<_> = pairs.iter().map(|p| p.0).collect();
    let goals: HashSet<_> = pairs.iter().map(|p| p.1).collect();
    assert_eq!(starts.len(), s.agents, "distinct starts");
    assert_eq!(
        goals.len(),
        s.agents,
        "distinct goals (one-shot, conflicts on)"
    );
    for &(a, b) in &pairs {
        assert_ne!(a, b, "goal is not the start");
        assert!(grid.connected(a, b), "goal reachable");
    }
    pairs
}

#[test]
fn placement_is_seeded_distinct_and_reachable() {
    // A map with several components: everything lands in the largest.
    for placement in [
        "",
        "[placement]\nkind = \"crowds\"\ngroups = 3\ndensity = 0.9\n",
    ] {
        let mut s = parse(&small(placement).replace("density = 0.1", "density = 0.35")).unwrap();
        s.agents = 400;
        let a = check_rules(&s);
        assert_eq!(a, check_rules(&s), "same seed, same crowd");
        s.seed = 7;
        assert_ne!(a, check_rules(&s), "another seed, another crowd");
    }
}

#[test]
fn crowds_start_together_and_cross_the_map() {
    let mut s = parse(&small(
        "[placement]\nkind = \"crowds\"\ngroups = 2\ndensity = 0.8\n",
    ))
    .unwrap();
    s.agents = 200;
    let grid = s.load_grid().unwrap();
    let pairs = check_rules(&s);
    // Crowd 0 stands on the left and heads right; crowd 1 the other way (the agents numbered
    // in the order of their starts along the map, not crowd by crowd).
    let mut left = 0;
    for (i, &(start, goal)) in pairs.iter().enumerate() {
        let ((sx, _), (gx, _)) = (grid.coords(start), grid.coords(goal));
        if sx < 24 {
            assert!(gx > 40, "agent {i}: {sx} -> {gx}");
            left += 1;
        } else {
            assert!(sx > 40 && gx < 24, "agent {i}: {sx} -> {gx}");
        }
    }
    assert_eq!(left, 100);
}

#[test]
fn a_small_scenario_runs_to_the_end() {
    // 64 x 64: every trip is shorter than 64 cells; 150 ticks leave room for traffic.
    let mut s = parse(&small("")).unwrap();
    s.ticks = 150;
    let mut sim = s.build().unwrap();
    for _ in 0..s.ticks {
        sim.step();
    }
    let done = sim
        .agents()
        .iter()
        .filter(|(_, a)| a.state() == AgentState::Arrived)
        .count();
    assert!(done >= 45, "{done} of 50 arrived");
}

/// The `toml` code blocks of a markdown file that are scenarios (not a Cargo manifest's
/// `[dependencies...]` table).
fn toml_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut rest = markdown;
    while let Some(start) = rest.find("```toml\n") {
        let body = &rest[start + 8..];
        let end = body.find("```").expect("closed block");
        if !body.starts_with("[dependencies") {
            blocks.push(body[..end].to_string());
        }
        rest = &body[end..];
    }
    blocks
}

#[test]
fn documented_examples_parse_and_build() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![
        ("sims/README.md".to_string(), sims(), true),
        ("docs/scenarios.md".to_string(), root.clone(), true),
        ("README.md".to_string(), root.clone(), false),
    ];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && name != "scenarios.md" {
            docs.push((format!("docs/{name}"), root.clone(), false));
        }
    }
    for (doc, base, must_have) in docs {
        let doc = doc.as_str();
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        let blocks = toml_blocks(&text);
        assert!(!must_have || !blocks.is_empty(), "{doc} has an example");
        for block in blocks {
            let s = Scenario::parse(&block, doc, &base).unwrap_or_else(|e| panic!("{e}"));
            s.build().unwrap_or_else(|e| panic!("{doc}: {e}"));
        }
    }
}

/// Whether the walkable cells of `grid` other than `removed` are all connected (straight
/// moves), by a plain breadth-first search.
fn connected_without(grid: &throng::grid::Grid, removed: u32) -> bool {
    let cells: Vec<u32> = (0..grid.len() as u32)
        .filter(|&c| grid.is_walkable(c) && c != removed)
        .collect();
    let mut seen = vec![false; grid.len()];
    let mut queue = std::collections::VecDeque::from([cells[0]]);
    seen[cells[0] as usize] = true;
    let mut count = 0;
    while let Some(c) = queue.pop_front() {
        count += 1;
        let (x, y) = grid.coords(c);
        for (dx, dy) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
            let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
            if grid.is_walkable_xy(nx, ny) {
                let n = grid.cell(nx as u32, ny as u32).unwrap();
                if n != removed && !seen[n as usize] {
                    seen[n as usize] = true;
                    queue.push_back(n);
                }
            }
        }
    }
    count == cells.len()
}

#[test]
fn one_shot_goals_never_wall_others_off() {
    // A maze is a tree: every corridor cell is a cut cell, so goals may only be dead ends.
    let text = "agents = 30\nticks = 5\n[map]\ngenerator = { kind = \"maze\", width = 41, height = 41, corridor = 1 }\n";
    let s = parse(text).unwrap();
    let grid = s.load_grid().unwrap();
    assert_eq!(grid.components().count(), 1);
    for (_, goal) in s.place(&grid).unwrap() {
        assert!(
            connected_without(&grid, goal),
            "goal {:?} cuts the maze",
            grid.coords(goal)
        );
    }
    // Lifelong agents leave their goals again: there the rule does not apply, and the same
    // maze takes more agents than it has dead ends.
    let lifelong = format!("{text}[sim]\nlifelong = true\n").replace("agents = 30", "agents = 600");
    let s = parse(&lifelong).unwrap();
    let cut_goals = s
        .place(&grid)
        .unwrap()
        .iter()
        .filter(|&&(_, g)| !connected_without(&grid, g))
        .count();
    assert!(cut_goals > 0);
    // One-shot, 600 agents do not fit on the dead ends: a clear error.
    let err = parse(&text.replace("agents = 30", "agents = 600"))
        .unwrap()
        .build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("agents") && err.contains("cut"), "{err}");
}

#[test]
fn scripted_changes_and_doors_parse_and_errors_name_key_and_line() {
    let s = parse(&small(
        "[[changes]]\ntick = 5\nblock = [1, 2, 3, 4]\n\
         [[changes]]\ntick = 9\nopen = [1, 2, 3, 4]\n\
         [doors]\ncount = 4\nperiod = 10\nseed = 2\n",
    ))
    .unwrap();
    assert_eq!(s.changes.len(), 2);
    assert_eq!(
        (s.changes[0].tick, s.changes[0].rect, s.changes[0].walkable),
        (5, [1, 2, 3, 4], false)
    );
    assert!(s.changes[1].walkable);
    let doors = s.doors.unwrap();
    assert_eq!((doors.count, doors.period, doors.seed), (4, 10, 2));
    let sim = s.build().unwrap();
    let schedule = s.schedule(sim.grid()).unwrap();
    assert_eq!(schedule.entries()[0].0, 5);
    assert_eq!(schedule.entries()[0].1.len(), 9);
    assert!(schedule.entries().windows(2).all(|w| w[0].0 < w[1].0));

    parse_error(
        &small("[[changes]]\ntick = 5\nblock = [3, 2, 1, 4]\n"),
        8,
        &["changes[0].block", "x0 <= x1"],
    );
    parse_error(
        &small(
            "[[changes]]\ntick = 5\nblock = [1, 2, 1, 4]\n[[changes]]\ntick = 6\nopen = [0, 0, 64, 0]\n",
        ),
        11,
        &["changes[1].open", "outside the 64 x 64 map"],
    );
    parse_error(
        &small("[[changes]]\ntick = 5\n"),
        7,
        &["changes[0]", "block"],
    );
    parse_error(
        &small("[[changes]]\ntick = 5\nblock = [1, 2, 3]\n"),
        8,
        &["changes", "length"],
    );
    parse_error(
        &small("[[changes]]\ntick = 5\nshut = [1, 2, 3, 4]\n"),
        8,
        &["shut"],
    );
    parse_error(
        &small("[doors]\ncount = 0\nperiod = 3\n"),
        7,
        &["doors.count"],
    );
    parse_error(
        &small("[doors]\ncount = 2\nperiod = 0\n"),
        8,
        &["doors.period"],
    );
    parse_error(
        &small("[doors]\ncount = 2\nperiod = 4\nwidth = 2\n"),
        9,
        &["width"],
    );
}

#[test]
fn doors_scenario_is_the_documented_one() {
    let s = Scenario::load(sims().join("doors.toml")).unwrap();
    assert_eq!(s.sim.planner, throng::planner::PlannerKind::DStar);
    assert!(s.doors.is_some());
    let sim = s.build().unwrap();
    // The doors make changes to come (drawn as they come due, not listed up front).
    let schedule = s.schedule(sim.grid()).unwrap();
    assert!(
        schedule.entries().is_empty(),
        "doors.toml scripts no [[changes]]"
    );
    assert!(!schedule.is_finished(), "door changes are due");
}

#[test]
fn planner_mix_gives_the_right_share_and_errors_name_key_and_line() {
    use throng::planner::PlannerKind;
    let s = parse(&small(
        "[sim]\nplanner = \"astar\"\n[planner_mix]\ndstar = 0.5\nnav = 0.2\n",
    ))
    .unwrap();
    assert_eq!(
        s.planner_mix,
        vec![(PlannerKind::DStar, 0.5), (PlannerKind::Nav, 0.2)]
    );
    let sim = s.build().unwrap();
    let count = |p: Option<PlannerKind>| {
        sim.agents()
            .iter()
            .filter(|(_, a)| a.planner() == p)
            .count()
    };
    assert_eq!(count(Some(PlannerKind::DStar)), 25);
    assert_eq!(count(Some(PlannerKind::Nav)), 10);
    assert_eq!(count(None), 15);
    assert_eq!(s.planners(50), s.planners(50), "seeded");

    // Bad fractions, unknown names and sums over 1 name the key and the line.
    parse_error(
        &small("[planner_mix]\ndstar = 1.5\n"),
        7,
        &["planner_mix.dstar", "0..=1"],
    );
    parse_error(
        &small("[planner_mix]\ndstar = -0.1\n"),
        7,
        &["planner_mix.dstar"],
    );
    parse_error(
        &small("[planner_mix]\nastar = 0.5\ndijkstra = 0.1\n"),
        8,
        &["planner_mix.dijkstra", "unknown planner"],
    );
    parse_error(
        &small("[planner_mix]\nastar = 0.5\ndstar = 0.6\n"),
        6,
        &["planner_mix", "at most 1"],
    );
}

#[test]
fn extreme_values_are_clean_errors_before_anything_is_allocated() {
    // Each of these used to abort (a 400 GB allocation), panic (capacity overflow) or hang;
    // now each is one line naming the file, the line and the key, found at once.
    for density in ["1e-9", "1e-18"] {
        let text = small(&format!(
            "[placement]\nkind = \"crowds\"\ngroups = 2\ndensity = {density}\n"
        ));
        parse_error(
            &text,
            9,
            &["placement.density", "spreads over", "largest area"],
        );
    }
    for agents in ["100000000000", "18446744073709551615"] {
        let text = format!(
            "agents = {agents}\nticks = 5\n[map]\ngenerator = {{ kind = \"random\", width = 8, height = 8, density = 0.0 }}\n[sim]\nconflicts = \"off\"\n"
        );
        match parse(&text) {
            Err(Error::Parse(e)) => {
                assert_eq!(e.line, Some(1), "{e}");
                assert!(e.message.contains("agents"), "{e}");
            }
            other => panic!("{agents} agents: {other:?}"),
        }
    }
    // Within the absolute cap but far more than the map holds, even sharing cells.
    let text = "agents = 4000\nticks = 5\n[map]\ngenerator = { kind = \"random\", width = 8, height = 8, density = 0.0 }\n[sim]\nconflicts = \"off\"\n";
    parse_error(text, 1, &["agents", "64 free cells", "16 agents may share"]);
    let text = format!("threads = 10000\n{}", small(""));
    parse_error(&text, 1, &["threads", "must be at most 256"]);
}

#[test]
fn a_map_file_that_is_a_directory_is_named_as_such() {
    let text = "agents = 5\nticks = 5\n[map]\nfile = \"maps\"\n";
    parse_error(
        text,
        4,
        &["map.file", "maps: is a directory, not a regular file"],
    );
}

#[test]
fn a_duplicate_key_is_named() {
    let text = small("[sim]\nlifelong = true\nlifelong = false\n");
    parse_error(&text, 8, &["duplicate key `lifelong`"]);
    let text = format!("ticks = 3\n{}", small(""));
    parse_error(&text, 4, &["duplicate key `ticks`"]);
}

#[test]
fn a_zero_dstar_budget_is_refused() {
    let text = small("[sim]\nplanner = \"dstar\"\ndstar_max_bytes = 0\n");
    parse_error(&text, 8, &["sim.dstar_max_bytes", "at least 1"]);
}

#[test]
fn robots_that_turn_need_pibt() {
    let text = small("[sim]\nconflicts = \"avoid\"\naction_model = \"rotate\"\n");
    parse_error(
        &text,
        8,
        &["sim.action_model", "needs conflicts = \"pibt\""],
    );
    // Robots step straight only: on an 8-connected map (the default) they froze.
    let eight = small("[sim]\naction_model = \"rotate\"\n");
    parse_error(
        &eight,
        7,
        &[
            "sim.action_model",
            "needs map.neighbourhood = 4",
            "never moves",
        ],
    );
    let ok = small("neighbourhood = 4\n[sim]\naction_model = \"rotate\"\n");
    let scenario = parse(&ok).expect("rotate with pibt on a 4-connected map parses");
    assert_eq!(scenario.sim.action_model, throng::sim::ActionModel::Rotate);
    // An override that makes the map 8-connected is refused when the scenario is built.
    let mut eight = scenario.clone();
    eight.set("neighbourhood", serde_json::json!(8)).unwrap();
    let e = eight.build().unwrap_err().to_string();
    assert!(e.starts_with("test.toml:8: sim.action_model"), "{e}");
    let bad = small("[sim]\naction_model = \"fly\"\n");
    parse_error(&bad, 7, &["sim.action_model", "unknown variant"]);
}

#[test]
fn a_file_of_another_kind_loaded_as_a_scenario_is_named() {
    // The library's loader (Python's `Simulation.from_scenario` goes through it) names the
    // kind instead of failing on the first TOML line.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let err = Scenario::load(root.join("sims/maps/arena.map"))
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("arena.map: is a Moving AI map, not a simulation scenario (TOML)"),
        "{err}"
    );
    let err = Scenario::load(root.join("sims/lorr/random.domain/RANDOM-01.json"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("is a League of Robot Runners problem"),
        "{err}"
    );
}
