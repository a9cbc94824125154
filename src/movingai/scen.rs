//! The Moving AI `.map.scen` scenario format (also used by the MAPF benchmarks).
//!
//! A `version 1` line, then one query per line, tab-separated: bucket, map file, map width, map
//! height, start x, start y, goal x, goal y, optimal length. The map column may be a bare file
//! name or a path; the map is looked up beside the scenario file by its file name.

use std::path::{Path, PathBuf};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::{Error, ParseError, Result};
use crate::grid::{CellId, Grid};
use crate::input::{Input, read_text};
use crate::search::{SearchOptions, SearchWorkspace};

/// Relative tolerance for scenario files whose lengths carry 8 decimals.
pub const TOLERANCE_PRECISE: f64 = 1e-6;
/// Relative tolerance for scenario files whose lengths carry 6 decimals or fewer.
pub const TOLERANCE_ROUNDED: f64 = 5e-3;

/// Whether `a` and `b` agree within relative tolerance `tol` (absolute near zero): how a path's
/// cost is compared with a query's optimal length, `tol` being the file's
/// [`ScenFile::tolerance`].
///
/// ```
/// use throng::movingai::within_tolerance;
///
/// assert!(within_tolerance(1000.0, 1000.0005, 1e-6));
/// assert!(!within_tolerance(1000.0, 1000.01, 1e-6));
/// assert!(within_tolerance(0.0, 0.0, 1e-6));
/// ```
pub fn within_tolerance(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

/// One query of a scenario file.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenQuery {
    /// Line of the file it came from (1-based).
    pub line: usize,
    /// Bucket (queries of similar length share one).
    pub bucket: u32,
    /// Map column, as written.
    pub map: String,
    /// Map width column.
    pub map_width: u32,
    /// Map height column.
    pub map_height: u32,
    /// Start `(x, y)`.
    pub start: (u32, u32),
    /// Goal `(x, y)`.
    pub goal: (u32, u32),
    /// Optimal path length (8-connected, octile costs, no corner cutting).
    pub optimal: f64,
}

/// A parsed scenario file.
#[derive(Debug, Clone)]
pub struct ScenFile {
    /// Where it was read from (as given).
    pub path: PathBuf,
    /// The queries, in file order.
    pub queries: Vec<ScenQuery>,
    /// Relative tolerance for comparing a path cost to `optimal`: [`TOLERANCE_PRECISE`], or
    /// [`TOLERANCE_ROUNDED`] when the file writes its lengths with 6 decimals or fewer.
    pub tolerance: f64,
}

impl ScenFile {
    /// Reads a scenario file.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be read, [`Error::Parse`] (with the line) when malformed.
    pub fn load(path: impl AsRef<Path>) -> Result<ScenFile> {
        let path = path.as_ref();
        let text = read_text(path, Input::Scen)?;
        let mut scen = parse_scen(&text, &path.display().to_string())?;
        scen.path = path.to_path_buf();
        Ok(scen)
    }

    /// The map file the queries name, looked up beside the scenario file by file name.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the file has no query or its queries name different maps.
    pub fn map_path(&self) -> Result<PathBuf> {
        let first = self.queries.first().ok_or_else(|| {
            Error::Invalid(format!(
                "{}: no query, so no map to look for (give one with --map)",
                self.path.display()
            ))
        })?;
        let name = map_file_name(&first.map);
        if let Some(q) = self.queries.iter().find(|q| map_file_name(&q.map) != name) {
            return Err(ParseError::at(
                self.path.display().to_string(),
                q.line,
                format!(
                    "names map {:?} but line {} names {:?}",
                    q.map, first.line, first.map
                ),
            )
            .into());
        }
        let dir = self.path.parent().unwrap_or(Path::new(""));
        Ok(dir.join(name))
    }

