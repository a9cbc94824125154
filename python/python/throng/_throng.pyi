"""Type stubs of the native module ``throng._throng`` (Rust, PyO3), re-exported by ``throng``.

Coordinates are ``(x, y)``: ``x`` the column, ``y`` the row (0, 0 is the top-left cell); arrays of
cells have shape (k, 2), x then y. Agent ids are Python ints, ``generation << 32 | index``.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

STATES: Tuple[str, str, str, str, str, str]
EVENT_KINDS: List[str]
"""Names of the codes of ``Simulation.states()``: idle, planning, moving, waiting, arrived, no_path."""

ACTIONS: Tuple[str, str, str, str, str, str, str, str, str]
"""Names of the action codes of ``Simulation.step(actions=...)``: wait, up, down, left, right,
up_left, up_right, down_left, down_right."""

OUTCOMES: Tuple[str, str, str, str]
"""Names of the codes of a step's ``action_outcomes`` (-1: no action): moved, waited, illegal,
blocked."""

PathLike = Union[str, "os.PathLike[str]"]
Cells = Union[npt.ArrayLike, Sequence[Sequence[int]]]
Point = Union[Tuple[int, int], Sequence[int], npt.NDArray[np.integer]]
Actions = Union[Mapping[int, int], npt.ArrayLike, None]

class Grid:
    """A 2-D grid of passable and blocked cells; moves are 8-connected without corner cutting,
    or 4-connected (``neighbourhood``). Immutable."""

    @staticmethod
    def from_array(array: npt.NDArray[np.bool_], neighbourhood: int = 8) -> Grid:
        """A grid from a 2-D bool array of shape (height, width): True where passable."""
    @property
    def width(self) -> int:
        """Width in cells."""
    @property
    def height(self) -> int:
        """Height in cells."""
    @property
    def neighbourhood(self) -> int:
        """8 (straight and diagonal moves) or 4 (straight moves only)."""
    @property
    def passable(self) -> npt.NDArray[np.bool_]:
        """A bool array of shape (height, width): True where passable."""
    def with_neighbourhood(self, neighbourhood: int) -> Grid:
        """The same cells with another neighbourhood (4 or 8)."""
    def components(self) -> npt.NDArray[np.int32]:
        """Connected areas: int32 (height, width), 0 the largest area, -1 on blocked cells."""

def load_map(path: PathLike) -> Grid:
    """Loads a Moving AI ``.map`` file (OSError if unreadable, ValueError naming the line)."""

def generate_map(kind: str, width: int, height: int, seed: int = 0, **params: Any) -> Grid:
    """A procedural map: ``"random"`` (``density``, default 0.2), ``"rooms"`` (``room``, default
    31; ``door``, default 3) or ``"maze"`` (``corridor``, default 2). ValueError names an unknown
    kind or parameter or a value out of range."""

def plan(
    grid: Grid,
    starts: Cells,
    goals: Cells,
    planner: str = "jps",
    threads: int = 0,
) -> Tuple[List[npt.NDArray[np.int32]], npt.NDArray[np.float64]]:
    """Plans ``starts[i] -> goals[i]`` in parallel (GIL released): a list of (len, 2) int32 paths
    (empty where unreachable) and a float64 array of costs (NaN where unreachable).
    ``planner``: any of the engine's, "astar", "jps", "jps+", "nav", "auto" or "dstar" ("jps+"
    builds the grid's jump table first, 16 bytes a cell, and keeps it with the grid; "nav" and
    "auto" build the grid's navigation points first, on every call, and give legal paths close
    to the optimal ones; "dstar" plans each query from scratch; the others are optimal); any
    other name is a ValueError listing them all."""

class Simulation:
    """A crowd on a grid, played tick by tick on its own pool of worker threads.

    Every per-agent array (``ids()``, ``positions()``, ``goals()``, ``states()``,
    ``controlled()``, array actions and ``action_outcomes``) lists the live agents in the same
    order (slot order).
    """

    def __init__(
        self,
        grid: Grid,
        starts: Cells,
        goals: Optional[Cells] = None,
        *,
        seed: int = 0,
        threads: int = 1,
        conflicts: str = "pibt",
        planner: str = "jps",
        lifelong: bool = False,
        controlled: bool = False,
        **config: Any,
    ) -> None:
        """A simulation of ``len(starts)`` agents on ``grid``. ``conflicts``: "pibt", "avoid" or
        "off"; ``planner``: "astar", "jps", "jps+", "nav", "auto" or "dstar";
        ``controlled=True``: every agent driven from Python. ``config``: other ``[sim]`` keys of scenario files
        (``max_plans_per_tick``, ``node_budget``, ``replan_after_waits``, ...); an unknown key or
        bad value is a ValueError naming it."""
    @staticmethod
    def from_scenario(
        path: PathLike,
        seed: Optional[int] = None,
        threads: Optional[int] = None,
        **overrides: Any,
    ) -> Simulation:
        """Builds a scenario file (the TOML of ``throng run``); keywords override its settings."""
    def step(self, actions: Actions = None) -> Dict[str, Any]:
        """Plays one tick; returns the tick's report. ``actions``: None, ``{id: code}`` or an
        int array of shape (n,) aligned with ``ids()`` (-1: none); codes 0 wait, 1 up (y - 1),
        2 down, 3 left (x - 1), 4 right, 5 up-left, 6 up-right, 7 down-left, 8 down-right. With
        actions the report has ``"action_outcomes"``: int8 (n,), -1 none, 0 moved, 1 waited,
        2 illegal, 3 blocked. ``"arrivals"``: int64 ids of the agents that came to stand on their
        goal this tick (a return to a goal left included)."""
    def run(self, ticks: Optional[int] = None) -> Dict[str, Any]:
        """Plays up to ``ticks`` ticks (stopping early once a one-shot run is over); returns
        ``summary()``."""
    def summary(self) -> Dict[str, Any]:
        """The run so far, with the keys of ``throng run --json``."""
    def state_hash(self) -> int:
        """A hash of every agent's slot, position and state (``final_state_hash``)."""
    def snapshot(self) -> bytes:
        """The whole state as bytes, for ``restore`` or ``from_snapshot`` (this version only)."""
    def restore(self, snapshot: bytes) -> None:
        """Replaces the whole state with ``snapshot`` (a rollback); ValueError for bad bytes."""
    @staticmethod
    def from_snapshot(snapshot: bytes, threads: Optional[int] = None) -> Simulation:
        """A simulation from ``snapshot`` (bytes of ``snapshot()``) on ``threads`` threads."""
    @property
    def tick(self) -> int:
        """The ticks played."""
    @property
    def grid(self) -> Grid:
        """The current grid."""
    def __len__(self) -> int:
        """The number of live agents."""
    def ids(self) -> npt.NDArray[np.int64]:
        """The live agents' ids, int64 (n,)."""
    def positions(self) -> npt.NDArray[np.int32]:
        """The agents' positions, int32 (n, 2) of x, y."""
    def goals(self) -> npt.NDArray[np.int32]:
        """The agents' goals, int32 (n, 2) of x, y; (-1, -1) without a goal."""
    def states(self) -> npt.NDArray[np.uint8]:
        """The agents' state codes, uint8 (n,) (``throng.STATES``)."""
    def next_cells(self) -> npt.NDArray[np.int32]:
        """Each agent's next cell on its route, int32 (n, 2) of x, y; (-1, -1) for none."""
    def route(self, id: int) -> npt.NDArray[np.int32]:
        """The cells ahead on an agent's route, int32 (k, 2), next cell first, goal last."""
    def events(self) -> Dict[str, npt.NDArray[Any]]:
        """The last tick's events: arrays agent, kind (``throng.EVENT_KINDS``), x, y, detail."""
    def controlled(self) -> npt.NDArray[np.bool_]:
        """Whether each agent is driven from Python, bool (n,)."""
    def add_agent(
        self, start: Point, goal: Optional[Point] = None, controlled: bool = False
    ) -> int:
        """Adds an agent now; returns its id."""
    def remove_agent(self, id: int) -> None:
        """Removes an agent now."""
    def set_goal(self, id: int, goal: Optional[Point]) -> None:
        """Gives an agent a new goal now; None clears it (the agent stands, idle)."""
    def set_priority(self, id: int, priority: int) -> None:
        """Sets an agent's priority class in conflicts (0 to 255; higher goes first)."""
    def set_planner(self, id: int, planner: Optional[str]) -> None:
        """Sets an agent's own planner by name, or the simulation's with None."""
    def set_controlled(self, ids: Union[int, Iterable[int]], flag: bool) -> None:
        """Makes agents driven from Python (True) or planned by the engine (False), now."""
    def change_map(self, cells: Cells, passable: npt.ArrayLike) -> None:
        """Opens or blocks cells now (refused whole if it would block a cell an agent is on)."""

# The hot path of throng.env (python/src/env_step.rs, env_dicts.rs): not public API.
class _EnvCore:
    def __init__(self, grid: Grid, obs_radius: int, codes: int, layout: str) -> None: ...
    def step(
        self,
        sim: Simulation,
        actions: npt.NDArray[np.int64],
        reward: npt.NDArray[np.float32],
        outcome: npt.NDArray[np.int8],
    ) -> npt.NDArray[np.int64]: ...
    def observe(
        self, sim: Simulation, goals: npt.NDArray[np.int64], obs: npt.NDArray[np.float32]
    ) -> None: ...

def _env_codes(
    actions: Dict[Any, Any], names: List[str], out: npt.NDArray[np.int64], codes: int
) -> int: ...
def _env_infos(names: List[str], outcome: npt.NDArray[np.int8]) -> Dict[str, Dict[str, int]]: ...
