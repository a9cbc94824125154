//! A minimal HTTP/1.1 server on the loopback interface, std only.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::error::{Error, Result};

/// The port `throng view` listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 7878;
/// The longest request head (request line and headers) read.
const MAX_HEAD: usize = 16 * 1024;
/// Connections served at once; more are closed at once.
const MAX_CONNECTIONS: usize = 64;

/// Serves the viewer page and one replay on `127.0.0.1`. See the [module docs](super).
pub struct ViewServer {
    listener: TcpListener,
    port: u16,
    files: ServedFiles,
}

/// What the server serves besides the page.
#[derive(Debug, Clone, Default)]
pub(crate) struct ServedFiles {
    /// The trace as given (`/trace`).
    pub trace: Vec<u8>,
    /// The same trace uncompressed (`/trace.raw`), when the trace is compressed.
    pub raw: Option<Vec<u8>>,
    /// The robots' headings (`/headings`; 404 when `None`), see [`super::ReplayStreams::headings`].
    pub headings: Option<Vec<u8>>,
    /// What is shown, one line of text (`/about`).
    pub about: String,
}

impl ServedFiles {
    /// A trace with nothing beside it.
    ///
    /// # Errors
    /// [`Error::Trace`] when the trace's header is malformed or its body does not decompress.
    pub fn trace(trace: Vec<u8>) -> Result<ServedFiles> {
        use crate::trace::format::{FLAG_DEFLATE, HEADER_LEN, MAGIC};
        if trace.len() < HEADER_LEN || trace[..MAGIC.len()] != MAGIC {
            return Err(crate::trace::TraceError::BadMagic.into());
        }
        let compressed = u16::from_le_bytes([trace[10], trace[11]]) & FLAG_DEFLATE != 0;
        let raw = if compressed {
            Some(crate::trace::uncompressed(&trace)?)
        } else {
            None
        };
        Ok(ServedFiles {
            trace,
            raw,
            headings: None,
            about: String::new(),
        })
    }

    /// What `/trace.raw` serves.
    fn raw(&self) -> &[u8] {
        self.raw.as_deref().unwrap_or(&self.trace)
    }
}

impl ViewServer {
    /// Listens on `127.0.0.1:port` (port 0: a free port chosen by the system; see
    /// [`port`](Self::port)) to serve a trace file: its bytes as they are at `/trace`, and
    /// uncompressed at `/trace.raw`.
    ///
    /// # Errors
    /// [`Error::Trace`] when the trace's header is malformed or its body does not decompress;
    /// [`Error::Io`] when the port cannot be bound (in use, not allowed).
    pub fn bind(port: u16, trace: Vec<u8>) -> Result<ViewServer> {
        Self::bind_files(port, ServedFiles::trace(trace)?)
    }

    /// Listens on `127.0.0.1:port` to serve a [`Replay`](super::Replay): its trace, headings
    /// and description.
    ///
    /// # Errors
    /// As [`bind`](Self::bind).
    pub fn bind_replay(port: u16, replay: super::Replay) -> Result<ViewServer> {
        let mut files = ServedFiles::trace(replay.trace)?;
        files.headings = replay.headings;
        files.about = replay.about;
        Self::bind_files(port, files)
    }

    fn bind_files(port: u16, files: ServedFiles) -> Result<ViewServer> {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let listener = TcpListener::bind(addr).map_err(|e| Error::io(format!("{addr}"), e))?;
        let port = listener
            .local_addr()
            .map_err(|e| Error::io(format!("{addr}"), e))?
            .port();
        Ok(ViewServer {
            listener,
            port,
            files,
        })
    }

    /// The port listened on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The page's address, `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// Serves until the process ends, each connection on a thread of its own (a browser keeps
    /// idle connections open; one of them must not hold up the others).
    ///
    /// # Errors
    /// [`Error::Io`] when accepting connections fails for good.
    pub fn serve(self) -> Result<()> {
        let active = Arc::new(AtomicUsize::new(0));
        let files = Arc::new(self.files);
        for stream in self.listener.incoming() {
            let stream = match stream {
                Ok(s) => s,
                // A connection reset before it was accepted and the like: keep serving.
                Err(_) => continue,
            };
            if active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                active.fetch_sub(1, Ordering::SeqCst);
                continue;
            }
            let (files, port, active) = (Arc::clone(&files), self.port, Arc::clone(&active));
            let spawned = std::thread::Builder::new()
                .name("throng-view".into())
                .spawn(move || {
                    // A client that goes away mid-answer is no concern of the server's.
                    let _ = handle(stream, port, &files);
                    active.fetch_sub(1, Ordering::SeqCst);
                });
            if spawned.is_err() {
                return Err(Error::Invalid("cannot start a thread to serve".into()));
            }
        }
        Ok(())
    }
}

fn handle(mut stream: TcpStream, port: u16, files: &ServedFiles) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.set_write_timeout(Some(Duration::from_secs(30)))?;
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 2048];
    let complete = loop {
        if head.windows(4).any(|w| w == b"\r\n\r\n") {
            break true;
        }
        if head.len() > MAX_HEAD {
            break false;
        }
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
    };
    let (status, content_type, body, head_only) = if complete {
        respond(&String::from_utf8_lossy(&head), port, files)
    } else {
        (431, "text/plain", &b"request head too large\n"[..], false)
    };
    let mut out = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
         Content-Security-Policy: default-src 'self'; img-src 'self' data:\r\n\
         Connection: close\r\n\r\n",
        reason(status),
        body.len()
    )
    .into_bytes();
    if !head_only {
        out.extend_from_slice(body);
    }
    stream.write_all(&out)?;
    stream.flush()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        _ => "Error",
    }
}

