//! The snapshot's byte layout: the envelope around the payload (magic, versions, map hash,
//! checksum), the little-endian writer and the bounds-checked reader the parts are coded with,
//! and the fixed codes of the enums a snapshot stores.
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `THRONGSS` |
//! | 4 | format version ([`FORMAT_VERSION`]) |
//! | 1 + n | the crate version that wrote it (length, UTF-8) |
//! | 8 | XXH3-64 of the payload's grid part (the map when the snapshot was taken) |
//! | 8 | payload length |
//! | ... | payload (see `write.rs`) |
//! | 8 | XXH3-64 of everything before it |
//!
//! The reader never allocates from a count it has not checked against the bytes left: a list
//! of `n` items of at least `k` bytes each needs `n * k` bytes still unread, so memory stays
//! within a small multiple of the input whatever it holds.

use super::SnapshotError;
use crate::planner::PlannerKind;
use crate::sim::action_model::Heading;
use crate::sim::agent::AgentState;
use crate::sim::control::ActionOutcome;
use crate::sim::events::{ArrivalKind, PlanReason};

/// The first bytes of every snapshot.
pub(crate) const MAGIC: &[u8; 8] = b"THRONGSS";

/// Version of the layout written by [`crate::sim::Simulation::snapshot`]; any other is refused.
/// Version 2 stores agent routes as step codes (4 bits a step) instead of cells; version 3
/// PIBT's tie-breaks where they follow the map.
pub(crate) const FORMAT_VERSION: u32 = 3;

/// The crate version written into, and required of, every snapshot.
pub(crate) const CRATE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Bytes of the envelope before the crate version: magic and format version.
pub(crate) const LEAD: usize = 12;

/// XXH3-64, the checksum and the map hash.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Appends little-endian values to a byte buffer.
pub(crate) struct Writer<'a> {
    pub(crate) out: &'a mut Vec<u8>,
}

impl Writer<'_> {
    #[inline]
    pub(crate) fn u8(&mut self, v: u8) {
        self.out.push(v);
    }
    #[inline]
    pub(crate) fn bool(&mut self, v: bool) {
        self.out.push(u8::from(v));
    }
    #[inline]
    pub(crate) fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    #[inline]
    pub(crate) fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    #[inline]
    pub(crate) fn i64(&mut self, v: i64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    #[inline]
    pub(crate) fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    /// A length or index (`usize`), as 8 bytes.
    #[inline]
    pub(crate) fn len(&mut self, v: usize) {
        self.u64(v as u64);
    }
    /// `None` as 0, `Some(v)` as 1 then `v`.
    pub(crate) fn opt_u32(&mut self, v: Option<u32>) {
        self.bool(v.is_some());
        if let Some(v) = v {
            self.u32(v);
        }
    }
    /// `None` as 0, `Some(v)` as 1 then `v`.
    pub(crate) fn opt_u64(&mut self, v: Option<u64>) {
        self.bool(v.is_some());
        if let Some(v) = v {
            self.u64(v);
        }
    }
    /// A list of `u32`: its length, then the values.
    pub(crate) fn u32s(&mut self, v: &[u32]) {
        self.len(v.len());
        self.out.reserve(v.len() * 4);
        for &x in v {
            self.u32(x);
        }
    }
    /// A list of `u64`: its length, then the values.
    pub(crate) fn u64s(&mut self, v: &[u64]) {
        self.len(v.len());
        for &x in v {
            self.u64(x);
        }
    }
    /// Bytes: their length, then them.
    pub(crate) fn bytes(&mut self, v: &[u8]) {
        self.len(v.len());
        self.out.extend_from_slice(v);
    }
}

