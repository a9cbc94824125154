//! An agent's route, compact: the route's first cell (where the agent stands on it), then one
//! 4-bit code a step instead of a 32-bit cell a step.
//!
//! A step's code names the move from one cell to the next by its difference of cell ids
//! (`-w - 1`, `-w`, `-w + 1`, `-1`, `+1`, `w - 1`, `w`, `w + 1` on a grid `w` wide, and `0` for a
//! route that stays a step); any other difference (a route that jumps, as a hand-given one may)
//! is an escape code followed by the next cell in full. Decoding adds the difference back, so a
//! route reads back exactly as it was given, whatever the grid's geometry.
//!
//! The codes are a stack, the next step on top: walking pops, a splice after a push pushes, and
//! the cells behind the agent are gone (the buffer keeps its capacity until the next plan, so
//! walking does not allocate; given back as walked, the small blocks freed fragmented the
//! allocator's heaps: `docs/performance.md`). Every change bumps a version, which tells
//! [`super::AgentSet`] when the decoded window it mirrors for ranking is stale.

use std::borrow::Cow;

use crate::grid::{CellId, NO_CELL};

/// The code of a step to a cell given in full (the cell's eight nibbles follow it).
const ESCAPE: u8 = 15;

/// Columns and rows moved by each code (0 to 8; the rest are not steps).
const DX: [i8; 16] = [-1, 0, 1, -1, 1, -1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
const DY: [i8; 16] = [-1, -1, -1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0];

/// The difference of cell ids a step of `code` makes on a grid `width` wide.
#[inline]
fn offset(code: u8, width: u32) -> i64 {
    let c = usize::from(code & 15);
    i64::from(DY[c]) * i64::from(width) + i64::from(DX[c])
}

/// The code of the step `delta` (a difference of cell ids) on a grid `width` wide, if one is.
#[inline]
fn code_of(delta: i64, width: u32) -> Option<u8> {
    let w = i64::from(width);
    if w >= 3 {
        // Row from the size of the jump (unambiguous on a grid at least 3 wide), then column.
        let (row, dx) = if delta < -1 {
            (0, delta + w)
        } else if delta > 1 {
            (2, delta - w)
        } else {
            (1, delta)
        };
        if !(-1..=1).contains(&dx) {
            return None;
        }
        return Some([[0, 1, 2], [3, 8, 4], [5, 6, 7]][row][(dx + 1) as usize]);
    }
    (0..=8).find(|&c| offset(c, width) == delta)
}

/// A route kept as its first cell and a stack of step codes (see the module docs).
#[derive(Clone)]
pub(crate) struct RouteCode {
    /// The route's first cell; [`NO_CELL`] for no route.
    first: CellId,
    /// Cells after `first`.
    steps: u32,
    /// Nibbles on the stack.
    nibbles: u32,
    /// The grid's width, which the codes are relative to.
    width: u32,
    /// Bumped on every change.
    version: u32,
    /// The stack, two nibbles a byte (low nibble first); the next step's code is the last
    /// nibble. When the count is odd the last byte's high nibble is not part of the stack and
    /// may hold a popped code ([`advance_step`](Self::advance_step) leaves it, so that a step
    /// does not touch the buffer); [`parts`](Self::parts) gives it cleared.
    codes: Vec<u8>,
}

/// The cells and the buffer's size: what the route is, not how it got there (its version).
impl std::fmt::Debug for RouteCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RouteCode")
            .field("cells", &self.cells().collect::<Vec<_>>())
            .field("bytes", &self.bytes())
            .finish_non_exhaustive()
    }
}

impl Default for RouteCode {
    fn default() -> Self {
        RouteCode {
            first: NO_CELL,
            steps: 0,
            nibbles: 0,
            width: 0,
            version: 0,
            codes: Vec::new(),
        }
    }
}

impl RouteCode {
    /// The route `cells` on a grid `width` wide (no route when `cells` is empty).
    #[cfg(test)]
    pub(crate) fn from_cells(cells: &[CellId], width: u32) -> RouteCode {
        let mut route = RouteCode::default();
        route.set(cells, width);
        route
    }