/// The answer to one request head (request line and headers, as text) on a server listening
/// on `port` and serving `files`: status, content type, body, and whether only the head is
/// sent (`HEAD`). Requests whose `Host` is not `127.0.0.1:PORT` or `localhost:PORT` get 403.
pub(crate) fn respond<'a>(
    head: &str,
    port: u16,
    files: &'a ServedFiles,
) -> (u16, &'static str, &'a [u8], bool) {
    let text = |s: &'static str| s.as_bytes();
    let mut lines = head.split("\r\n");
    let request = lines.next().unwrap_or("");
    let mut parts = request.split(' ');
    let (method, target, version) = (parts.next(), parts.next(), parts.next());
    let (Some(method), Some(target), Some(version)) = (method, target, version) else {
        return (400, "text/plain", text("bad request line\n"), false);
    };
    if !version.starts_with("HTTP/1.") || parts.next().is_some() {
        return (400, "text/plain", text("bad request line\n"), false);
    }
    let host = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("host"))
        .map(|(_, value)| value.trim());
    let allowed = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    if !host.is_some_and(|h| allowed.iter().any(|a| a.eq_ignore_ascii_case(h))) {
        return (
            403,
            "text/plain",
            text("forbidden: the Host header must be 127.0.0.1:PORT or localhost:PORT\n"),
            false,
        );
    }
    let head_only = match method {
        "GET" => false,
        "HEAD" => true,
        _ => return (405, "text/plain", text("only GET and HEAD\n"), false),
    };
    let path = target.split(['?', '#']).next().unwrap_or("");
    let (content_type, body): (&'static str, &'a [u8]) = match path {
        "/" | "/index.html" => ("text/html; charset=utf-8", text(super::INDEX_HTML)),
        "/viewer.js" => ("text/javascript; charset=utf-8", text(super::VIEWER_JS)),
        "/viewer.css" => ("text/css; charset=utf-8", text(super::VIEWER_CSS)),
        "/trace" => ("application/octet-stream", &files.trace),
        "/trace.raw" => ("application/octet-stream", files.raw()),
        "/headings" if files.headings.is_some() => (
            "application/octet-stream",
            files.headings.as_deref().unwrap_or_default(),
        ),
        "/about" => ("text/plain; charset=utf-8", files.about.as_bytes()),
        _ => return (404, "text/plain", text("not found\n"), head_only),
    };
    (200, content_type, body, head_only)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> ServedFiles {
        ServedFiles {
            trace: b"TRACE".to_vec(),
            raw: Some(b"RAW".to_vec()),
            headings: None,
            about: "trace t".into(),
        }
    }

    fn get_from(files: &ServedFiles, path: &str, host: &str) -> (u16, &'static str, Vec<u8>, bool) {
        let (s, t, b, h) = respond(
            &format!("GET {path} HTTP/1.1\r\nhost: {host}\r\nAccept: */*\r\n\r\n"),
            4000,
            files,
        );
        (s, t, b.to_vec(), h)
    }

    fn get(path: &str, host: &str) -> (u16, &'static str, Vec<u8>, bool) {
        get_from(&files(), path, host)
    }

    #[test]
    fn serves_the_page_its_assets_and_the_trace() {
        assert_eq!(get("/", "127.0.0.1:4000").0, 200);
        assert_eq!(get("/index.html?x=1", "localhost:4000").0, 200);
        assert!(get("/viewer.js", "127.0.0.1:4000").1.contains("javascript"));
        assert!(get("/viewer.css", "127.0.0.1:4000").1.contains("css"));
        assert_eq!(get("/trace", "127.0.0.1:4000").2, b"TRACE");
        assert_eq!(get("/trace.raw", "127.0.0.1:4000").2, b"RAW");
        assert_eq!(get("/about", "127.0.0.1:4000").2, b"trace t");
        assert_eq!(
            get("/headings", "127.0.0.1:4000").0,
            404,
            "a trace has none"
        );
        assert_eq!(get("/../etc/passwd", "127.0.0.1:4000").0, 404);
        let f = files();
        let head = respond(
            "HEAD /trace HTTP/1.1\r\nHost: 127.0.0.1:4000\r\n\r\n",
            4000,
            &f,
        );
        assert_eq!((head.0, head.3), (200, true));
        // An uncompressed trace is its own raw form; headings when there are some.
        let plain = ServedFiles {
            raw: None,
            headings: Some(vec![1, 2]),
            ..files()
        };
        assert_eq!(get_from(&plain, "/trace.raw", "127.0.0.1:4000").2, b"TRACE");
        assert_eq!(
            get_from(&plain, "/headings", "127.0.0.1:4000").2,
            vec![1, 2]
        );
    }

    #[test]
    fn refuses_other_hosts_methods_and_garbage() {
        let f = files();
        for host in [
            "evil.example:4000",
            "127.0.0.1:4001",
            "127.0.0.1",
            "",
            "localhost.evil:4000",
        ] {
            assert_eq!(get("/trace", host).0, 403, "{host:?}");
        }
        assert_eq!(
            respond("GET /trace HTTP/1.1\r\n\r\n", 4000, &f).0,
            403,
            "no Host"
        );
        let post = "POST /trace HTTP/1.1\r\nHost: 127.0.0.1:4000\r\n\r\n";
        assert_eq!(respond(post, 4000, &f).0, 405);
        assert_eq!(respond("garbage\r\n\r\n", 4000, &f).0, 400);
        assert_eq!(respond("GET / SPDY/9\r\n\r\n", 4000, &f).0, 400);
    }
}
