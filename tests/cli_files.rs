//! `throng` given the wrong files: a file of another kind named for what it is, a `.scen` made
//! for another map (refused when the size differs, a warning when only the name does), and an
//! output path checked before the work that fills it.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::cli::{assert_one_line_error, s, stderr, throng};
use common::shipped;

/// One file of every kind throng reads or writes, in a temporary folder.
struct Files {
    _dir: tempfile::TempDir,
    map: PathBuf,
    scen: PathBuf,
    scenario: PathBuf,
    trace: PathBuf,
    zlib_trace: PathBuf,
    lorr_problem: PathBuf,
    lorr_output: PathBuf,
    plan: PathBuf,
    nav: PathBuf,
}

fn files() -> Files {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    let copy = |from: PathBuf, name: &str| {
        let to = d.join(name);
        std::fs::copy(from, &to).unwrap();
        to
    };
    let write = |name: &str, bytes: &[u8]| {
        let to = d.join(name);
        std::fs::write(&to, bytes).unwrap();
        to
    };
    let map = copy(shipped("mapf/maze-32-32-2.map"), "some.map");
    let scen = copy(shipped("mapf/maze-32-32-2-random-5.scen"), "some.scen");
    let scenario = write(
        "s.toml",
        b"agents = 10\nticks = 5\n[map]\ngenerator = { kind = \"random\", width = 16, height = 16, \
          density = 0.1 }\n",
    );
    // A trace header (magic, version 1, compressed body): enough to tell the kind.
    let header = b"THRTRACE\x01\x00\x01\x00";
    let trace = write("run.trace", header);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(header).unwrap();
    let zlib_trace = write("run.trace.z", &z.finish().unwrap());
    let lorr_problem =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sims/lorr/random.domain/RANDOM-01.json");
    let lorr_output = write(
        "out.json",
        b"{\n  \"actionModel\": \"MAPF_T\",\n  \"AllValid\": \"Yes\",\n  \"teamSize\": 1\n}\n",
    );
    let plan = write(
        "plan.txt",
        b"agents=1\nmap_file=some.map\nsolver=throng-lacam\nsolved=1\nsolution=\n0:(0,0),\n",
    );
    let nav = write("some.nav", b"THRONGNV\x04\x00\x00\x00");
    Files {
        _dir: dir,
        map,
        scen,
        scenario,
        trace,
        zlib_trace,
        lorr_problem,
        lorr_output,
        plan,
        nav,
    }
}

/// Each reading command, given a file of another kind, says in one line what the file is, what
/// it wanted, and what to do instead.
#[test]
fn a_file_of_another_kind_is_named_for_what_it_is() {
    let f = files();
    let map = s(&f.map);
    let scen = s(&f.scen);
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["run", map],
            format!(
                "{map} is a Moving AI map, not a simulation scenario (TOML) (try: throng run \
                 --map {map} --agents 1000)"
            ),
        ),
        (
            vec!["run", scen],
            format!("{scen} is a Moving AI .scen file, not a simulation scenario (TOML) (try: throng scen {scen})"),
        ),
        (
            vec!["run", s(&f.trace)],
            format!("is a throng trace, not a simulation scenario (TOML) (try: throng view {})", s(&f.trace)),
        ),
        (
            vec!["run", s(&f.zlib_trace)],
            "is a throng trace, not a simulation scenario".to_string(),
        ),
        (
            vec!["run", s(&f.lorr_problem)],
            "is a League of Robot Runners problem, not a simulation scenario (TOML) (try: throng lorr"
                .to_string(),
        ),
        (
            vec!["run", s(&f.plan)],
            "is a MAPF plan, not a simulation scenario (TOML) (written by throng mapf --out"
                .to_string(),
        ),
        (
            vec!["lorr", map],
            format!("{map} is a Moving AI map, not a League of Robot Runners problem"),
        ),
        (
            vec!["lorr", s(&f.scenario)],
            "is a simulation scenario (TOML), not a League of Robot Runners problem (try: throng run"
                .to_string(),
        ),
        (
            vec!["lorr", s(&f.lorr_output)],
            "is a League of Robot Runners output file, not a League of Robot Runners problem \
             (written by throng lorr --out"
                .to_string(),
        ),
        (
            vec!["mapf", map, s(&f.plan), "--agents", "1"],
            "is a MAPF plan, not a Moving AI .scen file".to_string(),
        ),
        (
            vec!["mapf", s(&f.scenario), scen, "--agents", "1"],
            "is a simulation scenario (TOML), not a Moving AI map".to_string(),
        ),
        (
            vec!["mapf", scen, map, "--agents", "3"],
            format!("the map comes first (try: throng mapf {map} {scen} --agents 3)"),
        ),
        (
            vec!["scen", map],
            format!("{map} is a Moving AI map, not a Moving AI .scen file"),
        ),
        (
            vec!["scen", scen, "--map", s(&f.lorr_output)],
            "is a League of Robot Runners output file, not a Moving AI map".to_string(),
        ),
        (
            vec!["scen", scen, "--planner", "nav", "--nav-file", map],
            "is a Moving AI map, not a navigation-points file".to_string(),
        ),
        (
            vec!["nav", scen, "-o", "x.nav"],
            format!("{scen} is a Moving AI .scen file, not a Moving AI map"),
        ),
        (
            vec!["nav", s(&f.nav), "-o", "x.nav"],
            "is a navigation-points file, not a Moving AI map (try: throng scen --planner nav \
             --nav-file"
                .to_string(),
        ),
        (
            vec!["view", map, "--no-open"],
            format!("{map} is a Moving AI map, not a trace, plan or LoRR output"),
        ),
        (
            vec!["view", s(&f.scenario), "--no-open"],
            "is a simulation scenario (TOML), not a trace, plan or LoRR output".to_string(),
        ),
    ];
    for (args, want) in &cases {
        assert_one_line_error(&throng(args), want);
    }
    // The files a scenario names are checked too, naming the key.
    let toml = |name: &str, map: &Path, placement: &Path| {
        let path = f.map.with_file_name(name);
        std::fs::write(
            &path,
            format!(
                "agents = 2\nticks = 5\n[map]\nfile = {:?}\n[placement]\nkind = \"scen\"\nfile = {:?}\n",
                s(map),
                s(placement)
            ),
        )
        .unwrap();
        path
    };
    let swapped = toml("swapped.toml", &f.scen, &f.map);
    assert_one_line_error(
        &throng(&["run", s(&swapped)]),
        &format!("swapped.toml: map.file: {scen} is a Moving AI .scen file, not a Moving AI map"),
    );
    let map_twice = toml("twice.toml", &f.map, &f.map);
    assert_one_line_error(
        &throng(&["run", s(&map_twice)]),
        &format!(
            "twice.toml: placement.file: {map} is a Moving AI map, not a Moving AI .scen file"
        ),
    );
}

