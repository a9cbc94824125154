// A simulation (ThrongSim): a crowd on its own copy of a grid, stepped one tick per call. The
// agents' positions are read into the caller's arrays, which a game keeps from frame to frame:
// no allocation per agent or per frame.

using System;

namespace Throng
{
    /// <summary>
    /// A crowd on its own copy of a grid. Each <see cref="Step()"/> plans (in parallel on the
    /// engine's threads) and moves every agent one tick. Calls on one simulation are serialised
    /// by a lock inside the engine; different simulations may be stepped from different threads
    /// at once. Dispose it when done (a forgotten one is freed by its finalizer).
    /// </summary>
    public sealed partial class Simulation : IDisposable
    {
        internal readonly SimHandle Handle;

        /// <summary>The ticks a scenario file plays at most (0 for a simulation made from a grid).</summary>
        public ulong MaxTicks { get; private set; }

        private Simulation(SimHandle handle, ulong maxTicks)
        {
            Handle = handle;
            MaxTicks = maxTicks;
        }

        /// <summary>
        /// A simulation with no agent on a copy of <paramref name="grid"/>.
        /// <paramref name="configJson"/> (null for the defaults) is a JSON object of settings, the
        /// keys of a scenario file's [sim] table plus "seed", e.g.
        /// <c>{"planner": "jps", "conflicts": "pibt", "seed": 7}</c>. <paramref name="nav"/> (may
        /// be null) is the grid's navigation graph for the "nav" and "auto" planners, which
        /// otherwise build one here.
        /// </summary>
        public Simulation(Grid grid, string configJson = null, NavGraph nav = null)
        {
            var gridHandle = Grid.HandleOf(grid);
            byte[] json = Utf8.ToNative(configJson);
            SimHandle handle;
            Check.Ok(nav == null
                ? NativeMethods.throng_sim_new_without_nav(gridHandle, IntPtr.Zero, json, out handle)
                : NativeMethods.throng_sim_new(gridHandle, nav.Handle, json, out handle));
            Handle = handle;
        }

        /// <summary>
        /// The simulation of a scenario file (the files of sims/): its map, settings, agents and
        /// scripted map changes. Stepping it <see cref="MaxTicks"/> times, or until a step
        /// reports <see cref="TickEvents.IsFinished"/>, ends in the state <c>throng run</c> reaches.
        /// </summary>
        public static Simulation FromScenario(string path)
        {
            Engine.CheckAbi();
            SimHandle handle;
            ulong ticks;
            Check.Ok(NativeMethods.throng_sim_from_scenario(Utf8.ToNative(path), out handle, out ticks));
            return new Simulation(handle, ticks);
        }

        /// <summary>Plays one tick and returns its events.</summary>
        public TickEvents Step()
        {
            TickEvents events;
            Check.Ok(NativeMethods.throng_sim_step(Handle, out events));
            return events;
        }

        /// <summary>
        /// Plays one tick in which agent <c>ids[i]</c> does <c>actions[i]</c>; controlled agents not
        /// named stay, the others follow their routes. Each action's outcome goes to
        /// <paramref name="outcomes"/> (may be null). An unknown id or an agent named twice is
        /// refused before anything is played.
        /// </summary>
        public TickEvents Step(ulong[] ids, AgentAction[] actions, ActionOutcome[] outcomes = null)
        {
            int count = ids != null ? ids.Length : actions != null ? actions.Length : 0;
            Check.Holds(actions, 0, count, "actions");
            Check.Holds(outcomes, 0, count, "outcomes");
            TickEvents events;
            Status status;
            using (var i = Pin.At(ids, 0, 8))
            using (var a = Pin.At(actions, 0, 4))
            using (var o = Pin.At(outcomes, 0, 4))
            {
                status = NativeMethods.throng_sim_step_with_actions(
                    Handle, i.Address, a.Address, new UIntPtr((uint)count), o.Address, out events);
            }
            Check.Ok(status);
            return events;
        }

        /// <summary>The number of ticks played.</summary>
        public ulong Tick
        {
            get
            {
                ulong tick;
                Check.Ok(NativeMethods.throng_sim_tick(Handle, out tick));
                return tick;
            }
        }

        /// <summary>
        /// A hash of every live agent's id, cell and state (equal hashes, equal crowds): the
        /// final_state_hash of <c>throng run --json</c> after the same ticks.
        /// </summary>
        public ulong StateHash
        {
            get
            {
                ulong hash;
                Check.Ok(NativeMethods.throng_sim_state_hash(Handle, out hash));
                return hash;
            }
        }

        /// <summary>The number of live agents.</summary>
        public int AgentCount
        {
            get
            {
                UIntPtr count;
                Check.Ok(NativeMethods.throng_sim_agent_count(Handle, out count));
                return (int)count.ToUInt64();
            }
        }

        /// <summary>The summary of the run so far as JSON (the object <c>throng run --json</c> prints).</summary>
        public string SummaryJson()
        {
            UIntPtr needed;
            var status = NativeMethods.throng_sim_summary_json(Handle, null, UIntPtr.Zero, out needed);
            if (status != Status.BufferTooSmall)
            {
                Check.Ok(status);
            }
            var buffer = new byte[needed.ToUInt64()];
            Check.Ok(NativeMethods.throng_sim_summary_json(Handle, buffer, needed, out needed));
            return Utf8.FromBuffer(buffer);
        }

