// A game's frame with a simulation: a step begun and finished around the frame's rendering; the
// last tick's events agent by agent (struct ThrongEvent), every agent's goal and next cell, one
// agent's route ahead; an agent's priority class, planner and goal set from code. Each read fills an array the caller keeps from frame to frame: nothing is
// allocated per call.

using System;
using System.Runtime.InteropServices;

namespace Throng
{
    /// <summary>The kind of an <see cref="AgentEvent"/> (THRONG_EVENT_*).</summary>
    public enum EventKind : byte
    {
        /// <summary>An agent added; Cell: where it stands.</summary>
        Added = 1,
        /// <summary>An agent removed; Cell: where it stood.</summary>
        Removed = 2,
        /// <summary>An agent given a goal (Cell), or left without one (Cell is <see cref="Engine.NoCell"/>).</summary>
        GoalSet = 3,
        /// <summary>A path found; Cell: the goal it leads to; Detail: the <see cref="PlanReason"/>.</summary>
        PathFound = 4,
        /// <summary>No path to the goal (Cell); Detail: the <see cref="PlanReason"/>. The agent stands.</summary>
        NoPath = 5,
        /// <summary>Boxed in by other agents, no way around them: keeps its old path; Cell: where it stood.</summary>
        Blocked = 6,
        /// <summary>A step; Cell: the cell stepped onto.</summary>
        Moved = 7,
        /// <summary>Came to stand on its goal (Cell); Detail 1 when it counts as a goal reached.</summary>
        Arrived = 8,
        /// <summary>A map edit; Agent is <see cref="Engine.NoAgent"/>; Detail: 1 walkable, 0 blocked, 2 a cost.</summary>
        CellChanged = 9,
    }

    /// <summary>Why an agent was planned (the Detail of a PathFound or NoPath event).</summary>
    public enum PlanReason : byte
    {
        /// <summary>A new goal, or its first.</summary>
        NewGoal = 0,
        /// <summary>Waited too long behind other agents: planned around them.</summary>
        Blocked = 1,
        /// <summary>Pushed far off its route by other agents.</summary>
        Drifted = 2,
        /// <summary>A map edit cut its path, or opened a way.</summary>
        MapChanged = 3,
    }

    /// <summary>A set of <see cref="EventKind"/>s, to read only those (bit 1 &lt;&lt; kind).</summary>
    [Flags]
    public enum EventKinds : uint
    {
        /// <summary>No kind.</summary>
        None = 0,
        /// <summary><see cref="EventKind.Added"/>.</summary>
        Added = 1u << 1,
        /// <summary><see cref="EventKind.Removed"/>.</summary>
        Removed = 1u << 2,
        /// <summary><see cref="EventKind.GoalSet"/>.</summary>
        GoalSet = 1u << 3,
        /// <summary><see cref="EventKind.PathFound"/>.</summary>
        PathFound = 1u << 4,
        /// <summary><see cref="EventKind.NoPath"/>.</summary>
        NoPath = 1u << 5,
        /// <summary><see cref="EventKind.Blocked"/>.</summary>
        Blocked = 1u << 6,
        /// <summary><see cref="EventKind.Moved"/>.</summary>
        Moved = 1u << 7,
        /// <summary><see cref="EventKind.Arrived"/>.</summary>
        Arrived = 1u << 8,
        /// <summary><see cref="EventKind.CellChanged"/>.</summary>
        CellChanged = 1u << 9,
        /// <summary>Every kind (THRONG_EVENTS_ALL).</summary>
        All = uint.MaxValue,
    }

    /// <summary>One event of the last tick (struct ThrongEvent, 16 bytes).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct AgentEvent
    {
        /// <summary>The agent's id, or <see cref="Engine.NoAgent"/> for a map edit.</summary>
        public ulong Agent;
        /// <summary>The cell the event is about (y * width + x), or <see cref="Engine.NoCell"/>.</summary>
        public uint Cell;
        /// <summary>What happened.</summary>
        public EventKind Kind;
        /// <summary>What the kind says it holds (a plan's reason, whether an arrival counts...), else 0.</summary>
        public byte Detail;
        /// <summary>Reserved (0).</summary>
        public ushort Reserved;
    }

