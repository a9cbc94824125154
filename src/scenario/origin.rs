//! Where a scenario came from: its file (or the label standing for one) and the line of each
//! key it wrote. Errors found after parsing (a map that does not fit its agents, a rectangle
//! outside the map, an action model the neighbourhood refuses) point at that line, or at the
//! override that set the key (`--set agents=1000`) when the value came from one.

use crate::error::{Error, ParseError};

/// The file a scenario came from and the line of each key it wrote.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Origin {
    /// The file as given, or the label passed to [`Scenario::parse`](super::Scenario::parse).
    pub(super) file: String,
    /// Line of each key that was written (`"agents"`, `"map.file"`, ...).
    pub(super) lines: Vec<(&'static str, usize)>,
    /// Each key set by an override after the file was read, with the override as its caller
    /// wrote it (`"--set agents=1000"`); the last one of a key is the one in force.
    pub(super) overrides: Vec<(String, String)>,
}

impl Origin {
    /// An origin with no lines known yet: `file` labels its errors.
    pub(super) fn new(file: &str) -> Origin {
        Origin {
            file: file.to_string(),
            lines: Vec::new(),
            overrides: Vec::new(),
        }
    }

    /// The line of `key`, when the file wrote it.
    pub(super) fn line(&self, key: &str) -> Option<usize> {
        self.lines.iter().find(|(k, _)| *k == key).map(|&(_, l)| l)
    }

    /// The override that set `key` last, if one did.
    fn override_of(&self, key: &str) -> Option<&str> {
        self.overrides
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, label)| label.as_str())
    }

    /// An error about `key`: naming the override that set it, or at its line when it was
    /// written in the file.
    pub(super) fn error(&self, key: &str, message: impl std::fmt::Display) -> Error {
        if let Some(label) = self.override_of(key) {
            return Error::Invalid(format!("{label}: {message}"));
        }
        let message = format!("{key}: {message}");
        match self.line(key) {
            Some(line) => ParseError::at(&self.file, line, message),
            None => ParseError::whole(&self.file, message),
        }
        .into()
    }
}
