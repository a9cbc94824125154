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
  wherever ``"threads"`` does.
- ``"ray"``: one Ray task per run (``num_cpus=1``). When Ray is not initialised, a local Ray is
  started; on a cluster, call ``ray.init(address=...)`` first and the same call fans out over it.
- ``"dask"``: one Dask task per run. When a ``dask.distributed`` client exists (``Client(...)``
  connected to a cluster or a ``LocalCluster``), the runs go to it; otherwise Dask's local
  threaded scheduler runs them.

Every backend gives each run the same result as a single ``Simulation.from_scenario(path,
seed=seed, threads=1, **overrides).run()``. Every worker must be able to import ``throng`` and
read the scenario files at the paths given (on a cluster: install the package on the workers
and use a shared file system or the same checkout).

What survives what: a worker process that dies during a run (SIGKILL, out of memory, a crash)
costs nothing but time: the run is played again, by Dask's scheduler or by the sweep (a bounded
number of times, counted in each row's ``retries``; see ``_sweep_backends``), and gives the same
row. A run that fails (a bad setting, or a worker that dies on every attempt) is a row with an
``error`` message, not the end of the sweep (``errors="record"``). With ``out=FOLDER``, the rows
go to Parquet files as runs finish (``_sweep_store``): a sweep that crashed or was interrupted,
started again with the same ``out``, plays only the runs that are not there yet.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, Union

__all__ = ["sweep", "run_one", "read_sweep", "SweepRows"]

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


# Test hook: "SEED:PATH" makes the first run of seed SEED to start, in whichever process plays
# it, create the file PATH (holding its process id) and SIGKILL its own process, once: the file
# exists afterwards. python/tests/test_sweep.py kills a worker mid-sweep with it.
_KILL_HOOK = "THRONG_SWEEP_TEST_KILL"


def _kill_hook(seed: int) -> None:
    hook = os.environ.get(_KILL_HOOK)
    if not hook:
        return
    at, _, marker = hook.partition(":")
    if int(at) != seed:
        return
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    import signal

    os.kill(os.getpid(), signal.SIGKILL)


def _one_line(message: str) -> str:
    return "; ".join(line.strip() for line in message.splitlines() if line.strip())


def _error_row(task: tuple, message: str) -> dict:
    """The row of a failed run (``errors="record"``): what identifies it and the message."""
    scenario, seed, overrides, _ = task
    return {
        "scenario_path": os.fspath(scenario),
        "seed": seed,
        "overrides": dict(overrides),
        "retries": 0,
        "error": _one_line(message),
    }


def _task(args: tuple) -> dict:
    scenario, seed, overrides, errors = args
    _kill_hook(seed)
    try:
        row = run_one(scenario, seed, overrides)
    except Exception as e:  # noqa: BLE001 - a sweep reports any failure of a run
        if errors == "raise":
            raise RuntimeError(f"run of {os.fspath(scenario)!r} with seed {seed} failed: {e}") from e
        return _error_row(args, f"{type(e).__name__}: {e}")
    row["retries"] = 0
    return row


def _run_key(task: tuple) -> str:
    """What identifies a run in a sweep's output folder: its scenario, seed and overrides."""
    scenario, seed, overrides, _ = task
    return json.dumps([scenario, seed, overrides], sort_keys=True, default=repr)


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


def _unflatten(flat: Mapping[str, Any]) -> dict:
    """The row a sweep returns, from its flat row in an output folder (the inverse of
    :func:`_flatten`). The overrides come from the run's key; a failed run's row keeps only the
    columns it has, a run's without error no ``error`` (columns of other rows read as None)."""
    failed = flat.get("error") is not None
    row: dict = {}
    for name, value in flat.items():
        if name in ("run_key", "error") or name.startswith("override."):
            continue
        if failed and value is None:
            continue
        *parents, leaf = name.split(".")
        into = row
        for p in parents:
            into = into.setdefault(p, {})
        into[leaf] = value
    row["overrides"] = json.loads(flat["run_key"])[2]
    if failed:
        row["error"] = flat["error"]
    return row


class SweepRows(list):
    """The list of rows ``sweep(..., as_frame=False)`` returns, with the sweep's ``summary``
    (see :func:`sweep`)."""

    summary: dict


