// A navigation graph (ThrongNav): the navigation points of one grid, for the "nav" and "auto"
// planners. Building one takes seconds on a big map: build it offline (`throng nav`) or once,
// save it, and load it at start-up.

using System;

namespace Throng
{
    /// <summary>The navigation points of a grid. Dispose it when done.</summary>
    public sealed class NavGraph : IDisposable
    {
        internal readonly NavHandle Handle;

        private NavGraph(NavHandle handle)
        {
            Handle = handle;
        }

        /// <summary>Builds the navigation points of <paramref name="grid"/> (on the engine's threads).</summary>
        public static NavGraph Build(Grid grid)
        {
            NavHandle handle;
            Check.Ok(NativeMethods.throng_nav_build(Grid.HandleOf(grid), out handle));
            return new NavGraph(handle);
        }

        /// <summary>
        /// Loads navigation points saved by <see cref="Save"/> or <c>throng nav</c> for
        /// <paramref name="grid"/>; a file made for another map is refused with
        /// <see cref="ThrongParseException"/>.
        /// </summary>
        public static NavGraph Load(string path, Grid grid)
        {
            NavHandle handle;
            Check.Ok(NativeMethods.throng_nav_load(Utf8.ToNative(path), Grid.HandleOf(grid), out handle));
            return new NavGraph(handle);
        }

        /// <summary>Saves the navigation graph to <paramref name="path"/>.</summary>
        public void Save(string path)
        {
            Check.Ok(NativeMethods.throng_nav_save(Handle, Utf8.ToNative(path)));
        }

        /// <summary>Frees the native navigation graph.</summary>
        public void Dispose()
        {
            Handle.Dispose();
        }
    }
}