    /// Replaces the route with `cells` on a grid `width` wide, in a buffer of about its size.
    pub(crate) fn set(&mut self, cells: &[CellId], width: u32) {
        self.reset();
        let Some(&first) = cells.first() else {
            return;
        };
        self.width = width;
        let needed = cells.len().div_ceil(2);
        if self.codes.capacity() > 2 * needed + 16 {
            self.codes = Vec::new();
        }
        self.codes.reserve_exact(needed);
        for pair in cells.windows(2).rev() {
            self.push_step(pair[0], pair[1]);
        }
        self.first = first;
        self.steps = (cells.len() - 1) as u32;
    }

    /// Drops the route and its buffer.
    pub(crate) fn clear(&mut self) {
        self.reset();
        self.codes = Vec::new();
    }

    /// Drops the route, keeping the buffer.
    fn reset(&mut self) {
        self.first = NO_CELL;
        self.steps = 0;
        self.nibbles = 0;
        self.codes.clear();
        self.bump();
    }

    /// Takes `other`'s route (leaving `other` without one and without a buffer); the version
    /// goes on from this route's.
    pub(crate) fn take(&mut self, other: &mut RouteCode) {
        let version = self.version;
        std::mem::swap(self, other);
        self.version = version.wrapping_add(1);
        other.clear();
    }

    #[inline]
    fn bump(&mut self) {
        self.version = self.version.wrapping_add(1);
    }

    /// A number that changes whenever the route does.
    #[inline]
    pub(crate) fn version(&self) -> u32 {
        self.version
    }

    /// The route's first cell, if there is a route.
    #[inline]
    pub(crate) fn first(&self) -> Option<CellId> {
        (self.first != NO_CELL).then_some(self.first)
    }

