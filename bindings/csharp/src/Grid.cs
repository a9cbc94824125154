// A grid (ThrongGrid): the map the crowd walks on, from a Moving AI .map file or from the
// caller's cells. Cells are numbered row by row: y * width + x.

using System;

namespace Throng
{
    /// <summary>
    /// A grid of walkable and blocked cells, 8-connected (straight and diagonal moves, no corner
    /// cutting) or 4-connected. Simulations and navigation graphs made from it keep their own
    /// copy. Dispose it when done (a forgotten one is freed by its finalizer).
    /// </summary>
    public sealed class Grid : IDisposable
    {
        internal readonly GridHandle Handle;

        /// <summary>Columns.</summary>
        public int Width { get; private set; }

        /// <summary>Rows.</summary>
        public int Height { get; private set; }

        private Grid(GridHandle handle)
        {
            Handle = handle;
            uint width, height;
            Check.Ok(NativeMethods.throng_grid_size(handle, out width, out height));
            Width = (int)width;
            Height = (int)height;
        }

        /// <summary>
        /// Loads a Moving AI <c>.map</c> file. <paramref name="neighbours"/> is 8 or 4. Throws
        /// <see cref="ThrongIoException"/> for a file that cannot be read,
        /// <see cref="ThrongParseException"/> for one that is not a map.
        /// </summary>
        public static Grid Load(string path, int neighbours = 8)
        {
            Engine.CheckAbi();
            GridHandle handle;
            Check.Ok(NativeMethods.throng_grid_load(
                Utf8.ToNative(path), unchecked((uint)neighbours), out handle));
            return new Grid(handle);
        }

        /// <summary>
        /// A grid of <paramref name="width"/> x <paramref name="height"/> cells from
        /// <paramref name="cells"/>, row by row (cell y * width + x): 0 blocked, anything else
        /// walkable. <paramref name="neighbours"/> is 8 or 4.
        /// </summary>
        public static Grid FromCells(int width, int height, byte[] cells, int neighbours = 8)
        {
            Engine.CheckAbi();
            if (width < 0 || height < 0)
            {
                throw new ThrongOutOfRangeException(string.Format(
                    "a grid of {0} x {1} cells: width and height must not be negative", width, height));
            }
            int count = cells != null ? cells.Length : Math.Max(width, 0) * Math.Max(height, 0);
            GridHandle handle;
            using (var pin = Pin.At(cells, 0, 1))
            {
                Check.Ok(NativeMethods.throng_grid_from_cells(
                    unchecked((uint)width), unchecked((uint)height), pin.Address,
                    new UIntPtr((uint)count), unchecked((uint)neighbours), out handle));
            }
            return new Grid(handle);
        }

        /// <summary>A grid from walkable flags, row by row (true walkable).</summary>
        public static Grid FromCells(int width, int height, bool[] walkable, int neighbours = 8)
        {
            byte[] cells = null;
            if (walkable != null)
            {
                cells = new byte[walkable.Length];
                for (int i = 0; i < walkable.Length; i++)
                {
                    cells[i] = walkable[i] ? (byte)1 : (byte)0;
                }
            }
            return FromCells(width, height, cells, neighbours);
        }

        /// <summary>Whether the cell at column <paramref name="x"/>, row <paramref name="y"/> is walkable.</summary>
        public bool IsWalkable(int x, int y)
        {
            byte walkable;
            Check.Ok(NativeMethods.throng_grid_is_walkable(Handle, Coordinate(x, "x"), Coordinate(y, "y"), out walkable));
            return walkable != 0;
        }

        /// <summary>
        /// Makes a cell walkable or blocked. Navigation graphs and simulations already made from
        /// the grid do not see the change (use <see cref="Simulation.SetWalkable"/>).
        /// </summary>
        public void SetWalkable(int x, int y, bool walkable)
        {
            Check.Ok(NativeMethods.throng_grid_set_walkable(
                Handle, Coordinate(x, "x"), Coordinate(y, "y"), walkable ? (byte)1 : (byte)0));
        }

        /// <summary>
        /// Sets a cell's terrain cost: entering it costs the base step times
        /// <paramref name="cost"/>, a finite number above 0 (mud 3, a road 0.5). Navigation graphs
        /// and simulations already made from the grid do not see the change (use
        /// <see cref="Simulation.SetCost"/>).
        /// </summary>
        public void SetCost(int x, int y, float cost)
        {
            Check.Ok(NativeMethods.throng_grid_set_cost(Handle, Coordinate(x, "x"), Coordinate(y, "y"), cost));
        }

        /// <summary>A cell's terrain cost (1 on a grid without costs).</summary>
        public float Cost(int x, int y)
        {
            float cost;
            Check.Ok(NativeMethods.throng_grid_cost(Handle, Coordinate(x, "x"), Coordinate(y, "y"), out cost));
            return cost;
        }

        /// <summary>The id of the cell at column <paramref name="x"/>, row <paramref name="y"/>: y * width + x.</summary>
        public uint Cell(int x, int y)
        {
            if (x < 0 || y < 0 || x >= Width || y >= Height)
            {
                throw new ThrongOutOfRangeException(string.Format(
                    "cell ({0}, {1}) is outside the {2} x {3} grid", x, y, Width, Height));
            }
            return (uint)(y * Width + x);
        }

        /// <summary>The column of cell <paramref name="cell"/>.</summary>
        public int X(uint cell)
        {
            return (int)(cell % (uint)Width);
        }

        /// <summary>The row of cell <paramref name="cell"/>.</summary>
        public int Y(uint cell)
        {
            return (int)(cell / (uint)Width);
        }

        /// <summary>Frees the native grid.</summary>
        public void Dispose()
        {
            Handle.Dispose();
        }

        internal static GridHandle HandleOf(Grid grid)
        {
            if (grid == null)
            {
                throw new ThrongArgumentException(Status.NullPointer, "the grid is null");
            }
            return grid.Handle;
        }

        /// <summary>A coordinate for the engine, which says when it is outside the grid.</summary>
        internal static uint Coordinate(int value, string name)
        {
            if (value < 0)
            {
                throw new ThrongOutOfRangeException(string.Format("{0} {1} is negative", name, value));
            }
            return (uint)value;
        }
    }
}
