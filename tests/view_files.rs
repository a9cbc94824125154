//! `throng view`'s readers, without a browser: a MAPF plan written by `throng mapf --out` and a
//! LoRR output written by `throng lorr --out` read back into the replay the page is served
//! give the cells (and headings) the solver produced; damaged files, files of other kinds and
//! flags that do not apply are one-line errors with status 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use throng::grid::{CellId, Neighborhood};
use throng::lorr::{LorrConfig, LorrPlanner, LorrRun, Problem};
use throng::mapf::Instance;
use throng::mapf::lacam::{LacamOptions, LacamOutcome, PIBT_RUNS, SCATTER_MARGIN, solve};
use throng::sim::ActionModel;
use throng::trace::TraceReader;
use throng::view::{MapSource, PlanFile, ReplayKind, open};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn throng(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .output()
        .expect("throng runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// `throng view FILE ARGS --port 0 --no-open` on a file that must be refused: its one line of
/// stderr, after checking the status is 2.
fn refused(file: &Path, args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_throng"))
        .arg("view")
        .arg(file)
        .args(args)
        .args(["--port", "0", "--no-open"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// Every tick's live cells of a trace, from tick 0.
fn trace_cells(trace: &[u8]) -> Vec<Vec<CellId>> {
    let mut r = TraceReader::new(trace).unwrap();
    let mut all = vec![r.live().iter().map(|a| a.cell).collect::<Vec<_>>()];
    while r.next_tick().unwrap().is_some() {
        all.push(r.live().iter().map(|a| a.cell).collect());
    }
    all
}

/// The headings stream (src/view/replay.rs) of `agents` robots over `ticks` ticks, as a
/// heading number per robot per tick.
fn decode_headings(bytes: &[u8], agents: usize, ticks: usize) -> Vec<Vec<u8>> {
    let mut now = bytes[..agents].to_vec();
    let mut all = vec![now.clone()];
    let mut i = agents;
    let varint = |i: &mut usize| {
        let (mut v, mut shift) = (0usize, 0);
        loop {
            let b = bytes[*i];
            *i += 1;
            v |= usize::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return v;
            }
            shift += 7;
        }
    };
    for _ in 0..ticks {
        for _ in 0..varint(&mut i) {
            let a = varint(&mut i);
            now[a] = bytes[i];
            i += 1;
        }
        all.push(now.clone());
    }
    assert_eq!(i, bytes.len(), "nothing after the last tick");
    all
}

#[test]
fn a_mapf_plan_reads_back_as_the_solver_planned_it() {
    let dir = tempfile::tempdir().unwrap();
    let plan_path = dir.path().join("plan.txt");
    let map = repo("sims/maps/mapf/random-32-32-10.map");
    let scen = repo("sims/maps/mapf/random-32-32-10-random-1.scen");
    let o = throng(&[
        "mapf",
        map.to_str().unwrap(),
        scen.to_str().unwrap(),
        "--agents",
        "20",
        "--no-polish",
        "--out",
        plan_path.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The same instance solved here, with the command's LaCAM options (LaCAM's plan as it is).
    let instance = Instance::load(&map, &scen, 20, Neighborhood::Four).unwrap();
    let options = LacamOptions {
        time_limit: Some(Duration::from_secs(10)),
        node_limit: None,
        seed: 0,
        anytime: false,
        scatter: Some(SCATTER_MARGIN),
        pibt_runs: PIBT_RUNS,
    };
    let (outcome, _) = solve(&instance.grid, &instance.starts, &instance.goals, &options).unwrap();
    let LacamOutcome::Solved(plan) = outcome else {
        panic!("20 agents on random-32-32-10 are solved")
    };
    assert!(plan.len() > 5, "a plan with moves");

    let file = PlanFile::load(&plan_path).unwrap();
    assert_eq!(file.agents, 20);
    let xy: Vec<Vec<(u32, u32)>> = plan
        .iter()
        .map(|c| c.iter().map(|&cell| instance.grid.coords(cell)).collect())
        .collect();
    assert_eq!(file.configs, xy, "the plan file's cells");

    let replay = open(&plan_path, MapSource::default()).unwrap();
    assert_eq!(replay.kind, ReplayKind::MapfPlan);
    assert_eq!((replay.agents, replay.ticks), (20, plan.len() as u64 - 1));
    assert!(replay.headings.is_none(), "agents of a plan do not turn");
    assert_eq!(trace_cells(&replay.trace), plan, "the replay's cells");
    // Goals: the instance's, from tick 0.
    let r = TraceReader::new(&replay.trace[..]).unwrap();
    let goals: Vec<_> = r.agents().iter().map(|a| a.goal).collect();
    assert_eq!(
        goals,
        instance.goals.iter().map(|&g| Some(g)).collect::<Vec<_>>()
    );
    // The same plan on a map given by --map.
    let again = open(
        &plan_path,
        MapSource {
            map: Some(&map),
            problem: None,
        },
    )
    .unwrap();
    assert_eq!(again.trace, replay.trace);
}

/// `throng lorr --out` of RANDOM-01 for `steps` steps under the action `model`, in `dir`: the
/// output file and the problem.
fn played_lorr_output(dir: &Path, model: &str, steps: usize) -> (PathBuf, PathBuf) {
    let out = dir.join(format!("{model}.json"));
    let problem = repo("sims/lorr/random.domain/RANDOM-01.json");
    let o = throng(&[
        "lorr",
        problem.to_str().unwrap(),
        "--action-model",
        model,
        "--steps",
        &steps.to_string(),
        "--step-ms",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    (out, problem)
}

#[test]
fn a_lorr_output_reads_back_as_the_run_played_it() {
    let dir = tempfile::tempdir().unwrap();
    let steps = 40;
    let (out, problem_path) = played_lorr_output(dir.path(), "rotate", steps);
    // The same run here, step by step: every robot's cell and heading.
    let problem = Problem::load(&problem_path).unwrap();
    // The library's defaults choose the planner as `throng lorr` does.
    let mut run = LorrRun::new(&problem, LorrConfig::default()).unwrap();
    let state = |run: &LorrRun| -> (Vec<CellId>, Vec<u8>) {
        let headings = run.headings().iter().map(|h| h.index() as u8).collect();
        (run.positions().to_vec(), headings)
    };
    let targets = |run: &LorrRun| -> Vec<Option<CellId>> {
        (0..100).map(|a| run.board().target(a)).collect()
    };
    let mut cells = vec![state(&run).0];
    let mut headings = vec![state(&run).1];
    let mut errands = vec![targets(&run)];
    for _ in 0..steps {
        run.step();
        let (c, h) = state(&run);
        cells.push(c);
        headings.push(h);
        errands.push(targets(&run));
    }
    assert!(
        headings.iter().any(|h| h.iter().any(|&x| x != 0)),
        "some robot turned"
    );

    let replay = open(
        &out,
        MapSource {
            map: None,
            problem: Some(&problem_path),
        },
    )
    .unwrap();
    assert_eq!(replay.kind, ReplayKind::LorrOutput);
    assert_eq!((replay.agents, replay.ticks), (100, steps as u64));
    assert_eq!(trace_cells(&replay.trace), cells, "the replay's cells");
    let stream = replay.headings.as_deref().expect("robots that turn");
    assert_eq!(decode_headings(stream, 100, steps), headings);
    // Goals: a robot heads for its task's next errand; one given a task at that very step
    // (without one before, or its unopened task given to another robot), before it moves
    // again, heads for the new task's first errand.
    let board = run.board();
    let given = |tick: usize, a: usize| {
        board
            .assignments()
            .iter()
            .rev()
            .find(|&&(s, agent, _)| s == tick as u64 && agent as usize == a)
            .map(|&(_, _, task)| {
                board
                    .tasks()
                    .get(task as usize)
                    .map(|t| board.errands(t)[0])
            })
    };
    let mut r = TraceReader::new(&replay.trace[..]).unwrap();
    let (mut tick, mut checked) = (0, 0);
    loop {
        for (a, &held) in errands[tick].iter().enumerate() {
            let want = given(tick, a).unwrap_or(held);
            if want.is_some() {
                assert_eq!(r.live()[a].goal, want, "robot {a} at tick {tick}");
                checked += 1;
            }
        }
        if r.next_tick().unwrap().is_none() {
            break;
        }
        tick += 1;
    }
    assert!(checked >= 90 * steps, "{checked} goals checked");

    // The map alone gives the same replay.
    let map = repo("sims/lorr/random.domain/maps/random-32-32-20.map");
    let by_map = open(
        &out,
        MapSource {
            map: Some(&map),
            problem: None,
        },
    )
    .unwrap();
    assert_eq!(by_map.trace, replay.trace);
    assert_eq!(by_map.headings, replay.headings);
}

#[test]
fn a_free_model_lorr_output_reads_back_as_the_run_played_it() {
    // The free model's letters (U, D, L, R) read by the viewer as the run wrote them.
    let dir = tempfile::tempdir().unwrap();
    let steps = 30;
    let (out, problem_path) = played_lorr_output(dir.path(), "free", steps);
    let problem = Problem::load(&problem_path).unwrap();
    let config = LorrConfig {
        planner: LorrPlanner::Sim,
        action_model: ActionModel::Free,
        ..LorrConfig::default()
    };
    let mut run = LorrRun::new(&problem, config).unwrap();
    let cells_now = |run: &LorrRun| -> Vec<CellId> { run.positions().to_vec() };
    let mut cells = vec![cells_now(&run)];
    for _ in 0..steps {
        run.step();
        cells.push(cells_now(&run));
    }
    let moved = cells.windows(2).any(|w| w[0] != w[1]);
    assert!(moved, "robots moved");
    let replay = open(
        &out,
        MapSource {
            map: None,
            problem: Some(&problem_path),
        },
    )
    .unwrap();
    assert_eq!(trace_cells(&replay.trace), cells, "the replay's cells");
}

#[test]
fn damaged_lorr_outputs_are_one_line_with_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let (out, problem) = played_lorr_output(dir.path(), "rotate", 10);
    let problem = problem.to_str().unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    let name = out.display().to_string();
    // Without its map: which flag to add.
    let err = refused(&out, &[]);
    assert!(
        err.contains(&format!("{name} is a LoRR output"))
            && err.contains("add --problem PROBLEM.json")
            && err.contains("--map MAP"),
        "{err}"
    );
    // Robot 7's path (a line of its own) given an unknown action.
    let lines: Vec<&str> = text.lines().collect();
    let first_path = lines
        .iter()
        .position(|l| l.contains("\"actualPaths\""))
        .unwrap()
        + 1;
    let line = first_path + 7;
    let bad = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == line {
                l.replacen('W', "X", 1).replacen('F', "X", 1)
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(bad, text);
    std::fs::write(&out, &bad).unwrap();
    let err = refused(&out, &["--problem", problem]);
    assert!(
        err.contains(&format!("{name}:{}: actualPaths[7]: step ", line + 1))
            && err.contains("'X' is not an action of the MAPF_T model"),
        "{err}"
    );
    // Cut short: the JSON parser's line.
    std::fs::write(&out, &text[..text.len() / 2]).unwrap();
    let err = refused(&out, &["--problem", problem]);
    assert!(
        err.contains(&format!("{name}:")) && err.contains("EOF"),
        "{err}"
    );
    // A start moved onto another cell: not this problem's output.
    let moved = text.replacen("\"start\": [[", "\"start\": [[1", 1);
    std::fs::write(&out, &moved).unwrap();
    let err = refused(&out, &["--problem", problem]);
    assert!(
        err.contains("start[0]: robot 0") && err.contains("the output of another problem?")
            || err.contains("start[0]: robot 0's start"),
        "{err}"
    );
    // A plan flag on a LoRR output... and a LoRR flag on a plan.
    std::fs::write(&out, &text).unwrap();
    let o = throng(&["view", &name, "--map", "m.map", "--problem", problem]);
    assert_eq!(o.status.code(), Some(2), "--map and --problem together");
}

#[test]
fn damaged_plans_and_other_files_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let map = repo("sims/maps/mapf/random-32-32-10.map");
    let plan = dir.path().join("plan.txt");
    let head = format!("agents=2\nmap_file={}\nsolution=\n", map.display());
    let name = plan.display().to_string();
    // A move of two cells.
    std::fs::write(&plan, format!("{head}0:(0,0),(5,0),\n1:(2,0),(5,0),\n")).unwrap();
    let err = refused(&plan, &[]);
    assert!(
        err.contains(&format!("{name}:5: agent 0 moves from (0,0) to (2,0)")),
        "{err}"
    );
    // An agent missing.
    std::fs::write(&plan, format!("{head}0:(0,0),(5,0),\n1:(0,0),\n")).unwrap();
    let err = refused(&plan, &[]);
    assert!(
        err.contains(&format!("{name}:5: 1 agents on timestep 1")),
        "{err}"
    );
    // Off the map.
    std::fs::write(&plan, format!("{head}0:(0,0),(32,0),\n")).unwrap();
    let err = refused(&plan, &[]);
    assert!(err.contains("outside the 32 x 32 map"), "{err}");
    // A map that is not there: which flag to add.
    std::fs::write(
        &plan,
        "agents=1\nmap_file=nowhere.map\nsolution=\n0:(0,0),\n",
    )
    .unwrap();
    let err = refused(&plan, &[]);
    assert!(
        err.contains(&format!("{name}:2: map_file=nowhere.map: no such file"))
            && err.contains("--map MAP"),
        "{err}"
    );
    let given = MapSource {
        map: Some(&map),
        problem: None,
    };
    assert_eq!(open(&plan, given).unwrap().agents, 1, "--map puts it right");
    // A map_file= of LaCAM's kind (a file name) is looked for next to the plan.
    let beside = dir.path().join("beside");
    std::fs::create_dir_all(&beside).unwrap();
    std::fs::copy(&map, beside.join("room.map")).unwrap();
    let named = beside.join("plan.txt");
    std::fs::write(
        &named,
        "agents=1\nmap_file=elsewhere/room.map\nsolution=\n0:(0,0),\n1:(1,0),\n",
    )
    .unwrap();
    let found = open(&named, MapSource::default()).unwrap();
    assert_eq!((found.width, found.ticks), (32, 1));
    // --problem does not apply to a plan.
    std::fs::write(&plan, format!("{head}0:(0,0),(5,0),\n1:(1,0),(5,0),\n")).unwrap();
    let err = refused(&plan, &["--problem", "p.json"]);
    assert!(err.contains("--problem applies to a LoRR output"), "{err}");

    // Files of other kinds say what they are.
    let err = refused(&map, &[]);
    assert!(
        err.contains(&format!(
            "{} is a Moving AI map, not a trace, plan or LoRR output",
            map.display()
        )),
        "{err}"
    );
    let scen = repo("sims/maps/mapf/random-32-32-10-random-1.scen");
    assert!(refused(&scen, &[]).contains("is a Moving AI .scen file, not a trace"));
    let problem = repo("sims/lorr/random.domain/RANDOM-01.json");
    let err = refused(&problem, &[]);
    assert!(
        err.contains("is a League of Robot Runners problem, not a trace")
            && err.contains("throng lorr"),
        "{err}"
    );
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "").unwrap();
    assert!(refused(&empty, &[]).contains("is empty, not a trace"));
}
