//! Reading a snapshot back: the envelope (magic, versions, checksum, map hash) is checked
//! before any part is decoded, then the parts in the order `write.rs` wrote them, each checked
//! so that a simulation built from them cannot index out of its tables; what is derived
//! (occupancy, positions, components' cells) is rebuilt.

use hdrhistogram::Histogram;

use super::format::{CRATE_VERSION, FORMAT_VERSION, LEAD, MAGIC, Reader, checksum, code, corrupt};
use super::{Allowance, SnapshotError};
use crate::grid::{CellChange, Grid, Neighborhood};
use crate::nav::NavGraph;
use crate::sim::agent::{AgentId, AgentSet};
use crate::sim::command::Command;
use crate::sim::config::SimConfig;
use crate::sim::events::{Arrival, GoalChange, Move, PlanMade, TickEvents};
use crate::sim::metrics::{EndStatus, Metrics, PhaseNanos, PhaseTimes, RunSummary};
use crate::sim::movement::{MovementStage, SpatialTies};
use crate::sim::occupancy::Occupancy;
use crate::sim::planning::PlanningStage;
use crate::sim::simulation::Simulation;
use crate::sim::stuck::StuckResolution;

/// The envelope's fields.
pub(super) struct Envelope<'a> {
    /// XXH3-64 of the grid part.
    pub(super) map_hash: u64,
    /// The payload.
    pub(super) payload: &'a [u8],
}

