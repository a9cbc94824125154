//! A D* Lite state in a simulation snapshot (`crate::sim::Simulation::snapshot`): every field,
//! the touched vertices in order of first touch, the queue's heap as it stands, and the
//! capacity of each buffer, because [`DStarLite::memory_bytes`] counts capacities and the
//! memory budget decides on it: a restored agent must start over exactly when the original
//! would.

use super::queue::Queue;
use super::table::{NOT_QUEUED, Slot, SlotTable};
use super::{DStarLite, DStarStats};
use crate::grid::{Grid, Neighborhood};
use crate::sim::snapshot::format::{Reader, Writer, corrupt};
use crate::sim::snapshot::{Allowance, SnapshotError};

impl DStarLite {
    /// Writes the whole state.
    pub(crate) fn write_snapshot(&self, w: &mut Writer<'_>) {
        w.u32(self.goal);
        w.u32(self.start);
        w.u64(self.km);
        w.bool(self.initialized);
        w.bool(self.weighted);
        w.f64(self.h_scale);
        w.u8(match self.neighborhood {
            Neighborhood::Four => 4,
            Neighborhood::Eight => 8,
        });
        w.u32(self.width);
        w.u32(self.height);
        for o in self.offsets {
            w.i64(o);
        }
        let slots = &self.table.slots;
        w.len(slots.len());
        w.len(slots.capacity());
        for s in slots {
            w.u32(s.cell);
            w.u64(s.g);
            w.u64(s.rhs);
        }
        let (index_len, index_capacity) = self.table.index_shape();
        w.len(index_len);
        w.len(index_capacity);
        let heap = self.queue.heap();
        w.len(heap.len());
        w.len(self.queue.capacity());
        for &((k1, k2), slot) in heap {
            w.u64(k1);
            w.u64(k2);
            w.u32(slot);
        }
        w.u32s(&self.path);
        w.len(self.path.capacity());
        w.opt_u64(self.max_bytes.map(|b| b as u64));
        w.u64(self.pending_updates);
        let s = self.stats;
        for v in [
            s.expanded,
            s.updates,
            s.touched,
            s.total_expanded,
            s.plans,
            s.budget_resets,
            s.restarts,
        ] {
            w.u64(v);
        }
    }

    /// Reads a state written by [`write_snapshot`](Self::write_snapshot) for an agent on
    /// `grid`, checking every cell and index (a search resumed from it cannot index out of
    /// its tables) and charging the buffers' spare capacity to `allowance`.
    pub(crate) fn read_snapshot(
        r: &mut Reader<'_>,
        grid: &Grid,
        allowance: &mut Allowance,
    ) -> Result<DStarLite, SnapshotError> {
        let cells = grid.len();
        let goal = r.cell(cells, "D* Lite goal")?;
        let start = r.cell(cells, "D* Lite start")?;
        let km = r.u64()?;
        let initialized = r.bool()?;
        let weighted = r.bool()?;
        let h_scale = r.f64()?;
        if !(h_scale.is_finite() && h_scale > 0.0) {
            return Err(corrupt("D* Lite heuristic scale"));
        }
        let neighborhood = match r.u8()? {
            4 => Neighborhood::Four,
            8 => Neighborhood::Eight,
            n => return Err(corrupt(format!("D* Lite movement rule {n}"))),
        };
        let (width, height) = (r.u32()?, r.u32()?);
        let mut offsets = [0i64; 8];
        for o in &mut offsets {
            *o = r.i64()?;
        }
        if initialized
            && (width != grid.width() || height != grid.height() || offsets != grid.move_offsets())
        {
            return Err(corrupt("D* Lite search made for another grid"));
        }
        // Each buffer of a real run holds at most a few entries per cell.
        let most = 4 * cells + 64;
        let n = r.count(20, "D* Lite vertices")?;
        let capacity = r.index(most, "D* Lite vertex capacity")?;
        allowance.reserve(n, capacity, std::mem::size_of::<Slot>())?;
        let mut slots = Vec::with_capacity(capacity);
        for _ in 0..n {
            slots.push(Slot {
                cell: r.cell(cells, "D* Lite vertex")?,
                pos: NOT_QUEUED,
                g: r.u64()?,
                rhs: r.u64()?,
            });
        }
        let index_len = r.index(most, "D* Lite index length")?;
        let index_capacity = r.index(most, "D* Lite index capacity")?;
        allowance.reserve(index_len, index_capacity, 4)?;
        let queued = r.count(20, "D* Lite queue")?;
        let heap_capacity = r.index(most, "D* Lite queue capacity")?;
        allowance.reserve(queued, heap_capacity, 24)?;
        let mut heap = Vec::with_capacity(heap_capacity);
        for i in 0..queued {
            let key = (r.u64()?, r.u64()?);
            let slot = r.u32()?;
            let entry = slots
                .get_mut(slot as usize)
                .filter(|s| s.pos == NOT_QUEUED)
                .ok_or_else(|| corrupt("D* Lite queue names a missing or queued vertex"))?;
            entry.pos = i as u32;
            if i > 0 {
                let parent: &((u64, u64), u32) = &heap[(i - 1) / 2];
                if parent.0 > key {
                    return Err(corrupt("D* Lite queue out of heap order"));
                }
            }
            heap.push((key, slot));
        }
        let table = SlotTable::from_parts(slots, index_len, index_capacity)
            .ok_or_else(|| corrupt("D* Lite vertex index"))?;
        let path = r.u32s_below(cells as u64, "D* Lite path")?;
        let path_capacity = r.index(most, "D* Lite path capacity")?;
        allowance.reserve(path.len(), path_capacity, 4)?;
        let mut kept = Vec::with_capacity(path_capacity);
        kept.extend_from_slice(&path);
        let max_bytes = r.opt_u64()?.map(|b| b as usize);
        let pending_updates = r.u64()?;
        let mut v = [0u64; 7];
        for x in &mut v {
            *x = r.u64()?;
        }
        let stats = DStarStats {
            expanded: v[0],
            updates: v[1],
            touched: v[2],
            total_expanded: v[3],
            plans: v[4],
            budget_resets: v[5],
            restarts: v[6],
        };
        Ok(DStarLite {
            goal,
            start,
            km,
            initialized,
            weighted,
            h_scale,
            neighborhood,
            width,
            height,
            offsets,
            table,
            queue: Queue::from_heap(heap),
            path: kept,
            max_bytes,
            pending_updates,
            stats,
        })
    }
}
