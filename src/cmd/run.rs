//! `throng run`: play a scenario file and print its summary, alone or against another thread
//! count or conflict mode, interleaved tick by tick.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use serde::Serialize;
use throng::sim::{RunSummary, Scenario, TickReport};

/// The scenario `throng run` plays when no file is given, and its map, compiled into the binary
/// so that an installed or moved binary needs no files (a path fixed at compile time would not
/// exist after `cargo install` or moving the clone).
const DEFAULT_SCENARIO: &str = include_str!("../../sims/default.toml");
/// The label of the built-in scenario in summaries and errors.
const DEFAULT_SCENARIO_LABEL: &str = "sims/default.toml (built in)";
/// `map.file` as written in sims/default.toml: the built-in map stands in for that file.
const DEFAULT_MAP_FILE: &str = "maps/random512-10-0.map";
/// The text of sims/maps/random512-10-0.map (257 KiB).
const DEFAULT_MAP: &str = include_str!("../../sims/maps/random512-10-0.map");

/// The built-in default scenario, its map held in memory.
fn default_scenario() -> throng::Result<Scenario> {
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
    /// Worker threads to plan on (default: the file's `threads`; 0 means all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of the placement and of lifelong goals (default: the file's `seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Ticks to play at most (default: the file's `ticks`).
    #[arg(long)]
    ticks: Option<u64>,
    /// Write the summary to FILE as one JSON object.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the per-tick series to FILE as CSV (a header, then one row per tick).
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
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
    /// The trace of this run, when one was written.
    trace: Option<TraceStats>,
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

/// Splits the planning time of two runs of the same scenario by batch size. Small batches
/// and batches held up by one slow plan (a straggler) parallelise worse than large ones; this
/// shows where the speed-up is lost.
fn batch_speedups(base: &[(u32, f64)], multi: &[(u32, f64)]) -> Vec<BatchSpeedup> {
    let ranges = [(1, Some(99)), (100, Some(499)), (500, None)];
    ranges
        .into_iter()
        .map(|(min_plans, max_plans)| {
            let mut b = BatchSpeedup {
                min_plans,
                max_plans,
                ticks: 0,
                plans: 0,
                baseline_planning_s: 0.0,
                planning_s: 0.0,
                speedup: 0.0,
            };
            for (&(plans, base_ms), &(_, multi_ms)) in base.iter().zip(multi) {
                if plans >= min_plans && max_plans.is_none_or(|m| plans <= m) {
                    b.ticks += 1;
                    b.plans += u64::from(plans);
                    b.baseline_planning_s += base_ms / 1e3;
                    b.planning_s += multi_ms / 1e3;
                }
            }
            if b.planning_s > 0.0 {
                b.speedup = b.baseline_planning_s / b.planning_s;
            }
            b
        })
        .filter(|b| b.ticks > 0)
        .collect()
}

/// The `--json` object: the run summary with what was run.
#[derive(Serialize)]
struct JsonSummary<'a> {
    #[serde(flatten)]
    run: throng::sim::RunJson<'a>,
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
    let mut scenario = match &args.scenario {
        Some(path) => Scenario::load(path)?,
        None => default_scenario()?,
    };
    if let Some(seed) = args.seed {
        scenario.seed = seed;
    }
    if let Some(ticks) = args.ticks {
        if ticks == 0 {
            bail!("--ticks must be at least 1");
        }
        scenario.ticks = ticks;
    }
    if let Some(threads) = args.threads {
        if threads > Scenario::MAX_THREADS {
            bail!(
                "--threads: at most {} worker threads (0 means all cores), got {threads}",
                Scenario::MAX_THREADS
            );
        }
        scenario.threads = threads;
    }
    let threads = match scenario.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    // An output path that cannot be written is found now, not after the whole run.
    for (flag, file) in [
        ("--json", &args.json),
        ("--csv", &args.csv),
        ("--trace", &args.trace),
    ] {
        if let Some(file) = file {
            check_writable(flag, file)?;
        }
    }
    let progress = !args.quiet && io::stderr().is_terminal();
    let mut out = io::stdout().lock();
    let trace = args.trace.as_deref().map(|file| TraceTo {
        file,
        compress: !args.trace_raw,
    });

    let mut mode_comparison = None;
    let (played, comparison) = if args.compare_threads {
        if threads < 2 {
            let cores = std::thread::available_parallelism().map_or(1, usize::from);
            bail!(
                "--compare-threads compares 1 thread with N: give --threads N with N >= 2 \
                 (the run would use {threads}; this machine reports {cores} core{})",
                if cores == 1 { "" } else { "s" }
            );
        }
        let mut played = play_interleaved(
            &[(&scenario, 1), (&scenario, threads)],
            Recording {
                progress,
                keep_ticks: true,
                csv: args.csv.as_deref().map(|f| (1, f)),
                trace,
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
        (multi, Some(c))
    } else if let Some(mode) = args.compare_conflicts {
        let mut other = scenario.clone();
        other.sim.conflicts = mode;
        let mut played = play_interleaved(
            &[(&scenario, threads), (&other, threads)],
            Recording {
                progress,
                keep_ticks: false,
                csv: args.csv.as_deref().map(|f| (0, f)),
                trace,
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
        (ours, None)
    } else {
        let played = play(&scenario, threads, progress, args.csv.as_deref(), trace)?;
        if !args.quiet {
            print_run(&mut out, &scenario, &played)?;
        }
        (played, None)
    };
    out.flush()?;

    let hash_match = comparison.as_ref().is_none_or(|c| c.hash_match);
    if let Some(file) = &args.json {
        let object = JsonSummary {
            run: scenario.run_json(&played.summary, played.setup_s),
            compare: comparison,
            compare_conflicts: mode_comparison,
        };
        let mut text = serde_json::to_string_pretty(&object)?;
        text.push('\n');
        std::fs::write(file, text).with_context(|| format!("writing {}", file.display()))?;
    }
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
    csv: Option<&Path>,
    trace: Option<TraceTo<'_>>,
) -> anyhow::Result<Played> {
    let mut played = play_interleaved(
        &[(scenario, threads)],
        Recording {
            progress,
            keep_ticks: false,
            csv: csv.map(|f| (0, f)),
            trace,
        },
    )?;
    Ok(played.remove(0))
}

/// What [`play_interleaved`] records besides the summaries.
struct Recording<'a> {
    /// Draw a progress bar on stderr.
    progress: bool,
    /// Keep every tick's plans and planning time ([`Played::ticks`]).
    keep_ticks: bool,
    /// Stream the per-tick series of copy `.0` to the CSV file `.1` as the run goes.
    csv: Option<(usize, &'a Path)>,
    /// Record copy 0 to a trace file.
    trace: Option<TraceTo<'a>>,
}

/// Where `--trace` goes.
#[derive(Clone, Copy)]
struct TraceTo<'a> {
    file: &'a Path,
    compress: bool,
}

/// The group of each agent slot of a freshly built scenario: agent `i` of a `crowds` placement
/// is in crowd `i % groups`; other placements have no groups.
fn agent_groups(scenario: &Scenario, agents: usize) -> Vec<u32> {
    match scenario.placement {
        throng::sim::Placement::Crowds { groups, .. } if groups > 0 => {
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

/// Fails when `file` is a directory or its folder does not exist (checked before a run, so that a
/// typo does not cost the run).
fn check_writable(flag: &str, file: &Path) -> anyhow::Result<()> {
    if file.is_dir() {
        bail!("{flag} {}: is a directory", file.display());
    }
    let parent = file.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = parent
        && !dir.is_dir()
    {
        bail!(
            "{flag} {}: folder {} does not exist",
            file.display(),
            dir.display()
        );
    }
    Ok(())
}

/// Plays each `(scenario, threads)` entry, each on its own pool of that many workers,
/// interleaved tick by tick: tick 0 of every copy, then tick 1, and so on. When the copies are
/// compared, a change in the machine's load (another program starting) then hits all of them
/// alike instead of only the copy that happened to run at that moment.
fn play_interleaved(
    variants: &[(&Scenario, usize)],
    recording: Recording<'_>,
) -> anyhow::Result<Vec<Played>> {
    let progress = recording.progress;
    let mut csv = match recording.csv {
        Some((copy, file)) => {
            let mut w = BufWriter::new(
                std::fs::File::create(file)
                    .with_context(|| format!("writing {}", file.display()))?,
            );
            write_csv_header(&mut w).with_context(|| format!("writing {}", file.display()))?;
            Some((copy, file, w))
        }
        None => None,
    };
    let scenario = variants[0].0;
    let threads: Vec<usize> = variants.iter().map(|&(_, n)| n).collect();
    struct Copy {
        sim: throng::sim::Simulation,
        pool: rayon::ThreadPool,
        ticks: Vec<(u32, f64)>,
        setup_s: f64,
        done: bool,
        schedule: throng::sim::ChangeSchedule,
    }
    let mut copies = Vec::with_capacity(variants.len());
    for &(variant, n) in variants {
        let t0 = Instant::now();
        let sim = variant.build()?;
        let schedule = variant.schedule(sim.grid())?;
        let setup_s = t0.elapsed().as_secs_f64();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .context("starting the worker threads")?;
        copies.push(Copy {
            sim,
            pool,
            ticks: Vec::new(),
            setup_s,
            done: false,
            schedule,
        });
    }
    let bar = if progress {
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(scenario.ticks),
            indicatif::ProgressDrawTarget::stderr(),
        );
        let style = indicatif::ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} ticks, {msg} ({elapsed}, eta {eta})",
        )?
        .progress_chars("=> ");
        bar.set_style(style);
        let list: Vec<String> = threads.iter().map(ToString::to_string).collect();
        bar.set_prefix(format!(
            "{} on {} thread{}",
            scenario.name,
            list.join(" and "),
            if threads == [1] { "" } else { "s" }
        ));
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut recorder = match recording.trace {
        Some(to) => {
            let file = std::fs::File::create(to.file)
                .with_context(|| format!("writing {}", to.file.display()))?;
            let options = throng::trace::TraceOptions {
                compress: to.compress,
                groups: agent_groups(scenario, copies[0].sim.agents().slot_count()),
            };
            // Level 6 on a thread of its own: 1.59 MB for the default run instead of 1.94 MB at
            // level 1, the compression off the simulation's thread.
            let recorder = throng::trace::TraceRecorder::new_background(
                BufWriter::with_capacity(1 << 16, file),
                &copies[0].sim,
                &options,
                6,
            )
            .with_context(|| format!("writing {}", to.file.display()))?;
            Some((to.file, recorder))
        }
        None => None,
    };
    let loop_start = Instant::now();
    let lifelong = scenario.sim_config().lifelong;
    let mut plans = 0u64;
    let ticks = variants.iter().map(|(v, _)| v.ticks).max().unwrap_or(0);
    for tick in 0..ticks {
        for (i, copy) in copies.iter_mut().enumerate() {
            if copy.done || tick >= variants[i].0.ticks {
                continue;
            }
            let sim = &mut copy.sim;
            copy.schedule.queue_due(sim);
            let report = copy.pool.install(|| sim.step());
            copy.done = !lifelong
                && copy.schedule.is_finished()
                && report.at_goal + report.no_path == report.agents;
            if i == 0 {
                plans += u64::from(report.plans);
                bar.set_position(tick + 1);
                if !bar.is_hidden() {
                    bar.set_message(format!(
                        "{} plans, {} of {} at goal",
                        plans, report.at_goal, report.agents
                    ));
                }
            }
            if let Some((c, file, w)) = &mut csv
                && *c == i
            {
                write_csv_row(w, &report).with_context(|| format!("writing {}", file.display()))?;
            }
            if recording.keep_ticks {
                copy.ticks.push((report.plans, report.planning_ms));
            }
            if i == 0
                && let Some((file, recorder)) = &mut recorder
            {
                recorder
                    .record(&copy.sim)
                    .with_context(|| format!("writing {}", file.display()))?;
            }
        }
        if copies.iter().all(|c| c.done) {
            break;
        }
    }
    bar.finish_and_clear();
    let trace = match recorder {
        Some((file, recorder)) => {
            let t0 = Instant::now();
            let (ticks, raw_bytes, spent) = (
                recorder.ticks(),
                recorder.raw_bytes(),
                recorder.time_spent(),
            );
            let (_, bytes) = recorder
                .finish_with_size()
                .with_context(|| format!("writing {}", file.display()))?;
            let finish = t0.elapsed();
            Some(TraceStats {
                ticks,
                bytes,
                raw_bytes,
                recorder_s: (spent + finish).as_secs_f64(),
                loop_s: (loop_start.elapsed()).as_secs_f64(),
            })
        }
        None => None,
    };
    if let Some((_, file, mut w)) = csv {
        w.flush()
            .with_context(|| format!("writing {}", file.display()))?;
    }
    let mut trace = trace;
    Ok(copies
        .into_iter()
        .zip(variants)
        .map(|(copy, &(scenario, _))| {
            let grid = copy.sim.grid();
            let map_size = format!(
                "{} x {}, {:.1}% walkable",
                grid.width(),
                grid.height(),
                100.0 * grid.walkable_count() as f64 / grid.len() as f64
            );
            // The summary reads the pool size, so it is taken on the copy's own pool.
            let summary = copy.pool.install(|| copy.sim.summary());
            Played {
                finished_early: (summary.ticks) < scenario.ticks,
                summary,
                ticks: copy.ticks,
                setup_s: copy.setup_s,
                map_size,
                trace: trace.take(),
            }
        })
        .collect())
}

fn print_run(out: &mut impl Write, scenario: &Scenario, played: &Played) -> io::Result<()> {
    let s = &played.summary;
    let config = scenario.sim_config();
    let name = if scenario.description.is_empty() {
        scenario.name.clone()
    } else {
        format!("{}: {}", scenario.name, scenario.description)
    };
    writeln!(out, "scenario     {name}")?;
    writeln!(
        out,
        "map          {} ({})",
        scenario.map_label(),
        played.map_size
    )?;
    writeln!(
        out,
        "setup        {} agents, {} thread{}, seed {}, planner {}, conflicts {}, {}{} ({:.2} s)",
        s.agents,
        s.threads,
        if s.threads == 1 { "" } else { "s" },
        scenario.seed,
        config.planner,
        config.conflicts,
        if config.lifelong {
            "lifelong"
        } else {
            "one-shot"
        },
        config
            .max_plans_per_tick
            .map_or(String::new(), |m| format!(", at most {m} plans/tick")),
        played.setup_s
    )?;
    if !scenario.planner_mix.is_empty() {
        let mix: Vec<String> = scenario
            .planner_mix
            .iter()
            .map(|(p, f)| format!("{p} {f}"))
            .collect();
        writeln!(
            out,
            "planner mix  {}; the rest {}",
            mix.join(", "),
            config.planner
        )?;
    }
    writeln!(
        out,
        "ticks        {}{} in {:.2} s: {:.1} ticks/s",
        s.ticks,
        if played.finished_early {
            " (every agent done)"
        } else {
            ""
        },
        s.wall_s,
        s.ticks_per_sec
    )?;
    writeln!(
        out,
        "first tick   {:.3} ms; after it {:.1} ticks/s",
        s.first_tick_ms, s.steady_ticks_per_sec
    )?;
    writeln!(
        out,
        "tick ms      p50 {:.3}, p90 {:.3}, p99 {:.3}, max {:.3}",
        s.tick_ms_p50, s.tick_ms_p90, s.tick_ms_p99, s.tick_ms_max
    )?;
    writeln!(
        out,
        "movement ms  p50 {:.3}, p99 {:.3} per tick{}",
        s.move_ms_p50,
        s.move_ms_p99,
        if s.swaps > 0 {
            format!("; {} swaps", s.swaps)
        } else {
            String::new()
        }
    )?;
    writeln!(
        out,
        "plans        {} ({} failed) in {:.2} s of planning: {:.0} plans/s",
        s.plans, s.plans_failed, s.planning_s, s.plans_per_sec
    )?;
    writeln!(
        out,
        "plans for    new goal {}, map change {}, blocked {}, drifted {}",
        s.plans_new_goal, s.replans_map_changed, s.replans_blocked, s.replans_drifted
    )?;
    writeln!(
        out,
        "plan us      p50 {:.1}, p90 {:.1}, p99 {:.1}, max {:.1}",
        s.plan_us_p50, s.plan_us_p90, s.plan_us_p99, s.plan_us_max
    )?;
    let expanded = if s.plans > 0 {
        s.nodes_expanded as f64 / s.plans as f64
    } else {
        0.0
    };
    writeln!(out, "expanded     {expanded:.0} nodes per plan (mean)")?;
    writeln!(
        out,
        "moves        {}: {:.0} moves/s",
        s.moves, s.moves_per_sec
    )?;
    if config.lifelong {
        // Arrivals, sum of costs and makespan describe one-shot runs; here agents always have
        // a goal, and throughput is the measure.
        writeln!(
            out,
            "goals        {} reached, {:.2} per tick (lifelong throughput)",
            s.goals_reached, s.goals_per_tick
        )?;
    } else {
        writeln!(
            out,
            "arrived      {} of {} at goal ({:.1}%{}); sum of costs {}, makespan {}",
            s.arrived,
            s.agents,
            100.0 * s.arrived_fraction,
            if s.all_arrived { ", all" } else { "" },
            s.sum_of_costs,
            s.makespan
        )?;
    }
    if s.dstar_bytes_max > 0 {
        writeln!(
            out,
            "D* Lite      {} bytes per agent (median), {} max; {} repairs, {} restarts",
            s.dstar_bytes_p50, s.dstar_bytes_max, s.dstar_repairs, s.dstar_restarts
        )?;
    }
    if s.repairs > 0 || s.replans > 0 {
        writeln!(
            out,
            "repairs      {} (p50 {:.1} us, p99 {:.1} us); replans {} (p50 {:.1} us, p99 {:.1} us)",
            s.repairs,
            s.repair_us_p50,
            s.repair_us_p99,
            s.replans,
            s.replan_us_p50,
            s.replan_us_p99
        )?;
    }
    if let Some(t) = &played.trace {
        let mb = |b: u64| b as f64 / 1e6;
        writeln!(
            out,
            "trace        {} ticks, {:.2} MB ({:.2} MB uncompressed); recorder {:.3} s, {:.1}% of the run",
            t.ticks,
            mb(t.bytes),
            mb(t.raw_bytes),
            t.recorder_s,
            if t.loop_s > 0.0 {
                100.0 * t.recorder_s / t.loop_s
            } else {
                0.0
            }
        )?;
    }
    writeln!(out, "state hash   {:016x}", s.final_state_hash)
}

fn print_comparison(out: &mut impl Write, c: &Comparison) -> io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "speed-up     planning {:.2}x on {} threads over 1 ({:.0} vs {:.0} plans/s); ticks/s {:.2}x",
        c.planning_speedup, c.threads, c.plans_per_sec, c.baseline_plans_per_sec, c.ticks_speedup
    )?;
    for b in &c.by_batch {
        let range = match b.max_plans {
            Some(max) => format!("{}-{max}", b.min_plans),
            None => format!("{}+", b.min_plans),
        };
        writeln!(
            out,
            "  by batch   {range:>7} plans/tick: {:.2}x ({} ticks, {} plans, {:.2} s -> {:.2} s)",
            b.speedup, b.ticks, b.plans, b.baseline_planning_s, b.planning_s
        )?;
    }
    writeln!(
        out,
        "same state   {} ({:016x} on 1 thread)",
        if c.hash_match { "yes" } else { "NO" },
        c.baseline_final_state_hash
    )
}

/// The per-tick series' header line.
fn write_csv_header(w: &mut impl Write) -> io::Result<()> {
    writeln!(
        w,
        "tick,wall_ms,commands_ms,planning_ms,movement_ms,plans,plans_failed,plans_deferred,\
         nodes_expanded,moved,waiting,goals_reached,agents,at_goal,no_path,state_hash,added,rejected"
    )
}

/// One row of the per-tick series (`added` and `rejected` as counts).
fn write_csv_row(w: &mut impl Write, r: &TickReport) -> io::Result<()> {
    writeln!(
        w,
        "{},{:.4},{:.4},{:.4},{:.4},{},{},{},{},{},{},{},{},{},{},{:016x},{},{}",
        r.tick,
        r.wall_ms,
        r.commands_ms,
        r.planning_ms,
        r.movement_ms,
        r.plans,
        r.plans_failed,
        r.plans_deferred,
        r.nodes_expanded,
        r.moved,
        r.waiting,
        r.goals_reached,
        r.agents,
        r.at_goal,
        r.no_path,
        r.state_hash,
        r.added.len(),
        r.rejected.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_scenario_is_sims_default_with_its_map_in_memory() {
        let built_in = default_scenario().unwrap();
        // The constant must name the file default.toml gives, or the binary would look for the
        // map on disk again.
        assert!(
            matches!(&built_in.map, throng::sim::MapSource::Text { file, .. } if file == DEFAULT_MAP_FILE),
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
