//! The `throng` command line. A thin layer over the library: parse flags, call the library,
//! print. Errors print one line and exit with status 2; a scenario run that finds a wrong answer
//! exits with status 1, and so does `run --compare-threads` when the two runs end in different
//! states.

mod cmd;

use std::io;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "throng",
    version,
    about = "Parallel crowd pathfinding on a shared 2D grid"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play a simulation scenario file (TOML, see sims/README.md) and print a summary: plans/s,
    /// ticks/s, latency percentiles, arrivals, and a hash of the final state. With no SCENARIO,
    /// plays sims/default.toml, built into the binary with its map (works from any directory);
    /// with --map FILE.map or --generate SPEC, plays that map with the default's settings.
    Run(Box<cmd::run::RunArgs>),
    /// Run every query of Moving AI scenario files and check each path against the optimal
    /// length. With no FILE, runs the scenario files shipped in sims/maps of the source tree
    /// the binary was built from (exits 2, saying to pass files, when that tree is gone).
    /// Exits 1 when a path is illegal or missing, or (optimal planners) not optimal.
    Scen(cmd::scen::ScenArgs),
    /// Solve a one-shot MAPF benchmark instance (the first N agents of a .scen file) with LaCAM,
    /// a complete solver: every agent from its start to its goal, no two agents in one cell, no
    /// swaps (4-connected by default, as in the benchmark). Exits 1 when unsolved.
    Mapf(cmd::mapf::MapfArgs),
    /// Play a League of Robot Runners 2024 problem (lifelong tasks of several errands, robots
    /// that turn) for its step count and report the tasks finished; every step is checked by
    /// an independent replay. --out writes the competition's output JSON.
    Lorr(cmd::lorr::LorrArgs),
    /// Prepare the navigation points of a map (for `--planner nav` or `auto`) and save them to
    /// a file, so a big map is prepared once, offline; `throng scen --nav-file` loads it.
    Nav(cmd::nav::NavArgs),
    /// Generate a procedural map (and a scenario file of random queries with their optimal
    /// lengths), in the Moving AI formats, so everything runs without map files.
    Gen(cmd::mapgen::GenArgs),
    /// Replay a trace written by `throng run --trace FILE` in the browser: serves a
    /// self-contained page on 127.0.0.1 (default port 7878) and opens it. The page plays the
    /// run on a canvas (play/pause, speed, tick slider, zoom and pan, click an agent for its
    /// path and goal, heatmap of visits or waits).
    View(cmd::view::ViewArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            let chain: Vec<String> = err.chain().map(ToString::to_string).collect();
            eprintln!("throng: error: {}", dedup_chain(&chain).join(": "));
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => cmd::run::run_scenario(*args),
        Command::Scen(args) => cmd::scen::scen(args),
        Command::Mapf(args) => cmd::mapf::run(args),
        Command::Lorr(args) => cmd::lorr::run(args),
        Command::Nav(args) => cmd::nav::run(args),
        Command::Gen(args) => cmd::mapgen::run(args),
        Command::View(args) => cmd::view::run(args),
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            || e.downcast_ref::<serde_json::Error>()
                .and_then(|j| j.io_error_kind())
                .is_some_and(|k| k == io::ErrorKind::BrokenPipe)
    })
}

/// Drops chain entries already contained in the previous one (transparent wrappers repeat
/// their source's message).
fn dedup_chain(chain: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for msg in chain {
        if out.last().is_none_or(|prev| !prev.contains(msg.as_str())) {
            out.push(msg.clone());
        }
    }
    out
}
