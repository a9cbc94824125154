//! The output files of `throng run`, checked and reserved before the scenario is built: an
//! output that is an input or another output is refused, and each file's temporary file is
//! made in its folder now ([`OutputFile::reserve`]), so that a path that cannot be written
//! fails before the run, and a failed check leaves no output at all.

use throng::scenario::{MapSource, Placement, Scenario};

use super::RunArgs;
use super::output::{Output, is_stdout};
use crate::cmd::output_file::{OutputFile, OutputFolder};
use crate::cmd::output_path::check_distinct;

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
