"""throng: parallel crowd pathfinding on a shared 2D grid.

The heavy lifting is in the Rust extension module ``throng._throng``; this package re-exports it
and adds the pure-Python parts: ``throng.sweep`` (many runs over processes, Ray or Dask) and
``throng.env`` (a PettingZoo environment; import it explicitly, it needs PettingZoo).
"""

from ._throng import (
    ACTIONS,
    OUTCOMES,
    EVENT_KINDS,
    STATES,
    Grid,
    Simulation,
    __version__,
    generate_map,
    load_map,
    plan,
)
from .sweep import read_sweep, sweep

__all__ = [
    "ACTIONS",
    "OUTCOMES",
    "EVENT_KINDS",
    "STATES",
    "Grid",
    "Simulation",
    "generate_map",
    "load_map",
    "plan",
    "sweep",
    "read_sweep",
    "__version__",
]
