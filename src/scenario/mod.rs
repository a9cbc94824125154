//! Scenarios: a whole simulation run described in a TOML file (the files in `sims/`), read,
//! checked and built into a [`Simulation`].
//!
//! A scenario names the map (a Moving AI `.map` file or a procedural [`MapGenerator`]), how
//! many agents there are and how their starts and goals are placed, the [`SimConfig`] and how
//! long to run. [`Scenario::load`] reads and checks a file; [`Scenario::build`] makes the
//! [`Simulation`], placing the agents deterministically from the seed; [`Scenario::play`]
//! also plays the scripted map changes.
//!
//! The module stands apart from [`sim`](crate::sim) so that the simulation knows nothing of
//! files: it depends on `sim`, never the other way. Its parts: the file as serde reads it
//! (`schema.rs`) and its reading, table by table (`parse.rs`), with the line of every key
//! (`toml_lines.rs`, `origin.rs`) so that errors name the file, the line and the key;
//! placement (`placement.rs`), the planner mix (`planner_mix.rs`), scripted map changes
//! (`schedule.rs`), overrides by key (`overrides.rs`, `--set`) and a map played without a
//! file (`on_map.rs`). The JSON summary of a run is in [`report`](crate::report).
//!
//! ```toml
//! name = "example"                # default: the file name without .toml
//! description = "what it shows"   # optional
//! seed = 1                        # placement and lifelong goals (default 0)
//! ticks = 300                     # ticks to play at most (one-shot runs may stop earlier)
//! threads = 0                     # worker threads, 0 = all cores (default 0)
//! agents = 500
//!
//! [map]                           # exactly one of `file` and `generator`
//! file = "maps/arena.map"         # relative to the scenario file
//! # generator = { kind = "rooms", width = 128, height = 128, room = 15, door = 3 }
//! # seed = 0                      # generator seed (default 0; `--seed` does not change the map)
//! neighbourhood = 8               # 8 (default: straight and diagonal moves) or 4 (straight)
//!
//! [placement]                     # default: kind = "random"
//! kind = "random"                 # "random" | "crowds" | "scen"
//! # crowds: groups = 2 (1 to 16), density = 0.5 (0 < density <= 1)
//! # scen:   file = "maps/mapf/random-32-32-10-random-1.scen" (the first `agents` lines)
//!
//! [sim]                           # any field of SimConfig except `seed` (set at the top)
//! planner = "astar"
//! conflicts = "pibt"              # or "avoid", "off"
//! action_model = "free"           # or "rotate" (robots: forward or quarter turns; pibt only)
//! lifelong = false
//! max_plans_per_tick = 2000
//!
//! [planner_mix]                   # optional: fractions of the agents with their own planner
//! dstar = 0.5                     # each in 0..=1, summing to at most 1; the rest use [sim]
//! ```
//!
//! `[planner_mix]` gives `floor(fraction * agents)` agents each listed planner; which agents is
//! drawn from the seed (a seeded shuffle of the agent order, planners taken in name order),
//! so the same file and seed always give the same agents the same planners.
//!
//! Scripted map changes (`[[changes]]` rectangles blocked or opened at a tick, and a `[doors]`
//! generator that shuts and opens doorways); [`Scenario::schedule`] turns them into a
//! [`ChangeSchedule`]:
//!
//! ```toml
//! [[changes]]
//! tick = 50
//! block = [10, 0, 10, 20]         # x0, y0, x1, y1 (inclusive rectangle)
//! [[changes]]
//! tick = 80
//! open = [10, 0, 10, 20]
//!
//! [doors]                         # `count` doors, each shut or opened at random every
//! count = 20                      # `period` ticks (tick period, 2 * period, ...)
//! period = 40
//! seed = 3                        # default 0
//! ```
//!
//! Doors are gaps of 1 to 3 walkable cells in a line of walls (a vertical or horizontal run
//! bounded by blocked cells at both ends, with walkable cells on both sides), the doorways of
//! a rooms map; on a map without such gaps, single walkable cells. They are chosen among the
//! cells walkable at the start, seeded by `seed`; all start open. At every multiple of
//! `period` each door is drawn shut or open (one chance in two).
//!
//! A change never blocks a cell an agent stands on: [`ChangeSchedule::queue_due`] drops such
//! cells from the batch when it is queued, just before the tick that applies it (the cell stays
//! walkable until its next scheduled change). Everything depends only on the file and the
//! agents' positions, so the same file gives the same run on any number of threads.
//!
//! Unknown keys and bad values are errors that name the file, the line and the key.
//!
//! Placement rules, all seeded by `seed`:
//! - every start and goal is in the map's largest connected component, so every goal is
//!   reachable from its start;
//! - starts are distinct when conflicts are on (`conflicts = "avoid"`), and so are goals in a
//!   one-shot run; an agent's goal is never its own start when the map allows it;
//! - in a one-shot run with conflicts on, an agent at its goal stays there for good, so no goal
//!   is put on a cut cell (a cell whose blocking splits the map's area, such as the mouth of a
//!   dead end or a one-cell-wide passage): one parked agent never walls others off;
//! - `random`: starts and goals drawn uniformly from the component;
//! - `crowds`: `groups` clustered crowds (agent `i` is in group `i % groups`). The crowds stand
//!   around points spread evenly on an ellipse inside the map (two groups: left and right, four:
//!   the four sides), each heading for the opposite side, where it gathers again. `density` is
//!   the fraction of the cells of a crowd's area that hold an agent;
//! - `scen`: start and goal of agent `k` from line `k` of a Moving AI / MAPF `.scen` file.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::Result;
use crate::grid::procgen::MapGenerator;
use crate::grid::{Grid, Neighborhood};
use crate::input::{Input, read_text};
use crate::movingai::{MapOptions, load_map, parse_map};
use crate::planner::PlannerKind;
use crate::report::RunJson;
use crate::sim::{RunSummary, SimConfig, Simulation, TickReport};

