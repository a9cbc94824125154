"""How the tests find the `throng` binary they compare against (conftest.py): never by building
it, a skip saying how to provide it when there is none, an error when THRONG_BIN names nothing."""

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run_copied_tests(tmp_path, env):
    """Runs test_throng.py's CLI comparison from a copy of the tests in a checkout without
    `target/`, with a `cargo` on PATH that records being called, THRONG_BIN and
    CARGO_TARGET_DIR unset but for those in `env`. Returns pytest's outcome and whether cargo
    was called."""
    tests = tmp_path / "checkout" / "python" / "tests"
    tests.mkdir(parents=True)
    for name in ("conftest.py", "test_throng.py"):
        if (HERE / name).exists():
            shutil.copy(HERE / name, tests / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    cargo = bin_dir / "cargo"
    cargo.write_text(f"#!/bin/sh\necho \"$@\" >> {tmp_path / 'cargo-called'}\nexit 1\n")
    cargo.chmod(cargo.stat().st_mode | stat.S_IXUSR)
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("THRONG_BIN", "CARGO_TARGET_DIR")},
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        **env,
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider",
         str(tests / "test_throng.py"), "-k", "test_simulation_matches_cli"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300,
    )
    return done, (tmp_path / "cargo-called").exists()


def test_no_binary_skips_and_builds_nothing(tmp_path):
    empty = tmp_path / "empty-target"
    empty.mkdir()
    done, cargo_called = run_copied_tests(tmp_path, {"CARGO_TARGET_DIR": str(empty)})
    assert not cargo_called, "the tests ran cargo"
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout and "set THRONG_BIN" in done.stdout, done.stdout


def test_a_missing_throng_bin_fails(tmp_path):
    done, cargo_called = run_copied_tests(tmp_path, {"THRONG_BIN": str(tmp_path / "nothing")})
    assert not cargo_called
    assert done.returncode != 0
    assert f"THRONG_BIN={tmp_path / 'nothing'}: no such file" in done.stdout, done.stdout
