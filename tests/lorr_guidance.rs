//! Congestion guidance of the `pibt` planner's distance tables (`--guidance`): more tasks on
//! open ground where crowds form, steps replayed by the independent checker, the same
//! actions on 1 and 2 threads, and the automatic choice (the library's default settings, the
//! command line's) and its flag.

mod common;

use std::path::PathBuf;

use common::cli::{assert_one_line_error, ok, throng};
use throng::lorr::{GuidanceChoice, GuidanceConfig, LorrConfig, LorrPlanner, LorrRun, Problem};

/// A 64 x 64 "city": blocks of 3 to 12 cells a side dropped at random (fixed seed) until
/// they cover 30% of the map, the largest connected area kept; `agents` robots and tasks of
/// two errands anywhere in it.
fn city(agents: usize) -> Problem {
    const SIDE: usize = 64;
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut blocked = vec![false; SIDE * SIDE];
    while blocked.iter().filter(|&&b| b).count() < SIDE * SIDE * 3 / 10 {
        let (w, h) = (3 + next(10), 3 + next(10));
        let (x0, y0) = (next(SIDE - w + 1), next(SIDE - h + 1));
        for y in y0..y0 + h {
            blocked[y * SIDE + x0..y * SIDE + x0 + w].fill(true);
        }
    }
    let rows: Vec<String> = (0..SIDE)
        .map(|y| {
            (0..SIDE)
                .map(|x| if blocked[y * SIDE + x] { '@' } else { '.' })
                .collect()
        })
        .collect();
    let map = format!(
        "type octile\nheight {SIDE}\nwidth {SIDE}\nmap\n{}\n",
        rows.join("\n")
    );
    let json = r#"{"mapFile": "c.map", "agentFile": "c.agents", "taskFile": "c.tasks",
                  "teamSize": 1, "numTasksReveal": 1.5}"#;
    // Tasks between the cells of the largest connected area.
    let grid = throng::grid::Grid::from_ascii(&rows.join("\n")).unwrap();
    let components = grid.components();
    let largest = components.largest().expect("a free cell");
    let area: Vec<u32> = (0..(SIDE * SIDE) as u32)
        .filter(|&c| components.of(c) == Some(largest))
        .collect();
    let tasks: Vec<String> = (0..3000)
        .map(|_| {
            let (a, b) = (area[next(area.len())], area[next(area.len())]);
            format!("{a},{b}")
        })
        .collect();
    let problem = Problem::from_texts(
        json,
        &map,
        &format!("1\n{}\n", area[0]),
        &format!("{}\n{}\n", tasks.len(), tasks.join("\n")),
        "city/CITY.json",
    )
    .unwrap();
    problem.with_agents(agents, 1).unwrap()
}

fn guided(guidance: bool) -> LorrConfig {
    LorrConfig {
        planner: LorrPlanner::Pibt,
        guidance: guidance.then(GuidanceConfig::default).into(),
        ..LorrConfig::default()
    }
}

/// Tasks `problem` finishes in `steps` steps under `config`, every step replayed by the checker.
fn tasks_finished(problem: &Problem, config: LorrConfig, steps: u64) -> u64 {
    let mut run = LorrRun::new(problem, config).unwrap();
    run.play(steps);
    run.validate().expect("every step replays");
    run.report().tasks_finished
}

#[test]
fn guided_tables_finish_more_tasks_where_crowds_form() {
    // 800 robots on the city's ~2,850 free cells, 400 steps, no time limit (the same on any
    // machine): crowds jam where shortest ways cross unless new tables route around them.
    let problem = city(800);
    let tasks = |config| tasks_finished(&problem, config, 400);
    let (plain, guided) = (tasks(guided(false)), tasks(guided(true)));
    assert!(
        guided as f64 >= 1.2 * plain as f64,
        "guided {guided}, plain {plain}"
    );
}

