//! Writing a simulation's state: the envelope of `format.rs` around the payload, whose parts
//! come in this order (each read back in the same order by `read.rs`):
//!
//! 1. the grid: size, movement rule, walkable cells (bits), cell costs, wall edits;
//! 2. the settings ([`SimConfig`](crate::sim::SimConfig) as JSON: a new setting is carried
//!    without a change here) and the tick;
//! 3. the agents (`sim/agent/snapshot.rs`, D* Lite states in `dstar/snapshot.rs`);
//! 4. the queued commands and the controlled agents left to settle;
//! 5. the calls since the last tick and the last tick's events;
//! 6. the watch for a stuck crowd, with a LaCAM plan in flight;
//! 7. the metrics: the histograms' buckets and the run summary so far;
//! 8. the navigation graph (its own file format, embedded) and its heuristic weight.
//!
//! What is derived is not written: the occupancy, the flat positions, the components' cells,
//! the jump table and every per-tick scratch buffer.

use hdrhistogram::Histogram;

use super::format::{CRATE_VERSION, FORMAT_VERSION, MAGIC, Writer, checksum, code};
use crate::grid::{CellChange, Grid, Neighborhood};
use crate::sim::command::Command;
use crate::sim::events::TickEvents;
use crate::sim::metrics::{EndStatus, Metrics, RunSummary};
use crate::sim::simulation::Simulation;
use crate::sim::stuck::StuckResolution;

/// Writes the whole snapshot of `sim` into `out` (cleared first).
pub(super) fn snapshot(sim: &Simulation, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(CRATE_VERSION.len() as u8);
    out.extend_from_slice(CRATE_VERSION.as_bytes());
    let hash_at = out.len();
    out.extend_from_slice(&[0; 16]); // map hash and payload length, filled in below
    let payload_at = out.len();
    let mut w = Writer { out };
    write_grid(&mut w, &sim.grid);
    let map_hash = checksum(&w.out[payload_at..]);
    write_payload(&mut w, sim);
    let payload = (out.len() - payload_at) as u64;
    out[hash_at..hash_at + 8].copy_from_slice(&map_hash.to_le_bytes());
    out[hash_at + 8..hash_at + 16].copy_from_slice(&payload.to_le_bytes());
    let sum = checksum(out);
    out.extend_from_slice(&sum.to_le_bytes());
}

fn write_grid(w: &mut Writer<'_>, grid: &Grid) {
    w.u32(grid.width());
    w.u32(grid.height());
    w.u8(match grid.neighborhood() {
        Neighborhood::Four => 4,
        Neighborhood::Eight => 8,
    });
    for chunk in grid.walkable_table().chunks(8) {
        let byte = chunk
            .iter()
            .enumerate()
            .fold(0u8, |b, (i, &walk)| b | u8::from(walk) << i);
        w.u8(byte);
    }
    w.bool(grid.is_weighted());
    if let Some(costs) = grid.cost_table() {
        for c in costs {
            w.u32(c.to_bits());
        }
    }
    w.u64(grid.wall_edits());
}

fn write_payload(w: &mut Writer<'_>, sim: &Simulation) {
    let config = serde_json::to_vec(&sim.config).expect("the settings serialize");
    w.bytes(&config);
    w.u64(sim.tick);
    sim.agents.write_snapshot(w);
    w.len(sim.commands.len());
    for command in &sim.commands {
        write_command(w, command);
    }
    w.u32s(&sim.settle);
    write_events(w, &sim.calls);
    write_events(w, &sim.events);
    write_stuck(w, &sim.stuck);
    // PIBT's tie-breaks when they follow the map: drawn from the cells of an earlier tick, so
    // not to be drawn again on restore.
    let ties = sim.movement.spatial_ties();
    w.bool(ties.is_some());
    if let Some(t) = ties {
        w.u64(t.seed);
        w.u64(t.epoch);
        w.u32s(&t.ties);
    }
    write_metrics(w, &sim.metrics);
    w.bool(sim.nav.is_some());
    if let Some(nav) = &sim.nav {
        w.bytes(&nav.to_bytes());
        w.f64(nav.heuristic_weight());
    }
}

fn write_changes(w: &mut Writer<'_>, changes: &[CellChange]) {
    w.len(changes.len());
    for change in changes {
        match *change {
            CellChange::SetWalkable { cell, walkable } => {
                w.u8(u8::from(walkable));
                w.u32(cell);
            }
            CellChange::SetCost { cell, cost } => {
                w.u8(2);
                w.u32(cell);
                w.u32(cost.to_bits());
            }
        }
    }
}

fn write_command(w: &mut Writer<'_>, command: &Command) {
    match command {
        Command::AddAgent { start, goal } => {
            w.u8(0);
            w.u32(*start);
            w.opt_u32(*goal);
        }
        Command::RemoveAgent(id) => {
            w.u8(1);
            w.u64(id.to_bits());
        }
        Command::SetGoal { agent, goal } => {
            w.u8(2);
            w.u64(agent.to_bits());
            w.u32(*goal);
        }
        Command::ChangeMap(changes) => {
            w.u8(3);
            write_changes(w, changes);
        }
    }
}

