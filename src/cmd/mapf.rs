//! `throng mapf MAP SCEN --agents N`: solve a one-shot MAPF benchmark instance with LaCAM and
//! report the field's measures.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use serde::Serialize;
use throng::Neighborhood;
use throng::mapf::GoalDistances;
use throng::mapf::instance::{Instance, plan_costs, write_plan};
use throng::mapf::lacam::{LacamOptions, LacamOutcome, solve};

/// Flags of `throng mapf`.
#[derive(clap::Args)]
pub struct MapfArgs {
    /// The map (`.map`).
    map: PathBuf,
    /// The MAPF scenario file (`.scen`): agent k starts and ends where line k says.
    scen: PathBuf,
    /// Agents: the first N lines of the scenario file.
    #[arg(long)]
    agents: usize,
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 10.0, value_name = "S")]
    time_limit: f64,
    /// 4 (the benchmark's moves) or 8 (with diagonals, no corner cutting, no crossings).
    #[arg(long, default_value = "4", value_parser = parse_neighbourhood)]
    neighbourhood: Neighborhood,
    /// Seed of the search's tie-breaks.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Keep improving the sum of costs (LaCAM*) until the time limit, instead of returning the
    /// first solution.
    #[arg(long)]
    anytime: bool,
    /// Write the plan to FILE in lacam3's result format (mapf-visualizer replays it).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

fn parse_neighbourhood(s: &str) -> Result<Neighborhood, String> {
    s.parse().map_err(|e: throng::Error| e.to_string())
}

/// The `--json` object.
#[derive(Serialize)]
struct Report {
    solved: bool,
    /// `solved`, `no_solution` (proven) or `time_limit`.
    status: &'static str,
    agents: usize,
    soc: u64,
    soc_lb: u64,
    makespan: u64,
    makespan_lb: u64,
    /// To the plan returned (or to giving up).
    time_ms: f64,
    first_solution_ms: f64,
    /// The whole search (an anytime search runs to the time limit).
    search_ms: f64,
    /// Cheaper plans an anytime search found after the first.
    improvements: usize,
    nodes: usize,
    generated: usize,
}

/// Runs `throng mapf`: exit status 0 when solved, 1 when not, errors as for every subcommand.
pub fn run(args: MapfArgs) -> anyhow::Result<ExitCode> {
    if !(args.time_limit > 0.0 && args.time_limit.is_finite()) {
        anyhow::bail!("--time-limit must be a positive number of seconds");
    }
    let instance = Instance::load(&args.map, &args.scen, args.agents, args.neighbourhood)?;
    let options = LacamOptions {
        time_limit: Some(Duration::from_secs_f64(args.time_limit.min(1e6))),
        node_limit: None,
        seed: args.seed,
        anytime: args.anytime,
    };
    let (outcome, stats) = solve(&instance.grid, &instance.starts, &instance.goals, &options)?;
    let distances = GoalDistances::new(&instance.grid, &instance.goals);
    let (status, plan) = match outcome {
        LacamOutcome::Solved(plan) => ("solved", plan),
        LacamOutcome::NoSolution => ("no_solution", Vec::new()),
        LacamOutcome::Unfinished => ("time_limit", Vec::new()),
    };
    let costs = plan_costs(&instance, &distances, &plan);
    let solved = !plan.is_empty();
    if let Some(file) = &args.out {
        let mut w = BufWriter::new(
            std::fs::File::create(file).with_context(|| format!("writing {}", file.display()))?,
        );
        // The map's file name without its folder, as lacam3 records it.
        let map_name = args.map.file_name().unwrap_or(args.map.as_os_str());
        write_plan(
            &mut w,
            &instance,
            &map_name.to_string_lossy(),
            &plan,
            &costs,
            &stats,
            args.seed,
        )
        .and_then(|()| w.flush())
        .with_context(|| format!("writing {}", file.display()))?;
    }
    let report = Report {
        solved,
        status,
        agents: instance.starts.len(),
        soc: costs.soc,
        soc_lb: costs.soc_lb,
        makespan: costs.makespan,
        makespan_lb: costs.makespan_lb,
        time_ms: stats.solution_ms.unwrap_or(stats.time_ms),
        first_solution_ms: stats.first_solution_ms.unwrap_or(0.0),
        search_ms: stats.time_ms,
        improvements: stats.improvements,
        nodes: stats.nodes,
        generated: stats.generated,
    };
    let mut out = io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&report)?)?;
    } else {
        writeln!(
            out,
            "instance     {} agents, {} on {} ({}-connected)",
            report.agents,
            args.scen.display(),
            args.map.display(),
            match args.neighbourhood {
                Neighborhood::Four => 4,
                Neighborhood::Eight => 8,
            }
        )?;
        writeln!(
            out,
            "outcome      {status} in {:.1} ms ({} configurations, {} generated)",
            report.time_ms, report.nodes, report.generated
        )?;
        if solved && args.anytime {
            writeln!(
                out,
                "anytime      first solution at {:.1} ms, {} cheaper plans after it, search {:.1} ms",
                report.first_solution_ms, report.improvements, report.search_ms
            )?;
        }
        if solved {
            writeln!(
                out,
                "sum of costs {} (lower bound {}, ratio {:.3})",
                report.soc,
                report.soc_lb,
                report.soc as f64 / report.soc_lb.max(1) as f64
            )?;
            writeln!(
                out,
                "makespan     {} (lower bound {})",
                report.makespan, report.makespan_lb
            )?;
        }
    }
    out.flush()?;
    Ok(if solved {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
