//! `throng lorr PROBLEM.json`: play a League of Robot Runners problem and report the tasks
//! finished.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use throng::lorr::{LorrConfig, LorrRun, Problem};
use throng::sim::ActionModel;

use super::file_kind::{self, FileKind};
use super::numbers::{whole_from, whole_in};
use super::output_path::OutputFile;
use super::output_path::check_distinct;

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
    /// Seed of the movement's tie-breaks.
    #[arg(long, default_value_t = 0, value_parser = whole_from(0u64))]
    seed: u64,
    /// Write the competition's output JSON (PlanViz replays it) to FILE.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

fn parse_model(s: &str) -> Result<ActionModel, String> {
    s.parse().map_err(|e: throng::Error| e.to_string())
}

/// Most steps a run may ask for (the competition's longest is 5,000).
const MAX_STEPS: u64 = 1_000_000;

/// Runs `throng lorr`: exit status 0, errors as for every subcommand.
pub fn run(args: LorrArgs) -> anyhow::Result<ExitCode> {
    file_kind::expect(&args.problem, FileKind::LorrProblem)?;
    let problem = Problem::load(&args.problem)?;
    let steps = match args.steps.or(problem.competition_steps()) {
        Some(s) if (1..=MAX_STEPS).contains(&s) => s,
        Some(s) => anyhow::bail!("--steps {s}: must be 1 to {MAX_STEPS}"),
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
    let config = LorrConfig {
        action_model: args.action_model,
        seed: args.seed,
        ..LorrConfig::default()
    };
    let mut run = LorrRun::new(&problem, config)?;
    run.play(steps);
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
        writeln!(out, "steps          {}", report.steps)?;
        writeln!(out, "tasks finished {}", report.tasks_finished)?;
        writeln!(out, "errands done   {}", report.errands_done)?;
        writeln!(
            out,
            "step time      mean {:.2} ms, max {:.2} ms",
            report.mean_step_ms, report.max_step_ms
        )?;
        writeln!(out, "plan           valid (independent replay)")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The files a problem JSON names (`mapFile`, `agentFile`, `taskFile`, relative to its folder),
/// for the check that `--out` overwrites none of them.
fn named_files(problem: &Path) -> Vec<(&'static str, PathBuf)> {
    let dir = problem.parent().unwrap_or(Path::new("."));
    let json: serde_json::Value = std::fs::read(problem)
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
