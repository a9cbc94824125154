//! The agents in a simulation snapshot (`crate::sim::Simulation::snapshot`): the arena's slots
//! with their generations and free list, and every field of every agent record, written
//! here beside the record so that a field added to [`Agent`] is seen next to its coding. A route
//! is written as it is kept, 4 bits a step. The flat positions and route windows and the live
//! count are rebuilt from the records.

use super::set::Slot;
use super::window::Window;
use super::{Agent, AgentSet, RouteCode};
use crate::dstar::DStarLite;
use crate::grid::{Grid, NO_CELL};
use crate::sim::snapshot::format::{Reader, Writer, code, corrupt};
use crate::sim::snapshot::{Allowance, SnapshotError};

impl AgentSet {
    /// Writes the slots (generation, then the agent or none) and the free list.
    pub(crate) fn write_snapshot(&self, w: &mut Writer<'_>) {
        w.len(self.slots.len());
        for slot in &self.slots {
            w.u32(slot.generation);
            w.bool(slot.agent.is_some());
            if let Some(agent) = &slot.agent {
                agent.write_snapshot(w);
            }
        }
        w.u32s(&self.free);
    }

    /// Reads what [`write_snapshot`](Self::write_snapshot) wrote for agents on `grid`. The free
    /// list must name every free slot once, and nothing else.
    pub(crate) fn read_snapshot(
        r: &mut Reader<'_>,
        grid: &Grid,
        allowance: &mut Allowance,
    ) -> Result<AgentSet, SnapshotError> {
        let n = r.count(5, "agent slots")?;
        let mut set = AgentSet {
            slots: Vec::with_capacity(n),
            positions: Vec::with_capacity(n),
            windows: Vec::with_capacity(n),
            free: Vec::new(),
            len: 0,
        };
        for _ in 0..n {
            let generation = r.u32()?;
            let agent = if r.bool()? {
                Some(Agent::read_snapshot(r, grid, allowance)?)
            } else {
                None
            };
            set.positions
                .push(agent.as_ref().map_or(NO_CELL, |a| a.position));
            set.windows
                .push(agent.as_ref().map_or_else(Window::default, Window::of));
            set.len += usize::from(agent.is_some());
            set.slots.push(Slot { generation, agent });
        }
        set.free = r.u32s_below(n as u64, "free slots")?;
        let mut named = vec![false; n];
        for &f in &set.free {
            if set.slots[f as usize].agent.is_some()
                || std::mem::replace(&mut named[f as usize], true)
            {
                return Err(corrupt("the free list names a live slot or a slot twice"));
            }
        }
        if set.free.len() != n - set.len {
            return Err(corrupt("the free list misses a free slot"));
        }
        Ok(set)
    }
}

impl Agent {
    fn write_snapshot(&self, w: &mut Writer<'_>) {
        w.u32(self.position);
        w.opt_u32(self.goal);
        let (first, steps, width, nibbles, codes) = self.route.parts();
        w.u32(first);
        w.u32(steps);
        w.u32(width);
        w.u32(nibbles);
        w.bytes(&codes);
        // The capacity too: the run summary's route memory counts it.
        w.len(self.route.bytes());
        w.u8(self.state.code());
        w.bool(self.plan_request.is_some());
        if let Some((reason, tick)) = self.plan_request {
            w.u8(reason.code());
            w.u64(tick);
        }
        w.u32(self.waited);
        w.u32(self.blocked_failures);
        w.bool(self.detoured);
        w.u64(self.trip_start);
        w.opt_u64(self.arrived_at);
        w.u32(self.goals_reached);
        w.u64(self.moves);
        w.bool(self.dstar.is_some());
        if let Some(dstar) = &self.dstar {
            dstar.write_snapshot(w);
        }
        w.bool(self.planner.is_some());
        if let Some(planner) = self.planner {
            w.u8(code::planner(planner));
        }
        w.u32(self.drift);
        w.u32(self.urgency);
        w.bool(self.goal_counted);
        w.u8(code::heading(self.heading));
        w.opt_u32(self.committed);
        w.bool(self.controlled);
        w.u8(self.priority);
    }

    fn read_snapshot(
        r: &mut Reader<'_>,
        grid: &Grid,
        allowance: &mut Allowance,
    ) -> Result<Agent, SnapshotError> {
        let cells = grid.len();
        let position = r.cell(cells, "agent position")?;
        if !grid.is_walkable(position) {
            return Err(corrupt("an agent stands on a blocked cell"));
        }
        let goal = r.opt_cell(cells, "agent goal")?;
        let first = r.u32()?;
        let steps = r.u32()?;
        let width = r.u32()?;
        let nibbles = r.u32()?;
        let codes = r.bytes("agent route")?;
        let capacity = r.index(usize::MAX / 8, "agent route capacity")?;
        allowance.reserve(codes.len(), capacity, 1)?;
        let route = RouteCode::from_parts(
            (first, steps, width, nibbles, codes),
            capacity,
            cells,
            grid.width(),
        )
        .ok_or_else(|| corrupt("an agent route that does not decode onto the grid"))?;
        let state = code::to_state(r.u8()?)?;
        let plan_request = if r.bool()? {
            Some((code::to_reason(r.u8()?)?, r.u64()?))
        } else {
            None
        };
        let waited = r.u32()?;
        let blocked_failures = r.u32()?;
        let detoured = r.bool()?;
        let trip_start = r.u64()?;
        let arrived_at = r.opt_u64()?;
        let goals_reached = r.u32()?;
        let moves = r.u64()?;
        let dstar = if r.bool()? {
            Some(Box::new(DStarLite::read_snapshot(r, grid, allowance)?))
        } else {
            None
        };
        let planner = if r.bool()? {
            Some(code::to_planner(r.u8()?)?)
        } else {
            None
        };
        let drift = r.u32()?;
        if drift as usize > route.len() {
            return Err(corrupt("agent drift longer than its route"));
        }
        let agent = Agent {
            position,
            goal,
            route,
            state,
            plan_request,
            waited,
            blocked_failures,
            detoured,
            trip_start,
            arrived_at,
            goals_reached,
            moves,
            dstar,
            planner,
            drift,
            urgency: r.u32()?,
            goal_counted: r.bool()?,
            heading: code::to_heading(r.u8()?)?,
            committed: r.opt_cell(cells, "agent commitment")?,
            controlled: r.bool()?,
            priority: r.u8()?,
        };
        Ok(agent)
    }
}
