//! `throng run`: play a scenario file and print its summary, alone or against another thread
//! count or conflict mode, interleaved tick by tick.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use serde::Serialize;
use throng::scenario::Scenario;
use throng::sim::{RunSummary, TickReport};

mod compare;
mod output;
mod paths;
mod recording;
mod report;
mod source;

use super::file_kind;
use super::numbers::{count_in, whole_from, whole_in};
use crate::cmd::output_path::{self, OutputFile, OutputFolder};
use compare::{batch_speedups, play_interleaved, print_comparison};
use output::is_stdout;
use paths::{PathsStats, paths_format};
use recording::{Painter, PictureKind, Recording, picture_kind};
use report::{print_run, write_csv_header, write_csv_row};

/// The scenario `throng run` plays when no file is given, and its map, compiled into the binary
/// so that an installed or moved binary needs no files (a path fixed at compile time would not
/// exist after `cargo install` or moving the clone).
const DEFAULT_SCENARIO: &str = include_str!("../../../sims/default.toml");
/// The label of the built-in scenario in summaries and errors.
const DEFAULT_SCENARIO_LABEL: &str = "sims/default.toml (built in)";
/// `map.file` as written in sims/default.toml: the built-in map stands in for that file.
const DEFAULT_MAP_FILE: &str = "maps/random512-10-0.map";
/// The text of sims/maps/random512-10-0.map (257 KiB).
const DEFAULT_MAP: &str = include_str!("../../../sims/maps/random512-10-0.map");
/// The map width of --render and --heatmap pictures without --render-size.
const DEFAULT_RENDER_SIZE: u32 = 512;

/// The built-in default scenario, its map held in memory.
fn default_scenario() -> throng::error::Result<Scenario> {
    Scenario::parse_with_map(
        DEFAULT_SCENARIO,
        DEFAULT_SCENARIO_LABEL,
        Path::new(""),
        DEFAULT_MAP_FILE,
        DEFAULT_MAP,
    )
}

