//! What a run amounts to: its [`RunSummary`] (the metrics, trips, D* Lite memory, the stuck
//! crowds resolved and the end status) and the hash of the crowd's state.

use super::Simulation;
use crate::sim::agent::AgentState;
use crate::sim::metrics::{EndStatus, RunSummary};

impl Simulation {
    /// Summary of the run so far.
    pub fn summary(&self) -> RunSummary {
        let trips = self.agents.iter().filter_map(|(_, a)| a.trip_cost());
        let threads = if self.config.parallel {
            rayon::current_num_threads()
        } else {
            1
        };
        let mut summary = self.metrics.summary(trips, threads);
        let mut bytes = Vec::new();
        let mut route_bytes = 0usize;
        for (_, agent) in self.agents.iter() {
            route_bytes += agent.route_bytes();
            if let Some(dstar) = agent.dstar() {
                bytes.push(dstar.memory_bytes() as u64);
                let stats = dstar.stats();
                let restarts = stats.restarts + stats.budget_resets;
                summary.dstar_restarts += restarts;
                // Each agent's first plan, and each restart, searches from scratch.
                summary.dstar_repairs += stats.plans.saturating_sub(1 + restarts);
            }
        }
        if !self.agents.is_empty() {
            route_bytes += self.agents.window_bytes();
            summary.route_bytes_per_agent = route_bytes as f64 / self.agents.len() as f64;
        }
        summary.resolve_triggers = self.stuck.triggers;
        summary.resolve_ticks = self.stuck.ticks;
        summary.resolve_agents = self.stuck.agents;
        let no_path = self
            .agents
            .iter()
            .any(|(_, a)| a.state() == AgentState::NoPath);
        summary.end_status = if self.config.lifelong {
            EndStatus::Lifelong
        } else if summary.all_arrived {
            EndStatus::AllArrived
        } else if self.stuck.unsolvable() || no_path {
            EndStatus::Unsolvable
        } else {
            EndStatus::TickLimit
        };
        bytes.sort_unstable();
        summary.dstar_bytes_p50 = bytes.get(bytes.len() / 2).copied().unwrap_or(0);
        summary.dstar_bytes_max = bytes.last().copied().unwrap_or(0);
        summary
    }

    /// A hash of every live agent's id, position, heading and state: equal hashes mean (with
    /// overwhelming likelihood) equal crowds. The same on every platform and any number of
    /// threads.
    pub fn state_hash(&self) -> u64 {
        self.crowd().hash
    }
}
