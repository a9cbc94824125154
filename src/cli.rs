//! What the `throng` binary needs of the library's internals, and nothing else: present only
//! with the `cli` feature (the binary's), and no part of the API an embedder may rely on (its
//! items change with the command line). They are here rather than in the binary because the
//! library uses them too.
//!
//! - [`FileKind`]: what kind of file a path holds, told from its first bytes. The commands
//!   name a file given to the wrong one with it; the library's scenario and replay readers use
//!   it for the same.

pub use crate::file_kind::FileKind;
