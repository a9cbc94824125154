//! A scenario for a map given on its own (`throng run --map FILE.map --agents N`, `--generate`):
//! another scenario's settings (the command line takes `sims/default.toml`'s), played on that
//! map with agents placed at random, so that a user's map runs without a scenario file.

use super::origin::Origin;
use super::{MapSource, Placement, Scenario};
use crate::error::{Error, Result};

impl Scenario {
    /// This scenario's settings (seed, ticks, threads, neighbourhood, `[sim]`, planner mix)
    /// played on `map` by `agents` agents placed at random in its largest connected area (see
    /// the [placement rules](super)). The result is named `name`; `label` stands for the file
    /// in its errors (`LABEL: agents: ...`), as a file name does for a scenario file. Its
    /// description says what it is.
    ///
    /// ```
    /// use throng::grid::procgen::MapGenerator;
    /// use throng::scenario::{MapSource, Scenario};
    ///
    /// let settings = Scenario::parse(
    ///     "agents = 1\nticks = 40\n[map]\ngenerator = { kind = \"maze\", width = 9, height = 9, corridor = 1 }\n",
    ///     "settings.toml",
    ///     ".".as_ref(),
    /// )?;
    /// let map = MapSource::Generated {
    ///     generator: MapGenerator::from_spec("random:32x32:0.1")?,
    ///     seed: 7,
    /// };
    /// let scenario = settings.on_map(map, 25, "random-32", "--generate random:32x32:0.1")?;
    /// assert_eq!((scenario.agents, scenario.ticks), (25, 40));
    /// assert_eq!(scenario.build()?.agents().len(), 25);
    /// // Too many agents for the map: an error under the label.
    /// let tiny = MapSource::Generated {
    ///     generator: MapGenerator::from_spec("random:4x4:0")?,
    ///     seed: 0,
    /// };
    /// let crowded = settings.on_map(tiny, 17, "tiny", "--generate random:4x4:0")?;
    /// let e = crowded.build().unwrap_err().to_string();
    /// assert!(e.starts_with("--generate random:4x4:0: agents: 17 agents do not fit"), "{e}");
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] for 0 agents or more than [`Scenario::MAX_AGENTS`], and when this
    /// scenario has scripted map changes or doors: they are drawn for its own map.
    pub fn on_map(
        &self,
        map: MapSource,
        agents: usize,
        name: &str,
        label: &str,
    ) -> Result<Scenario> {
        if let Some(why) = Scenario::agents_problem(agents as u64) {
            return Err(Error::Invalid(format!("{label}: agents {why}")));
        }
        if !self.changes.is_empty() || self.doors.is_some() {
            return Err(Error::Invalid(format!(
                "{label}: the settings of {} change their own map ([[changes]] or [doors]), \
                 so they cannot be played on another",
                self.file()
            )));
        }
        let scenario = Scenario {
            name: name.to_string(),
            // No count here: `--set agents=N` may change it after; the setup line says it.
            description: format!(
                "agents placed at random, the other settings from {}",
                self.file()
            ),
            agents,
            map,
            placement: Placement::Random,
            origin: Origin::new(label),
            ..self.clone()
        };
        scenario.check()?;
        Ok(scenario)
    }
}
