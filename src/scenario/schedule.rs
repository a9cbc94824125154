//! Scripted map changes of a scenario: `[[changes]]` rectangles and the `[doors]` generator,
//! turned into a schedule of [`CellChange`] batches by tick and queued on the simulation as
//! their ticks come. The file format and the rules (doors, cells under agents) are in the
//! [module docs](super).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::Scenario;
use crate::error::{Error, ParseError, Result};
use crate::grid::{CellChange, CellId, Grid};
use crate::sim::{Command, Simulation};

/// One `[[changes]]` entry: block or open an inclusive rectangle of cells at a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ScriptedChange {
    /// Tick at the start of which the change is applied.
    pub tick: u64,
    /// `[x0, y0, x1, y1]`, inclusive.
    pub rect: [u32; 4],
    /// `true` for `open`, `false` for `block`.
    pub walkable: bool,
    /// Line in the scenario file (0 when not read from a file), for errors.
    #[serde(skip)]
    pub line: usize,
}

/// The `[doors]` generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Doors {
    /// Doors wanted (fewer when the map has fewer gaps or cells).
    pub count: u32,
    /// Ticks between door changes (at least 1).
    pub period: u64,
    /// Seed of the door choice and of the openings and closings.
    pub seed: u64,
}

/// Batches of map changes by tick, queued on a simulation as their ticks come.
///
/// Scripted batches are held whole; the `[doors]` generator's batches are made one at a time
/// as their ticks come ([`ChangeSchedule::with_doors`]), so a long run does not hold every
/// batch of its doors (`doors.toml` played for 200,000 ticks held 5,000 batches before).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangeSchedule {
    entries: Vec<(u64, Vec<CellChange>)>,
    next: usize,
    doors: Option<DoorStream>,
}

/// The `[doors]` generator, drawing each door batch when it is due: the same batches, in the
/// same order, as drawing them all up front.
#[derive(Debug, Clone, PartialEq)]
struct DoorStream {
    rng: ChaCha8Rng,
    pool: Vec<Vec<CellId>>,
    shut: Vec<bool>,
    period: u64,
    /// Tick of the next draw; `None` once past the end.
    tick: Option<u64>,
    /// Ticks at or past this one get no batch.
    end: u64,
    /// The next non-empty batch, drawn ahead.
    ready: Option<(u64, Vec<CellChange>)>,
}

impl DoorStream {
    fn new(grid: &Grid, doors: &Doors, ticks: u64) -> DoorStream {
        let mut rng = ChaCha8Rng::seed_from_u64(doors.seed);
        let mut pool = wall_gaps(grid);
        if pool.is_empty() {
            pool = (0..grid.len() as CellId)
                .filter(|&c| grid.is_walkable(c))
                .map(|c| vec![c])
                .collect();
        }
        let n = (doors.count as usize).min(pool.len());
        // Partial Fisher-Yates: the first `n` of a seeded shuffle.
        for i in 0..n {
            let j = rng.random_range(i..pool.len());
            pool.swap(i, j);
        }
        pool.truncate(n);
        pool.shrink_to_fit();
        let period = doors.period.max(1);
        let mut stream = DoorStream {
            rng,
            shut: vec![false; n],
            pool,
            period,
            tick: Some(period),
            end: ticks,
            ready: None,
        };
        stream.ready = stream.draw();
        stream
    }

    /// Draws rounds until one changes a door (or the end comes).
    fn draw(&mut self) -> Option<(u64, Vec<CellChange>)> {
        while let Some(tick) = self.tick.filter(|&t| t < self.end) {
            let mut batch = Vec::new();
            for (door, cells) in self.pool.iter().enumerate() {
                let close = self.rng.random_bool(0.5);
                if close != self.shut[door] {
                    self.shut[door] = close;
                    batch.extend(cells.iter().map(|&cell| CellChange::SetWalkable {
                        cell,
                        walkable: !close,
                    }));
                }
            }
            // A run of nearly u64::MAX ticks with a long period would overflow the next
            // tick: there is no next change then (found by fuzzing the scenario loader).
            self.tick = tick.checked_add(self.period);
            if !batch.is_empty() {
                return Some((tick, batch));
            }
        }
        None
    }

