// The C# binding exercised under Mono, as a .NET or Unity program would use it: built by
// capi/tests/csharp.rs with mcs against Throng.dll and run with mono against the libthrong_capi
// that cargo built for the tests.
//
// Usage: mono ThrongTests.exe ROOT HASH TMPDIR
//   ROOT    the repository (for sims/ and its maps)
//   HASH    the final state hash `throng run sims/mapf-random-32-32-10.toml` records (hex)
//   TMPDIR  a scratch folder
//
// Prints "N passed, 0 failed" and exits 0, or names the first failed check and exits 1.

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using Throng;

static class ThrongTests
{
    static int checks;

    static void Fail(string what)
    {
        Console.Error.WriteLine("FAILED: " + what);
        Console.WriteLine("0 passed, 1 failed");
        Environment.Exit(1);
    }

    static void Check(bool condition, string what)
    {
        if (!condition)
        {
            Fail(what);
        }
        checks++;
    }

    /// Runs `call`, which must throw exactly `E` (not a subclass) with a message, and returns it.
    static E Throws<E>(string what, Action call, Status? status = null) where E : Exception
    {
        try
        {
            call();
        }
        catch (Exception e)
        {
            if (e.GetType() != typeof(E))
            {
                Fail(string.Format("{0}: threw {1} ({2}), expected {3}", what, e.GetType().Name, e.Message,
                    typeof(E).Name));
            }
            if (string.IsNullOrEmpty(e.Message))
            {
                Fail(what + ": no message");
            }
            var te = e as ThrongException;
            if (status.HasValue && (te == null || te.Status != status.Value))
            {
                Fail(string.Format("{0}: status {1}, expected {2}", what, te == null ? "none" : te.Status.ToString(),
                    status.Value));
            }
            checks++;
            return (E)e;
        }
        Fail(what + ": no exception, expected " + typeof(E).Name);
        return null;
    }

    static void Contains(Exception e, string part)
    {
        Check(e.Message.Contains(part), string.Format("the message \"{0}\" says \"{1}\"", e.Message, part));
    }

