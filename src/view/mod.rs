//! `throng view`: a small web page that replays a run in a canvas, and the local HTTP server
//! that serves it.
//!
//! Three kinds of file are replayed: a trace of `throng run --trace` ([`crate::trace`]), a MAPF
//! plan of `throng mapf --out` ([`PlanFile`]) and a League of Robot Runners output of
//! `throng lorr --out` ([`LorrOutput`]). [`open`] tells which a file is (from its first bytes), reads and
//! checks it whole (a damaged file is one error naming the file and the line or byte) and makes
//! a [`Replay`]. The page reads only traces: a plan or LoRR output is converted, tick by tick,
//! into the records a recorded run would have ([`ReplayWriter`]), so that there is one page,
//! one parser and one set of checks for all three. What a trace cannot say, the headings of
//! robots that turn, is served beside it as a small stream of its own (see [`ReplayStreams::headings`]), which
//! the page draws as a notch on the side a robot faces.
//!
//! The page is self-contained (its HTML, script and style are compiled into the library: no
//! CDN, it works offline) and fetches the trace from the same server, decompressing it in the
//! browser. The server ([`ViewServer`]) listens on 127.0.0.1 only, answers `GET` and `HEAD`
//! for a few paths, and refuses requests whose `Host` header names another host (so that a web
//! page elsewhere cannot reach it through DNS rebinding).

mod json_lines;
mod lorr_file;
mod open;
mod plan_file;
mod replay;
mod server;
mod sniff;

pub use lorr_file::LorrOutput;
pub use open::{MapSource, open};
pub use plan_file::{GridPlan, PlanFile};
pub use replay::{Replay, ReplayKind, ReplayStreams, ReplayWriter};
pub use server::{DEFAULT_PORT, ViewServer};

/// The page.
pub const INDEX_HTML: &str = include_str!("assets/index.html");
/// The page's script: parsing, replay and drawing.
pub const VIEWER_JS: &str = include_str!("assets/viewer.js");
/// The page's style.
pub const VIEWER_CSS: &str = include_str!("assets/viewer.css");