    public sealed partial class Simulation
    {
        /// <summary>
        /// Starts a tick on the engine's threads and returns at once, so that the step overlaps
        /// the frame that renders the tick before. Until <see cref="FinishStep"/>, only
        /// <see cref="ReadAgents"/>, <see cref="ReadCells"/>, <see cref="AgentCount"/>,
        /// <see cref="Tick"/> and <see cref="StateHash"/> are answered (from any thread, as the
        /// crowd stood when the step began), with <see cref="IsStepReady"/>; any other call throws
        /// <see cref="ThrongBusyException"/>. The same run as <see cref="Step()"/>.
        /// </summary>
        public void BeginStep()
        {
            Check.Ok(NativeMethods.throng_sim_step_begin(Handle));
        }

        /// <summary>Whether the step begun by <see cref="BeginStep"/> is done (true too when none is in flight).</summary>
        public bool IsStepReady
        {
            get
            {
                byte ready;
                Check.Ok(NativeMethods.throng_sim_step_ready(Handle, out ready));
                return ready != 0;
            }
        }

        /// <summary>Waits for the step begun by <see cref="BeginStep"/> and returns its events.</summary>
        public TickEvents FinishStep()
        {
            TickEvents events;
            Check.Ok(NativeMethods.throng_sim_step_finish(Handle, out events));
            return events;
        }

        /// <summary>
        /// Sets a cell's terrain cost on the simulation's map, now (a finite number above 0):
        /// agents whose route crosses it plan again at the next tick, and the next tick's events
        /// list the edit.
        /// </summary>
        public void SetCost(int x, int y, float cost)
        {
            Check.Ok(NativeMethods.throng_sim_set_cost(
                Handle, Grid.Coordinate(x, "x"), Grid.Coordinate(y, "y"), cost));
        }

        /// <summary>
        /// Reads the simulation's own map as it is now, row by row: walkable flags and terrain
        /// costs (either array may be null); returns the number of cells.
        /// </summary>
        public int ReadMap(bool[] walkable, float[] costs)
        {
            long capacity = uint.MaxValue;
            byte[] flags = walkable != null ? new byte[walkable.Length] : null;
            if (walkable != null) capacity = Math.Min(capacity, walkable.Length);
            if (costs != null) capacity = Math.Min(capacity, costs.Length);
            UIntPtr cells;
            Status status;
            using (var w = Pin.At(flags, 0, 1))
            using (var c = Pin.At(costs, 0, 4))
            {
                status = NativeMethods.throng_sim_read_map(
                    Handle, w.Address, c.Address, new UIntPtr((ulong)capacity), out cells);
            }
            Check.Ok(status);
            int n = (int)cells.ToUInt64();
            if (flags != null)
            {
                for (int i = 0; i < n; i++) walkable[i] = flags[i] != 0;
            }
            return n;
        }

        /// <summary>
        /// Sets agent <paramref name="id"/>'s priority class in conflicts (0, the default, to
        /// 255): where agents contend for a cell, a higher class goes first, whatever the others'
        /// waiting (a VIP through a crowd); lower classes can wait as long as higher ones keep
        /// coming.
        /// </summary>
        public void SetPriority(ulong id, byte priority)
        {
            Check.Ok(NativeMethods.throng_sim_set_priority(Handle, id, priority));
        }

        /// <summary>
        /// Sets agent <paramref name="id"/>'s own planner by name ("astar", "jps", "nav",
        /// "dstar", ...), or the simulation's with null; an agent on its way plans again with it.
        /// </summary>
        public void SetPlanner(ulong id, string planner)
        {
            Check.Ok(NativeMethods.throng_sim_set_planner(Handle, id, Utf8.ToNative(planner)));
        }

        /// <summary>
        /// Gives agent <paramref name="id"/> no goal: it drops its route and stands, idle, until
        /// given one again.
        /// </summary>
        public void ClearGoal(ulong id)
        {
            Check.Ok(NativeMethods.throng_sim_set_goal(Handle, id, Engine.NoGoal));
        }

        /// <summary>How many events of <paramref name="kinds"/> the last tick has (see <see cref="ReadEvents"/>).</summary>
        public int EventCount(EventKinds kinds = EventKinds.All)
        {
            UIntPtr count;
            Check.Ok(NativeMethods.throng_sim_read_events(
                Handle, (uint)kinds, IntPtr.Zero, UIntPtr.Zero, out count));
            return (int)count.ToUInt64();
        }

