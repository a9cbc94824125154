//! Where outputs go: files written whole or not at all, checked before the work that fills them.
//!
//! An [`OutputFile`] is reserved before the work: its temporary file is created then, beside
//! the file it will become, so that a folder that cannot be written (missing, read-only, a name
//! too long) is found before a long run, not after it. The work writes the temporary file; it is
//! renamed over the output once complete ([`OutputFile::commit`]). A failure, an early return or
//! Ctrl-C ([`interrupt`]) removes the temporary file, and an older file of that name is
//! kept. Every command writes its files this way.
//!
//! Output paths that would destroy a file the command needs ([`check_distinct`]): an output
//! that is one of the command's inputs (`throng mapf MAP SCEN --out SCEN`) or another of its outputs
//! (`throng run --json f --csv f`) is refused before the work, in one line. Paths are compared
//! as the files they name (links and `..` resolved), not as text.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow, bail};

mod interrupt;

/// The folder `path` is in (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The file `path` names: the canonical path of an existing file, or the canonical folder
/// joined with the name for a file still to be made; `None` when its folder does not exist.
fn identity(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = std::fs::canonicalize(path) {
        return Some(real);
    }
    Some(
        std::fs::canonicalize(folder_of(path))
            .ok()?
            .join(path.file_name()?),
    )
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

/// Bytes of the output's name kept in its temporary file's name (`.NAME.PID.partial`), so that
/// the temporary name stays within the 255 bytes file systems allow.
const MAX_NAME_IN_TEMP: usize = 200;

/// An output file being made: a temporary file in the output's folder, renamed over the output
/// by [`commit`](Self::commit), removed when dropped before.
pub(crate) struct OutputFile {
    /// The path as given (named in messages).
    path: PathBuf,
    /// Where the file goes: `path`, or the file a symbolic link `path` points to.
    target: PathBuf,
    /// The temporary file; `None` for an output that is not a regular file (`/dev/null`, a
    /// pipe), written in place.
    temp: Option<PathBuf>,
    /// The open file, until [`writer`](Self::writer) hands it out.
    file: Option<File>,
}

impl OutputFile {
    /// Reserves the output `path` of the option `flag`: fails, with one line naming `flag` and
    /// `path`, when it is a folder, its folder does not exist, or a file cannot be created
    /// there.
    pub(crate) fn reserve(flag: &str, path: &Path) -> anyhow::Result<OutputFile> {
        if path.is_dir() {
            bail!("{flag} {}: is a directory", path.display());
        }
        let parent = folder_of(path);
        if !parent.exists() {
            bail!(
                "{flag} {}: folder {} does not exist",
                path.display(),
                parent.display()
            );
        }
        if !parent.is_dir() {
            bail!(
                "{flag} {}: {} is not a folder",
                path.display(),
                parent.display()
            );
        }
        let cannot = |e: io::Error| anyhow!("{flag} {}: cannot write it: {e}", path.display());
        let existing = std::fs::metadata(path).ok();
        if existing.as_ref().is_some_and(|m| !m.is_file()) {
            // A device or a pipe: written in place (a rename would replace it).
            let file = OpenOptions::new().write(true).open(path).map_err(cannot)?;
            return Ok(OutputFile {
                path: path.to_path_buf(),
                target: path.to_path_buf(),
                temp: None,
                file: Some(file),
            });
        }
        let target = match existing {
            // A link to a file: that file is replaced, the link kept.
            Some(_) => std::fs::canonicalize(path).map_err(cannot)?,
            None => path.to_path_buf(),
        };
        let mut name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.len() > MAX_NAME_IN_TEMP {
            // The temporary name, longer, could be refused where the output's is not: the
            // output's own name is tried (a file made and removed at once), then a shortened one
            // is used.
            if existing.is_none() {
                OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&target)
                    .map_err(cannot)?;
                std::fs::remove_file(&target).map_err(cannot)?;
            }
            let mut end = MAX_NAME_IN_TEMP;
            while !name.is_char_boundary(end) {
                end -= 1;
            }
            name.truncate(end);
        }
        let pid = std::process::id();
        for attempt in 0u32.. {
            let temp = target.with_file_name(match attempt {
                0 => format!(".{name}.{pid}.partial"),
                n => format!(".{name}.{pid}.{n}.partial"),
            });
            interrupt::register_file(&temp);
            match OpenOptions::new().write(true).create_new(true).open(&temp) {
                Ok(file) => {
                    return Ok(OutputFile {
                        path: path.to_path_buf(),
                        target,
                        temp: Some(temp),
                        file: Some(file),
                    });
                }
                Err(e) => {
                    interrupt::lock().forget_file(&temp);
                    // A temporary file left by a killed process of the same id: next name.
                    if e.kind() != io::ErrorKind::AlreadyExists || attempt >= 100 {
                        return Err(cannot(e));
                    }
                }
            }
        }
        unreachable!("the loop returns")
    }

    /// The path as given.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The open temporary file, buffered, to write the output through (once). Flush it and
    /// drop it before [`commit`](Self::commit).
    pub(crate) fn writer(&mut self) -> BufWriter<File> {
        BufWriter::with_capacity(1 << 16, self.file.take().expect("one writer per output"))
    }

    /// Bytes written so far.
    pub(crate) fn len(&self) -> u64 {
        std::fs::metadata(self.temp.as_ref().unwrap_or(&self.target)).map_or(0, |m| m.len())
    }

    /// Writes the whole output with `fill` and flushes it (not yet put in place).
    pub(crate) fn fill(
        &mut self,
        fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
    ) -> anyhow::Result<()> {
        let mut w = self.writer();
        fill(&mut w)
            .and_then(|()| w.flush())
            .with_context(|| format!("writing {}", self.path.display()))
    }

    /// Puts the file in place (renames the temporary file over the output).
    pub(crate) fn commit(mut self) -> anyhow::Result<()> {
        drop(self.file.take());
        let Some(temp) = self.temp.take() else {
            return Ok(());
        };
        // Under the lock: an interruption removes the temporary file before the rename or
        // finds it gone, never in between.
        let mut unfinished = interrupt::lock();
        let renamed = std::fs::rename(&temp, &self.target);
        if renamed.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        unfinished.forget_file(&temp);
        renamed.with_context(|| format!("writing {}", self.path.display()))
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        drop(self.file.take());
        if let Some(temp) = self.temp.take() {
            let mut unfinished = interrupt::lock();
            let _ = std::fs::remove_file(&temp);
            unfinished.forget_file(&temp);
        }
    }
}

