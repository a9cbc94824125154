"""A PettingZoo ``ParallelEnv`` of agents on a throng grid, for multi-agent reinforcement learning.

POGEMA-style partial observability: every agent sees a square window of ``2 r + 1`` cells
around itself (``r = obs_radius``) in three channels,

0. obstacles (1 for a blocked cell or a cell outside the map),
1. the other agents still on the map,
2. its own goal: the goal's cell when it is inside the window, otherwise the point of the
   window's border in the goal's direction (the goal's offset clipped to the window),

as a ``float32`` array of shape ``(3, 2 r + 1, 2 r + 1)``. Actions are the engine's action
codes: ``0`` wait, ``1`` up, ``2`` down, ``3`` left, ``4`` right (``Discrete(5)`` on a
4-neighbourhood), and with ``neighbourhood=8`` also ``5`` up-left, ``6`` up-right, ``7``
down-left, ``8`` down-right (``Discrete(9)``).

The moves are played by the engine (``throng.Simulation`` with every agent controlled from
outside), so its movement rules hold whatever the policy asks: never two agents in one cell, no
swaps, no diagonal crossings, no corner cutting. A move into a wall, off the map or into a
conflict it loses becomes a wait; ``infos[agent]["outcome"]`` says which (0 moved, 1 waited as
asked, 2 illegal, 3 blocked by another agent).

Reward: ``1.0`` on the step an agent reaches its goal, ``0.0`` otherwise. What happens then is
``on_target``:

- ``"finish"`` (default): the agent is terminated and leaves the map (its cell is free);
- ``"restart"``: it gets a new random goal and carries on (lifelong);
- ``"nothing"``: it stays active; it is rewarded again only after leaving and coming back.

Every agent still active after ``max_episode_steps`` steps is truncated.

``layout="pogema"`` gives POGEMA's windows instead: only the first ring of cells off the map is
blocked (the cells beyond it are 0), and the agents channel marks the agent itself at the
centre. Beside PettingZoo's dicts, ``reset_arrays`` and ``step_arrays`` take and give arrays
with a row per agent (``agent_k`` is row ``k``): what RL libraries batch on. The windows,
rewards and outcomes are written by Rust straight into those arrays
(``python/src/env_step.rs``).

Example::

    from throng.env import parallel_env

    env = parallel_env(agents=8, seed=0)
    observations, infos = env.reset(seed=0)
    while env.agents:
        actions = {a: env.action_space(a).sample() for a in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)
"""

from __future__ import annotations

import functools
import os
from typing import Any, Optional, Union

import numpy as np

from . import Grid, Simulation
from ._throng import _EnvCore as EnvCore
from ._throng import _env_codes as env_codes
from ._throng import _env_infos as env_infos

try:
    from gymnasium import spaces
    from pettingzoo import ParallelEnv
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "throng.env needs PettingZoo and Gymnasium: pip install 'throng[env]' "
        "(or pip install pettingzoo gymnasium)"
    ) from e

__all__ = ["ThrongParallelEnv", "parallel_env", "env"]

#: Action codes and their (dx, dy).
MOVES = (
    (0, 0),
    (0, -1),
    (0, 1),
    (-1, 0),
    (1, 0),
    (-1, -1),
    (1, -1),
    (-1, 1),
    (1, 1),
)

ON_TARGET = ("finish", "restart", "nothing")

#: Observation layouts (see ``ThrongParallelEnv``).
LAYOUTS = ("throng", "pogema")


