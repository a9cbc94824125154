//! Subcommands of the `throng` binary that live in their own module (the older ones are still in
//! `main.rs`).

pub mod mapf;
