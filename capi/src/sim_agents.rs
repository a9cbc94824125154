//! The agents of a simulation handle: added, removed, given goals, driven from outside move by
//! move, and read into the caller's arrays; and its map changed between ticks.

use throng::grid::CellId;
use throng::grid::{CellChange, Direction};
use throng::sim::{AgentAction, AgentId, Simulation};

use crate::grid::cell_at;
use crate::handle;
use crate::ptr;
use crate::sim::{ThrongSim, ThrongTickEvents};
use crate::status::{Failure, ThrongStatus, guard};

/// A goal of "none" in `throng_sim_add_agents` and `throng_sim_agent`: the agent stands.
pub const THRONG_NO_GOAL: u32 = u32::MAX;

/// Action code of `throng_sim_step_with_actions`: stay this tick.
pub const THRONG_ACTION_WAIT: i32 = 0;
/// Action code: one step north (`y - 1`). The moves are 1 to 8: north, east, south, west,
/// north-east, south-east, south-west, north-west.
pub const THRONG_ACTION_NORTH: i32 = 1;
/// Action code: one step east (`x + 1`).
pub const THRONG_ACTION_EAST: i32 = 2;
/// Action code: one step south (`y + 1`).
pub const THRONG_ACTION_SOUTH: i32 = 3;
/// Action code: one step west (`x - 1`).
pub const THRONG_ACTION_WEST: i32 = 4;
/// Action code: one step north-east.
pub const THRONG_ACTION_NORTH_EAST: i32 = 5;
/// Action code: one step south-east.
pub const THRONG_ACTION_SOUTH_EAST: i32 = 6;
/// Action code: one step south-west.
pub const THRONG_ACTION_SOUTH_WEST: i32 = 7;
/// Action code: one step north-west.
pub const THRONG_ACTION_NORTH_WEST: i32 = 8;

fn agent_id(bits: u64) -> AgentId {
    AgentId::from_bits(bits)
}

fn check_cell(sim: &Simulation, cell: u32, what: &str) -> Result<CellId, Failure> {
    let grid = sim.grid();
    if (cell as usize) < grid.len() {
        Ok(cell)
    } else {
        Err(Failure::new(
            ThrongStatus::OutOfRange,
            format!(
                "{what} is cell {cell}, outside the {} x {} grid ({} cells)",
                grid.width(),
                grid.height(),
                grid.len()
            ),
        ))
    }
}

/// Adds `count` agents standing on `starts[i]`, heading for `goals[i]` (cells `y * width + x`;
/// `goals` may be NULL, and a goal may be `THRONG_NO_GOAL`: the agent stands until given one).
/// Writes their ids to `ids` (may be NULL): a 64-bit id stays valid until the agent is removed
/// (a removed agent's id never names another agent). All or nothing: when one agent cannot be
/// added (a cell outside the grid, blocked, or holding another agent while conflicts are on)
/// the ones before it are removed again and the message names it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_add_agents(
    sim: *mut ThrongSim,
    starts: *const u32,
    goals: *const u32,
    count: usize,
    ids: *mut u64,
) -> ThrongStatus {
    guard(|| {
        let starts = ptr::slice(starts, count, "starts")?;
        let goals = if goals.is_null() {
            None
        } else {
            Some(ptr::slice(goals, count, "goals")?)
        };
        let ids = ptr::optional_out(ids, count, "ids")?;
        let mut state = handle::get_mut(sim)?.lock()?;
        let sim = &mut state.sim;
        let mut added = Vec::with_capacity(count);
        let mut failure = None;
        for (i, &start) in starts.iter().enumerate() {
            let goal = goals.map_or(THRONG_NO_GOAL, |g| g[i]);
            let result = check_cell(sim, start, "start").and_then(|start| {
                let goal = match goal {
                    THRONG_NO_GOAL => None,
                    goal => Some(check_cell(sim, goal, "goal")?),
                };
                Ok(sim.add_agent(start, goal)?)
            });
            match result {
                Ok(id) => added.push(id),
                Err(e) => {
                    failure = Some(e.context(format!("agent {i}")));
                    break;
                }
            }
        }
        if let Some(failure) = failure {
            for id in added {
                sim.remove_agent(id)?;
            }
            return Err(failure);
        }
        if let Some(ids) = ids {
            for (slot, id) in ids.iter_mut().zip(added) {
                slot.write(id.to_bits());
            }
        }
        Ok(())
    })
}

/// Removes the agent `id`; its cell is free from now on.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_remove_agent(sim: *mut ThrongSim, id: u64) -> ThrongStatus {
    guard(|| {
        let mut state = handle::get_mut(sim)?.lock()?;
        Ok(state.sim.remove_agent(agent_id(id))?)
    })
}

/// Gives the agent `id` a new goal (a cell `y * width + x`): it plans its way there on the next
/// tick. `THRONG_NO_GOAL` clears its goal: it drops its route and stands, idle, until given
/// one again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_set_goal(
    sim: *mut ThrongSim,
    id: u64,
    goal: u32,
) -> ThrongStatus {
    guard(|| {
        let mut state = handle::get_mut(sim)?.lock()?;
        if goal == THRONG_NO_GOAL {
            return Ok(state.sim.clear_goal(agent_id(id))?);
        }
        let goal = check_cell(&state.sim, goal, "goal")?;
        Ok(state.sim.set_goal(agent_id(id), goal)?)
    })
}