def sweep(
    scenarios: Union[PathLike, Sequence[PathLike]],
    seeds: Union[int, Iterable[int]] = (1,),
    backend: str = "threads",
    *,
    workers: int | None = None,
    as_frame: bool | None = None,
    errors: str = "record",
    retries: int = 2,
    out: PathLike | None = None,
    progress: bool | None = None,
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
        errors: ``"record"`` (default) gives a failed run a row with an ``error`` key (the
            one-line message) and plays the others; ``"raise"`` stops at the first failed run
            with a RuntimeError naming its scenario and seed.
        retries: how many times a run whose worker process dies (killed, out of memory) is
            played again by ``"processes"`` and ``"ray"``; a Dask client's scheduler does it
            itself (up to its ``distributed.scheduler.allowed-failures``). Each row's
            ``retries`` says how many times its run was started again.
        out: a folder (created when missing) that receives the rows as runs finish, as Parquet
            files (needs pyarrow), readable while the sweep runs (:func:`read_sweep`). The runs
            already there (same scenario path, seed and overrides) are not played again: a
            sweep started again after a crash or an interrupt plays only the missing runs.
        progress: show a progress bar (tqdm) on standard error; default: when standard error is
            a terminal and tqdm is installed.
        **overrides: scenario settings applied to every run: ``ticks``, ``agents`` or any key of
            the scenario's ``[sim]`` table (``conflicts="avoid"``, ``planner="astar"``, ...). A
            list (or tuple, or range) of values is a sweep axis: the runs cover every
            combination of the listed values, e.g. ``agents=[1000, 2000, 4000]``.

    Returns:
        A list of dicts (one per run: the keys of ``throng run --json`` plus ``seed``,
        ``scenario_path``, ``overrides``, ``elapsed_s`` and ``retries``, or ``error`` for a failed
        run), or a DataFrame (see ``as_frame``). Its summary (``rows.summary``, or
        ``frame.attrs["summary"]``) counts the ``runs``, those ``played`` now, those
        ``resumed`` from ``out``, those ``failed`` and those ``retried``. Failed runs also issue
        a RuntimeWarning saying how many.

    Raises:
        ValueError: an unknown backend, a bad ``workers``/``errors``/``retries`` value, or no run
            to play.
        ImportError: ``backend="ray"`` or ``"dask"`` without that package installed, ``out``
            without pyarrow, ``progress=True`` without tqdm.
        RuntimeError: a run failed (with ``errors="raise"``).
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r} (expected one of {', '.join(BACKENDS)})")
    if errors not in ("raise", "record"):
        raise ValueError(f"errors must be 'raise' or 'record', not {errors!r}")
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive int, not {workers!r}")
    if not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries must be a non-negative int, not {retries!r}")
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

    t0 = time.perf_counter()
    keys = [_run_key(t) for t in tasks]
    rows: list = [None] * len(tasks)
    store = None
    if out is not None:
        from ._sweep_store import ResultStore

        store = ResultStore(out)
        for i, key in enumerate(keys):
            if key in store.finished:
                rows[i] = _unflatten(store.finished[key])
    todo = [i for i, row in enumerate(rows) if row is None]
    failed = sum("error" in r for r in rows if r is not None)
    retried = sum(r.get("retries", 0) > 0 for r in rows if r is not None)
    bar = _progress_bar(progress, len(tasks), len(tasks) - len(todo))
    try:
        if todo:
            runs = _runs(backend, [tasks[i] for i in todo], workers, retries)
            try:
                for j, row in runs:
                    i = todo[j]
                    rows[i] = row
                    failed += "error" in row
                    retried += row.get("retries", 0) > 0
                    if store is not None:
                        store.add({"run_key": keys[i], **_flatten(row)})
                    if bar is not None:
                        bar.set_postfix_str(f"{failed} failed, {retried} retried", refresh=False)
                        bar.update()
            finally:
                runs.close()
                if store is not None:
                    store.flush()
    finally:
        if bar is not None:
            bar.close()

    summary = {
        "runs": len(rows),
        "played": len(todo),
        "resumed": len(rows) - len(todo),
        "failed": failed,
        "retried": retried,
        "elapsed_s": time.perf_counter() - t0,
    }
    if failed:
        warnings.warn(f"throng.sweep: {failed} of {len(rows)} runs failed (see their 'error')",
                      RuntimeWarning, stacklevel=2)
    return _result(rows, as_frame, summary)


def _runs(backend: str, tasks: list, workers: int | None, retries: int):
    """The runs of ``tasks`` on ``backend``: ``(index, row)`` as each finishes."""
    from . import _sweep_backends as backends

    size = min(workers or os.cpu_count() or 1, len(tasks))
    if backend == "threads":
        return backends.iter_threads(tasks, size)
    if backend == "processes":
        from ._sweep_worker import iter_tasks

        return iter_tasks(tasks, size, retries)
    if backend == "ray":
        return backends.iter_ray(tasks, retries)
    return backends.iter_dask(tasks, workers)


def _progress_bar(progress: bool | None, total: int, initial: int):
    """A tqdm bar on standard error, or None (see ``progress`` in :func:`sweep`)."""
    if progress is False:
        return None
    try:
        from tqdm import tqdm
    except ImportError as e:
        if progress:
            raise ImportError("progress=True needs tqdm: pip install 'throng[sweep]'") from e
        return None
    if progress is None and not sys.stderr.isatty():
        return None
    return tqdm(total=total, initial=initial, unit="run", desc="sweep", file=sys.stderr,
                dynamic_ncols=True)


def _wants_frame(as_frame: bool | None) -> bool:
    if as_frame is not None:
        return as_frame
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def _result(rows: list, as_frame: bool | None, summary: dict):
    if _wants_frame(as_frame):
        import pandas

        frame = pandas.DataFrame([_flatten(r) for r in rows])
        frame.attrs["summary"] = summary
        return frame
    result = SweepRows(rows)
    result.summary = summary
    return result


def read_sweep(out: PathLike, as_frame: bool | None = None):
    """The rows a sweep has written to its ``out`` folder so far, in the order they were
    written (also while that sweep runs).

    Returns a DataFrame (the columns of :func:`sweep`'s plus ``run_key``) when pandas is
    installed or ``as_frame=True``, else a list of flat dicts. Needs pyarrow. The folder's
    files also read with ``pandas.read_parquet(out)`` or any Parquet reader (the columns
    differ between batches where a batch lacks a kind of value, e.g. one of failed runs only).
    """
    from ._sweep_store import read_rows

    flat = read_rows(out)
    if _wants_frame(as_frame):
        import pandas

        return pandas.DataFrame(flat)
    return flat
