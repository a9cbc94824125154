//! Maps whose tasks all visit a few busy errand cells (the warehouses' `E` cells): fewer
//! robots hold tasks at once, and the idle ones wait away from the busy cells.

use throng::lorr::{
    GUIDANCE_MIN_AGENTS, GuidanceChoice, GuidanceConfig, LorrConfig, LorrPlanner, LorrRun, Problem,
};

/// A `w` x 30 open floor: busy errand cells on every other cell of the top row, every task
/// from a cell of the bottom 18 rows to one of them; `agents` robots placed by seed 1.
fn busy_floor(w: u32, agents: usize) -> Problem {
    let h = 30u32;
    let json = r#"{"mapFile": "m.map", "agentFile": "a.agents", "taskFile": "t.tasks",
                   "teamSize": 1, "numTasksReveal": 1.5}"#;
    let row = ".".repeat(w as usize);
    let map = format!(
        "type octile\nheight {h}\nwidth {w}\nmap\n{}",
        (0..h).map(|_| format!("{row}\n")).collect::<String>()
    );
    let tasks: Vec<String> = (0..2_000u32)
        .map(|i| {
            let first = 12 * w + (i * 7_919) % (18 * w);
            let busy = 2 * ((i * 104_729) % (w / 2));
            format!("{first},{busy}")
        })
        .collect();
    let tasks = format!("{}\n{}\n", tasks.len(), tasks.join("\n"));
    Problem::from_texts(json, &map, "1\n600\n", &tasks, "busy/BUSY.json")
        .unwrap()
        .with_agents(agents, 1)
        .unwrap()
}

#[test]
fn idle_robots_wait_away_from_the_busy_errand_cells() {
    // 1,200 free cells: at most 13% of them (156 robots) hold tasks; the 244 others, left
    // where they did their last errand (the top row) unless parked, walk 10 steps or more
    // from the busy cells. In steps 200-300, idle robots within 5 rows of the busy cells:
    // 34% of the idle robot-steps without parking, 18% with (some are caught among the
    // robots queueing for the busy cells). Tasks in 300 steps: 539 without parking, 693
    // with.
    let problem = busy_floor(40, 400);
    let config = LorrConfig {
        planner: LorrPlanner::Pibt,
        ..LorrConfig::default()
    };
    let mut run = LorrRun::new(&problem, config).unwrap();
    let (mut most_holders, mut idle_near, mut idle_seen) = (0, 0usize, 0usize);
    for t in 0..300 {
        run.step();
        let holders = (0..400u32)
            .filter(|&a| run.board().target(a).is_some())
            .count();
        most_holders = most_holders.max(holders);
        if t >= 200 {
            for (a, &p) in run.positions().iter().enumerate() {
                if run.board().target(a as u32).is_none() {
                    idle_seen += 1;
                    idle_near += usize::from(p / 40 < 5);
                }
            }
        }
    }
    run.validate().expect("every step replays");
    assert_eq!(most_holders, 156);
    assert!(idle_seen > 200 * 100, "{idle_seen} idle robot-steps");
    assert!(
        idle_near * 4 < idle_seen,
        "{idle_near} of {idle_seen} idle robot-steps within 5 rows of the busy cells"
    );
    assert!(
        run.report().tasks_finished >= 620,
        "{} tasks",
        run.report().tasks_finished
    );
}

#[test]
fn teams_of_2000_on_a_busy_floor_are_guided_with_its_settings() {
    // On the warehouses the congestion guidance counts a square as crowded from half its
    // cells held (the aisles' ordinary traffic fills a third): 10,000 robots on
    // sortation_large finish 2.3x the tasks with it, 5,000 on warehouse_large as many.
    let big = busy_floor(80, GUIDANCE_MIN_AGENTS);
    assert!(big.has_busy_errands());
    let resolved = LorrConfig::default().resolved(&big);
    assert_eq!(
        resolved.guidance,
        GuidanceChoice::On(GuidanceConfig::busy_floor())
    );
    assert!(GuidanceConfig::busy_floor().floor > GuidanceConfig::default().floor);
    let small = busy_floor(80, GUIDANCE_MIN_AGENTS - 1);
    assert_eq!(
        LorrConfig::default().resolved(&small).guidance,
        GuidanceChoice::Off
    );
    // Named settings are kept.
    let off = LorrConfig {
        guidance: GuidanceChoice::Off,
        ..LorrConfig::default()
    };
    assert_eq!(off.resolved(&big).guidance, GuidanceChoice::Off);
}
