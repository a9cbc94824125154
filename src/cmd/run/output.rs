//! Where `throng run` writes its text outputs (`--json`, `--csv`, `--paths`): a file written
//! whole or not at all, or standard output for the file name `-`.
//!
//! A file is written to a hidden temporary file beside it and renamed over it once complete,
//! so a run that fails (a map that does not load, agents that do not fit, a full disk) leaves
//! no half-written file and an older file of that name untouched.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// Whether `path` names standard output (`-`).
pub(super) fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A file being written: complete once [`commit`](Self::commit)ted, gone (temporary file
/// removed, any older file kept) when dropped before.
pub(super) struct AtomicFile {
    path: PathBuf,
    temp: PathBuf,
    out: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `path` (through a temporary file in its folder).
    pub(super) fn create(path: &Path) -> anyhow::Result<AtomicFile> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temp = path.with_file_name(format!(".{name}.{}.partial", std::process::id()));
        let file = File::create(&temp).with_context(|| format!("writing {}", path.display()))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            temp,
            out: Some(BufWriter::with_capacity(1 << 16, file)),
        })
    }

    /// Finishes the file: flushes it and puts it in place.
    pub(super) fn commit(mut self) -> anyhow::Result<()> {
        let out = self.out.take().expect("not committed yet");
        let done = out
            .into_inner()
            .map_err(io::IntoInnerError::into_error)
            .and_then(|_| std::fs::rename(&self.temp, &self.path));
        if done.is_err() {
            let _ = std::fs::remove_file(&self.temp);
        }
        done.with_context(|| format!("writing {}", self.path.display()))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.as_mut().expect("not committed").write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.as_mut().expect("not committed").write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.as_mut().expect("not committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// A text output: a file (see [`AtomicFile`]) or standard output.
pub(super) enum Output {
    /// Standard output (`-`).
    Stdout(BufWriter<io::Stdout>),
    /// A file.
    File(AtomicFile),
}

impl Output {
    /// Starts writing `path`, or standard output for `-`.
    pub(super) fn create(path: &Path) -> anyhow::Result<Output> {
        Ok(if is_stdout(path) {
            Output::Stdout(BufWriter::with_capacity(1 << 16, io::stdout()))
        } else {
            Output::File(AtomicFile::create(path)?)
        })
    }

    /// Finishes the output: flushes standard output, or puts the file in place.
    pub(super) fn commit(self) -> anyhow::Result<()> {
        match self {
            Output::Stdout(mut out) => Ok(out.flush()?),
            Output::File(file) => file.commit(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(out) => out.write(buf),
            Output::File(file) => file.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.write_all(buf),
            Output::File(file) => file.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.flush(),
            Output::File(file) => file.flush(),
        }
    }
}
