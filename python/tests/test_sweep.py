"""throng.sweep: every backend gives the runs a single Simulation gives, in order, however the
caller's Python was started (script with or without a main guard, `python -c`, standard input)."""

import importlib.util
import json
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


@pytest.mark.skipif(importlib.util.find_spec("dask") is None, reason="dask not installed")
def test_dask_matches_processes(tmp_path):
    a = small_scenario(tmp_path)
    local = [expected_hash(a, seed) for seed in (1, 2)]
    dask_rows = sweep(a, seeds=[1, 2], backend="dask", workers=2, as_frame=False)
    assert [r["final_state_hash"] for r in dask_rows] == local
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        with Client(c):
            client_rows = sweep(a, seeds=[1, 2], backend="dask", as_frame=False)
    assert [r["final_state_hash"] for r in client_rows] == local


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray not installed")
def test_ray_matches_processes(tmp_path):
    import ray

    a = small_scenario(tmp_path)
    local = [expected_hash(a, seed) for seed in (1, 2)]
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        rows = sweep(a, seeds=[1, 2], backend="ray", as_frame=False)
    finally:
        ray.shutdown()
    assert [r["final_state_hash"] for r in rows] == local


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
