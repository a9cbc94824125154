"""throng.sweep: every backend gives the runs a single Simulation gives, in order, however the
caller's Python was started (script with or without a main guard, `python -c`, standard input)."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import throng
from throng.sweep import sweep

ROOT = Path(__file__).resolve().parents[2]
MAPS = ROOT / "sims" / "maps"


def small_scenario(tmp_path, name="small", agents=120):
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\nseed = 1\nticks = 300\nthreads = 1\nagents = {agents}\n'
        f'[map]\nfile = "{(MAPS / "arena.map").as_posix()}"\n'
        '[placement]\nkind = "random"\n[sim]\nplanner = "jps"\nconflicts = "pibt"\n'
    )
    return path


def expected_hash(scenario, seed, **overrides):
    sim = throng.Simulation.from_scenario(scenario, seed=seed, threads=1, **overrides)
    return sim.run(None)["final_state_hash"]


LOCAL_BACKENDS = ["threads", "processes"]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_local_backends_match_single_runs(tmp_path, backend):
    a = small_scenario(tmp_path, "a")
    b = small_scenario(tmp_path, "b", agents=60)
    rows = sweep([a, b], seeds=[3, 4], backend=backend, workers=2, as_frame=False)
    assert [(Path(r["scenario_path"]).name, r["seed"]) for r in rows] == [
        ("a.toml", 3), ("a.toml", 4), ("b.toml", 3), ("b.toml", 4)
    ]
    for r in rows:
        assert r["final_state_hash"] == expected_hash(r["scenario_path"], r["seed"])
        assert 0 < r["arrived"] <= r["agents"] == (120 if r["scenario_path"].endswith("a.toml") else 60)
        assert r["elapsed_s"] > 0
    assert rows[0]["final_state_hash"] != rows[1]["final_state_hash"]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_overrides_reach_the_runs(tmp_path, backend):
    a = small_scenario(tmp_path)
    rows = sweep(a, seeds=2, backend=backend, workers=1, as_frame=False, agents=30, conflicts="avoid", ticks=40)
    assert [r["seed"] for r in rows] == [0, 1]
    for r in rows:
        assert r["agents"] == 30 and r["conflicts"] == "avoid"
        assert r["ticks"] <= 40
        assert r["overrides"] == {"agents": 30, "conflicts": "avoid", "ticks": 40}
        assert r["final_state_hash"] == expected_hash(a, r["seed"], agents=30, conflicts="avoid", ticks=40)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_errors(tmp_path, backend):
    a = small_scenario(tmp_path)
    with pytest.raises(ValueError, match="backend"):
        sweep(a, backend="spark")
    with pytest.raises(ValueError, match="missing.toml: no such file$"):
        sweep(tmp_path / "missing.toml")
    with pytest.raises(ValueError, match="not a regular file"):
        sweep(tmp_path)
    with pytest.raises(ValueError, match="workers"):
        sweep(a, workers=0)
    with pytest.raises(ValueError, match="seeds"):
        sweep(a, seeds=[-1])
    with pytest.raises(ValueError, match="retries"):
        sweep(a, retries=-1)
    with pytest.raises(RuntimeError, match="seed 0 failed.*nonsense"):
        sweep(a, seeds=1, backend=backend, workers=1, errors="raise", nonsense=3)
    # errors="record" (the default): the failed runs are rows with a one-line error, the others
    # play as usual, and the summary (and a warning) counts the failures.
    with pytest.warns(RuntimeWarning, match="2 of 4 runs failed"):
        rows = sweep(a, seeds=[1, 2], backend=backend, workers=2, as_frame=False, agents=[30, 0])
    assert [("error" in r, r["seed"]) for r in rows] == [
        (False, 1), (False, 2), (True, 1), (True, 2)
    ]
    assert all("override agents=0: must be at least 1" in r["error"] for r in rows[2:])
    assert all("\n" not in r["error"] and r["retries"] == 0 for r in rows[2:])
    assert [r["final_state_hash"] for r in rows[:2]] == [
        expected_hash(a, s, agents=30) for s in (1, 2)
    ]
    assert rows.summary == {**rows.summary, "runs": 4, "played": 4, "resumed": 0, "failed": 2,
                            "retried": 0}


def test_frame(tmp_path):
    pd = pytest.importorskip("pandas")
    a = small_scenario(tmp_path)
    frame = sweep(a, seeds=[5], workers=1, agents=20)
    assert isinstance(frame, pd.DataFrame) and len(frame) == 1
    assert frame.loc[0, "agents"] == 20 and frame.loc[0, "override.agents"] == 20
    assert frame.loc[0, "seed"] == 5 and frame.loc[0, "retries"] == 0
    assert frame.attrs["summary"]["failed"] == 0


def kill_once(monkeypatch, tmp_path, seed):
    """Makes the first run of `seed` to start SIGKILL its own process (the sweep's test hook,
    seen by every worker started from now on); returns the file holding the killed process id."""
    marker = tmp_path / f"killed-seed-{seed}"
    monkeypatch.setenv("THRONG_SWEEP_TEST_KILL", f"{seed}:{marker}")
    return marker


def assert_killed_a_worker(marker):
    assert marker.is_file(), "the hook never fired"
    assert int(marker.read_text()) != os.getpid()


def test_a_killed_worker_loses_nothing(tmp_path, monkeypatch):
    """SIGKILL to a worker process mid-sweep: its run plays again on a fresh worker, the rows
    equal the fault-free ones, and the retry is counted; with retries=0 the run is a failed row."""
    a = small_scenario(tmp_path)
    marker = kill_once(monkeypatch, tmp_path, 3)
    rows = sweep(a, seeds=[1, 2, 3, 4], backend="processes", workers=2, as_frame=False)
    assert_killed_a_worker(marker)
    assert [r["final_state_hash"] for r in rows] == [expected_hash(a, s) for s in (1, 2, 3, 4)]
    assert [r["retries"] for r in rows] == [0, 0, 1, 0]
    assert rows.summary["retried"] == 1 and rows.summary["failed"] == 0

    marker.unlink()
    with pytest.warns(RuntimeWarning, match="1 of 2 runs failed"):
        rows = sweep(a, seeds=[2, 3], backend="processes", workers=1, as_frame=False, retries=0)
    assert_killed_a_worker(marker)
    assert rows[0]["final_state_hash"] == expected_hash(a, 2)
    assert rows[1]["error"].startswith(
        f"run of {str(a)!r} with seed 3 failed: its worker process died (signal 9)")


@pytest.mark.skipif(importlib.util.find_spec("dask") is None, reason="dask not installed")
def test_dask_matches_single_runs_and_survives_a_killed_worker(tmp_path, monkeypatch):
    a = small_scenario(tmp_path)
    local = [expected_hash(a, seed) for seed in (1, 2, 3, 4)]
    dask_rows = sweep(a, seeds=[1, 2], backend="dask", workers=2, as_frame=False)
    assert [r["final_state_hash"] for r in dask_rows] == local[:2]
    from distributed import Client, LocalCluster

    # The workers see the hook: the first to start the run of seed 3 kills itself; Dask's
    # scheduler hands the run to another worker (and its nanny starts a fresh one).
    marker = kill_once(monkeypatch, tmp_path, 3)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        with Client(c):
            client_rows = sweep(a, seeds=[1, 2, 3, 4], backend="dask", as_frame=False)
    assert_killed_a_worker(marker)
    assert [r["final_state_hash"] for r in client_rows] == local
    # The killed run was played again. Runs the scheduler had queued on the lost worker are
    # handed on too and may count a retry (which ones depends on Dask's scheduling).
    retries = [r["retries"] for r in client_rows]
    assert retries[2] >= 1 and all(n in (0, 1) for n in retries), retries


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray not installed")
def test_ray_matches_single_runs_and_survives_a_killed_worker(tmp_path, monkeypatch):
    import ray

    a = small_scenario(tmp_path)
    local = [expected_hash(a, seed) for seed in (1, 2, 3)]
    marker = kill_once(monkeypatch, tmp_path, 3)
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        rows = sweep(a, seeds=[1, 2, 3], backend="ray", as_frame=False)
    finally:
        ray.shutdown()
    assert_killed_a_worker(marker)
    assert [r["final_state_hash"] for r in rows] == local
    assert [r["retries"] for r in rows] == [0, 0, 1]


def test_list_overrides_are_axes(tmp_path):
    a = small_scenario(tmp_path)
    rows = sweep(a, seeds=[1, 2], workers=2, as_frame=False, agents=[10, 20], ticks=30)
    assert [(r["agents"], r["seed"]) for r in rows] == [(10, 1), (10, 2), (20, 1), (20, 2)]
    assert all(r["overrides"] == {"agents": r["agents"], "ticks": 30} for r in rows)
    with pytest.raises(ValueError, match="lists no value"):
        sweep(a, agents=[])


# One sweep, the way users start Python: the code below as a script without a main guard, as
# `python -c CODE` and on standard input (`python -`). The workers of multiprocessing's spawn
# import the caller's main module, which fails for each of these.
SWEEP_CODE = """import json, throng
rows = throng.sweep({scenario!r}, seeds=[1, 2], backend={backend!r}, workers=2, as_frame=False,
                    ticks=40)
