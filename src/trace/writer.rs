//! Writing trace records.

use std::io::{self, Write};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::thread::JoinHandle;

use flate2::Compression;
use flate2::write::ZlibEncoder;

use super::format::*;
use super::{Event, Step, TickRecord, TraceAgent, TraceMap};
use crate::grid::Neighborhood;

/// Counts the bytes that reach the underlying writer.
struct Counting<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Bytes handed to the compression thread at a time; with the channel's few slots, what waits
/// for compression stays under a few MB however long the run.
const CHUNK: usize = 256 * 1024;

/// A compressor on a thread of its own, fed chunks through a bounded channel.
struct Background<W> {
    buf: Vec<u8>,
    tx: Option<SyncSender<Vec<u8>>>,
    thread: Option<JoinHandle<io::Result<Counting<W>>>>,
}

impl<W: Write> Background<W> {
    fn spawn(out: Counting<W>, level: u32) -> io::Result<Self>
    where
        W: Send + 'static,
    {
        let (tx, rx) = sync_channel::<Vec<u8>>(4);
        let thread = std::thread::Builder::new()
            .name("throng-trace".into())
            .spawn(move || {
                let mut encoder = ZlibEncoder::new(out, Compression::new(level));
                for chunk in rx {
                    encoder.write_all(&chunk)?;
                }
                encoder.finish()
            })?;
        Ok(Background {
            buf: Vec::with_capacity(CHUNK),
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    /// The thread's outcome once it has stopped (after an error, or the end of the input).
    fn join(&mut self) -> io::Result<Counting<W>> {
        self.tx = None;
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(io::Error::other("the trace compression thread panicked")),
            None => Err(io::Error::other("the trace compression thread is gone")),
        }
    }

    fn send(&mut self) -> io::Result<()> {
        let chunk = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK));
        let sent = match &self.tx {
            Some(tx) => tx.send(chunk).is_ok(),
            None => false,
        };
        if sent {
            return Ok(());
        }
        // The thread stopped early: it failed to write; report why.
        self.join()?;
        Err(io::Error::other("the trace compression thread stopped"))
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(())
    }

    fn finish(mut self) -> io::Result<Counting<W>> {
        if !self.buf.is_empty() {
            self.send()?;
        }
        self.join()
    }
}

enum Sink<W: Write> {
    Raw(Counting<W>),
    Deflate(ZlibEncoder<Counting<W>>),
    Background(Background<W>),
}

impl<W: Write> Sink<W> {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Sink::Raw(w) => w.write_all(bytes),
            Sink::Deflate(w) => w.write_all(bytes),
            Sink::Background(w) => w.write_all(bytes),
        }
    }
}

/// Writes a trace: the header, the map and the agent table when made, then one
/// [`write_tick`](Self::write_tick) per tick and [`finish`](Self::finish). Records go straight
/// to the writer (through the compressor when asked): give it a `BufWriter` for a file.
pub struct TraceWriter<W: Write> {
    sink: Sink<W>,
    /// Bytes of the body before compression, header included.
    raw_bytes: u64,
    ticks: u64,
    buf: Vec<u8>,
}

impl<W: Write> TraceWriter<W> {
    /// Starts a trace of `map` with the agents of `agents` (numbered 0, 1, ... in that order),
    /// the body DEFLATE-compressed (level 1, the fastest) when `compress`, on the calling
    /// thread.
    ///
    /// # Errors
    /// The writer's errors; [`io::ErrorKind::InvalidInput`] when the map's cells do not match
    /// its size or there are more than 2^24 agents (the format's limit).
    pub fn new(out: W, compress: bool, map: &TraceMap, agents: &[TraceAgent]) -> io::Result<Self> {
        let out = header(out, compress, map, agents)?;
        let sink = if compress {
            Sink::Deflate(ZlibEncoder::new(out, Compression::fast()))
        } else {
            Sink::Raw(out)
        };
        Self::start(sink, map, agents)
    }

    /// [`new`](Self::new) with the body compressed at DEFLATE `level` (0 to 9; 6 is zlib's
    /// default) on a thread of its own: the caller only hands over bytes, in chunks of 256 KiB
    /// through a channel of four, so memory stays flat. On the default run, level 6 makes a
    /// trace a fifth smaller than level 1 for about four times the compression work, which
    /// this thread takes off the simulation's.
    ///
    /// # Errors
    /// As [`new`](Self::new), and [`io::Error`] when the thread cannot start.
    pub fn new_background(
        out: W,
        level: u32,
        map: &TraceMap,
        agents: &[TraceAgent],
    ) -> io::Result<Self>
    where
        W: Send + 'static,
    {
        let out = header(out, true, map, agents)?;
        let sink = Sink::Background(Background::spawn(out, level.min(9))?);
        Self::start(sink, map, agents)
    }

