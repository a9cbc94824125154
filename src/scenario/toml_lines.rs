//! Where things are in a scenario file's text: the line of a byte, of a key in a table, and the
//! dotted key at a byte, so that every error names the file, the line and the key. serde and
//! the TOML parser report byte ranges (often of a whole table); these turn them into what a
//! user looks for.

use crate::error::{Error, ParseError};

/// 1-based line of byte `offset` in `text`.
pub(super) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The line where `key` is assigned inside the byte range `within` (a table or inline table),
/// if it can be found: refines the line of errors serde reports for a whole table. `None` for
/// the empty key (`'' = ...`), which no text search can place.
pub(super) fn key_line_in(text: &str, within: std::ops::Range<usize>, key: &str) -> Option<usize> {
    if key.is_empty() {
        return None;
    }
    let start = within.start.min(text.len());
    let end = within.end.clamp(start, text.len());
    let region = text.get(start..end)?;
    let mut from = 0;
    while let Some(pos) = region[from..].find(key) {
        let at = from + pos;
        let before = region[..at].chars().next_back();
        let after = region[at + key.len()..].trim_start_matches([' ', '\t', '"', '\'']);
        let boundary = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'));
        if boundary && after.starts_with('=') {
            return Some(line_of(text, start + at));
        }
        from = at + key.len();
    }
    None
}

/// The line of `key` in table `[table]` (or written `table.key` at the top level).
pub(super) fn table_key_line(text: &str, table: &str, key: &str) -> Option<usize> {
    let mut current = String::new();
    let dotted = format!("{table}.{key}");
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') {
            current = line
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            continue;
        }
        let lhs = match line.split_once('=') {
            Some((lhs, _)) => lhs.trim().trim_matches(['"', '\'']),
            None => continue,
        };
        if (current == table && lhs == key) || (current.is_empty() && lhs == dotted) {
            return Some(i + 1);
        }
    }
    None
}

/// The dotted name of what sits at byte `offset`: `table.key` when the offset is in the value
/// of `key = ...` under `[table]`, or just the table when it is elsewhere (a key's name, a
/// table header). Empty at the top level outside any value.
fn key_path_at(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[line_start..line_end];
    let mut table = String::new();
    for l in text[..line_start].lines().chain([line]) {
        let l = l.trim();
        if l.starts_with('[') {
            table = l.trim_matches(['[', ']']).trim().to_string();
        }
    }
    let key = line
        .split_once('=')
        .filter(|(lhs, _)| line_start + lhs.len() < offset)
        .map(|(lhs, _)| lhs.trim().trim_matches(['"', '\'']).to_string())
        .filter(|k| !k.is_empty() && !k.starts_with('[') && !k.starts_with('#'));
    match (table.is_empty(), key) {
        (_, Some(k)) if table.is_empty() => k,
        (false, Some(k)) => format!("{table}.{k}"),
        _ => table,
    }
}

pub(super) fn toml_error(file: &str, text: &str, err: &toml::de::Error) -> Error {
    let mut message = err.message().trim().replace('\n', " ");
    let Some(span) = err.span() else {
        return ParseError::whole(file, message).into();
    };
    let mut line = line_of(text, span.start);
    // serde reports unknown fields of an internally tagged table (the map generator) at the
    // whole table: point at the key itself.
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((key, _)) = rest.split_once('`')
        && let Some(l) = key_line_in(text, span.clone(), key)
    {
        line = l;
    }
    // The parser says "duplicate key" without the key: it is the one written on that line.
    if message == "duplicate key"
        && let Some(row) = text.lines().nth(line.saturating_sub(1))
        && let Some((key, _)) = row.split_once('=')
    {
        message = format!("duplicate key `{}` (set twice)", key.trim());
    }
    // Name the key the error is about ("sim.conflicts: unknown variant ..."), unless the
    // message is about the whole file.
    let path = key_path_at(text, span.start);
    if !path.is_empty() {
        message = format!("{path}: {message}");
    }
    ParseError::at(file, line, message).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 99), 3);
        let text = "[sim]\nlifelong = true\n\n[other]\nseed = 1\n";
        assert_eq!(table_key_line(text, "sim", "lifelong"), Some(2));
        assert_eq!(table_key_line(text, "sim", "seed"), None);
        assert_eq!(table_key_line("sim.seed = 3\n", "sim", "seed"), Some(1));
        assert_eq!(key_line_in("a = 1\n[t]\nb = 2\n", 6..17, "b"), Some(3));
        // The empty key has no place to find (the search once looped on it for ever).
        assert_eq!(key_line_in("''=''", 0..5, ""), None);
    }

    #[test]
    fn an_empty_key_is_an_error_naming_the_file() {
        let err = crate::scenario::Scenario::parse("''=''", "s.toml", std::path::Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("s.toml"), "{err}");
    }
}