    /// Every bad argument raises its family's exception with the engine's message.
    static void Errors(string root)
    {
        Exception e = Throws<ThrongArgumentException>("load null", () => Grid.Load(null), Status.NullPointer);
        Contains(e, "path is NULL");
        e = Throws<ThrongIoException>("load a missing file", () => Grid.Load("/nonexistent/x.map"), Status.Io);
        Contains(e, "/nonexistent/x.map");
        Throws<ThrongParseException>("load a .scen as a map",
            () => Grid.Load(Path.Combine(root, "sims/maps/arena.map.scen")), Status.Parse);
        var cells = new byte[] { 1, 1, 1, 0, 1, 1 };
        Throws<ThrongArgumentException>("3 x 3 from 6 cells", () => Grid.FromCells(3, 3, cells), Status.InvalidArgument);
        Throws<ThrongArgumentException>("6 neighbours", () => Grid.FromCells(3, 2, cells, 6), Status.InvalidArgument);
        e = Throws<ThrongArgumentException>("null cells", () => Grid.FromCells(3, 2, (byte[])null), Status.NullPointer);
        Contains(e, "cells is NULL");

        using (var grid = Grid.FromCells(3, 2, cells))
        {
            Check(grid.Width == 3 && grid.Height == 2, "a 3 x 2 grid");
            e = Throws<ThrongOutOfRangeException>("x 3 of 3", () => grid.IsWalkable(3, 0), Status.OutOfRange);
            Contains(e, "(3, 0)");
            Throws<ThrongOutOfRangeException>("x -1", () => grid.IsWalkable(-1, 0));
            Throws<ThrongOutOfRangeException>("set x 3", () => grid.SetWalkable(0, 2, false));
            Throws<ThrongOutOfRangeException>("cell id of (0, 2)", () => grid.Cell(0, 2));
            Check(!grid.IsWalkable(0, 1), "cell (0, 1) is blocked");
            Check(grid.Cell(2, 1) == 5 && grid.X(5) == 2 && grid.Y(5) == 1, "cell 5 is (2, 1)");

            // Planning: cells outside, blocked cells, unknown planners, short and null arrays.
            var starts = new uint[] { 0, 0 };
            var goals = new uint[] { 5, 6 };
            var costs = new double[2];
            var lengths = new uint[2];
            var paths = new uint[16];
            e = Throws<ThrongOutOfRangeException>("goal 6 of 6 cells",
                () => BatchPlanner.PlanInto(grid, null, "astar", starts, goals, costs, lengths, paths));
            Contains(e, "query 1");
            goals[1] = 3;
            e = Throws<ThrongArgumentException>("blocked goal",
                () => BatchPlanner.PlanInto(grid, null, "astar", starts, goals, costs, lengths, paths),
                Status.InvalidArgument);
            Contains(e, "query 1");
            goals[1] = 4;
            e = Throws<ThrongArgumentException>("unknown planner",
                () => BatchPlanner.PlanInto(grid, null, "teleport", starts, goals, costs, lengths, paths));
            Contains(e, "teleport");
            e = Throws<ThrongBufferTooSmallException>("2 path cells for 6",
                () => BatchPlanner.PlanInto(grid, null, "astar", starts, goals, costs, lengths, new uint[2]));
            Contains(e, "the paths need 6 cells");
            Check(lengths[0] == 3 && lengths[1] == 3, "lengths are written when the paths are not");
            Throws<ThrongBufferTooSmallException>("1 cost for 2 queries",
                () => BatchPlanner.PlanInto(grid, null, "astar", starts, goals, new double[1], lengths, paths));
            e = Throws<ThrongArgumentException>("null starts",
                () => BatchPlanner.PlanInto(grid, null, "astar", null, goals, costs, lengths, paths), Status.NullPointer);
            Contains(e, "starts is NULL");
            e = Throws<ThrongArgumentException>("null costs",
                () => BatchPlanner.PlanInto(grid, null, "astar", starts, goals, null, lengths, paths), Status.NullPointer);
            Contains(e, "costs is NULL");
            Throws<ThrongArgumentException>("null grid",
                () => BatchPlanner.PlanInto(null, null, "astar", starts, goals, costs, lengths, paths), Status.NullPointer);
            int needed = BatchPlanner.PlanInto(grid, null, "astar", starts, goals, costs, lengths, paths);
            Check(needed == 6 && paths[0] == 0 && paths[2] == 5, "the first path 0 -> 5");
            Check(BatchPlanner.PlanInto(grid, null, null, starts, goals, costs, lengths, null) == 6,
                "costs and lengths only, jps by default");

            // Simulations: bad settings, occupied and blocked cells, unknown agents, short arrays.
            e = Throws<ThrongArgumentException>("planner teleport",
                () => new Simulation(grid, "{\"planner\": \"teleport\"}"), Status.InvalidArgument);
            Contains(e, "teleport");
            Throws<ThrongArgumentException>("an unknown key", () => new Simulation(grid, "{\"colour\": 1}"));
            e = Throws<ThrongArgumentException>("not an object", () => new Simulation(grid, "[1, 2]"));
            Contains(e, "config_json");
            using (var sim = new Simulation(grid, "{\"conflicts\": \"pibt\"}"))
            {
                var ids = new ulong[2];
                Throws<ThrongCellOccupiedException>("two agents on one cell",
                    () => sim.AddAgents(new uint[] { 0, 0 }, new uint[] { 5, Engine.NoGoal }, ids), Status.CellOccupied);
                Check(sim.AgentCount == 0, "a refused batch adds no agent");
                e = Throws<ThrongArgumentException>("a blocked start",
                    () => sim.AddAgents(new uint[] { 0, 3 }, new uint[] { 5, Engine.NoGoal }, ids));
                Contains(e, "agent 1");
                Throws<ThrongOutOfRangeException>("a start outside",
                    () => sim.AddAgents(new uint[] { 0, 7 }, null, ids));
                Throws<ThrongBufferTooSmallException>("1 goal for 2 agents",
                    () => sim.AddAgents(new uint[] { 0, 2 }, new uint[] { 5 }, ids));
                Throws<ThrongArgumentException>("null starts",
                    () => sim.AddAgents(null, new uint[] { 5, 4 }, ids), Status.NullPointer);
                sim.AddAgents(new uint[] { 0, 2 }, new uint[] { 5, Engine.NoGoal }, ids);
                Check(ids[0] != ids[1], "two ids");
                var at = new uint[1];
                e = Throws<ThrongBufferTooSmallException>("1 cell for 2 agents", () => sim.ReadCells(at));
                Contains(e, "2 live agents, the arrays hold 1");
                Throws<ThrongBufferTooSmallException>("2 cells from offset 1", () => sim.ReadCells(new uint[2], 1));
                Throws<ThrongOutOfRangeException>("offset 3 of 2", () => sim.ReadCells(new uint[2], 3));
                Throws<ThrongCellOccupiedException>("block an agent's cell", () => sim.SetWalkable(2, 0, false));
                Throws<ThrongOutOfRangeException>("block (9, 9)", () => sim.SetWalkable(9, 9, false));
                sim.RemoveAgent(ids[1]);
                Throws<ThrongUnknownAgentException>("remove twice", () => sim.RemoveAgent(ids[1]), Status.UnknownAgent);
                Throws<ThrongUnknownAgentException>("goal of a removed agent", () => sim.SetGoal(ids[1], 1));
                Throws<ThrongUnknownAgentException>("read a removed agent", () => sim.Agent(ids[1]));
                Throws<ThrongOutOfRangeException>("goal 600", () => sim.SetGoal(ids[0], 600));
                Throws<ThrongOutOfRangeException>("action 42",
                    () => sim.Step(new[] { ids[0], ids[0] }, new[] { AgentAction.East, (AgentAction)42 }));
                Throws<ThrongArgumentException>("an agent named twice",
                    () => sim.Step(new[] { ids[0], ids[0] }, new[] { AgentAction.East, AgentAction.Wait }));
                Throws<ThrongBufferTooSmallException>("1 action for 2 agents",
                    () => sim.Step(new[] { ids[0], ids[0] }, new[] { AgentAction.East }));
                Check(sim.Tick == 0, "no tick was played by a refused step");
                var outcomes = new ActionOutcome[1];
                sim.SetControlled(ids[0], true);
                sim.Step(new[] { ids[0] }, new[] { AgentAction.East }, outcomes);
                Check(outcomes[0] == ActionOutcome.Moved && sim.Agent(ids[0]).Cell == 1, "driven one step east");
                sim.Step(new[] { ids[0] }, new[] { AgentAction.SouthWest }, outcomes);
                Check(outcomes[0] == ActionOutcome.Illegal, "south-west of (1, 0) is the blocked (0, 1)");
            }
        }

        // Disposed objects: ObjectDisposedException before the engine is reached; Dispose twice is fine.
        var g = Grid.FromCells(2, 1, new byte[] { 1, 1 });
        var s = new Simulation(g);
        g.Dispose();
        g.Dispose();
        Throws<ObjectDisposedException>("a disposed grid", () => g.IsWalkable(0, 0));
        Throws<ObjectDisposedException>("a simulation from a disposed grid", () => new Simulation(g));
        s.AddAgent(0, 1);
        s.Step();
        s.Dispose();
        Throws<ObjectDisposedException>("a disposed simulation", () => s.Step());
        Throws<ObjectDisposedException>("read a disposed simulation", () => s.ReadCells(new uint[4]));
        s.Dispose();
    }

