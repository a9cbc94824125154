//! The walkable cells packed one bit per cell, twice (row by row and column by column), with
//! the stop bits of Jump Point Search's straight scans.
//!
//! Jump Point Search spends its time scanning straight lines of cells for the first one where
//! the scan must stop: a blocked cell, or a walkable one with a *forced neighbour*, which for
//! grids without corner cutting is a cell beside it (on the line above or below) that is
//! walkable while the cell beside its predecessor is blocked (the rule is derived in
//! `search/jps.rs`). With one bit per cell, a single 64-bit load covers 57 consecutive cells of
//! a line; this is the block-based scan of Harabor and Grastien, "Improving Jump Point Search"
//! (ICAPS 2014), which computes the forced-neighbour test from three loads (the line and the
//! lines on either side) with a few bit operations per block. Here that test is kept
//! precomputed instead, as two *stop planes* per copy (one per scan direction: a bit set where
//! a scan going that way stops), so a scan is one load and a find-first-set per 56 cells, and
//! one load of the walkable bits where it stops to tell a wall from a jump point
//! ([`BitRows::jump_forward`]): fewer instructions per query than the three-line scan
//! (`docs/performance.md`).
//!
//! Rows are contiguous in the row-major copy, so east and west scans read them directly; north
//! and south scans would need one load per cell there, so a second, transposed copy stores each
//! column as a line (its lines are the grid's columns and its positions the grid's rows) and
//! the same code scans it.
//!
//! # Layout
//!
//! Each line is `stride` bytes in each plane, bit `p % 8` of byte `8 + p / 8` being position
//! `p`. The 64 positions before position 0 and at least 64 after the last are blocked (and
//! stop every scan), and so are a whole line before the first and after the last. Every load a
//! scan makes (eight bytes at once) therefore stays inside the buffer, and the edge of the grid
//! reads as a wall without a bounds test. A 512 x 512 map takes 6 planes of 514 lines of
//! 81 bytes, about 250 KB (0.75 bytes per cell plus padding), next to the 262 KB of the grid's
//! move table; building them costs a fifth of what building the whole grid costs.
//!
//! # Keeping in step with the grid
//!
//! [`Grid`](super::Grid) owns one [`WalkBits`], built with its walkable flags and updated in
//! [`Grid::apply`](super::Grid::apply) for every cell whose walkability changes: its bit in
//! both copies and the stop bits of the 3 x 3 cells around it (the only ones whose test reads
//! it), so searches always see the grid as it is. `edits_match_a_fresh_build` below checks
//! that random edits leave exactly the planes of a fresh build.

/// One copy of the walkable bits, `lines` lines of `len` positions, with the two planes of
/// stop bits the scans read (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BitRows {
    /// Walkable positions.
    open: Vec<u8>,
    /// Positions where a scan towards higher positions stops: blocked, or walkable with a
    /// forced neighbour when entered from the position below it.
    stop_up: Vec<u8>,
    /// The same for scans towards lower positions (entered from the position above).
    stop_down: Vec<u8>,
    stride: usize,
    len: usize,
    lines: usize,
}

/// Cells examined per block step. A load at a byte boundary holds 64 bits; the scan starts at
/// any bit of its first byte (up to 7 bits lost) and needs one bit before the first cell (the
/// cell it comes from), which leaves 56 new cells per load.
const BLOCK: usize = 56;
/// Bits 1..=56 of a forward window: the cells a forward block step decides on (bit 0 is the
/// cell before them).
const FORWARD_MASK: u64 = ((1u64 << BLOCK) - 1) << 1;
/// Bits 7..=62 of a backward window (bit 63 is the cell before them).
const BACKWARD_MASK: u64 = ((1u64 << BLOCK) - 1) << 7;

/// Eight bytes of `plane` from `byte` on, as one little-endian word (position order = bit
/// order).
#[inline(always)]
fn load(plane: &[u8], byte: usize) -> u64 {
    let b: [u8; 8] = plane[byte..byte + 8].try_into().expect("eight bytes");
    u64::from_le_bytes(b)
}