        /// <summary>
        /// Reads the last tick's events of <paramref name="kinds"/> (and the calls made before
        /// it: agents added and removed, goals, map edits) into <paramref name="events"/> from
        /// element <paramref name="offset"/> on; returns how many. Grouped by kind (added,
        /// removed, goals, map edits, plans, moves, arrivals), each group in the order things
        /// happened.
        /// </summary>
        /// <exception cref="ThrongBufferTooSmallException">
        /// The array holds fewer from <paramref name="offset"/> than there are events (nothing is
        /// written; <see cref="EventCount"/> says how many are needed).
        /// </exception>
        public int ReadEvents(AgentEvent[] events, EventKinds kinds = EventKinds.All, int offset = 0)
        {
            long capacity = Check.Room(events, offset, "events");
            if (events == null)
            {
                throw new ThrongArgumentException(Status.NullPointer, "events: the array is null");
            }
            UIntPtr count;
            Status status;
            using (var e = Pin.At(events, offset, 16))
            {
                status = NativeMethods.throng_sim_read_events(
                    Handle, (uint)kinds, e.Address, new UIntPtr((ulong)capacity), out count);
            }
            Check.Ok(status);
            return (int)count.ToUInt64();
        }

        /// <summary>
        /// Reads every live agent's goal (<see cref="Engine.NoGoal"/> for none) into
        /// <paramref name="goals"/> from <paramref name="offset"/> on, in the order of
        /// <see cref="ReadAgents"/>; returns the number of live agents.
        /// </summary>
        public int ReadGoals(uint[] goals, int offset = 0)
        {
            return ReadPerAgent(goals, offset, "goals", true);
        }

        /// <summary>
        /// Reads every live agent's next cell on its route (<see cref="Engine.NoCell"/> when it
        /// has none) into <paramref name="cells"/> from <paramref name="offset"/> on, in the order
        /// of <see cref="ReadAgents"/>; returns the number of live agents. Where it means to step,
        /// not a promise: another agent may hold the cell at the next tick.
        /// </summary>
        public int ReadNextCells(uint[] cells, int offset = 0)
        {
            return ReadPerAgent(cells, offset, "cells", false);
        }

        /// <summary>Goals (<paramref name="goals"/> true) or next cells of every live agent, into <paramref name="values"/>.</summary>
        private int ReadPerAgent(uint[] values, int offset, string name, bool goals)
        {
            long capacity = Check.Room(values, offset, name);
            UIntPtr count;
            Status status;
            using (var v = Pin.At(values, offset, 4))
            {
                var room = new UIntPtr((ulong)capacity);
                status = goals
                    ? NativeMethods.throng_sim_read_goals(Handle, v.Address, room, out count)
                    : NativeMethods.throng_sim_read_next_cells(Handle, v.Address, room, out count);
            }
            Check.Ok(status);
            return (int)count.ToUInt64();
        }

        /// <summary>The number of cells ahead on agent <paramref name="id"/>'s route (see <see cref="ReadRoute"/>).</summary>
        public int RouteLength(ulong id)
        {
            UIntPtr length;
            Check.Ok(NativeMethods.throng_sim_agent_route(Handle, id, IntPtr.Zero, UIntPtr.Zero, out length));
            return (int)length.ToUInt64();
        }

        /// <summary>
        /// Reads the cells ahead on agent <paramref name="id"/>'s route, next cell first and its
        /// goal last (none when it is not on its way), into <paramref name="cells"/> from
        /// <paramref name="offset"/> on; returns how many (to draw a path line, or to animate
        /// ahead).
        /// </summary>
        /// <exception cref="ThrongBufferTooSmallException">The array is shorter than the route (see <see cref="RouteLength"/>).</exception>
        public int ReadRoute(ulong id, uint[] cells, int offset = 0)
        {
            long capacity = Check.Room(cells, offset, "cells");
            if (cells == null)
            {
                throw new ThrongArgumentException(Status.NullPointer, "cells: the array is null");
            }
            UIntPtr length;
            Status status;
            using (var c = Pin.At(cells, offset, 4))
            {
                status = NativeMethods.throng_sim_agent_route(
                    Handle, id, c.Address, new UIntPtr((ulong)capacity), out length);
            }
            Check.Ok(status);
            return (int)length.ToUInt64();
        }
    }
}
