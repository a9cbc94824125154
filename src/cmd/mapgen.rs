//! `throng gen`: write a procedural map and a scenario file of random queries.
//!
//! Each kind of map takes its own flags, and a flag of another kind is refused rather than
//! ignored. Everything is made and checked in memory before the first byte is written, and a
//! write that fails removes what it wrote: no half-written or stale pair of files is left.
//! An existing map or `.scen` file is not replaced without `--force` (it may be hand-written),
//! and a `.scen` left from an earlier map is removed with it, never left beside the new map.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::ValueEnum;
use throng::cli::Counted;
use throng::grid::procgen::MapGenerator;
use throng::movingai::{self, ScenFile};

use super::numbers::{count_from, fraction_below_one, whole_from};
use super::output_path::OutputFile;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum GenKind {
    Random,
    Rooms,
    Maze,
}

impl GenKind {
    fn name(self) -> String {
        self.to_possible_value()
            .map(|v| v.get_name().to_string())
            .unwrap_or_default()
    }
}

/// Defaults of the kind-specific flags.
const DEFAULT_DENSITY: f64 = 0.2;
const DEFAULT_ROOM: u32 = 31;
const DEFAULT_DOOR: u32 = 3;
const DEFAULT_CORRIDOR: u32 = 2;

/// Flags of `throng gen`.
#[derive(clap::Args)]
pub(crate) struct GenArgs {
    /// Kind of map.
    #[arg(value_enum)]
    kind: GenKind,
    /// Output map file; the scenario file is written beside it as `OUT.scen`.
    #[arg(long, short)]
    out: PathBuf,
    /// Columns, at least 1 (at most 2^28 cells in all).
    #[arg(long, default_value_t = 512, value_parser = whole_from(1u32))]
    width: u32,
    /// Rows, at least 1.
    #[arg(long, default_value_t = 512, value_parser = whole_from(1u32))]
    height: u32,
    /// Seed of the generator and of the queries.
    #[arg(long, default_value_t = 1, value_parser = whole_from(0u64))]
    seed: u64,
    /// Fraction of blocked cells, from 0 to below 1 (random maps only; default 0.2).
    #[arg(long, value_name = "F", value_parser = fraction_below_one)]
    density: Option<f64>,
    /// Inside size of a room, at least 1 (rooms maps only; default 31).
    #[arg(long, value_name = "N", value_parser = whole_from(1u32))]
    room: Option<u32>,
    /// Door width, from 1 to the room size (rooms maps only; default 3, or the room size when
    /// that is smaller).
    #[arg(long, value_name = "N", value_parser = whole_from(1u32))]
    door: Option<u32>,
    /// Corridor width, at least 1 (maze maps only; default 2).
    #[arg(long, value_name = "N", value_parser = whole_from(1u32))]
    corridor: Option<u32>,
    /// Scenario queries to write (0: no scenario file).
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = count_from(0))]
    queries: usize,
    /// Replace an existing --out map and its .scen file (with --queries 0, the old .scen is
    /// removed: its queries were for the old map).
    #[arg(long)]
    force: bool,
}

/// Runs `throng gen`.
pub(crate) fn run(args: GenArgs) -> anyhow::Result<ExitCode> {
    let generator = generator(&args)?;
    let GenArgs {
        out,
        seed,
        queries,
        force,
        ..
    } = args;
    let scen_path = scen_path(&out);
    let stale_scen = refuse_existing(&out, &scen_path, queries, force)?;
    let mut map_file = OutputFile::reserve("--out", &out)?;
    let mut scen_file = if queries > 0 {
        Some(OutputFile::reserve("--out's .scen file", &scen_path)?)
    } else {
        None
    };
    // Made and checked whole before anything is written: a map with no walkable cell fails
    // here, not after its file exists.
    let grid = generator.generate(seed)?;
    let scen = if queries > 0 {
        let name = out
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Some(ScenFile::generate(&grid, &name, queries, seed).context("cannot make the queries")?)
    } else {
        None
    };
    // The pair is written whole or not at all: both complete before either is put in place.
    map_file.fill(|w| movingai::write_map_to(&grid, w))?;
    if let (Some(scen), Some(file)) = (&scen, &mut scen_file) {
        file.fill(|w| w.write_all(scen.to_text().as_bytes()))?;
    }
    map_file.commit()?;
    if let Some(file) = scen_file {
        file.commit()?;
    }
    if stale_scen {
        std::fs::remove_file(&scen_path).with_context(|| {
            format!(
                "{}: cannot remove the .scen file of the map replaced",
                scen_path.display()
            )
        })?;
    }
    let mut stdout = io::stdout().lock();
    writeln!(
        stdout,
        "wrote {} ({} x {}, {}, {})",
        out.display(),
        grid.width(),
        grid.height(),
        Counted(grid.walkable_count() as u64, "walkable cell"),
        Counted(grid.components().count() as u64, "component")
    )?;
    if scen.is_some() {
        writeln!(
            stdout,
            "wrote {} ({})",
            scen_path.display(),
            Counted(queries as u64, "query")
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses to replace an existing map or `.scen` file without `--force`. Returns whether a
/// `.scen` file of the map replaced must be removed (`--force --queries 0`).
fn refuse_existing(out: &Path, scen: &Path, queries: usize, force: bool) -> anyhow::Result<bool> {
    // A folder in the way is refused as an output path, later, in the words of every command.
    let exists = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| !m.is_dir());
    if force {
        return Ok(queries == 0 && std::fs::metadata(scen).is_ok_and(|m| m.is_file()));
    }
    if exists(out) {
        bail!(
            "--out {}: the file exists; gen does not replace it (give --force to)",
            out.display()
        );
    }
    if exists(scen) {
        let why = if queries == 0 {
            "it would be left beside a new map it was not made for"
        } else {
            "gen does not replace it"
        };
        bail!(
            "--out {}: {} exists; {why} (remove it, or give --force)",
            out.display(),
            scen.display()
        );
    }
    Ok(false)
}

/// The generator the flags ask for; a flag of another kind of map is an error.
fn generator(args: &GenArgs) -> anyhow::Result<MapGenerator> {
    let kind = args.kind;
    for (flag, given, applies) in [
        ("--density", args.density.is_some(), GenKind::Random),
        ("--room", args.room.is_some(), GenKind::Rooms),
        ("--door", args.door.is_some(), GenKind::Rooms),
        ("--corridor", args.corridor.is_some(), GenKind::Maze),
    ] {
        if given && kind != applies {
            bail!(
                "{flag} applies to {} maps only, not {} maps",
                applies.name(),
                kind.name()
            );
        }
    }
    let (width, height) = (args.width, args.height);
    Ok(match kind {
        GenKind::Random => MapGenerator::Random {
            width,
            height,
            density: args.density.unwrap_or(DEFAULT_DENSITY),
        },
        GenKind::Rooms => {
            let room = args.room.unwrap_or(DEFAULT_ROOM);
            let door = args.door.unwrap_or(DEFAULT_DOOR.min(room));
            if door > room {
                bail!("--door {door}: must be at most the room size ({room})");
            }
            MapGenerator::Rooms {
                width,
                height,
                room,
                door,
            }
        }
        GenKind::Maze => MapGenerator::Maze {
            width,
            height,
            corridor: args.corridor.unwrap_or(DEFAULT_CORRIDOR),
        },
    })
}

/// `OUT.scen`, beside the map.
fn scen_path(out: &Path) -> PathBuf {
    let mut path = out.as_os_str().to_owned();
    path.push(".scen");
    PathBuf::from(path)
}
