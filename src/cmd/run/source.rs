//! Which scenario `throng run` plays: a scenario file, the built-in default, or a map given on
//! its own (`--map FILE.map`, `--generate SPEC`) played with the built-in default's settings
//! and `--agents` agents placed at random ([`Scenario::on_map`]).

use std::path::Path;

use anyhow::bail;
use throng::grid::procgen::MapGenerator;
use throng::scenario::{MapSource, Scenario};

use super::{RunArgs, default_scenario};
use crate::cmd::file_kind::{self, FileKind};

/// The scenario the flags name, before `--set`, `--seed`, `--ticks` and `--threads`.
pub(super) fn chosen_scenario(args: &RunArgs) -> anyhow::Result<Scenario> {
    if let Some(n) = args.agents
        && let Some(set) = args
            .set
            .iter()
            .find(|a| a.split('=').next().map(str::trim) == Some("agents"))
    {
        bail!("--agents {n} and --set {set} both give the number of agents: give one");
    }
    let own_map = match (&args.map, &args.generate) {
        (Some(_), Some(_)) => bail!("--map and --generate both give the map: give one"),
        (Some(file), None) => Some(format!("--map {}", file.display())),
        (None, Some(spec)) => Some(format!("--generate {spec}")),
        (None, None) => None,
    };
    if let (Some(flag), Some(file)) = (&own_map, &args.scenario) {
        bail!(
            "{flag}: plays a map without a scenario file, but {} was given too: give one or \
             the other (a scenario file names its own map)",
            file.display()
        );
    }
    let Some(label) = own_map else {
        if let Some(n) = args.agents {
            bail!(
                "--agents {n}: only with --map or --generate (a scenario file's agents are \
                 changed with --set agents={n})"
            );
        }
        return Ok(match &args.scenario {
            Some(path) => {
                file_kind::expect(path, FileKind::Scenario)?;
                Scenario::load(path)?
            }
            None => default_scenario()?,
        });
    };
    let settings = default_scenario()?;
    let (map, name) = match (&args.map, &args.generate) {
        (Some(file), _) => {
            check_map_file(file)?;
            let name = file
                .file_stem()
                .map_or_else(|| "map".into(), |s| s.to_string_lossy().into_owned());
            (MapSource::File(file.clone()), name)
        }
        (None, Some(spec)) => {
            let generator = MapGenerator::from_spec(spec)
                .map_err(|e| anyhow::anyhow!("--generate {spec}: {e}"))?;
            let seed = args.seed.unwrap_or(settings.seed);
            (MapSource::Generated { generator, seed }, generator.spec())
        }
        (None, None) => unreachable!("a map source was given"),
    };
    let agents = args.agents.unwrap_or(settings.agents);
    Ok(settings.on_map(map, agents, &name, &label)?)
}

/// Fails at once, naming the flag, when the `--map` file is missing, not a regular file, too
/// large or another kind of file.
fn check_map_file(file: &Path) -> anyhow::Result<()> {
    throng::cli::check(file, throng::cli::Input::Map).map_err(|e| anyhow::anyhow!("--map {e}"))?;
    file_kind::expect(file, FileKind::Map).map_err(|e| e.context("--map"))
}
