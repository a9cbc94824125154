"""How crowd size changes a run: the default scenario at several agent counts and seeds.

    pip install ./python matplotlib pandas
    python python/examples/sweep_agents.py [--backend processes|ray|dask] [--workers N] [--out sweep.png]

Each (agent count, seed) pair is one run on one thread; ``throng.sweep`` spreads them over the
worker processes (or over a Ray or Dask cluster: start it, e.g. ``ray.init(address=...)``, and pass
``--backend ray``). The plot shows, against the number of agents, the makespan and the mean trip
(sum of costs / agents) with the spread over seeds, and the run's wall time.
"""

import argparse
import time
from pathlib import Path

import throng

ROOT = Path(__file__).resolve().parents[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default=str(ROOT / "sims" / "default.toml"))
    parser.add_argument("--agents", type=int, nargs="+", default=[1000, 2500, 5000, 10000])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--backend", default="processes", choices=["processes", "ray", "dask"])
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--out", default="sweep.png")
    args = parser.parse_args()

    t0 = time.perf_counter()
    frame = throng.sweep(
        args.scenario,
        seeds=range(1, args.seeds + 1),
        backend=args.backend,
        workers=args.workers,
        agents=args.agents,
        as_frame=True,
    )
    wall = time.perf_counter() - t0
    frame["mean_trip"] = frame["sum_of_costs"] / frame["agents"]
    print(frame[["agents", "seed", "makespan", "mean_trip", "wall_s", "elapsed_s"]].to_string())
    print(f"{len(frame)} runs in {wall:.1f} s ({frame['elapsed_s'].sum() / wall:.2f} runs' time per second)")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stats = frame.groupby("agents")[["makespan", "mean_trip", "wall_s"]].agg(["mean", "min", "max"])
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
    for ax, column, label in zip(
        axes,
        ["makespan", "mean_trip", "wall_s"],
        ["makespan (ticks)", "mean trip (ticks per agent)", "run wall time (s, 1 thread)"],
    ):
        s = stats[column]
        ax.errorbar(
            s.index, s["mean"], yerr=[s["mean"] - s["min"], s["max"] - s["mean"]],
            marker="o", capsize=3,
        )
        ax.set_xlabel("agents")
        ax.set_title(label, fontsize=10)
        ax.grid(alpha=0.3)
    fig.suptitle(f"{Path(args.scenario).name}: {len(frame)} runs ({args.seeds} seeds each), "
                 f"mean and spread over seeds", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