print(json.dumps([r["final_state_hash"] for r in rows]))
"""


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
@pytest.mark.parametrize("started_as", ["script", "-c", "stdin"])
def test_a_sweep_runs_however_python_was_started(tmp_path, backend, started_as):
    a = small_scenario(tmp_path)
    code = SWEEP_CODE.format(scenario=str(a), backend=backend)
    script = tmp_path / "unguarded.py"
    script.write_text(code)
    args, stdin = {
        "script": ([str(script)], None),
        "-c": (["-c", code], None),
        "stdin": (["-"], code),
    }[started_as]
    done = subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads(done.stdout) == [expected_hash(a, seed, ticks=40) for seed in (1, 2)]


@pytest.mark.skipif(sys.platform != "linux", reason="needs RLIMIT_AS (Linux)")
def test_a_run_that_kills_its_worker_process_fails_alone(tmp_path):
    """A run out of memory aborts its worker on each attempt; the others finish and the sweep
    goes on."""
    a = small_scenario(tmp_path)
    huge = tmp_path / "huge.toml"  # 2^28 cells: more than the 512 MiB the workers may map
    huge.write_text('ticks = 5\nthreads = 1\nagents = 10\n[map]\ngenerator = '
                    '{ kind = "random", width = 16384, height = 16384, density = 0.2 }\n')
    code = f"""import json, resource, throng