    /// Checks every query against `grid`: the size columns match and both endpoints are inside
    /// it. Returns the start and goal cells of each query.
    ///
    /// # Errors
    /// [`Error::Parse`] naming the first line that does not fit.
    pub fn resolve(&self, grid: &Grid) -> Result<Vec<(CellId, CellId)>> {
        let file = self.path.display().to_string();
        self.queries
            .iter()
            .map(|q| {
                if (q.map_width, q.map_height) != (grid.width(), grid.height()) {
                    return Err(ParseError::at(
                        &file,
                        q.line,
                        format!(
                            "query is for a {} x {} map, the map is {} x {}",
                            q.map_width,
                            q.map_height,
                            grid.width(),
                            grid.height()
                        ),
                    ));
                }
                let cell = |(x, y): (u32, u32), what: &str| {
                    grid.cell(x, y).ok_or_else(|| {
                        ParseError::at(
                            &file,
                            q.line,
                            format!("{what} ({x}, {y}) is outside the map"),
                        )
                    })
                };
                Ok((cell(q.start, "start")?, cell(q.goal, "goal")?))
            })
            .collect::<Result<_, ParseError>>()
            .map_err(Error::from)
    }
}

/// A scenario file whose queries name another map than the one they are run on, of the same
/// size: worth a warning, not an error, when the user gave both files (a copy of a map under
/// another name is fine; a `.scen` made for another map of that size runs on walls).
///
/// Displays as one line: `s.scen:2: names map "a.map", run on b.map (same size, 32 x 32)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherMapName {
    /// The scenario file.
    pub file: String,
    /// Its first line naming another map.
    pub line: usize,
    /// The map column of that line, as written.
    pub named: String,
    /// The file name of the map it is run on.
    pub given: String,
    /// `(width, height)` of both.
    pub size: (u32, u32),
}

impl std::fmt::Display for OtherMapName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: names map {:?}, run on {} (same size, {} x {}: check that the files go \
             together)",
            self.file, self.line, self.named, self.given, self.size.0, self.size.1
        )
    }
}

impl ScenFile {
    /// Checks the map columns of every query against the map the file is run on: `grid`, read
    /// from the file `map` when there is one (a generated map has none).
    ///
    /// Returns the first line naming a map whose file name is not `map`'s, when the sizes match
    /// (see [`OtherMapName`]).
    ///
    /// # Errors
    /// [`Error::Parse`] at the first line whose width and height columns are not the grid's,
    /// naming the map of that line and the map given: such a file cannot be meant for it.
    pub fn check_map(&self, map: Option<&Path>, grid: &Grid) -> Result<Option<OtherMapName>> {
        let file = self.path.display().to_string();
        let size = (grid.width(), grid.height());
        let given = map.map(|m| {
            m.file_name().map_or_else(
                || m.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        });
        if let Some(q) = self
            .queries
            .iter()
            .find(|q| (q.map_width, q.map_height) != size)
        {
            let on = given.as_deref().map_or(String::new(), |g| format!(" {g}"));
            return Err(ParseError::at(
                file,
                q.line,
                format!(
                    "query is for a {} x {} map ({:?}), but the map{on} is {} x {}",
                    q.map_width, q.map_height, q.map, size.0, size.1
                ),
            )
            .into());
        }
        let Some(given) = given else {
            return Ok(None);
        };
        Ok(self
            .queries
            .iter()
            .find(|q| map_file_name(&q.map) != given)
            .map(|q| OtherMapName {
                file,
                line: q.line,
                named: q.map.clone(),
                given,
                size,
            }))
    }
}

impl ScenFile {
    /// Makes `count` random queries on `grid` (seeded), with start and goal in its largest
    /// component and the optimal length computed by A*, bucketed like the Moving AI files
    /// (bucket = length / 4). `map` is written in the map column.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the grid has no walkable cell.
    pub fn generate(grid: &Grid, map: &str, count: usize, seed: u64) -> Result<ScenFile> {
        let largest = grid
            .components()
            .largest()
            .ok_or_else(|| Error::Invalid("the map has no walkable cell".into()))?;
        let cells = ComponentCells::new(grid, largest);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut ws = SearchWorkspace::new();
        let mut queries = Vec::with_capacity(count.min(1 << 16));
        for i in 0..count {
            let start = cells.nth(grid, rng.random_range(0..cells.len()));
            let goal = cells.nth(grid, rng.random_range(0..cells.len()));
            // JPS: the same optimal lengths as A* (A* itself on weighted or 4-connected
            // grids), touching far fewer cells of a big map.
            let optimal = ws
                .find_path_jps(grid, start, goal, &SearchOptions::default())?
                .cost()
                .expect("start and goal share a component");
            queries.push(ScenQuery {
                line: i + 2,
                bucket: (optimal / 4.0) as u32,
                map: map.to_string(),
                map_width: grid.width(),
                map_height: grid.height(),
                start: grid.coords(start),
                goal: grid.coords(goal),
                optimal,
            });
        }
        queries.sort_by(|a, b| a.optimal.total_cmp(&b.optimal));
        for (i, q) in queries.iter_mut().enumerate() {
            q.line = i + 2;
        }
        Ok(ScenFile {
            path: PathBuf::new(),
            queries,
            tolerance: TOLERANCE_PRECISE,
        })
    }

