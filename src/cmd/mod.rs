//! The subcommands of the `throng` binary, one module each (the library does the work), and
//! what they share: the kind of an input file, numeric flags, output files and paths, the help layout and
//! one-line usage errors.

pub mod file_kind;
pub mod help_layout;
pub mod lorr;
pub mod mapf;
pub mod mapgen;
pub mod nav;
pub mod numbers;
pub mod output_path;
pub mod run;
pub mod scen;
pub mod scen_run;
pub mod usage_error;
pub mod view;
