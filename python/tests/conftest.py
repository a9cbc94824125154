"""The `throng_cli` fixture: the `throng` binary some tests compare the package against.

The tests never build it. They take, in order: the file named by the environment variable
`THRONG_BIN` (a missing file is an error, not a skip: CI sets it), else the most recently built
of `debug/throng` and `release/throng` in `$CARGO_TARGET_DIR`, else in the checkout's `target/`.
With none of them, only the tests that need the binary are skipped, saying how to provide it.
"""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXE = "throng.exe" if os.name == "nt" else "throng"


def find_cli():
    """The `throng` binary to compare against (see the module's documentation), or None."""
    explicit = os.environ.get("THRONG_BIN")
    if explicit:
        return Path(explicit).resolve()
    dirs = [Path(os.environ["CARGO_TARGET_DIR"])] if os.environ.get("CARGO_TARGET_DIR") else []
    for target in dirs + [ROOT / "target"]:
        target = target if target.is_absolute() else ROOT / target
        built = [b for b in (target / "debug" / EXE, target / "release" / EXE) if b.is_file()]
        if built:
            return max(built, key=lambda b: b.stat().st_mtime)
    return None


@pytest.fixture(scope="session")
def throng_cli():
    """The path of the `throng` binary; skips the test when there is none."""
    exe = find_cli()
    if exe is None:
        pytest.skip(
            "needs the throng binary: build it (cargo build --release) and set THRONG_BIN to "
            "its path, or leave it in $CARGO_TARGET_DIR or target/ (debug/ or release/)"
        )
    if not exe.is_file():
        pytest.fail(f"THRONG_BIN={os.environ['THRONG_BIN']}: no such file")
    return exe