mod on_map;
mod origin;
mod overrides;
mod parse;
mod placement;
mod planner_mix;
mod schedule;
mod schema;
mod toml_lines;

use origin::Origin;
pub use placement::Placement;
pub use schedule::{ChangeSchedule, Doors, ScriptedChange};

/// Where the map of a scenario comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MapSource {
    /// A Moving AI `.map` file (the path is resolved against the scenario file's folder).
    File(PathBuf),
    /// The text of a `.map` file held in memory, given to [`Scenario::parse_with_map`]: how a
    /// program that carries its scenario and map inside itself (the `throng` binary's default
    /// scenario) runs them with no files on disk.
    Text {
        /// The `map.file` value the scenario gave (names the map in errors and summaries).
        file: String,
        /// The map's text, in the Moving AI `.map` format (left out of serialized output: it
        /// can be megabytes).
        #[serde(skip)]
        text: String,
    },
    /// A procedural map.
    Generated {
        /// The recipe.
        generator: MapGenerator,
        /// The generator's seed.
        seed: u64,
    },
}

/// A parsed and checked scenario file. Fields are plain data a caller may change before
/// [`build`](Self::build) (the command line's `--seed`, `--ticks`, `--threads` do).
///
/// ```
/// use throng::scenario::Scenario;
///
/// let scenario = Scenario::parse(
///     r#"
///     agents = 20
///     ticks = 50
///     [map]
///     generator = { kind = "random", width = 32, height = 32, density = 0.1 }
///     "#,
///     "inline.toml",
///     ".".as_ref(),
/// )?;
/// let mut sim = scenario.build()?;
/// assert_eq!(sim.agents().len(), 20);
/// for _ in 0..scenario.ticks {
///     sim.step();
/// }
/// # Ok::<(), throng::error::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Short name (default: the file name without extension).
    pub name: String,
    /// One line saying what the scenario shows (may be empty).
    pub description: String,
    /// Seed of the placement and of the simulation (lifelong goals). Copied into
    /// [`SimConfig::seed`] by [`build`](Self::build).
    pub seed: u64,
    /// Ticks to play at most.
    pub ticks: u64,
    /// Worker threads to plan on; 0 means all cores.
    pub threads: usize,
    /// Number of agents.
    pub agents: usize,
    /// The map.
    pub map: MapSource,
    /// Moves between cells (`[map] neighbourhood = 4` or `8`, default 8), for the planners
    /// and for movement alike.
    pub neighbourhood: Neighborhood,
    /// How starts and goals are placed.
    pub placement: Placement,
    /// Simulation settings (its `seed` is replaced by [`Scenario::seed`] when building).
    pub sim: SimConfig,
    /// Scripted map changes (`[[changes]]`), in file order.
    pub changes: Vec<ScriptedChange>,
    /// The door generator (`[doors]`), if any.
    pub doors: Option<Doors>,
    /// Fractions of the agents that plan with their own planner (`[planner_mix]`), in planner
    /// name order; the other agents use [`SimConfig::planner`].
    pub planner_mix: Vec<(PlannerKind, f64)>,
    origin: Origin,
}