#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// Scenario file (default: sims/default.toml and its map, built into the binary, so it runs
    /// from any directory).
    scenario: Option<PathBuf>,
    /// Play your own map, a Moving AI .map file, with no scenario file: --agents agents at
    /// random distinct starts and goals in its largest connected area, every other setting
    /// from sims/default.toml (seed 1, planner auto, conflicts pibt, ...); --set, --seed,
    /// --ticks and the output flags work as with a file.
    #[arg(long, value_name = "FILE.map")]
    map: Option<PathBuf>,
    /// Play a generated map, as --map does a file: random[:WxH[:DENSITY]],
    /// rooms[:WxH[:ROOM[:DOOR]]] or maze[:WxH[:CORRIDOR]] (parts left out as in `throng gen`:
    /// 512x512, density 0.2, room 31, door 3, corridor 2), e.g. random:256x256:0.1. The map's
    /// seed is --seed (default 1).
    #[arg(long, value_name = "SPEC")]
    generate: Option<String>,
    /// Agents placed on --map or --generate (default 10000, as sims/default.toml).
    #[arg(long, value_name = "N", value_parser = count_in(1, Scenario::MAX_AGENTS))]
    agents: Option<usize>,
    /// Worker threads to plan on, at most 256 (default: the file's `threads`; 0 means all
    /// cores).
    #[arg(long, value_name = "N", value_parser = count_in(0, Scenario::MAX_THREADS))]
    threads: Option<usize>,
    /// Seed of the placement and of lifelong goals (default: the file's `seed`).
    #[arg(long, value_parser = whole_from(0u64))]
    seed: Option<u64>,
    /// Ticks to play at most, at least 1 (default: the file's `ticks`).
    #[arg(long, value_name = "N", value_parser = whole_from(1u64))]
    ticks: Option<u64>,
    /// Override a setting of the scenario, e.g. `--set agents=2000 --set conflicts=avoid`:
    /// `agents`, `seed`, `ticks`, `threads`, `neighbourhood` or any key of its `[sim]` table
    /// (repeatable; applied before --seed, --ticks and --threads)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Write the summary to FILE as one JSON object (`-`: to standard output, the summary
    /// table then going to standard error).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the per-tick series to FILE as CSV, a header then one row per tick (`-`: to
    /// standard output, the summary table then going to standard error).
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write every agent's cell at every tick to FILE.csv, a long table `agent,tick,x,y` in
    /// tick order (streamed), or FILE.jsonl, one line per agent `{"agent", "goal_x",
    /// "goal_y", "arrived_at", "x": [...], "y": [...]}`. Tick t is the cell after t ticks
    /// (0: the start). With a comparison, the first run.
    #[arg(long, value_name = "FILE")]
    paths: Option<PathBuf>,
    /// No progress bar and no summary table (the files are still written).
    #[arg(long, short)]
    quiet: bool,
    /// Play the scenario twice, on 1 thread and on N threads (--threads, or all cores), the two
    /// runs interleaved tick by tick so that load changes on the machine hit both alike, and
    /// print the planning speed-up (plans/s ratio) and whether the final states match.
    /// --json and --csv then describe the N-thread run; the JSON adds a `compare` object.
    #[arg(long)]
    compare_threads: bool,
    /// Play the scenario twice, with its own conflict mode and with MODE (pibt, avoid or off),
    /// on the same threads, interleaved tick by tick, and print both summaries and the ratios
    /// of plans, wall time and sum of costs. --json and --csv describe the scenario's own mode;
    /// the JSON adds a `compare_conflicts` object.
    #[arg(long, value_name = "MODE", conflicts_with = "compare_threads", value_parser = parse_conflicts)]
    compare_conflicts: Option<throng::sim::ConflictMode>,
    /// Record the run to FILE, a compact binary trace (docs/trace-format.md) that
    /// `throng view FILE` replays in the browser. With --compare-threads or
    /// --compare-conflicts, the first run (1 thread, or the scenario's own mode).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Write the --trace file uncompressed (about 4 times larger).
    #[arg(long, requires = "trace")]
    trace_raw: bool,
    /// Draw the run: FILE.gif, an animated GIF (the map, agents coloured by state or by
    /// crowd), one frame every --render-every ticks; FILE.png, the last tick. With a
    /// comparison, the first run.
    #[arg(long, value_name = "FILE")]
    render: Option<PathBuf>,
    /// A GIF frame every K ticks (default 4: the default run's ~700 ticks give ~175 frames,
    /// 7 s at 25 frames a second).
    #[arg(long, value_name = "K", default_value_t = 4, requires = "render",
          value_parser = whole_from(1u64))]
    render_every: u64,
    /// Width of the map in --render and --heatmap pictures, in pixels, at most (default 512;
    /// small maps are scaled up by whole pixels per cell, large ones shrunk by whole cells per
    /// pixel). A --render picture is that wide; a --heatmap adds its colour bar and labels on
    /// the right: 40 pixels plus 8 per digit of its largest count (576 pixels in all for a
    /// 512-pixel map and a 3-digit count). Needs --render or --heatmap.
    #[arg(long, value_name = "W", value_parser = whole_in(16u32, 8192))]
    render_size: Option<u32>,
    /// Also mark every agent's goal in --render pictures.
    #[arg(long, requires = "render")]
    render_goals: bool,
    /// Write a heatmap of the run to FILE.png: per cell, the agent-ticks spent waiting there
    /// (or steps onto it, --heatmap-of pass), drawn over the map with a colour bar.
    #[arg(long, value_name = "FILE.png")]
    heatmap: Option<PathBuf>,
    /// What --heatmap counts: wait (default) or pass.
    #[arg(long, value_name = "WHAT", default_value = "wait", requires = "heatmap",
          value_parser = parse_heat_of)]
    heatmap_of: throng::render::HeatOf,
    /// Write SVG charts of the per-tick series into DIR (created if missing; its parent must
    /// exist): tick-time.svg, plans.svg, waiting.svg, arrivals.svg (goals.svg when lifelong).
    #[arg(long, value_name = "DIR")]
    plots: Option<PathBuf>,
}

fn parse_heat_of(text: &str) -> Result<throng::render::HeatOf, String> {
    match text {
        "wait" => Ok(throng::render::HeatOf::Wait),
        "pass" => Ok(throng::render::HeatOf::Pass),
        _ => Err(format!("unknown heatmap {text:?} (expected wait or pass)")),
    }
}

