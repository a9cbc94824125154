//! Output paths checked before the work that fills them, so that a typo in `--out` does not cost
//! a long run (or a search that ends at its time limit) and its result.

use std::path::Path;

use anyhow::bail;

/// Fails when `file` is a directory or its folder does not exist (checked before a run, so that a
/// typo does not cost the run). `flag` names the option in the message.
pub(crate) fn check_writable(flag: &str, file: &Path) -> anyhow::Result<()> {
    if file.is_dir() {
        bail!("{flag} {}: is a directory", file.display());
    }
    let parent = file.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = parent
        && !dir.is_dir()
    {
        bail!(
            "{flag} {}: folder {} does not exist",
            file.display(),
            dir.display()
        );
    }
    Ok(())
}
