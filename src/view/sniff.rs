//! What a file given to `throng view` is, from its first bytes: one of the three kinds it
//! replays, or, for a clear refusal, what else it looks like (a map, a scenario, a problem).

use super::replay::ReplayKind;
use crate::file_kind::FileKind;
use crate::trace::format::MAGIC;

/// How many bytes are looked at.
const HEAD: usize = 64 * 1024;

/// The kind of `bytes`, or what the file is instead, in words ("a Moving AI map").
///
/// # Errors
/// What the file looks like when it is none of the three.
pub fn sniff(bytes: &[u8]) -> Result<ReplayKind, &'static str> {
    // The start of a trace cut short: its reader then says where it ends.
    if !bytes.is_empty() && MAGIC.starts_with(bytes) {
        return Ok(ReplayKind::Trace);
    }
    match FileKind::of_bytes(bytes) {
        Some(FileKind::Trace) => Ok(ReplayKind::Trace),
        Some(FileKind::MapfPlan) => Ok(ReplayKind::MapfPlan),
        Some(FileKind::LorrOutput) => Ok(ReplayKind::LorrOutput),
        Some(other) => Err(other.describe()),
        None => Err(unknown(bytes)),
    }
}

/// What a file of no kind [`FileKind`] knows looks like, in words.
fn unknown(bytes: &[u8]) -> &'static str {
    let head = &bytes[..bytes.len().min(HEAD)];
    if head.iter().all(u8::is_ascii_whitespace) {
        return "empty";
    }
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        // Cut inside a character at the end of the head: the start is text.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return "binary data",
    };
    if text.contains('\0') {
        "binary data"
    } else if text.trim_start().starts_with('{') {
        "a JSON file"
    } else {
        "a text file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_kinds_are_told() {
        assert_eq!(sniff(b"THRTRACE\x01\x00\x00\x00"), Ok(ReplayKind::Trace));
        assert_eq!(
            sniff(b"agents=1\nsolution=\n0:(0,0),\n"),
            Ok(ReplayKind::MapfPlan)
        );
        assert_eq!(
            sniff(b"{\"actionModel\": \"MAPF_T\", \"actualPaths\": []}"),
            Ok(ReplayKind::LorrOutput)
        );
        assert_eq!(
            sniff(b"type octile\nheight 1\nwidth 1\nmap\n.\n"),
            Err("a Moving AI map")
        );
    }

    #[test]
    fn other_files_are_named() {
        assert_eq!(sniff(b"THRT"), Ok(ReplayKind::Trace), "a trace cut short");
        assert_eq!(sniff(b""), Err("empty"));
        assert_eq!(sniff(b"THRONGNV\x01"), Err("a navigation-points file"));
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0"), Err("binary data"));
        assert_eq!(
            sniff(b"version 1\n0\tm.map\t1\t1\t0\t0\t0\t0\t0\n"),
            Err("a Moving AI .scen file")
        );
        assert_eq!(
            sniff(b" {\"mapFile\": \"m.map\", \"teamSize\": 1}"),
            Err("a League of Robot Runners problem")
        );
        assert_eq!(sniff(b"{\"a\": 1}"), Err("a JSON file"));
        assert_eq!(
            sniff(b"# x\n[map]\nfile = \"a.map\"\n"),
            Err("a simulation scenario (TOML)")
        );
        assert_eq!(sniff(b"hello\n"), Err("a text file"));
        // LaCAM's own result files start with other keys; the solution line tells.
        assert_eq!(sniff(b"seed=0\nsolution=\n"), Ok(ReplayKind::MapfPlan));
    }
}
