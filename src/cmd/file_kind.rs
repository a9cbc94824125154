//! A file given to the wrong command, refused in one line that says what it is, what was
//! expected and what to do with it instead ([`throng::file_kind::FileKind`] tells the kind).
//!
//! Only files recognised for sure are refused: anything else goes on to the command's own
//! reader, which says what is wrong and where.

use std::path::Path;

use anyhow::bail;
pub(crate) use throng::cli::FileKind;
use throng::scenario::{MapSource, Placement, Scenario};

/// What to do with a file of `kind` instead, for `file`.
fn hint(kind: FileKind, file: &str) -> String {
    match kind {
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
        FileKind::RunSummary => "written by throng run --json, for people and scripts".to_string(),
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
                hint(kind, &file)
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
