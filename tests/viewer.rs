//! `throng view`: the server answers over real TCP (and refuses foreign Host headers), says
//! where the page is when no browser opens, and the page, opened in headless Chromium,
//! replays a trace, a MAPF plan and a LoRR output: tick counter, agent count, an agent's cell
//! (and heading) at a tick, agents drawn.
//!
//! The browser tests need Chromium (`/usr/bin/chromium`, or the path in `THRONG_CHROMIUM`); when
//! it is absent they are skipped, shown and counted as skipped by the harness of
//! `tests/common/harness.rs` (this file sets `harness = false`), unless
//! `THRONG_REQUIRE_BROWSER=1` or `CI` is set, where they fail.

mod common;

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use throng::lorr::{LorrConfig, LorrRun, Problem};
use throng::scenario::Scenario;
use throng::trace::{TraceOptions, TraceRecorder};

/// The moving agents' colour of group 0 in viewer.js (`COLOURS.moving`).
const MOVING: [u8; 3] = [31, 111, 235];
/// Group 1's colour (`GROUPS[1]`).
const GROUP_1: [u8; 3] = [218, 112, 22];

/// A trace of the doors scenario (128 x 128 rooms, 300 agents in two crowds, doors that open
/// and close) for `ticks` ticks.
fn write_trace(path: &Path, ticks: u32) {
    let scenario = Scenario::load(concat!(env!("CARGO_MANIFEST_DIR"), "/sims/doors.toml")).unwrap();
    let mut sim = scenario.build().unwrap();
    let mut schedule = scenario.schedule(sim.grid()).unwrap();
    let options = TraceOptions {
        compress: true,
        groups: (0..300).map(|i| i % 2).collect(),
    };
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut recorder = TraceRecorder::new(file, &sim, &options).unwrap();
    for _ in 0..ticks {
        schedule.queue_due(&mut sim);
        sim.step();
        recorder.record(&sim).unwrap();
    }
    recorder.finish().unwrap();
}

/// `throng view FILE --port 0 --no-open`, killed when dropped.
struct Server {
    child: Child,
    port: u16,
    /// The first line printed: what is served.
    summary: String,
}

impl Server {
    fn start(trace: &Path) -> Server {
        let server = Server::start_with(trace, &[], &[] as &[(&str, &str)], true);
        assert!(server.summary.starts_with("trace "), "{}", server.summary);
        server
    }

    /// `throng view FILE ARGS --port 0` (with `--no-open` when `no_open`), with `env` set.
    fn start_with(
        file: &Path,
        args: &[&OsStr],
        env: &[(impl AsRef<OsStr>, impl AsRef<OsStr>)],
        no_open: bool,
    ) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_throng"));
        command.args(["view", "--port", "0"]).arg(file).args(args);
        if no_open {
            command.arg("--no-open");
        }
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(if no_open {
                Stdio::inherit()
            } else {
                Stdio::piped()
            })
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let summary = lines.next().unwrap().unwrap();
        let second = lines.next().unwrap().unwrap();
        let url = second
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no URL in {second:?}"));
        let port = url
            .trim_start_matches("http://127.0.0.1:")
            .trim_end_matches('/')
            .parse()
            .unwrap();
        Server {
            child,
            port,
            summary,
        }
    }

    /// The first line the server writes to stderr (started with `no_open` false), waiting at
    /// most 60 s.
    fn first_error_line(&mut self) -> Option<String> {
        let stderr = self.child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let line = BufReader::new(stderr).lines().next().and_then(Result::ok);
            let _ = tx.send(line);
        });
        rx.recv_timeout(Duration::from_secs(60)).ok().flatten()
    }

    fn url(&self, query: &str) -> String {
        format!("http://127.0.0.1:{}/{query}", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One raw HTTP request: the status code and the body.
fn request(port: u16, text: &str) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(text.as_bytes()).unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    let split = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&answer[..split]).to_string();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, answer[split + 4..].to_vec())
}

fn the_server_serves_the_trace_and_refuses_other_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("doors.trace");
    write_trace(&trace, 20);
    let server = Server::start(&trace);
    let port = server.port;
    // An idle connection (browsers open them ahead) does not hold up the others.
    let _idle = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let host = format!("Host: 127.0.0.1:{port}");
    let (status, body) = request(port, &format!("GET /trace HTTP/1.1\r\n{host}\r\n\r\n"));
    assert_eq!(status, 200);
    assert_eq!(body, std::fs::read(&trace).unwrap());
    let (status, raw) = request(port, &format!("GET /trace.raw HTTP/1.1\r\n{host}\r\n\r\n"));
    assert_eq!(status, 200);
    assert_eq!(raw[10], 0, "uncompressed");
    assert!(raw.len() > body.len());
    let (status, page) = request(
        port,
        &format!("GET / HTTP/1.1\r\nhost: localhost:{port}\r\n\r\n"),
    );
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&page).contains("viewer.js"));
    // DNS rebinding: a page of another site whose name now points to 127.0.0.1.
    let (status, _) = request(
        port,
        "GET /trace HTTP/1.1\r\nHost: attacker.example\r\n\r\n",
    );
    assert_eq!(status, 403);
    let (status, _) = request(port, &format!("GET /nothing HTTP/1.1\r\n{host}\r\n\r\n"));
    assert_eq!(status, 404);
}

