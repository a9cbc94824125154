//! What kind of file a path holds, told from its first bytes, so that a file given to the wrong
//! command is named for what it is ("some.map is a Moving AI map, not a simulation scenario")
//! instead of failing in the command's parser on its first line ("expected `=`").
//!
//! Only files recognised for sure are refused: anything else (an unknown or damaged file, one
//! that cannot be read) goes on to the command's own reader, which says what is wrong and where.

use std::io::Read;
use std::path::Path;

use anyhow::bail;
use throng::sim::{MapSource, Placement, Scenario};

/// The files `throng` reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// A Moving AI `.map` (`type octile`, then `height`, `width`, `map`).
    Map,
    /// A Moving AI `.scen` (`version 1`, then one query per line).
    Scen,
    /// A simulation scenario, TOML (what `throng run` plays).
    Scenario,
    /// A trace written by `throng run --trace` (magic `THRTRACE`).
    Trace,
    /// A League of Robot Runners problem, JSON with a `mapFile`.
    LorrProblem,
    /// The competition's output JSON that `throng lorr --out` writes.
    LorrOutput,
    /// A plan that `throng mapf --out` writes (`key=value` lines, then `solution=`).
    MapfPlan,
    /// Navigation points saved by `throng nav` (magic `THRONGNV`).
    NavPoints,
}

/// Bytes read to tell the kind (the keys of a JSON file or a plan's header come early).
const SNIFF_BYTES: u64 = 64 * 1024;
/// Largest file parsed whole as TOML to recognise a scenario (scenarios are a few hundred bytes).
const MAX_SCENARIO_BYTES: u64 = 1 << 20;
/// Magic of a navigation file (`src/nav/file.rs`).
const NAV_MAGIC: &[u8; 8] = b"THRONGNV";

impl FileKind {
    /// The kind in words, with its article.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            FileKind::Map => "a Moving AI map",
            FileKind::Scen => "a Moving AI .scen file",
            FileKind::Scenario => "a simulation scenario (TOML)",
            FileKind::Trace => "a throng trace",
            FileKind::LorrProblem => "a League of Robot Runners problem",
            FileKind::LorrOutput => "a League of Robot Runners output file",
            FileKind::MapfPlan => "a MAPF plan",
            FileKind::NavPoints => "a navigation-points file",
        }
    }

    /// What to do with such a file instead, for `file`.
    fn hint(self, file: &str) -> String {
        match self {
            FileKind::Map => format!("try: throng run --map {file} --agents 1000"),
            FileKind::Scen => format!("try: throng scen {file}"),
            FileKind::Scenario => format!("try: throng run {file}"),
            FileKind::Trace => format!("try: throng view {file}"),
            FileKind::LorrProblem => format!("try: throng lorr {file}"),
            FileKind::LorrOutput => "written by throng lorr --out; PlanViz replays it".to_string(),
            FileKind::MapfPlan => {
                "written by throng mapf --out; mapf-visualizer replays it".to_string()
            }
            FileKind::NavPoints => {
                format!("try: throng scen --planner nav --nav-file {file} FILE.scen")
            }
        }
    }

    /// The kind of the file at `path`, or `None` when it is none of these for sure (or cannot be
    /// read: the command's reader reports that).
    pub(crate) fn of(path: &Path) -> Option<FileKind> {
        let mut head = Vec::new();
        std::fs::File::open(path)
            .ok()?
            .take(SNIFF_BYTES)
            .read_to_end(&mut head)
            .ok()?;
        if let Some(kind) = Self::of_binary(&head) {
            return Some(kind);
        }
        let text = std::str::from_utf8(&head)
            .or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()]))
            .ok()?;
        if text.contains('\0') {
            return None;
        }
        Self::of_text(text).or_else(|| Self::scenario(path))
    }

    /// Traces (plain, or a whole trace compressed with zlib or gzip) and navigation files.
    fn of_binary(head: &[u8]) -> Option<FileKind> {
        let magic = throng::trace::format::MAGIC;
        if head.starts_with(&magic) {
            return Some(FileKind::Trace);
        }
        if head.starts_with(NAV_MAGIC) {
            return Some(FileKind::NavPoints);
        }
        let mut first = [0u8; 8];
        let inflated = match head {
            [0x1f, 0x8b, ..] => flate2::read::GzDecoder::new(head).read_exact(&mut first),
            [a, b, ..] if a & 0x0f == 8 && (u16::from(*a) << 8 | u16::from(*b)) % 31 == 0 => {
                flate2::read::ZlibDecoder::new(head).read_exact(&mut first)
            }
            _ => return None,
        };
        (inflated.is_ok() && first == magic).then_some(FileKind::Trace)
    }

    /// Moving AI maps and scens, LoRR JSON files and MAPF plans, from their first lines.
    fn of_text(text: &str) -> Option<FileKind> {
        let text = text.trim_start_matches('\u{feff}');
        let first = text.lines().map(str::trim).find(|l| !l.is_empty())?;
        let words: Vec<&str> = first.split_whitespace().collect();
        match words[..] {
            ["type", _] => return Some(FileKind::Map),
            ["version", _] => return Some(FileKind::Scen),
            _ => {}
        }
        if first.starts_with('{') {
            if text.contains("\"mapFile\"") {
                return Some(FileKind::LorrProblem);
            }
            if ["\"actionModel\"", "\"actualPaths\"", "\"plannerPaths\""]
                .iter()
                .any(|k| text.contains(k))
            {
                return Some(FileKind::LorrOutput);
            }
            return None;
        }
        let is_key_value = |l: &str| {
            l.split_once('=').is_some_and(|(k, _)| {
                !k.is_empty() && k.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            })
        };
        let plan_header = first.starts_with("agents=")
            && text
                .lines()
                .any(|l| l.starts_with("map_file=") || l == "solution=");
        if plan_header || (is_key_value(first) && text.lines().any(|l| l == "solution=")) {
            return Some(FileKind::MapfPlan);
        }
        None
    }

    /// A simulation scenario: TOML with a `[map]` or `[placement]` table.
    fn scenario(path: &Path) -> Option<FileKind> {
        let len = std::fs::metadata(path).ok()?.len();
        if len > MAX_SCENARIO_BYTES {
            return None;
        }
        let text = std::fs::read_to_string(path).ok()?;
        let table: toml::Table = toml::from_str(&text).ok()?;
        let is_table = |key: &str| table.get(key).is_some_and(toml::Value::is_table);
        (is_table("map") || is_table("placement")).then_some(FileKind::Scenario)
    }
}

