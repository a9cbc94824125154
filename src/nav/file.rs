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
//! | ... | per cluster: point count `n`, `n` cells, `n * n` costs (`f64` bits), route offset count and offsets, route cell count and cells, then `n` trees of one byte per cell of the cluster |
//! | ... | landmark distances: per point (in cluster order), 64 `f32` bit patterns |
//! | 8 | XXH3-64 hash of everything before it |
//!
//! Only the clusters are stored; the global numbering and edge lists are rebuilt on load (a
//! linear pass), which keeps the file about the size of the routes.
//!
//! The checksum is XXH3 (format 3; format 2 used FNV-1a): on the 386 MiB file of a 2048 x 2048
//! random map, FNV-1a took 421 ms of a 2.28 s load, XXH3 takes 16 ms (load 1.85 s; best of 3,
//! idle machine). The rest of the load is decoding and rebuilding the edge lists.

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
pub const FORMAT_VERSION: u32 = 3;

/// Why a navigation file could not be saved or used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NavFileError {
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
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
    /// The graph as the bytes of a navigation file (see the [module docs](self)).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.memory_bytes());
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
            put_u32(&mut out, c.route_start.len() as u32);
            c.route_start.iter().for_each(|&v| put_u32(&mut out, v));
            put_u32(&mut out, c.route_cells.len() as u32);
            c.route_cells.iter().for_each(|&v| put_u32(&mut out, v));
            out.extend_from_slice(&c.tree);
        }
        for d in &self.landmarks.dist {
            put_u32(&mut out, d.to_bits());
        }
        let hash = file_checksum(&out);
        out.extend_from_slice(&hash.to_le_bytes());
        out
    }

    /// Writes the graph to `path`, to be loaded later with [`load`](Self::load).
    ///
    /// # Errors
    /// [`NavFileError::Io`] when the file cannot be written.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), NavFileError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_bytes()).map_err(|source| NavFileError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Loads a graph saved by [`save`](Self::save) for `grid`.
    ///
    /// # Errors
    /// [`NavFileError`]: the file cannot be read, is not a navigation file, has another format
    /// version, was prepared for another map, or is damaged.
    pub fn load(path: impl AsRef<Path>, grid: &Grid) -> Result<NavGraph, NavFileError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| NavFileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
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
        // The trees are most of the file: checked in parallel.
        let bad_tree = clusters.par_iter().enumerate().find_first(|(c, cluster)| {
            let rect = cluster_rect(grid.width(), grid.height(), size, clusters_x, *c as u32);
            !cluster
                .nodes
                .iter()
                .enumerate()
                .all(|(i, &node)| valid_tree(grid, rect, node, cluster.tree(rect, i)))
        });
        if let Some((c, _)) = bad_tree {
            return Err(corrupt(&format!("cluster {c} has a malformed tree")));
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
    let starts = r.u32()? as usize;
    if starts != n * n.saturating_sub(1) / 2 + 1 {
        return None;
    }
    let route_start = r.u32s(starts)?;
    let cells = r.u32()? as usize;
    let route_cells = r.u32s(cells)?;
    if route_start.windows(2).any(|w| w[0] > w[1])
        || route_start.first() != Some(&0)
        || route_start.last().map(|&v| v as usize) != Some(cells)
        || !route_cells.iter().all(|&v| inside(v))
    {
        return None;
    }
    for i in 0..n {
        for j in i + 1..n {
            let p = super::graph::pair_index(n, i, j);
            let route = &route_cells[route_start[p] as usize..route_start[p + 1] as usize];
            let ends = route.first() == Some(&nodes[i]) && route.last() == Some(&nodes[j]);
            if cost[i * n + j].is_finite() != ends || route.is_empty() == ends {
                return None;
            }
            // Queries hand routes out as path pieces: each must be a legal walk whose cost, both
            // ways, is the one stored (the builder sums them with the same rule, so they are
            // equal to the bit). Without this a damaged route gave illegal paths, and an edited
            // cost silently wrong ones (both found by fuzzing the loader).
            if ends {
                let forward = grid.path_cost(route).ok()?;
                let back: Vec<CellId> = route.iter().rev().copied().collect();
                let backward = grid.path_cost(&back).ok()?;
                if forward != cost[i * n + j] || backward != cost[j * n + i] {
                    return None;
                }
            } else if cost[j * n + i].is_finite() {
                return None;
            }
        }
    }
    let area = (rect.w * rect.h) as usize;
    // Checked by the caller, in parallel.
    let tree = r.take(n.checked_mul(area)?)?.to_vec();
    Some(Cluster {
        nodes,
        cost,
        route_start,
        route_cells,
        tree,
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

    /// A file for a small map, with the byte offset of the route cells of the first pair of
    /// points of cluster 0 and of that pair's two costs.
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
        // Header, cluster size and count, then cluster 0: n, nodes, costs, route offsets,
        // route cell count, route cells.
        let nodes_at = 8 + 4 + 4 + 4 + 1 + 8 + 4 + 4 + 4;
        let cost_at = nodes_at + 4 * n;
        let cells_at = cost_at + 8 * n * n + 4 + 4 * c.route_start.len() + 4;
        let first = cells_at + 4 * c.route_start[0] as usize;
        (grid, bytes, first, cost_at + 8, cost_at + 8 * n)
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
    fn routes_must_be_legal_walks_with_their_stored_costs() {
        let (grid, bytes, route, cost_ij, cost_ji) = small_file();
        let path = Path::new("t.nav");
        assert!(NavGraph::from_bytes(&bytes, &grid, path).is_ok());
        let cell = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        // The second cell of the route moved to another cell of the cluster, not next to the
        // first one (the fuzzer's find: such a file loaded and its queries gave illegal paths).
        let (x, y) = grid.coords(cell(route));
        let corner = |v: u32| if v < 2 { 3 } else { 0 };
        let far = grid.cell(corner(x), corner(y)).unwrap();
        assert_ne!(far, cell(route + 4));
        let broken = edited(&bytes, route + 4, &far.to_le_bytes());
        let e = NavGraph::from_bytes(&broken, &grid, path).unwrap_err();
        assert!(e.to_string().contains("cluster 0 is malformed"), "{e}");
        // A cost edited, either way round: refused, not a quietly wrong answer.
        for at in [cost_ij, cost_ji] {
            let stored = f64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
            let changed = edited(&bytes, at, &(stored * 2.0).to_bits().to_le_bytes());
            let e = NavGraph::from_bytes(&changed, &grid, path).unwrap_err();
            assert!(e.to_string().contains("cluster 0 is malformed"), "{e}");
        }
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
        search.run(&grid, rect, root, &[]);
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