/// Where the pictures of a run go (`--render`, `--heatmap`, `--plots`), reserved.
struct PicturesTo {
    render: Option<OutputFile>,
    every: u64,
    size: u32,
    goals: bool,
    heatmap: Option<(OutputFile, throng::render::HeatOf)>,
    plots: Option<OutputFolder>,
}

/// What the pictures cost.
struct PictureStats {
    /// GIF frames written (0 for a PNG or no --render).
    frames: u64,
    /// Bytes of the --render file.
    bytes: u64,
    /// Picture size.
    size: (u32, u32),
    /// Seconds the main thread spent drawing, counting and encoding (finishing included).
    render_s: f64,
    /// Seconds the GIF encoder thread spent compressing and writing frames.
    encode_s: f64,
    /// Seconds of the whole tick loop, pictures included.
    loop_s: f64,
}

/// What `--trace` wrote.
struct TraceStats {
    ticks: u64,
    /// Bytes of the file.
    bytes: u64,
    /// Bytes before compression.
    raw_bytes: u64,
    /// Seconds spent in the recorder (records, compression, writing), finishing included.
    recorder_s: f64,
    /// Seconds of the whole tick loop, recorder included.
    loop_s: f64,
}

/// One played scenario.
struct Played {
    summary: RunSummary,
    /// Plans and planning milliseconds of every tick, in order, when asked for (the thread
    /// comparison pairs them up); empty otherwise, so that a long run's memory stays flat.
    ticks: Vec<(u32, f64)>,
    /// Seconds spent loading the map and placing the agents.
    setup_s: f64,
    /// `width x height, N% walkable`.
    map_size: String,
    /// Whether a one-shot run stopped before its last tick because every agent was done.
    finished_early: bool,
    /// Cores kept busy after the first tick (processor time over wall time, recording
    /// included); `None` for interleaved runs, under a second, or off Linux.
    steady_cores: Option<f64>,
    /// The process's peak resident memory when the run ended, MiB (`None` off Linux).
    peak_memory_mib: Option<f64>,
    /// The trace of this run, when one was written.
    trace: Option<TraceStats>,
    /// The pictures of this run, when asked for.
    pictures: Option<PictureStats>,
    /// The `--paths` file of this run, when one was written.
    paths: Option<PathsStats>,
}

/// The planning speed-up of `--compare-threads`.
#[derive(Serialize)]
struct Comparison {
    /// Threads of the baseline run (1).
    baseline_threads: usize,
    /// Plans per second of planning time on 1 thread.
    baseline_plans_per_sec: f64,
    /// Ticks per second on 1 thread.
    baseline_ticks_per_sec: f64,
    /// Final state hash of the 1-thread run.
    baseline_final_state_hash: u64,
    /// Threads of the compared run.
    threads: usize,
    /// Plans per second on N threads.
    plans_per_sec: f64,
    /// `plans_per_sec / baseline_plans_per_sec`.
    planning_speedup: f64,
    /// Ticks-per-second ratio.
    ticks_speedup: f64,
    /// Whether both runs ended in the same state (they must).
    hash_match: bool,
    /// The planning speed-up split by the size of the tick's batch (ticks are paired: both
    /// runs plan the same agents in each tick).
    by_batch: Vec<BatchSpeedup>,
}

/// Planning speed-up over the ticks whose batch of plans falls in one size range.
#[derive(Serialize)]
struct BatchSpeedup {
    /// Smallest batch (plans in a tick) of the range.
    min_plans: u32,
    /// Largest batch of the range, `None` for no limit.
    max_plans: Option<u32>,
    /// Ticks in the range.
    ticks: u64,
    /// Plans made in those ticks.
    plans: u64,
    /// Planning-phase seconds of those ticks on 1 thread.
    baseline_planning_s: f64,
    /// ... and on N threads.
    planning_s: f64,
    /// `baseline_planning_s / planning_s`.
    speedup: f64,
}

#[derive(Serialize)]
struct JsonSummary<'a> {
    #[serde(flatten)]
    run: throng::report::RunJson<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    compare: Option<Comparison>,
    #[serde(skip_serializing_if = "Option::is_none")]
    compare_conflicts: Option<ModeComparison>,
}

