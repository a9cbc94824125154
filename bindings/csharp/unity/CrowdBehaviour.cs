// A crowd of sprites moved by throng: put this on an empty GameObject, give it a prefab (a
// sprite) and a Moving AI .map file in Assets/StreamingAssets, and press Play. Each physics tick
// (FixedUpdate) plays one tick of the simulation; each frame (Update) moves every sprite between
// the cell it left and the cell it reached. See bindings/csharp/unity/README.md.

using System.Collections.Generic;
using System.IO;
using Throng;
using UnityEngine;
using Grid = Throng.Grid; // UnityEngine has a Grid component too

public class CrowdBehaviour : MonoBehaviour
{
    [Tooltip("A Moving AI .map file in Assets/StreamingAssets (the maps of throng's sims/maps).")]
    public string mapFile = "arena.map";

    [Tooltip("One instance per agent (a sprite).")]
    public GameObject agentPrefab;

    [Tooltip("Agents, on random walkable cells.")]
    public int agentCount = 200;

    [Tooltip("World units per cell.")]
    public float cellSize = 0.25f;

    [Tooltip("astar, jps, jps+, nav or auto.")]
    public string planner = "jps";

    public int seed = 1;

    private Grid grid;
    private Simulation sim;
    private Transform[] sprites;
    // The cells every agent stood on at the last two ticks: read into these arrays each tick,
    // never reallocated.
    private uint[] before;
    private uint[] after;
    private int agents;

    void Start()
    {
        grid = Grid.Load(Path.Combine(Application.streamingAssetsPath, mapFile));
        // Lifelong: an agent that arrives gets a new random goal, so the crowd keeps moving.
        sim = new Simulation(grid, "{\"planner\": \"" + planner + "\", \"conflicts\": \"pibt\", "
            + "\"lifelong\": true, \"seed\": " + seed + "}");

        var random = new System.Random(seed);
        var taken = new HashSet<uint>();
        var starts = new uint[agentCount];
        var goals = new uint[agentCount];
        for (int i = 0; i < agentCount; i++)
        {
            starts[i] = RandomFreeCell(random, taken);
            goals[i] = RandomFreeCell(random, null);
        }
        sim.AddAgents(starts, goals, null);

        before = new uint[agentCount];
        after = new uint[agentCount];
        agents = sim.ReadCells(after);
        System.Array.Copy(after, before, agents);
        sprites = new Transform[agents];
        for (int i = 0; i < agents; i++)
        {
            sprites[i] = Instantiate(agentPrefab, transform).transform;
            sprites[i].localPosition = Place(after[i]);
        }
    }

    void FixedUpdate()
    {
        var events = sim.Step();
        if (events.PlansFailed > 0)
        {
            Debug.Log(events.PlansFailed + " agents found no path at tick " + events.Tick);
        }
        // Agents are read in a stable order: with none removed, sprite i is the i-th added.
        var swap = before;
        before = after;
        after = swap;
        agents = sim.ReadCells(after);
    }

    void Update()
    {
        // How far between the last two physics ticks this frame is.
        float t = Mathf.Clamp01((Time.time - Time.fixedTime) / Time.fixedDeltaTime);
        for (int i = 0; i < agents; i++)
        {
            sprites[i].localPosition = Vector3.Lerp(Place(before[i]), Place(after[i]), t);
        }
    }

    void OnDestroy()
    {
        if (sim != null) sim.Dispose();
        if (grid != null) grid.Dispose();
    }

    /// The position of a cell's centre: x to the right, rows downwards.
    private Vector3 Place(uint cell)
    {
        return new Vector3((grid.X(cell) + 0.5f) * cellSize, -(grid.Y(cell) + 0.5f) * cellSize, 0f);
    }

    private uint RandomFreeCell(System.Random random, HashSet<uint> taken)
    {
        while (true)
        {
            int x = random.Next(grid.Width), y = random.Next(grid.Height);
            uint cell = grid.Cell(x, y);
            if (grid.IsWalkable(x, y) && (taken == null || taken.Add(cell)))
            {
                return cell;
            }
        }
    }
}
