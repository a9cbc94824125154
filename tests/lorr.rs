//! League of Robot Runners problems: loading (with errors by file and line), runs whose every
//! step the independent replay accepts, the rotate action model's moves, task bookkeeping
//! against the events, the output JSON, and the same run on any number of threads.

use std::path::{Path, PathBuf};

use throng::lorr::{LorrAction, LorrConfig, LorrPlanner, LorrRun, Problem, replay};
use throng::sim::{ActionModel, Heading};

fn shipped(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sims/lorr/random.domain")
        .join(name)
}

fn random01() -> Problem {
    Problem::load(shipped("RANDOM-01.json")).expect("the shipped problem loads")
}

#[test]
fn the_shipped_problems_load_as_the_competition_defines_them() {
    let p = random01();
    assert_eq!(p.name, "RANDOM-01");
    assert_eq!(p.starts.len(), 100);
    assert_eq!(p.reveal, 150, "1.5 x 100 tasks revealed");
    assert_eq!(p.tasks.len(), 100_000);
    assert_eq!(p.competition_steps(), Some(600));
    assert_eq!((p.grid.width(), p.grid.height()), (32, 32));
    // The first agent line is 787: row 24, column 19.
    assert_eq!(p.grid.coords(p.starts[0]), (19, 24));
    assert_eq!(p.tasks[0], vec![566, 822, 422, 356]);
    let p2 = Problem::load(shipped("RANDOM-02.json")).unwrap();
    assert_eq!(p2.starts.len(), 200);
}

/// Runs `steps` steps and checks each step's actions against the rules by hand (besides the
/// replay): under `rotate` an agent either stays put (turning at most a quarter) or moves one
/// cell the way it faced.
fn run_and_check(planner: LorrPlanner, model: ActionModel, steps: u64) -> LorrRun {
    let p = random01();
    let mut run = LorrRun::new(
        &p,
        LorrConfig {
            planner,
            action_model: model,
            ..LorrConfig::default()
        },
    )
    .unwrap();
    let grid = p.grid.clone();
    let mut cells = p.starts.clone();
    let mut headings = vec![Heading::East; cells.len()];
    for _ in 0..steps {
        run.step();
        let actions = run.step_actions(run.steps() - 1).to_vec();
        for a in 0..cells.len() {
            let (from, to, heading) = (cells[a], run.positions()[a], run.headings()[a]);
            if let Some(sim) = run.simulation() {
                // The sim planner's agents stand where the run has its robots.
                let id = sim.agents().iter().nth(a).unwrap().0;
                assert_eq!(sim.agent(id).unwrap().position(), to);
            }
            match (model, actions[a]) {
                (ActionModel::Rotate, LorrAction::Forward) => {
                    assert_eq!(
                        headings[a].ahead(&grid, from),
                        Some(to),
                        "agent {a} moved off its heading"
                    );
                    assert_eq!(heading, headings[a]);
                }
                (ActionModel::Rotate, LorrAction::Clockwise) => {
                    assert_eq!((from, heading), (to, headings[a].clockwise()));
                }
                (ActionModel::Rotate, LorrAction::CounterClockwise) => {
                    assert_eq!((from, heading), (to, headings[a].counter_clockwise()));
                }
                (_, LorrAction::Wait) => assert_eq!((from, heading), (to, headings[a])),
                (ActionModel::Free, LorrAction::Move(toward)) => {
                    assert_eq!(grid.step(from, toward.direction()), to);
                }
                (_, other) => panic!("unexpected action {other:?} under {model}"),
            }
            cells[a] = to;
            headings[a] = heading;
        }
    }
    run.validate().expect("the replay accepts the plan");
    run
}

#[test]
fn rotate_runs_finish_tasks_and_pass_the_replay() {
    for planner in [LorrPlanner::Pibt, LorrPlanner::Sim] {
        let run = run_and_check(planner, ActionModel::Rotate, 200);
        let r = run.report();
        assert_eq!(r.steps, 200);
        // 100 agents, 200 steps on a 32 x 32 map: measured 150-ish; a jam or a lost errand
        // would show as a handful.
        assert!(r.tasks_finished >= 60, "{planner}: {r:?}");
        assert!(
            r.moves > 100 * 200 / 3,
            "{planner}: agents mostly move: {r:?}"
        );
    }
}

#[test]
fn the_pibt_planner_refuses_the_free_model() {
    let config = LorrConfig {
        planner: LorrPlanner::Pibt,
        action_model: ActionModel::Free,
        ..LorrConfig::default()
    };
    let err = LorrRun::new(&random01(), config).unwrap_err().to_string();
    assert!(err.contains("rotate"), "{err}");
}

#[test]
fn free_runs_finish_tasks_and_pass_the_replay() {
    let run = run_and_check(LorrPlanner::Sim, ActionModel::Free, 150);
    assert!(run.report().tasks_finished >= 60, "{:?}", run.report());
}

