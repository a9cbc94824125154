// The status codes of the C ABI (enum ThrongStatus in capi/include/throng.h).

namespace Throng
{
    /// <summary>
    /// What a native call did: <see cref="Ok"/> or the code of a failure. The binding turns every
    /// failure into a <see cref="ThrongException"/> (a subclass per family of codes); the code is
    /// its <see cref="ThrongException.Status"/>.
    /// </summary>
    public enum Status
    {
        /// <summary>Success.</summary>
        Ok = 0,
        /// <summary>A pointer that must not be NULL was NULL (a null array), or misaligned.</summary>
        NullPointer = 1,
        /// <summary>A handle that is not a live handle of the expected kind.</summary>
        InvalidHandle = 2,
        /// <summary>A caller's array is too small; the size needed was written where the call says.</summary>
        BufferTooSmall = 3,
        /// <summary>A cell, coordinate or index outside the grid or the array.</summary>
        OutOfRange = 4,
        /// <summary>An argument wrong for another reason (blocked start, unknown planner, bad JSON...).</summary>
        InvalidArgument = 5,
        /// <summary>A file could not be read or written.</summary>
        Io = 6,
        /// <summary>A file was read but is malformed.</summary>
        Parse = 7,
        /// <summary>An agent id that names no live agent.</summary>
        UnknownAgent = 8,
        /// <summary>A cell holds an agent and cannot be blocked, or another agent cannot go there.</summary>
        CellOccupied = 9,
        /// <summary>The engine panicked (a bug in throng); the handle used is unusable from now on.</summary>
        Panic = 10,
        /// <summary>The native library speaks another version of the ABI than this binding (see <see cref="Engine.AbiVersion"/>).</summary>
        AbiMismatch = 11,
        /// <summary>A step begun by <see cref="Simulation.BeginStep"/> is in flight: finish it first.</summary>
        Busy = 12,
    }
}