fn the_page_is_self_contained() {
    for (name, text) in [
        ("index.html", throng::view::INDEX_HTML),
        ("viewer.js", throng::view::VIEWER_JS),
        ("viewer.css", throng::view::VIEWER_CSS),
    ] {
        for external in ["http://", "https://", "//cdn", "@import"] {
            assert!(!text.contains(external), "{name} names {external}");
        }
    }
}

fn view_refuses_a_damaged_trace_with_the_offset() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("bad.trace");
    write_trace(&trace, 5);
    let mut bytes = std::fs::read(&trace).unwrap();
    bytes.truncate(bytes.len() - 10);
    std::fs::write(&trace, bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["view", "--port", "0", "--no-open"])
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.trace") && err.contains("byte"), "{err}");
}

/// The number after `byte ` in `message`.
fn byte_in(message: &str) -> u64 {
    let rest = &message[message.find("byte ").unwrap_or_else(|| panic!("{message}")) + 5..];
    rest.split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// A compressed trace cut short ends inside its compressed body: the offset the error gives
/// is said to be one of the decompressed body (it is past the file's end), and is within it;
/// an uncompressed trace's offset is the file's own.
fn a_truncated_compressed_trace_says_its_offset_is_in_the_decompressed_body() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("cut.trace");
    write_trace(&trace, 40);
    let full = std::fs::read(&trace).unwrap();
    let raw_len = throng::trace::uncompressed(&full).unwrap().len() as u64;
    std::fs::write(&trace, &full[..full.len() * 2 / 3]).unwrap();
    let view = |file: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_throng"))
            .args(["view", "--port", "0", "--no-open"])
            .arg(file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let err = view(&trace);
    assert!(
        err.contains("cut.trace: ") && err.contains("of the decompressed body"),
        "{err}"
    );
    // Where the data stops: the end of what the cut body decompresses to.
    let mut decoder = flate2::read::ZlibDecoder::new(&full[12..full.len() * 2 / 3]);
    let (mut chunk, mut decompressed) = ([0u8; 4096], 0u64);
    while let Ok(n @ 1..) = decoder.read(&mut chunk) {
        decompressed += n as u64;
    }
    let at = byte_in(&err);
    assert_eq!(at, decompressed, "{err}");
    assert!(
        at < raw_len - 12,
        "{err}: byte {at} of a {raw_len}-byte trace"
    );
    // The same trace uncompressed and cut: the file's byte, inside the file.
    let raw = throng::trace::uncompressed(&full).unwrap();
    let cut = raw.len() * 2 / 3;
    std::fs::write(&trace, &raw[..cut]).unwrap();
    let err = view(&trace);
    assert!(!err.contains("decompressed"), "{err}");
    assert!(byte_in(&err) <= cut as u64, "{err}: a file of {cut} bytes");
}

/// A directory whose only program is an `xdg-open` (and `open`) script with `body`.
fn fake_opener(dir: &Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for name in ["xdg-open", "open"] {
        let path = bin.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

#[cfg(unix)]
fn without_a_browser_the_address_is_printed_to_open_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.trace");
    write_trace(&trace, 3);
    let no_open = |env: &[(&str, PathBuf)]| {
        let mut server = Server::start_with(&trace, &[], env, false);
        let line = server.first_error_line().unwrap_or_default();
        (line, server.url(""))
    };
    // No opener on the PATH at all.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let (line, url) = no_open(&[("PATH", empty)]);
    assert!(
        line.starts_with("no browser opened") && line.ends_with(&format!("; open {url} yourself")),
        "{line}"
    );
    // An opener that fails (no desktop).
    let failing = fake_opener(&dir.path().join("failing"), "exit 3");
    let (line, url) = no_open(&[("PATH", failing)]);
    assert!(
        line.starts_with("no browser opened") && line.ends_with(&format!("; open {url} yourself")),
        "{line}"
    );
    // An opener that works is given the address.
    let seen = dir.path().join("seen");
    let working = fake_opener(
        &dir.path().join("working"),
        &format!("echo \"$1\" > '{}'", seen.display()),
    );
    let server = Server::start_with(&trace, &[], &[("PATH", working)], false);
    let start = Instant::now();
    while !std::fs::read_to_string(&seen).is_ok_and(|s| s.ends_with('\n')) {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the opener never ran"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap().trim(),
        server.url("")
    );
}

/// Chromium, or `None` (the test skipped) when it is absent and not required.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("THRONG_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if path.is_file() {
        return Some(path);
    }
    if std::env::var("THRONG_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
        panic!(
            "THRONG_REQUIRE_BROWSER=1 but there is no Chromium at {} (set THRONG_CHROMIUM)",
            path.display()
        );
    }
    common::harness::skip(&format!(
        "no Chromium at {} (set THRONG_CHROMIUM, or THRONG_REQUIRE_BROWSER=1 to fail instead)",
        path.display()
    ));
    None
}