#[test]
fn events_tell_the_tasks_story() {
    let run = run_and_check(LorrPlanner::Pibt, ActionModel::Rotate, 150);
    let board = run.board();
    let p = random01();
    // Replay the events against the task lines and the agents' cells: each event is the next
    // errand of the agent's task, in order, and the finished count is the tasks whose last
    // errand was done.
    let mut done = vec![0u32; board.tasks().len()];
    let mut finished = 0;
    let mut last_step = 0;
    for e in board.events() {
        assert!(e.step >= last_step, "events in step order");
        last_step = e.step;
        let task = &board.tasks()[e.task as usize];
        assert_eq!(task.agent, e.agent, "an event of the task's own agent");
        done[e.task as usize] += 1;
        assert_eq!(
            done[e.task as usize], e.done,
            "errands one at a time, in order"
        );
        let errands = &p.tasks[task.line as usize];
        if e.done as usize == errands.len() {
            finished += 1;
            assert_eq!(task.finished_at, Some(e.step));
        }
    }
    assert_eq!(finished, board.finished());
    // The pool stays full: revealed = finished + reveal.
    assert_eq!(
        board.tasks().len() as u64,
        board.finished() + p.reveal as u64
    );
    // Every revealed task's line wraps around the file.
    for t in board.tasks() {
        assert_eq!(t.line as usize, t.id as usize % p.tasks.len());
    }
}

#[test]
fn the_output_json_is_the_competitions() {
    let run = run_and_check(LorrPlanner::Pibt, ActionModel::Rotate, 50);
    let mut out = Vec::new();
    run.write_output(&mut out).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
    assert_eq!(json["actionModel"], "MAPF_T");
    assert_eq!(json["teamSize"], 100);
    assert_eq!(json["numTaskFinished"], run.report().tasks_finished);
    assert_eq!(json["makespan"], 50);
    let paths = json["actualPaths"].as_array().unwrap();
    assert_eq!(paths.len(), 100);
    // Each agent's string, read back into steps, replays to the same end.
    let per_agent: Vec<Vec<char>> = paths
        .iter()
        .map(|p| {
            p.as_str()
                .unwrap()
                .split(',')
                .map(|a| a.chars().next().unwrap())
                .collect()
        })
        .collect();
    assert!(per_agent.iter().all(|a| a.len() == 50));
    let steps: Vec<String> = (0..50)
        .map(|t| per_agent.iter().map(|a| a[t]).collect())
        .collect();
    let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
    let p = random01();
    replay(&p.grid, &p.starts, ActionModel::Rotate, &steps).expect("the written plan replays");
    let start = &json["start"][0];
    let (x, y) = p.grid.coords(p.starts[0]);
    assert_eq!(start, &serde_json::json!([y, x, "E"]));
    assert_eq!(
        json["events"].as_array().unwrap().len(),
        run.board().events().len()
    );
    assert_eq!(
        json["tasks"].as_array().unwrap().len(),
        run.board().tasks().len()
    );
    assert_eq!(json["plannerTimes"].as_array().unwrap().len(), 50);
}

#[test]
fn the_same_run_on_one_thread_and_on_the_pool() {
    let p = random01();
    let play = |parallel: bool| {
        let mut run = LorrRun::new(
            &p,
            LorrConfig {
                planner: LorrPlanner::Pibt,
                parallel,
                ..LorrConfig::default()
            },
        )
        .unwrap();
        run.play(120);
        run.actions().to_vec()
    };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| play(true));
    assert_eq!(one, play(true));
    assert_eq!(one, play(false));
}

/// Writes a problem directory with the given files and returns the JSON's path.
fn problem_dir(dir: &Path, json: &str, map: &str, agents: &str, tasks: &str) -> PathBuf {
    std::fs::write(dir.join("p.json"), json).unwrap();
    std::fs::write(dir.join("m.map"), map).unwrap();
    std::fs::write(dir.join("a.agents"), agents).unwrap();
    std::fs::write(dir.join("t.tasks"), tasks).unwrap();
    dir.join("p.json")
}

const MAP: &str = "type octile\nheight 2\nwidth 3\nmap\n..E\n.@S\n";
const JSON: &str = r#"{"mapFile": "m.map", "agentFile": "a.agents", "taskFile": "t.tasks",
"teamSize": 2, "numTasksReveal": 1.5}"#;

