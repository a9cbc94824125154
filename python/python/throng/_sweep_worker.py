"""The worker processes of ``throng.sweep(backend="processes")``: a pool of our own.

Each worker is a fresh ``python`` running :func:`main`, which reads runs (pickled tasks) from
its standard input and writes their rows back on its standard output, one at a time. Unlike
``multiprocessing``'s spawned workers, it never imports the caller's main module, so a sweep
works the same from a script without ``if __name__ == "__main__":``, from ``python -c``, from
standard input (``python -``) and from a notebook. A run that kills its worker (out of memory,
a crash, a SIGKILL) is played again on a fresh worker, a bounded number of times.
"""

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

__all__ = ["iter_tasks", "main"]

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


def iter_tasks(tasks: list, workers: int, retries: int) -> Iterator[tuple]:
    """Runs the sweep's tasks on ``workers`` worker processes, yielding ``(index, row)`` as each
    run finishes.

    A run whose worker dies is played again on a fresh worker, up to ``retries`` times (its row
    says how many in ``retries``); after that it is the run's failure (a row with ``error``
    under ``errors="record"``, else a RuntimeError naming the scenario and seed). A failure
    under ``errors="raise"``, or closing the iterator early, stops the sweep: no new run
    starts and the workers are killed.
    """
    from ._sweep_backends import died_outcome

    pending = iter(range(len(tasks)))
    lock = threading.Lock()
    stop = threading.Event()
    live: set = set()
    finished: queue.Queue = queue.Queue()

    def next_index() -> int | None:
        with lock:
            return None if stop.is_set() else next(pending, None)

    def new_worker() -> _Worker | None:
        with lock:
            if stop.is_set():
                return None
            worker = _Worker()
            live.add(worker)
            return worker

    def retire(worker: _Worker) -> int:
        status = worker.close()
        with lock:
            live.discard(worker)
        return status

    def play(worker: _Worker | None, i: int) -> _Worker | None:
        """Plays run ``i`` (again on a fresh worker while its worker dies) and queues its
        outcome; returns the worker left alive, if any."""
        for attempt in range(retries + 1):
            worker = worker or new_worker()
            if worker is None:
                return None
            outcome = worker.run(tasks[i])
            if outcome is not None:
                kind, value = outcome
                if kind == "row":
                    value["retries"] = attempt
                else:
                    stop.set()
                finished.put((i, kind, value))
                return worker
            status = retire(worker)
            worker = None
            if stop.is_set():
                return None
        how = f"signal {-status}" if status < 0 else f"exit status {status}"
        try:
            finished.put((i, "row", died_outcome(tasks[i], how, retries + 1)))
        except RuntimeError as e:
            finished.put((i, "error", str(e)))
        return None

    def drive() -> None:
        worker = None
        try:
            while (i := next_index()) is not None:
                worker = play(worker, i)
        except BaseException as e:  # noqa: BLE001 - handed to the sweep's thread
            finished.put((None, "raise", e))
        finally:
            if worker is not None:
                retire(worker)

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="throng-sweep")
    complete = False
    try:
        for _ in range(workers):
            pool.submit(drive)
        for _ in range(len(tasks)):
            i, kind, value = finished.get()
            if kind == "raise":
                raise value
            if kind == "error":
                raise RuntimeError(value)
            yield i, value
        complete = True
    finally:
        if not complete:
            # A failed run, an interrupt or an early close: start nothing more, end the workers.
            stop.set()
            with lock:
                for worker in list(live):
                    worker.kill()
        pool.shutdown(wait=True)


if __name__ == "__main__":
    main()
