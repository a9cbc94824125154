//! Trace files (`throng run --trace`): read record by record, replayed; a trace that reads
//! whole must write back (through the typed writer, uncompressed) to a file that reads back to
//! the same records and the same final state.
//!
//! The first input byte picks how the rest is used: even, as a whole file (header, flags,
//! compressed or not); odd, as the body after a correct header of an uncompressed trace, so
//! that mutations reach the map, agent table and tick records instead of stopping at the magic.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use throng::grid::Neighborhood;
use throng::trace::{TickRecord, TraceMap, TraceReader, TraceWriter};

/// Bytes of a trace's header (docs/trace-format.md): magic, version, flags.
const HEADER_LEN: usize = 12;

/// The header of an uncompressed trace, as this build writes it (taken from a trace written
/// through the public writer, so that it follows the format's version).
fn header() -> &'static [u8] {
    static HEADER: OnceLock<Vec<u8>> = OnceLock::new();
    HEADER.get_or_init(|| {
        let map = TraceMap {
            width: 1,
            height: 1,
            neighborhood: Neighborhood::Eight,
            walkable: vec![true],
        };
        let writer = TraceWriter::new(Vec::new(), false, &map, &[]).expect("writes to memory");
        let (bytes, _) = writer.finish().expect("writes to memory");
        assert_eq!(&bytes[..8], b"THRTRACE");
        bytes[..HEADER_LEN].to_vec()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let file = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        let mut file = header().to_vec();
        file.extend_from_slice(rest);
        file
    };
    let Ok(mut reader) = TraceReader::new(&file[..]) else {
        return;
    };
    let mut ticks: Vec<TickRecord> = Vec::new();
    loop {
        match reader.next_tick() {
            Ok(Some(tick)) => ticks.push(tick),
            Ok(None) => break,
            Err(_) => return,
        }
    }
    // Whole: write it back and read it again.
    let (map, agents) = (reader.map().clone(), reader.agents().to_vec());
    let mut writer = TraceWriter::new(Vec::new(), false, &map, &agents).expect("a read map writes");
    for tick in &ticks {
        writer.write_tick(tick).expect("writes to memory");
    }
    let (again, _) = writer.finish().expect("writes to memory");
    let mut second = TraceReader::new(&again[..]).expect("a written trace reads");
    assert_eq!(second.map(), &map);
    assert_eq!(second.agents(), &agents[..]);
    for tick in &ticks {
        assert_eq!(second.next_tick().expect("reads").as_ref(), Some(tick));
    }
    assert!(second.next_tick().expect("reads the end").is_none());
    assert_eq!(second.live(), reader.live());
    assert_eq!(second.walkable(), reader.walkable());
});