#[test]
fn guided_runs_play_the_same_on_one_thread_and_on_two() {
    let problem = city(600);
    let play = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let mut run = LorrRun::new(&problem, guided(true)).unwrap();
                run.play(60);
                run.validate().expect("every step replays");
                assert!(run.report().guidance);
                (run.actions().to_vec(), run.report().tables_computed)
            })
    };
    let one = play(1);
    assert_eq!(one, play(2));
}

#[test]
fn guidance_is_chosen_for_large_teams_on_open_ground_and_named_by_its_flag() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sims/lorr/random.domain/RANDOM-01.json");
    let path = path.to_str().unwrap();
    let json = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["lorr", path, "--steps", "2", "--step-ms", "0", "--json"];
        args.extend_from_slice(extra);
        serde_json::from_str(&ok(&args)).unwrap()
    };
    // A small team: none; named: on, for pibt and window alike.
    assert_eq!(json(&[])["guidance"], false);
    assert_eq!(json(&["--guidance", "on"])["guidance"], true);
    let v = json(&["--guidance", "on", "--planner", "pibt"]);
    assert_eq!(
        (v["guidance"].clone(), v["planner"].clone()),
        (true.into(), "pibt".into())
    );
    assert_eq!(json(&["--guidance", "off"])["guidance"], false);
    let o = throng(&[
        "lorr",
        path,
        "--steps",
        "2",
        "--planner",
        "sim",
        "--guidance",
        "on",
    ]);
    assert_one_line_error(
        &o,
        "--guidance applies to the pibt and window planners only",
    );
    // The automatic choice: large sparse teams on open ground only.
    let open = city(10).grid;
    assert!(
        GuidanceConfig::automatic(&open, 2_000, false).is_none(),
        "too dense"
    );
    let roomy = throng::grid::Grid::from_ascii(&vec![".".repeat(128); 128].join("\n")).unwrap();
    assert!(GuidanceConfig::automatic(&roomy, 3_000, false).is_some());
}

/// An open `side` x `side` floor with `agents` robots and tasks of two errands.
fn open_floor(side: usize, agents: usize) -> Problem {
    let map = format!(
        "type octile\nheight {side}\nwidth {side}\nmap\n{}\n",
        vec![".".repeat(side); side].join("\n")
    );
    let json = r#"{"mapFile": "o.map", "agentFile": "o.agents", "taskFile": "o.tasks",
                  "teamSize": 1, "numTasksReveal": 1.5}"#;
    let cells = (side * side) as u64;
    let tasks: Vec<String> = (1..=100u64)
        .map(|i| format!("{},{}", i * 7919 % cells, i * 104_729 % cells))
        .collect();
    let tasks = format!("{}\n{}\n", tasks.len(), tasks.join("\n"));
    Problem::from_texts(json, &map, "1\n0\n", &tasks, "open/OPEN.json")
        .unwrap()
        .with_agents(agents, 1)
        .unwrap()
}

#[test]
fn the_default_settings_guide_the_tables_where_the_automatic_choice_says() {
    // 16,384 free cells of open ground: 3,000 robots (pibt) guided, 1,000 (window) not.
    for (agents, planner) in [(3_000, LorrPlanner::Pibt), (1_000, LorrPlanner::Window)] {
        let problem = open_floor(128, agents);
        let automatic =
            GuidanceConfig::automatic(&problem.grid, agents, problem.has_busy_errands());
        assert_eq!(automatic.is_some(), agents == 3_000);
        assert_eq!(LorrConfig::default().guidance, GuidanceChoice::Auto);
        let resolved = LorrConfig::default().resolved(&problem);
        assert_eq!(resolved.guidance, GuidanceChoice::from(automatic));
        assert_eq!(resolved.planner, planner);
        let run = LorrRun::new(&problem, LorrConfig::default()).unwrap();
        assert_eq!(run.report().guidance, automatic.is_some());
        assert_eq!(run.report().planner, planner);
    }
    // Named, it is kept whatever the team.
    let problem = open_floor(128, 3_000);
    let off = LorrConfig {
        guidance: GuidanceChoice::Off,
        ..LorrConfig::default()
    };
    assert_eq!(off.resolved(&problem).guidance, GuidanceChoice::Off);
    assert!(!LorrRun::new(&problem, off).unwrap().report().guidance);
    let small = open_floor(128, 10);
    let on = LorrConfig {
        guidance: GuidanceChoice::On(GuidanceConfig::default()),
        ..LorrConfig::default()
    };
    assert_eq!(on.resolved(&small).guidance, on.guidance);
    assert!(LorrRun::new(&small, on).unwrap().report().guidance);
}

