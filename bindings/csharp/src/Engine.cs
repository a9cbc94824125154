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
