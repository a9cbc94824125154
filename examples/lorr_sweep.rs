//! Tasks against team size for a League of Robot Runners problem: plays the problem with each
//! team size of `--agents` through the `throng` binary (`--write-problem`, then `throng lorr`
//! on the problem written), and, with `--peer`, the same written problems through another
//! planner's command, for a table (`--csv`) and a plot of throughput against robots
//! (`--svg`, both planners). Each run is one process after the other, so that a time limit
//! per step means the same on both sides: run it on an idle machine.
//!
//! Each team's problem, throng's JSON report (`throng-report.json`) and the peer's output are
//! kept in a folder of `--work DIR` (default: the system's temporary folder).
//!
//! `--from-csv FILE` (repeatable) plays nothing: it reads the rows of earlier `--csv` tables
//! (points run one at a time, say) and writes their table and plot, rows ordered by robots.
//!
//! `--peer` is a command template: `{problem}` becomes the written problem's JSON, `{out}` a
//! file for the peer's output JSON (its `numTaskFinished` is read), `{steps}` the steps and
//! `{ms}` the time limit of a step. For the 2024 start kit, built separately:
//!
//! ```sh
//! cargo run --release --example lorr_sweep -- PROBLEM.json --agents 100,200,400,800 \
//!     --steps 500 --step-ms 100 --csv sweep.csv --svg sweep.svg \
//!     --peer "/path/to/lifelong -i {problem} -o {out} -s {steps} -t {ms}"
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One team size's results.
struct Row {
    robots: usize,
    step_ms: u64,
    throng_tasks: u64,
    planner: String,
    step_ms_mean: f64,
    cores: f64,
    peer_tasks: Option<u64>,
}

fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("lorr_sweep: {message}");
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut problem, mut teams, mut steps, mut step_ms) = (None, Vec::new(), None, 100u64);
    let (mut csv, mut svg, mut peer, mut planner) = (None, None, None, None);
    let mut throng = PathBuf::from("target/release/throng");
    let mut work = std::env::temp_dir().join("throng-lorr-sweep");
    let mut from_csv = Vec::new();
    while let Some(a) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| fail(format!("{a} needs a value")))
        };
        match a.as_str() {
            "--agents" => {
                teams = value()
                    .split(',')
                    .map(|n| n.trim().parse::<usize>())
                    .collect::<Result<_, _>>()
                    .unwrap_or_else(|e| fail(format!("--agents: {e}")))
            }
            "--steps" => {
                steps = Some(
                    value()
                        .parse::<u64>()
                        .unwrap_or_else(|e| fail(format!("--steps: {e}"))),
                )
            }
            "--step-ms" => {
                step_ms = value()
                    .parse()
                    .unwrap_or_else(|e| fail(format!("--step-ms: {e}")))
            }
            "--planner" => planner = Some(value()),
            "--csv" => csv = Some(PathBuf::from(value())),
            "--svg" => svg = Some(PathBuf::from(value())),
            "--peer" => peer = Some(value()),
            "--throng" => throng = PathBuf::from(value()),
            "--work" => work = PathBuf::from(value()),
            "--from-csv" => from_csv.push(PathBuf::from(value())),
            _ if a.starts_with("--") => fail(format!("unknown option {a}")),
            _ => problem = Some(PathBuf::from(a)),
        }
    }
    if !from_csv.is_empty() {
        if problem.is_some()
            || !teams.is_empty()
            || steps.is_some()
            || peer.is_some()
            || planner.is_some()
        {
            fail(
                "--from-csv plays nothing: give no problem, --agents, --steps, --planner or --peer with it",
            );
        }
        let (name, rows) = read_tables(&from_csv);
        write_outputs(&name, &rows, csv, svg);
        return;
    }
    let Some(problem) = problem else {
        fail(
            "usage: lorr_sweep PROBLEM.json --agents N,N,... [--steps N] [--step-ms MS] \
             [--planner NAME] [--peer CMD] [--csv FILE] [--svg FILE] [--throng BIN] [--work DIR]\n\
             \x20      lorr_sweep --from-csv FILE [--from-csv FILE ...] [--csv FILE] [--svg FILE]",
        )
    };
    if teams.is_empty() {
        fail("--agents: give the team sizes, e.g. --agents 100,200,400");
    }
    let name = problem
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_else(|| fail(format!("{}: no file name", problem.display())))
        .to_string();
    std::fs::create_dir_all(&work).unwrap_or_else(|e| fail(format!("{}: {e}", work.display())));
    let mut rows = Vec::new();
    for &robots in &teams {
        let dir = work.join(format!("{name}-{robots}"));
        let _ = std::fs::remove_dir_all(&dir);
        let mut write = Command::new(&throng);
        write
            .arg("lorr")
            .arg(&problem)
            .args(["--agents", &robots.to_string(), "--write-problem"])
            .arg(&dir);
        run(&mut write);
        let written = only_json(&dir);
        let mut play = Command::new(&throng);
        play.arg("lorr")
            .arg(&written)
            .args(["--step-ms", &step_ms.to_string(), "--json"]);
        if let Some(s) = steps {
            play.args(["--steps", &s.to_string()]);
        }
        if let Some(p) = &planner {
            play.args(["--planner", p]);
        }
        let text = run(&mut play);
        // Kept beside the written problem: the report has more than the table (p99 and
        // longest step, memory, the guidance chosen).
        let kept = dir.join("throng-report.json");
        std::fs::write(&kept, &text).unwrap_or_else(|e| fail(format!("{}: {e}", kept.display())));
        let report: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| fail(format!("throng lorr --json: {e}")));
        let number = |key: &str| report.get(key).and_then(|v| v.as_f64());
        let played = number("steps").unwrap_or(0.0) as u64;
        let peer_tasks = peer.as_ref().map(|template| {
            let out = dir.join("peer-output.json");
            let line = template
                .replace("{problem}", &written.display().to_string())
                .replace("{out}", &out.display().to_string())
                .replace("{steps}", &played.to_string())
                .replace("{ms}", &step_ms.to_string());
            run(Command::new("sh").arg("-c").arg(&line));
            let text = std::fs::read_to_string(&out)
                .unwrap_or_else(|e| fail(format!("{}: {e}", out.display())));
            let value: serde_json::Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| fail(format!("{}: {e}", out.display())));
            value
                .get("numTaskFinished")
                .and_then(|v| v.as_u64())
                .unwrap_or_else(|| fail(format!("{}: no numTaskFinished", out.display())))
        });
        let row = Row {
            robots,
            step_ms,
            throng_tasks: number("tasks_finished").unwrap_or(0.0) as u64,
            planner: report
                .get("planner")
                .and_then(|v| v.as_str())
                .unwrap_or("?")
                .to_string(),
            step_ms_mean: number("mean_step_ms").unwrap_or(f64::NAN),
            cores: number("step_cores").unwrap_or(f64::NAN),
            peer_tasks,
        };
        println!(
            "{name}: {robots} robots, {played} steps: throng {} tasks ({}, {:.1} ms a step, {:.2} cores){}",
            row.throng_tasks,
            row.planner,
            row.step_ms_mean,
            row.cores,
            row.peer_tasks
                .map(|t| format!(", peer {t} tasks"))
                .unwrap_or_default()
        );
        rows.push(row);
    }
    write_outputs(&name, &rows, csv, svg);
}

/// Writes the table (`csv`) and the plot (`svg`) of `rows`, where asked.
fn write_outputs(name: &str, rows: &[Row], csv: Option<PathBuf>, svg: Option<PathBuf>) {
    if let Some(path) = csv {
        let mut text = String::from(CSV_HEADER);
        text.push('\n');
        for r in rows {
            let peer = r.peer_tasks.map(|t| t.to_string()).unwrap_or_default();
            let _ = writeln!(
                text,
                "{name},{},{},{},{},{:.2},{:.2},{peer}",
                r.robots, r.step_ms, r.planner, r.throng_tasks, r.step_ms_mean, r.cores
            );
        }
        write_file(&path, &text);
    }
    if let Some(path) = svg {
        write_file(&path, &plot(name, rows));
    }
}

/// The columns of a table, as `--csv` writes them and `--from-csv` reads them.
const CSV_HEADER: &str =
    "problem,robots,step_ms,planner,throng_tasks,throng_step_ms_mean,throng_cores,peer_tasks";