/// A chain of four open rooms, 40 x 40 cells, joined by corridors 4 cells wide and 24 long
/// (the shape of brc202d's map: no way around a crowd in a corridor); `agents` robots and
/// tasks of two errands anywhere.
fn rooms(agents: usize) -> Problem {
    const ROOM: usize = 40;
    const CORRIDOR: usize = 24;
    let width = 4 * ROOM + 3 * CORRIDOR;
    let rows: Vec<String> = (0..ROOM)
        .map(|y| {
            (0..width)
                .map(|x| {
                    let in_room = x % (ROOM + CORRIDOR) < ROOM;
                    if in_room || (18..22).contains(&y) {
                        '.'
                    } else {
                        '@'
                    }
                })
                .collect()
        })
        .collect();
    let map = format!(
        "type octile\nheight {ROOM}\nwidth {width}\nmap\n{}\n",
        rows.join("\n")
    );
    let json = r#"{"mapFile": "r.map", "agentFile": "r.agents", "taskFile": "r.tasks",
                  "teamSize": 1, "numTasksReveal": 1.5}"#;
    let grid = throng::grid::Grid::from_ascii(&rows.join("\n")).unwrap();
    let free: Vec<u64> = (0..grid.len() as u32)
        .filter(|&c| grid.is_walkable(c))
        .map(u64::from)
        .collect();
    let n = free.len() as u64;
    let tasks: Vec<String> = (1..=3000u64)
        .map(|i| {
            let (a, b) = (
                free[(i * 7919 % n) as usize],
                free[(i * 104_729 % n) as usize],
            );
            format!("{a},{b}")
        })
        .collect();
    let tasks = format!("{}\n{}\n", tasks.len(), tasks.join("\n"));
    Problem::from_texts(
        json,
        &map,
        &format!("1\n{}\n", free[0]),
        &tasks,
        "rooms/ROOMS.json",
    )
    .unwrap()
    .with_agents(agents, 1)
    .unwrap()
}

#[test]
fn rooms_joined_by_corridors_play_unguided_with_dearer_lanes() {
    use throng::lorr::{
        MIN_WAYS_AROUND, PIBT_CORRIDOR_LANE_COST, PIBT_LANE_COST, PibtConfig, ways_around,
    };
    // 2,000 robots on the rooms' ~6,500 free cells: a large sparse team, guided on open
    // ground, but here a crowd in a corridor has no way around.
    let problem = rooms(2_000);
    let around = ways_around(&problem.grid);
    assert!(around < MIN_WAYS_AROUND, "ways around {around}");
    let open = open_floor(128, 3_000);
    assert!(ways_around(&open.grid) >= MIN_WAYS_AROUND);
    assert!(GuidanceConfig::automatic(&problem.grid, 2_000, false).is_none());
    assert!(GuidanceConfig::automatic(&open.grid, 3_000, false).is_some());
    let resolved = LorrConfig::default().resolved(&problem);
    assert_eq!(resolved.planner, LorrPlanner::Pibt);
    assert_eq!(resolved.guidance, GuidanceChoice::Off);
    assert_eq!(resolved.pibt.lane_cost, Some(PIBT_CORRIDOR_LANE_COST));
    assert_eq!(
        LorrConfig::default().resolved(&open).pibt.lane_cost,
        Some(PIBT_LANE_COST)
    );
    // A named lane cost is kept; the report says what played.
    let named = LorrConfig {
        pibt: PibtConfig {
            lane_cost: Some(3),
            corridor_rules: Some(false),
        },
        ..LorrConfig::default()
    };
    assert_eq!(named.resolved(&problem).pibt.lane_cost, Some(3));
    assert_eq!(named.resolved(&problem).pibt.corridor_rules, Some(false));
    assert_eq!(resolved.pibt.corridor_rules, Some(true));
    assert_eq!(
        LorrConfig::default().resolved(&open).pibt.corridor_rules,
        Some(false)
    );
    let run = LorrRun::new(&problem, LorrConfig::default()).unwrap();
    assert_eq!(run.report().pibt_lane_cost, Some(PIBT_CORRIDOR_LANE_COST));
    assert_eq!(run.report().pibt_corridor_rules, Some(true));
    assert!(!run.report().guidance);
}

