//! The Moving AI `.map` format.
//!
//! ```text
//! type octile
//! height 3
//! width 4
//! map
//! ....
//! .@@.
//! ....
//! ```
//!
//! Terrain letters: `.` and `G` ground, `E` (a League of Robot Runners emitter) ground, `S`
//! swamp (walkable), `@` and `O` out of bounds, `T`
//! trees, `W` water (all blocked by default, as in the Moving AI benchmarks). [`MapOptions`] can
//! give swamp a cost and make water walkable at a cost. CRLF line ends, trailing whitespace, a
//! missing final newline and blank lines after the last row are accepted.

use std::path::Path;

use crate::error::{ParseError, Result};
use crate::grid::{Grid, Neighborhood};
use crate::input::{Input, read_text};

/// How terrain letters become cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapOptions {
    /// Movement rule of the loaded grid. Default: [`Neighborhood::Eight`].
    pub neighborhood: Neighborhood,
    /// Cost multiplier of swamp (`S`) cells. Default: 1, as the benchmarks count it.
    pub swamp_cost: f32,
    /// `Some(cost)` makes water (`W`) walkable at that cost. Default: `None`, blocked.
    pub water_cost: Option<f32>,
}

impl Default for MapOptions {
    fn default() -> Self {
        MapOptions {
            neighborhood: Neighborhood::Eight,
            swamp_cost: 1.0,
            water_cost: None,
        }
    }
}

/// Reads a `.map` file with the default options.
///
/// # Errors
/// [`crate::error::Error::Io`] when the file cannot be read, [`crate::error::Error::Parse`] (with the line)
/// when it is malformed.
pub fn load_map(path: impl AsRef<Path>) -> Result<Grid> {
    load_map_with(path, &MapOptions::default())
}

/// Reads a `.map` file.
///
/// # Errors
/// As [`load_map`].
pub fn load_map_with(path: impl AsRef<Path>, options: &MapOptions) -> Result<Grid> {
    let path = path.as_ref();
    let text = read_text(path, Input::Map)?;
    Ok(parse_map(&text, &path.display().to_string(), options)?)
}

