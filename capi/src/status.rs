//! Status codes, the thread-local message of the last failure, and the guard every entry point
//! runs its body in: a panic is caught there and becomes [`ThrongStatus::Panic`], so none
//! crosses the boundary.

use std::cell::RefCell;
use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What a call did. `THRONG_STATUS_OK` (0) is success; any other value is a failure whose
/// message [`throng_last_error`] returns on the same thread.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThrongStatus {
    /// Success.
    Ok = 0,
    /// A pointer argument that must not be NULL was NULL (or was misaligned).
    NullPointer = 1,
    /// A handle that is not a live handle of the expected kind: freed already, never made by
    /// this library, or a handle of another kind (detection is best effort: see the header).
    InvalidHandle = 2,
    /// A caller-owned buffer is too small; the call wrote how much is needed where it says.
    BufferTooSmall = 3,
    /// A cell, coordinate or index outside the grid or the array.
    OutOfRange = 4,
    /// An argument that is wrong for another reason (blocked start, unknown planner name, bad
    /// JSON, ...): the message says which and why.
    InvalidArgument = 5,
    /// A file could not be read or written.
    Io = 6,
    /// A file was read but is malformed (the message names the file and line).
    Parse = 7,
    /// An agent id that names no live agent (removed, or never added).
    UnknownAgent = 8,
    /// A cell holds an agent and cannot be blocked, or another agent cannot be put there.
    CellOccupied = 9,
    /// The engine panicked (a bug in throng): the handle used is unusable from now on.
    Panic = 10,
    /// The caller was built against another version of the ABI (`throng_check_abi`): its
    /// header does not describe this library.
    AbiMismatch = 11,
    /// A step begun by `throng_sim_step_begin` is in flight: only the calls it lists are
    /// answered until `throng_sim_step_finish`.
    Busy = 12,
}

/// A failure on its way to C: the status and the message.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: ThrongStatus,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(status: ThrongStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }

    /// An argument that is wrong, in words.
    pub(crate) fn invalid(message: impl Into<String>) -> Failure {
        Failure::new(ThrongStatus::InvalidArgument, message)
    }

    /// The same failure with `context` before its message (`"starts[3]: ..."`).
    pub(crate) fn context(mut self, context: impl std::fmt::Display) -> Failure {
        self.message = format!("{context}: {}", self.message);
        self
    }
}

impl From<throng::error::Error> for Failure {
    fn from(err: throng::error::Error) -> Failure {
        use throng::error::Error;
        use throng::search::QueryError;
        let status = match &err {
            Error::Io { .. } => ThrongStatus::Io,
            Error::Parse(_) => ThrongStatus::Parse,
            Error::InvalidQuery(
                QueryError::CellOutOfBounds { .. } | QueryError::OutOfBounds { .. },
            ) => ThrongStatus::OutOfRange,
            Error::UnknownAgent(_) => ThrongStatus::UnknownAgent,
            Error::CellOccupied { .. } => ThrongStatus::CellOccupied,
            Error::NavFile(throng::nav::NavFileError::Io { .. }) => ThrongStatus::Io,
            // Not a navigation file, another version, another map, damaged.
            Error::NavFile(_) => ThrongStatus::Parse,
            // A snapshot of a map of another size: the caller's argument.
            Error::Snapshot(throng::sim::SnapshotError::OtherMap { .. }) => {
                ThrongStatus::InvalidArgument
            }
            // Not a snapshot, another version, truncated, damaged.
            Error::Snapshot(_) => ThrongStatus::Parse,
            _ => ThrongStatus::InvalidArgument,
        };
        Failure::new(status, err.to_string())
    }
}

impl From<throng::sim::SnapshotError> for Failure {
    fn from(err: throng::sim::SnapshotError) -> Failure {
        throng::error::Error::from(err).into()
    }
}

impl From<throng::nav::NavFileError> for Failure {
    fn from(err: throng::nav::NavFileError) -> Failure {
        throng::error::Error::from(err).into()
    }
}

thread_local! {
    /// The message of the last call on this thread (empty after a success).
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    // A message with a NUL inside would end early in C: NULs become spaces.
    let text = CString::new(message.replace('\0', " ")).expect("no NUL left");
    LAST_ERROR.with(|m| *m.borrow_mut() = text);
}

/// Runs an entry point's body: a panic is caught (never unwinds into C), the outcome is
/// recorded as this thread's last error and returned as a status.
pub(crate) fn guard(body: impl FnOnce() -> Result<(), Failure>) -> ThrongStatus {
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Err(Failure::new(
            ThrongStatus::Panic,
            format!("throng panicked (a bug, please report it): {what}"),
        ))
    });
    match outcome {
        Ok(()) => {
            LAST_ERROR.with(|m| {
                let mut m = m.borrow_mut();
                if !m.as_bytes().is_empty() {
                    *m = CString::default();
                }
            });
            ThrongStatus::Ok
        }
        Err(failure) => {
            set_last_error(&failure.message);
            failure.status
        }
    }
}

/// The message of the last call made on the calling thread: one line saying what went wrong
/// and where, or the empty string when that call succeeded. The text (UTF-8, NUL-terminated)
/// belongs to the library and stays valid until the next `throng_` call on this thread: copy it
/// to keep it. Never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn throng_last_error() -> *const c_char {
    LAST_ERROR.with(|m| m.borrow().as_ptr())
}

/// The name of a status (`"THRONG_STATUS_OK"`, ...), a static NUL-terminated string; an
/// unknown value gives `"unknown status"`. Never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn throng_status_name(status: i32) -> *const c_char {
    let name: &'static std::ffi::CStr = match status {
        0 => c"THRONG_STATUS_OK",
        1 => c"THRONG_STATUS_NULL_POINTER",
        2 => c"THRONG_STATUS_INVALID_HANDLE",
        3 => c"THRONG_STATUS_BUFFER_TOO_SMALL",
        4 => c"THRONG_STATUS_OUT_OF_RANGE",
        5 => c"THRONG_STATUS_INVALID_ARGUMENT",
        6 => c"THRONG_STATUS_IO",
        7 => c"THRONG_STATUS_PARSE",
        8 => c"THRONG_STATUS_UNKNOWN_AGENT",
        9 => c"THRONG_STATUS_CELL_OCCUPIED",
        10 => c"THRONG_STATUS_PANIC",
        11 => c"THRONG_STATUS_ABI_MISMATCH",
        12 => c"THRONG_STATUS_BUSY",
        _ => c"unknown status",
    };
    name.as_ptr()
}
