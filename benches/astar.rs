//! Placeholder, replaced by the A* benchmark.
fn main() {}
