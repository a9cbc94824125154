//! `throng view`: serve a trace and its replay page on 127.0.0.1 and open the browser.

use std::io::Write;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};

use anyhow::Context;
use throng::trace::TraceReader;
use throng::view::{DEFAULT_PORT, ViewServer};

#[derive(clap::Args)]
pub(crate) struct ViewArgs {
    /// Trace file written by `throng run --trace FILE`.
    trace: PathBuf,
    /// Port to listen on, on 127.0.0.1 only, 0 to 65535 (0: any free port; the address is
    /// printed).
    #[arg(long, default_value_t = DEFAULT_PORT, value_parser = super::numbers::whole_from(0u16))]
    port: u16,
    /// Do not try to open the page in a browser.
    #[arg(long)]
    no_open: bool,
}

pub(crate) fn run(args: ViewArgs) -> anyhow::Result<ExitCode> {
    let file = &args.trace;
    super::file_kind::expect(file, super::file_kind::FileKind::Trace)?;
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    // Checked whole before serving: the page can trust what it is given, and a damaged file is
    // reported here, with the offset, rather than as a blank page.
    let mut reader = TraceReader::new(&bytes[..]).with_context(|| file.display().to_string())?;
    while reader
        .next_tick()
        .with_context(|| file.display().to_string())?
        .is_some()
    {}
    let summary = format!(
        "trace {}: {} x {} map, {} agents at the start, {} ticks",
        file.display(),
        reader.map().width,
        reader.map().height,
        reader.agents().len(),
        reader.ticks()
    );
    drop(reader);
    let server = ViewServer::bind(args.port, bytes).with_context(|| {
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

/// Asks the desktop to open `url`; says nothing when it cannot (no desktop, no opener).
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    let _ = std::process::Command::new(opener)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}
