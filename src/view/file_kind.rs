//! What a file given to `throng view` is, from its first bytes: one of the three kinds it
//! replays, or, for a clear refusal, what else it looks like (a map, a scenario, a problem).

use super::replay::ReplayKind;
use crate::trace::format::MAGIC;

/// How many bytes are looked at.
const HEAD: usize = 64 * 1024;

/// The kind of `bytes`, or what the file is instead, in words ("a Moving AI map").
///
/// ```
/// use throng::view::{ReplayKind, sniff};
///
/// assert_eq!(sniff(b"THRTRACE\x01\x00\x00\x00"), Ok(ReplayKind::Trace));
/// assert_eq!(sniff(b"agents=1\nsolution=\n0:(0,0),\n"), Ok(ReplayKind::MapfPlan));
/// assert_eq!(sniff(b"{\"actionModel\": \"MAPF_T\", \"actualPaths\": []}"), Ok(ReplayKind::LorrOutput));
/// assert_eq!(sniff(b"type octile\nheight 1\nwidth 1\nmap\n.\n"), Err("a Moving AI map"));
/// ```
///
/// # Errors
/// What the file looks like when it is none of the three.
pub fn sniff(bytes: &[u8]) -> Result<ReplayKind, &'static str> {
    // A trace, or the start of one cut short (the reader then says where it ends).
    if bytes.starts_with(&MAGIC) || (!bytes.is_empty() && MAGIC.starts_with(bytes)) {
        return Ok(ReplayKind::Trace);
    }
    if bytes.starts_with(b"THRONGNV") {
        return Err("a navigation file of throng nav");
    }
    let head = &bytes[..bytes.len().min(HEAD)];
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    if head.iter().all(u8::is_ascii_whitespace) {
        return Err("empty");
    }
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        // Cut inside a character at the end of the head: the start is text.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return Err("binary data"),
    };
    if text.contains('\0') {
        return Err("binary data");
    }
    let text = text.trim_start();
    if text.starts_with('{') {
        return if text.contains("\"actualPaths\"") || text.contains("\"actionModel\"") {
            Ok(ReplayKind::LorrOutput)
        } else if text.contains("\"mapFile\"") {
            Err("a LoRR problem")
        } else {
            Err("a JSON file")
        };
    }
    let first = text.lines().next().unwrap_or("").trim();
    if first.starts_with("type ") {
        return Err("a Moving AI map");
    }
    if first.starts_with("version") {
        return Err("a Moving AI scenario");
    }
    let plan_key = |l: &str| {
        l.split_once('=').is_some_and(|(k, _)| {
            matches!(
                k.trim(),
                "solution" | "agents" | "map_file" | "solver" | "starts" | "goals"
            )
        })
    };
    if text
        .lines()
        .any(|l| l.trim_start().starts_with("solution="))
        || plan_key(first)
    {
        return Ok(ReplayKind::MapfPlan);
    }
    if text.lines().any(|l| l.trim_start().starts_with('[')) {
        return Err("a TOML file (a throng run scenario?)");
    }
    Err("a text file")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_files_are_named() {
        assert_eq!(sniff(b"THRT"), Ok(ReplayKind::Trace), "a trace cut short");
        assert_eq!(sniff(b""), Err("empty"));
        assert_eq!(
            sniff(b"THRONGNV\x01"),
            Err("a navigation file of throng nav")
        );
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0"), Err("binary data"));
        assert_eq!(
            sniff(b"version 1\n0\tm.map\t1\t1\t0\t0\t0\t0\t0\n"),
            Err("a Moving AI scenario")
        );
        assert_eq!(
            sniff(b" {\"mapFile\": \"m.map\", \"teamSize\": 1}"),
            Err("a LoRR problem")
        );
        assert_eq!(sniff(b"{\"a\": 1}"), Err("a JSON file"));
        assert_eq!(
            sniff(b"# x\n[sim]\nagents = 3\n"),
            Err("a TOML file (a throng run scenario?)")
        );
        assert_eq!(sniff(b"hello\n"), Err("a text file"));
        // LaCAM's own result files start with other keys; the solution line tells.
        assert_eq!(sniff(b"seed=0\nsolution=\n"), Ok(ReplayKind::MapfPlan));
    }
}
