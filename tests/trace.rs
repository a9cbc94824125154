//! Traces (`throng::trace`): a recorded run read back must replay every tick's agents and map
//! exactly; damaged files must give errors, never panics.

use std::collections::HashMap;

use throng::grid::{CellChange, Direction};
use throng::grid::{CellId, Grid, Neighborhood};
use throng::scenario::Scenario;
use throng::sim::{AgentId, Command, ConflictMode, SimConfig, Simulation};
use throng::trace::{
    Event, Move, Section, Step, TickRecord, TraceAgent, TraceError, TraceMap, TraceOptions,
    TraceReader, TraceRecorder, TraceWriter,
};

/// What the reader must hold after a tick: every live agent (trace number, cell, goal) in
/// number order, and the map.
type Frame = (Vec<(u32, CellId, Option<CellId>)>, Vec<bool>);

/// Numbers agents as the format says (agent table in slot order, then newcomers in slot
/// order as they appear), independently of the recorder.
#[derive(Default)]
struct Numbering {
    numbers: HashMap<AgentId, u32>,
    next: u32,
}

impl Numbering {
    fn frame(&mut self, sim: &Simulation) -> Frame {
        let mut live: Vec<(u32, CellId, Option<CellId>)> = sim
            .agents()
            .iter()
            .map(|(id, a)| {
                let n = *self.numbers.entry(id).or_insert_with(|| {
                    self.next += 1;
                    self.next - 1
                });
                (n, a.position(), a.goal())
            })
            .collect();
        live.sort_unstable();
        let grid = sim.grid();
        let walkable = (0..grid.len() as CellId)
            .map(|c| grid.is_walkable(c))
            .collect();
        (live, walkable)
    }
}

fn reader_frame<R: std::io::Read>(r: &TraceReader<R>) -> Frame {
    (
        r.live().iter().map(|a| (a.id, a.cell, a.goal)).collect(),
        r.walkable().to_vec(),
    )
}

/// A lifelong run on a small map with walls that move, agents added and removed (slots
/// reused) and goals set from outside: the trace, and the frame after every tick.
fn busy_run(compress: bool) -> (Vec<u8>, Vec<Frame>) {
    let (mut sim, ids) = busy_sim();
    let mut numbering = Numbering::default();
    let mut frames = vec![numbering.frame(&sim)];
    let options = TraceOptions {
        compress,
        groups: vec![0, 1, 2],
    };
    let mut recorder = TraceRecorder::new(Vec::new(), &sim, &options).unwrap();
    for tick in 0..120u32 {
        busy_tick(&mut sim, &ids, tick);
        recorder.record(&sim).unwrap();
        frames.push(numbering.frame(&sim));
    }
    assert_eq!(recorder.ticks(), 120);
    (recorder.finish().unwrap(), frames)
}

/// The busy run's simulation and its first agents.
fn busy_sim() -> (Simulation, Vec<AgentId>) {
    let grid = Grid::from_ascii(
        &[
            "....................",
            "....######..........",
            "....#...............",
            "....#.......#####...",
            "....................",
            "..........#.........",
            "..........#.........",
            "....................",
        ]
        .join("\n"),
    )
    .unwrap();
    let config = SimConfig {
        lifelong: true,
        conflicts: ConflictMode::Pibt,
        seed: 7,
        ..SimConfig::default()
    };
    let mut sim = Simulation::new(grid, config).unwrap();
    let open: Vec<CellId> = (0..160).filter(|&c| sim.grid().is_walkable(c)).collect();
    let mut ids = Vec::new();
    for i in 0..12 {
        let (start, goal) = (open[i * 11 % open.len()], open[open.len() - 1 - i * 7]);
        ids.push(sim.add_agent(start, Some(goal)).unwrap());
    }
    (sim, ids)
}

