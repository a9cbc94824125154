//! Saving a prepared graph to a file and loading it back.
//!
//! Layout, all integers little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `THRONGNV` |
//! | 4 | format version ([`FORMAT_VERSION`]) |
//! | 4, 4, 1 | map width, height, movement rule (4 or 8) |
//! | 8 | [`map_hash`] of the map |
//! | 4, 4 | cluster size, number of clusters |
//! | ... | per cluster: point count `n`, `n` cells, `n * n` costs (`f64` bits), then `n` trees of one byte per cell of the cluster |
//! | ... | landmark distances: per point (in cluster order), 64 `f32` bit patterns |
//! | 8 | XXH3-64 hash of everything before it |
//!
//! Only the clusters are stored; the global numbering and edge lists are rebuilt on load (a
//! linear pass), which keeps the file about the size of the trees. The routes between points
//! are read from the trees (format 4; format 3 also stored them cell by cell, 38% of the
//! file). On load every tree must lead each cell it reaches back to its root, and every stored
//! cost must be the one its tree walk gives, to the bit: a damaged or edited file is refused,
//! never turned into illegal or wrongly priced paths.
//!
//! The checksum is XXH3 (format 3; format 2 used FNV-1a, 26 times slower: a large file's load
//! is then mostly decoding and rebuilding the edge lists; figures in `docs/performance.md`).

use std::io::Write;
use std::path::{Path, PathBuf};

use super::graph::{Cluster, NavGraph, TREE_NONE, TREE_ROOT, cluster_rect, map_hash};
use super::landmarks::LANDMARKS;
use super::local::Rect;
use crate::grid::{CellId, Direction};
use crate::grid::{Grid, Neighborhood};
use rayon::prelude::*;

const MAGIC: &[u8; 8] = b"THRONGNV";

/// Version of the file format written by [`NavGraph::save`]; [`NavGraph::load`] refuses any
/// other.
pub const FORMAT_VERSION: u32 = 4;

/// Why a navigation file could not be saved or used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NavFileError {
    /// The file could not be read or written.
    #[error("{}: {}", path.display(), crate::input::io_words(source))]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file does not start with the navigation file magic.
    #[error("{}: not a throng navigation file", path.display())]
    NotNavFile {
        /// The file.
        path: PathBuf,
    },
    /// The file was written in another format version.
    #[error(
        "{}: navigation file format version {found}, this throng reads version {expected}; prepare the file again",
        path.display()
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        expected: u32,
    },
    /// The file was prepared for another map (size, movement rule, walls or costs differ).
    #[error(
        "{}: prepared for another map ({file_width} x {file_height}, map hash {file_hash:016x}), not this one ({width} x {height}, map hash {hash:016x}); prepare the file again for this map",
        path.display()
    )]
    WrongMap {
        /// The file.
        path: PathBuf,
        /// Map width in the file.
        file_width: u32,
        /// Map height in the file.
        file_height: u32,
        /// Map hash in the file.
        file_hash: u64,
        /// Width of the grid given.
        width: u32,
        /// Height of the grid given.
        height: u32,
        /// Hash of the grid given.
        hash: u64,
    },
    /// The file is truncated or damaged.
    #[error("{}: damaged navigation file: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

