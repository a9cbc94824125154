//! Reading a scenario file: the raw tables of [`schema`](super::schema) checked one table at a
//! time (top-level keys, `[map]`, `[placement]`, `[sim]`, `[[changes]]`, `[doors]`,
//! `[planner_mix]`) into a [`Scenario`]. Each step records the line of the keys it read, so
//! that its errors, and the errors found later by placement and scheduling, name the file, the
//! line and the key. The steps run in file-format order and stop at the first error.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use toml::Spanned;

use super::origin::Origin;
use super::schema::{PlacementKind, RawChange, RawDoors, RawMap, RawPlacement, RawScenario};
use super::toml_lines::{key_line_in, line_of, table_key_line, toml_error};
use super::{Doors, MapSource, Placement, Scenario, ScriptedChange};
use crate::error::{Error, ParseError, Result};
use crate::grid::Neighborhood;
use crate::input::Input;
use crate::planner::PlannerKind;
use crate::sim::SimConfig;

/// Parses and checks scenario text. `file` labels errors; relative map and `.scen` paths are
/// resolved against `base_dir`; `supplied_map` is an optional `(map.file value, map text)`
/// held in memory (see [`Scenario::parse_with_map`]).
pub(super) fn parse(
    text: &str,
    file: &str,
    base_dir: &Path,
    supplied_map: Option<(&str, &str)>,
) -> Result<Scenario> {
    let raw: RawScenario = toml::from_str(text).map_err(|e| toml_error(file, text, &e))?;
    let mut reader = Reader {
        text,
        file,
        base_dir,
        origin: Origin::new(file),
    };
    reader.mark("ticks", raw.ticks.span());
    reader.mark("agents", raw.agents.span());
    reader.mark("map", raw.map.span());
    reader.check_sizes(&raw)?;
    let (map, neighbourhood) = reader.map(raw.map, supplied_map)?;
    let placement = reader.placement(raw.placement)?;
    let sim = reader.sim(raw.sim)?;
    let changes = reader.changes(raw.changes)?;
    let doors = reader.doors(raw.doors)?;
    let planner_mix = reader.planner_mix(raw.planner_mix)?;
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
        origin: reader.origin,
    };
    scenario.check()?;
    Ok(scenario)
}

/// The text being read and where its keys were found so far.
struct Reader<'a> {
    text: &'a str,
    file: &'a str,
    base_dir: &'a Path,
    origin: Origin,
}

