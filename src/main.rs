//! The `throng` command line. A thin layer over the library: parse flags, call the library,
//! print. Errors print one line and exit with status 2; a scenario run that finds a wrong answer
//! exits with status 1, and so does `run --compare-threads` when the two runs end in different
//! states.

mod cmd;

use std::io;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "throng",
    version,
    about = "Parallel crowd pathfinding on a shared 2D grid",
    after_help = "Exit status: 0 when done, 1 when a run finds a wrong answer or an instance is \
                  not solved, 2 for bad input (one line on stderr saying what and where)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play a simulation scenario and print a summary.
    ///
    /// Plays a scenario file (TOML, see sims/README.md) and prints plans/s, ticks/s, latency
    /// percentiles, arrivals, and a hash of the final state.
    ///
    /// With no SCENARIO, plays sims/default.toml, built into the binary with its map (works from
    /// any directory); with --map FILE.map or --generate SPEC, plays that map with the default's
    /// settings and --agents agents.
    Run(Box<cmd::run::RunArgs>),
    /// Check every query of Moving AI .scen files against the optimal length.
    ///
    /// Runs every query of each file with the chosen planner and judges each path: legal, and
    /// of the optimal length for the optimal planners.
    ///
    /// With no FILE, runs the .scen files shipped in sims/maps of the source tree the binary was
    /// built from (exits 2, saying to pass files, when that tree is gone). Exits 1 when a path
    /// is illegal or missing, or (optimal planners) not optimal.
    Scen(cmd::scen::ScenArgs),
    /// Solve a one-shot MAPF benchmark instance with LaCAM.
    ///
    /// Takes the first N agents of a .scen file and moves every one from its start to its goal
    /// with LaCAM, a complete solver: no two agents in one cell, no swaps (4-connected by
    /// default, as in the benchmark). Exits 1 when unsolved.
    Mapf(cmd::mapf::MapfArgs),
    /// Play a League of Robot Runners problem and report the tasks finished.
    ///
    /// Plays a 2024 competition problem (lifelong tasks of several errands, robots that turn)
    /// for its step count; every step is checked by an independent replay. --out writes the
    /// competition's output JSON.
    Lorr(cmd::lorr::LorrArgs),
    /// Prepare the navigation points of a map and save them to a file.
    ///
    /// The points serve `--planner nav` and `auto`: a big map is prepared once, offline, and
    /// `throng scen --nav-file` loads them.
    Nav(cmd::nav::NavArgs),
    /// Generate a procedural map and a .scen file of random queries.
    ///
    /// Writes the map and the queries (with their optimal lengths) in the Moving AI formats, so
    /// everything runs without map files. Each kind of map takes its own flags: --density for
    /// random, --room and --door for rooms, --corridor for maze.
    Gen(cmd::mapgen::GenArgs),
    /// Replay a trace, a MAPF plan or a LoRR output in the browser.
    ///
    /// Takes a trace (`throng run --trace`), a MAPF plan (`throng mapf --out`) or a LoRR output
    /// (`throng lorr --out`, with --problem or --map), checks it whole, serves a self-contained
    /// page on 127.0.0.1 (default port 7878) and opens it. The page plays the run on a canvas
    /// (play/pause, speed, tick slider, zoom and pan, click an agent for its path and goal,
    /// robots' headings, heatmap of visits or waits).
    View(cmd::view::ViewArgs),
}

/// The command line as `throng` parses it: the help laid out for a terminal, and a negative
/// number taken as the value of any option, so that `--ticks -1` reaches the option's range check
/// (`--ticks -1: must be at least 1`) instead of being an unknown flag `-1` with a tip to write
/// `-- -1`, which only leads to another error.
fn command_line() -> clap::Command {
    let cmd = Cli::command().mut_subcommands(|sub| {
        sub.mut_args(|arg| {
            if arg.get_action().takes_values() {
                arg.allow_negative_numbers(true)
            } else {
                arg
            }
        })
    });
    cmd::help_layout::lay_out(cmd)
}

fn main() -> ExitCode {
    let cli = match command_line()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(err) if cmd::usage_error::is_help(&err) => err.exit(),
        Err(err) => {
            eprintln!("throng: error: {}", cmd::usage_error::one_line(&err));
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            let chain: Vec<String> = err
                .chain()
                .scan(false, |after_io, e| {
                    // A file's I/O error already says its source in the words of every reader.
                    let said = *after_io && e.is::<io::Error>();
                    *after_io = matches!(
                        e.downcast_ref::<throng::error::Error>(),
                        Some(throng::error::Error::Io { .. })
                    ) || matches!(
                        e.downcast_ref::<throng::nav::NavFileError>(),
                        Some(throng::nav::NavFileError::Io { .. })
                    );
                    Some((!said).then(|| e.to_string()))
                })
                .flatten()
                .collect();
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
