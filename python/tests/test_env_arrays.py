"""throng.env's Rust path: observations byte-identical to the numpy implementation it replaced,
the array API against the PettingZoo one, new goals drawn as before, and the "pogema" layout
against POGEMA's own observation (where POGEMA is installed)."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

import throng  # noqa: E402
from throng.env import parallel_env  # noqa: E402


def numpy_observe(passable, r, pos, goals):
    """The numpy `_observe` of throng.env before observations were written by Rust, kept as
    the reference: windows of the agents at `pos` (rows of x, y) with goals `goals`."""
    walls = np.pad((~passable).astype(np.float32), r, constant_values=1.0)
    n, side = len(pos), 2 * r + 1
    x, y = pos[:, 0].astype(np.int64), pos[:, 1].astype(np.int64)
    offs = np.arange(side)
    ys = (y[:, None] + offs)[:, :, None]
    xs = (x[:, None] + offs)[:, None, :]
    obs = np.zeros((n, 3, side, side), dtype=np.float32)
    obs[:, 0] = walls[ys, xs]
    occupied = np.zeros_like(walls)
    occupied[y + r, x + r] = 1.0
    obs[:, 1] = occupied[ys, xs]
    obs[:, 1, r, r] = 0.0
    dx = np.clip(goals[:, 0] - x, -r, r)
    dy = np.clip(goals[:, 1] - y, -r, r)
    obs[np.arange(n), 2, dy + r, dx + r] = 1.0
    return obs


def random_map(rng):
    w, h = int(rng.integers(4, 24)), int(rng.integers(4, 24))
    return throng.generate_map("random", w, h, seed=int(rng.integers(1000)),
                               density=float(rng.uniform(0.0, 0.35)))


@pytest.mark.parametrize("on_target", ["finish", "restart", "nothing"])
def test_observations_byte_identical_to_numpy(on_target):
    rng = np.random.default_rng({"finish": 1, "restart": 2, "nothing": 3}[on_target])
    compared = 0
    for _ in range(12):
        grid = random_map(rng)
        area = int((grid.components() == 0).sum())
        if area < 3:
            continue
        env = parallel_env(map=grid, agents=int(rng.integers(1, max(2, area // 3))),
                           obs_radius=int(rng.integers(1, 7)), on_target=on_target,
                           neighbourhood=int(rng.choice([4, 8])), max_episode_steps=40,
                           seed=int(rng.integers(1000)))
        obs, _ = env.reset()
        ref = numpy_observe(env.passable, env.r, env.sim.positions(),
                            np.array([env.goal[a] for a in env.agents]))
        assert all(obs[a].tobytes() == ref[k].tobytes() for k, a in enumerate(env.agents))
        while env.agents:
            before, goals_before = list(env.agents), dict(env.goal)
            acts = {a: int(rng.integers(env.action_space(a).n)) for a in before}
            obs, _, term, _, _ = env.step(acts)
            # An agent that finished stands on its goal and was observed before it left (at
            # the episode's end no agent leaves the engine).
            live = env.agents if env.steps < 40 else before
            where = dict(zip(live, map(tuple, env.sim.positions().tolist())))
            pos = np.array([where.get(a, goals_before[a]) for a in before])
            goals = env._goals[[int(a.split("_")[1]) for a in before]]
            assert set(obs) == set(before)
            assert env.steps == 40 or all(term[a] == (a not in where) for a in before)
            ref = numpy_observe(env.passable, env.r, pos, goals)
            for k, a in enumerate(before):
                assert obs[a].tobytes() == ref[k].tobytes(), (a, env.steps)
            compared += len(before)
    assert compared > 2000


def test_arrays_match_the_dicts():
    for on_target in ("finish", "restart"):
        kw = dict(agents=60, seed=4, on_target=on_target, max_episode_steps=50, obs_radius=3)
        a, b = parallel_env(**kw), parallel_env(**kw)
        obs_d, _ = a.reset()
        obs_a, info = b.reset_arrays()
        assert obs_a.shape == (60, 3, 7, 7) and obs_a.dtype == np.float32 and info["active"].all()
        assert all((obs_a[k] == obs_d[f"agent_{k}"]).all() for k in range(60))
        rng = np.random.default_rng(0)
        finished = 0
        while a.agents:
            codes = rng.integers(5, size=60)
            active = np.array([f"agent_{k}" in a.agents for k in range(60)])
            obs_d, rew, term, trunc, infos = a.step({f"agent_{k}": int(codes[k]) for k in
                                                    range(60) if active[k]})
            obs_a, reward, terminated, truncated, info = b.step_arrays(codes)
            assert reward.dtype == np.float32 and info["outcome"].dtype == np.int8
            assert b.agents == a.agents and (info["active"] == [x in a.agents for x in
                                                                a.possible_agents]).all()
            for k in range(60):
                name = f"agent_{k}"
                if active[k]:
                    assert (obs_a[k] == obs_d[name]).all()
                    assert reward[k] == rew[name] and terminated[k] == term[name]
                    assert truncated[k] == trunc[name]
                    assert info["outcome"][k] == infos[name]["outcome"]
                else:
                    assert not obs_a[k].any() and reward[k] == 0 and info["outcome"][k] == -1
                    assert not terminated[k] and not truncated[k]
            finished += int(terminated.sum())
        assert (on_target == "finish") == (finished > 0)
        # After the end: nothing is played, every row inactive.
        obs_a, reward, terminated, truncated, info = b.step_arrays(np.zeros(60, dtype=np.int32))
        assert not obs_a.any() and not info["active"].any() and (info["outcome"] == -1).all()


def test_step_arrays_errors():
    env = parallel_env(agents=4, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step_arrays(np.zeros(4, dtype=int))
    env.reset_arrays()
    with pytest.raises(ValueError, match="shape"):
        env.step_arrays(np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="int array"):
        env.step_arrays(np.zeros(4))
    with pytest.raises(ValueError, match=r"actions\[2\]: action 5 is not in Discrete\(5\)"):
        env.step_arrays(np.array([0, 1, 5, 0]))
    assert env.steps == 0  # nothing played
    with pytest.raises(ValueError, match="layout"):
        parallel_env(layout="gym")


def test_new_goals_drawn_as_before():
    """The goal drawn on arrival is the one the set-based draw it replaced gives, from the same
    random numbers; `_is_goal` marks exactly the agents' goals."""

    class SetBased(type(parallel_env())):
        def _new_goal(self, k, here):
            taken = set(map(tuple, self._goals.tolist()))
            while True:
                x, y = (int(v) for v in self.area[self.rng.integers(len(self.area))])
                if (x, y) != here and (x, y) not in taken:
                    break
            self._goals[k] = (x, y)
            self.sim.set_goal(int(self._ids[k]), (x, y))

    grid = throng.generate_map("random", 12, 12, seed=3, density=0.2)
    kw = dict(map=grid, agents=40, seed=8, on_target="restart", max_episode_steps=300)
    new, old = parallel_env(**kw), SetBased(**kw)
    new.reset(), old.reset()
    rng = np.random.default_rng(5)
    changes = 0
    while new.agents:
        acts = {}
        for a, (x, y) in zip(new.agents, new.sim.positions().tolist()):
            gx, gy = new.goal[a]
            useful = [c for c, ok in ((1, gy < y), (2, gy > y), (3, gx < x), (4, gx > x)) if ok]
            acts[a] = int(rng.choice(useful)) if useful and rng.random() < 0.8 else int(
                rng.integers(5))
        before = new._goals.copy()
        _, rew, _, _, _ = new.step(acts)
        _, rew_old, _, _, _ = old.step(acts)
        assert rew == rew_old and (new._goals == old._goals).all()
        changes += int((before != new._goals).any(axis=1).sum())
        goals = new._goals
        assert new._is_goal.sum() == 40 and new._is_goal[goals[:, 1], goals[:, 0]].all()
    assert changes >= 30  # arrivals, each given a new goal