impl Scenario {
    /// The most agents a scenario may ask for: about 1.6 GB of agents. A file asking for more is
    /// refused before anything is allocated.
    pub const MAX_AGENTS: usize = 1 << 22;

    /// The most worker threads a scenario may ask for (`threads`, `--threads`): beyond this a
    /// tick spends its time starting and waking threads.
    pub const MAX_THREADS: usize = 256;

    /// With conflicts off (agents share cells), the most agents per free cell of the map's
    /// largest area.
    pub const MAX_AGENTS_PER_CELL: usize = 16;

    /// What is wrong with `agents` agents, in the words of every place that takes the count
    /// (the file, an override, `--agents`).
    pub(crate) fn agents_problem(agents: u64) -> Option<String> {
        match agents {
            0 => Some("must be at least 1".into()),
            n if n > Self::MAX_AGENTS as u64 => Some(format!(
                "must be at most {} (each agent takes a few hundred bytes)",
                Self::MAX_AGENTS
            )),
            _ => None,
        }
    }

    /// What is wrong with `ticks` ticks.
    pub(crate) fn ticks_problem(ticks: u64) -> Option<&'static str> {
        (ticks == 0).then_some("must be at least 1")
    }

    /// What is wrong with `threads` worker threads.
    pub(crate) fn threads_problem(threads: u64) -> Option<String> {
        (threads > Self::MAX_THREADS as u64)
            .then(|| format!("must be at most {} (0 means all cores)", Self::MAX_THREADS))
    }

    /// Reads and checks a scenario file.
    ///
    /// # Errors
    /// [`Error::Io`](crate::error::Error::Io) when it cannot be read; [`Error::Parse`](crate::error::Error::Parse) naming the line and key of an
    /// unknown key, a missing key, a value of the wrong type or out of range, or a map or
    /// `.scen` file that does not exist.
    pub fn load(path: impl AsRef<Path>) -> Result<Scenario> {
        let path = path.as_ref();
        // A map, a trace or a LoRR problem given as a scenario is named for what it is by
        // the reader, rather than by the TOML parser's complaint about its first line.
        let text = read_text(path, Input::Scenario)?;
        let base = path.parent().unwrap_or(Path::new(""));
        let mut scenario = Self::parse(&text, &path.display().to_string(), base)?;
        if scenario.name.is_empty() {
            scenario.name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
        }
        Ok(scenario)
    }

    /// Parses scenario text. `file` labels errors; relative map and `.scen` paths are
    /// resolved against `base_dir`.
    ///
    /// # Errors
    /// As [`load`](Self::load), without the I/O error.
    pub fn parse(text: &str, file: &str, base_dir: &Path) -> Result<Scenario> {
        parse::parse(text, file, base_dir, None)
    }

    /// Parses scenario text whose map is supplied in memory: when the scenario's `map.file` is
    /// exactly `map_file` (as written, e.g. `"maps/arena.map"`), the map is
    /// [`MapSource::Text`] with `map_text`, and no file is looked for. Any other `map.file`,
    /// and the `.scen` file of a `scen` placement, are resolved against `base_dir` as in
    /// [`parse`](Self::parse). `map_text` is parsed by [`build`](Self::build) (and
    /// [`load_grid`](Self::load_grid)), so its errors come from there, labelled `map_file`.
    ///
    /// This is how the `throng` binary carries its default scenario and map inside itself, so
    /// that `throng run` works for an installed or moved binary.
    ///
    /// ```
    /// use throng::scenario::{MapSource, Scenario};
    ///
    /// let scenario = Scenario::parse_with_map(
    ///     "agents = 3\nticks = 10\n[map]\nfile = \"maps/tiny.map\"\n",
    ///     "inline.toml",
    ///     "/nowhere".as_ref(),
    ///     "maps/tiny.map",
    ///     "type octile\nheight 2\nwidth 4\nmap\n....\n....\n",
    /// )?;
    /// assert!(matches!(scenario.map, MapSource::Text { .. }));
    /// assert_eq!(scenario.build()?.agents().len(), 3);
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`parse`](Self::parse).
    pub fn parse_with_map(
        text: &str,
        file: &str,
        base_dir: &Path,
        map_file: &str,
        map_text: &str,
    ) -> Result<Scenario> {
        parse::parse(text, file, base_dir, Some((map_file, map_text)))
    }

    /// Checks the settings that depend on each other, as they stand after overrides
    /// ([`set`](Self::set) checks one key at a time, so `--set action_model=rotate --set
    /// neighbourhood=4` passes in either order): the action model against the map's
    /// neighbourhood. [`build`](Self::build) checks too.
    ///
    /// # Errors
    /// [`Error::Parse`](crate::error::Error::Parse) naming the file, the key (and its line when the file wrote it), and why.
    pub fn check(&self) -> Result<()> {
        if let Some((key, why)) = self.sim.problem_on(self.neighbourhood) {
            return Err(self.origin.error(key, why));
        }
        Ok(())
    }

    /// The file the scenario was read from (as given), or the label passed to
    /// [`parse`](Self::parse).
    pub fn file(&self) -> &str {
        &self.origin.file
    }

    /// The overrides applied since the file was read ([`set`](Self::set),
    /// [`set_assignment`](Self::set_assignment)), in order, as their callers wrote them
    /// (`--set agents=4000`): the file's `description` tells the settings before them.
    pub fn overrides(&self) -> impl Iterator<Item = &str> {
        self.origin
            .overrides
            .iter()
            .map(|(_, label)| label.as_str())
    }

    /// The summary `throng run --json` writes for a run of this scenario: `summary` with what
    /// was run (scenario, map, seed, settings), the final state hash in hex, and `setup_s`, the
    /// seconds spent loading the map and placing the agents.
    pub fn run_json<'a>(&'a self, summary: &'a RunSummary, setup_s: f64) -> RunJson<'a> {
        RunJson::new(
            &self.name,
            self.file(),
            self.map_label(),
            &self.sim_config(),
            summary,
            setup_s,
        )
    }

    /// A short description of the map: the file path, or the generator and its seed.
    pub fn map_label(&self) -> String {
        match &self.map {
            MapSource::File(path) => path.display().to_string(),
            MapSource::Text { file, .. } => format!("{file} (in memory)"),
            MapSource::Generated { generator, seed } => {
                let (w, h) = generator.size();
                let kind = match generator {
                    MapGenerator::Random { density, .. } => format!("random (density {density})"),
                    MapGenerator::Rooms { room, door, .. } => {
                        format!("rooms (room {room}, door {door})")
                    }
                    MapGenerator::Maze { corridor, .. } => format!("maze (corridor {corridor})"),
                };
                format!("generated {kind} {w} x {h}, seed {seed}")
            }
        }
    }

    /// The map file the scenario names (`map.file`), when its map is not generated.
    fn map_file(&self) -> Option<&Path> {
        match &self.map {
            MapSource::File(path) => Some(path),
            MapSource::Text { file, .. } => Some(Path::new(file)),
            MapSource::Generated { .. } => None,
        }
    }

    /// The simulation settings the run uses: [`Scenario::sim`] with the scenario's seed.
    pub fn sim_config(&self) -> SimConfig {
        SimConfig {
            seed: self.seed,
            ..self.sim
        }
    }

    /// Loads or generates the map.
    ///
    /// # Errors
    /// The map file's errors, or the generator's, pointed at the `map` key.
    pub fn load_grid(&self) -> Result<Grid> {
        let grid = match &self.map {
            MapSource::File(path) => load_map(path)?,
            MapSource::Text { file, text } => parse_map(text, file, &MapOptions::default())?,
            MapSource::Generated { generator, seed } => generator
                .generate(*seed)
                .map_err(|e| self.origin.error("map.generator", e))?,
        };
        Ok(grid.with_neighborhood(self.neighbourhood))
    }

    /// Builds the simulation and plays up to [`ticks`](Self::ticks) ticks on the current
    /// rayon pool, with the scripted map changes, calling `each` after every tick. A one-shot
    /// run stops early once every agent is at its goal or has no path and no change is left.
    ///
    /// # Errors
    /// As [`build`](Self::build) and [`schedule`](Self::schedule).
    pub fn play(&self, mut each: impl FnMut(&Simulation, &TickReport)) -> Result<Simulation> {
        let mut sim = self.build()?;
        let mut schedule = self.schedule(sim.grid())?;
        let lifelong = self.sim.lifelong;
        for _ in 0..self.ticks {
            schedule.queue_due(&mut sim);
            let report = sim.step();
            each(&sim, &report);
            if !lifelong
                && schedule.is_finished()
                && (report.at_goal + report.no_path == report.agents || report.unsolvable)
            {
                break;
            }
        }
        Ok(sim)
    }

    /// Builds the simulation: the map, the settings (with the scenario's seed) and the agents.
    ///
    /// # Errors
    /// [`check`](Self::check)'s, the map's errors, [`place`](Self::place)'s, and
    /// [`schedule`](Self::schedule)'s (a changed rectangle outside the map).
    pub fn build(&self) -> Result<Simulation> {
        self.check()?;
        let grid = self.load_grid()?;
        self.schedule(&grid)?;
        let pairs = self.place(&grid)?;
        let planners = self.planners(pairs.len());
        let mut sim = Simulation::new(grid, self.sim_config())?;
        for ((start, goal), planner) in pairs.into_iter().zip(planners) {
            match planner {
                Some(planner) => sim.add_agent_with_planner(start, Some(goal), planner)?,
                None => sim.add_agent(start, Some(goal))?,
            };
        }
        Ok(sim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "agents = 10\nticks = 5\n[map]\ngenerator = { kind = \"random\", width = 16, height = 16, density = 0.1 }\n";

    #[test]
    fn small_scenario_parses_and_places() {
        let s = Scenario::parse(SMALL, "t.toml", Path::new(".")).unwrap();
        assert_eq!((s.agents, s.ticks, s.threads, s.seed), (10, 5, 0, 0));
        assert_eq!(s.placement, Placement::Random);
        let sim = s.build().unwrap();
        assert_eq!(sim.agents().len(), 10);
    }

    #[test]
    fn a_map_held_in_memory_replaces_only_the_file_it_names() {
        const TINY: &str = "type octile\nheight 2\nwidth 4\nmap\n....\n..@.\n";
        let text = "agents = 2\nticks = 5\n[map]\nfile = \"maps/tiny.map\"\n";
        let base = Path::new("/nowhere-at-all");
        let s = Scenario::parse_with_map(text, "t.toml", base, "maps/tiny.map", TINY).unwrap();
        assert_eq!(
            s.map,
            MapSource::Text {
                file: "maps/tiny.map".into(),
                text: TINY.into()
            }
        );
        assert_eq!(s.map_label(), "maps/tiny.map (in memory)");
        let grid = s.load_grid().unwrap();
        assert_eq!(
            (grid.width(), grid.height(), grid.walkable_count()),
            (4, 2, 7)
        );
        // Another name is looked for on disk, against base_dir, and is missing there.
        let e = Scenario::parse_with_map(text, "t.toml", base, "maps/other.map", TINY).unwrap_err();
        assert!(
            e.to_string()
                .contains("t.toml:4: map.file: maps/tiny.map: no such file (looked for /nowhere-at-all/maps/tiny.map)"),
            "{e}"
        );
        // A bad map text fails in build, under the map's name.
        let s = Scenario::parse_with_map(text, "t.toml", base, "maps/tiny.map", "type octile\n")
            .unwrap();
        let e = s.build().unwrap_err();
        assert!(e.to_string().starts_with("maps/tiny.map"), "{e}");
    }
}
