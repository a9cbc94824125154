"""Parameter sweeps: one simulation per (scenario, seed), fanned out over threads, processes,
Ray or Dask.

``throng.sweep`` is the documented way to run many simulations at once, on one machine or on a
cluster. Each run plays one scenario file with one seed on a single worker thread (the parallel
unit is the run, not the tick: a sweep of independent runs scales with the number of cores, while
one run's planning threads share its agents), and returns the same summary as
``throng run --json``.

Backends:

- ``"threads"`` (the default; nothing to install): a pool of threads in this process. A run
  releases the GIL while it builds and plays the simulation, so the runs go in parallel, and
  nothing is imported again: a sweep works the same in a script (with or without
  ``if __name__ == "__main__":``), from ``python -c``, from standard input and in a notebook.
- ``"processes"``: a pool of worker processes of our own (``throng._sweep_worker``), each a fresh
  Python reading its runs over a pipe; it never imports the caller's main module, so it works
  wherever ``"threads"`` does. A run that kills its worker (out of memory, a crash) fails alone.
- ``"ray"``: one Ray task per run (``num_cpus=1``). When Ray is not initialised, a local Ray is
  started; on a cluster, call ``ray.init(address=...)`` first and the same call fans out over it.
- ``"dask"``: one Dask task per run. When a ``dask.distributed`` client exists (``Client(...)``
  connected to a cluster or a ``LocalCluster``), the runs go to it; otherwise Dask's local
  threaded scheduler runs them.

Every backend gives each run the same result as a single ``Simulation.from_scenario(path,
seed=seed, threads=1, **overrides).run()``. Every worker must be able to import ``throng`` and
read the scenario files at the paths given (on a cluster: install the package on the workers
and use a shared file system or the same checkout).
"""

from __future__ import annotations

import itertools
import os
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, Union

__all__ = ["sweep", "run_one"]

PathLike = Union[str, "os.PathLike[str]"]

BACKENDS = ("threads", "processes", "ray", "dask")


def run_one(scenario: PathLike, seed: int, overrides: Mapping[str, Any] | None = None) -> dict:
    """Plays one scenario file with one seed on one thread and returns its summary.

    The summary has the keys of ``throng run --json`` (``summary`` and the scenario's settings)
    plus ``seed``, ``scenario_path``, the overrides and ``elapsed_s`` (wall time of the run,
    setup included). This is the task each sweep backend runs.
    """
    import time

    from . import Simulation

    overrides = dict(overrides or {})
    ticks = overrides.pop("ticks", None)
    t0 = time.perf_counter()
    sim = Simulation.from_scenario(os.fspath(scenario), seed=seed, threads=1, **overrides)
    result = sim.run(ticks)
    result["elapsed_s"] = time.perf_counter() - t0
    result["scenario_path"] = os.fspath(scenario)
    result["seed"] = seed
    if ticks is not None:
        overrides["ticks"] = ticks
    result["overrides"] = overrides
    return result


def _task(args: tuple) -> dict:
    scenario, seed, overrides, errors = args
    try:
        return run_one(scenario, seed, overrides)
    except Exception as e:  # noqa: BLE001 - a sweep reports any failure of a run
        if errors == "raise":
            raise RuntimeError(f"run of {os.fspath(scenario)!r} with seed {seed} failed: {e}") from e
        return {
            "scenario_path": os.fspath(scenario),
            "seed": seed,
            "overrides": dict(overrides),
            "error": f"{type(e).__name__}: {e}",
        }


def _flatten(row: Mapping[str, Any]) -> dict:
    """One flat dict per run for a DataFrame: nested keys joined with dots."""
    flat: dict = {}
    for key, value in row.items():
        if key == "overrides":
            for k, v in value.items():
                flat[f"override.{k}"] = v
        elif isinstance(value, Mapping):
            for k, v in _flatten(value).items():
                flat[f"{key}.{k}"] = v
        else:
            flat[key] = value
    return flat