    /// The next batch if it is due at or before `now`.
    fn take_due(&mut self, now: u64) -> Option<(u64, Vec<CellChange>)> {
        if self.ready.as_ref().is_some_and(|(t, _)| *t <= now) {
            let due = self.ready.take();
            self.ready = self.draw();
            return due;
        }
        None
    }

    /// Tick of the next batch, if any.
    fn next_tick(&self) -> Option<u64> {
        self.ready.as_ref().map(|(t, _)| *t)
    }
}

impl ChangeSchedule {
    /// A schedule of `entries` (sorted by tick here; batches of equal ticks are merged, in
    /// order).
    pub fn new(mut entries: Vec<(u64, Vec<CellChange>)>) -> ChangeSchedule {
        entries.sort_by_key(|(tick, _)| *tick);
        let mut merged: Vec<(u64, Vec<CellChange>)> = Vec::with_capacity(entries.len());
        for (tick, changes) in entries {
            match merged.last_mut() {
                Some((t, batch)) if *t == tick => batch.extend(changes),
                _ => merged.push((tick, changes)),
            }
        }
        ChangeSchedule {
            entries: merged,
            next: 0,
            doors: None,
        }
    }

    /// This schedule with the batches of the `[doors]` generator `doors` on `grid` for ticks
    /// below `ticks`, drawn as they come due (see the type's docs).
    pub fn with_doors(mut self, grid: &Grid, doors: &Doors, ticks: u64) -> ChangeSchedule {
        self.doors = Some(DoorStream::new(grid, doors, ticks));
        self
    }

    /// The scripted batches, by tick (door batches are drawn as they come due and are not
    /// listed).
    pub fn entries(&self) -> &[(u64, Vec<CellChange>)] {
        &self.entries
    }

    /// Whether no batch is left to queue.
    pub fn is_finished(&self) -> bool {
        self.next >= self.entries.len()
            && self.doors.as_ref().is_none_or(|d| d.next_tick().is_none())
    }

    /// Passes over every batch due before `tick`, as [`queue_due`](Self::queue_due) would have
    /// queued them: a schedule made afresh for a simulation restored from a snapshot taken
    /// at tick `tick` ([`Simulation::restore`]) carries on from there.
    pub fn skip_to(&mut self, tick: u64) {
        while self.entries.get(self.next).is_some_and(|(t, _)| *t < tick) {
            self.next += 1;
        }
        if let Some(doors) = &mut self.doors {
            while let Some(t) = doors.next_tick().filter(|&t| t < tick) {
                doors.take_due(t);
            }
        }
    }

    /// Queues on `sim`, as [`Command::ChangeMap`], every batch due at or before its next tick
    /// ([`Simulation::tick`]), without the cells an agent stands on now that the batch would
    /// block. Call it before each [`Simulation::step`]. Returns the number of cell changes
    /// queued.
    pub fn queue_due(&mut self, sim: &mut Simulation) -> usize {
        let mut queued = 0;
        loop {
            // The earliest due batch: scripted first on equal ticks, then the doors', merged
            // into one batch as when every batch was drawn up front.
            let scripted = self.entries.get(self.next).map(|(t, _)| *t);
            let doors = self.doors.as_ref().and_then(DoorStream::next_tick);
            let Some(tick) = scripted.into_iter().chain(doors).min() else {
                break;
            };
            if tick > sim.tick() {
                break;
            }
            let mut changes: Vec<CellChange> = Vec::new();
            if scripted == Some(tick) {
                changes.extend_from_slice(&self.entries[self.next].1);
                self.next += 1;
            }
            if doors == Some(tick)
                && let Some((_, batch)) = self.doors.as_mut().and_then(|d| d.take_due(tick))
            {
                changes.extend(batch);
            }
            let mut occupied: Vec<CellId> =
                sim.agents().iter().map(|(_, a)| a.position()).collect();
            occupied.sort_unstable();
            let batch: Vec<CellChange> = changes
                .iter()
                .filter(|c| match **c {
                    CellChange::SetWalkable {
                        cell,
                        walkable: false,
                    } => occupied.binary_search(&cell).is_err(),
                    _ => true,
                })
                .copied()
                .collect();
            if !batch.is_empty() {
                queued += batch.len();
                sim.queue(Command::ChangeMap(batch));
            }
        }
        queued
    }
}

