//! Recording a running simulation.

use std::io::Write;
use std::time::{Duration, Instant};

use super::format::*;
use super::writer::put_event;
use super::{Event, TraceAgent, TraceMap, TraceWriter};
use crate::error::{Error, Result};
use crate::grid::CellId;
use crate::sim::{AgentId, Simulation};

/// How [`TraceRecorder`] writes.
#[derive(Debug, Clone)]
pub struct TraceOptions {
    /// DEFLATE-compress the body (default `true`: about a quarter of the size).
    pub compress: bool,
    /// Group of the agent in each slot when recording begins (`groups[slot]`), e.g. the
    /// crowd of a `crowds` placement; agents beyond the list, and agents added later, have
    /// none.
    pub groups: Vec<u32>,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            compress: true,
            groups: Vec::new(),
        }
    }
}

/// An agent followed by the recorder.
#[derive(Debug, Clone, Copy)]
struct Tracked {
    id: AgentId,
    cell: CellId,
    goal: Option<CellId>,
}

/// Writes a trace of a [`Simulation`]: made from the simulation before the ticks to record
/// (the map and the agents as they are), then [`record`](Self::record) after every
/// [`Simulation::step`], then [`finish`](Self::finish). It compares the simulation with what it
/// saw last: map cells that changed, agents added and removed, every live agent's step and new
/// goal. Records are written as they are made: nothing accumulates in memory.
pub struct TraceRecorder<W: Write> {
    writer: TraceWriter<W>,
    width: u32,
    /// Followed agents, by trace number (`live[i]` is not agent number `i` once some left).
    live: Vec<Tracked>,
    /// Generation and trace number of the agent each slot holds, by slot.
    slots: Vec<Option<(u32, u32)>>,
    walkable: Vec<bool>,
    /// [`crate::Grid::wall_edits`] when `walkable` was last compared.
    wall_edits: u64,
    next_id: u32,
    body: Vec<u8>,
    events: Vec<u8>,
    event_count: u64,
    spent: Duration,
}

impl<W: Write> TraceRecorder<W> {
    /// Starts a trace of `sim` as it is now, written to `out` (give it a `BufWriter` for a
    /// file), compressed (when [`TraceOptions::compress`]) on the calling thread at the fastest
    /// level.
    ///
    /// # Errors
    /// [`Error::Trace`] when writing fails.
    pub fn new(out: W, sim: &Simulation, options: &TraceOptions) -> Result<Self> {
        let t0 = Instant::now();
        let (map, agents, live, slots) = Self::snapshot(sim, options);
        let writer = TraceWriter::new(out, options.compress, &map, &agents).map_err(io_error)?;
        Ok(Self::with_writer(writer, map, live, slots, sim, t0))
    }

    /// [`new`](Self::new), compressing at DEFLATE `level` (6: zlib's default) on a thread of
    /// its own ([`TraceWriter::new_background`]) when [`TraceOptions::compress`]: smaller files
    /// for no more time in the simulation's thread. `throng run --trace` records this way.
    ///
    /// # Errors
    /// [`Error::Trace`] when writing fails or the thread cannot start.
    pub fn new_background(
        out: W,
        sim: &Simulation,
        options: &TraceOptions,
        level: u32,
    ) -> Result<Self>
    where
        W: Send + 'static,
    {
        let t0 = Instant::now();
        let (map, agents, live, slots) = Self::snapshot(sim, options);
        let writer = if options.compress {
            TraceWriter::new_background(out, level, &map, &agents)
        } else {
            TraceWriter::new(out, false, &map, &agents)
        }
        .map_err(io_error)?;
        Ok(Self::with_writer(writer, map, live, slots, sim, t0))
    }

    /// The map and agent table of `sim`, and the recorder's view of its agents.
    #[allow(clippy::type_complexity)]
    fn snapshot(
        sim: &Simulation,
        options: &TraceOptions,
    ) -> (
        TraceMap,
        Vec<TraceAgent>,
        Vec<Tracked>,
        Vec<Option<(u32, u32)>>,
    ) {
        let grid = sim.grid();
        let walkable = grid.walkable_table().to_vec();
        let map = TraceMap {
            width: grid.width(),
            height: grid.height(),
            neighborhood: grid.neighborhood(),
            walkable,
        };
        let mut agents = Vec::with_capacity(sim.agents().len());
        let mut live = Vec::with_capacity(sim.agents().len());
        let mut slots = vec![None; sim.agents().slot_count()];
        for (id, agent) in sim.agents().iter() {
            slots[id.index() as usize] = Some((id.generation(), live.len() as u32));
            agents.push(TraceAgent {
                cell: agent.position(),
                goal: agent.goal(),
                group: options.groups.get(id.index() as usize).copied(),
            });
            live.push(Tracked {
                id,
                cell: agent.position(),
                goal: agent.goal(),
            });
        }
        (map, agents, live, slots)
    }

