//! `throng lorr PROBLEM.json`: play a League of Robot Runners problem and report the tasks
//! finished.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use indicatif::ProgressDrawTarget;
use throng::cli::{Input, read_bytes};
use throng::lorr::{
    GuidanceChoice, GuidanceConfig, LorrConfig, LorrPlanner, LorrRun, Problem, TaskAssignment,
    WindowConfig,
};
use throng::sim::ActionModel;

use super::file_kind::{self, FileKind};
use super::numbers::{count_from, whole_from, whole_in};
use super::output_path::OutputFile;
use super::output_path::{OutputFolder, ReadyOutputs, check_distinct};

/// Flags of `throng lorr`.
#[derive(clap::Args)]
pub struct LorrArgs {
    /// The problem JSON (its map, agents and tasks files are found next to it).
    problem: PathBuf,
    /// Steps to play, 1 to 1000000. Default: the competition's step count for the 2024
    /// main-round problems (RANDOM-01 600, CITY-01 3000, ...); other problems need it.
    #[arg(long, value_name = "N", value_parser = whole_in(1, MAX_STEPS))]
    steps: Option<u64>,
    /// rotate (the competition's MAPF_T: forward, quarter turns, wait) or free (4-connected
    /// moves).
    #[arg(long, default_value = "rotate", value_parser = parse_model)]
    action_model: ActionModel,
    /// auto, pibt (PIBT with rotations over distance tables shared by errand cell), window
    /// (pibt rolled out over a window of steps and improved by large neighbourhood search:
    /// more tasks in sparse crowds, dearer per robot) or sim (the general simulation with a
    /// turning A* route per robot: the only planner under the free model). Default: auto,
    /// which under the rotate model plays window for teams of at most 1,600 robots on at most
    /// 40% of the map's free cells, pibt for larger teams and denser floors, and sim under the
    /// free model (the report names the planner that ran).
    #[arg(long, value_name = "PLANNER", value_parser = parse_planner)]
    planner: Option<LorrPlanner>,
    /// The time limit of a step in milliseconds, 0 to 60000 (0: none). A step of the pibt
    /// planner that runs out of time still plays valid actions: robots whose distance table is
    /// not ready yet rank their moves by Manhattan distance, counted as fallbacks. Steps over
    /// the limit are counted. A run is the same on any machine only without a limit.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = whole_in(0u64, 60_000))]
    step_ms: u64,
    /// window planner: steps planned ahead, 1 to 64 (default 15).
    #[arg(long, value_name = "N", value_parser = whole_in(1u64, 64))]
    window_steps: Option<u64>,
    /// window planner: attempts of the neighbourhood search a step when there is no time
    /// limit (--step-ms 0), 0 to 100000 (default 500), an attempt being one group of robots
    /// searched again, 16 groups at a time on all threads; with a limit it searches until the
    /// step's deadline.
    #[arg(long, value_name = "N", value_parser = whole_in(0u64, 100_000))]
    window_iterations: Option<u64>,
    /// How tasks go to robots: reassign (a task whose first errand nobody reached yet goes to
    /// the robot nearest it by the planner's distance tables, taken over from a farther one)
    /// or nearest (a robot without a task takes the free task nearest by Manhattan distance
    /// and keeps it). Default: reassign.
    #[arg(long, value_name = "RULE", default_value = "reassign", value_parser = parse_assignment)]
    assignment: TaskAssignment,
    /// window planner: on or off, lanes in its distance tables (a step against a crisscross
    /// lane costs 2). Default: chosen by the map, on where two free cells lie more than 4
    /// windows apart on average (trips the window's search cannot see through: on the 256 x
    /// 256 city, off on the 32 x 32 random map); the report says which.
    #[arg(long, value_name = "on|off", value_parser = parse_on_off)]
    window_lanes: Option<bool>,
    /// pibt and window planners: on or off, congestion guidance of their distance tables
    /// (every 10 steps a step into a crowded part of the map is made dearer in the tables
    /// computed from then on; the pibt planner computes the tables of the robots' errands
    /// again in the step's spare time). Default: on for teams of at least 2,000 robots on at
    /// most 40% of the free cells of a map of open ground (at most 10% of its free cells in
    /// one-cell corridors: the 256 x 256 city), and for teams of at least 2,000 on any floor
    /// whose tasks all visit a few busy errand cells (the warehouses' stations; there a part
    /// of the map is crowded from half its cells held, not 30%); the report says which
    /// (`guidance`).
    #[arg(long, value_name = "on|off", value_parser = parse_on_off)]
    guidance: Option<bool>,
    /// Worker threads, 1 to 256 (default: all cores). The actions are the same on any count.
    #[arg(long, value_name = "N", value_parser = whole_in(1u64, 256))]
    threads: Option<u64>,
    /// Play with N robots on distinct free cells chosen from --seed instead of the agents
    /// file's (1 to the map's free cells); the reveal pool scales with the team.
    #[arg(long, value_name = "N", value_parser = count_from(1))]
    agents: Option<usize>,
    /// Write the problem as played (with the team of --agents) as a start-kit problem to the
    /// folder DIR (made if missing) instead of playing it: NAME.json, NAME.agents and copies of
    /// the map and tasks files, so that other planners play identical input.
    #[arg(long, value_name = "DIR")]
    write_problem: Option<PathBuf>,
    /// Seed of the tie-breaks (and of the cells of --agents).
    #[arg(long, default_value_t = 0, value_parser = whole_from(0u64))]
    seed: u64,
    /// Write the competition's output JSON (PlanViz replays it) to FILE.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

fn parse_planner(s: &str) -> Result<LorrPlanner, String> {
    s.parse()
}

fn parse_assignment(s: &str) -> Result<TaskAssignment, String> {
    s.parse()
}

fn parse_on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err("expected on or off".to_string()),
    }
}

