//! Output paths that would destroy a file the command needs: an output that is one of the
//! command's inputs (`throng mapf MAP SCEN --out SCEN`) or another of its outputs
//! (`throng run --json f --csv f`) is refused before the work, in one line. Paths are compared
//! as the files they name (links and `..` resolved), not as text.

use std::path::{Path, PathBuf};

use anyhow::bail;

/// The file `path` names: the canonical path of an existing file, or the canonical folder
/// joined with the name for a file still to be made; `None` when its folder does not exist.
fn identity(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = std::fs::canonicalize(path) {
        return Some(real);
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Some(std::fs::canonicalize(parent).ok()?.join(path.file_name()?))
}

/// Fails when two of `outputs` (`(flag, path)`) are the same file, or one is the same file as
/// one of `inputs` (`(what it is, path)`, e.g. `("the map", ...)`), naming both.
pub(crate) fn check_distinct(
    outputs: &[(&str, &Path)],
    inputs: &[(&str, &Path)],
) -> anyhow::Result<()> {
    let inputs: Vec<(&str, &Path, PathBuf)> = inputs
        .iter()
        .filter_map(|&(what, path)| Some((what, path, std::fs::canonicalize(path).ok()?)))
        .collect();
    let mut seen: Vec<(&str, PathBuf)> = Vec::new();
    for &(flag, path) in outputs {
        let Some(id) = identity(path) else { continue };
        if let Some((what, input, _)) = inputs.iter().find(|(_, _, i)| *i == id) {
            bail!(
                "{flag} {}: is {what} {}, an input it would overwrite: write to another file",
                path.display(),
                input.display()
            );
        }
        if let Some((other, _)) = seen.iter().find(|(_, s)| *s == id) {
            bail!(
                "{flag} {}: is also the {other} file: give each output its own file",
                path.display()
            );
        }
        seen.push((flag, id));
    }
    Ok(())
}
