//! Scenario files: a whole simulation run described in TOML (the files in `sims/`).
//!
//! A scenario names the map (a Moving AI `.map` file or a procedural [`MapGenerator`]), how
//! many agents there are and how their starts and goals are placed, the [`SimConfig`] and how
//! long to run. [`Scenario::load`] reads and checks a file; [`Scenario::build`] makes the
//! [`Simulation`], placing the agents deterministically from the seed.
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
//! generator that shuts and opens doorways) are described in [`super::schedule`];
//! [`Scenario::schedule`] turns them into a [`ChangeSchedule`].
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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::config::{ConflictMode, SimConfig};
use super::schedule::{ChangeSchedule, Doors, ScriptedChange, rect_changes};
use super::simulation::Simulation;
use crate::error::{Error, ParseError, Result, read_text};
use crate::grid::procgen::MapGenerator;
use crate::grid::{CellId, Grid, Neighborhood};
use crate::movingai::{MapOptions, OtherMapName, ScenFile, load_map, parse_map};
use crate::planner::PlannerKind;

mod on_map;

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

/// How starts and goals are placed. See the [module docs](self).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Placement {
    /// Uniformly at random in the largest component.
    Random,
    /// Clustered crowds crossing the map to the opposite side.
    Crowds {
        /// Number of crowds (1 to 16).
        groups: u32,
        /// Fraction of a crowd's area holding an agent (0 < density <= 1).
        density: f64,
    },
    /// From a Moving AI / MAPF `.scen` file: agent `k` gets line `k`'s start and goal.
    Scen {
        /// The file (resolved against the scenario file's folder).
        file: PathBuf,
    },
}

/// A parsed and checked scenario file. Fields are plain data a caller may change before
/// [`build`](Self::build) (the command line's `--seed`, `--ticks`, `--threads` do).
///
/// ```
/// use throng::sim::Scenario;
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
/// # Ok::<(), throng::Error>(())
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

/// Where a scenario came from, to point errors found after parsing at the right line.
#[derive(Debug, Clone, Default, PartialEq)]
struct Origin {
    file: String,
    /// Line of each key that was written (`"agents"`, `"map.file"`, ...).
    lines: Vec<(&'static str, usize)>,
}

impl Origin {
    fn line(&self, key: &str) -> Option<usize> {
        self.lines.iter().find(|(k, _)| *k == key).map(|&(_, l)| l)
    }