    /// Cells on the route (0 for none).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        if self.first == NO_CELL {
            0
        } else {
            self.steps as usize + 1
        }
    }

    /// Bytes of the buffer (its capacity).
    #[inline]
    pub(crate) fn bytes(&self) -> usize {
        self.codes.capacity()
    }

    /// The route's cells, first to last.
    #[inline]
    pub(crate) fn cells(&self) -> Cells<'_> {
        Cells {
            codes: &self.codes,
            width: self.width,
            next: self.first,
            left: self.len() as u32,
            top: self.nibbles,
        }
    }

    /// The route's second cell (the next one to step to), if it has one.
    #[inline]
    pub(crate) fn second(&self) -> Option<CellId> {
        let mut cells = self.cells();
        cells.next();
        cells.next()
    }

    /// Writes the route's first cells into `out` (as many as fit), in one tight loop; returns
    /// how many it wrote.
    pub(crate) fn decode_into(&self, out: &mut [CellId]) -> usize {
        let n = self.len().min(out.len());
        if n == 0 {
            return 0;
        }
        let w = i64::from(self.width);
        let offsets: [i64; 9] = std::array::from_fn(|c| i64::from(DY[c]) * w + i64::from(DX[c]));
        let mut at = i64::from(self.first);
        let mut top = self.nibbles as usize;
        let codes = &self.codes[..];
        let nibble = |i: usize| (codes[i / 2] >> ((i % 2) * 4)) & 15;
        out[0] = self.first;
        for slot in &mut out[1..n] {
            top -= 1;
            let code = nibble(top);
            if code == ESCAPE {
                let mut to = 0i64;
                for k in 0..8 {
                    top -= 1;
                    to |= i64::from(nibble(top)) << (4 * k);
                }
                at = to;
            } else {
                at += offsets[usize::from(code).min(8)];
            }
            *slot = at as CellId;
        }
        n
    }

    /// The index of the first of cells `1..=count` that is `cell` (the route's first cell is
    /// index 0), decoding no further than that: a move's search for its cell on the route, in
    /// one tight loop.
    pub(crate) fn find(&self, cell: CellId, count: usize) -> Option<usize> {
        let w = i64::from(self.width);
        let offsets: [i64; 9] = std::array::from_fn(|c| i64::from(DY[c]) * w + i64::from(DX[c]));
        let mut at = i64::from(self.first);
        let mut top = self.nibbles as usize;
        let codes = &self.codes[..];
        let nibble = |i: usize| (codes[i / 2] >> ((i % 2) * 4)) & 15;
        for j in 1..=count.min(self.steps as usize) {
            top -= 1;
            let code = nibble(top);
            if code == ESCAPE {
                let mut to = 0i64;
                for k in 0..8 {
                    top -= 1;
                    to |= i64::from(nibble(top)) << (4 * k);
                }
                at = to;
            } else {
                at += offsets[usize::from(code).min(8)];
            }
            if at as CellId == cell {
                return Some(j);
            }
        }
        None
    }

    /// Drops the first `k` cells (fewer than the route has).
    pub(crate) fn advance(&mut self, k: usize) {
        debug_assert!(k < self.len());
        if k == 0 {
            return;
        }
        // Reading cell `k - 1` decodes cell `k` (and only the steps up to it).
        let mut cells = self.cells();
        cells.nth(k - 1).expect("advancing within the route");
        let (first, top) = (cells.next, cells.top);
        self.first = first;
        self.steps -= k as u32;
        if self.steps == 0 {
            // At the end of the route: nothing left to code.
            self.nibbles = 0;
            self.codes = Vec::new();
        } else {
            self.truncate(top);
        }
        self.bump();
    }

    /// Asks for the buffer's top byte (the next steps' codes) ahead of a read (see
    /// [`crate::prefetch`]).
    #[inline]
    pub(crate) fn prefetch(&self) {
        if self.nibbles > 0 {
            crate::prefetch::prefetch(
                self.codes
                    .as_ptr()
                    .wrapping_add((self.nibbles as usize - 1) / 2),
            );
        }
    }

    /// Drops the first cell when `next` is the route's second cell and the step to it is one
    /// move (one code): the top nibble goes without reading the buffer, so a walking agent's
    /// step touches its record only. Returns false, changing nothing, when the route has no
    /// second cell or the step to `next` is not one move; the caller vouches that `next` is
    /// the second cell (a decoded window says so).
    #[inline]
    pub(crate) fn advance_step(&mut self, next: CellId) -> bool {
        if self.steps == 0 || code_of(i64::from(next) - i64::from(self.first), self.width).is_none()
        {
            return false;
        }
        // A step that is one move is coded in one nibble (`push_step`; `from_parts` refuses
        // anything else).
        self.first = next;
        self.steps -= 1;
        if self.steps == 0 {
            self.nibbles = 0;
            self.codes = Vec::new();
        } else {
            self.nibbles -= 1;
            self.codes.truncate(self.nibbles.div_ceil(2) as usize);
        }
        self.bump();
        true
    }

    /// Puts `cell` before the route's first cell (a route of one cell when there is none).
    pub(crate) fn push_front(&mut self, cell: CellId, width: u32) {
        if self.first == NO_CELL {
            self.set(&[cell], width);
            return;
        }
        if self.steps == 0 {
            self.width = width; // no code depends on the width yet
        }
        self.push_step(cell, self.first);
        self.first = cell;
        self.steps += 1;
        self.bump();
    }

    /// Pushes the code of the step `from -> to`.
    fn push_step(&mut self, from: CellId, to: CellId) {
        let delta = i64::from(to) - i64::from(from);
        match code_of(delta, self.width) {
            Some(code) => self.push(code),
            None => {
                for k in (0..8).rev() {
                    self.push(((to >> (4 * k)) & 15) as u8);
                }
                self.push(ESCAPE);
            }
        }
    }

    #[inline]
    fn push(&mut self, nibble: u8) {
        if self.nibbles & 1 == 0 {
            self.codes.push(nibble);
        } else {
            let last = self.codes.last_mut().expect("an odd count has a last byte");
            *last = (*last & 15) | nibble << 4;
        }
        self.nibbles += 1;
    }

    /// Keeps the first `nibbles` nibbles of the stack.
    fn truncate(&mut self, nibbles: u32) {
        self.nibbles = nibbles;
        self.codes.truncate(nibbles.div_ceil(2) as usize);
        if nibbles % 2 == 1 {
            self.codes[nibbles as usize / 2] &= 15;
        }
    }

    /// The raw parts, for a snapshot: first cell, steps, the grid width, nibbles, the stack
    /// (a byte's unused high nibble cleared: a copy when it was not).
    pub(crate) fn parts(&self) -> (CellId, u32, u32, u32, Cow<'_, [u8]>) {
        let mut codes = Cow::Borrowed(&self.codes[..]);
        if self.nibbles % 2 == 1 && codes.last().is_some_and(|b| b >> 4 != 0) {
            let last = codes
                .to_mut()
                .last_mut()
                .expect("an odd count has a last byte");
            *last &= 15;
        }
        (self.first, self.steps, self.width, self.nibbles, codes)
    }

    /// A route from the parts [`parts`](Self::parts) gave, in a buffer of `capacity` bytes;
    /// `None` when they do not make a route on a grid `grid_width` wide whose every cell is
    /// below `cells`.
    pub(crate) fn from_parts(
        (first, steps, width, nibbles, codes): (CellId, u32, u32, u32, impl AsRef<[u8]>),
        capacity: usize,
        cells: usize,
        grid_width: u32,
    ) -> Option<RouteCode> {
        let codes = codes.as_ref();
        // Every step takes at least one nibble (which also bounds the decoding below), and a
        // route with steps is coded for the grid's own width.
        if steps > nibbles
            || (steps > 0 && width != grid_width)
            || codes.len() != nibbles.div_ceil(2) as usize
            || (nibbles % 2 == 1 && codes.last().is_some_and(|b| b >> 4 != 0))
            || (first == NO_CELL && (steps != 0 || nibbles != 0))
            || capacity < codes.len()
        {
            return None;
        }
        let mut buffer = Vec::with_capacity(capacity);
        buffer.extend_from_slice(codes);
        let route = RouteCode {
            first,
            steps,
            nibbles,
            width,
            version: 0,
            codes: buffer,
        };
        if first != NO_CELL {
            // Every step decodes within the stack, onto a cell of the grid, and uses it all.
            let mut it = route.cells();
            let mut count = 0u32;
            while it.left > 0 {
                if it.next as usize >= cells {
                    return None;
                }
                if it.left > 1 && !it.can_step() {
                    return None;
                }
                // A step that is one move has its one code, never an escape (walking pops such
                // a step as one nibble: `advance_step`).
                let escaped = it.left > 1 && it.nibble(it.top - 1) == ESCAPE;
                let from = it.next;
                it.next();
                if escaped && code_of(i64::from(it.next) - i64::from(from), width).is_some() {
                    return None;
                }
                count += 1;
            }
            if it.top != 0 || u64::from(count) != u64::from(steps) + 1 {
                return None;
            }
        }
        Some(route)
    }
}