/// `--compare-conflicts`: the scenario's own conflict mode against another one.
#[derive(Serialize)]
struct ModeComparison {
    /// The other mode.
    conflicts: throng::sim::ConflictMode,
    /// Its run's summary.
    summary: RunSummary,
    /// Plans of the scenario's mode / plans of the other mode.
    plans_ratio: f64,
    /// Run wall time of the scenario's mode / the other's.
    wall_ratio: f64,
    /// Sum of costs of the scenario's mode / the other's (one-shot runs; 0 when the other's is).
    sum_of_costs_ratio: f64,
}

pub(crate) fn run_scenario(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mut scenario = source::chosen_scenario(&args)?;
    for assignment in &args.set {
        scenario.set_assignment(assignment)?;
    }
    file_kind::expect_scenario_files(&scenario)?;
    if let Some(other) = scenario.scen_map_mismatch()? {
        // Placed on the map first (cheap: a .scen placement): when the agents do not fit the
        // map, the other map the .scen names is the cause, said in the one error line.
        if let Err(e) = scenario.build() {
            bail!("{e} ({other})");
        }
        eprintln!("throng: warning: {other}");
    }
    if let Some(seed) = args.seed {
        scenario.seed = seed;
    }
    if let Some(ticks) = args.ticks {
        scenario.ticks = ticks;
    }
    if let Some(threads) = args.threads {
        scenario.threads = threads;
    }
    // Settings that depend on each other, as the overrides left them.
    scenario.check()?;
    let threads = match scenario.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    // Standard output, for the outputs that can write there.
    for (flag, file) in [
        ("--json", &args.json),
        ("--csv", &args.csv),
        ("--trace", &args.trace),
        ("--paths", &args.paths),
    ] {
        if file.as_deref().is_some_and(is_stdout) && !matches!(flag, "--json" | "--csv") {
            bail!(
                "{flag} -: only --json and --csv write to standard output; give {flag} a file \
                 name"
            );
        }
    }
    if args.json.as_deref().is_some_and(is_stdout) && args.csv.as_deref().is_some_and(is_stdout) {
        bail!("--json - and --csv -: only one of them can write to standard output");
    }
    if let Some(file) = &args.paths
        && paths_format(file).is_none()
    {
        bail!(
            "--paths {}: expected a .csv file (rows agent,tick,x,y) or a .jsonl file (a line \
             per agent)",
            file.display()
        );
    }
    if let Some(w) = args.render_size
        && args.render.is_none()
        && args.heatmap.is_none()
    {
        bail!(
            "--render-size {w}: sets the width of --render and --heatmap pictures, and neither was given"
        );
    }
    for (flag, file) in [("--render", &args.render), ("--heatmap", &args.heatmap)] {
        if file.as_deref().is_some_and(is_stdout) {
            bail!("{flag} -: pictures are written to files; give {flag} a file name");
        }
        if let Some(dir) = file.as_deref().filter(|f| f.is_dir()) {
            bail!("{flag} {}: is a directory", dir.display());
        }
    }
    if let Some(file) = &args.render
        && picture_kind(file).is_none()
    {
        bail!(
            "--render {}: expected a .gif (animation) or .png (last tick) file",
            file.display()
        );
    }
    if let Some(file) = &args.heatmap
        && picture_kind(file) != Some(PictureKind::Png)
    {
        bail!("--heatmap {}: expected a .png file", file.display());
    }
    // Every output checked, and made ready to write, before the run: a path that cannot be
    // written costs no run, and a failed check leaves no output behind.
    let output::RunFiles {
        json,
        csv,
        paths,
        trace,
        render,
        heatmap,
        plots,
    } = output::RunFiles::reserve(&args, &scenario)?;
    let pictures = (render.is_some() || heatmap.is_some() || plots.is_some()).then(|| PicturesTo {
        render,
        every: args.render_every,
        size: args.render_size.unwrap_or(DEFAULT_RENDER_SIZE),
        goals: args.render_goals,
        heatmap: heatmap.map(|f| (f, args.heatmap_of)),
        plots,
    });
    let progress = !args.quiet && io::stderr().is_terminal();
    // With --json - or --csv -, standard output is the file: the table goes to stderr.
    let table_to_stderr = [&args.json, &args.csv]
        .into_iter()
        .any(|f| f.as_deref().is_some_and(is_stdout));
    let mut out: Box<dyn Write> = if table_to_stderr {
        Box::new(io::stderr().lock())
    } else {
        Box::new(io::stdout().lock())
    };
    let trace = trace.map(|file| TraceTo {
        file,
        compress: !args.trace_raw,
    });

    let mut mode_comparison = None;
    let (played, comparison, mut ready) = if args.compare_threads {
        if threads < 2 {
            let cores = std::thread::available_parallelism().map_or(1, usize::from);
            bail!(
                "--compare-threads compares 1 thread with N: give --threads N with N >= 2 \
                 (the run would use {threads}; this machine reports {cores} core{})",
                if cores == 1 { "" } else { "s" }
            );
        }
        let (mut played, ready) = play_interleaved(
            &[(&scenario, 1), (&scenario, threads)],
            Recording {
                progress,
                keep_ticks: true,
                csv: csv.map(|f| (1, f)),
                trace,
                pictures,
                paths,
            },
        )?;
        let multi = played.pop().expect("two runs");
        let base = played.pop().expect("two runs");
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        let c = Comparison {
            baseline_threads: 1,
            baseline_plans_per_sec: base.summary.plans_per_sec,
            baseline_ticks_per_sec: base.summary.ticks_per_sec,
            baseline_final_state_hash: base.summary.final_state_hash,
            threads: multi.summary.threads,
            plans_per_sec: multi.summary.plans_per_sec,
            planning_speedup: ratio(multi.summary.plans_per_sec, base.summary.plans_per_sec),
            ticks_speedup: ratio(multi.summary.ticks_per_sec, base.summary.ticks_per_sec),
            hash_match: base.summary.final_state_hash == multi.summary.final_state_hash,
            by_batch: batch_speedups(&base.ticks, &multi.ticks),
        };
        if !args.quiet {
            print_run(&mut out, &scenario, &base)?;
            writeln!(out)?;
            print_run(&mut out, &scenario, &multi)?;
            print_comparison(&mut out, &c)?;
        }
        (multi, Some(c), ready)
    } else if let Some(mode) = args.compare_conflicts {
        let mut other = scenario.clone();
        other.sim.conflicts = mode;
        let (mut played, ready) = play_interleaved(
            &[(&scenario, threads), (&other, threads)],
            Recording {
                progress,
                keep_ticks: false,
                csv: csv.map(|f| (0, f)),
                trace,
                pictures,
                paths,
            },
        )?;
        let theirs = played.pop().expect("two runs");
        let ours = played.pop().expect("two runs");
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        let (a, b) = (&ours.summary, &theirs.summary);
        let c = ModeComparison {
            conflicts: mode,
            plans_ratio: ratio(a.plans as f64, b.plans as f64),
            wall_ratio: ratio(a.wall_s, b.wall_s),
            sum_of_costs_ratio: ratio(a.sum_of_costs as f64, b.sum_of_costs as f64),
            summary: b.clone(),
        };
        if !args.quiet {
            print_run(&mut out, &scenario, &ours)?;
            writeln!(out)?;
            print_run(&mut out, &other, &theirs)?;
            writeln!(out)?;
            let mine = scenario.sim.conflicts.name();
            writeln!(
                out,
                "{mine} / {}  plans {:.3}x ({} vs {}), wall time {:.3}x ({:.2} vs {:.2} s), \
                 sum of costs {:.3}x, arrived {} vs {}",
                mode.name(),
                c.plans_ratio,
                a.plans,
                b.plans,
                c.wall_ratio,
                a.wall_s,
                b.wall_s,
                c.sum_of_costs_ratio,
                a.arrived,
                b.arrived
            )?;
        }
        mode_comparison = Some(c);
        (ours, None, ready)
    } else {
        let (played, ready) = play(
            &scenario,
            threads,
            progress,
            Outputs {
                csv,
                trace,
                pictures,
                paths,
            },
        )?;
        if !args.quiet {
            print_run(&mut out, &scenario, &played)?;
        }
        (played, None, ready)
    };
    out.flush()?;

    let hash_match = comparison.as_ref().is_none_or(|c| c.hash_match);
    if let Some(mut to) = json {
        let object = JsonSummary {
            run: scenario
                .run_json(&played.summary, played.setup_s)
                .with_process(played.steady_cores, played.peak_memory_mib),
            compare: comparison,
            compare_conflicts: mode_comparison,
        };
        let mut text = serde_json::to_string_pretty(&object)?;
        text.push('\n');
        to.write_all(text.as_bytes())
            .with_context(|| format!("writing {}", to.path().display()))?;
        to.finish(&mut ready)?;
    }
    // Every output complete: all of them are put in place.
    ready.commit()?;
    if !hash_match {
        eprintln!(
            "throng: the 1-thread and the {threads}-thread runs ended in different states \
             (a determinism bug)"
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Builds the scenario and plays it on a pool of `threads` workers. A one-shot run stops early
/// once every agent is at its goal or has no path (nothing can change after that).
fn play(
    scenario: &Scenario,
    threads: usize,
    progress: bool,
    outputs: Outputs,
) -> anyhow::Result<(Played, output_path::ReadyOutputs)> {
    let (mut played, ready) = play_interleaved(
        &[(scenario, threads)],
        Recording {
            progress,
            keep_ticks: false,
            csv: outputs.csv.map(|f| (0, f)),
            trace: outputs.trace,
            pictures: outputs.pictures,
            paths: outputs.paths,
        },
    )?;
    Ok((played.remove(0), ready))
}

/// The outputs of a single run, reserved.
struct Outputs {
    csv: Option<output::Output>,
    trace: Option<TraceTo>,
    pictures: Option<PicturesTo>,
    paths: Option<OutputFile>,
}

/// Where `--trace` goes.
struct TraceTo {
    file: OutputFile,
    compress: bool,
}

/// The group of each agent slot of a freshly built scenario: agent `i` of a `crowds` placement
/// is in crowd `i % groups`; other placements have no groups.
fn agent_groups(scenario: &Scenario, agents: usize) -> Vec<u32> {
    match scenario.placement {
        throng::scenario::Placement::Crowds { groups, .. } if groups > 0 => {
            (0..agents).map(|i| i as u32 % groups).collect()
        }
        _ => Vec::new(),
    }
}

fn parse_conflicts(text: &str) -> Result<throng::sim::ConflictMode, String> {
    match text {
        "pibt" => Ok(throng::sim::ConflictMode::Pibt),
        "avoid" => Ok(throng::sim::ConflictMode::Avoid),
        "off" => Ok(throng::sim::ConflictMode::Off),
        _ => Err(format!(
            "unknown conflict mode {text:?} (expected pibt, avoid or off)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_scenario_is_sims_default_with_its_map_in_memory() {
        let built_in = default_scenario().unwrap();
        // The help of --map, --generate and --agents quotes these.
        assert_eq!((built_in.agents, built_in.seed), (10000, 1));
        assert_eq!(built_in.sim.planner.to_string(), "auto");
        assert_eq!(built_in.sim.conflicts.name(), "pibt");
        // The constant must name the file default.toml gives, or the binary would look for the
        // map on disk again.
        assert!(
            matches!(&built_in.map, throng::scenario::MapSource::Text { file, .. } if file == DEFAULT_MAP_FILE),
            "{:?}",
            built_in.map_label()
        );
        // Same scenario as the file in the tree, map and all.
        let on_disk =
            Scenario::load(concat!(env!("CARGO_MANIFEST_DIR"), "/sims/default.toml")).unwrap();
        assert_eq!(
            (
                built_in.agents,
                built_in.ticks,
                built_in.seed,
                &built_in.placement
            ),
            (
                on_disk.agents,
                on_disk.ticks,
                on_disk.seed,
                &on_disk.placement
            )
        );
        assert_eq!(built_in.sim_config(), on_disk.sim_config());
        let (a, b) = (built_in.load_grid().unwrap(), on_disk.load_grid().unwrap());
        assert_eq!((a.width(), a.height()), (b.width(), b.height()));
        assert!((0..a.len() as u32).all(|c| a.is_walkable(c) == b.is_walkable(c)));
    }
}