#[test]
fn bad_problems_are_errors_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let err = |json: &str, map: &str, agents: &str, tasks: &str| {
        let path = problem_dir(dir.path(), json, map, agents, tasks);
        Problem::load(&path).unwrap_err().to_string()
    };
    // A good one first: E and S are free cells.
    let path = problem_dir(dir.path(), JSON, MAP, "2\n0\n2\n", "1\n5,3\n");
    let p = Problem::load(&path).unwrap();
    assert_eq!((p.starts.clone(), p.reveal), (vec![0, 2], 3));

    let e = err(
        "{\"mapFile\": \"m.map\",\n \"teamSize\": }",
        MAP,
        "2\n0\n2\n",
        "1\n5\n",
    );
    assert!(e.contains("p.json:2:"), "{e}");
    let e = err(r#"{"mapFile": "m.map"}"#, MAP, "2\n0\n2\n", "1\n5\n");
    assert!(e.contains("p.json:1:") && e.contains("agentFile"), "{e}");
    let e = err(&JSON.replace("1.5", "-1"), MAP, "2\n0\n2\n", "1\n5\n");
    assert!(
        e.contains("numTasksReveal must be a positive number"),
        "{e}"
    );
    let e = err(
        &JSON.replace("\"teamSize\": 2", "\"teamSize\": 9"),
        MAP,
        "2\n0\n2\n",
        "1\n5\n",
    );
    assert!(
        e.contains("teamSize 9 is more than the map's 5 free cells"),
        "{e}"
    );
    let e = err(JSON, MAP, "2\n0\n4\n", "1\n5\n");
    assert!(
        e.contains("a.agents:3: cell 4 (row 1, column 1) is blocked"),
        "{e}"
    );
    let e = err(JSON, MAP, "1\n0\n", "1\n5\n");
    assert!(e.contains("a.agents:1: the file has 1 agents"), "{e}");
    let e = err(JSON, MAP, "2\n0\n2\n", "2\n5\n3,77\n");
    assert!(
        e.contains("t.tasks:3: cell 77 is outside the 3 x 2 map"),
        "{e}"
    );
    let e = err(
        JSON,
        "type octile\nheight 2\nwidth 3\nmap\n..E\n.x.\n",
        "2\n0\n2\n",
        "1\n5\n",
    );
    assert!(e.contains("m.map:6: unknown terrain character 'x'"), "{e}");
    let e = err(
        &JSON.replace("t.tasks", "missing.tasks"),
        MAP,
        "2\n0\n2\n",
        "1\n5\n",
    );
    assert!(e.contains("missing.tasks"), "{e}");
}

#[test]
fn a_plan_through_a_wall_or_into_another_agent_is_refused() {
    let p = random01();
    let grid = &p.grid;
    // Drive agent 0 forward (east) until the replay refuses: into a wall, off the map or into
    // another agent, never past one.
    let mut steps = Vec::new();
    let mut at = p.starts[0];
    let others: std::collections::HashSet<_> = p.starts[1..].iter().copied().collect();
    loop {
        let mut letters = vec!['W'; 100];
        letters[0] = 'F';
        steps.push(letters.into_iter().collect::<String>());
        let refs: Vec<&str> = steps.iter().map(String::as_str).collect();
        match Heading::East.ahead(grid, at) {
            Some(next) if !others.contains(&next) => {
                assert!(replay(grid, &p.starts, ActionModel::Rotate, &refs).is_ok());
                at = next;
            }
            _ => {
                assert!(replay(grid, &p.starts, ActionModel::Rotate, &refs).is_err());
                break;
            }
        }
    }
}

/// The checker reads the plan's letters with a decoder of its own: letters written with two
/// actions swapped (as a wrong encoder, or a planner whose actions say one thing and do
/// another, would write them) are refused, or replay to other cells or headings than the run's.
#[test]
fn letters_written_with_two_actions_swapped_are_caught() {
    let p = random01();
    for (planner, model, swap) in [
        (LorrPlanner::Pibt, ActionModel::Rotate, ('R', 'C')),
        (LorrPlanner::Pibt, ActionModel::Rotate, ('F', 'W')),
        (LorrPlanner::Sim, ActionModel::Free, ('U', 'D')),
        (LorrPlanner::Sim, ActionModel::Free, ('L', 'R')),
    ] {
        let config = LorrConfig {
            planner,
            action_model: model,
            ..LorrConfig::default()
        };
        let mut run = LorrRun::new(&p, config).unwrap();
        run.play(60);
        run.validate().unwrap();
        let encode = |swap: Option<(char, char)>| -> Vec<String> {
            let letter = |a: LorrAction| match (a.letter(), swap) {
                (l, Some((x, y))) if l == x => y,
                (l, Some((x, y))) if l == y => x,
                (l, _) => l,
            };
            (0..run.steps())
                .map(|t| run.step_actions(t).iter().map(|&a| letter(a)).collect())
                .collect()
        };
        let (right, wrong) = (encode(None), encode(Some(swap)));
        assert_ne!(right, wrong, "{swap:?} are both in the plan");
        let replay_of = |steps: &[String]| {
            let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
            replay(&p.grid, &p.starts, model, &steps)
        };
        let end = (run.positions().to_vec(), run.headings().to_vec());
        assert_eq!(replay_of(&right), Ok(end.clone()));
        match replay_of(&wrong) {
            Err(_) => {}
            Ok(other) => assert_ne!(other, end, "{swap:?} swapped went unnoticed"),
        }
    }
}
