//! `throng mapf MAP SCEN --agents N`: solve a one-shot MAPF benchmark instance with LaCAM and
//! report the field's measures.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::bail;
use serde::Serialize;
use throng::grid::{Grid, Neighborhood};
use throng::mapf::GoalDistances;
use throng::mapf::lacam::{LacamOptions, LacamOutcome, PIBT_RUNS, SCATTER_MARGIN, solve};
use throng::mapf::refine::{POLISH_EXPANSIONS_PER_COST, RefineOptions, refine};
use throng::mapf::{Instance, plan_costs, write_plan};
use throng::movingai::{ScenFile, load_map};

use super::file_kind::{self, FileKind};
use super::numbers::{count_from, positive_seconds, whole_from};
use super::output_path::OutputFile;
use super::output_path::check_distinct;

/// Flags of `throng mapf`.
#[derive(clap::Args)]
pub struct MapfArgs {
    /// The map (`.map`).
    map: PathBuf,
    /// The MAPF scenario file (`.scen`): agent k starts and ends where line k says.
    scen: PathBuf,
    /// Agents: the first N lines of the scenario file (at least 1, at most its lines).
    #[arg(long, value_name = "N", value_parser = count_from(1))]
    agents: usize,
    /// Give up after this many seconds (more than 0).
    #[arg(long, default_value_t = 10.0, value_name = "S", value_parser = positive_seconds)]
    time_limit: f64,
    /// 4 (the benchmark's moves) or 8 (with diagonals, no corner cutting, no crossings).
    #[arg(long, default_value = "4", value_parser = parse_neighbourhood)]
    neighbourhood: Neighborhood,
    /// Seed of the search's tie-breaks.
    #[arg(long, default_value_t = 0, value_parser = whole_from(0u64))]
    seed: u64,
    /// Keep improving the sum of costs until the time limit, instead of returning the first
    /// solution: large neighbourhood search over the first solution's paths (`mapf::refine`).
    #[arg(long)]
    anytime: bool,
    /// Return LaCAM's first solution as it is. By default it is polished first by a short
    /// refinement (large neighbourhood search with a budget of work proportional to the plan's
    /// sum of costs: the same plan for a seed on any machine).
    #[arg(long)]
    no_polish: bool,
    /// With --anytime: stop refining after N neighbourhoods (at least 1), or at the time limit
    /// if that comes first: the same plan for a seed on any machine.
    #[arg(long, value_name = "N", value_parser = count_from(1))]
    refine_iterations: Option<usize>,
    /// Write the plan to FILE in lacam3's result format (every header key of lacam3's) (mapf-visualizer replays it). The path is
    /// checked before the search; the file is written after it, solved or not (`solved=0`).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

fn parse_neighbourhood(s: &str) -> Result<Neighborhood, String> {
    s.parse().map_err(|e: throng::error::Error| e.to_string())
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
    /// To LaCAM's first solution.
    first_solution_ms: f64,
    /// The sum of costs of LaCAM's first solution, before the refinement (0 when unsolved).
    lacam_soc: u64,
    /// The whole search (an anytime search runs to the time limit).
    search_ms: f64,
    /// `polish` (the default: a refinement with a budget of work), `anytime` (to the time
    /// limit) or `none` (`--no-polish`, or no plan to refine).
    refinement: &'static str,
    /// Cheaper plans the refinement found after LaCAM's.
    improvements: usize,
    /// Neighbourhoods the refinement re-planned.
    refine_iterations: usize,
    nodes: usize,
    generated: usize,
}

/// The instance of `args`, its files checked to be a map and a `.scen` that go together: a
/// `.scen` for a map of another size is refused, one that names another map of the same size
/// is run with a warning on stderr (both files were given, so it may be meant).
fn load_instance(args: &MapfArgs) -> anyhow::Result<Instance> {
    if FileKind::of(&args.map) == Some(FileKind::Scen)
        && FileKind::of(&args.scen) == Some(FileKind::Map)
    {
        anyhow::bail!(
            "{} is a .scen file and {} a map: the map comes first (try: throng mapf {} {} --agents {})",
            args.map.display(),
            args.scen.display(),
            args.scen.display(),
            args.map.display(),
            args.agents
        );
    }
    file_kind::expect(&args.map, FileKind::Map)?;
    file_kind::expect(&args.scen, FileKind::Scen)?;
    let grid: Grid = load_map(&args.map)?.with_neighborhood(args.neighbourhood);
    let scen = ScenFile::load(&args.scen)?;
    let other_map = scen.check_map(Some(&args.map), &grid)?;
    match Instance::from_scen(grid, &scen, args.agents) {
        // The instance does not fit the map: one line, the name the scen gives as the cause.
        Err(e) => match other_map {
            Some(other) => bail!("{e} ({other})"),
            None => Err(e.into()),
        },
        Ok(instance) => {
            if let Some(other) = other_map {
                eprintln!("throng: warning: {other}");
            }
            Ok(instance)
        }
    }
}

/// Runs `throng mapf`: exit status 0 when solved, 1 when not, errors as for every subcommand.
pub fn run(args: MapfArgs) -> anyhow::Result<ExitCode> {
    // Checked and made ready before the search: a path that cannot be written costs no search.
    let mut out_file = match &args.out {
        Some(file) => {
            check_distinct(
                &[("--out", file)],
                &[("the map", &args.map), ("the .scen file", &args.scen)],
            )?;
            Some(OutputFile::reserve("--out", file)?)
        }
        None => None,
    };
    if args.refine_iterations.is_some() && !args.anytime {
        bail!(
            "--refine-iterations applies with --anytime only (without it the first solution's refinement has a fixed budget)"
        );
    }
    if args.no_polish && args.anytime {
        bail!(
            "--no-polish and --anytime cannot go together: --anytime refines LaCAM's plan to the time limit"
        );
    }
    let instance = load_instance(&args)?;
    let time_limit = Duration::from_secs_f64(args.time_limit.min(1e6));
    let options = LacamOptions {
        time_limit: Some(time_limit),
        node_limit: None,
        seed: args.seed,
        anytime: false,
        scatter: Some(SCATTER_MARGIN),
        pibt_runs: PIBT_RUNS,
    };
    let (mut outcome, mut stats) =
        solve(&instance.grid, &instance.starts, &instance.goals, &options)?;
    let distances = GoalDistances::new(&instance.grid, &instance.goals);
    let lacam_soc = match &outcome {
        LacamOutcome::Solved(first) => plan_costs(&instance, &distances, first).soc,
        _ => 0,
    };
    let mut refine_iterations = 0;
    let mut refinement = "none";
    if let (true, LacamOutcome::Solved(first)) = (!args.no_polish, &outcome) {
        // The rest of the time may refine the first solution: to the time limit with
        // --anytime, else within the polish's budget of work.
        let spent = Duration::from_secs_f64(stats.time_ms / 1e3);
        let refine_options = RefineOptions {
            time_limit: Some(time_limit.saturating_sub(spent)),
            iterations: args.refine_iterations,
            expansions: (!args.anytime).then(|| POLISH_EXPANSIONS_PER_COST * lacam_soc),
            seed: args.seed,
            ..RefineOptions::default()
        };
        match refine(&instance.grid, first, &instance.goals, &refine_options) {
            Ok((better, refined)) => {
                refinement = if args.anytime { "anytime" } else { "polish" };
                refine_iterations = refined.iterations;
                stats.improvements = refined.improvements;
                stats.time_ms += refined.time_ms;
                // An anytime search's plan dates from its last improvement; the polished plan
                // is returned when the polish ends.
                stats.solution_ms = Some(match (args.anytime, refined.improvements) {
                    (true, 0) => stats.solution_ms.unwrap_or(stats.time_ms),
                    (true, _) => stats.time_ms - refined.time_ms + refined.solution_ms,
                    (false, _) => stats.time_ms,
                });
                outcome = LacamOutcome::Solved(better);
            }
            // Too large to refine here: the first solution stands, and the user is told.
            Err(e) => eprintln!("throng: warning: {e}; LaCAM's first solution is kept unrefined"),
        }
    }
    let (status, plan) = match outcome {
        LacamOutcome::Solved(plan) => ("solved", plan),
        LacamOutcome::NoSolution => ("no_solution", Vec::new()),
        LacamOutcome::Unfinished => ("time_limit", Vec::new()),
    };
    let costs = plan_costs(&instance, &distances, &plan);
    let solved = !plan.is_empty();
    if let Some(mut file) = out_file.take() {
        // The map as given (lacam3 writes its file name alone): `throng view PLAN` finds it
        // from where the plan was made, or next to the plan by its name.
        let map = args.map.display().to_string();
        file.fill(|w| write_plan(w, &instance, &map, &plan, &costs, &stats, args.seed))?;
        file.commit()?;
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
        lacam_soc,
        search_ms: stats.time_ms,
        refinement,
        improvements: stats.improvements,
        refine_iterations,
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
        if solved && refinement != "none" {
            writeln!(
                out,
                "refined      LaCAM's first plan at {:.1} ms, sum of costs {}; {refinement}: {} cheaper plans in {} neighbourhoods, search {:.1} ms",
                report.first_solution_ms,
                report.lacam_soc,
                report.improvements,
                report.refine_iterations,
                report.search_ms
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
