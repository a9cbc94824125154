// The exceptions a failed native call raises: one type per family of status codes, each carrying
// the engine's one-line message (throng_last_error, read on the calling thread right after the
// call). All derive from ThrongException, so one catch takes every engine failure.

using System;

namespace Throng
{
    /// <summary>
    /// A failure reported by the engine: <see cref="Status"/> is the native status code and
    /// <see cref="Exception.Message"/> the engine's message (what went wrong and where).
    /// </summary>
    public class ThrongException : Exception
    {
        /// <summary>The native status code.</summary>
        public Status Status { get; private set; }

        /// <summary>A failure with its status code and message.</summary>
        public ThrongException(Status status, string message) : base(message)
        {
            Status = status;
        }

        /// <summary>The exception for <paramref name="status"/>: the subclass of its family.</summary>
        public static ThrongException For(Status status, string message)
        {
            switch (status)
            {
                case Status.NullPointer:
                case Status.InvalidArgument:
                    return new ThrongArgumentException(status, message);
                case Status.OutOfRange:
                    return new ThrongOutOfRangeException(message);
                case Status.BufferTooSmall:
                    return new ThrongBufferTooSmallException(message);
                case Status.Io:
                    return new ThrongIoException(message);
                case Status.Parse:
                    return new ThrongParseException(message);
                case Status.UnknownAgent:
                    return new ThrongUnknownAgentException(message);
                case Status.CellOccupied:
                    return new ThrongCellOccupiedException(message);
                case Status.InvalidHandle:
                    return new ThrongInvalidHandleException(message);
                case Status.AbiMismatch:
                    return new ThrongAbiMismatchException(message);
                case Status.Busy:
                    return new ThrongBusyException(message);
                default:
                    return new ThrongPanicException(status, message);
            }
        }
    }

    /// <summary>
    /// An argument the engine refused: a null array (<see cref="Status.NullPointer"/>), or a value
    /// wrong for a reason the message gives (<see cref="Status.InvalidArgument"/>: a blocked
    /// start, an unknown planner, bad settings JSON, ...). Cells outside the grid and short
    /// arrays are the subclasses <see cref="ThrongOutOfRangeException"/> and
    /// <see cref="ThrongBufferTooSmallException"/>.
    /// </summary>
    public class ThrongArgumentException : ThrongException
    {
        /// <summary>An argument failure with its status code and message.</summary>
        public ThrongArgumentException(Status status, string message) : base(status, message) { }
    }

    /// <summary>A cell, coordinate or index outside the grid or the array (<see cref="Status.OutOfRange"/>).</summary>
    public class ThrongOutOfRangeException : ThrongArgumentException
    {
        /// <summary>An out-of-range failure with its message.</summary>
        public ThrongOutOfRangeException(string message) : base(Status.OutOfRange, message) { }
    }

    /// <summary>
    /// An array too small for what the call writes (<see cref="Status.BufferTooSmall"/>). The
    /// message says how many elements are needed.
    /// </summary>
    public class ThrongBufferTooSmallException : ThrongArgumentException
    {
        /// <summary>A buffer failure with its message.</summary>
        public ThrongBufferTooSmallException(string message) : base(Status.BufferTooSmall, message) { }
    }

    /// <summary>A file that could not be read or written (<see cref="Status.Io"/>).</summary>
    public class ThrongIoException : ThrongException
    {
        /// <summary>An I/O failure with its message (it names the file).</summary>
        public ThrongIoException(string message) : base(Status.Io, message) { }
    }

    /// <summary>A file read but malformed (<see cref="Status.Parse"/>): the message names the file and line.</summary>
    public class ThrongParseException : ThrongException
    {
        /// <summary>A parse failure with its message.</summary>
        public ThrongParseException(string message) : base(Status.Parse, message) { }
    }

    /// <summary>An agent id that names no live agent (<see cref="Status.UnknownAgent"/>): removed, or never added.</summary>
    public class ThrongUnknownAgentException : ThrongException
    {
        /// <summary>An unknown-agent failure with its message.</summary>
        public ThrongUnknownAgentException(string message) : base(Status.UnknownAgent, message) { }
    }

    /// <summary>
    /// A cell that holds an agent (<see cref="Status.CellOccupied"/>): it cannot be blocked, or
    /// another agent cannot be put there.
    /// </summary>
    public class ThrongCellOccupiedException : ThrongException
    {
        /// <summary>A cell-occupied failure with its message.</summary>
        public ThrongCellOccupiedException(string message) : base(Status.CellOccupied, message) { }
    }

    /// <summary>
    /// A handle the engine does not know (<see cref="Status.InvalidHandle"/>). The binding's
    /// handles are SafeHandles, so this means a bug; a disposed object raises
    /// <see cref="ObjectDisposedException"/> before any native call.
    /// </summary>
    public class ThrongInvalidHandleException : ThrongException
    {
        /// <summary>An invalid-handle failure with its message.</summary>
        public ThrongInvalidHandleException(string message) : base(Status.InvalidHandle, message) { }
    }

    /// <summary>
    /// The native library is not the one this binding was built for
    /// (<see cref="Status.AbiMismatch"/>): the message names both ABI versions. Nothing else
    /// can be called; ship the library and the binding of one release together.
    /// </summary>
    public class ThrongAbiMismatchException : ThrongException
    {
        /// <summary>An ABI mismatch with its message.</summary>
        public ThrongAbiMismatchException(string message) : base(Status.AbiMismatch, message) { }
    }

    /// <summary>
    /// A call on a simulation whose step is in flight (<see cref="Status.Busy"/>): between
    /// <see cref="Simulation.BeginStep"/> and <see cref="Simulation.FinishStep"/> only the reads
    /// they list are answered.
    /// </summary>
    public class ThrongBusyException : ThrongException
    {
        /// <summary>A busy failure with its message.</summary>
        public ThrongBusyException(string message) : base(Status.Busy, message) { }
    }

    /// <summary>
    /// The engine panicked (<see cref="Status.Panic"/>, a bug in throng: please report the
    /// message), or returned a code this binding does not know. The object used is unusable.
    /// </summary>
    public class ThrongPanicException : ThrongException
    {
        /// <summary>A panic with its status code and message.</summary>
        public ThrongPanicException(Status status, string message) : base(status, message) { }
    }
}
