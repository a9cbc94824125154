//! `throng view`: serve a trace, MAPF plan or LoRR output and its replay page on 127.0.0.1 and
//! open the browser.

use std::io::Write;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};

use anyhow::Context;
use throng::view::{DEFAULT_PORT, MapSource, ViewServer};

#[derive(clap::Args)]
pub(crate) struct ViewArgs {
    /// A trace (`throng run --trace FILE`), a MAPF plan (`throng mapf --out FILE`) or a League
    /// of Robot Runners output (`throng lorr --out FILE`); the kind is told from the contents.
    file: PathBuf,
    /// The map (Moving AI .map) of a LoRR output, or of a plan in place of the map it names.
    #[arg(long, value_name = "MAP", conflicts_with = "problem")]
    map: Option<PathBuf>,
    /// The LoRR problem JSON a LoRR output played: its map, and the robots' starts checked
    /// against it.
    #[arg(long, value_name = "PROBLEM.json")]
    problem: Option<PathBuf>,
    /// Port to listen on, on 127.0.0.1 only, 0 to 65535 (0: any free port; the address is
    /// printed).
    #[arg(long, default_value_t = DEFAULT_PORT, value_parser = super::numbers::whole_from(0u16))]
    port: u16,
    /// Do not try to open the page in a browser.
    #[arg(long)]
    no_open: bool,
}

pub(crate) fn run(args: ViewArgs) -> anyhow::Result<ExitCode> {
    // Checked whole before serving: the page can trust what it is given, and a damaged file is
    // reported here, with the line or offset, rather than as a blank page.
    if let Some(map) = &args.map {
        super::file_kind::expect(map, super::file_kind::FileKind::Map)
            .map_err(|e| e.context("--map"))?;
    }
    if let Some(problem) = &args.problem {
        super::file_kind::expect(problem, super::file_kind::FileKind::LorrProblem)
            .map_err(|e| e.context("--problem"))?;
    }
    let source = MapSource {
        map: args.map.as_deref(),
        problem: args.problem.as_deref(),
    };
    let replay = throng::view::open(&args.file, source)?;
    let summary = replay.summary();
    let server = ViewServer::bind_replay(args.port, replay).with_context(|| {
        format!(
            "cannot listen on 127.0.0.1:{} (in use? --port 0 picks a free port)",
            args.port
        )
    })?;
    let url = server.url();
    let mut out = std::io::stdout().lock();
    writeln!(out, "{summary}")?;
    writeln!(out, "serving {url} (Ctrl-C to stop)")?;
    out.flush()?;
    drop(out);
    if !args.no_open {
        open_browser(&url);
    }
    server.serve()?;
    Ok(ExitCode::SUCCESS)
}

/// Asks the desktop to open `url`; says on stderr when it cannot (no opener, or the opener
/// failed), with the address to open by hand. The opener is waited for on a thread of its own:
/// serving starts at once.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    let say = |why: String| eprintln!("no browser opened ({why}); open {url} yourself");
    let child = std::process::Command::new(opener)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return say(format!("cannot run {opener}: {e}")),
    };
    // explorer exits with status 1 even when it opened the page: only its start tells.
    if cfg!(windows) {
        return;
    }
    let url = url.to_string();
    let waiter = std::thread::Builder::new()
        .name("throng-view-opener".into())
        .spawn(move || match child.wait() {
            Ok(status) if status.success() => {}
            Ok(status) => eprintln!("no browser opened ({opener} {status}); open {url} yourself"),
            Err(e) => eprintln!("no browser opened ({opener}: {e}); open {url} yourself"),
        });
    if let Err(e) = waiter {
        say(format!("cannot wait for {opener}: {e}"));
    }
}
