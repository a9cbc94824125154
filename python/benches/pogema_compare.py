"""throng.env against POGEMA 1.4.0, agent-steps per CPU-second, in alternating processes.

Same settings on both sides: one map drawn once per size (20% of the cells blocked), agents on
6.25% of the cells, ``obs_radius=5``, ``on_target="restart"``, 256-step episodes, uniform
random actions. Four contenders, each run in a fresh process in turn (round after round, so
that a change of the machine's load falls on all of them):

- ``throng dicts``: ``throng.env`` through PettingZoo's dicts (``env.step({name: code})``);
- ``throng arrays``: ``env.step_arrays(codes)``;
- ``POGEMA dicts``: POGEMA's PettingZoo env (``integration="PettingZoo"``);
- ``POGEMA native``: POGEMA's own API (``pogema_v0``: lists in, lists out).

A process builds its env, resets it (not timed), then plays steps, restarting an episode
after 256 steps, until it has spent ``--seconds`` of CPU in steps (at least 10 steps). The
actions of a step are drawn before the clock starts; turning them into a dict is timed (the
dict APIs need one). At the largest size the throng runs also split a step: the Rust tick,
the Rust observation writing and the Python around them.

    pip install "./python[env]" pogema==1.4.0
    python python/benches/pogema_compare.py [--rounds 3] [--seconds 2] [--sizes 64,256,1024,4096]

Prints a Markdown table (median of the rounds) and the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

EPISODE = 256
RADIUS = 5
CONTENDERS = ("throng dicts", "throng arrays", "POGEMA dicts", "POGEMA native")


def side_of(agents: int) -> int:
    """The map's side for `agents` on 6.25% of its cells."""
    return int(round((agents * 16) ** 0.5))


def the_map(side: int) -> np.ndarray:
    """The map of a size, drawn once: True where blocked (20%)."""
    return np.random.default_rng(side).random((side, side)) < 0.2


def make(contender: str, agents: int):
    """The env and a function playing one step from an array of codes (None: episode over)."""
    blocked = the_map(side_of(agents))
    if contender.startswith("throng"):
        import throng
        from throng.env import parallel_env

        env = parallel_env(map=throng.Grid.from_array(~blocked), agents=agents, seed=1,
                           obs_radius=RADIUS, on_target="restart", max_episode_steps=EPISODE)
        if contender == "throng arrays":
            env.reset_arrays()

            def play(codes):
                _, _, _, truncated, _ = env.step_arrays(codes)
                return not truncated.any()
        else:
            env.reset()
            names = env.possible_agents

            def play(codes):
                env.step(dict(zip(names, codes.tolist())))
                return bool(env.agents)

        return env, play
    from pogema import GridConfig, pogema_v0

    integration = "PettingZoo" if contender == "POGEMA dicts" else None
    config = GridConfig(map=blocked.astype(int).tolist(), num_agents=agents, obs_radius=RADIUS,
                        on_target="restart", max_episode_steps=EPISODE, seed=1,
                        integration=integration)
    env = pogema_v0(grid_config=config)
    env.reset()
    if integration:
        names = list(env.possible_agents)

        def play(codes):
            env.step(dict(zip(names, codes.tolist())))
            return bool(env.agents)
    else:

        def play(codes):
            *_, truncated, _ = env.step(codes)
            return not all(truncated)

    return env, play


def measure(contender: str, agents: int, seconds: float, profile: bool) -> dict:
    """Runs in the child process: plays steps until `seconds` of CPU are spent in them."""
    env, play = make(contender, agents)
    split = {"tick": 0.0, "observe": 0.0}
    if profile and contender.startswith("throng"):
        core = env._core

        class Timed:
            """`env._core` with its two calls timed."""

            def step(self, *args):
                t = time.perf_counter()
                out = core.step(*args)
                split["tick"] += time.perf_counter() - t
                return out

            def observe(self, *args):
                t = time.perf_counter()
                core.observe(*args)
                split["observe"] += time.perf_counter() - t

        env._core = Timed()
    rng = np.random.default_rng(0)
    steps, cpu, wall, in_episode = 0, 0.0, 0.0, 0
    while cpu < seconds or steps < 10:
        codes = rng.integers(5, size=agents)
        c0, w0 = time.process_time(), time.perf_counter()
        going = play(codes)
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
        steps += 1
        in_episode += 1
        if not going or in_episode == EPISODE:
            if contender == "throng arrays":
                env.reset_arrays()
            else:
                env.reset()
            in_episode = 0
    return {"rate": agents * steps / cpu, "step_ms": 1e3 * wall / steps,
            "tick_ms": 1e3 * split["tick"] / steps, "observe_ms": 1e3 * split["observe"] / steps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds of steps a run")
    parser.add_argument("--sizes", default="64,256,1024,4096", help="agent counts")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        contender, agents, profile = json.loads(args.child)
        print(json.dumps(measure(contender, agents, args.seconds, profile)))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    results: dict = {}
    for r in range(args.rounds):
        for agents in sizes:
            for contender in CONTENDERS:
                profile = contender.startswith("throng") and agents == max(sizes)
                child = json.dumps([contender, agents, profile])
                out = subprocess.run([sys.executable, __file__, "--seconds", str(args.seconds),
                                      "--child", child], check=True, capture_output=True,
                                     text=True)
                row = json.loads(out.stdout.splitlines()[-1])
                results.setdefault((agents, contender), []).append(row)
                print(f"round {r + 1} {agents:>5} {contender:<14} {row['rate'] / 1e3:8.0f}k "
                      f"agent-steps/CPU-s, {row['step_ms']:.2f} ms a step", file=sys.stderr)
    med = {k: statistics.median(x["rate"] for x in v) for k, v in results.items()}
    print(f"load (uptime): {os.getloadavg()}, {os.cpu_count()} CPUs\n")
    print("| agents, map | throng dicts | throng arrays | POGEMA dicts | POGEMA native "
          "| dicts / POGEMA dicts | arrays / POGEMA native | dicts / POGEMA native |")
    print("|---|---|---|---|---|---|---|---|")
    for agents in sizes:
        td, ta, pd, pn = (med[agents, c] for c in CONTENDERS)
        side = side_of(agents)
        print(f"| {agents:,}, {side}x{side} | {td / 1e3:.0f}k | {ta / 1e3:.0f}k | {pd / 1e3:.0f}k "
              f"| {pn / 1e3:.0f}k | {td / pd:.1f}x | {ta / pn:.1f}x | {td / pn:.1f}x |")
    big = max(sizes)
    for contender in CONTENDERS[:2]:
        rows = results[big, contender]
        step = statistics.median(x["step_ms"] for x in rows)
        tick = statistics.median(x["tick_ms"] for x in rows)
        observe = statistics.median(x["observe_ms"] for x in rows)
        print(f"\n{contender}, {big:,} agents: a step {step:.2f} ms (wall): Rust tick "
              f"{tick:.2f} ms ({100 * tick / step:.0f}%), Rust observations {observe:.2f} ms "
              f"({100 * observe / step:.0f}%), Python {step - tick - observe:.2f} ms "
              f"({100 * (step - tick - observe) / step:.0f}%)")


if __name__ == "__main__":
    main()
