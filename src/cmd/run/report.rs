//! What `throng run` prints and writes: the summary table and the per-tick CSV series.

use std::io::{self, Write};

use super::*;

pub(super) fn print_run(
    out: &mut impl Write,
    scenario: &Scenario,
    played: &Played,
) -> io::Result<()> {
    let s = &played.summary;
    let config = scenario.sim_config();
    let overrides: Vec<&str> = scenario.overrides().collect();
    let name = match (scenario.description.is_empty(), overrides.is_empty()) {
        (true, _) => scenario.name.clone(),
        (false, true) => format!("{}: {}", scenario.name, scenario.description),
        // The file's words describe its own settings, not the overridden ones.
        (false, false) => format!(
            "{}: {} (the file's description, before {})",
            scenario.name,
            scenario.description,
            overrides.join(", ")
        ),
    };
    writeln!(out, "scenario     {name}")?;
    writeln!(
        out,
        "map          {} ({})",
        scenario.map_label(),
        played.map_size
    )?;
    writeln!(
        out,
        "setup        {} agents, {} thread{}, seed {}, planner {}, conflicts {}, action model {}, \
         {}{} ({:.2} s)",
        s.agents,
        s.threads,
        if s.threads == 1 { "" } else { "s" },
        scenario.seed,
        config.planner,
        config.conflicts,
        config.action_model,
        if config.lifelong {
            "lifelong"
        } else {
            "one-shot"
        },
        config
            .max_plans_per_tick
            .map_or(String::new(), |m| format!(", at most {m} plans/tick")),
        played.setup_s
    )?;
    if !scenario.planner_mix.is_empty() {
        let mix: Vec<String> = scenario
            .planner_mix
            .iter()
            .map(|(p, f)| format!("{p} {f}"))
            .collect();
        writeln!(
            out,
            "planner mix  {}; the rest {}",
            mix.join(", "),
            config.planner
        )?;
    }
    writeln!(
        out,
        "ticks        {}{} in {:.2} s: {:.1} ticks/s",
        s.ticks,
        if s.end_status == throng::sim::EndStatus::Unsolvable && !config.lifelong {
            " (unsolvable: not every agent can reach its goal)"
        } else if played.finished_early {
            " (every agent done)"
        } else if !config.lifelong && !s.all_arrived {
            " (the tick limit, before every agent arrived: --ticks N plays longer)"
        } else {
            ""
        },
        s.wall_s,
        s.ticks_per_sec
    )?;
    writeln!(
        out,
        "first tick   {:.3} ms; after it {:.1} ticks/s",
        s.first_tick_ms, s.steady_ticks_per_sec
    )?;
    writeln!(
        out,
        "tick ms      p50 {:.3}, p90 {:.3}, p99 {:.3}, max {:.3}",
        s.tick_ms_p50, s.tick_ms_p90, s.tick_ms_p99, s.tick_ms_max
    )?;
    writeln!(
        out,
        "movement ms  p50 {:.3}, p99 {:.3} per tick{}",
        s.move_ms_p50,
        s.move_ms_p99,
        if s.swaps > 0 {
            format!("; {} swaps", s.swaps)
        } else {
            String::new()
        }
    )?;
    writeln!(
        out,
        "plans        {} ({} failed) in {:.2} s of planning: {:.0} plans/s",
        s.plans, s.plans_failed, s.planning_s, s.plans_per_sec
    )?;
    writeln!(
        out,
        "plans for    new goal {}, map change {}, blocked {}, drifted {}",
        s.plans_new_goal, s.replans_map_changed, s.replans_blocked, s.replans_drifted
    )?;
    writeln!(
        out,
        "plan us      p50 {:.1}, p90 {:.1}, p99 {:.1}, max {:.1}",
        s.plan_us_p50, s.plan_us_p90, s.plan_us_p99, s.plan_us_max
    )?;
    let expanded = if s.plans > 0 {
        s.nodes_expanded as f64 / s.plans as f64
    } else {
        0.0
    };
    writeln!(out, "expanded     {expanded:.0} nodes per plan (mean)")?;
    let p = &s.phase_ns;
    if p.agent_ticks > 0 {
        // Phases under 0.05 ns an agent (those the run's modes do not have) are left out.
        let parts: Vec<String> = [
            ("commands", p.commands),
            ("planning", p.planning),
            ("ordering", p.ordering),
            ("ranking", p.ranking),
            ("deciding", p.deciding),
            ("applying", p.applying),
            ("resolving", p.resolving),
            ("after moves", p.after_moves),
            ("closing", p.closing),
        ]
        .iter()
        .filter(|(_, ns)| *ns >= 0.05)
        .map(|(name, ns)| format!("{name} {ns:.1}"))
        .collect();
        writeln!(
            out,
            "phases ns    per agent a tick after the first: {}",
            parts.join(", ")
        )?;
    }
    let mut resources = vec![format!(
        "routes {:.0} bytes per agent",
        s.route_bytes_per_agent
    )];
    if let Some(cores) = played.steady_cores {
        resources.push(format!("{cores:.2} cores busy after the first tick"));
    }
    if let Some(mib) = played.peak_memory_mib {
        resources.push(format!("peak resident memory {mib:.0} MiB"));
    }
    writeln!(out, "resources    {}", resources.join("; "))?;
    writeln!(
        out,
        "moves        {}: {:.0} moves/s",
        s.moves, s.moves_per_sec
    )?;
    if config.lifelong {
        // Arrivals, sum of costs and makespan describe one-shot runs; here agents always have
        // a goal, and throughput is the measure.
        writeln!(
            out,
            "goals        {} reached, {:.2} per tick (lifelong throughput)",
            s.goals_reached, s.goals_per_tick
        )?;
    } else {
        // Trips not finished are not in the sum: say so when there are any.
        writeln!(
            out,
            "arrived      {} of {} at goal ({:.1}%{}); sum of costs {}, makespan {}{}",
            s.arrived,
            s.agents,
            100.0 * s.arrived_fraction,
            if s.all_arrived { ", all" } else { "" },
            s.sum_of_costs,
            s.makespan,
            if s.all_arrived {
                String::new()
            } else {
                format!(
                    " (arrived agents only: {} not at their goal)",
                    s.agents - s.arrived
                )
            }
        )?;
    }
    let resolved = (s.resolve_triggers > 0).then(|| {
        format!(
            "stuck crowd handed to LaCAM {} time{} ({} agents in all), {} ticks following its plans",
            s.resolve_triggers,
            if s.resolve_triggers == 1 { "" } else { "s" },
            s.resolve_agents,
            s.resolve_ticks
        )
    });
    if !config.lifelong {
        writeln!(
            out,
            "end status   {}{}",
            s.end_status.name(),
            resolved.map(|r| format!("; {r}")).unwrap_or_default()
        )?;
    } else if let Some(r) = resolved {
        writeln!(out, "resolution   {r}")?;
    }
    if s.dstar_bytes_max > 0 {
        writeln!(
            out,
            "D* Lite      {} bytes per agent (median), {} max; {} repairs, {} restarts",
            s.dstar_bytes_p50, s.dstar_bytes_max, s.dstar_repairs, s.dstar_restarts
        )?;
    }
    if s.repairs > 0 || s.replans > 0 {
        writeln!(
            out,
            "repairs      {} (p50 {:.1} us, p99 {:.1} us); replans {} (p50 {:.1} us, p99 {:.1} us)",
            s.repairs,
            s.repair_us_p50,
            s.repair_us_p99,
            s.replans,
            s.replan_us_p50,
            s.replan_us_p99
        )?;
    }
    if let Some(t) = &played.trace {
        let mb = |b: u64| b as f64 / 1e6;
        writeln!(
            out,
            "trace        {} ticks, {:.2} MB ({:.2} MB uncompressed); recorder {:.3} s, {:.1}% of the run",
            t.ticks,
            mb(t.bytes),
            mb(t.raw_bytes),
            t.recorder_s,
            if t.loop_s > 0.0 {
                100.0 * t.recorder_s / t.loop_s
            } else {
                0.0
            }
        )?;
    }
    if let Some(p) = &played.pictures {
        let frames = if p.frames > 0 {
            format!("{} frames, {:.2} MB, ", p.frames, p.bytes as f64 / 1e6)
        } else {
            String::new()
        };
        writeln!(
            out,
            "pictures     {}{}drawing {:.3} s, {:.1}% of the run{}",
            frames,
            if p.size.0 > 0 {
                format!("{} x {} pixels; ", p.size.0, p.size.1)
            } else {
                String::new()
            },
            p.render_s,
            if p.loop_s > 0.0 {
                100.0 * p.render_s / p.loop_s
            } else {
                0.0
            },
            if p.frames > 0 {
                format!(
                    "; encoding {:.3} s on its own thread ({:.1}%)",
                    p.encode_s,
                    100.0 * p.encode_s / p.loop_s.max(1e-9)
                )
            } else {
                String::new()
            }
        )?;
    }
    if let Some(p) = &played.paths {
        writeln!(
            out,
            "paths        {} agents x {} ticks (the start and every tick played), {:.2} MB",
            p.agents,
            p.ticks,
            p.bytes as f64 / 1e6
        )?;
    }
    writeln!(out, "state hash   {:016x}", s.final_state_hash)
}

/// The per-tick series' header line.
pub(super) fn write_csv_header(w: &mut impl Write) -> io::Result<()> {
    writeln!(
        w,
        "tick,wall_ms,commands_ms,planning_ms,movement_ms,plans,plans_failed,plans_deferred,\
         nodes_expanded,moved,waiting,goals_reached,agents,at_goal,no_path,state_hash,added,rejected"
    )
}

/// One row of the per-tick series (`added` and `rejected` as counts).
pub(super) fn write_csv_row(w: &mut impl Write, r: &TickReport) -> io::Result<()> {
    writeln!(
        w,
        "{},{:.4},{:.4},{:.4},{:.4},{},{},{},{},{},{},{},{},{},{},{:016x},{},{}",
        r.tick,
        r.wall_ms,
        r.commands_ms,
        r.planning_ms,
        r.movement_ms,
        r.plans,
        r.plans_failed,
        r.plans_deferred,
        r.nodes_expanded,
        r.moved,
        r.waiting,
        r.goals_reached,
        r.agents,
        r.at_goal,
        r.no_path,
        r.state_hash,
        r.added.len(),
        r.rejected.len()
    )
}
