//! The one place files are opened for reading: every reader of the library (maps, `.scen`
//! files, scenarios, LoRR problems and their files, plans, LoRR outputs, traces, navigation
//! files) reads through [`read_bytes`] or [`read_text`].
//!
//! A file is refused in one line before it is parsed when it is not a regular file (a folder,
//! `/dev/zero`, a FIFO), when it is larger than its kind may be (the cap is named in the
//! message), or when its first bytes show it is another kind of file ("x: is a throng trace,
//! not a Moving AI map"). So memory stays bounded whatever path is given, and "no such file"
//! is said one way.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

use crate::error::{Error, ParseError, Result};
use crate::file_kind::FileKind;

const MIB: u64 = 1 << 20;

/// The kinds of file read, each with its size cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// Scenarios, plans, LoRR outputs and replays are read only with their features.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub enum Input {
    /// A Moving AI `.map`: at most the largest grid ([`crate::grid::MAX_CELLS`] cells) with its
    /// line ends.
    Map,
    /// A Moving AI `.scen` file.
    Scen,
    /// A simulation scenario (TOML): a few hundred bytes in practice.
    Scenario,
    /// A League of Robot Runners problem JSON (it names its files).
    LorrProblem,
    /// A LoRR agents file (one start cell a line).
    LorrAgents,
    /// A LoRR tasks file (one task of errands a line).
    LorrTasks,
    /// A plan of `throng mapf --out`.
    MapfPlan,
    /// An output of `throng lorr --out`.
    LorrOutput,
    /// Navigation points of `throng nav`.
    NavPoints,
    /// What `throng view` replays, told once read: a trace, a plan or a LoRR output.
    Replay,
}

impl Input {
    /// The most bytes a file of this kind may hold.
    pub fn cap(self) -> u64 {
        match self {
            // 2^28 cells with a line end per row of at least 2^14 cells, and the header.
            Input::Map => 272 * MIB,
            Input::Scen | Input::LorrAgents | Input::LorrTasks => 256 * MIB,
            Input::Scenario | Input::LorrProblem => 4 * MIB,
            Input::NavPoints => 512 * MIB,
            Input::MapfPlan | Input::LorrOutput | Input::Replay => 2048 * MIB,
        }
    }

    /// The kind in words, with its article.
    pub fn describe(self) -> &'static str {
        match self {
            Input::LorrAgents => "a LoRR agents file",
            Input::LorrTasks => "a LoRR tasks file",
            Input::Replay => "a trace, plan or LoRR output",
            other => other.file_kind().map_or("a file", |kind| kind.describe()),
        }
    }

    /// The kind of file [`FileKind`] tells for this input, if it tells one.
    fn file_kind(self) -> Option<FileKind> {
        match self {
            Input::Map => Some(FileKind::Map),
            Input::Scen => Some(FileKind::Scen),
            Input::Scenario => Some(FileKind::Scenario),
            Input::LorrProblem => Some(FileKind::LorrProblem),
            Input::MapfPlan => Some(FileKind::MapfPlan),
            Input::LorrOutput => Some(FileKind::LorrOutput),
            Input::NavPoints => Some(FileKind::NavPoints),
            Input::LorrAgents | Input::LorrTasks | Input::Replay => None,
        }
    }

    /// Whether files of this kind are text.
    fn is_text(self) -> bool {
        !matches!(self, Input::NavPoints | Input::Replay)
    }
}

/// A cap in words: "64 MiB", "2 GiB".
struct Size(u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 >= 1024 * MIB && self.0.is_multiple_of(1024 * MIB) {
            write!(f, "{} GiB", self.0 / (1024 * MIB))
        } else {
            write!(f, "{} MiB", self.0.div_ceil(MIB))
        }
    }
}

/// Fails unless `path` is a regular file no larger than the cap of `kind`, without opening it
/// (opening a FIFO would wait for a writer).
///
/// # Errors
/// [`Error::Io`]: no such file, a folder or device, or a file too large.
#[cfg(feature = "cli")]
pub fn check(path: &Path, kind: Input) -> Result<()> {
    check_io(path, kind).map_err(|e| Error::io(path, e))
}