fn write_events(w: &mut Writer<'_>, e: &TickEvents) {
    w.u64(e.tick);
    w.len(e.plans.len());
    for p in &e.plans {
        w.u64(p.agent.to_bits());
        w.u32(p.start);
        w.u32(p.goal);
        w.u8(p.reason.code());
        w.bool(p.found);
        w.bool(p.repaired);
        w.u64(p.expanded);
        w.u64(p.nanos);
    }
    w.u32(e.deferred);
    w.len(e.moves.len());
    for m in &e.moves {
        w.u64(m.agent.to_bits());
        w.u32(m.from);
        w.u32(m.to);
    }
    w.u32(e.waiting);
    w.u32(e.swaps);
    w.len(e.arrivals.len());
    for a in &e.arrivals {
        w.u64(a.agent.to_bits());
        w.u32(a.cell);
        w.u8(code::arrival(a.kind));
        w.bool(a.counted);
    }
    w.len(e.goals.len());
    for g in &e.goals {
        w.u64(g.agent.to_bits());
        w.opt_u32(g.goal);
    }
    w.len(e.outcomes.len());
    for (id, o) in &e.outcomes {
        w.u64(id.to_bits());
        w.u8(code::outcome(*o));
    }
    write_changes(w, &e.cells);
    for (ids, cells) in [(&e.added, &e.added_cells), (&e.removed, &e.removed_cells)] {
        w.len(ids.len());
        for (id, &cell) in ids.iter().zip(cells.iter()) {
            w.u64(id.to_bits());
            w.u32(cell);
        }
    }
}

fn write_stuck(w: &mut Writer<'_>, s: &StuckResolution) {
    w.u32s(&s.goal);
    w.u32s(&s.best);
    w.u64s(&s.since);
    w.u64(s.last_progress);
    w.u64(s.window);
    w.u32s(&s.slots);
    w.len(s.plan.len());
    for step in &s.plan {
        w.u32s(step);
    }
    w.len(s.cursor);
    w.bool(s.unsolvable);
    w.u64(s.triggers);
    w.u64(s.ticks);
    w.u64(s.agents);
}

fn write_histogram(w: &mut Writer<'_>, h: &Histogram<u64>) {
    let buckets: Vec<(u64, u64)> = h
        .iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect();
    w.len(buckets.len());
    for (value, count) in buckets {
        w.u64(value);
        w.u64(count);
    }
}

fn write_metrics(w: &mut Writer<'_>, m: &Metrics) {
    for h in [
        &m.plan_ns,
        &m.repair_ns,
        &m.replan_ns,
        &m.tick_ns,
        &m.move_ns,
    ] {
        write_histogram(w, h);
    }
    write_summary(w, &m.summary);
    let times = m.steady_phases.values();
    for ms in times
        .into_iter()
        .chain([m.steady_commands_ms, m.steady_planning_ms])
    {
        w.u64(ms.to_bits());
    }
}

/// Writes the run summary so far, every field as 8 bytes (floats as their bits: a summary read
/// back is equal to the bit).
fn write_summary(w: &mut Writer<'_>, s: &RunSummary) {
    let RunSummary {
        ticks,
        agents,
        threads,
        plans,
        plans_failed,
        nodes_expanded,
        plans_per_sec,
        moves_per_sec,
        ticks_per_sec,
        first_tick_ms,
        steady_ticks_per_sec,
        wall_s,
        planning_s,
        plan_us_p50,
        plan_us_p90,
        plan_us_p99,
        plan_us_max,
        tick_ms_p50,
        tick_ms_p90,
        tick_ms_p99,
        tick_ms_max,
        moves,
        arrived,
        goals_reached,
        goals_per_tick,
        sum_of_costs,
        makespan,
        final_state_hash,
        dstar_bytes_p50,
        dstar_bytes_max,
        dstar_repairs,
        dstar_restarts,
        repairs,
        repair_us_p50,
        repair_us_p99,
        replans,
        replan_us_p50,
        replan_us_p99,
        plans_new_goal,
        replans_map_changed,
        replans_blocked,
        replans_drifted,
        swaps,
        all_arrived,
        arrived_fraction,
        resolve_triggers,
        resolve_ticks,
        resolve_agents,
        end_status,
        move_ms_p50,
        move_ms_p99,
        phase_ns,
        route_bytes_per_agent,
    } = s;
    for v in [
        *ticks,
        u64::from(*agents),
        *threads as u64,
        *plans,
        *plans_failed,
        *nodes_expanded,
        plans_per_sec.to_bits(),
        moves_per_sec.to_bits(),
        ticks_per_sec.to_bits(),
        first_tick_ms.to_bits(),
        steady_ticks_per_sec.to_bits(),
        wall_s.to_bits(),
        planning_s.to_bits(),
        plan_us_p50.to_bits(),
        plan_us_p90.to_bits(),
        plan_us_p99.to_bits(),
        plan_us_max.to_bits(),
        tick_ms_p50.to_bits(),
        tick_ms_p90.to_bits(),
        tick_ms_p99.to_bits(),
        tick_ms_max.to_bits(),
        *moves,
        u64::from(*arrived),
        *goals_reached,
        goals_per_tick.to_bits(),
        *sum_of_costs,
        *makespan,
        *final_state_hash,
        *dstar_bytes_p50,
        *dstar_bytes_max,
        *dstar_repairs,
        *dstar_restarts,
        *repairs,
        repair_us_p50.to_bits(),
        repair_us_p99.to_bits(),
        *replans,
        replan_us_p50.to_bits(),
        replan_us_p99.to_bits(),
        *plans_new_goal,
        *replans_map_changed,
        *replans_blocked,
        *replans_drifted,
        *swaps,
        u64::from(*all_arrived),
        arrived_fraction.to_bits(),
        *resolve_triggers,
        *resolve_ticks,
        *resolve_agents,
        end_status_code(*end_status),
        move_ms_p50.to_bits(),
        move_ms_p99.to_bits(),
        route_bytes_per_agent.to_bits(),
        phase_ns.agent_ticks,
    ] {
        w.u64(v);
    }
}

/// The code of an end status in a snapshot.
fn end_status_code(e: EndStatus) -> u64 {
    match e {
        EndStatus::AllArrived => 0,
        EndStatus::Unsolvable => 1,
        EndStatus::TickLimit => 2,
        EndStatus::Lifelong => 3,
    }
}