/// Plays tick `tick` of the busy run.
fn busy_tick(sim: &mut Simulation, ids: &[AgentId], tick: u32) {
    match tick {
        10 => sim.queue(Command::RemoveAgent(ids[3])),
        11 => sim.queue(Command::AddAgent {
            start: 19,
            goal: Some(0),
        }),
        20 => {
            // Two removed, one added at once: a slot is reused with a new generation.
            sim.remove_agent(ids[5]).unwrap();
            sim.remove_agent(ids[0]).unwrap();
            sim.add_agent(139, None).unwrap();
        }
        30 | 60 => sim.queue(Command::ChangeMap(
            CellChange::rect(sim.grid(), 14, 6, 16, 7, tick == 60).unwrap(),
        )),
        45 => {
            let id = sim.agents().iter().nth(4).unwrap().0;
            sim.set_goal(id, 80).unwrap();
        }
        _ => {}
    }
    sim.step();
}

/// A writer shared with the test, so that it can be read after the recorder's thread is done.
#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A writer that fails after `left` bytes.
struct Failing {
    left: usize,
}

impl std::io::Write for Failing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.left {
            return Err(std::io::Error::other("disk full"));
        }
        self.left -= buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn compressing_on_a_background_thread_gives_the_same_replay_smaller() {
    let (level1, frames) = busy_run(true);
    let (mut sim, ids) = busy_sim();
    let out = Shared::default();
    let options = TraceOptions {
        compress: true,
        groups: vec![0, 1, 2],
    };
    let mut recorder = TraceRecorder::new_background(out.clone(), &sim, &options, 9).unwrap();
    for tick in 0..120u32 {
        busy_tick(&mut sim, &ids, tick);
        recorder.record(&sim).unwrap();
    }
    recorder.finish().unwrap();
    let bytes = out.0.lock().unwrap().clone();
    check_replay(&bytes, &frames);
    assert!(
        bytes.len() < level1.len(),
        "{} vs {}",
        bytes.len(),
        level1.len()
    );
}

#[test]
fn write_errors_reach_the_caller_from_either_thread() {
    for background in [false, true] {
        let (mut sim, ids) = busy_sim();
        let out = Failing { left: 300 };
        // Raw on the caller's thread, compressed (level 0: stored) on the background one.
        let options = TraceOptions {
            compress: background,
            ..TraceOptions::default()
        };
        let mut recorder = if background {
            TraceRecorder::new_background(out, &sim, &options, 0).unwrap()
        } else {
            TraceRecorder::new(out, &sim, &options).unwrap()
        };
        let mut failed = false;
        for tick in 0..120u32 {
            busy_tick(&mut sim, &ids, tick);
            if recorder.record(&sim).is_err() {
                failed = true;
                break;
            }
        }
        if !failed {
            // Whatever is still buffered fails when flushed at the end.
            assert!(recorder.finish().is_err(), "background {background}");
        }
    }
}

/// Reads a whole trace, checking the frame after each tick.
fn check_replay(bytes: &[u8], frames: &[Frame]) {
    let mut reader = TraceReader::new(bytes).unwrap();
    assert_eq!(reader_frame(&reader), frames[0], "frame 0");
    let mut tick = 0;
    while let Some(record) = reader.next_tick().unwrap() {
        tick += 1;
        assert_eq!(reader_frame(&reader), frames[tick], "after tick {tick}");
        // One move per agent live before the record's additions.
        let added = record
            .events
            .iter()
            .filter(|e| matches!(e, Event::Add(_)))
            .count();
        assert_eq!(record.moves.len() + added, reader.live().len());
    }
    assert_eq!(tick, frames.len() - 1);
    assert!(reader.next_tick().unwrap().is_none());
}

#[test]
fn a_busy_run_replays_exactly_compressed_and_raw() {
    let (packed, frames) = busy_run(true);
    let (raw, frames_raw) = busy_run(false);
    assert_eq!(frames, frames_raw, "the run is deterministic");
    assert_eq!(&packed[..8], b"THRTRACE");
    assert_eq!((packed[10], raw[10]), (1, 0), "flags: compressed or not");
    assert!(packed.len() < raw.len());
    check_replay(&packed, &frames);
    check_replay(&raw, &frames);
    // The run really had what the format must carry.
    let mut reader = TraceReader::new(&raw[..]).unwrap();
    assert_eq!(reader.agents()[1].group, Some(1));
    assert_eq!(reader.agents()[5].group, None);
    let mut seen = [0usize; 5];
    while let Some(t) = reader.next_tick().unwrap() {
        for e in &t.events {
            seen[match e {
                Event::Open(_) => 0,
                Event::Block(_) => 1,
                Event::Add(_) => 2,
                Event::Remove(_) => 3,
            }] += 1;
        }
        seen[4] += t.moves.iter().filter(|m| m.new_goal.is_some()).count();
    }
    assert_eq!(&seen[..4], &[6, 6, 2, 3], "opened, blocked, added, removed");
    assert!(seen[4] > 12, "lifelong goals: {}", seen[4]);
    assert_eq!(reader.agents_seen(), 14);
}

