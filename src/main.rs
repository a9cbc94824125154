//! The `throng` command line. A thin layer over the library: parse flags, call the library,
//! print. Errors print one line and exit with status 2; a scenario run that finds a wrong answer
//! exits with status 1.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use throng::grid::procgen::MapGenerator;
use throng::movingai::{self, ScenFile};
use throng::scen_run::{ScenReport, ScenRunOptions, run_scen};
use throng::{Grid, PlannerKind};

/// Where the maps shipped with throng live (used when no file is given).
const SHIPPED_MAPS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sims/maps");

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
    /// Run every query of Moving AI scenario files and check each path against the optimal
    /// length. With no FILE, runs the scenario files shipped in sims/maps.
    Scen {
        /// `.map.scen` files (default: every one in sims/maps).
        files: Vec<PathBuf>,
        /// The map to use (default: the map named in the file, beside the scenario file).
        #[arg(long)]
        map: Option<PathBuf>,
        /// Print one JSON object per scenario file on stdout instead of the table.
        #[arg(long)]
        json: bool,
        /// Planner to run.
        #[arg(long, default_value = "astar", value_parser = parse_planner)]
        planner: PlannerKind,
        /// Stop a query after this many node expansions.
        #[arg(long)]
        budget: Option<u64>,
    },
    /// Generate a procedural map (and a scenario file of random queries with their optimal
    /// lengths), in the Moving AI formats, so everything runs without map files.
    Gen {
        /// Kind of map.
        #[arg(value_enum)]
        kind: GenKind,
        /// Output map file; the scenario file is written beside it as `OUT.scen`.
        #[arg(long, short)]
        out: PathBuf,
        /// Columns.
        #[arg(long, default_value_t = 512)]
        width: u32,
        /// Rows.
        #[arg(long, default_value_t = 512)]
        height: u32,
        /// Seed of the generator and of the queries.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Fraction of blocked cells (random maps).
        #[arg(long, default_value_t = 0.2)]
        density: f64,
        /// Inside size of a room (room maps).
        #[arg(long, default_value_t = 31)]
        room: u32,
        /// Door width (room maps).
        #[arg(long, default_value_t = 3)]
        door: u32,
        /// Corridor width (mazes).
        #[arg(long, default_value_t = 2)]
        corridor: u32,
        /// Number of scenario queries to write (0: no scenario file).
        #[arg(long, default_value_t = 1000)]
        queries: usize,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum GenKind {
    Random,
    Rooms,
    Maze,
}

fn parse_planner(s: &str) -> Result<PlannerKind, String> {
    s.parse().map_err(|e: throng::Error| e.to_string())
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
        Command::Scen {
            files,
            map,
            json,
            planner,
            budget,
        } => scen(files, map, json, planner, budget),
        Command::Gen {
            kind,
            out,
            width,
            height,
            seed,
            density,
            room,
            door,
            corridor,
            queries,
        } => {
            let generator = match kind {
                GenKind::Random => MapGenerator::Random {
                    width,
                    height,
                    density,
                },
                GenKind::Rooms => MapGenerator::Rooms {
                    width,
                    height,
                    room,
                    door,
                },
                GenKind::Maze => MapGenerator::Maze {
                    width,
                    height,
                    corridor,
                },
            };
            generate(&generator, seed, &out, queries)
        }
    }
}

