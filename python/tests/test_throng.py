"""Tests of the throng Python package against the Rust side (the CLI and the .scen files)."""

import json
import math
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import throng

ROOT = Path(__file__).resolve().parents[2]
MAPS = ROOT / "sims" / "maps"


def scen_queries(name, limit=None):
    """(starts, goals, optimal lengths) of a shipped .scen file."""
    rows = []
    for line in (MAPS / f"{name}.map.scen").read_text().splitlines()[1:]:
        f = line.split()
        rows.append((int(f[4]), int(f[5]), int(f[6]), int(f[7]), float(f[8])))
    rows = rows[:limit]
    starts = np.array([r[0:2] for r in rows], dtype=np.int64)
    goals = np.array([r[2:4] for r in rows], dtype=np.int64)
    return starts, goals, np.array([r[4] for r in rows])


def test_load_map():
    grid = throng.load_map(MAPS / "arena.map")
    assert (grid.width, grid.height) == (49, 49)
    p = grid.passable
    assert p.dtype == np.bool_ and p.shape == (49, 49)
    text = (MAPS / "arena.map").read_text().splitlines()
    rows = text[text.index("map") + 1 :]
    assert p[5, 7] == (rows[5][7] in ".G")


def test_load_map_errors(tmp_path):
    with pytest.raises(OSError, match="nope.map"):
        throng.load_map(tmp_path / "nope.map")
    bad = tmp_path / "bad.map"
    bad.write_text("type octile\nheight 2\nwidth 2\nmap\n..\n.\n")
    with pytest.raises(ValueError, match="bad.map"):
        throng.load_map(bad)
    # Another kind of file is named for what it is, not by the map reader's first complaint.
    with pytest.raises(ValueError, match=r"default.toml: is a simulation scenario \(TOML\), not a Moving AI map"):
        throng.load_map(ROOT / "sims" / "default.toml")
    with pytest.raises(OSError, match="is a directory, not a regular file"):
        throng.load_map(tmp_path)
    with pytest.raises(OSError, match="nope.map: no such file$"):
        throng.load_map(tmp_path / "nope.map")


def test_negative_counts_are_value_errors():
    """Negative counts raise ValueError naming the argument, as docs/python.md says."""
    grid = throng.load_map(MAPS / "arena.map")
    starts, goals, _ = scen_queries("arena", limit=2)
    for call in [
        lambda: throng.Simulation(grid, starts, goals, threads=-1),
        lambda: throng.Simulation(grid, starts, goals, seed=-1),
        lambda: throng.Simulation.from_scenario(ROOT / "sims" / "doors.toml", threads=-1),
        lambda: throng.plan(grid, starts, goals, threads=-1),
    ]:
        with pytest.raises(ValueError, match=r"(threads|seed)=-1: must be at least 0"):
            call()
    with pytest.raises(ValueError, match="threads=100000: must be at most 256"):
        throng.plan(grid, starts, goals, threads=100000)
    sim = throng.Simulation(grid, starts, goals)
    with pytest.raises(ValueError, match=r"ticks=-1: must be at least 0"):
        sim.run(-1)
    with pytest.raises(TypeError):
        sim.run("many")
    assert sim.run(3)["ticks"] <= 3


def test_from_array():
    a = np.ones((3, 5), dtype=bool)
    a[1, 1:4] = False
    grid = throng.Grid.from_array(a)
    assert (grid.width, grid.height) == (5, 3)
    assert (grid.passable == a).all()
    # A non-contiguous view is read as it looks.
    grid = throng.Grid.from_array(np.ones((6, 10), dtype=bool)[::2, ::2])
    assert (grid.width, grid.height) == (5, 3)
    for bad in [np.ones((3, 3)), np.ones(4, dtype=bool), np.ones((0, 3), dtype=bool),
                np.ones((2, 2, 2), dtype=bool), [[True]], "x"]:
        with pytest.raises(ValueError):
            throng.Grid.from_array(bad)


@pytest.mark.parametrize("planner", ["astar", "jps", "jps+"])
def test_plan_matches_scen_optimal_lengths(planner):
    grid = throng.load_map(MAPS / "den520d.map")
    starts, goals, optimal = scen_queries("den520d", 600)
    paths, costs = throng.plan(grid, starts, goals, planner=planner, threads=2)
    assert costs.dtype == np.float64 and len(paths) == len(starts)
    np.testing.assert_allclose(costs, optimal, atol=1e-4)
    for path, s, g in zip(paths, starts, goals):
        assert path.dtype == np.int32 and path.shape[1] == 2
        assert (path[0] == s).all() and (path[-1] == g).all()
        steps = np.abs(np.diff(path, axis=0))
        assert steps.max() <= 1 and grid.passable[path[:, 1], path[:, 0]].all()


