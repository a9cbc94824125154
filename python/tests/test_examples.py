"""python/examples/: the sweep example plays and plots, or says in one line which extra it needs."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sweep_agents.py"
ROOT = Path(__file__).resolve().parents[2]

# Runs the example with the named modules made unimportable (as if not installed).
WITHOUT = """import runpy, sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""

SMALL = ["--scenario", str(ROOT / "sims" / "doors.toml"), "--agents", "20", "40", "--seeds", "2"]


@pytest.mark.parametrize("missing", ["matplotlib", "pandas", "pandas,matplotlib"])
def test_the_sweep_example_names_its_extra_when_a_package_is_missing(tmp_path, missing):
    out = tmp_path / "sweep.png"
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT, missing, str(EXAMPLE), *SMALL, "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    gone = [m for m in ("pandas", "matplotlib")
            if m in missing.split(",") or importlib.util.find_spec(m) is None]
    named = " and ".join(gone) + (" is" if len(gone) == 1 else " are")
    assert done.stderr == (f"sweep_agents.py needs pandas and matplotlib ({named} missing): "
                           'pip install "./python[examples]"\n')
    assert not out.exists()


def test_the_sweep_example_plots(tmp_path):
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    out = tmp_path / "sweep.png"
    done = subprocess.run([sys.executable, str(EXAMPLE), *SMALL, "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "4 runs in" in done.stdout and f"wrote {out}" in done.stdout
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if importlib.util.find_spec("pyarrow") is not None:
        # --rows keeps the rows; the same command again reads them back and plays nothing.
        rows = tmp_path / "rows"
        for resumed in (0, 4):
            done = subprocess.run([sys.executable, str(EXAMPLE), *SMALL, "--out", str(out),
                                   "--rows", str(rows)], capture_output=True, text=True,
                                  timeout=300)
            assert done.returncode == 0, done.stderr
            assert "4 runs in" in done.stdout and f"{resumed} read back" in done.stdout


def test_the_sweep_example_describes_every_option():
    done = subprocess.run([sys.executable, str(EXAMPLE), "--help"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    options = ["--scenario", "--agents", "--seeds", "--backend", "--workers", "--out", "--rows"]
    lines = done.stdout.splitlines()
    for option in options:
        # The option's entry (its line, and the next when argparse wraps it) says what it is.
        at = next(i for i, line in enumerate(lines) if line.strip().startswith(option))
        entry = " ".join(lines[at:at + 2])
        words = entry.split(option, 1)[1].split()
        assert len([w for w in words if w.isalpha()]) >= 3, f"{option} is not described: {entry!r}"