#[test]
fn a_scenario_with_doors_and_crowds_replays_exactly() {
    let mut scenario =
        Scenario::load(concat!(env!("CARGO_MANIFEST_DIR"), "/sims/doors.toml")).unwrap();
    scenario.agents = 120;
    let mut sim = scenario.build().unwrap();
    let mut schedule = scenario.schedule(sim.grid()).unwrap();
    let mut numbering = Numbering::default();
    let mut frames = vec![numbering.frame(&sim)];
    let options = TraceOptions {
        compress: true,
        groups: (0..120).map(|i| i % 2).collect(),
    };
    let mut recorder = TraceRecorder::new(Vec::new(), &sim, &options).unwrap();
    for _ in 0..150 {
        schedule.queue_due(&mut sim);
        sim.step();
        recorder.record(&sim).unwrap();
        frames.push(numbering.frame(&sim));
    }
    let bytes = recorder.finish().unwrap();
    check_replay(&bytes, &frames);
    let reader = TraceReader::new(&bytes[..]).unwrap();
    assert_eq!(reader.map().width, 128);
    assert_eq!(reader.agents()[7].group, Some(1));
    // Doors moved and agents moved: the replay was not trivially still.
    assert_ne!(frames[0].1, frames[150].1);
    assert_ne!(frames[0].0, frames[150].0);
}

/// A trace written through the typed writer, with a jump and goal changes.
fn typed_trace(compress: bool) -> Vec<u8> {
    let map = TraceMap {
        width: 5,
        height: 4,
        neighborhood: Neighborhood::Four,
        walkable: (0..20).map(|c| c != 7).collect(),
    };
    let agents = [
        TraceAgent {
            cell: 0,
            goal: Some(19),
            group: None,
        },
        TraceAgent {
            cell: 4,
            goal: None,
            group: Some(3),
        },
    ];
    let mut w = TraceWriter::new(Vec::new(), compress, &map, &agents).unwrap();
    let mv = |step, new_goal| Move { step, new_goal };
    w.write_tick(&TickRecord {
        events: vec![Event::Open(7)],
        moves: vec![
            mv(Step::Move(Direction::SouthEast), None),
            mv(Step::Jump(18), Some(Some(2))),
        ],
    })
    .unwrap();
    w.write_tick(&TickRecord {
        events: vec![
            Event::Remove(0),
            Event::Add(TraceAgent {
                cell: 3,
                goal: None,
                group: None,
            }),
            Event::Block(12),
        ],
        moves: vec![mv(Step::Wait, Some(None))],
    })
    .unwrap();
    w.finish().unwrap().0
}

#[test]
fn typed_records_round_trip() {
    for compress in [false, true] {
        let bytes = typed_trace(compress);
        let mut r = TraceReader::new(&bytes[..]).unwrap();
        assert_eq!(r.map().neighborhood, Neighborhood::Four);
        assert!(!r.walkable()[7]);
        let t0 = r.next_tick().unwrap().unwrap();
        assert_eq!(t0.moves[1].step, Step::Jump(18));
        let cells: Vec<_> = r.live().iter().map(|a| (a.id, a.cell, a.goal)).collect();
        assert_eq!(cells, [(0, 6, Some(19)), (1, 18, Some(2))]);
        assert!(r.walkable()[7]);
        r.next_tick().unwrap().unwrap();
        let cells: Vec<_> = r.live().iter().map(|a| (a.id, a.cell, a.goal)).collect();
        assert_eq!(cells, [(1, 18, None), (2, 3, None)]);
        assert!(!r.walkable()[12]);
        assert!(r.next_tick().unwrap().is_none());
        assert_eq!(r.ticks(), 2);
    }
}

