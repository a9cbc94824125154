//! Reads of a simulation handle for a game's frame: the last tick's events agent by agent,
//! every agent's goal and next cell in one call, one agent's route ahead, and the
//! simulation's own map.
//!
//! Every read fills caller-owned arrays after writing how many elements it needs, so the
//! caller can size its buffers once (a size query passes NULL) and reuse them each tick.

use throng::grid::NO_CELL;
use throng::sim::{AgentId, Event, EventKind, PlanReason};

use crate::handle;
use crate::ptr;
use crate::sim::ThrongSim;
use crate::sim_agents::THRONG_NO_GOAL;
use crate::status::{Failure, ThrongStatus, guard};

/// "No cell" in `ThrongEvent::cell` and `throng_sim_read_next_cells` (the same value as
/// `THRONG_NO_GOAL`).
pub const THRONG_NO_CELL: u32 = u32::MAX;
const _: () = assert!(THRONG_NO_CELL == NO_CELL && THRONG_NO_CELL == THRONG_NO_GOAL);

/// "No agent" in `ThrongEvent::agent` (an event about a map cell).
pub const THRONG_NO_AGENT: u64 = u64::MAX;

/// Event kind: an agent added (`cell`: where it stands).
pub const THRONG_EVENT_ADDED: u8 = 1;
/// Event kind: an agent removed (`cell`: where it stood).
pub const THRONG_EVENT_REMOVED: u8 = 2;
/// Event kind: an agent given a goal (`cell`: the goal), or left without one (`cell`:
/// `THRONG_NO_CELL`).
pub const THRONG_EVENT_GOAL_SET: u8 = 3;
/// Event kind: a path found for an agent (`detail`: why it was planned, a
/// `THRONG_PLAN_REASON_*`; `cell`: the goal it was planned to).
pub const THRONG_EVENT_PATH_FOUND: u8 = 4;
/// Event kind: no path to the agent's goal (`detail`: why it was planned; `cell`: the goal it
/// cannot reach). It stands until its goal changes or the map opens a way.
pub const THRONG_EVENT_NO_PATH: u8 = 5;
/// Event kind: an agent boxed in by other agents found no way around them and keeps its old
/// path (`cell`: where it stood when planned); it tries again later.
pub const THRONG_EVENT_BLOCKED: u8 = 6;
/// Event kind: an agent stepped (`cell`: the cell it stepped onto).
pub const THRONG_EVENT_MOVED: u8 = 7;
/// Event kind: an agent came to stand on its goal (`cell`: the goal; `detail` 1 when it counts
/// as a goal reached, 0 when it is back on a goal it had reached and been pushed off).
pub const THRONG_EVENT_ARRIVED: u8 = 8;
/// Event kind: a map edit (`agent`: `THRONG_NO_AGENT`; `cell`: the cell; `detail`: 1 made
/// walkable, 0 blocked, 2 a new terrain cost).
pub const THRONG_EVENT_CELL_CHANGED: u8 = 9;

/// `THRONG_EVENT_PATH_FOUND`/`NO_PATH` detail: a new goal (or the first one).
pub const THRONG_PLAN_REASON_NEW_GOAL: u8 = 0;
/// Detail: waited too long behind other agents, planned around them.
pub const THRONG_PLAN_REASON_BLOCKED: u8 = 1;
/// Detail: pushed far off its route by other agents.
pub const THRONG_PLAN_REASON_DRIFTED: u8 = 2;
/// Detail: a map edit cut its path (or opened a way to a goal it had no path to).
pub const THRONG_PLAN_REASON_MAP_CHANGED: u8 = 3;

// The codes are the library's.
const _: () = assert!(
    THRONG_EVENT_ADDED == EventKind::Added.code()
        && THRONG_EVENT_REMOVED == EventKind::Removed.code()
        && THRONG_EVENT_GOAL_SET == EventKind::GoalSet.code()
        && THRONG_EVENT_PATH_FOUND == EventKind::PathFound.code()
        && THRONG_EVENT_NO_PATH == EventKind::NoPath.code()
        && THRONG_EVENT_BLOCKED == EventKind::Blocked.code()
        && THRONG_EVENT_MOVED == EventKind::Moved.code()
        && THRONG_EVENT_ARRIVED == EventKind::Arrived.code()
        && THRONG_EVENT_CELL_CHANGED == EventKind::CellChanged.code()
        && THRONG_PLAN_REASON_NEW_GOAL == PlanReason::NewGoal.code()
        && THRONG_PLAN_REASON_BLOCKED == PlanReason::Blocked.code()
        && THRONG_PLAN_REASON_DRIFTED == PlanReason::Drifted.code()
        && THRONG_PLAN_REASON_MAP_CHANGED == PlanReason::MapChanged.code()
);

