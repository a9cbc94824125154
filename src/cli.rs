//! What the `throng` binary needs of the library's internals, and nothing else: present only
//! with the `cli` feature (the binary's), and no part of the API an embedder may rely on (its
//! items change with the command line). They are here rather than in the binary because the
//! library uses them too.
//!
//! - [`FileKind`]: what kind of file a path holds, told from its first bytes. The commands
//!   name a file given to the wrong one with it; the library's scenario and replay readers use
//!   it for the same.

//! - [`Input`], [`read_bytes`] and [`check`]: the one way files are opened for reading, with
//!   the size cap of their kind; the commands check `--map` with it and copy a problem's files.
//! - [`Counted`]: a count with its noun, singular for one ("1 component").

pub use crate::file_kind::FileKind;
pub use crate::input::{Input, check, read_bytes};
pub use crate::plural::Counted;
