//! `throng run --paths FILE`: every agent's cell at every tick, as text for pandas or a
//! spreadsheet, read off the simulation's agent positions after each tick.
//!
//! Two formats, chosen by the file's extension:
//! - `FILE.csv`: a long table, header `agent,tick,x,y`, one row per agent per tick, in tick
//!   order (every agent's row for tick 0, then tick 1, ...). Streamed as the run goes: memory
//!   stays flat whatever the run's size (10,000 agents x 700 ticks: 7 M rows, about 120 MB).
//!   `pandas.read_csv(FILE)` gives the table; `.pivot(index="tick", columns="agent")` the
//!   positions by tick.
//! - `FILE.jsonl`: one JSON object per agent, `{"agent":0,"goal_x":..,"goal_y":..,
//!   "arrived_at":..,"x":[..],"y":[..]}`, `x[t]` and `y[t]` its cell after `t` ticks.
//!   `pandas.read_json(FILE, lines=True)` gives one row per agent, and `.explode(["x", "y"])`
//!   the long table. Lines are by agent, so the cells are kept until the run ends: 4 bytes per
//!   agent per tick (28 MB for 10,000 agents x 700 ticks); each line is written straight to
//!   the file, never built whole in memory.
//!
//! Tick `t` is where the agent stands after `t` ticks (tick 0: its start), as
//! [`Simulation::tick`](throng::sim::Simulation::tick) counts them. Agent `k` is the `k`-th
//! agent placed (line `k` of the `.scen` file of a `scen` placement). The file is written
//! whole or not at all (see [`OutputFile`]), reserved before the run.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use throng::grid::{CellId, NO_CELL};
use throng::sim::{AgentState, Simulation};

use crate::cmd::output_path::{OutputFile, ReadyOutputs, StreamedFile};

/// The formats of `--paths`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PathsFormat {
    /// `agent,tick,x,y` rows.
    Csv,
    /// One JSON object per agent.
    Jsonl,
}

/// The format of a `--paths` file by its extension (`.csv`, `.jsonl`), `None` for another.
pub(super) fn paths_format(file: &Path) -> Option<PathsFormat> {
    let ext = file.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "csv" => Some(PathsFormat::Csv),
        "jsonl" => Some(PathsFormat::Jsonl),
        _ => None,
    }
}

/// What `--paths` wrote.
pub(super) struct PathsStats {
    /// Agents written.
    pub(super) agents: usize,
    /// Ticks written per agent (the start and every tick played).
    pub(super) ticks: u64,
    /// Bytes of the file.
    pub(super) bytes: u64,
}

/// The `--paths` file of one run, written as it plays.
pub(super) struct PathsRecorder {
    file: PathBuf,
    format: PathsFormat,
    out: StreamedFile,
    /// JSONL: every slot's cell, tick after tick (`ticks x slots`).
    cells: Vec<CellId>,
    slots: usize,
    ticks: u64,
}

impl PathsRecorder {
    /// Starts the reserved file `to` with the agents' starts (tick 0).
    pub(super) fn new(to: OutputFile, sim: &Simulation) -> anyhow::Result<PathsRecorder> {
        let file = to.path().to_path_buf();
        let format = paths_format(&file).expect("checked before the run");
        let mut out = StreamedFile::new(to);
        if format == PathsFormat::Csv {
            writeln!(out, "agent,tick,x,y")
                .with_context(|| format!("writing {}", file.display()))?;
        }
        let mut recorder = PathsRecorder {
            file,
            format,
            out,
            cells: Vec::new(),
            slots: sim.slot_positions().len(),
            ticks: 0,
        };
        recorder.record(sim)?;
        Ok(recorder)
    }

    /// Records where every agent stands now (call after each tick).
    pub(super) fn record(&mut self, sim: &Simulation) -> anyhow::Result<()> {
        let positions = sim.slot_positions();
        match self.format {
            PathsFormat::Csv => {
                let grid = sim.grid();
                let tick = sim.tick();
                for (slot, &cell) in positions.iter().enumerate() {
                    if cell == NO_CELL {
                        continue;
                    }
                    let (x, y) = grid.coords(cell);
                    writeln!(self.out, "{slot},{tick},{x},{y}")
                        .with_context(|| format!("writing {}", self.file.display()))?;
                }
            }
            PathsFormat::Jsonl => {
                // A run adds no agent: every tick has the slots of the first.
                self.cells
                    .extend((0..self.slots).map(|s| positions.get(s).copied().unwrap_or(NO_CELL)));
            }
        }
        self.ticks += 1;
        Ok(())
    }

    /// Writes what is left (the JSONL lines) and adds the file to `ready`.
    pub(super) fn finish(
        mut self,
        sim: &Simulation,
        ready: &mut ReadyOutputs,
    ) -> anyhow::Result<PathsStats> {
        if self.format == PathsFormat::Jsonl {
            self.write_jsonl(sim)
                .with_context(|| format!("writing {}", self.file.display()))?;
        }
        let agents = sim
            .slot_positions()
            .iter()
            .filter(|&&c| c != NO_CELL)
            .count();
        let ticks = self.ticks;
        let file = self.out.finish()?;
        let bytes = file.len();
        ready.add(file);
        Ok(PathsStats {
            agents,
            ticks,
            bytes,
        })
    }

    fn write_jsonl(&mut self, sim: &Simulation) -> std::io::Result<()> {
        let grid = sim.grid();
        let ticks = self.ticks as usize;
        for slot in 0..self.slots {
            let Some(agent) = sim.agents().id_at(slot as u32).and_then(|id| sim.agent(id)) else {
                continue;
            };
            let out = &mut self.out;
            write!(out, "{{\"agent\":{slot},")?;
            match agent.goal() {
                Some(goal) => {
                    let (gx, gy) = grid.coords(goal);
                    write!(out, "\"goal_x\":{gx},\"goal_y\":{gy},")?;
                }
                None => write!(out, "\"goal_x\":null,\"goal_y\":null,")?,
            }
            match agent.arrived_at() {
                Some(t) if agent.state() == AgentState::Arrived => {
                    write!(out, "\"arrived_at\":{t},")?;
                }
                _ => write!(out, "\"arrived_at\":null,")?,
            }
            for (key, axis) in [("x", 0), ("y", 1)] {
                write!(out, "\"{key}\":[")?;
                for t in 0..ticks {
                    if t > 0 {
                        out.write_all(b",")?;
                    }
                    match self.cells[t * self.slots + slot] {
                        NO_CELL => out.write_all(b"null")?,
                        cell => {
                            let (x, y) = grid.coords(cell);
                            write!(out, "{}", if axis == 0 { x } else { y })?;
                        }
                    }
                }
                out.write_all(if axis == 0 { b"]," } else { b"]}\n" })?;
            }
        }
        Ok(())
    }
}
