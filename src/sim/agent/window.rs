//! The start of every agent's route, decoded, in one flat per-slot array: what PIBT's ranking
//! reads for most agents, instead of each agent's record and the route codes it points to.
//!
//! [`super::AgentSet`] keeps one [`Window`] per slot. A change to an agent that can change its
//! window (its route's version, state, position, drift or control: see [`Stamp`]) marks the
//! window stale, at the cost of a byte; [`super::AgentSet::refresh_windows`] decodes the stale
//! ones again, on the pool, before they are read. A window that is not stale always holds the
//! start of what the agent's record would give: an agent that steps onto its route's next cell
//! has its window shifted by one ([`Window::stepped`]) until it runs short, so that walking
//! reads neither the route's codes nor decodes them. (Decoding each window as its agent is
//! changed would put the decoding in the movement's one-thread apply pass.)

use super::{Agent, AgentState, RANK_WINDOW};
use crate::grid::CellId;

/// Route cells a window holds: [`RANK_WINDOW`] plus a drift of up to 4, and four steps more
/// (walking shifts the window: it is decoded again every fifth step).
pub(crate) const WINDOW: usize = 12;

const ON_ROUTE: u8 = 1;
const ARRIVED: u8 = 2;
const CONTROLLED: u8 = 4;
const COMPLETE: u8 = 8;
const STALE: u8 = 16;

/// One slot's window: the agent's route from where it stands (when it follows one), at most
/// [`WINDOW`] cells, with its drift and the few flags ranking asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window {
    cells: [CellId; WINDOW],
    drift: u32,
    len: u8,
    flags: u8,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            cells: [0; WINDOW],
            drift: 0,
            len: 0,
            flags: 0,
        }
    }
}

impl Window {
    /// The window of `agent`.
    pub(crate) fn of(agent: &Agent) -> Window {
        let mut w = Window {
            drift: agent.drift,
            ..Window::default()
        };
        if agent.controlled {
            w.flags |= CONTROLLED;
        }
        if agent.state == AgentState::Arrived {
            w.flags |= ARRIVED;
        }
        if agent.ahead().is_some() {
            w.flags |= ON_ROUTE;
            w.len = agent.route.decode_into(&mut w.cells) as u8;
            if usize::from(w.len) == agent.route.len() {
                w.flags |= COMPLETE;
            }
        }
        w
    }

    /// Marks the window as no longer matching its agent.
    #[inline]
    pub(crate) fn mark_stale(&mut self) {
        self.flags |= STALE;
    }

    /// Whether the window must be decoded again before it is read.
    #[inline]
    pub(crate) fn is_stale(&self) -> bool {
        self.flags & STALE != 0
    }

    /// Whether the agent follows a route and has not arrived: ranking ranks its cells.
    #[inline]
    pub(crate) fn travelling(&self) -> bool {
        self.flags & (ON_ROUTE | ARRIVED) == ON_ROUTE
    }

    /// Whether the agent is driven from outside.
    #[inline]
    pub(crate) fn controlled(&self) -> bool {
        self.flags & CONTROLLED != 0
    }

    /// The route from the agent's cell and its drift, when the window holds the first `drift +
    /// want` cells of it (or all of it); `None` when the agent follows no route or the window
    /// is too short (read the agent's record then).
    #[inline]
    pub(crate) fn ahead(&self, want: usize) -> Option<(&[CellId], u32)> {
        (self.flags & ON_ROUTE != 0
            && (self.flags & COMPLETE != 0 || self.drift as usize + want <= usize::from(self.len)))
        .then(|| (&self.cells[..usize::from(self.len)], self.drift))
    }

    /// Whether the agent follows a route.
    #[inline]
    pub(crate) fn on_route(&self) -> bool {
        self.flags & ON_ROUTE != 0
    }

    /// The route's second cell, when the window is fresh and its agent travels on a route
    /// (not arrived, not controlled).
    #[inline]
    pub(crate) fn second(&self) -> Option<CellId> {
        (self.flags & !COMPLETE == ON_ROUTE && self.len >= 2).then_some(self.cells[1])
    }

    /// The window after its agent stepped onto its second cell ([`Self::second`]), now with
    /// `drift` and arrived or not: the cells shifted by one, not decoded again. Marked stale
    /// instead when fewer cells than ranking reads are left.
    #[inline]
    pub(crate) fn stepped(&mut self, drift: u32, arrived: bool) {
        let len = usize::from(self.len);
        self.cells.copy_within(1..len, 0);
        self.len -= 1;
        self.drift = drift;
        if arrived {
            self.flags |= ARRIVED;
        }
        if self.flags & COMPLETE == 0 && (self.len as usize) < drift as usize + RANK_WINDOW {
            self.mark_stale();
        }
    }

    /// Whether the window is what `agent`'s record gives, or the start of it: a walking
    /// agent's window is shifted ([`Self::stepped`]) rather than decoded again, so it may hold
    /// fewer cells than a fresh one.
    pub(crate) fn agrees_with(&self, agent: &Agent) -> bool {
        let fresh = Window::of(agent);
        let len = usize::from(self.len);
        let complete = agent.ahead().is_some() && len == agent.route.len();
        self.drift == fresh.drift
            && self.len <= fresh.len
            && self.cells[..len] == fresh.cells[..len]
            && self.flags & !COMPLETE == fresh.flags & !COMPLETE
            && (self.flags & COMPLETE != 0) == complete
    }
}

/// What a window depends on in an agent's record: a change to the record that leaves its stamp
/// alone leaves its window alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    version: u32,
    position: CellId,
    drift: u32,
    state: AgentState,
    controlled: bool,
}

impl Stamp {
    /// The stamp of `agent`.
    #[inline]
    pub(crate) fn of(agent: &Agent) -> Stamp {
        Stamp {
            version: agent.route.version(),
            position: agent.position,
            drift: agent.drift,
            state: agent.state,
            controlled: agent.controlled,
        }
    }
}