/// Hands the agent `id` to the caller (`controlled` not 0): it no longer plans and moves only as
/// `throng_sim_step_with_actions` tells it; 0 gives it back to the engine, which plans it again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_set_controlled(
    sim: *mut ThrongSim,
    id: u64,
    controlled: u8,
) -> ThrongStatus {
    guard(|| {
        let mut state = handle::get_mut(sim)?.lock()?;
        Ok(state.sim.set_controlled(agent_id(id), controlled != 0)?)
    })
}

/// Sets the agent `id`'s priority class in conflicts (0, the default, to 255): where agents
/// contend for a cell, a higher class goes first, whatever the others' waiting (a VIP through a
/// crowd). Conflict mode `pibt` puts the class before its own priority, so lower classes can
/// wait as long as higher ones keep coming; `avoid` lets agents claim cells class by class.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_set_priority(
    sim: *mut ThrongSim,
    id: u64,
    priority: u8,
) -> ThrongStatus {
    guard(|| {
        let mut state = handle::get_mut(sim)?.lock()?;
        Ok(state.sim.set_priority(agent_id(id), priority)?)
    })
}

/// Sets the agent `id`'s own planner by name (`planner`, UTF-8: `"astar"`, `"jps"`, `"nav"`,
/// `"dstar"`, ... as in the settings' `"planner"`), or back to the simulation's with NULL. An
/// agent on its way plans again with it at the next tick. An unknown name gives
/// `THRONG_STATUS_INVALID_ARGUMENT` with the names there are.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_set_planner(
    sim: *mut ThrongSim,
    id: u64,
    planner: *const std::ffi::c_char,
) -> ThrongStatus {
    guard(|| {
        let planner = if planner.is_null() {
            None
        } else {
            let name = ptr::text(planner, "planner")?;
            Some(name.parse::<throng::planner::PlannerKind>()?)
        };
        let mut state = handle::get_mut(sim)?.lock()?;
        Ok(state.sim.set_planner(agent_id(id), planner)?)
    })
}

/// Makes the cell at column `x`, row `y` of the simulation's map walkable (`walkable` not 0)
/// or blocked, now (between ticks). Agents whose path crosses a newly blocked cell replan. A
/// cell an agent stands on cannot be blocked: `THRONG_STATUS_CELL_OCCUPIED`, nothing changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_set_walkable(
    sim: *mut ThrongSim,
    x: u32,
    y: u32,
    walkable: u8,
) -> ThrongStatus {
    guard(|| {
        let mut state = handle::get_mut(sim)?.lock()?;
        let cell = cell_at(state.sim.grid(), x, y)?;
        let change = CellChange::SetWalkable {
            cell,
            walkable: walkable != 0,
        };
        Ok(state.sim.change_map(&[change])?)
    })
}

/// Sets the terrain cost of the cell at column `x`, row `y` of the simulation's map, now
/// (between ticks): a finite number above 0 (see `throng_grid_set_cost`). Agents whose route
/// ahead crosses the cell plan again at the next tick; the next tick's events list the edit
/// (`THRONG_EVENT_CELL_CHANGED`, detail 2).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_set_cost(
    sim: *mut ThrongSim,
    x: u32,
    y: u32,
    cost: f32,
) -> ThrongStatus {
    guard(|| {
        let mut state = handle::get_mut(sim)?.lock()?;
        let cell = cell_at(state.sim.grid(), x, y)?;
        Ok(state
            .sim
            .change_map(&[CellChange::SetCost { cell, cost }])?)
    })
}

fn action(code: i32) -> Result<AgentAction, Failure> {
    match code {
        THRONG_ACTION_WAIT => Ok(AgentAction::Wait),
        1..=8 => Ok(AgentAction::Move(Direction::ALL[code as usize - 1])),
        _ => Err(Failure::new(
            ThrongStatus::OutOfRange,
            format!("action code {code}: 0 (wait) or 1 to 8 (a move)"),
        )),
    }
}

