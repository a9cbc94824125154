"""Tests of throng.Simulation built from arrays, agents driven from Python (step(actions=...)),
the agent and map edits, generate_map and the type stubs, checked against the Rust side."""

import ast
import inspect
import subprocess
from pathlib import Path

import numpy as np
import pytest

import throng
import throng._throng as native
from test_throng import ROOT, cli_json

WAIT, UP, DOWN, LEFT, RIGHT, UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT = range(9)
MOVED, WAITED, ILLEGAL, BLOCKED = range(4)
IDLE, PLANNING, MOVING, WAITING, ARRIVED, NO_PATH = range(6)
DELTA = {UP: (0, -1), DOWN: (0, 1), LEFT: (-1, 0), RIGHT: (1, 0), UP_LEFT: (-1, -1),
         UP_RIGHT: (1, -1), DOWN_LEFT: (-1, 1), DOWN_RIGHT: (1, 1)}


def grid_of(text):
    """A grid from rows of '.' (passable) and '#' (blocked)."""
    rows = text.strip().split("\n")
    return throng.Grid.from_array(np.array([[c == "." for c in r.strip()] for r in rows]))


def test_names_and_codes():
    assert throng.STATES == ("idle", "planning", "moving", "waiting", "arrived", "no_path")
    assert throng.ACTIONS[0] == "wait" and throng.ACTIONS[UP] == "up"
    assert throng.ACTIONS[DOWN_RIGHT] == "down_right" and len(throng.ACTIONS) == 9
    assert throng.OUTCOMES == ("moved", "waited", "illegal", "blocked")


def test_constructor_arrays_in_agent_order():
    grid = grid_of("......\n......\n......")
    starts = np.array([[0, 0], [5, 2], [2, 1]])
    goals = np.array([[5, 0], [0, 2], [2, 1]])
    sim = throng.Simulation(grid, starts, goals)
    assert len(sim) == 3 and sim.tick == 0
    ids = sim.ids()
    assert ids.dtype == np.int64 and list(ids) == [0, 1, 2]
    pos = sim.positions()
    assert pos.dtype == np.int32 and pos.shape == (3, 2) and (pos == starts).all()
    assert sim.goals().dtype == np.int32 and (sim.goals() == goals).all()
    st = sim.states()
    assert st.dtype == np.uint8 and list(st) == [PLANNING] * 3
    assert sim.controlled().dtype == np.bool_ and not sim.controlled().any()
    sim.step()
    assert list(sim.states()) == [MOVING, MOVING, ARRIVED]
    # Without goals: idle, goals (-1, -1).
    sim = throng.Simulation(grid, starts)
    assert (sim.goals() == -1).all() and list(sim.states()) == [IDLE] * 3
    assert sim.step()["moved"] == 0
    # Empty crowds are fine.
    sim = throng.Simulation(grid, np.zeros((0, 2), dtype=np.int32))
    assert sim.positions().shape == (0, 2) and sim.step(np.zeros(0, dtype=int))["agents"] == 0