/// Reads what [`Writer`] wrote, every read checked against the bytes left.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// A damaged payload (the checksum matched, so it was written so or crafted).
pub(crate) fn corrupt(what: impl Into<String>) -> SnapshotError {
    SnapshotError::Corrupt(what.into())
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }

    /// Bytes not read yet.
    #[inline]
    pub(crate) fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// Where the reader stands (bytes read so far).
    pub(crate) fn at(&self) -> usize {
        self.at
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], SnapshotError> {
        if n > self.left() {
            return Err(corrupt(format!(
                "{n} bytes wanted at offset {}, {} left",
                self.at,
                self.left()
            )));
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    #[inline]
    pub(crate) fn u8(&mut self) -> Result<u8, SnapshotError> {
        Ok(self.take(1)?[0])
    }
    pub(crate) fn bool(&mut self) -> Result<bool, SnapshotError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(corrupt(format!("flag {b} at offset {}", self.at - 1))),
        }
    }
    #[inline]
    pub(crate) fn u32(&mut self) -> Result<u32, SnapshotError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }
    #[inline]
    pub(crate) fn u64(&mut self) -> Result<u64, SnapshotError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
    pub(crate) fn i64(&mut self) -> Result<i64, SnapshotError> {
        Ok(i64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
    pub(crate) fn f64(&mut self) -> Result<f64, SnapshotError> {
        Ok(f64::from_bits(self.u64()?))
    }
    pub(crate) fn opt_u32(&mut self) -> Result<Option<u32>, SnapshotError> {
        Ok(if self.bool()? {
            Some(self.u32()?)
        } else {
            None
        })
    }
    pub(crate) fn opt_u64(&mut self) -> Result<Option<u64>, SnapshotError> {
        Ok(if self.bool()? {
            Some(self.u64()?)
        } else {
            None
        })
    }

    /// A `usize` of at most `max` (`what` names it in the error).
    pub(crate) fn index(&mut self, max: usize, what: &str) -> Result<usize, SnapshotError> {
        let v = self.u64()?;
        if v > max as u64 {
            return Err(corrupt(format!("{what} {v} is over {max}")));
        }
        Ok(v as usize)
    }

    /// The length of a list of items of at least `item_bytes` bytes each: refused when the
    /// bytes left cannot hold that many (so no allocation outgrows the input).
    pub(crate) fn count(&mut self, item_bytes: usize, what: &str) -> Result<usize, SnapshotError> {
        let n = self.u64()?;
        let room = (self.left() / item_bytes.max(1)) as u64;
        if n > room {
            return Err(corrupt(format!(
                "{what}: {n} items, the {} bytes left hold at most {room}",
                self.left()
            )));
        }
        Ok(n as usize)
    }

    /// A list of `u32`, each below `bound` (cells of the grid, slots).
    pub(crate) fn u32s_below(&mut self, bound: u64, what: &str) -> Result<Vec<u32>, SnapshotError> {
        let n = self.count(4, what)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let x = self.u32()?;
            if u64::from(x) >= bound {
                return Err(corrupt(format!("{what}: {x} is out of range (< {bound})")));
            }
            v.push(x);
        }
        Ok(v)
    }

    /// A list of any `u32`.
    pub(crate) fn u32s(&mut self, what: &str) -> Result<Vec<u32>, SnapshotError> {
        self.u32s_below(u64::MAX, what)
    }

    /// A list of `u64`.
    pub(crate) fn u64s(&mut self, what: &str) -> Result<Vec<u64>, SnapshotError> {
        let n = self.count(8, what)?;
        (0..n).map(|_| self.u64()).collect()
    }

    /// Bytes written by [`Writer::bytes`].
    pub(crate) fn bytes(&mut self, what: &str) -> Result<&'a [u8], SnapshotError> {
        let n = self.count(1, what)?;
        self.take(n)
    }

    /// A cell: below `cells`.
    pub(crate) fn cell(&mut self, cells: usize, what: &str) -> Result<u32, SnapshotError> {
        let c = self.u32()?;
        if c as usize >= cells {
            return Err(corrupt(format!("{what}: cell {c} is outside the grid")));
        }
        Ok(c)
    }

    /// An optional cell.
    pub(crate) fn opt_cell(
        &mut self,
        cells: usize,
        what: &str,
    ) -> Result<Option<u32>, SnapshotError> {
        Ok(if self.bool()? {
            Some(self.cell(cells, what)?)
        } else {
            None
        })
    }

    /// Fails unless every byte was read.
    pub(crate) fn finish(&self) -> Result<(), SnapshotError> {
        if self.left() != 0 {
            return Err(corrupt(format!("{} trailing bytes", self.left())));
        }
        Ok(())
    }
}

/// The codes of the enums a snapshot stores: written here once, so that renaming or
/// reordering a variant cannot change the format.
pub(crate) mod code {
    use super::*;

    fn bad<T>(what: &str, c: u8) -> Result<T, SnapshotError> {
        Err(corrupt(format!("unknown {what} code {c}")))
    }

    pub(crate) fn planner(p: PlannerKind) -> u8 {
        match p {
            PlannerKind::AStar => 0,
            PlannerKind::Jps => 1,
            PlannerKind::JpsPlus => 2,
            PlannerKind::Nav => 3,
            PlannerKind::Auto => 4,
            PlannerKind::DStar => 5,
        }
    }
    pub(crate) fn to_planner(c: u8) -> Result<PlannerKind, SnapshotError> {
        Ok(match c {
            0 => PlannerKind::AStar,
            1 => PlannerKind::Jps,
            2 => PlannerKind::JpsPlus,
            3 => PlannerKind::Nav,
            4 => PlannerKind::Auto,
            5 => PlannerKind::DStar,
            _ => return bad("planner", c),
        })
    }

    pub(crate) fn to_state(c: u8) -> Result<AgentState, SnapshotError> {
        Ok(match c {
            0 => AgentState::Idle,
            1 => AgentState::Planning,
            2 => AgentState::Moving,
            3 => AgentState::Waiting,
            4 => AgentState::Arrived,
            5 => AgentState::NoPath,
            _ => return bad("agent state", c),
        })
    }

    pub(crate) fn to_reason(c: u8) -> Result<PlanReason, SnapshotError> {
        Ok(match c {
            0 => PlanReason::NewGoal,
            1 => PlanReason::Blocked,
            2 => PlanReason::Drifted,
            3 => PlanReason::MapChanged,
            _ => return bad("plan reason", c),
        })
    }

    pub(crate) fn heading(h: Heading) -> u8 {
        h.index() as u8
    }
    pub(crate) fn to_heading(c: u8) -> Result<Heading, SnapshotError> {
        match c {
            0..=3 => Ok(Heading::from_index(usize::from(c))),
            _ => bad("heading", c),
        }
    }

    pub(crate) fn arrival(k: ArrivalKind) -> u8 {
        match k {
            ArrivalKind::Stepped => 0,
            ArrivalKind::Standing => 1,
        }
    }
    pub(crate) fn to_arrival(c: u8) -> Result<ArrivalKind, SnapshotError> {
        match c {
            0 => Ok(ArrivalKind::Stepped),
            1 => Ok(ArrivalKind::Standing),
            _ => bad("arrival kind", c),
        }
    }

    pub(crate) fn outcome(o: ActionOutcome) -> u8 {
        o.code() as u8
    }
    pub(crate) fn to_outcome(c: u8) -> Result<ActionOutcome, SnapshotError> {
        Ok(match c {
            0 => ActionOutcome::Moved,
            1 => ActionOutcome::Waited,
            2 => ActionOutcome::Illegal,
            3 => ActionOutcome::Blocked,
            _ => return bad("action outcome", c),
        })
    }
}