impl BitRows {
    /// A copy with every position blocked; the caller fills `open` and then calls
    /// [`refresh_all_stops`](Self::refresh_all_stops).
    fn blocked(lines: usize, len: usize) -> Self {
        // 8 bytes of padding before position 0; position `len` (blocked) may be the first bit
        // of the last load of a forward scan, whose eight bytes must fit too.
        let stride = 8 + len / 8 + 9;
        let size = (lines + 2) * stride;
        BitRows {
            open: vec![0; size],
            // Outside the grid every position stops a scan (it is blocked).
            stop_up: vec![0xFF; size],
            stop_down: vec![0xFF; size],
            stride,
            len,
            lines,
        }
    }

    /// Computes both stop planes from the walkable bits.
    fn refresh_all_stops(&mut self) {
        for line in 0..self.lines {
            for k in 8..=8 + (self.len - 1) / 8 {
                self.refresh_stops(line, k);
            }
        }
    }

    /// The byte holding position `pos` of line `line`, and the bit in it.
    #[inline(always)]
    fn locate(&self, line: usize, pos: usize) -> (usize, u32) {
        ((line + 1) * self.stride + 8 + pos / 8, (pos % 8) as u32)
    }

    /// Recomputes byte `k` (counted from the start of the line, padding included) of both stop
    /// planes of line `line` from the walkable bits of the line and the two beside it. A
    /// position `q` stops a scan towards higher positions when it is blocked or a line beside
    /// it is walkable at `q` and blocked at `q - 1` (a forced neighbour: the rule derived in
    /// `search/jps.rs`); towards lower positions, the same with `q + 1`.
    fn refresh_stops(&mut self, line: usize, k: usize) {
        let at = (line + 1) * self.stride + k;
        let word = |plane: &[u8], at: usize| -> u32 {
            // Bits 8..16 are byte `at`, bits 0..8 the byte before, bits 16..24 the byte after.
            u32::from(plane[at - 1]) | u32::from(plane[at]) << 8 | u32::from(plane[at + 1]) << 16
        };
        let (above, here, below) = (
            word(&self.open, at - self.stride),
            word(&self.open, at),
            word(&self.open, at + self.stride),
        );
        let up = (above & !(above << 1)) | (below & !(below << 1)) | !here;
        let down = (above & !(above >> 1)) | (below & !(below >> 1)) | !here;
        // Only positions 0..len are scanned from; the rest stay stops. Byte `k` (at least 8)
        // holds positions from `(k - 8) * 8` on.
        let inside = self.len - (k - 8) * 8;
        let mask = if inside >= 8 {
            0xFF
        } else {
            (1u8 << inside) - 1
        };
        let keep = |old: u8, new: u32| (old & !mask) | ((new >> 8) as u8 & mask);
        self.stop_up[at] = keep(self.stop_up[at], up);
        self.stop_down[at] = keep(self.stop_down[at], down);
    }

    fn set(&mut self, line: usize, pos: usize, on: bool) {
        debug_assert!(line < self.lines && pos < self.len);
        let (byte, bit) = self.locate(line, pos);
        if on {
            self.open[byte] |= 1 << bit;
        } else {
            self.open[byte] &= !(1 << bit);
        }
        // The stops of positions pos - 1 ..= pos + 1 on this line and the two beside it.
        let lo = 8 + pos.saturating_sub(1) / 8;
        let hi = 8 + (pos + 1).min(self.len - 1) / 8;
        for l in line.saturating_sub(1)..=(line + 1).min(self.lines - 1) {
            for k in lo..=hi {
                self.refresh_stops(l, k);
            }
        }
    }

    /// Whether position `pos` of line `line` is walkable.
    #[cfg(test)]
    pub(crate) fn get(&self, line: usize, pos: usize) -> bool {
        let (byte, bit) = self.locate(line, pos);
        self.open[byte] >> bit & 1 != 0
    }

