"""The Parquet output of ``throng.sweep(..., out=FOLDER)``: one file per batch of finished runs.

A sweep writes its rows as runs finish, a batch at a time, each batch one file
``part-NNNNNN.parquet`` in the folder. A file is written under a hidden temporary name
(``.part-NNNNNN.parquet.tmp``, which Parquet readers skip), flushed to disk, then renamed: a
crash or a kill leaves whole files and at most one stray temporary file (removed by the next
sweep on that folder), never a torn one. So the folder can be read while the sweep runs, and a
sweep started again on it finds the runs already done by their ``run_key`` column.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any, Mapping

__all__ = ["ResultStore", "read_rows"]

_PART = re.compile(r"^part-(\d{6,})\.parquet$")

# Columns typed the same in every batch, whatever the batch's values (all missing included), so
# that the batches concatenate. The engine's hashes and seeds are unsigned 64-bit.
_FIXED_TYPES = {
    "run_key": "string",
    "scenario_path": "string",
    "seed": "uint64",
    "final_state_hash": "uint64",
    "retries": "int64",
    "elapsed_s": "float64",
    "error": "string",
}


# A batch file is written once this many rows wait, or once the first of them is this old (checked
# as rows come). Module settings, so that a test can write one file per row.
BATCH_ROWS = 256
BATCH_S = 10.0


def _need_pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError as e:
        raise ImportError(
            "throng.sweep's Parquet output needs pyarrow: pip install 'throng[sweep]'"
        ) from e
    return pyarrow


def _parts(folder: Path) -> list:
    """The batch files of ``folder``, in the order they were written."""
    found = [(int(m.group(1)), p) for p in folder.iterdir() if (m := _PART.match(p.name))]
    return [p for _, p in sorted(found)]


def read_rows(folder: "str | os.PathLike[str]") -> list:
    """Every row of the batch files in ``folder`` (flat dicts, columns joined across batches, a
    missing value as None), in the order they were written; [] for a folder without any."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    parts = _parts(folder)
    if not parts:
        return []
    pa = _need_pyarrow()
    tables = [pa.parquet.read_table(p) for p in parts]
    return pa.concat_tables(tables, promote_options="default").to_pylist()


def _column(pa, name: str, values: list):
    fixed = _FIXED_TYPES.get(name)
    if fixed is not None:
        return pa.array(values, type=getattr(pa, fixed)())
    for kind in (None, pa.uint64()):
        try:
            return pa.array(values, type=kind)
        except (pa.ArrowException, OverflowError):
            pass
    # Values of several kinds in one column (an override given as 3 and as "3"): their text.
    return pa.array([None if v is None else str(v) for v in values], type=pa.string())


class ResultStore:
    """The rows of one sweep's output folder: those found there, and the batches it adds.

    ``finished`` maps each ``run_key`` already in the folder to its (last) row. :meth:`add`
    queues a row and writes the queue as one batch file once it holds ``BATCH_ROWS`` rows or its
    first row is ``BATCH_S`` seconds old; :meth:`flush` writes whatever is queued.
    """

    def __init__(self, folder: "str | os.PathLike[str]") -> None:
        self._pa = _need_pyarrow()
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise ValueError(f"out={os.fspath(folder)!r} is not a folder")
        self.folder.mkdir(parents=True, exist_ok=True)
        for stale in self.folder.glob(".part-*.parquet.tmp"):
            stale.unlink()
        parts = _parts(self.folder)
        self._next = int(_PART.match(parts[-1].name).group(1)) + 1 if parts else 0
        self.finished: dict = {}
        for row in read_rows(self.folder):
            if row.get("run_key") is not None:
                self.finished[row["run_key"]] = row
        self._queued: list = []
        self._since = 0.0

    def add(self, row: Mapping[str, Any]) -> None:
        """Queues one flat row; writes the batch when it is full or old enough."""
        if not self._queued:
            self._since = time.monotonic()
        self._queued.append(row)
        if len(self._queued) >= BATCH_ROWS or time.monotonic() - self._since >= BATCH_S:
            self.flush()

    def flush(self) -> None:
        """Writes the queued rows as one batch file (atomically: temporary file, then rename)."""
        if not self._queued:
            return
        pa = self._pa
        names = list(dict.fromkeys(k for row in self._queued for k in row))
        table = pa.table({n: _column(pa, n, [r.get(n) for r in self._queued]) for n in names})
        name = f"part-{self._next:06d}.parquet"
        tmp = self.folder / f".{name}.tmp"
        with open(tmp, "wb") as f:
            pa.parquet.write_table(table, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.folder / name)
        self._next += 1
        self._queued.clear()

