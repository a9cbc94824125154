//! Embedding throng in an application: build a simulation, add agents, step it and read the
//! reports; then run it on its own thread and drive it from a (pretend) frame loop.
//!
//! ```sh
//! cargo run --release --example embed
//! ```

use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use throng::error::Error;
use throng::grid::procgen::MapGenerator;
use throng::grid::{CellId, Grid};
use throng::sim::{
    AgentState, Command, RunnerConfig, SimConfig, Simulation, SimulationHandle, TickReport,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. A map. Any `Grid` works: `throng::movingai::load_map("sims/maps/den520d.map")`, a
    //    grid built from your game's tiles with `Grid::from_walkable`, or a procedural one.
    let grid = MapGenerator::Rooms {
        width: 160,
        height: 160,
        room: 15,
        door: 3,
    }
    .generate(7)?;
    println!(
        "map: {} x {} rooms, {} walkable cells",
        grid.width(),
        grid.height(),
        grid.walkable_count()
    );

    // 2. The simulation. Settings are plain data with documented defaults; here lifelong
    //    goals (an agent that arrives gets a new one) and at most 200 plans per tick, so a
    //    burst of new goals is spread over a few ticks instead of stalling one.
    let config = SimConfig {
        lifelong: true,
        max_plans_per_tick: Some(200),
        seed: 7,
        ..SimConfig::default()
    };
    let mut sim = Simulation::new(grid, config)?;

    // 3. A few hundred agents on random cells of the largest connected area. Adding an agent
    //    on a taken cell is an error the caller can handle (conflicts are on by default).
    let cells = largest_component(sim.grid());
    let mut rng = SplitMix(42);
    let mut agents = Vec::new();
    while agents.len() < 400 {
        let start = cells[rng.below(cells.len())];
        let goal = cells[rng.below(cells.len())];
        match sim.add_agent(start, Some(goal)) {
            Ok(id) => agents.push(id),
            Err(Error::CellOccupied { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    println!("{} agents added", sim.agents().len());

    // 4. Step it and read the reports: every tick says what it did and how long it took.
    println!("\n tick  plans deferred  moved waiting  goals  at_goal   tick_ms");
    for _ in 0..300 {
        let report = sim.step();
        if report.tick.is_multiple_of(50) || report.tick < 3 {
            print_report(&report);
        }
    }
    let first = agents[0];
    let agent = sim.agent(first).expect("never removed");
    println!(
        "agent {first:?}: at {:?}, {:?}, {} goals reached, {} cells walked, {} cells to go",
        sim.grid().coords(agent.position()),
        agent.state(),
        agent.goals_reached(),
        agent.moves(),
        agent.remaining_path().len()
    );

    // Removing an agent frees its cell; its handle then resolves to nothing, never to another
    // agent.
    sim.remove_agent(agents[1])?;
    assert!(sim.agent(agents[1]).is_none());

    // 5. The run summary (serializable: `serde_json::to_string(&summary)`).
    let summary = sim.summary();
    println!(
        "\nsummary: {} ticks, {} agents, {} plans ({:.0} plans/s, p99 {:.0} us), \
         {} goals reached ({:.2} per tick), {:.1} ticks/s",
        summary.ticks,
        summary.agents,
        summary.plans,
        summary.plans_per_sec,
        summary.plan_us_p99,
        summary.goals_reached,
        summary.goals_per_tick,
        summary.ticks_per_sec
    );

    // 6. The same simulation on its own thread, driven from a frame loop that never waits on
    //    it: commands and queries go in through a channel, tick reports come out through
    //    another. Here the simulation ticks every 5 ms while the "game" draws at ~60 frames
    //    per second.
    let handle = SimulationHandle::spawn(
        sim,
        RunnerConfig {
            tick_interval: Some(Duration::from_millis(5)),
            start_running: true,
            ..RunnerConfig::default()
        },
    )?;
    println!("\nframe  ticks  reports  goals  drawn_agents  frame_ms");
    let mut positions: Option<Receiver<Vec<CellId>>> = None;
    let mut drawn = 0;
    let mut goals = 0;
    let mut last_tick = None;
    for frame in 0..40u32 {
        let frame_start = Instant::now();

        // Everything the simulation did since the last frame; never blocks.
        let reports: Vec<TickReport> = handle.drain_reports().collect();
        for report in &reports {
            goals += report.goals_reached;
            for id in &report.added {
                println!("       (agent {id:?} joined at tick {})", report.tick);
            }
            last_tick = Some(report.tick);
        }

        // Positions to draw: ask for a snapshot, pick it up on a later frame when it is ready.
        if let Some(rx) = &positions
            && let Ok(cells) = rx.try_recv()
        {
            drawn = cells.len(); // draw(cells) in a real game
            positions = None;
        }
        if positions.is_none() {
            positions = Some(handle.with(|sim| {
                sim.agents()
                    .iter()
                    .filter(|(_, a)| a.state() != AgentState::NoPath)
                    .map(|(_, a)| a.position())
                    .collect()
            })?);
        }

        // The player clicks: a new agent appears (applied at the next tick).
        if frame == 20 {
            let start = cells[rng.below(cells.len())];
            let goal = cells[rng.below(cells.len())];
            handle.send(Command::AddAgent {
                start,
                goal: Some(goal),
            })?;
        }

        if frame % 5 == 0 {
            println!(
                "{frame:>5} {:>6} {:>8} {goals:>6} {drawn:>13} {:>9.3}",
                handle.ticks_played(),
                reports.len(),
                frame_start.elapsed().as_secs_f64() * 1e3
            );
        }
        // Render, sleep until the next frame.
        std::thread::sleep(Duration::from_millis(16).saturating_sub(frame_start.elapsed()));
    }

    // 7. Take the simulation back, for a save game or a final report.
    let sim = handle.stop();
    println!(
        "\nstopped at tick {} (last report seen: {last_tick:?}), {} agents, {} goals reached in all",
        sim.tick(),
        sim.agents().len(),
        sim.summary().goals_reached
    );
    Ok(())
}

fn print_report(r: &TickReport) {
    println!(
        "{:>5} {:>6} {:>8} {:>6} {:>7} {:>6} {:>8} {:>9.3}",
        r.tick,
        r.plans,
        r.plans_deferred,
        r.moved,
        r.waiting,
        r.goals_reached,
        r.at_goal,
        r.wall_ms
    );
}

/// The walkable cells of the grid's largest connected component.
fn largest_component(grid: &Grid) -> Vec<CellId> {
    let largest = grid.components().largest();
    (0..grid.len() as CellId)
        .filter(|&c| grid.components().of(c) == largest)
        .collect()
}

/// A tiny seeded generator, enough to place agents.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}