resource.setrlimit(resource.RLIMIT_AS, (1 << 29, 1 << 29))
rows = throng.sweep([{str(huge)!r}, {str(a)!r}], seeds=[1], backend="processes", workers=1,
                    as_frame=False, retries=1)
print(json.dumps([r.get("error") or r["final_state_hash"] for r in rows]))
try:
    throng.sweep({str(huge)!r}, seeds=[1], backend="processes", as_frame=False, errors="raise",
                 retries=0)
except RuntimeError as e:
    print(e)
"""
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    recorded, raised = done.stdout.splitlines()
    died = f"run of {str(huge)!r} with seed 1 failed: its worker process died (signal 6"
    assert json.loads(recorded)[1] == expected_hash(a, 1)
    assert json.loads(recorded)[0].startswith(died + ", on each of 2 attempts)")
    assert raised.startswith(died + ")")


# A sweep that writes a batch file per row and is SIGKILLed once it has written 3 of them.
CRASHING_SWEEP = """import os, signal, throng, throng._sweep_store as store
store.BATCH_ROWS = 1
flush = store.ResultStore.flush
def flush_then_die(self):
    flush(self)
    if self._next == 3:
        os.kill(os.getpid(), signal.SIGKILL)
store.ResultStore.flush = flush_then_die
throng.sweep({scenario!r}, seeds=[1, 2, 3, 4, 5, 6], workers=1, out={out!r}, ticks=60)
"""


def test_rows_reach_parquet_as_runs_finish_and_a_resumed_sweep_plays_only_the_missing(
        tmp_path, monkeypatch):
    """A sweep killed after its 3rd row has written those rows, one whole file each; started
    again on the same folder, it plays the 3 others."""
    pytest.importorskip("pyarrow")
    from throng import read_sweep

    a = small_scenario(tmp_path)
    out = tmp_path / "out"
    code = CRASHING_SWEEP.format(scenario=str(a), out=str(out))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == -9, done.stderr
    written = read_sweep(out, as_frame=False)
    assert [r["seed"] for r in written] == [1, 2, 3]
    assert sorted(p.name for p in out.iterdir()) == [
        "part-000000.parquet", "part-000001.parquet", "part-000002.parquet"]
    (out / ".part-000003.parquet.tmp").write_bytes(b"PAR1 torn")  # a write cut short

    played = []
    module = sys.modules["throng.sweep"]
    run_one = module.run_one
    monkeypatch.setattr(module, "run_one", lambda *args: played.append(args[1]) or run_one(*args))
    rows = sweep(a, seeds=[1, 2, 3, 4, 5, 6], workers=2, out=out, as_frame=False, ticks=60)
    assert sorted(played) == [4, 5, 6]
    assert rows.summary == {**rows.summary, "played": 3, "resumed": 3}
    assert not (out / ".part-000003.parquet.tmp").exists()
    fresh = sweep(a, seeds=[1, 2, 3, 4, 5, 6], workers=2, as_frame=False, ticks=60)
    assert [r["final_state_hash"] for r in rows] == [r["final_state_hash"] for r in fresh]
    assert [sorted(r) for r in rows] == [sorted(r) for r in fresh]
    assert all(r["overrides"] == {"ticks": 60} for r in rows)
    frame = read_sweep(out)
    assert sorted(frame["seed"]) == [1, 2, 3, 4, 5, 6] and frame["run_key"].is_unique

    # New settings on the same folder play only the new runs; a failed run's row stays, and the
    # same sweep again plays nothing.
    played.clear()
    with pytest.warns(RuntimeWarning, match="6 of 12 runs failed"):
        again = sweep(a, seeds=[1, 2, 3, 4, 5, 6], workers=2, out=out, as_frame=False,
                      ticks=[60, -1])
    assert sorted(played) == [1, 2, 3, 4, 5, 6]  # ticks=-1: new runs, all failing
    played.clear()
    with pytest.warns(RuntimeWarning, match="6 of 12 runs failed"):
        again = sweep(a, seeds=[1, 2, 3, 4, 5, 6], workers=2, out=out, as_frame=False,
                      ticks=[60, -1])
    assert played == [] and again.summary["resumed"] == 12
    assert [r["final_state_hash"] for r in again[:6]] == [r["final_state_hash"] for r in fresh]
    assert all(r["error"].startswith("ValueError") for r in again[6:])


def test_progress_bar(tmp_path, capsys):
    """progress=True draws a tqdm bar on standard error that ends with the failures counted;
    off by default when standard error is not a terminal."""
    pytest.importorskip("tqdm")
    a = small_scenario(tmp_path)
    with pytest.warns(RuntimeWarning):
        sweep(a, seeds=[1, 2], workers=2, as_frame=False, agents=[10, 0], ticks=20, progress=True)
    bar = capsys.readouterr().err
    assert "4/4" in bar and "2 failed, 0 retried" in bar
    sweep(a, seeds=[1], workers=1, as_frame=False, ticks=20)
    assert capsys.readouterr().err == ""
