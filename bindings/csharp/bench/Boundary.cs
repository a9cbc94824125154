// The C# side of the boundary benchmark: run by capi/benches/boundary.rs, which compares what it
// prints with the same work done in Rust (see that file). Prints "key value" lines.
//
//   mono Boundary.exe step SCENARIO WARM TICKS READS
//     plays WARM ticks of the scenario, then TICKS timed ticks: the time of each Step() call
//     measured here (outer) and the engine's own time of the tick (TickEvents.WallMs, inner);
//     then READS timed reads of every agent's cell into an array kept from read to read.
//   mono Boundary.exe plan MAP NAV QUERIES REPS
//     plans the batch of QUERIES (lines "start goal") on MAP with the navigation graph NAV
//     (planner "auto") REPS times into arrays kept from call to call.

using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using Throng;

static class Boundary
{
    static double Ms(long ticks)
    {
        return ticks * 1000.0 / Stopwatch.Frequency;
    }

    static double Median(double[] values)
    {
        var sorted = values.OrderBy(v => v).ToArray();
        return sorted[sorted.Length / 2];
    }

    static void Print(string key, double value)
    {
        Console.WriteLine(key + " " + value.ToString("R", CultureInfo.InvariantCulture));
    }

    static void Step(string scenario, int warm, int ticks, int reads)
    {
        using (var sim = Simulation.FromScenario(scenario))
        {
            for (int t = 0; t < warm; t++)
                sim.Step();
            var outer = new double[ticks];
            var inner = new double[ticks];
            for (int t = 0; t < ticks; t++)
            {
                long start = Stopwatch.GetTimestamp();
                var events = sim.Step();
                outer[t] = Ms(Stopwatch.GetTimestamp() - start);
                inner[t] = events.WallMs;
            }
            Print("agents", sim.AgentCount);
            Print("step_outer_ms_total", outer.Sum());
            Print("step_inner_ms_total", inner.Sum());
            Print("step_overhead_us_median", Median(outer.Zip(inner, (o, i) => (o - i) * 1000).ToArray()));
            Print("state_hash_low32", sim.StateHash & 0xffffffff);

            int n = sim.AgentCount;
            var cells = new uint[n];
            var ids = new ulong[n];
            var states = new AgentState[n];
            var cellsOnly = new double[reads];
            var all = new double[reads];
            for (int r = 0; r < reads; r++)
            {
                long start = Stopwatch.GetTimestamp();
                sim.ReadCells(cells);
                long mid = Stopwatch.GetTimestamp();
                sim.ReadAgents(ids, cells, states);
                cellsOnly[r] = Ms(mid - start) * 1000;
                all[r] = Ms(Stopwatch.GetTimestamp() - mid) * 1000;
            }
            Print("read_cells_us_median", Median(cellsOnly));
            Print("read_agents_us_median", Median(all));
        }
    }

    static void Plan(string map, string navPath, string queries, int reps)
    {
        var lines = File.ReadAllLines(queries);
        var starts = new uint[lines.Length];
        var goals = new uint[lines.Length];
        for (int i = 0; i < lines.Length; i++)
        {
            var f = lines[i].Split(' ');
            starts[i] = uint.Parse(f[0]);
            goals[i] = uint.Parse(f[1]);
        }
        using (var grid = Grid.Load(map))
        using (var nav = NavGraph.Load(navPath, grid))
        {
            var costs = new double[starts.Length];
            var lengths = new uint[starts.Length];
            var paths = new uint[BatchPlanner.PlanInto(grid, nav, "auto", starts, goals, costs, lengths, null)];
            BatchPlanner.PlanInto(grid, nav, "auto", starts, goals, costs, lengths, paths);
            for (int r = 0; r < reps; r++)
            {
                long start = Stopwatch.GetTimestamp();
                BatchPlanner.PlanInto(grid, nav, "auto", starts, goals, costs, lengths, paths);
                Print("plan_ms", Ms(Stopwatch.GetTimestamp() - start));
            }
            Print("plan_path_cells", paths.Length);
            Print("plan_cost_sum", costs.Sum());
        }
    }

    static int Main(string[] args)
    {
        if (args.Length == 5 && args[0] == "step")
        {
            Step(args[1], int.Parse(args[2]), int.Parse(args[3]), int.Parse(args[4]));
            return 0;
        }
        if (args.Length == 5 && args[0] == "plan")
        {
            Plan(args[1], args[2], args[3], int.Parse(args[4]));
            return 0;
        }
        Console.Error.WriteLine("usage: Boundary step SCENARIO WARM TICKS READS | plan MAP NAV QUERIES REPS");
        return 2;
    }
}
