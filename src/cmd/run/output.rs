//! Where `throng run` writes its text outputs (`--json`, `--csv`): a file written whole or not
//! at all ([`OutputFile`]), or standard output for the file name `-`.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::cmd::output_file::{OutputFile, ReadyOutputs, StreamedFile};

/// Whether `path` names standard output (`-`).
pub(super) fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A text output: a file or standard output.
pub(super) enum Output {
    /// Standard output (`-`).
    Stdout(BufWriter<io::Stdout>),
    /// A file.
    File(StreamedFile),
}

impl Output {
    /// Reserves `path` for the option `flag` (see [`OutputFile::reserve`]), or standard output
    /// for `-`.
    pub(super) fn reserve(flag: &str, path: &Path) -> anyhow::Result<Output> {
        Ok(if is_stdout(path) {
            Output::Stdout(BufWriter::with_capacity(1 << 16, io::stdout()))
        } else {
            Output::File(StreamedFile::new(OutputFile::reserve(flag, path)?))
        })
    }

    /// The path (`-` for standard output).
    pub(super) fn path(&self) -> &Path {
        match self {
            Output::Stdout(_) => Path::new("-"),
            Output::File(file) => file.path(),
        }
    }

    /// Finishes the output: flushes standard output, or adds the file to `ready`.
    pub(super) fn finish(self, ready: &mut ReadyOutputs) -> anyhow::Result<()> {
        match self {
            Output::Stdout(mut out) => Ok(out.flush()?),
            Output::File(file) => {
                ready.add(file.finish()?);
                Ok(())
            }
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
