//! `throng scen`: run every query of Moving AI scenario files and judge each path.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use super::scen_run::{ScenReport, ScenRunOptions, run_scen, run_scen_with_nav};
use anyhow::{Context, bail};
use throng::grid::Grid;
use throng::movingai::{self, ScenFile};
use throng::nav::{NavGraph, NavOptions};
use throng::planner::PlannerKind;

use super::file_kind::{self, FileKind};
use super::nav::build_nav;
use super::numbers::whole_from;

/// Where the maps shipped with throng live in the source tree the binary was built from (used
/// when no file is given). Only a path: the `.scen` files and their maps are megabytes, too much
/// to build into the binary, so an installed binary whose source tree is gone says so instead.
const SHIPPED_MAPS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sims/maps");

#[derive(clap::Args)]
pub(crate) struct ScenArgs {
    /// `.map.scen` files (default: every one in sims/maps and sims/maps/mapf of the source tree
    /// the binary was built from; when that tree is not there, as for an installed binary whose
    /// clone was moved, it says to pass files and exits 2).
    files: Vec<PathBuf>,
    /// The map to use, with one scenario file (default: the map named in the file, beside the
    /// scenario file). A file whose queries are for a map of another size is refused; one that
    /// names another map of the same size runs, with a warning.
    #[arg(long)]
    map: Option<PathBuf>,
    /// Print one JSON object per scenario file on stdout instead of the table.
    #[arg(long)]
    json: bool,
    /// Planner to run: astar, jps, jps+, nav, auto or dstar.
    #[arg(long, default_value = "astar", value_parser = parse_planner)]
    planner: PlannerKind,
    /// Stop a query after this many node expansions, at least 1 (it then counts as over
    /// budget, a failure, and has no length ratio).
    #[arg(long, value_name = "N", value_parser = whole_from(1u64))]
    budget: Option<u64>,
    /// Navigation points saved by `throng nav` (nav and auto planners only, not with --cluster;
    /// default: build them).
    #[arg(long)]
    nav_file: Option<PathBuf>,
    /// Cluster side when building navigation points, at least 4 (nav and auto planners only, not
    /// with --nav-file; default 32; a cluster at least as large as the map gives no points:
    /// every query is then searched directly).
    #[arg(long, value_name = "N", value_parser = whole_from(NavOptions::MIN_CLUSTER_SIZE))]
    cluster: Option<u32>,
    /// Answer every query once, untimed, before the timed pass: times of a warm process, as
    /// benchmark programs that repeat their queries report them (default: one pass, whose first
    /// queries pay for cold caches).
    #[arg(long)]
    warm_up: bool,
}

pub(crate) fn parse_planner(s: &str) -> Result<PlannerKind, String> {
    s.parse().map_err(|e: throng::error::Error| e.to_string())
}

