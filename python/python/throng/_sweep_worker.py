"""The worker processes of ``throng.sweep(backend="processes")``: a pool of our own.

Each worker is a fresh ``python`` running :func:`main`, which reads runs (pickled tasks) from
its standard input and writes their rows back on its standard output, one at a time. Unlike
``multiprocessing``'s spawned workers, it never imports the caller's main module, so a sweep
works the same from a script without ``if __name__ == "__main__":``, from ``python -c``, from
standard input (``python -``) and from a notebook. A run that kills its worker (out of memory,
a crash) costs that run only: the next run gets a fresh worker.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path

__all__ = ["run_tasks", "main"]

# The directory that holds this `throng` package: the workers import the same package, whatever
# their working directory and however the caller found it (installed, editable, sys.path).
_PACKAGE_PARENT = os.fspath(Path(__file__).resolve().parents[1])
_WORKER_CODE = (
    "import sys; sys.path[0] = sys.argv[1]; from throng._sweep_worker import main; main()"
)


def main() -> None:
    """A worker's loop: runs each task read from standard input and writes back its outcome.

    The outcome is ``("row", row)`` or ``("error", message)`` (a failed run with
    ``errors="raise"``). Anything the run prints goes to standard error, so that the channel
    on standard output carries only outcomes.
    """
    from .sweep import _task

    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    tasks = sys.stdin.buffer
    while True:
        try:
            task = pickle.load(tasks)
        except EOFError:
            return
        try:
            outcome = ("row", _task(task))
        except Exception as e:  # noqa: BLE001 - the parent raises it with errors="raise"
            outcome = ("error", str(e))
        pickle.dump(outcome, channel)
        channel.flush()


class _Worker:
    """One worker process and the pipes to it."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER_CODE, _PACKAGE_PARENT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def run(self, task: tuple) -> tuple | None:
        """The task's outcome, or None when the worker died before answering."""
        try:
            pickle.dump(task, self.proc.stdin)
            self.proc.stdin.flush()
            return pickle.load(self.proc.stdout)
        except (EOFError, BrokenPipeError, pickle.UnpicklingError):
            return None

    def close(self) -> int:
        """Ends the worker (closing its input ends its loop) and returns its exit status."""
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        return self.proc.wait()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def run_tasks(tasks: list, workers: int) -> list:
    """Runs the sweep's tasks on ``workers`` worker processes and returns their rows in order.

    A worker that dies during a run is reported as that run's failure (a row with ``error``
    under ``errors="record"``, else a RuntimeError naming the scenario and seed) and replaced.
    The first failure under ``errors="raise"`` stops the sweep: no new run starts, the
    workers end, the error is raised.
    """
    rows: list = [None] * len(tasks)
    pending = iter(range(len(tasks)))
    lock = threading.Lock()
    stop = threading.Event()
    live: set = set()

    def next_index() -> int | None:
        with lock:
            return None if stop.is_set() else next(pending, None)

    def drive() -> None:
        worker = None
        try:
            while (i := next_index()) is not None:
                if worker is None:
                    with lock:
                        if stop.is_set():
                            break
                        worker = _Worker()
                        live.add(worker)
                outcome = worker.run(tasks[i])
                if outcome is None:
                    status = worker.close()
                    with lock:
                        live.discard(worker)
                    worker = None
                    outcome = ("error", _died(tasks[i], status))
                    if tasks[i][3] == "record":
                        scenario, seed, overrides, _ = tasks[i]
                        outcome = ("row", {"scenario_path": scenario, "seed": seed,
                                           "overrides": dict(overrides), "error": outcome[1]})
                kind, value = outcome
                if kind == "error":
                    stop.set()
                    raise RuntimeError(value)
                rows[i] = value
        finally:
            if worker is not None:
                worker.close()
                with lock:
                    live.discard(worker)

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="throng-sweep")
    try:
        drivers = [pool.submit(drive) for _ in range(workers)]
        wait(drivers, return_when=FIRST_EXCEPTION)
        for f in drivers:
            if f.done():
                f.result()
        for f in drivers:
            f.result()
    except BaseException:
        # A failed run or an interrupt: start nothing more and end the workers now.
        stop.set()
        with lock:
            for worker in list(live):
                worker.kill()
        raise
    finally:
        pool.shutdown(wait=True)
    return rows


def _died(task: tuple, status: int) -> str:
    scenario, seed = task[0], task[1]
    how = f"signal {-status}" if status < 0 else f"exit status {status}"
    return (
        f"run of {scenario!r} with seed {seed} failed: its worker process died ({how}): "
        "out of memory, or a crash"
    )


if __name__ == "__main__":
    main()