    /// Straight jump along line `line` towards higher positions (east in the row-major copy,
    /// south in the transposed one), from the walkable position `pos`, for grids without corner
    /// cutting: the number of steps to the first position with a forced neighbour, or 0 when
    /// the scan runs into a wall first. The goal is not looked for: the search checks before
    /// scanning whether it is in sight (see `search/jps.rs`).
    ///
    /// One load of the stop plane decides 56 positions: the first set bit after the start is
    /// where the scan ends, and the walkable bit there says whether it ends at a jump point
    /// or at a wall.
    #[inline(always)]
    pub(crate) fn jump_forward(&self, line: usize, pos: usize) -> usize {
        let (mut byte, mut shift) = self.locate(line, pos);
        // Bit 0 of the first window is `pos` itself; `done` = steps from `pos` to bit 0.
        let mut done = 0usize;
        loop {
            let events = (load(&self.stop_up, byte) >> shift) & FORWARD_MASK;
            if events != 0 {
                let j = events.trailing_zeros() as usize;
                let open = load(&self.open, byte) >> shift >> j & 1 != 0;
                // A blocked cell ends the scan with nothing; a forced neighbour `j` steps on.
                return if open { done + j } else { 0 };
            }
            // Bit 56 (the last cell decided) becomes bit 0 of the next window.
            let next = byte * 8 + shift as usize + BLOCK;
            byte = next / 8;
            shift = (next % 8) as u32;
            done += BLOCK;
        }
    }

    /// [`jump_forward`](Self::jump_forward) towards lower positions (west, or north in the
    /// transposed copy), reading the other stop plane.
    #[inline(always)]
    pub(crate) fn jump_backward(&self, line: usize, pos: usize) -> usize {
        let (byte, bit) = self.locate(line, pos);
        // The window is the eight bytes ending with `pos`'s byte, shifted so that `pos` is
        // bit 63; bit 63 - j is `j` steps back. `at` is the bit index of the window's top bit
        // in the buffer.
        let mut at = byte * 8 + bit as usize;
        let mut done = 0usize;
        loop {
            let (top, shift) = (at / 8 - 7, 7 - (at % 8) as u32);
            let events = (load(&self.stop_down, top) << shift) & BACKWARD_MASK;
            if events != 0 {
                let j = events.leading_zeros() as usize;
                let open = (load(&self.open, top) << shift) >> (63 - j) & 1 != 0;
                return if open { done + j } else { 0 };
            }
            at -= BLOCK;
            done += BLOCK;
        }
    }

    /// Whether positions `pos + 1 ..= pos + n` of line `line` are all walkable (the straight
    /// part of a path to the goal in sight).
    #[inline(always)]
    pub(crate) fn open_forward(&self, line: usize, pos: usize, n: usize) -> bool {
        let (mut byte, mut shift) = self.locate(line, pos);
        let mut left = n;
        loop {
            let r = load(&self.open, byte) >> shift;
            let want = if left < BLOCK {
                ((1u64 << left) - 1) << 1
            } else {
                FORWARD_MASK
            };
            if !r & want != 0 {
                return false;
            }
            if left <= BLOCK {
                return true;
            }
            let next = byte * 8 + shift as usize + BLOCK;
            byte = next / 8;
            shift = (next % 8) as u32;
            left -= BLOCK;
        }
    }

    /// Whether positions `pos - n ..= pos - 1` of line `line` are all walkable.
    #[inline(always)]
    pub(crate) fn open_backward(&self, line: usize, pos: usize, n: usize) -> bool {
        let (byte, bit) = self.locate(line, pos);
        let mut at = byte * 8 + bit as usize;
        let mut left = n;
        loop {
            let r = load(&self.open, at / 8 - 7) << (7 - (at % 8) as u32);
            let want = if left < BLOCK {
                ((1u64 << left) - 1) << (63 - left)
            } else {
                BACKWARD_MASK
            };
            if !r & want != 0 {
                return false;
            }
            if left <= BLOCK {
                return true;
            }
            at -= BLOCK;
            left -= BLOCK;
        }
    }
}

/// Up to eight flags as the bits of a byte, the first in bit 0.
fn pack(flags: impl Iterator<Item = bool>) -> u8 {
    flags
        .take(8)
        .enumerate()
        .fold(0, |byte, (i, on)| byte | u8::from(on) << i)
}

/// The walkable cells of a grid as bits, row-major and transposed (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WalkBits {
    /// Line `y`, position `x`.
    pub(crate) rows: BitRows,
    /// Line `x`, position `y`.
    pub(crate) cols: BitRows,
}