    static bool Adjacent(uint a, uint b, int width)
    {
        int dx = (int)(a % width) - (int)(b % width), dy = (int)(a / width) - (int)(b / width);
        return (dx != 0 || dy != 0) && Math.Abs(dx) <= 1 && Math.Abs(dy) <= 1;
    }

    /// Batch plans against the optimal costs of a shipped .scen file, with A*, JPS and navigation
    /// points built, saved and loaded.
    static void Plans(string root, string tmp)
    {
        var starts = new List<uint>();
        var goals = new List<uint>();
        var optimal = new List<double>();
        using (var grid = Grid.Load(Path.Combine(root, "sims/maps/arena.map")))
        {
            Check(grid.Width == 49 && grid.Height == 49, "arena is 49 x 49");
            foreach (var line in File.ReadAllLines(Path.Combine(root, "sims/maps/arena.map.scen")))
            {
                var f = line.Split(new[] { '\t', ' ' }, StringSplitOptions.RemoveEmptyEntries);
                if (f.Length != 9)
                {
                    continue;
                }
                starts.Add(grid.Cell(int.Parse(f[4]), int.Parse(f[5])));
                goals.Add(grid.Cell(int.Parse(f[6]), int.Parse(f[7])));
                optimal.Add(double.Parse(f[8], CultureInfo.InvariantCulture));
            }
            Check(starts.Count == 130, "130 queries in arena.map.scen: " + starts.Count);
            string navPath = Path.Combine(tmp, "arena.nav");
            using (var built = NavGraph.Build(grid))
            {
                built.Save(navPath);
            }
            using (var nav = NavGraph.Load(navPath, grid))
            {
                foreach (var planner in new[] { "astar", "jps", "nav" })
                {
                    var plan = BatchPlanner.Plan(grid, starts.ToArray(), goals.ToArray(), planner,
                        planner == "nav" ? nav : null);
                    Check(plan.Count == 130, planner + ": 130 answers");
                    for (int i = 0; i < plan.Count; i++)
                    {
                        string q = planner + ": query " + i;
                        double tolerance = 1e-6 * (1.0 + optimal[i]);
                        Check(plan.Costs[i] != Engine.NoPath && plan.Lengths[i] > 0, q + " has a path");
                        if (planner == "nav")
                            Check(plan.Costs[i] >= optimal[i] - tolerance, q + " beats the optimum");
                        else
                            Check(Math.Abs(plan.Costs[i] - optimal[i]) <= tolerance,
                                string.Format("{0} costs {1}, optimal {2}", q, plan.Costs[i], optimal[i]));
                        var path = plan.Path(i);
                        Check(path[0] == starts[i] && path[path.Length - 1] == goals[i], q + " runs start to goal");
                        double cost = 0;
                        for (int k = 1; k < path.Length; k++)
                        {
                            Check(grid.IsWalkable(grid.X(path[k]), grid.Y(path[k])) && Adjacent(path[k - 1], path[k], grid.Width),
                                q + " step " + k + " is a legal move");
                            cost += grid.X(path[k]) != grid.X(path[k - 1]) && grid.Y(path[k]) != grid.Y(path[k - 1])
                                ? Math.Sqrt(2) : 1;
                        }
                        Check(Math.Abs(cost - plan.Costs[i]) <= tolerance, q + " costs what its steps cost");
                    }
                    Check(plan.Paths.Length == plan.Offsets[129] + plan.Lengths[129], planner + ": the paths fill the array");
                }
            }
            // Arrays kept from batch to batch: the second call plans once into them.
            var s = starts.ToArray();
            var g = goals.ToArray();
            var costs = new double[s.Length];
            var lengths = new uint[s.Length];
            int needed = BatchPlanner.PlanInto(grid, null, "jps", s, g, costs, lengths, null);
            var paths = new uint[needed];
            Check(BatchPlanner.PlanInto(grid, null, "jps", s, g, costs, lengths, paths) == needed, "the size asked first");

            using (var other = Grid.FromCells(4, 4, new byte[16] { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }))
            {
                var e = Throws<ThrongParseException>("a navigation file of another map", () => NavGraph.Load(navPath, other));
                Contains(e, "arena.nav");
            }
            Throws<ThrongIoException>("a missing navigation file", () => NavGraph.Load(navPath + ".missing", grid));
            File.Delete(navPath);
        }
    }