/// Runs headless Chromium with `args` (a fresh profile), at most 120 s.
fn run_chromium(chromium: &Path, args: &[String]) -> Output {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium ran over 120 s with {args:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn dump_dom(chromium: &Path, url: &str) -> String {
    let out = run_chromium(
        chromium,
        &[
            "--virtual-time-budget=5000".to_string(),
            "--dump-dom".to_string(),
            url.to_string(),
        ],
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// The text of the element with this id (`<tag id="ID">text</tag>`).
fn text_of(dom: &str, id: &str) -> String {
    let start = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id} in {dom}"));
    let rest = &dom[start..];
    let open = rest.find('>').unwrap() + 1;
    let close = rest.find("</").unwrap();
    rest[open..close].to_string()
}

fn the_page_replays_the_trace_in_headless_chromium() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("doors.trace");
    write_trace(&trace, 60);
    let server = Server::start(&trace);

    let dom = dump_dom(&chromium, &server.url(""));
    assert_eq!(text_of(&dom, "status"), "", "the page reports no error");
    assert_eq!(text_of(&dom, "tick"), "tick 0 / 60");
    assert_eq!(text_of(&dom, "agents"), "300 agents");
    let dom = dump_dom(&chromium, &server.url("?tick=60"));
    assert_eq!(text_of(&dom, "tick"), "tick 60 / 60");
    // A link to one agent, zoomed, over the heatmap of waits.
    let dom = dump_dom(&chromium, &server.url("?tick=30&agent=5&zoom=8&heat=waits"));
    assert_eq!(text_of(&dom, "tick"), "tick 30 / 60");
    let info = text_of(&dom, "info");
    assert!(info.starts_with("agent 5 at ("), "{info}");
    assert_eq!(text_of(&dom, "status"), "");

    // The bench mode writes its figure into the page.
    let out = run_chromium(
        &chromium,
        &["--dump-dom".to_string(), server.url("?bench=20")],
    );
    let dom = String::from_utf8_lossy(&out.stdout);
    let bench = text_of(&dom, "bench");
    assert!(
        bench.starts_with("bench: 20 frames, mean frame "),
        "{bench}"
    );

    // A screenshot shows agents in the colours of both crowds.
    let shot = dir.path().join("shot.png");
    let out = run_chromium(
        &chromium,
        &[
            "--virtual-time-budget=5000".to_string(),
            "--window-size=800,600".to_string(),
            format!("--screenshot={}", shot.display()),
            server.url(""),
        ],
    );
    assert!(shot.is_file(), "no screenshot: {out:?}");
    let (moving, group_1) = (count_colour(&shot, MOVING), count_colour(&shot, GROUP_1));
    assert!(
        moving >= 100 && group_1 >= 100,
        "agent pixels: {moving} of group 0, {group_1} of group 1"
    );
}

/// The pixels of a PNG screenshot with this colour.
fn count_colour(shot: &Path, colour: [u8; 3]) -> usize {
    let decoder = png::Decoder::new(BufReader::new(std::fs::File::open(shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    let step = info.color_type.samples();
    assert!(step >= 3, "{:?}", info.color_type);
    pixels[..info.buffer_size()]
        .chunks_exact(step)
        .filter(|p| p[..3] == colour)
        .count()
}

/// The robots' notch colour in viewer.js (`NOTCH`, #15191e).
const NOTCH: [u8; 3] = [0x15, 0x19, 0x1e];

fn the_page_replays_a_mapf_plan_and_a_lorr_output_in_headless_chromium() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let repo = |p: &str| Path::new(env!("CARGO_MANIFEST_DIR")).join(p);

    // A plan of 20 agents.
    let plan = dir.path().join("plan.txt");
    let map = repo("sims/maps/mapf/random-32-32-10.map");
    let scen = repo("sims/maps/mapf/random-32-32-10-random-1.scen");
    let o = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["mapf", map.to_str().unwrap(), scen.to_str().unwrap()])
        .args(["--agents", "20", "--out", plan.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = throng::view::PlanFile::load(&plan).unwrap();
    let timesteps = file.configs.len() - 1;
    let t = timesteps / 2;
    // An agent that is not where it started at timestep t.
    let agent = (0..20)
        .find(|&a| file.configs[t][a] != file.configs[0][a])
        .expect("some agent moved");
    let server = Server::start_with(&plan, &[], &[] as &[(&str, &str)], true);
    assert!(
        server.summary.starts_with("mapf plan "),
        "{}",
        server.summary
    );
    let dom = dump_dom(&chromium, &server.url(&format!("?tick={t}&agent={agent}")));
    assert_eq!(text_of(&dom, "status"), "", "the page reports no error");
    assert_eq!(text_of(&dom, "tick"), format!("tick {t} / {timesteps}"));
    assert_eq!(text_of(&dom, "agents"), "20 agents");
    assert!(text_of(&dom, "source").starts_with("mapf plan "));
    let (x, y) = file.configs[t][agent];
    let (gx, gy) = file.goals.as_ref().unwrap().0[agent];
    assert_eq!(
        text_of(&dom, "info"),
        format!("agent {agent} at ({x}, {y}), goal ({gx}, {gy})")
    );
    drop(server);

    // A LoRR output of 100 robots over 40 steps, and the same run played here.
    let out = dir.path().join("out.json");
    let problem_path = repo("sims/lorr/random.domain/RANDOM-01.json");
    let steps = 40;
    let o = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args([
            "lorr",
            problem_path.to_str().unwrap(),
            "--steps",
            "40",
            "--step-ms",
            "0",
        ])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let problem = Problem::load(&problem_path).unwrap();
    // The library's defaults choose the planner as `throng lorr` does.
    let mut run = LorrRun::new(&problem, LorrConfig::default()).unwrap();
    let t = 25;
    run.play(t);
    let robots: Vec<_> = run
        .positions()
        .iter()
        .copied()
        .zip(run.headings().iter().copied())
        .collect();
    // A robot that faces another way than east (where all start) at step t.
    let robot = (0..robots.len())
        .find(|&a| robots[a].1 != throng::sim::Heading::East)
        .expect("some robot turned");
    let (cell, heading) = robots[robot];
    let (x, y) = problem.grid.coords(cell);
    let facing = ["east", "south", "west", "north"][heading.index()];
    let args = [OsStr::new("--problem"), problem_path.as_os_str()];
    let server = Server::start_with(&out, &args, &[] as &[(&str, &str)], true);
    assert!(
        server.summary.starts_with("LoRR output "),
        "{}",
        server.summary
    );
    let dom = dump_dom(&chromium, &server.url(&format!("?tick={t}&agent={robot}")));
    assert_eq!(text_of(&dom, "status"), "", "the page reports no error");
    assert_eq!(text_of(&dom, "tick"), format!("tick {t} / {steps}"));
    assert_eq!(text_of(&dom, "agents"), "100 agents");
    assert!(text_of(&dom, "source").starts_with("LoRR output "));
    let info = text_of(&dom, "info");
    assert!(
        info.starts_with(&format!("agent {robot} at ({x}, {y}), facing {facing}")),
        "{info}"
    );
    // Zoomed in, every robot shows a notch on the side it faces.
    let shot = dir.path().join("robots.png");
    let out = run_chromium(
        &chromium,
        &[
            "--virtual-time-budget=5000".to_string(),
            "--window-size=800,600".to_string(),
            format!("--screenshot={}", shot.display()),
            server.url(&format!("?tick={t}&zoom=16")),
        ],
    );
    assert!(shot.is_file(), "no screenshot: {out:?}");
    let notches = count_colour(&shot, NOTCH);
    assert!(notches >= 50 * 9, "{notches} notch pixels");
}

fn main() -> std::process::ExitCode {
    common::harness::run(&[
        (
            "the_server_serves_the_trace_and_refuses_other_hosts",
            the_server_serves_the_trace_and_refuses_other_hosts,
        ),
        ("the_page_is_self_contained", the_page_is_self_contained),
        (
            "view_refuses_a_damaged_trace_with_the_offset",
            view_refuses_a_damaged_trace_with_the_offset,
        ),
        (
            "a_truncated_compressed_trace_says_its_offset_is_in_the_decompressed_body",
            a_truncated_compressed_trace_says_its_offset_is_in_the_decompressed_body,
        ),
        (
            "without_a_browser_the_address_is_printed_to_open_by_hand",
            without_a_browser_the_address_is_printed_to_open_by_hand,
        ),
        (
            "the_page_replays_the_trace_in_headless_chromium",
            the_page_replays_the_trace_in_headless_chromium,
        ),
        (
            "the_page_replays_a_mapf_plan_and_a_lorr_output_in_headless_chromium",
            the_page_replays_a_mapf_plan_and_a_lorr_output_in_headless_chromium,
        ),
    ])
}