/// Parses the text of a `.map` file; `file` names it in errors.
///
/// ```
/// use throng::movingai::{parse_map, MapOptions};
///
/// let grid = parse_map("type octile\nheight 2\nwidth 3\nmap\n..@\n...\n", "tiny.map",
///                      &MapOptions::default())?;
/// assert_eq!(grid.walkable_count(), 5);
/// let err = parse_map("type octile\nheight 2\nwidth 3\nmap\n..@\n.x.\n", "bad.map",
///                     &MapOptions::default()).unwrap_err();
/// assert_eq!(err.to_string(), "bad.map:6: unknown terrain character 'x' in column 2");
/// # Ok::<(), throng::error::Error>(())
/// ```
///
/// # Errors
/// [`ParseError`] with the line of the problem.
pub fn parse_map(text: &str, file: &str, options: &MapOptions) -> Result<Grid, ParseError> {
    let mut all: Vec<&str> = text
        .split('\n')
        .map(|l| l.trim_end_matches(['\r', ' ', '\t']))
        .collect();
    // Blank lines at the end are not rows (a final newline, or several).
    while all.last().is_some_and(|l| l.is_empty()) {
        all.pop();
    }
    let total_lines = all.len();
    let mut lines = all.into_iter().enumerate().map(|(i, l)| (i + 1, l));

    let (mut width, mut height, mut kind) = (None, None, None);
    let mut seen: Vec<(&str, usize)> = Vec::with_capacity(3);
    let mut header_done = false;
    for (n, line) in lines.by_ref() {
        if line.trim().is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let key = words.next().unwrap_or_default();
        let value = words.next();
        if words.next().is_some() {
            return Err(ParseError::at(
                file,
                n,
                format!("unexpected text in header line {line:?}"),
            ));
        }
        // A header line given twice is refused: which one the file meant cannot be known.
        if let Some(first) = seen.iter().find(|(k, _)| *k == key).map(|&(_, n)| n) {
            return Err(ParseError::at(
                file,
                n,
                format!("second {key:?} line (the first is line {first})"),
            ));
        }
        if matches!(key, "type" | "height" | "width") {
            seen.push((key, n));
        }
        match (key, value) {
            ("map", None) => {
                header_done = true;
                break;
            }
            ("type", Some(v)) => kind = Some(v.to_string()),
            ("height", Some(v)) => height = Some(parse_dim(file, n, "height", v)?),
            ("width", Some(v)) => width = Some(parse_dim(file, n, "width", v)?),
            ("type" | "height" | "width", None) => {
                return Err(ParseError::at(file, n, format!("{key:?} needs a value")));
            }
            _ => {
                return Err(ParseError::at(
                    file,
                    n,
                    format!("unexpected header line {line:?} (expected type, height, width, map)"),
                ));
            }
        }
    }
    if !header_done {
        return Err(ParseError::whole(
            file,
            "no \"map\" line: not a Moving AI map (expected type, height, width, map header)",
        ));
    }
    if let Some(k) = &kind
        && k != "octile"
    {
        return Err(ParseError::whole(
            file,
            format!("map type {k:?} is not supported (only \"octile\")"),
        ));
    }
    let width = width.ok_or_else(|| ParseError::whole(file, "header has no width"))?;
    let height = height.ok_or_else(|| ParseError::whole(file, "header has no height"))?;

    let cells = u64::from(width) * u64::from(height);
    if cells > crate::grid::MAX_CELLS {
        return Err(ParseError::whole(
            file,
            format!(
                "{width} x {height} is {cells} cells, more than the {} supported",
                crate::grid::MAX_CELLS
            ),
        ));
    }
    // Sized by what the file holds, not by what its header claims.
    let mut walkable = Vec::with_capacity((cells as usize).min(text.len()));
    let mut costs: Option<Vec<f32>> = None;
    let mut rows = 0u32;
    for (n, line) in lines.by_ref() {
        if rows == height {
            return Err(ParseError::at(
                file,
                n,
                format!("more than the {height} rows the header announces"),
            ));
        }
        // Every terrain letter is ASCII: name the first other character (counting bytes as
        // cells would report a width the row does not have).
        if let Some((col, c)) = line.chars().enumerate().find(|(_, c)| !c.is_ascii()) {
            return Err(ParseError::at(
                file,
                n,
                format!("unknown terrain character {c:?} in column {}", col + 1),
            ));
        }
        if line.len() != width as usize {
            return Err(ParseError::at(
                file,
                n,
                format!(
                    "row {rows} has {} cells, expected width {width}",
                    line.len()
                ),
            ));
        }
        for (col, c) in line.chars().enumerate() {
            let (walk, cost) = match c {
                '.' | 'G' | 'E' => (true, 1.0),
                'S' => (true, options.swamp_cost),
                'W' => match options.water_cost {
                    Some(cost) => (true, cost),
                    None => (false, 1.0),
                },
                '@' | 'O' | 'T' => (false, 1.0),
                _ => {
                    return Err(ParseError::at(
                        file,
                        n,
                        format!("unknown terrain character {c:?} in column {}", col + 1),
                    ));
                }
            };
            if cost != 1.0 && costs.is_none() {
                costs = Some(vec![1.0; walkable.len()]);
            }
            walkable.push(walk);
            if let Some(costs) = &mut costs {
                costs.push(cost);
            }
        }
        rows += 1;
    }
    if rows < height {
        return Err(ParseError::at(
            file,
            total_lines.max(1),
            format!("file ends after {rows} rows, header announces {height}"),
        ));
    }
    let to_parse_error = |e: crate::error::Error| ParseError::whole(file, e.to_string());
    let grid = Grid::from_walkable(width, height, walkable)
        .map_err(to_parse_error)?
        .with_neighborhood(options.neighborhood);
    match costs {
        Some(c) => grid.with_costs(c).map_err(to_parse_error),
        None => Ok(grid),
    }
}

/// Writes `grid` in the `.map` format (`.` walkable, `@` blocked; costs are not kept).
pub fn write_map(grid: &Grid) -> String {
    let mut out = Vec::with_capacity(64 + grid.len() + grid.height() as usize);
    write_map_to(grid, &mut out).expect("writing to memory cannot fail");
    String::from_utf8(out).expect("the map text is ASCII")
}

/// Writes `grid` in the Moving AI `.map` format to `w`, a row at a time (the text of a
/// 16384 x 16384 map is 256 MiB: [`write_map`] holds all of it, this holds one row).
///
/// # Errors
/// Those of `w`.
pub fn write_map_to(grid: &Grid, w: &mut impl std::io::Write) -> std::io::Result<()> {
    write!(
        w,
        "type octile\nheight {}\nwidth {}\nmap\n",
        grid.height(),
        grid.width()
    )?;
    let mut row = Vec::with_capacity(grid.width() as usize + 1);
    for y in 0..grid.height() {
        row.clear();
        row.extend((0..grid.width()).map(|x| {
            if grid.is_walkable(y * grid.width() + x) {
                b'.'
            } else {
                b'@'
            }
        }));
        row.push(b'\n');
        w.write_all(&row)?;
    }
    Ok(())
}

