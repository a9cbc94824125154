//! Where `throng run` writes its outputs: every output file checked and reserved before the
//! scenario is built ([`RunFiles`]): an output that is an input or another output is refused,
//! and each file's temporary file is made in its folder then ([`OutputFile::reserve`]), so that
//! a path that cannot be written fails before the run, and a failed check leaves no output at
//! all. The text outputs (`--json`, `--csv`) may go to standard output instead, for `-`.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use throng::scenario::{MapSource, Placement, Scenario};

use super::RunArgs;
use crate::cmd::output_path::check_distinct;
use crate::cmd::output_path::{OutputFile, OutputFolder, ReadyOutputs, StreamedFile};

/// Whether `path` names standard output (`-`).
pub(super) fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A text output: a file or standard output.
pub(super) enum Output {
    /// Standard output (`-`).
    Stdout(BufWriter<io::Stdout>),
    /// A file.
    File(StreamedFile),
}

impl Output {
    /// Reserves `path` for the option `flag` (see [`OutputFile::reserve`]), or standard output
    /// for `-`.
    pub(super) fn reserve(flag: &str, path: &Path) -> anyhow::Result<Output> {
        Ok(if is_stdout(path) {
            Output::Stdout(BufWriter::with_capacity(1 << 16, io::stdout()))
        } else {
            Output::File(StreamedFile::new(OutputFile::reserve(flag, path)?))
        })
    }

    /// The path (`-` for standard output).
    pub(super) fn path(&self) -> &Path {
        match self {
            Output::Stdout(_) => Path::new("-"),
            Output::File(file) => file.path(),
        }
    }

    /// Finishes the output: flushes standard output, or adds the file to `ready`.
    pub(super) fn finish(self, ready: &mut ReadyOutputs) -> anyhow::Result<()> {
        match self {
            Output::Stdout(mut out) => Ok(out.flush()?),
            Output::File(file) => {
                ready.add(file.finish()?);
                Ok(())
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(out) => out.write(buf),
            Output::File(file) => file.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.write_all(buf),
            Output::File(file) => file.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.flush(),
            Output::File(file) => file.flush(),
        }
    }
}

/// The reserved outputs of a run, one per output flag given.
pub(super) struct RunFiles {
    /// `--json`.
    pub(super) json: Option<Output>,
    /// `--csv`.
    pub(super) csv: Option<Output>,
    /// `--paths`.
    pub(super) paths: Option<OutputFile>,
    /// `--trace`.
    pub(super) trace: Option<OutputFile>,
    /// `--render`.
    pub(super) render: Option<OutputFile>,
    /// `--heatmap`.
    pub(super) heatmap: Option<OutputFile>,
    /// `--plots`.
    pub(super) plots: Option<OutputFolder>,
}

impl RunFiles {
    /// Checks and reserves the outputs `args` names for a run of `scenario` (its flags' other
    /// checks, file kinds and standard output, are done before).
    pub(super) fn reserve(args: &RunArgs, scenario: &Scenario) -> anyhow::Result<RunFiles> {
        let outputs: Vec<(&str, &std::path::Path)> = [
            ("--json", &args.json),
            ("--csv", &args.csv),
            ("--paths", &args.paths),
            ("--trace", &args.trace),
            ("--render", &args.render),
            ("--heatmap", &args.heatmap),
        ]
        .into_iter()
        .filter_map(|(flag, file)| Some((flag, file.as_deref()?)))
        .filter(|(_, file)| !is_stdout(file))
        .collect();
        let mut inputs = Vec::new();
        if let Some(file) = &args.scenario {
            inputs.push(("the scenario file", file.as_path()));
        }
        if let MapSource::File(map) = &scenario.map {
            inputs.push(("the map", map.as_path()));
        }
        if let Placement::Scen { file } = &scenario.placement {
            inputs.push(("the .scen file", file.as_path()));
        }
        check_distinct(&outputs, &inputs)?;
        let file = |flag: &str, path: &Option<std::path::PathBuf>| {
            path.as_deref()
                .map(|p| OutputFile::reserve(flag, p))
                .transpose()
        };
        let output = |flag: &str, path: &Option<std::path::PathBuf>| {
            path.as_deref()
                .map(|p| Output::reserve(flag, p))
                .transpose()
        };
        Ok(RunFiles {
            json: output("--json", &args.json)?,
            csv: output("--csv", &args.csv)?,
            paths: file("--paths", &args.paths)?,
            trace: file("--trace", &args.trace)?,
            render: file("--render", &args.render)?,
            heatmap: file("--heatmap", &args.heatmap)?,
            // Last: the folder it makes when missing is made only once every file passed.
            plots: args
                .plots
                .as_deref()
                .map(|dir| OutputFolder::reserve("--plots", dir))
                .transpose()?,
        })
    }
}
