//! Lifelong runs' goals: an agent that reaches its goal, or whose goal has no path, gets a new
//! one drawn from its connected component, seeded per agent so that the order agents are
//! processed in does not matter.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::Simulation;
use crate::grid::CellId;
use crate::sim::metrics::StableHasher;

impl Simulation {
    /// Gives a new goal to the agents that reached one this tick, then to those whose goal
    /// turned out unreachable.
    pub(super) fn give_lifelong_goals(&mut self) {
        // Agents that reached a goal, and agents whose goal turned out unreachable, get a
        // new goal (each drawn from the agent's own seed: the order does not matter).
        for i in 0..self.events.arrivals.len() {
            let arrival = self.events.arrivals[i];
            if arrival.counted {
                self.assign_lifelong_goal(arrival.agent.index());
            }
        }
        self.collect_no_path();
        for i in 0..self.retry.len() {
            self.assign_lifelong_goal(self.retry[i]);
        }
    }

    /// Indexes the walkable cells of each connected component (lifelong goals are drawn there).
    pub(in crate::sim) fn index_components(&mut self) {
        let components = self.grid.components();
        let mut cells = vec![Vec::new(); components.count() as usize];
        for cell in 0..self.grid.len() as CellId {
            if let Some(c) = components.of(cell) {
                cells[c as usize].push(cell);
            }
        }
        self.component_cells = cells;
    }

    /// A new goal for agent `slot`, drawn from its component by a generator seeded from the
    /// run seed, the agent's slot and how many goals it has had: the same goals whatever the
    /// order agents are processed in.
    fn assign_lifelong_goal(&mut self, slot: u32) {
        let tick = self.tick;
        let seed = self.config.seed;
        let Some(agent) = self.agents.at(slot) else {
            return;
        };
        let Some(component) = self.grid.components().of(agent.position()) else {
            return;
        };
        let cells = &self.component_cells[component as usize];
        if cells.len() < 2 {
            return;
        }
        let mut h = StableHasher::default();
        h.write_u64(seed);
        h.write_u64(u64::from(slot));
        h.write_u64(u64::from(agent.goals_reached()));
        h.write_u64(tick);
        let mut rng = ChaCha8Rng::seed_from_u64(h.finish());
        let mut goal = agent.position();
        while goal == agent.position() {
            goal = cells[rng.random_range(0..cells.len())];
        }
        self.agents
            .at_mut(slot)
            .expect("checked above")
            .set_goal(goal, tick + 1);
        let id = self.agents.id_at(slot).expect("checked above");
        self.events.goal(id, goal);
    }
}
