//! Recording a running simulation.
//!
//! After each tick the recorder writes what changed, read from the tick's events
//! ([`crate::sim::TickEvents`]): the map cells edited, the agents removed and added, and one
//! move byte per followed agent, which is a wait for every agent the events do not name. When
//! the events do not cover everything since the last record (a tick not recorded, or calls
//! made after the tick), it compares the whole crowd with what it saw last instead; both ways
//! write the same bytes.

use std::io::Write;
use std::time::{Duration, Instant};

use super::format::*;
use super::writer::put_event;
use super::{Event, TraceAgent, TraceMap, TraceWriter};
use crate::error::{Error, Result};
use crate::grid::{CellChange, CellId, Direction};
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

/// The agent a slot holds, as the recorder follows it.
#[derive(Debug, Clone, Copy)]
struct SlotEntry {
    generation: u32,
    /// Its agent number in the trace.
    number: u32,
    /// Its index in [`TraceRecorder::live`].
    index: u32,
}

/// `touched` flag: the events name a move of the agent.
const MOVED: u8 = 1;
/// `touched` flag: the events name a goal given to the agent.
const GOAL: u8 = 2;

/// Writes a trace of a [`Simulation`]: made from the simulation before the ticks to record
/// (the map and the agents as they are), then [`record`](Self::record) after every
/// [`Simulation::step`], then [`finish`](Self::finish). It writes what the tick's events say
/// changed (see the module docs): map cells, agents added and removed, every live agent's step
/// and new goal. Records are written as they are made: nothing accumulates in memory.
pub struct TraceRecorder<W: Write> {
    writer: TraceWriter<W>,
    width: u32,
    /// Followed agents, by trace number (`live[i]` is not agent number `i` once some left).
    live: Vec<Tracked>,
    /// The agent each slot holds, by slot.
    slots: Vec<Option<SlotEntry>>,
    /// [`Simulation::tick`] when the recorder last caught up with the simulation.
    next_tick: u64,
    /// Per index of `live`: what the tick's events name ([`MOVED`], [`GOAL`]); all 0 between
    /// records.
    touched: Vec<u8>,
    /// Scratch: live indices, slots or cells to write in order.
    order: Vec<u32>,
    /// Records made from the events (the others compared the crowd).
    from_events: u64,
    /// Per direction: the cell id change of a step, the column change and the move byte
    /// (empty for grids under 3 cells wide, where the change is ambiguous).
    steps: Vec<(i64, i64, u8)>,
    walkable: Vec<bool>,
    /// [`crate::grid::Grid::wall_edits`] when `walkable` was last compared.
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
        Vec<Option<SlotEntry>>,
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
            slots[id.index() as usize] = Some(SlotEntry {
                generation: id.generation(),
                number: live.len() as u32,
                index: live.len() as u32,
            });
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
        slots: Vec<Option<SlotEntry>>,
        sim: &Simulation,
        t0: Instant,
    ) -> Self {
        TraceRecorder {
            writer,
            width: map.width,
            next_id: live.len() as u32,
            touched: vec![0; live.len()],
            live,
            slots,
            next_tick: sim.tick(),
            order: Vec::new(),
            from_events: 0,
            steps: if map.width >= 3 {
                Direction::ALL
                    .iter()
                    .map(|d| {
                        let (dx, dy) = d.delta();
                        let (dx, dy) = (i64::from(dx), i64::from(dy));
                        let code = MOVE_FIRST_DIRECTION + d.index() as u8;
                        (dy * i64::from(map.width) + dx, dx, code)
                    })
                    .collect()
            } else {
                Vec::new()
            },
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
        self.record_with(sim, false)
    }

    /// [`record`](Self::record), comparing the whole crowd when `compare` even if the events
    /// cover the tick (for the tests that check both ways write the same bytes).
    fn record_with(&mut self, sim: &Simulation, compare: bool) -> Result<()> {
        let t0 = Instant::now();
        self.events.clear();
        self.event_count = 0;
        let mut moves = std::mem::take(&mut self.body);
        moves.clear();
        let events = sim.last_events();
        let covered = !compare
            && events.tick() == self.next_tick
            && sim.tick() == self.next_tick + 1
            && !sim.calls_pending();
        let result = if covered {
            self.from_events += 1;
            self.changes_from_events(sim, &mut moves)
        } else {
            self.changes_by_comparing(sim, &mut moves)
        };
        self.next_tick = sim.tick();
        self.wall_edits = sim.grid().wall_edits();
        let result = result.and_then(|()| {
            // Each record: the event count, the events, the moves.
            let mut body = Vec::with_capacity(10 + self.events.len() + moves.len());
            put_varint(&mut body, self.event_count);
            body.extend_from_slice(&self.events);
            body.extend_from_slice(&moves);
            self.writer.write_tick_body(&body).map_err(io_error)
        });
        self.body = moves;
        self.spent += t0.elapsed();
        result
    }

    /// The record's events and moves from the tick's events, which cover every change since
    /// the last record.
    fn changes_from_events(&mut self, sim: &Simulation, moves: &mut Vec<u8>) -> Result<()> {
        let events = sim.last_events();
        // Map cells whose walkability changed, in cell order.
        if !events.cell_changes().is_empty() {
            self.order.clear();
            self.order
                .extend(events.cell_changes().iter().filter_map(|c| match *c {
                    CellChange::SetWalkable { cell, .. } => Some(cell),
                    CellChange::SetCost { .. } => None,
                }));
            self.order.sort_unstable();
            self.order.dedup();
            let now = sim.grid().walkable_table();
            for k in 0..self.order.len() {
                let cell = self.order[k];
                let open = now[cell as usize];
                if open != std::mem::replace(&mut self.walkable[cell as usize], open) {
                    self.event(&if open {
                        Event::Open(cell)
                    } else {
                        Event::Block(cell)
                    });
                }
            }
        }
        // Agents that left, by agent number.
        if !events.removed().is_empty() {
            self.order.clear();
            for &id in events.removed() {
                if let Some(entry) = self.entry(id) {
                    self.order.push(entry.index);
                }
            }
            self.order.sort_unstable();
            for k in 0..self.order.len() {
                let id = self.live[self.order[k] as usize].id;
                let number = self.number_of_removed(id);
                self.slots[id.index() as usize] = None;
                self.event(&Event::Remove(number));
            }
            let mut gone = self.order.iter().peekable();
            let mut kept = 0;
            for i in 0..self.live.len() {
                if gone.peek() == Some(&&(i as u32)) {
                    gone.next();
                    continue;
                }
                let t = self.live[i];
                self.live[kept] = t;
                if let Some(entry) = &mut self.slots[t.id.index() as usize] {
                    entry.index = kept as u32;
                }
                kept += 1;
            }
            self.live.truncate(kept);
        }
        // Moves and new goals: a wait for every agent the events do not name.
        self.touched.resize(self.live.len(), 0);
        for m in events.moves() {
            if let Some(entry) = self.entry(m.agent) {
                self.touched[entry.index as usize] |= MOVED;
            }
        }
        for g in events.goal_changes() {
            if let Some(entry) = self.entry(g.agent) {
                self.touched[entry.index as usize] |= GOAL;
            }
        }
        let agents = sim.agents();
        let positions = agents.positions();
        moves.reserve(self.live.len());
        for (i, flags) in self.touched.iter_mut().enumerate() {
            if *flags == 0 {
                moves.push(MOVE_WAIT);
                continue;
            }
            let t = &mut self.live[i];
            let cell = positions[t.id.index() as usize];
            if *flags == MOVED
                && let Some(code) = neighbour_code(&self.steps, self.width, t.cell, cell)
            {
                // The common case, a step and no new goal: one byte.
                *flags = 0;
                moves.push(code);
                t.cell = cell;
                continue;
            }
            let goal = if *flags & GOAL != 0 {
                agents.get(t.id).and_then(|a| a.goal())
            } else {
                t.goal
            };
            *flags = 0;
            write_move(moves, self.width, t, cell, goal);
        }
        // Agents that arrived, in slot order.
        if !events.added().is_empty() {
            self.order.clear();
            let slots = &self.slots;
            self.order.extend(
                events
                    .added()
                    .iter()
                    .filter(|&&id| agents.get(id).is_some() && entry_in(slots, id).is_none())
                    .map(|id| id.index()),
            );
            self.order.sort_unstable();
            self.order.dedup();
            for k in 0..self.order.len() {
                let id = agents.id_at(self.order[k]).expect("live");
                self.add(sim, id)?;
            }
        }
        Ok(())
    }

    /// The record's events and moves by comparing `sim` with what the recorder saw last.
    fn changes_by_comparing(&mut self, sim: &Simulation, moves: &mut Vec<u8>) -> Result<()> {
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
        // Agents that left, and the moves of those still here.
        let agents = sim.agents();
        let mut kept = 0;
        for i in 0..self.live.len() {
            let t = self.live[i];
            let Some(agent) = agents.get(t.id) else {
                let number = self.number_of_removed(t.id);
                self.slots[t.id.index() as usize] = None;
                self.event(&Event::Remove(number));
                continue;
            };
            let mut t = t;
            write_move(moves, self.width, &mut t, agent.position(), agent.goal());
            self.live[kept] = t;
            if let Some(entry) = &mut self.slots[t.id.index() as usize] {
                entry.index = kept as u32;
            }
            kept += 1;
        }
        self.live.truncate(kept);
        // Agents that arrived (in slot order).
        if agents.len() != self.live.len() {
            for (id, _) in agents.iter() {
                if self.entry(id).is_none() {
                    self.add(sim, id)?;
                }
            }
        }
        Ok(())
    }

    /// The slot entry of `id` when the recorder follows it.
    fn entry(&self, id: AgentId) -> Option<SlotEntry> {
        entry_in(&self.slots, id)
    }

    /// The agent number of a followed agent that left (0 for an agent never followed, which
    /// does not happen).
    fn number_of_removed(&self, id: AgentId) -> u32 {
        self.slots[id.index() as usize].map_or(0, |e| e.number)
    }

    /// Starts following the live agent `id` of `sim`: its add event, the next agent number.
    fn add(&mut self, sim: &Simulation, id: AgentId) -> Result<()> {
        let number = self.next_id;
        if u64::from(number) >= MAX_AGENTS {
            return Err(Error::Invalid(format!(
                "a trace holds at most {MAX_AGENTS} agents over a run"
            )));
        }
        let agent = sim.agents().get(id).expect("live");
        if self.slots.len() < sim.agents().slot_count() {
            self.slots.resize(sim.agents().slot_count(), None);
        }
        self.slots[id.index() as usize] = Some(SlotEntry {
            generation: id.generation(),
            number,
            index: self.live.len() as u32,
        });
        self.next_id += 1;
        let (cell, goal) = (agent.position(), agent.goal());
        self.event(&Event::Add(TraceAgent {
            cell,
            goal,
            group: None,
        }));
        self.live.push(Tracked { id, cell, goal });
        Ok(())
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

/// The entry of `id` in `slots` when the recorder follows it.
#[inline]
fn entry_in(slots: &[Option<SlotEntry>], id: AgentId) -> Option<SlotEntry> {
    slots
        .get(id.index() as usize)
        .copied()
        .flatten()
        .filter(|e| e.generation == id.generation())
}

/// The move byte of a step from `from` to `to`, when they are neighbours ([`step_code`] for
/// a step, without its divisions but one), from the grid's `steps`.
#[inline]
fn neighbour_code(steps: &[(i64, i64, u8)], width: u32, from: CellId, to: CellId) -> Option<u8> {
    let delta = i64::from(to) - i64::from(from);
    let &(_, dx, code) = steps.iter().find(|s| s.0 == delta)?;
    // A step east from the last column lands on the next row's first cell: not a neighbour.
    let x = i64::from(from % width);
    (dx == 0 || (0..i64::from(width)).contains(&(x + dx))).then_some(code)
}

/// Appends the move byte of the followed agent `t` now on `cell` with `goal` (a jump's cell and
/// a new goal after it), and updates `t`.
#[inline]
fn write_move(
    moves: &mut Vec<u8>,
    width: u32,
    t: &mut Tracked,
    cell: CellId,
    goal: Option<CellId>,
) {
    let (code, jump) = match step_code(width, t.cell, cell) {
        Some(code) => (code, false),
        None => (MOVE_JUMP, true),
    };
    let new_goal = goal != t.goal;
    moves.push(code | if new_goal { MOVE_NEW_GOAL } else { 0 });
    if jump {
        put_varint(moves, u64::from(cell));
    }
    if new_goal {
        put_varint(moves, goal_code(goal));
    }
    t.cell = cell;
    t.goal = goal;
}

fn io_error(e: std::io::Error) -> Error {
    Error::Trace(e.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{CellChange, Grid};
    use crate::sim::{Command, ConflictMode, SimConfig};

    /// A lifelong crowd with everything a record carries: agents added and removed (by
    /// commands and by calls, slots reused), goals given, map edits, and calls made after a
    /// tick and a tick left unrecorded (which the events do not cover).
    fn busy_tick(sim: &mut Simulation, tick: u32) {
        let ids: Vec<AgentId> = sim.agents().iter().map(|(id, _)| id).collect();
        match tick {
            5 => sim.queue(Command::RemoveAgent(ids[3])),
            6 => sim.queue(Command::AddAgent {
                start: 19,
                goal: Some(0),
            }),
            9 => {
                sim.remove_agent(ids[5]).unwrap();
                sim.remove_agent(ids[0]).unwrap();
                sim.add_agent(139, None).unwrap();
                sim.add_agent(138, Some(3)).unwrap();
            }
            12 | 30 => sim.queue(Command::ChangeMap(
                CellChange::rect(sim.grid(), 14, 6, 16, 7, tick == 30).unwrap(),
            )),
            14 => sim
                .change_map(&[CellChange::rect(sim.grid(), 0, 7, 1, 7, false).unwrap()].concat())
                .unwrap(),
            15 => sim.set_goal(ids[4], 80).unwrap(),
            _ => {}
        }
        sim.step();
    }

    fn busy_sim() -> Simulation {
        let rows = [
            "....................",
            "....######..........",
            "....#...............",
            "....#.......#####...",
            "....................",
            "..........#.........",
            "..........#.........",
            "....................",
        ];
        let config = SimConfig {
            lifelong: true,
            conflicts: ConflictMode::Pibt,
            seed: 3,
            ..SimConfig::default()
        };
        let mut sim = Simulation::new(Grid::from_ascii(&rows.join("\n")).unwrap(), config).unwrap();
        let open: Vec<CellId> = (0..160).filter(|&c| sim.grid().is_walkable(c)).collect();
        for i in 0..12 {
            let (start, goal) = (open[i * 11 % open.len()], open[open.len() - 1 - i * 7]);
            sim.add_agent(start, Some(goal)).unwrap();
        }
        sim
    }

    /// The short way to a step's byte agrees with `step_code` for every pair of cells near
    /// each other, the grid's edges included.
    #[test]
    fn neighbour_codes_are_step_codes() {
        for width in [3u32, 4, 7] {
            let grid = Grid::new(width, 5).unwrap();
            let sim = Simulation::new(grid, SimConfig::default()).unwrap();
            let recorder = TraceRecorder::new(Vec::new(), &sim, &TraceOptions::default()).unwrap();
            let cells = 5 * width;
            for from in 0..cells {
                for to in from.saturating_sub(2 * width + 2)..(from + 2 * width + 3).min(cells) {
                    let short = neighbour_code(&recorder.steps, width, from, to);
                    let long = step_code(width, from, to).filter(|&c| c != MOVE_WAIT);
                    assert_eq!(short, long, "width {width}: {from} -> {to}");
                }
            }
        }
    }

    /// Records from the events write the bytes that comparing the crowd writes.
    #[test]
    fn events_and_comparing_write_the_same_trace() {
        let mut sim = busy_sim();
        let options = TraceOptions {
            compress: false,
            groups: Vec::new(),
        };
        let mut by_events = TraceRecorder::new(Vec::new(), &sim, &options).unwrap();
        let mut by_comparing = TraceRecorder::new(Vec::new(), &sim, &options).unwrap();
        for tick in 0..60 {
            busy_tick(&mut sim, tick);
            if tick == 20 {
                // Calls after the tick: the next record compares.
                let id = sim.agents().iter().nth(2).unwrap().0;
                sim.set_goal(id, 45).unwrap();
            }
            if tick == 40 {
                // A tick not recorded: the next record compares.
                busy_tick(&mut sim, 100);
            }
            by_events.record(&sim).unwrap();
            by_comparing.record_with(&sim, true).unwrap();
        }
        assert_eq!(by_events.from_events, 58, "two records had to compare");
        assert_eq!(by_comparing.from_events, 0);
        let (a, b) = (by_events.finish().unwrap(), by_comparing.finish().unwrap());
        assert!(a.len() > 1000);
        assert!(a == b, "the same bytes");
    }
}