impl NavGraph {
    /// The graph as the bytes of a navigation file (its layout is described in `src/nav/file.rs`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.memory_bytes());
        self.write_to(&mut out)
            .expect("writing to memory cannot fail");
        out
    }

    /// Writes the graph as a navigation file to `w`, a cluster at a time with the checksum
    /// taken on the way: a file of 1.1 GiB (a 4096 x 4096 map) no longer needs a copy of
    /// itself in memory before it is written.
    ///
    /// # Errors
    /// Those of `w`.
    pub fn write_to(&self, w: &mut impl Write) -> std::io::Result<()> {
        /// Bytes gathered before they are hashed and written.
        const CHUNK: usize = 1 << 20;
        let mut hasher = xxhash_rust::xxh3::Xxh3Default::new();
        let mut out = Vec::with_capacity(CHUNK + 4096);
        let mut flush = |out: &mut Vec<u8>| -> std::io::Result<()> {
            hasher.update(out);
            w.write_all(out)?;
            out.clear();
            Ok(())
        };
        out.extend_from_slice(MAGIC);
        put_u32(&mut out, FORMAT_VERSION);
        put_u32(&mut out, self.width);
        put_u32(&mut out, self.height);
        out.push(match self.neighborhood {
            Neighborhood::Four => 4,
            Neighborhood::Eight => 8,
        });
        out.extend_from_slice(&self.map_hash.to_le_bytes());
        put_u32(&mut out, self.cluster_size);
        put_u32(&mut out, self.clusters.len() as u32);
        for c in &self.clusters {
            put_u32(&mut out, c.nodes.len() as u32);
            c.nodes.iter().for_each(|&v| put_u32(&mut out, v));
            for v in &c.cost {
                out.extend_from_slice(&v.to_bits().to_le_bytes());
            }
            out.extend_from_slice(&c.tree);
            if out.len() >= CHUNK {
                flush(&mut out)?;
            }
        }
        for d in &self.landmarks.dist {
            put_u32(&mut out, d.to_bits());
            if out.len() >= CHUNK {
                flush(&mut out)?;
            }
        }
        flush(&mut out)?;
        let hash = hasher.digest();
        w.write_all(&hash.to_le_bytes())
    }

    /// Writes the graph to `path`, to be loaded later with [`load`](Self::load).
    ///
    /// # Errors
    /// [`NavFileError::Io`] when the file cannot be written.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), NavFileError> {
        let path = path.as_ref();
        let io = |source| NavFileError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = std::fs::File::create(path).map_err(io)?;
        self.write_to(&mut file).map_err(io)?;
        file.flush().map_err(io)
    }

    /// Loads a graph saved by [`save`](Self::save) for `grid`.
    ///
    /// # Errors
    /// [`NavFileError`]: the file cannot be read, is not a navigation file, has another format
    /// version, was prepared for another map, or is damaged.
    pub fn load(path: impl AsRef<Path>, grid: &Grid) -> Result<NavGraph, NavFileError> {
        let path = path.as_ref();
        let bytes = crate::input::read_unsniffed(path, crate::input::Input::NavPoints).map_err(
            |source| NavFileError::Io {
                path: path.to_path_buf(),
                source,
            },
        )?;
        Self::from_bytes(&bytes, grid, path)
    }

    /// Reads a graph from the bytes of a navigation file for `grid`; `path` names the source
    /// in errors.
    ///
    /// # Errors
    /// As [`load`](Self::load).
    pub fn from_bytes(bytes: &[u8], grid: &Grid, path: &Path) -> Result<NavGraph, NavFileError> {
        let corrupt = |reason: &str| NavFileError::Corrupt {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        };
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(NavFileError::NotNavFile {
                path: path.to_path_buf(),
            });
        }
        let mut r = Reader {
            bytes,
            at: MAGIC.len(),
        };
        let version = r.u32().ok_or_else(|| corrupt("truncated header"))?;
        if version != FORMAT_VERSION {
            return Err(NavFileError::Version {
                path: path.to_path_buf(),
                found: version,
                expected: FORMAT_VERSION,
            });
        }
        let header = (|| Some((r.u32()?, r.u32()?, r.u8()?, r.u64()?)))();
        let (width, height, rule, file_hash) = header.ok_or_else(|| corrupt("truncated header"))?;
        let hash = map_hash(grid);
        let rule_matches = match grid.neighborhood() {
            Neighborhood::Four => rule == 4,
            Neighborhood::Eight => rule == 8,
        };
        if width != grid.width() || height != grid.height() || !rule_matches || file_hash != hash {
            return Err(NavFileError::WrongMap {
                path: path.to_path_buf(),
                file_width: width,
                file_height: height,
                file_hash,
                width: grid.width(),
                height: grid.height(),
                hash,
            });
        }
        if bytes.len() < r.at + 8 {
            return Err(corrupt("truncated"));
        }
        let body_end = bytes.len() - 8;
        let stored = u64::from_le_bytes(bytes[body_end..].try_into().expect("8 bytes"));
        if file_checksum(&bytes[..body_end]) != stored {
            return Err(corrupt("checksum mismatch (truncated or altered)"));
        }
        let mut r = Reader {
            bytes: &bytes[..body_end],
            at: r.at,
        };
        let size = r.u32().ok_or_else(|| corrupt("truncated header"))?;
        let count = r.u32().ok_or_else(|| corrupt("truncated header"))?;
        if size < 4 {
            return Err(corrupt("cluster size below 4"));
        }
        let clusters_x = width.div_ceil(size);
        let clusters_y = height.div_ceil(size);
        if u64::from(count) != u64::from(clusters_x) * u64::from(clusters_y) {
            return Err(corrupt("wrong number of clusters for the map size"));
        }
        let mut clusters = Vec::with_capacity(count as usize);
        for c in 0..count {
            let cluster = read_cluster(&mut r, grid, size, clusters_x, c)
                .ok_or_else(|| corrupt(&format!("cluster {c} is malformed")))?;
            clusters.push(cluster);
        }
        // The trees are most of the file: checked in parallel, then the costs against them.
        let bad = clusters
            .par_iter()
            .enumerate()
            .find_map_first(|(c, cluster)| {
                let rect = cluster_rect(grid.width(), grid.height(), size, clusters_x, c as u32);
                let trees_ok = cluster
                    .nodes
                    .iter()
                    .enumerate()
                    .all(|(i, &node)| valid_tree(grid, rect, node, cluster.tree(rect, i)));
                if !trees_ok {
                    Some(format!("cluster {c} has a malformed tree"))
                } else if !costs_match_trees(grid, rect, cluster) {
                    Some(format!("cluster {c} has a cost its tree does not give"))
                } else {
                    None
                }
            });
        if let Some(reason) = bad {
            return Err(corrupt(&reason));
        }
        let points: usize = clusters.iter().map(|c| c.nodes.len()).sum();
        let landmarks: Vec<f32> = (0..points * LANDMARKS)
            .map(|_| r.u32().map(f32::from_bits))
            .collect::<Option<_>>()
            .ok_or_else(|| corrupt("truncated landmark distances"))?;
        if landmarks.iter().any(|d| d.is_nan() || *d < 0.0) {
            return Err(corrupt("negative or NaN landmark distance"));
        }
        if r.at != r.bytes.len() {
            return Err(corrupt("trailing bytes"));
        }
        Ok(NavGraph::from_clusters(
            grid,
            size,
            file_hash,
            clusters,
            Some(landmarks),
        ))
    }
}

