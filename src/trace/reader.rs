//! Reading trace records back, checking each one and replaying the agents' cells.

use std::io::{self, BufRead, BufReader, Read};

use flate2::bufread::ZlibDecoder;

use super::format::*;
use super::{Event, Move, Section, Step, TickRecord, TraceAgent, TraceError, TraceMap};
use crate::grid::{Direction, MAX_CELLS, Neighborhood};

/// A live agent of the replayed state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveAgent {
    /// Its number (agent-table row, then order of appearance).
    pub id: u32,
    /// The cell it stands on.
    pub cell: u32,
    /// Its goal, if any.
    pub goal: Option<u32>,
    /// Its group, if any.
    pub group: Option<u32>,
}

enum Source<R: Read> {
    Raw(BufReader<R>),
    Deflate(BufReader<ZlibDecoder<BufReader<R>>>),
}

impl<R: Read> Source<R> {
    fn buf(&mut self) -> &mut dyn BufRead {
        match self {
            Source::Raw(r) => r,
            Source::Deflate(r) => r,
        }
    }
}

/// Reads a trace record by record (see the [module docs](super)), replaying it: after each
/// [`next_tick`](Self::next_tick), [`live`](Self::live) holds every live agent's cell and goal
/// and [`walkable`](Self::walkable) the map, as they were at the end of that tick.
pub struct TraceReader<R: Read> {
    src: Source<R>,
    /// Offset of the next byte (header plus decompressed body bytes read).
    offset: u64,
    version: u16,
    flags: u16,
    map: TraceMap,
    agents: Vec<TraceAgent>,
    walkable: Vec<bool>,
    live: Vec<LiveAgent>,
    next_id: u32,
    ticks: u64,
    ended: bool,
    buf: Vec<u8>,
}

impl<R: Read> TraceReader<R> {
    /// Reads the header, the map and the agent table.
    ///
    /// # Errors
    /// [`TraceError`] for a file that is not a trace of a supported version, or whose map or
    /// agent table is malformed or truncated.
    pub fn new(input: R) -> Result<Self, TraceError> {
        let mut input = BufReader::new(input);
        let mut header = Vec::with_capacity(HEADER_LEN);
        (&mut input)
            .take(HEADER_LEN as u64)
            .read_to_end(&mut header)?;
        if header.len() < MAGIC.len() || header[..MAGIC.len()] != MAGIC {
            return Err(
                if header.len() < MAGIC.len() && MAGIC.starts_with(&header) {
                    TraceError::Truncated {
                        offset: header.len() as u64,
                        section: Section::Header,
                        decompressed: false,
                    }
                } else {
                    TraceError::BadMagic
                },
            );
        }
        if header.len() < HEADER_LEN {
            return Err(TraceError::Truncated {
                offset: header.len() as u64,
                section: Section::Header,
                decompressed: false,
            });
        }
        let version = u16::from_le_bytes([header[8], header[9]]);
        let flags = u16::from_le_bytes([header[10], header[11]]);
        if version != VERSION {
            return Err(TraceError::UnsupportedVersion {
                found: version,
                supported: VERSION,
            });
        }
        if flags & !KNOWN_FLAGS != 0 {
            return Err(TraceError::UnknownFlags(flags));
        }
        let src = if flags & FLAG_DEFLATE != 0 {
            Source::Deflate(BufReader::new(ZlibDecoder::new(input)))
        } else {
            Source::Raw(input)
        };
        let mut r = TraceReader {
            src,
            offset: HEADER_LEN as u64,
            version,
            flags,
            map: TraceMap {
                width: 0,
                height: 0,
                neighborhood: Neighborhood::Eight,
                walkable: Vec::new(),
            },
            agents: Vec::new(),
            walkable: Vec::new(),
            live: Vec::new(),
            next_id: 0,
            ticks: 0,
            ended: false,
            buf: Vec::new(),
        };
        let compressed = r.compressed();
        r.read_map()
            .and_then(|()| r.read_agents())
            .map_err(|e| e.in_body(compressed))?;
        Ok(r)
    }