def test_pogema_layout_off_map_and_centre():
    a = np.ones((3, 4), dtype=bool)
    env = parallel_env(map=throng.Grid.from_array(a), agents=1, obs_radius=3, seed=0,
                       layout="pogema")
    obs, _ = env.reset()
    o = obs["agent_0"]
    x, y = env.sim.positions()[0]
    assert o[1, 3, 3] == 1.0 and o[1].sum() == 1.0  # itself, at the centre
    for dy in range(-3, 4):
        for dx in range(-3, 4):
            cx, cy = x + dx, y + dy
            ring = max(-cx, cx - 3, -cy, cy - 2)  # how far beyond the map's edge
            assert o[0, dy + 3, dx + 3] == (1.0 if ring == 1 else 0.0), (dx, dy)


def test_pogema_layout_matches_pogema():
    pogema = pytest.importorskip("pogema", reason="POGEMA not installed: pip install pogema==1.4.0")
    rng = np.random.default_rng(7)
    compared = 0
    for trial in range(6):
        h, w = int(rng.integers(4, 9)), int(rng.integers(4, 9))
        passable = rng.random((h, w)) > 0.2
        env = parallel_env(map=throng.Grid.from_array(passable), agents=3, seed=trial,
                           obs_radius=int(rng.integers(1, 5)), on_target="nothing",
                           layout="pogema", max_episode_steps=20)
        try:
            obs, _ = env.reset()
        except ValueError:
            continue  # too small a connected area
        starts = [(int(y), int(x)) for x, y in env.sim.positions()]  # POGEMA: (row, column)
        targets = [(gy, gx) for gx, gy in (env.goal[a] for a in env.agents)]
        config = pogema.GridConfig(map=(~passable).astype(int).tolist(), agents_xy=starts,
                                   targets_xy=targets, num_agents=3, obs_radius=env.r,
                                   on_target="nothing", max_episode_steps=20, seed=0)
        penv = pogema.pogema_v0(grid_config=config)
        pobs, _ = penv.reset()
        for step in range(20):
            mine = env.sim.positions().tolist()
            theirs = [[c, r] for r, c in penv.grid.get_agents_xy(ignore_borders=True)]
            if mine != theirs:
                break  # the two resolved a conflict differently: the windows would differ
            for k, agent in enumerate(env.agents):
                np.testing.assert_array_equal(obs[agent], pobs[k], err_msg=f"{agent} step {step}")
                compared += 1
            acts = [int(v) for v in rng.integers(5, size=3)]
            obs, *_ = env.step({a: acts[k] for k, a in enumerate(env.agents)})
            pobs, *_ = penv.step(acts)
    assert compared >= 60