/// Reads one cluster, checking every index so that a damaged file cannot make a query panic.
fn read_cluster(
    r: &mut Reader<'_>,
    grid: &Grid,
    size: u32,
    clusters_x: u32,
    c: u32,
) -> Option<Cluster> {
    let rect = cluster_rect(grid.width(), grid.height(), size, clusters_x, c);
    let inside = |cell: u32| {
        grid.contains(cell) && {
            let (x, y) = grid.coords(cell);
            rect.contains(x, y)
        }
    };
    let n = r.u32()? as usize;
    if n > (rect.w * rect.h) as usize {
        return None;
    }
    let nodes = r.u32s(n)?;
    if !nodes.iter().all(|&v| inside(v)) || !nodes.windows(2).all(|w| w[0] < w[1]) {
        return None;
    }
    let cost: Vec<f64> = (0..n * n)
        .map(|_| r.u64().map(f64::from_bits))
        .collect::<Option<_>>()?;
    if cost.iter().any(|v| v.is_nan() || *v < 0.0) {
        return None;
    }
    let area = (rect.w * rect.h) as usize;
    // Checked by the caller, in parallel.
    let tree = r.take(n.checked_mul(area)?)?.to_vec();
    Some(Cluster { nodes, cost, tree })
}

/// Whether every cost of `cluster` is the one its trees give (see [`Cluster::pair_costs`]):
/// queries price paths with these costs and hand the walks out as path pieces, so an edited
/// cost would give quietly wrong answers (found by fuzzing the loader of format 3). The trees
/// must have been checked first.
fn costs_match_trees(grid: &Grid, rect: Rect, cluster: &Cluster) -> bool {
    let n = cluster.nodes.len();
    (0..n).all(|i| {
        cluster.cost[i * n + i] == 0.0
            && (i + 1..n).all(|j| {
                let stored = (cluster.cost[i * n + j], cluster.cost[j * n + i]);
                match cluster.pair_costs(grid, rect, i, j) {
                    Some(walked) => stored == walked,
                    None => stored.0.is_infinite() && stored.1.is_infinite(),
                }
            })
    })
}

