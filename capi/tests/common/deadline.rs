//! Runs a test's child program (a C program under valgrind, C# under mono) with a deadline: one
//! that hangs fails its test with the output it printed so far, instead of holding CI until
//! CI's own limit.

use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

/// What a finished child printed.
pub struct Ran {
    /// How it exited.
    pub status: ExitStatus,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

/// Runs `command` to the end or for `limit_s` seconds, whichever comes first; panics, naming
/// `what` and showing its output, when it does not finish in time.
pub fn run_within(command: &mut Command, limit_s: u64, what: &str) -> Ran {
    // Outputs to files, not pipes: nothing has to read them while the child runs.
    let logs = std::env::temp_dir().join(format!(
        "throng-child-{}-{}",
        std::process::id(),
        what.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    ));
    let (out_path, err_path) = (logs.with_extension("out"), logs.with_extension("err"));
    command
        .stdout(std::fs::File::create(&out_path).expect("a log file"))
        .stderr(std::fs::File::create(&err_path).expect("a log file"));
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    let deadline = Instant::now() + Duration::from_secs(limit_s);
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child's status") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let _ = (
        std::fs::remove_file(&out_path),
        std::fs::remove_file(&err_path),
    );
    match status {
        Some(status) => Ran {
            status,
            stdout,
            stderr,
        },
        None => {
            panic!("{what} did not finish in {limit_s} s; its output so far:\n{stdout}\n{stderr}")
        }
    }
}
