//! The `window` planner of `throng lorr`: its steps replayed by the independent checker in a
//! dense crowd, the same actions on 1 and 2 threads, at least the tasks of the one-step
//! `pibt` planner on a fixed problem, and the automatic choices of planner and lanes (by the
//! library's default settings as by the command line) and their flags.

mod common;

use std::path::PathBuf;

use common::cli::{assert_one_line_error, json_file, ok, throng};
use throng::lorr::{
    LorrConfig, LorrPlanner, LorrRun, Problem, WINDOW_MAX_AGENTS, WINDOW_MAX_DENSITY, WindowConfig,
};
use throng::sim::ActionModel;

fn shipped(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sims/lorr/random.domain")
        .join(name)
}

fn problem(name: &str) -> Problem {
    Problem::load(shipped(name)).expect("the shipped problem loads")
}

fn window(iterations: u32) -> LorrConfig {
    LorrConfig {
        planner: LorrPlanner::Window,
        window: WindowConfig {
            iterations,
            ..WindowConfig::default()
        },
        ..LorrConfig::default()
    }
}

#[test]
fn window_steps_in_a_dense_crowd_replay() {
    // 500 robots on 819 free cells: every step of the searched windows replayed by the
    // independent checker (cells shared, swaps, moves through walls would fail it).
    let problem = problem("RANDOM-01.json").with_agents(500, 5).unwrap();
    let mut run = LorrRun::new(&problem, window(50)).unwrap();
    for _ in 0..40 {
        run.step();
        run.validate().expect("every step replays");
    }
    assert!(run.report().moves > 0);
    assert_eq!(run.report().planner, LorrPlanner::Window);
}

#[test]
fn the_window_planner_plays_the_same_on_one_thread_and_on_two() {
    let problem = problem("RANDOM-02.json");
    let play = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let mut run = LorrRun::new(&problem, window(100)).unwrap();
                run.play(120);
                (run.actions().to_vec(), run.report().tasks_finished)
            })
    };
    let one = play(1);
    assert!(one.1 > 0);
    assert_eq!(one, play(2));
}

#[test]
fn the_window_planner_finishes_more_tasks_than_one_step_pibt_in_a_crowd() {
    // RANDOM-02 (200 robots on 819 free cells), 300 steps, no time limit: the same on any
    // machine.
    let problem = problem("RANDOM-02.json");
    let tasks = |config: LorrConfig| {
        let mut run = LorrRun::new(&problem, config).unwrap();
        run.play(300);
        run.validate().unwrap();
        run.report().tasks_finished
    };
    let pibt = tasks(LorrConfig {
        planner: LorrPlanner::Pibt,
        ..LorrConfig::default()
    });
    let window = tasks(window(100));
    assert!(window > pibt, "window {window}, pibt {pibt}");
}

