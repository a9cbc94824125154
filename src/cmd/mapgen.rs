//! `throng gen`: write a procedural map and a scenario file of random queries.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use throng::grid::procgen::MapGenerator;
use throng::movingai::{self, ScenFile};

#[derive(Clone, Copy, clap::ValueEnum)]
enum GenKind {
    Random,
    Rooms,
    Maze,
}

fn generate(
    generator: &MapGenerator,
    seed: u64,
    out: &Path,
    queries: usize,
) -> anyhow::Result<ExitCode> {
    let grid = generator.generate(seed)?;
    let write = || -> io::Result<()> {
        let mut file = io::BufWriter::new(std::fs::File::create(out)?);
        movingai::write_map_to(&grid, &mut file)?;
        file.flush()
    };
    write().with_context(|| format!("writing {}", out.display()))?;
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

/// Flags of `throng gen`.
#[derive(clap::Args)]
pub(crate) struct GenArgs {
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
}

/// Runs `throng gen`.
pub(crate) fn run(args: GenArgs) -> anyhow::Result<ExitCode> {
    let GenArgs {
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
    } = args;
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
