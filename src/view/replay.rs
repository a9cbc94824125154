//! The replay the page shows, whatever file it came from: a trace ([`crate::trace`]) and,
//! for robots that turn, a side stream of headings.
//!
//! A MAPF plan or a LoRR output is read and checked by its own reader, which then hands
//! [`ReplayWriter`] every agent's cell (and goal, and heading) tick by tick; the writer turns
//! them into the trace records `throng run --trace` writes, so that the page, its checks and
//! its tests have one input format. Headings are not part of the trace format: they go in a
//! stream of their own, served at `/headings` ([`ReplayStreams::headings`]).

use crate::grid::{CellId, Direction};
use crate::sim::Heading;
use crate::trace::format::{self, MOVE_FIRST_DIRECTION, MOVE_WAIT, put_varint};
use crate::trace::{Move, Step, TickRecord, TraceAgent, TraceMap, TraceWriter};

/// What a file read by `throng view` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayKind {
    /// A trace of `throng run --trace`.
    Trace,
    /// A MAPF plan (LaCAM's result format, `throng mapf --out`).
    MapfPlan,
    /// A League of Robot Runners output JSON (`throng lorr --out`).
    LorrOutput,
}

impl ReplayKind {
    /// The kind in words, as the command's summary line starts.
    pub fn name(self) -> &'static str {
        match self {
            ReplayKind::Trace => "trace",
            ReplayKind::MapfPlan => "mapf plan",
            ReplayKind::LorrOutput => "LoRR output",
        }
    }
}

/// A file ready to be served: a checked trace and, for robots that turn, their headings.
#[derive(Debug, Clone)]
pub struct Replay {
    /// What the file was.
    pub kind: ReplayKind,
    /// A trace (compressed or not).
    pub trace: Vec<u8>,
    /// The headings stream (see [`ReplayStreams::headings`]), for robots that turn.
    pub headings: Option<Vec<u8>>,
    /// Map columns.
    pub width: u32,
    /// Map rows.
    pub height: u32,
    /// Agents at tick 0.
    pub agents: usize,
    /// Ticks after tick 0.
    pub ticks: u64,
    /// What the page says it shows: the file, its kind and, for a plan or LoRR output, its
    /// map.
    pub about: String,
}

impl Replay {
    /// One line for the terminal: the kind, the file, the map size, agents and ticks.
    pub fn summary(&self) -> String {
        format!(
            "{}: {} x {} map, {} agents{}, {} ticks",
            self.about,
            self.width,
            self.height,
            self.agents,
            if self.kind == ReplayKind::Trace {
                " at the start"
            } else {
                ""
            },
            self.ticks
        )
    }
}

/// What a [`ReplayWriter`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayStreams {
    /// The trace, uncompressed.
    pub trace: Vec<u8>,
    /// The headings stream, when the agents turn. Headings are not part of the trace format:
    /// they go in this stream of their own, served at `/headings`:
    ///
    /// - one byte per agent: its heading at tick 0 (0 east, 1 south, 2 west, 3 north, the
    ///   numbering of [`Heading`]);
    /// - then, per tick, a varint count of the agents that turned in that tick, and for each
    ///   its agent number (varint) and its new heading (one byte).
    pub headings: Option<Vec<u8>>,
    /// Ticks after tick 0.
    pub ticks: u64,
}

/// Writes a replay from every agent's cell, goal and heading at each tick (a fixed set of
/// agents, numbered by their index). Cells must be on the map and each move one step of the
/// map's neighbourhood, or a wait: the readers check that first (any other change of cell
/// would be written as a jump).
pub struct ReplayWriter {
    writer: TraceWriter<Vec<u8>>,
    width: u32,
    cells: Vec<CellId>,
    goals: Vec<Option<CellId>>,
    headings: Option<(Vec<Heading>, Vec<u8>)>,
    tick: TickRecord,
    turned: Vec<(u32, Heading)>,
}

impl ReplayWriter {
    /// Starts a replay of `map` with agents on `cells` heading for `goals` (as long as
    /// `cells`), facing `headings` when they turn (robots), uncompressed.
    ///
    /// # Panics
    /// When `goals` or `headings` do not have one entry per agent, or the map's cells do not
    /// match its size (callers build both from checked files).
    pub fn new(
        map: &TraceMap,
        cells: &[CellId],
        goals: &[Option<CellId>],
        headings: Option<&[Heading]>,
    ) -> ReplayWriter {
        assert_eq!(cells.len(), goals.len(), "a goal per agent");
        let agents: Vec<TraceAgent> = cells
            .iter()
            .zip(goals)
            .map(|(&cell, &goal)| TraceAgent {
                cell,
                goal,
                group: None,
            })
            .collect();
        let writer = TraceWriter::new(Vec::new(), false, map, &agents)
            .expect("a trace in memory of a checked map");
        let headings = headings.map(|h| {
            assert_eq!(h.len(), cells.len(), "a heading per agent");
            let stream = h.iter().map(|h| h.index() as u8).collect();
            (h.to_vec(), stream)
        });
        ReplayWriter {
            writer,
            width: map.width,
            cells: cells.to_vec(),
            goals: goals.to_vec(),
            headings,
            tick: TickRecord::default(),
            turned: Vec::new(),
        }
    }