#[test]
fn on_rooms_joined_by_corridors_the_chosen_settings_finish_more_than_guided_tables() {
    use throng::lorr::{PIBT_LANE_COST, PibtConfig};
    // 2,000 robots, 300 steps, no time limit (the same on any machine): the resolved settings
    // (unguided, lanes at PIBT_CORRIDOR_LANE_COST) against those of open ground (guided, lanes
    // at PIBT_LANE_COST). 600 steps measured before the corridor rules joined the resolved
    // settings: 1,681 tasks against 1,325.
    let problem = rooms(2_000);
    let tasks = |config| tasks_finished(&problem, config, 300);
    let chosen = tasks(LorrConfig::default());
    let open_ground = tasks(LorrConfig {
        planner: LorrPlanner::Pibt,
        guidance: GuidanceChoice::On(GuidanceConfig::default()),
        pibt: PibtConfig {
            lane_cost: Some(PIBT_LANE_COST),
            corridor_rules: Some(false),
        },
        ..LorrConfig::default()
    });
    assert!(
        chosen as f64 >= 1.1 * open_ground as f64,
        "chosen {chosen}, open ground's {open_ground}"
    );
}

#[test]
fn corridor_rules_finish_more_and_keep_the_robots_on_errands_under_their_cap() {
    use throng::lorr::PibtConfig;
    // 3,000 robots on the rooms' 6,688 free cells, 300 steps, no time limit (the same on any
    // machine): the corridor rules (steps against a lane ranked at their cost, at most a
    // tenth of the free cells' worth of robots on errands) against the same settings
    // without them. 1,000 steps measured: 4,501 tasks against 2,768 (3,360 with the lane step
    // ranked at its cost and every robot on errands).
    let problem = rooms(3_000);
    let cap = PibtConfig::corridor_holders(problem.grid.walkable_count());
    assert!(cap < 3_000);
    let play = |rules: bool| {
        let config = LorrConfig {
            pibt: PibtConfig {
                corridor_rules: Some(rules),
                ..PibtConfig::default()
            },
            ..LorrConfig::default()
        };
        let mut run = LorrRun::new(&problem, config).unwrap();
        let mut most = 0;
        for _ in 0..300 {
            run.play(1);
            let holders = (0..3_000u32)
                .filter(|&a| run.board().target(a).is_some())
                .count();
            most = most.max(holders);
        }
        run.validate().expect("every step replays");
        (run.report().tasks_finished, most)
    };
    let ((with, most_with), (without, most_without)) = (play(true), play(false));
    assert!(most_with <= cap, "{most_with} robots on errands, cap {cap}");
    assert!(
        most_without > cap,
        "without the rules every robot may hold a task"
    );
    assert!(
        with as f64 >= 1.1 * without as f64,
        "with the rules {with}, without {without}"
    );
}