class ThrongParallelEnv(ParallelEnv):
    """Agents on a throng grid, stepped together (see the module's documentation).

    Args:
        map: a :class:`throng.Grid`, a path to a Moving AI ``.map`` file, or ``None`` for a
            random 32 x 32 map with 20% of its cells blocked (drawn from ``map_seed``).
        agents: number of agents (each with its own start and goal, all distinct, drawn in the
            map's largest connected area).
        seed: default seed of ``reset`` (starts, goals and new goals of ``"restart"``).
        obs_radius: ``r``, the window is ``2 r + 1`` cells wide.
        on_target: ``"finish"``, ``"restart"`` or ``"nothing"``.
        max_episode_steps: steps before the remaining agents are truncated.
        neighbourhood: 4 (5 actions) or 8 (9 actions).
        conflicts: the engine's conflict resolution among the chosen moves: ``"pibt"`` or
            ``"avoid"`` (both keep one agent per cell; ``"off"`` would let agents overlap and is
            refused).
        map_seed: seed of the default random map.
        render_mode: ``None``, ``"ansi"`` (text) or ``"rgb_array"`` (an image, 8 pixels a cell).
        layout: ``"throng"`` (default: every cell off the map blocked, the agent left out of
            its agents channel) or ``"pogema"`` (POGEMA's: only the first ring off the map
            blocked, the agent marked at the centre of its agents channel).
    """

    metadata = {"name": "throng_v0", "render_modes": ["ansi", "rgb_array"], "is_parallelizable": True}

    def __init__(
        self,
        map: Union[Grid, str, "os.PathLike[str]", None] = None,
        agents: int = 16,
        seed: Optional[int] = None,
        obs_radius: int = 5,
        on_target: str = "finish",
        max_episode_steps: int = 256,
        neighbourhood: int = 4,
        conflicts: str = "pibt",
        map_seed: int = 0,
        render_mode: Optional[str] = None,
        layout: str = "throng",
    ):
        from . import generate_map, load_map

        if on_target not in ON_TARGET:
            raise ValueError(f"on_target must be one of {ON_TARGET}, not {on_target!r}")
        if neighbourhood not in (4, 8):
            raise ValueError(f"neighbourhood must be 4 or 8, not {neighbourhood!r}")
        if conflicts not in ("pibt", "avoid"):
            raise ValueError(f"conflicts must be 'pibt' or 'avoid', not {conflicts!r}")
        if not isinstance(obs_radius, int) or obs_radius < 1:
            raise ValueError(f"obs_radius must be a positive int, not {obs_radius!r}")
        if not isinstance(max_episode_steps, int) or max_episode_steps < 1:
            raise ValueError(f"max_episode_steps must be a positive int, not {max_episode_steps!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', not {render_mode!r}")
        if layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}, not {layout!r}")
        if map is None:
            grid = generate_map("random", 32, 32, seed=map_seed, density=0.2)
        elif isinstance(map, Grid):
            grid = map
        else:
            grid = load_map(os.fspath(map))
        self.grid = grid.with_neighbourhood(neighbourhood)
        self.passable = self.grid.passable
        # Starts and goals in the largest connected area, so every goal can be reached.
        self.area = np.argwhere(self.grid.components() == 0)[:, ::-1].astype(np.int64)
        if not isinstance(agents, int) or agents < 1:
            raise ValueError(f"agents must be a positive int, not {agents!r}")
        if agents > len(self.area):
            raise ValueError(
                f"{agents} agents do not fit: the map's largest connected area has "
                f"{len(self.area)} cells"
            )
        if len(self.area) < 2:
            raise ValueError("the map's largest connected area has fewer than 2 cells")
        self.n_agents = agents
        self.default_seed = seed
        self.r = obs_radius
        self.on_target = on_target
        self.max_episode_steps = max_episode_steps
        self.neighbourhood = neighbourhood
        self.conflicts = conflicts
        self.render_mode = render_mode
        self.layout = layout
        self.possible_agents = [f"agent_{i}" for i in range(agents)]
        self.agents: list = []
        side = 2 * obs_radius + 1
        self._obs_space = spaces.Box(0.0, 1.0, (3, side, side), dtype=np.float32)
        self._act_space = spaces.Discrete(5 if neighbourhood == 4 else 9)
        # The windows, rewards and outcomes are written by Rust (see python/src/env_step.rs).
        self._core = EnvCore(self.grid, obs_radius, int(self._act_space.n), layout)
        self.sim: Optional[Simulation] = None
        self._same: Optional[list] = None  # the agents of the dicts `step` copies

    @functools.lru_cache(maxsize=None)  # noqa: B019 - PettingZoo wants the same object per agent
    def observation_space(self, agent: str) -> spaces.Box:
        """Box(0, 1, (3, 2 r + 1, 2 r + 1), float32), the same object for every agent."""
        return self._obs_space

    @functools.lru_cache(maxsize=None)  # noqa: B019
    def action_space(self, agent: str) -> spaces.Discrete:
        """Discrete(5) on a 4-neighbourhood, Discrete(9) on an 8-neighbourhood."""
        return self._act_space

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        """Draws new starts and goals (from ``seed``, else the env's seed, else fresh entropy)."""
        obs = self._reset(seed)
        return dict(zip(self.agents, obs)), {a: {} for a in self.agents}

    def reset_arrays(self, seed: Optional[int] = None, options: Optional[dict] = None):
        """:meth:`reset` as arrays: ``(obs, info)``, ``obs`` float32 of shape
        ``(agents, 3, 2 r + 1, 2 r + 1)`` (row ``k``: ``agent_k``), ``info`` a dict of arrays
        (``"active"``: all True)."""
        obs = self._reset(seed)
        return obs, {"active": self._active.copy()}

    def _reset(self, seed: Optional[int]) -> np.ndarray:
        if seed is None:
            seed = self.default_seed
        self.rng = np.random.default_rng(seed)
        n = self.n_agents
        starts = self.area[self.rng.choice(len(self.area), n, replace=False)]
        goals = self._draw_goals(starts)
        self.sim = Simulation(
            self.grid,
            starts,
            goals,
            seed=int(self.rng.integers(2**63)),
            threads=1,
            conflicts=self.conflicts,
            controlled=True,
        )
        self.agents = self.possible_agents[:]
        # The engine lists its agents in slot order, which is the order they were added in:
        # agent_0, agent_1, ... and no agent is added later, so row k of every array of the
        # environment is agent_k's and slot k of the engine (empty once agent_k has left).
        self._ids = self.sim.ids().astype(np.int64)
        assert ((self._ids & 0xFFFFFFFF) == np.arange(n)).all()
        self._goals = goals.astype(np.int64)
        self._active = np.ones(n, dtype=bool)
        # The goals' cells, kept as goals change, so that a new goal is drawn in O(1).
        self._is_goal = np.zeros(self.passable.shape, dtype=bool)
        self._is_goal[self._goals[:, 1], self._goals[:, 0]] = True
        self.steps = 0
        return self._observe()

    @property
    def ids(self) -> dict:
        """Each active agent's id in ``self.sim``."""
        return dict(zip(self.agents, self._ids[self._active].tolist()))

    @property
    def goal(self) -> dict:
        """Each active agent's goal, ``(x, y)``."""
        return {a: (x, y) for a, (x, y) in zip(self.agents, self._goals[self._active].tolist())}

    def _draw_goals(self, starts: np.ndarray) -> np.ndarray:
        """One goal per start, all distinct, none on its own start."""
        n = len(starts)
        while True:
            goals = self.area[self.rng.choice(len(self.area), n, replace=False)]
            if not np.any(np.all(goals == starts, axis=1)):
                return goals

    def _new_goal(self, k: int, here: tuple) -> None:
        """Gives agent ``k``, arrived at ``here``, a new goal: a cell of the area drawn
        uniformly, not its cell, not another agent's goal. Draws until a free cell comes, as
        before (the same draws from ``self.rng``), but tests a cell against ``self._is_goal``,
        kept as goals change, instead of a set of every goal built per arrival: O(1) per draw,
        ``area / (area - agents)`` draws expected."""
        area, is_goal = self.area, self._is_goal
        while True:
            x, y = (int(v) for v in area[self.rng.integers(len(area))])
            if (x, y) != here and not is_goal[y, x]:
                break
        ox, oy = self._goals[k]
        is_goal[oy, ox] = False
        is_goal[y, x] = True
        self._goals[k] = (x, y)
        self.sim.set_goal(int(self._ids[k]), (x, y))

    def step(self, actions: dict):
        """Plays one step: each active agent's action (agents missing from ``actions`` wait;
        keys of agents no longer active are ignored)."""
        if self.sim is None:
            raise RuntimeError("call reset() before step()")
        agents = self.agents
        if not agents:
            return {}, {}, {}, {}, {}
        if not isinstance(actions, dict):
            actions = dict(actions)
        codes = np.empty(len(agents), dtype=np.int64)
        bad = env_codes(actions, agents, codes, self._act_space.n)
        if bad >= 0:
            bad = agents[bad]
            raise ValueError(f"{bad}: action {actions[bad]!r} is not in {self._act_space}")
        rows = None if len(agents) == self.n_agents else np.flatnonzero(self._active)
        if rows is None:
            full = codes
        else:
            full = np.zeros(self.n_agents, dtype=np.int64)
            full[rows] = codes
        obs, reward, finished, truncated, outcome = self._step(full)
        if rows is not None:
            obs, outcome = obs[rows], outcome[rows]
        # Copies of dicts of every agent's name (a copy is a memcpy), the few rewards and
        # terminations set after.
        if self._same is not agents:
            self._same = agents
            self._zero, self._false = dict.fromkeys(agents, 0.0), dict.fromkeys(agents, False)
            self._true = dict.fromkeys(agents, True)
        rewards, terminations = self._zero.copy(), self._false.copy()
        for k in np.flatnonzero(reward).tolist():
            rewards[self.possible_agents[k]] = float(reward[k])
        for k in np.flatnonzero(finished).tolist():
            terminations[self.possible_agents[k]] = True
        truncations = (self._true if truncated else self._false).copy()
        infos = env_infos(agents, outcome)
        return dict(zip(agents, obs)), rewards, terminations, truncations, infos

    def step_arrays(self, actions):
        """Plays one step from an int array of shape ``(agents,)``, row ``k`` the action of
        ``agent_k`` (ignored once it has left), and returns arrays with a row per agent:
        ``obs`` float32 ``(agents, 3, 2 r + 1, 2 r + 1)`` (zeros for an agent no longer
        active), ``reward`` float32, ``terminated`` and ``truncated`` bool (True on the step it
        happens), and ``info``, a dict of arrays: ``"outcome"`` int8 (0 moved, 1 waited, 2
        illegal, 3 blocked, -1 for an agent not active during the step) and ``"active"`` bool
        (still active after the step). After the episode's end it plays nothing: every row is
        inactive. Raises ValueError naming the row of a code outside the action space."""
        if self.sim is None:
            raise RuntimeError("call reset() before step_arrays()")
        codes = np.asarray(actions)
        if codes.shape != (self.n_agents,) or codes.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an int array of shape ({self.n_agents},), not "
                f"{codes.dtype} {codes.shape}"
            )
        n, side = self.n_agents, 2 * self.r + 1
        if not self.agents:
            no = np.zeros(n, dtype=bool)
            obs = np.zeros((n, 3, side, side), dtype=np.float32)
            outcome = np.full(n, -1, dtype=np.int8)
            return obs, np.zeros(n, dtype=np.float32), no, no.copy(), {
                "outcome": outcome, "active": no.copy()}
        active = self._active.copy()
        obs, reward, finished, truncated, outcome = self._step(codes.astype(np.int64, copy=False))
        return obs, reward, finished, active & truncated, {
            "outcome": outcome, "active": self._active.copy()}

    def _step(self, codes: np.ndarray):
        """Plays a step from a code per row: (obs, reward, finished, truncated, outcome)."""
        n = self.n_agents
        reward = np.empty(n, dtype=np.float32)
        outcome = np.empty(n, dtype=np.int8)
        reached = self._core.step(self.sim, codes, reward, outcome)
        self.steps += 1
        finished = np.zeros(n, dtype=bool)
        if reached.size:
            if self.on_target == "finish":
                finished[reached] = True
            elif self.on_target == "restart":
                pos = self.sim.positions()
                for k in reached.tolist():
                    self._new_goal(k, (int(pos[k, 0]), int(pos[k, 1])))
        truncated = self.steps >= self.max_episode_steps
        obs = self._observe()
        if truncated:
            self.agents = []
            self._active[:] = False
        elif reached.size and self.on_target == "finish":
            for k in reached.tolist():
                self.sim.remove_agent(int(self._ids[k]))
            self._active[reached] = False
            self.agents = [a for a, k in zip(self.possible_agents, self._active.tolist()) if k]
        return obs, reward, finished, truncated, outcome

    def _observe(self) -> np.ndarray:
        """Every agent's window, written by Rust: row k agent_k's (zeros once it has left)."""
        side = 2 * self.r + 1
        obs = np.empty((self.n_agents, 3, side, side), dtype=np.float32)
        self._core.observe(self.sim, self._goals, obs)
        return obs

    def render(self):
        """``"ansi"``: the map as text (``#`` wall, ``a`` agent, ``g`` goal); ``"rgb_array"``:
        an (8 h, 8 w, 3) uint8 image (walls dark, agents blue, goals green)."""
        if self.render_mode is None or self.sim is None:
            return None
        pos = self.sim.positions()
        goals = self._goals[self._active]
        if self.render_mode == "ansi":
            chars = np.where(self.passable, ".", "#").astype("<U1")
            chars[goals[:, 1], goals[:, 0]] = "g"
            chars[pos[:, 1], pos[:, 0]] = "a"
            return "\n".join("".join(r) for r in chars)
        img = np.where(self.passable[..., None], 235, 40).astype(np.uint8)
        img = np.repeat(img, 3, axis=2)
        img[goals[:, 1], goals[:, 0]] = (60, 170, 60)
        img[pos[:, 1], pos[:, 0]] = (40, 90, 220)
        return np.kron(img, np.ones((8, 8, 1), dtype=np.uint8))

    def close(self):
        self.sim = None

    def state(self) -> np.ndarray:
        """The whole map: (3, h, w) float32 of walls, agents and the active agents' goals."""
        if self.sim is None:
            raise RuntimeError("call reset() before state()")
        h, w = self.passable.shape
        s = np.zeros((3, h, w), dtype=np.float32)
        s[0] = ~self.passable
        pos = self.sim.positions()
        s[1, pos[:, 1], pos[:, 0]] = 1.0
        goals = self._goals[self._active]
        s[2, goals[:, 1], goals[:, 0]] = 1.0
        return s


def parallel_env(**kwargs: Any) -> ThrongParallelEnv:
    """A :class:`ThrongParallelEnv` (the PettingZoo convention's constructor name)."""
    return ThrongParallelEnv(**kwargs)


def env(**kwargs: Any):
    """The same environment under PettingZoo's AEC (turn by turn) API."""
    from pettingzoo.utils.conversions import parallel_to_aec

    return parallel_to_aec(parallel_env(**kwargs))