fn parse_dim(file: &str, line: usize, key: &str, value: &str) -> Result<u32, ParseError> {
    match value.parse::<u32>() {
        Ok(v) if v > 0 => Ok(v),
        _ => Err(ParseError::at(
            file,
            line,
            format!("{key} {value:?} is not a positive whole number"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Grid, ParseError> {
        parse_map(text, "t.map", &MapOptions::default())
    }

    #[test]
    fn a_header_line_given_twice_is_refused() {
        let err = parse("type octile\nheight 1\nwidth 2\nwidth 3\nmap\n..\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.map:4: second \"width\" line (the first is line 3)"
        );
        let err = parse("type octile\nheight 1\nheight 1\nwidth 2\nmap\n..\n").unwrap_err();
        assert_eq!(err.line, Some(3));
        let err = parse("type octile\ntype octile\nheight 1\nwidth 2\nmap\n..\n").unwrap_err();
        assert_eq!(err.line, Some(2));
    }

    #[test]
    fn crlf_and_missing_final_newline() {
        let g = parse("type octile\r\nheight 2\r\nwidth 2\r\nmap\r\n.@\r\nT.").unwrap();
        assert_eq!((g.width(), g.height()), (2, 2));
        assert_eq!(g.walkable_count(), 2);
    }

    #[test]
    fn all_terrain_letters() {
        let g = parse("type octile\nheight 1\nwidth 7\nmap\n.GS@OTW\n").unwrap();
        let walk: Vec<bool> = (0..7).map(|c| g.is_walkable(c)).collect();
        assert_eq!(walk, [true, true, true, false, false, false, false]);
        assert!(!g.is_weighted());
        let opts = MapOptions {
            swamp_cost: 3.0,
            water_cost: Some(5.0),
            ..MapOptions::default()
        };
        let g = parse_map("type octile\nheight 1\nwidth 7\nmap\n.GS@OTW\n", "t", &opts).unwrap();
        assert!(g.is_walkable(6));
        assert_eq!((g.cost(0), g.cost(2), g.cost(6)), (1.0, 3.0, 5.0));
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("", "t.map: no \"map\" line"),
            (
                "type octile\nheight x\nwidth 2\nmap\n",
                "t.map:2: height \"x\"",
            ),
            (
                "type octile\nheight 2\nwidth 2\nmap\n..\n...\n",
                "t.map:6: row 1 has 3 cells",
            ),
            (
                "type octile\nheight 2\nwidth 2\nmap\n..\n",
                "t.map:5: file ends after 1 rows",
            ),
            // One non-ASCII character takes 2 bytes: named as itself, not as a width error.
            (
                "type octile\nheight 1\nwidth 2\nmap\n\u{e9}.\n",
                "t.map:5: unknown terrain character '\u{e9}' in column 1",
            ),
            (
                "type octile\nheight 1\nwidth 2\nmap\n..\n..\n",
                "t.map:6: more than the 1 rows",
            ),
            (
                "type octile\nwidth 2\nmap\n..\n",
                "t.map: header has no height",
            ),
            (
                "type octile\nheight 1\nwidth 2\ncolor red\nmap\n..\n",
                "t.map:4: unexpected header",
            ),
            (
                "type hex\nheight 1\nwidth 2\nmap\n..\n",
                "t.map: map type \"hex\"",
            ),
            (
                "type octile\nheight 1\nwidth 2\nmap\n.?\n",
                "t.map:5: unknown terrain character '?' in column 2",
            ),
            // A header that announces a huge map is refused before anything is allocated.
            (
                "type octile\nheight 60000\nwidth 60000\nmap\n..\n",
                "t.map: 60000 x 60000 is 3600000000 cells, more than",
            ),
        ];
        for (text, want) in cases {
            let err = parse(text).unwrap_err().to_string();
            assert!(
                err.starts_with(want),
                "{text:?}: got {err:?}, want {want:?}"
            );
        }
    }

    #[test]
    fn write_then_parse_round_trips() {
        let g = Grid::from_ascii("..#\n#..\n...").unwrap();
        let back = parse(&write_map(&g)).unwrap();
        assert_eq!(back.width(), 3);
        for c in 0..9 {
            assert_eq!(back.is_walkable(c), g.is_walkable(c));
        }
    }
}
