// The native handles as SafeHandles. A SafeHandle frees its native object exactly once (Dispose,
// or the finalizer of a forgotten one), and the runtime holds a reference on it for the length of
// every P/Invoke call it is passed to, so a Dispose on another thread never frees a handle while
// a call uses it (the ordering the C ABI leaves to the caller). A disposed handle passed to a
// call raises ObjectDisposedException before the native side is reached.

using System;
using Microsoft.Win32.SafeHandles;

namespace Throng
{
    /// <summary>A native grid (ThrongGrid *), freed by throng_grid_free.</summary>
    internal sealed class GridHandle : SafeHandleZeroOrMinusOneIsInvalid
    {
        private GridHandle() : base(true) { }

        protected override bool ReleaseHandle()
        {
            return NativeMethods.throng_grid_free(handle) == Status.Ok;
        }
    }

    /// <summary>A native navigation graph (ThrongNav *), freed by throng_nav_free.</summary>
    internal sealed class NavHandle : SafeHandleZeroOrMinusOneIsInvalid
    {
        private NavHandle() : base(true) { }

        protected override bool ReleaseHandle()
        {
            return NativeMethods.throng_nav_free(handle) == Status.Ok;
        }
    }

    /// <summary>A native simulation (ThrongSim *), freed by throng_sim_free.</summary>
    internal sealed class SimHandle : SafeHandleZeroOrMinusOneIsInvalid
    {
        private SimHandle() : base(true) { }

        protected override bool ReleaseHandle()
        {
            return NativeMethods.throng_sim_free(handle) == Status.Ok;
        }
    }
}
