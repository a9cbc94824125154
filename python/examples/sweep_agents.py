"""How crowd size changes a run: the default scenario at several agent counts and seeds.

    pip install "./python[examples]"      # the package with pandas and matplotlib
    python python/examples/sweep_agents.py [--backend threads|processes|ray|dask] [--workers N] [--out sweep.png] [--rows FOLDER]

Each (agent count, seed) pair is one run on one thread; ``throng.sweep`` spreads them over
threads (or over worker processes, or a Ray or Dask cluster: start it, e.g.
``ray.init(address=...)``, and pass ``--backend ray``). The plot shows, against the number of
agents, the makespan and the mean trip (sum of costs / agents) with the spread over seeds, and
the run's wall time. With ``--rows FOLDER`` the rows also go to Parquet files there as runs
finish (needs pyarrow, in ``throng[sweep]``), and the same command after a crash or a Ctrl-C
plays only the runs missing from it. A failed run is listed, not plotted.
"""

import argparse
import importlib
import sys
import time
from pathlib import Path

import throng
from throng.sweep import BACKENDS

ROOT = Path(__file__).resolve().parents[2]


def importable(name):
    """Whether the module `name` can be imported."""
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default=str(ROOT / "sims" / "default.toml"),
                        help="the scenario file to play (default: sims/default.toml)")
    parser.add_argument("--agents", type=int, nargs="+", default=[1000, 2500, 5000, 10000],
                        help="the agent counts to play it with, in place of the file's "
                             "(default: 1000 2500 5000 10000)")
    parser.add_argument("--seeds", type=int, default=3,
                        help="the runs per agent count, with seeds 1 to SEEDS (default: 3)")
    parser.add_argument("--backend", default="threads", choices=BACKENDS,
                        help="where the runs play: threads of this process, worker processes, "
                             "or a Ray or Dask cluster (default: threads)")
    parser.add_argument("--workers", type=int, default=None,
                        help="runs played at once (default: the backend's choice, one per core)")
    parser.add_argument("--out", default="sweep.png",
                        help="the PNG file of the plot (default: sweep.png)")
    parser.add_argument("--rows", default=None, metavar="FOLDER",
                        help="also write the rows to Parquet files in this folder as runs "
                             "finish, and play only the runs missing from it")
    args = parser.parse_args()
    missing = [name for name in ("pandas", "matplotlib") if not importable(name)]
    if missing:
        sys.exit(f"sweep_agents.py needs pandas and matplotlib ({' and '.join(missing)} "
                 f"{'is' if len(missing) == 1 else 'are'} missing): pip install \"./python[examples]\"")

    t0 = time.perf_counter()
    frame = throng.sweep(
        args.scenario,
        seeds=range(1, args.seeds + 1),
        backend=args.backend,
        workers=args.workers,
        agents=args.agents,
        as_frame=True,
        out=args.rows,
    )
    wall = time.perf_counter() - t0
    summary = frame.attrs["summary"]
    if summary["failed"]:
        failed = frame["error"].notna()
        print(frame.loc[failed, ["agents", "seed", "error"]].to_string())
        frame = frame[~failed].copy()
    frame["mean_trip"] = frame["sum_of_costs"] / frame["agents"]
    print(frame[["agents", "seed", "makespan", "mean_trip", "wall_s", "elapsed_s"]].to_string())
    print(f"{summary['runs']} runs in {wall:.1f} s ({summary['failed']} failed, {summary['retried']} "
          f"retried, {summary['resumed']} read back from --rows; "
          f"{frame['elapsed_s'].sum() / wall:.2f} runs' time per second)")

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
