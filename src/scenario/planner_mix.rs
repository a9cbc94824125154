//! Which agents plan with which planner: a scenario's `[planner_mix]` fractions turned into a
//! planner per agent, drawn from the seed so that the same file and seed always give the same
//! agents the same planners (see the [module docs](super)).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::Scenario;
use crate::planner::PlannerKind;
#[cfg(doc)]
use crate::sim::SimConfig;

impl Scenario {
    /// The planner of each of `agents` agents, in agent order, from
    /// [`planner_mix`](Self::planner_mix): `None` for the agents that use
    /// [`SimConfig::planner`]. `floor(fraction * agents)` agents get each listed planner;
    /// which ones is drawn from the seed (see the [module docs](super)).
    pub fn planners(&self, agents: usize) -> Vec<Option<PlannerKind>> {
        let mut planners = vec![None; agents];
        if self.planner_mix.is_empty() {
            return planners;
        }
        let mut order: Vec<usize> = (0..agents).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ 0x706c_616e_6e65_722d);
        for i in 0..agents {
            let j = rng.random_range(i..agents);
            order.swap(i, j);
        }
        let mut next = order.into_iter();
        for &(planner, fraction) in &self.planner_mix {
            let count = (fraction * agents as f64 + 1e-9).floor() as usize;
            for index in next.by_ref().take(count) {
                planners[index] = Some(planner);
            }
        }
        planners
    }
}
