// Batch planning (throng_plan_batch): many start -> goal queries on one grid in one call,
// planned in parallel on the engine's threads, answered into arrays.

using System;

namespace Throng
{
    /// <summary>The answers of a batch: a cost, a length and a path per query.</summary>
    public sealed class BatchPlan
    {
        /// <summary>Each query's path cost (1 a straight step, sqrt 2 a diagonal one), or <see cref="Engine.NoPath"/>.</summary>
        public readonly double[] Costs;
        /// <summary>Each query's path length in cells, start and goal included (0 with no path).</summary>
        public readonly uint[] Lengths;
        /// <summary>Every path, one after the other (query 0's cells, then query 1's, ...).</summary>
        public readonly uint[] Paths;
        /// <summary>Where each query's path starts in <see cref="Paths"/>.</summary>
        public readonly int[] Offsets;

        internal BatchPlan(double[] costs, uint[] lengths, uint[] paths)
        {
            Costs = costs;
            Lengths = lengths;
            Paths = paths;
            Offsets = new int[lengths.Length];
            int at = 0;
            for (int i = 0; i < lengths.Length; i++)
            {
                Offsets[i] = at;
                at += (int)lengths[i];
            }
        }

        /// <summary>The number of queries.</summary>
        public int Count
        {
            get { return Costs.Length; }
        }

        /// <summary>A copy of query <paramref name="query"/>'s path (empty with no path).</summary>
        public uint[] Path(int query)
        {
            var path = new uint[Lengths[query]];
            Array.Copy(Paths, Offsets[query], path, 0, path.Length);
            return path;
        }
    }

    /// <summary>Plans many queries at once, in parallel on the engine's threads.</summary>
    public static class BatchPlanner
    {
        /// <summary>
        /// Plans <c>starts[i] -> goals[i]</c> on <paramref name="grid"/> with
        /// <paramref name="planner"/> ("astar", "jps", "jps+", "nav", "auto", "dstar"; null is
        /// "jps") into the caller's arrays: <paramref name="costs"/> and
        /// <paramref name="lengths"/> (one element per query), and the paths one after the other
        /// into <paramref name="paths"/> (may be null: costs and lengths only). Returns the number
        /// of path cells, written or not. <paramref name="nav"/> (may be null) is the grid's
        /// navigation graph for "nav" and "auto" (built on each call when null).
        /// </summary>
        /// <exception cref="ThrongBufferTooSmallException">
        /// <paramref name="paths"/> is too short: costs and lengths are written, the paths not;
        /// the message says how many cells they need.
        /// </exception>
        /// <exception cref="ThrongOutOfRangeException">A start or goal outside the grid (the message names the query).</exception>
        /// <exception cref="ThrongArgumentException">A blocked start or goal, an unknown planner, a null array.</exception>
        public static int PlanInto(Grid grid, NavGraph nav, string planner, uint[] starts, uint[] goals,
            double[] costs, uint[] lengths, uint[] paths)
        {
            var gridHandle = Grid.HandleOf(grid);
            int count = starts != null ? starts.Length : goals != null ? goals.Length : 0;
            Check.Holds(goals, 0, count, "goals");
            Check.Holds(costs, 0, count, "costs");
            Check.Holds(lengths, 0, count, "lengths");
            byte[] name = Utf8.ToNative(planner);
            UIntPtr needed;
            Status status;
            using (var s = Pin.At(starts, 0, 4))
            using (var g = Pin.At(goals, 0, 4))
            using (var c = Pin.At(costs, 0, 8))
            using (var l = Pin.At(lengths, 0, 4))
            using (var p = Pin.At(paths, 0, 4))
            {
                var n = new UIntPtr((uint)count);
                var capacity = new UIntPtr((uint)(paths != null ? paths.Length : 0));
                status = nav == null
                    ? NativeMethods.throng_plan_batch_without_nav(gridHandle, IntPtr.Zero, name,
                        s.Address, g.Address, n, c.Address, l.Address, p.Address, capacity, out needed)
                    : NativeMethods.throng_plan_batch(gridHandle, nav.Handle, name,
                        s.Address, g.Address, n, c.Address, l.Address, p.Address, capacity, out needed);
            }
            Check.Ok(status);
            return (int)needed.ToUInt64();
        }

        /// <summary>
        /// Plans <c>starts[i] -> goals[i]</c> (see <see cref="PlanInto"/>) into new arrays. The
        /// paths' room is guessed from the queries' distances; when the guess is short the batch
        /// is planned again with the exact size (use <see cref="PlanInto"/> with arrays kept
        /// from call to call to plan each batch once, with no allocation).
        /// </summary>
        public static BatchPlan Plan(Grid grid, uint[] starts, uint[] goals, string planner = "jps",
            NavGraph nav = null)
        {
            int count = starts != null ? starts.Length : 0;
            var costs = new double[count];
            var lengths = new uint[count];
            var paths = new uint[Guess(grid, starts, goals)];
            int needed;
            try
            {
                needed = PlanInto(grid, nav, planner, starts, goals, costs, lengths, paths);
            }
            catch (ThrongBufferTooSmallException)
            {
                long total = 0;
                foreach (uint length in lengths)
                {
                    total += length;
                }
                paths = new uint[total];
                needed = PlanInto(grid, nav, planner, starts, goals, costs, lengths, paths);
            }
            if (needed < paths.Length)
            {
                Array.Resize(ref paths, needed);
            }
            return new BatchPlan(costs, lengths, paths);
        }

        /// <summary>Room for the paths: the cells of a straight-and-diagonal walk per query, and a quarter more.</summary>
        private static int Guess(Grid grid, uint[] starts, uint[] goals)
        {
            if (grid == null || starts == null || goals == null)
            {
                return 0;
            }
            long cells = 0;
            int width = Math.Max(grid.Width, 1);
            for (int i = 0; i < Math.Min(starts.Length, goals.Length); i++)
            {
                long dx = Math.Abs((long)(starts[i] % width) - goals[i] % width);
                long dy = Math.Abs((long)(starts[i] / width) - goals[i] / width);
                cells += Math.Max(dx, dy) + 1;
            }
            return (int)Math.Min(cells + cells / 4 + 16, int.MaxValue / 8);
        }
    }
}
