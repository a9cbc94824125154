//! `throng view`: a small web page that replays a trace ([`crate::trace`]) in a canvas, and the
//! local HTTP server that serves it.
//!
//! The page is self-contained (its HTML, script and style are compiled into the library: no
//! CDN, it works offline) and fetches the trace file from the same server, decompressing it in
//! the browser. The server ([`ViewServer`]) listens on 127.0.0.1 only, answers `GET` and
//! `HEAD` for four paths, and refuses requests whose `Host` header names another host (so that
//! a web page elsewhere cannot reach it through DNS rebinding).

mod server;

pub use server::{DEFAULT_PORT, ViewServer, respond};

/// The page.
pub const INDEX_HTML: &str = include_str!("assets/index.html");
/// The page's script: parsing, replay and drawing.
pub const VIEWER_JS: &str = include_str!("assets/viewer.js");
/// The page's style.
pub const VIEWER_CSS: &str = include_str!("assets/viewer.css");