    fn start(sink: Sink<W>, map: &TraceMap, agents: &[TraceAgent]) -> io::Result<Self> {
        let mut w = TraceWriter {
            sink,
            raw_bytes: HEADER_LEN as u64,
            ticks: 0,
            buf: Vec::new(),
        };
        let mut b = Vec::with_capacity(16 + map.walkable.len() / 8);
        put_varint(&mut b, u64::from(map.width));
        put_varint(&mut b, u64::from(map.height));
        b.push(match map.neighborhood {
            Neighborhood::Four => 4,
            Neighborhood::Eight => 8,
        });
        let mut byte = 0u8;
        for (i, &walkable) in map.walkable.iter().enumerate() {
            byte |= u8::from(walkable) << (i % 8);
            if i % 8 == 7 {
                b.push(byte);
                byte = 0;
            }
        }
        if !map.walkable.len().is_multiple_of(8) {
            b.push(byte);
        }
        put_varint(&mut b, agents.len() as u64);
        for a in agents {
            put_agent(&mut b, a);
        }
        w.put(&b)?;
        Ok(w)
    }

    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.raw_bytes += bytes.len() as u64;
        self.sink.write_all(bytes)
    }

    /// Writes one tick record.
    ///
    /// # Errors
    /// The writer's errors.
    pub fn write_tick(&mut self, tick: &TickRecord) -> io::Result<()> {
        let mut body = std::mem::take(&mut self.buf);
        body.clear();
        put_varint(&mut body, tick.events.len() as u64);
        for e in &tick.events {
            put_event(&mut body, e);
        }
        for m in &tick.moves {
            let (code, jump) = match m.step {
                Step::Wait => (MOVE_WAIT, None),
                Step::Move(d) => (MOVE_FIRST_DIRECTION + d.index() as u8, None),
                Step::Jump(cell) => (MOVE_JUMP, Some(cell)),
            };
            body.push(
                code | if m.new_goal.is_some() {
                    MOVE_NEW_GOAL
                } else {
                    0
                },
            );
            if let Some(cell) = jump {
                put_varint(&mut body, u64::from(cell));
            }
            if let Some(goal) = m.new_goal {
                put_varint(&mut body, goal_code(goal));
            }
        }
        let result = self.write_tick_body(&body);
        self.buf = body;
        result
    }

    /// Writes a tick record whose body (event count, events, moves) is already encoded.
    pub(crate) fn write_tick_body(&mut self, body: &[u8]) -> io::Result<()> {
        let mut head = [0u8; 11];
        head[0] = TAG_TICK;
        let mut len = Vec::with_capacity(10);
        put_varint(&mut len, body.len() as u64);
        head[1..1 + len.len()].copy_from_slice(&len);
        self.put(&head[..1 + len.len()])?;
        self.put(body)?;
        self.ticks += 1;
        Ok(())
    }

    /// Tick records written so far.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Bytes of the trace so far as they would be uncompressed (header included).
    pub fn raw_bytes(&self) -> u64 {
        self.raw_bytes
    }

    /// Writes the end record, finishes the compressed stream and flushes; returns the writer
    /// and the total bytes written to it.
    ///
    /// # Errors
    /// The writer's errors.
    pub fn finish(mut self) -> io::Result<(W, u64)> {
        let mut end = vec![TAG_END];
        let mut body = Vec::new();
        put_varint(&mut body, self.ticks);
        put_varint(&mut end, body.len() as u64);
        end.extend_from_slice(&body);
        self.put(&end)?;
        let mut out = match self.sink {
            Sink::Raw(w) => w,
            Sink::Deflate(w) => w.finish()?,
            Sink::Background(w) => w.finish()?,
        };
        out.flush()?;
        Ok((out.inner, out.bytes))
    }
}

/// Checks the map and agents, and writes the 12-byte header.
fn header<W: Write>(
    out: W,
    compress: bool,
    map: &TraceMap,
    agents: &[TraceAgent],
) -> io::Result<Counting<W>> {
    let cells = u64::from(map.width) * u64::from(map.height);
    if map.walkable.len() as u64 != cells || agents.len() as u64 > MAX_AGENTS {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "trace: map cells do not match its size, or too many agents",
        ));
    }
    let mut out = Counting {
        inner: out,
        bytes: 0,
    };
    let flags = if compress { FLAG_DEFLATE } else { 0 };
    let mut header = Vec::with_capacity(HEADER_LEN);
    header.extend_from_slice(&MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&flags.to_le_bytes());
    out.write_all(&header)?;
    Ok(out)
}

fn put_agent(b: &mut Vec<u8>, a: &TraceAgent) {
    put_varint(b, u64::from(a.cell));
    put_varint(b, goal_code(a.goal));
    put_varint(b, a.group.map_or(0, |g| u64::from(g) + 1));
}

pub(crate) fn put_event(b: &mut Vec<u8>, e: &Event) {
    match *e {
        Event::Open(cell) => {
            b.push(EVENT_OPEN);
            put_varint(b, u64::from(cell));
        }
        Event::Block(cell) => {
            b.push(EVENT_BLOCK);
            put_varint(b, u64::from(cell));
        }
        Event::Add(a) => {
            b.push(EVENT_ADD);
            put_agent(b, &a);
        }
        Event::Remove(id) => {
            b.push(EVENT_REMOVE);
            put_varint(b, u64::from(id));
        }
    }
}
