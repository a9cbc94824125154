//! What kind of file a path holds, told from its first bytes: a Moving AI map or `.scen`, a
//! simulation scenario, a trace, a League of Robot Runners problem or output, a MAPF plan or a
//! navigation file. Commands use it to name a file given to the wrong one ("some.map is a
//! Moving AI map, not a simulation scenario") instead of failing in their parser on its first
//! line, and `throng view` to pick the reader of the file it replays.
//!
//! Only files recognised for sure get a kind: anything else (an unknown or damaged file, one
//! that cannot be read) is `None`, left to the reader that says what is wrong and where.

use std::io::Read;
use std::path::Path;

/// The files `throng` reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
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
    /// The JSON summary of a run that `throng run --json` writes (a `scenario_file` key).
    RunSummary,
}

/// Bytes read to tell the kind (the keys of a JSON file or a plan's header come early).
const SNIFF_BYTES: u64 = 64 * 1024;
/// Largest file parsed whole as TOML to recognise a scenario (scenarios are a few hundred bytes).
const MAX_SCENARIO_BYTES: u64 = 1 << 20;
/// Magic of a navigation file (`src/nav/file.rs`).
const NAV_MAGIC: &[u8; 8] = b"THRONGNV";
/// Magic of a trace (`src/trace/format.rs`), here too so that traces are told without the
/// `trace` feature.
const TRACE_MAGIC: &[u8; 8] = b"THRTRACE";

impl FileKind {
    /// The kind in words, with its article.
    pub fn describe(self) -> &'static str {
        match self {
            FileKind::Map => "a Moving AI map",
            FileKind::Scen => "a Moving AI .scen file",
            FileKind::Scenario => "a simulation scenario (TOML)",
            FileKind::Trace => "a throng trace",
            FileKind::LorrProblem => "a League of Robot Runners problem",
            FileKind::LorrOutput => "a League of Robot Runners output file",
            FileKind::MapfPlan => "a MAPF plan",
            FileKind::NavPoints => "a navigation-points file",
            FileKind::RunSummary => "a run summary (throng run --json)",
        }
    }

    /// The kind of the file at `path`, or `None` when it is none of these for sure (or cannot be
    /// read: the command's reader reports that). Reads the first 64 KiB, and a small file whole
    /// to recognise a scenario.
    pub fn of(path: &Path) -> Option<FileKind> {
        // Not a FIFO (opening it would wait for a writer), a device or a folder.
        if !std::fs::metadata(path).ok()?.is_file() {
            return None;
        }
        let mut head = Vec::new();
        std::fs::File::open(path)
            .ok()?
            .take(SNIFF_BYTES)
            .read_to_end(&mut head)
            .ok()?;
        Self::of_head(&head).or_else(|| {
            let len = std::fs::metadata(path).ok()?.len();
            if len > MAX_SCENARIO_BYTES {
                return None;
            }
            Self::scenario(&std::fs::read_to_string(path).ok()?)
        })
    }

    /// The kind of a file held whole in `bytes`, as [`FileKind::of`] tells it from a path.
    ///
    /// ```
    /// use throng::cli::FileKind;
    ///
    /// assert_eq!(FileKind::of_bytes(b"type octile\nheight 1\nwidth 1\nmap\n.\n"), Some(FileKind::Map));
    /// assert_eq!(FileKind::of_bytes(b"agents=1\nsolution=\n0:(0,0),\n"), Some(FileKind::MapfPlan));
    /// assert_eq!(FileKind::of_bytes(b"[map]\nfile = \"a.map\"\n"), Some(FileKind::Scenario));
    /// assert_eq!(FileKind::of_bytes(b"hello"), None);
    /// ```
    pub fn of_bytes(bytes: &[u8]) -> Option<FileKind> {
        let head = &bytes[..bytes.len().min(SNIFF_BYTES as usize)];
        Self::of_head(head).or_else(|| {
            if bytes.len() as u64 > MAX_SCENARIO_BYTES {
                return None;
            }
            Self::scenario(std::str::from_utf8(bytes).ok()?)
        })
    }

    /// Every kind but a scenario, from the first bytes of a file.
    fn of_head(head: &[u8]) -> Option<FileKind> {
        if let Some(kind) = Self::of_binary(head) {
            return Some(kind);
        }
        let text = std::str::from_utf8(head)
            .or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()]))
            .ok()?;
        if text.contains('\0') {
            return None;
        }
        Self::of_text(text)
    }

    /// Traces (plain, or with the `trace` feature a whole trace compressed with zlib or gzip)
    /// and navigation files.
    fn of_binary(head: &[u8]) -> Option<FileKind> {
        if head.starts_with(TRACE_MAGIC) {
            return Some(FileKind::Trace);
        }
        if head.starts_with(NAV_MAGIC) {
            return Some(FileKind::NavPoints);
        }
        Self::compressed_trace(head)
    }

    /// A whole trace compressed with zlib or gzip (what `throng run --trace x.gz` writes).
    #[cfg(feature = "trace")]
    fn compressed_trace(head: &[u8]) -> Option<FileKind> {
        let mut first = [0u8; 8];
        let inflated = match head {
            [0x1f, 0x8b, ..] => flate2::read::GzDecoder::new(head).read_exact(&mut first),
            [a, b, ..] if a & 0x0f == 8 && (u16::from(*a) << 8 | u16::from(*b)) % 31 == 0 => {
                flate2::read::ZlibDecoder::new(head).read_exact(&mut first)
            }
            _ => return None,
        };
        (inflated.is_ok() && &first == TRACE_MAGIC).then_some(FileKind::Trace)
    }

    /// Without the `trace` feature compressed traces are not told (no inflater).
    #[cfg(not(feature = "trace"))]
    fn compressed_trace(_head: &[u8]) -> Option<FileKind> {
        None
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
            if text.contains("\"scenario_file\"") {
                return Some(FileKind::RunSummary);
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
    #[cfg(feature = "scenario")]
    fn scenario(text: &str) -> Option<FileKind> {
        let table: toml::Table = toml::from_str(text).ok()?;
        let is_table = |key: &str| table.get(key).is_some_and(toml::Value::is_table);
        (is_table("map") || is_table("placement")).then_some(FileKind::Scenario)
    }

    /// Without the `scenario` feature scenarios are not told (no TOML parser).
    #[cfg(not(feature = "scenario"))]
    fn scenario(_text: &str) -> Option<FileKind> {
        None
    }
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
            (
                "{\n  \"scenario\": \"default\",\n  \"scenario_file\": \"s.toml\"",
                Some(FileKind::RunSummary),
            ),
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
    #[cfg(feature = "trace")]
    fn binary_kinds_and_compressed_traces() {
        use std::io::Write;
        assert_eq!(TRACE_MAGIC, &crate::trace::format::MAGIC);
        let mut trace = crate::trace::format::MAGIC.to_vec();
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
}
