//! Thread scaling of a whole run: `throng run` played once per thread count, each in a process
//! of its own (so that peak memory is the run's), and a table of what a steady tick costs.
//!
//! For each thread count it prints the first tick (every agent plans its first trip), steady
//! ticks per second and nanoseconds per agent a steady tick (the ticks after the first), the
//! cores kept busy after the first tick (processor time over wall time), peak resident memory,
//! the speed-up of steady ticks over the first row, and the final state hash, which must be
//! the same on every thread count (the bench fails otherwise: a determinism bug).
//!
//! ```text
//! cargo bench --bench thread_scaling                           # crowd-100k, 300 ticks, 1, 2, 4, ... cores
//! cargo bench --bench thread_scaling -- --scenario sims/crowd-1m.toml --ticks 50 --threads 2,16
//! cargo test --bench thread_scaling                            # a short check on crowd-rooms
//! ```
//!
//! Figures go to `docs/performance.md` with the machine, its load (`uptime`) and the build.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// What to play.
struct Plan {
    scenario: PathBuf,
    ticks: u64,
    threads: Vec<usize>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `cargo test --bench` runs the bench without `--bench`: a short check.
    let benching = args.iter().any(|a| a == "--bench");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut plan = if benching {
        let mut threads = vec![1];
        while threads.last().unwrap() * 2 <= cores {
            threads.push(threads.last().unwrap() * 2);
        }
        if *threads.last().unwrap() != cores {
            threads.push(cores);
        }
        Plan {
            scenario: root.join("sims/crowd-100k.toml"),
            ticks: 300,
            threads,
        }
    } else {
        Plan {
            scenario: root.join("sims/crowd-rooms.toml"),
            ticks: 40,
            threads: vec![1, 2],
        }
    };
    let mut i = 0;
    while i < args.len() {
        let value = || {
            args.get(i + 1)
                .unwrap_or_else(|| panic!("{} needs a value", args[i]))
        };
        match args[i].as_str() {
            "--scenario" => plan.scenario = PathBuf::from(value()),
            "--ticks" => plan.ticks = value().parse().expect("--ticks N"),
            "--threads" => {
                plan.threads = value()
                    .split(',')
                    .map(|n| n.parse().expect("--threads 1,2,4"))
                    .collect()
            }
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let rows: Vec<Row> = plan
        .threads
        .iter()
        .map(|&threads| play(&plan, threads))
        .collect();
    print_table(&plan, &rows);
    let hashes: Vec<&str> = rows.iter().map(|r| r.hash.as_str()).collect();
    assert!(
        hashes.windows(2).all(|w| w[0] == w[1]),
        "final state hashes differ across thread counts: {hashes:?}"
    );
    if !benching {
        assert!(
            rows.iter()
                .all(|r| r.steady_ticks_per_sec > 0.0 && r.ns_per_agent > 0.0)
        );
    }
}

/// One run's figures, from its JSON summary.
struct Row {
    threads: usize,
    first_tick_ms: f64,
    steady_ticks_per_sec: f64,
    ns_per_agent: f64,
    cores: Option<f64>,
    peak_mib: Option<f64>,
    ticks: u64,
    hash: String,
}

/// Plays the scenario on `threads` threads in a process of its own.
fn play(plan: &Plan, threads: usize) -> Row {
    let json = std::env::temp_dir().join(format!(
        "throng-thread-scaling-{}-{threads}.json",
        std::process::id()
    ));
    let ran = Command::new(env!("CARGO_BIN_EXE_throng"))
        .arg("run")
        .arg(&plan.scenario)
        .args(["--threads", &threads.to_string()])
        .args(["--ticks", &plan.ticks.to_string()])
        .arg("--json")
        .arg(&json)
        .output()
        .expect("throng runs");
    assert!(
        ran.status.success(),
        "throng run failed: {}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let text = std::fs::read_to_string(&json).expect("the JSON summary");
    let _ = std::fs::remove_file(&json);
    let v: Value = serde_json::from_str(&text).expect("JSON");
    let run = &v;
    let f = |key: &str| run[key].as_f64().unwrap_or(0.0);
    let steady = f("steady_ticks_per_sec");
    let agents = f("agents").max(1.0);
    Row {
        threads,
        first_tick_ms: f("first_tick_ms"),
        steady_ticks_per_sec: steady,
        ns_per_agent: if steady > 0.0 {
            1e9 / steady / agents
        } else {
            0.0
        },
        cores: run["steady_cores"].as_f64(),
        peak_mib: run["peak_memory_mib"].as_f64(),
        ticks: run["ticks"].as_u64().unwrap_or(0),
        hash: run["final_state_hash_hex"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    }
}

fn print_table(plan: &Plan, rows: &[Row]) {
    println!(
        "{} ({} ticks at most), {} cores here",
        plan.scenario.display(),
        plan.ticks,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "| threads | ticks | first tick s | steady ticks/s | ns per agent a tick | cores busy | peak MiB | steady speed-up | final hash |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let base = rows.first().map_or(0.0, |r| r.steady_ticks_per_sec);
    let opt = |v: Option<f64>, digits: usize| v.map_or("-".into(), |v| format!("{v:.digits$}"));
    for r in rows {
        println!(
            "| {} | {} | {:.2} | {:.2} | {:.0} | {} | {} | {:.2}x | {} |",
            r.threads,
            r.ticks,
            r.first_tick_ms / 1e3,
            r.steady_ticks_per_sec,
            r.ns_per_agent,
            opt(r.cores, 2),
            opt(r.peak_mib, 0),
            if base > 0.0 {
                r.steady_ticks_per_sec / base
            } else {
                0.0
            },
            r.hash
        );
    }
}