    /// A shipped scenario played through the binding ends where `throng run` ends.
    static void Scenario(string root, string wantHash, string tmp)
    {
        using (var sim = Simulation.FromScenario(Path.Combine(root, "sims/mapf-random-32-32-10.toml")))
        {
            Check(sim.MaxTicks == 300, "the scenario plays at most 300 ticks");
            var events = new TickEvents();
            ulong played = 0;
            while (played < sim.MaxTicks)
            {
                events = sim.Step();
                played++;
                if (events.IsFinished)
                {
                    break;
                }
            }
            Check(played == 58, "every agent arrives in 58 ticks: " + played);
            Check(events.AtGoal == 100 && events.Agents == 100, "100 agents at their goal");
            string hex = sim.StateHash.ToString("x16");
            Check(hex == wantHash, "final state hash " + hex + ", throng run's " + wantHash);
            Check(events.StateHash == sim.StateHash, "the last tick's hash is the state's");
            Check(sim.Tick == 58, "58 ticks played");
            string json = sim.SummaryJson();
            Check(json.Contains("\"final_state_hash_hex\":\"" + wantHash + "\""), "the summary has the hash: " + json);
            Check(json.Contains("\"scenario\":\"mapf-random-32-32-10\""), "the summary names the scenario");
        }
        Throws<ThrongIoException>("a missing scenario", () => Simulation.FromScenario(Path.Combine(root, "sims/none.toml")));
        // A file of another kind is the file's contents being wrong, as a .scen loaded as a map.
        var kind = Throws<ThrongParseException>("a map as a scenario",
            () => Simulation.FromScenario(Path.Combine(root, "sims/maps/arena.map")), Status.Parse);
        Contains(kind, "arena.map: is a Moving AI map, not a simulation scenario (TOML)");
        string bad = Path.Combine(tmp, "bad.toml");
        File.WriteAllText(bad, "name = \"bad\"\nagents = [\n");
        var e = Throws<ThrongParseException>("malformed TOML", () => Simulation.FromScenario(bad));
        Contains(e, "bad.toml");
        File.Delete(bad);
    }