fn read_all(bytes: &[u8]) -> Result<u64, TraceError> {
    let mut r = TraceReader::new(bytes)?;
    while r.next_tick()?.is_some() {}
    Ok(r.ticks())
}

#[test]
fn every_truncation_is_an_error() {
    for compress in [false, true] {
        let (bytes, _) = busy_run(compress);
        assert_eq!(read_all(&bytes).unwrap(), 120);
        for len in 0..bytes.len() {
            let err = read_all(&bytes[..len])
                .expect_err(&format!("a trace cut to {len} bytes must not read"));
            if !compress && len > 0 {
                assert!(
                    matches!(err, TraceError::Truncated { .. }),
                    "cut to {len}: {err}"
                );
            }
        }
    }
}

#[test]
fn damaged_bytes_give_errors_not_panics() {
    let bytes = typed_trace(false);
    // Every byte of a raw trace set to several values: the reader answers, Ok or Err.
    let mut errors = 0;
    for i in 0..bytes.len() {
        for v in [0u8, 1, 0x7f, 0x80, 0xff, bytes[i] ^ 0x20] {
            let mut bad = bytes.clone();
            bad[i] = v;
            errors += usize::from(read_all(&bad).is_err());
        }
    }
    assert!(errors > bytes.len(), "{errors} errors");
    // Compressed: flipping body bytes breaks the stream or its checksum.
    let packed = typed_trace(true);
    for i in 12..packed.len() {
        let mut bad = packed.clone();
        bad[i] ^= 0x55;
        let _ = read_all(&bad);
    }
    let mut bad = packed.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1; // the Adler-32 checksum
    assert!(read_all(&bad).is_err());
}

/// The raw typed trace's layout: 12 header bytes, map (5, 4, 4, 3 bytes of bits), agent table
/// (count, then 3 bytes per agent), then the first tick record.
const FIRST_TICK: usize = 12 + 1 + 1 + 1 + 3 + 1 + 6;

#[test]
fn errors_say_where_and_what() {
    let bytes = typed_trace(false);
    let err = |bytes: &[u8]| read_all(bytes).unwrap_err();

    let mut bad = bytes.clone();
    bad[0] = b'X';
    assert!(matches!(err(&bad), TraceError::BadMagic));
    let mut bad = bytes.clone();
    bad[8] = 2;
    assert!(matches!(
        err(&bad),
        TraceError::UnsupportedVersion { found: 2, .. }
    ));
    let mut bad = bytes.clone();
    bad[11] = 0x80;
    assert!(matches!(err(&bad), TraceError::UnknownFlags(0x8000)));
    assert!(matches!(
        err(b"THRT"),
        TraceError::Truncated { offset: 4, .. }
    ));

    // Tick record 0: 'T', length, event count 1, OPEN 7, then the moves.
    assert_eq!(bytes[FIRST_TICK], b'T');
    let moves = FIRST_TICK + 2 + 3;
    assert_eq!(bytes[moves], 1 + 5, "south-east");
    let mut bad = bytes.clone();
    bad[moves] = 0x40;
    let e = err(&bad);
    assert!(
        matches!(e, TraceError::Malformed { offset, section: Section::Tick(0), .. } if offset == moves as u64),
        "{e}"
    );
    assert!(e.to_string().contains("tick record 0"), "{e}");
    assert!(e.to_string().contains(&format!("byte {moves}")), "{e}");
    // Agent 0 at (0, 0) stepping north leaves the map.
    bad[moves] = 1;
    assert!(err(&bad).to_string().contains("steps off the map"));
    // An event on a cell outside the map.
    let mut bad = bytes.clone();
    bad[FIRST_TICK + 4] = 20;
    assert!(err(&bad).to_string().contains("outside the map"));
    // An unknown record tag.
    let mut bad = bytes.clone();
    bad[FIRST_TICK] = b'X';
    assert!(matches!(
        err(&bad),
        TraceError::Malformed {
            section: Section::RecordTag,
            ..
        }
    ));
    // Data after the end record.
    let mut bad = bytes.clone();
    bad.push(0);
    assert!(err(&bad).to_string().contains("after the end record"));
    // A wrong tick count in the end record.
    let mut bad = bytes.clone();
    let last = bad.len() - 1;
    bad[last] = 3;
    assert!(err(&bad).to_string().contains("says 3 ticks"));
}