impl WalkBits {
    /// The bits of a `width x height` grid with these walkable flags (row by row).
    pub(crate) fn new(width: u32, height: u32, walkable: &[bool]) -> Self {
        let (w, h) = (width as usize, height as usize);
        debug_assert_eq!(walkable.len(), w * h);
        let mut rows = BitRows::blocked(h, w);
        let mut cols = BitRows::blocked(w, h);
        // Eight rows at a time: the byte of row bits at each 8 columns, and the byte of column
        // bits at each column (reading the eight rows side by side keeps it sequential).
        for y0 in (0..h).step_by(8) {
            let band = &walkable[y0 * w..(y0 + 8).min(h) * w];
            for (dy, row) in band.chunks_exact(w).enumerate() {
                let (at, _) = rows.locate(y0 + dy, 0);
                for (k, cells) in row.chunks(8).enumerate() {
                    rows.open[at + k] = pack(cells.iter().copied());
                }
            }
            for x in 0..w {
                let (at, _) = cols.locate(x, y0);
                cols.open[at] = pack(band.iter().skip(x).step_by(w).copied());
            }
        }
        rows.refresh_all_stops();
        cols.refresh_all_stops();
        WalkBits { rows, cols }
    }

    /// Sets cell `(x, y)` walkable or blocked in both copies.
    pub(crate) fn set(&mut self, x: usize, y: usize, walkable: bool) {
        self.rows.set(y, x, walkable);
        self.cols.set(x, y, walkable);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan one cell at a time, the definition the block scans must match: `dir` +1 or -1
    /// along the line, `open(line, pos)` walkable (false outside).
    fn by_cell(open: &dyn Fn(isize, isize) -> bool, line: isize, pos: isize, dir: isize) -> usize {
        let mut p = pos;
        let mut steps = 0;
        loop {
            let q = p + dir;
            if !open(line, q) {
                return 0;
            }
            steps += 1;
            let forced = |side: isize| open(side, q) && !open(side, p);
            if forced(line - 1) || forced(line + 1) {
                return steps;
            }
            p = q;
        }
    }

    /// Steps from `pos` in direction `dir` before the first blocked position.
    fn open_run(open: &dyn Fn(isize, isize) -> bool, line: isize, pos: isize, dir: isize) -> usize {
        let mut n = 0;
        while open(line, pos + dir * (n as isize + 1)) {
            n += 1;
        }
        n
    }

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    /// Block scans and open-run checks against the cell-by-cell definitions, both directions,
    /// both copies, on random maps of every width from 1 to 200 (around the block and word
    /// sizes), sparse and dense walls, and walls at word boundaries.
    #[test]
    fn block_scans_match_cell_by_cell() {
        let mut rng = Lcg(7);
        let mut checked = 0;
        for case in 0..400 {
            let width = 1 + (case % 200);
            let height = 1 + (rng.next() % 5) as usize;
            let density = [0, 3, 10, 30, 50][case % 5];
            let walkable: Vec<bool> = (0..width * height)
                .map(|i| {
                    let x = i % width;
                    if case % 7 == 0 {
                        // Walls only next to multiples of 8 and 64, half of the time.
                        !(x % 8 == 7 || x % 64 == 0 || x % 56 == 0) || rng.next() & 1 == 0
                    } else {
                        rng.next() % 100 >= density
                    }
                })
                .collect();
            let bits = WalkBits::new(width as u32, height as u32, &walkable);
            let open = |x: isize, y: isize| {
                x >= 0
                    && y >= 0
                    && (x as usize) < width
                    && (y as usize) < height
                    && walkable[y as usize * width + x as usize]
            };
            let row_open = |l: isize, p: isize| open(p, l);
            for y in 0..height {
                for x in 0..width {
                    assert_eq!(bits.rows.get(y, x), walkable[y * width + x]);
                    assert_eq!(bits.cols.get(x, y), walkable[y * width + x]);
                    if !walkable[y * width + x] {
                        continue;
                    }
                    let (xi, yi) = (x as isize, y as isize);
                    let at = format!("({x}, {y}) on {width} x {height}");
                    assert_eq!(
                        bits.rows.jump_forward(y, x),
                        by_cell(&row_open, yi, xi, 1),
                        "east {at}"
                    );
                    assert_eq!(
                        bits.rows.jump_backward(y, x),
                        by_cell(&row_open, yi, xi, -1),
                        "west {at}"
                    );
                    assert_eq!(
                        bits.cols.jump_forward(x, y),
                        by_cell(&open, xi, yi, 1),
                        "south {at}"
                    );
                    assert_eq!(
                        bits.cols.jump_backward(x, y),
                        by_cell(&open, xi, yi, -1),
                        "north {at}"
                    );
                    // Open runs: every length up to one past the first wall.
                    let runs = [
                        (open_run(&row_open, yi, xi, 1), x, width - 1 - x),
                        (open_run(&row_open, yi, xi, -1), x, x),
                    ];
                    for n in 0..=(runs[0].0 + 1).min(runs[0].2) {
                        assert_eq!(
                            bits.rows.open_forward(y, x, n),
                            n <= runs[0].0,
                            "{at} east {n}"
                        );
                    }
                    for n in 0..=(runs[1].0 + 1).min(runs[1].2) {
                        assert_eq!(
                            bits.rows.open_backward(y, x, n),
                            n <= runs[1].0,
                            "{at} west {n}"
                        );
                    }
                    let south = open_run(&open, xi, yi, 1);
                    for n in 0..=(south + 1).min(height - 1 - y) {
                        assert_eq!(
                            bits.cols.open_forward(x, y, n),
                            n <= south,
                            "{at} south {n}"
                        );
                    }
                    let north = open_run(&open, xi, yi, -1);
                    for n in 0..=(north + 1).min(y) {
                        assert_eq!(
                            bits.cols.open_backward(x, y, n),
                            n <= north,
                            "{at} north {n}"
                        );
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 20_000, "{checked}");
    }

    /// One-cell-wide maps: the padding is the only thing beside the line.
    #[test]
    fn one_wide_maps() {
        for len in [1usize, 2, 56, 57, 63, 64, 65, 120, 200] {
            let bits = WalkBits::new(len as u32, 1, &vec![true; len]);
            // A single open row: no forced neighbours, the scan ends at the edge with nothing.
            assert_eq!(bits.rows.jump_forward(0, 0), 0);
            assert_eq!(bits.rows.jump_backward(0, len - 1), 0);
            assert!(bits.rows.open_forward(0, 0, len - 1));
            assert!(bits.rows.open_backward(0, len - 1, len - 1));
            let bits = WalkBits::new(1, len as u32, &vec![true; len]);
            assert_eq!(bits.cols.jump_forward(0, 0), 0);
            assert!(bits.cols.open_forward(0, 0, len - 1));
        }
    }

    /// Random edits, one cell at a time, leave exactly the bits and stop planes a fresh build
    /// of the edited map has.
    #[test]
    fn edits_match_a_fresh_build() {
        let mut rng = Lcg(3);
        for (w, h) in [(1, 1), (1, 9), (9, 1), (64, 3), (65, 7), (130, 5), (17, 70)] {
            let mut walkable: Vec<bool> = (0..w * h).map(|_| rng.next() & 3 != 0).collect();
            let mut bits = WalkBits::new(w as u32, h as u32, &walkable);
            for _ in 0..300 {
                let (x, y) = (
                    (rng.next() % w as u64) as usize,
                    (rng.next() % h as u64) as usize,
                );
                let on = rng.next() & 1 == 0;
                walkable[y * w + x] = on;
                bits.set(x, y, on);
                assert_eq!(
                    bits,
                    WalkBits::new(w as u32, h as u32, &walkable),
                    "{w} x {h}"
                );
            }
        }
    }

    #[test]
    fn set_updates_both_copies() {
        let mut bits = WalkBits::new(70, 3, &[true; 210]);
        bits.set(64, 1, false);
        assert!(!bits.rows.get(1, 64) && !bits.cols.get(64, 1));
        assert_eq!(bits.rows.jump_forward(1, 0), 0);
        assert!(bits.rows.open_forward(1, 60, 3) && !bits.rows.open_forward(1, 60, 4));
        // The rows beside it now have forced neighbours at column 65.
        assert_eq!(bits.rows.jump_forward(0, 0), 65);
        assert_eq!(bits.rows.jump_backward(2, 69), 69 - 63);
        bits.set(64, 1, true);
        assert_eq!(bits, WalkBits::new(70, 3, &[true; 210]));
    }
}