    /// A crowd stepped frame by frame, read into arrays kept from frame to frame (here at an
    /// offset in a bigger one), with agents added and removed, doors shut and one agent driven.
    static ulong Crowd(int ticks)
    {
        const int side = 48;
        var cells = new byte[side * side];
        for (int y = 0; y < side; y++)
            for (int x = 0; x < side; x++)
                cells[y * side + x] = (byte)(x % 12 == 6 && y % 8 != 4 ? 0 : 1);
        Simulation sim;
        using (var grid = Grid.FromCells(side, side, cells))
        {
            sim = new Simulation(grid, "{\"planner\": \"jps\", \"conflicts\": \"pibt\", \"seed\": 3}");
        }
        using (sim)
        {
            const int agents = 120;
            var starts = new uint[agents];
            var goals = new uint[agents];
            var ids = new ulong[agents];
            for (int i = 0; i < agents; i++)
            {
                starts[i] = (uint)((i / 12) * side + (i % 12) * 4 + 1);
                goals[i] = (uint)((side - 1 - i / 12) * side + (11 - i % 12) * 4 + 1);
            }
            sim.AddAgents(starts, goals, ids);
            ulong driven = ids[0];
            sim.SetControlled(driven, true);
            const int offset = 7;
            var readIds = new ulong[offset + 2 * agents];
            var readCells = new uint[offset + 2 * agents];
            var readStates = new AgentState[offset + 2 * agents];
            var seen = new bool[side * side];
            var outcome = new ActionOutcome[1];
            int added = 0, removed = 0, next = 1;
            for (int t = 0; t < ticks; t++)
            {
                if (t % 10 == 5)
                {
                    sim.RemoveAgent(ids[next]);
                    removed++;
                    uint start = (uint)(t / 10 % 12 * 4 + 1);
                    try
                    {
                        ids[next] = sim.AddAgent(start, (uint)((side - 1) * side) + start);
                        added++;
                    }
                    catch (ThrongCellOccupiedException)
                    {
                        ids[next] = driven;
                    }
                    next = next % (agents - 1) + 1;
                }
                if (t % 25 == 10)
                {
                    try
                    {
                        sim.SetWalkable(6 + 12 * (t / 25 % 4), 4, t / 25 % 2 == 1);
                    }
                    catch (ThrongCellOccupiedException)
                    {
                    }
                }
                TickEvents events = t % 3 == 0
                    ? sim.Step(new[] { driven }, new[] { t % 6 == 0 ? AgentAction.East : AgentAction.West }, outcome)
                    : sim.Step();
                Check(events.Tick == (ulong)t, "tick " + t);
                int count = sim.ReadAgents(readIds, readCells, readStates, offset);
                Check(count == events.Agents, "the agents read are the live ones");
                Array.Clear(seen, 0, seen.Length);
                for (int i = offset; i < offset + count; i++)
                {
                    Check(readCells[i] < side * side && !seen[readCells[i]], "one agent per cell");
                    seen[readCells[i]] = true;
                    Check(readStates[i] <= AgentState.NoPath, "a state code");
                    Check(sim.Agent(readIds[i]).Cell == readCells[i], "the agent read one by one is where the arrays say");
                }
                Check(readCells[offset - 1] == 0 && readIds[offset - 1] == 0, "nothing written before the offset");
            }
            Check(added > 10 && removed > 10, "agents came and went");
            return sim.StateHash;
        }
    }

