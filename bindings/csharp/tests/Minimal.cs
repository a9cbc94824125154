// A crowd of two on an 8 x 3 map, stepped until both arrive.
using System;
using Throng;

static class Minimal
{
    static void Main()
    {
        // Cells row by row (cell id = y * width + x): a wall with a gap at each end.
        string[] rows = { "........", ".######.", "........" };
        var cells = new byte[24];
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 8; x++)
                cells[y * 8 + x] = (byte)(rows[y][x] == '.' ? 1 : 0);
        using (var grid = Grid.FromCells(8, 3, cells))
        using (var sim = new Simulation(grid, "{\"planner\": \"jps\"}"))
        {
            // (0,0) -> (7,2) and (0,2) -> (7,0)
            sim.AddAgents(new uint[] { 0, 16 }, new uint[] { 23, 7 }, null);
            var events = new TickEvents();
            for (int tick = 0; tick < 100 && !events.IsFinished; tick++)
                events = sim.Step();

            var at = new uint[2];
            int count = sim.ReadCells(at);
            for (int i = 0; i < count; i++)
                Console.WriteLine("agent {0} at ({1}, {2})", i, grid.X(at[i]), grid.Y(at[i]));
            Console.WriteLine("all arrived after {0} ticks", events.Tick + 1);
        }
    }
}