def test_events_routes_next_cells_and_a_cleared_goal():
    assert throng.EVENT_KINDS[1] == "added" and throng.EVENT_KINDS[7] == "moved"
    kind = {name: code for code, name in enumerate(throng.EVENT_KINDS)}
    grid = grid_of("........\n........")
    sim = throng.Simulation(grid, np.array([[0, 0], [7, 1]]), np.array([[7, 0], [0, 1]]))
    ids = sim.ids()
    sim.step()
    ev = sim.events()
    assert set(ev) == {"agent", "kind", "x", "y", "detail"}
    assert ev["agent"].dtype == np.int64 and ev["kind"].dtype == np.uint8
    n = len(ev["kind"])
    assert all(len(a) == n for a in ev.values())
    moved = ev["kind"] == kind["moved"]
    assert moved.sum() == 2
    # A move's cell is where its agent now stands.
    pos = dict(zip(sim.ids(), map(tuple, sim.positions())))
    for a, x, y in zip(ev["agent"][moved], ev["x"][moved], ev["y"][moved]):
        assert pos[a] == (x, y)
    found = ev["kind"] == kind["path_found"]
    assert found.sum() == 2 and (ev["detail"][found] == 0).all()
    # Routes: next cell first, goal last; next_cells agrees.
    route = sim.route(ids[0])
    assert route.dtype == np.int32 and route.shape == (6, 2)
    assert tuple(route[0]) == (2, 0) and tuple(route[-1]) == (7, 0)
    assert (sim.next_cells()[0] == route[0]).all()
    with pytest.raises(ValueError, match="id"):
        sim.route(12345)
    # A cleared goal: an event with no cell, idle, no route.
    sim.set_goal(ids[0], None)
    sim.step()
    ev = sim.events()
    goal_set = ev["kind"] == kind["goal_set"]
    assert list(ev["agent"][goal_set]) == [ids[0]] and ev["x"][goal_set][0] == -1
    assert sim.states()[0] == IDLE and (sim.goals()[0] == -1).all()
    assert sim.route(ids[0]).shape == (0, 2) and (sim.next_cells()[0] == -1).all()
    assert (sim.next_cells()[1] != -1).all()
    # Per-agent settings from code.
    sim.set_priority(ids[1], 5)
    sim.set_planner(ids[1], "astar")
    sim.step()
    ev = sim.events()
    assert list(ev["agent"][ev["kind"] == kind["path_found"]]) == [ids[1]]
    sim.set_planner(ids[1], None)
    with pytest.raises(ValueError, match="astar"):
        sim.set_planner(ids[1], "teleport")
    with pytest.raises((ValueError, OverflowError)):
        sim.set_priority(ids[1], 300)


