//! Traces of simulation runs: a compact, versioned binary record of a run (the map, every
//! agent's start and goal, then one byte per live agent per tick), written while the run plays
//! and read back to replay it (`throng run --trace`, `throng view`).
//!
//! - [`TraceRecorder`] observes a [`crate::sim::Simulation`] after each tick and streams records
//!   to any `Write` (memory stays flat however long the run).
//! - [`TraceWriter`] writes the records themselves; [`TraceReader`] reads them back and keeps
//!   the replayed state (every live agent's cell and goal, the walkable cells), checking each
//!   record: a malformed file is a [`TraceError`] naming the byte offset and the record, never a
//!   panic, and counts are bounded so that a hostile file cannot make it allocate absurdly.
//!
//! The format is described in `docs/trace-format.md`; its constants are in `format.rs`.
//!
//! ```
//! use throng::grid::Grid;
//! use throng::sim::{SimConfig, Simulation};
//! use throng::trace::{TraceOptions, TraceReader, TraceRecorder};
//!
//! let grid = Grid::from_ascii("......\n.####.\n......")?;
//! let mut sim = Simulation::new(grid, SimConfig::default())?;
//! sim.add_agent(0, Some(17))?;
//! let mut recorder = TraceRecorder::new(Vec::new(), &sim, &TraceOptions::default())?;
//! for _ in 0..8 {
//!     sim.step();
//!     recorder.record(&sim)?;
//! }
//! let bytes = recorder.finish()?;
//!
//! let mut reader = TraceReader::new(&bytes[..])?;
//! while reader.next_tick()?.is_some() {}
//! assert_eq!(reader.ticks(), 8);
//! assert_eq!(reader.live()[0].cell, sim.agents().iter().next().unwrap().1.position());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod format;
mod reader;
mod recorder;
mod writer;

use std::fmt;

pub use reader::{LiveAgent, TraceReader};
pub use recorder::{TraceOptions, TraceRecorder};
pub use writer::TraceWriter;

use crate::grid::{CellId, Direction, Neighborhood};

/// The map of a trace as it was when recording began.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceMap {
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Moves allowed between cells.
    pub neighborhood: Neighborhood,
    /// One flag per cell, row by row: walkable or blocked.
    pub walkable: Vec<bool>,
}

/// One agent of a trace's agent table (the agents live when recording began). Agents are
/// numbered in order of appearance: the table's rows first, then each [`Event::Add`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceAgent {
    /// The cell it stands on.
    pub cell: CellId,
    /// Its goal, if any.
    pub goal: Option<CellId>,
    /// Its group (crowd placement), if any.
    pub group: Option<u32>,
}

/// A change recorded at the start of a tick record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A cell became walkable.
    Open(CellId),
    /// A cell became blocked.
    Block(CellId),
    /// An agent appeared; it gets the next agent number. It has no move in the record that
    /// adds it: its cell is where it stands at the end of the tick.
    Add(TraceAgent),
    /// The agent with this number left.
    Remove(u32),
}

/// How an agent's cell changed in one tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// It stayed.
    Wait,
    /// It moved one cell.
    Move(Direction),
    /// It moved to any other cell.
    Jump(CellId),
}

/// One agent's tick: its step and, when it changed, its new goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    /// Where it went.
    pub step: Step,
    /// `Some(goal)` when the goal changed this tick (`Some(None)`: it has none now).
    pub new_goal: Option<Option<CellId>>,
}

/// One tick record: its events, then one move per agent that was live before them and still
/// is, in agent-number order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TickRecord {
    /// Map changes and agents added or removed.
    pub events: Vec<Event>,
    /// The moves.
    pub moves: Vec<Move>,
}

/// The part of a trace a problem was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// The 12-byte header.
    Header,
    /// The map.
    Map,
    /// The agent table.
    Agents,
    /// The tick record with this 0-based number.
    Tick(u64),
    /// The end record.
    End,
    /// Where a record tag was expected.
    RecordTag,
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Section::Header => f.write_str("header"),
            Section::Map => f.write_str("map"),
            Section::Agents => f.write_str("agent table"),
            Section::Tick(t) => write!(f, "tick record {t}"),
            Section::End => f.write_str("end record"),
            Section::RecordTag => f.write_str("record tag"),
        }
    }
}

