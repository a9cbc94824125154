//! Snapshots: a simulation's whole state to bytes and back, for save games, lockstep rollback
//! and replays. A simulation restored from a snapshot plays on exactly as the original would:
//! the same state hash at every later tick, the same events, the same metrics.
//!
//! Everything that decides what later ticks do is written, field by field (agents with their
//! routes and D* Lite searches, queued commands, the calls since the last tick and the last
//! tick's events, a stuck crowd's LaCAM plan in flight, the metrics, the navigation graph);
//! what is derived from it (occupancy, components, scratch buffers) is rebuilt on load. The
//! layout is `format.rs`, the parts' order `write.rs`, their checks `read.rs`.
//!
//! A snapshot is read only by the crate version that wrote it (the same state must play the
//! same ticks, which another version does not promise), and refused whole, with nothing
//! changed, when it is damaged, truncated, of another format, or asks for more memory than
//! its size accounts for.

pub(crate) mod format;
mod read;
mod write;

use super::simulation::Simulation;

/// Why a snapshot was refused (see [`Simulation::from_snapshot`]). Nothing is changed when
/// one is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The bytes do not start as a snapshot does.
    #[error("not a throng snapshot (wrong magic bytes)")]
    NotSnapshot,
    /// The snapshot was written in another format version.
    #[error("snapshot format version {found}, this throng reads version {expected}")]
    Version {
        /// Version in the snapshot.
        found: u32,
        /// Version this build reads.
        expected: u32,
    },
    /// The snapshot was written by another version of the crate, whose ticks may differ.
    #[error(
        "snapshot written by throng {found}, this is throng {expected}: a snapshot is read \
         only by the version that wrote it"
    )]
    CrateVersion {
        /// Crate version in the snapshot.
        found: String,
        /// This crate's version.
        expected: &'static str,
    },
    /// The bytes end before the snapshot does.
    #[error("truncated snapshot")]
    Truncated,
    /// The checksum does not match: the bytes were altered or cut.
    #[error("damaged snapshot: checksum mismatch")]
    Checksum,
    /// The contents are inconsistent (a cell outside the map, an unknown code, ...).
    #[error("damaged snapshot: {0}")]
    Corrupt(String),
    /// [`Simulation::restore`] of a snapshot whose map has another size or movement rule
    /// than the simulation's: its cell ids would mean other cells.
    #[error(
        "snapshot of a {found_width} x {found_height} map with {found_moves}-connected \
         moves, this simulation's map is {width} x {height} with {moves}-connected moves"
    )]
    OtherMap {
        /// Map width in the snapshot.
        found_width: u32,
        /// Map height in the snapshot.
        found_height: u32,
        /// Moves (4 or 8) in the snapshot.
        found_moves: u8,
        /// The simulation's map width.
        width: u32,
        /// The simulation's map height.
        height: u32,
        /// The simulation's moves (4 or 8).
        moves: u8,
    },
}

/// Memory a snapshot may ask for beyond what its bytes hold: D* Lite buffers are restored
/// with the capacity they had (their memory budget counts capacities), so a snapshot states
/// capacities it does not fill; their sum is bounded by 1 GiB plus 64 bytes per byte read.
pub(crate) struct Allowance {
    left: usize,
}

impl Allowance {
    pub(crate) fn new(payload: usize) -> Self {
        Allowance {
            left: (1usize << 30).saturating_add(payload.saturating_mul(64)),
        }
    }

    /// Charges a buffer of `len` items of `item_bytes` and room for `capacity`.
    pub(crate) fn reserve(
        &mut self,
        len: usize,
        capacity: usize,
        item_bytes: usize,
    ) -> Result<(), SnapshotError> {
        let spare = capacity
            .checked_sub(len)
            .ok_or_else(|| format::corrupt("a buffer's capacity below its length"))?;
        let bytes = spare.saturating_mul(item_bytes);
        self.left = self.left.checked_sub(bytes).ok_or_else(|| {
            format::corrupt("the buffers' capacities ask for more memory than allowed")
        })?;
        Ok(())
    }
}

fn moves(grid: &crate::grid::Grid) -> u8 {
    match grid.neighborhood() {
        crate::grid::Neighborhood::Four => 4,
        crate::grid::Neighborhood::Eight => 8,
    }
}

impl Simulation {
    /// The whole state as bytes (a few dozen bytes per agent plus its route, the map as bits,
    /// and the navigation graph when there is one): [`from_snapshot`](Self::from_snapshot)
    /// or [`restore`](Self::restore) give a simulation that plays on exactly as this one.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::sim::{SimConfig, Simulation};
    ///
    /// let mut sim = Simulation::new(Grid::from_ascii("......\n.####.\n......")?, SimConfig::default())?;
    /// sim.add_agent(0, Some(17))?;
    /// sim.step();
    /// let saved = sim.snapshot();
    /// let mut copy = Simulation::from_snapshot(&saved)?;
    /// for _ in 0..5 {
    ///     assert_eq!(sim.step().state_hash, copy.step().state_hash);
    /// }
    /// sim.restore(&saved)?; // rollback: back to tick 1
    /// assert_eq!(sim.tick(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn snapshot(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.snapshot_into(&mut out);
        out
    }

    /// [`snapshot`](Self::snapshot) into `out` (cleared first), reusing its memory: a rollback
    /// loop that saves every tick allocates nothing once `out` is large enough.
    pub fn snapshot_into(&self, out: &mut Vec<u8>) {
        write::snapshot(self, out);
    }

    /// The simulation saved in `bytes` by [`snapshot`](Self::snapshot), on the current rayon
    /// pool like any other.
    ///
    /// # Errors
    /// [`SnapshotError`] for bytes that are not a snapshot, of another format or crate
    /// version, truncated, altered (checksum) or inconsistent.
    pub fn from_snapshot(bytes: &[u8]) -> Result<Simulation, SnapshotError> {
        read::simulation(&read::open(bytes)?)
    }

    /// Replaces this simulation's whole state with the one saved in `bytes` (a rollback: the
    /// caller keeps its simulation and the scratch memory of its phases). The map comes from
    /// the snapshot too (with the doors as they were then); it must have this map's size and
    /// movement rule, so that cell ids keep their meaning.
    ///
    /// # Errors
    /// As [`from_snapshot`](Self::from_snapshot), and [`SnapshotError::OtherMap`] for a map of
    /// another size or movement rule; on error nothing changes.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), SnapshotError> {
        let restored = read::simulation(&read::open(bytes)?)?;
        let (mine, theirs) = (&self.grid, &restored.grid);
        if (mine.width(), mine.height(), moves(mine))
            != (theirs.width(), theirs.height(), moves(theirs))
        {
            return Err(SnapshotError::OtherMap {
                found_width: theirs.width(),
                found_height: theirs.height(),
                found_moves: moves(theirs),
                width: mine.width(),
                height: mine.height(),
                moves: moves(mine),
            });
        }
        let planning = std::mem::take(&mut self.planning);
        let movement = std::mem::take(&mut self.movement);
        *self = restored;
        self.planning = planning;
        self.movement = movement;
        Ok(())
    }
}
