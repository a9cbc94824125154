"""throng.env: the PettingZoo ParallelEnv, against the PettingZoo API test and the movement rules."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import parallel_api_test  # noqa: E402

import throng  # noqa: E402
from throng.env import MOVES, parallel_env  # noqa: E402


@pytest.mark.parametrize("on_target", ["finish", "restart", "nothing"])
@pytest.mark.parametrize("neighbourhood", [4, 8])
def test_parallel_api(on_target, neighbourhood):
    env = parallel_env(agents=12, seed=3, on_target=on_target, neighbourhood=neighbourhood,
                       max_episode_steps=60)
    parallel_api_test(env, num_cycles=200)


def corridor(width=6):
    a = np.ones((3, width), dtype=bool)
    a[0, :] = False
    a[2, :] = False
    return throng.Grid.from_array(a)


def test_observation_channels():
    a = np.ones((5, 5), dtype=bool)
    a[2, 3] = False
    env = parallel_env(map=throng.Grid.from_array(a), agents=2, obs_radius=1, seed=0)
    obs, _ = env.reset(seed=0)
    pos = env.sim.positions()
    for k, agent in enumerate(env.agents):
        o = obs[agent]
        assert o.shape == (3, 3, 3) and o.dtype == np.float32
        assert env.observation_space(agent).contains(o)
        x, y = pos[k]
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                cx, cy = x + dx, y + dy
                outside = not (0 <= cx < 5 and 0 <= cy < 5)
                assert o[0, dy + 1, dx + 1] == (1.0 if outside or not a[cy, cx] else 0.0)
                other = pos[1 - k]
                assert o[1, dy + 1, dx + 1] == (1.0 if (cx, cy) == tuple(other) else 0.0)
        gx, gy = env.goal[agent]
        assert o[2].sum() == 1.0
        assert o[2, np.clip(gy - y, -1, 1) + 1, np.clip(gx - x, -1, 1) + 1] == 1.0


def test_walk_to_goal_finish_and_illegal_moves():
    env = parallel_env(map=corridor(), agents=1, seed=1, on_target="finish")
    env.reset(seed=1)
    agent = env.agents[0]
    (x, y) = env.sim.positions()[0]
    gx, _ = env.goal[agent]
    # Up is a wall: illegal, the agent stays.
    _, rew, term, trunc, info = env.step({agent: 1})
    assert info[agent]["outcome"] == 2 and rew[agent] == 0.0
    assert tuple(env.sim.positions()[0]) == (x, y)
    rewards = []
    while env.agents:
        action = 4 if gx > x else 3
        _, rew, term, trunc, info = env.step({agent: action})
        rewards.append(rew[agent])
        x += 1 if action == 4 else -1
        assert info[agent]["outcome"] == 0
    assert rewards[-1] == 1.0 and sum(rewards) == 1.0 and term[agent]
    assert len(env.sim.ids()) == 0  # left the map


def test_restart_gives_new_goals():
    env = parallel_env(map=corridor(8), agents=1, seed=2, on_target="restart", max_episode_steps=200)
    env.reset(seed=2)
    agent = env.agents[0]
    total = 0.0
    goals = set()
    while env.agents:
        x = env.sim.positions()[0][0]
        gx = env.goal[agent][0]
        goals.add(env.goal[agent])
        _, rew, term, trunc, _ = env.step({agent: 4 if gx > x else 3})
        total += rew[agent]
        assert not term[agent]
    assert trunc[agent] and total >= 5 and len(goals) >= 5


def test_random_crowd_keeps_the_rules():
    for neighbourhood in (4, 8):
        env = parallel_env(agents=150, seed=5, neighbourhood=neighbourhood, on_target="nothing",
                           max_episode_steps=100)
        env.reset(seed=5)
        passable = env.passable
        rng = np.random.default_rng(0)
        before = {a: tuple(p) for a, p in zip(env.agents, env.sim.positions())}
        outcomes = np.zeros(4, dtype=int)
        idmap = dict(env.ids)
        goals = dict(env.goal)
        while env.agents:
            acts = {a: int(rng.integers(env.action_space(a).n)) for a in env.agents}
            _, rewards, _, _, infos = env.step(acts)
            for info in infos.values():
                outcomes[info["outcome"]] += 1
            ids = env.sim.ids()
            pos = env.sim.positions()
            after = {a: tuple(pos[list(ids).index(idmap[a])]) for a in before}
            cells = list(after.values())
            was_at = {c: a for a, c in before.items()}
            assert len(set(cells)) == len(cells), "two agents in one cell"
            assert all(passable[y, x] for x, y in cells)
            for a, (x, y) in after.items():
                px, py = before[a]
                dx, dy = x - px, y - py
                if (dx, dy) != (0, 0):
                    assert MOVES[acts[a]] == (dx, dy), "moved other than asked"
                    b = was_at.get((x, y))
                    assert b is None or after[b] != (px, py), "swap"
                    if dx and dy:
                        assert passable[py, x] and passable[y, px], "corner cut"
                # Rewarded exactly when it steps onto its goal (again, after leaving it).
                goal = goals[a]
                assert rewards[a] == float(after[a] == goal and before[a] != goal), a
            before = after
        assert env.steps == 100
        # Every outcome happened: moves, asked waits, walls refused, conflicts lost.
        assert (outcomes > 0).all(), outcomes


def test_same_seed_same_episode():
    def episode(seed):
        env = parallel_env(agents=40, seed=seed, max_episode_steps=30)
        obs, _ = env.reset()
        rng = np.random.default_rng(1)
        trail = [env.sim.positions().copy()]
        while env.agents:
            env.step({a: int(rng.integers(5)) for a in env.agents})
            trail.append(env.sim.positions().copy())
        return trail

    a, b, c = episode(9), episode(9), episode(10)
    assert len(a) == len(b) and all((x == y).all() for x, y in zip(a, b))
    assert not (a[0] == c[0]).all()


def test_errors():
    with pytest.raises(ValueError, match="on_target"):
        parallel_env(on_target="explode")
    with pytest.raises(ValueError, match="do not fit"):
        parallel_env(map=corridor(), agents=7)
    with pytest.raises(ValueError, match="neighbourhood"):
        parallel_env(neighbourhood=6)
    env = parallel_env(agents=2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step({})
    env.reset()
    with pytest.raises(ValueError, match="action 9"):
        env.step({env.agents[0]: 9})


def test_render_and_state():
    env = parallel_env(agents=3, seed=0, render_mode="ansi")
    env.reset()
    text = env.render()
    assert text.count("a") == 3 and len(text.splitlines()) == 32
    env = parallel_env(agents=3, seed=0, render_mode="rgb_array")
    env.reset()
    assert env.render().shape == (256, 256, 3)
    s = env.state()
    assert s.shape == (3, 32, 32) and s[1].sum() == 3
