//! Which agent stands on each cell.

use crate::grid::CellId;
use crate::mapf::NO_AGENT;

/// Per-cell agent slot (flat array indexed by cell id). Maintained by the simulation when
/// conflicts are on; with conflicts off several agents may share a cell and it is left empty.
#[derive(Debug, Clone, Default)]
pub struct Occupancy {
    cells: Vec<u32>,
}

impl Occupancy {
    /// Room for `cells` cells, all free.
    pub fn new(cells: usize) -> Self {
        Occupancy {
            cells: vec![NO_AGENT; cells],
        }
    }

    /// The slot of the agent on `cell`, if any.
    #[inline]
    pub fn agent_at(&self, cell: CellId) -> Option<u32> {
        match self.cells.get(cell as usize) {
            Some(&s) if s != NO_AGENT => Some(s),
            _ => None,
        }
    }

    /// The table itself, one entry per cell ([`NO_AGENT`] where free): lent to PIBT's step
    /// ([`crate::mapf::Pibt::step_occupied`]), which gives it back unchanged.
    pub(crate) fn table_mut(&mut self) -> &mut Vec<u32> {
        &mut self.cells
    }

    #[inline]
    pub(crate) fn set(&mut self, cell: CellId, slot: u32) {
        self.cells[cell as usize] = slot;
    }

    #[inline]
    pub(crate) fn clear(&mut self, cell: CellId) {
        self.cells[cell as usize] = NO_AGENT;
    }
}
