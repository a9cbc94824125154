//! `throng nav`: prepare a map's navigation points once and save them.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use throng::grid::Grid;
use throng::movingai::{self};
use throng::nav::{NavGraph, NavOptions};

use super::file_kind::{self, FileKind};
use super::numbers::whole_from;
use super::output_path::OutputFile;
use super::output_path::check_distinct;

/// Builds the navigation points of `grid`; returns them with the build time in milliseconds.
pub(crate) fn build_nav(grid: &Grid, cluster: u32) -> throng::error::Result<(NavGraph, f64)> {
    let t0 = Instant::now();
    let options = NavOptions {
        cluster_size: cluster,
    };
    let nav = NavGraph::build(grid, &options)?;
    Ok((nav, t0.elapsed().as_secs_f64() * 1e3))
}

/// Flags of `throng nav`.
#[derive(clap::Args)]
pub(crate) struct NavArgs {
    /// The `.map` file.
    map: PathBuf,
    /// Output file (its path is checked before the points are built).
    #[arg(long, short)]
    out: PathBuf,
    /// Cluster side in cells, at least 4.
    #[arg(long, value_name = "N", default_value_t = NavOptions::DEFAULT_CLUSTER_SIZE,
          value_parser = whole_from(NavOptions::MIN_CLUSTER_SIZE))]
    cluster: u32,
}

/// Runs `throng nav`.
pub(crate) fn run(args: NavArgs) -> anyhow::Result<ExitCode> {
    prepare_nav(&args.map, &args.out, args.cluster)
}

fn prepare_nav(map: &Path, out: &Path, cluster: u32) -> anyhow::Result<ExitCode> {
    check_distinct(&[("--out", out)], &[("the map", map)])?;
    let mut file = OutputFile::reserve("--out", out)?;
    file_kind::expect(map, FileKind::Map)?;
    let grid = movingai::load_map(map)?;
    let (nav, build_ms) = build_nav(&grid, cluster)?;
    file.fill(|w| nav.write_to(w))?;
    let bytes = file.len();
    file.commit()?;
    writeln!(
        io::stdout().lock(),
        "wrote {} ({} points, {} edges, clusters of {cluster}; built in {build_ms:.1} ms on {} threads, {:.1} MiB in memory, {:.1} MiB on disk)",
        out.display(),
        nav.node_count(),
        nav.edge_count(),
        rayon::current_num_threads(),
        nav.memory_bytes() as f64 / (1 << 20) as f64,
        bytes as f64 / (1 << 20) as f64,
    )?;
    if nav.uses_jump_table() {
        writeln!(
            io::stdout().lock(),
            "jump table for the direct searches: {:.1} MiB in memory, built again on load",
            grid.prepare_jump_table() as f64 / (1 << 20) as f64
        )?;
    }
    if nav.searches_directly() {
        writeln!(
            io::stdout().lock(),
            "long trips take few jump points on this map: the graph answers every query by a direct JPS+ search"
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