    /// An error about `key`, at its line when it was written in the file.
    fn error(&self, key: &str, message: impl std::fmt::Display) -> Error {
        let message = format!("{key}: {message}");
        match self.line(key) {
            Some(line) => ParseError::at(&self.file, line, message),
            None => ParseError::whole(&self.file, message),
        }
        .into()
    }
}

// The file as serde sees it. Spanned values carry their byte range, for error lines.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    name: Option<String>,
    description: Option<String>,
    #[serde(default)]
    seed: u64,
    ticks: Spanned<u64>,
    #[serde(default)]
    threads: usize,
    agents: Spanned<usize>,
    map: Spanned<RawMap>,
    placement: Option<Spanned<RawPlacement>>,
    sim: Option<Spanned<SimConfig>>,
    #[serde(default)]
    changes: Vec<Spanned<RawChange>>,
    doors: Option<Spanned<RawDoors>>,
    planner_mix: Option<Spanned<BTreeMap<String, Spanned<f64>>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChange {
    tick: Spanned<u64>,
    block: Option<Spanned<[u32; 4]>>,
    open: Option<Spanned<[u32; 4]>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDoors {
    count: Spanned<u32>,
    period: Spanned<u64>,
    #[serde(default)]
    seed: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMap {
    file: Option<Spanned<String>>,
    generator: Option<Spanned<MapGenerator>>,
    seed: Option<Spanned<u64>>,
    #[serde(alias = "neighborhood")]
    neighbourhood: Option<Spanned<i64>>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum PlacementKind {
    Random,
    Crowds,
    Scen,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlacement {
    kind: Spanned<PlacementKind>,
    groups: Option<Spanned<u32>>,
    density: Option<Spanned<f64>>,
    file: Option<Spanned<String>>,
}

/// 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The line where `key` is assigned inside the byte range `within` (a table or inline table),
/// if it can be found: refines the line of errors serde reports for a whole table.
fn key_line_in(text: &str, within: std::ops::Range<usize>, key: &str) -> Option<usize> {
    let start = within.start.min(text.len());
    let end = within.end.clamp(start, text.len());
    let region = text.get(start..end)?;
    let mut from = 0;
    while let Some(pos) = region[from..].find(key) {
        let at = from + pos;
        let before = region[..at].chars().next_back();
        let after = region[at + key.len()..].trim_start_matches([' ', '\t', '"', '\'']);
        let boundary = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'));
        if boundary && after.starts_with('=') {
            return Some(line_of(text, start + at));
        }
        from = at + key.len();
    }
    None
}

/// The line of `key` in table `[table]` (or written `table.key` at the top level).
fn table_key_line(text: &str, table: &str, key: &str) -> Option<usize> {
    let mut current = String::new();
    let dotted = format!("{table}.{key}");
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') {
            current = line
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            continue;
        }
        let lhs = match line.split_once('=') {
            Some((lhs, _)) => lhs.trim().trim_matches(['"', '\'']),
            None => continue,
        };
        if (current == table && lhs == key) || (current.is_empty() && lhs == dotted) {
            return Some(i + 1);
        }
    }
    None
}

/// The dotted name of what sits at byte `offset`: `table.key` when the offset is in the value
/// of `key = ...` under `[table]`, or just the table when it is elsewhere (a key's name, a
/// table header). Empty at the top level outside any value.
fn key_path_at(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[line_start..line_end];
    let mut table = String::new();
    for l in text[..line_start].lines().chain([line]) {
        let l = l.trim();
        if l.starts_with('[') {
            table = l.trim_matches(['[', ']']).trim().to_string();
        }
    }
    let key = line
        .split_once('=')
        .filter(|(lhs, _)| line_start + lhs.len() < offset)
        .map(|(lhs, _)| lhs.trim().trim_matches(['"', '\'']).to_string())
        .filter(|k| !k.is_empty() && !k.starts_with('[') && !k.starts_with('#'));
    match (table.is_empty(), key) {
        (_, Some(k)) if table.is_empty() => k,
        (false, Some(k)) => format!("{table}.{k}"),
        _ => table,
    }
}

fn toml_error(file: &str, text: &str, err: &toml::de::Error) -> Error {
    let mut message = err.message().trim().replace('\n', " ");
    let Some(span) = err.span() else {
        return ParseError::whole(file, message).into();
    };
    let mut line = line_of(text, span.start);
    // serde reports unknown fields of an internally tagged table (the map generator) at the
    // whole table: point at the key itself.
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((key, _)) = rest.split_once('`')
        && let Some(l) = key_line_in(text, span.clone(), key)
    {
        line = l;
    }
    // The parser says "duplicate key" without the key: it is the one written on that line.
    if message == "duplicate key"
        && let Some(row) = text.lines().nth(line.saturating_sub(1))
        && let Some((key, _)) = row.split_once('=')
    {
        message = format!("duplicate key `{}` (set twice)", key.trim());
    }
    // Name the key the error is about ("sim.conflicts: unknown variant ..."), unless the
    // message is about the whole file.
    let path = key_path_at(text, span.start);
    if !path.is_empty() {
        message = format!("{path}: {message}");
    }
    ParseError::at(file, line, message).into()
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

    /// Reads and checks a scenario file.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be read; [`Error::Parse`] naming the line and key of an
    /// unknown key, a missing key, a value of the wrong type or out of range, or a map or
    /// `.scen` file that does not exist.
    pub fn load(path: impl AsRef<Path>) -> Result<Scenario> {
        let path = path.as_ref();
        let text = read_text(path)?;
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
        Self::parse_inner(text, file, base_dir, None)
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
    /// use throng::sim::{MapSource, Scenario};
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
    /// # Ok::<(), throng::Error>(())
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
        Self::parse_inner(text, file, base_dir, Some((map_file, map_text)))
    }

    /// [`parse`](Self::parse), with an optional `(map.file value, map text)` held in memory.
    fn parse_inner(
        text: &str,
        file: &str,
        base_dir: &Path,
        supplied_map: Option<(&str, &str)>,
    ) -> Result<Scenario> {
        let raw: RawScenario = toml::from_str(text).map_err(|e| toml_error(file, text, &e))?;
        let mut origin = Origin {
            file: file.to_string(),
            lines: Vec::new(),
        };
        let at = |span: std::ops::Range<usize>| line_of(text, span.start);
        let mark = |origin: &mut Origin, key: &'static str, span: std::ops::Range<usize>| {
            origin.lines.push((key, at(span)));
        };
        mark(&mut origin, "ticks", raw.ticks.span());
        mark(&mut origin, "agents", raw.agents.span());
        mark(&mut origin, "map", raw.map.span());

        if *raw.ticks.get_ref() == 0 {
            return Err(origin.error("ticks", "must be at least 1"));
        }
        if *raw.agents.get_ref() == 0 {
            return Err(origin.error("agents", "must be at least 1"));
        }
        if *raw.agents.get_ref() > Scenario::MAX_AGENTS {
            return Err(origin.error(
                "agents",
                format!(
                    "at most {} agents (each takes a few hundred bytes), got {}",
                    Scenario::MAX_AGENTS,
                    raw.agents.get_ref()
                ),
            ));
        }
        if raw.threads > Scenario::MAX_THREADS {
            if let Some(line) = key_line_in(text, 0..text.len(), "threads") {
                origin.lines.push(("threads", line));
            }
            return Err(origin.error(
                "threads",
                format!(
                    "at most {} worker threads (0 means all cores), got {}",
                    Scenario::MAX_THREADS,
                    raw.threads
                ),
            ));
        }

        // [map]
        let map_span = raw.map.span();
        let raw_map = raw.map.into_inner();
        if let Some(seed) = &raw_map.seed {
            mark(&mut origin, "map.seed", seed.span());
        }
        let neighbourhood = match &raw_map.neighbourhood {
            None => Neighborhood::Eight,
            Some(n) => {
                mark(&mut origin, "map.neighbourhood", n.span());
                match *n.get_ref() {
                    4 => Neighborhood::Four,
                    8 => Neighborhood::Eight,
                    other => {
                        return Err(origin
                            .error("map.neighbourhood", format!("must be 4 or 8, not {other}")));
                    }
                }
            }
        };
        let map = match (raw_map.file, raw_map.generator) {
            (Some(_), Some(g)) => {
                mark(&mut origin, "map.generator", g.span());
                return Err(origin.error(
                    "map.generator",
                    "give either map.file or map.generator, not both",
                ));
            }
            (None, None) => {
                // Point at the [map] header (the span starts at the table's first key).
                origin.lines.retain(|(k, _)| *k != "map");
                let line = key_line_in(text, 0..text.len(), "map")
                    .or_else(|| {
                        text.lines()
                            .position(|l| l.trim() == "[map]")
                            .map(|i| i + 1)
                    })
                    .unwrap_or_else(|| line_of(text, map_span.start));
                origin.lines.push(("map", line));
                return Err(origin.error("map", "needs `file` (a .map file) or `generator`"));
            }
            (Some(f), None) => {
                mark(&mut origin, "map.file", f.span());
                if raw_map.seed.is_some() {
                    return Err(origin.error("map.seed", "only applies to map.generator"));
                }
                if let Some((name, map_text)) = supplied_map
                    && f.get_ref() == name
                {
                    MapSource::Text {
                        file: name.to_string(),
                        text: map_text.to_string(),
                    }
                } else {
                    let path = base_dir.join(f.get_ref());
                    if path.is_dir() {
                        return Err(origin.error(
                            "map.file",
                            format!(
                                "{} is a directory, not a .map file ({})",
                                f.get_ref(),
                                path.display()
                            ),
                        ));
                    }
                    if !path.is_file() {
                        return Err(origin.error(
                            "map.file",
                            format!(
                                "{} does not exist (looked for {})",
                                f.get_ref(),
                                path.display()
                            ),
                        ));
                    }
                    MapSource::File(path)
                }
            }
            (None, Some(g)) => {
                mark(&mut origin, "map.generator", g.span());
                let generator = g.into_inner();
                generator
                    .check()
                    .map_err(|m| origin.error("map.generator", m))?;
                MapSource::Generated {
                    generator,
                    seed: raw_map.seed.map_or(0, Spanned::into_inner),
                }
            }
        };

        // [placement]
        let placement = match raw.placement {
            None => Placement::Random,
            Some(p) => {
                let p = p.into_inner();
                mark(&mut origin, "placement.kind", p.kind.span());
                let kind = *p.kind.get_ref();
                let mut only_for = |key: &'static str,
                                    span: Option<std::ops::Range<usize>>,
                                    for_kind: PlacementKind,
                                    name: &str| {
                    if let Some(span) = span {
                        origin.lines.push((key, at(span)));
                        if kind != for_kind {
                            return Err(
                                origin.error(key, format!("only applies to kind = \"{name}\""))
                            );
                        }
                    }
                    Ok(())
                };
                only_for(
                    "placement.groups",
                    p.groups.as_ref().map(Spanned::span),
                    PlacementKind::Crowds,
                    "crowds",
                )?;
                only_for(
                    "placement.density",
                    p.density.as_ref().map(Spanned::span),
                    PlacementKind::Crowds,
                    "crowds",
                )?;
                only_for(
                    "placement.file",
                    p.file.as_ref().map(Spanned::span),
                    PlacementKind::Scen,
                    "scen",
                )?;
                match kind {
                    PlacementKind::Random => Placement::Random,
                    PlacementKind::Crowds => {
                        let groups = p.groups.map_or(2, Spanned::into_inner);
                        if !(1..=16).contains(&groups) {
                            return Err(origin.error(
                                "placement.groups",
                                format!("must be between 1 and 16, got {groups}"),
                            ));
                        }
                        let density = p.density.map_or(0.5, Spanned::into_inner);
                        if !(density > 0.0 && density <= 1.0) {
                            return Err(origin.error(
                                "placement.density",
                                format!("must be more than 0 and at most 1, got {density}"),
                            ));
                        }
                        Placement::Crowds { groups, density }
                    }
                    PlacementKind::Scen => {
                        let Some(f) = p.file else {
                            return Err(origin.error(
                                "placement.kind",
                                "kind = \"scen\" needs placement.file (a .scen file)",
                            ));
                        };
                        let path = base_dir.join(f.get_ref());
                        if !path.is_file() {
                            return Err(origin.error(
                                "placement.file",
                                format!(
                                    "{} does not exist (looked for {})",
                                    f.get_ref(),
                                    path.display()
                                ),
                            ));
                        }
                        Placement::Scen { file: path }
                    }
                }
            }
        };

        // [sim]
        let sim = match raw.sim {
            None => SimConfig::default(),
            Some(s) => {
                let span = s.span();
                let sim = s.into_inner();
                let line = |key: &str| {
                    table_key_line(text, "sim", key).unwrap_or_else(|| line_of(text, span.start))
                };
                if let Some(l) = table_key_line(text, "sim", "seed") {
                    origin.lines.push(("sim.seed", l));
                    return Err(origin.error(
                        "sim.seed",
                        "set the seed at the top of the file (`seed = ...`), not in [sim]",
                    ));
                }
                if let Some((key, message)) = sim.problem() {
                    let l = line(key.trim_start_matches("sim."));
                    origin.lines.push((key, l));
                    return Err(origin.error(key, message));
                }
                if let Some(l) = table_key_line(text, "sim", "action_model") {
                    origin.lines.push(("sim.action_model", l));
                }
                sim
            }
        };

        // [[changes]]
        let mut changes = Vec::with_capacity(raw.changes.len());
        for (i, c) in raw.changes.into_iter().enumerate() {
            let c = c.into_inner();
            let (walkable, rect) = match (c.block, c.open) {
                (Some(r), None) => (false, r),
                (None, Some(r)) => (true, r),
                (Some(_), Some(r)) => {
                    return Err(ParseError::at(
                        file,
                        at(r.span()),
                        format!("changes[{i}].open: give either block or open, not both"),
                    )
                    .into());
                }
                (None, None) => {
                    return Err(ParseError::at(
                        file,
                        at(c.tick.span()),
                        format!("changes[{i}]: needs `block = [x0, y0, x1, y1]` or `open = [...]`"),
                    )
                    .into());
                }
            };
            let line = at(rect.span());
            let rect = rect.into_inner();
            let [x0, y0, x1, y1] = rect;
            if x0 > x1 || y0 > y1 {
                let key = if walkable { "open" } else { "block" };
                return Err(ParseError::at(
                    file,
                    line,
                    format!(
                        "changes[{i}].{key}: [{x0}, {y0}, {x1}, {y1}] must be [x0, y0, x1, y1] \
                         with x0 <= x1 and y0 <= y1"
                    ),
                )
                .into());
            }
            changes.push(ScriptedChange {
                tick: c.tick.into_inner(),
                rect,
                walkable,
                line,
            });
        }

        // [doors]
        let doors = match raw.doors {
            None => None,
            Some(d) => {
                let d = d.into_inner();
                mark(&mut origin, "doors.count", d.count.span());
                mark(&mut origin, "doors.period", d.period.span());
                if *d.count.get_ref() == 0 {
                    return Err(origin.error("doors.count", "must be at least 1"));
                }
                if *d.period.get_ref() == 0 {
                    return Err(origin.error("doors.period", "must be at least 1"));
                }
                Some(Doors {
                    count: d.count.into_inner(),
                    period: d.period.into_inner(),
                    seed: d.seed,
                })
            }
        };

        // [planner_mix]
        let mut planner_mix = Vec::new();
        if let Some(mix) = raw.planner_mix {
            let span = mix.span();
            let mut sum = 0.0;
            for (name, fraction) in mix.into_inner() {
                let line = at(fraction.span());
                let bad = |message: String| -> Error {
                    ParseError::at(file, line, format!("planner_mix.{name}: {message}")).into()
                };
                let planner: PlannerKind = name.parse().map_err(|e: Error| bad(e.to_string()))?;
                let fraction = fraction.into_inner();
                if !(0.0..=1.0).contains(&fraction) {
                    return Err(bad(format!("{fraction} must be in 0..=1")));
                }
                sum += fraction;
                planner_mix.push((planner, fraction));
            }
            if sum > 1.0 + 1e-9 {
                let line = text
                    .lines()
                    .position(|l| l.trim() == "[planner_mix]")
                    .map_or_else(|| line_of(text, span.start), |i| i + 1);
                return Err(ParseError::at(
                    file,
                    line,
                    format!("planner_mix: the fractions sum to {sum}, must be at most 1"),
                )
                .into());
            }
        }

        let scenario = Scenario {
            name: raw.name.unwrap_or_default(),
            description: raw.description.unwrap_or_default(),
            seed: raw.seed,
            ticks: raw.ticks.into_inner(),
            threads: raw.threads,
            agents: raw.agents.into_inner(),
            map,
            neighbourhood,
            placement,
            sim,
            changes,
            doors,
            planner_mix,
            origin,
        };
        scenario.check()?;
        Ok(scenario)
    }

    /// Checks the settings that depend on each other, as they stand after overrides
    /// ([`set`](Self::set) checks one key at a time, so `--set action_model=rotate --set
    /// neighbourhood=4` passes in either order): the action model against the map's
    /// neighbourhood. [`build`](Self::build) checks too.
    ///
    /// # Errors
    /// [`Error::Parse`] naming the file, the key (and its line when the file wrote it), and why.
    pub fn check(&self) -> Result<()> {
        if let Some(why) = self.sim.action_model.unsupported_on(self.neighbourhood) {
            return Err(self.origin.error("sim.action_model", why));
        }
        Ok(())
    }

    /// The file the scenario was read from (as given), or the label passed to
    /// [`parse`](Self::parse).
    pub fn file(&self) -> &str {
        &self.origin.file
    }

    /// The summary `throng run --json` writes for a run of this scenario: `summary` with what
    /// was run (scenario, map, seed, settings), the final state hash in hex, and `setup_s`, the
    /// seconds spent loading the map and placing the agents.
    pub fn run_json<'a>(&'a self, summary: &'a super::RunSummary, setup_s: f64) -> RunJson<'a> {
        let config = self.sim_config();
        RunJson {
            scenario: &self.name,
            scenario_file: self.file(),
            map: self.map_label(),
            seed: self.seed,
            planner: config.planner,
            conflicts: config.conflicts,
            action_model: config.action_model,
            lifelong: config.lifelong,
            max_plans_per_tick: config.max_plans_per_tick,
            sum_of_costs_covers: summary.sum_of_costs_covers(),
            summary,
            final_state_hash_hex: format!("{:016x}", summary.final_state_hash),
            setup_s,
        }
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

    /// The start and goal of every agent on `grid` (the scenario's map), in agent order,
    /// following the placement rules of the [module docs](self).
    ///
    /// # Errors
    /// [`Error::Parse`] naming the `agents` key when the agents do not fit on the map, or the
    /// `.scen` file's line when one of its starts or goals is not usable.
    pub fn place(&self, grid: &Grid) -> Result<Vec<(CellId, CellId)>> {
        let config = self.sim_config();
        let distinct_starts = config.conflicts.separates();
        let distinct_goals = distinct_starts && !config.lifelong;
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let n = self.agents;
        if let Placement::Scen { file } = &self.placement {
            return self.place_from_scen(grid, file, distinct_starts);
        }
        let component = largest_component(grid);
        if component.is_empty() {
            return Err(self.origin.error("map", "the map has no walkable cell"));
        }
        if n > component.len() * Self::MAX_AGENTS_PER_CELL {
            return Err(self.origin.error(
                "agents",
                format!(
                    "{n} agents do not fit: the largest connected area of the map has {} free \
                     cells, and even with conflicts off at most {} agents may share one",
                    component.len(),
                    Self::MAX_AGENTS_PER_CELL
                ),
            ));
        }
        if (distinct_starts || distinct_goals) && n > component.len() {
            return Err(self.origin.error(
                "agents",
                format!(
                    "{n} agents do not fit: the largest connected area of the map has {} free cells \
                     (with conflicts on every agent needs its own cell)",
                    component.len()
                ),
            ));
        }
        // An agent stays on its goal for good in a one-shot run with conflicts on; on a cut
        // cell (the mouth of a dead end, a one-cell-wide passage) it would wall other agents
        // off from their goals for ever. Such cells hold no goal (a "well-formed" instance).
        let cut = if distinct_goals {
            cut_cells(grid, component[0])
        } else {
            Vec::new()
        };
        let goal_cells: Vec<CellId> = if distinct_goals {
            component
                .iter()
                .copied()
                .filter(|&c| !cut[c as usize])
                .collect()
        } else {
            component.clone()
        };
        if distinct_goals && n > goal_cells.len() {
            return Err(self.origin.error(
                "agents",
                format!(
                    "{n} agents do not fit: the largest connected area of the map has {} cells \
                     that can hold a goal (in a one-shot run with conflicts on, every agent needs \
                     its own goal, off the cells that would cut the area in two)",
                    goal_cells.len()
                ),
            ));
        }
        let mut pairs = match self.placement {
            Placement::Random => {
                let starts = sample(&component, n, distinct_starts, &mut rng);
                let goals = sample(&goal_cells, n, distinct_goals, &mut rng);
                starts.into_iter().zip(goals).collect()
            }
            Placement::Crowds { groups, density } => self.place_crowds(
                grid,
                &component,
                (groups, density),
                Distinct {
                    starts: distinct_starts,
                    goals: distinct_goals,
                    cut,
                },
                &mut rng,
            )?,
            Placement::Scen { .. } => unreachable!("handled above"),
        };
        avoid_own_start(&mut pairs, distinct_goals, &component, &mut rng);
        Ok(pairs)
    }

    /// The map file the scenario names (`map.file`), when its map is not generated.
    fn map_file(&self) -> Option<&Path> {
        match &self.map {
            MapSource::File(path) => Some(path),
            MapSource::Text { file, .. } => Some(Path::new(file)),
            MapSource::Generated { .. } => None,
        }
    }

    /// For a `scen` placement on a map file: the first line of the `.scen` file that names
    /// another map than `map.file`, of the same size (see [`OtherMapName`]). The scenario names
    /// both files, so it may be meant: `throng run` prints it as a warning. Loads the map and
    /// the `.scen` file; `None` at once for other placements and generated maps.
    ///
    /// # Errors
    /// The map's and the `.scen` file's errors, a `.scen` made for a map of another size
    /// included ([`ScenFile::check_map`]).
    pub fn scen_map_mismatch(&self) -> Result<Option<OtherMapName>> {
        let (Placement::Scen { file }, Some(map)) = (&self.placement, self.map_file()) else {
            return Ok(None);
        };
        let scen = ScenFile::load(file)?;
        scen.check_map(Some(map), &self.load_grid()?)
    }

    fn place_from_scen(
        &self,
        grid: &Grid,
        file: &Path,
        distinct_starts: bool,
    ) -> Result<Vec<(CellId, CellId)>> {
        let scen = ScenFile::load(file)?;
        scen.check_map(self.map_file(), grid)?;
        if scen.queries.len() < self.agents {
            return Err(self.origin.error(
                "agents",
                format!(
                    "{} agents but {} has only {} lines",
                    self.agents,
                    file.display(),
                    scen.queries.len()
                ),
            ));
        }
        let pairs = scen.resolve(grid)?;
        let label = file.display().to_string();
        let mut taken = vec![false; if distinct_starts { grid.len() } else { 0 }];
        for (q, &(s, g)) in scen.queries.iter().zip(&pairs).take(self.agents) {
            for (what, cell, (x, y)) in [("start", s, q.start), ("goal", g, q.goal)] {
                if !grid.is_walkable(cell) {
                    return Err(ParseError::at(
                        &label,
                        q.line,
                        format!("{what} ({x}, {y}) is blocked"),
                    )
                    .into());
                }
            }
            if !grid.connected(s, g) {
                let ((sx, sy), (gx, gy)) = (q.start, q.goal);
                return Err(ParseError::at(
                    &label,
                    q.line,
                    format!("goal ({gx}, {gy}) cannot be reached from start ({sx}, {sy})"),
                )
                .into());
            }
            if distinct_starts {
                if taken[s as usize] {
                    let (x, y) = q.start;
                    return Err(ParseError::at(
                        &label,
                        q.line,
                        format!(
                            "start ({x}, {y}) is already another agent's start (conflicts are on)"
                        ),
                    )
                    .into());
                }
                taken[s as usize] = true;
            }
        }
        Ok(pairs.into_iter().take(self.agents).collect())
    }

    fn place_crowds(
        &self,
        grid: &Grid,
        component: &[CellId],
        (groups, density): (u32, f64),
        distinct: Distinct,
        rng: &mut ChaCha8Rng,
    ) -> Result<Vec<(CellId, CellId)>> {
        let Distinct {
            starts: distinct_starts,
            goals: distinct_goals,
            cut,
        } = distinct;
        let n = self.agents;
        let g = groups as usize;
        let (w, h) = (f64::from(grid.width()), f64::from(grid.height()));
        let (cx, cy) = ((w - 1.0) / 2.0, (h - 1.0) / 2.0);
        // Crowds stand at 80% of the way from the centre to the edge, on an ellipse.
        let (rx, ry) = (0.8 * cx, 0.8 * cy);
        let label = grid.components().of(component[0]);
        let mut start_taken = vec![false; grid.len()];
        // Cut cells never hold a goal (see `place`): mark them taken from the start.
        let mut goal_taken = if cut.is_empty() {
            vec![false; grid.len()]
        } else {
            cut
        };
        let mut per_group: Vec<(Vec<CellId>, Vec<CellId>)> = Vec::with_capacity(g);
        for k in 0..g {
            let size = n / g + usize::from(k < n % g);
            let angle = std::f64::consts::PI + std::f64::consts::TAU * k as f64 / g as f64;
            let (dx, dy) = (rx * angle.cos(), ry * angle.sin());
            let from = nearest(grid, component, cx + dx, cy + dy);
            let to = nearest(grid, component, cx - dx, cy - dy);
            let needed = (size as f64 / density).ceil();
            if needed > component.len() as f64 {
                return Err(self.origin.error(
                    "placement.density",
                    format!(
                        "a crowd of {size} agents at density {density} spreads over {needed} cells; \
                         the map's largest area has {}",
                        component.len()
                    ),
                ));
            }
            let area = (needed as usize).max(size);
            let cluster = |origin: CellId,
                           taken: &mut Vec<bool>,
                           distinct: bool,
                           rng: &mut ChaCha8Rng| {
                let cells = gather(
                    grid,
                    origin,
                    label,
                    area,
                    if distinct { Some(&*taken) } else { None },
                );
                if cells.len() < size {
                    return Err(self.origin.error(
                        "agents",
                        format!(
                            "crowd {} of {size} agents does not fit around ({}, {}): only {} free cells left there",
                            k + 1,
                            grid.coords(origin).0,
                            grid.coords(origin).1,
                            cells.len()
                        ),
                    ));
                }
                let chosen = sample(&cells, size, true, rng);
                if distinct {
                    for &c in &chosen {
                        taken[c as usize] = true;
                    }
                }
                Ok(chosen)
            };
            let starts = cluster(from, &mut start_taken, distinct_starts, rng)?;
            let goals = cluster(to, &mut goal_taken, distinct_goals, rng)?;
            per_group.push((starts, goals));
        }
        // Interleave the groups so that no crowd always has priority in conflicts.
        Ok((0..n)
            .map(|i| {
                let (starts, goals) = &per_group[i % g];
                (starts[i / g], goals[i / g])
            })
            .collect())
    }

    /// The scripted map changes on `grid` (the scenario's map) for the ticks played, by tick:
    /// the `[[changes]]` rectangles, then the doors. Queue them with
    /// [`ChangeSchedule::queue_due`] before each step (as [`play`](Self::play) does).
    ///
    /// # Errors
    /// [`Error::Parse`] at the line of a rectangle outside the map.
    pub fn schedule(&self, grid: &Grid) -> Result<ChangeSchedule> {
        let mut entries = Vec::new();
        for (i, c) in self.changes.iter().enumerate() {
            let batch = rect_changes(grid, c.rect, c.walkable).map_err(|m| {
                let key = if c.walkable { "open" } else { "block" };
                let message = format!("changes[{i}].{key}: {m}");
                Error::from(if c.line > 0 {
                    ParseError::at(&self.origin.file, c.line, message)
                } else {
                    ParseError::whole(&self.origin.file, message)
                })
            })?;
            entries.push((c.tick, batch));
        }
        let schedule = ChangeSchedule::new(entries);
        Ok(match &self.doors {
            Some(doors) => schedule.with_doors(grid, doors, self.ticks),
            None => schedule,
        })
    }

    /// Builds the simulation and plays up to [`ticks`](Self::ticks) ticks on the current
    /// rayon pool, with the scripted map changes, calling `each` after every tick. A one-shot
    /// run stops early once every agent is at its goal or has no path and no change is left.
    ///
    /// # Errors
    /// As [`build`](Self::build) and [`schedule`](Self::schedule).
    pub fn play(
        &self,
        mut each: impl FnMut(&Simulation, &super::TickReport),
    ) -> Result<Simulation> {
        let mut sim = self.build()?;
        let mut schedule = self.schedule(sim.grid())?;
        let lifelong = self.sim.lifelong;
        for _ in 0..self.ticks {
            schedule.queue_due(&mut sim);
            let report = sim.step();
            each(&sim, &report);
            if !lifelong
                && schedule.is_finished()
                && report.at_goal + report.no_path == report.agents
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
        let mut sim = Simulation::new(grid, self.sim_config());
        for ((start, goal), planner) in pairs.into_iter().zip(planners) {
            match planner {
                Some(planner) => sim.add_agent_with_planner(start, Some(goal), planner)?,
                None => sim.add_agent(start, Some(goal))?,
            };
        }
        Ok(sim)
    }

    /// The planner of each of `agents` agents, in agent order, from
    /// [`planner_mix`](Self::planner_mix): `None` for the agents that use
    /// [`SimConfig::planner`]. `floor(fraction * agents)` agents get each listed planner;
    /// which ones is drawn from the seed (see the [module docs](self)).
    pub fn planners(&self, agents: usize) -> Vec<Option<PlannerKind>> {
        let mut planners = vec![None; agents];
        if self.planner_mix.is_empty() {
            return planners;
        }
        let mut order: Vec<usize> = (0..agents).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ 0x706c_616e_6e65_722d);
        for i in 0..agents {
            let j = rng.random_range(i..agents);
            order.swap(i, j);
        }
        let mut next = order.into_iter();
        for &(planner, fraction) in &self.planner_mix {
            let count = (fraction * agents as f64 + 1e-9).floor() as usize;
            for index in next.by_ref().take(count) {
                planners[index] = Some(planner);
            }
        }
        planners
    }
}

/// Which cells placement must keep apart.
struct Distinct {
    /// Every agent starts on its own cell.
    starts: bool,
    /// Every agent has its own goal.
    goals: bool,
    /// Cells that hold no goal (cut cells), or empty.
    cut: Vec<bool>,
}

/// The cut cells (articulation points) of the component holding `root`: the walkable cells
/// whose blocking splits the component, found by an iterative Tarjan depth-first search over
/// straight moves. (A diagonal can sometimes still get past such a cell, so this marks a few
/// cells too many, never too few.)
fn cut_cells(grid: &Grid, root: CellId) -> Vec<bool> {
    const UNSEEN: u32 = u32::MAX;
    let (w, h) = (grid.width(), grid.height());
    let mut cut = vec![false; grid.len()];
    let mut disc = vec![UNSEEN; grid.len()];
    let mut low = vec![0u32; grid.len()];
    let neighbour = |cell: CellId, k: u8| -> Option<CellId> {
        let (x, y) = grid.coords(cell);
        let next = match k {
            0 if x > 0 => cell - 1,
            1 if x + 1 < w => cell + 1,
            2 if y > 0 => cell - w,
            3 if y + 1 < h => cell + w,
            _ => return None,
        };
        grid.is_walkable(next).then_some(next)
    };
    // (cell, parent, next neighbour to look at)
    let mut stack: Vec<(CellId, CellId, u8)> = vec![(root, root, 0)];
    let mut time = 0u32;
    disc[root as usize] = time;
    low[root as usize] = time;
    let mut root_children = 0;
    while let Some(top) = stack.last_mut() {
        let (v, parent, k) = *top;
        if k < 4 {
            top.2 += 1;
            let Some(u) = neighbour(v, k) else { continue };
            if disc[u as usize] == UNSEEN {
                time += 1;
                disc[u as usize] = time;
                low[u as usize] = time;
                if v == root {
                    root_children += 1;
                }
                stack.push((u, v, 0));
            } else if u != parent {
                low[v as usize] = low[v as usize].min(disc[u as usize]);
            }
        } else {
            stack.pop();
            if let Some(&(p, _, _)) = stack.last() {
                low[p as usize] = low[p as usize].min(low[v as usize]);
                if p != root && low[v as usize] >= disc[p as usize] {
                    cut[p as usize] = true;
                }
            }
        }
    }
    cut[root as usize] = root_children > 1;
    cut
}

/// The cells of the largest connected component, in cell order (ties: the lowest label).
fn largest_component(grid: &Grid) -> Vec<CellId> {
    let components = grid.components();
    let mut sizes = vec![0usize; components.count() as usize];
    for cell in 0..grid.len() as CellId {
        if let Some(c) = components.of(cell) {
            sizes[c as usize] += 1;
        }
    }
    let Some(best) = (0..sizes.len()).max_by_key(|&c| (sizes[c], std::cmp::Reverse(c))) else {
        return Vec::new();
    };
    (0..grid.len() as CellId)
        .filter(|&cell| components.of(cell) == Some(best as u32))
        .collect()
}

/// `n` cells of `from`: distinct (a partial Fisher-Yates shuffle; needs `n <= from.len()`) or
/// drawn with replacement.
fn sample(from: &[CellId], n: usize, distinct: bool, rng: &mut ChaCha8Rng) -> Vec<CellId> {
    if !distinct {
        return (0..n)
            .map(|_| from[rng.random_range(0..from.len())])
            .collect();
    }
    let mut pool = from.to_vec();
    for i in 0..n {
        let j = rng.random_range(i..pool.len());
        pool.swap(i, j);
    }
    pool.truncate(n);
    pool
}

/// Makes sure no agent's goal is its own start (when the map has room for that): swaps the
/// goal with the next agent's when goals are distinct (which keeps them distinct), redraws it
/// otherwise.
fn avoid_own_start(
    pairs: &mut [(CellId, CellId)],
    distinct_goals: bool,
    component: &[CellId],
    rng: &mut ChaCha8Rng,
) {
    let n = pairs.len();
    if component.len() < 2 {
        return;
    }
    for i in 0..n {
        if pairs[i].0 != pairs[i].1 {
            continue;
        }
        if distinct_goals {
            if n >= 2 {
                let j = (i + 1) % n;
                let (a, b) = (pairs[i].1, pairs[j].1);
                pairs[i].1 = b;
                pairs[j].1 = a;
            }
        } else {
            while pairs[i].1 == pairs[i].0 {
                pairs[i].1 = component[rng.random_range(0..component.len())];
            }
        }
    }
}

/// The cell of `component` nearest to the point `(x, y)` (ties: the lowest cell id).
fn nearest(grid: &Grid, component: &[CellId], x: f64, y: f64) -> CellId {
    let mut best = (f64::INFINITY, component[0]);
    for &cell in component {
        let (cx, cy) = grid.coords(cell);
        let d = (f64::from(cx) - x).powi(2) + (f64::from(cy) - y).powi(2);
        if d < best.0 {
            best = (d, cell);
        }
    }
    best.1
}

/// Up to `want` cells of component `label` nearest to `origin` by breadth-first search over
/// straight moves, skipping (but walking through) the cells marked in `taken`.
fn gather(
    grid: &Grid,
    origin: CellId,
    label: Option<u32>,
    want: usize,
    taken: Option<&Vec<bool>>,
) -> Vec<CellId> {
    let mut seen = vec![false; grid.len()];
    let mut queue = std::collections::VecDeque::from([origin]);
    seen[origin as usize] = true;
    let mut out = Vec::with_capacity(want);
    let (w, h) = (grid.width(), grid.height());
    while let Some(cell) = queue.pop_front() {
        if taken.is_none_or(|t| !t[cell as usize]) {
            out.push(cell);
            if out.len() == want {
                break;
            }
        }
        let (x, y) = grid.coords(cell);
        let mut visit = |nx: u32, ny: u32| {
            let next = ny * w + nx;
            if !seen[next as usize] && grid.components().of(next) == label {
                seen[next as usize] = true;
                queue.push_back(next);
            }
        };
        if x > 0 {
            visit(x - 1, y);
        }
        if x + 1 < w {
            visit(x + 1, y);
        }
        if y > 0 {
            visit(x, y - 1);
        }
        if y + 1 < h {
            visit(x, y + 1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Scenario> {
        Scenario::parse(text, "t.toml", Path::new("."))
    }

    fn err(text: &str) -> ParseError {
        match parse(text) {
            Err(Error::Parse(p)) => p,
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    const SMALL: &str = "agents = 10\nticks = 5\n[map]\ngenerator = { kind = \"random\", width = 16, height = 16, density = 0.1 }\n";

    #[test]
    fn line_numbers() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 99), 3);
        let text = "[sim]\nlifelong = true\n\n[other]\nseed = 1\n";
        assert_eq!(table_key_line(text, "sim", "lifelong"), Some(2));
        assert_eq!(table_key_line(text, "sim", "seed"), None);
        assert_eq!(table_key_line("sim.seed = 3\n", "sim", "seed"), Some(1));
    }

    #[test]
    fn small_scenario_parses_and_places() {
        let s = parse(SMALL).unwrap();
        assert_eq!((s.agents, s.ticks, s.threads, s.seed), (10, 5, 0, 0));
        assert_eq!(s.placement, Placement::Random);
        let sim = s.build().unwrap();
        assert_eq!(sim.agents().len(), 10);
    }

    #[test]
    fn unknown_generator_key_points_at_its_line() {
        let e = err(
            "agents = 10\nticks = 5\n[map]\ngenerator = { kind = \"random\",\n width = 16, height = 16, densty = 0.1 }\n",
        );
        assert!(e.message.contains("densty"), "{e}");
        assert_eq!(e.line, Some(5), "{e}");
    }

    #[test]
    fn cut_cells_are_the_articulation_points() {
        let grid = Grid::from_ascii(
            "...#....\n\
             ...#.##.\n\
             ........\n\
             ####.###\n\
             ....#...",
        )
        .unwrap();
        let cut = cut_cells(&grid, grid.cell(0, 0).unwrap());
        let mut found: Vec<(u32, u32)> = (0..grid.len() as CellId)
            .filter(|&c| cut[c as usize])
            .map(|c| grid.coords(c))
            .collect();
        found.sort_unstable_by_key(|&(x, y)| (y, x));
        // The 3 x 3 block at the top left reaches the rest through (2, 2) and (3, 2) only;
        // (4, 2) is the only way into the dead end (4, 3). The right part is a loop: no cut.
        // (The bottom row is another component.)
        assert_eq!(found, vec![(2, 2), (3, 2), (4, 2)]);
        // A full grid has none, whatever the root.
        let open = Grid::new(5, 4).unwrap();
        assert!(cut_cells(&open, 7).iter().all(|&c| !c));
        // A corridor: every inner cell is a cut cell, the ends are not.
        let line = Grid::new(5, 1).unwrap();
        assert_eq!(cut_cells(&line, 2), vec![false, true, true, true, false]);
    }

    #[test]
    fn crowds_are_clustered_and_distinct() {
        let text = format!("{SMALL}[placement]\nkind = \"crowds\"\ngroups = 2\ndensity = 0.8\n");
        let s = parse(&text).unwrap();
        let grid = s.load_grid().unwrap();
        let pairs = s.place(&grid).unwrap();
        let mut starts: Vec<_> = pairs.iter().map(|p| p.0).collect();
        starts.sort_unstable();
        starts.dedup();
        assert_eq!(starts.len(), 10);
        // Group 0 starts on the left half and heads right.
        for (s, g) in pairs.iter().step_by(2) {
            assert!(grid.coords(*s).0 < 8 && grid.coords(*g).0 >= 8);
        }
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
                .contains("t.toml:4: map.file: maps/tiny.map does not exist"),
            "{e}"
        );
        // A bad map text fails in build, under the map's name.
        let s = Scenario::parse_with_map(text, "t.toml", base, "maps/tiny.map", "type octile\n")
            .unwrap();
        let e = s.build().unwrap_err();
        assert!(e.to_string().starts_with("maps/tiny.map"), "{e}");
    }
}

/// The summary object of `throng run --json` ([`Scenario::run_json`]): the run's
/// [`RunSummary`](super::RunSummary) fields, flattened, with what was run.
#[derive(Debug, Clone, Serialize)]
pub struct RunJson<'a> {
    /// The scenario's name.
    pub scenario: &'a str,
    /// The file it was read from.
    pub scenario_file: &'a str,
    /// [`Scenario::map_label`].
    pub map: String,
    /// The seed played.
    pub seed: u64,
    /// The default planner.
    pub planner: PlannerKind,
    /// The conflict mode.
    pub conflicts: ConflictMode,
    /// What an agent may do per tick (`free` or `rotate`).
    pub action_model: super::ActionModel,
    /// Whether agents get new goals on arrival.
    pub lifelong: bool,
    /// The cap on plans per tick, if any.
    pub max_plans_per_tick: Option<usize>,
    /// Whose trips `sum_of_costs` and `makespan` add up
    /// ([`RunSummary::sum_of_costs_covers`](super::RunSummary::sum_of_costs_covers)).
    pub sum_of_costs_covers: &'static str,
    /// The run's summary.
    #[serde(flatten)]
    pub summary: &'a super::RunSummary,
    /// `final_state_hash` as 16 hex digits.
    pub final_state_hash_hex: String,
    /// Seconds spent loading the map and placing the agents.
    pub setup_s: f64,
}