/// The cells of a [`RouteCode`], decoded as they are read.
#[derive(Debug, Clone)]
pub(crate) struct Cells<'a> {
    codes: &'a [u8],
    width: u32,
    /// The cell the next call returns.
    next: CellId,
    /// Cells left to return.
    left: u32,
    /// Nibbles not read yet (the next step's code is nibble `top - 1`).
    top: u32,
}

impl Cells<'_> {
    /// No cells.
    pub(crate) fn empty() -> Cells<'static> {
        Cells {
            codes: &[],
            width: 0,
            next: NO_CELL,
            left: 0,
            top: 0,
        }
    }

    #[inline]
    fn nibble(&self, i: u32) -> u8 {
        (self.codes[i as usize / 2] >> ((i % 2) * 4)) & 15
    }

    /// Reads the step on top, an escape code and the cell after it in full.
    #[cold]
    fn escape(&mut self) {
        self.top -= 1;
        let mut to = 0u32;
        for k in 0..8 {
            self.top -= 1;
            to |= u32::from(self.nibble(self.top)) << (4 * k);
        }
        self.next = to;
    }

    /// Whether the stack holds a whole step's code on top (a snapshot's check).
    fn can_step(&self) -> bool {
        self.top >= 1
            && match self.nibble(self.top - 1) {
                ESCAPE => self.top >= 9,
                code => code <= 8,
            }
    }
}

