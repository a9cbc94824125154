//! Lines of the elements of a JSON file's top-level arrays, for errors that name the line of
//! a value that parsed but is wrong (serde gives lines only for syntax and type errors).

/// Byte offsets of the elements of the array under top-level `key` of the JSON object `text`;
/// `None` when the text is not an object, has no such key, or its value is not an array. The
/// text is assumed to be valid JSON (it has been parsed already): the scan only skips strings
/// and nested values.
pub(crate) fn element_offsets(text: &str, key: &str) -> Option<Vec<usize>> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = skip_ws(b, i);
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let end = string_end(b, i)?;
        let name = &text[i + 1..end - 1];
        i = skip_ws(b, end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1);
        if name == key {
            return (b.get(i) == Some(&b'[')).then(|| elements(b, i)).flatten();
        }
        i = skip_ws(b, value_end(b, i)?);
        match b.get(i) {
            Some(b',') => i += 1,
            _ => return None,
        }
    }
}

/// The 1-based line of byte `offset` of `text`.
pub(crate) fn line_at(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&c| c == b'\n')
        .count()
}

/// The line of element `index` of the top-level array `key`, or of the text's start when it
/// cannot be found.
pub(crate) fn element_line(text: &str, key: &str, index: usize) -> usize {
    element_offsets(text, key)
        .and_then(|o| o.get(index).copied())
        .map_or(1, |o| line_at(text, o))
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// The offset just after the string that starts at `i` (a `"`).
fn string_end(b: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        match b.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// The offset just after the value that starts at `i`.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => string_end(b, i),
        b'[' | b'{' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match b.get(j)? {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while b
                .get(j)
                .is_some_and(|c| !matches!(c, b',' | b']' | b'}') && !c.is_ascii_whitespace())
            {
                j += 1;
            }
            Some(j)
        }
    }
}

/// Offsets of the elements of the array that starts at `i` (a `[`).
fn elements(b: &[u8], i: usize) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    let mut j = skip_ws(b, i + 1);
    if b.get(j) == Some(&b']') {
        return Some(out);
    }
    loop {
        out.push(j);
        j = skip_ws(b, value_end(b, j)?);
        match b.get(j)? {
            b',' => j = skip_ws(b, j + 1),
            b']' => return Some(out),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_lines_of_array_elements() {
        let text = "{\n \"a\": {\"x\": [1, \"]\\\"\"]},\n \"b\": \"[\",\n \"paths\": [\n  \"F,W\",\n  [1, [2]],\n  3\n ]\n}";
        let offsets = element_offsets(text, "paths").unwrap();
        assert_eq!(offsets.len(), 3);
        assert_eq!(&text[offsets[0]..offsets[0] + 5], "\"F,W\"");
        assert_eq!(element_line(text, "paths", 1), 6);
        assert_eq!(element_line(text, "paths", 2), 7);
        assert_eq!(element_offsets(text, "b"), None, "not an array");
        assert_eq!(element_offsets(text, "x"), None, "not at the top level");
        assert_eq!(element_offsets("{\"e\": []}", "e"), Some(vec![]));
        assert_eq!(element_line(text, "nothing", 0), 1);
    }
}