impl Reader<'_> {
    /// The line a value's byte range starts on.
    fn at(&self, span: Range<usize>) -> usize {
        line_of(self.text, span.start)
    }

    /// Records that `key` was written where `span` starts.
    fn mark(&mut self, key: &'static str, span: Range<usize>) {
        let line = self.at(span);
        self.origin.lines.push((key, line));
    }

    /// `ticks` and `agents` at least 1, `agents` and `threads` within their caps.
    fn check_sizes(&mut self, raw: &RawScenario) -> Result<()> {
        let origin = &mut self.origin;
        if let Some(why) = Scenario::ticks_problem(*raw.ticks.get_ref()) {
            return Err(origin.error("ticks", why));
        }
        if let Some(why) = Scenario::agents_problem(*raw.agents.get_ref() as u64) {
            return Err(origin.error("agents", why));
        }
        if let Some(why) = Scenario::threads_problem(raw.threads as u64) {
            if let Some(line) = key_line_in(self.text, 0..self.text.len(), "threads") {
                origin.lines.push(("threads", line));
            }
            return Err(origin.error("threads", why));
        }
        Ok(())
    }

    /// `[map]`: the map (a file, one held in memory, or a generator) and the neighbourhood.
    fn map(
        &mut self,
        raw: Spanned<RawMap>,
        supplied_map: Option<(&str, &str)>,
    ) -> Result<(MapSource, Neighborhood)> {
        let map_span = raw.span();
        let raw_map = raw.into_inner();
        if let Some(seed) = &raw_map.seed {
            self.mark("map.seed", seed.span());
        }
        let neighbourhood = match &raw_map.neighbourhood {
            None => Neighborhood::Eight,
            Some(n) => {
                self.mark("map.neighbourhood", n.span());
                match *n.get_ref() {
                    4 => Neighborhood::Four,
                    8 => Neighborhood::Eight,
                    other => {
                        return Err(self
                            .origin
                            .error("map.neighbourhood", format!("must be 4 or 8, not {other}")));
                    }
                }
            }
        };
        let map = match (raw_map.file, raw_map.generator) {
            (Some(_), Some(g)) => {
                self.mark("map.generator", g.span());
                return Err(self.origin.error(
                    "map.generator",
                    "give either map.file or map.generator, not both",
                ));
            }
            (None, None) => {
                // Point at the [map] header (the span starts at the table's first key).
                let text = self.text;
                self.origin.lines.retain(|(k, _)| *k != "map");
                let line = key_line_in(text, 0..text.len(), "map")
                    .or_else(|| {
                        text.lines()
                            .position(|l| l.trim() == "[map]")
                            .map(|i| i + 1)
                    })
                    .unwrap_or_else(|| line_of(text, map_span.start));
                self.origin.lines.push(("map", line));
                return Err(self
                    .origin
                    .error("map", "needs `file` (a .map file) or `generator`"));
            }
            (Some(f), None) => {
                self.mark("map.file", f.span());
                if raw_map.seed.is_some() {
                    return Err(self
                        .origin
                        .error("map.seed", "only applies to map.generator"));
                }
                self.map_file(f.get_ref(), supplied_map)?
            }
            (None, Some(g)) => {
                self.mark("map.generator", g.span());
                let generator = g.into_inner();
                generator
                    .check()
                    .map_err(|m| self.origin.error("map.generator", m))?;
                MapSource::Generated {
                    generator,
                    seed: raw_map.seed.map_or(0, Spanned::into_inner),
                }
            }
        };
        Ok((map, neighbourhood))
    }

    /// `map.file`: the map held in memory when it is the one named, else a file that exists.
    fn map_file(&self, name: &str, supplied_map: Option<(&str, &str)>) -> Result<MapSource> {
        if let Some((supplied, map_text)) = supplied_map
            && name == supplied
        {
            return Ok(MapSource::Text {
                file: supplied.to_string(),
                text: map_text.to_string(),
            });
        }
        let path = self.base_dir.join(name);
        self.check_named_file("map.file", name, &path, Input::Map)?;
        Ok(MapSource::File(path))
    }

    /// Fails, naming `key`, unless the file `name` (at `path`, against the scenario's folder) is
    /// a regular file within the cap of `kind`; the path looked for is absolute, so that it
    /// says where it was looked for from whatever folder the command ran in.
    fn check_named_file(&self, key: &str, name: &str, path: &Path, kind: Input) -> Result<()> {
        crate::input::check_io(path, kind).map_err(|e| {
            let looked = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
            self.origin.error(
                key,
                format!(
                    "{name}: {} (looked for {})",
                    crate::input::io_words(&e),
                    looked.display()
                ),
            )
        })
    }

    /// `[placement]`: the kind and the keys that kind takes (and no other kind's).
    fn placement(&mut self, raw: Option<Spanned<RawPlacement>>) -> Result<Placement> {
        let Some(p) = raw else {
            return Ok(Placement::Random);
        };
        let p = p.into_inner();
        self.mark("placement.kind", p.kind.span());
        let kind = *p.kind.get_ref();
        self.only_for(
            kind,
            "placement.groups",
            p.groups.as_ref().map(Spanned::span),
            PlacementKind::Crowds,
            "crowds",
        )?;
        self.only_for(
            kind,
            "placement.density",
            p.density.as_ref().map(Spanned::span),
            PlacementKind::Crowds,
            "crowds",
        )?;
        self.only_for(
            kind,
            "placement.file",
            p.file.as_ref().map(Spanned::span),
            PlacementKind::Scen,
            "scen",
        )?;
        Ok(match kind {
            PlacementKind::Random => Placement::Random,
            PlacementKind::Crowds => {
                let groups = p.groups.map_or(2, Spanned::into_inner);
                if !(1..=16).contains(&groups) {
                    return Err(self.origin.error(
                        "placement.groups",
                        format!("must be between 1 and 16, got {groups}"),
                    ));
                }
                let density = p.density.map_or(0.5, Spanned::into_inner);
                if !(density > 0.0 && density <= 1.0) {
                    return Err(self.origin.error(
                        "placement.density",
                        format!("must be more than 0 and at most 1, got {density}"),
                    ));
                }
                Placement::Crowds { groups, density }
            }
            PlacementKind::Scen => {
                let Some(f) = p.file else {
                    return Err(self.origin.error(
                        "placement.kind",
                        "kind = \"scen\" needs placement.file (a .scen file)",
                    ));
                };
                let path = self.base_dir.join(f.get_ref());
                self.check_named_file("placement.file", f.get_ref(), &path, Input::Scen)?;
                Placement::Scen { file: path }
            }
        })
    }

    /// Records `key`'s line when it was written (`span`), and refuses it unless the placement
    /// is `for_kind` (named `name`).
    fn only_for(
        &mut self,
        kind: PlacementKind,
        key: &'static str,
        span: Option<Range<usize>>,
        for_kind: PlacementKind,
        name: &str,
    ) -> Result<()> {
        if let Some(span) = span {
            self.mark(key, span);
            if kind != for_kind {
                return Err(self
                    .origin
                    .error(key, format!("only applies to kind = \"{name}\"")));
            }
        }
        Ok(())
    }

    /// `[sim]`: the simulation settings, checked, without a seed of their own.
    fn sim(&mut self, raw: Option<Spanned<SimConfig>>) -> Result<SimConfig> {
        let Some(s) = raw else {
            return Ok(SimConfig::default());
        };
        let text = self.text;
        let span = s.span();
        let sim = s.into_inner();
        let line = |key: &str| {
            table_key_line(text, "sim", key).unwrap_or_else(|| line_of(text, span.start))
        };
        if let Some(l) = table_key_line(text, "sim", "seed") {
            self.origin.lines.push(("sim.seed", l));
            return Err(self.origin.error(
                "sim.seed",
                "set the seed at the top of the file (`seed = ...`), not in [sim]",
            ));
        }
        if let Some((key, message)) = sim.problem() {
            let l = line(key.trim_start_matches("sim."));
            self.origin.lines.push((key, l));
            return Err(self.origin.error(key, message));
        }
        if let Some(l) = table_key_line(text, "sim", "action_model") {
            self.origin.lines.push(("sim.action_model", l));
        }
        Ok(sim)
    }

    /// `[[changes]]`: each a tick and one well-ordered rectangle to block or open.
    fn changes(&self, raw: Vec<Spanned<RawChange>>) -> Result<Vec<ScriptedChange>> {
        let file = self.file;
        let mut changes = Vec::with_capacity(raw.len());
        for (i, c) in raw.into_iter().enumerate() {
            let c = c.into_inner();
            let (walkable, rect) = match (c.block, c.open) {
                (Some(r), None) => (false, r),
                (None, Some(r)) => (true, r),
                (Some(_), Some(r)) => {
                    return Err(ParseError::at(
                        file,
                        self.at(r.span()),
                        format!("changes[{i}].open: give either block or open, not both"),
                    )
                    .into());
                }
                (None, None) => {
                    return Err(ParseError::at(
                        file,
                        self.at(c.tick.span()),
                        format!("changes[{i}]: needs `block = [x0, y0, x1, y1]` or `open = [...]`"),
                    )
                    .into());
                }
            };
            let line = self.at(rect.span());
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
        Ok(changes)
    }

    /// `[doors]`: a count and a period of at least 1.
    fn doors(&mut self, raw: Option<Spanned<RawDoors>>) -> Result<Option<Doors>> {
        let Some(d) = raw else {
            return Ok(None);
        };
        let d = d.into_inner();
        self.mark("doors.count", d.count.span());
        self.mark("doors.period", d.period.span());
        if *d.count.get_ref() == 0 {
            return Err(self.origin.error("doors.count", "must be at least 1"));
        }
        if *d.period.get_ref() == 0 {
            return Err(self.origin.error("doors.period", "must be at least 1"));
        }
        Ok(Some(Doors {
            count: d.count.into_inner(),
            period: d.period.into_inner(),
            seed: d.seed,
        }))
    }

    /// `[planner_mix]`: known planners, each fraction in 0..=1, summing to at most 1, in
    /// planner name order.
    fn planner_mix(
        &self,
        raw: Option<Spanned<BTreeMap<String, Spanned<f64>>>>,
    ) -> Result<Vec<(PlannerKind, f64)>> {
        let (file, text) = (self.file, self.text);
        let mut planner_mix = Vec::new();
        let Some(mix) = raw else {
            return Ok(planner_mix);
        };
        let span = mix.span();
        let mut sum = 0.0;
        for (name, fraction) in mix.into_inner() {
            let line = self.at(fraction.span());
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
        Ok(planner_mix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> ParseError {
        match parse(text, "t.toml", Path::new("."), None) {
            Err(Error::Parse(p)) => p,
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn unknown_generator_key_points_at_its_line() {
        let e = err(
            "agents = 10\nticks = 5\n[map]\ngenerator = { kind = \"random\",\n width = 16, height = 16, densty = 0.1 }\n",
        );
        assert!(e.message.contains("densty"), "{e}");
        assert_eq!(e.line, Some(5), "{e}");
    }
}