    /// What a game reads each frame: events as a struct array, goals, next cells, a route; a
    /// goal cleared; the ABI check. Two agents walking apart in an 8 x 2 room.
    static void FrameReads()
    {
        Engine.CheckAbi();
        Check(Engine.StatusName(Status.AbiMismatch) == "THRONG_STATUS_ABI_MISMATCH", "the new status has a name");
        var e = Throws<ThrongOutOfRangeException>("a negative width", () => Grid.FromCells(-1, 2, new byte[0], 4));
        Contains(e, "-1 x 2");
        var cells = new byte[16];
        for (int i = 0; i < cells.Length; i++) cells[i] = 1;
        using (var grid = Grid.FromCells(8, 2, cells, 4))
        using (var sim = new Simulation(grid))
        {
            var ids = new ulong[2];
            sim.AddAgents(new uint[] { 0, 15 }, new uint[] { 7, 8 }, ids);
            var events = new AgentEvent[64];
            Check(sim.EventCount() == 0, "the calls show with the tick that follows them");
            sim.Step();
            int n = sim.ReadEvents(events, EventKinds.Added);
            Check(n == 2 && events[0].Kind == EventKind.Added && events[0].Agent == ids[0] && events[0].Cell == 0,
                "the first added agent on its start");
            int all = sim.EventCount();
            Check(all == 6, "added, planned and moved, twice: " + all);
            Throws<ThrongBufferTooSmallException>("a short event array", () => sim.ReadEvents(new AgentEvent[all - 1]));
            Throws<ThrongArgumentException>("a null event array", () => sim.ReadEvents(null), Status.NullPointer);
            n = sim.ReadEvents(events, EventKinds.Moved | EventKinds.PathFound);
            int moved = 0, found = 0;
            for (int i = 0; i < n; i++)
            {
                if (events[i].Kind == EventKind.Moved)
                {
                    moved++;
                    Check(sim.Agent(events[i].Agent).Cell == events[i].Cell, "a move ends where the agent stands");
                }
                if (events[i].Kind == EventKind.PathFound)
                {
                    found++;
                    Check((PlanReason)events[i].Detail == PlanReason.NewGoal, "planned for a new goal");
                }
            }
            Check(n == 4 && moved == 2 && found == 2, "the mask keeps plans and moves: " + n);
            var goals = new uint[2];
            var next = new uint[2];
            Check(sim.ReadGoals(goals) == 2 && goals[0] == 7 && goals[1] == 8, "the goals in slot order");
            sim.ReadNextCells(next);
            Check(sim.RouteLength(ids[0]) == 6, "six cells ahead of agent 0");
            var route = new uint[8];
            int length = sim.ReadRoute(ids[0], route);
            Check(length == 6 && route[0] == next[0] && route[0] == 2 && route[5] == 7, "the route, next cell to goal");
            Throws<ThrongBufferTooSmallException>("a short route array", () => sim.ReadRoute(ids[0], new uint[5]));
            Throws<ThrongUnknownAgentException>("the route of an unknown agent", () => sim.ReadRoute(ids[0] + 7, route));
            sim.ClearGoal(ids[0]);
            sim.Step();
            n = sim.ReadEvents(events, EventKinds.GoalSet);
            Check(n == 1 && events[0].Agent == ids[0] && events[0].Cell == Engine.NoCell, "the goal cleared is an event");
            var info = sim.Agent(ids[0]);
            Check(info.Goal == Engine.NoGoal && info.State == AgentState.Idle && info.Cell == 1, "idle where it stood");
            Check(sim.RouteLength(ids[0]) == 0, "no route once the goal is cleared");
            sim.ReadNextCells(next);
            Check(next[0] == Engine.NoCell && next[1] != Engine.NoCell, "no next cell for the idle agent");
            sim.SetPriority(ids[1], 7);
            sim.SetPlanner(ids[1], "astar");
            sim.Step();
            n = sim.ReadEvents(events, EventKinds.PathFound);
            Check(n == 1 && events[0].Agent == ids[1], "a new planner plans again");
            sim.SetPlanner(ids[1], null);
            var bad = Throws<ThrongArgumentException>("an unknown planner", () => sim.SetPlanner(ids[1], "teleport"));
            Contains(bad, "astar");
            Throws<ThrongUnknownAgentException>("the priority of an unknown agent", () => sim.SetPriority(ids[1] + 9, 1));
            // Terrain: mud on agent 1's row sends it round; the map reads back as edited.
            sim.Step(); // the plan for going back to the simulation's planner
            sim.SetCost(1, 1, 50f);
            sim.Step();
            n = sim.ReadEvents(events, EventKinds.PathFound);
            Check(n == 1 && (PlanReason)events[0].Detail == PlanReason.MapChanged, "agent 1 plans again for the mud");
            length = sim.ReadRoute(ids[1], route);
            for (int i = 0; i < length; i++) Check(route[i] != 9, "round the mud");
            var walkable = new bool[16];
            var costs = new float[16];
            Check(sim.ReadMap(walkable, costs) == 16 && costs[9] == 50f && walkable[9], "the map as edited");
            Throws<ThrongArgumentException>("a cost of 0", () => sim.SetCost(2, 1, 0f), Status.InvalidArgument);
            grid.SetCost(3, 1, 2.5f);
            Check(grid.Cost(3, 1) == 2.5f && grid.Cost(1, 1) == 1f, "a grid's costs are its own");
        }
    }

