// What belongs to the native library as a whole: its version, the number of threads it plans on,
// and the constants of the C ABI.

namespace Throng
{
    /// <summary>The native library: version, threads, and the ABI's special values.</summary>
    public static class Engine
    {
        /// <summary>A goal of "none" (THRONG_NO_GOAL): an agent given it stands until it gets one.</summary>
        public const uint NoGoal = uint.MaxValue;

        /// <summary>The cost a batch plan reports for a query with no path (THRONG_NO_PATH); its length is 0.</summary>
        public const double NoPath = -1.0;

        /// <summary>
        /// The version of the C ABI this binding was written for (THRONG_ABI_VERSION). The first
        /// grid or simulation made checks that the native library speaks it and throws
        /// <see cref="ThrongAbiMismatchException"/> when it does not.
        /// </summary>
        public const uint AbiVersion = 1;

        /// <summary>A cell of "none" (THRONG_NO_CELL): no next cell, or an event about no cell.</summary>
        public const uint NoCell = uint.MaxValue;

        /// <summary>The agent of an event about a map cell (THRONG_NO_AGENT).</summary>
        public const ulong NoAgent = ulong.MaxValue;

        private static volatile bool abiChecked;

        /// <summary>
        /// Checks once that the native library speaks <see cref="AbiVersion"/>; throws
        /// <see cref="ThrongAbiMismatchException"/> otherwise. Called by the constructors of grids
        /// and simulations; call it yourself to fail early at load.
        /// </summary>
        public static void CheckAbi()
        {
            if (abiChecked)
            {
                return;
            }
            Check.Ok(NativeMethods.throng_check_abi(AbiVersion));
            abiChecked = true;
        }

        /// <summary>The native library's version, "MAJOR.MINOR.PATCH".</summary>
        public static string Version
        {
            get { return Utf8.FromNative(NativeMethods.throng_version()); }
        }

        /// <summary>
        /// Sets how many threads the engine plans on (0: one per core). Call it before anything
        /// that plans: the engine's pool is made on first use, and a later call throws
        /// <see cref="ThrongArgumentException"/>.
        /// </summary>
        public static void SetThreads(int threads)
        {
            if (threads < 0)
            {
                throw new ThrongOutOfRangeException("threads: " + threads + " is negative");
            }
            Check.Ok(NativeMethods.throng_set_threads((uint)threads));
        }

        /// <summary>The name of a status code ("THRONG_STATUS_OK", ...).</summary>
        public static string StatusName(Status status)
        {
            return Utf8.FromNative(NativeMethods.throng_status_name((int)status));
        }
    }
}