/// Whether `tree` is a tree of legal steps inside `rect` rooted at `root` and only there:
/// walking it from any reached cell ends on the root (no cycle, no step off the grid's
/// moves), so queries that walk it cannot loop or leave the cluster.
fn valid_tree(grid: &Grid, rect: Rect, root: CellId, tree: &[u8]) -> bool {
    const UNKNOWN: u8 = 0;
    const ON_WALK: u8 = 1;
    const ENDS_AT_ROOT: u8 = 2;
    let (rx, ry) = grid.coords(root);
    if tree[rect.local(rx, ry)] != TREE_ROOT {
        return false;
    }
    let mut state = vec![UNKNOWN; tree.len()];
    state[rect.local(rx, ry)] = ENDS_AT_ROOT;
    let mut walk = Vec::new();
    for start in 0..tree.len() as u32 {
        let mut l = start as usize;
        walk.clear();
        loop {
            match state[l] {
                ENDS_AT_ROOT => break,
                ON_WALK => return false,
                _ => {}
            }
            let d = tree[l];
            if d == TREE_NONE && walk.is_empty() {
                break;
            }
            if d >= 8 {
                return false;
            }
            let (x, y) = (rect.x0 + l as u32 % rect.w, rect.y0 + l as u32 / rect.w);
            let d = usize::from(d);
            let (px, py) = (
                x.wrapping_add_signed(-Direction::DX[d]),
                y.wrapping_add_signed(-Direction::DY[d]),
            );
            // A blocked parent has no moves, so this also refuses steps out of walls.
            let legal = rect.contains(px, py)
                && grid
                    .moves(py * grid.width() + px)
                    .contains(Direction::ALL[d]);
            if !legal {
                return false;
            }
            state[l] = ON_WALK;
            walk.push(l);
            l = rect.local(px, py);
        }
        for &w in &walk {
            state[w] = ENDS_AT_ROOT;
        }
    }
    true
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// The checksum a navigation file ends with, of every byte before it: XXH3-64, which runs at
/// memory speed (format 2's FNV-1a, a multiply per 8 bytes, was 26x slower: see the module
/// docs).
/// Public for tools that build files by hand, such as the fuzz target.
pub fn file_checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }
    fn u32s(&mut self, n: usize) -> Option<Vec<u32>> {
        let bytes = self.take(n.checked_mul(4)?)?;
        Some(
            bytes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nav::local::LocalSearch;

    /// A file for a small map, with the byte offsets of the costs of the first pair of points
    /// of cluster 0 (both ways) and of that cluster's first tree.
    fn small_file() -> (Grid, Vec<u8>, usize, usize, usize) {
        let grid = Grid::from_ascii(
            "........\n\
             .#....#.\n\
             ........\n\
             ...##...\n\
             ........\n\
             ........\n\
             .#....#.\n\
             ........",
        )
        .unwrap();
        let nav = NavGraph::build(&grid, &crate::nav::NavOptions { cluster_size: 4 }).unwrap();
        let bytes = nav.to_bytes();
        let c = &nav.clusters[0];
        let n = c.nodes.len();
        assert!(
            n >= 2 && c.cost[1].is_finite(),
            "a route between points 0 and 1"
        );
        // Header, cluster size and count, then cluster 0: n, nodes, costs, trees.
        let nodes_at = 8 + 4 + 4 + 4 + 1 + 8 + 4 + 4 + 4;
        let cost_at = nodes_at + 4 * n;
        let tree_at = cost_at + 8 * n * n;
        (grid, bytes, cost_at + 8, cost_at + 8 * n, tree_at)
    }

    /// `bytes` with `at..at + new.len()` replaced and the checksum made right again.
    fn edited(bytes: &[u8], at: usize, new: &[u8]) -> Vec<u8> {
        let mut out = bytes[..bytes.len() - 8].to_vec();
        out[at..at + new.len()].copy_from_slice(new);
        let hash = file_checksum(&out);
        out.extend_from_slice(&hash.to_le_bytes());
        out
    }

    #[test]
    fn costs_must_be_those_of_the_trees_and_trees_legal() {
        let (grid, bytes, cost_ij, cost_ji, tree) = small_file();
        let path = Path::new("t.nav");
        assert!(NavGraph::from_bytes(&bytes, &grid, path).is_ok());
        // A cost edited, either way round: refused, not a quietly wrong answer.
        for at in [cost_ij, cost_ji] {
            let stored = f64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
            let changed = edited(&bytes, at, &(stored * 2.0).to_bits().to_le_bytes());
            let e = NavGraph::from_bytes(&changed, &grid, path).unwrap_err();
            assert!(e.to_string().contains("cost its tree does not give"), "{e}");
        }
        // A cost made infinite where the trees join the points.
        let changed = edited(&bytes, cost_ij, &f64::INFINITY.to_bits().to_le_bytes());
        assert!(NavGraph::from_bytes(&changed, &grid, path).is_err());
        // A tree step from outside the cluster: cell (0, 0) of tree 0 (never a point: the
        // points of cluster 0 are on its east and south borders) entered by an eastward step,
        // from (-1, 0). Routes read from it would leave the map.
        assert_ne!(bytes[tree], TREE_ROOT);
        let east = Direction::East.index() as u8;
        let broken = edited(&bytes, tree, &[east]);
        let e = NavGraph::from_bytes(&broken, &grid, path).unwrap_err();
        assert!(e.to_string().contains("malformed tree"), "{e}");
    }

    #[test]
    fn trees_with_cycles_or_illegal_steps_are_refused() {
        let grid = Grid::from_ascii("....\n.#..\n....\n....").unwrap();
        let rect = Rect {
            x0: 0,
            y0: 0,
            w: 4,
            h: 4,
        };
        let root = grid.cell(0, 0).unwrap();
        let mut search = LocalSearch::default();
        search.prepare(&grid, rect);
        search.run(&grid, root);
        let mut tree = Vec::new();
        search.export_tree(&mut tree);
        assert!(valid_tree(&grid, rect, root, &tree));
        // Rooted elsewhere.
        assert!(!valid_tree(&grid, rect, grid.cell(3, 3).unwrap(), &tree));
        let local = |x: u32, y: u32| rect.local(x, y);
        let east = Direction::East.index() as u8;
        let west = Direction::West.index() as u8;
        // (2, 0) and (3, 0) lead to each other.
        let mut cycle = tree.clone();
        cycle[local(2, 0)] = west; // parent (3, 0)
        cycle[local(3, 0)] = east; // parent (2, 0)
        assert!(!valid_tree(&grid, rect, root, &cycle));
        // A step out of the blocked cell (1, 1).
        let mut blocked = tree.clone();
        blocked[local(2, 1)] = east; // parent (1, 1)
        assert!(!valid_tree(&grid, rect, root, &blocked));
        // A step from outside the rectangle.
        let mut outside = tree.clone();
        outside[local(0, 2)] = east; // parent (-1, 2)
        assert!(!valid_tree(&grid, rect, root, &outside));
        // The diagonal from (1, 0) into (0, 1) cuts the corner of the blocked (1, 1).
        let mut cut = tree.clone();
        cut[local(0, 1)] = Direction::ALL
            .iter()
            .position(|d| d.delta() == (-1, 1))
            .unwrap() as u8;
        assert!(!valid_tree(&grid, rect, root, &cut));
        // A bad byte.
        let mut junk = tree.clone();
        junk[local(3, 3)] = 9;
        assert!(!valid_tree(&grid, rect, root, &junk));
        // Unreached cells are fine.
        let mut unreached = tree;
        unreached[local(3, 3)] = TREE_NONE;
        assert!(valid_tree(&grid, rect, root, &unreached));
    }
}
