//! Error types of the library.
//!
//! Every fallible entry point returns [`Error`]. Errors that come from a file say which file and,
//! when the problem is on a line, which line ([`ParseError`]), so a user can open the file at
//! the right place.

use std::fmt;
use std::path::PathBuf;

/// A problem found while reading a text file (map, scenario, ...): where it is and what it is.
///
/// Displayed as `file:line: message`, or `file: message` when the problem is not on one line
/// (an empty file, a missing section).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The file, as the user named it (or a label such as `<string>` for in-memory text).
    pub file: String,
    /// 1-based line number, when the problem is on one line.
    pub line: Option<usize>,
    /// What is wrong, in words.
    pub message: String,
}

impl ParseError {
    /// A problem on one line of `file`.
    pub fn at(file: impl Into<String>, line: usize, message: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            line: Some(line),
            message: message.into(),
        }
    }

    /// A problem with the file as a whole.
    pub fn whole(file: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            line: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file, line, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// The library's error type.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written.
    #[error("{}: {}", path.display(), crate::input::io_words(source))]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A file was read but its contents are malformed.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A grid could not be built (bad size, bad cost value).
    #[error("invalid grid: {0}")]
    InvalidGrid(String),
    /// A cell, coordinate or query is not valid for the grid it is used with.
    #[error(transparent)]
    InvalidQuery(#[from] crate::search::QueryError),
    /// An agent id that does not name a live agent (it was removed). Shown as the 64-bit id
    /// of [`AgentId::to_bits`](crate::sim::AgentId::to_bits), the one Python and C hold.
    #[error("agent {} does not exist (removed?)", .0.to_bits())]
    UnknownAgent(crate::sim::AgentId),
    /// A cell already holds an agent and conflicts are on.
    #[error("cell ({x}, {y}) is occupied by agent {}", .agent.to_bits())]
    CellOccupied {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The agent standing there.
        agent: crate::sim::AgentId,
    },
    /// A navigation file could not be saved or used (wrong map, wrong version, damaged).
    #[error(transparent)]
    NavFile(#[from] crate::nav::NavFileError),
    /// A simulation snapshot was refused (see [`crate::sim::Simulation::from_snapshot`]).
    #[error(transparent)]
    Snapshot(#[from] crate::sim::SnapshotError),
    /// A trace file could not be written or read (see [`crate::trace`]).
    #[cfg(feature = "trace")]
    #[error(transparent)]
    Trace(#[from] crate::trace::TraceError),
    /// A picture could not be drawn or written (see [`crate::render`]).
    #[cfg(feature = "render")]
    #[error(transparent)]
    Render(#[from] crate::render::RenderError),
    /// Anything else that is the caller's input being wrong, explained in words.
    #[error("{0}")]
    Invalid(String),
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// Shorthand for `Result<T, throng::error::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;