fn generate(
    generator: &MapGenerator,
    seed: u64,
    out: &Path,
    queries: usize,
) -> anyhow::Result<ExitCode> {
    let grid = generator.generate(seed)?;
    std::fs::write(out, movingai::write_map(&grid))
        .with_context(|| format!("writing {}", out.display()))?;
    let mut stdout = io::stdout().lock();
    writeln!(
        stdout,
        "wrote {} ({} x {}, {} walkable cells, {} components)",
        out.display(),
        grid.width(),
        grid.height(),
        grid.walkable_count(),
        grid.components().count()
    )?;
    if queries > 0 {
        let name = out
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let scen = ScenFile::generate(&grid, &name, queries, seed)?;
        let mut scen_path = out.as_os_str().to_owned();
        scen_path.push(".scen");
        let scen_path = PathBuf::from(scen_path);
        std::fs::write(&scen_path, scen.to_text())
            .with_context(|| format!("writing {}", scen_path.display()))?;
        writeln!(stdout, "wrote {} ({queries} queries)", scen_path.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn scen(
    files: Vec<PathBuf>,
    map: Option<PathBuf>,
    json: bool,
    planner: PlannerKind,
    budget: Option<u64>,
) -> anyhow::Result<ExitCode> {
    let files = if files.is_empty() {
        shipped_scen_files()?
    } else {
        files
    };
    if map.is_some() && files.len() > 1 {
        bail!(
            "--map applies to one scenario file, {} were given",
            files.len()
        );
    }
    let options = ScenRunOptions {
        planner,
        node_budget: budget,
    };
    let mut all_optimal = true;
    let mut out = io::stdout().lock();
    for file in &files {
        let scen = ScenFile::load(file)?;
        let map_path = match &map {
            Some(m) => m.clone(),
            None => scen.map_path()?,
        };
        let grid = movingai::load_map(&map_path)?;
        let mut report = run_scen(&grid, &scen, &options)?;
        report.map = map_path.display().to_string();
        all_optimal &= report.all_optimal();
        if json {
            serde_json::to_writer(&mut out, &report)?;
            writeln!(out)?;
        } else {
            print_report(&mut out, &report, &grid)?;
        }
    }
    out.flush()?;
    Ok(if all_optimal {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_report(out: &mut impl Write, r: &ScenReport, grid: &Grid) -> io::Result<()> {
    let walkable = 100.0 * grid.walkable_count() as f64 / grid.len() as f64;
    writeln!(out, "scenario     {}", r.scen)?;
    writeln!(
        out,
        "map          {} ({} x {}, {walkable:.1}% walkable)",
        r.map,
        grid.width(),
        grid.height()
    )?;
    writeln!(out, "planner      {}", r.planner)?;
    writeln!(
        out,
        "queries      {}: {} optimal, {} mismatched, {} illegal, {} unreachable{}{}",
        r.queries,
        r.optimal,
        r.mismatched,
        r.illegal,
        r.unreachable,
        if r.budget_exhausted > 0 {
            format!(", {} over budget", r.budget_exhausted)
        } else {
            String::new()
        },
        if r.invalid > 0 {
            format!(", {} invalid", r.invalid)
        } else {
            String::new()
        },
    )?;
    writeln!(
        out,
        "time/query   mean {:.1} us, p50 {:.1} us, p99 {:.1} us, max {:.1} us",
        r.mean_us, r.p50_us, r.p99_us, r.max_us
    )?;
    writeln!(
        out,
        "expanded     {:.0} nodes per query (mean)",
        r.mean_expanded
    )?;
    writeln!(
        out,
        "length       mean {:.4} x optimal, max {:.4} x (tolerance {:e})",
        r.mean_len_ratio, r.max_len_ratio, r.tolerance
    )?;
    for f in &r.failures {
        writeln!(out, "  line {}: {}: {}", f.line, f.kind, f.detail)?;
    }
    writeln!(out)
}

fn shipped_scen_files() -> anyhow::Result<Vec<PathBuf>> {
    let dir = Path::new(SHIPPED_MAPS);
    let mut files = Vec::new();
    for sub in [dir.to_path_buf(), dir.join("mapf")] {
        let entries = std::fs::read_dir(&sub).with_context(|| {
            format!(
                "no scenario file given and the shipped maps are not at {}",
                sub.display()
            )
        })?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "scen"))
            .collect();
        found.sort();
        files.extend(found);
    }
    if files.is_empty() {
        bail!("no scenario file given and none in {}", dir.display());
    }
    Ok(files)
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