    fn with_writer(
        writer: TraceWriter<W>,
        map: TraceMap,
        live: Vec<Tracked>,
        slots: Vec<Option<(u32, u32)>>,
        sim: &Simulation,
        t0: Instant,
    ) -> Self {
        TraceRecorder {
            writer,
            width: map.width,
            next_id: live.len() as u32,
            live,
            slots,
            walkable: map.walkable,
            wall_edits: sim.grid().wall_edits(),
            body: Vec::new(),
            events: Vec::new(),
            event_count: 0,
            spent: t0.elapsed(),
        }
    }

    fn event(&mut self, e: &Event) {
        put_event(&mut self.events, e);
        self.event_count += 1;
    }

    /// Records the tick `sim` has just played.
    ///
    /// # Errors
    /// [`Error::Trace`] when writing fails.
    pub fn record(&mut self, sim: &Simulation) -> Result<()> {
        let t0 = Instant::now();
        self.events.clear();
        self.event_count = 0;
        let mut moves = std::mem::take(&mut self.body);
        moves.clear();
        // Map cells that changed.
        let now = sim.grid().walkable_table();
        if sim.grid().wall_edits() != self.wall_edits && now != self.walkable.as_slice() {
            for cell in 0..now.len() {
                if now[cell] != self.walkable[cell] {
                    self.walkable[cell] = now[cell];
                    let cell = cell as CellId;
                    self.event(&if now[cell as usize] {
                        Event::Open(cell)
                    } else {
                        Event::Block(cell)
                    });
                }
            }
        }
        self.wall_edits = sim.grid().wall_edits();
        // Agents that left, and the moves of those still here.
        let agents = sim.agents();
        let mut kept = 0;
        for i in 0..self.live.len() {
            let t = self.live[i];
            let trace_id = self.trace_id(t.id);
            let Some(agent) = agents.get(t.id) else {
                self.slots[t.id.index() as usize] = None;
                put_event(&mut self.events, &Event::Remove(trace_id));
                self.event_count += 1;
                continue;
            };
            let (cell, goal) = (agent.position(), agent.goal());
            let (code, jump) = match step_code(self.width, t.cell, cell) {
                Some(code) => (code, false),
                None => (MOVE_JUMP, true),
            };
            let new_goal = goal != t.goal;
            moves.push(code | if new_goal { MOVE_NEW_GOAL } else { 0 });
            if jump {
                put_varint(&mut moves, u64::from(cell));
            }
            if new_goal {
                put_varint(&mut moves, goal_code(goal));
            }
            self.live[kept] = Tracked {
                id: t.id,
                cell,
                goal,
            };
            kept += 1;
        }
        self.live.truncate(kept);
        // Agents that arrived (in slot order).
        if agents.len() != self.live.len() {
            if self.slots.len() < agents.slot_count() {
                self.slots.resize(agents.slot_count(), None);
            }
            for (id, agent) in agents.iter() {
                let slot = &mut self.slots[id.index() as usize];
                if slot.is_some_and(|(generation, _)| generation == id.generation()) {
                    continue;
                }
                let number = self.next_id;
                if u64::from(number) >= MAX_AGENTS {
                    return Err(Error::Invalid(format!(
                        "a trace holds at most {MAX_AGENTS} agents over a run"
                    )));
                }
                *slot = Some((id.generation(), number));
                self.next_id += 1;
                let (cell, goal) = (agent.position(), agent.goal());
                put_event(
                    &mut self.events,
                    &Event::Add(TraceAgent {
                        cell,
                        goal,
                        group: None,
                    }),
                );
                self.event_count += 1;
                self.live.push(Tracked { id, cell, goal });
            }
        }
        // Each record: the event count, the events, the moves.
        let mut body = Vec::with_capacity(10 + self.events.len() + moves.len());
        put_varint(&mut body, self.event_count);
        body.extend_from_slice(&self.events);
        body.extend_from_slice(&moves);
        let result = self.writer.write_tick_body(&body).map_err(io_error);
        self.body = moves;
        self.spent += t0.elapsed();
        result
    }

    fn trace_id(&self, id: AgentId) -> u32 {
        self.slots[id.index() as usize].map_or(0, |(_, n)| n)
    }

    /// Ticks recorded so far.
    pub fn ticks(&self) -> u64 {
        self.writer.ticks()
    }

    /// Bytes of the trace so far before compression.
    pub fn raw_bytes(&self) -> u64 {
        self.writer.raw_bytes()
    }

    /// Time spent in the recorder so far (making records, compressing and writing them).
    pub fn time_spent(&self) -> Duration {
        self.spent
    }

    /// Writes the end record and flushes; returns the writer.
    ///
    /// # Errors
    /// [`Error::Trace`] when writing fails.
    pub fn finish(self) -> Result<W> {
        self.finish_with_size().map(|(w, _)| w)
    }

    /// [`finish`](Self::finish), also returning the bytes written to `out` in all.
    ///
    /// # Errors
    /// [`Error::Trace`] when writing fails.
    pub fn finish_with_size(self) -> Result<(W, u64)> {
        self.writer.finish().map_err(io_error)
    }
}

fn io_error(e: std::io::Error) -> Error {
    Error::Trace(e.into())
}