    /// Records one tick: where every agent stands at its end, its goal and its heading.
    ///
    /// # Panics
    /// When a slice does not have one entry per agent, or headings are given to a replay
    /// started without them (or the reverse).
    pub fn tick(
        &mut self,
        cells: &[CellId],
        goals: &[Option<CellId>],
        headings: Option<&[Heading]>,
    ) {
        assert!(cells.len() == self.cells.len() && goals.len() == self.cells.len());
        self.tick.moves.clear();
        for (a, (&to, &goal)) in cells.iter().zip(goals).enumerate() {
            let from = self.cells[a];
            let step = match format::step_code(self.width, from, to) {
                Some(MOVE_WAIT) => Step::Wait,
                Some(code) => Step::Move(Direction::ALL[usize::from(code - MOVE_FIRST_DIRECTION)]),
                None => Step::Jump(to),
            };
            let new_goal = (goal != self.goals[a]).then_some(goal);
            self.tick.moves.push(Move { step, new_goal });
        }
        self.cells.copy_from_slice(cells);
        self.goals.copy_from_slice(goals);
        self.writer
            .write_tick(&self.tick)
            .expect("writing to memory does not fail");
        match (&mut self.headings, headings) {
            (Some((now, stream)), Some(next)) => {
                assert_eq!(next.len(), now.len(), "a heading per agent");
                self.turned.clear();
                for (a, (old, &new)) in now.iter_mut().zip(next).enumerate() {
                    if *old != new {
                        *old = new;
                        self.turned.push((a as u32, new));
                    }
                }
                put_varint(stream, self.turned.len() as u64);
                for &(a, h) in &self.turned {
                    put_varint(stream, u64::from(a));
                    stream.push(h.index() as u8);
                }
            }
            (None, None) => {}
            _ => panic!("headings at every tick of a replay with headings, never without"),
        }
    }

    /// Ticks written so far.
    pub fn ticks(&self) -> u64 {
        self.writer.ticks()
    }

    /// The trace and the headings stream.
    pub fn finish(self) -> ReplayStreams {
        let ticks = self.writer.ticks();
        let (trace, _) = self
            .writer
            .finish()
            .expect("writing to memory does not fail");
        ReplayStreams {
            trace,
            headings: self.headings.map(|(_, stream)| stream),
            ticks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Neighborhood;
    use crate::trace::TraceReader;

    #[test]
    fn positions_become_a_trace_and_turns_a_stream() {
        // 3 x 2, all walkable; agent 0 goes east twice, agent 1 turns then jumps (a reader
        // would refuse the jump; the writer records it as one).
        let map = TraceMap {
            width: 3,
            height: 2,
            neighborhood: Neighborhood::Four,
            walkable: vec![true; 6],
        };
        let east = [Heading::East, Heading::East];
        let mut w = ReplayWriter::new(&map, &[0, 3], &[Some(2), None], Some(&east));
        w.tick(
            &[1, 3],
            &[Some(2), None],
            Some(&[Heading::East, Heading::North]),
        );
        w.tick(
            &[2, 5],
            &[None, Some(5)],
            Some(&[Heading::East, Heading::North]),
        );
        assert_eq!(w.ticks(), 2);
        let ReplayStreams {
            trace, headings, ..
        } = w.finish();
        let mut r = TraceReader::new(&trace[..]).unwrap();
        let mut seen = Vec::new();
        while r.next_tick().unwrap().is_some() {
            seen.push(
                r.live()
                    .iter()
                    .map(|a| (a.cell, a.goal))
                    .collect::<Vec<_>>(),
            );
        }
        assert_eq!(
            seen,
            vec![vec![(1, Some(2)), (3, None)], vec![(2, None), (5, Some(5))]]
        );
        // Tick 0: both east; tick 1: agent 1 north; tick 2: nobody turned.
        assert_eq!(headings.unwrap(), vec![0, 0, 1, 1, 3, 0]);
    }
}