    /// The file's text in the Moving AI format (`version 1`, lengths with 8 decimals).
    pub fn to_text(&self) -> String {
        let mut out = String::from("version 1\n");
        for q in &self.queries {
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.8}\n",
                q.bucket,
                q.map,
                q.map_width,
                q.map_height,
                q.start.0,
                q.start.1,
                q.goal.0,
                q.goal.1,
                q.optimal
            ));
        }
        out
    }
}

/// Parses the text of a scenario file; `file` names it in errors.
///
/// # Errors
/// [`ParseError`] with the line of the problem.
pub fn parse_scen(text: &str, file: &str) -> Result<ScenFile, ParseError> {
    let mut queries = Vec::new();
    let mut max_decimals = 0usize;
    for (i, raw) in text.split('\n').enumerate() {
        let n = i + 1;
        let line = raw.trim_end_matches(['\r', ' ', '\t']);
        if line.trim().is_empty() {
            continue;
        }
        if queries.is_empty() && line.starts_with("version") {
            let v = line["version".len()..].trim();
            if !matches!(v, "1" | "1.0") {
                return Err(ParseError::at(
                    file,
                    n,
                    format!("scenario version {v:?} is not supported (expected 1)"),
                ));
            }
            continue;
        }
        let fields: Vec<&str> = if line.contains('\t') {
            line.split('\t').collect()
        } else {
            line.split_whitespace().collect()
        };
        if fields.len() != 9 {
            return Err(ParseError::at(
                file,
                n,
                format!(
                    "expected 9 fields (bucket, map, width, height, start x, start y, goal x, goal y, length), found {}",
                    fields.len()
                ),
            ));
        }
        let int = |idx: usize, what: &str| -> Result<u32, ParseError> {
            fields[idx].trim().parse::<u32>().map_err(|_| {
                ParseError::at(
                    file,
                    n,
                    format!("{what} {:?} is not a whole number >= 0", fields[idx]),
                )
            })
        };
        let length_text = fields[8].trim();
        let optimal = length_text
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                ParseError::at(
                    file,
                    n,
                    format!("length {length_text:?} is not a number >= 0"),
                )
            })?;
        max_decimals = max_decimals.max(length_text.split_once('.').map_or(0, |(_, d)| d.len()));
        let map = fields[1].trim();
        if map.is_empty() {
            return Err(ParseError::at(file, n, "empty map column"));
        }
        queries.push(ScenQuery {
            line: n,
            bucket: int(0, "bucket")?,
            map: map.to_string(),
            map_width: int(2, "map width")?,
            map_height: int(3, "map height")?,
            start: (int(4, "start x")?, int(5, "start y")?),
            goal: (int(6, "goal x")?, int(7, "goal y")?),
            optimal,
        });
    }
    Ok(ScenFile {
        path: PathBuf::from(file),
        queries,
        tolerance: if max_decimals <= 6 {
            TOLERANCE_ROUNDED
        } else {
            TOLERANCE_PRECISE
        },
    })
}