/// Plays one tick in which the agents `ids[i]` do `actions[i]` (`THRONG_ACTION_WAIT` or one of
/// the eight moves); controlled agents not named stay, the others follow their routes. Writes
/// each action's outcome to `outcomes[i]` (may be NULL): 0 moved, 1 waited, 2 illegal (into a
/// wall, off the map, a removed agent), 3 blocked by another agent; and the tick's events to
/// `*events` (may be NULL). An unknown id or an agent named twice is refused before anything is
/// played.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_step_with_actions(
    sim: *mut ThrongSim,
    ids: *const u64,
    actions: *const i32,
    count: usize,
    outcomes: *mut i32,
    events: *mut ThrongTickEvents,
) -> ThrongStatus {
    guard(|| {
        let ids = ptr::slice(ids, count, "ids")?;
        let codes = ptr::slice(actions, count, "actions")?;
        let outcomes = ptr::optional_out(outcomes, count, "outcomes")?;
        ptr::check_out_optional(events, "events")?;
        let list = ids
            .iter()
            .zip(codes)
            .enumerate()
            .map(|(i, (&id, &code))| {
                action(code)
                    .map(|a| (agent_id(id), a))
                    .map_err(|e| e.context(format!("actions[{i}]")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut state = handle::get_mut(sim)?.lock()?;
        let mut results = Vec::new();
        let tick = state.play(|sim| {
            let (report, outcome) = sim.step_with_actions(&list)?;
            results = outcome;
            Ok(report)
        })?;
        if let Some(outcomes) = outcomes {
            for (slot, outcome) in outcomes.iter_mut().zip(&results) {
                slot.write(i32::from(outcome.code()));
            }
        }
        ptr::write_optional(events, tick, "events")
    })
}

/// Writes the number of live agents.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_agent_count(
    sim: *const ThrongSim,
    count: *mut usize,
) -> ThrongStatus {
    guard(|| {
        let live = handle::get(sim)?.read(|s| Ok(s.sim.agents().len()), |f| Ok(f.ids.len()))?;
        ptr::write(count, live, "count")
    })
}

/// Reads every live agent, in a stable order (by slot), into the caller's arrays of `capacity`
/// elements each: `ids` (64-bit ids), `cells` (the cell each stands on, `y * width + x`) and
/// `states` (0 idle, 1 planning, 2 moving, 3 waiting, 4 arrived, 5 no path); any of them may be
/// NULL. Writes the number of live agents to `*count` first; a capacity below it gives
/// `THRONG_STATUS_BUFFER_TOO_SMALL` and writes no array. While a step is in flight
/// (`throng_sim_step_begin`), the agents as they stood when it began.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_read_agents(
    sim: *const ThrongSim,
    ids: *mut u64,
    cells: *mut u32,
    states: *mut u8,
    capacity: usize,
    count: *mut usize,
) -> ThrongStatus {
    guard(|| {
        let out = Rows {
            ids,
            cells,
            states,
            capacity,
            count,
        };
        handle::get(sim)?.read(
            |s| {
                let agents = s.sim.agents();
                if out.ids.is_null() && out.states.is_null() {
                    // Cells only (a frame's positions): the flat positions array, slot order,
                    // free slots left out, without touching the agents' records.
                    let rows = agents
                        .positions()
                        .iter()
                        .filter(|&&cell| cell != throng::grid::NO_CELL)
                        .map(|&cell| (0, cell, 0));
                    return out.write(agents.len(), rows);
                }
                let rows = agents
                    .iter()
                    .map(|(id, agent)| (id.to_bits(), agent.position(), agent.state().code()));
                out.write(agents.len(), rows)
            },
            |f| {
                let rows = (0..f.ids.len()).map(|i| (f.ids[i], f.cells[i], f.states[i]));
                out.write(f.ids.len(), rows)
            },
        )
    })
}

/// The caller's arrays of `throng_sim_read_agents`.
struct Rows {
    ids: *mut u64,
    cells: *mut u32,
    states: *mut u8,
    capacity: usize,
    count: *mut usize,
}

impl Rows {
    /// Writes `live` and then the `live` rows (id, cell, state) into the arrays given.
    fn write(
        &self,
        live: usize,
        rows: impl Iterator<Item = (u64, u32, u8)>,
    ) -> Result<(), Failure> {
        ptr::write(self.count, live, "count")?;
        if self.capacity < live {
            return Err(Failure::new(
                ThrongStatus::BufferTooSmall,
                format!("{live} live agents, the arrays hold {}", self.capacity),
            ));
        }
        let mut ids = ptr::optional_out(self.ids, live, "ids")?;
        let mut cells = ptr::optional_out(self.cells, live, "cells")?;
        let mut states = ptr::optional_out(self.states, live, "states")?;
        for (i, (id, cell, state)) in rows.enumerate() {
            if let Some(ids) = ids.as_deref_mut() {
                ids[i].write(id);
            }
            if let Some(cells) = cells.as_deref_mut() {
                cells[i].write(cell);
            }
            if let Some(states) = states.as_deref_mut() {
                states[i].write(state);
            }
        }
        Ok(())
    }
}

/// Reads one agent: its cell, its goal (`THRONG_NO_GOAL` when it has none) and its state (as in
/// `throng_sim_read_agents`); any pointer may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_sim_agent(
    sim: *const ThrongSim,
    id: u64,
    cell: *mut u32,
    goal: *mut u32,
    state: *mut u8,
) -> ThrongStatus {
    guard(|| {
        let locked = handle::get(sim)?.lock()?;
        let id = agent_id(id);
        let agent = locked
            .sim
            .agent(id)
            .ok_or_else(|| Failure::from(throng::error::Error::UnknownAgent(id)))?;
        ptr::write_optional(cell, agent.position(), "cell")?;
        ptr::write_optional(goal, agent.goal().unwrap_or(THRONG_NO_GOAL), "goal")?;
        ptr::write_optional(state, agent.state().code(), "state")
    })
}