/// A `.scen` made for another map of the same size (the maze scen on the random map):
/// `mapf` refuses the first blocked start naming the file and line, with the map the scen
/// names as the cause, in one line.
#[test]
fn mapf_names_the_map_a_scen_was_made_for() {
    let map = shipped("mapf/random-32-32-10.map");
    let scen = shipped("mapf/maze-32-32-2-random-5.scen");
    let o = throng(&["mapf", s(&map), s(&scen), "--agents", "10"]);
    assert_one_line_error(&o, "maze-32-32-2-random-5.scen:5: start (18, 2) is blocked");
    assert!(
        stderr(&o).contains(
            "maze-32-32-2-random-5.scen:2: names map \"maze-32-32-2.map\", run on random-32-32-10.map"
        ),
        "{}",
        stderr(&o)
    );
    // Another size cannot be meant: one error line with both maps.
    let o = throng(&["mapf", s(&shipped("arena.map")), s(&scen), "--agents", "10"]);
    assert_one_line_error(
        &o,
        "maze-32-32-2-random-5.scen:2: query is for a 32 x 32 map (\"maze-32-32-2.map\"), but \
         the map arena.map is 49 x 49",
    );
    // The right map under another name: solved, with the warning.
    let dir = tempfile::tempdir().unwrap();
    let renamed = dir.path().join("my-maze.map");
    std::fs::copy(shipped("mapf/maze-32-32-2.map"), &renamed).unwrap();
    let o = throng(&["mapf", s(&renamed), s(&scen), "--agents", "10", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("run on my-maze.map"), "{err}");
}

/// `scen --map` with a map of another name warns; of another size, refuses in one line naming
/// the file, its line and both maps. Without `--map` the map is found by name, so only the size
/// can differ.
#[test]
fn scen_checks_the_map_it_runs_on() {
    let scen = shipped("mapf/maze-32-32-2-random-5.scen");
    let dir = tempfile::tempdir().unwrap();
    let renamed = dir.path().join("my-maze.map");
    std::fs::copy(shipped("mapf/maze-32-32-2.map"), &renamed).unwrap();
    let o = throng(&["scen", s(&scen), "--map", s(&renamed), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("throng: warning: ")
            && err.contains("names map \"maze-32-32-2.map\", run on my-maze.map"),
        "{err}"
    );
    // The same map by its own name: no warning.
    let o = throng(&[
        "scen",
        s(&scen),
        "--map",
        s(&shipped("mapf/maze-32-32-2.map")),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    let o = throng(&["scen", s(&scen), "--map", s(&shipped("arena.map"))]);
    assert_one_line_error(
        &o,
        "maze-32-32-2-random-5.scen:2: query is for a 32 x 32 map (\"maze-32-32-2.map\"), but \
         the map arena.map is 49 x 49",
    );
    // No --map: the map named, found beside the file, is of another size.
    std::fs::write(
        dir.path().join("ok.map"),
        "type octile\nheight 2\nwidth 3\nmap\n...\n...\n",
    )
    .unwrap();
    let wrong = dir.path().join("size.map.scen");
    std::fs::write(&wrong, "version 1\n0\tok.map\t4\t2\t0\t0\t2\t1\t2.4\n").unwrap();
    assert_one_line_error(
        &throng(&["scen", s(&wrong)]),
        "size.map.scen:2: query is for a 4 x 2 map (\"ok.map\"), but the map ok.map is 3 x 2",
    );
}

/// A simulation scenario naming a map and a `.scen` for another map: a warning when only the
/// name differs, an error naming the TOML's `.scen` line and both maps when the size does.
#[test]
fn a_scenario_with_a_scen_placement_checks_its_map() {
    let dir = tempfile::tempdir().unwrap();
    let maps = Path::new(env!("CARGO_MANIFEST_DIR")).join("sims/maps");
    let renamed = dir.path().join("my-random.map");
    std::fs::copy(maps.join("mapf/random-32-32-10.map"), &renamed).unwrap();
    let scenario = |map: &Path| {
        let path = dir.path().join("mapf.toml");
        std::fs::write(
            &path,
            format!(
                "agents = 20\nticks = 100\n[map]\nfile = {:?}\nneighbourhood = 4\n\
                 [placement]\nkind = \"scen\"\nfile = {:?}\n[sim]\nconflicts = \"pibt\"\n",
                s(map),
                s(&maps.join("mapf/random-32-32-10-random-1.scen"))
            ),
        )
        .unwrap();
        path
    };
    let toml = scenario(&renamed);
    let o = throng(&["run", s(&toml), "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("throng: warning: ")
            && err.contains(
                "random-32-32-10-random-1.scen:2: names map \"random-32-32-10.map\", run on my-random.map"
            ),
        "{err}"
    );
    let toml = scenario(&maps.join("arena.map"));
    assert_one_line_error(
        &throng(&["run", s(&toml), "--quiet"]),
        "random-32-32-10-random-1.scen:2: query is for a 32 x 32 map (\"random-32-32-10.map\"), \
         but the map arena.map is 49 x 49",
    );
    // The shipped scenario names its own map: nothing on stderr.
    let shipped_toml = Path::new(env!("CARGO_MANIFEST_DIR")).join("sims/mapf-random-32-32-10.toml");
    let o = throng(&["run", s(&shipped_toml), "--quiet", "--ticks", "2"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
}

/// `mapf --out` is checked before the search, as `run` checks its outputs: a folder that does
/// not exist, or a folder given as the file, is refused at once, in one line naming the flag.
#[test]
fn mapf_checks_its_output_path_before_solving() {
    let map = shipped("mapf/maze-32-32-2.map");
    let scen = shipped("mapf/maze-32-32-2-random-5.scen");
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/folder/plan.txt");
    let o = throng(&[
        "mapf",
        s(&map),
        s(&scen),
        "--agents",
        "5",
        "--out",
        s(&missing),
    ]);
    assert_one_line_error(
        &o,
        &format!(
            "--out {}: folder {} does not exist",
            missing.display(),
            missing.parent().unwrap().display()
        ),
    );
    let o = throng(&[
        "mapf",
        s(&map),
        s(&scen),
        "--agents",
        "5",
        "--out",
        s(dir.path()),
    ]);
    assert_one_line_error(&o, "is a directory");
    // Checked before the instance too: an instance that cannot load is not what is reported.
    let o = throng(&[
        "mapf",
        s(&map),
        s(&scen),
        "--agents",
        "9999",
        "--out",
        s(&missing),
    ]);
    assert_one_line_error(&o, "--out");
    // nav checks its --out before building.
    let o = throng(&["nav", s(&map), "-o", s(&missing)]);
    assert_one_line_error(&o, "--out");
}

/// The files a command takes beside its main one (`view --map`, `view --problem`) and a
/// problem's own parts given in its place are named for what they are too.
#[test]
fn secondary_files_of_another_kind_are_named_for_what_they_are() {
    let f = files();
    let out = s(&f.lorr_output);
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["view", out, "--problem", s(&f.map), "--no-open"],
            format!(
                "--problem: {} is a Moving AI map, not a League of Robot Runners problem",
                s(&f.map)
            ),
        ),
        (
            vec!["view", out, "--problem", out, "--no-open"],
            format!(
                "--problem: {out} is a League of Robot Runners output file, not a League of \
                 Robot Runners problem"
            ),
        ),
        (
            vec!["view", out, "--map", s(&f.scenario), "--no-open"],
            format!(
                "--map: {} is a simulation scenario (TOML), not a Moving AI map",
                s(&f.scenario)
            ),
        ),
    ];
    for (args, want) in &cases {
        assert_one_line_error(&throng(args), want);
    }
    // A LoRR problem's agents file, or an empty file, given as the problem.
    let agents = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sims/lorr/random.domain/agents/random_32_32_20_100.agents");
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "").unwrap();
    for file in [agents.as_path(), empty.as_path()] {
        assert_one_line_error(
            &throng(&["lorr", s(file)]),
            &format!("{}:1: not a League of Robot Runners problem", s(file)),
        );
    }
}