def test_plan_threads_agree_and_unreachable_is_nan():
    a = np.ones((4, 7), dtype=bool)
    a[:, 3] = False
    grid = throng.Grid.from_array(a)
    paths, costs = throng.plan(grid, [[0, 0], [0, 0]], [[2, 3], [6, 0]], planner="astar")
    assert costs[0] == pytest.approx(1 + math.sqrt(2) * 2)
    assert math.isnan(costs[1]) and paths[1].shape == (0, 2)
    grid = throng.load_map(MAPS / "arena.map")
    starts, goals, _ = scen_queries("arena")
    one = throng.plan(grid, starts, goals, threads=1)[1]
    two = throng.plan(grid, starts.astype(np.int32), goals, threads=2)[1]
    assert (one == two).all()


def test_plan_bad_input():
    grid = throng.load_map(MAPS / "arena.map")
    ok = np.array([[19, 26]])
    cases = [
        (np.array([[19, 26, 0]]), "shape"),
        (np.array([19, 26]), "shape"),
        (np.array([[19.0, 26.0]]), "integer"),
        (np.array([[-1, 26]]), "row 0"),
        (np.array([[19, 26], [10**12, 3]]), "row 1"),
        (np.array([[0, 0]]), "row 0: \\(0, 0\\) is blocked"),
        (np.array([[19, 26], [19, 26]]), "rows"),
        ("nonsense", "shape"),
    ]
    for starts, message in cases:
        with pytest.raises(ValueError, match=message):
            throng.plan(grid, starts, ok)
    with pytest.raises(ValueError, match="unknown planner"):
        throng.plan(grid, ok, ok, planner="dijkstra")
    # Non-contiguous input is fine.
    wide = np.array([[19, 0, 26], [44, 0, 30]])[:, ::2]
    paths, costs = throng.plan(grid, wide, wide[::-1])
    assert costs[0] == costs[1] > 0


def listed_planners(message):
    """The planner names an error message lists after "expected one of: "."""
    return re.search(r"expected one of: ([^)]*)\)", message).group(1).split(", ")


def test_plan_lists_exactly_the_planners_it_accepts():
    grid = throng.load_map(MAPS / "arena.map")
    ok = np.array([[19, 26]])
    with pytest.raises(ValueError, match='planner "jsp" is an unknown planner') as refused:
        throng.plan(grid, ok, ok, planner="jsp")
    listed = listed_planners(str(refused.value))
    # Every planner of the engine: the same list a Simulation gives when it refuses a name.
    with pytest.raises(ValueError) as refused_by_sim:
        throng.Simulation(grid, ok, ok, planner="jsp")
    assert listed == listed_planners(str(refused_by_sim.value))
    assert listed == ["astar", "jps", "jps+", "nav", "auto", "dstar"]
    for planner in listed:
        paths, costs = throng.plan(grid, ok, ok[::-1] + [1, 0], planner=planner)
        assert costs[0] == 1.0 and len(paths[0]) == 2, planner


@pytest.mark.parametrize("planner", ["nav", "auto", "dstar"])
def test_plan_with_the_simulation_planners(planner):
    """`nav` and `auto` (through the navigation points, built by the call) give legal paths no
    shorter than the optimal ones; `dstar` the optimal ones."""
    grid = throng.load_map(MAPS / "8room_000.map")
    starts, goals, optimal = scen_queries("8room_000")
    # Short trips (searched directly) and the longest (through the points).
    pick = np.r_[0:40, len(starts) - 40:len(starts)]
    starts, goals, optimal = starts[pick], goals[pick], optimal[pick]
    paths, costs = throng.plan(grid, starts, goals, planner=planner, threads=2)
    if planner == "dstar":
        np.testing.assert_allclose(costs, optimal, atol=1e-4)
    else:
        assert (costs >= optimal - 1e-4).all() and (costs <= optimal * 1.1 + 1e-4).all()
    for path, s, g, cost in zip(paths, starts, goals, costs):
        assert (path[0] == s).all() and (path[-1] == g).all()
        assert grid.passable[path[:, 1], path[:, 0]].all()
        steps = np.abs(np.diff(path, axis=0))
        assert len(steps) == 0 or steps.max() <= 1
        lengths = np.where(steps.sum(axis=1) == 2, math.sqrt(2), 1.0)
        assert lengths.sum() == pytest.approx(cost)
    # The same answers on one thread as on two.
    assert (throng.plan(grid, starts, goals, planner=planner, threads=1)[1] == costs).all()