        /// <summary>
        /// Adds an agent per <c>starts[i]</c>, heading for <c>goals[i]</c> (cells y * width + x;
        /// <paramref name="goals"/> may be null, and a goal may be <see cref="Engine.NoGoal"/>: the
        /// agent stands until given one), and writes their ids to <paramref name="ids"/> (may be
        /// null). All or nothing: when one agent cannot be added (outside the grid, blocked, or on
        /// another agent's cell) none is, and the message names it.
        /// </summary>
        public void AddAgents(uint[] starts, uint[] goals, ulong[] ids)
        {
            int count = starts != null ? starts.Length : goals != null ? goals.Length : 0;
            Check.Holds(goals, 0, count, "goals");
            Check.Holds(ids, 0, count, "ids");
            Status status;
            using (var s = Pin.At(starts, 0, 4))
            using (var g = Pin.At(goals, 0, 4))
            using (var i = Pin.At(ids, 0, 8))
            {
                status = NativeMethods.throng_sim_add_agents(
                    Handle, s.Address, g.Address, new UIntPtr((uint)count), i.Address);
            }
            Check.Ok(status);
        }

        /// <summary>Adds one agent on <paramref name="start"/> heading for <paramref name="goal"/>; returns its id.</summary>
        public ulong AddAgent(uint start, uint goal = Engine.NoGoal)
        {
            var ids = new ulong[1];
            AddAgents(new[] { start }, new[] { goal }, ids);
            return ids[0];
        }

        /// <summary>Removes agent <paramref name="id"/>; its cell is free from now on.</summary>
        public void RemoveAgent(ulong id)
        {
            Check.Ok(NativeMethods.throng_sim_remove_agent(Handle, id));
        }

        /// <summary>
        /// Gives agent <paramref name="id"/> a new goal cell: it plans its way there on the next
        /// tick. <see cref="Engine.NoGoal"/> clears its goal (see <see cref="ClearGoal"/>).
        /// </summary>
        public void SetGoal(ulong id, uint goal)
        {
            Check.Ok(NativeMethods.throng_sim_set_goal(Handle, id, goal));
        }

        /// <summary>
        /// Hands agent <paramref name="id"/> to the caller (true): it no longer plans and moves only
        /// as <see cref="Step(ulong[], AgentAction[], ActionOutcome[])"/> tells it; false gives it back.
        /// </summary>
        public void SetControlled(ulong id, bool controlled)
        {
            Check.Ok(NativeMethods.throng_sim_set_controlled(Handle, id, controlled ? (byte)1 : (byte)0));
        }

        /// <summary>
        /// Makes a cell of the simulation's map walkable or blocked, now. Agents whose path
        /// crosses a newly blocked cell replan; a cell an agent stands on cannot be blocked
        /// (<see cref="ThrongCellOccupiedException"/>).
        /// </summary>
        public void SetWalkable(int x, int y, bool walkable)
        {
            Check.Ok(NativeMethods.throng_sim_set_walkable(
                Handle, Grid.Coordinate(x, "x"), Grid.Coordinate(y, "y"), walkable ? (byte)1 : (byte)0));
        }

        /// <summary>
        /// Reads every live agent, in a stable order, into the caller's arrays from element
        /// <paramref name="offset"/> on: ids, cells (y * width + x) and states; any array may be
        /// null. Returns the number of live agents. Nothing is allocated: keep the arrays from
        /// frame to frame.
        /// </summary>
        /// <exception cref="ThrongBufferTooSmallException">
        /// An array holds fewer elements from <paramref name="offset"/> than there are agents
        /// (nothing is written; <see cref="AgentCount"/> says how many are needed).
        /// </exception>
        public int ReadAgents(ulong[] ids, uint[] cells, AgentState[] states, int offset = 0)
        {
            long capacity = uint.MaxValue;
            if (ids != null) capacity = Math.Min(capacity, Check.Room(ids, offset, "ids"));
            if (cells != null) capacity = Math.Min(capacity, Check.Room(cells, offset, "cells"));
            if (states != null) capacity = Math.Min(capacity, Check.Room(states, offset, "states"));
            UIntPtr count;
            Status status;
            using (var i = Pin.At(ids, offset, 8))
            using (var c = Pin.At(cells, offset, 4))
            using (var s = Pin.At(states, offset, 1))
            {
                status = NativeMethods.throng_sim_read_agents(
                    Handle, i.Address, c.Address, s.Address, new UIntPtr((ulong)capacity), out count);
            }
            Check.Ok(status);
            return (int)count.ToUInt64();
        }

        /// <summary>Reads every live agent's cell into <paramref name="cells"/> (see <see cref="ReadAgents"/>).</summary>
        public int ReadCells(uint[] cells, int offset = 0)
        {
            return ReadAgents(null, cells, null, offset);
        }

        /// <summary>Reads one agent: its cell, goal and state.</summary>
        public AgentInfo Agent(ulong id)
        {
            uint cell, goal;
            byte state;
            Check.Ok(NativeMethods.throng_sim_agent(Handle, id, out cell, out goal, out state));
            return new AgentInfo { Cell = cell, Goal = goal, State = (AgentState)state };
        }

        /// <summary>Frees the native simulation.</summary>
        public void Dispose()
        {
            Handle.Dispose();
        }
    }
}