/// A header and a body claiming huge counts but holding nothing: a prompt error, without
/// allocating for the claim.
#[test]
fn hostile_counts_are_refused_or_truncated_cheaply() {
    let header = |body: &[u8]| {
        let mut b = b"THRTRACE\x01\x00\x00\x00".to_vec();
        b.extend_from_slice(body);
        b
    };
    let varint = |mut v: u64| {
        let mut b = Vec::new();
        while v >= 0x80 {
            b.push(v as u8 | 0x80);
            v >>= 7;
        }
        b.push(v as u8);
        b
    };
    // A 16384 x 16384 map (2^28 cells, the largest allowed) without its bits.
    let mut body = [varint(16384), varint(16384), vec![8]].concat();
    assert!(matches!(
        read_all(&header(&body)),
        Err(TraceError::Truncated {
            section: Section::Map,
            ..
        })
    ));
    // One cell more than allowed.
    body = [varint(16385), varint(16384), vec![8]].concat();
    assert!(
        read_all(&header(&body))
            .unwrap_err()
            .to_string()
            .contains("map size")
    );
    // 2^24 agents without their rows; then one more than allowed.
    let map = [varint(2), varint(2), vec![8, 0x0f]].concat();
    let e = read_all(&header(&[map.clone(), varint(1 << 24)].concat())).unwrap_err();
    assert!(
        matches!(
            e,
            TraceError::Truncated {
                section: Section::Agents,
                ..
            }
        ),
        "{e}"
    );
    let e = read_all(&header(&[map.clone(), varint((1 << 24) + 1)].concat())).unwrap_err();
    assert!(e.to_string().contains("agents"), "{e}");
    // A tick record claiming 200 MB, then one over the limit.
    let e = read_all(&header(
        &[map.clone(), varint(0), vec![b'T'], varint(200 << 20)].concat(),
    ))
    .unwrap_err();
    assert!(
        matches!(
            e,
            TraceError::Truncated {
                section: Section::Tick(0),
                ..
            }
        ),
        "{e}"
    );
    let e = read_all(&header(
        &[map.clone(), varint(0), vec![b'T'], varint(1 << 40)].concat(),
    ))
    .unwrap_err();
    assert!(e.to_string().contains("record of"), "{e}");
    // A tick record whose event count exceeds its length.
    let e = read_all(&header(
        &[map, varint(0), vec![b'T', 2], varint(100), vec![0]].concat(),
    ))
    .unwrap_err();
    assert!(e.to_string().contains("100 events"), "{e}");
}

#[test]
fn throng_run_writes_a_trace_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, json) = (dir.path().join("doors.trace"), dir.path().join("s.json"));
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/sims/doors.toml");
    for raw in [false, true] {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_throng"));
        cmd.args(["run", scenario, "--ticks", "25", "--quiet", "--trace"])
            .arg(&trace)
            .arg("--json")
            .arg(&json);
        if raw {
            cmd.arg("--trace-raw");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let bytes = std::fs::read(&trace).unwrap();
        assert_eq!(bytes[10], u8::from(!raw), "compression flag");
        let mut reader = TraceReader::new(&bytes[..]).unwrap();
        assert_eq!(reader.agents().len(), 300);
        assert_eq!(
            reader.agents()[1].group,
            Some(1),
            "crowds placement: 2 groups"
        );
        while reader.next_tick().unwrap().is_some() {}
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert_eq!(Some(reader.ticks()), summary["ticks"].as_u64());
        assert_eq!(reader.ticks(), 25);
    }
    // A folder that does not exist is refused before the run.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_throng"))
        .args([
            "run",
            scenario,
            "--ticks",
            "2",
            "--trace",
            "/nonexistent/dir/t.trace",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--trace"));
}