impl Iterator for Cells<'_> {
    type Item = CellId;

    #[inline]
    fn next(&mut self) -> Option<CellId> {
        if self.left == 0 {
            return None;
        }
        let cell = self.next;
        self.left -= 1;
        if self.left > 0 {
            let top = self.top - 1;
            let code = self.nibble(top);
            if code == ESCAPE {
                self.escape();
            } else {
                self.top = top;
                self.next = (i64::from(cell) + offset(code, self.width)) as CellId;
            }
        }
        Some(cell)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for Cells<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(route: &RouteCode) -> Vec<CellId> {
        route.cells().collect()
    }

    #[test]
    fn a_route_reads_back_as_given_whatever_its_steps() {
        let width = 10;
        // The eight moves, a stay, and jumps (a hand-given route, and cells past 2^28).
        let given = [
            55,
            44,
            45,
            46,
            56,
            66,
            65,
            64,
            54,
            54,
            7,
            3_000_000_000,
            0,
            1,
        ];
        let route = RouteCode::from_cells(&given, width);
        assert_eq!(cells(&route), given);
        assert_eq!(route.len(), given.len());
        assert_eq!(route.cells().len(), given.len());
        assert_eq!(route.second(), Some(44));
        for (j, &c) in given.iter().enumerate().skip(1) {
            let first = given[1..].iter().position(|&g| g == c).unwrap() + 1;
            assert_eq!(route.find(c, given.len()), Some(first));
            assert_eq!(route.find(c, first - 1), None, "not within {}", first - 1);
            assert!(j >= first);
        }
        assert_eq!(route.find(99, 100), None);
        let mut out = [0; 20];
        assert_eq!(route.decode_into(&mut out), given.len());
        assert_eq!(out[..given.len()], given);
        assert_eq!(route.decode_into(&mut out[..3]), 3);
        assert_eq!(out[..3], given[..3]);
        // Eight plain steps and a stay take a nibble each; the three jumps nine each.
        assert_eq!(route.nibbles, 10 + 3 * 9);
        for width in [1, 2, 3, 4] {
            let given = [0, 1, 2, 5, 4, 4, 3, 0, 9, 4, 8];
            assert_eq!(cells(&RouteCode::from_cells(&given, width)), given);
        }
    }

    #[test]
    fn advancing_and_pushing_keep_the_rest() {
        let given: Vec<CellId> = (0..20).map(|i| 100 + i * 11).collect();
        let mut route = RouteCode::from_cells(&given, 10);
        let v = route.version();
        route.advance(3);
        assert_ne!(route.version(), v);
        assert_eq!(cells(&route), given[3..]);
        route.push_front(given[3] - 1, 10);
        route.push_front(2_000, 10); // a jump
        let mut expected = vec![2_000, given[3] - 1];
        expected.extend_from_slice(&given[3..]);
        assert_eq!(cells(&route), expected);
        route.advance(2);
        assert_eq!(cells(&route), given[3..]);
        route.advance(route.len() - 1);
        assert_eq!(cells(&route), [*given.last().unwrap()]);
        assert_eq!(route.second(), None);
        route.clear();
        assert_eq!((route.len(), route.first(), route.bytes()), (0, None, 0));
        route.push_front(9, 10);
        assert_eq!(cells(&route), [9]);
    }

    /// A step popped without reading the buffer leaves the route `advance(1)` leaves, whatever
    /// the parity of the stack, and what is pushed or saved after it reads back right.
    #[test]
    fn a_step_popped_blind_is_a_step_advanced() {
        // Every step one move on a grid 10 wide, but the jump 16 -> 90 (an escape).
        let given: Vec<CellId> = vec![5, 6, 16, 90, 91, 92, 82, 81];
        for start in 0..given.len() - 1 {
            let mut blind = RouteCode::from_cells(&given, 10);
            let mut read = RouteCode::from_cells(&given, 10);
            blind.advance(start);
            read.advance(start);
            let (second, v) = (read.second().unwrap(), blind.version());
            let one_move = given[start] != 16;
            assert_eq!(
                blind.advance_step(second),
                one_move,
                "from {}",
                given[start]
            );
            if !one_move {
                assert_eq!(blind.version(), v, "refused: nothing changed");
                continue;
            }
            read.advance(1);
            assert_eq!(cells(&blind), cells(&read));
            assert_eq!((blind.len(), blind.first()), (read.len(), read.first()));
            // Saved and restored, and pushed onto, as the route advanced by reading it.
            let back = RouteCode::from_parts(blind.parts(), 16, 100, 10).expect("valid parts");
            assert_eq!(cells(&back), cells(&read));
            if blind.len() > 0 {
                let front = blind.first().unwrap() - 1;
                blind.push_front(front, 10);
                read.push_front(front, 10);
                assert_eq!(cells(&blind), cells(&read));
                assert_eq!(blind.parts().4, read.parts().4);
            }
        }
        let mut last = RouteCode::from_cells(&[81, 82], 10);
        assert!(last.advance_step(82));
        assert_eq!((cells(&last), last.bytes()), (vec![82], 0));
        assert!(!last.advance_step(83), "no second cell");
    }

    #[test]
    fn parts_round_trip_and_bad_parts_are_refused() {
        let route = RouteCode::from_cells(&[5, 6, 16, 90, 91], 10);
        let back = RouteCode::from_parts(route.parts(), 8, 100, 10).unwrap();
        assert_eq!(cells(&back), [5, 6, 16, 90, 91]);
        assert_eq!(back.bytes(), 8);
        assert!(
            RouteCode::from_parts(route.parts(), 8, 91, 10).is_none(),
            "off the grid"
        );
        let (first, steps, width, nibbles, codes) = route.parts();
        let codes = &*codes;
        let parts = |steps, width| (first, steps, width, nibbles, codes);
        assert!(RouteCode::from_parts(parts(steps + 1, width), 8, 100, 10).is_none());
        assert!(RouteCode::from_parts(parts(steps - 1, width), 8, 100, 10).is_none());
        assert!(RouteCode::from_parts(parts(steps, width), 1, 100, 10).is_none());
        // The fuzzer's case: steps so many that their count wrapped (it panicked).
        assert!(RouteCode::from_parts(parts(u32::MAX, width), 8, 100, 10).is_none());
        assert!(
            RouteCode::from_parts(parts(steps, width), 8, 100, 11).is_none(),
            "coded for another width"
        );
        let empty = RouteCode::default();
        assert_eq!(
            RouteCode::from_parts(empty.parts(), 0, 100, 10)
                .unwrap()
                .len(),
            0
        );
        // A single move coded as an escape (a step popped as one nibble would split it).
        let mut escaped = RouteCode {
            first: 5,
            steps: 1,
            width: 10,
            ..RouteCode::default()
        };
        for k in (0..8).rev() {
            escaped.push(((6u32 >> (4 * k)) & 15) as u8);
        }
        escaped.push(ESCAPE);
        assert_eq!(cells(&escaped), [5, 6]);
        assert!(
            RouteCode::from_parts(escaped.parts(), 8, 100, 10).is_none(),
            "an escape for one move"
        );
        let one = RouteCode::from_cells(&[7], 0);
        assert_eq!(
            cells(&RouteCode::from_parts(one.parts(), 1, 100, 10).unwrap()),
            [7]
        );
    }
}
