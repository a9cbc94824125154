//! `throng view`: the server answers over real TCP (and refuses foreign Host headers), and the
//! page, opened in headless Chromium, replays a trace: tick counter, agent count, agents drawn.
//!
//! The browser tests need Chromium (`/usr/bin/chromium`, or the path in `THRONG_CHROMIUM`); when
//! it is absent they print a notice and pass, unless `THRONG_REQUIRE_BROWSER=1` (CI), where
//! they fail.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use throng::sim::Scenario;
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
}

impl Server {
    fn start(trace: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
            .args(["view", "--port", "0", "--no-open"])
            .arg(trace)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        assert!(first.starts_with("trace "), "{first}");
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
        Server { child, port }
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

#[test]
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

#[test]
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

#[test]
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

/// Chromium, or `None` (after a notice) when it is absent and not required.
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
    eprintln!(
        "notice: skipping the browser test: no Chromium at {} (set THRONG_CHROMIUM, or \
         THRONG_REQUIRE_BROWSER=1 to fail instead)",
        path.display()
    );
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

#[test]
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
    let decoder = png::Decoder::new(BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    let step = info.color_type.samples();
    assert!(step >= 3, "{:?}", info.color_type);
    let count = |colour: [u8; 3]| {
        pixels[..info.buffer_size()]
            .chunks_exact(step)
            .filter(|p| p[..3] == colour)
            .count()
    };
    let (moving, group_1) = (count(MOVING), count(GROUP_1));
    assert!(
        moving >= 100 && group_1 >= 100,
        "agent pixels: {moving} of group 0, {group_1} of group 1"
    );
}