/// [`check`], with the bare I/O error (its words by [`io_words`]).
#[cfg(feature = "scenario")]
pub(crate) fn check_io(path: &Path, kind: Input) -> io::Result<()> {
    check_metadata(&std::fs::metadata(path)?, kind)
}

/// A regular file within the cap of `kind`, or the error that says what it is instead.
fn check_metadata(meta: &std::fs::Metadata, kind: Input) -> io::Result<()> {
    let file_type = meta.file_type();
    if !file_type.is_file() {
        let what = if file_type.is_dir() {
            "a directory"
        } else if is_fifo_or_socket(&file_type) {
            "a pipe or socket"
        } else {
            "a device or special file"
        };
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("is {what}, not a regular file"),
        ));
    }
    if meta.len() > kind.cap() {
        return Err(too_large(kind));
    }
    Ok(())
}

#[cfg(unix)]
fn is_fifo_or_socket(file_type: &std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    file_type.is_fifo() || file_type.is_socket()
}

#[cfg(not(unix))]
fn is_fifo_or_socket(_: &std::fs::FileType) -> bool {
    false
}

fn too_large(kind: Input) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "larger than the {} {} may be",
            Size(kind.cap()),
            kind.describe()
        ),
    )
}

/// The bytes of the file at `path`, a file of `kind`, checked as [`check`] does but not
/// sniffed: for readers with errors of their own (navigation files).
pub(crate) fn read_unsniffed(path: &Path, kind: Input) -> io::Result<Vec<u8>> {
    check_metadata(&std::fs::metadata(path)?, kind)?;
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    // Checked again on the file opened, in case the path changed in between.
    check_metadata(&meta, kind)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(kind.cap() + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > kind.cap() {
        return Err(too_large(kind));
    }
    Ok(bytes)
}

/// Reads the whole file at `path`, a file of `kind`: a regular file within the kind's cap, and
/// not another kind of file by its first bytes.
///
/// # Errors
/// [`Error::Io`] as [`check`], or when reading fails; [`Error::Parse`] for a file that is
/// another kind ("x.trace: is a throng trace, not a Moving AI map").
pub fn read_bytes(path: &Path, kind: Input) -> Result<Vec<u8>> {
    let bytes = read_unsniffed(path, kind).map_err(|e| Error::io(path, e))?;
    sniff(path, &bytes, kind)?;
    Ok(bytes)
}

/// Reads the whole text file at `path`, a file of `kind`, as [`read_bytes`] does.
///
/// # Errors
/// As [`read_bytes`], and [`Error::Parse`] for text that is not UTF-8.
pub fn read_text(path: &Path, kind: Input) -> Result<String> {
    let bytes = read_bytes(path, kind)?;
    String::from_utf8(bytes).map_err(|e| {
        Error::Parse(ParseError::whole(
            path.display().to_string(),
            format!(
                "not UTF-8 text (byte {}), not {}",
                e.utf8_error().valid_up_to(),
                kind.describe()
            ),
        ))
    })
}

/// Refuses a file whose first bytes show it is not of `kind`: a [`ParseError`] for the file as
/// a whole, "x.toml: is a simulation scenario (TOML), not a Moving AI map".
fn sniff(path: &Path, bytes: &[u8], kind: Input) -> Result<()> {
    let found = FileKind::of_bytes(bytes);
    let what = match (found, kind.file_kind()) {
        (Some(found), Some(want)) if found != want => Some(found.describe()),
        (Some(found), None) if kind != Input::Replay => Some(found.describe()),
        (None, _) if kind.is_text() && bytes[..bytes.len().min(4096)].contains(&0) => {
            Some("a binary file")
        }
        (None, _) if kind == Input::NavPoints && looks_like_text(bytes) => Some("a text file"),
        _ => None,
    };
    match what {
        Some(what) => Err(Error::Parse(ParseError::whole(
            path.display().to_string(),
            format!("is {what}, not {}", kind.describe()),
        ))),
        None => Ok(()),
    }
}

/// Whether the first bytes are text: UTF-8 (up to a character cut at the end) without NUL.
fn looks_like_text(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(512)];
    let utf8 = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    };
    !head.is_empty() && !head.contains(&0) && utf8
}

