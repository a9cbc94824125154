//! Runs played side by side, interleaved tick by tick (`--compare-threads`,
//! `--compare-conflicts`, and a single run too), and the comparison they print.

use std::io::{self, Write};

use super::*;
use crate::cmd::output_path::ReadyOutputs;

/// Plays each `(scenario, threads)` entry, each on its own pool of that many workers,
/// interleaved tick by tick: tick 0 of every copy, then tick 1, and so on. When the copies are
/// compared, a change in the machine's load (another program starting) then hits all of them
/// alike instead of only the copy that happened to run at that moment.
///
/// Returns the runs, and their output files written but not yet in place (the caller puts
/// them in place together once every output is written).
pub(super) fn play_interleaved(
    variants: &[(&Scenario, usize)],
    recording: Recording,
) -> anyhow::Result<(Vec<Played>, ReadyOutputs)> {
    let progress = recording.progress;
    let scenario = variants[0].0;
    let threads: Vec<usize> = variants.iter().map(|&(_, n)| n).collect();
    struct Copy {
        sim: throng::sim::Simulation,
        pool: rayon::ThreadPool,
        ticks: Vec<(u32, f64)>,
        setup_s: f64,
        done: bool,
        schedule: throng::scenario::ChangeSchedule,
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
    // The output files were reserved before: a run that cannot start leaves none, nor any
    // temporary file (they are removed when dropped unfinished).
    let mut ready = ReadyOutputs::default();
    let mut csv = match recording.csv {
        Some((copy, mut w)) => {
            let file = w.path().to_path_buf();
            write_csv_header(&mut w).with_context(|| format!("writing {}", file.display()))?;
            Some((copy, file, w))
        }
        None => None,
    };
    let mut paths = match recording.paths {
        Some(file) => Some(super::paths::PathsRecorder::new(file, &copies[0].sim)?),
        None => None,
    };
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
        Some(mut to) => {
            let out = to.file.writer();
            let options = throng::trace::TraceOptions {
                compress: to.compress,
                groups: agent_groups(scenario, copies[0].sim.agents().slot_count()),
            };
            // Level 6 on a thread of its own: 1.59 MB for the default run instead of 1.94 MB at
            // level 1, the compression off the simulation's thread.
            let recorder =
                throng::trace::TraceRecorder::new_background(out, &copies[0].sim, &options, 6)
                    .with_context(|| format!("writing {}", to.file.path().display()))?;
            Some((to.file, recorder))
        }
        None => None,
    };
    let mut painter = match recording.pictures {
        Some(to) => Some(Painter::new(to, scenario, &copies[0].sim)?),
        None => None,
    };
    let loop_start = Instant::now();
    let lifelong = scenario.sim_config().lifelong;
    let mut plans = 0u64;
    // A single run's processor time and wall time from the end of its first tick: the cores
    // it kept busy after it (interleaved copies share the process: none then).
    let mut steady_from: Option<(Option<f64>, Instant)> = None;
    let ticks = variants.iter().map(|(v, _)| v.ticks).max().unwrap_or(0);
    for tick in 0..ticks {
        for (i, copy) in copies.iter_mut().enumerate() {
            if copy.done || tick >= variants[i].0.ticks {
                continue;
            }
            let sim = &mut copy.sim;
            copy.schedule.queue_due(sim);
            let report = copy.pool.install(|| sim.step());
            if tick == 0 && variants.len() == 1 {
                steady_from = Some((throng::process_stats::cpu_seconds(), Instant::now()));
            }
            copy.done = !lifelong
                && copy.schedule.is_finished()
                && (report.at_goal + report.no_path == report.agents || report.unsolvable);
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
                    .with_context(|| format!("writing {}", file.path().display()))?;
            }
            if i == 0
                && let Some(painter) = &mut painter
            {
                painter.tick(&copy.sim, &report)?;
            }
            if i == 0
                && let Some(paths) = &mut paths
            {
                paths.record(&copy.sim)?;
            }
        }
        if copies.iter().all(|c| c.done) {
            break;
        }
    }
    let steady_cores = steady_from.and_then(|(cpu, at)| {
        throng::process_stats::cores_busy(
            cpu,
            throng::process_stats::cpu_seconds(),
            at.elapsed().as_secs_f64(),
        )
    });
    bar.finish_and_clear();
    let trace = match recorder {
        Some((file, recorder)) => {
            let t0 = Instant::now();
            let (ticks, raw_bytes, spent) = (
                recorder.ticks(),
                recorder.raw_bytes(),
                recorder.time_spent(),
            );
            let what = || format!("writing {}", file.path().display());
            let (mut out, bytes) = recorder.finish_with_size().with_context(what)?;
            out.flush().with_context(what)?;
            drop(out);
            ready.add(file);
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
    let mut pictures = match painter {
        Some(p) => Some(p.finish(&copies[0].sim, loop_start, &mut ready)?),
        None => None,
    };
    if let Some((_, _, w)) = csv {
        w.finish(&mut ready)?;
    }
    let mut paths = match paths {
        Some(p) => Some(p.finish(&copies[0].sim, &mut ready)?),
        None => None,
    };
    let mut trace = trace;
    let played = copies
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
                steady_cores,
                peak_memory_mib: throng::process_stats::peak_memory_mib(),
                summary,
                ticks: copy.ticks,
                setup_s: copy.setup_s,
                map_size,
                trace: trace.take(),
                pictures: pictures.take(),
                paths: paths.take(),
            }
        })
        .collect();
    Ok((played, ready))
}

/// Splits the planning time of two runs of the same scenario by batch size. Small batches
/// and batches held up by one slow plan (a straggler) parallelise worse than large ones; this
/// shows where the speed-up is lost.
pub(super) fn batch_speedups(base: &[(u32, f64)], multi: &[(u32, f64)]) -> Vec<BatchSpeedup> {
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
pub(super) fn print_comparison(out: &mut impl Write, c: &Comparison) -> io::Result<()> {
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
