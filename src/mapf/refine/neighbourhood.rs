//! How a refinement picks its neighbourhoods: the agents in the way of the most delayed agent
//! (first those that visit its goal after it could be there),
//! the agents passing through intersections, or agents drawn at random (see the parent
//! module's docs).

use rand::RngExt;

use super::Refiner;
use crate::grid::CellId;
use crate::mapf::NO_AGENT;

/// The neighbourhood heuristics (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Heuristic {
    /// The agents in the way of the most delayed agent.
    Blocking,
    /// The agents passing through intersections near a random one.
    Intersection,
    /// Agents drawn at random.
    Random,
}

pub(super) const HEURISTICS: [Heuristic; 3] = [
    Heuristic::Blocking,
    Heuristic::Intersection,
    Heuristic::Random,
];

impl Refiner<'_> {
    /// Fills `members` with up to `size` agents by `heuristic`, in a random order.
    pub(super) fn neighbourhood(
        &mut self,
        heuristic: Heuristic,
        size: usize,
        members: &mut Vec<u32>,
    ) {
        members.clear();
        let n = self.paths.len();
        let size = size.min(n);
        match heuristic {
            Heuristic::Blocking => self.blocking(size, members),
            Heuristic::Intersection => self.intersection(size, members),
            Heuristic::Random => {}
        }
        // Made up to the size at random (all of it for the random heuristic).
        let mut tries = 0;
        while members.len() < size && tries < 4 * n {
            tries += 1;
            let a = self.rng.random_range(0..n as u32);
            self.add_member(a, members);
        }
        for &a in members.iter() {
            self.chosen[a as usize] = false;
        }
        for k in (1..members.len()).rev() {
            members.swap(k, self.rng.random_range(0..=k));
        }
    }

    fn add_member(&mut self, a: u32, members: &mut Vec<u32>) {
        if a != NO_AGENT && !self.chosen[a as usize] {
            self.chosen[a as usize] = true;
            members.push(a);
        }
    }

    /// The agent most delayed over its lower bound (not yet a seed), the agents that visit its
    /// goal after it could first arrive, and the agents on its way to the goal: random walks in space-time from points of its path, each step to a cell from
    /// which it could still arrive sooner than it does.
    fn blocking(&mut self, size: usize, members: &mut Vec<u32>) {
        let delay = |r: &Self, a: usize| {
            let p = &r.paths[a];
            (p.len() as u64 - 1) - u64::from(r.dist.get(a as u32, p[0]))
        };
        let n = self.paths.len();
        let mut seed = None;
        for pass in 0..2 {
            let mut best = 0;
            for a in 0..n {
                let d = delay(self, a);
                if d > best && !self.tabu[a] {
                    best = d;
                    seed = Some(a as u32);
                }
            }
            if seed.is_some() || pass == 1 {
                break;
            }
            self.tabu.fill(false);
        }
        let Some(seed) = seed else {
            return;
        };
        self.tabu[seed as usize] = true;
        self.add_member(seed, members);
        let cost = self.paths[seed as usize].len() - 1;
        // The other agents on the seed's goal after it could first be there, latest first:
        // while they pass, it cannot rest there (an agent PIBT pushed off its goal waits for
        // them; on den520d at 1,000 agents these made most of the polished plans' excess).
        let goal = self.dist.goal(seed) as usize;
        let earliest = self.dist.get(seed, self.paths[seed as usize][0]) as usize;
        for t in (earliest.min(cost)..cost).rev() {
            if members.len() >= size {
                break;
            }
            let b = self.occupant[goal * self.window + t];
            if b != seed {
                self.add_member(b, members);
            }
        }
        let offsets = self.grid.move_offsets();
        for _ in 0..size * 4 {
            if members.len() >= size {
                break;
            }
            let mut t = self.rng.random_range(0..cost);
            let mut c = self.paths[seed as usize][t];
            // Walk while the agent could still arrive before `cost` from where it is.
            while t + 1 < cost && members.len() < size {
                let moves = self.grid.moves(c);
                let k = self.rng.random_range(0..=moves.len() as usize);
                let to = match moves.iter().nth(k) {
                    Some(d) => (i64::from(c) + offsets[d.index()]) as CellId,
                    None => c,
                };
                if (t + 1) as u64 + u64::from(self.dist.get(seed, to)) >= cost as u64 {
                    break;
                }
                t += 1;
                c = to;
                let b = self.at(t, c);
                if b != seed {
                    self.add_member(b, members);
                }
            }
        }
    }

    /// The agents passing through a random intersection (a cell with three or more moves) and
    /// the intersections nearest it, breadth first.
    fn intersection(&mut self, size: usize, members: &mut Vec<u32>) {
        let start = self.rng.random_range(0..self.cells as CellId);
        if !self.grid.is_walkable(start) {
            return;
        }
        let offsets = self.grid.move_offsets();
        let (mut queue, mut touched) = (
            std::mem::take(&mut self.queue),
            std::mem::take(&mut self.touched),
        );
        queue.clear();
        queue.push_back(start);
        touched.clear();
        touched.push(start);
        self.seen_cell[start as usize] = true;
        while let Some(c) = queue.pop_front() {
            if members.len() >= size || touched.len() > 4096 {
                break;
            }
            if self.grid.moves(c).len() >= 3 {
                // Its visitors from a random timestep on, wrapping round.
                let from = self.rng.random_range(0..self.window);
                for k in 0..self.window {
                    if members.len() >= size {
                        break;
                    }
                    let t = (from + k) % self.window;
                    let b = self.at(t, c);
                    self.add_member(b, members);
                }
            }
            for d in self.grid.moves(c).iter() {
                let to = (i64::from(c) + offsets[d.index()]) as CellId;
                if !self.seen_cell[to as usize] {
                    self.seen_cell[to as usize] = true;
                    touched.push(to);
                    queue.push_back(to);
                }
            }
        }
        for &c in &touched {
            self.seen_cell[c as usize] = false;
        }
        (self.queue, self.touched) = (queue, touched);
    }
}
