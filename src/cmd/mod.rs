//! The subcommands of the `throng` binary, one module each; the library does the work.

pub mod lorr;
pub mod mapf;
pub mod mapgen;
pub mod nav;
pub mod run;
pub mod scen;
pub mod view;