/// Fails with one line when the file at `path`, which a command reads as `expected`, is for sure
/// another kind of file: what it is, what was expected, and what to do with it instead.
pub(crate) fn expect(path: &Path, expected: FileKind) -> anyhow::Result<()> {
    match FileKind::of(path) {
        Some(kind) if kind != expected => {
            let file = path.display().to_string();
            bail!(
                "{file} is {}, not {} ({})",
                kind.describe(),
                expected.describe(),
                kind.hint(&file)
            )
        }
        _ => Ok(()),
    }
}

/// The files a simulation scenario names, checked as [`expect`] does: `map.file` must not be
/// another kind than a map, nor the file of a `scen` placement another kind than a `.scen`.
pub(crate) fn expect_scenario_files(scenario: &Scenario) -> anyhow::Result<()> {
    let named = |key: &str, e: anyhow::Error| e.context(format!("{}: {key}", scenario.file()));
    if let MapSource::File(map) = &scenario.map {
        expect(map, FileKind::Map).map_err(|e| named("map.file", e))?;
    }
    if let Placement::Scen { file } = &scenario.placement {
        expect(file, FileKind::Scen).map_err(|e| named("placement.file", e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_kinds_are_told_by_their_first_lines() {
        let cases = [
            (
                "type octile\nheight 1\nwidth 1\nmap\n.\n",
                Some(FileKind::Map),
            ),
            (
                "\n version 1\n0\ta.map\t1\t1\t0\t0\t0\t0\t0\n",
                Some(FileKind::Scen),
            ),
            (
                "{\"mapFile\": \"m.map\", \"agentFile\": \"a\"}",
                Some(FileKind::LorrProblem),
            ),
            (
                "{\n  \"actionModel\": \"MAPF_T\",\n  \"AllValid\": \"Yes\"",
                Some(FileKind::LorrOutput),
            ),
            (
                "agents=2\nmap_file=m.map\nsolver=x\nsolution=\n0:(0,0),\n",
                Some(FileKind::MapfPlan),
            ),
            ("soc=3\nsolution=\n", Some(FileKind::MapfPlan)),
            ("{\"other\": 1}", None),
            ("name = \"x\"\n[map]\nfile = \"a.map\"\n", None),
            ("type = \"octile\"\n", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(FileKind::of_text(text), want, "{text:?}");
        }
    }

    #[test]
    fn binary_kinds_and_compressed_traces() {
        use std::io::Write;
        let mut trace = throng::trace::format::MAGIC.to_vec();
        trace.extend_from_slice(&[1, 0, 0, 0]);
        assert_eq!(FileKind::of_binary(&trace), Some(FileKind::Trace));
        assert_eq!(
            FileKind::of_binary(b"THRONGNV\x04\0\0\0"),
            Some(FileKind::NavPoints)
        );
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(&trace).unwrap();
        assert_eq!(
            FileKind::of_binary(&z.finish().unwrap()),
            Some(FileKind::Trace)
        );
        let mut g = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        g.write_all(&trace).unwrap();
        assert_eq!(
            FileKind::of_binary(&g.finish().unwrap()),
            Some(FileKind::Trace)
        );
        let mut other = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        other.write_all(b"something else").unwrap();
        assert_eq!(FileKind::of_binary(&other.finish().unwrap()), None);
    }

    #[test]
    fn scenarios_are_toml_with_a_map_or_placement_table() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let scenario = write("s.toml", "agents = 3\n[map]\nfile = \"a.map\"\n");
        assert_eq!(FileKind::of(&scenario), Some(FileKind::Scenario));
        let other = write("o.toml", "[package]\nname = \"x\"\n");
        assert_eq!(FileKind::of(&other), None);
        assert_eq!(FileKind::of(&dir.path().join("missing")), None);
        let e = expect(&scenario, FileKind::Map).unwrap_err().to_string();
        assert!(
            e.contains(
                "s.toml is a simulation scenario (TOML), not a Moving AI map (try: throng run "
            ),
            "{e}"
        );
        assert!(expect(&scenario, FileKind::Scenario).is_ok());
        assert!(expect(&other, FileKind::Scenario).is_ok());
    }
}
