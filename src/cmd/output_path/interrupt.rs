//! Ctrl-C and SIGTERM while outputs are unfinished: the temporary files (and the folders made
//! for them) are removed before the process exits, so that an interrupted command leaves no
//! partial file behind, and every older output file is untouched.
//!
//! The handler is installed when the first unfinished output is registered: a command that
//! writes nothing keeps the default behaviour of the signals.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

/// Exit status after an interruption (128 + SIGINT, as a shell reports a process it stopped).
const INTERRUPTED_STATUS: i32 = 130;

/// What is removed on an interruption.
#[derive(Default)]
pub(crate) struct Unfinished {
    /// Temporary files.
    files: Vec<PathBuf>,
    /// Folders made for the outputs (removed when empty).
    folders: Vec<PathBuf>,
}

static UNFINISHED: Mutex<Unfinished> = Mutex::new(Unfinished {
    files: Vec::new(),
    folders: Vec::new(),
});
static INSTALL: Once = Once::new();

/// The registry, locked; a panic elsewhere while it was held does not stop the cleanup.
pub(crate) fn lock() -> MutexGuard<'static, Unfinished> {
    UNFINISHED.lock().unwrap_or_else(|p| p.into_inner())
}

fn install() {
    INSTALL.call_once(|| {
        // Another handler already set (none is in this binary) only loses the cleanup.
        let _ = ctrlc::set_handler(|| {
            // Held until the exit: no output is put in place or registered after this.
            let unfinished = lock();
            for file in &unfinished.files {
                let _ = std::fs::remove_file(file);
            }
            for folder in unfinished.folders.iter().rev() {
                let _ = std::fs::remove_dir(folder);
            }
            eprintln!("\nthrong: interrupted; unfinished output files removed");
            std::process::exit(INTERRUPTED_STATUS);
        });
    });
}

/// Registers a temporary file, to be removed on an interruption (call before creating it).
pub(crate) fn register_file(file: &Path) {
    install();
    lock().files.push(file.to_path_buf());
}

/// Registers a folder made for outputs, removed (when empty) on an interruption.
pub(crate) fn register_folder(folder: &Path) {
    install();
    lock().folders.push(folder.to_path_buf());
}

impl Unfinished {
    /// Forgets a temporary file (put in place or removed).
    pub(crate) fn forget_file(&mut self, file: &Path) {
        self.files.retain(|f| f != file);
    }

    /// Forgets a folder (kept or removed).
    pub(crate) fn forget_folder(&mut self, folder: &Path) {
        self.folders.retain(|f| f != folder);
    }
}