impl Scenario {
    /// the `[[changes]]` rectangles, then the doors. Queue them with
    /// [`ChangeSchedule::queue_due`] before each step (as [`play`](Self::play) does).
    ///
    /// # Errors
    /// [`Error::Parse`] at the line of a rectangle outside the map.
    pub fn schedule(&self, grid: &Grid) -> Result<ChangeSchedule> {
        let mut entries = Vec::new();
        for (i, c) in self.changes.iter().enumerate() {
            let batch = rect_changes(grid, c.rect, c.walkable).map_err(|m| {
                let key = if c.walkable { "open" } else { "block" };
                let message = format!("changes[{i}].{key}: {m}");
                Error::from(if c.line > 0 {
                    ParseError::at(&self.origin.file, c.line, message)
                } else {
                    ParseError::whole(&self.origin.file, message)
                })
            })?;
            entries.push((c.tick, batch));
        }
        let schedule = ChangeSchedule::new(entries);
        Ok(match &self.doors {
            Some(doors) => schedule.with_doors(grid, doors, self.ticks),
            None => schedule,
        })
    }
}

/// The changes making every cell of `rect` (`[x0, y0, x1, y1]`, inclusive) walkable or
/// blocked ([`CellChange::rect`]), or a message when it is not inside the grid or not ordered.
fn rect_changes(
    grid: &Grid,
    rect: [u32; 4],
    walkable: bool,
) -> std::result::Result<Vec<CellChange>, String> {
    let [x0, y0, x1, y1] = rect;
    CellChange::rect(grid, x0, y0, x1, y1, walkable).map_err(|e| e.to_string())
}

/// Gaps of 1 to 3 walkable cells in lines of walls (see the [module docs](super)).
fn wall_gaps(grid: &Grid) -> Vec<Vec<CellId>> {
    let (w, h) = (i64::from(grid.width()), i64::from(grid.height()));
    let cell = |x: i64, y: i64| grid.cell(x as u32, y as u32).expect("inside");
    let inside = |x: i64, y: i64| x >= 0 && y >= 0 && x < w && y < h;
    let walk = |x: i64, y: i64| inside(x, y) && grid.is_walkable(cell(x, y));
    let wall = |x: i64, y: i64| inside(x, y) && !grid.is_walkable(cell(x, y));
    let mut gaps = Vec::new();
    // `vertical`: runs along a column (a gap in a vertical wall), else along a row.
    for vertical in [true, false] {
        let (lines, len) = if vertical { (w, h) } else { (h, w) };
        let at = |line: i64, i: i64| if vertical { (line, i) } else { (i, line) };
        for line in 0..lines {
            let mut i = 0;
            while i < len {
                let (x, y) = at(line, i);
                if !walk(x, y) {
                    i += 1;
                    continue;
                }
                let first = i;
                while i < len && {
                    let (x, y) = at(line, i);
                    walk(x, y)
                } {
                    i += 1;
                }
                let last = i - 1;
                if last - first >= 3 {
                    continue;
                }
                let (bx, by) = at(line, first - 1);
                let (ax, ay) = at(line, last + 1);
                let sides_open = (first..=last).all(|j| {
                    let (x, y) = at(line, j);
                    if vertical {
                        walk(x - 1, y) && walk(x + 1, y)
                    } else {
                        walk(x, y - 1) && walk(x, y + 1)
                    }
                });
                if wall(bx, by) && wall(ax, ay) && sides_open {
                    gaps.push(
                        (first..=last)
                            .map(|j| {
                                let (x, y) = at(line, j);
                                cell(x, y)
                            })
                            .collect(),
                    );
                }
            }
        }
    }
    gaps
}