    /// A step overlapping the frame: reads of the tick before from another thread while it
    /// runs, other calls refused, and the same run as Step(); a simulation's own threads.
    static void SplitSteps(string root, string wantHash)
    {
        using (var sim = Simulation.FromScenario(Path.Combine(root, "sims/mapf-random-32-32-10.toml")))
        {
            Throws<ThrongArgumentException>("finish without begin", () => sim.FinishStep(), Status.InvalidArgument);
            var cells = new uint[100];
            int reads = 0, failures = 0;
            bool stop = false;
            var reader = new System.Threading.Thread(() =>
            {
                var mine = new uint[100];
                while (!System.Threading.Volatile.Read(ref stop))
                {
                    try { if (sim.ReadCells(mine) != 100) failures++; }
                    catch (ThrongException) { failures++; }
                    reads++;
                }
            });
            reader.Start();
            ulong played = 0;
            TickEvents events = default(TickEvents);
            while (played < sim.MaxTicks && !events.IsFinished)
            {
                sim.ReadCells(cells);
                uint first = cells[0];
                ulong hash = sim.StateHash;
                sim.BeginStep();
                Check(sim.Tick == played && sim.StateHash == hash, "the tick before while stepping");
                sim.ReadCells(cells);
                Check(cells[0] == first, "the cells before while stepping");
                Throws<ThrongBusyException>("a step while stepping", () => sim.Step(), Status.Busy);
                Throws<ThrongBusyException>("a goal while stepping", () => sim.SetGoal(0, 5), Status.Busy);
                while (!sim.IsStepReady) System.Threading.Thread.Yield();
                events = sim.FinishStep();
                played++;
            }
            System.Threading.Volatile.Write(ref stop, true);
            reader.Join();
            Check(failures == 0 && reads > 0, string.Format("{0} reads from another thread, {1} failed", reads, failures));
            Check(played == 58, "every agent arrives in 58 ticks: " + played);
            Check(sim.StateHash.ToString("x16") == wantHash, "the final state hash of throng run");
        }
        var open = new byte[64 * 64];
        for (int i = 0; i < open.Length; i++) open[i] = 1;
        using (var grid = Grid.FromCells(64, 64, open))
        {
            var hashes = new ulong[2];
            int[] threads = { 1, 3 };
            for (int k = 0; k < 2; k++)
            {
                using (var sim = new Simulation(grid, "{\"threads\": " + threads[k] + ", \"seed\": 3}"))
                {
                    var starts = new uint[200];
                    var goals = new uint[200];
                    for (uint i = 0; i < 200; i++)
                    {
                        starts[i] = i * 17 % 4096;
                        goals[i] = 4095 - i * 31 % 4096;
                    }
                    sim.AddAgents(starts, goals, null);
                    for (int t = 0; t < 40; t++)
                    {
                        sim.BeginStep();
                        sim.FinishStep();
                    }
                    hashes[k] = sim.StateHash;
                }
            }
            Check(hashes[0] == hashes[1], "the same crowd on 1 and 3 threads");
        }
    }