/// The file-name part of a map column (`maps/dao/arena.map` -> `arena.map`), accepting either
/// slash.
fn map_file_name(column: &str) -> &str {
    column.rsplit(['/', '\\']).next().unwrap_or(column)
}

/// The cells of one connected component in cell order, picked by rank without listing them
/// (the list of the 253 million cells of a 16384 x 16384 map took 1 GiB): how many of its
/// cells come before each block of [`BLOCK`](Self::BLOCK) cells, a binary search over those
/// counts, then a scan of one block. The same cell for the same rank as the list gave, so
/// generated scenario files did not change.
struct ComponentCells {
    label: u32,
    /// Per block, the component's cells in the blocks before it; one more entry: all of them.
    before: Vec<u64>,
}

impl ComponentCells {
    const BLOCK: usize = 4096;

    fn new(grid: &Grid, label: u32) -> ComponentCells {
        let n = grid.len();
        let mut before = Vec::with_capacity(n.div_ceil(Self::BLOCK) + 1);
        let mut total = 0u64;
        for start in (0..n).step_by(Self::BLOCK) {
            before.push(total);
            let end = (start + Self::BLOCK).min(n);
            total += (start..end)
                .filter(|&c| grid.components().of(c as CellId) == Some(label))
                .count() as u64;
        }
        before.push(total);
        ComponentCells { label, before }
    }

    fn len(&self) -> usize {
        *self.before.last().expect("a closing count") as usize
    }

    /// The `k`-th cell of the component (`k < len()`), in cell order.
    fn nth(&self, grid: &Grid, k: usize) -> CellId {
        let k = k as u64;
        let block = self.before.partition_point(|&v| v <= k) - 1;
        let mut left = k - self.before[block];
        let start = block * Self::BLOCK;
        for c in start..(start + Self::BLOCK).min(grid.len()) {
            if grid.components().of(c as CellId) == Some(self.label) {
                if left == 0 {
                    return c as CellId;
                }
                left -= 1;
            }
        }
        unreachable!("rank {k} is below the component's size")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Picking by rank gives the cell a full list of the component's cells gives, on a map
    /// of several components spread over many blocks.
    #[test]
    fn component_cells_by_rank_match_the_list() {
        let grid = crate::grid::procgen::MapGenerator::Random {
            width: 300,
            height: 200,
            density: 0.35,
        }
        .generate(5)
        .unwrap();
        assert!(grid.components().count() > 10, "several components");
        for label in [grid.components().largest().unwrap(), 3] {
            let list: Vec<CellId> = (0..grid.len() as CellId)
                .filter(|&c| grid.components().of(c) == Some(label))
                .collect();
            let cells = ComponentCells::new(&grid, label);
            assert_eq!(cells.len(), list.len());
            for (k, &c) in list.iter().enumerate() {
                assert_eq!(cells.nth(&grid, k), c, "rank {k}");
            }
        }
    }

    #[test]
    fn parses_queries_paths_and_tolerance() {
        let text = "version 1\r\n0\tmaps/dao/arena.map\t49\t49\t1\t2\t3\t4\t2.41421356\r\n\
                    1\tarena.map\t49\t49\t5\t5\t5\t5\t0.00000000";
        let s = parse_scen(text, "dir/arena.map.scen").unwrap();
        assert_eq!(s.queries.len(), 2);
        assert_eq!(s.queries[0].start, (1, 2));
        assert_eq!(s.queries[0].goal, (3, 4));
        assert_eq!(s.queries[1].line, 3);
        assert_eq!(s.tolerance, TOLERANCE_PRECISE);
        assert_eq!(s.map_path().unwrap(), PathBuf::from("dir/arena.map"));
        let rounded = parse_scen("version 1\n0\ta.map\t4\t4\t0\t0\t1\t1\t1.41421\n", "a").unwrap();
        assert_eq!(rounded.tolerance, TOLERANCE_ROUNDED);
    }

    #[test]
    fn generated_files_round_trip() {
        let grid = Grid::from_ascii("....\n.##.\n....\n#..#").unwrap();
        let scen = ScenFile::generate(&grid, "g.map", 30, 4).unwrap();
        let back = parse_scen(&scen.to_text(), "g.map.scen").unwrap();
        assert_eq!(back.queries.len(), 30);
        for (a, b) in scen.queries.iter().zip(&back.queries) {
            assert_eq!((a.start, a.goal, a.line), (b.start, b.goal, b.line));
            assert!((a.optimal - b.optimal).abs() < 1e-8);
        }
        assert!(
            back.queries
                .windows(2)
                .all(|w| w[0].optimal <= w[1].optimal)
        );
        assert_eq!(back.resolve(&grid).unwrap().len(), 30);
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("version 2\n", "s:1: scenario version \"2\""),
            (
                "version 1\n0\ta.map\t4\t4\t0\t0\t1\n",
                "s:2: expected 9 fields",
            ),
            (
                "version 1\n0\ta.map\t4\t4\t0\t-1\t1\t1\t1.0\n",
                "s:2: start y \"-1\"",
            ),
            (
                "version 1\n\n0\ta.map\t4\t4\t0\t0\t1\t1\tabc\n",
                "s:3: length \"abc\"",
            ),
        ];
        for (text, want) in cases {
            let err = parse_scen(text, "s").unwrap_err().to_string();
            assert!(err.starts_with(want), "{text:?}: got {err:?}");
        }
    }