/// The door changes of `doors` on `grid` for ticks below `ticks`, all drawn at once: what the
/// schedule's stream must give, one batch at a time (kept for that test).
#[cfg(test)]
fn door_changes(grid: &Grid, doors: &Doors, ticks: u64) -> Vec<(u64, Vec<CellChange>)> {
    let mut rng = ChaCha8Rng::seed_from_u64(doors.seed);
    let mut pool = wall_gaps(grid);
    if pool.is_empty() {
        pool = (0..grid.len() as CellId)
            .filter(|&c| grid.is_walkable(c))
            .map(|c| vec![c])
            .collect();
    }
    let n = (doors.count as usize).min(pool.len());
    // Partial Fisher-Yates: the first `n` of a seeded shuffle.
    for i in 0..n {
        let j = rng.random_range(i..pool.len());
        pool.swap(i, j);
    }
    pool.truncate(n);
    let mut shut = vec![false; n];
    let mut out = Vec::new();
    let period = doors.period.max(1);
    let mut tick = period;
    while tick < ticks {
        let mut batch = Vec::new();
        for (door, cells) in pool.iter().enumerate() {
            let close = rng.random_bool(0.5);
            if close != shut[door] {
                shut[door] = close;
                batch.extend(cells.iter().map(|&cell| CellChange::SetWalkable {
                    cell,
                    walkable: !close,
                }));
            }
        }
        if !batch.is_empty() {
            out.push((tick, batch));
        }
        // A run of nearly u64::MAX ticks with a long period would overflow the next tick: there
        // is no next change then (found by fuzzing the scenario loader).
        match tick.checked_add(period) {
            Some(next) => tick = next,
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn door_batches_drawn_as_they_come_are_those_drawn_up_front() {
        let grid = crate::grid::procgen::MapGenerator::Rooms {
            width: 64,
            height: 64,
            room: 12,
            door: 2,
        }
        .generate(4)
        .unwrap();
        for (count, period, ticks) in [(6, 5, 400), (40, 1, 97), (3, 50, 40), (1000, 7, 300)] {
            let doors = Doors {
                count,
                period,
                seed: 9,
            };
            let up_front = door_changes(&grid, &doors, ticks);
            let mut stream = DoorStream::new(&grid, &doors, ticks);
            let mut drawn = Vec::new();
            while let Some(batch) = stream.take_due(u64::MAX) {
                drawn.push(batch);
            }
            assert_eq!(drawn, up_front, "count {count}, period {period}");
            assert!(ticks < period || !drawn.is_empty() || count == 0);
        }
    }
    use crate::grid::procgen::MapGenerator;

    #[test]
    fn door_ticks_near_the_end_of_time_do_not_overflow() {
        let grid = MapGenerator::Rooms {
            width: 64,
            height: 64,
            room: 15,
            door: 3,
        }
        .generate(1)
        .unwrap();
        let doors = Doors {
            count: 4,
            period: 1 << 63,
            seed: 0,
        };
        // One round at tick 2^63; the next would be 2^64.
        let changes = door_changes(&grid, &doors, u64::MAX);
        assert!(changes.len() <= 1, "{}", changes.len());
        assert!(changes.iter().all(|(t, _)| *t == 1 << 63));
        // The longest period that still fits twice gives two rounds at most.
        let doors = Doors {
            period: u64::MAX / 2,
            ..doors
        };
        let changes = door_changes(&grid, &doors, u64::MAX);
        assert!(changes.iter().all(|(t, _)| t % (u64::MAX / 2) == 0));
        assert!(changes.len() <= 2);
    }

    #[test]
    fn doors_are_the_doorways_of_a_rooms_map() {
        let grid = MapGenerator::Rooms {
            width: 64,
            height: 64,
            room: 15,
            door: 3,
        }
        .generate(1)
        .unwrap();
        let gaps = wall_gaps(&grid);
        assert!(!gaps.is_empty());
        for gap in &gaps {
            assert!((1..=3).contains(&gap.len()));
        }
        let doors = Doors {
            count: 5,
            period: 10,
            seed: 3,
        };
        let changes = door_changes(&grid, &doors, 100);
        assert!(!changes.is_empty());
        assert_eq!(changes, door_changes(&grid, &doors, 100), "seeded");
        assert!(changes.iter().all(|(t, _)| t % 10 == 0 && *t < 100));
    }

    #[test]
    fn rectangles_are_checked() {
        let grid = Grid::new(10, 5).unwrap();
        assert_eq!(rect_changes(&grid, [1, 1, 2, 2], false).unwrap().len(), 4);
        assert!(rect_changes(&grid, [2, 1, 1, 2], false).is_err());
        assert!(
            rect_changes(&grid, [0, 0, 10, 0], true)
                .unwrap_err()
                .contains("outside")
        );
    }
}