def sweep(
    scenarios: Union[PathLike, Sequence[PathLike]],
    seeds: Union[int, Iterable[int]] = (1,),
    backend: str = "threads",
    *,
    workers: int | None = None,
    as_frame: bool | None = None,
    errors: str = "raise",
    **overrides: Any,
):
    """Plays every (scenario, setting, seed) combination and returns the summaries, in that order
    (scenarios outermost, seeds innermost).

    Args:
        scenarios: a scenario file (TOML, as for ``throng run``) or a list of them.
        seeds: the seeds, or an int ``n`` for the seeds ``0 .. n-1``.
        backend: ``"threads"``, ``"processes"``, ``"ray"`` or ``"dask"`` (see the module's
            documentation).
        workers: the runs played at once by ``"threads"``, ``"processes"`` and Dask's local
            scheduler (default: all cores); Ray and a Dask client use their cluster's size.
        as_frame: return a pandas DataFrame (one row per run, nested summary keys joined with
            dots, the overrides as ``override.<key>``); default: when pandas is installed.
        errors: ``"raise"`` (default) stops at the first failed run with an error naming its
            scenario and seed; ``"record"`` returns a row with an ``error`` key instead.
        **overrides: scenario settings applied to every run: ``ticks``, ``agents`` or any key of
            the scenario's ``[sim]`` table (``conflicts="avoid"``, ``planner="astar"``, ...). A
            list (or tuple, or range) of values is a sweep axis: the runs cover every
            combination of the listed values, e.g. ``agents=[1000, 2000, 4000]``.

    Returns:
        A list of dicts (one per run: the keys of ``throng run --json`` plus ``seed``,
        ``scenario_path``, ``overrides`` and ``elapsed_s``), or a DataFrame (see ``as_frame``).

    Raises:
        ValueError: an unknown backend, a bad ``workers``/``errors`` value, or no run to play.
        ImportError: ``backend="ray"`` or ``"dask"`` without that package installed.
        RuntimeError: a run failed (with ``errors="raise"``).
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r} (expected one of {', '.join(BACKENDS)})")
    if errors not in ("raise", "record"):
        raise ValueError(f"errors must be 'raise' or 'record', not {errors!r}")
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive int, not {workers!r}")
    if isinstance(scenarios, (str, os.PathLike)):
        scenarios = [scenarios]
    if isinstance(seeds, int):
        seeds = range(seeds)
    scenarios = [Path(s) for s in scenarios]
    seeds = list(seeds)
    for s in scenarios:
        if not s.exists():
            raise ValueError(f"{os.fspath(s)}: no such file")
        if not s.is_file():
            raise ValueError(f"{os.fspath(s)}: not a regular file")
    for seed in seeds:
        if not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seeds must be non-negative ints, not {seed!r}")
    axes = {k: list(v) for k, v in overrides.items() if isinstance(v, (list, tuple, range))}
    for k, v in axes.items():
        if not v:
            raise ValueError(f"override {k!r} lists no value")
    fixed = {k: v for k, v in overrides.items() if k not in axes}
    settings = [
        {**fixed, **dict(zip(axes, combo))} for combo in itertools.product(*axes.values())
    ]
    tasks = [
        (os.fspath(s.resolve()), seed, setting, errors)
        for s, setting, seed in itertools.product(scenarios, settings, seeds)
    ]
    if not tasks:
        raise ValueError("nothing to run: no scenario or no seed")

    if backend == "threads":
        rows = _run_threads(tasks, workers)
    elif backend == "processes":
        from ._sweep_worker import run_tasks

        rows = run_tasks(tasks, _pool_size(workers, tasks))
    elif backend == "ray":
        rows = _run_ray(tasks)
    else:
        rows = _run_dask(tasks, workers)

    if as_frame is None:
        try:
            import pandas  # noqa: F401

            as_frame = True
        except ImportError:
            as_frame = False
    if as_frame:
        import pandas

        return pandas.DataFrame([_flatten(r) for r in rows])
    return rows


def _pool_size(workers: int | None, tasks: list) -> int:
    return min(workers or os.cpu_count() or 1, len(tasks))


def _run_threads(tasks: list, workers: int | None) -> list:
    """The runs on a pool of threads (each run releases the GIL), their rows in order.

    The first failed run (``errors="raise"``) or an interrupt cancels the runs not started yet
    rather than waiting for them; the runs under way finish (a run cannot be stopped midway).
    """
    pool = ThreadPoolExecutor(_pool_size(workers, tasks), thread_name_prefix="throng-sweep")
    try:
        futures = [pool.submit(_task, t) for t in tasks]
        wait(futures, return_when=FIRST_EXCEPTION)
        failed = [f for f in futures if f.done() and f.exception() is not None]
        if failed:
            pool.shutdown(wait=False, cancel_futures=True)
            failed[0].result()
        return [f.result() for f in futures]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _run_ray(tasks: list) -> list:
    try:
        import ray
    except ImportError as e:
        raise ImportError("backend='ray' needs Ray: pip install 'ray[default]'") from e
    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False)
    remote = ray.remote(num_cpus=1)(_task)
    return ray.get([remote.remote(t) for t in tasks])


def _run_dask(tasks: list, workers: int | None) -> list:
    try:
        import dask
    except ImportError as e:
        raise ImportError("backend='dask' needs Dask: pip install 'dask[distributed]'") from e
    try:
        from distributed import get_client

        client = get_client()
    except (ImportError, ValueError):
        client = None
    if client is not None:
        futures = client.map(_task, tasks, pure=False)
        return client.gather(futures)
    # Threads, as for backend="threads": Dask's local process scheduler would spawn workers that
    # import the caller's main module.
    delayed = [dask.delayed(_task)(t) for t in tasks]
    return list(dask.compute(*delayed, scheduler="threads", num_workers=workers))