def cli_json(cli, scenario, tmp_path, args=()):
    """`throng run --json` of the scenario by the binary `cli` (the `throng_cli` fixture), with
    more arguments."""
    out = tmp_path / "run.json"
    subprocess.run([str(cli), "run", "-q", "--json", str(out), str(scenario), *args], cwd=ROOT,
                   check=True)
    return json.loads(out.read_text())


def test_simulation_matches_cli(tmp_path, throng_cli):
    scenario = ROOT / "sims" / "doors.toml"
    expected = cli_json(throng_cli, scenario, tmp_path)
    sim = throng.Simulation.from_scenario(scenario)
    first = sim.step()
    assert first["tick"] == 0 and first["agents"] == expected["agents"]
    assert sim.positions().shape == (expected["agents"], 2)
    assert sim.positions().dtype == np.int32 and sim.goals().shape == sim.positions().shape
    summary = sim.run(10**6)
    assert summary["final_state_hash"] == expected["final_state_hash"]
    assert summary["final_state_hash"] == sim.state_hash()
    # What the CLI's process used (cores busy, peak memory) is the CLI's only.
    assert set(summary) == set(expected) - {"steady_cores", "peak_memory_mib"}
    assert summary["ticks"] == expected["ticks"]
    assert (sim.positions() == sim.goals()).all(axis=1).sum() == summary["arrived"]


def test_simulation_seed_and_errors(tmp_path):
    scenario = ROOT / "sims" / "doors.toml"
    a = throng.Simulation.from_scenario(scenario, seed=7, threads=1)
    b = throng.Simulation.from_scenario(scenario, seed=7, threads=2)
    for _ in range(20):
        a.step()
        b.step()
    assert a.state_hash() == b.state_hash()
    with pytest.raises(OSError, match="missing.toml"):
        throng.Simulation.from_scenario(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("ticks = 'x'\n")
    with pytest.raises(ValueError, match="bad.toml"):
        throng.Simulation.from_scenario(bad)


def test_neighbourhood_and_components():
    a = np.zeros((4, 6), dtype=bool)
    a[0, 0:2] = True
    a[2:4, 2:6] = True
    grid = throng.Grid.from_array(a)
    assert grid.neighbourhood == 8
    four = grid.with_neighbourhood(4)
    assert four.neighbourhood == 4 and (four.passable == a).all()
    labels = grid.components()
    assert labels.dtype == np.int32 and labels.shape == (4, 6)
    assert (labels[2:4, 2:6] == 0).all() and (labels[0, 0:2] == 1).all()
    assert (labels[~a] == -1).all()
    # A diagonal touch is no connection without corner cutting.
    b = np.array([[True, False], [False, True]])
    assert set(throng.Grid.from_array(b, neighbourhood=8).components().ravel()) == {0, 1, -1}
    d = np.ones((3, 3), dtype=bool)
    four = throng.Grid.from_array(d, neighbourhood=4)
    paths, costs = throng.plan(four, [[0, 0]], [[2, 2]])
    assert costs[0] == 4.0 and len(paths[0]) == 5
    with pytest.raises(ValueError, match="4 or 8"):
        throng.Grid.from_array(d, neighbourhood=6)


def overridden_doors():
    """The summary of doors.toml played with 40 agents, conflicts "avoid", at most 25 ticks."""
    sim = throng.Simulation.from_scenario(ROOT / "sims" / "doors.toml", agents=40,
                                          conflicts="avoid", ticks=25)
    return sim.run()


def test_from_scenario_overrides():
    summary = overridden_doors()
    assert summary["agents"] == 40 and summary["conflicts"] == "avoid" and summary["ticks"] <= 25
    scenario = ROOT / "sims" / "doors.toml"
    with pytest.raises(ValueError, match='override colour="red": unknown key'):
        throng.Simulation.from_scenario(scenario, colour="red")
    with pytest.raises(ValueError, match="override agents=0: must be at least 1"):
        throng.Simulation.from_scenario(scenario, agents=0)


def test_from_scenario_overrides_match_the_cli_set(tmp_path, throng_cli):
    cli = cli_json(throng_cli, ROOT / "sims" / "doors.toml", tmp_path,
                   ["--set", "agents=40", "--set", "conflicts=avoid", "--ticks", "25"])
    assert overridden_doors()["final_state_hash"] == cli["final_state_hash"]
