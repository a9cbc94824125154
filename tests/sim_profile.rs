//! The tick's own profile: each phase's time in the tick report (`TickReport::phases`), the
//! run's time per agent in each phase (`RunSummary::phase_ns`) and the routes' memory
//! (`RunSummary::route_bytes_per_agent`).

use throng::grid::Grid;
use throng::sim::{ConflictMode, SimConfig, Simulation};

const AGENTS: u32 = 600;
const TICKS: usize = 30;

/// 600 agents crossing an open 64 x 64 grid in conflict mode `conflicts`.
fn crowd(conflicts: ConflictMode) -> Simulation {
    let grid = Grid::from_ascii(&vec![".".repeat(64); 64].join("\n")).unwrap();
    let config = SimConfig {
        conflicts,
        ..SimConfig::default()
    };
    let mut sim = Simulation::new(grid, config).unwrap();
    for i in 0..AGENTS {
        let start = i * 7 % 4096;
        let goal = 4095 - i * 13 % 4096;
        sim.add_agent(start, Some(goal)).unwrap();
    }
    sim
}

#[test]
fn each_phase_is_timed_inside_its_tick() {
    for conflicts in [ConflictMode::Pibt, ConflictMode::Avoid, ConflictMode::Off] {
        let mut sim = crowd(conflicts);
        for _ in 0..TICKS {
            let report = sim.step();
            let p = report.phases;
            assert!(
                p.total_ms() <= report.wall_ms,
                "{conflicts:?} tick {}: phases {} ms in a {} ms tick",
                report.tick,
                p.total_ms(),
                report.wall_ms
            );
            assert!(p.total_ms() <= report.movement_ms + p.closing_ms + 1e-9);
            assert!(p.deciding_ms > 0.0 && p.applying_ms > 0.0 && p.closing_ms > 0.0);
            // Only PIBT ranks candidate cells; nothing here follows a LaCAM plan.
            assert_eq!(p.ranking_ms > 0.0, conflicts == ConflictMode::Pibt);
            assert_eq!(p.resolving_ms, 0.0);
        }
        let s = sim.summary();
        // Every tick after the first, every agent.
        assert_eq!(
            s.phase_ns.agent_ticks,
            u64::from(AGENTS) * (TICKS as u64 - 1)
        );
        assert!(s.phase_ns.deciding > 0.0 && s.phase_ns.closing > 0.0);
        assert_eq!(s.phase_ns.ranking > 0.0, conflicts == ConflictMode::Pibt);
    }
}

#[test]
fn route_memory_counts_every_route_cell_held() {
    let mut sim = crowd(ConflictMode::Pibt);
    sim.step();
    let ahead: usize = sim
        .agents()
        .iter()
        .map(|(_, a)| a.remaining_path().len())
        .sum();
    let s = sim.summary();
    // Routes are kept at 4 bits a step: at least half a byte for each cell still ahead, and
    // not much more than that (the step just walked, a byte rounded up) plus each agent's
    // window of decoded cells (at most 12 cells, with its drift and flags: 56 bytes).
    let per_agent = ahead as f64 / f64::from(AGENTS);
    let bytes = s.route_bytes_per_agent;
    assert!(
        bytes >= 0.5 * per_agent && bytes <= 0.5 * per_agent + 2.0 + 56.0,
        "{bytes} bytes per agent for {per_agent} cells ahead each"
    );
    assert!(ahead > 0);
    assert_eq!(
        Simulation::new(Grid::from_ascii("..").unwrap(), SimConfig::default())
            .unwrap()
            .summary()
            .route_bytes_per_agent,
        0.0,
        "no agent, no bytes"
    );
}