/// The rows of the tables in `paths` (written by `--csv`), ordered by robots, and their
/// problem's name (one problem only); a file or line that is not such a table is refused.
fn read_tables(paths: &[PathBuf]) -> (String, Vec<Row>) {
    let mut name: Option<String> = None;
    let mut rows = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| fail(format!("{}: {e}", path.display())));
        let mut lines = text.lines().enumerate();
        if lines.next().map(|(_, l)| l.trim()) != Some(CSV_HEADER) {
            fail(format!(
                "{}:1: not a lorr_sweep table (header {CSV_HEADER})",
                path.display()
            ));
        }
        for (i, line) in lines.filter(|(_, l)| !l.trim().is_empty()) {
            let at = || format!("{}:{}", path.display(), i + 1);
            let cells: Vec<&str> = line.split(',').map(str::trim).collect();
            if cells.len() != 8 {
                fail(format!("{}: {} columns, a table has 8", at(), cells.len()));
            }
            match &name {
                Some(n) if n != cells[0] => {
                    fail(format!("{}: problem {} in a plot of {n}", at(), cells[0]))
                }
                Some(_) => {}
                None => name = Some(cells[0].to_string()),
            }
            let number = |c: usize, what: &str| -> f64 {
                cells[c]
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_nan() || (v.is_finite() && *v >= 0.0))
                    .unwrap_or_else(|| {
                        fail(format!("{}: {what} {:?} is not a number", at(), cells[c]))
                    })
            };
            let whole = |c: usize, what: &str| -> u64 {
                cells[c].parse::<u64>().unwrap_or_else(|_| {
                    fail(format!("{}: {what} {:?} is not a count", at(), cells[c]))
                })
            };
            rows.push(Row {
                robots: whole(1, "robots") as usize,
                step_ms: whole(2, "step_ms"),
                planner: cells[3].to_string(),
                throng_tasks: whole(4, "throng_tasks"),
                step_ms_mean: number(5, "throng_step_ms_mean"),
                cores: number(6, "throng_cores"),
                peer_tasks: (!cells[7].is_empty()).then(|| whole(7, "peer_tasks")),
            });
        }
    }
    let Some(name) = name else {
        fail("--from-csv: the tables hold no rows")
    };
    rows.sort_by_key(|r| r.robots);
    (name, rows)
}

/// Runs `command`, returning its standard output; exits on failure.
fn run(command: &mut Command) -> String {
    let out = command
        .output()
        .unwrap_or_else(|e| fail(format!("{command:?}: {e}")));
    if !out.status.success() {
        fail(format!(
            "{command:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The one problem JSON `--write-problem` wrote into `dir`.
fn only_json(dir: &Path) -> PathBuf {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| fail(format!("{}: {e}", dir.display())));
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap_or_else(|| fail(format!("{}: no problem JSON written", dir.display())))
}

fn write_file(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| fail(format!("{}: {e}", path.display())));
    println!("wrote {}", path.display());
}

/// Throughput (tasks) against robots, a line per planner, as an SVG picture.
fn plot(name: &str, rows: &[Row]) -> String {
    let (w, h, m) = (640.0, 400.0, 56.0);
    let max_x = rows.iter().map(|r| r.robots).max().unwrap_or(1) as f64;
    let max_y = rows
        .iter()
        .flat_map(|r| [Some(r.throng_tasks), r.peer_tasks])
        .flatten()
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let x = |robots: usize| m + (w - 2.0 * m) * robots as f64 / max_x;
    let y = |tasks: u64| h - m - (h - 2.0 * m) * tasks as f64 / max_y;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n\
         <text x=\"{m}\" y=\"24\" font-size=\"14\">{name}: tasks finished against robots</text>\n\
         <line x1=\"{m}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n\
         <line x1=\"{m}\" y1=\"{m}\" x2=\"{m}\" y2=\"{}\" stroke=\"black\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\">robots (max {max_x})</text>\n\
         <text x=\"8\" y=\"{}\">{max_y}</text>\n",
        h - m,
        w - m,
        h - m,
        h - m,
        w - m,
        h - m + 32.0,
        m + 4.0
    );
    let mut line = |values: Vec<(usize, u64)>, colour: &str, label: &str, at: f64| {
        let points: Vec<String> = values
            .iter()
            .map(|&(r, t)| format!("{:.1},{:.1}", x(r), y(t)))
            .collect();
        let _ = writeln!(
            svg,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"/>",
            points.join(" ")
        );
        for &(r, t) in &values {
            let _ = writeln!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"/>",
                x(r),
                y(t)
            );
        }
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{at}\" fill=\"{colour}\">{label}</text>",
            w - m - 120.0
        );
    };
    line(
        rows.iter().map(|r| (r.robots, r.throng_tasks)).collect(),
        "#1f6feb",
        "throng",
        m,
    );
    let peer: Vec<_> = rows
        .iter()
        .filter_map(|r| r.peer_tasks.map(|t| (r.robots, t)))
        .collect();
    if !peer.is_empty() {
        line(peer, "#d1242f", "peer", m + 16.0);
    }
    svg.push_str("</svg>\n");
    svg
}
