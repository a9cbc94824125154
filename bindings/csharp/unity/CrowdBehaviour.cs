// A crowd of sprites moved by throng: put this on an empty GameObject, give it a prefab (a
// sprite) and a Moving AI .map file in Assets/StreamingAssets, and press Play. Each physics tick
// (FixedUpdate) finishes the tick the engine computed since the last one and begins the next, so
// the engine's work overlaps the frames in between; each frame (Update) moves every sprite
// between the cell it left and the cell it reached, and draws the route of one agent. The
// tick's events say who arrived, without diffing arrays. F5 saves the crowd to a file (a
// snapshot), F9 loads it back: the crowd plays on from there exactly as it did after the save.
// See bindings/csharp/unity/README.md.

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
    // The tick's arrivals and one agent's route ahead: kept from tick to tick as well.
    private AgentEvent[] events = new AgentEvent[256];
    private uint[] route = new uint[1024];
    private int routeLength;
    private ulong[] ids;
    private long arrivals;
    // F5 and F9 are read each frame and served at the next physics tick, between two steps.
    private bool saveRequested;
    private bool loadRequested;

    private string SavePath
    {
        get { return Path.Combine(Application.persistentDataPath, "crowd.snapshot"); }
    }

    void Start()
    {
        Engine.CheckAbi(); // fails at once if the plugin is not the one this binding speaks to
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
        ids = new ulong[agentCount];
        sim.AddAgents(starts, goals, ids);

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
        sim.BeginStep(); // the first tick, computed while the first frames render
    }

    void FixedUpdate()
    {
        var tick = sim.FinishStep();
        // A snapshot is taken between steps (not while one is in flight).
        if (saveRequested)
        {
            File.WriteAllBytes(SavePath, sim.Snapshot());
            saveRequested = false;
            Debug.Log("saved tick " + sim.Tick + " to " + SavePath);
        }
        if (loadRequested && File.Exists(SavePath))
        {
            // The same agents, slots and ids as when saved: sprite i stays agent i.
            sim.Restore(File.ReadAllBytes(SavePath));
            agents = sim.ReadCells(after);
            System.Array.Copy(after, before, agents);
            Debug.Log("loaded tick " + sim.Tick);
        }
        loadRequested = false;
        if (tick.PlansFailed > 0)
        {
            Debug.Log(tick.PlansFailed + " agents found no path at tick " + tick.Tick);
        }
        // Who arrived, from the tick's events (a lifelong crowd: each then gets a new goal).
        int n = sim.EventCount(EventKinds.Arrived);
        if (n > events.Length) events = new AgentEvent[n * 2];
        n = sim.ReadEvents(events, EventKinds.Arrived);
        for (int i = 0; i < n; i++)
        {
            if (events[i].Detail != 0) arrivals++;
        }
        // Agents are read in a stable order: with none removed, sprite i is the i-th added.
        var swap = before;
        before = after;
        after = swap;
        agents = sim.ReadCells(after);
        int length = sim.RouteLength(ids[0]);
        if (length > route.Length) route = new uint[length * 2];
        routeLength = sim.ReadRoute(ids[0], route);
        // The next tick runs on the engine's threads while Unity renders this one.
        sim.BeginStep();
    }

    void Update()
    {
        if (Input.GetKeyDown(KeyCode.F5)) saveRequested = true;
        if (Input.GetKeyDown(KeyCode.F9)) loadRequested = true;
        // How far between the last two physics ticks this frame is.
        float t = Mathf.Clamp01((Time.time - Time.fixedTime) / Time.fixedDeltaTime);
        for (int i = 0; i < agents; i++)
        {
            sprites[i].localPosition = Vector3.Lerp(Place(before[i]), Place(after[i]), t);
        }
        // Agent 0's route ahead, a line from cell to cell.
        for (int i = 1; i < routeLength; i++)
        {
            Debug.DrawLine(transform.TransformPoint(Place(route[i - 1])),
                transform.TransformPoint(Place(route[i])), Color.yellow);
        }
    }

    void OnDestroy()
    {
        // A step in flight is dropped with the simulation.
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
