//! The scenario file as serde reads it: every table and key a file may hold, unknown keys
//! refused. Values are [`Spanned`] where a later check needs the line they were written on;
//! turning these raw tables into a checked [`Scenario`](super::Scenario) is `parse.rs`'s job.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use crate::grid::procgen::MapGenerator;
use crate::sim::SimConfig;

/// The whole file: the top-level keys and every table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScenario {
    pub(super) name: Option<String>,
    pub(super) description: Option<String>,
    #[serde(default)]
    pub(super) seed: u64,
    pub(super) ticks: Spanned<u64>,
    #[serde(default)]
    pub(super) threads: usize,
    pub(super) agents: Spanned<usize>,
    pub(super) map: Spanned<RawMap>,
    pub(super) placement: Option<Spanned<RawPlacement>>,
    pub(super) sim: Option<Spanned<SimConfig>>,
    #[serde(default)]
    pub(super) changes: Vec<Spanned<RawChange>>,
    pub(super) doors: Option<Spanned<RawDoors>>,
    pub(super) planner_mix: Option<Spanned<BTreeMap<String, Spanned<f64>>>>,
}

/// One `[[changes]]` entry: a tick and `block` or `open` (checked in `parse.rs`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawChange {
    pub(super) tick: Spanned<u64>,
    pub(super) block: Option<Spanned<[u32; 4]>>,
    pub(super) open: Option<Spanned<[u32; 4]>>,
}

/// The `[doors]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDoors {
    pub(super) count: Spanned<u32>,
    pub(super) period: Spanned<u64>,
    #[serde(default)]
    pub(super) seed: u64,
}

/// The `[map]` table: `file` or `generator` (checked in `parse.rs`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMap {
    pub(super) file: Option<Spanned<String>>,
    pub(super) generator: Option<Spanned<MapGenerator>>,
    pub(super) seed: Option<Spanned<u64>>,
    #[serde(alias = "neighborhood")]
    pub(super) neighbourhood: Option<Spanned<i64>>,
}

/// `placement.kind`.
#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(super) enum PlacementKind {
    Random,
    Crowds,
    Scen,
}

/// The `[placement]` table: the kind and the keys of every kind (checked in `parse.rs`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPlacement {
    pub(super) kind: Spanned<PlacementKind>,
    pub(super) groups: Option<Spanned<u32>>,
    pub(super) density: Option<Spanned<f64>>,
    pub(super) file: Option<Spanned<String>>,
}
