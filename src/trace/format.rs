//! Constants and byte-level encoding of the trace format (see `docs/trace-format.md`).
//!
//! Integers in the body are unsigned LEB128 varints (7 bits a byte, low bits first) unless
//! said otherwise; cells are [`CellId`]s (`y * width + x`).

use crate::grid::{CellId, Direction};

/// The first eight bytes of every trace file.
pub const MAGIC: [u8; 8] = *b"THRTRACE";
/// The format version this build writes and reads.
pub const VERSION: u16 = 1;
/// Header flag: the body (everything after the 12-byte header) is a zlib stream (RFC 1950,
/// DEFLATE), as `DecompressionStream("deflate")` reads it.
pub const FLAG_DEFLATE: u16 = 1;
/// Flags this build understands; a file with any other bit set is refused.
pub const KNOWN_FLAGS: u16 = FLAG_DEFLATE;
/// Bytes of the header: magic, version (u16 little-endian), flags (u16 little-endian).
pub const HEADER_LEN: usize = 12;

/// The most agents one trace may name over the whole run (live or removed): a reader refuses
/// more rather than allocate for them.
pub const MAX_AGENTS: u64 = 1 << 24;
/// The largest body of one tick record, in bytes.
pub const MAX_RECORD_LEN: u64 = 1 << 28;
/// The most ticks a trace may hold.
pub const MAX_TICKS: u64 = 1 << 32;

/// Record tag of a tick.
pub const TAG_TICK: u8 = b'T';
/// Record tag of the end record.
pub const TAG_END: u8 = b'E';

/// Event tag: a cell became walkable (followed by the cell).
pub const EVENT_OPEN: u8 = 1;
/// Event tag: a cell became blocked (followed by the cell).
pub const EVENT_BLOCK: u8 = 2;
/// Event tag: an agent appeared (followed by its cell, goal + 1 or 0, group + 1 or 0); it gets
/// the next agent number.
pub const EVENT_ADD: u8 = 3;
/// Event tag: an agent left (followed by its agent number).
pub const EVENT_REMOVE: u8 = 4;

/// Move byte, low four bits: the agent stayed.
pub const MOVE_WAIT: u8 = 0;
/// Move byte, low four bits: `1 + d` moved one cell in direction `d` ([`Direction`] order:
/// N, E, S, W, NE, SE, SW, NW).
pub const MOVE_FIRST_DIRECTION: u8 = 1;
/// Move byte, low four bits: the agent jumped to any cell (followed by the cell).
pub const MOVE_JUMP: u8 = 9;
/// Move byte, bit 4: the agent has a new goal (followed, after a jump's cell, by goal + 1, or 0
/// for no goal).
pub const MOVE_NEW_GOAL: u8 = 0x10;
/// Mask of the low four bits of a move byte.
pub const MOVE_KIND_MASK: u8 = 0x0f;

/// Appends `value` as an unsigned LEB128 varint.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Decodes a varint at the start of `bytes`: the value and the bytes it took, or `None` when
/// `bytes` ends inside it. Longer than 10 bytes or above `u64::MAX` is `Some(Err(()))`.
#[inline]
pub(crate) fn get_varint(bytes: &[u8]) -> Option<Result<(u64, usize), ()>> {
    let mut value = 0u64;
    for (i, &b) in bytes.iter().enumerate() {
        if i == 9 && b > 1 {
            return Some(Err(()));
        }
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some(Ok((value, i + 1)));
        }
        if i == 9 {
            return Some(Err(()));
        }
    }
    None
}

/// The move from `from` to `to` on a grid `width` cells wide: a direction's low bits when the
/// cells are neighbours (the grid's edges respected), `None` when it is a jump.
#[inline]
pub(crate) fn step_code(width: u32, from: CellId, to: CellId) -> Option<u8> {
    if from == to {
        return Some(MOVE_WAIT);
    }
    let w = i64::from(width);
    let delta = i64::from(to) - i64::from(from);
    // The row change is the delta rounded to the nearest multiple of the width (|dx| <= 1 < w
    // needs w >= 3 to be unambiguous; narrower grids take the general way).
    let (dx, dy) = if w >= 3 {
        let dy = (delta + delta.signum() * (w / 2)) / w;
        (delta - dy * w, dy)
    } else {
        (
            i64::from(to) % w - i64::from(from) % w,
            i64::from(to) / w - i64::from(from) / w,
        )
    };
    if dx.abs() > 1 || dy.abs() > 1 {
        return None;
    }
    // A step east from the last column lands on the next row's first cell: not a neighbour.
    let x = i64::from(from) % w;
    if x + dx < 0 || x + dx >= w {
        return None;
    }
    Direction::from_delta(dx as i32, dy as i32).map(|d| MOVE_FIRST_DIRECTION + d.index() as u8)
}

/// A goal as written: `goal + 1`, or 0 for none.
#[inline]
pub(crate) fn goal_code(goal: Option<CellId>) -> u64 {
    goal.map_or(0, |g| u64::from(g) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_reject_overlong() {
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            assert_eq!(get_varint(&b), Some(Ok((v, b.len()))));
            assert_eq!(get_varint(&b[..b.len() - 1]), None);
        }
        assert_eq!(get_varint(&[0xff; 11]), Some(Err(())));
        let mut over = vec![0xff; 9];
        over.push(0x02);
        assert_eq!(get_varint(&over), Some(Err(())));
    }

    #[test]
    fn steps_are_neighbours_only() {
        // 4 x 3 grid: cell 5 is (1, 1).
        assert_eq!(step_code(4, 5, 5), Some(MOVE_WAIT));
        assert_eq!(step_code(4, 5, 1), Some(MOVE_FIRST_DIRECTION)); // north
        assert_eq!(step_code(4, 5, 10), Some(MOVE_FIRST_DIRECTION + 5)); // south-east
        assert_eq!(step_code(4, 3, 4), None); // (3, 0) -> (0, 1) wraps: a jump
        assert_eq!(step_code(4, 5, 7), None); // two cells east
        assert_eq!(step_code(4, 4, 3), None); // (0, 1) -> (3, 0): a jump
        assert_eq!(step_code(4, 4, 1), Some(MOVE_FIRST_DIRECTION + 4)); // north-east
        assert_eq!(step_code(4, 4, 11), None); // (0, 1) -> (3, 2)
        // Every pair of cells of small grids, against coordinates.
        for w in 1..6u32 {
            for from in 0..w * 5 {
                for to in 0..w * 5 {
                    let (dx, dy) = (
                        (to % w) as i32 - (from % w) as i32,
                        (to / w) as i32 - (from / w) as i32,
                    );
                    let want = if (dx, dy) == (0, 0) {
                        Some(MOVE_WAIT)
                    } else if dx.abs() <= 1 && dy.abs() <= 1 {
                        Direction::from_delta(dx, dy)
                            .map(|d| MOVE_FIRST_DIRECTION + d.index() as u8)
                    } else {
                        None
                    };
                    assert_eq!(step_code(w, from, to), want, "w {w}: {from} -> {to}");
                }
            }
        }
    }
}
