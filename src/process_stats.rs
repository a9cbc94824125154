//! What this process has used so far, read from Linux's `/proc/self`: processor time (to
//! tell how many cores a run kept busy: processor time over wall time) and peak resident
//! memory. `None` where those files are not there (other systems).

/// Ticks of `/proc/self/stat`'s times per second (Linux's `USER_HZ`: 100 on x86-64 and
/// ARM64).
const CPU_TICKS_PER_SECOND: f64 = 100.0;

/// The process's user and system processor time so far, seconds (10 ms steps).
pub fn cpu_seconds() -> Option<f64> {
    let ticks = cpu_ticks_of(&std::fs::read_to_string("/proc/self/stat").ok()?)?;
    Some(ticks as f64 / CPU_TICKS_PER_SECOND)
}

/// User plus system ticks of a `/proc/PID/stat` line.
fn cpu_ticks_of(stat: &str) -> Option<u64> {
    // The fields after the command name (in parentheses, which may hold spaces): state is
    // the first, utime the 12th, stime the 13th.
    let mut fields = stat
        .get(stat.rfind(')')? + 1..)?
        .split_whitespace()
        .skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}

/// The process's peak resident memory in mebibytes (`VmHWM` of `/proc/self/status`).
pub fn peak_memory_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Cores kept busy between two readings of [`cpu_seconds`] `wall_s` seconds apart: `None`
/// under a second of wall time (the 10 ms steps of processor time make it noise) or where
/// the times are not known.
pub fn cores_busy(cpu_before: Option<f64>, cpu_after: Option<f64>, wall_s: f64) -> Option<f64> {
    let (before, after) = (cpu_before?, cpu_after?);
    (wall_s >= 1.0).then(|| (after - before) / wall_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processor_ticks_are_user_plus_system_after_any_command_name() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
        // utime stime ...
        let line = "42 (a (b) c) R 1 42 42 0 -1 4194560 900 0 3 0 1234 56 0 0 20 0 3 0";
        assert_eq!(cpu_ticks_of(line), Some(1290));
        assert_eq!(cpu_ticks_of("42 (x) R 1 2"), None);
        assert_eq!(cpu_ticks_of("no parenthesis"), None);
        // This process's own: Linux has the files.
        if cfg!(target_os = "linux") {
            assert!(cpu_seconds().is_some());
            assert!(peak_memory_mib().is_some_and(|m| m > 0.0));
        }
    }

    #[test]
    fn cores_busy_needs_a_second_and_both_readings() {
        assert_eq!(cores_busy(Some(1.0), Some(4.0), 2.0), Some(1.5));
        assert_eq!(cores_busy(Some(1.0), Some(4.0), 0.5), None);
        assert_eq!(cores_busy(None, Some(4.0), 2.0), None);
    }
}