/// Checks the envelope of `bytes` and returns its payload (nothing is decoded yet).
pub(super) fn open(bytes: &[u8]) -> Result<Envelope<'_>, SnapshotError> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(SnapshotError::NotSnapshot);
    }
    if bytes.len() < LEAD {
        return Err(SnapshotError::Truncated);
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(SnapshotError::Version {
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let mut r = Reader::new(&bytes[LEAD..]);
    let truncated = |_| SnapshotError::Truncated;
    let n = r.u8().map_err(truncated)?;
    let writer = r.take(usize::from(n)).map_err(truncated)?;
    let map_hash = r.u64().map_err(truncated)?;
    let length = r.u64().map_err(truncated)?;
    if r.left() < 8 || length != (r.left() - 8) as u64 {
        return Err(if (r.left() as u64) < length.saturating_add(8) {
            SnapshotError::Truncated
        } else {
            corrupt("trailing bytes after the checksum")
        });
    }
    let end = bytes.len() - 8;
    let stored = u64::from_le_bytes(bytes[end..].try_into().expect("8 bytes"));
    if checksum(&bytes[..end]) != stored {
        return Err(SnapshotError::Checksum);
    }
    if writer != CRATE_VERSION.as_bytes() {
        return Err(SnapshotError::CrateVersion {
            found: String::from_utf8_lossy(writer).into_owned(),
            expected: CRATE_VERSION,
        });
    }
    let payload_at = LEAD + r.at();
    Ok(Envelope {
        map_hash,
        payload: &bytes[payload_at..end],
    })
}

/// Decodes the payload of an opened snapshot into a simulation.
pub(super) fn simulation(envelope: &Envelope<'_>) -> Result<Simulation, SnapshotError> {
    let mut r = Reader::new(envelope.payload);
    let grid = read_grid(&mut r)?;
    if checksum(&envelope.payload[..r.at()]) != envelope.map_hash {
        return Err(corrupt("the map hash does not match the map"));
    }
    let config: SimConfig = serde_json::from_slice(r.bytes("settings")?)
        .map_err(|e| corrupt(format!("settings: {e}")))?;
    config
        .check(grid.neighborhood())
        .map_err(|e| corrupt(format!("settings: {e}")))?;
    let tick = r.u64()?;
    let mut allowance = Allowance::new(envelope.payload.len());
    let agents = AgentSet::read_snapshot(&mut r, &grid, &mut allowance)?;
    let commands = (0..r.count(5, "commands")?)
        .map(|_| read_command(&mut r))
        .collect::<Result<Vec<_>, _>>()?;
    let settle = r.u32s_below(agents.slot_count() as u64, "agents to settle")?;
    let calls = read_events(&mut r)?;
    let events = read_events(&mut r)?;
    let stuck = read_stuck(&mut r, &grid)?;
    let ties = if r.bool()? {
        let seed = r.u64()?;
        let epoch = r.u64()?;
        let ties = r.u32s("tie-breaks")?;
        if ties.len() != agents.slot_count() {
            return Err(corrupt(format!(
                "{} tie-breaks for {} agent slots",
                ties.len(),
                agents.slot_count()
            )));
        }
        Some(SpatialTies {
            ties,
            seed,
            epoch,
            spatial: true,
        })
    } else {
        None
    };
    let metrics = read_metrics(&mut r)?;
    let nav = if r.bool()? {
        let bytes = r.bytes("navigation graph")?;
        let mut nav = NavGraph::from_bytes(bytes, &grid, std::path::Path::new("<snapshot>"))
            .map_err(|e| corrupt(e.to_string()))?;
        nav.set_heuristic_weight(r.f64()?)
            .map_err(|e| corrupt(e.to_string()))?;
        Some(nav)
    } else {
        None
    };
    r.finish()?;
    let needs_nav = config.planner.uses_nav()
        || agents
            .iter()
            .any(|(_, a)| a.planner().is_some_and(|p| p.uses_nav()));
    if needs_nav && nav.is_none() {
        return Err(corrupt(
            "a planner needs the navigation graph, which is missing",
        ));
    }
    let mut occupancy = Occupancy::new(grid.len());
    if config.conflicts.separates() {
        for (id, agent) in agents.iter() {
            if occupancy.agent_at(agent.position()).is_some() {
                return Err(corrupt("two agents on one cell with conflicts on"));
            }
            occupancy.set(agent.position(), id.index());
        }
    }
    let mut sim = Simulation {
        grid,
        agents,
        config,
        tick,
        commands,
        occupancy,
        planning: PlanningStage::new(),
        movement: {
            let mut movement = MovementStage::new();
            if let Some(ties) = ties {
                movement.set_spatial_ties(ties);
            }
            movement
        },
        metrics,
        component_cells: Vec::new(),
        nav,
        settle,
        events,
        calls,
        named: Vec::new(),
        stuck,
        retry: Vec::new(),
    };
    sim.index_components();
    Ok(sim)
}

fn read_grid(r: &mut Reader<'_>) -> Result<Grid, SnapshotError> {
    let (width, height) = (r.u32()?, r.u32()?);
    let neighborhood = match r.u8()? {
        4 => Neighborhood::Four,
        8 => Neighborhood::Eight,
        n => return Err(corrupt(format!("movement rule {n}"))),
    };
    let cells = u64::from(width) * u64::from(height);
    if cells > crate::grid::MAX_CELLS || cells == 0 {
        return Err(corrupt(format!("a {width} x {height} grid")));
    }
    let cells = cells as usize;
    let bits = r.take(cells.div_ceil(8))?;
    let walkable: Vec<bool> = (0..cells)
        .map(|i| bits[i / 8] >> (i % 8) & 1 == 1)
        .collect();
    let mut grid = Grid::from_walkable(width, height, walkable)
        .map_err(|e| corrupt(e.to_string()))?
        .with_neighborhood(neighborhood);
    if r.bool()? {
        let raw = r.take(cells.checked_mul(4).ok_or_else(|| corrupt("costs"))?)?;
        let costs = raw
            .chunks_exact(4)
            .map(|b| f32::from_bits(u32::from_le_bytes(b.try_into().expect("4 bytes"))))
            .collect();
        grid = grid.with_costs(costs).map_err(|e| corrupt(e.to_string()))?;
    }
    grid.set_wall_edits(r.u64()?);
    Ok(grid)
}

fn read_changes(r: &mut Reader<'_>) -> Result<Vec<CellChange>, SnapshotError> {
    let n = r.count(5, "cell changes")?;
    let mut changes = Vec::with_capacity(n);
    for _ in 0..n {
        let tag = r.u8()?;
        let cell = r.u32()?;
        changes.push(match tag {
            0 | 1 => CellChange::SetWalkable {
                cell,
                walkable: tag == 1,
            },
            2 => CellChange::SetCost {
                cell,
                cost: f32::from_bits(r.u32()?),
            },
            _ => return Err(corrupt(format!("cell change code {tag}"))),
        });
    }
    Ok(changes)
}

fn id(r: &mut Reader<'_>) -> Result<AgentId, SnapshotError> {
    Ok(AgentId::from_bits(r.u64()?))
}

fn read_command(r: &mut Reader<'_>) -> Result<Command, SnapshotError> {
    Ok(match r.u8()? {
        0 => Command::AddAgent {
            start: r.u32()?,
            goal: r.opt_u32()?,
        },
        1 => Command::RemoveAgent(id(r)?),
        2 => Command::SetGoal {
            agent: id(r)?,
            goal: r.u32()?,
        },
        3 => Command::ChangeMap(read_changes(r)?),
        c => return Err(corrupt(format!("command code {c}"))),
    })
}

fn read_events(r: &mut Reader<'_>) -> Result<TickEvents, SnapshotError> {
    let mut e = TickEvents::new(r.u64()?);
    for _ in 0..r.count(35, "plans")? {
        e.plans.push(PlanMade {
            agent: id(r)?,
            start: r.u32()?,
            goal: r.u32()?,
            reason: code::to_reason(r.u8()?)?,
            found: r.bool()?,
            repaired: r.bool()?,
            expanded: r.u64()?,
            nanos: r.u64()?,
        });
    }
    e.deferred = r.u32()?;
    for _ in 0..r.count(16, "moves")? {
        e.moves.push(Move {
            agent: id(r)?,
            from: r.u32()?,
            to: r.u32()?,
        });
    }
    e.waiting = r.u32()?;
    e.swaps = r.u32()?;
    for _ in 0..r.count(14, "arrivals")? {
        e.arrivals.push(Arrival {
            agent: id(r)?,
            cell: r.u32()?,
            kind: code::to_arrival(r.u8()?)?,
            counted: r.bool()?,
        });
    }
    for _ in 0..r.count(9, "goal changes")? {
        e.goals.push(GoalChange {
            agent: id(r)?,
            goal: r.opt_u32()?,
        });
    }
    for _ in 0..r.count(9, "action outcomes")? {
        e.outcomes.push((id(r)?, code::to_outcome(r.u8()?)?));
    }
    e.cells = read_changes(r)?;
    for k in 0..2 {
        for _ in 0..r.count(12, "agents added or removed")? {
            let (agent, cell) = (id(r)?, r.u32()?);
            if k == 0 {
                e.agent_added(agent, cell);
            } else {
                e.agent_removed(agent, cell);
            }
        }
    }
    Ok(e)
}

fn read_stuck(r: &mut Reader<'_>, grid: &Grid) -> Result<StuckResolution, SnapshotError> {
    let cells = grid.len() as u64;
    let goal = r.u32s("stuck goals")?;
    let best = r.u32s("stuck bests")?;
    let since = r.u64s("stuck ticks")?;
    let last_progress = r.u64()?;
    let window = r.u64()?;
    let slots = r.u32s("stuck slots")?;
    let steps = r.count(8, "plan steps")?;
    let mut plan = Vec::with_capacity(steps);
    for _ in 0..steps {
        let step = r.u32s_below(cells, "plan step")?;
        if step.len() != slots.len() {
            return Err(corrupt("a plan step does not move every agent of the plan"));
        }
        plan.push(step);
    }
    let cursor = r.index(plan.len(), "plan cursor")?;
    if cursor == 0 && !plan.is_empty() {
        return Err(corrupt("plan cursor"));
    }
    Ok(StuckResolution {
        goal,
        best,
        since,
        last_progress,
        window,
        slots,
        plan,
        cursor,
        unsolvable: r.bool()?,
        triggers: r.u64()?,
        ticks: r.u64()?,
        agents: r.u64()?,
    })
}

fn read_histogram(r: &mut Reader<'_>) -> Result<Histogram<u64>, SnapshotError> {
    let mut h = Histogram::new(3).expect("valid precision");
    for _ in 0..r.count(16, "histogram buckets")? {
        let (value, count) = (r.u64()?, r.u64()?);
        h.record_n(value, count)
            .map_err(|e| corrupt(format!("histogram: {e:?}")))?;
    }
    Ok(h)
}

fn read_metrics(r: &mut Reader<'_>) -> Result<Metrics, SnapshotError> {
    let plan_ns = read_histogram(r)?;
    let repair_ns = read_histogram(r)?;
    let replan_ns = read_histogram(r)?;
    let tick_ns = read_histogram(r)?;
    let move_ns = read_histogram(r)?;
    let summary = read_summary(r)?;
    let mut phases = [0f64; 7];
    for x in &mut phases {
        *x = f64::from_bits(r.u64()?);
    }
    let commands = f64::from_bits(r.u64()?);
    let planning = f64::from_bits(r.u64()?);
    Ok(Metrics {
        plan_ns,
        repair_ns,
        replan_ns,
        tick_ns,
        move_ns,
        steady_phases: PhaseTimes::from_values(phases),
        steady_commands_ms: commands,
        steady_planning_ms: planning,
        summary,
    })
}

/// Reads what `write_summary` wrote.
fn read_summary(r: &mut Reader<'_>) -> Result<RunSummary, SnapshotError> {
    let mut v = [0u64; 53];
    for x in &mut v {
        *x = r.u64()?;
    }
    let mut values = v.into_iter();
    let mut next = || values.next().expect("one value per field");
    let narrow =
        |x: u64, what: &str| u32::try_from(x).map_err(|_| corrupt(format!("summary {what}")));
    let flag = |x: u64, what: &str| match x {
        0 | 1 => Ok(x == 1),
        _ => Err(corrupt(format!("summary {what}"))),
    };
    let end_status = |x: u64| {
        Ok(match x {
            0 => EndStatus::AllArrived,
            1 => EndStatus::Unsolvable,
            2 => EndStatus::TickLimit,
            3 => EndStatus::Lifelong,
            _ => return Err(corrupt("summary end status")),
        })
    };
    Ok(RunSummary {
        ticks: next(),
        agents: narrow(next(), "agents")?,
        threads: next() as usize,
        plans: next(),
        plans_failed: next(),
        nodes_expanded: next(),
        plans_per_sec: f64::from_bits(next()),
        moves_per_sec: f64::from_bits(next()),
        ticks_per_sec: f64::from_bits(next()),
        first_tick_ms: f64::from_bits(next()),
        steady_ticks_per_sec: f64::from_bits(next()),
        wall_s: f64::from_bits(next()),
        planning_s: f64::from_bits(next()),
        plan_us_p50: f64::from_bits(next()),
        plan_us_p90: f64::from_bits(next()),
        plan_us_p99: f64::from_bits(next()),
        plan_us_max: f64::from_bits(next()),
        tick_ms_p50: f64::from_bits(next()),
        tick_ms_p90: f64::from_bits(next()),
        tick_ms_p99: f64::from_bits(next()),
        tick_ms_max: f64::from_bits(next()),
        moves: next(),
        arrived: narrow(next(), "arrived")?,
        goals_reached: next(),
        goals_per_tick: f64::from_bits(next()),
        sum_of_costs: next(),
        makespan: next(),
        final_state_hash: next(),
        dstar_bytes_p50: next(),
        dstar_bytes_max: next(),
        dstar_repairs: next(),
        dstar_restarts: next(),
        repairs: next(),
        repair_us_p50: f64::from_bits(next()),
        repair_us_p99: f64::from_bits(next()),
        replans: next(),
        replan_us_p50: f64::from_bits(next()),
        replan_us_p99: f64::from_bits(next()),
        plans_new_goal: next(),
        replans_map_changed: next(),
        replans_blocked: next(),
        replans_drifted: next(),
        swaps: next(),
        all_arrived: flag(next(), "all_arrived")?,
        arrived_fraction: f64::from_bits(next()),
        resolve_triggers: next(),
        resolve_ticks: next(),
        resolve_agents: next(),
        end_status: end_status(next())?,
        move_ms_p50: f64::from_bits(next()),
        move_ms_p99: f64::from_bits(next()),
        route_bytes_per_agent: f64::from_bits(next()),
        phase_ns: PhaseNanos {
            agent_ticks: next(),
            ..PhaseNanos::default()
        },
    })
}