/// Every kind of event, for the `kinds` mask of `throng_sim_read_events`.
pub const THRONG_EVENTS_ALL: u32 = u32::MAX;

/// One event of the last tick (see `throng_sim_read_events`): 16 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrongEvent {
    /// The agent's 64-bit id, or `THRONG_NO_AGENT` for a map edit.
    pub agent: u64,
    /// The cell the event is about (`y * width + x`), or `THRONG_NO_CELL`: see each kind.
    pub cell: u32,
    /// One of the `THRONG_EVENT_*` kinds.
    pub kind: u8,
    /// What the kind says it holds (a plan's reason, whether an arrival counts, ...), else 0.
    pub detail: u8,
    /// Reserved (0).
    pub reserved: u16,
}

/// The C form of `e`.
fn to_c(e: &Event) -> ThrongEvent {
    ThrongEvent {
        agent: e.agent().map_or(THRONG_NO_AGENT, AgentId::to_bits),
        cell: e.cell().unwrap_or(THRONG_NO_CELL),
        kind: e.kind().code(),
        detail: e.detail(),
        reserved: 0,
    }
}

/// Whether `mask` selects `e` (bit `1 << kind`).
fn selected(mask: u32, e: &Event) -> bool {
    mask & (1u32 << e.kind().code()) != 0
}

/// Reads the last tick's events (and the calls made before it: agents added and removed,
/// goals set, map edits), of the kinds whose bit `1 << THRONG_EVENT_*` is set in `kinds`
/// (`THRONG_EVENTS_ALL` for every kind), into `events`, an array of `capacity` elements.
/// Writes the number of events selected to `*count` first; `events` NULL is a size query
/// (status OK), a `capacity` below the count gives `THRONG_STATUS_BUFFER_TOO_SMALL` and writes
/// no event. Order: grouped by kind (added, removed, goals, map edits, plans, moves,
/// arrivals), each group in the order things happened. The list stays until the next step.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_read_events(
    sim: *const ThrongSim,
    kinds: u32,
    events: *mut ThrongEvent,
    capacity: usize,
    count: *mut usize,
) -> ThrongStatus {
    guard(|| {
        let state = handle::get(sim)?.lock()?;
        let sim = &state.sim;
        let all = sim.last_events();
        let n = if kinds == THRONG_EVENTS_ALL {
            all.len()
        } else {
            let mut n = 0;
            all.for_each_event(|e| n += usize::from(selected(kinds, &e)));
            n
        };
        ptr::write(count, n, "count")?;
        if events.is_null() {
            return Ok(());
        }
        if capacity < n {
            return Err(Failure::new(
                ThrongStatus::BufferTooSmall,
                format!("{n} events, the array holds {capacity}"),
            ));
        }
        let out = ptr::slice_out(events, n, "events")?;
        let mut slots = out.iter_mut();
        all.for_each_event(|e| {
            if selected(kinds, &e)
                && let Some(slot) = slots.next()
            {
                slot.write(to_c(&e));
            }
        });
        Ok(())
    })
}

/// Writes the live agents' count to `*count`, then fills `out` (`capacity` elements) with
/// `value(agent)` per live agent in the order of `throng_sim_read_agents`.
fn read_per_agent(
    sim: *const ThrongSim,
    out: *mut u32,
    capacity: usize,
    count: *mut usize,
    value: impl Fn(&throng::sim::Agent) -> u32,
) -> Result<(), Failure> {
    let state = handle::get(sim)?.lock()?;
    let agents = state.sim.agents();
    let live = agents.len();
    ptr::write(count, live, "count")?;
    if capacity < live {
        return Err(Failure::new(
            ThrongStatus::BufferTooSmall,
            format!("{live} live agents, the array holds {capacity}"),
        ));
    }
    let out = ptr::slice_out(out, live, "array")?;
    for (slot, (_, agent)) in out.iter_mut().zip(agents.iter()) {
        slot.write(value(agent));
    }
    Ok(())
}