/// The words for an I/O error that every reader says the same way: "no such file", "is a
/// directory, not a regular file", "permission denied"; others as the system says them.
pub(crate) fn io_words(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".to_string(),
        io::ErrorKind::IsADirectory => "is a directory, not a regular file".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => match e.raw_os_error() {
            Some(_) => {
                let text = e.to_string();
                let text = text.split(" (os error").next().unwrap_or(&text).to_string();
                let mut chars = text.chars();
                chars.next().map_or(text.clone(), |c| {
                    c.to_lowercase().collect::<String>() + chars.as_str()
                })
            }
            None => e.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(r: Result<Vec<u8>>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn not_regular_files_are_refused_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        let e = message(read_bytes(dir.path(), Input::Map));
        assert!(e.ends_with(": is a directory, not a regular file"), "{e}");
        let e = message(read_bytes(Path::new("/dev/zero"), Input::Scenario));
        assert_eq!(
            e,
            "/dev/zero: is a device or special file, not a regular file"
        );
        let e = message(read_bytes(&dir.path().join("nope.map"), Input::Map));
        assert!(e.ends_with("nope.map: no such file"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return;
        }
        let e = message(read_bytes(&fifo, Input::Replay));
        assert!(
            e.ends_with(": is a pipe or socket, not a regular file"),
            "{e}"
        );
    }

    #[test]
    fn files_over_the_cap_are_refused_by_size() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.toml");
        let file = std::fs::File::create(&big).unwrap();
        // Sparse: nothing is written, and nothing is read.
        file.set_len(Input::Scenario.cap() + 1).unwrap();
        let e = message(read_bytes(&big, Input::Scenario));
        assert!(
            e.ends_with("big.toml: larger than the 4 MiB a simulation scenario (TOML) may be"),
            "{e}"
        );
        file.set_len(Input::Map.cap() + 1).unwrap();
        let e = message(read_bytes(&big, Input::Map));
        assert!(
            e.ends_with("larger than the 272 MiB a Moving AI map may be"),
            "{e}"
        );
        assert_eq!(Size(2048 * MIB).to_string(), "2 GiB");
    }

    #[test]
    fn other_kinds_are_named_from_their_first_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes).unwrap();
            p
        };
        let scenario = write("s.toml", b"agents = 3\n[map]\nfile = \"a.map\"\n");
        let e = read_text(&scenario, Input::Map).unwrap_err().to_string();
        assert!(
            e.ends_with("s.toml: is a simulation scenario (TOML), not a Moving AI map"),
            "{e}"
        );
        let map = write("m.map", b"type octile\nheight 1\nwidth 1\nmap\n.\n");
        assert!(read_text(&map, Input::Map).is_ok());
        let e = read_text(&map, Input::LorrTasks).unwrap_err().to_string();
        assert!(
            e.ends_with("m.map: is a Moving AI map, not a LoRR tasks file"),
            "{e}"
        );
        let e = read_bytes(&map, Input::NavPoints).unwrap_err().to_string();
        assert!(
            e.ends_with("m.map: is a Moving AI map, not a navigation-points file"),
            "{e}"
        );
        let text = write("notes.txt", b"hello\n");
        let e = read_bytes(&text, Input::NavPoints).unwrap_err().to_string();
        assert!(
            e.ends_with("notes.txt: is a text file, not a navigation-points file"),
            "{e}"
        );
        let binary = write("b.bin", b"\x01\x00\x02");
        let e = read_text(&binary, Input::Scen).unwrap_err().to_string();
        assert!(
            e.ends_with("b.bin: is a binary file, not a Moving AI .scen file"),
            "{e}"
        );
        let latin1 = write("l.map", b"caf\xe9\n");
        let e = read_text(&latin1, Input::Map).unwrap_err().to_string();
        assert!(
            e.ends_with("l.map: not UTF-8 text (byte 3), not a Moving AI map"),
            "{e}"
        );
    }
}
