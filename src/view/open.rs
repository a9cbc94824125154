//! Reading any file `throng view` replays into a [`Replay`]: its kind told by
//! `sniff`, the file read and checked whole by its reader, its map found.

use std::path::Path;

use super::lorr_file::{LorrOutput, map_needed};
use super::plan_file::{PlanFile, map_not_found};
use super::replay::{Replay, ReplayKind, ReplayWriter};
use super::sniff::sniff;
use crate::error::{Error, ParseError, Result};
use crate::grid::{CellId, Neighborhood};
use crate::lorr::Problem;
use crate::movingai::{MapOptions, load_map, load_map_with};
use crate::trace::{TraceMap, TraceReader};

/// Where the map of a file that does not hold one comes from (`throng view --map`,
/// `--problem`). A trace holds its map; a plan names its map file; a LoRR output needs one of
/// the two.
#[derive(Debug, Clone, Copy, Default)]
pub struct MapSource<'a> {
    /// A Moving AI map: a plan's map in place of the one it names, or a LoRR output's.
    pub map: Option<&'a Path>,
    /// A LoRR problem JSON: the map of the output, and the starts it must have.
    pub problem: Option<&'a Path>,
}

/// Reads `file` (a trace, a MAPF plan or a LoRR output), checks it whole and makes the replay
/// the page shows.
///
/// # Errors
/// [`Error::Io`] when a file cannot be read; [`Error::Invalid`] for a file of another kind
/// (saying what it is), a flag that does not apply to the kind, or a LoRR output without its
/// map; [`Error::Parse`] (file and line, or the trace's byte offset) for a damaged file; the
/// map's own errors.
pub fn open(file: &Path, source: MapSource<'_>) -> Result<Replay> {
    let bytes = crate::input::read_bytes(file, crate::input::Input::Replay)?;
    let name = file.display().to_string();
    let kind = sniff(&bytes).map_err(|what| {
        let hint = match what {
            "a League of Robot Runners problem" => format!(
                ": play it with `throng lorr {name} --out OUT.json`, then view OUT.json \
                 --problem {name}"
            ),
            _ => String::new(),
        };
        Error::Invalid(format!(
            "{name} is {what}, not a trace, plan or LoRR output{hint}"
        ))
    })?;
    let refuse = |flag: &str, why: &str| Err(Error::Invalid(format!("{flag} {why}")));
    match kind {
        ReplayKind::Trace => {
            if source.map.is_some() {
                return refuse("--map", "does not apply to a trace: it holds its map");
            }
            if source.problem.is_some() {
                return refuse("--problem", "applies to a LoRR output, not to a trace");
            }
            open_trace(bytes, &name)
        }
        ReplayKind::MapfPlan => {
            if source.problem.is_some() {
                return refuse(
                    "--problem",
                    "applies to a LoRR output, not to a plan (give --map for another map)",
                );
            }
            let text = String::from_utf8(bytes).map_err(|e| {
                Error::Parse(ParseError::whole(
                    &name,
                    format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
                ))
            })?;
            open_plan(&text, file, source.map)
        }
        ReplayKind::LorrOutput => {
            let text = String::from_utf8(bytes).map_err(|e| {
                Error::Parse(ParseError::whole(
                    &name,
                    format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
                ))
            })?;
            let output = LorrOutput::parse(text, &name)?;
            let (grid, starts, map_name): (_, Option<Vec<CellId>>, _) =
                match (source.map, source.problem) {
                    (_, Some(problem)) => {
                        let p = Problem::load(problem)?;
                        (
                            p.grid,
                            Some(p.starts),
                            format!("map of {}", problem.display()),
                        )
                    }
                    (Some(map), None) => {
                        let options = MapOptions {
                            neighborhood: Neighborhood::Four,
                            ..MapOptions::default()
                        };
                        (
                            load_map_with(map, &options)?,
                            None,
                            format!("map {}", map.display()),
                        )
                    }
                    (None, None) => return Err(map_needed(file)),
                };
            let streams = output.replay(&grid, &map_name, starts.as_deref())?;
            Ok(Replay {
                kind,
                trace: streams.trace,
                headings: streams.headings,
                width: grid.width(),
                height: grid.height(),
                agents: output.starts.len(),
                ticks: streams.ticks,
                about: format!("LoRR output {name} ({map_name})"),
            })
        }
    }
}

/// A trace, read to its end record.
fn open_trace(bytes: Vec<u8>, name: &str) -> Result<Replay> {
    let bad = |e: crate::trace::TraceError| Error::Parse(ParseError::whole(name, e.to_string()));
    let mut reader = TraceReader::new(&bytes[..]).map_err(bad)?;
    while reader.next_tick().map_err(bad)?.is_some() {}
    let (width, height) = (reader.map().width, reader.map().height);
    let (agents, ticks) = (reader.agents().len(), reader.ticks());
    drop(reader);
    Ok(Replay {
        kind: ReplayKind::Trace,
        trace: bytes,
        headings: None,
        width,
        height,
        agents,
        ticks,
        about: format!("trace {name}"),
    })
}

/// A plan on its map (`map`, else the one it names).
fn open_plan(text: &str, file: &Path, map: Option<&Path>) -> Result<Replay> {
    let plan = PlanFile::parse(text, &file.display().to_string())?;
    let map_path = match map {
        Some(m) => m.to_path_buf(),
        None => plan
            .find_map(file)
            .ok_or_else(|| map_not_found(&plan, file))?,
    };
    let map_name = map_path.display().to_string();
    let grid = load_map(&map_path)?;
    let on_grid = plan.on_grid(&grid, &map_name)?;
    let trace_map = TraceMap {
        width: grid.width(),
        height: grid.height(),
        neighborhood: on_grid.neighborhood,
        walkable: (0..grid.len() as CellId)
            .map(|c| grid.is_walkable(c))
            .collect(),
    };
    let goals: Vec<Option<CellId>> = match &on_grid.goals {
        Some(g) => g.iter().copied().map(Some).collect(),
        None => vec![None; plan.agents],
    };
    let mut writer = ReplayWriter::new(&trace_map, &on_grid.configs[0], &goals, None);
    for config in &on_grid.configs[1..] {
        writer.tick(config, &goals, None);
    }
    let streams = writer.finish();
    Ok(Replay {
        kind: ReplayKind::MapfPlan,
        trace: streams.trace,
        headings: None,
        width: grid.width(),
        height: grid.height(),
        agents: plan.agents,
        ticks: streams.ticks,
        about: format!("mapf plan {} (map {map_name})", file.display()),
    })
}