/// Reads every live agent's goal (`THRONG_NO_GOAL` for none) into `goals` (`capacity`
/// elements), in the order of `throng_sim_read_agents`; `*count` and a short capacity as
/// there.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_read_goals(
    sim: *const ThrongSim,
    goals: *mut u32,
    capacity: usize,
    count: *mut usize,
) -> ThrongStatus {
    guard(|| {
        read_per_agent(sim, goals, capacity, count, |a| {
            a.goal().unwrap_or(THRONG_NO_GOAL)
        })
    })
}

/// Reads every live agent's next cell on its route (`THRONG_NO_CELL` when it has none: idle,
/// planning, arrived, without a path, or driven by the caller) into `cells` (`capacity`
/// elements), in the order of `throng_sim_read_agents`; `*count` and a short capacity as
/// there. The next cell is where the agent means to step, not a promise: another agent may
/// hold it at the next tick.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_read_next_cells(
    sim: *const ThrongSim,
    cells: *mut u32,
    capacity: usize,
    count: *mut usize,
) -> ThrongStatus {
    guard(|| {
        read_per_agent(sim, cells, capacity, count, |a| {
            a.remaining_path().next().unwrap_or(NO_CELL)
        })
    })
}

/// Reads the cells still ahead on the agent `id`'s route, next cell first and its goal last
/// (none when it is not on its way), into `cells` (`capacity` elements). Writes the route's
/// length to `*length` first; `cells` NULL is a size query (status OK), a `capacity` below the
/// length gives `THRONG_STATUS_BUFFER_TOO_SMALL` and writes no cell.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_agent_route(
    sim: *const ThrongSim,
    id: u64,
    cells: *mut u32,
    capacity: usize,
    length: *mut usize,
) -> ThrongStatus {
    guard(|| {
        let state = handle::get(sim)?.lock()?;
        let id = AgentId::from_bits(id);
        let agent = state
            .sim
            .agent(id)
            .ok_or_else(|| Failure::from(throng::error::Error::UnknownAgent(id)))?;
        let route = agent.remaining_path();
        ptr::write(length, route.len(), "length")?;
        if cells.is_null() {
            return Ok(());
        }
        if capacity < route.len() {
            return Err(Failure::new(
                ThrongStatus::BufferTooSmall,
                format!(
                    "a route of {} cells, the array holds {capacity}",
                    route.len()
                ),
            ));
        }
        let out = ptr::slice_out(cells, route.len(), "cells")?;
        for (slot, cell) in out.iter_mut().zip(route) {
            slot.write(cell);
        }
        Ok(())
    })
}

/// Reads the simulation's own map as it is now (map edits and scripted changes included), row
/// by row (cell `y * width + x`): `walkable` 1 or 0 per cell and `costs` the terrain cost per
/// cell, into arrays of `capacity` elements (either may be NULL). Writes the number of cells to
/// `*cells` first; a capacity below it gives `THRONG_STATUS_BUFFER_TOO_SMALL` and writes no
/// array.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_read_map(
    sim: *const ThrongSim,
    walkable: *mut u8,
    costs: *mut f32,
    capacity: usize,
    cells: *mut usize,
) -> ThrongStatus {
    guard(|| {
        let state = handle::get(sim)?.lock()?;
        let grid = state.sim.grid();
        let n = grid.len();
        ptr::write(cells, n, "cells")?;
        if capacity < n {
            return Err(Failure::new(
                ThrongStatus::BufferTooSmall,
                format!("{n} cells, the arrays hold {capacity}"),
            ));
        }
        if let Some(out) = ptr::optional_out(walkable, n, "walkable")? {
            for (cell, slot) in out.iter_mut().enumerate() {
                slot.write(u8::from(grid.is_walkable(cell as u32)));
            }
        }
        if let Some(out) = ptr::optional_out(costs, n, "costs")? {
            for (cell, slot) in out.iter_mut().enumerate() {
                slot.write(grid.cost(cell as u32));
            }
        }
        Ok(())
    })
}