pub(crate) fn scen(args: ScenArgs) -> anyhow::Result<ExitCode> {
    let ScenArgs {
        files,
        map,
        json,
        planner,
        budget,
        nav_file,
        cluster,
        warm_up,
    } = args;
    // Flags that only the navigation-point planners read are refused with the others rather
    // than ignored (a garbage --nav-file with --planner astar used to "work").
    if !planner.uses_nav() {
        if nav_file.is_some() {
            bail!("--nav-file is read only by --planner nav or auto, not {planner}");
        }
        if cluster.is_some() {
            bail!("--cluster is used only by --planner nav or auto, not {planner}");
        }
    }
    if nav_file.is_some() && cluster.is_some() {
        bail!("--cluster builds navigation points; --nav-file loads them: give one");
    }
    let cluster = cluster.unwrap_or(NavOptions::DEFAULT_CLUSTER_SIZE);
    let files = if files.is_empty() {
        shipped_scen_files(Path::new(SHIPPED_MAPS))?
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
        warm_up,
    };
    let mut all_optimal = true;
    let mut out = io::stdout().lock();
    if let Some(m) = &map {
        file_kind::expect(m, FileKind::Map)?;
    }
    if let Some(n) = &nav_file {
        file_kind::expect(n, FileKind::NavPoints)?;
    }
    for file in &files {
        file_kind::expect(file, FileKind::Scen)?;
        let scen = ScenFile::load(file)?;
        let map_path = match &map {
            Some(m) => m.clone(),
            None => scen.map_path()?,
        };
        let grid = movingai::load_map(&map_path)?;
        // Without --map the map is the one the file names, so only its size can differ.
        if let Some(other) = scen.check_map(Some(&map_path), &grid)? {
            eprintln!("throng: warning: {other}");
        }
        let mut report = if !planner.uses_nav() {
            run_scen(&grid, &scen, &options)?
        } else if let Some(path) = &nav_file {
            let t0 = Instant::now();
            let nav = NavGraph::load(path, &grid)?;
            let load_ms = t0.elapsed().as_secs_f64() * 1e3;
            let mut report = run_scen_with_nav(&grid, &scen, &options, Some(&nav))?;
            report.nav_load_ms = Some(load_ms);
            report
        } else {
            let (nav, build_ms) = build_nav(&grid, cluster)?;
            let mut report = run_scen_with_nav(&grid, &scen, &options, Some(&nav))?;
            report.nav_build_ms = Some(build_ms);
            report
        };
        report.map = map_path.display().to_string();
        all_optimal &= report.passed();
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
    let answered = r.optimal + r.mismatched;
    match (r.mean_len_ratio, r.max_len_ratio) {
        (Some(mean), Some(max)) => writeln!(
            out,
            "length       mean {mean:.4} x optimal, max {max:.4} x (tolerance {:e}){}",
            r.tolerance,
            if answered < r.queries {
                format!(", over the {answered} queries answered")
            } else {
                String::new()
            }
        )?,
        _ => writeln!(
            out,
            "length       no ratio: no query answered with a path of positive length"
        )?,
    }
    if let Some(bytes) = r.nav_memory_bytes {
        let how = match (r.nav_build_ms, r.nav_load_ms) {
            (_, Some(ms)) => format!("loaded in {}", millis(ms)),
            (Some(ms), None) => format!("built in {}", millis(ms)),
            (None, None) => "given".to_string(),
        };
        let direct = if r.nav_direct == Some(true) {
            "; every query searched directly by JPS+ (long trips take few jump points here)"
        } else {
            ""
        };
        writeln!(
            out,
            "nav graph    {} points, {how}, {}{direct}",
            r.nav_points.unwrap_or(0),
            size(bytes)
        )?;
    }
    if let Some(bytes) = r.jump_table_bytes {
        let how = match r.jump_table_ms {
            Some(ms) => format!("built in {}", millis(ms)),
            None if r.nav_memory_bytes.is_some() => "built with the nav graph".to_string(),
            None => "given".to_string(),
        };
        writeln!(out, "jump table   {how}, {}", size(bytes))?;
    }
    for f in &r.failures {
        writeln!(out, "  line {}: {}: {}", f.line, f.kind, f.detail)?;
    }
    if r.failed > r.failures.len() {
        writeln!(
            out,
            "  ... and {} more failing queries (--json counts them all)",
            r.failed - r.failures.len()
        )?;
    }
    writeln!(out)
}

/// The `.scen` files in `dir` and `dir/mapf`, sorted: the shipped ones when `dir` is
/// [`SHIPPED_MAPS`]. A missing `dir` is one clear error line, not an I/O error.
fn shipped_scen_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if !dir.is_dir() {
        bail!(
            "no scenario file given, and the shipped ones are not at {} (the source tree this \
             binary was built from has moved or is gone): pass .map.scen files, e.g. \
             `throng scen path/to/arena.map.scen`",
            dir.display()
        );
    }
    let mut files = Vec::new();
    for sub in [dir.to_path_buf(), dir.join("mapf")] {
        if !sub.is_dir() {
            continue;
        }
        let entries = std::fs::read_dir(&sub)
            .with_context(|| format!("cannot list the shipped maps in {}", sub.display()))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "scen"))
            .collect();
        found.sort();
        files.extend(found);
    }
    if files.is_empty() {
        bail!(
            "no scenario file given and no .scen file in {}: pass .map.scen files",
            dir.display()
        );
    }
    Ok(files)
}

/// Bytes in MiB, or KiB below one MiB (small maps' tables and graphs).
fn size(bytes: usize) -> String {
    if bytes < 1 << 20 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    }
}

/// Milliseconds with enough digits to tell small figures from zero.
fn millis(ms: f64) -> String {
    if ms < 1.0 {
        format!("{ms:.3} ms")
    } else {
        format!("{ms:.1} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_files_are_found_in_the_source_tree() {
        let files = shipped_scen_files(Path::new(SHIPPED_MAPS)).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert!(names.contains(&"arena.map.scen".to_string()), "{names:?}");
        assert!(
            names.contains(&"maze-32-32-2-random-5.scen".to_string()),
            "{names:?}"
        );
        assert!(files.iter().all(|f| f.is_file()));
    }

    #[test]
    fn absent_shipped_files_say_to_pass_files_in_one_line() {
        let gone = tempfile::tempdir().unwrap();
        let dir = gone.path().join("sims/maps");
        let e = shipped_scen_files(&dir).unwrap_err().to_string();
        assert!(!e.contains('\n'), "{e}");
        assert!(e.contains(&dir.display().to_string()), "{e}");
        assert!(e.contains("pass .map.scen files"), "{e}");
        // A folder without .scen files is an error too, not an empty run that passes.
        std::fs::create_dir_all(&dir).unwrap();
        let e = shipped_scen_files(&dir).unwrap_err().to_string();
        assert!(e.contains("no .scen file"), "{e}");
    }
}