    /// Snapshots: saved on tick 20, rolled back to and played again to the same hashes, read
    /// into a new simulation that ends on the recorded hash; bad bytes refused, nothing changed.
    static void Snapshots(string root, string wantHash)
    {
        string path = Path.Combine(root, "sims/mapf-random-32-32-10.toml");
        using (var sim = Simulation.FromScenario(path))
        {
            for (int t = 0; t < 20; t++)
            {
                sim.Step();
            }
            byte[] saved = sim.Snapshot();
            Check(saved.Length > 100, "a snapshot has bytes: " + saved.Length);
            var first = new ulong[20];
            for (int t = 0; t < 20; t++)
            {
                first[t] = sim.Step().StateHash;
            }
            sim.Restore(saved);
            Check(sim.Tick == 20, "rolled back to tick 20: " + sim.Tick);
            for (int t = 0; t < 20; t++)
            {
                Check(sim.Step().StateHash == first[t], "the same tick after the rollback: " + t);
            }
            ulong before = sim.StateHash;
            var damaged = (byte[])saved.Clone();
            damaged[damaged.Length / 2] ^= 0x20;
            var e = Throws<ThrongParseException>("a damaged snapshot", () => sim.Restore(damaged), Status.Parse);
            Contains(e, "checksum");
            var cut = new byte[saved.Length - 1];
            Array.Copy(saved, cut, cut.Length);
            Throws<ThrongParseException>("a truncated snapshot", () => sim.Restore(cut), Status.Parse);
            Throws<ThrongParseException>("an empty snapshot", () => sim.Restore(new byte[0]), Status.Parse);
            Throws<ThrongArgumentException>("a null snapshot", () => sim.Restore(null));
            Throws<ThrongParseException>("no snapshot at all", () => Simulation.FromSnapshot(new byte[] { 1, 2, 3 }));
            var open = new byte[100];
            for (int i = 0; i < open.Length; i++)
            {
                open[i] = 1;
            }
            using (var grid = Grid.FromCells(10, 10, open, 8))
            using (var other = new Simulation(grid))
            {
                var wrong = Throws<ThrongArgumentException>("another map's snapshot",
                    () => sim.Restore(other.Snapshot()), Status.InvalidArgument);
                Contains(wrong, "10 x 10");
            }
            Check(sim.StateHash == before, "failed restores change nothing");
            sim.BeginStep();
            Throws<ThrongBusyException>("a snapshot during a split step", () => sim.Snapshot());
            Throws<ThrongBusyException>("a restore during a split step", () => sim.Restore(saved));
            sim.FinishStep();
            sim.Restore(saved);
            ulong played = 20;
            var events = new TickEvents();
            while (played < sim.MaxTicks)
            {
                events = sim.Step();
                played++;
                if (events.IsFinished)
                {
                    break;
                }
            }
            Check(played == 58 && sim.StateHash.ToString("x16") == wantHash,
                "restored, the run ends as recorded: " + played + " ticks, " + sim.StateHash.ToString("x16"));
            using (var copy = Simulation.FromSnapshot(saved))
            {
                Check(copy.Tick == 20, "the copy starts on tick 20");
                played = 20;
                while (played < 300)
                {
                    played++;
                    if (copy.Step().IsFinished)
                    {
                        break;
                    }
                }
                Check(played == 58 && copy.StateHash.ToString("x16") == wantHash, "the copy ends as recorded");
            }
        }
    }

    static int Main(string[] args)
    {
        if (args.Length != 3)
        {
            Console.Error.WriteLine("usage: ThrongTests ROOT HASH TMPDIR");
            return 2;
        }
        Engine.SetThreads(2);
        Throws<ThrongArgumentException>("threads set twice", () => Engine.SetThreads(3), Status.InvalidArgument);
        Check(Engine.Version.Length > 0, "a version");
        Check(Engine.StatusName(Status.CellOccupied) == "THRONG_STATUS_CELL_OCCUPIED", "status names");
        Errors(args[0]);
        FrameReads();
        Plans(args[0], args[2]);
        Scenario(args[0], args[1], args[2]);
        SplitSteps(args[0], args[1]);
        Snapshots(args[0], args[1]);
        ulong first = Crowd(200), second = Crowd(200);
        Check(first == second, string.Format("the same calls give the same crowd: {0:x16} vs {1:x16}", first, second));
        Console.WriteLine(checks + " passed, 0 failed");
        return 0;
    }
}
