"""throng.sweep: every backend gives the runs a single Simulation gives, in order."""

import importlib.util
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


def test_processes_match_single_runs(tmp_path):
    a = small_scenario(tmp_path, "a")
    b = small_scenario(tmp_path, "b", agents=60)
    rows = sweep([a, b], seeds=[3, 4], workers=2, as_frame=False)
    assert [(Path(r["scenario_path"]).name, r["seed"]) for r in rows] == [
        ("a.toml", 3), ("a.toml", 4), ("b.toml", 3), ("b.toml", 4)
    ]
    for r in rows:
        assert r["final_state_hash"] == expected_hash(r["scenario_path"], r["seed"])
        assert 0 < r["arrived"] <= r["agents"] == (120 if r["scenario_path"].endswith("a.toml") else 60)
        assert r["elapsed_s"] > 0
    assert rows[0]["final_state_hash"] != rows[1]["final_state_hash"]


def test_overrides_reach_the_runs(tmp_path):
    a = small_scenario(tmp_path)
    rows = sweep(a, seeds=2, workers=1, as_frame=False, agents=30, conflicts="avoid", ticks=40)
    assert [r["seed"] for r in rows] == [0, 1]
    for r in rows:
        assert r["agents"] == 30 and r["conflicts"] == "avoid"
        assert r["ticks"] <= 40
        assert r["overrides"] == {"agents": 30, "conflicts": "avoid", "ticks": 40}
        assert r["final_state_hash"] == expected_hash(a, r["seed"], agents=30, conflicts="avoid", ticks=40)


def test_errors(tmp_path):
    a = small_scenario(tmp_path)
    with pytest.raises(ValueError, match="backend"):
        sweep(a, backend="spark")
    with pytest.raises(ValueError, match="does not exist"):
        sweep(tmp_path / "missing.toml")
    with pytest.raises(ValueError, match="workers"):
        sweep(a, workers=0)
    with pytest.raises(ValueError, match="seeds"):
        sweep(a, seeds=[-1])
    with pytest.raises(RuntimeError, match="seed 0 failed.*nonsense"):
        sweep(a, seeds=1, workers=1, nonsense=3)
    rows = sweep(a, seeds=1, workers=1, as_frame=False, errors="record", nonsense=3)
    assert "nonsense" in rows[0]["error"]


def test_frame(tmp_path):
    pd = pytest.importorskip("pandas")
    a = small_scenario(tmp_path)
    frame = sweep(a, seeds=[5], workers=1, agents=20)
    assert isinstance(frame, pd.DataFrame) and len(frame) == 1
    assert frame.loc[0, "agents"] == 20 and frame.loc[0, "override.agents"] == 20
    assert frame.loc[0, "seed"] == 5


@pytest.mark.skipif(importlib.util.find_spec("dask") is None, reason="dask not installed")
def test_dask_matches_processes(tmp_path):
    a = small_scenario(tmp_path)
    local = sweep(a, seeds=[1, 2], workers=2, as_frame=False)
    dask_rows = sweep(a, seeds=[1, 2], backend="dask", workers=2, as_frame=False)
    assert [r["final_state_hash"] for r in dask_rows] == [r["final_state_hash"] for r in local]
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        with Client(c):
            client_rows = sweep(a, seeds=[1, 2], backend="dask", as_frame=False)
    assert [r["final_state_hash"] for r in client_rows] == [r["final_state_hash"] for r in local]


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray not installed")
def test_ray_matches_processes(tmp_path):
    import ray

    a = small_scenario(tmp_path)
    local = sweep(a, seeds=[1, 2], workers=2, as_frame=False)
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        rows = sweep(a, seeds=[1, 2], backend="ray", as_frame=False)
    finally:
        ray.shutdown()
    assert [r["final_state_hash"] for r in rows] == [r["final_state_hash"] for r in local]


def test_list_overrides_are_axes(tmp_path):
    a = small_scenario(tmp_path)
    rows = sweep(a, seeds=[1, 2], workers=2, as_frame=False, agents=[10, 20], ticks=30)
    assert [(r["agents"], r["seed"]) for r in rows] == [(10, 1), (10, 2), (20, 1), (20, 2)]
    assert all(r["overrides"] == {"agents": r["agents"], "ticks": 30} for r in rows)
    with pytest.raises(ValueError, match="lists no value"):
        sweep(a, agents=[])


def test_a_script_without_a_main_guard_gets_a_clear_error(tmp_path):
    import subprocess
    import sys

    a = small_scenario(tmp_path)
    script = tmp_path / "unguarded.py"
    script.write_text(f"import throng\nthrong.sweep({str(a)!r}, seeds=2, workers=2, as_frame=False, ticks=5)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert 'if __name__ == "__main__"' in done.stderr
    guarded = tmp_path / "guarded.py"
    guarded.write_text(
        "import throng\nif __name__ == '__main__':\n"
        f"    print(len(throng.sweep({str(a)!r}, seeds=2, workers=2, as_frame=False, ticks=5)))\n"
    )
    done = subprocess.run([sys.executable, str(guarded)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "2", done.stderr
