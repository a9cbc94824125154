"""throng: parallel crowd pathfinding on a shared 2D grid.

The heavy lifting is in the Rust extension module ``throng._throng``; this package re-exports it
and adds the pure-Python parts (``throng.env``, ``throng.sweep``).
"""

from ._throng import Grid, Simulation, load_map, plan, __version__

__all__ = ["Grid", "Simulation", "load_map", "plan", "__version__"]
