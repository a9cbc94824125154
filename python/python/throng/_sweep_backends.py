"""Where a sweep's runs play: threads, Ray or Dask (the processes backend is
``throng._sweep_worker``), each an iterator of ``(index, row)`` in the order the runs finish.

The sweep writes, counts and shows each row as it comes. Closing an iterator early (a failed
run under ``errors="raise"``, an interrupt, an error while writing) starts no new run and
cancels the runs not started. A run whose worker process dies is played again: by Dask's
scheduler, which reschedules the tasks of a lost worker (up to its
``distributed.scheduler.allowed-failures``, 3 by default), or by the sweep for Ray (whose own
retries are turned off so that the sweep counts each one) and for the processes backend, up to
``retries`` times. Every row says in ``retries`` how many times its run was started again.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Iterator

__all__ = ["iter_threads", "iter_ray", "iter_dask", "died"]


def died(task: tuple, how: str, attempts: int) -> str:
    """The message of a run whose worker process died on each of its ``attempts``."""
    scenario, seed = task[0], task[1]
    times = "" if attempts == 1 else f", on each of {attempts} attempts"
    return (
        f"run of {scenario!r} with seed {seed} failed: its worker process died ({how}{times}): "
        "out of memory, or a crash"
    )


def died_outcome(task: tuple, how: str, attempts: int) -> dict:
    """The row of a run whose worker died ``attempts`` times (``errors="record"``), or the
    RuntimeError it raises (``errors="raise"``)."""
    from .sweep import _error_row

    message = died(task, how, attempts)
    if task[3] == "raise":
        raise RuntimeError(message)
    row = _error_row(task, message)
    row["retries"] = attempts - 1
    return row


def iter_threads(tasks: list, workers: int) -> Iterator[tuple]:
    """The runs on a pool of threads of this process (each run releases the GIL)."""
    from .sweep import _task

    pool = ThreadPoolExecutor(workers, thread_name_prefix="throng-sweep")
    try:
        index = {pool.submit(_task, t): i for i, t in enumerate(tasks)}
        for future in as_completed(index):
            yield index[future], future.result()
    finally:
        # The runs under way finish (a run cannot be stopped midway); the others never start.
        pool.shutdown(wait=True, cancel_futures=True)


def iter_ray(tasks: list, retries: int) -> Iterator[tuple]:
    """One Ray task per run (``num_cpus=1``); a run whose worker dies is submitted again."""
    try:
        import ray
        import ray.exceptions as rx
    except ImportError as e:
        raise ImportError("backend='ray' needs Ray: pip install 'ray[default]'") from e
    from .sweep import _task

    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False)
    remote = ray.remote(num_cpus=1, max_retries=0)(_task)
    lost = (rx.WorkerCrashedError, rx.NodeDiedError, rx.LocalRayletDiedError)
    pending = {remote.remote(t): (i, 0) for i, t in enumerate(tasks)}
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            more, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0)
            for ref in dict.fromkeys(ready + more):
                i, again = pending.pop(ref)
                try:
                    row = ray.get(ref)
                except lost as e:
                    if again < retries:
                        pending[remote.remote(tasks[i])] = (i, again + 1)
                        continue
                    row = died_outcome(tasks[i], type(e).__name__, again + 1)
                row["retries"] = again
                yield i, row
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)


def iter_dask(tasks: list, workers: int) -> Iterator[tuple]:
    """One Dask task per run: to the current ``dask.distributed`` client when there is one,
    otherwise on Dask's local threaded scheduler."""
    try:
        import dask  # noqa: F401
    except ImportError as e:
        raise ImportError("backend='dask' needs Dask: pip install 'dask[distributed]'") from e
    try:
        from distributed import get_client

        client = get_client()
    except (ImportError, ValueError):
        client = None
    if client is None:
        # Threads, as for backend="threads": Dask's local process scheduler would spawn workers
        # that import the caller's main module.
        return _iter_dask_threads(tasks, workers)
    return _iter_dask_client(client, tasks)


def _iter_dask_client(client, tasks: list) -> Iterator[tuple]:
    from distributed import as_completed as dask_completed
    from distributed import KilledWorker

    from .sweep import _task

    futures = client.map(_task, tasks, pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    done = dask_completed(futures)
    try:
        for batch in done.batches():
            restarts = _scheduler_restarts(client, [f.key for f in batch])
            for future in batch:
                i = index[future.key]
                again = restarts.get(future.key, 0)
                try:
                    row = future.result()
                except KilledWorker:
                    row = died_outcome(tasks[i], "Dask's KilledWorker", max(again, 1))
                    again = row["retries"]
                row["retries"] = again
                yield i, row
    finally:
        client.cancel([f for f in futures if not f.done()])


def _scheduler_restarts(client, keys: list) -> dict:
    """How many times the scheduler lost the worker of each task of ``keys`` while it ran (its
    ``suspicious`` count: the times it rescheduled it); {} when the scheduler does not say."""

    def read(dask_scheduler, keys=keys):
        tasks = dask_scheduler.tasks
        return {k: getattr(tasks.get(k), "suspicious", 0) for k in keys}

    try:
        return client.run_on_scheduler(read)
    except Exception:  # noqa: BLE001 - a scheduler that refuses: no count, the rows stand
        return {}


def _iter_dask_threads(tasks: list, workers: int) -> Iterator[tuple]:
    """Dask's threaded scheduler, each run's row passed on as its task finishes."""
    import functools

    import dask
    from dask.callbacks import Callback

    from .sweep import _task

    finished: queue.Queue = queue.Queue()
    stop = threading.Event()

    def guarded(task):
        return None if stop.is_set() else _task(task)

    runs = [dask.delayed(functools.partial(guarded, t), pure=False)() for t in tasks]
    index = {d.key: i for i, d in enumerate(runs)}

    class Finished(Callback):
        def _posttask(self, key, result, dsk, state, worker_id):
            if key in index and result is not None:
                finished.put(("row", (index[key], result)))

    def compute():
        try:
            with Finished():
                dask.compute(*runs, scheduler="threads", num_workers=workers)
            finished.put(("end", None))
        except BaseException as e:  # noqa: BLE001 - handed to the sweep's thread
            finished.put(("raise", e))

    thread = threading.Thread(target=compute, name="throng-sweep-dask", daemon=True)
    thread.start()
    try:
        for _ in range(len(tasks)):
            kind, value = finished.get()
            if kind == "raise":
                raise value
            if kind == "end":
                return
            yield value
    finally:
        stop.set()
        thread.join()