#[test]
fn the_planner_is_chosen_by_team_size_and_density_and_window_flags_need_it() {
    // A floor large enough for any team: the team size decides.
    let roomy = 100 * WINDOW_MAX_AGENTS;
    assert_eq!(
        LorrPlanner::automatic(ActionModel::Rotate, WINDOW_MAX_AGENTS, roomy),
        LorrPlanner::Window
    );
    assert_eq!(
        LorrPlanner::automatic(ActionModel::Rotate, WINDOW_MAX_AGENTS + 1, roomy),
        LorrPlanner::Pibt
    );
    // The 32 x 32 random map (819 free cells): window up to 40% full, pibt past it.
    let most = (WINDOW_MAX_DENSITY * 819.0) as usize;
    assert_eq!(
        LorrPlanner::automatic(ActionModel::Rotate, most, 819),
        LorrPlanner::Window
    );
    assert_eq!(
        LorrPlanner::automatic(ActionModel::Rotate, most + 1, 819),
        LorrPlanner::Pibt
    );
    let path = shipped("RANDOM-01.json");
    let path = path.to_str().unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&ok(&["lorr", path, "--steps", "3", "--json"])).unwrap();
    assert_eq!(v["planner"], "window");
    // 800 robots on its 819 free cells play pibt.
    let dense: serde_json::Value = serde_json::from_str(&ok(&[
        "lorr", path, "--steps", "3", "--agents", "800", "--json",
    ]))
    .unwrap();
    assert_eq!(dense["planner"], "pibt");
    // Lanes chosen by the map: the 32 x 32 random map's trips (21 steps on average) fit in 4
    // windows of 15 steps: none; in 4 windows of 4 steps they do not.
    assert_eq!(v["window_lanes"], false);
    let v: serde_json::Value = serde_json::from_str(&ok(&[
        "lorr",
        path,
        "--steps",
        "3",
        "--planner",
        "window",
        "--window-steps",
        "4",
        "--window-iterations",
        "0",
        "--step-ms",
        "0",
        "--json",
    ]))
    .unwrap();
    assert_eq!(v["steps"], 3);
    assert_eq!(v["window_lanes"], true);
    // Or named; refused for the other planners.
    let v: serde_json::Value = serde_json::from_str(&ok(&[
        "lorr",
        path,
        "--steps",
        "2",
        "--window-lanes",
        "off",
        "--window-steps",
        "4",
        "--json",
    ]))
    .unwrap();
    assert_eq!(v["window_lanes"], false);
    let o = throng(&[
        "lorr",
        path,
        "--steps",
        "2",
        "--planner",
        "pibt",
        "--window-lanes",
        "off",
    ]);
    assert_one_line_error(&o, "--window-lanes applies to the window planner only");
    let o = throng(&["lorr", path, "--steps", "2", "--window-lanes", "yes"]);
    assert_one_line_error(&o, "expected on or off");
    let o = throng(&[
        "lorr",
        path,
        "--steps",
        "3",
        "--planner",
        "pibt",
        "--window-steps",
        "4",
    ]);
    assert_one_line_error(&o, "--window-steps applies to the window planner only");
    let o = throng(&["lorr", path, "--steps", "3", "--window-steps", "0"]);
    assert_one_line_error(&o, "--window-steps");
    let o = throng(&[
        "lorr",
        path,
        "--planner",
        "window",
        "--action-model",
        "free",
    ]);
    assert_one_line_error(&o, "--planner window plans turning robots");
}

#[test]
fn the_default_settings_let_the_run_choose_the_planner_as_the_command_line_does() {
    // RANDOM-01's 32 x 32 map (819 free cells): 200 robots play window, 800 pibt, and the
    // free model sim; the run and its report name the planner chosen, never auto.
    let random01 = problem("RANDOM-01.json");
    for (agents, model, chosen) in [
        (200, ActionModel::Rotate, LorrPlanner::Window),
        (800, ActionModel::Rotate, LorrPlanner::Pibt),
        (200, ActionModel::Free, LorrPlanner::Sim),
    ] {
        let problem = random01.clone().with_agents(agents, 0).unwrap();
        let config = LorrConfig {
            action_model: model,
            ..LorrConfig::default()
        };
        assert_eq!(config.planner, LorrPlanner::Auto);
        assert_eq!(config.resolved(&problem).planner, chosen);
        let mut run = LorrRun::new(&problem, config).unwrap();
        assert_eq!(run.planner(), chosen, "{agents} robots, {model}");
        run.play(2);
        run.validate().expect("every step replays");
        let report = serde_json::to_value(run.report()).unwrap();
        assert_eq!(report["planner"], chosen.to_string());
    }
    // The name: parsed, printed and serialized as auto.
    assert_eq!("auto".parse::<LorrPlanner>(), Ok(LorrPlanner::Auto));
    assert_eq!(LorrPlanner::Auto.to_string(), "auto");
    assert_eq!(serde_json::to_value(LorrPlanner::Auto).unwrap(), "auto");
    // On the command line, `--planner auto` plays the same actions as no `--planner`, and
    // reports the planner chosen.
    let dir = tempfile::tempdir().unwrap();
    let path = shipped("RANDOM-01.json");
    let play = |extra: &[&str], out: &str| {
        let out = dir.path().join(out);
        let mut args = vec![path.to_str().unwrap(), "--steps", "5", "--step-ms", "0"];
        args.extend_from_slice(extra);
        let out_flag = ["--out", out.to_str().unwrap(), "--json"];
        let report: serde_json::Value =
            serde_json::from_str(&ok(&[&["lorr"], &args[..], &out_flag[..]].concat())).unwrap();
        (
            report["planner"].clone(),
            json_file(&out)["actualPaths"].clone(),
        )
    };
    let named = play(&["--planner", "auto"], "auto.json");
    assert_eq!(named.0, "window");
    assert_eq!(named, play(&[], "default.json"));
}