fn parse_model(s: &str) -> Result<ActionModel, String> {
    s.parse().map_err(|e: throng::error::Error| e.to_string())
}

/// Most steps a run may ask for (the competition's longest is 5,000).
const MAX_STEPS: u64 = 1_000_000;

/// Runs `throng lorr`: exit status 0, errors as for every subcommand.
pub fn run(args: LorrArgs) -> anyhow::Result<ExitCode> {
    file_kind::expect(&args.problem, FileKind::LorrProblem)?;
    let mut problem = Problem::load(&args.problem)?;
    if let Some(n) = args.agents {
        problem = problem
            .with_agents(n, args.seed)
            .map_err(|e| anyhow::anyhow!("--agents {n}: {e}"))?;
    }
    if let Some(dir) = &args.write_problem {
        write_problem(&problem, &args.problem, dir)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let (Some(p @ (LorrPlanner::Pibt | LorrPlanner::Window)), ActionModel::Free) =
        (args.planner, args.action_model)
    {
        anyhow::bail!(
            "--planner {p} plans turning robots (--action-model rotate); the free model plays \
             with --planner sim"
        );
    }
    let defaults = LorrConfig::default();
    // The planner and guidance not named are chosen here as the run will choose them, so that
    // flags the run would ignore are refused before anything is written.
    let config = LorrConfig {
        planner: args.planner.unwrap_or_default(),
        action_model: args.action_model,
        seed: args.seed,
        step_ms: args.step_ms as f64,
        assignment: args.assignment,
        window: WindowConfig {
            steps: args
                .window_steps
                .map_or(defaults.window.steps, |n| n as usize),
            iterations: args
                .window_iterations
                .map_or(defaults.window.iterations, |n| n as u32),
            lanes: args.window_lanes,
            ..defaults.window
        },
        guidance: match args.guidance {
            Some(true) => GuidanceChoice::On(GuidanceConfig::for_map(problem.has_busy_errands())),
            Some(false) => GuidanceChoice::Off,
            None => GuidanceChoice::Auto,
        },
        ..defaults
    }
    .resolved(&problem);
    let planner = config.planner;
    for (flag, given) in [
        ("--window-steps", args.window_steps.is_some()),
        ("--window-iterations", args.window_iterations.is_some()),
        ("--window-lanes", args.window_lanes.is_some()),
    ] {
        if given && planner != LorrPlanner::Window {
            anyhow::bail!("{flag} applies to the window planner only (this run plays {planner})");
        }
    }
    if args.guidance.is_some() && planner == LorrPlanner::Sim {
        anyhow::bail!(
            "--guidance applies to the pibt and window planners only (this run plays sim)"
        );
    }
    let steps = match args.steps.or(problem.competition_steps()) {
        Some(s) if (1..=MAX_STEPS).contains(&s) => s,
        Some(0) => anyhow::bail!("--steps 0: must be at least 1"),
        Some(s) => anyhow::bail!("--steps {s}: must be at most {MAX_STEPS}"),
        None => anyhow::bail!(
            "{}: not a 2024 competition problem, so its step count is unknown: give --steps N",
            args.problem.display()
        ),
    };
    // Checked and made ready before the run, so that a bad path fails at once.
    let mut out_file = match &args.out {
        Some(file) => {
            let named = named_files(&args.problem);
            let mut inputs = vec![("the problem file", args.problem.as_path())];
            inputs.extend(named.iter().map(|(what, p)| (*what, p.as_path())));
            check_distinct(&[("--out", file)], &inputs)?;
            Some(OutputFile::reserve("--out", file)?)
        }
        None => None,
    };
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = args.threads {
        pool = pool.num_threads(n as usize);
    }
    let pool = pool.build().context("starting the worker threads")?;
    let mut run = LorrRun::new(&problem, config)?;
    // A bar on a terminal only: a whole run at the default time limit can take minutes.
    let bar = if io::stderr().is_terminal() {
        let bar =
            indicatif::ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix} [{bar:30}] {pos}/{len} steps ({elapsed}, eta {eta})",
            )?
            .progress_chars("=> "),
        );
        bar.set_prefix(format!(
            "{planner} on {} threads",
            pool.current_num_threads()
        ));
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    pool.install(|| {
        for _ in 0..steps {
            run.step();
            bar.inc(1);
        }
    });
    bar.finish_and_clear();
    run.validate()
        .context("the plan failed the independent check (a bug: please report it)")?;
    if let Some(mut file) = out_file.take() {
        file.fill(|w| run.write_output(w))?;
        file.commit()?;
    }
    let report = run.report();
    let mut out = io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&report)?)?;
    } else {
        writeln!(
            out,
            "problem        {} ({} agents, {} x {} map, {} tasks revealed at a time)",
            args.problem.display(),
            report.agents,
            problem.grid.width(),
            problem.grid.height(),
            problem.reveal
        )?;
        writeln!(out, "action model   {}", args.action_model)?;
        writeln!(
            out,
            "planner        {planner} on {} threads",
            pool.current_num_threads()
        )?;
        if let Some(lanes) = report.window_lanes {
            let why = match args.window_lanes {
                Some(_) => "--window-lanes".to_string(),
                None => format!(
                    "the map's choice: free cells {:.0} steps apart on average, {} {} windows \
                     of {}",
                    throng::lorr::lanes::mean_free_distance(&problem.grid),
                    if lanes { "over" } else { "within" },
                    throng::lorr::lanes::WINDOWS_APART,
                    config.window.steps
                ),
            };
            writeln!(
                out,
                "lanes          {} ({why})",
                if lanes { "on" } else { "off" }
            )?;
        }
        if let Some(cost) = report.pibt_lane_cost {
            writeln!(
                out,
                "lanes          a step against one costs {cost} (the map's choice: a way around \
                 a crowd on {:.0}% of its trips)",
                100.0 * throng::lorr::ways_around(&problem.grid)
            )?;
        }
        if report.pibt_corridor_rules == Some(true) {
            writeln!(
                out,
                "corridors      played as rooms joined by corridors (the map's choice): steps \
                 against a lane ranked at their cost, at most {} of {} robots on errands",
                report.holders_cap, report.agents
            )?;
        }
        if report.guidance {
            let why = match args.guidance {
                Some(_) => "--guidance",
                None => "the team's choice",
            };
            writeln!(out, "guidance       on ({why})")?;
        }
        writeln!(out, "steps          {}", report.steps)?;
        writeln!(out, "tasks finished {}", report.tasks_finished)?;
        writeln!(out, "errands done   {}", report.errands_done)?;
        writeln!(
            out,
            "assignment     {} ({} unopened tasks reassigned)",
            report.assignment, report.reassignments
        )?;
        writeln!(
            out,
            "step time      mean {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            report.mean_step_ms, report.p99_step_ms, report.max_step_ms
        )?;
        if let Some(cores) = report.step_cores {
            writeln!(
                out,
                "cores busy     {cores:.2} during the steps (processor time over wall time)"
            )?;
        }
        if args.step_ms > 0 {
            writeln!(
                out,
                "time limit     {} ms: {} steps over it, {} robot-steps planned without their \
                 distance table",
                args.step_ms, report.steps_over_limit, report.fallback_plans
            )?;
        }
        if let Some(mib) = report.peak_memory_mib {
            writeln!(
                out,
                "peak memory    {mib:.0} MiB ({:.0} MiB of distance tables)",
                report.table_peak_mib
            )?;
        }
        writeln!(out, "plan           valid (independent replay)")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--write-problem DIR`: the problem JSON, its agents file and copies of the map and tasks
/// files it was loaded from, each written whole or not at all.
fn write_problem(problem: &Problem, from: &Path, dir: &Path) -> anyhow::Result<()> {
    let named = named_files(from);
    let source = |what: &str| {
        named
            .iter()
            .find(|(w, _)| *w == what)
            .map(|(_, p)| p.clone())
            .with_context(|| format!("{}: names no {what}", from.display()))
    };
    let (map, tasks) = (
        source("the problem's map")?,
        source("the problem's tasks file")?,
    );
    let base = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let (Some(map_name), Some(tasks_name)) = (base(&map), base(&tasks)) else {
        anyhow::bail!("--write-problem: the problem's map or tasks file has no file name");
    };
    let agents_name = format!("{}.agents", problem.name);
    let json_name = format!("{}.json", problem.name);
    let names = [json_name.as_str(), &agents_name, &map_name, &tasks_name];
    let outputs = names.map(|n| dir.join(n));
    let mut inputs = vec![("the problem file", from)];
    inputs.extend(named.iter().map(|(what, p)| (*what, p.as_path())));
    let flagged: Vec<(&str, &Path)> = outputs
        .iter()
        .map(|p| ("--write-problem", p.as_path()))
        .collect();
    check_distinct(&flagged, &inputs)?;
    let folder = OutputFolder::reserve("--write-problem", dir)?;
    let text = problem.json(&map_name, &agents_name, &tasks_name);
    let mut ready = ReadyOutputs::default();
    for (i, name) in names.iter().enumerate() {
        let mut file = folder.file(name)?;
        match i {
            0 => file.fill(|w| w.write_all(text.as_bytes()))?,
            1 => file.fill(|w| problem.write_agents(w))?,
            _ => {
                let from = if i == 2 { &map } else { &tasks };
                let kind = if i == 2 { Input::Map } else { Input::LorrTasks };
                let bytes = read_bytes(from, kind)?;
                file.fill(|w| w.write_all(&bytes))?;
            }
        }
        ready.add(file);
    }
    ready.add_folder(folder);
    ready.commit()
}

/// The files a problem JSON names (`mapFile`, `agentFile`, `taskFile`, relative to its folder),
/// for the check that `--out` overwrites none of them.
fn named_files(problem: &Path) -> Vec<(&'static str, PathBuf)> {
    let dir = problem.parent().unwrap_or(Path::new("."));
    let json: serde_json::Value = read_bytes(problem, Input::LorrProblem)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    [
        ("mapFile", "the problem's map"),
        ("agentFile", "the problem's agents file"),
        ("taskFile", "the problem's tasks file"),
    ]
    .into_iter()
    .filter_map(|(key, what)| Some((what, dir.join(json.get(key)?.as_str()?))))
    .collect()
}