/// An [`OutputFile`] written as the work goes (the writer kept with it).
pub(crate) struct StreamedFile {
    file: OutputFile,
    out: BufWriter<File>,
}

impl StreamedFile {
    /// Starts writing the reserved `file`.
    pub(crate) fn new(mut file: OutputFile) -> StreamedFile {
        let out = file.writer();
        StreamedFile { file, out }
    }

    /// The path as given.
    pub(crate) fn path(&self) -> &Path {
        self.file.path()
    }

    /// Flushes what was written; the file is then ready to [`commit`](OutputFile::commit).
    pub(crate) fn finish(self) -> anyhow::Result<OutputFile> {
        let StreamedFile { file, out } = self;
        out.into_inner()
            .map_err(io::IntoInnerError::into_error)
            .with_context(|| format!("writing {}", file.path().display()))?;
        Ok(file)
    }
}

impl Write for StreamedFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// A folder of outputs (`throng run --plots DIR`): made at once when missing (its parent must
/// exist) and checked to take files; removed again, when this made it, unless
/// [`keep`](Self::keep) is called.
pub(crate) struct OutputFolder {
    flag: String,
    dir: PathBuf,
    made: bool,
}

impl OutputFolder {
    /// Reserves the folder `dir` of the option `flag`, with one line naming both when it is a
    /// file, its parent does not exist, or a file cannot be created in it.
    pub(crate) fn reserve(flag: &str, dir: &Path) -> anyhow::Result<OutputFolder> {
        if dir.exists() && !dir.is_dir() {
            bail!("{flag} {}: is not a directory", dir.display());
        }
        let mut folder = OutputFolder {
            flag: flag.to_string(),
            dir: dir.to_path_buf(),
            made: false,
        };
        if !dir.exists() {
            let parent = folder_of(dir);
            if !parent.is_dir() {
                bail!(
                    "{flag} {}: folder {} does not exist",
                    dir.display(),
                    parent.display()
                );
            }
            interrupt::register_folder(dir);
            if let Err(e) = std::fs::create_dir(dir) {
                interrupt::lock().forget_folder(dir);
                bail!("{flag} {}: cannot make the folder: {e}", dir.display());
            }
            folder.made = true;
        }
        // A file that can be made there now can be at the end of the run.
        drop(OutputFile::reserve(flag, &dir.join("probe"))?);
        Ok(folder)
    }

    /// Reserves the file `name` in the folder.
    pub(crate) fn file(&self, name: &str) -> anyhow::Result<OutputFile> {
        OutputFile::reserve(&self.flag, &self.dir.join(name))
    }

    /// Keeps the folder (its files are in place).
    pub(crate) fn keep(mut self) {
        interrupt::lock().forget_folder(&self.dir);
        self.made = false;
    }
}

impl Drop for OutputFolder {
    fn drop(&mut self) {
        if self.made {
            let mut unfinished = interrupt::lock();
            let _ = std::fs::remove_dir(&self.dir);
            unfinished.forget_folder(&self.dir);
        }
    }
}

/// Outputs written and waiting to be put in place together, once all of them are complete.
#[derive(Default)]
pub(crate) struct ReadyOutputs {
    files: Vec<OutputFile>,
    folders: Vec<OutputFolder>,
}

impl ReadyOutputs {
    /// Adds a written file.
    pub(crate) fn add(&mut self, file: OutputFile) {
        self.files.push(file);
    }

    /// Adds a folder whose files were added.
    pub(crate) fn add_folder(&mut self, folder: OutputFolder) {
        self.folders.push(folder);
    }

    /// Puts every file in place.
    pub(crate) fn commit(self) -> anyhow::Result<()> {
        for file in self.files {
            file.commit()?;
        }
        self.folders.into_iter().for_each(OutputFolder::keep);
        Ok(())
    }
}