    fn malformed(&self, offset: u64, section: Section, message: impl Into<String>) -> TraceError {
        TraceError::Malformed {
            offset,
            section,
            message: message.into(),
            decompressed: false,
        }
    }

    /// Maps a read error: corrupt compressed data is malformed data, not an I/O failure.
    fn read_error(&self, e: io::Error, section: Section) -> TraceError {
        match e.kind() {
            io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput => {
                self.malformed(self.offset, section, format!("compressed body: {e}"))
            }
            io::ErrorKind::UnexpectedEof => TraceError::Truncated {
                offset: self.offset,
                section,
                decompressed: false,
            },
            _ => TraceError::Io(e),
        }
    }

    fn byte(&mut self, section: Section) -> Result<Option<u8>, TraceError> {
        let src = self.src.buf();
        let available = loop {
            match src.fill_buf() {
                Ok(b) => break b.first().copied(),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.read_error(e, section)),
            }
        };
        if available.is_some() {
            self.src.buf().consume(1);
            self.offset += 1;
        }
        Ok(available)
    }

    fn varint(&mut self, section: Section) -> Result<u64, TraceError> {
        let start = self.offset;
        let mut value = 0u64;
        for i in 0..10 {
            let b = self.byte(section)?.ok_or(TraceError::Truncated {
                offset: self.offset,
                section,
                decompressed: false,
            })?;
            if i == 9 && b > 1 {
                break;
            }
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.malformed(start, section, "number longer than 64 bits"))
    }

    /// Reads exactly `n` bytes into `self.buf`, growing it only as data arrives (a length
    /// field cannot make it allocate more than the file holds).
    fn exact(&mut self, n: u64, section: Section) -> Result<(), TraceError> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let result = self.src.buf().take(n).read_to_end(&mut buf);
        let got = buf.len() as u64;
        self.buf = buf;
        // The bytes that came before a failure count: the error is where the data stopped.
        self.offset += got;
        if let Err(e) = result {
            return Err(self.read_error(e, section));
        }
        if got < n {
            return Err(TraceError::Truncated {
                offset: self.offset,
                section,
                decompressed: false,
            });
        }
        Ok(())
    }

    fn read_map(&mut self) -> Result<(), TraceError> {
        let s = Section::Map;
        let at = self.offset;
        let width = self.varint(s)?;
        let height = self.varint(s)?;
        let cells = width.saturating_mul(height);
        if width == 0 || height == 0 || width > u64::from(u32::MAX) || cells > MAX_CELLS {
            return Err(self.malformed(
                at,
                s,
                format!("map size {width} x {height} (at most {MAX_CELLS} cells, none empty)"),
            ));
        }
        let at = self.offset;
        let neighborhood = match self.byte(s)? {
            Some(4) => Neighborhood::Four,
            Some(8) => Neighborhood::Eight,
            Some(n) => return Err(self.malformed(at, s, format!("neighbourhood {n} (4 or 8)"))),
            None => {
                return Err(TraceError::Truncated {
                    offset: at,
                    section: s,
                    decompressed: false,
                });
            }
        };
        self.exact(cells.div_ceil(8), s)?;
        let walkable: Vec<bool> = (0..cells as usize)
            .map(|i| self.buf[i / 8] >> (i % 8) & 1 == 1)
            .collect();
        self.walkable = walkable.clone();
        self.map = TraceMap {
            width: width as u32,
            height: height as u32,
            neighborhood,
            walkable,
        };
        Ok(())
    }

    fn cells(&self) -> u64 {
        self.walkable.len() as u64
    }

    fn read_agents(&mut self) -> Result<(), TraceError> {
        let s = Section::Agents;
        let at = self.offset;
        let count = self.varint(s)?;
        if count > MAX_AGENTS {
            return Err(self.malformed(at, s, format!("{count} agents (at most {MAX_AGENTS})")));
        }
        for _ in 0..count {
            let at = self.offset;
            let cell = self.varint(s)?;
            let goal = self.varint(s)?;
            let group = self.varint(s)?;
            let agent = self.agent(at, s, cell, goal, group)?;
            self.agents.push(agent);
            self.add_live(&agent);
        }
        Ok(())
    }

    fn agent(
        &self,
        at: u64,
        s: Section,
        cell: u64,
        goal: u64,
        group: u64,
    ) -> Result<TraceAgent, TraceError> {
        let cells = self.cells();
        if cell >= cells || goal > cells || group > u64::from(u32::MAX) + 1 {
            return Err(self.malformed(
                at,
                s,
                format!("agent cell {cell}, goal code {goal} or group code {group} out of range ({cells} cells)"),
            ));
        }
        Ok(TraceAgent {
            cell: cell as u32,
            goal: goal.checked_sub(1).map(|g| g as u32),
            group: group.checked_sub(1).map(|g| g as u32),
        })
    }

    /// Puts `agent` among the live agents under the next agent id.
    fn add_live(&mut self, agent: &TraceAgent) {
        self.live.push(LiveAgent {
            id: self.next_id,
            cell: agent.cell,
            goal: agent.goal,
            group: agent.group,
        });
        self.next_id += 1;
    }

    /// The trace's format version.
    pub fn version(&self) -> u16 {
        self.version
    }

    /// Whether the body is compressed.
    pub fn compressed(&self) -> bool {
        self.flags & FLAG_DEFLATE != 0
    }

    /// The map as it was when recording began.
    pub fn map(&self) -> &TraceMap {
        &self.map
    }

    /// The agent table (the agents live when recording began).
    pub fn agents(&self) -> &[TraceAgent] {
        &self.agents
    }

    /// The replayed map: walkable flags after the ticks read so far.
    pub fn walkable(&self) -> &[bool] {
        &self.walkable
    }

    /// The live agents after the ticks read so far, by number.
    pub fn live(&self) -> &[LiveAgent] {
        &self.live
    }

    /// Tick records read so far.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Agents numbered so far (the agent table and every agent added since).
    pub fn agents_seen(&self) -> u32 {
        self.next_id
    }

    /// Reads the next tick record, checks it and applies it to the replayed state. `None` after
    /// the end record (which must give the number of ticks read and be the last thing in the
    /// file).
    ///
    /// # Errors
    /// [`TraceError`] for a malformed or truncated record.
    pub fn next_tick(&mut self) -> Result<Option<TickRecord>, TraceError> {
        let compressed = self.compressed();
        self.read_tick().map_err(|e| e.in_body(compressed))
    }

    /// [`next_tick`](Self::next_tick), its errors' offsets not yet marked as in the
    /// decompressed body.
    fn read_tick(&mut self) -> Result<Option<TickRecord>, TraceError> {
        if self.ended {
            return Ok(None);
        }
        let at = self.offset;
        let tag = self
            .byte(Section::RecordTag)?
            .ok_or(TraceError::Truncated {
                offset: at,
                section: Section::RecordTag,
                decompressed: false,
            })?;
        match tag {
            TAG_TICK => {
                let s = Section::Tick(self.ticks);
                if self.ticks >= MAX_TICKS {
                    return Err(self.malformed(at, s, format!("more than {MAX_TICKS} ticks")));
                }
                let len = self.varint(s)?;
                if len > MAX_RECORD_LEN {
                    return Err(self.malformed(
                        at,
                        s,
                        format!("record of {len} bytes (at most {MAX_RECORD_LEN})"),
                    ));
                }
                self.exact(len, s)?;
                let base = self.offset - len;
                let body = std::mem::take(&mut self.buf);
                let result = self.apply_tick(&body, base, s);
                self.buf = body;
                let tick = result?;
                self.ticks += 1;
                Ok(Some(tick))
            }
            TAG_END => {
                let s = Section::End;
                let len = self.varint(s)?;
                if len > 10 {
                    return Err(self.malformed(at, s, format!("end record of {len} bytes")));
                }
                self.exact(len, s)?;
                let ticks = match get_varint(&self.buf) {
                    Some(Ok((v, n))) if n == self.buf.len() => v,
                    _ => return Err(self.malformed(at, s, "end record is not one number")),
                };
                if ticks != self.ticks {
                    return Err(self.malformed(
                        at,
                        s,
                        format!("end record says {ticks} ticks, the file has {}", self.ticks),
                    ));
                }
                let after = self.offset;
                if self.byte(s)?.is_some() {
                    return Err(self.malformed(after, s, "data after the end record"));
                }
                self.ended = true;
                Ok(None)
            }
            other => Err(self.malformed(
                at,
                Section::RecordTag,
                format!("unknown record tag {other:#04x} (expected 'T' or 'E')"),
            )),
        }
    }

    fn apply_tick(&mut self, body: &[u8], base: u64, s: Section) -> Result<TickRecord, TraceError> {
        let mut cur = Cursor { body, pos: 0 };
        let cells = self.cells();
        let end_err = |pos: usize, what: &str| TraceError::Malformed {
            offset: base + pos as u64,
            section: s,
            message: format!("the record ends inside {what}"),
            decompressed: false,
        };
        let at = |pos: usize| base + pos as u64;
        let count = cur
            .varint()
            .map_err(|p| self.bad_varint(at(p), s, body.len(), p))?;
        if count > body.len() as u64 {
            return Err(self.malformed(base, s, format!("{count} events in {} bytes", body.len())));
        }
        let start_next = self.next_id;
        let mut events = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let p = cur.pos;
            let tag = cur.byte().ok_or_else(|| end_err(p, "an event"))?;
            let num = |cur: &mut Cursor<'_>| {
                let p = cur.pos;
                cur.varint().map_err(|q| {
                    if q >= body.len() {
                        end_err(p, "an event")
                    } else {
                        self.malformed(at(q), s, "number longer than 64 bits")
                    }
                })
            };
            let event = match tag {
                EVENT_OPEN | EVENT_BLOCK => {
                    let cell = num(&mut cur)?;
                    if cell >= cells {
                        return Err(self.malformed(
                            at(p),
                            s,
                            format!("cell {cell} outside the map ({cells} cells)"),
                        ));
                    }
                    self.walkable[cell as usize] = tag == EVENT_OPEN;
                    if tag == EVENT_OPEN {
                        Event::Open(cell as u32)
                    } else {
                        Event::Block(cell as u32)
                    }
                }
                EVENT_ADD => {
                    let (cell, goal, group) = (num(&mut cur)?, num(&mut cur)?, num(&mut cur)?);
                    let agent = self.agent(at(p), s, cell, goal, group)?;
                    if u64::from(self.next_id) >= MAX_AGENTS {
                        return Err(self.malformed(
                            at(p),
                            s,
                            format!("more than {MAX_AGENTS} agents"),
                        ));
                    }
                    self.add_live(&agent);
                    Event::Add(agent)
                }
                EVENT_REMOVE => {
                    let id = num(&mut cur)?;
                    let i = match u32::try_from(id)
                        .ok()
                        .and_then(|id| self.live.binary_search_by_key(&id, |a| a.id).ok())
                    {
                        Some(i) => i,
                        None => {
                            return Err(self.malformed(
                                at(p),
                                s,
                                format!("agent {id} removed but not live"),
                            ));
                        }
                    };
                    self.live.remove(i);
                    Event::Remove(id as u32)
                }
                other => {
                    return Err(self.malformed(at(p), s, format!("unknown event tag {other}")));
                }
            };
            events.push(event);
        }
        let movers = self.live.partition_point(|a| a.id < start_next);
        if movers > body.len() - cur.pos {
            return Err(end_err(body.len(), "the moves"));
        }
        let (w, h) = (i64::from(self.map.width), i64::from(self.map.height));
        let mut moves = Vec::with_capacity(movers);
        for agent in &mut self.live[..movers] {
            let p = cur.pos;
            let code = cur.byte().ok_or_else(|| end_err(p, "the moves"))?;
            let bad = |message: String| TraceError::Malformed {
                offset: base + p as u64,
                section: s,
                message,
                decompressed: false,
            };
            if code & !(MOVE_KIND_MASK | MOVE_NEW_GOAL) != 0 {
                return Err(bad(format!(
                    "move byte {code:#04x} of agent {} has reserved bits set",
                    agent.id
                )));
            }
            let num = |cur: &mut Cursor<'_>| {
                cur.varint().map_err(|q| {
                    if q >= body.len() {
                        end_err(p, "a move")
                    } else {
                        bad("number longer than 64 bits".into())
                    }
                })
            };
            let step = match code & MOVE_KIND_MASK {
                MOVE_WAIT => Step::Wait,
                k @ MOVE_FIRST_DIRECTION..=8 => {
                    let d = Direction::ALL[usize::from(k - MOVE_FIRST_DIRECTION)];
                    let (x, y) = (i64::from(agent.cell) % w, i64::from(agent.cell) / w);
                    let (nx, ny) = (
                        x + i64::from(Direction::DX[d.index()]),
                        y + i64::from(Direction::DY[d.index()]),
                    );
                    if !(0..w).contains(&nx) || !(0..h).contains(&ny) {
                        return Err(bad(format!(
                            "agent {} steps off the map from ({x}, {y})",
                            agent.id
                        )));
                    }
                    agent.cell = (ny * w + nx) as u32;
                    Step::Move(d)
                }
                MOVE_JUMP => {
                    let cell = num(&mut cur)?;
                    if cell >= cells {
                        return Err(bad(format!(
                            "agent {} jumps to cell {cell}, outside the map",
                            agent.id
                        )));
                    }
                    agent.cell = cell as u32;
                    Step::Jump(cell as u32)
                }
                k => return Err(bad(format!("unknown move {k} of agent {}", agent.id))),
            };
            let new_goal = if code & MOVE_NEW_GOAL != 0 {
                let goal = num(&mut cur)?;
                if goal > cells {
                    return Err(bad(format!(
                        "agent {} gets goal code {goal}, outside the map",
                        agent.id
                    )));
                }
                agent.goal = goal.checked_sub(1).map(|g| g as u32);
                Some(agent.goal)
            } else {
                None
            };
            moves.push(Move { step, new_goal });
        }
        if cur.pos != body.len() {
            return Err(self.malformed(
                at(cur.pos),
                s,
                format!(
                    "{} bytes left after the moves of {movers} agents",
                    body.len() - cur.pos
                ),
            ));
        }
        Ok(TickRecord { events, moves })
    }

    fn bad_varint(&self, offset: u64, s: Section, len: usize, p: usize) -> TraceError {
        if p >= len {
            self.malformed(offset, s, "the record ends inside its event count")
        } else {
            self.malformed(offset, s, "number longer than 64 bits")
        }
    }
}

/// Decoding position in a record body.
struct Cursor<'a> {
    body: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.body.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    /// A varint; on failure, the position of the problem (the body's length when it ends
    /// inside the number).
    fn varint(&mut self) -> Result<u64, usize> {
        match get_varint(&self.body[self.pos..]) {
            Some(Ok((v, n))) => {
                self.pos += n;
                Ok(v)
            }
            Some(Err(())) => Err(self.pos),
            None => Err(self.body.len()),
        }
    }
}