    #[test]
    fn check_map_refuses_another_size_and_reports_another_name() {
        let grid = Grid::new(4, 4).unwrap();
        let scen = parse_scen(
            "version 1\n0\tdir/a.map\t4\t4\t0\t0\t3\t3\t1\n0\ta.map\t4\t4\t0\t0\t1\t1\t1\n",
            "s",
        )
        .unwrap();
        assert_eq!(
            scen.check_map(Some(Path::new("x/a.map")), &grid).unwrap(),
            None
        );
        assert_eq!(scen.check_map(None, &grid).unwrap(), None);
        let other = scen
            .check_map(Some(Path::new("x/b.map")), &grid)
            .unwrap()
            .unwrap();
        assert_eq!(
            other.to_string(),
            "s:2: names map \"dir/a.map\", run on b.map (same size, 4 x 4: check that the files \
             go together)"
        );
        let big = Grid::new(5, 4).unwrap();
        assert_eq!(
            scen.check_map(Some(Path::new("b.map")), &big)
                .unwrap_err()
                .to_string(),
            "s:2: query is for a 4 x 4 map (\"dir/a.map\"), but the map b.map is 5 x 4"
        );
        assert!(
            scen.check_map(None, &big)
                .unwrap_err()
                .to_string()
                .ends_with("but the map is 5 x 4")
        );
    }

    #[test]
    fn resolve_checks_size_and_bounds() {
        let grid = Grid::new(4, 4).unwrap();
        let ok = parse_scen("0\ta.map\t4\t4\t0\t0\t3\t3\t4.24264069\n", "s").unwrap();
        assert_eq!(ok.resolve(&grid).unwrap(), vec![(0, 15)]);
        let wrong_size = parse_scen("0\ta.map\t5\t4\t0\t0\t3\t3\t1\n", "s").unwrap();
        assert!(
            wrong_size
                .resolve(&grid)
                .unwrap_err()
                .to_string()
                .starts_with("s:1: query is for a 5 x 4")
        );
        let outside = parse_scen("0\ta.map\t4\t4\t0\t0\t4\t3\t1\n", "s").unwrap();
        assert_eq!(
            outside.resolve(&grid).unwrap_err().to_string(),
            "s:1: goal (4, 3) is outside the map"
        );
        let mixed = parse_scen(
            "0\ta.map\t4\t4\t0\t0\t1\t1\t1\n0\tb.map\t4\t4\t0\t0\t1\t1\t1\n",
            "s",
        )
        .unwrap();
        assert!(
            mixed
                .map_path()
                .unwrap_err()
                .to_string()
                .starts_with("s:2: names map \"b.map\"")
        );
    }
}