def test_constructor_errors():
    grid = grid_of("...\n.#.")
    ok = [[0, 0], [2, 1]]
    cases = [
        (dict(starts=[[0, 0, 1]]), "shape"),
        (dict(starts=[[1.0, 0.0]]), "integer"),
        (dict(starts=[[1, 1]]), "starts row 0: \\(1, 1\\) is blocked"),
        (dict(starts=[[0, 0], [3, 0]]), "starts row 1: \\(3, 0\\) is outside"),
        (dict(starts=[[0, 0], [0, 0]]), "starts row 1: cell \\(0, 0\\) is occupied"),
        (dict(starts=ok, goals=[[0, 0]]), "starts has 2 rows but goals has 1"),
        (dict(starts=ok, goals=[[0, 0], [1, 1]]), "goals row 1"),
        (dict(starts=ok, conflicts="sometimes"), "conflict mode"),
        (dict(starts=ok, planner="dijkstra"), "planner"),
        (dict(starts=ok, colour="red"), "colour: unknown key"),
        (dict(starts=ok, max_plans_per_tick=0), "max_plans_per_tick: must be at least 1"),
        (dict(starts=ok, replan_after_waits="x"), "replan_after_waits"),
        (dict(starts=ok, action_model="rotate", conflicts="avoid"), "action_model"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            throng.Simulation(grid, **kwargs)
    # Conflicts off: agents may share a start.
    sim = throng.Simulation(grid, [[0, 0], [0, 0]], conflicts="off")
    assert len(sim) == 2


def test_config_keys_reach_the_engine():
    grid = grid_of("\n".join(["." * 20] * 20))
    starts = [[x, 0] for x in range(10)]
    goals = [[x, 19] for x in range(10)]
    sim = throng.Simulation(grid, starts, goals, max_plans_per_tick=3, planner="astar",
                            conflicts="avoid", node_budget=None, detours=False)
    r = sim.step()
    assert r["plans"] == 3 and r["plans_deferred"] == 7
    summary = sim.run(100)
    assert summary["conflicts"] == "avoid" and summary["planner"] == "astar"
    assert summary["max_plans_per_tick"] == 3 and summary["scenario"] == "python"
    assert summary["map"] == "grid 20 x 20" and summary["arrived"] == 10


def test_arrays_match_the_scenario_and_the_cli(tmp_path, throng_cli):
    """The same crowd built from arrays plays the same run as the scenario file and the CLI."""
    scenario = ROOT / "sims" / "crowd-rooms.toml"
    expected = cli_json(throng_cli, scenario, tmp_path)
    ref = throng.Simulation.from_scenario(scenario, threads=2)
    grid = throng.generate_map("rooms", 128, 128, seed=0, room=15, door=6)
    assert (grid.passable == ref.grid.passable).all()
    sim = throng.Simulation(grid, ref.positions(), ref.goals(), seed=1, threads=2,
                            planner="astar", conflicts="pibt")
    assert (sim.ids() == ref.ids()).all()
    summary = sim.run(800)
    assert summary["final_state_hash"] == expected["final_state_hash"] == ref.run()["final_state_hash"]
    # What the CLI's process used (cores busy, peak memory) is the CLI's only.
    assert set(summary) == set(expected) - {"steady_cores", "peak_memory_mib"}


def route_sim(conflicts="pibt", text="....\n.##.\n....", **kw):
    grid = grid_of(text)
    return throng.Simulation(grid, [[0, 0]], [[3, 2]], conflicts=conflicts, controlled=True, **kw)


@pytest.mark.parametrize("conflicts", ["pibt", "avoid", "off"])
def test_a_controlled_agent_walks_a_known_route(conflicts):
    sim = route_sim(conflicts)
    (aid,) = sim.ids()
    assert sim.controlled().all() and list(sim.states()) == [MOVING]
    r = sim.step()
    assert r["plans"] == 0 and r["moved"] == 0 and list(sim.states()) == [WAITING]
    route = [RIGHT, RIGHT, RIGHT, DOWN, DOWN]
    for i, code in enumerate(route):
        before = sim.positions()[0].copy()
        as_dict = i % 2 == 0
        r = sim.step({int(aid): code} if as_dict else np.array([code]))
        out = r["action_outcomes"]
        assert out.dtype == np.int8 and list(out) == [MOVED]
        assert tuple(sim.positions()[0]) == tuple(before + DELTA[code])
        assert r["plans"] == 0
    assert r["goals_reached"] == 1 and r["at_goal"] == 1 and list(sim.states()) == [ARRIVED]
    assert sim.summary()["arrived"] == 1
    # A wait is reported as such.
    r = sim.step({int(aid): WAIT})
    assert list(r["action_outcomes"]) == [WAITED] and r["moved"] == 0


@pytest.mark.parametrize("conflicts", ["pibt", "avoid", "off"])
def test_illegal_moves_are_refused(conflicts):
    #   x: 0123
    # y=0: ....
    # y=1: .##.
    # y=2: ....
    sim = route_sim(conflicts)
    (aid,) = sim.ids()
    for code in [UP, LEFT, UP_LEFT, UP_RIGHT, DOWN_LEFT]:  # outside the grid
        r = sim.step({int(aid): code})
        assert list(r["action_outcomes"]) == [ILLEGAL] and tuple(sim.positions()[0]) == (0, 0)
    r = sim.step({int(aid): DOWN_RIGHT})  # into the wall at (1, 1)
    assert list(r["action_outcomes"]) == [ILLEGAL]
    sim.step({int(aid): DOWN})
    assert tuple(sim.positions()[0]) == (0, 1)
    r = sim.step({int(aid): RIGHT})  # wall
    assert list(r["action_outcomes"]) == [ILLEGAL]
    sim.step({int(aid): DOWN})
    r = sim.step({int(aid): UP_RIGHT})  # (0, 2) -> (1, 1) is a wall
    assert list(r["action_outcomes"]) == [ILLEGAL]
    sim.step({int(aid): RIGHT})
    r = sim.step({int(aid): UP_RIGHT})  # (1, 2) -> (2, 1): a wall
    sim.step({int(aid): RIGHT})
    # (2, 2) -> (3, 1): passable, but the corner (2, 1) is a wall: no corner cutting.
    r = sim.step({int(aid): UP_RIGHT})
    assert list(r["action_outcomes"]) == [ILLEGAL] and tuple(sim.positions()[0]) == (2, 2)
    # A 4-connected grid has no diagonal moves.
    four = throng.Grid.from_array(np.ones((3, 3), dtype=bool), neighbourhood=4)
    sim = throng.Simulation(four, [[1, 1]], controlled=True, conflicts=conflicts)
    r = sim.step(np.array([DOWN_RIGHT]))
    assert list(r["action_outcomes"]) == [ILLEGAL]
    r = sim.step(np.array([DOWN]))
    assert list(r["action_outcomes"]) == [MOVED]


@pytest.mark.parametrize("conflicts", ["pibt", "avoid"])
def test_conflicts_between_driven_agents(conflicts):
    grid = grid_of("...\n...")
    # Two agents into one cell: one moves, one is blocked.
    sim = throng.Simulation(grid, [[0, 0], [2, 0]], controlled=True, conflicts=conflicts)
    r = sim.step(np.array([RIGHT, LEFT]))
    assert sorted(r["action_outcomes"]) == [MOVED, BLOCKED]
    assert sorted(map(tuple, sim.positions())) in ([(0, 0), (1, 0)], [(1, 0), (2, 0)])
    # A swap is refused.
    sim = throng.Simulation(grid, [[0, 0], [1, 0]], controlled=True, conflicts=conflicts)
    r = sim.step(np.array([RIGHT, LEFT]))
    assert list(r["action_outcomes"]) == [BLOCKED, BLOCKED]
    assert (sim.positions() == [[0, 0], [1, 0]]).all()
    # Diagonals crossing in a 2 x 2 block: one goes.
    sim = throng.Simulation(grid, [[0, 0], [1, 0]], controlled=True, conflicts=conflicts)
    r = sim.step(np.array([DOWN_RIGHT, DOWN_LEFT]))
    assert sorted(r["action_outcomes"]) == [MOVED, BLOCKED]
    # Following the agent ahead: both move.
    sim = throng.Simulation(grid, [[0, 0], [1, 0]], controlled=True, conflicts=conflicts)
    r = sim.step(np.array([RIGHT, RIGHT]))
    assert list(r["action_outcomes"]) == [MOVED, MOVED]


def test_conflicts_off_lets_agents_pass_through():
    grid = grid_of("...")
    sim = throng.Simulation(grid, [[0, 0], [1, 0]], controlled=True, conflicts="off")
    r = sim.step(np.array([RIGHT, LEFT]))
    assert list(r["action_outcomes"]) == [MOVED, MOVED]
    assert (sim.positions() == [[1, 0], [0, 0]]).all()


def test_actions_override_routes_of_planned_agents():
    grid = grid_of("\n".join(["." * 10] * 5))
    sim = throng.Simulation(grid, [[0, 2]], [[9, 2]])
    sim.step()
    r = sim.step(np.array([UP]))
    assert list(r["action_outcomes"]) == [MOVED] and tuple(sim.positions()[0]) == (1, 1)
    r = sim.step(np.array([-1]))  # no action: back on its way
    assert list(r["action_outcomes"]) == [-1]
    for _ in range(20):
        sim.step()
    assert list(sim.states()) == [ARRIVED] and tuple(sim.positions()[0]) == (9, 2)


def random_run(threads, conflicts, ticks=25):
    grid = throng.generate_map("random", 48, 48, seed=3, density=0.1)
    free = np.argwhere(grid.passable)[:, ::-1]  # (x, y)
    rng = np.random.default_rng(5)
    cells = free[rng.permutation(len(free))[:1200]]
    goals = free[rng.permutation(len(free))[:1200]]
    sim = throng.Simulation(grid, cells, goals, threads=threads, conflicts=conflicts, seed=9)
    sim.set_controlled(sim.ids()[::2], True)
    rng = np.random.default_rng(11)
    hashes = []
    for _ in range(ticks):
        actions = rng.integers(-1, 9, size=len(sim))
        actions[~sim.controlled() & (rng.random(len(sim)) < 0.9)] = -1
        r = sim.step(actions)
        hashes.append((r["state_hash"], r["action_outcomes"].tobytes()))
    return hashes


@pytest.mark.parametrize("conflicts", ["pibt", "avoid", "off"])
def test_one_and_two_threads_give_the_same_run_with_random_actions(conflicts):
    assert random_run(1, conflicts) == random_run(2, conflicts)


def test_random_actions_keep_the_rules():
    """A dense driven crowd, checked tick by tick in Python: outcomes agree with positions."""
    grid = throng.generate_map("random", 24, 24, seed=4, density=0.15)
    free = np.argwhere(grid.passable)[:, ::-1]
    rng = np.random.default_rng(2)
    starts = free[rng.permutation(len(free))[:200]]
    sim = throng.Simulation(grid, starts, controlled=True)
    passable = grid.passable
    h, w = passable.shape
    counts = np.zeros(4, dtype=int)
    for _ in range(60):
        before = sim.positions()
        actions = rng.integers(0, 9, size=len(sim))
        out = sim.step(actions)["action_outcomes"]
        after = sim.positions()
        assert len({tuple(p) for p in after}) == len(after), "two agents in a cell"
        for k, (code, o) in enumerate(zip(actions, out)):
            counts[o] += 1
            if code == WAIT:
                assert o == WAITED
                continue
            dx, dy = DELTA[int(code)]
            x, y = before[k]
            tx, ty = x + dx, y + dy
            legal = (0 <= tx < w and 0 <= ty < h and passable[ty, tx]
                     and (dx == 0 or dy == 0 or (passable[y, tx] and passable[ty, x])))
            if not legal:
                assert o == ILLEGAL
            assert (o == MOVED) == (tuple(after[k]) == (tx, ty))
            if o != MOVED:
                assert tuple(after[k]) == tuple(before[k])
        # No swaps: no pair of agents traded cells.
        moved = {tuple(b): tuple(a) for b, a in zip(before, after) if tuple(b) != tuple(a)}
        assert not any(moved.get(a) == b for b, a in moved.items())
    assert (counts > 100).all(), counts


def test_bad_actions_raise_and_play_nothing():
    sim = throng.Simulation(grid_of("...\n..."), [[0, 0], [2, 1]], controlled=True)
    ids = [int(i) for i in sim.ids()]
    cases = [
        ({ids[0]: 9}, "actions\\[0\\]: unknown action code 9"),
        ({ids[0]: -2}, "unknown action code -2"),
        ({ids[1]: "up"}, "an action code is an int"),
        ({ids[1]: 1.5}, "an action code is an int"),
        ({"a": 1}, "an agent id is an int"),
        ({12345: 1}, "agent id 12345 does not name a live agent"),
        ({1 << 32: 1}, "does not name a live agent"),
        (np.array([1, 2, 3]), "shape \\(2,\\)"),
        (np.array([[1, 2]]), "shape"),
        (np.array([1.0, 2.0]), "dtype float64"),
        (np.array([True, False]), "dtype bool"),
        (np.array([0, 12]), "actions\\[1\\] \\(agent id 1\\): unknown action code 12"),
        ([0, 1, 2], "shape"),
        ("up", "dtype"),
        (3, "shape"),
        (object(), "dtype"),
    ]
    for actions, message in cases:
        with pytest.raises(ValueError, match=message):
            sim.step(actions)
    assert sim.tick == 0
    # A removed agent's id is stale.
    sim.remove_agent(ids[0])
    with pytest.raises(ValueError, match=f"agent id {ids[0]} does not name"):
        sim.step({ids[0]: 1})
    r = sim.step({})
    assert list(r["action_outcomes"]) == [-1]


def test_add_remove_and_ids():
    grid = grid_of("....\n....")
    sim = throng.Simulation(grid, [[0, 0], [1, 0]], [[3, 1], [2, 1]])
    a, b = map(int, sim.ids())
    c = sim.add_agent((3, 0), controlled=True)
    assert list(sim.ids()) == [a, b, c] and list(sim.controlled()) == [False, False, True]
    sim.remove_agent(b)
    with pytest.raises(ValueError, match="does not name a live agent"):
        sim.remove_agent(b)
    d = sim.add_agent([1, 1], goal=np.array([0, 1]))  # lists and arrays are points too
    assert d == (1 << 32) | 1, "the slot is reused, one generation on"
    assert list(sim.ids()) == [a, d, c]
    assert (sim.positions() == [[0, 0], [1, 1], [3, 0]]).all()
    assert (sim.goals() == [[3, 1], [0, 1], [-1, -1]]).all()
    for bad, message in [((0, 0), f"occupied by agent {a}$"), ((1, 1), f"occupied by agent {d}$"),
                         ((4, 0), "outside the 4 x 2 grid"),
                         ((1,), "two ints"), ("ab", "two ints"), ((-1, 0), "outside")]:
        with pytest.raises(ValueError, match=message):
            sim.add_agent(bad)
    with pytest.raises(ValueError, match="stale|does not name"):
        sim.set_goal(b, (0, 1))
    sim.set_goal(c, (3, 1))
    r = sim.step({c: DOWN})
    assert list(r["action_outcomes"]) == [-1, -1, MOVED]
    assert r["goals_reached"] >= 1 and sim.states()[2] == ARRIVED
    assert r["added"] == []


def test_set_controlled():
    grid = grid_of("......\n......")
    sim = throng.Simulation(grid, [[0, 0], [0, 1]], [[5, 0], [5, 1]])
    a, b = map(int, sim.ids())
    sim.set_controlled(a, True)
    r = sim.step()
    assert r["plans"] == 1 and tuple(sim.positions()[0]) == (0, 0)
    sim.set_controlled([a, b], True)
    assert sim.controlled().all()
    sim.set_controlled(np.array([a, b]), False)
    assert not sim.controlled().any() and list(sim.states()) == [PLANNING, PLANNING]
    for bad, message in [([a, 999], "ids\\[1\\]: agent id 999"), ("x", "an agent id is an int"),
                         (1.5, "iterable")]:
        with pytest.raises(ValueError, match=message):
            sim.set_controlled(bad, True)
    assert not sim.controlled().any(), "nothing changed"
    sim.run(20)
    assert list(sim.states()) == [ARRIVED, ARRIVED]


def test_change_map_and_grid():
    grid = grid_of("....\n....\n....")
    sim = throng.Simulation(grid, [[0, 1]], [[3, 1]])
    assert (sim.grid.passable == grid.passable).all()
    sim.change_map([[2, 0], [2, 1], [2, 2]], [False, False, False])
    assert not sim.grid.passable[:, 2].any() and grid.passable.all(), "a new Grid"
    sim.step()
    assert sim.states()[0] == NO_PATH
    sim.change_map(np.array([[2, 2]]), np.array([True]))
    sim.run(20)
    assert sim.states()[0] == ARRIVED
    # Blocking the cell an agent stands on is refused whole.
    with pytest.raises(ValueError, match="cell \\(3, 1\\) is occupied"):
        sim.change_map([[0, 0], [3, 1]], [False, False])
    assert sim.grid.passable[0, 0]
    for cells, passable, message in [
        ([[9, 0]], [True], "outside"),
        ([[0, 0]], [1], "bool array"),
        ([[0, 0]], [True, False], "shape \\(1,\\)"),
        ([[0, 0, 0]], [True], "shape \\(k, 2\\)"),
    ]:
        with pytest.raises(ValueError, match=message):
            sim.change_map(cells, passable)


def test_lifelong_controlled_agents_get_new_goals():
    grid = throng.Grid.from_array(np.ones((8, 8), dtype=bool))
    sim = throng.Simulation(grid, [[3, 3]], [[3, 3]], lifelong=True, controlled=True, seed=4)
    r = sim.step()
    assert r["goals_reached"] == 1
    reached = 1
    for _ in range(100):
        (x, y), (gx, gy) = sim.positions()[0], sim.goals()[0]
        dx, dy = np.sign(gx - x), np.sign(gy - y)
        code = [k for k, d in DELTA.items() if d == (dx, dy)][0]
        r = sim.step({int(sim.ids()[0]): code})
        assert list(r["action_outcomes"]) == [MOVED]
        reached += r["goals_reached"]
    assert reached > 10 and sim.summary()["goals_reached"] == reached


def test_run_needs_ticks_for_array_simulations():
    sim = throng.Simulation(grid_of("..."), [[0, 0]], [[2, 0]])
    with pytest.raises(ValueError, match="needs ticks"):
        sim.run()
    assert sim.run(10)["arrived"] == 1


def test_rotate_needs_a_four_connected_grid():
    # The engine's own check, with the message the command line gives for a scenario file.
    eight = grid_of("...\n...")
    for controlled in (False, True):
        with pytest.raises(ValueError, match="action_model: \"rotate\" moves only straight "
                           "ahead and needs map.neighbourhood = 4"):
            throng.Simulation(eight, [[0, 0]], [[2, 1]], action_model="rotate",
                              controlled=controlled)
    four = throng.Grid.from_array(np.ones((2, 3), dtype=bool), neighbourhood=4)
    sim = throng.Simulation(four, [[0, 0]], [[2, 1]], action_model="rotate")
    assert sim.run(20)["arrived"] == 1


def test_rotate_refuses_moves():
    grid = throng.Grid.from_array(np.ones((3, 3), dtype=bool), neighbourhood=4)
    sim = throng.Simulation(grid, [[0, 0]], controlled=True, action_model="rotate")
    with pytest.raises(ValueError, match="rotate"):
        sim.step(np.array([RIGHT]))
    assert list(sim.step(np.array([WAIT]))["action_outcomes"]) == [WAITED]


def test_generate_map(tmp_path):
    a = throng.generate_map("maze", 41, 21, seed=7, corridor=1)
    b = throng.generate_map("maze", 41, 21, seed=7, corridor=1)
    assert (a.width, a.height) == (41, 21) and (a.passable == b.passable).all()
    assert (a.components()[a.passable] == 0).all(), "a perfect maze is one area"
    r = throng.generate_map("random", 30, 20, seed=2)  # density 0.2 by default
    assert 0.1 < 1 - r.passable.mean() < 0.3
    for args, kw, message in [
        (("hexes", 4, 4), {}, "unknown map kind"),
        (("rooms", 40, 30), {"corridor": 2}, "no parameter \"corridor\""),
        (("random", 10, 10), {"density": 2.0}, "density"),
        (("rooms", 40, 30), {"room": 2, "door": 5}, "door"),
        (("maze", 10, 10), {"corridor": "wide"}, "maze map"),
        (("random", 0, 10), {}, "grid"),
    ]:
        with pytest.raises(ValueError, match=message):
            throng.generate_map(*args, **kw)


def test_generate_map_matches_the_cli(tmp_path, throng_cli):
    """The same map as `throng gen`."""
    out = tmp_path / "rooms.map"
    subprocess.run([str(throng_cli), "gen", "rooms", "--out", str(out), "--width", "40",
                    "--height", "30", "--seed", "3", "--room", "9", "--door", "2",
                    "--queries", "1"], check=True, capture_output=True)
    cli = throng.load_map(out)
    mine = throng.generate_map("rooms", 40, 30, seed=3, room=9, door=2)
    assert (cli.passable == mine.passable).all()


def test_stubs_cover_the_native_module_with_docstrings():
    stub = Path(native.__file__).with_name("_throng.pyi")
    if not stub.exists():
        stub = ROOT / "python" / "python" / "throng" / "_throng.pyi"
    tree = ast.parse(stub.read_text())
    stubbed = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    stubbed |= {n.target.id: n for n in tree.body if isinstance(n, ast.AnnAssign)}
    public = {n for n in dir(native) if not n.startswith("_")} | {"__version__"}
    assert public - set(stubbed) == set(), "names of the module without a stub"
    assert (Path(throng.__file__).parent / "py.typed").exists()
    for name in public - {"__version__", "STATES", "ACTIONS", "OUTCOMES"}:
        obj = getattr(native, name)
        assert inspect.getdoc(obj), f"{name} has no docstring"
        if isinstance(obj, type):
            methods = {n.name for n in stubbed[name].body if isinstance(n, ast.FunctionDef)}
            for attr in dir(obj):
                if attr.startswith("_") and attr not in ("__init__", "__len__"):
                    continue
                if attr == "__init__":
                    continue
                assert attr in methods, f"{name}.{attr} has no stub"
                assert inspect.getdoc(getattr(obj, attr)), f"{name}.{attr} has no docstring"


def test_snapshot_restore_and_from_snapshot_play_the_same_run():
    sim = throng.Simulation.from_scenario(ROOT / "sims/doors.toml", ticks=120)
    for _ in range(30):
        sim.step()
    saved = sim.snapshot()
    assert isinstance(saved, bytes) and len(saved) > 100
    first = [sim.step()["state_hash"] for _ in range(60)]
    sim.restore(saved)  # a rollback: the doors' schedule carries on from tick 30
    assert sim.tick == 30
    assert [sim.step()["state_hash"] for _ in range(60)] == first
    copy = throng.Simulation.from_snapshot(saved, threads=2)
    assert copy.tick == 30 and copy.state_hash() != 0
    before = sim.state_hash()
    damaged = bytearray(saved)
    damaged[len(damaged) // 2] ^= 1
    with pytest.raises(ValueError, match="checksum"):
        sim.restore(bytes(damaged))
    with pytest.raises(ValueError, match="truncated"):
        throng.Simulation.from_snapshot(saved[:-3])
    other = throng.Simulation(grid_of("...\n..."), [[0, 0]])
    with pytest.raises(ValueError, match="3 x 2"):
        sim.restore(other.snapshot())
    assert sim.state_hash() == before
