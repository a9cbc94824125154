// The events of one tick (struct ThrongTickEvents), written by the native step calls.

using System.Runtime.InteropServices;

namespace Throng
{
    /// <summary>What happened in one tick, as counts (written by <see cref="Simulation.Step()"/>).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct TickEvents
    {
        /// <summary>The tick played (the first is 0).</summary>
        public ulong Tick;
        /// <summary><see cref="Simulation.StateHash"/> after the tick.</summary>
        public ulong StateHash;
        /// <summary>Plans made.</summary>
        public uint Plans;
        /// <summary>Plans that found no path.</summary>
        public uint PlansFailed;
        /// <summary>Plan requests left for later ticks by the cap on plans per tick.</summary>
        public uint PlansDeferred;
        /// <summary>Agents that took a step.</summary>
        public uint Moved;
        /// <summary>Agents that wanted to step but waited for another agent.</summary>
        public uint Waiting;
        /// <summary>Agents that reached their goal.</summary>
        public uint GoalsReached;
        /// <summary>Live agents after the tick.</summary>
        public uint Agents;
        /// <summary>Agents standing at their goal after the tick.</summary>
        public uint AtGoal;
        /// <summary>Agents with no path to their goal after the tick.</summary>
        public uint NoPath;
        /// <summary>Scripted map changes refused this tick (a scenario's change that could not apply).</summary>
        public uint Rejected;
        /// <summary>
        /// 1 when the run has nothing left to do: a one-shot run (not lifelong) whose agents are
        /// all at their goal or without a path, with no scripted map change to come.
        /// </summary>
        public uint Finished;
        /// <summary>Reserved (0).</summary>
        public uint Reserved;
        /// <summary>Wall time of the tick inside the engine, milliseconds.</summary>
        public double WallMs;

        /// <summary>Whether the run has nothing left to do (<see cref="Finished"/> is 1).</summary>
        public bool IsFinished
        {
            get { return Finished != 0; }
        }
    }
}