/// A trace that could not be read. Offsets count bytes from the start of the file; in a
/// compressed trace, from the start of the file as if its body were not compressed (the 12
/// header bytes, then the decompressed body), and the message then gives the byte of the
/// decompressed body instead (`decompressed` is set), since the file itself has no such byte.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// The file does not start with `THRTRACE`.
    #[error("not a throng trace (the file does not start with THRTRACE)")]
    BadMagic,
    /// A format version this build does not read.
    #[error("trace format version {found} is not supported (this build reads version {supported})")]
    UnsupportedVersion {
        /// The file's version.
        found: u16,
        /// The version this build reads.
        supported: u16,
    },
    /// Header flags this build does not know.
    #[error("unknown trace flags {0:#06x}")]
    UnknownFlags(u16),
    /// The file ends inside a record, or without its end record.
    #[error("trace truncated at {}, in the {section}", at_byte(*offset, *decompressed))]
    Truncated {
        /// Where the data ran out.
        offset: u64,
        /// What was being read.
        section: Section,
        /// The body is compressed: `offset` counts the header and then the decompressed body.
        decompressed: bool,
    },
    /// A value that breaks the format.
    #[error("malformed trace at {}, in the {section}: {message}", at_byte(*offset, *decompressed))]
    Malformed {
        /// Where the value starts (or the record, for a record-wide problem).
        offset: u64,
        /// What was being read.
        section: Section,
        /// What is wrong.
        message: String,
        /// The body is compressed: `offset` counts the header and then the decompressed body.
        decompressed: bool,
    },
    /// Reading or writing failed.
    #[error("trace I/O: {0}")]
    Io(#[from] std::io::Error),
}

/// Where an offset is, in words: `byte N` of the file, or of the decompressed body when the
/// body is compressed (the header's 12 bytes are not part of the body).
fn at_byte(offset: u64, decompressed: bool) -> String {
    match offset.checked_sub(format::HEADER_LEN as u64) {
        Some(body) if decompressed => format!("byte {body} of the decompressed body"),
        _ => format!("byte {offset}"),
    }
}

impl TraceError {
    /// The same error, saying that its offset is in the decompressed body when `compressed`.
    pub(crate) fn in_body(self, compressed: bool) -> TraceError {
        match self {
            TraceError::Truncated {
                offset, section, ..
            } => TraceError::Truncated {
                offset,
                section,
                decompressed: compressed,
            },
            TraceError::Malformed {
                offset,
                section,
                message,
                ..
            } => TraceError::Malformed {
                offset,
                section,
                message,
                decompressed: compressed,
            },
            other => other,
        }
    }
}

/// The trace file `bytes` with its body uncompressed (flag cleared), or `bytes` as they are when
/// not compressed. Only the header is checked; the body is not parsed.
///
/// # Errors
/// [`TraceError`] for a bad header or a body that does not decompress.
pub fn uncompressed(bytes: &[u8]) -> Result<Vec<u8>, TraceError> {
    use std::io::Read;
    if bytes.len() < format::HEADER_LEN || bytes[..8] != format::MAGIC {
        return Err(TraceError::BadMagic);
    }
    let flags = u16::from_le_bytes([bytes[10], bytes[11]]);
    if flags & format::FLAG_DEFLATE == 0 {
        return Ok(bytes.to_vec());
    }
    let mut out = bytes[..format::HEADER_LEN].to_vec();
    out[10..12].copy_from_slice(&(flags & !format::FLAG_DEFLATE).to_le_bytes());
    flate2::read::ZlibDecoder::new(&bytes[format::HEADER_LEN..])
        .read_to_end(&mut out)
        .map_err(|e| TraceError::Malformed {
            offset: out.len() as u64,
            section: Section::RecordTag,
            message: format!("compressed body: {e}"),
            decompressed: true,
        })?;
    Ok(out)
}
