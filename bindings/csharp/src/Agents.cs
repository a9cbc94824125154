// The codes the C ABI uses for agents: their states, the actions a caller can make a controlled
// agent do, the outcome of each action, and one agent as read back.

namespace Throng
{
    /// <summary>An agent's state (the codes of throng_sim_read_agents).</summary>
    public enum AgentState : byte
    {
        /// <summary>No goal: standing.</summary>
        Idle = 0,
        /// <summary>Waiting for a plan.</summary>
        Planning = 1,
        /// <summary>On its way.</summary>
        Moving = 2,
        /// <summary>Waiting for another agent to move.</summary>
        Waiting = 3,
        /// <summary>At its goal.</summary>
        Arrived = 4,
        /// <summary>Its goal cannot be reached.</summary>
        NoPath = 5,
    }

    /// <summary>
    /// What a controlled agent does in <see cref="Simulation.Step(ulong[], AgentAction[], ActionOutcome[])"/>
    /// (THRONG_ACTION_*). North is <c>y - 1</c>, east <c>x + 1</c>.
    /// </summary>
    public enum AgentAction : int
    {
        /// <summary>Stay this tick.</summary>
        Wait = 0,
        /// <summary>One step north (y - 1).</summary>
        North = 1,
        /// <summary>One step east (x + 1).</summary>
        East = 2,
        /// <summary>One step south (y + 1).</summary>
        South = 3,
        /// <summary>One step west (x - 1).</summary>
        West = 4,
        /// <summary>One step north-east.</summary>
        NorthEast = 5,
        /// <summary>One step south-east.</summary>
        SouthEast = 6,
        /// <summary>One step south-west.</summary>
        SouthWest = 7,
        /// <summary>One step north-west.</summary>
        NorthWest = 8,
    }

    /// <summary>What came of an <see cref="AgentAction"/>.</summary>
    public enum ActionOutcome : int
    {
        /// <summary>The agent moved.</summary>
        Moved = 0,
        /// <summary>The agent waited, as told.</summary>
        Waited = 1,
        /// <summary>The move was illegal: into a wall, off the map, or the agent was removed.</summary>
        Illegal = 2,
        /// <summary>Another agent was in the way.</summary>
        Blocked = 3,
    }

    /// <summary>One agent as <see cref="Simulation.Agent"/> reads it.</summary>
    public struct AgentInfo
    {
        /// <summary>The cell it stands on (y * width + x).</summary>
        public uint Cell;
        /// <summary>Its goal cell, or <see cref="Engine.NoGoal"/>.</summary>
        public uint Goal;
        /// <summary>Its state.</summary>
        public AgentState State;
    }
}
